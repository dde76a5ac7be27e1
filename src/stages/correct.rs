//! `OutlierCorrect<Reconstructor>`: turns the reported bound of a transform ->
//! Quantizer pipeline into a guaranteed one. Forward inputs `[raw_field, codes]`,
//! outputs `[correction (archived), codes (passthrough)]`.
//!
//! Forward, on the device: dequantize the codes (`x = q * 2 eb`, float64), run the
//! Reconstructor's inverse transform in place (the trial reconstruction), flag every
//! value whose trial misses the bound (`correct_flag`, decided exactly in the field's
//! type, NaN/±Inf/subnormal values always), exclusive-scan the flags and scatter the
//! flagged values into a dense list (`correct_scatter`): `[index, k, value]` with
//! `k != 0` when `trial + k * 2 eb` lands within the bound (usually |k| = 1) and k = 0
//! for an exact copy. Only the list's length is read back, once, at the end of the
//! pipeline. The host then codes the list compactly (`encode_list`: Rice-coded index
//! gaps, Elias-gamma k, exact values last).
//!
//! Inverse: the same dequantization and trial reconstruction, stored in the field's
//! type (`wavelet_store`), then `correct_apply` writes each entry over it. Every value
//! is therefore either a trial value that passed the exact check or a corrected /
//! exact value that passed it: |x - x'| <= eb for every element, NaN/±Inf bit-exact.
//!
//! The only transform-specific code is the [`Reconstructor`] (one function);
//! [`Cdf97Reconstructor`] and [`Cdf53Reconstructor`] ship. The stage's bound must
//! equal the paired Quantizer's (the dequantization uses it); a different bound still
//! decodes within this stage's bound, only with more corrections.

use super::bits::{BitReader, BitWriter};
use super::bound::Resolved;
use super::wavelet::{self, Wavelet};
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage};
use crate::error::{Error, Result};
use crate::kernels::params::{CorrectParams32, CorrectParams64, QuantParams64};
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims, ErrorBound, ErrorMode};
use std::marker::PhantomData;

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 96;
/// |k| of a correction stays below this.
pub const KMAX: f64 = (1u64 << 30) as f64;
const LIST_VERSION: u8 = 1;

/// The transform-specific part of an [`OutlierCorrectStage`].
pub trait Reconstructor: Send + Sync + 'static {
    const TYPE_ID: u16;
    const TYPE_NAME: &'static str;
    /// In place: `work` holds dims.len() dequantized coefficients (float64) on entry
    /// and the trial reconstruction on return; `scratch` is as large.
    fn inverse_transform(r: &mut Recorder, dims: Dims, work: BufSlice, scratch: BufSlice) -> Result<()>;
}

/// Inverse CDF 9/7 (the CDF97 stage's synthesis).
pub struct Cdf97Reconstructor;
impl Reconstructor for Cdf97Reconstructor {
    const TYPE_ID: u16 = ids::CDF97_OUTLIER_CORRECT;
    const TYPE_NAME: &'static str = "Cdf97OutlierCorrect";
    fn inverse_transform(r: &mut Recorder, dims: Dims, work: BufSlice, scratch: BufSlice) -> Result<()> {
        wavelet::record_transform(r, Wavelet::Cdf97, dims, work, scratch, true)
    }
}

/// Inverse CDF 5/3 (the CDF53 stage's synthesis).
pub struct Cdf53Reconstructor;
impl Reconstructor for Cdf53Reconstructor {
    const TYPE_ID: u16 = ids::CDF53_OUTLIER_CORRECT;
    const TYPE_NAME: &'static str = "Cdf53OutlierCorrect";
    fn inverse_transform(r: &mut Recorder, dims: Dims, work: BufSlice, scratch: BufSlice) -> Result<()> {
        wavelet::record_transform(r, Wavelet::Cdf53, dims, work, scratch, true)
    }
}

/// The stage.
pub struct OutlierCorrectStage<R: Reconstructor> {
    dtype: DataType,
    code_type: DataType,
    bound: ErrorBound,
    dims: Option<Dims>,
    field_range: Option<Option<(f64, f64)>>,
    resolved: Option<Resolved>,
    outliers: Option<u64>,
    exact: Option<u64>,
    _r: PhantomData<R>,
}

pub type Cdf97OutlierCorrectStage = OutlierCorrectStage<Cdf97Reconstructor>;
pub type Cdf53OutlierCorrectStage = OutlierCorrectStage<Cdf53Reconstructor>;

