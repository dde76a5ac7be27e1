// Parameters of shaders/wavelet/{load,store}.wgsl and shaders/correct/*.wgsl
// (mirrored by CorrectParams32/CorrectParams64), and the float64 -> field conversion
// every wavelet kernel uses. FT is the field's type; trial reconstructions are f64.
struct Params {
    n: u32,          // values in this dispatch
    base: u32,       // global index of the first value
    count: u32,      // correct_apply: entries
    chunk: u32,      // slot in the totals buffer
    cap: u32,        // correct_scatter: entries the buffer holds
    exact: u32,      // 1: the bound is below 2^-100 (f32) / 2^-1000 (f64): values must match exactly
    _pad1: u32,
    _pad2: u32,
    eb: FT,          // the field's bound, rounded down to FT
    inv: FT,
    step: FT,
    one: FT,         // 1.0 from memory (no contraction)
    _f0: FT,
    _f1: FT,
    _f2: FT,
    _f3: FT,
    step64: f64,     // correction step: 2 * eb in f64
    inv64: f64,      // 1 / step64, rounded once on the host
    one64: f64,      // 1.0 from memory
    kmax: f64,       // |k| must stay below this
    nan64: f64,      // the canonical float64 NaN (WGSL has no NaN literal)
    _g0: f64,
}

const F32_LIMIT: f64 = 3.4028235677973366e38lf;
const F64_MAX: f64 = 1.7976931348623157e308lf;
const F64_MIN_NORMAL: f64 = 2.2250738585072014e-308lf;

fn ftz64(v: f64) -> f64 {
    return select(v, 0.0lf, abs(v) < F64_MIN_NORMAL);
}

// Round to the nearest float32, +-Inf past its range, the canonical NaN, +0 below its
// smallest normal (devices differ on float32 subnormals; this form does not).
fn to_f32_bits(w: f64) -> u32 {
    if (!(abs(w) < F32_LIMIT)) {
        if (w > 0.0lf) {
            return 0x7f800000u;
        }
        if (w < 0.0lf) {
            return 0xff800000u;
        }
        return 0x7fc00000u;
    }
    let r = f32(w);
    if (abs(r) < 1.17549435e-38f) {
        return 0u;
    }
    return bitcast<u32>(r);
}

#ifdef F64
fn to_field(w: f64) -> f64 {
    if (!(abs(w) <= F64_MAX) && !(w > 0.0lf) && !(w < 0.0lf)) {
        return P.nan64;
    }
    return w;
}
#else
fn to_field(w: f64) -> f32 {
    return bitcast<f32>(to_f32_bits(w));
}
#endif
