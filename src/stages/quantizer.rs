//! The Quantizer stage (StageType 14): linear quantization `q = round(x / (2 eb))` of
//! float32/float64 values into int32 codes (or zigzag uint32 codes), ABS/NOA/REL.
//! Values whose code would not fit, or that are NaN, ±Inf or subnormal, go to an exact
//! side list of (index, value) entries applied last on decode, so the bound always
//! holds and nothing wraps around.
//!
//! Outputs: `codes` (n × 4 bytes, int32 or uint32) and `outliers` (archived): entries
//! of 2 × WT u32 words, `[global index, value]` for float32 and
//! `[global index, 0, value lo, value hi]` for float64, in increasing index order.

use super::bound::Resolved;
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage};
use crate::error::{Error, Result};
use crate::kernels::params::{QuantParams32, QuantParams64};
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufId, BufSlice, Recorder};
use crate::types::{DataType, Dims, ErrorBound, ErrorMode};

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 88;
/// Quantizer chunks start at multiples of this many values when they can (see
/// `QuantizerStage::premasked`): mask windows then start at multiples of 2048 bytes and
/// count windows at multiples of 256.
pub(crate) const PREMASK_ALIGN: u64 = 16384;

/// User-facing settings of the Quantizer.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizerConfig {
    pub input_type: DataType,
    /// Int32 (signed codes) or U32 (zigzag codes).
    pub code_type: DataType,
    pub bound: ErrorBound,
    /// Round the bound down to a power of two (exact products, slightly tighter).
    pub power_of_two_bound: bool,
}

impl Default for QuantizerConfig {
    fn default() -> Self {
        QuantizerConfig {
            input_type: DataType::F32,
            code_type: DataType::I32,
            bound: ErrorBound { mode: ErrorMode::Abs, value: 1e-3 },
            power_of_two_bound: false,
        }
    }
}

/// The Quantizer stage.
#[derive(Debug, Clone)]
pub struct QuantizerStage {
    cfg: QuantizerConfig,
    dims: Option<Dims>,
    pub(crate) resolved: Option<Resolved>,
    outliers: Option<u64>,
    /// Set by the fused chain: record only the outlier list (codes are computed by the
    /// fused kernels).
    pub(crate) skip_codes: bool,
    /// Set by the fused chain when `chain_encode` already wrote the outlier mask and
    /// the per-256-value counts of the whole field: (buffer, byte offset of the counts);
    /// the mask starts at byte 0. `quant_encode` is then skipped.
    pub(crate) premasked: Option<(crate::recording::BufId, u64)>,
    /// The raw field's range from the pipeline (NOA/REL are relative to it).
    field_range: Option<Option<(f64, f64)>>,
}

impl QuantizerStage {
    pub fn new(cfg: QuantizerConfig) -> Result<Self> {
        if !matches!(cfg.input_type, DataType::F32 | DataType::F64) {
            return Err(Error::config(format!("Quantizer input_type must be float32 or float64, got {}", cfg.input_type)));
        }
        if !matches!(cfg.code_type, DataType::I32 | DataType::U32) {
            return Err(Error::config(format!("Quantizer code_type must be int32 or uint32, got {}", cfg.code_type)));
        }
        ErrorBound::new(cfg.bound.mode, cfg.bound.value)?;
        Ok(QuantizerStage { cfg, dims: None, resolved: None, outliers: None, skip_codes: false, premasked: None, field_range: None })
    }

    pub fn config(&self) -> &QuantizerConfig {
        &self.cfg
    }

