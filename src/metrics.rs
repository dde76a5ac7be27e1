//! Quality and size metrics, computed in f64 over the finite elements.

use crate::types::{DataType, Field};

/// Distortion and size of a round trip.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Quality {
    pub elements: u64,
    /// Elements that are NaN or +-Inf in the input.
    pub non_finite: u64,
    /// Non-finite inputs that did not come back bit-exact.
    pub non_finite_mismatches: u64,
    pub max_abs_error: f64,
    pub rmse: f64,
    /// max - min of the finite input values.
    pub value_range: f64,
    pub psnr_db: f64,
    pub nrmse: f64,
}

fn values(f: &Field) -> Vec<f64> {
    f.to_f64()
}

fn bits(f: &Field, i: usize) -> u64 {
    match f.dtype {
        DataType::F32 => u32::from_le_bytes(f.bytes[4 * i..4 * i + 4].try_into().unwrap_or([0; 4])) as u64,
        _ => u64::from_le_bytes(f.bytes[8 * i..8 * i + 8].try_into().unwrap_or([0; 8])),
    }
}

/// Compare a reconstruction with the original (same dtype and length).
pub fn quality(orig: &Field, recon: &Field) -> Quality {
    let a = values(orig);
    let b = values(recon);
    let n = a.len().min(b.len());
    let mut q = Quality { elements: n as u64, ..Default::default() };
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut sse = 0f64;
    let mut finite = 0u64;
    for i in 0..n {
        if !a[i].is_finite() {
            q.non_finite += 1;
            if bits(orig, i) != bits(recon, i) {
                q.non_finite_mismatches += 1;
            }
            continue;
        }
        finite += 1;
        lo = lo.min(a[i]);
        hi = hi.max(a[i]);
        let e = (a[i] - b[i]).abs();
        let e = if e.is_nan() { f64::INFINITY } else { e };
        q.max_abs_error = q.max_abs_error.max(e);
        sse += e * e;
    }
    q.value_range = if hi >= lo { hi - lo } else { 0.0 };
    q.rmse = if finite > 0 { (sse / finite as f64).sqrt() } else { 0.0 };
    q.nrmse = if q.value_range > 0.0 { q.rmse / q.value_range } else { 0.0 };
    q.psnr_db = if q.rmse > 0.0 && q.value_range > 0.0 { 20.0 * (q.value_range / q.rmse).log10() } else { f64::INFINITY };
    q
}

/// Compression ratio.
pub fn ratio(uncompressed: u64, compressed: u64) -> f64 {
    uncompressed as f64 / compressed.max(1) as f64
}

/// Bits per value.
pub fn bit_rate(compressed: u64, elements: u64) -> f64 {
    compressed as f64 * 8.0 / elements.max(1) as f64
}
