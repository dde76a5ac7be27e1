//! The AdaptiveBitpack stage (StageType 7, BITPACK): per block of `block_size` codes,
//! a fixed width from the block's largest code (int32 input is zigzag-mapped so the
//! sign costs one bit), a rate-0 escape for all-zero blocks (width 0, no payload), and
//! payload offsets from the device scan. Output buffer:
//!
//! ```text
//! [ meta: u8 width per block ][ zero pad to 8 bytes ][ payload words at scanned offsets ]
//! ```

use super::geo::BlockGeo as Geo;
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage};
use crate::backend::cpu::bitpack::block_words;
use crate::error::{Error, Result};
use crate::kernels::params::BitpackParams;
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::DataType;

/// Bytes of block metadata per block (the width; FORMAT.md).
const META_BYTES: u64 = 1;

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 24;
/// Blocks per chunk are a multiple of this (meta windows stay 256-byte aligned).
const CHUNK_BLOCK_ALIGN: u64 = 256;
// a chunk's first block starts a group of chain_encode's interleaved slots
const _: () = assert!(CHUNK_BLOCK_ALIGN.is_multiple_of(crate::kernels::chain::SLOT_GROUP));

/// The device buffers of one AdaptiveBitpack forward pass (staged or fused): the meta
/// region (cleared), per-chunk totals read back after the submission, per-block
/// scratch for one chunk, and the output parts (the meta region so far).
pub(crate) struct PackBuffers {
    pub g: Geo,
    pub meta: crate::recording::BufId,
    pub totals_w: BufSlice,
    pub widths: crate::recording::BufId,
    pub cost: crate::recording::BufId,
    pub offsets: crate::recording::BufId,
    pub tidx: usize,
    pub parts: Vec<Part>,
}

/// One chunk's windows into an archived AdaptiveBitpack buffer.
pub(crate) struct ChunkWindows {
    pub meta_w: BufSlice,
    pub pay_w: BufSlice,
    /// word offset of the chunk's payload inside `pay_w`
    pub word_base: u64,
}

/// The AdaptiveBitpack stage.
#[derive(Debug, Clone)]
pub struct BitpackStage {
    pub(crate) dtype: DataType,
    pub(crate) block_size: u32,
    pub(crate) n: Option<u64>,
    zero_blocks: Option<u64>,
}

