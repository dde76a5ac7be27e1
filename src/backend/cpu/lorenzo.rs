//! Twins of shaders/lorenzo/*.wgsl.

use super::{need, params, view, view_mut, Bindings};
use crate::error::{Error, Result};
use crate::kernels::params::LorenzoParams;
use rayon::prelude::*;

fn tile_index(p: &LorenzoParams, x: u32, y: u32, z: u32) -> u32 {
    p.tile_base + ((z / p.tz) * p.nty + (y / p.ty)) * p.ntx + (x / p.tx)
}

/// The Lorenzo residual of element i (twin of lorenzo_forward's per-element work).
pub fn residual(p: &LorenzoParams, codes: &[u32], i: u32) -> u32 {
    let (x, y, z) = (i % p.nx, (i / p.nx) % p.ny, i / (p.nx * p.ny));
    let (x0, y0, z0) = (x - x % p.tx, y - y % p.ty, z - z % p.tz);
    let mu = if p.centering == 1 { codes[((z0 * p.ny + y0) * p.nx + x0) as usize] } else { 0 };
    let nb = |dx: u32, dy: u32, dz: u32| -> u32 {
        if x < x0 + dx || y < y0 + dy || z < z0 + dz {
            0
        } else {
            codes[(((z - dz) * p.ny + (y - dy)) * p.nx + (x - dx)) as usize].wrapping_sub(mu)
        }
    };
    nb(0, 0, 0)
        .wrapping_sub(nb(1, 0, 0))
        .wrapping_sub(nb(0, 1, 0))
        .wrapping_sub(nb(0, 0, 1))
        .wrapping_add(nb(1, 1, 0))
        .wrapping_add(nb(1, 0, 1))
        .wrapping_add(nb(0, 1, 1))
        .wrapping_sub(nb(1, 1, 1))
}

/// Twin of `lorenzo_forward`.
pub fn lorenzo_forward(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: LorenzoParams = params(pb)?;
    let codes: &[u32] = view(b.ro[0], "lorenzo_forward.codes")?;
    let codes = codes.get(p.elem_base as usize..).ok_or_else(|| Error::Device("lorenzo_forward: elem_base".into()))?;
    let n = (p.nx * p.ny * p.nz) as usize;
    let n = n.min(groups as usize * 256);
    need(codes.len() >= (p.nx * p.ny * p.nz) as usize, "lorenzo_forward codes")?;
    let [res, means] = &mut b.rw[..] else { return Err(Error::Device("lorenzo_forward: bindings".into())) };
    let res: &mut [u32] = view_mut(res, "residuals")?;
    let res = res.get_mut(p.elem_base as usize..).ok_or_else(|| Error::Device("lorenzo_forward: elem_base".into()))?;
    let means: &mut [u32] = view_mut(means, "means")?;
    need(res.len() >= n, "lorenzo_forward residuals")?;
    res[..n].par_iter_mut().enumerate().for_each(|(i, r)| *r = residual(&p, codes, i as u32));
    if p.centering == 1 {
        for tz in 0..p.ntz {
            for ty in 0..p.nty {
                for tx in 0..p.ntx {
                    let (x, y, z) = (tx * p.tx, ty * p.ty, tz * p.tz);
                    let i = ((z * p.ny + y) * p.nx + x) as usize;
                    if i < n {
                        let t = tile_index(&p, x, y, z) as usize;
                        *means.get_mut(t).ok_or_else(|| Error::Device("means window".into()))? = codes[i];
                    }
                }
            }
        }
    }
    Ok(())
}

