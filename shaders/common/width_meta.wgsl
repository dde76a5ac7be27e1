// Width bytes of the block-packed stages (AdaptiveBitpack, SZp, the fused chain): four
// blocks per u32 word, written by the block whose index is a multiple of 4, so no two
// workgroups write one word. Needs `widths`, `block_meta` and P.nblocks.
fn write_width_meta(b: u32) {
    if ((b & 3u) != 0u) {
        return;
    }
    var m = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (b + k < P.nblocks) {
            m = m | ((widths[b + k] & 0xffu) << (8u * k));
        }
    }
    block_meta[b >> 2u] = m;
}
