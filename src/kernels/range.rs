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
    Ok(combine(&words, nchunks as usize, f64v))
}

/// The range from the per-chunk key words (64 words apart, as `szx_range_final` writes
/// them: min then max, each one word or (lo, hi) for float64), the same for the device's
/// and the host's chunks.
fn combine(words: &[u32], nchunks: usize, f64v: bool) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..nchunks {
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
    (lo <= hi).then_some((lo, hi))
}

/// [`device_range`] of a field in host memory, the same result to the bit (the same
/// chunks of `chunk_elems` values, each chunk's min and max of the finite values'
/// order keys, combined by the same code), scanned by `threads` threads of its own
/// (not the rayon pool, which the upload's copies use meanwhile). `bytes` holds whole
/// values. Overlapped compression scans the field with it while the field uploads.
pub fn host_range(bytes: &[u8], f64v: bool, chunk_elems: u64, threads: usize) -> Result<Option<(f64, f64)>> {
    let sz = if f64v { 8 } else { 4 };
    let n = (bytes.len() / sz) as u64;
    let nchunks = n.div_ceil(chunk_elems).max(1) as usize;
    // per chunk, the min and max keys; pieces of a chunk are scanned by several threads
    let keys = |v: &[u8]| -> (u64, u64) {
        if f64v {
            key_range::<u64>(v)
        } else {
            let (a, b) = key_range::<u32>(v);
            (a as u64, b as u64)
        }
    };
    let threads = threads.max(1);
    let piece = (n.div_ceil(threads as u64 * 4).max(1 << 16)).next_multiple_of(64);
    // pieces never cross a chunk boundary
    let mut jobs: Vec<(usize, u64, u64)> = Vec::new();
    for k in 0..nchunks as u64 {
        let (a, b) = (k * chunk_elems, ((k + 1) * chunk_elems).min(n));
        let mut at = a;
        while at < b {
            let e = (at + piece).min(b);
            jobs.push((k as usize, at, e));
            at = e;
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found: Vec<Vec<(usize, u64, u64)>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..threads.min(jobs.len()).max(1))
            .map(|_| {
                sc.spawn(|| {
                    let mut got = Vec::new();
                    loop {
                        let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(k, a, e)) = jobs.get(j) else { break };
                        let (mn, mx) = keys(&bytes[a as usize * sz..e as usize * sz]);
                        got.push((k, mn, mx));
                    }
                    got
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let (mut mn, mut mx) = (vec![u64::MAX; nchunks], vec![0u64; nchunks]);
    let mut done = 0;
    for (k, a, b) in found.into_iter().flatten() {
        mn[k] = mn[k].min(a);
        mx[k] = mx[k].max(b);
        done += 1;
    }
    if done != jobs.len() {
        return Err(crate::error::Error::Pipeline("the host's range scan lost a thread".into()));
    }
    let mut words = vec![0u32; 64 * nchunks];
    for k in 0..nchunks {
        let w = &mut words[64 * k..];
        if f64v {
            w[..4].copy_from_slice(&[mn[k] as u32, (mn[k] >> 32) as u32, mx[k] as u32, (mx[k] >> 32) as u32]);
        } else {
            // an empty chunk: min key above max key, as the kernel's identity
            let (a, b) = if mn[k] > mx[k] { (u32::MAX, 0) } else { (mn[k] as u32, mx[k] as u32) };
            w[..2].copy_from_slice(&[a, b]);
        }
    }
    Ok(combine(&words, nchunks, f64v))
}

/// A float's bits as an unsigned word (u32 for float32, u64 for float64), for the
/// host's range scan.
trait Word: Copy + Ord + bytemuck::Pod {
    const MAX: Self;
    const ZERO: Self;
    /// Not infinite or NaN (the exponent is not all ones).
    fn finite(self) -> bool;
    /// Total-order key (`key32`, or `key64` as `(hi << 32) | lo`): every bit of a
    /// negative value flipped, else the sign bit.
    fn key(self) -> Self;
    /// The word as stored little-endian, in native order.
    fn native(self) -> Self;
}

impl Word for u32 {
    const MAX: Self = u32::MAX;
    const ZERO: Self = 0;
    fn finite(self) -> bool {
        (self & 0x7f80_0000) != 0x7f80_0000
    }
    fn key(self) -> Self {
        self ^ (((self as i32 >> 31) as u32) | 0x8000_0000)
    }
    fn native(self) -> Self {
        u32::from_le(self)
    }
}

impl Word for u64 {
    const MAX: Self = u64::MAX;
    const ZERO: Self = 0;
    fn finite(self) -> bool {
        (self & 0x7ff0_0000_0000_0000) != 0x7ff0_0000_0000_0000
    }
    fn key(self) -> Self {
        self ^ (((self as i64 >> 63) as u64) | (1u64 << 63))
    }
    fn native(self) -> Self {
        u64::from_le(self)
    }
}

/// Min and max order keys of the finite values in `v` (whole values of `W`'s width;
/// `W::MAX`, 0 when none is finite): the words, read unaligned from any start, in
/// branch-free lanes, so the loop vectorizes; with AVX2 where the CPU has it (baseline x86-64 has no unsigned 32-bit
/// vector min). On this project's 2-core CI machine, float32, one thread: 21-26 GB/s
/// (`cargo run --release --example host_range_speed`); 2.0 byte by byte (round 37's
/// first form, measured the same way).
fn key_range<W: Word>(v: &[u8]) -> (W, W) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above)
        return unsafe { key_range_avx2::<W>(v) };
    }
    key_range_lanes::<W>(v)
}

/// [`key_range_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn key_range_avx2<W: Word>(v: &[u8]) -> (W, W) {
    key_range_lanes::<W>(v)
}

