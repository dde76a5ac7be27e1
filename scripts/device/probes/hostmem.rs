//! Host-memory probe for the device machine (built by kit.sh with rustc -O; no
//! dependencies). The archive's readback writes into freshly allocated memory, whose
//! pages are faulted in (and zeroed by the kernel) on first touch; the plain-readback
//! baseline of `bench` does the same. This times copying N bytes into: fresh memory,
//! fresh memory advised MADV_HUGEPAGE (2 MiB pages: 512x fewer faults), and memory
//! already touched, with 1 thread and with all threads. If fresh memory is much slower
//! than touched memory here, the device-to-host figures (8-13 GB/s in round 10) measure
//! page faults rather than the link. It also times a float32 min/max scan of touched
//! memory with 1 thread and all threads: whether a host scan of a field's range could
//! keep up with its upload (PERFORMANCE.md, Next steps 5). Usage: hostmem-probe
//! [MiB ...] (default 134 1024).
use std::time::Instant;

extern "C" {
    fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    fn munmap(addr: *mut u8, len: usize) -> i32;
}
const MADV_HUGEPAGE: i32 = 14;
const PROT_RW: i32 = 1 | 2;
const MAP_PRIVATE_ANON: i32 = 0x02 | 0x20;

/// Anonymous memory straight from mmap: untouched pages, as the allocator hands out
/// for large allocations (Vec::with_capacity, alloc_zeroed of big sizes).
struct Buf(*mut u8, usize);
impl Buf {
    fn fresh(n: usize, huge: bool) -> Buf {
        // SAFETY: a new private anonymous mapping of n bytes
        let p = unsafe { mmap(std::ptr::null_mut(), n, PROT_RW, MAP_PRIVATE_ANON, -1, 0) };
        assert!(!p.is_null() && p as isize != -1, "mmap");
        if huge {
            // SAFETY: p..p+n is this mapping
            unsafe { madvise(p, n, MADV_HUGEPAGE) };
        }
        Buf(p, n)
    }
    fn slice(&mut self) -> &mut [u8] {
        // SAFETY: p..p+n is mapped read-write, zero-filled, owned by self
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}
impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: mapped in fresh with this length
        unsafe { munmap(self.0, self.1) };
    }
}

fn copy(dst: &mut [u8], src: &[u8], threads: usize) {
    let piece = src.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// Min and max of the float32 values in `src` (NaN ignored), over `threads` threads.
fn minmax(src: &[f32], threads: usize) -> (f32, f32) {
    let piece = src.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = src
            .chunks(piece)
            .map(|c| {
                s.spawn(move || {
                    // eight lanes so the compiler can keep them in vector registers
                    let (mut lo, mut hi) = ([f32::INFINITY; 8], [f32::NEG_INFINITY; 8]);
                    let mut it = c.chunks_exact(8);
                    for v in &mut it {
                        for k in 0..8 {
                            lo[k] = lo[k].min(v[k]);
                            hi[k] = hi[k].max(v[k]);
                        }
                    }
                    for &x in it.remainder() {
                        lo[0] = lo[0].min(x);
                        hi[0] = hi[0].max(x);
                    }
                    (lo.iter().copied().fold(f32::INFINITY, f32::min), hi.iter().copied().fold(f32::NEG_INFINITY, f32::max))
                })
            })
            .collect();
        parts.into_iter().map(|h| h.join().unwrap()).fold((f32::INFINITY, f32::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)))
    })
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![134, 1024] } else { sizes };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("hostmem-probe: {all} threads; THP {}", std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default().trim());
    for mib in sizes {
        let n = mib << 20;
        let src = vec![7u8; n];
        for threads in [1, all] {
            let mut best = [0f64; 3];
            for _ in 0..3 {
                for (k, huge) in [(0, false), (1, true)] {
                    let mut b = Buf::fresh(n, huge);
                    let t = Instant::now();
                    copy(b.slice(), &src, threads);
                    best[k] = best[k].max(n as f64 / t.elapsed().as_secs_f64() / 1e9);
                    if k == 1 {
                        let t = Instant::now();
                        copy(b.slice(), &src, threads);
                        best[2] = best[2].max(n as f64 / t.elapsed().as_secs_f64() / 1e9);
                    }
                    std::hint::black_box(b.slice());
                }
            }
            println!("{mib} MiB, {threads} thread(s): fresh {:.1} GB/s, fresh+MADV_HUGEPAGE {:.1} GB/s, touched {:.1} GB/s (best of 3)", best[0], best[1], best[2]);
        }
        let vals: Vec<f32> = (0..n / 4).map(|i| (i as f32 * 1e-3).sin()).collect();
        for threads in [1, all] {
            let mut best = 0f64;
            for _ in 0..3 {
                let t = Instant::now();
                std::hint::black_box(minmax(std::hint::black_box(&vals), threads));
                best = best.max(n as f64 / t.elapsed().as_secs_f64() / 1e9);
            }
            println!("{mib} MiB, {threads} thread(s): float32 min/max scan {best:.1} GB/s (best of 3)");
        }
    }
}
