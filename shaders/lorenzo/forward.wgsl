// lorenzo_forward: first-order Lorenzo residual of every integer code, one invocation
// per value, in 1-D, 2-D and 3-D alike (missing dims have extent 1 and their
// neighbours are outside the tile). Neighbours outside the value's tile count as 0; with
// centering every tile is predicted relative to its head value, which goes to `means`.
// Arithmetic wraps modulo 2^32, so the transform is lossless for any input.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> codes: array<u32>;
@group(0) @binding(2) var<storage, read_write> residuals: array<u32>;
@group(0) @binding(3) var<storage, read_write> means: array<u32>;

const WG: u32 = 256u;

// value at (x - dx, y - dy, z - dz) relative to the tile head, 0 outside the tile
fn nb(x: u32, y: u32, z: u32, dx: u32, dy: u32, dz: u32, x0: u32, y0: u32, z0: u32, mu: u32) -> u32 {
    if (x < x0 + dx || y < y0 + dy || z < z0 + dz) {
        return 0u;
    }
    return codes[P.elem_base + ((z - dz) * P.ny + (y - dy)) * P.nx + (x - dx)] - mu;
}

@compute @workgroup_size(WG)
fn lorenzo_forward(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    let n = P.nx * P.ny * P.nz;
    if (i >= n) {
        return;
    }
    let x = i % P.nx;
    let y = (i / P.nx) % P.ny;
    let z = i / (P.nx * P.ny);
    let x0 = x - x % P.tx;
    let y0 = y - y % P.ty;
    let z0 = z - z % P.tz;
    var mu = 0u;
    if (P.centering == 1u) {
        mu = codes[P.elem_base + (z0 * P.ny + y0) * P.nx + x0];
        if (x == x0 && y == y0 && z == z0) {
            means[tile_index(x, y, z)] = mu;
        }
    }
    let r = nb(x, y, z, 0u, 0u, 0u, x0, y0, z0, mu)
        - nb(x, y, z, 1u, 0u, 0u, x0, y0, z0, mu)
        - nb(x, y, z, 0u, 1u, 0u, x0, y0, z0, mu)
        - nb(x, y, z, 0u, 0u, 1u, x0, y0, z0, mu)
        + nb(x, y, z, 1u, 1u, 0u, x0, y0, z0, mu)
        + nb(x, y, z, 1u, 0u, 1u, x0, y0, z0, mu)
        + nb(x, y, z, 0u, 1u, 1u, x0, y0, z0, mu)
        - nb(x, y, z, 1u, 1u, 1u, x0, y0, z0, mu);
    residuals[P.elem_base + i] = r;
}
