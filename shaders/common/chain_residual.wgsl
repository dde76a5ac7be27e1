// The chain inverses' residuals (chain_unpack, chain_scan_x; P is the
// ChainUnpackParams struct): residual_at(i) is the Lorenzo residual of value i,
// extracted from its AdaptiveBitpack block (needs the bindings block_meta, offsets,
// payload_u and common/bitpack_extract.wgsl).
fn residual_at(i: u32) -> u32 {
    let b = i / P.block_size;
    let w = (block_meta[b >> 2u] >> (8u * (b & 3u))) & 0xffu;
    let u = extract_code(P.word_base + offsets[b], i - b * P.block_size, w);
    if (P.bzigzag == 1u) {
        return bitcast<u32>(bitcast<i32>(u >> 1u) ^ (-bitcast<i32>(u & 1u)));
    }
    return u;
}
