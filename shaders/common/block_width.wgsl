// The bit width of block b of the block-packed stages (AdaptiveBitpack, SZp, the fused
// chain): byte b & 3 of block_meta word b / 4, as common/width_meta.wgsl writes them.
// Needs the binding `block_meta`.
fn block_width(b: u32) -> u32 {
    return (block_meta[b >> 2u] >> (8u * (b & 3u))) & 0xffu;
}
