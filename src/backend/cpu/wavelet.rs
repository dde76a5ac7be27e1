//! Twins of shaders/wavelet/*.wgsl (lifting wavelet line passes, float64 load/store)
//! and shaders/correct/*.wgsl (the outlier-correction stage). Every float64 operation
//! is one IEEE operation, flushed to +0 below the smallest normal, products multiplied
//! by `one` before any addition: the same operations in the same order as the WGSL
//! (see ARCHITECTURE.md, determinism), so devices that contract `a * b + c`, devices
//! that flush subnormals and this twin agree bit for bit.

use super::szx::{within, SzxFloat};
use super::{need, params, view, view_mut, Bindings};
use crate::error::{Error, Result};
use crate::kernels::params::{CorrectParams32, CorrectParams64, WaveletParams};
use rayon::prelude::*;

/// Workgroup size of the per-value kernels (load, store, flag, scatter, apply).
const WG: usize = 256;

/// Float32 conversions at or beyond this magnitude give ±Inf (MAX + half an ulp: the
/// round-to-nearest-even boundary).
pub const F32_LIMIT: f64 = 3.4028235677973366e38;
/// The NaN every wavelet kernel writes (no payload is carried through a transform).
pub const NAN32: u32 = 0x7fc0_0000;
pub const NAN64: u64 = 0x7ff8_0000_0000_0000;

#[inline]
pub fn ftz64(v: f64) -> f64 {
    if v.abs() < f64::MIN_POSITIVE {
        0.0
    } else {
        v
    }
}

/// `to_f32_bits` of shaders/common/correct_params.wgsl: round to nearest, ±Inf past the
/// float32 range, a canonical NaN, +0 below the smallest normal float32.
#[inline]
pub fn to_f32_bits(w: f64) -> u32 {
    if w.is_nan() {
        return NAN32;
    }
    if !(w.abs() < F32_LIMIT) {
        return if w > 0.0 { 0x7f80_0000 } else { 0xff80_0000 };
    }
    let r = w as f32;
    if r.abs() < f32::MIN_POSITIVE {
        0
    } else {
        r.to_bits()
    }
}

/// A float64 work value as a field value of type F (bits in the low word for float32).
#[inline]
pub fn to_field<F: SzxFloat>(w: f64) -> F {
    if F::WT == 1 {
        F::from_bits64(to_f32_bits(w) as u64)
    } else if w.is_nan() {
        F::from_bits64(NAN64)
    } else {
        F::from_bits64(w.to_bits())
    }
}

/// The CorrectParams in typed form.
#[derive(Debug, Clone, Copy)]
pub struct CorrectP<F> {
    pub n: u32,
    pub base: u32,
    pub count: u32,
    pub chunk: u32,
    pub cap: u32,
    pub exact: bool,
    pub eb: F,
    pub step64: f64,
    pub inv64: f64,
    pub one64: f64,
    pub kmax: f64,
}

pub fn correct_params<F: SzxFloat>(p: &[u8]) -> Result<CorrectP<F>> {
    macro_rules! read {
        ($t:ident, $bits:expr) => {{
            let q: $t = params(p)?;
            Ok(CorrectP {
                n: q.n,
                base: q.base,
                count: q.count,
                chunk: q.chunk,
                cap: q.cap,
                exact: q.exact != 0,
                eb: F::from_bits64($bits(q.eb)),
                step64: q.step64,
                inv64: q.inv64,
                one64: q.one64,
                kmax: q.kmax,
            })
        }};
    }
    if F::WT == 1 {
        read!(CorrectParams32, |e: f32| e.to_bits() as u64)
    } else {
        read!(CorrectParams64, |e: f64| e.to_bits())
    }
}

/// Value i of a field given as u32 words.
#[inline]
fn field_value<F: SzxFloat>(words: &[u32], i: usize) -> F {
    if F::WT == 1 {
        F::from_bits64(words[i] as u64)
    } else {
        F::from_bits64(words[2 * i] as u64 | (words[2 * i + 1] as u64) << 32)
    }
}

/// `raw_plain` of shaders/common/raw_plain.wgsl: finite and not subnormal (zero is
/// plain).
#[inline]
pub fn is_plain<F: SzxFloat>(x: F) -> bool {
    let v = x.to_f64();
    v.is_finite() && (v == 0.0 || v.abs() >= F::MIN_NORMAL.to_f64())
}

/// One lifting step over an interleaved line `s`: samples of parity `parity` get
/// `± c * (left + right)`, neighbours mirrored at both ends (whole-sample symmetric
/// extension: s[-1] = s[1], s[len] = s[len - 2]).
#[inline]
fn lift_step(s: &mut [f64], parity: usize, c: f64, one: f64, inverse: bool) {
    let len = s.len();
    let mut i = parity;
    while i < len {
        let l = if i == 0 { 1.min(len - 1) } else { i - 1 };
        let r = if i + 1 >= len { len.saturating_sub(2) } else { i + 1 };
        let t = ftz64((c * ftz64(s[l] + s[r])) * one);
        s[i] = if inverse { ftz64(s[i] - t) } else { ftz64(s[i] + t) };
        i += 2;
    }
}

