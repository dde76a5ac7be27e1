// Parameters of the Quantizer kernels (mirrored by QuantParams32/QuantParams64).
struct Params {
    n: u32,          // values in this chunk
    base: u32,       // global index of the chunk's first value
    zigzag: u32,     // 1: codes are zigzag(q) (uint32), 0: q as int32 bits
    count: u32,      // quant_patch: outliers in this chunk
    chunk: u32,      // slot in the totals buffer
    codes_off: u32,  // quant_encode: 1 = flags only (the fused chain computes codes itself)
    _pad1: u32,
    _pad2: u32,
    eb: FT,          // the bound checked, rounded down to FT
    inv: FT,         // 1 / step, rounded to FT on the host
    step: FT,        // 2 * eb
    one: FT,         // 1.0 from memory (no contraction, see szx_math.wgsl)
    limit: FT,       // |q| must stay below this (2^24 float32, 2^31 float64)
    _pad3: FT,
    _pad4: FT,
    _pad5: FT,
}

fn encode_code(q: i32) -> u32 {
    if (P.zigzag == 1u) {
        return bitcast<u32>((q << 1u) ^ (q >> 31u));
    }
    return bitcast<u32>(q);
}

fn decode_code(c: u32) -> i32 {
    if (P.zigzag == 1u) {
        return bitcast<i32>(c >> 1u) ^ (-bitcast<i32>(c & 1u));
    }
    return bitcast<i32>(c);
}
