//! The experimental SZp stage (StageType 37), a fused reference point beside the
//! composition: per block, `q_i = round(x_i / (2 eb))`, `d_0 = q_0`,
//! `d_i = q_i - q_{i-1}` (reset every block), zigzag(d_i) packed at the block's fixed
//! width, one width byte per block. A block holding a value that cannot be quantized
//! (NaN, ±Inf, subnormal, |q| past 2^24 / 2^31) is stored verbatim (width byte 255), so
//! the bound always holds and non-finite values survive bit-exactly. Output:
//!
//! ```text
//! [ u8 width per block ][ zero pad to 8 bytes ][ payload words at scanned offsets ]
//! ```

use super::bound::Resolved;
use super::geo::BlockGeo as Geo;
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage};
use crate::backend::cpu::szp::{szp_cost, RAW_WIDTH};
use crate::error::{Error, Result};
use crate::kernels::params::{SzpParams32, SzpParams64};
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims, ErrorBound, ErrorMode};

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 88;
const CHUNK_BLOCK_ALIGN: u64 = 256;

/// The SZp stage.
#[derive(Debug, Clone)]
pub struct SzpStage {
    dtype: DataType,
    block_size: u32,
    bound: ErrorBound,
    dims: Option<Dims>,
    resolved: Option<Resolved>,
    raw_blocks: Option<u64>,
    /// The raw field's range from the pipeline (NOA).
    field_range: Option<Option<(f64, f64)>>,
}

