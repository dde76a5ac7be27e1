//! Lifting wavelet transforms: CDF 9/7 (StageType CDF97) and CDF 5/3 (CDF53), 1-D,
//! 2-D and 3-D, any dims. The transform runs in float64 whatever the field's type
//! (the coefficients output is float64); NaN, ±Inf and subnormal inputs are read as 0
//! (the outlier-correction stage stores them exactly).
//!
//! Levels (as SPERR chooses them): an axis of length `len` gets
//! `num_xforms(len) = 0` below 8, else `min(6, floor(log2(len / 8)) + 1)` levels, so
//! the coarsest band along it keeps at least 8 samples. A 2-D field uses
//! `num_xforms(min(nx, ny))` levels on x and y; a 3-D field that many on x and y and
//! `num_xforms(nz)` on z; a 1-D field `num_xforms(nx)` on x. Level s transforms every
//! axis that has more than s levels, over the current low-pass box (x, then y, then
//! z); the inverse runs the levels and axes in reverse. Each level of an axis is one
//! `wavelet_lift` dispatch: one workgroup per line, symmetric (whole-sample)
//! extension at both ends, the low half first (ceil(len/2) samples), then the high.
//!
//! Determinism: every operation is one IEEE float64 operation in a fixed order,
//! products multiplied by a 1.0 read from memory before the addition (a contracting
//! driver then computes fma(p, 1, c), the unfused sum), results flushed to +0 below
//! the smallest normal. The CPU twin does the same, so archives and reconstructions are
//! bit-identical across backends (ARCHITECTURE.md).

use super::{ids, PortData, PortSpec, RunOptions, Stage};
use crate::error::{Error, Result};
use crate::kernels::params::{CorrectParams32, CorrectParams64, WaveletParams};
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims};

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 40;

/// A lifting wavelet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wavelet {
    /// CDF 9/7 (four lifting steps, as in JPEG 2000 lossy and SPERR).
    Cdf97,
    /// CDF 5/3 (LeGall; two lifting steps), in floating point.
    Cdf53,
}

/// CDF 9/7 lifting coefficients (Daubechies & Sweldens) and the scaling that makes the
/// low-pass DC gain sqrt(2).
pub const CDF97_ALPHA: f64 = -1.586_134_342_059_924;
pub const CDF97_BETA: f64 = -0.052_980_118_572_961;
pub const CDF97_GAMMA: f64 = 0.882_911_075_530_934;
pub const CDF97_DELTA: f64 = 0.443_506_852_043_971;
pub const CDF97_K: f64 = 1.149_604_398_860_241;

impl Wavelet {
    pub fn type_id(self) -> u16 {
        match self {
            Wavelet::Cdf97 => ids::CDF97,
            Wavelet::Cdf53 => ids::CDF53,
        }
    }
    pub fn type_name(self) -> &'static str {
        match self {
            Wavelet::Cdf97 => "CDF97",
            Wavelet::Cdf53 => "CDF53",
        }
    }

    /// (lifting steps, coefficients, analysis scale of the low and the high samples).
    fn lifting(self) -> (u32, [f64; 4], f64, f64) {
        match self {
            Wavelet::Cdf97 => (4, [CDF97_ALPHA, CDF97_BETA, CDF97_GAMMA, CDF97_DELTA], CDF97_K, 1.0 / CDF97_K),
            Wavelet::Cdf53 => (2, [-0.5, 0.25, 0.0, 0.0], std::f64::consts::SQRT_2, std::f64::consts::FRAC_1_SQRT_2),
        }
    }

    fn params(self, inverse: bool) -> WaveletParams {
        let (nsteps, c, lo, hi) = self.lifting();
        WaveletParams {
            inverse: inverse as u32,
            nsteps,
            c0: c[0],
            c1: c[1],
            c2: c[2],
            c3: c[3],
            scale_lo: lo,
            scale_hi: hi,
            inv_lo: 1.0 / lo,
            inv_hi: 1.0 / hi,
            one: 1.0,
            ..Default::default()
        }
    }
}

