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
// Quantization code of x against reference r, as a float (floor(t + 1/2)).
fn quant(x: FT, r: FT) -> FT {
    return floor(addr(mulr(subr(x, r), P.inv), FT(0.5)));
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
