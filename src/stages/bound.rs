//! The error bound as the float stages (SZx, Quantizer, SZp) resolve, store and check
//! it — one definition, so every stage applies the same rules:
//! the absolute bound from the mode and the finite range, then the bound actually
//! checked: rounded down to the element type, clamped to 2^124 (float32) / 2^1020
//! (float64), and "exact mode" below 2^-100 / 2^-1000 (ARCHITECTURE.md, determinism).
//!
//! Config bytes 8..80 of these stages share one layout: n (u64), dims x, y, z (u64),
//! requested bound (f64), resolved absolute bound (f64), checked bound bits (u64),
//! range min, max (f64, NaN when not computed).

use crate::backend::cpu::szx::SzxFloat;
use crate::error::{Error, Result};
use crate::kernels::range::resolve_abs;
use crate::types::{DataType, Dims, ErrorBound, ErrorMode};

/// What a run resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved {
    pub n: u64,
    pub dims: Dims,
    pub eb_abs: f64,
    /// The bound actually checked, rounded down to the element type (bits).
    pub eb_t_bits: u64,
    pub exact: bool,
    pub range: Option<(f64, f64)>,
}

impl Resolved {
    /// Resolve `bound` for `n` values of `dtype`. `range`: the finite min/max (None when
    /// none is finite or for ABS). `pow2`: round the bound down to a power of two.
    pub fn new(dtype: DataType, bound: ErrorBound, dims: Option<Dims>, n: u64, range: Option<(f64, f64)>, pow2: bool) -> Self {
        let dims = dims.filter(|d| d.len() == n).unwrap_or(Dims { x: n, y: 1, z: 1 });
        let eb_abs = resolve_abs(bound, range);
        let range = (bound.mode != ErrorMode::Abs).then(|| range.unwrap_or((f64::INFINITY, f64::NEG_INFINITY)));
        let e = if pow2 && eb_abs > 0.0 && eb_abs.is_finite() { 2f64.powi(eb_abs.log2().floor() as i32).min(eb_abs) } else { eb_abs };
        let (eb_t_bits, exact) = if dtype == DataType::F64 {
            let t = e.min(f64::BIG);
            (t.to_bits(), t < f64::TINY)
        } else {
            let t = f32::round_down_from_f64(e.min(f32::BIG as f64));
            (t.to_bits() as u64, t < f32::TINY)
        };
        Resolved { n, dims, eb_abs, eb_t_bits, exact, range }
    }

    /// The `info` lines every float stage prints about its resolved bound: elements,
    /// dims, resolved absolute bound, checked bound.
    pub fn describe(&self, dtype: DataType) -> Vec<(String, String)> {
        vec![
            ("elements".into(), self.n.to_string()),
            ("dims".into(), self.dims.to_string()),
            ("resolved_abs_bound".into(), format!("{:e}", self.eb_abs)),
            ("checked_bound".into(), format!("{:e}", self.checked(dtype))),
        ]
    }

    /// The checked bound as f64.
    pub fn checked(&self, dtype: DataType) -> f64 {
        if dtype == DataType::F64 {
            f64::from_bits(self.eb_t_bits)
        } else {
            f32::from_bits(self.eb_t_bits as u32) as f64
        }
    }

    /// Config bytes 8..80 (see the module docs).
    pub fn write(&self, requested: f64, b: &mut Vec<u8>) {
        b.extend_from_slice(&self.n.to_le_bytes());
        for d in [self.dims.x, self.dims.y, self.dims.z] {
            b.extend_from_slice(&d.to_le_bytes());
        }
        b.extend_from_slice(&requested.to_le_bytes());
        b.extend_from_slice(&self.eb_abs.to_le_bytes());
        b.extend_from_slice(&self.eb_t_bits.to_le_bytes());
        let (lo, hi) = self.range.unwrap_or((f64::NAN, f64::NAN));
        b.extend_from_slice(&lo.to_le_bytes());
        b.extend_from_slice(&hi.to_le_bytes());
    }

    /// Parse and check config bytes 8..80; returns the record and the requested bound.
    pub fn read(c: &[u8], dtype: DataType, exact: bool, what: &str) -> Result<(Self, f64)> {
        if c.len() < 80 {
            return Err(Error::corrupt(format!("{what} config too short")));
        }
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let n = u64_at(8);
        let dims = Dims::new(u64_at(16), u64_at(24), u64_at(32)).map_err(|_| Error::corrupt(format!("{what} dims")))?;
        if dims.len() != n {
            return Err(Error::corrupt(format!("{what}: dims {dims} do not hold {n} values")));
        }
        let requested = f64::from_bits(u64_at(40));
        let eb_t_bits = u64_at(56);
        let ok = if dtype == DataType::F64 {
            let t = f64::from_bits(eb_t_bits);
            t.is_finite() && t >= 0.0 && (exact || (f64::TINY..=f64::BIG).contains(&t))
        } else {
            let t = f32::from_bits(eb_t_bits as u32);
            eb_t_bits <= u32::MAX as u64 && t.is_finite() && t >= 0.0 && (exact || (f32::TINY..=f32::BIG).contains(&t))
        };
        if !ok || !requested.is_finite() || requested <= 0.0 {
            return Err(Error::corrupt(format!("{what} bound fields")));
        }
        let (lo, hi) = (f64::from_bits(u64_at(64)), f64::from_bits(u64_at(72)));
        let range = if lo.is_nan() && hi.is_nan() { None } else { Some((lo, hi)) };
        Ok((Resolved { n, dims, eb_abs: f64::from_bits(u64_at(48)), eb_t_bits, exact, range }, requested))
    }

    /// (eb, inv, step) in the element type: step = 2 eb exactly, inv = 1/step rounded
    /// once on the host.
    pub fn steps<F: SzxFloat>(&self) -> (F, F, F) {
        let eb = F::from_bits64(self.eb_t_bits);
        let step = eb.add(eb);
        (eb, F::from_f64(1.0 / step.to_f64()), step)
    }
}