impl<R: Reconstructor> std::fmt::Debug for OutlierCorrectStage<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(R::TYPE_NAME).field("dtype", &self.dtype).field("bound", &self.bound).finish()
    }
}

impl<R: Reconstructor> OutlierCorrectStage<R> {
    pub fn new(bound: ErrorBound) -> Result<Self> {
        let bound = ErrorBound::new(bound.mode, bound.value)?;
        Ok(OutlierCorrectStage {
            dtype: DataType::F32,
            code_type: DataType::U32,
            bound,
            dims: None,
            field_range: None,
            resolved: None,
            outliers: None,
            exact: None,
            _r: PhantomData,
        })
    }

    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let mode = match t.str("error_bound_mode")? {
            Some(m) => m.parse()?,
            None => ErrorMode::Abs,
        };
        let mut s = Self::new(ErrorBound::new(mode, t.float("error_bound")?.unwrap_or(1e-3))?)?;
        if let Some(d) = t.str("data_type")? {
            s.dtype = DataType::from_toml_name(&d)?;
            if !matches!(s.dtype, DataType::F32 | DataType::F64) {
                return Err(Error::config(format!("{}: data_type must be float32 or float64", R::TYPE_NAME)));
            }
        }
        Ok(s)
    }

    /// Values corrected in the last run (or the decoded archive).
    pub fn outlier_count(&self) -> Option<u64> {
        self.outliers
    }

    fn zigzag(&self) -> bool {
        self.code_type == DataType::U32
    }

    fn resolve(&self, n: u64, range: Option<(f64, f64)>) -> Resolved {
        Resolved::new(self.dtype, self.bound, self.dims, n, range, false)
    }

    /// Kernel params: the field's checked bound, the correction step 2 eb (float64).
    fn params(&self, res: &Resolved, n: u64, count: u64, cap: u64) -> Vec<u8> {
        let eb64 = res.checked(self.dtype);
        let step64 = eb64 + eb64;
        let inv64 = if step64 > 0.0 { 1.0 / step64 } else { 0.0 };
        let nan64 = f64::from_bits(crate::backend::cpu::wavelet::NAN64);
        let (n, count, cap, exact) = (n as u32, count as u32, cap.min(u32::MAX as u64) as u32, res.exact as u32);
        macro_rules! fill {
            ($t:ident, $eb:expr) => {
                bytemuck::bytes_of(&$t {
                    n,
                    count,
                    cap,
                    exact,
                    eb: $eb,
                    one: 1.0,
                    step64,
                    inv64,
                    one64: 1.0,
                    kmax: KMAX,
                    nan64,
                    ..Default::default()
                })
                .to_vec()
            };
        }
        if self.dtype == DataType::F64 {
            fill!(CorrectParams64, eb64)
        } else {
            fill!(CorrectParams32, eb64 as f32)
        }
    }

    /// Record dequantization + trial reconstruction into a new float64 work buffer.
    fn record_trial(&self, r: &mut Recorder, res: &Resolved, codes: BufSlice, n: u64) -> Result<BufSlice> {
        // the Quantizer's step, as the Quantizer resolves it for float64 coefficients
        let q = Resolved::new(DataType::F64, ErrorBound::new(ErrorMode::Abs, res.eb_abs.max(f64::MIN_POSITIVE))?, None, n, None, false);
        let (eb, inv, step) = q.steps::<f64>();
        let qp = QuantParams64 { n: n as u32, zigzag: self.zigzag() as u32, eb, inv, step, one: 1.0, ..Default::default() };
        let work = r.alloc(n * 8)?;
        let w = BufSlice::new(work, 0, n * 8);
        let wg = crate::kernels::items_per_group(Kernel::QuantDecode)?;
        r.dispatch(Kernel::QuantDecode, true, &qp, &[BufSlice::new(codes.buf, codes.offset, n * 4), w], n.div_ceil(wg))?;
        let scratch = r.temp(n * 8)?;
        R::inverse_transform(r, res.dims, w, BufSlice::new(scratch, 0, n * 8))?;
        Ok(w)
    }

    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        let name = R::TYPE_NAME;
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[4..8] != [0; 4] || c[3] & !3 != 0 {
            return Err(Error::corrupt(format!("{name} config: version {version}, {} bytes", c.len())));
        }
        let dtype = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::F32 | DataType::F64))
            .ok_or_else(|| Error::corrupt(format!("{name} data type")))?;
        let mode = ErrorMode::from_code(c[2]).ok_or_else(|| Error::corrupt(format!("{name} error mode")))?;
        let (res, value) = Resolved::read(c, dtype, c[3] & 2 != 0, name)?;
        if res.n == 0 || res.n >= u32::MAX as u64 / 4 {
            return Err(Error::corrupt(format!("{name} element count")));
        }
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        Ok(OutlierCorrectStage {
            dtype,
            code_type: if c[3] & 1 != 0 { DataType::U32 } else { DataType::I32 },
            bound: ErrorBound { mode, value },
            dims: Some(res.dims),
            field_range: None,
            resolved: Some(res),
            outliers: Some(u64_at(80)),
            exact: Some(u64_at(88)),
            _r: PhantomData,
        })
    }
}