#[inline(always)]
fn key_range_lanes<W: Word>(v: &[u8]) -> (W, W) {
    const L: usize = 16;
    let n = std::mem::size_of::<W>();
    // words read unaligned (any start), little-endian
    let word = |c: &[u8]| bytemuck::pod_read_unaligned::<W>(c).native();
    let (mut mn, mut mx) = ([W::MAX; L], [W::ZERO; L]);
    let mut it = v.chunks_exact(n * L);
    for c in &mut it {
        for l in 0..L {
            let x = word(&c[n * l..n * (l + 1)]);
            let k = x.key();
            mn[l] = mn[l].min(if x.finite() { k } else { W::MAX });
            mx[l] = mx[l].max(if x.finite() { k } else { W::ZERO });
        }
    }
    let (mut a, mut b) = (mn.iter().copied().min().unwrap_or(W::MAX), mx.iter().copied().max().unwrap_or(W::ZERO));
    for x in it.remainder().chunks_exact(n).map(word).filter(|x| x.finite()) {
        a = a.min(x.key());
        b = b.max(x.key());
    }
    (a, b)
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

#[cfg(test)]
mod tests {
    use super::{key_range, key_range_lanes, Word};
    use crate::backend::cpu::szx::{key32, key64};

    /// The scan's word paths (the lanes as compiled without AVX2, and the AVX2
    /// dispatch), from aligned and unaligned starts, against a plain fold of the keys.
    #[test]
    fn key_range_paths_match_a_plain_fold() {
        let mut rnd = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut bytes: Vec<u8> = (0..8 * 1003 + 8).map(|_| rnd() as u8).collect();
        // a few special values among the random bits
        for (i, w) in [0x7f80_0000u32, 0xff80_0000, 0x8000_0000, 0, 0x7fc0_0001, 1].iter().enumerate() {
            bytes[40 * i..40 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        for start in [0usize, 1, 2, 4, 8] {
            for len in [0usize, 4, 60, 64, 4 * 1001] {
                let v = &bytes[start..start + len];
                let mut want = (u32::MAX, 0u32);
                for c in v.chunks_exact(4) {
                    let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    if (x >> 23) & 0xff != 0xff {
                        want = (want.0.min(key32(x)), want.1.max(key32(x)));
                    }
                }
                assert_eq!(key_range_lanes::<u32>(v), want, "u32 start {start} len {len}");
                assert_eq!(key_range::<u32>(v), want, "u32 start {start} len {len}");
                let v = &bytes[start..start + 2 * len];
                let mut want = (u64::MAX, 0u64);
                for c in v.chunks_exact(8) {
                    let x = u64::from_le_bytes(c.try_into().unwrap());
                    if (x >> 52) & 0x7ff != 0x7ff {
                        let (h, l) = key64(x as u32, (x >> 32) as u32);
                        let k = ((h as u64) << 32) | l as u64;
                        assert_eq!(k, x.key());
                        want = (want.0.min(k), want.1.max(k));
                    }
                }
                assert_eq!(key_range_lanes::<u64>(v), want, "u64 start {start} len {}", 2 * len);
                assert_eq!(key_range::<u64>(v), want, "u64 start {start} len {}", 2 * len);
            }
        }
    }
}
