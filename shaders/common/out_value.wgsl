// Output element of the decode kernels: float64 values are stored as f64, float32
// values as their u32 bits (so NaN payloads and signed zeros pass through untouched).
#ifdef F64
alias OT = f64;
fn out_value(v: FT) -> OT {
    return v;
}
#else
alias OT = u32;
fn out_value(v: FT) -> OT {
    return bitcast<u32>(v);
}
#endif