/// Levels along an axis of `len` samples (SPERR's rule, see the module docs).
pub fn num_xforms(len: u64) -> u32 {
    if len < 8 {
        0
    } else {
        (len.ilog2() - 2).min(6)
    }
}

/// Levels per axis (x, y, z) for a field of `dims`.
pub fn levels(dims: Dims) -> [u32; 3] {
    match dims.rank() {
        1 => [num_xforms(dims.x.max(dims.y).max(dims.z)), 0, 0],
        2 => {
            let l = num_xforms(dims.x.min(dims.y));
            [l, l, 0]
        }
        _ => {
            let l = num_xforms(dims.x.min(dims.y));
            [l, l, num_xforms(dims.z)]
        }
    }
}

/// The `wavelet_lift` dispatches of a multi-level transform of a field of `dims`, in
/// order: (params, workgroups = lines).
pub fn passes(w: Wavelet, dims: Dims, inverse: bool) -> Result<Vec<(WaveletParams, u64)>> {
    let lv = levels(dims);
    let steps = *lv.iter().max().unwrap_or(&0);
    let n = [dims.x, dims.y, dims.z];
    // extents of the low-pass box before level s
    let extents = |s: u32| -> [u64; 3] {
        let mut e = n;
        for a in 0..3 {
            for _ in 0..s.min(lv[a]) {
                e[a] -= e[a] / 2;
            }
        }
        e
    };
    let u = |v: u64| u32::try_from(v).map_err(|_| Error::TooLarge { what: "wavelet dim".into(), actual: v, limit: u32::MAX as u64 });
    let mut axes = Vec::new();
    for s in 0..steps {
        let e = extents(s);
        #[allow(clippy::needless_range_loop)] // `a` is the axis number pushed below
        for a in 0..3 {
            if s < lv[a] {
                axes.push((a, e));
            }
        }
    }
    if inverse {
        axes.reverse();
    }
    let (nx, nxy) = (dims.x, dims.x * dims.y);
    let mut out = Vec::with_capacity(axes.len());
    for (a, e) in axes {
        let mut p = w.params(inverse);
        let (len, stride, a_len, a_stride, b_stride, nlines) = match a {
            0 => (e[0], 1, e[1], nx, nxy, e[1] * e[2]),
            1 => (e[1], nx, e[0], 1, nxy, e[0] * e[2]),
            _ => (e[2], nxy, e[0], 1, nx, e[0] * e[1]),
        };
        p.len = u(len)?;
        p.stride = u(stride)?;
        p.a_len = u(a_len)?;
        p.a_stride = u(a_stride)?;
        p.b_stride = u(b_stride)?;
        p.nlines = u(nlines)?;
        out.push((p, nlines));
    }
    Ok(out)
}

