//! Host memory helpers for the large transfers: fallible zeroed allocation (the pages
//! are faulted in by whoever writes them first), and copies and CRCs spread over
//! threads. Fresh memory costs a page fault per 4 KiB on first touch, which bounds a
//! single-threaded copy into it to a few GB/s; several threads fault in parallel.
//! `FZWGPU_HUGEPAGES=on` makes large allocations ask Linux for transparent huge pages
//! (one fault per 2 MiB): on the development machine a copy into fresh memory ran at
//! 2.2 GB/s, 4.2 with huge pages, 7.4 into memory already touched; on the H200 machine
//! 1.5 / 3.0 / 5.0 per thread and 9.8-14.7 / 20-21 / 31-42 on 16 threads
//! (`scripts/device/probes/hostmem.rs`), but decompression end to end there did not
//! gain (round 11, docs/performance-history.md), and a huge-page fault may stall in the kernel's
//! compaction, so it is off by default.

use crate::{Error, Result};
use rayon::prelude::*;

/// Pieces handed to the threads (the largest; see `copy_piece`).
const PIECE: usize = 1 << 20;
/// The smallest piece of a parallel copy, and copies below `4 * MIN_PIECE` bytes run on
/// the calling thread.
const MIN_PIECE: usize = 64 << 10;

/// The piece a copy of `len` bytes is cut into for the threads: about 32 pieces (so a
/// staged transfer's smaller buffers still spread over the threads: one thread copies
/// into touched memory at a fifth of what sixteen reach), whole 4 KiB pages, from
/// MIN_PIECE to PIECE.
fn copy_piece(len: usize) -> usize {
    (len / 32).clamp(MIN_PIECE, PIECE) / 4096 * 4096
}

/// Runs `op`, and the parallel work inside it, on fzwgpu's own rayon pool, never on the
/// caller's: for parallel work done while holding a lock that other calls into the same
/// backend take (the cpu backend's kernels under its buffer table, the staged copies
/// of the GPU backends under their queue and staging locks). A rayon worker that waits
/// for parallel work runs other queued tasks of its pool meanwhile; on the caller's
/// pool one of those could be the caller's next compression through the same backend,
/// which would then wait on a lock its own thread holds (compressions from rayon tasks
/// through one cpu backend hung in 2 of 4 runs, round 29,
/// `compressions_from_rayon_tasks_share_one_backend`). This pool's workers run only
/// such work, which takes no backend lock. A caller that is itself a worker of another
/// pool waits on a helper thread instead, so that it runs nothing else while waiting;
/// inside this pool `op` runs in place. The pool has rayon's default size (the global
/// pool's, `RAYON_NUM_THREADS` or one thread per core). If it cannot be built (the OS
/// refused its threads), `op` runs outside any pool and rayon's global pool serves its
/// parallel work, as before round 29, without that guarantee.
pub(crate) fn isolated<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().thread_name(|i| format!("fzwgpu-host-{i}")).build().ok());
    let on_worker = rayon::current_thread_index().is_some();
    match pool {
        Some(pool) if !on_worker || pool.current_thread_index().is_some() => pool.install(op),
        Some(pool) => on_helper(|| pool.install(op)),
        None if on_worker => on_helper(op),
        None => op(),
    }
}

/// `op` on a new thread, the caller blocked (not stealing work) until it ends; a panic
/// in `op` is resumed on the caller.
fn on_helper<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| s.spawn(op).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
}

/// `n` zero bytes, or `Error::OutOfMemory` (never an abort). The memory is not touched
/// here: large allocations come from the OS as untouched zero pages.
pub fn zeroed(n: usize) -> Result<Vec<u8>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| Error::OutOfMemory(format!("{n} bytes of host memory")))?;
    // SAFETY: the layout has a nonzero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(Error::OutOfMemory(format!("{n} bytes of host memory")));
    }
    advise_huge(p, n);
    // SAFETY: `p` was allocated by the global allocator with the layout of `[u8; n]`
    // (align 1, size n), holds n initialized (zero) bytes, and is owned by nothing else.
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// Allocations at least this large ask for huge pages.
const HUGE_FROM: usize = 8 << 20;

