//! Device-wide exclusive scan of u32 values (reduce-then-scan, applied recursively on
//! the tile partials), recorded as dispatches of `scan_reduce` / `scan_downsweep`.

use crate::error::Result;
use crate::kernels::params::ScanParams;
use crate::kernels::{reflect, Kernel, Variant};
use crate::recording::{BufSlice, Recorder};

/// Elements per scan tile: the kernels' WG * ITEMS, reflected from the WGSL.
pub const TILE: usize = 1024;

/// Checks that [`TILE`] matches the WGSL (WG * ITEMS of both scan kernels).
pub fn tile_from_wgsl() -> Result<usize> {
    let mut tile = 0;
    for k in [Kernel::ScanReduce, Kernel::ScanDownsweep] {
        let r = reflect(k, Variant::default())?;
        let items = r.consts.get("ITEMS").copied().unwrap_or(0) as usize;
        tile = r.workgroup_size[0] as usize * items;
    }
    Ok(tile)
}

/// Record `output[i] = sum(input[..i])` for `n` values (wrapping u32).
pub fn record_exclusive_scan(r: &mut Recorder, input: BufSlice, output: BufSlice, n: u64) -> Result<()> {
    let tiles = n.div_ceil(TILE as u64).max(1);
    let offsets = if tiles == 1 {
        let z = r.temp(16)?;
        let zs = BufSlice::new(z, 0, 16);
        r.clear(zs);
        zs
    } else {
        let bytes = tiles * 4;
        let partials = BufSlice::new(r.temp(bytes)?, 0, bytes.next_multiple_of(4));
        let scanned = BufSlice::new(r.temp(bytes)?, 0, bytes.next_multiple_of(4));
        let p = ScanParams { n: n as u32, ntiles: tiles as u32, ..Default::default() };
        r.dispatch(Kernel::ScanReduce, false, &p, &[input, partials], tiles)?;
        record_exclusive_scan(r, partials, scanned, tiles)?;
        scanned
    };
    let p = ScanParams { n: n as u32, ntiles: tiles as u32, ..Default::default() };
    r.dispatch(Kernel::ScanDownsweep, false, &p, &[input, offsets, output], tiles)
}