/// The most loop iterations one `wavelet_lift` invocation runs for a field of `dims`
/// (either direction, either wavelet): a workgroup walks a whole line, each invocation
/// a strided share of it in the copy-in, lifting-step and copy-out loops.
pub fn lift_iterations(dims: Dims) -> u64 {
    let wg = crate::kernels::workgroup_size(Kernel::WaveletLift).unwrap_or(1).max(1) as u64;
    let steps = Wavelet::Cdf97.lifting().0.max(Wavelet::Cdf53.lifting().0) as u64;
    passes(Wavelet::Cdf97, dims, false)
        .map(|ps| {
            ps.iter()
                .map(|(p, _)| {
                    let len = p.len as u64;
                    2 * len.div_ceil(wg) + steps * len.div_ceil(2 * wg) + steps
                })
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(u64::MAX)
}

/// Record the multi-level transform of `work` (float64, dims.len() values) in place;
/// `scratch` holds at least as many float64 values.
pub fn record_transform(r: &mut Recorder, w: Wavelet, dims: Dims, work: BufSlice, scratch: BufSlice, inverse: bool) -> Result<()> {
    for (p, nlines) in passes(w, dims, inverse)? {
        r.dispatch(Kernel::WaveletLift, true, &p, &[work, scratch], nlines)?;
    }
    Ok(())
}

/// Params of the per-value kernels for a field of `dtype` (bound fields zero: load and
/// store use none).
pub(crate) fn value_params(dtype: DataType, n: u64) -> Vec<u8> {
    if dtype == DataType::F64 {
        bytemuck::bytes_of(&CorrectParams64 { n: n as u32, one: 1.0, one64: 1.0, ..Default::default() }).to_vec()
    } else {
        bytemuck::bytes_of(&CorrectParams32 { n: n as u32, one: 1.0, one64: 1.0, ..Default::default() }).to_vec()
    }
}

/// Check that a field of `n` values fits the wavelet kernels: float64 work and scratch
/// buffers of n values in one binding each, indices in u32.
pub(crate) fn check_size(r: &Recorder, n: u64) -> Result<()> {
    let limit = r.backend.info().max_binding_bytes.min(r.backend.info().max_buffer_bytes);
    if n * 16 > limit || n >= u32::MAX as u64 / 4 {
        return Err(Error::TooLarge {
            what: "wavelet field (its float64 work copy and 16-byte correction entries need one binding each; \
                   compress it as a stream of smaller chunks: --chunk-size)"
                .into(),
            actual: n * 16,
            limit,
        });
    }
    Ok(())
}

/// Record `wavelet_load` of a field (type `dtype`) into a new float64 work buffer.
pub(crate) fn record_load(r: &mut Recorder, dtype: DataType, field: BufSlice, n: u64) -> Result<BufSlice> {
    let work = r.alloc(n * 8)?;
    let w = BufSlice::new(work, 0, n * 8);
    let raw = BufSlice::new(field.buf, field.offset, (n * dtype.size() as u64).next_multiple_of(4));
    let wg = workgroup_size(Kernel::WaveletLoad)? as u64;
    r.dispatch_bytes(Kernel::WaveletLoad, dtype == DataType::F64, &value_params(dtype, n), &[raw, raw, w], n.div_ceil(wg))?;
    Ok(w)
}

/// Record `wavelet_store` of float64 work values into a new field buffer of `dtype`.
pub(crate) fn record_store(r: &mut Recorder, dtype: DataType, work: BufSlice, n: u64) -> Result<BufSlice> {
    let bytes = n * dtype.size() as u64;
    let out = r.alloc(bytes.next_multiple_of(4))?;
    let o = BufSlice::new(out, 0, bytes.next_multiple_of(4));
    let wg = workgroup_size(Kernel::WaveletStore)? as u64;
    r.dispatch_bytes(Kernel::WaveletStore, dtype == DataType::F64, &value_params(dtype, n), &[work, o], n.div_ceil(wg))?;
    Ok(o)
}

/// The CDF97 / CDF53 transform stage: forward `field -> coeffs` (float64).
#[derive(Debug, Clone)]
pub struct WaveletStage {
    wavelet: Wavelet,
    dtype: DataType,
    dims: Option<Dims>,
    /// Set on decode (and after a forward run).
    n: Option<u64>,
}

impl WaveletStage {
    pub fn new(wavelet: Wavelet, dtype: DataType) -> Result<Self> {
        if !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::config(format!("{} data_type must be float32 or float64, got {dtype}", wavelet.type_name())));
        }
        Ok(WaveletStage { wavelet, dtype, dims: None, n: None })
    }

    pub fn from_toml(wavelet: Wavelet, t: &mut Keys) -> Result<Self> {
        let dtype = match t.str("data_type")? {
            Some(s) => DataType::from_toml_name(&s)?,
            None => DataType::F32,
        };
        Self::new(wavelet, dtype)
    }

    pub fn from_config(wavelet: Wavelet, version: u16, c: &[u8]) -> Result<Self> {
        let name = wavelet.type_name();
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[2..8] != [0; 6] {
            return Err(Error::corrupt(format!("{name} config: version {version}, {} bytes", c.len())));
        }
        let dtype = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::F32 | DataType::F64))
            .ok_or_else(|| Error::corrupt(format!("{name} data type")))?;
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let dims = Dims::new(u64_at(16), u64_at(24), u64_at(32)).map_err(|_| Error::corrupt(format!("{name} dims")))?;
        let n = u64_at(8);
        if dims.len() != n || n >= u32::MAX as u64 / 4 {
            return Err(Error::corrupt(format!("{name}: dims {dims} and {n} values")));
        }
        Ok(WaveletStage { wavelet, dtype, dims: Some(dims), n: Some(n) })
    }

    fn dims_for(&self, n: u64) -> Dims {
        self.dims.filter(|d| d.len() == n).unwrap_or(Dims { x: n, y: 1, z: 1 })
    }
}

