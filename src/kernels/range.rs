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
            key_range64(v)
        } else {
            let (a, b) = key_range32(v);
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

/// Min and max order keys (`key32`) of the finite float32 values in `v` (`u32::MAX`, 0
/// when none is finite): the words in branch-free lanes, so the loop vectorizes; with
/// AVX2 where the CPU has it (baseline x86-64 has no unsigned 32-bit vector min: 3.4
/// GB/s per thread on this project's CI machine, byte by byte 2.0).
fn key_range32(v: &[u8]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above)
        return unsafe { key_range32_avx2(v) };
    }
    key_range32_lanes(v)
}

/// [`key_range32_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn key_range32_avx2(v: &[u8]) -> (u32, u32) {
    key_range32_lanes(v)
}

#[inline(always)]
fn key_range32_lanes(v: &[u8]) -> (u32, u32) {
    let key = |x: u32| x ^ (((x as i32 >> 31) as u32) | 0x8000_0000);
    let finite = |x: u32| (x & 0x7f80_0000) != 0x7f80_0000;
    let words = |ws: &mut dyn Iterator<Item = u32>, (mut a, mut b): (u32, u32)| {
        for x in ws {
            if finite(x) {
                a = a.min(key(x));
                b = b.max(key(x));
            }
        }
        (a, b)
    };
    let bytes = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    // SAFETY: every bit pattern is a valid u32; align_to reinterprets the aligned middle
    let (head, mid, tail) = unsafe { v.align_to::<u32>() };
    if !head.is_empty() {
        // not on a word boundary: byte by byte
        return words(&mut v.chunks_exact(4).map(bytes), (u32::MAX, 0));
    }
    const L: usize = 16;
    let (mut mn, mut mx) = ([u32::MAX; L], [0u32; L]);
    let mut it = mid.chunks_exact(L);
    for c in &mut it {
        for l in 0..L {
            let x = u32::from_le(c[l]);
            let k = key(x);
            mn[l] = mn[l].min(if finite(x) { k } else { u32::MAX });
            mx[l] = mx[l].max(if finite(x) { k } else { 0 });
        }
    }
    let lanes = (mn.iter().copied().min().unwrap_or(u32::MAX), mx.iter().copied().max().unwrap_or(0));
    let rest = words(&mut it.remainder().iter().map(|&x| u32::from_le(x)), lanes);
    words(&mut tail.chunks_exact(4).map(bytes), rest)
}

/// [`key_range32`] for float64: keys as `(hi << 32) | lo` of `key64`.
fn key_range64(v: &[u8]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above)
        return unsafe { key_range64_avx2(v) };
    }
    key_range64_lanes(v)
}

/// [`key_range64_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn key_range64_avx2(v: &[u8]) -> (u64, u64) {
    key_range64_lanes(v)
}

#[inline(always)]
fn key_range64_lanes(v: &[u8]) -> (u64, u64) {
    const EXP: u64 = 0x7ff0_0000_0000_0000;
    let key = |x: u64| x ^ (((x as i64 >> 63) as u64) | (1u64 << 63));
    let finite = |x: u64| (x & EXP) != EXP;
    let words = |ws: &mut dyn Iterator<Item = u64>, (mut a, mut b): (u64, u64)| {
        for x in ws {
            if finite(x) {
                a = a.min(key(x));
                b = b.max(key(x));
            }
        }
        (a, b)
    };
    let bytes = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    // SAFETY: every bit pattern is a valid u64; align_to reinterprets the aligned middle
    let (head, mid, tail) = unsafe { v.align_to::<u64>() };
    if !head.is_empty() {
        return words(&mut v.chunks_exact(8).map(bytes), (u64::MAX, 0));
    }
    const L: usize = 8;
    let (mut mn, mut mx) = ([u64::MAX; L], [0u64; L]);
    let mut it = mid.chunks_exact(L);
    for c in &mut it {
        for l in 0..L {
            let x = u64::from_le(c[l]);
            let k = key(x);
            mn[l] = mn[l].min(if finite(x) { k } else { u64::MAX });
            mx[l] = mx[l].max(if finite(x) { k } else { 0 });
        }
    }
    let lanes = (mn.iter().copied().min().unwrap_or(u64::MAX), mx.iter().copied().max().unwrap_or(0));
    let rest = words(&mut it.remainder().iter().map(|&x| u64::from_le(x)), lanes);
    words(&mut tail.chunks_exact(8).map(bytes), rest)
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
