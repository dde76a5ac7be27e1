// Parameters of the scan kernels (mirrored by ScanParams), and the tile load they share:
// TILE = WG * ITEMS values per workgroup, ITEMS = 4 per invocation. Needs `S` and
// `input` bound, and WG / ITEMS.
struct ScanParams {
    n: u32,
    ntiles: u32,
    // scan_lookback only (tests of its paths): 0 normal, 1 never use a published
    // value (every tile sums its predecessors from their input), 2 use published
    // aggregates but no inclusive prefix (every walk goes back to tile 0)
    fallback: u32,
    _pad1: u32,
}

const_assert ITEMS == 4u; // load4 and the callers' bodies are written out for 4 values

// the four input values of invocation lid in tile t (zero past n), by constant
// component (no dynamic index)
fn load4(t: u32, lid: u32) -> vec4<u32> {
    let base = (t * WG + lid) * ITEMS;
    var x = vec4<u32>(0u);
    if (base < S.n) {
        x.x = input[base];
    }
    if (base + 1u < S.n) {
        x.y = input[base + 1u];
    }
    if (base + 2u < S.n) {
        x.z = input[base + 2u];
    }
    if (base + 3u < S.n) {
        x.w = input[base + 3u];
    }
    return x;
}
