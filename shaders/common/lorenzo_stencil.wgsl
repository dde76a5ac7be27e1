// The first-order Lorenzo stencil, shared by lorenzo_forward and the fused chain
// kernels. Needs a Params struct with nx, ny, nz, tx, ty, tz and centering, and
// `fn code_at(j: u32) -> u32` (the integer code of value j of the slab).

// code at (x - dx, y - dy, z - dz) relative to the tile head value mu, 0 outside the tile
fn stencil_nb(x: u32, y: u32, z: u32, dx: u32, dy: u32, dz: u32, x0: u32, y0: u32, z0: u32, mu: u32) -> u32 {
    if (x < x0 + dx || y < y0 + dy || z < z0 + dz) {
        return 0u;
    }
    return code_at(((z - dz) * P.ny + (y - dy)) * P.nx + (x - dx)) - mu;
}

// Lorenzo residual of value i (wrapping u32); .y = 1 when i is its tile's head (then .z
// is the head code mu, for the means output). The 2^rank stencil terms are walked in a
// loop (not written out) so that the quantization behind code_at is inlined once: the
// unrolled form kept eight inlined quantizations live: chain_width took 30.7 ms on a
// 1 GiB field on the H200 (not replay-timed) against 5-6 ms now.
fn lorenzo_residual(i: u32) -> vec3<u32> {
    let x = i % P.nx;
    let y = (i / P.nx) % P.ny;
    let z = i / (P.nx * P.ny);
    let x0 = x - x % P.tx;
    let y0 = y - y % P.ty;
    let z0 = z - z % P.tz;
    var mu = 0u;
    if (P.centering == 1u) {
        mu = code_at((z0 * P.ny + y0) * P.nx + x0);
    }
    var terms = 2u;
    if (P.nz > 1u) {
        terms = 8u;
    } else if (P.ny > 1u) {
        terms = 4u;
    }
    var r = 0u;
    for (var k = 0u; k < terms; k++) {
        let dx = k & 1u;
        let dy = (k >> 1u) & 1u;
        let dz = k >> 2u;
        let v = stencil_nb(x, y, z, dx, dy, dz, x0, y0, z0, mu);
        // sign (-1)^(dx+dy+dz)
        if (((dx + dy + dz) & 1u) == 0u) {
            r = r + v;
        } else {
            r = r - v;
        }
    }
    let head = select(0u, 1u, x == x0 && y == y0 && z == z0);
    return vec3<u32>(r, head, mu);
}
