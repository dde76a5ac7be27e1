//! Geometry of `chain_encode` and `chain_decode` (shaders/chain/encode.wgsl,
//! decode.wgsl) shared by the host, which decides whether the kernels take a chain and
//! sizes their dispatches, and the CPU twins.

use crate::error::Result;
use crate::kernels::params::LorenzoParams;

/// Values per invocation of `chain_encode` (32 codes of w bits are w whole words).
pub const ENCODE_LANE: u32 = 32;

/// Units (32 consecutive values, one invocation of `chain_encode`) per interleaved group
/// of the slots (shaders/common/chain_slots.wgsl).
pub const SLOT_GROUP: u64 = 32;

/// Where `chain_encode` puts word `k` of unit `t` (the chunk's values 32 t .. 32 t + 31)
/// and `chain_compact` takes it: the units interleaved in groups of [`SLOT_GROUP`],
/// (t / 32) * 1024 + k * 32 + t % 32, so that the consecutive units of a subgroup store
/// and load their k-th words side by side. The twin of `unit_slot` in
/// shaders/common/chain_slots.wgsl (the kernel tests compare the slots both sides write).
pub fn unit_slot(t: u64, k: u64) -> u64 {
    (t / SLOT_GROUP) * (SLOT_GROUP * u64::from(ENCODE_LANE)) + k * SLOT_GROUP + t % SLOT_GROUP
}

/// Where body word `m` of block `b` (blocks of `bs` values, width `w` > 0) lies in the
/// slots: a body is its units' words one after another (`w` each), so word `m % w` of
/// the block's unit `m / w` ([`unit_slot`]). The twin of `slot_word` in
/// shaders/common/chain_slots.wgsl.
pub fn slot_word(b: u64, m: u64, bs: u64, w: u64) -> u64 {
    let j = m / w;
    unit_slot(b * (bs / u64::from(ENCODE_LANE)) + j, m - j * w)
}

/// Words of the slot buffer of `nb` blocks of `bs` values: their units in whole groups
/// ([`unit_slot`]). A chunk's window (its first block a multiple of [`SLOT_GROUP`], so
/// its first unit too) starts at `unit_slot(b0 * bs / 32, 0)` and takes
/// `slot_words(nbk, bs)`.
pub fn slot_words(nb: u64, bs: u64) -> u64 {
    (nb * (bs / u64::from(ENCODE_LANE))).div_ceil(SLOT_GROUP) * SLOT_GROUP * u64::from(ENCODE_LANE)
}

/// Whether `chain_encode` (or `chain_encode_flat`) takes this AdaptiveBitpack block
/// size (the preconditions at the top of shaders/chain/encode.wgsl; they take any dims
/// and tiles), or why not. `max`: [`max_extent`].
pub fn encode_unfit(block_size: u32, max: u32) -> Option<String> {
    let bs = block_size;
    if !bs.is_power_of_two() || bs < ENCODE_LANE || bs > max {
        return Some(format!("block size {bs} is not a power of two in [{ENCODE_LANE}, {max}]"));
    }
    None
}

/// Whether the forward chain runs `chain_encode_flat` (shaders/chain/encode.wgsl with
/// FLAT: invocations hold flat units, 32 consecutive values of the field wherever they
/// lie, walking one plane) rather than `chain_encode`: tiles, or in 2-D/3-D rows, that
/// are not whole units of 32.
pub fn encode_flat(l: &LorenzoParams) -> bool {
    !l.tx.is_multiple_of(ENCODE_LANE) || (l.ny > 1 || l.nz > 1) && !l.nx.is_multiple_of(ENCODE_LANE)
}

/// The one-pass forward kernel of this geometry: `chain_encode_flat` where
/// [`encode_flat`], else `chain_encode`; their `_3d` forms where nz > 1 (the only forms
/// with a 3-D walk and `plane_d`'s second row: the others quantize one row per step
/// with no loop, and do nothing when dispatched with nz > 1); `chain_encode_1d` for
/// 1-D fields in whole units (one step per invocation, no walk: it does nothing when
/// dispatched with ny or nz > 1).
pub fn encode_kernel(l: &LorenzoParams) -> super::Kernel {
    use super::Kernel as K;
    match (encode_flat(l), l.nz > 1) {
        (false, false) if l.ny == 1 => K::ChainEncode1d,
        (false, false) => K::ChainEncode,
        (true, false) => K::ChainEncodeFlat,
        (false, true) => K::ChainEncode3d,
        (true, true) => K::ChainEncodeFlat3d,
    }
}

