//! Device-side min/max of the finite values of a float field (the NOA/REL range),
//! recorded as `szx_range_partial` + `szx_range_final` per chunk and read back once.

use crate::backend::cpu::szx::{unkey32, unkey64, RANGE_PER_GROUP};
use crate::error::Result;
use crate::kernels::params::RangeParams;
use crate::kernels::Kernel;
use crate::recording::{BufSlice, Recorder};
use crate::types::{ErrorBound, ErrorMode};

/// Min and max of the finite values of `n` elements (float64 if `f64v`) starting at
/// `input`, in chunks of at most `chunk_elems` elements (a multiple of 64). Submits
/// everything recorded so far. None when no value is finite.
pub fn device_range(r: &mut Recorder, input: BufSlice, n: u64, f64v: bool, chunk_elems: u64) -> Result<Option<(f64, f64)>> {
    let sz = if f64v { 8 } else { 4 };
    let wt = sz / 4;
    let per = RANGE_PER_GROUP as u64;
    let nchunks = n.div_ceil(chunk_elems).max(1);
    let results = r.alloc(256 * nchunks)?;
    let parts = r.temp(chunk_elems.min(n).div_ceil(per) * 2 * wt * 4)?;
    for k in 0..nchunks {
        let nk = chunk_elems.min(n - k * chunk_elems);
        let np = nk.div_ceil(per);
        let rp = RangeParams { n: nk as u32, nparts: np as u32, ..Default::default() };
        let inw = BufSlice::new(input.buf, input.offset + k * chunk_elems * sz, nk * sz);
        let pw = BufSlice::new(parts, 0, np * 2 * wt * 4);
        r.dispatch(Kernel::SzxRangePartial, f64v, &rp, &[inw, inw.vec4_view(), pw], np)?;
        r.dispatch(Kernel::SzxRangeFinal, f64v, &rp, &[pw, BufSlice::new(results, 256 * k, 2 * wt * 4)], 1)?;
    }
    let idx = r.readback(BufSlice::new(results, 0, 256 * nchunks));
    r.submit()?;
    let bytes = r.result(idx)?;
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..nchunks as usize {
        let w = &words[k * 64..];
        let (a, b) = if f64v {
            let (kmin, kmax) = ((w[1], w[0]), (w[3], w[2]));
            if kmin > kmax {
                continue;
            }
            (f64::from_bits(unkey64(kmin)), f64::from_bits(unkey64(kmax)))
        } else {
            if w[0] > w[1] {
                continue;
            }
            (f32::from_bits(unkey32(w[0])) as f64, f32::from_bits(unkey32(w[1])) as f64)
        };
        lo = lo.min(a);
        hi = hi.max(b);
    }
    Ok((lo <= hi).then_some((lo, hi)))
}

/// The absolute bound of `bound` given the finite range (None: no finite values, which
/// resolves to 0). Always finite and >= 0 (an infinite product saturates to f64::MAX).
pub fn resolve_abs(bound: ErrorBound, range: Option<(f64, f64)>) -> f64 {
    let v = bound.value;
    let e = match (bound.mode, range) {
        (ErrorMode::Abs, _) => v,
        (_, None) => 0.0,
        (ErrorMode::Noa, Some((lo, hi))) => v * (hi - lo),
        (ErrorMode::Rel, Some((lo, hi))) => v * lo.abs().max(hi.abs()),
    };
    if e.is_finite() {
        e
    } else {
        f64::MAX
    }
}
