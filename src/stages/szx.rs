//! The SZx stage (StageType 36): a fused whole compressor. Per block of `block_size`
//! values: constant (one midpoint), quantized (reference + fixed-width codes) or raw
//! (verbatim). Output buffer layout (FORMAT.md):
//!
//! ```text
//! [ meta: u16 per block = type | width << 8 ][ zero pad to 8 bytes ]
//! [ payload: per block at its scanned word offset ]
//!     constant  : reference (1 word f32, 2 words f64)
//!     quantized : reference, then len codes of `width` bits, LSB-first, padded to a
//!                 word (f64: to an even word count)
//!     raw       : the len values verbatim
//! ```
//! Offsets are the exclusive scan of the per-block costs; the decoder recomputes them.

use super::bound::Resolved;
use super::geo::BlockGeo as Geo;
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage, MAX_CONFIG_BYTES};
use crate::backend::cpu::szx::{block_cost, SzxFloat, BT_CONST, BT_QUANT, BT_RAW};
use crate::error::{Error, Result};
use crate::kernels::params::{SzxParams32, SzxParams64};
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::Kernel;
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims, ErrorBound, ErrorMode};

pub const MAX_BLOCK_SIZE: u32 = 4096;
pub const DEFAULT_BLOCK_SIZE: u32 = 128;
const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 104;
/// Blocks per chunk are a multiple of this, so chunk windows stay 256-byte aligned.
const CHUNK_BLOCK_ALIGN: u64 = 128;

/// Most workgroups of one `szx_encode` dispatch with subgroup teams (0: one team per
/// block); teams then walk several blocks, loading the next block while encoding the
/// current one. 4096 measured best on the H200 on average over two runs (round 5,
/// docs/performance-history.md); `FZWGPU_ENCODE_GROUPS` overrides it.
pub const ENCODE_GROUPS: u64 = 4096;
/// Bytes of block metadata per block (FORMAT.md: type and width).
const META_BYTES: u64 = 2;

fn encode_groups() -> u64 {
    crate::envcfg::number("FZWGPU_ENCODE_GROUPS").ok().flatten().unwrap_or(ENCODE_GROUPS)
}

/// The encoder for this stage's blocks: `szx_encode8` (teams of 8 lanes, four blocks
/// per 32-lane subgroup) for float32 blocks of 128 on adapters with subgroups, unless
/// `FZWGPU_SZX_TEAM8=off`; else `szx_encode`. Both write the same outputs (one CPU
/// twin). On the H200 (docs/performance-history.md, round 12) it compressed 1-D fields 28-38%
/// faster and CESM TS tiled 26-29% faster through both backends.
fn encoder(f64v: bool, block_size: u64, subgroups: bool) -> Kernel {
    if team8() && !f64v && block_size == 128 && subgroups {
        Kernel::SzxEncode8
    } else {
        Kernel::SzxEncode
    }
}

/// Whether `szx_encode8` runs as `szx_encode8_lookback` where it may: each block's
/// payload written at its final offset in one pass (a look-back over the tiles' costs),
/// instead of `szx_encode8` + the scan of the costs + `szx_compact`. Same archives.
/// [`set_lookback`], else `FZWGPU_SZX_LOOKBACK=on|off`, else [`LOOKBACK_DEFAULT`].
pub fn lookback() -> bool {
    LOOKBACK.get()
}

/// The look-back encoder's default (see [`lookback`]).
pub const LOOKBACK_DEFAULT: bool = false;

static LOOKBACK: crate::envcfg::Setting<bool> =
    crate::envcfg::Setting::new(|| crate::envcfg::switch("FZWGPU_SZX_LOOKBACK").ok().flatten().unwrap_or(LOOKBACK_DEFAULT));

/// Sets [`lookback`] process-wide (tests and benchmarks); None: back to the
/// environment and the default.
pub fn set_lookback(on: Option<bool>) {
    LOOKBACK.set(on);
}

/// Whether chunks of `nbk` blocks (at most) encode in one pass on this backend:
/// `szx_encode8` is the encoder, [`lookback`] is on, and the look-back's loops stay
/// within the adapter's loop limit.
fn one_pass(r: &Recorder, enc: Kernel, nbk: u64) -> Result<bool> {
    if enc != Kernel::SzxEncode8 || !lookback() {
        return Ok(false);
    }
    crate::kernels::scan::lookback_fits(Kernel::SzxEncode8Lookback, lookback_tiles(nbk)?, r.backend.info().loop_limit)
}

/// Tiles (workgroups) of `szx_encode8_lookback` over `nbk` blocks: its WG / 8 teams
/// per tile, reflected.
fn lookback_tiles(nbk: u64) -> Result<u64> {
    let k = Kernel::SzxEncode8Lookback;
    Ok(nbk.div_ceil((crate::kernels::workgroup_size(k)? / k.team_lanes().unwrap_or(1)) as u64))
}

