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

/// Twin of `scan_lookback`: the exclusive scan of all `n` values in one dispatch, and
/// the look-back state as the kernel leaves it: the ticket counter at the number of
/// workgroups (`groups`), then per tile its aggregate and inclusive prefix as two
/// `READY | half` words each.
pub fn scan_lookback(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: ScanParams = params(p)?;
    let input: &[u32] = view(b.ro[0], "scan_lookback.input")?;
    let [out_b, state_b] = &mut b.rw[..] else {
        return Err(Error::Device("scan_lookback: expected 2 read-write bindings".into()));
    };
    let output: &mut [u32] = view_mut(out_b, "scan_lookback.output")?;
    let state: &mut [u32] = view_mut(state_b, "scan_lookback.state")?;
    let n = (p.n as usize).min(input.len()).min(output.len());
    let tiles = (p.ntiles.min(groups) as usize).min(state.len().saturating_sub(1) / 4);
    let mut acc = 0u32;
    for t in 0..tiles {
        let lo = (t * TILE).min(n);
        let hi = ((t + 1) * TILE).min(n);
        let prior = acc;
        for i in lo..hi {
            output[i] = acc;
            acc = acc.wrapping_add(input[i]);
        }
        publish_tile(state, t, acc.wrapping_sub(prior), acc)?;
    }
    if let Some(c) = state.first_mut() {
        *c = groups;
    }
    Ok(())
}

/// Tile t's four look-back words as `look_back` (shaders/common/lookback.wgsl) leaves
/// them: its aggregate and inclusive prefix, each as two `READY | 16-bit half` words.
pub(crate) fn publish_tile(state: &mut [u32], t: usize, agg: u32, inclusive: u32) -> Result<()> {
    const READY: u32 = 0x10000;
    let w = state.get_mut(1 + 4 * t..5 + 4 * t).ok_or_else(|| Error::Device("look-back state too small".into()))?;
    for (k, v) in [agg, inclusive].into_iter().enumerate() {
        w[2 * k] = READY | (v & 0xffff);
        w[2 * k + 1] = READY | (v >> 16);
    }
    Ok(())
}