impl SzpStage {
    pub fn new(dtype: DataType, block_size: u32, bound: ErrorBound) -> Result<Self> {
        if !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::config(format!("SZp data_type must be float32 or float64, got {dtype}")));
        }
        if !(1..=4096).contains(&block_size) {
            return Err(Error::config(format!("SZp block_size must be in 1..=4096, got {block_size}")));
        }
        if bound.mode == ErrorMode::Rel {
            return Err(Error::config("SZp supports error_bound_mode ABS or NOA"));
        }
        let bound = ErrorBound::new(bound.mode, bound.value)?;
        Ok(SzpStage { dtype, block_size, bound, dims: None, resolved: None, raw_blocks: None, field_range: None })
    }

    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let dtype = match t.str("data_type")? {
            Some(s) => DataType::from_toml_name(&s)?,
            None => DataType::F32,
        };
        let bs = t.int("block_size")?.unwrap_or(128);
        let mode = match t.str("error_bound_mode")? {
            Some(m) => m.parse()?,
            None => ErrorMode::Abs,
        };
        let value = t.float("error_bound")?.unwrap_or(1e-3);
        Self::new(dtype, u32::try_from(bs).map_err(|_| Error::config(format!("SZp block_size {bs}")))?, ErrorBound::new(mode, value)?)
    }

    fn sz(&self) -> u64 {
        self.dtype.size() as u64
    }
    fn f64v(&self) -> bool {
        self.dtype == DataType::F64
    }

    fn geometry(&self, r: &Recorder, n: u64, opts: &RunOptions) -> Result<Geo> {
        Geo::new(r, n, self.block_size as u64, self.sz(), CHUNK_BLOCK_ALIGN, 1, opts, "SZp")
    }

    fn resolve(&self, n: u64, range: Option<(f64, f64)>) -> Resolved {
        Resolved::new(self.dtype, self.bound, self.dims, n, range, false)
    }

    fn params(&self, res: &Resolved, nk: u64, nbk: u64, chunk: u64, word_base: u64) -> Vec<u8> {
        let (n, block_size, nblocks, chunk, word_base) = (nk as u32, self.block_size, nbk as u32, chunk as u32, word_base as u32);
        if self.f64v() {
            let (eb, inv, step) = res.steps::<f64>();
            let limit = if res.exact { 0.0 } else { 2147483648.0 };
            bytemuck::bytes_of(&SzpParams64 {
                n,
                block_size,
                nblocks,
                chunk,
                word_base,
                eb,
                inv,
                step,
                one: 1.0,
                limit,
                ..Default::default()
            })
            .to_vec()
        } else {
            let (eb, inv, step) = res.steps::<f32>();
            let limit = if res.exact { 0.0 } else { 16777216.0 };
            bytemuck::bytes_of(&SzpParams32 {
                n,
                block_size,
                nblocks,
                chunk,
                word_base,
                eb,
                inv,
                step,
                one: 1.0,
                limit,
                ..Default::default()
            })
            .to_vec()
        }
    }

    /// Per-chunk payload words and the count of raw blocks, every width checked: one
    /// pass over the widths per chunk with a cost table, on several threads (a
    /// block-by-block loop with a division and a cost per block took ~1.5 ns a block).
    fn scan_meta(&self, g: &Geo, meta: &[u8]) -> Result<(Vec<u64>, u64)> {
        use rayon::prelude::*;
        let f64v = self.f64v();
        let cost = |w: u32, len: u32| if f64v { szp_cost::<f64>(w, len) } else { szp_cost::<f32>(w, len) };
        // the cost of a whole block by its width, u32::MAX for a width no encoder writes;
        // the field's last block may be shorter and is corrected after the sums
        let full: [u32; 256] =
            std::array::from_fn(|w| if w <= 32 || w as u32 == RAW_WIDTH { cost(w as u32, g.bs as u32) } else { u32::MAX });
        let meta = &meta[..g.nb as usize];
        let mut per = vec![0u64; g.nchunks as usize];
        let mut raw = 0;
        for (k, slot) in per.iter_mut().enumerate() {
            let (b0, nbk, _) = g.chunk(k as u64);
            let run = &meta[b0 as usize..(b0 + nbk) as usize];
            let (words, raws, bad) = run
                .par_chunks(1 << 18)
                .map(|span| {
                    let (mut words, mut raws, mut bad) = (0u64, 0u64, false);
                    for &w in span {
                        let c = full[w as usize];
                        bad |= c == u32::MAX;
                        words += c as u64;
                        raws += (w as u32 == RAW_WIDTH) as u64;
                    }
                    (words, raws, bad)
                })
                .reduce(|| (0, 0, false), |a, b| (a.0 + b.0, a.1 + b.1, a.2 | b.2));
            if bad {
                let at = run.iter().position(|&w| full[w as usize] == u32::MAX).unwrap_or(0);
                return Err(Error::corrupt(format!("SZp block {}: width {}", b0 + at as u64, run[at])));
            }
            *slot = words;
            raw += raws;
        }
        let last = g.nb.saturating_sub(1);
        let len = g.n.saturating_sub(last * g.bs);
        if g.nb > 0 && len < g.bs {
            let w = meta[last as usize] as u32;
            let k = (last / g.cb) as usize;
            per[k] = per[k] - full[w as usize] as u64 + cost(w, len as u32) as u64;
        }
        Ok((per, raw))
    }

    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[3] > 1 {
            return Err(Error::corrupt("SZp config"));
        }
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let dtype = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::F32 | DataType::F64))
            .ok_or_else(|| Error::corrupt("SZp data type"))?;
        let mode = ErrorMode::from_code(c[2]).filter(|m| *m != ErrorMode::Rel).ok_or_else(|| Error::corrupt("SZp error mode"))?;
        let exact = c[3] == 1;
        let bs = u32::from_le_bytes(c[4..8].try_into().unwrap_or([0; 4]));
        let (res, value) = Resolved::read(c, dtype, exact, "SZp")?;
        let mut s = Self::new(dtype, bs, ErrorBound { mode, value }).map_err(|e| Error::corrupt(format!("SZp config: {e}")))?;
        s.dims = Some(res.dims);
        s.resolved = Some(res);
        s.raw_blocks = Some(u64_at(80));
        Ok(s)
    }
}