/// Why `chain_decode` cannot take tiles of this width (a tile row is whole units of 32
/// values), or None.
fn tiles_unfit(l: &LorenzoParams) -> Option<String> {
    if !l.tx.is_multiple_of(ENCODE_LANE) {
        return Some(format!("Lorenzo tile x extent {} is not a multiple of {ENCODE_LANE}", l.tx));
    }
    None
}

/// The one-pass inverse kernel of a geometry `chain_decode` takes ([`decode_unfit`]):
/// `chain_decode_ragged` where [`decode_ragged`]; for 1-D fields `chain_decode_1d` (no
/// walk over tile rows, no column sums: it does nothing when dispatched with ny > 1)
/// where `one_d` (the backend's `BackendInfo::decode_1d`: the CUDA-tuned variants, H200
/// round 23, CUDA 1-D decompression +7-10%; subgroups, where both forms store by quads,
/// H100 round 30 through Vulkan +9-11%; software adapters, lavapipe 2.0-3.5x),
/// otherwise the walking `chain_decode`, whose walk is one step in 1-D (with 16-byte
/// stores 128 bytes apart the H200's Vulkan driver ran `chain_decode_1d` on
/// `szp_centered` at 595 against 948 GB/s, `docs/results/h200-r23b.log`); 2-D fields
/// `chain_decode`.
pub fn decode_kernel(l: &LorenzoParams, one_d: bool) -> super::Kernel {
    if decode_ragged(l) {
        super::Kernel::ChainDecodeRagged
    } else if l.ny == 1 && l.nz == 1 && one_d {
        super::Kernel::ChainDecode1d
    } else {
        super::Kernel::ChainDecode
    }
}

/// Whether a 2-D inverse runs `chain_decode_ragged` (rows that are not whole units of
/// 32: `chain_decode` with RAGGED in shaders/chain/decode.wgsl) rather than
/// `chain_decode`.
pub fn decode_ragged(l: &LorenzoParams) -> bool {
    l.nz == 1 && l.ny > 1 && !l.nx.is_multiple_of(ENCODE_LANE)
}

/// Whether `chain_encode` must walk one plane at a time. A step of a walk covers, in
/// the field's order, one row per invocation group of a row (2-D: rows `walk` apart)
/// or one whole plane (3-D: the invocations of consecutive rows of a plane are
/// consecutive). So in 2-D rows that are not whole blocks, and in 3-D planes that are
/// not, put a block's invocations in two steps, which only meet when every invocation
/// takes one row (then invocation order is the field's order). In 3-D rows need not be
/// whole blocks: CESM's 288-value rows with `szp_composed`'s blocks of 128 walk.
pub fn encode_walk_one(block_size: u32, l: &LorenzoParams) -> bool {
    let bs = block_size as u64;
    if encode_flat(l) {
        true
    } else if l.nz > 1 {
        !(l.nx as u64 * l.ny as u64).is_multiple_of(bs)
    } else {
        l.ny > 1 && !l.nx.is_multiple_of(block_size)
    }
}

/// Invocations per row of `chain_encode` (align 1) / `chain_decode` (align: a tile row's
/// invocations): the row's 32-value units, padded to a multiple of `align`.
pub fn row_units(nx: u32, align: u32) -> u64 {
    (nx.div_ceil(ENCODE_LANE) as u64).next_multiple_of(align.max(1) as u64)
}

/// Walks of `chain_encode` (rows of `walk` planes each, per row unit).
pub fn encode_walks(l: &LorenzoParams, walk: u32) -> u64 {
    if l.nz > 1 {
        l.ny as u64 * l.nz.div_ceil(walk) as u64
    } else if l.ny > 1 {
        l.ny.div_ceil(walk) as u64
    } else {
        1
    }
}