/// The temporaries of the three-pass form (`szx_encode8` or `szx_encode`, the scan,
/// `szx_compact`): per block its meta, reference, cost and offset, and each block's
/// body in its own slot.
struct ThreePass {
    info: crate::recording::BufId,
    refs: crate::recording::BufId,
    cost: crate::recording::BufId,
    offsets: crate::recording::BufId,
    slots: crate::recording::BufId,
}

/// Whether `szx_encode8` may be the encoder (`FZWGPU_SZX_TEAM8`, default on).
pub fn team8() -> bool {
    crate::envcfg::switch("FZWGPU_SZX_TEAM8").ok().flatten().unwrap_or(true)
}

/// One forward run of the SZx stage, chunk by chunk ([`SzxStage::forward_begin`]).
pub(crate) struct SzxForward {
    input: BufSlice,
    n: u64,
    pub(crate) g: Geo,
    meta: crate::recording::BufId,
    totals: crate::recording::BufId,
    enc: Kernel,
    /// None: one pass (`szx_encode8_lookback`)
    three: Option<ThreePass>,
    totals_idx: usize,
    parts: Vec<Part>,
}

impl SzxForward {
    /// The input's values of chunk `k` (value indices).
    pub(crate) fn values(&self, k: u64) -> std::ops::Range<u64> {
        let (b0, _, nk) = self.g.chunk(k);
        b0 * self.g.bs..b0 * self.g.bs + nk
    }

    /// Chunk `k`'s payload window (its first `4 * total` bytes are the payload) and
    /// the word of `totals` that holds its total, once recorded.
    pub(crate) fn chunk_readback(&self, k: u64) -> (BufSlice, BufSlice) {
        let pay = self.parts.get(1 + k as usize).map_or(BufSlice::new(self.meta, 0, 0), |p| p.slice);
        (pay, BufSlice::new(self.totals, 4 * k, 4))
    }

    /// The stage's output: the meta region and each recorded chunk's payload.
    pub(crate) fn end(self) -> Vec<PortData<'static>> {
        vec![PortData::Deferred { parts: self.parts }]
    }
}

/// One inverse run of the SZx stage, chunk by chunk ([`SzxStage::inverse_begin`]).
pub(crate) struct SzxInverse {
    pub(crate) g: Geo,
    res: Resolved,
    slice: BufSlice,
    per_chunk: Vec<u64>,
    starts: Vec<u64>,
    out: crate::recording::BufId,
    cost: crate::recording::BufId,
    offsets: crate::recording::BufId,
    sz: u64,
}

impl SzxInverse {
    /// The bytes of the archived buffer chunk `k` decodes from, past the meta region
    /// (`0..meta_pad` is the meta region every chunk reads).
    pub(crate) fn payload(&self, k: u64) -> std::ops::Range<u64> {
        let a = self.g.meta_pad() + self.starts[k as usize] * 4;
        a..a + self.per_chunk[k as usize] * 4
    }

    /// Chunk `k`'s values in the output.
    pub(crate) fn out_window(&self, k: u64) -> BufSlice {
        let (b0, _, nk) = self.g.chunk(k);
        BufSlice::new(self.out, b0 * self.g.bs * self.sz, nk * self.sz)
    }

    /// The stage's inverse output: the field.
    pub(crate) fn output(&self) -> PortData<'static> {
        let len = self.res.n * self.sz;
        PortData::Device { slice: BufSlice::new(self.out, 0, len), len, host: None }
    }
}

/// User-facing settings of the SZx stage.
#[derive(Debug, Clone, PartialEq)]
pub struct SzxConfig {
    pub dtype: DataType,
    pub block_size: u32,
    pub bound: ErrorBound,
}

impl Default for SzxConfig {
    fn default() -> Self {
        SzxConfig { dtype: DataType::F32, block_size: DEFAULT_BLOCK_SIZE, bound: ErrorBound { mode: ErrorMode::Abs, value: 1e-3 } }
    }
}

/// Block-type counts of the last forward run (or of the decoded archive).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SzxStats {
    pub constant: u64,
    pub quantized: u64,
    pub raw: u64,
}

/// The SZx stage.
#[derive(Debug, Clone)]
pub struct SzxStage {
    cfg: SzxConfig,
    dims: Option<Dims>,
    resolved: Option<Resolved>,
    stats: Option<SzxStats>,
    /// The raw field's range from the pipeline (NOA/REL).
    field_range: Option<Option<(f64, f64)>>,
    /// The last compression's encoder kernel (run notes).
    encoder_used: Option<&'static str>,
}

