// The chain inverses' dequantization (chain_unpack, chain_scan_last; P is the
// ChainUnpackParams struct): a Quantizer code's value, as quant_decode computes it
// (needs common/szx_math.wgsl).
fn dequant_code(c: u32) -> FT {
    var q = bitcast<i32>(c);
    if (P.qzigzag == 1u) {
        q = bitcast<i32>(c >> 1u) ^ (-bitcast<i32>(c & 1u));
    }
    return mulr(FT(q), P.step);
}
