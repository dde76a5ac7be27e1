// Lorenzo residuals of a contiguous span of values, each neighbour code quantized once.
// The residual at global index g needs the codes at g - dx - off(c) for dx in {0, 1}
// and the 1, 2 or 4 row offsets off(c) = dy * nx + dz * nx * ny (c = dy | dz << 1), so
// for a span [s0, s0 + len) those are `rank` windows of len + 1 consecutive codes:
// window c, slot t holds the code at s0 + t - 1 - off(c). Filling them costs
// 2^(rank-1) * (len + 1) quantizations instead of 2^rank * len (plus one per value for
// the tile head with centering). The arithmetic is lorenzo_stencil.wgsl's, code for
// code, so the residuals are the same bits. Needs WG, Params (nx, ny, nz, tx, ty, tz,
// centering), code_at; SPAN values per fill.
const SPAN: u32 = 256u;
var<workgroup> s_win: array<u32, 1028>; // 4 windows of SPAN + 1

fn win_count() -> u32 {
    if (P.nz > 1u) {
        return 4u;
    }
    if (P.ny > 1u) {
        return 2u;
    }
    return 1u;
}

fn win_offset(c: u32) -> u32 {
    return select(0u, P.nx, (c & 1u) != 0u) + select(0u, P.nx * P.ny, (c & 2u) != 0u);
}

// Fill the windows of the span [s0, s0 + slen) (slen <= SPAN); barrier after.
fn fill_windows(s0: u32, slen: u32, lid: u32) {
    let w = slen + 1u;
    let nw = win_count();
    for (var j = lid; j < nw * w; j += WG) {
        let c = j / w;
        let t = j % w;
        let off = win_offset(c) + 1u;
        var v = 0u;
        if (s0 + t >= off) {
            v = code_at(s0 + t - off);
        }
        s_win[c * (SPAN + 1u) + t] = v;
    }
}

// Residual of value g = s0 + i of the filled span (as lorenzo_residual(g)).
fn window_residual(i: u32, g: u32) -> vec3<u32> {
    let x = g % P.nx;
    let y = (g / P.nx) % P.ny;
    let z = g / (P.nx * P.ny);
    let x0 = x - x % P.tx;
    let y0 = y - y % P.ty;
    let z0 = z - z % P.tz;
    var mu = 0u;
    if (P.centering == 1u) {
        mu = code_at((z0 * P.ny + y0) * P.nx + x0);
    }
    let terms = 2u * win_count();
    var r = 0u;
    for (var k = 0u; k < terms; k++) {
        let dx = k & 1u;
        let c = k >> 1u;
        let dy = c & 1u;
        let dz = c >> 1u;
        var v = 0u;
        if (!(x < x0 + dx || y < y0 + dy || z < z0 + dz)) {
            v = s_win[c * (SPAN + 1u) + i + 1u - dx] - mu;
        }
        if (((dx + dy + dz) & 1u) == 0u) {
            r = r + v;
        } else {
            r = r - v;
        }
    }
    let head = select(0u, 1u, x == x0 && y == y0 && z == z0);
    return vec3<u32>(r, head, mu);
}