impl Stage for SzpStage {
    fn type_id(&self) -> u16 {
        ids::SZP
    }
    fn type_name(&self) -> &'static str {
        "SZp"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("input", self.dtype)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("compressed", DataType::U8)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        if port != 0 || !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::Pipeline(format!("SZp takes float32 or float64, got {dtype}")));
        }
        self.dtype = dtype;
        Ok(())
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn override_bound(&mut self, eb: ErrorBound) -> bool {
        // SZp has no REL mode: REL requests are refused when the run resolves the bound
        self.bound = eb;
        true
    }
    fn configured_bound(&self) -> Option<ErrorBound> {
        Some(self.bound)
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0) / self.sz();
        vec![n.div_ceil(self.block_size as u64).next_multiple_of(8) + n * self.sz()]
    }
    fn graph_compatible(&self) -> bool {
        self.bound.mode == ErrorMode::Abs
    }
    fn needs_f64(&self) -> bool {
        self.f64v()
    }
    fn field_dims(&self) -> Option<Dims> {
        self.resolved.map(|r| r.dims)
    }

    fn wants_field_range(&self) -> bool {
        self.bound.mode != ErrorMode::Abs
    }
    fn set_field_range(&mut self, range: Option<(f64, f64)>) {
        self.field_range = Some(range);
    }

    fn prepare_forward(&mut self, _r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<()> {
        if self.bound.mode == ErrorMode::Rel {
            return Err(Error::config("SZp supports error_bound_mode ABS or NOA, not REL"));
        }
        let (_, len) = inputs.first().ok_or_else(|| Error::Pipeline("SZp: no input".into()))?.device("SZp input")?;
        let n = len / self.sz();
        if n == 0 || len % self.sz() != 0 {
            return Err(Error::Input(format!("SZp: {len} bytes are not whole {} values", self.dtype)));
        }
        let range = match self.field_range {
            _ if self.bound.mode == ErrorMode::Abs => None,
            Some(rg) => rg,
            None => return Err(Error::Pipeline("SZp: NOA needs the field range from the pipeline".into())),
        };
        self.resolved = Some(self.resolve(n, range));
        Ok(())
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("SZp: no input".into()))?.device("SZp input")?;
        let n = len / self.sz();
        let res = self.resolved.filter(|r| r.n == n).ok_or_else(|| Error::Pipeline("SZp: prepare_forward must run first".into()))?;
        let g = self.geometry(r, n, opts)?;
        let sz = self.sz();
        let meta = r.alloc(g.meta_pad())?;
        r.clear(BufSlice::new(meta, 0, g.meta_pad()));
        let totals = r.alloc(4 * g.nchunks)?;
        let totals_w = BufSlice::new(totals, 0, (4 * g.nchunks).next_multiple_of(4));
        let widths = r.temp(4 * g.cb)?;
        let cost = r.temp(4 * g.cb)?;
        let offsets = r.temp(4 * g.cb)?;
        let tidx = r.readback(totals_w);
        let mut parts = vec![Part { slice: BufSlice::new(meta, 0, g.meta_pad()), len: PartLen::Fixed(g.meta_pad()) }];
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let p = self.params(&res, nk, nbk, k, 0);
            let in_w = BufSlice::new(input.buf, input.offset + b0 * g.bs * sz, nk * sz);
            let (w_w, c_w, o_w) = (BufSlice::new(widths, 0, 4 * nbk), BufSlice::new(cost, 0, 4 * nbk), BufSlice::new(offsets, 0, 4 * nbk));
            let payload = r.alloc(nk * sz)?;
            let pay_w = BufSlice::new(payload, 0, nk * sz);
            let meta_w = BufSlice::new(meta, b0, nbk.next_multiple_of(4));
            r.dispatch_bytes(Kernel::SzpClassify, self.f64v(), &p, &[in_w, in_w, w_w, c_w], nbk)?;
            record_exclusive_scan(r, c_w, o_w, nbk)?;
            r.dispatch_bytes(Kernel::SzpPack, self.f64v(), &p, &[in_w, in_w, w_w, o_w, meta_w, pay_w, totals_w], nbk)?;
            parts.push(Part { slice: pay_w, len: PartLen::Readback { index: tidx, word: k as usize, scale: 4 } });
        }
        Ok(vec![PortData::Deferred { parts }])
    }

    fn finish_forward(&mut self, outputs: &[Option<&[u8]>]) -> Result<()> {
        if let (Some(Some(bytes)), Some(res)) = (outputs.first(), self.resolved) {
            let nb = res.n.div_ceil(self.block_size as u64) as usize;
            self.raw_blocks = Some(bytes.iter().take(nb).filter(|&&w| w as u32 == RAW_WIDTH).count() as u64);
        }
        Ok(())
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let res = self.resolved.ok_or_else(|| Error::corrupt("SZp: no stored configuration"))?;
        let g = self.geometry(r, res.n, opts)?;
        // the host reads only the widths (the meta region); the payload stays on the device
        let (slice, len, host) =
            inputs.first().ok_or_else(|| Error::Pipeline("SZp inverse: no input".into()))?.host_prefix(r, "SZp inverse", g.meta_pad())?;
        if len < g.meta_pad() || (host.len() as u64) < g.meta_pad() || host[g.nb as usize..g.meta_pad() as usize].iter().any(|&b| b != 0) {
            return Err(Error::corrupt("SZp buffer shorter than its meta region or padding not zero"));
        }
        let (per, raw) = self.scan_meta(&g, &host[..g.nb as usize])?;
        let total: u64 = per.iter().sum();
        if g.meta_pad() + 4 * total != len {
            return Err(Error::corrupt(format!("SZp payload is {} bytes, the widths describe {}", len - g.meta_pad(), 4 * total)));
        }
        self.raw_blocks = Some(raw);
        let sz = self.sz();
        let out = r.alloc(res.n * sz)?;
        let cost = r.temp(4 * g.cb)?;
        let offsets = r.temp(4 * g.cb)?;
        let align = r.backend.info().storage_align.max(8);
        let per_group = workgroup_size(Kernel::SzpMetaCost)? as u64;
        let mut pstart = 0u64;
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let abs = slice.offset + g.meta_pad() + 4 * pstart;
            let win = abs / align * align;
            let p = self.params(&res, nk, nbk, k, (abs - win) / 4);
            let meta_w = BufSlice::new(slice.buf, slice.offset + b0, nbk.next_multiple_of(4));
            let pay_w = if per[k as usize] == 0 { meta_w } else { BufSlice::new(slice.buf, win, abs - win + 4 * per[k as usize]) };
            let (c_w, o_w) = (BufSlice::new(cost, 0, 4 * nbk), BufSlice::new(offsets, 0, 4 * nbk));
            r.dispatch_bytes(Kernel::SzpMetaCost, self.f64v(), &p, &[meta_w, c_w], nbk.div_ceil(per_group))?;
            record_exclusive_scan(r, c_w, o_w, nbk)?;
            r.dispatch_bytes(
                Kernel::SzpUnpack,
                self.f64v(),
                &p,
                &[meta_w, o_w, pay_w, pay_w, BufSlice::new(out, b0 * g.bs * sz, nk * sz)],
                nbk,
            )?;
            pstart += per[k as usize];
        }
        Ok(vec![PortData::Device { slice: BufSlice::new(out, 0, res.n * sz), len: res.n * sz, host: None }])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let Some(res) = &self.resolved else { return Vec::new() };
        let mut b = vec![CONFIG_VERSION, self.dtype as u8, self.bound.mode.code(), res.exact as u8];
        b.extend_from_slice(&self.block_size.to_le_bytes());
        res.write(self.bound.value, &mut b);
        b.extend_from_slice(&self.raw_blocks.unwrap_or(0).to_le_bytes());
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("data_type".to_string(), self.dtype.to_string()),
            ("block_size".to_string(), self.block_size.to_string()),
            ("error_bound".to_string(), format!("{:e}", self.bound.value)),
            ("error_bound_mode".to_string(), self.bound.mode.to_string()),
        ];
        if let Some(res) = &self.resolved {
            v.extend(res.describe(self.dtype));
        }
        v
    }

    fn run_notes(&self) -> Vec<String> {
        self.raw_blocks.map(|r| vec![format!("raw_blocks={r}")]).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ErrorBound, ErrorMode};

    /// The meta scan's per-chunk payload words and raw count equal a block-by-block sum
    /// (whole and short last blocks, several chunks, every width, float32 and float64),
    /// and a bad width is reported at its block.
    #[test]
    fn scan_meta_matches_a_plain_sum() {
        let mut next = crate::testutil::xorshift(0x2545f4914f6cdd1d);
        for dtype in [DataType::F32, DataType::F64] {
            for (n, bs, cb) in [(1u64, 32u64, 64u64), (1000, 32, 8), (300_001, 128, 512), (5000, 7, 16), (2_000_000, 32, 1 << 20)] {
                let nb = n.div_ceil(bs);
                let g = Geo { n, bs, nb, cb, nchunks: nb.div_ceil(cb), meta_bytes: 1 };
                let meta: Vec<u8> = (0..nb).map(|_| if next().is_multiple_of(9) { RAW_WIDTH as u8 } else { (next() % 33) as u8 }).collect();
                let st = SzpStage::new(dtype, bs as u32, ErrorBound { mode: ErrorMode::Abs, value: 1e-3 }).unwrap();
                let (per, raw) = st.scan_meta(&g, &meta).unwrap();
                let mut want = vec![0u64; g.nchunks as usize];
                for b in 0..nb {
                    let len = (n - b * bs).min(bs) as u32;
                    let w = meta[b as usize] as u32;
                    want[(b / cb) as usize] +=
                        if dtype == DataType::F64 { szp_cost::<f64>(w, len) } else { szp_cost::<f32>(w, len) } as u64;
                }
                assert_eq!(per, want, "{dtype} n={n} bs={bs}");
                assert_eq!(raw, meta.iter().filter(|&&w| w as u32 == RAW_WIDTH).count() as u64);
                let mut bad = meta.clone();
                let at = (nb / 2) as usize;
                bad[at] = 33;
                let e = st.scan_meta(&g, &bad).unwrap_err().to_string();
                assert!(e.contains(&format!("block {at}: width 33")), "{e}");
            }
        }
    }
}
