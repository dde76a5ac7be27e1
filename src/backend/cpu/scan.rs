//! Twins of shaders/scan/*.wgsl.

use super::{params, view, view_mut, Bindings};
use crate::error::{Error, Result};
use crate::kernels::params::ScanParams;
use crate::kernels::scan::TILE;

/// Twin of `scan_reduce`: `partials[t]` = wrapping sum of tile t.
pub fn scan_reduce(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: ScanParams = params(p)?;
    let input: &[u32] = view(b.ro[0], "scan_reduce.input")?;
    let partials: &mut [u32] = view_mut(b.rw[0], "scan_reduce.partials")?;
    let n = (p.n as usize).min(input.len());
    let tiles = p.ntiles.min(groups) as usize;
    if partials.len() < tiles {
        return Err(Error::Device("scan_reduce: partials too small".into()));
    }
    for (t, slot) in partials.iter_mut().enumerate().take(tiles) {
        let lo = (t * TILE).min(n);
        let hi = ((t + 1) * TILE).min(n);
        *slot = input[lo..hi].iter().fold(0u32, |a, &x| a.wrapping_add(x));
    }
    Ok(())
}

/// Twin of `scan_downsweep`: exclusive scan of each tile plus its tile offset.
pub fn scan_downsweep(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: ScanParams = params(p)?;
    let input: &[u32] = view(b.ro[0], "scan_downsweep.input")?;
    let offsets: &[u32] = view(b.ro[1], "scan_downsweep.tile_offsets")?;
    let output: &mut [u32] = view_mut(b.rw[0], "scan_downsweep.output")?;
    let n = (p.n as usize).min(input.len()).min(output.len());
    let tiles = (p.ntiles.min(groups) as usize).min(offsets.len());
    for t in 0..tiles {
        let mut acc = offsets[t];
        for i in (t * TILE).min(n)..((t + 1) * TILE).min(n) {
            output[i] = acc;
            acc = acc.wrapping_add(input[i]);
        }
    }
    Ok(())
}