impl Stage for WaveletStage {
    fn type_id(&self) -> u16 {
        self.wavelet.type_id()
    }
    fn type_name(&self) -> &'static str {
        self.wavelet.type_name()
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("input", self.dtype)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("coeffs", DataType::F64)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        if port != 0 || !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::Pipeline(format!("{} takes float32 or float64, got {dtype}", self.type_name())));
        }
        self.dtype = dtype;
        Ok(())
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0) / self.dtype.size() as u64;
        vec![n * 8]
    }
    fn needs_f64(&self) -> bool {
        true
    }
    fn loop_iterations(&self) -> u64 {
        self.dims.map_or(0, lift_iterations)
    }
    fn field_dims(&self) -> Option<Dims> {
        self.dims
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline(format!("{}: no input", self.type_name())))?.device("field")?;
        let sz = self.dtype.size() as u64;
        let n = len / sz;
        if n == 0 || len % sz != 0 {
            return Err(Error::Input(format!("{}: {len} bytes are not whole {} values", self.type_name(), self.dtype)));
        }
        check_size(r, n)?;
        let dims = self.dims_for(n);
        self.dims = Some(dims);
        self.n = Some(n);
        let work = record_load(r, self.dtype, input, n)?;
        let scratch = r.temp(n * 8)?;
        record_transform(r, self.wavelet, dims, work, BufSlice::new(scratch, 0, n * 8), false)?;
        Ok(vec![PortData::Device { slice: work, len: n * 8, host: None }])
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let n = self.n.ok_or_else(|| Error::corrupt(format!("{}: no stored configuration", self.type_name())))?;
        let (coeffs, len) =
            inputs.first().ok_or_else(|| Error::Pipeline(format!("{} inverse: no input", self.type_name())))?.device("coeffs")?;
        if len != n * 8 {
            return Err(Error::corrupt(format!("{}: {len} coefficient bytes for {n} values", self.type_name())));
        }
        check_size(r, n)?;
        // work on a copy: the coefficients may be an archive buffer or another stage's
        let work = r.alloc(n * 8)?;
        let w = BufSlice::new(work, 0, n * 8);
        r.copy(BufSlice::new(coeffs.buf, coeffs.offset, n * 8), w);
        let scratch = r.temp(n * 8)?;
        record_transform(r, self.wavelet, self.dims_for(n), w, BufSlice::new(scratch, 0, n * 8), true)?;
        let out = record_store(r, self.dtype, w, n)?;
        Ok(vec![PortData::Device { slice: out, len: n * self.dtype.size() as u64, host: None }])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let (Some(n), Some(d)) = (self.n, self.dims) else {
            return Vec::new();
        };
        let mut b = vec![CONFIG_VERSION, self.dtype as u8, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&n.to_le_bytes());
        for v in [d.x, d.y, d.z] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![("data_type".to_string(), self.dtype.to_string())];
        if let Some(d) = self.dims {
            let l = levels(d);
            v.push(("dims".into(), d.to_string()));
            v.push(("levels".into(), format!("x {} y {} z {}", l[0], l[1], l[2])));
        }
        v
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