/// Twin of `lorenzo_scan_x`.
pub fn lorenzo_scan_x(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: LorenzoParams = params(pb)?;
    let means: &[u32] = view(b.ro[0], "lorenzo_scan_x.means")?;
    let residuals: &[u32] = view(b.ro[1], "lorenzo_scan_x.residuals")?;
    let values: &mut [u32] = view_mut(b.rw[0], "lorenzo_scan_x.values")?;
    let values = values.get_mut(p.elem_base as usize..).ok_or_else(|| Error::Device("lorenzo_scan_x: elem_base".into()))?;
    let residuals = residuals.get(p.elem_base as usize..).ok_or_else(|| Error::Device("lorenzo_scan_x: elem_base".into()))?;
    // teams of p.team invocations, one row segment each, WG / team segments per group
    let wg = crate::kernels::workgroup_size(crate::kernels::Kernel::LorenzoScanX)?;
    if p.team == 0 || !p.team.is_power_of_two() || p.team > wg {
        return Err(Error::Device(format!("lorenzo_scan_x: team {} (a power of two up to {wg})", p.team)));
    }
    let lines = (p.nlines as u64).min(groups as u64 * (wg / p.team) as u64) as u32;
    let n = (p.nx * p.ny * p.nz) as usize;
    need(values.len() >= n && residuals.len() >= n, "lorenzo_scan_x values")?;
    let rows: Vec<(&mut [u32], &[u32])> = values[..n].chunks_mut(p.nx as usize).zip(residuals[..n].chunks(p.nx as usize)).collect();
    rows.into_par_iter().enumerate().try_for_each(|(row, (r, src))| -> Result<()> {
        let (y, z) = (row as u32 % p.ny, row as u32 / p.ny);
        for sx in 0..p.ntx {
            if row as u32 * p.ntx + sx >= lines {
                continue;
            }
            let (a, e) = ((sx * p.tx) as usize, ((sx + 1) * p.tx).min(p.nx) as usize);
            let mut acc = 0u32;
            if p.centering == 1 && y % p.ty == 0 && z % p.tz == 0 {
                acc = *means.get(tile_index(&p, sx * p.tx, y, z) as usize).ok_or_else(|| Error::Device("means window".into()))?;
            }
            for (v, &d) in r[a..e].iter_mut().zip(&src[a..e]) {
                acc = acc.wrapping_add(d);
                *v = acc;
            }
        }
        Ok(())
    })
}

/// The tile lines of `lorenzo_scan_axis` and `chain_scan_last` (common/axis_scan.wgsl's
/// `axis_line`).
pub(crate) struct AxisGeo {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub ty: u32,
    pub tz: u32,
    pub nty: u32,
}

impl AxisGeo {
    /// Line `l` along y (axis 1) or z (else): (start, stride, length).
    pub fn line(&self, l: u32, axis: u32) -> (u32, u32, u32) {
        let x = l % self.nx;
        if axis == 1 {
            let ty_i = (l / self.nx) % self.nty;
            let z = l / (self.nx * self.nty);
            let y0 = ty_i * self.ty;
            ((z * self.ny + y0) * self.nx + x, self.nx, self.ty.min(self.ny - y0))
        } else {
            let y = (l / self.nx) % self.ny;
            let z0 = (l / (self.nx * self.ny)) * self.tz;
            ((z0 * self.ny + y) * self.nx + x, self.nx * self.ny, self.tz.min(self.nz - z0))
        }
    }
}

/// Twin of `lorenzo_scan_axis`.
pub fn lorenzo_scan_axis(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: LorenzoParams = params(pb)?;
    let values: &mut [u32] = view_mut(b.rw[0], "lorenzo_scan_axis.values")?;
    let values = values.get_mut(p.elem_base as usize..).ok_or_else(|| Error::Device("lorenzo_scan_axis: elem_base".into()))?;
    need(values.len() >= (p.nx * p.ny * p.nz) as usize, "lorenzo_scan_axis values")?;
    let lines = p.nlines.min(groups.saturating_mul(256));
    let g = AxisGeo { nx: p.nx, ny: p.ny, nz: p.nz, ty: p.ty, tz: p.tz, nty: p.nty };
    for l in 0..lines {
        let (start, stride, len) = g.line(l, p.axis);
        let mut acc = 0u32;
        for k in 0..len {
            let i = (start + k * stride) as usize;
            acc = acc.wrapping_add(values[i]);
            values[i] = acc;
        }
    }
    Ok(())
}
