// The linear quantizer's per-value work, shared by quant_encode and the SZp kernels:
// q = round(x / (2 eb)) with the neighbour fallback; .y = 0 for an outlier (NaN, +-Inf,
// subnormal, |q| >= P.limit, or no code within the bound). quantize_bits takes the value
// and its words (lo, hi; float32: the one word twice). Needs szx_math.wgsl, P.limit.
// With step >= PLAIN_STEP (szx_math.wgsl) no operation of this value path can produce a subnormal, so
// the flushes (ftz, szx_math.wgsl) change nothing and are skipped: for |x * inv| below
// MIN_NORMAL, t + 1/2 rounds to 1/2 flushed or not (floor 0); t + 1/2 is 0 or at least
// ulp(1/2); q * step is 0 or at least step; and x - q * step, with both 0 or at least
// step / 2 apart from the case x < step / 2 (then q = 0 and the difference is x), is a
// multiple of ulp(step / 4) >= MIN_NORMAL, or x itself. Products keep their `* P.one`,
// so a contracting driver still rounds each one (szx_math.wgsl).
fn within_plain(x: FT, y: FT) -> bool {
    let a = abs(x - y);
    if (a < P.eb) {
        return true;
    }
    return a == P.eb && abs(x) >= P.eb && abs(y) >= P.eb && ((x < FT(0.0)) == (y < FT(0.0)));
}

fn quantize_plain(x: FT, lo: u32, hi: u32) -> vec2<i32> {
    var q = 0i;
    var ok = value_class(lo, hi) == 0u;
    if (ok) {
        let qf = floor((x * P.inv) * P.one + FT(0.5));
        ok = abs(qf) < P.limit;
        if (ok) {
            q = i32(qf);
            if (!within_plain(x, (FT(q) * P.step) * P.one)) {
                if (within_plain(x, (FT(q - 1i) * P.step) * P.one)) {
                    q = q - 1i;
                } else if (within_plain(x, (FT(q + 1i) * P.step) * P.one)) {
                    q = q + 1i;
                } else {
                    ok = false;
                }
            }
        }
    }
    return vec2<i32>(select(0i, q, ok), select(0i, 1i, ok));
}

fn quantize_bits(x: FT, lo: u32, hi: u32) -> vec2<i32> {
    if (P.step >= PLAIN_STEP) {
        return quantize_plain(x, lo, hi);
    }
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
