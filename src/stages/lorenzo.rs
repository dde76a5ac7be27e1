//! The Lorenzo stage (StageType 12): lossless first-order Lorenzo prediction of integer
//! codes over the pipeline's dims, one implementation for 1-D, 2-D and 3-D. The field
//! is cut into tiles of `block_size` along every used dimension; the predictor resets
//! at tile edges (neighbours outside count as 0). With `centering`, every tile is
//! predicted relative to its head value, so the block-head residual is 0 instead of
//! the absolute level; the heads go to the `means` output (one int32 per tile), which
//! is archived or can be wired into further stages. The inverse is the tile-wise
//! prefix sum along x, then y, then z on the device. Arithmetic wraps modulo 2^32.
//!
//! Why the head value rather than the arithmetic mean (FZGPUModules' choice): the head
//! makes the block-head residual exactly 0 (the mean leaves up to half the block's
//! range there, which can set the block's width), needs no reduction, and needs no
//! 64-bit division, which WGSL lacks.

use super::{ids, PortData, PortSpec, RunOptions, Stage};
use crate::error::{Error, Result};
use crate::kernels::params::LorenzoParams;
use crate::kernels::{workgroup_size, Kernel};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims};

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 32;

/// The Lorenzo stage.
#[derive(Debug, Clone)]
pub struct LorenzoStage {
    dtype: DataType,
    block_size: u32,
    centering: bool,
    dims: Option<Dims>,
}

impl LorenzoStage {
    pub fn new(dtype: DataType, block_size: u32, centering: bool) -> Result<Self> {
        if !matches!(dtype, DataType::I32 | DataType::U32) {
            return Err(Error::config(format!("Lorenzo data_type must be int32 or uint32, got {dtype}")));
        }
        if !(1..=4096).contains(&block_size) {
            return Err(Error::config(format!("Lorenzo block_size must be in 1..=4096, got {block_size}")));
        }
        Ok(LorenzoStage { dtype, block_size, centering, dims: None })
    }

    pub fn from_toml(t: &mut Keys) -> Result<Self> {
        let dtype = match t.str("data_type")? {
            Some(s) => DataType::from_toml_name(&s)?,
            None => DataType::I32,
        };
        let bs = t.int("block_size")?.unwrap_or(128);
        let bs = u32::try_from(bs).map_err(|_| Error::config(format!("Lorenzo block_size {bs} out of range")))?;
        let centering = t.bool("centering")?.unwrap_or(false);
        Self::new(dtype, bs, centering)
    }

    fn params(&self, d: Dims) -> Result<LorenzoParams> {
        let bs = self.block_size;
        let rank = d.rank();
        let (tx, ty, tz) = (bs, if rank >= 2 { bs } else { 1 }, if rank >= 3 { bs } else { 1 });
        let u = |v: u64| u32::try_from(v).map_err(|_| Error::TooLarge { what: "Lorenzo dim".into(), actual: v, limit: u32::MAX as u64 });
        let (nx, ny, nz) = (u(d.x)?, u(d.y)?, u(d.z)?);
        Ok(LorenzoParams {
            nx,
            ny,
            nz,
            centering: self.centering as u32,
            tx,
            ty,
            tz,
            ntx: nx.div_ceil(tx),
            nty: ny.div_ceil(ty),
            ntz: nz.div_ceil(tz),
            ..Default::default()
        })
    }

    fn tiles(p: &LorenzoParams) -> u64 {
        p.ntx as u64 * p.nty as u64 * p.ntz as u64
    }

    fn check_size(&self, r: &Recorder, n: u64) -> Result<()> {
        let limit = r.backend.info().max_binding_bytes.min(u32::MAX as u64);
        if n * 4 > limit {
            return Err(Error::TooLarge {
                what: "Lorenzo field (one storage binding; chunked Lorenzo is not implemented yet)".into(),
                actual: n * 4,
                limit,
            });
        }
        Ok(())
    }

