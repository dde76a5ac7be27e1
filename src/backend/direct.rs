//! Direct transfers, the parts the GPU backends share: whether they are on, the piece
//! size, how a transfer splits into pieces, and the note of the last fallback.
//!
//! A direct transfer makes the caller's own memory visible to the device (the wgpu
//! backend imports it, `wgpu/host_import.rs`; the CUDA backend registers it) and lets
//! the device's copy engine read an upload from it or write a readback into it, piece
//! by piece, so the next piece's pinning runs while the last one copies. Each backend
//! does its own pinning and copies; what must agree between them is here, once.

use crate::error::{Error, Result};
use std::sync::Mutex;

/// Transfers of at least this many bytes (in all) are direct when that is on.
pub(crate) const IMPORT_MIN: u64 = 4 << 20;
/// The default piece (`FZWGPU_IMPORT_PIECE` changes it for measurements and tests).
pub(crate) const IMPORT_PIECE: u64 = 64 << 20;

/// Whether direct transfers are on and their piece in bytes: the backend's options
/// where given, else `FZWGPU_HOST_IMPORT` (default off) and `FZWGPU_IMPORT_PIECE`.
pub(crate) fn config(host_import: Option<bool>, import_piece: Option<u64>) -> Result<(bool, u64)> {
    let on = match host_import {
        Some(w) => w,
        None => crate::envcfg::switch("FZWGPU_HOST_IMPORT")?.unwrap_or(false),
    };
    let piece = match import_piece {
        Some(p) => p,
        None => crate::envcfg::get("FZWGPU_IMPORT_PIECE")?.map(|v| crate::types::parse_size(&v)).transpose()?.unwrap_or(IMPORT_PIECE),
    };
    if !(64 << 10..=1 << 30).contains(&piece) || piece % (64 << 10) != 0 {
        return Err(Error::config(format!("FZWGPU_IMPORT_PIECE={piece}: want a multiple of 64K from 64K to 1G")));
    }
    Ok((on, piece))
}

/// The pieces of `len` bytes at address `addr`: (offset, length), each ending at a
/// multiple of `step` bytes of address or at the end. With `step` a multiple of the
/// page (and of the import alignment), no two pieces of one transfer share a page, so
/// each piece's pinning covers pages of its own.
pub(crate) fn pieces(addr: usize, len: usize, step: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        (at < len).then(|| {
            let n = ((addr + at + 1).next_multiple_of(step) - (addr + at)).min(len - at);
            let piece = (at, n);
            at += n;
            piece
        })
    })
}

/// The pages around `len` bytes at `addr` (`align` a power of two, the page or the
/// import alignment): (start, size, the slice's offset in them). What a piece's
/// pinning covers.
pub(crate) fn span(addr: usize, len: usize, align: u64) -> (usize, u64, u64) {
    let a = align as usize;
    let start = addr & !(a - 1);
    let end = (addr + len).next_multiple_of(a);
    (start, (end - start) as u64, (addr - start) as u64)
}

/// Why the last direct transfer fell back to staging (none yet: None).
#[derive(Default)]
pub(crate) struct Fallback(Mutex<Option<String>>);

impl Fallback {
    pub(crate) fn note(&self, why: String) {
        if let Ok(mut f) = self.0.lock() {
            *f = Some(why);
        }
    }

    /// `staging` (what stages transfers) with the last fallback's reason appended.
    pub(crate) fn describe(&self, staging: String) -> String {
        match self.0.lock().ok().and_then(|f| f.clone()) {
            Some(why) => format!("{staging}; a direct transfer fell back to staging: {why}"),
            None => staging,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{pieces, span};

    #[test]
    fn spans_cover_whole_pages() {
        assert_eq!(span(4096, 4096, 4096), (4096, 4096, 0));
        assert_eq!(span(4100, 8, 4096), (4096, 4096, 4));
        assert_eq!(span(8188, 8, 4096), (4096, 8192, 4092));
        assert_eq!(span(1 << 21, 1, 1 << 21), (1 << 21, 1 << 21, 0));
    }

    #[test]
    fn pieces_end_at_step_multiples_and_cover_the_transfer() {
        let p = 64usize << 20;
        let v = |addr, len, step| pieces(addr, len, step).collect::<Vec<_>>();
        assert_eq!(v(p - 8, 16, p), vec![(0, 8), (8, 8)]);
        assert_eq!(v(p, 2 * p + 4, p), vec![(0, p), (p, p), (2 * p, 4)]);
        assert_eq!(v(100, 50, p), vec![(0, 50)]);
        assert_eq!(v(100, 0, p), vec![]);
        // every piece but the last ends at a multiple of the step; together they
        // cover the transfer once, in order
        for (addr, len, step) in [(4093usize, 1 << 20, 4096usize), (1, 10_000_001, 1 << 16), (1 << 30, 3 << 20, 1 << 20)] {
            let ps = v(addr, len, step);
            let mut at = 0;
            for (k, &(o, n)) in ps.iter().enumerate() {
                assert_eq!(o, at);
                assert!(n > 0 && n <= step);
                if k + 1 < ps.len() {
                    assert!((addr + o + n).is_multiple_of(step));
                }
                at += n;
            }
            assert_eq!(at, len);
        }
    }
}