fn coef(p: &WaveletParams, k: u32) -> f64 {
    match k {
        0 => p.c0,
        1 => p.c1,
        2 => p.c2,
        _ => p.c3,
    }
}

/// Forward lifting of one interleaved line in place (before scaling).
pub fn lift_forward(s: &mut [f64], p: &WaveletParams) {
    for k in 0..p.nsteps {
        lift_step(s, if k % 2 == 0 { 1 } else { 0 }, coef(p, k), p.one, false);
    }
}

/// Inverse lifting of one interleaved line in place (after unscaling).
pub fn lift_inverse(s: &mut [f64], p: &WaveletParams) {
    for k in (0..p.nsteps).rev() {
        lift_step(s, if k % 2 == 0 { 1 } else { 0 }, coef(p, k), p.one, true);
    }
}

/// Twin of `wavelet_lift`: one workgroup per line; the line's scratch segment holds
/// the interleaved samples afterwards (forward: lifted, before scaling; inverse: the
/// reconstructed line).
pub fn wavelet_lift(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: WaveletParams = params(p)?;
    let [data, scratch] = &mut b.rw[..] else {
        return Err(Error::Device("wavelet_lift: bindings".into()));
    };
    let data: &mut [f64] = view_mut(data, "wavelet_lift.data")?;
    let scratch: &mut [f64] = view_mut(scratch, "wavelet_lift.scratch")?;
    let (len, stride) = (p.len as usize, p.stride as usize);
    let nlines = (p.nlines as usize).min(groups as usize);
    if len == 0 || nlines == 0 {
        return Ok(());
    }
    let pos = |j: usize, i: usize| (j % p.a_len as usize) * p.a_stride as usize + (j / p.a_len as usize) * p.b_stride as usize + i * stride;
    need(scratch.len() >= nlines * len, "wavelet_lift scratch")?;
    need(pos(nlines - 1, len - 1) < data.len(), "wavelet_lift data window")?;
    let nlow = len.div_ceil(2);
    let inverse = p.inverse != 0;
    {
        let d: &[f64] = data;
        scratch[..nlines * len].par_chunks_mut(len).enumerate().for_each(|(j, s)| {
            if !inverse {
                for (i, v) in s.iter_mut().enumerate() {
                    *v = d[pos(j, i)];
                }
                lift_forward(s, &p);
            } else {
                for (i, v) in s.iter_mut().enumerate() {
                    *v = if i % 2 == 0 { ftz64(d[pos(j, i / 2)] * p.inv_lo) } else { ftz64(d[pos(j, nlow + i / 2)] * p.inv_hi) };
                }
                lift_inverse(s, &p);
            }
        });
    }
    for j in 0..nlines {
        let s = &scratch[j * len..(j + 1) * len];
        for (i, &v) in s.iter().enumerate() {
            if inverse {
                data[pos(j, i)] = v;
            } else if i % 2 == 0 {
                data[pos(j, i / 2)] = ftz64(v * p.scale_lo);
            } else {
                data[pos(j, nlow + i / 2)] = ftz64(v * p.scale_hi);
            }
        }
    }
    Ok(())
}

/// Twin of `wavelet_load`: field values (type F) to float64 work values; NaN and ±Inf
/// and subnormals
/// become 0 (the correction stage stores them exactly).
pub fn wavelet_load<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = correct_params::<F>(p)?;
    let raw: &[u32] = view(b.ro[0], "wavelet_load.raw")?;
    let work: &mut [f64] = view_mut(b.rw[0], "wavelet_load.work")?;
    let n = (p.n as usize).min(groups as usize * WG);
    need(raw.len() >= n * F::WT as usize && work.len() >= n, "wavelet_load sizes")?;
    work[..n].par_iter_mut().enumerate().for_each(|(i, w)| {
        let x: F = field_value(raw, i);
        *w = if is_plain(x) { x.to_f64() } else { 0.0 };
    });
    Ok(())
}

/// Twin of `wavelet_store`: float64 work values to field values (see [`to_field`]).
pub fn wavelet_store<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = correct_params::<F>(p)?;
    let work: &[f64] = view(b.ro[0], "wavelet_store.work")?;
    let out: &mut [u32] = view_mut(b.rw[0], "wavelet_store.out")?;
    let n = (p.n as usize).min(groups as usize * WG);
    let wt = F::WT as usize;
    need(work.len() >= n && out.len() >= n * wt, "wavelet_store sizes")?;
    out[..n * wt].par_chunks_mut(wt).enumerate().for_each(|(i, o)| {
        let v: F = to_field(work[i]);
        o.copy_from_slice(&v.words()[..wt]);
    });
    Ok(())
}