/// Code a list of raw entries (`[index, k, lo, hi]` u32 words, increasing indices)
/// compactly: header, Rice-coded index gaps and Elias-gamma k symbols, then the exact
/// values (k = 0) of `vsize` bytes each. Layout in FORMAT.md.
pub fn encode_list(entries: &[u32], n: u64, vsize: usize) -> Result<Vec<u8>> {
    let count = entries.len() / 4;
    let mean = if count == 0 { 1 } else { (n - count as u64) / count as u64 };
    let rice = if mean <= 1 { 0 } else { mean.ilog2().min(31) };
    let mut w = BitWriter::new();
    let mut exact = Vec::new();
    let mut prev: i64 = -1;
    for e in entries.chunks_exact(4) {
        let idx = e[0] as i64;
        if idx <= prev || idx as u64 >= n {
            return Err(Error::Device(format!("correction list: index {idx} out of order")));
        }
        let g = (idx - prev - 1) as u64;
        prev = idx;
        let q = g >> rice;
        if q < 32 {
            for _ in 0..q {
                w.bit(true);
            }
            w.bit(false);
            w.bits(g, rice);
        } else {
            for _ in 0..32 {
                w.bit(true);
            }
            w.bits(g, 32);
        }
        let k = e[1] as i32;
        let sym = if k == 0 { 0 } else { 2 * (k.unsigned_abs() as u64 - 1) + (k < 0) as u64 + 1 };
        w.gamma(sym + 1);
        if k == 0 {
            exact.extend_from_slice(&e[2].to_le_bytes());
            if vsize == 8 {
                exact.extend_from_slice(&e[3].to_le_bytes());
            }
        }
    }
    let mut out = vec![LIST_VERSION, vsize as u8, rice as u8, 0];
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&w.len_bits().to_le_bytes());
    out.extend_from_slice(&w.into_bytes());
    out.extend_from_slice(&exact);
    Ok(out)
}

/// Decode and validate a list coded by [`encode_list`]: entries as u32 words and the
/// number of exact values.
pub fn decode_list(b: &[u8], n: u64, vsize: usize, what: &'static str) -> Result<(Vec<u32>, u64)> {
    if b.len() < 16 || b[0] != LIST_VERSION || b[1] as usize != vsize || b[2] > 31 || b[3] != 0 {
        return Err(Error::corrupt(format!("{what}: correction list header")));
    }
    let count = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as u64;
    let nbits = u64::from_le_bytes(b[8..16].try_into().unwrap_or([0; 8]));
    // every correction takes at least two bits (a Rice gap and a gamma code), so the
    // bit count bounds the list before anything is allocated
    if count > n || nbits > (b.len() as u64 - 16) * 8 || count.saturating_mul(2) > nbits {
        return Err(Error::corrupt(format!("{what}: {count} corrections / {nbits} bits do not fit")));
    }
    let rice = b[2] as u32;
    let nbytes = nbits.div_ceil(8) as usize;
    let mut r = BitReader::new(&b[16..16 + nbytes], nbits, what)?;
    let mut vals = &b[16 + nbytes..];
    let mut out = Vec::with_capacity(count as usize * 4);
    let mut prev: i64 = -1;
    let mut exact = 0u64;
    for _ in 0..count {
        let mut q = 0u64;
        while r.bit()? {
            q += 1;
            if q == 32 {
                break;
            }
        }
        let g = if q == 32 { r.bits(32)? } else { (q << rice) | r.bits(rice)? };
        let idx = prev + 1 + g as i64;
        if idx as u64 >= n {
            return Err(Error::corrupt(format!("{what}: correction index {idx} outside {n} values")));
        }
        prev = idx;
        let sym = r.gamma()? - 1;
        let k: i64 = if sym == 0 {
            0
        } else {
            let m = (sym - 1) / 2 + 1;
            if (sym - 1) % 2 == 1 {
                -(m as i64)
            } else {
                m as i64
            }
        };
        if k.unsigned_abs() as f64 >= KMAX {
            return Err(Error::corrupt(format!("{what}: correction code {k} out of range")));
        }
        let (lo, hi) = if k == 0 {
            if vals.len() < vsize {
                return Err(Error::corrupt(format!("{what}: exact values truncated")));
            }
            let lo = u32::from_le_bytes([vals[0], vals[1], vals[2], vals[3]]);
            let hi = if vsize == 8 { u32::from_le_bytes([vals[4], vals[5], vals[6], vals[7]]) } else { 0 };
            vals = &vals[vsize..];
            exact += 1;
            (lo, hi)
        } else {
            (0, 0)
        };
        out.extend_from_slice(&[idx as u32, k as i32 as u32, lo, hi]);
    }
    if r.remaining() != 0 || !vals.is_empty() {
        return Err(Error::corrupt(format!("{what}: trailing bytes after {count} corrections")));
    }
    Ok((out, exact))
}