    pub fn from_config(version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[2] > 1 || c[3] != 0 {
            return Err(Error::corrupt("Lorenzo config"));
        }
        let dtype = DataType::from_code(c[1]).ok_or_else(|| Error::corrupt("Lorenzo data type"))?;
        let bs = u32::from_le_bytes(c[4..8].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let dims = Dims::new(u64_at(8), u64_at(16), u64_at(24)).map_err(|_| Error::corrupt("Lorenzo dims"))?;
        if dims.len() > u32::MAX as u64 {
            return Err(Error::corrupt("Lorenzo dims too large"));
        }
        let mut s = Self::new(dtype, bs, c[2] == 1).map_err(|e| Error::corrupt(format!("Lorenzo config: {e}")))?;
        s.dims = Some(dims);
        Ok(s)
    }
}

impl Stage for LorenzoStage {
    fn type_id(&self) -> u16 {
        ids::LORENZO
    }
    fn type_name(&self) -> &'static str {
        "Lorenzo"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("codes", self.dtype)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        let mut v = vec![PortSpec::new("residuals", self.dtype)];
        if self.centering {
            v.push(PortSpec::new("means", self.dtype));
        }
        v
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        let n = input_bytes.first().copied().unwrap_or(0);
        let mut v = vec![n];
        if self.centering {
            v.push(n);
        }
        v
    }

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData>> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("Lorenzo: no input".into()))?.device("Lorenzo input")?;
        let n = len / 4;
        let dims = self
            .dims
            .filter(|d| d.len() == n)
            .ok_or_else(|| Error::Input(format!("Lorenzo: {n} codes do not match the pipeline dims {:?}", self.dims)))?;
        self.check_size(r, n)?;
        let p = self.params(dims)?;
        let tiles = Self::tiles(&p);
        let res = r.alloc(n * 4)?;
        let means = r.alloc(4 * tiles)?;
        let wg = workgroup_size(Kernel::LorenzoForward)? as u64;
        r.dispatch(
            Kernel::LorenzoForward,
            false,
            &p,
            &[BufSlice::new(input.buf, input.offset, n * 4), BufSlice::new(res, 0, n * 4), BufSlice::new(means, 0, 4 * tiles)],
            n.div_ceil(wg),
        )?;
        let mut out = vec![PortData::Device { slice: BufSlice::new(res, 0, n * 4), len: n * 4, host: None }];
        if self.centering {
            out.push(PortData::Device { slice: BufSlice::new(means, 0, 4 * tiles), len: 4 * tiles, host: None });
        }
        Ok(out)
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData>> {
        let dims = self.dims.ok_or_else(|| Error::corrupt("Lorenzo: no stored dims"))?;
        let n = dims.len();
        let (res, len) = inputs.first().ok_or_else(|| Error::Pipeline("Lorenzo inverse: no residuals".into()))?.device("residuals")?;
        if len != n * 4 {
            return Err(Error::corrupt(format!("Lorenzo: {len} residual bytes for dims {dims}")));
        }
        self.check_size(r, n)?;
        let mut p = self.params(dims)?;
        let tiles = Self::tiles(&p);
        let means = if self.centering {
            let (m, mlen) = inputs.get(1).ok_or_else(|| Error::corrupt("Lorenzo: means missing"))?.device("means")?;
            if mlen != 4 * tiles {
                return Err(Error::corrupt(format!("Lorenzo: {mlen} bytes of means for {tiles} tiles")));
            }
            BufSlice::new(m.buf, m.offset, 4 * tiles)
        } else {
            BufSlice::new(r.temp(16)?, 0, 16)
        };
        let out = r.alloc(n * 4)?;
        let out_w = BufSlice::new(out, 0, n * 4);
        r.copy(BufSlice::new(res.buf, res.offset, n * 4), out_w);
        p.nlines = p.ntx * p.ny * p.nz;
        r.dispatch(Kernel::LorenzoScanX, false, &p, &[means, out_w], p.nlines as u64)?;
        let wg = workgroup_size(Kernel::LorenzoScanAxis)? as u64;
        if p.ny > 1 {
            p.axis = 1;
            p.nlines = p.nx * p.nty * p.nz;
            r.dispatch(Kernel::LorenzoScanAxis, false, &p, &[out_w], (p.nlines as u64).div_ceil(wg))?;
        }
        if p.nz > 1 {
            p.axis = 2;
            p.nlines = p.nx * p.ny * p.ntz;
            r.dispatch(Kernel::LorenzoScanAxis, false, &p, &[out_w], (p.nlines as u64).div_ceil(wg))?;
        }
        Ok(vec![PortData::Device { slice: out_w, len: n * 4, host: None }])
    }

    fn config_bytes(&self) -> Vec<u8> {
        let d = self.dims.unwrap_or(Dims { x: 1, y: 1, z: 1 });
        let mut b = vec![CONFIG_VERSION, self.dtype as u8, self.centering as u8, 0];
        b.extend_from_slice(&self.block_size.to_le_bytes());
        for v in [d.x, d.y, d.z] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("data_type".to_string(), self.dtype.to_string()),
            ("block_size".to_string(), self.block_size.to_string()),
            ("centering".to_string(), self.centering.to_string()),
        ];
        if let Some(d) = self.dims {
            v.push(("dims".into(), d.to_string()));
        }
        v
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
