// The decoded value of a corrected outlier: trial + k * step64, as a field value.
fn corrected(w: f64, k: i32) -> FT {
    return to_field(ftz64(w + ftz64((f64(k) * P.step64) * P.one64)));
}