/// Whether value i misses the bound in the trial reconstruction (or is not plain). In
/// exact mode (bounds below 2^-100 / 2^-1000, where `within`'s flushing of differences
/// below the smallest normal would be unsound) the values must be equal.
#[inline]
fn misses<F: SzxFloat>(x: F, w: f64, p: &CorrectP<F>) -> bool {
    if !is_plain(x) {
        return true;
    }
    let t = to_field::<F>(w);
    if p.exact {
        x != t
    } else {
        !within(x, t, p.eb)
    }
}

/// The correction code of an outlier: k with x within eb of `w + k * step64`, or 0 when
/// none is found (the value is then stored exactly).
pub fn correction_code<F: SzxFloat>(x: F, w: f64, p: &CorrectP<F>) -> i32 {
    if !is_plain(x) || p.exact {
        return 0;
    }
    let d = ftz64(x.to_f64() - w);
    let qf = ftz64(ftz64((d * p.inv64) * p.one64) + 0.5).floor();
    if !(qf.abs() < p.kmax) || qf == 0.0 {
        return 0;
    }
    let k = qf as i32;
    if within(x, corrected::<F>(w, k, p), p.eb) {
        k
    } else {
        0
    }
}

/// The decoded value of an outlier with code k != 0.
#[inline]
pub fn corrected<F: SzxFloat>(w: f64, k: i32, p: &CorrectP<F>) -> F {
    to_field(ftz64(w + ftz64((k as f64 * p.step64) * p.one64)))
}

/// Twin of `correct_flag`: `flags[i] = 1` where the trial reconstruction misses the bound.
pub fn correct_flag<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = correct_params::<F>(p)?;
    let raw: &[u32] = view(b.ro[0], "correct_flag.raw")?;
    let work: &[f64] = view(b.ro[2], "correct_flag.work")?;
    let flags: &mut [u32] = view_mut(b.rw[0], "correct_flag.flags")?;
    let n = (p.n as usize).min(groups as usize * WG);
    need(raw.len() >= n * F::WT as usize && work.len() >= n && flags.len() >= n, "correct_flag sizes")?;
    flags[..n].par_iter_mut().enumerate().for_each(|(i, f)| {
        *f = misses::<F>(field_value(raw, i), work[i], &p) as u32;
    });
    Ok(())
}

/// Twin of `correct_scatter`: entry `pos[i] = [base + i, k, value lo, value hi]` for every
/// flagged i (entries past `cap` are dropped; the host sees the total and fails), and
/// the chunk's total.
pub fn correct_scatter<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = correct_params::<F>(p)?;
    let raw: &[u32] = view(b.ro[0], "correct_scatter.raw")?;
    let work: &[f64] = view(b.ro[2], "correct_scatter.work")?;
    let flags: &[u32] = view(b.ro[3], "correct_scatter.flags")?;
    let pos: &[u32] = view(b.ro[4], "correct_scatter.pos")?;
    let n = (p.n as usize).min(groups as usize * WG);
    let wt = F::WT as usize;
    need(raw.len() >= n * wt && work.len() >= n && flags.len() >= n && pos.len() >= n, "correct_scatter inputs")?;
    let [entries, totals] = &mut b.rw[..] else {
        return Err(Error::Device("correct_scatter: bindings".into()));
    };
    let entries: &mut [u32] = view_mut(entries, "entries")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    if n == p.n as usize && n > 0 {
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? = pos[n - 1] + flags[n - 1];
    }
    for i in 0..n {
        if flags[i] == 0 || pos[i] >= p.cap {
            continue;
        }
        let e = pos[i] as usize * 4;
        need(e + 4 <= entries.len(), "correct_scatter entries window")?;
        let x: F = field_value(raw, i);
        entries[e] = p.base + i as u32;
        entries[e + 1] = correction_code(x, work[i], &p) as u32;
        entries[e + 2] = raw[i * wt];
        entries[e + 3] = if wt == 2 { raw[i * wt + 1] } else { 0 };
    }
    Ok(())
}

/// Twin of `correct_apply`: writes every entry's value over the stored field.
pub fn correct_apply<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = correct_params::<F>(p)?;
    let entries: &[u32] = view(b.ro[0], "correct_apply.entries")?;
    let work: &[f64] = view(b.ro[2], "correct_apply.work")?;
    let out: &mut [u32] = view_mut(b.rw[0], "correct_apply.out")?;
    let wt = F::WT as usize;
    let count = (p.count as usize).min(groups as usize * WG);
    need(entries.len() >= count * 4, "correct_apply entries")?;
    for j in 0..count {
        let e = &entries[j * 4..j * 4 + 4];
        let idx = e[0].wrapping_sub(p.base) as usize;
        need(idx < work.len() && idx * wt + wt <= out.len(), "correct_apply index outside the window")?;
        let k = e[1] as i32;
        if k == 0 {
            out[idx * wt..idx * wt + wt].copy_from_slice(&e[2..2 + wt]);
        } else {
            let v: F = corrected(work[idx], k, &p);
            out[idx * wt..idx * wt + wt].copy_from_slice(&v.words()[..wt]);
        }
    }
    Ok(())
}
