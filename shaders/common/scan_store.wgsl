// The tile store of the scans that write offsets (scan_downsweep, scan_lookback):
// invocation lid of tile t writes its four exclusive prefixes `o + v`, none past n.
// Needs `S` and `output` bound, and WG / ITEMS (4).
fn store4(t: u32, lid: u32, o: u32, v: vec4<u32>) {
    let base = (t * WG + lid) * ITEMS;
    if (base < S.n) {
        output[base] = o + v.x;
    }
    if (base + 1u < S.n) {
        output[base + 1u] = o + v.y;
    }
    if (base + 2u < S.n) {
        output[base + 2u] = o + v.z;
    }
    if (base + 3u < S.n) {
        output[base + 3u] = o + v.w;
    }
}
