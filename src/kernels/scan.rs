//! Device-wide exclusive scan of u32 values, two ways (the speed issue's "measure
//! both"): reduce-then-scan, applied recursively on the tile partials (`scan_reduce` /
//! `scan_downsweep`, the default), or one pass with decoupled look-back and fallback
//! (`scan_lookback`). [`set_scan_mode`] or `FZWGPU_SCAN=lookback|reduce` chooses; both
//! give the same offsets, so archives do not depend on it.

use crate::error::Result;
use crate::kernels::params::ScanParams;
use crate::kernels::{reflect, Kernel, Variant};
use crate::recording::{BufSlice, Recorder};

/// How [`record_exclusive_scan`] scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanMode {
    /// `scan_reduce` + `scan_downsweep` (recursive on the tile sums): 2 + 2 log_1024(n)
    /// dispatches, the input read twice.
    ReduceThenScan,
    /// `scan_lookback`: one dispatch after clearing its state, the input read once
    /// (plus fallback reads of tiles whose predecessors had not published). Used only
    /// where the adapter's loop limit provably allows it, else reduce-then-scan.
    LookBack,
}

impl ScanMode {
    pub fn name(self) -> &'static str {
        match self {
            ScanMode::ReduceThenScan => "reduce",
            ScanMode::LookBack => "lookback",
        }
    }
}

impl std::str::FromStr for ScanMode {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "reduce" => Ok(ScanMode::ReduceThenScan),
            "lookback" => Ok(ScanMode::LookBack),
            other => Err(crate::error::Error::config(format!("scan '{other}' (reduce or lookback)"))),
        }
    }
}

static MODE: crate::envcfg::Setting<ScanMode> = crate::envcfg::Setting::new(|| {
    crate::envcfg::get("FZWGPU_SCAN").ok().flatten().and_then(|v| v.parse().ok()).unwrap_or(ScanMode::ReduceThenScan)
});

/// The process-wide scan mode: [`set_scan_mode`]'s, else `FZWGPU_SCAN` ("lookback" or
/// "reduce"), else reduce-then-scan (the measured default).
pub fn scan_mode() -> ScanMode {
    MODE.get()
}

/// Sets the process-wide scan mode (benchmarks and tests).
pub fn set_scan_mode(mode: ScanMode) {
    MODE.set(Some(mode));
}

/// Whether a look-back kernel (common/lookback.wgsl: `scan_lookback`,
/// `szx_encode8_lookback`) over `tiles` tiles stays within an adapter's loop limit
/// (llvmpipe/lavapipe silently cut an invocation's loops after that many iterations
/// in total): the look-back takes at most `tiles` rounds, each with at most SPINS
/// polls (the kernel's, reflected from the WGSL), two workgroup sums (at most 64 loop
/// iterations each with any subgroup size >= 4) and a fallback's loops (at most 64:
/// the encoder's decisions without subgroups), plus the tile's own work.
pub fn lookback_fits(kernel: Kernel, tiles: u64, loop_limit: Option<u64>) -> Result<bool> {
    let Some(limit) = loop_limit else { return Ok(true) };
    let spins = reflect(kernel, Variant::default())?.consts.get("SPINS").copied().unwrap_or(u32::MAX) as u64;
    Ok(tiles.saturating_mul(spins + 1 + 192).saturating_add(256) < limit)
}

/// Elements per scan tile: the kernels' WG * ITEMS, reflected from the WGSL.
pub const TILE: usize = 1024;

/// Checks that [`TILE`] matches the WGSL (WG * ITEMS of both scan kernels).
pub fn tile_from_wgsl() -> Result<usize> {
    let mut tile = 0;
    for k in [Kernel::ScanReduce, Kernel::ScanDownsweep, Kernel::ScanLookback] {
        let r = reflect(k, Variant::default())?;
        let items = r.consts.get("ITEMS").copied().unwrap_or(0) as usize;
        tile = r.workgroup_size[0] as usize * items;
    }
    Ok(tile)
}

/// Record `output[i] = sum(input[..i])` for `n` values (wrapping u32).
pub fn record_exclusive_scan(r: &mut Recorder, input: BufSlice, output: BufSlice, n: u64) -> Result<()> {
    let tiles = n.div_ceil(TILE as u64).max(1);
    if scan_mode() == ScanMode::LookBack && lookback_fits(Kernel::ScanLookback, tiles, r.backend.info().loop_limit)? {
        return record_lookback_scan(r, input, output, n);
    }
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

/// Record the one-pass scan (`scan_lookback`) of `n` values: clear its state (a ticket
/// counter and four words per tile), then one dispatch.
pub fn record_lookback_scan(r: &mut Recorder, input: BufSlice, output: BufSlice, n: u64) -> Result<()> {
    let tiles = n.div_ceil(TILE as u64).max(1);
    let state = lookback_state(r, tiles)?;
    let p = ScanParams { n: n as u32, ntiles: tiles as u32, ..Default::default() };
    r.dispatch(Kernel::ScanLookback, false, &p, &[input, output, state], tiles)
}

/// The cleared state of a look-back kernel over `tiles` tiles (common/lookback.wgsl: a
/// ticket counter and four words per tile), recorded before its dispatch.
pub fn lookback_state(r: &mut Recorder, tiles: u64) -> Result<BufSlice> {
    let bytes = (4 + 16 * tiles).next_multiple_of(16);
    let state = BufSlice::new(r.temp(bytes)?, 0, bytes);
    r.clear(state);
    Ok(state)
}