impl BitpackStage {
    pub fn new(dtype: DataType, block_size: u32) -> Result<Self> {
        if !matches!(dtype, DataType::I32 | DataType::U32) {
            return Err(Error::config(format!("AdaptiveBitpack data_type must be int32 or uint32, got {dtype}")));
        }
        if !(1..=4096).contains(&block_size) {
            return Err(Error::config(format!("AdaptiveBitpack block_size must be in 1..=4096, got {block_size}")));
        }
        Ok(BitpackStage { dtype, block_size, n: None, zero_blocks: None })
    }

    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let dtype = match t.str("data_type")? {
            Some(s) => DataType::from_toml_name(&s)?,
            None => DataType::I32,
        };
        let bs = t.int("block_size")?.unwrap_or(128);
        Self::new(dtype, u32::try_from(bs).map_err(|_| Error::config(format!("AdaptiveBitpack block_size {bs} out of range")))?)
    }

    /// Fraction of all-zero (rate-0) blocks in the last run or decoded archive.
    pub fn zero_block_fraction(&self) -> Option<f64> {
        let (z, n) = (self.zero_blocks?, self.n?);
        let nb = n.div_ceil(self.block_size as u64).max(1);
        Some(z as f64 / nb as f64)
    }

    pub(crate) fn geometry(&self, r: &Recorder, n: u64, opts: &RunOptions) -> Result<Geo> {
        Geo::new(r, n, self.block_size as u64, 4, CHUNK_BLOCK_ALIGN, META_BYTES, opts, "AdaptiveBitpack")
    }

    /// Allocate the buffers of a forward pass over `n` codes (sets the element count).
    pub(crate) fn forward_buffers(&mut self, r: &mut Recorder, n: u64, opts: &RunOptions) -> Result<PackBuffers> {
        self.n = Some(n);
        let g = self.geometry(r, n, opts)?;
        let meta = r.alloc(g.meta_pad())?;
        r.clear(BufSlice::new(meta, 0, g.meta_pad()));
        let totals = r.alloc(4 * g.nchunks)?;
        let totals_w = BufSlice::new(totals, 0, (4 * g.nchunks).next_multiple_of(4));
        let (widths, cost, offsets) = (r.temp(4 * g.cb)?, r.temp(4 * g.cb)?, r.temp(4 * g.cb)?);
        let tidx = r.readback(totals_w);
        let parts = vec![Part { slice: BufSlice::new(meta, 0, g.meta_pad()), len: PartLen::Fixed(g.meta_pad()) }];
        Ok(PackBuffers { g, meta, totals_w, widths, cost, offsets, tidx, parts })
    }

    /// Windows of chunk `k` of an archived buffer (`slice`, validated; `per`: payload
    /// words per chunk; `pstart`: payload words of the chunks before it). Payload
    /// windows start storage-aligned; an all-zero chunk reads no payload, so any valid
    /// window will do.
    pub(crate) fn chunk_windows(r: &Recorder, g: &Geo, slice: BufSlice, per: &[u64], k: u64, pstart: u64) -> ChunkWindows {
        let (b0, nbk, _) = g.chunk(k);
        let align = r.backend.info().storage_align.max(8);
        let abs = slice.offset + g.meta_pad() + 4 * pstart;
        let win = abs / align * align;
        let meta_w = BufSlice::new(slice.buf, slice.offset + b0, nbk.next_multiple_of(4));
        let pw = per[k as usize];
        let pay_w = if pw == 0 { meta_w } else { BufSlice::new(slice.buf, win, abs - win + 4 * pw) };
        ChunkWindows { meta_w, pay_w, word_base: (abs - win) / 4 }
    }

    /// Record the payload offsets of a chunk's blocks from its meta (widths):
    /// `bitpack_meta_cost` then the exclusive scan.
    pub(crate) fn record_offsets(
        r: &mut Recorder,
        p: &BitpackParams,
        meta_w: BufSlice,
        cost: BufSlice,
        offsets: BufSlice,
        nbk: u64,
    ) -> Result<()> {
        let per_group = workgroup_size(Kernel::BitpackMetaCost)? as u64;
        r.dispatch(Kernel::BitpackMetaCost, false, p, &[meta_w, cost], nbk.div_ceil(per_group))?;
        record_exclusive_scan(r, cost, offsets, nbk)
    }

    /// Workgroups of `bitpack_unpack` for `n` codes (CODES per invocation).
    pub fn unpack_groups(n: u64) -> Result<u64> {
        Ok(n.div_ceil(crate::kernels::items_per_group(Kernel::BitpackUnpack)?))
    }

    fn params(&self, nk: u64, nbk: u64, chunk: u64, word_base: u64) -> BitpackParams {
        BitpackParams {
            n: nk as u32,
            block_size: self.block_size,
            nblocks: nbk as u32,
            zigzag: (self.dtype == DataType::I32) as u32,
            chunk: chunk as u32,
            word_base: word_base as u32,
            ..Default::default()
        }
    }

    /// Per-chunk payload words and the count of zero blocks, every width checked.
    fn scan_meta(&self, g: &Geo, meta: &[u8]) -> Result<(Vec<u64>, u64)> {
        use rayon::prelude::*;
        // one vectorized pass over the widths on several threads (a block-by-block loop
        // with a chunk division per block took ~1.5 ns per block: 13 ms for the 8.4 M
        // blocks of 32 of a GiB of float32; three whole passes on one thread 4.4 ms,
        // this 0.4-0.5 ms on this 2-core machine)
        let meta = &meta[..g.nb as usize];
        // payload words of a whole block per width; the field's last block may be
        // shorter and is corrected after the sums
        let full: [u64; 33] = std::array::from_fn(|w| block_words(w.min(32) as u32, g.bs as u32) as u64);
        let mut per = vec![0u64; g.nchunks as usize];
        let (mut widest, mut zeros) = (0u8, 0u64);
        for (k, slot) in per.iter_mut().enumerate() {
            let (b0, nbk, _) = g.chunk(k as u64);
            let run = &meta[b0 as usize..(b0 + nbk) as usize];
            // spans of 1 MiB on several threads (a GiB of float32 in blocks of 32 has
            // 8 MiB of widths)
            let (mx, z, sum) = run.par_chunks(1 << 20).map(width_stats).reduce(|| (0, 0, 0), |a, b| (a.0.max(b.0), a.1 + b.1, a.2 + b.2));
            widest = widest.max(mx);
            zeros += z;
            *slot = if g.bs.is_multiple_of(32) {
                // w * bs / 32 words per block exactly
                g.bs / 32 * sum
            } else {
                run.iter().map(|&w| full[w.min(32) as usize]).sum()
            };
        }
        if widest > 32 {
            let b = meta.iter().position(|&w| w > 32).unwrap_or(0);
            return Err(Error::corrupt(format!("AdaptiveBitpack block {b}: width {}", meta[b])));
        }
        let last = g.nb.saturating_sub(1);
        let len = g.n.saturating_sub(last * g.bs);
        if g.nb > 0 && len < g.bs {
            let w = meta[last as usize] as u32;
            let k = (last / g.cb) as usize;
            per[k] = per[k] - full[w as usize] + block_words(w, len as u32) as u64;
        }
        Ok((per, zeros))
    }

    /// Check the archived buffer (every width, the exact payload length) and return the
    /// geometry, per-chunk payload words and the buffer's window.
    pub(crate) fn validate_input(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<(Geo, Vec<u64>, BufSlice)> {
        let n = self.n.ok_or_else(|| Error::corrupt("AdaptiveBitpack: no stored configuration"))?;
        let g = self.geometry(r, n, opts)?;
        let (slice, len, host) = inputs.first().ok_or_else(|| Error::Pipeline("AdaptiveBitpack inverse: no input".into()))?.host_prefix(
            r,
            "AdaptiveBitpack inverse",
            g.meta_pad(),
        )?;
        if len < g.meta_pad() || (host.len() as u64) < g.meta_pad() || host[g.nb as usize..g.meta_pad() as usize].iter().any(|&b| b != 0) {
            return Err(Error::corrupt("AdaptiveBitpack buffer shorter than its meta region or padding not zero"));
        }
        let (per, zeros) = self.scan_meta(&g, &host[..g.nb as usize])?;
        let total: u64 = per.iter().sum();
        if g.meta_pad() + 4 * total != len {
            return Err(Error::corrupt(format!(
                "AdaptiveBitpack payload is {} bytes, the widths describe {}",
                len - g.meta_pad(),
                4 * total
            )));
        }
        self.zero_blocks = Some(zeros);
        Ok((g, per, slice))
    }

    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[2..8] != [0; 6] {
            return Err(Error::corrupt("AdaptiveBitpack config"));
        }
        let dtype = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::I32 | DataType::U32))
            .ok_or_else(|| Error::corrupt("AdaptiveBitpack data type"))?;
        let bs = u32::from_le_bytes(c[8..12].try_into().unwrap_or([0; 4]));
        let n = u64::from_le_bytes(c[16..24].try_into().unwrap_or([0; 8]));
        let mut s = Self::new(dtype, bs).map_err(|_| Error::corrupt("AdaptiveBitpack block size"))?;
        if n == 0 || n > (u32::MAX as u64) * 64 {
            return Err(Error::corrupt(format!("AdaptiveBitpack element count {n}")));
        }
        s.n = Some(n);
        Ok(s)
    }
}