/// With `FZWGPU_HUGEPAGES=on`: asks the kernel to back the whole 2 MiB pages inside
/// `p .. p + n` with transparent huge pages (a hint: without THP, or with it off,
/// nothing changes). Only for fresh
/// allocations of at least `HUGE_FROM` bytes, which the allocator maps untouched.
#[cfg(target_os = "linux")]
fn advise_huge(p: *mut u8, n: usize) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if n < HUGE_FROM || !*ON.get_or_init(|| crate::envcfg::switch("FZWGPU_HUGEPAGES").ok().flatten().unwrap_or(false)) {
        return;
    }
    const HUGE: usize = 2 << 20;
    let (a, b) = ((p as usize).next_multiple_of(HUGE), (p as usize + n) / HUGE * HUGE);
    if b > a {
        // SAFETY: [a, b) lies inside this allocation (page-aligned, as madvise wants);
        // MADV_HUGEPAGE changes no contents, only how later faults are served, and a
        // failure (no THP in this kernel) is harmless, so its result is ignored.
        unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_p: *mut u8, _n: usize) {}

/// Which way a staged transfer's host copy goes: into a staging buffer (an upload) or
/// out of one into the caller's memory (a readback).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Way {
    Up,
    Down,
}

/// Uploads up to this many bytes stream their copies by default (`stream_copies`).
pub(crate) const STREAM_UP_MAX: usize = 256 << 20;

