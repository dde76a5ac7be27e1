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

/// One slab of whole tiles (see `LorenzoStage::slabs`).
struct Slab {
    p: LorenzoParams,
    win_start: u64,
    win_len: u64,
}

/// The Lorenzo stage.
#[derive(Debug, Clone)]
pub struct LorenzoStage {
    dtype: DataType,
    pub(crate) block_size: u32,
    pub(crate) centering: bool,
    pub(crate) dims: Option<Dims>,
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

    pub(crate) fn params(&self, d: Dims) -> Result<LorenzoParams> {
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

    /// Set `lorenzo_scan_x`'s row segments (`nlines`) and team size (`team`: a power of
    /// two of about tx / 4 invocations, at most the workgroup) and return its workgroup
    /// count.
    pub fn scan_x_setup(p: &mut LorenzoParams) -> Result<u64> {
        let wg = workgroup_size(Kernel::LorenzoScanX)?;
        p.nlines = p.ntx * p.ny * p.nz;
        p.team = crate::kernels::chain::scan_x_team(p.tx, wg)?;
        Ok((p.nlines as u64).div_ceil((wg / p.team) as u64))
    }

    pub(crate) fn tiles(p: &LorenzoParams) -> u64 {
        p.ntx as u64 * p.nty as u64 * p.ntz as u64
    }

    fn check_binding(&self, r: &Recorder, bytes: u64) -> Result<()> {
        let limit = r.backend.info().max_binding_bytes;
        if bytes > limit {
            return Err(Error::TooLarge { what: "Lorenzo tile heads".into(), actual: bytes, limit });
        }
        Ok(())
    }

    /// Slabs of whole tiles along the slowest used dimension, each fitting one binding
    /// (`RunOptions::max_chunk_bytes` lowers the cap). Windows start 256-byte aligned;
    /// `elem_base` and `tile_base` place the slab.
    fn slabs(&self, r: &Recorder, p: &LorenzoParams, opts: &RunOptions) -> Result<Vec<Slab>> {
        let mut limit = r.backend.info().max_binding_bytes.min(u32::MAX as u64 / 4 * 4);
        if let Some(m) = opts.max_chunk_bytes {
            limit = limit.min(m);
        }
        let (nx, ny, nz) = (p.nx as u64, p.ny as u64, p.nz as u64);
        // the slowest used dim, its tile extent, elements per unit along it, tiles per tile-row
        let (ext, tile_full, unit, tiles_per) = if nz > 1 {
            (nz, p.tz as u64, nx * ny, p.ntx as u64 * p.nty as u64)
        } else if ny > 1 {
            (ny, p.ty as u64, nx, p.ntx as u64)
        } else {
            (nx, p.tx as u64, 1, 1)
        };
        let tile = tile_full.min(ext);
        let per_tile_row = tile * unit * 4; // bytes of one row of tiles
        let rows = limit.saturating_sub(256) / per_tile_row;
        if rows == 0 {
            return Err(Error::TooLarge {
                what: "one row of Lorenzo tiles (lower block_size or raise max_chunk_bytes)".into(),
                actual: per_tile_row + 256,
                limit,
            });
        }
        let step = rows * tile; // extent per slab
        let mut out = Vec::new();
        let mut a = 0;
        while a < ext {
            let h = step.min(ext - a);
            let start = a * unit * 4;
            let win_start = start / 256 * 256;
            let mut q = *p;
            match (nz > 1, ny > 1) {
                (true, _) => {
                    q.nz = h as u32;
                    q.ntz = q.nz.div_ceil(q.tz);
                }
                (false, true) => {
                    q.ny = h as u32;
                    q.nty = q.ny.div_ceil(q.ty);
                }
                _ => {
                    q.nx = h as u32;
                    q.ntx = q.nx.div_ceil(q.tx);
                }
            }
            q.elem_base = ((start - win_start) / 4) as u32;
            q.tile_base = ((a / tile_full) * tiles_per) as u32;
            out.push(Slab { p: q, win_start, win_len: start - win_start + h * unit * 4 });
            a += h;
        }
        Ok(out)
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

    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("Lorenzo: no input".into()))?.device("Lorenzo input")?;
        let n = len / 4;
        let dims = self
            .dims
            .filter(|d| d.len() == n)
            .ok_or_else(|| Error::Input(format!("Lorenzo: {n} codes do not match the pipeline dims {:?}", self.dims)))?;
        let p = self.params(dims)?;
        let tiles = Self::tiles(&p);
        let res = r.alloc(n * 4)?;
        let means = r.alloc(4 * tiles)?;
        let means_w = BufSlice::new(means, 0, 4 * tiles);
        self.check_binding(r, 4 * tiles)?;
        let wg = workgroup_size(Kernel::LorenzoForward)? as u64;
        for s in self.slabs(r, &p, opts)? {
            let (inw, outw) = (BufSlice::new(input.buf, input.offset + s.win_start, s.win_len), BufSlice::new(res, s.win_start, s.win_len));
            let n_s = s.p.nx as u64 * s.p.ny as u64 * s.p.nz as u64;
            r.dispatch(Kernel::LorenzoForward, false, &s.p, &[inw, outw, means_w], n_s.div_ceil(wg))?;
        }
        let mut out = vec![PortData::Device { slice: BufSlice::new(res, 0, n * 4), len: n * 4, host: None }];
        if self.centering {
            out.push(PortData::Device { slice: means_w, len: 4 * tiles, host: None });
        }
        Ok(out)
    }

    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let dims = self.dims.ok_or_else(|| Error::corrupt("Lorenzo: no stored dims"))?;
        let n = dims.len();
        let (res, len) = inputs.first().ok_or_else(|| Error::Pipeline("Lorenzo inverse: no residuals".into()))?.device("residuals")?;
        if len != n * 4 {
            return Err(Error::corrupt(format!("Lorenzo: {len} residual bytes for dims {dims}")));
        }
        let p = self.params(dims)?;
        let tiles = Self::tiles(&p);
        self.check_binding(r, 4 * tiles)?;
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
        // lorenzo_scan_x reads the residuals through windows at the slabs' offsets, which
        // must be storage-aligned: an unaligned input is copied first
        let res = if res.offset % r.backend.info().storage_align == 0 {
            res
        } else {
            let tmp = r.temp(n * 4)?;
            r.copy(BufSlice::new(res.buf, res.offset, n * 4), BufSlice::new(tmp, 0, n * 4));
            BufSlice::new(tmp, 0, n * 4)
        };
        let wg = workgroup_size(Kernel::LorenzoScanAxis)? as u64;
        for s in self.slabs(r, &p, opts)? {
            let w = BufSlice::new(out, s.win_start, s.win_len);
            let src = BufSlice::new(res.buf, res.offset + s.win_start, s.win_len);
            let mut q = s.p;
            let groups = Self::scan_x_setup(&mut q)?;
            r.dispatch(Kernel::LorenzoScanX, false, &q, &[means, src, w], groups)?;
            if q.ny > 1 {
                q.axis = 1;
                q.nlines = q.nx * q.nty * q.nz;
                r.dispatch(Kernel::LorenzoScanAxis, false, &q, &[w], (q.nlines as u64).div_ceil(wg))?;
            }
            if q.nz > 1 {
                q.axis = 2;
                q.nlines = q.nx * q.ny * q.ntz;
                r.dispatch(Kernel::LorenzoScanAxis, false, &q, &[w], (q.nlines as u64).div_ceil(wg))?;
            }
        }
        Ok(vec![PortData::Device { slice: BufSlice::new(out, 0, n * 4), len: n * 4, host: None }])
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
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