impl SzxStage {
    pub fn new(cfg: SzxConfig) -> Result<Self> {
        if !(1..=MAX_BLOCK_SIZE).contains(&cfg.block_size) {
            return Err(Error::config(format!("SZx block_size must be in 1..={MAX_BLOCK_SIZE}, got {}", cfg.block_size)));
        }
        if !matches!(cfg.dtype, DataType::F32 | DataType::F64) {
            return Err(Error::config(format!("SZx data_type must be float32 or float64, got {}", cfg.dtype)));
        }
        ErrorBound::new(cfg.bound.mode, cfg.bound.value)?;
        Ok(SzxStage { cfg, dims: None, resolved: None, stats: None, field_range: None, encoder_used: None })
    }

    pub fn config(&self) -> &SzxConfig {
        &self.cfg
    }

    /// Fraction of constant blocks in the last forward run (or the decoded archive).
    pub fn constant_block_fraction(&self) -> Option<f64> {
        self.stats.map(|s| {
            let t = s.constant + s.quantized + s.raw;
            if t == 0 {
                0.0
            } else {
                s.constant as f64 / t as f64
            }
        })
    }

    pub fn stats(&self) -> Option<SzxStats> {
        self.stats
    }

    /// Parse a `[[stage]]` table of type SZx.
    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let mut cfg = SzxConfig::default();
        if let Some(s) = t.str("data_type")? {
            cfg.dtype = DataType::from_toml_name(&s)?;
        }
        if let Some(b) = t.int("block_size")? {
            cfg.block_size = u32::try_from(b).map_err(|_| Error::config(format!("SZx block_size {b} out of range")))?;
        }
        let mode = match t.str("error_bound_mode")? {
            Some(m) => m.parse()?,
            None => ErrorMode::Abs,
        };
        let value = t.float("error_bound")?.unwrap_or(1e-3);
        cfg.bound = ErrorBound::new(mode, value)?;
        Self::new(cfg)
    }

    /// The first step of [`Stage::record_forward`]: the chunks' geometry and the buffers
    /// every chunk shares (the meta region, the totals, the temporaries). Overlapped
    /// compression (`Pipeline::compress_into`) then records each chunk with
    /// [`SzxStage::forward_chunk`] as soon as its values are on the device; the archive
    /// is the same bytes whatever the chunking (each chunk's payload follows the
    /// previous one's; FORMAT.md).
    pub(crate) fn forward_begin(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<SzxForward> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("SZx: no input".into()))?.device("SZx input")?;
        let n = len / self.sz();
        if self.cfg.bound.mode == ErrorMode::Abs && self.resolved.is_none_or(|res| res.n != n) {
            self.resolved = Some(self.resolve_bound(n, None)?);
        }
        let g = self.geometry(r, n, opts)?;
        let sz = self.sz();
        let meta = r.alloc(g.meta_pad())?;
        r.clear(BufSlice::new(meta, 0, g.meta_pad()));
        let totals = r.alloc(4 * g.nchunks)?;
        let enc = encoder(self.is_f64(), g.bs, r.backend.info().subgroups);
        let one = one_pass(r, enc, g.cb)?;
        self.encoder_used = Some(if one { Kernel::SzxEncode8Lookback.name() } else { enc.name() });
        let three = if one {
            None
        } else {
            // each block's body in its own slot (szx_encode), then moved to its offset
            let slot_bytes = (0..g.nchunks).map(|k| g.chunk(k).2 * sz).max().unwrap_or(0);
            Some(ThreePass {
                info: r.temp(4 * g.cb)?,
                refs: r.temp(8 * g.cb)?,
                cost: r.temp(4 * g.cb)?,
                offsets: r.temp(4 * g.cb)?,
                slots: r.temp(slot_bytes)?,
            })
        };
        let totals_idx = r.readback(BufSlice::new(totals, 0, (4 * g.nchunks).next_multiple_of(4)));
        let parts = vec![Part { slice: BufSlice::new(meta, 0, g.meta_pad()), len: PartLen::Fixed(g.meta_pad()) }];
        Ok(SzxForward { input, n, g, meta, totals, enc, three, totals_idx, parts })
    }

    /// Record chunk `k` of `f` (values `f.values(k)`): encode, scan, compact. NOA/REL
    /// need the field's range first (`prepare_forward`).
    pub(crate) fn forward_chunk(&self, r: &mut Recorder, f: &mut SzxForward, k: u64) -> Result<()> {
        let res = match self.resolved {
            Some(res) if res.n == f.n => res,
            _ => return Err(Error::Pipeline("SZx: prepare_forward must run before record_forward".into())),
        };
        let (g, input, sz, f64v) = (f.g, f.input, self.sz(), self.is_f64());
        let compact_wg = crate::kernels::workgroup_size(Kernel::SzxCompact)? as u64;
        let (b0, nbk, nk) = g.chunk(k);
        let p = self.params_bytes(&res, nk, nbk, k, 0);
        let inw = BufSlice::new(input.buf, input.offset + b0 * g.bs * sz, nk * sz);
        let in4 = inw.vec4_view();
        // szx_compact binds the payload as a vec4 array: its window in whole 16-byte
        // pieces (the part read back is its first words, by the chunk's total)
        let pay16 = (nk * sz).next_multiple_of(16);
        let payload = r.alloc(pay16)?;
        let pay_w = BufSlice::new(payload, 0, nk * sz);
        let meta_w = BufSlice::new(f.meta, 2 * b0, (2 * nbk).next_multiple_of(4));
        let totals_w = BufSlice::new(f.totals, 0, (4 * g.nchunks).next_multiple_of(4));
        let Some(t) = &f.three else {
            // one pass: a workgroup per tile of 32 blocks, after clearing the look-back
            // state (a ticket counter and four words per tile)
            let tiles = lookback_tiles(nbk)?;
            let state = crate::kernels::scan::lookback_state(r, tiles)?;
            r.dispatch_bytes(
                Kernel::SzxEncode8Lookback,
                false,
                &p,
                &[inw, in4, inw, meta_w, BufSlice::new(payload, 0, pay16), totals_w, state],
                tiles,
            )?;
            f.parts.push(Part { slice: pay_w, len: PartLen::Readback { index: f.totals_idx, word: k as usize, scale: 4 } });
            return Ok(());
        };
        let info_w = BufSlice::new(t.info, 0, 4 * nbk);
        let refs_w = BufSlice::new(t.refs, 0, sz * nbk);
        let cost_w = BufSlice::new(t.cost, 0, 4 * nbk);
        let off_w = BufSlice::new(t.offsets, 0, 4 * nbk);
        let slots_w = BufSlice::new(t.slots, 0, nk * sz);
        // szx_encode8 does not walk: a workgroup per 32 blocks (H100 round 29: 2-D
        // compression through Vulkan 629 -> 676 GB/s, 61 registers instead of 80;
        // through CUDA 743 -> 727, the tiled field +2-6% on both)
        let cap = if f.enc == Kernel::SzxEncode8 { 0 } else { encode_groups() };
        r.dispatch_teams_max(f.enc, f64v, &p, &[inw, in4, inw, info_w, refs_w, cost_w, slots_w], nbk, cap)?;
        record_exclusive_scan(r, cost_w, off_w, nbk)?;
        r.dispatch_bytes(
            Kernel::SzxCompact,
            f64v,
            p.as_slice(),
            &[info_w, refs_w, off_w, slots_w, meta_w, BufSlice::new(payload, 0, pay16), totals_w],
            nbk.div_ceil(compact_wg),
        )?;
        f.parts.push(Part { slice: pay_w, len: PartLen::Readback { index: f.totals_idx, word: k as usize, scale: 4 } });
        Ok(())
    }

    /// The first step of [`Stage::record_inverse`]: the archived buffer's checks against
    /// its meta region (read on the host), the chunks' payload words, the output and the
    /// shared temporaries. Overlapped decompression records each chunk with
    /// [`SzxStage::inverse_chunk`] once its payload is on the device (`payload(k)`).
    pub(crate) fn inverse_begin(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<SzxInverse> {
        let res = self.resolved.ok_or_else(|| Error::corrupt("SZx: no stored configuration"))?;
        let g = self.geometry(r, res.n, opts)?;
        let (slice, len, host) =
            inputs.first().ok_or_else(|| Error::Pipeline("SZx inverse: no input".into()))?.host_prefix(r, "SZx inverse", g.meta_pad())?;
        let sz = self.sz();
        if len < g.meta_pad() || (host.len() as u64) < g.meta_pad() {
            return Err(Error::corrupt(format!("SZx buffer of {len} bytes is shorter than its meta region ({} bytes)", g.meta_pad())));
        }
        if host[(2 * g.nb) as usize..g.meta_pad() as usize].iter().any(|&b| b != 0) {
            return Err(Error::corrupt("SZx meta padding is not zero"));
        }
        let (per_chunk, st) = self.scan_meta(&g, &host[..g.meta_pad() as usize], res.exact)?;
        let total_words: u64 = per_chunk.iter().sum();
        if g.meta_pad() + total_words * 4 != len {
            return Err(Error::corrupt(format!(
                "SZx payload is {} bytes, the meta region describes {}",
                len - g.meta_pad(),
                total_words * 4
            )));
        }
        self.stats = Some(st);
        let out = r.alloc(res.n * sz)?;
        let cost = r.temp(4 * g.cb)?;
        let offsets = r.temp(4 * g.cb)?;
        // each chunk's payload word offset
        let mut starts = Vec::with_capacity(per_chunk.len());
        let mut at = 0u64;
        for w in &per_chunk {
            starts.push(at);
            at += w;
        }
        Ok(SzxInverse { g, res, slice, per_chunk, starts, out, cost, offsets, sz })
    }

    /// Record chunk `k` of `inv`: its blocks' offsets from their meta, then the unpack.
    pub(crate) fn inverse_chunk(&self, r: &mut Recorder, inv: &SzxInverse, k: u64) -> Result<()> {
        let (g, res, slice, f64v) = (inv.g, inv.res, inv.slice, self.is_f64());
        let align = r.backend.info().storage_align.max(8);
        let (b0, nbk, nk) = g.chunk(k);
        let words = inv.per_chunk[k as usize];
        let abs_start = slice.offset + g.meta_pad() + inv.starts[k as usize] * 4;
        let win_start = abs_start / align * align;
        let word_base = (abs_start - win_start) / 4;
        let pay_w = BufSlice::new(slice.buf, win_start, abs_start - win_start + words * 4);
        let p = self.params_bytes(&res, nk, nbk, k, word_base);
        let meta_w = BufSlice::new(slice.buf, slice.offset + 2 * b0, (2 * nbk).next_multiple_of(4));
        let cost_w = BufSlice::new(inv.cost, 0, 4 * nbk);
        let off_w = BufSlice::new(inv.offsets, 0, 4 * nbk);
        let out_w = inv.out_window(k);
        r.dispatch_bytes(
            Kernel::SzxMetaCost,
            f64v,
            &p,
            &[meta_w, cost_w],
            nbk.div_ceil(crate::kernels::workgroup_size(Kernel::SzxMetaCost)? as u64),
        )?;
        record_exclusive_scan(r, cost_w, off_w, nbk)?;
        r.dispatch_teams(Kernel::SzxUnpack, f64v, &p, &[meta_w, off_w, pay_w, pay_w, out_w], nbk)?;
        Ok(())
    }

    fn sz(&self) -> u64 {
        self.cfg.dtype.size() as u64
    }

    fn geometry(&self, r: &Recorder, n: u64, opts: &RunOptions) -> Result<Geo> {
        let g = Geo::new(r, n, self.cfg.block_size as u64, self.sz(), CHUNK_BLOCK_ALIGN, META_BYTES, opts, "SZx")?;
        let (total_bytes, limit) = (n * self.sz(), r.backend.info().max_buffer_bytes);
        if total_bytes > limit {
            return Err(Error::TooLarge { what: "field on the device".into(), actual: total_bytes, limit });
        }
        Ok(g)
    }

    /// `range`: the finite min/max (NOA/REL; None when no value is finite).
    fn resolve_bound(&self, n: u64, range: Option<(f64, f64)>) -> Result<Resolved> {
        Ok(Resolved::new(self.cfg.dtype, self.cfg.bound, self.dims, n, range, false))
    }

    fn params_bytes(&self, res: &Resolved, n: u64, nblocks: u64, chunk: u64, word_base: u64) -> Vec<u8> {
        let (bs, nb, ch, wb, exact) = (self.cfg.block_size, nblocks as u32, chunk as u32, word_base as u32, res.exact as u32);
        match self.cfg.dtype {
            DataType::F32 => {
                let (eb, inv, step) = res.steps::<f32>();
                let p = SzxParams32 {
                    n: n as u32,
                    block_size: bs,
                    nblocks: nb,
                    exact,
                    chunk: ch,
                    word_base: wb,
                    eb,
                    inv,
                    step,
                    one: 1.0,
                    tiny: f32::TINY,
                    two_maxw: f32::pow2(f32::MAXW as i32),
                    ..Default::default()
                };
                bytemuck::bytes_of(&p).to_vec()
            }
            _ => {
                let (eb, inv, step) = res.steps::<f64>();
                let p = SzxParams64 {
                    n: n as u32,
                    block_size: bs,
                    nblocks: nb,
                    exact,
                    chunk: ch,
                    word_base: wb,
                    eb,
                    inv,
                    step,
                    one: 1.0,
                    tiny: f64::TINY,
                    two_maxw: f64::pow2(f64::MAXW as i32),
                    ..Default::default()
                };
                bytemuck::bytes_of(&p).to_vec()
            }
        }
    }

    fn is_f64(&self) -> bool {
        self.cfg.dtype == DataType::F64
    }

    /// Parse a meta region: per-chunk payload words, block-type counts; every entry
    /// checked.
    fn scan_meta(&self, g: &Geo, meta: &[u8], exact: bool) -> Result<(Vec<u64>, SzxStats)> {
        use rayon::prelude::*;
        let maxw = if self.is_f64() { f64::MAXW } else { f32::MAXW };
        let f64v = self.is_f64();
        // spans of blocks scanned on several threads, merged in order (the first bad
        // entry is the one reported)
        const SPAN: u64 = 1 << 16;
        let cost_of = |inf: u32, len: u32| if f64v { block_cost::<f64>(inf, len) } else { block_cost::<f32>(inf, len) };
        // the cost of a whole block by its meta entry (type | width << 8), u32::MAX for
        // an entry no encoder writes; the last block may be shorter (computed apart).
        // (A 4 KiB table, types past BT_RAW folded into one row, scanned slower on 2
        // cores: the index's arithmetic costs more than the 256 KiB table's misses.)
        let mut full = vec![u32::MAX; 1 << 16];
        full[BT_CONST as usize] = cost_of(BT_CONST, g.bs as u32);
        full[BT_RAW as usize] = cost_of(BT_RAW, g.bs as u32);
        if !exact {
            for w in 0..=maxw {
                full[(BT_QUANT | w << 8) as usize] = cost_of(BT_QUANT | w << 8, g.bs as u32);
            }
        }
        let full = &full;
        let spans: Vec<Result<(Vec<u64>, SzxStats)>> = (0..g.nb.div_ceil(SPAN))
            .into_par_iter()
            .map(|sp| {
                let mut per_chunk = vec![0u64; g.nchunks as usize];
                let mut st = SzxStats::default();
                let (mut lo, hi) = (sp * SPAN, ((sp + 1) * SPAN).min(g.nb));
                // runs of blocks inside one chunk
                while lo < hi {
                    let k = lo / g.cb;
                    let end = hi.min((k + 1) * g.cb);
                    let mut words = 0u64;
                    let entry = |b: u64| u16::from_le_bytes([meta[2 * b as usize], meta[2 * b as usize + 1]]) as u32;
                    let bad_entry = |b: u64| {
                        let inf = entry(b);
                        Error::corrupt(format!("SZx block {b}: bad meta entry type {} width {}", inf & 0xff, inf >> 8))
                    };
                    // every block but the field's last, without branches (a bad entry,
                    // u32::MAX in the table, is looked for again for its message): on
                    // an H100's host (16 threads, 2.1M blocks) 0.58-0.72 -> 0.30-0.45 ms
                    // (round 41)
                    let body = end.min(g.nb - 1);
                    if lo < body {
                        let (mut bad, mut nconst, mut nquant) = (false, 0u64, 0u64);
                        for e in meta[2 * lo as usize..2 * body as usize].chunks_exact(2) {
                            let inf = u16::from_le_bytes([e[0], e[1]]) as u32;
                            let c = full[inf as usize];
                            bad |= c == u32::MAX;
                            words += c as u64;
                            let t = inf & 0xff;
                            nconst += (t == BT_CONST) as u64;
                            nquant += (t == BT_QUANT) as u64;
                        }
                        if bad {
                            let b = (lo..body).find(|&b| full[entry(b) as usize] == u32::MAX).unwrap_or(lo);
                            return Err(bad_entry(b));
                        }
                        st.constant += nconst;
                        st.quantized += nquant;
                        st.raw += body - lo - nconst - nquant;
                    }
                    // the field's last block (maybe shorter: its cost by its length)
                    if end == g.nb {
                        let b = g.nb - 1;
                        let inf = entry(b);
                        if full[inf as usize] == u32::MAX {
                            return Err(bad_entry(b));
                        }
                        words += cost_of(inf, (g.n - b * g.bs) as u32) as u64;
                        match inf & 0xff {
                            BT_CONST => st.constant += 1,
                            BT_QUANT => st.quantized += 1,
                            _ => st.raw += 1,
                        }
                    }
                    per_chunk[k as usize] += words;
                    lo = end;
                }
                Ok((per_chunk, st))
            })
            .collect();
        let mut per_chunk = vec![0u64; g.nchunks as usize];
        let mut st = SzxStats::default();
        for sp in spans {
            let (p, s) = sp?;
            for (a, b) in per_chunk.iter_mut().zip(p) {
                *a += b;
            }
            st.constant += s.constant;
            st.quantized += s.quantized;
            st.raw += s.raw;
        }
        Ok((per_chunk, st))
    }

    fn store_config(&self, res: &Resolved) -> Vec<u8> {
        let mut b = Vec::with_capacity(CONFIG_BYTES);
        b.push(CONFIG_VERSION);
        b.push(self.cfg.dtype as u8);
        b.push(self.cfg.bound.mode.code());
        b.push(res.exact as u8);
        b.extend_from_slice(&self.cfg.block_size.to_le_bytes());
        res.write(self.cfg.bound.value, &mut b);
        let st = self.stats.unwrap_or_default();
        for c in [st.constant, st.quantized, st.raw] {
            b.extend_from_slice(&c.to_le_bytes());
        }
        debug_assert_eq!(b.len(), CONFIG_BYTES);
        b
    }

    /// Rebuild the stage from its archived config, checking every field.
    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 {
            return Err(Error::corrupt(format!("SZx stage version {version} unknown (this build reads 1)")));
        }
        if c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION {
            return Err(Error::corrupt(format!(
                "SZx config of {} bytes / version {} (want {CONFIG_BYTES} / {CONFIG_VERSION})",
                c.len(),
                c.first().copied().unwrap_or(0)
            )));
        }
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let dtype = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::F32 | DataType::F64))
            .ok_or_else(|| Error::corrupt("SZx data type"))?;
        let mode = ErrorMode::from_code(c[2]).ok_or_else(|| Error::corrupt("SZx error mode"))?;
        if c[3] > 1 {
            return Err(Error::corrupt("SZx flags"));
        }
        let exact = c[3] == 1;
        let block_size = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        if !(1..=MAX_BLOCK_SIZE).contains(&block_size) {
            return Err(Error::corrupt(format!("SZx block size {block_size}")));
        }
        let (res, value) = Resolved::read(c, dtype, exact, "SZx")?;
        if res.n == 0 {
            return Err(Error::corrupt("SZx: no values"));
        }
        let stats = SzxStats { constant: u64_at(80), quantized: u64_at(88), raw: u64_at(96) };
        Ok(SzxStage {
            cfg: SzxConfig { dtype, block_size, bound: ErrorBound { mode, value } },
            dims: Some(res.dims),
            resolved: Some(res),
            stats: Some(stats),
            field_range: None,
            encoder_used: None,
        })
    }
}