    /// Outliers stored exactly in the last run (or the decoded archive).
    pub fn outlier_count(&self) -> Option<u64> {
        self.outliers
    }

    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let mut cfg = QuantizerConfig::default();
        if let Some(s) = t.str("input_type")? {
            cfg.input_type = DataType::from_toml_name(&s)?;
        }
        if let Some(s) = t.str("code_type")? {
            cfg.code_type = DataType::from_toml_name(&s)?;
        }
        let zigzag = t.bool("zigzag_codes")?;
        match (zigzag, cfg.code_type) {
            (Some(true), DataType::I32) => return Err(Error::config("Quantizer: zigzag_codes = true needs code_type = \"uint32\"")),
            (Some(false), DataType::U32) => {
                return Err(Error::config("Quantizer: code_type = \"uint32\" stores zigzag codes (zigzag_codes must be true)"))
            }
            _ => {}
        }
        if t.bool("linear_mode")? == Some(false) {
            return Err(Error::config("Quantizer: only linear_mode = true is implemented"));
        }
        cfg.power_of_two_bound = t.bool("power_of_two_bound")?.unwrap_or(false);
        let mode = match t.str("error_bound_mode")? {
            Some(m) => m.parse()?,
            None => ErrorMode::Abs,
        };
        cfg.bound = ErrorBound::new(mode, t.float("error_bound")?.unwrap_or(1e-3))?;
        Self::new(cfg)
    }

    fn sz(&self) -> u64 {
        self.cfg.input_type.size() as u64
    }
    fn f64v(&self) -> bool {
        self.cfg.input_type == DataType::F64
    }
    fn zigzag(&self) -> bool {
        self.cfg.code_type == DataType::U32
    }

    /// Elements per chunk: the outlier window (2 × value size per element) fits one
    /// binding; a multiple of 64 keeps windows 256-byte aligned.
    /// Whether a mask written for the whole field serves every chunk (chunks start at
    /// multiples of PREMASK_ALIGN values, or there is one).
    pub(crate) fn premask_fits(&self, r: &Recorder, n: u64, opts: &RunOptions) -> bool {
        self.chunk_elems(r, opts).is_ok_and(|ce| ce >= n || ce % PREMASK_ALIGN == 0)
    }

    fn chunk_elems(&self, r: &Recorder, opts: &RunOptions) -> Result<u64> {
        let mut limit = r.backend.info().max_binding_bytes.min((1u64 << 31) - 256);
        if let Some(m) = opts.max_chunk_bytes {
            limit = limit.min(m);
        }
        // chunks of whole 16384-value pieces where they fit (the windows of a mask and
        // counts of the whole field are then storage-aligned, see `premasked`); the
        // outlier list does not depend on the chunking
        let c = limit / (2 * self.sz());
        let c = if c >= 4 * PREMASK_ALIGN { c / PREMASK_ALIGN * PREMASK_ALIGN } else { c / 64 * 64 };
        if c == 0 {
            return Err(Error::TooLarge { what: "minimum Quantizer chunk (64 values)".into(), actual: 128 * self.sz(), limit });
        }
        Ok(c)
    }

    fn resolve(&self, n: u64, range: Option<(f64, f64)>) -> Resolved {
        Resolved::new(self.cfg.input_type, self.cfg.bound, self.dims, n, range, self.cfg.power_of_two_bound)
    }

    pub(crate) fn f64v_pub(&self) -> bool {
        self.f64v()
    }
    pub(crate) fn zigzag_pub(&self) -> bool {
        self.zigzag()
    }

    fn params(&self, res: &Resolved, n: u64, base: u64, chunk: u64, count: u64) -> Vec<u8> {
        let (n, base, zigzag, count, chunk) = (n as u32, base as u32, self.zigzag() as u32, count as u32, chunk as u32);
        let codes_off = self.skip_codes as u32;
        if self.f64v() {
            let (eb, inv, step) = res.steps::<f64>();
            let limit = if res.exact { 0.0 } else { 2147483648.0 };
            bytemuck::bytes_of(&QuantParams64 {
                n,
                base,
                zigzag,
                count,
                chunk,
                codes_off,
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
            bytemuck::bytes_of(&QuantParams32 {
                n,
                base,
                zigzag,
                count,
                chunk,
                codes_off,
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

    /// Validate the archived outlier list (indices increasing and < n, float64 pad word
    /// zero) and record the patches of the exact values over the decoded field `out`.
    pub(crate) fn record_patch(&mut self, r: &mut Recorder, out: BufId, outliers: &PortData, opts: &RunOptions) -> Result<()> {
        let res = self.resolved.ok_or_else(|| Error::corrupt("Quantizer: no stored configuration"))?;
        let n = res.n;
        let (_, _, host) = outliers.host_bytes(r, "Quantizer outlier list")?;
        let sz = self.sz();
        let esz = (2 * sz) as usize;
        if host.len() % esz != 0 {
            return Err(Error::corrupt(format!("Quantizer outlier list of {} bytes is not whole {esz}-byte entries", host.len())));
        }
        let count = host.len() / esz;
        let mut last: Option<u32> = None;
        for j in 0..count {
            let e = &host[j * esz..(j + 1) * esz];
            let idx = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            if idx as u64 >= n || last.is_some_and(|l| idx <= l) || (sz == 8 && e[4..8] != [0; 4]) {
                return Err(Error::corrupt(format!("Quantizer outlier {j}: index {idx} invalid for {n} values")));
            }
            last = Some(idx);
        }
        self.outliers = Some(count as u64);
        if count == 0 {
            return Ok(());
        }
        let ce = self.chunk_elems(r, opts)?;
        let nchunks = n.div_ceil(ce);
        let wg = workgroup_size(Kernel::QuantPatch)? as u64;
        // re-lay the entries so each chunk's list starts at an aligned offset
        let mut starts = Vec::with_capacity(nchunks as usize + 1);
        let mut j = 0usize;
        for k in 0..=nchunks {
            while j < count && (u32::from_le_bytes(host[j * esz..j * esz + 4].try_into().unwrap_or([0; 4])) as u64) < k * ce {
                j += 1;
            }
            starts.push(j);
        }
        let mut laid = Vec::new();
        let mut offs = Vec::new();
        for k in 0..nchunks as usize {
            offs.push(laid.len() as u64);
            laid.extend_from_slice(&host[starts[k] * esz..starts[k + 1] * esz]);
            laid.resize(laid.len().next_multiple_of(256), 0);
        }
        let ent = r.alloc(laid.len() as u64)?;
        r.backend.write_buffer(ent, 0, &laid)?;
        for k in 0..nchunks {
            let ck = (starts[k as usize + 1] - starts[k as usize]) as u64;
            if ck == 0 {
                continue;
            }
            let nk = ce.min(n - k * ce);
            let p = self.params(&res, nk, k * ce, k, ck);
            let w = BufSlice::new(ent, offs[k as usize], ck * esz as u64);
            r.dispatch_bytes(Kernel::QuantPatch, self.f64v(), &p, &[w, w, BufSlice::new(out, k * ce * sz, nk * sz)], ck.div_ceil(wg))?;
        }
        Ok(())
    }

    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION {
            return Err(Error::corrupt(format!("Quantizer config: version {version}, {} bytes", c.len())));
        }
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let input_type = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::F32 | DataType::F64))
            .ok_or_else(|| Error::corrupt("Quantizer input type"))?;
        let mode = ErrorMode::from_code(c[2]).ok_or_else(|| Error::corrupt("Quantizer error mode"))?;
        if c[3] & !7 != 0 || c[4..8] != [0; 4] {
            return Err(Error::corrupt("Quantizer flags"));
        }
        let (zigzag, pow2, exact) = (c[3] & 1 != 0, c[3] & 2 != 0, c[3] & 4 != 0);
        let (res, value) = Resolved::read(c, input_type, exact, "Quantizer")?;
        if res.n == 0 || res.n > u32::MAX as u64 * 64 {
            return Err(Error::corrupt("Quantizer element count"));
        }
        Ok(QuantizerStage {
            cfg: QuantizerConfig {
                input_type,
                code_type: if zigzag { DataType::U32 } else { DataType::I32 },
                bound: ErrorBound { mode, value },
                power_of_two_bound: pow2,
            },
            dims: Some(res.dims),
            resolved: Some(res),
            outliers: Some(u64_at(80)),
            skip_codes: false,
            premasked: None,
            field_range: None,
        })
    }
}

impl Stage for QuantizerStage {
    fn type_id(&self) -> u16 {
        ids::QUANTIZER
    }
    fn type_name(&self) -> &'static str {
        "Quantizer"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("input", self.cfg.input_type)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("codes", self.cfg.code_type), PortSpec::new("outliers", DataType::U8)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        if port != 0 || !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::Pipeline(format!("Quantizer takes float32 or float64, got {dtype}")));
        }
        self.cfg.input_type = dtype;
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
        vec![n * 4, n * 2 * self.sz()]
    }
    fn graph_compatible(&self) -> bool {
        self.cfg.bound.mode == ErrorMode::Abs
    }
    fn wants_field_range(&self) -> bool {
        self.cfg.bound.mode != ErrorMode::Abs
    }
    fn set_field_range(&mut self, range: Option<(f64, f64)>) {
        self.field_range = Some(range);
    }
    fn needs_f64(&self) -> bool {
        self.f64v()
    }
    fn field_dims(&self) -> Option<Dims> {
        self.resolved.map(|r| r.dims)
    }

    fn prepare_forward(&mut self, _r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<()> {
        let (_, len) = inputs.first().ok_or_else(|| Error::Pipeline("Quantizer: no input".into()))?.device("Quantizer input")?;
        let n = len / self.sz();
        if n == 0 || len % self.sz() != 0 {
            return Err(Error::Input(format!("Quantizer: {len} bytes are not whole {} values", self.cfg.input_type)));
        }
        let range = match (self.cfg.bound.mode, self.field_range) {
            (ErrorMode::Abs, _) => None,
            (_, Some(rg)) => rg,
            (_, None) => return Err(Error::Pipeline("Quantizer: NOA/REL needs the field range from the pipeline".into())),
        };
        self.resolved = Some(self.resolve(n, range));
        Ok(())
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("Quantizer: no input".into()))?.device("Quantizer input")?;
        let n = len / self.sz();
        let res = self.resolved.filter(|r| r.n == n).ok_or_else(|| Error::Pipeline("Quantizer: prepare_forward must run first".into()))?;
        let ce = self.chunk_elems(r, opts)?;
        let nchunks = n.div_ceil(ce);
        let sz = self.sz();
        let wg = workgroup_size(Kernel::QuantEncode)? as u64;
        let codes = r.alloc(if self.skip_codes { 16 } else { n * 4 })?;
        let totals = r.alloc(4 * nchunks)?;
        let totals_w = BufSlice::new(totals, 0, (4 * nchunks).next_multiple_of(4));
        // per chunk: an outlier bit per value (8 words per 256-value workgroup) and a
        // count per workgroup, whose exclusive scan places each workgroup's outliers
        let groups_max = ce.min(n).div_ceil(wg);
        let own = if self.premasked.is_some() { 0 } else { groups_max };
        let mask = r.temp(32 * own)?;
        let counts = r.temp(4 * own)?;
        let offs = r.temp(4 * groups_max)?;
        let tidx = r.readback(totals_w);
        let mut parts = Vec::new();
        for k in 0..nchunks {
            let nk = ce.min(n - k * ce);
            let p = self.params(&res, nk, k * ce, k, 0);
            let in_w = BufSlice::new(input.buf, input.offset + k * ce * sz, nk * sz);
            let codes_w = if self.skip_codes { BufSlice::new(codes, 0, 16) } else { BufSlice::new(codes, k * ce * 4, nk * 4) };
            let gk = nk.div_ceil(wg);
            let mask_w = BufSlice::new(mask, 0, 32 * gk);
            let (counts_w, offs_w) = (BufSlice::new(counts, 0, 4 * gk), BufSlice::new(offs, 0, 4 * gk));
            let f64v = self.f64v();
            let (mask_w, counts_w) = match self.premasked {
                // windows of the whole field's mask (8 words per 256 values) and counts
                Some((buf, counts_at)) => (BufSlice::new(buf, k * ce / 8, 32 * gk), BufSlice::new(buf, counts_at + k * ce / 64, 4 * gk)),
                None => {
                    r.dispatch_bytes(Kernel::QuantEncode, f64v, &p, &[in_w, in_w, codes_w, mask_w, counts_w], gk)?;
                    (mask_w, counts_w)
                }
            };
            record_exclusive_scan(r, counts_w, offs_w, gk)?;
            let entries = r.alloc(nk * 2 * sz)?;
            let ent_w = BufSlice::new(entries, 0, nk * 2 * sz);
            let sgroups = nk.div_ceil(32).div_ceil(workgroup_size(Kernel::QuantScatter)? as u64);
            r.dispatch_bytes(Kernel::QuantScatter, f64v, &p, &[in_w, mask_w, offs_w, counts_w, ent_w, totals_w], sgroups)?;
            parts.push(Part { slice: ent_w, len: PartLen::Readback { index: tidx, word: k as usize, scale: 2 * sz } });
        }
        let codes_out = if self.skip_codes { BufSlice::new(codes, 0, 16) } else { BufSlice::new(codes, 0, n * 4) };
        Ok(vec![
            PortData::Device { slice: codes_out, len: if self.skip_codes { 0 } else { n * 4 }, host: None },
            PortData::Deferred { parts },
        ])
    }

    fn finish_forward(&mut self, outputs: &[Option<&[u8]>]) -> Result<()> {
        if let Some(Some(o)) = outputs.get(1) {
            self.outliers = Some(o.len() as u64 / (2 * self.sz()));
        }
        Ok(())
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let res = self.resolved.ok_or_else(|| Error::corrupt("Quantizer: no stored configuration"))?;
        let n = res.n;
        let (codes, clen) = inputs.first().ok_or_else(|| Error::Pipeline("Quantizer inverse: no codes".into()))?.device("codes")?;
        if clen != n * 4 {
            return Err(Error::corrupt(format!("Quantizer: {clen} code bytes for {n} values")));
        }
        let outliers = inputs.get(1).ok_or_else(|| Error::Pipeline("Quantizer inverse: no outlier list".into()))?;
        let sz = self.sz();
        let ce = self.chunk_elems(r, opts)?;
        let wg = crate::kernels::items_per_group(Kernel::QuantDecode)?;
        let out = r.alloc(n * sz)?;
        for k in 0..n.div_ceil(ce) {
            let nk = ce.min(n - k * ce);
            let p = self.params(&res, nk, k * ce, k, 0);
            let out_w = BufSlice::new(out, k * ce * sz, nk * sz);
            let codes_w = BufSlice::new(codes.buf, codes.offset + k * ce * 4, nk * 4);
            r.dispatch_bytes(Kernel::QuantDecode, self.f64v(), &p, &[codes_w, out_w], nk.div_ceil(wg))?;
        }
        self.record_patch(r, out, outliers, opts)?;
        Ok(vec![PortData::Device { slice: BufSlice::new(out, 0, n * sz), len: n * sz, host: None }])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let Some(res) = &self.resolved else {
            return Vec::new();
        };
        let mut b = Vec::with_capacity(CONFIG_BYTES);
        b.push(CONFIG_VERSION);
        b.push(self.cfg.input_type as u8);
        b.push(self.cfg.bound.mode.code());
        b.push(self.zigzag() as u8 | (self.cfg.power_of_two_bound as u8) << 1 | (res.exact as u8) << 2);
        b.extend_from_slice(&[0; 4]);
        res.write(self.cfg.bound.value, &mut b);
        b.extend_from_slice(&self.outliers.unwrap_or(0).to_le_bytes());
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("input_type".to_string(), self.cfg.input_type.to_string()),
            ("code_type".to_string(), self.cfg.code_type.to_string()),
            ("error_bound".to_string(), format!("{:e}", self.cfg.bound.value)),
            ("error_bound_mode".to_string(), self.cfg.bound.mode.to_string()),
            ("power_of_two_bound".to_string(), self.cfg.power_of_two_bound.to_string()),
        ];
        if let Some(res) = &self.resolved {
            v.extend(res.describe(self.cfg.input_type));
        }
        v
    }

    fn run_notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(o) = self.outliers {
            v.push(format!("outliers={o}"));
        }
        if self.resolved.is_some_and(|r| r.exact) {
            v.push("lossless_exact_mode".into());
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
