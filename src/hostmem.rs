//! Host memory helpers for the large transfers: fallible zeroed allocation (the pages
//! are faulted in by whoever writes them first), and copies and CRCs spread over
//! threads. Fresh memory costs a page fault per 4 KiB on first touch, which bounds a
//! single-threaded copy into it to a few GB/s; several threads fault in parallel.

use crate::{Error, Result};
use rayon::prelude::*;

/// Pieces handed to the threads.
const PIECE: usize = 1 << 20;

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
    // SAFETY: `p` was allocated by the global allocator with the layout of `[u8; n]`
    // (align 1, size n), holds n initialized (zero) bytes, and is owned by nothing else.
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// `dst.copy_from_slice(src)`, on several threads when large.
pub fn par_copy(dst: &mut [u8], src: &[u8]) {
    if src.len() < 4 * PIECE {
        dst.copy_from_slice(src);
        return;
    }
    dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| d.copy_from_slice(s));
}

/// CRC-32/IEEE of `b` (the same value as `crc32fast::hash`), pieces hashed on several
/// threads and combined in order.
pub fn crc32(b: &[u8]) -> u32 {
    if b.len() < 4 * PIECE {
        return crc32fast::hash(b);
    }
    b.par_chunks(4 * PIECE)
        .map(|c| {
            let mut h = crc32fast::Hasher::new();
            h.update(c);
            h
        })
        .reduce_with(|mut a, b| {
            a.combine(&b);
            a
        })
        .map_or(0, |h| h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_crc_and_copy_match_the_sequential_ones() {
        for n in [0usize, 1, 7, 4 * PIECE - 1, 4 * PIECE, 9 * PIECE + 13, 33 * PIECE + 5] {
            let src: Vec<u8> = (0..n).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
            assert_eq!(crc32(&src), crc32fast::hash(&src), "crc of {n} bytes");
            let mut dst = zeroed(n).unwrap();
            assert_eq!(dst.len(), n);
            assert!(dst.iter().all(|&b| b == 0));
            par_copy(&mut dst, &src);
            assert_eq!(dst, src);
        }
    }
}