/// The widest width, the count of zero widths and the sum of the widths of a run of
/// meta bytes, in one pass the compiler vectorizes: 32 u16 lanes over slices of 8 KiB
/// (at most 256 bytes per lane: 255 * 256 < 2^16), summed into u64 between slices.
fn width_stats(run: &[u8]) -> (u8, u64, u64) {
    const L: usize = 32;
    let (mut widest, mut zeros, mut sum) = (0u8, 0u64, 0u64);
    let mut parts = run.chunks_exact(L * 256);
    let mut slice_stats = |part: &[u8]| {
        let (mut mx, mut z, mut s) = ([0u8; L], [0u16; L], [0u16; L]);
        let mut rows = part.chunks_exact(L);
        for row in &mut rows {
            for i in 0..L {
                mx[i] = mx[i].max(row[i]);
                z[i] += (row[i] == 0) as u16;
                s[i] += row[i] as u16;
            }
        }
        for (i, &w) in rows.remainder().iter().enumerate() {
            mx[i] = mx[i].max(w);
            z[i] += (w == 0) as u16;
            s[i] += w as u16;
        }
        widest = widest.max(mx.iter().copied().max().unwrap_or(0));
        zeros += z.iter().map(|&v| v as u64).sum::<u64>();
        sum += s.iter().map(|&v| v as u64).sum::<u64>();
    };
    for part in &mut parts {
        slice_stats(part);
    }
    slice_stats(parts.remainder());
    (widest, zeros, sum)
}