/// Whether a staged transfer of `len` bytes copies with non-temporal (streaming)
/// stores, which write the destination's lines to memory without reading them into
/// the cache first (two bytes of memory traffic per byte copied instead of three), and
/// leave nothing dirty in the cache for a DMA engine to fetch. `FZWGPU_STREAM_COPY`:
/// `on`, `off`, or `auto` (the default): readbacks always, uploads up to
/// STREAM_UP_MAX. Measured on an H100's host (round 42, `docs/results/h100-r42b.log`):
/// streaming made readbacks faster through both backends and a 134 MB upload's final
/// wait for its DMA shorter (CUDA: 0.77-2.14 -> 0.52-0.58 ms), but a 1 GiB upload's
/// copies slower (the median of its last ten 32 MiB fills 0.70-0.89 ms streamed,
/// 0.41-0.69 cached; `scripts/device/trace-summary.py` on the call's traces).
pub(crate) fn stream_copies(way: Way, len: usize) -> bool {
    static MODE: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    let forced = *MODE.get_or_init(|| match crate::envcfg::get("FZWGPU_STREAM_COPY").ok().flatten().as_deref() {
        Some("on" | "1") => Some(true),
        Some("off" | "0") => Some(false),
        _ => None,
    });
    forced.unwrap_or(way == Way::Down || len <= STREAM_UP_MAX)
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the 16-byte-aligned body of
/// `dst` (x86_64: SSE2's `movntdq`, in every x86_64 CPU), then a store fence so the
/// bytes are visible to other threads and to devices before this returns.
#[cfg(target_arch = "x86_64")]
fn copy_stream(dst: &mut [u8], src: &[u8]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    assert_eq!(dst.len(), src.len(), "copy_stream: lengths differ");
    let n = dst.len();
    let head = dst.as_ptr().align_offset(16).min(n);
    dst[..head].copy_from_slice(&src[..head]);
    let body = (n - head) / 64 * 64;
    // SAFETY: head + body <= n bytes of both slices are in bounds; d + head is 16-byte
    // aligned (align_offset), so every streaming store is aligned; the loads take any
    // alignment; SSE2 is part of x86_64.
    unsafe {
        let (d, s) = (dst.as_mut_ptr().add(head), src.as_ptr().add(head));
        let mut i = 0;
        while i < body {
            let a = _mm_loadu_si128(s.add(i) as *const __m128i);
            let b = _mm_loadu_si128(s.add(i + 16) as *const __m128i);
            let c = _mm_loadu_si128(s.add(i + 32) as *const __m128i);
            let e = _mm_loadu_si128(s.add(i + 48) as *const __m128i);
            _mm_stream_si128(d.add(i) as *mut __m128i, a);
            _mm_stream_si128(d.add(i + 16) as *mut __m128i, b);
            _mm_stream_si128(d.add(i + 32) as *mut __m128i, c);
            _mm_stream_si128(d.add(i + 48) as *mut __m128i, e);
            i += 64;
        }
        _mm_sfence();
    }
    dst[head + body..].copy_from_slice(&src[head + body..]);
}

#[cfg(not(target_arch = "x86_64"))]
fn copy_stream(dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(src);
}

/// One piece of a parallel copy: streaming stores when `stream`.
fn copy_one(d: &mut [u8], s: &[u8], stream: bool) {
    if stream {
        copy_stream(d, s);
    } else {
        d.copy_from_slice(s);
    }
}

/// `dst.copy_from_slice(src)`, on several threads when large.
pub fn par_copy(dst: &mut [u8], src: &[u8]) {
    par_copy_as(dst, src, false)
}

/// `par_copy`, with streaming stores when `stream` (for the staged transfers:
/// `stream_copies`).
pub(crate) fn par_copy_as(dst: &mut [u8], src: &[u8], stream: bool) {
    if src.len() < 4 * MIN_PIECE {
        copy_one(dst, src, stream);
        return;
    }
    let piece = copy_piece(src.len());
    isolated(|| dst.par_chunks_mut(piece).zip(src.par_chunks(piece)).for_each(|(d, s)| copy_one(d, s, stream)));
}

/// `par_copy` that also returns the CRC-32/IEEE of the bytes copied: each thread hashes
/// the piece it has just copied while it is in its cache (the source it has just read
/// with streaming stores, else what it has written), so the check costs no second pass
/// over memory (the archive's payload check during its upload or readback).
pub fn par_copy_crc(dst: &mut [u8], src: &[u8]) -> u32 {
    par_copy_crc_as(dst, src, false)
}

/// `par_copy_crc`, with streaming stores when `stream`.
pub(crate) fn par_copy_crc_as(dst: &mut [u8], src: &[u8], stream: bool) -> u32 {
    let copy_hash = |d: &mut [u8], s: &[u8]| {
        copy_one(d, s, stream);
        let mut h = crc32fast::Hasher::new();
        h.update(if stream { s } else { d });
        h
    };
    if src.len() < 4 * MIN_PIECE {
        return copy_hash(dst, src).finalize();
    }
    let piece = copy_piece(src.len());
    isolated(|| {
        dst.par_chunks_mut(piece).zip(src.par_chunks(piece)).map(|(d, s)| copy_hash(d, s)).reduce_with(combined).map_or(0, |h| h.finalize())
    })
}

/// `a` followed by `b` (rayon's `reduce_with` keeps the pieces in order).
fn combined(mut a: crc32fast::Hasher, b: crc32fast::Hasher) -> crc32fast::Hasher {
    a.combine(&b);
    a
}

/// The CRC-32 of the concatenation of pieces given as (CRC, length), in order.
pub fn crc32_concat(pieces: impl IntoIterator<Item = (u32, u64)>) -> u32 {
    pieces
        .into_iter()
        .map(|(crc, len)| crc32fast::Hasher::new_with_initial_len(crc, len))
        .fold(crc32fast::Hasher::new(), combined)
        .finalize()
}

/// CRC-32/IEEE of `b` (the same value as `crc32fast::hash`), pieces hashed on several
/// threads and combined in order.
pub fn crc32(b: &[u8]) -> u32 {
    if b.len() < 4 * PIECE {
        return crc32fast::hash(b);
    }
    isolated(|| {
        b.par_chunks(4 * PIECE)
            .map(|c| {
                let mut h = crc32fast::Hasher::new();
                h.update(c);
                h
            })
            .reduce_with(combined)
            .map_or(0, |h| h.finalize())
    })
}

/// How many bytes of `b` are zero: eight at a time (a word's nonzero bytes marked by
/// carry-free arithmetic and counted), pieces on several threads when large. (The
/// plain `filter().count()` over `szp_centered`'s AdaptiveBitpack widths took ~3.3 ms
/// per GiB on 2 cores, this ~1.0: docs/performance-history.md, round 10.)
pub fn count_zero_bytes(b: &[u8]) -> u64 {
    fn seq(b: &[u8]) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const LANES16: u64 = 0x00ff_00ff_00ff_00ff;
        let mut zeros = 0u64;
        // per-byte sums of 0/1 flags stay below 256 over 255 words
        for big in b.chunks(255 * 8) {
            let mut words = big.chunks_exact(8);
            let mut acc = 0u64;
            for w in &mut words {
                let x = u64::from_le_bytes(w.try_into().expect("chunks of 8"));
                // per byte: its low 7 bits plus 0x7f reach the high bit when any is set
                // (at most 0xfe: nothing carries into the next byte), or-ed with its own
                // high bit, moved down to a 0/1 flag
                acc += ((((x & LOW7) + LOW7) | x) & !LOW7) >> 7;
            }
            // the eight byte sums added pairwise into four 16-bit lanes, then into the top
            let pairs = (acc & LANES16) + ((acc >> 8) & LANES16);
            let nonzero = pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48;
            let tail = words.remainder();
            zeros += (big.len() - tail.len()) as u64 - nonzero + tail.iter().filter(|&&v| v == 0).count() as u64;
        }
        zeros
    }
    if b.len() < 4 * PIECE {
        return seq(b);
    }
    b.par_chunks(PIECE).map(seq).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_crc_and_copy_match_the_sequential_ones() {
        for n in
            [0usize, 1, 7, 4 * MIN_PIECE - 1, 4 * MIN_PIECE, 5 * MIN_PIECE + 3, 4 * PIECE - 1, 4 * PIECE, 9 * PIECE + 13, 33 * PIECE + 5]
        {
            let src: Vec<u8> = (0..n).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
            assert_eq!(crc32(&src), crc32fast::hash(&src), "crc of {n} bytes");
            let mut dst = zeroed(n).unwrap();
            assert_eq!(dst.len(), n);
            assert!(dst.iter().all(|&b| b == 0));
            par_copy(&mut dst, &src);
            assert_eq!(dst, src);
            let mut dst2 = vec![0xA5u8; n];
            assert_eq!(par_copy_crc(&mut dst2, &src), crc32fast::hash(&src), "copy's crc of {n} bytes");
            assert_eq!(dst2, src);
            // both store kinds (FZWGPU_STREAM_COPY)
            for stream in [false, true] {
                let mut d = vec![0x3Cu8; n];
                par_copy_as(&mut d, &src, stream);
                assert_eq!(d, src, "{n} bytes, stream {stream}");
                let mut d = vec![0x3Cu8; n];
                assert_eq!(par_copy_crc_as(&mut d, &src, stream), crc32fast::hash(&src), "{n} bytes, stream {stream}");
                assert_eq!(d, src, "{n} bytes, stream {stream}");
            }
            // the same bytes as three pieces (one of them empty), combined in order
            let (a, b) = (n / 3, n / 3 + n / 5);
            let parts = [&src[..a], &src[a..a], &src[a..b], &src[b..]];
            let concat = crc32_concat(parts.iter().map(|p| (crc32fast::hash(p), p.len() as u64)));
            assert_eq!(concat, crc32fast::hash(&src), "pieces' crc of {n} bytes");
        }
    }

    #[test]
    fn streaming_copies_match_plain_ones_at_any_alignment() {
        let src: Vec<u8> = (0..(3 << 20) + 200).map(|i: usize| (i.wrapping_mul(2654435761) >> 11) as u8).collect();
        for (at, n) in [(0, 0), (0, 1), (3, 15), (1, 16), (0, 64), (5, 63), (7, 65), (0, 4096), (13, 100_003), (1, (3 << 20) + 100)] {
            for dat in [0usize, 1, 8, 15] {
                let mut dst = vec![0x5Au8; n + 32];
                copy_stream(&mut dst[dat..dat + n], &src[at..at + n]);
                assert_eq!(&dst[dat..dat + n], &src[at..at + n], "{n} bytes from {at} to {dat}");
                assert!(dst[..dat].iter().chain(&dst[dat + n..]).all(|&b| b == 0x5A), "{n} bytes from {at} to {dat}: outside written");
            }
        }
    }

    #[test]
    fn copy_pieces_are_whole_pages_within_bounds() {
        for len in [4 * MIN_PIECE, 1 << 20, 2 << 20, 5 << 20, 32 << 20, 1 << 30] {
            let p = copy_piece(len);
            assert!((MIN_PIECE..=PIECE).contains(&p) && p.is_multiple_of(4096), "{len}: {p}");
        }
        assert_eq!(copy_piece(32 << 20), PIECE);
        assert_eq!(copy_piece(4 << 20), 128 << 10);
    }

    #[test]
    fn zero_bytes_are_counted_as_one_by_one() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for n in [0usize, 1, 7, 8, 9, 63, 1000, 4 * PIECE - 3, 4 * PIECE, 9 * PIECE + 13] {
            // every byte value, runs of zeros, and offsets that are not a multiple of 8
            let v: Vec<u8> = (0..n)
                .map(|i| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    if (i / 64) % 3 == 0 || s.is_multiple_of(4) {
                        0
                    } else {
                        (s >> 24) as u8
                    }
                })
                .collect();
            for off in [0usize, 1, 5] {
                let b = &v[off.min(n)..];
                assert_eq!(count_zero_bytes(b), b.iter().filter(|&&x| x == 0).count() as u64, "{n} bytes from {off}");
            }
        }
        assert_eq!(count_zero_bytes(&[0x80, 0x01, 0x00, 0xff, 0x7f, 0x00, 0x00, 0x80, 0x00]), 4);
    }
}