impl<R: Reconstructor> Stage for OutlierCorrectStage<R> {
    fn type_id(&self) -> u16 {
        R::TYPE_ID
    }
    fn type_name(&self) -> &'static str {
        R::TYPE_NAME
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("field", self.dtype), PortSpec::new("codes", self.code_type)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("correction", DataType::U8), PortSpec::new("codes", self.code_type)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        match (port, dtype) {
            (0, DataType::F32 | DataType::F64) => self.dtype = dtype,
            (1, DataType::I32 | DataType::U32) => self.code_type = dtype,
            _ => return Err(Error::Pipeline(format!("{} input {port} cannot take {dtype}", R::TYPE_NAME))),
        }
        Ok(())
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn override_bound(&mut self, eb: ErrorBound) -> bool {
        self.bound = eb;
        true
    }
    fn configured_bound(&self) -> Option<ErrorBound> {
        Some(self.bound)
    }
    fn wants_field_range(&self) -> bool {
        self.bound.mode != ErrorMode::Abs
    }
    fn set_field_range(&mut self, range: Option<(f64, f64)>) {
        self.field_range = Some(range);
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0) / self.dtype.size() as u64;
        vec![16 + n * 16, n * 4]
    }
    fn graph_compatible(&self) -> bool {
        self.bound.mode == ErrorMode::Abs
    }
    fn needs_f64(&self) -> bool {
        true
    }
    fn loop_iterations(&self) -> u64 {
        // the trial reconstruction runs the inverse transform
        self.dims.or(self.resolved.map(|r| r.dims)).map_or(0, wavelet::lift_iterations)
    }
    fn field_dims(&self) -> Option<Dims> {
        self.resolved.map(|r| r.dims)
    }

    fn prepare_forward(&mut self, _r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<()> {
        let (_, len) = inputs.first().ok_or_else(|| Error::Pipeline(format!("{}: no field", R::TYPE_NAME)))?.device("field")?;
        let sz = self.dtype.size() as u64;
        let n = len / sz;
        if n == 0 || len % sz != 0 {
            return Err(Error::Input(format!("{}: {len} bytes are not whole {} values", R::TYPE_NAME, self.dtype)));
        }
        let range = match (self.bound.mode, self.field_range) {
            (ErrorMode::Abs, _) => None,
            (_, Some(rg)) => rg,
            (_, None) => return Err(Error::Pipeline(format!("{}: NOA/REL needs the field range from the pipeline", R::TYPE_NAME))),
        };
        self.resolved = Some(self.resolve(n, range));
        Ok(())
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let [field, codes] = inputs else {
            return Err(Error::Pipeline(format!("{}: needs [field, codes]", R::TYPE_NAME)));
        };
        let (field, len) = field.device("field")?;
        let (codes_s, clen) = codes.device("codes")?;
        let n = len / self.dtype.size() as u64;
        let res = self.resolved.filter(|x| x.n == n).ok_or_else(|| Error::Pipeline(format!("{}: prepare_forward first", R::TYPE_NAME)))?;
        if clen != n * 4 {
            return Err(Error::Pipeline(format!("{}: {clen} code bytes for {n} values", R::TYPE_NAME)));
        }
        wavelet::check_size(r, n)?;
        let work = self.record_trial(r, &res, codes_s, n)?;
        let f64v = self.dtype == DataType::F64;
        let raw = BufSlice::new(field.buf, field.offset, len.next_multiple_of(4));
        let flags = r.temp(n * 4)?;
        let pos = r.temp(n * 4)?;
        let (fw, pw) = (BufSlice::new(flags, 0, n * 4), BufSlice::new(pos, 0, n * 4));
        let cap = n;
        let p = self.params(&res, n, 0, cap);
        let wg = workgroup_size(Kernel::CorrectFlag)? as u64;
        r.dispatch_bytes(Kernel::CorrectFlag, f64v, &p, &[raw, raw, work, fw], n.div_ceil(wg))?;
        record_exclusive_scan(r, fw, pw, n)?;
        let entries = r.alloc(cap * 16)?;
        let totals = r.alloc(16)?;
        let ew = BufSlice::new(entries, 0, cap * 16);
        let tw = BufSlice::new(totals, 0, 4);
        r.dispatch_bytes(Kernel::CorrectScatter, f64v, &p, &[raw, raw, work, fw, pw, ew, tw], n.div_ceil(wg))?;
        let t = r.readback(tw);
        Ok(vec![
            PortData::Deferred { parts: vec![Part { slice: ew, len: PartLen::Readback { index: t, word: 0, scale: 16 } }] },
            PortData::Device { slice: codes_s, len: clen, host: None },
        ])
    }

    fn host_coded(&self, port: usize) -> bool {
        port == 0
    }
    fn host_encode(&mut self, port: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        if port != 0 {
            return Ok(bytes);
        }
        let res = self.resolved.ok_or_else(|| Error::Pipeline(format!("{}: no run", R::TYPE_NAME)))?;
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        self.outliers = Some(words.len() as u64 / 4);
        self.exact = Some(words.chunks_exact(4).filter(|e| e[1] == 0).count() as u64);
        encode_list(&words, res.n, self.dtype.size())
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let res = self.resolved.ok_or_else(|| Error::corrupt(format!("{}: no stored configuration", R::TYPE_NAME)))?;
        let n = res.n;
        let [list, codes] = inputs else {
            return Err(Error::Pipeline(format!("{} inverse: needs [correction, codes]", R::TYPE_NAME)));
        };
        let (codes_s, clen) = codes.device("codes")?;
        if clen != n * 4 {
            return Err(Error::corrupt(format!("{}: {clen} code bytes for {n} values", R::TYPE_NAME)));
        }
        let (_, _, host) = list.host_bytes(r, "correction list")?;
        let (entries, exact) = decode_list(&host, n, self.dtype.size(), "correction list")?;
        let count = entries.len() as u64 / 4;
        self.outliers = Some(count);
        self.exact = Some(exact);
        wavelet::check_size(r, n)?;
        let work = self.record_trial(r, &res, codes_s, n)?;
        let out = wavelet::record_store(r, self.dtype, work, n)?;
        if count > 0 {
            let eb = r.alloc(count * 16)?;
            r.backend.write_buffer(eb, 0, bytemuck::cast_slice(&entries))?;
            let ew = BufSlice::new(eb, 0, count * 16);
            let p = self.params(&res, n, count, count);
            let wg = workgroup_size(Kernel::CorrectApply)? as u64;
            r.dispatch_bytes(Kernel::CorrectApply, self.dtype == DataType::F64, &p, &[ew, ew, work, out], count.div_ceil(wg))?;
        }
        Ok(vec![
            PortData::Device { slice: out, len: n * self.dtype.size() as u64, host: None },
            PortData::Device { slice: codes_s, len: clen, host: None },
        ])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let Some(res) = &self.resolved else {
            return Vec::new();
        };
        let mut b =
            vec![CONFIG_VERSION, self.dtype as u8, self.bound.mode.code(), self.zigzag() as u8 | (res.exact as u8) << 1, 0, 0, 0, 0];
        res.write(self.bound.value, &mut b);
        b.extend_from_slice(&self.outliers.unwrap_or(0).to_le_bytes());
        b.extend_from_slice(&self.exact.unwrap_or(0).to_le_bytes());
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("data_type".to_string(), self.dtype.to_string()),
            ("code_type".to_string(), self.code_type.to_string()),
            ("error_bound".to_string(), format!("{:e}", self.bound.value)),
            ("error_bound_mode".to_string(), self.bound.mode.to_string()),
        ];
        if let Some(res) = &self.resolved {
            v.extend(res.describe(self.dtype));
        }
        if let Some(o) = self.outliers {
            v.push(("corrections".into(), o.to_string()));
        }
        v
    }

    fn run_notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(o) = self.outliers {
            v.push(format!("outliers={o}"));
        }
        if let Some(e) = self.exact {
            v.push(format!("exact_values={e}"));
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
