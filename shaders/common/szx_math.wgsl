// The value path of SZx. Every operation is one IEEE operation, exactly rounded, then
// flushed to +0 when it lands below MIN_NORMAL, so a device that flushes denormals and
// one that keeps them produce the same bits. Products are multiplied by P.one (1.0 read
// from memory) before any addition: a driver that contracts a*b+c into an FMA then
// computes fma(p, 1, c) = round(p + c), the same as the unfused sum. The CPU twin in
// src/backend/cpu/szx.rs performs the same operations in the same order.
fn ftz(v: FT) -> FT {
    return select(v, FT(0.0), abs(v) < MIN_NORMAL);
}
fn subr(a: FT, b: FT) -> FT {
    return ftz(a - b);
}
fn addr(a: FT, b: FT) -> FT {
    return ftz(a + b);
}
fn mulr(a: FT, b: FT) -> FT {
    return ftz((a * b) * P.one);
}
// Quantization code of x against reference r, as a float: t = (x - r) / step rounded
// to the nearest integer, ties to even (WGSL round; a product followed by a rounding
// to an integer, no addition, so no driver can fuse it and it needs no `* one`).
fn quant(x: FT, r: FT) -> FT {
    return round(ftz((subr(x, r) * P.inv)));
}
fn dequant(q: u32, r: FT) -> FT {
    return addr(mulr(FT(q), P.step), r);
}
// |x - y| <= eb, decided exactly: the rounded difference is below eb, or equals it
// while both operands are >= eb in magnitude with one sign (then the subtraction is
// exact by Sterbenz' lemma).
fn within(x: FT, y: FT) -> bool {
    let a = abs(subr(x, y));
    if (a < P.eb) {
        return true;
    }
    return a == P.eb && abs(x) >= P.eb && abs(y) >= P.eb && ((x < FT(0.0)) == (y < FT(0.0)));
}

// The code of x against reference r: the rounded quotient, or its neighbour when
// rounding of inv made the rounded quotient miss the bound. .y = 0 when no code in
// [0, qlim] reconstructs x within eb (the block then goes raw).
fn code_of(x: FT, r: FT, qlim: u32) -> vec2<u32> {
    let q = u32(quant(x, r));
    if (within(x, dequant(q, r))) {
        return vec2<u32>(q, 1u);
    }
    if (q > 0u && within(x, dequant(q - 1u, r))) {
        return vec2<u32>(q - 1u, 1u);
    }
    if (q < qlim && within(x, dequant(q + 1u, r))) {
        return vec2<u32>(q + 1u, 1u);
    }
    return vec2<u32>(q, 0u);
}

fn width_limit(w: u32) -> u32 {
    if (w >= 32u) {
        return 0xffffffffu;
    }
    return (1u << w) - 1u;
}

// float32: T = max(2^-100, eb * 2^-90), the smallest magnitude at which the encoders'
// flush-free paths skip the `ftz` guards (szx_encode per block, chain_encode per four
// values; each states its own argument and its other conditions). Float64 keeps the
// flushing path (0: the callers' tests never pass on it alone).
fn noflush_min() -> FT {
#ifdef F64
    return FT(0.0);
#else
    return max(ldexp(1.0, -100), ldexp(P.eb, -90));
#endif
}