impl Stage for SzxStage {
    fn type_id(&self) -> u16 {
        ids::SZX
    }
    fn type_name(&self) -> &'static str {
        "SZx"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("input", self.cfg.dtype)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("compressed", DataType::U8)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        if port != 0 || !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::Pipeline(format!("SZx takes float32 or float64 on input 0, got {dtype} on input {port}")));
        }
        self.cfg.dtype = dtype;
        Ok(())
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn override_bound(&mut self, eb: ErrorBound) -> bool {
        self.cfg.bound = eb;
        true
    }
    fn configured_bound(&self) -> Option<ErrorBound> {
        Some(self.cfg.bound)
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0) / self.sz();
        let nb = n.div_ceil(self.cfg.block_size as u64);
        vec![(2 * nb).next_multiple_of(8) + n * self.sz()]
    }
    fn graph_compatible(&self) -> bool {
        self.cfg.bound.mode == ErrorMode::Abs
    }
    fn needs_f64(&self) -> bool {
        self.is_f64()
    }
    fn field_dims(&self) -> Option<Dims> {
        self.resolved.map(|r| r.dims)
    }

    fn wants_field_range(&self) -> bool {
        self.cfg.bound.mode != ErrorMode::Abs
    }
    fn set_field_range(&mut self, range: Option<(f64, f64)>) {
        self.field_range = Some(range);
    }

    fn prepare_forward(&mut self, _r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<()> {
        let (_, len) = inputs.first().ok_or_else(|| Error::Pipeline("SZx: no input".into()))?.device("SZx input")?;
        let n = len / self.sz();
        if n == 0 || len % self.sz() != 0 {
            return Err(Error::Input(format!("SZx: {len} input bytes are not a whole number of {} values", self.cfg.dtype)));
        }
        if self.cfg.bound.mode == ErrorMode::Abs {
            self.resolved = Some(self.resolve_bound(n, None)?);
            return Ok(());
        }
        // NOA / REL: min and max of the finite values, reduced on the device by the
        // pipeline (once for every stage that needs them)
        let range = self.field_range.ok_or_else(|| Error::Pipeline("SZx: NOA/REL needs the field range from the pipeline".into()))?;
        self.resolved = Some(self.resolve_bound(n, range)?);
        Ok(())
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let mut f = self.forward_begin(r, inputs, opts)?;
        for k in 0..f.g.nchunks {
            self.forward_chunk(r, &mut f, k)?;
        }
        Ok(f.end())
    }

    fn finish_forward(&mut self, outputs: &[Option<&[u8]>]) -> Result<()> {
        let res = self.resolved.ok_or_else(|| Error::Pipeline("SZx: finish before run".into()))?;
        if let Some(Some(bytes)) = outputs.first() {
            let nb = res.n.div_ceil(self.cfg.block_size as u64);
            let g = Geo { n: res.n, bs: self.cfg.block_size as u64, nb, cb: nb.max(1), nchunks: 1, meta_bytes: 2 };
            if (bytes.len() as u64) < g.meta_pad() {
                return Err(Error::Device("SZx output shorter than its meta region".into()));
            }
            let (_, st) = self.scan_meta(&g, &bytes[..g.meta_pad() as usize], res.exact)?;
            self.stats = Some(st);
        }
        Ok(())
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let inv = self.inverse_begin(r, inputs, opts)?;
        for k in 0..inv.g.nchunks {
            self.inverse_chunk(r, &inv, k)?;
        }
        Ok(vec![inv.output()])
    }

    fn config_bytes(&self) -> Vec<u8> {
        match &self.resolved {
            Some(res) => self.store_config(res),
            None => Vec::new(),
        }
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("data_type".to_string(), self.cfg.dtype.to_string()),
            ("block_size".to_string(), self.cfg.block_size.to_string()),
            ("error_bound".to_string(), format!("{:e}", self.cfg.bound.value)),
            ("error_bound_mode".to_string(), self.cfg.bound.mode.to_string()),
        ];
        if let Some(res) = &self.resolved {
            v.extend(res.describe(self.cfg.dtype));
            if let Some((lo, hi)) = res.range {
                v.push(("value_range".into(), format!("[{lo:e}, {hi:e}]")));
            }
        }
        v
    }

    fn run_notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let (Some(f), Some(st)) = (self.constant_block_fraction(), self.stats) {
            v.push(format!("constant_block_fraction={f:.4}"));
            if st.raw > 0 {
                v.push(format!("raw_blocks={}", st.raw));
            }
        }
        if let Some(res) = &self.resolved {
            if res.exact {
                v.push("lossless_exact_mode".into());
            }
        }
        if let Some(e) = self.encoder_used {
            v.push(format!("encoder={e}"));
        }
        v
    }

    fn resolved_bound(&self) -> Option<f64> {
        self.resolved.map(|r| r.eb_abs)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

const _: () = assert!(CONFIG_BYTES <= MAX_CONFIG_BYTES);

#[cfg(test)]
mod scan_meta_tests {
    use super::*;

    /// scan_meta against a one-block-at-a-time reference: per-chunk words, the counts,
    /// and the first bad entry, on random metadata with a short last block, chunks of
    /// several sizes (runs crossing the scan's spans of 2^16 blocks) and bad entries.
    #[test]
    fn scan_meta_matches_a_block_by_block_reference() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for (dtype, maxw) in [(DataType::F32, f32::MAXW), (DataType::F64, f64::MAXW)] {
            let st = SzxStage::new(SzxConfig { dtype, ..SzxConfig::default() }).unwrap();
            let cost_of =
                |inf: u32, len: u32| if dtype == DataType::F64 { block_cost::<f64>(inf, len) } else { block_cost::<f32>(inf, len) };
            for (n, bs, cb, exact) in
                [(1u64, 128u64, 1u64, false), (1000, 7, 30, false), (200_000 * 64 + 5, 64, 70_001, false), (300_000, 128, 600, true)]
            {
                let nb = n.div_ceil(bs);
                let nchunks = nb.div_ceil(cb);
                let g = Geo { n, bs, nb, cb, nchunks, meta_bytes: 2 };
                let valid = |inf: u32| match (inf & 0xff, inf >> 8) {
                    (BT_CONST, 0) | (BT_RAW, 0) => true,
                    (BT_QUANT, w) => !exact && w <= maxw,
                    _ => false,
                };
                for bad_at in [None, Some(nb - 1), Some(nb / 2), Some(0)] {
                    let mut meta = vec![0u8; g.meta_pad() as usize];
                    for b in 0..nb {
                        let inf = match next() % 4 {
                            0 => BT_CONST,
                            1 => BT_RAW,
                            _ if exact => BT_RAW,
                            _ => BT_QUANT | ((next() % (maxw as u64 + 1)) as u32) << 8,
                        };
                        let inf = if bad_at == Some(b) {
                            [3u32, BT_CONST | 1 << 8, BT_QUANT | (maxw + 1) << 8][(next() % 3) as usize]
                        } else {
                            inf
                        };
                        meta[2 * b as usize..2 * b as usize + 2].copy_from_slice(&(inf as u16).to_le_bytes());
                    }
                    let mut words = vec![0u64; nchunks as usize];
                    let mut want = SzxStats::default();
                    let mut first_bad = None;
                    for b in 0..nb {
                        let inf = u16::from_le_bytes([meta[2 * b as usize], meta[2 * b as usize + 1]]) as u32;
                        if !valid(inf) {
                            first_bad.get_or_insert(b);
                            continue;
                        }
                        words[(b / cb) as usize] += cost_of(inf, bs.min(n - b * bs) as u32) as u64;
                        match inf & 0xff {
                            BT_CONST => want.constant += 1,
                            BT_QUANT => want.quantized += 1,
                            _ => want.raw += 1,
                        }
                    }
                    match (st.scan_meta(&g, &meta, exact), first_bad) {
                        (Ok((w, s)), None) => {
                            assert_eq!(w, words, "n {n} bs {bs} cb {cb}");
                            assert_eq!((s.constant, s.quantized, s.raw), (want.constant, want.quantized, want.raw));
                        }
                        (Err(e), Some(b)) => assert!(e.to_string().contains(&format!("SZx block {b}:")), "{e} (want block {b})"),
                        (r, b) => panic!("n {n} bs {bs} cb {cb}: {:?} against first bad {b:?}", r.map(|x| x.1)),
                    }
                }
            }
        }
    }
}
