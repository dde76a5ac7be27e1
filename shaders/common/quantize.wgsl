// The linear quantizer's per-value work, shared by quant_encode and the SZp kernels:
// q = round(x / (2 eb)) with the neighbour fallback; .y = 0 for an outlier (NaN, +-Inf,
// subnormal, |q| >= P.limit, or no code within the bound). quantize_bits takes the value
// and its words (lo, hi; float32: the one word twice). Needs szx_math.wgsl, P.limit.
fn quantize_bits(x: FT, lo: u32, hi: u32) -> vec2<i32> {
    var q = 0i;
    var ok = value_class(lo, hi) == 0u;
    if (ok) {
        let qf = floor(addr(mulr(x, P.inv), FT(0.5)));
        ok = abs(qf) < P.limit;
        if (ok) {
            q = i32(qf);
            if (!within(x, mulr(FT(q), P.step))) {
                if (within(x, mulr(FT(q - 1i), P.step))) {
                    q = q - 1i;
                } else if (within(x, mulr(FT(q + 1i), P.step))) {
                    q = q + 1i;
                } else {
                    ok = false;
                }
            }
        }
    }
    return vec2<i32>(select(0i, q, ok), select(0i, 1i, ok));
}

// quantize_bits of value i of data_f / data_u.
fn quantize_value(i: u32) -> vec2<i32> {
    return quantize_bits(data_f[i], data_u[i * WT], data_u[i * WT + WT - 1u]);
}