/// Workgroups of a `chain_encode` dispatch (one invocation per row unit and walk, or
/// per flat unit).
pub fn encode_groups(l: &LorenzoParams, walk: u32) -> Result<u64> {
    let wg = super::workgroup_size(super::Kernel::ChainEncode)? as u64;
    let invocations = if encode_flat(l) {
        (l.nx as u64 * l.ny as u64 * l.nz as u64).div_ceil(ENCODE_LANE as u64)
    } else {
        row_units(l.nx, 1) * encode_walks(l, walk)
    };
    Ok(invocations.div_ceil(wg))
}

/// Invocations of a `chain_decode` dispatch (one per row unit and band of tile rows).
pub fn decode_invocations(l: &LorenzoParams) -> u64 {
    row_units(l.nx, l.tx / ENCODE_LANE) * if l.ny > 1 { l.ny.div_ceil(l.ty) as u64 } else { 1 }
}

/// Whether `chain_decode` takes this geometry (the preconditions at the top of
/// shaders/chain/decode.wgsl), or why not. `max`: [`max_extent`].
pub fn decode_unfit(block_size: u32, l: &LorenzoParams, max: u32) -> Option<String> {
    if l.nz > 1 {
        return Some("3-D fields decode with chain_unpack".into());
    }
    if let Some(why) = encode_unfit(block_size, max).or_else(|| tiles_unfit(l)) {
        return Some(why);
    }
    if !max.is_multiple_of(l.tx) {
        return Some(format!("Lorenzo tile x extent {} does not divide {max}", l.tx));
    }
    None
}

/// Workgroups of a `chain_decode` dispatch.
pub fn decode_groups(l: &LorenzoParams) -> Result<u64> {
    Ok(decode_invocations(l).div_ceil(super::workgroup_size(super::Kernel::ChainDecode)? as u64))
}

/// Whether `chain_decode_planes` takes this geometry (3-D, and per plane what
/// `chain_decode` takes of a 2-D field: [`decode_unfit`]), or why not.
pub fn planes_unfit(block_size: u32, l: &LorenzoParams, max: u32) -> Option<String> {
    if l.nz < 2 {
        return Some("chain_decode_planes takes 3-D fields".into());
    }
    decode_unfit(block_size, &LorenzoParams { nz: 1, ..*l }, max)
}

/// The 3-D kernel that stores the x-y sums of every plane for `chain_scan_last`:
/// `chain_decode_planes_ragged` where rows are not whole units of 32, else
/// `chain_decode_planes`.
pub fn planes_kernel(l: &LorenzoParams) -> super::Kernel {
    if l.nx.is_multiple_of(ENCODE_LANE) {
        super::Kernel::ChainDecodePlanes
    } else {
        super::Kernel::ChainDecodePlanesRagged
    }
}

/// Invocations of a `chain_decode_planes` dispatch: `chain_decode`'s per plane.
pub fn planes_invocations(l: &LorenzoParams) -> u64 {
    decode_invocations(l) * l.nz as u64
}

/// Workgroups of a `chain_decode_planes` dispatch.
pub fn planes_groups(l: &LorenzoParams) -> Result<u64> {
    Ok(planes_invocations(l).div_ceil(super::workgroup_size(super::Kernel::ChainDecodePlanes)? as u64))
}

/// The largest block (and tile x extent) the kernels take: 32 values per invocation,
/// a block's (tile row's) invocations within one workgroup.
pub fn max_extent() -> Result<u32> {
    let wg = super::workgroup_size(super::Kernel::ChainEncode)?.min(super::workgroup_size(super::Kernel::ChainDecode)?);
    Ok(wg * ENCODE_LANE)
}

/// Invocations per row segment of `chain_scan_x` (the power of two at or above
/// tx / RUN, at most the workgroup: the WGSL's `team_log2`, and the host's choice for
/// `lorenzo_scan_x`). RUN, the values per invocation, is reflected from
/// common/segment_scan.wgsl.
pub fn scan_x_team(tx: u32, wg: u32) -> Result<u32> {
    let run = super::kernel_const(super::Kernel::ChainScanX, super::Variant::default(), "RUN")?;
    Ok(tx.div_ceil(run.max(1)).max(1).next_power_of_two().min(wg))
}

