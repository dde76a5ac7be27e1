//! Chunk geometry shared by the block stages (SZx, AdaptiveBitpack, SZp): blocks of
//! `bs` values, chunks of a multiple of `align` blocks whose input fits one binding
//! (so every chunk window starts 256-byte aligned), and a meta region of
//! `meta_bytes` per block padded to 8 bytes.

use super::RunOptions;
use crate::error::{Error, Result};
use crate::recording::Recorder;

#[derive(Debug, Clone, Copy)]
pub struct BlockGeo {
    pub n: u64,
    pub bs: u64,
    pub nb: u64,
    /// blocks per chunk
    pub cb: u64,
    pub nchunks: u64,
    pub meta_bytes: u64,
}

impl BlockGeo {
    /// `value_bytes`: input bytes per value; `what`: the stage, for the error.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        r: &Recorder,
        n: u64,
        bs: u64,
        value_bytes: u64,
        align: u64,
        meta_bytes: u64,
        opts: &RunOptions,
        what: &str,
    ) -> Result<Self> {
        let nb = n.div_ceil(bs);
        // keep every in-kernel word index below 2^32
        let mut limit = r.backend.info().max_binding_bytes.min((1u64 << 31) - 256);
        if let Some(m) = opts.max_chunk_bytes {
            limit = limit.min(m);
        }
        let per_block = bs * value_bytes;
        let cb = (limit.saturating_sub(256) / per_block) / align * align;
        if cb == 0 {
            return Err(Error::TooLarge {
                what: format!("minimum {what} chunk ({align} blocks of {bs} values) plus 256 bytes"),
                actual: align * per_block + 256,
                limit,
            });
        }
        let cb = cb.min(nb.next_multiple_of(align));
        Ok(BlockGeo { n, bs, nb, cb, nchunks: nb.div_ceil(cb), meta_bytes })
    }

    /// (first block, blocks, values) of chunk `k`.
    pub fn chunk(&self, k: u64) -> (u64, u64, u64) {
        let b0 = k * self.cb;
        let nbk = self.cb.min(self.nb - b0);
        (b0, nbk, (self.n - b0 * self.bs).min(nbk * self.bs))
    }

    /// Bytes of the meta region, padded to 8.
    pub fn meta_pad(&self) -> u64 {
        Self::meta_pad_of(self.n, self.bs, self.meta_bytes)
    }

    /// The meta region's padded size for `n` values in blocks of `bs` (no chunking
    /// needed: it does not depend on the adapter).
    pub fn meta_pad_of(n: u64, bs: u64, meta_bytes: u64) -> u64 {
        (meta_bytes * n.div_ceil(bs.max(1))).next_multiple_of(8)
    }
}