impl Stage for BitpackStage {
    fn type_id(&self) -> u16 {
        ids::BITPACK
    }
    fn type_name(&self) -> &'static str {
        "AdaptiveBitpack"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("codes", self.dtype)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("packed", DataType::U8)]
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0) / 4;
        vec![n.div_ceil(self.block_size as u64).next_multiple_of(8) + n * 4]
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (input, len) =
            inputs.first().ok_or_else(|| Error::Pipeline("AdaptiveBitpack: no input".into()))?.device("AdaptiveBitpack input")?;
        if len % 4 != 0 || len == 0 {
            return Err(Error::Input(format!("AdaptiveBitpack: {len} bytes are not whole 32-bit codes")));
        }
        let PackBuffers { g, meta, totals_w, widths, cost, offsets, tidx, mut parts } = self.forward_buffers(r, len / 4, opts)?;
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let p = self.params(nk, nbk, k, 0);
            let in_w = BufSlice::new(input.buf, input.offset + b0 * g.bs * 4, nk * 4);
            let (w_w, c_w, o_w) = (BufSlice::new(widths, 0, 4 * nbk), BufSlice::new(cost, 0, 4 * nbk), BufSlice::new(offsets, 0, 4 * nbk));
            let payload = r.alloc(nk * 4)?;
            let pay_w = BufSlice::new(payload, 0, nk * 4);
            let meta_w = BufSlice::new(meta, b0, nbk.next_multiple_of(4));
            r.dispatch(Kernel::BitpackWidth, false, &p, &[in_w, w_w, c_w], nbk)?;
            record_exclusive_scan(r, c_w, o_w, nbk)?;
            r.dispatch(Kernel::BitpackPack, false, &p, &[in_w, w_w, o_w, meta_w, pay_w, totals_w], nbk)?;
            parts.push(Part { slice: pay_w, len: PartLen::Readback { index: tidx, word: k as usize, scale: 4 } });
        }
        Ok(vec![PortData::Deferred { parts }])
    }

    fn finish_forward(&mut self, outputs: &[Option<&[u8]>]) -> Result<()> {
        if let (Some(Some(bytes)), Some(n)) = (outputs.first(), self.n) {
            let nb = n.div_ceil(self.block_size as u64);
            self.zero_blocks = Some(crate::hostmem::count_zero_bytes(&bytes[..(nb as usize).min(bytes.len())]));
        }
        Ok(())
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (g, per, slice) = self.validate_input(r, inputs, opts)?;
        let n = g.n;
        let out = r.alloc(n * 4)?;
        let cost = r.temp(4 * g.cb)?;
        let offsets = r.temp(4 * g.cb)?;
        let mut pstart = 0u64;
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let ChunkWindows { meta_w, pay_w, word_base } = Self::chunk_windows(r, &g, slice, &per, k, pstart);
            let p = self.params(nk, nbk, k, word_base);
            let (c_w, o_w) = (BufSlice::new(cost, 0, 4 * nbk), BufSlice::new(offsets, 0, 4 * nbk));
            Self::record_offsets(r, &p, meta_w, c_w, o_w, nbk)?;
            let groups = Self::unpack_groups(nk)?;
            r.dispatch(Kernel::BitpackUnpack, false, &p, &[meta_w, o_w, pay_w, BufSlice::new(out, b0 * g.bs * 4, nk * 4)], groups)?;
            pstart += per[k as usize];
        }
        Ok(vec![PortData::Device { slice: BufSlice::new(out, 0, n * 4), len: n * 4, host: None }])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let mut b = vec![CONFIG_VERSION, self.dtype as u8, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&self.block_size.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&self.n.unwrap_or(0).to_le_bytes());
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![("data_type".to_string(), self.dtype.to_string()), ("block_size".to_string(), self.block_size.to_string())];
        if let Some(n) = self.n {
            v.push(("elements".into(), n.to_string()));
        }
        v
    }

    fn run_notes(&self) -> Vec<String> {
        self.zero_block_fraction().map(|f| vec![format!("zero_block_fraction={f:.4}")]).unwrap_or_default()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The meta scan's per-chunk payload words and zero count equal a block-by-block
    /// sum (whole and short last blocks, several chunks, every width), and a width past
    /// 32 is reported at its block.
    #[test]
    fn scan_meta_matches_a_plain_sum() {
        let mut next = crate::testutil::xorshift(0x9e3779b97f4a7c15);
        for (n, bs, cb) in
            [(1u64, 32u64, 64u64), (1000, 32, 8), (200_000, 32, 1024), (3_000_001, 32, 65_536), (5000, 7, 16), (131_072 * 3 + 5, 128, 1024)]
        {
            let nb = n.div_ceil(bs);
            let g = Geo { n, bs, nb, cb, nchunks: nb.div_ceil(cb), meta_bytes: 1 };
            let meta: Vec<u8> = (0..nb).map(|_| (next() % 33) as u8).collect();
            let st = BitpackStage::new(DataType::I32, bs as u32).unwrap();
            let (per, zeros) = st.scan_meta(&g, &meta).unwrap();
            let mut want = vec![0u64; g.nchunks as usize];
            for b in 0..nb {
                want[(b / cb) as usize] += block_words(meta[b as usize] as u32, (n - b * bs).min(bs) as u32) as u64;
            }
            assert_eq!(per, want, "n={n} bs={bs}");
            assert_eq!(zeros, meta.iter().filter(|&&w| w == 0).count() as u64);
            let mut bad = meta.clone();
            let at = (nb / 2) as usize;
            bad[at] = 33;
            let e = st.scan_meta(&g, &bad).unwrap_err().to_string();
            assert!(e.contains(&format!("block {at}: width 33")), "{e}");
        }
    }
}