/// `chain_scan_x`'s segments per team and teams for a field of `rows` rows (ny * nz)
/// of `ntx` row segments: a team scans min(SEGS, ntx) consecutive segments of one row
/// (SEGS reflected from the WGSL variant: `coalesce`, the backend's
/// `BackendInfo::coalesce`), so a row takes ceil(ntx / that) teams.
pub fn scan_x_teams(ntx: u32, rows: u64, coalesce: bool) -> Result<(u32, u64)> {
    let segs = super::kernel_const(super::Kernel::ChainScanX, super::Variant { coalesce, ..Default::default() }, "SEGS")?;
    let g = segs.max(1).min(ntx.max(1));
    Ok((g, rows * ntx.div_ceil(g) as u64))
}

/// Smallest subgroup the wgpu backend enables subgroup kernels on (`sg_ok` in
/// src/backend/wgpu/mod.rs).
pub const MIN_SUBGROUP: u32 = 8;

/// Whether a reduction or scan over `lanes` consecutive invocations (a block in
/// `chain_encode`, a tile row in `chain_decode`) must go through workgroup memory: no
/// subgroups, or more lanes than the smallest subgroup holds.
pub fn needs_workgroup_memory(lanes: u32, subgroups: bool) -> bool {
    !subgroups || lanes > MIN_SUBGROUP
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(nx: u32, ny: u32, nz: u32) -> LorenzoParams {
        LorenzoParams { nx, ny, nz, ..Default::default() }
    }

    /// One-plane walks only where a step's invocations would split a block: 2-D rows,
    /// 3-D planes (not rows) that are not whole blocks; never in 1-D.
    #[test]
    fn walk_one_where_a_step_splits_a_block() {
        assert!(!encode_walk_one(128, &lp(5003, 1, 1)));
        assert!(!encode_walk_one(128, &lp(256, 131, 1)));
        assert!(encode_walk_one(128, &lp(288, 140, 1)));
        // CESM TS: 288-value rows, 288 x 192 planes of 432 blocks of 128
        assert!(!encode_walk_one(128, &lp(288, 192, 10)));
        assert!(!encode_walk_one(128, &lp(288, 8, 12)));
        assert!(encode_walk_one(128, &lp(288, 19, 5)));
        assert!(encode_walk_one(64, &lp(96, 5, 9)));
        // a plane of one row: as 2-D
        assert!(encode_walk_one(128, &lp(288, 1, 7)));
        // products past u32
        assert!(!encode_walk_one(2048, &lp(1 << 20, 1 << 14, 2)));
        // flat units (rows, or tiles, not whole units of 32) walk one plane
        assert!(encode_walk_one(128, &lp(1000, 37, 1)));
        assert!(encode_walk_one(32, &lp(91, 91, 91)));
    }

    /// Flat units where a row's or a tile's units would not start at multiples of 32;
    /// 1-D rows are the field (any length), and flat groups cover every value once.
    #[test]
    fn flat_units_where_rows_or_tiles_are_ragged() {
        let t = |nx, ny, nz, tx| LorenzoParams { nx, ny, nz, tx, ty: 1, tz: 1, ..Default::default() };
        assert!(!encode_flat(&t(5003, 1, 1, 128)));
        assert!(encode_flat(&t(5003, 1, 1, 100)));
        assert!(!encode_flat(&t(288, 192, 10, 128)));
        assert!(encode_flat(&t(1000, 37, 1, 128)));
        assert!(encode_flat(&t(49, 37, 240, 128)));
        assert!(encode_flat(&t(256, 4, 1, 48)));
        let wg = super::super::workgroup_size(super::super::Kernel::ChainEncode).unwrap() as u64;
        assert_eq!(encode_groups(&t(1000, 37, 1, 128), 1).unwrap(), 37_000u64.div_ceil(32).div_ceil(wg));
    }
}
