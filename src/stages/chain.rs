//! Fusion of Quantizer -> Lorenzo -> AdaptiveBitpack: the forward chain as the fused
//! `chain_width` / `chain_pack` kernels (codes and residuals are never stored), plus
//! the Quantizer's outlier compaction. The outputs of all three stages are the very
//! bytes the staged kernels write (tests/fusion.rs), so the archive does not depend on
//! the path. The inverse is `chain_unpack` (unpack, Lorenzo sums in 1-D/2-D/3-D and
//! dequantization in one kernel) followed by the Quantizer's outlier patch.

use super::bitpack::{BitpackStage, ChunkWindows, PackBuffers};
use super::lorenzo::LorenzoStage;
use super::quantizer::QuantizerStage;
use super::{Part, PartLen, PortData, RunOptions, Stage};
use crate::error::{Error, Result};
use crate::kernels::params::{ChainParams32, ChainParams64, LorenzoParams};
use crate::kernels::scan::record_exclusive_scan;
use crate::kernels::{workgroup_size, Kernel};
use crate::recording::{BufSlice, Recorder};
use crate::types::DataType;

/// Why a chain cannot be fused, or None when it can.
pub fn ineligible(q: &QuantizerStage, l: &LorenzoStage, b: &BitpackStage, r: &Recorder, n: u64, opts: &RunOptions) -> Option<String> {
    let sz = if q.f64v_pub() { 8 } else { 4 };
    let mut limit = r.backend.info().max_binding_bytes.min((1u64 << 31) - 256);
    if let Some(m) = opts.max_chunk_bytes {
        limit = limit.min(m);
    }
    if n * sz > limit {
        return Some(format!("the field ({} bytes) exceeds one binding ({limit} bytes)", n * sz));
    }
    if l.dims.is_none_or(|d| d.len() != n) {
        return Some("Lorenzo dims do not match the field".into());
    }
    if !matches!(b.dtype, DataType::I32 | DataType::U32) {
        return Some("AdaptiveBitpack input type".into());
    }
    None
}

/// What [`record_forward`] recorded.
pub struct FusedForward {
    /// The outputs of (quantizer, lorenzo, bitpack).
    pub ports: [Vec<PortData<'static>>; 3],
    /// The kernels that run: `chain_encode`, `chain_encode_flat` or `chain_width+chain_pack`.
    pub kernels: &'static str,
    /// `chain_encode`'s walk: rows (2-D) or planes (3-D) per invocation (None without it).
    pub walk: Option<u32>,
}

/// Record the fused forward chain.
pub fn record_forward(
    q: &mut QuantizerStage,
    l: &mut LorenzoStage,
    b: &mut BitpackStage,
    r: &mut Recorder,
    inputs: &[PortData],
    opts: &RunOptions,
) -> Result<FusedForward> {
    let (input, len) = inputs.first().ok_or_else(|| Error::Pipeline("fused chain: no input".into()))?.device("fused chain input")?;
    let f64v = q.f64v_pub();
    let sz = if f64v { 8 } else { 4 };
    let n = len / sz;
    let res = q.resolved.filter(|r| r.n == n).ok_or_else(|| Error::Pipeline("fused chain: the Quantizer was not prepared".into()))?;
    // Lorenzo geometry and tile heads
    let dims = l.dims.ok_or_else(|| Error::Pipeline("fused chain: Lorenzo dims".into()))?;
    let lp: LorenzoParams = l.params(dims)?;
    let tiles = LorenzoStage::tiles(&lp);
    let means = r.alloc(4 * tiles)?;
    let means_w = BufSlice::new(means, 0, 4 * tiles);
    // AdaptiveBitpack over residuals computed on the fly
    let PackBuffers { g, meta, totals_w, widths, cost, offsets, tidx, mut parts } = b.forward_buffers(r, n, opts)?;
    let data = BufSlice::new(input.buf, input.offset, n * sz);
    let plan = encode_plan(b, &lp, r)?.filter(|_| q.premask_fits(r, n, opts));
    // the one-pass kernel of this geometry (when the plan runs one)
    let one_pass = crate::kernels::chain::encode_kernel(&lp);
    let q_out;
    if let Some((walk, shared_max)) = plan {
        // one pass over the field (chain_encode: residual widths, block bodies in
        // slots, tile heads, the Quantizer's outlier mask and counts), the Quantizer's
        // scan and scatter of its outliers, then per chunk the scan of the block costs
        // and the move of the block bodies to their offsets (chain_compact)
        // whole-field widths and costs: the chunk-sized ones when one chunk holds them all
        let (widths, cost) = if g.cb >= g.nb { (widths, cost) } else { (r.temp(4 * g.nb)?, r.temp(4 * g.nb)?) };
        let bs = b.block_size as u64;
        let slot_bytes = 4 * crate::kernels::chain::slot_words(g.nb, bs);
        let slots = r.temp(slot_bytes)?;
        let groups256 = n.div_ceil(256);
        let counts_at = (8 * groups256).next_multiple_of(64);
        let qmask = r.temp(4 * (counts_at + groups256))?;
        r.clear(BufSlice::new(qmask, 4 * counts_at, 4 * groups256));
        let p = chain_params(q, b, &res, &lp, (n, g.nb, 0, 0), (walk, shared_max as u32, counts_at as u32), f64v);
        let groups = crate::kernels::chain::encode_groups(&lp, walk)?;
        let enc = [
            data,
            data.vec4_view(),
            data,
            BufSlice::new(widths, 0, 4 * g.nb),
            BufSlice::new(cost, 0, 4 * g.nb),
            BufSlice::new(slots, 0, slot_bytes),
            means_w,
            BufSlice::new(qmask, 0, 4 * (counts_at + groups256)),
        ];
        r.dispatch_bytes(one_pass, f64v, &p, &enc, groups)?;
        q.skip_codes = true;
        q.premasked = Some((qmask, 4 * counts_at));
        let out = q.record_forward(r, inputs, opts);
        q.skip_codes = false;
        q.premasked = None;
        q_out = out?;
        let cwg = crate::kernels::workgroup_size(Kernel::ChainCompact)? as u64;
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let bp = crate::kernels::params::BitpackParams {
                n: nk as u32,
                block_size: b.block_size,
                nblocks: nbk as u32,
                zigzag: (b.dtype == DataType::I32) as u32,
                chunk: k as u32,
                ..Default::default()
            };
            let o_w = BufSlice::new(offsets, 0, 4 * nbk);
            record_exclusive_scan(r, BufSlice::new(cost, 4 * b0, 4 * nbk), o_w, nbk)?;
            // chain_compact binds the slots and the payload as vec4 arrays: the payload's
            // window in whole 16-byte pieces (the part read back is its first words, by
            // the chunk's total)
            let pay16 = (nk * 4).next_multiple_of(16);
            let payload = r.alloc(pay16)?;
            let pay_w = BufSlice::new(payload, 0, nk * 4);
            let meta_w = BufSlice::new(meta, b0, nbk.next_multiple_of(4));
            let bind = [
                BufSlice::new(widths, 4 * b0, 4 * nbk),
                o_w,
                // (chunks start at multiples of 256 blocks, so at whole slot groups)
                BufSlice::new(
                    slots,
                    4 * crate::kernels::chain::unit_slot(b0 * bs / u64::from(crate::kernels::chain::ENCODE_LANE), 0),
                    4 * crate::kernels::chain::slot_words(nbk, bs),
                ),
                meta_w,
                BufSlice::new(payload, 0, pay16),
                totals_w,
            ];
            r.dispatch(Kernel::ChainCompact, false, &bp, &bind, nbk.div_ceil(cwg))?;
            parts.push(Part { slice: pay_w, len: PartLen::Readback { index: tidx, word: k as usize, scale: 4 } });
        }
    } else {
        // the Quantizer's outlier list, exactly as staged (codes are not stored)
        q.skip_codes = true;
        let out = q.record_forward(r, inputs, opts);
        q.skip_codes = false;
        q_out = out?;
        for k in 0..g.nchunks {
            let (b0, nbk, nk) = g.chunk(k);
            let p = chain_params(q, b, &res, &lp, (nk, nbk, k, b0 * g.bs), (0, 0, 0), f64v);
            let (w_w, c_w, o_w) = (BufSlice::new(widths, 0, 4 * nbk), BufSlice::new(cost, 0, 4 * nbk), BufSlice::new(offsets, 0, 4 * nbk));
            let payload = r.alloc(nk * 4)?;
            let pay_w = BufSlice::new(payload, 0, nk * 4);
            let meta_w = BufSlice::new(meta, b0, nbk.next_multiple_of(4));
            r.dispatch_teams(Kernel::ChainWidth, f64v, &p, &[data, data, w_w, c_w], nbk)?;
            record_exclusive_scan(r, c_w, o_w, nbk)?;
            let per = (crate::kernels::workgroup_size(Kernel::ChainPack)? as u64 / b.block_size as u64).max(1);
            r.dispatch_bytes(Kernel::ChainPack, f64v, &p, &[data, data, w_w, o_w, meta_w, pay_w, totals_w, means_w], nbk.div_ceil(per))?;
            parts.push(Part { slice: pay_w, len: PartLen::Readback { index: tidx, word: k as usize, scale: 4 } });
        }
    }
    let unused = BufSlice::new(r.temp(16)?, 0, 16);
    let mut l_out = vec![PortData::Device { slice: unused, len: 0, host: None }];
    if l.centering {
        l_out.push(PortData::Device { slice: means_w, len: 4 * tiles, host: None });
    }
    let kernels = if plan.is_some() { one_pass.name() } else { "chain_width+chain_pack" };
    Ok(FusedForward { ports: [q_out, l_out, vec![PortData::Deferred { parts }]], kernels, walk: plan.map(|(walk, _)| walk) })
}

/// Most planes per `chain_encode` walk (`FZWGPU_CHAIN_WALK` overrides; the walk also
/// divides the walked tile extent).
const WALK_MAX: u32 = 32;

/// Fewest `chain_encode` invocations the walk length keeps (when the field has them):
/// each walk is sequential, so a small field walked 32 planes at a time leaves a large
/// GPU idle (H200, 512x512: 2.2 GB/s with walks of 32 against 14 GB/s staged,
/// `docs/results/h200-chain2.log`); shorter walks only re-quantize one more row each.
const WALK_MIN_INVOCATIONS: u64 = 1 << 17;

/// Whether the forward chain runs as `chain_encode` + `chain_compact` (one pass over the
/// field) and with which (walk, shared_max), or None for `chain_width` + `chain_pack`
/// (geometries chain_encode does not take, or `FZWGPU_CHAIN_ENCODE=off`). Both write
/// the same bytes.
pub fn encode_plan(b: &BitpackStage, lp: &LorenzoParams, r: &Recorder) -> Result<Option<(u32, bool)>> {
    use crate::kernels::chain::{encode_unfit, max_extent, row_units};
    if crate::envcfg::switch("FZWGPU_CHAIN_ENCODE")? == Some(false) {
        return Ok(None);
    }
    if encode_unfit(b.block_size, max_extent()?).is_some() {
        return Ok(None);
    }
    // the block slots (whole blocks of u32 words) must fit one binding
    let n = lp.nx as u64 * lp.ny as u64 * lp.nz as u64;
    if 4 * crate::kernels::chain::slot_words(n.div_ceil(b.block_size as u64), b.block_size as u64) > r.backend.info().max_binding_bytes {
        return Ok(None);
    }
    // flat units index the rows above the field's first ones as wrapped negatives
    if crate::kernels::chain::encode_flat(lp) && n >= 1 << 31 {
        return Ok(None);
    }
    // planes walked: rows (2-D) or planes at a fixed row (3-D); 1-D walks nothing
    let (t, planes) = if lp.nz > 1 {
        (lp.tz, lp.ny as u64 * lp.nz as u64)
    } else if lp.ny > 1 {
        (lp.ty, lp.ny as u64)
    } else {
        (1, 1)
    };
    let unit_planes = row_units(lp.nx, 1) * planes;
    let want = match crate::envcfg::number("FZWGPU_CHAIN_WALK")? {
        Some(w) => w.min(u32::MAX as u64) as u32,
        None => (unit_planes / WALK_MIN_INVOCATIONS).clamp(1, WALK_MAX as u64) as u32,
    };
    // the largest divisor of the tile extent up to `want` (walks never straddle tiles);
    // one plane where blocks straddle rows
    let walk = if crate::kernels::chain::encode_walk_one(b.block_size, lp) {
        1
    } else {
        (1..=want.min(t).max(1)).rev().find(|d| t % d == 0).unwrap_or(1)
    };
    let info = r.backend.info();
    let shared_max = crate::kernels::chain::needs_workgroup_memory(b.block_size / crate::kernels::chain::ENCODE_LANE, info.subgroups);
    Ok(Some((walk, shared_max)))
}

#[allow(clippy::too_many_arguments)]
fn chain_params(
    q: &QuantizerStage,
    b: &BitpackStage,
    res: &super::bound::Resolved,
    lp: &LorenzoParams,
    (nk, nbk, chunk, base): (u64, u64, u64, u64),
    (walk, shared_max, counts_at): (u32, u32, u32),
    f64v: bool,
) -> Vec<u8> {
    macro_rules! fill {
        ($t:ident, $f:ty, $lim:expr) => {{
            let (eb, inv, step) = res.steps::<$f>();
            let p = $t::default();
            let p = $t {
                n: nk as u32,
                block_size: b.block_size,
                nblocks: nbk as u32,
                chunk: chunk as u32,
                base: base as u32,
                qzigzag: q.zigzag_pub() as u32,
                bzigzag: (b.dtype == DataType::I32) as u32,
                centering: lp.centering,
                nx: lp.nx,
                ny: lp.ny,
                nz: lp.nz,
                tx: lp.tx,
                ty: lp.ty,
                tz: lp.tz,
                ntx: lp.ntx,
                nty: lp.nty,
                tile_base: 0,
                walk,
                shared_max,
                counts_at,
                eb,
                inv,
                step,
                one: 1.0,
                limit: if res.exact { 0.0 } else { $lim },
                ..p
            };
            bytemuck::bytes_of(&p).to_vec()
        }};
    }
    if f64v {
        fill!(ChainParams64, f64, 2147483648.0)
    } else {
        fill!(ChainParams32, f32, 16777216.0)
    }
}

/// Largest Lorenzo tile (values) the fused inverse takes: one workgroup walks a tile in
/// at most three passes of tile / 256 line steps per invocation. Bigger tiles would
/// leave the GPU with too few workgroups, and lavapipe stops an invocation after 65535
/// loop iterations in total.
pub const FUSED_TILE_MAX: u64 = 1 << 21;

fn tile_too_large(l: &LorenzoStage, dims: crate::types::Dims) -> Option<String> {
    let tile = (l.block_size as u64).pow(dims.rank());
    (dims.rank() > 1 && tile > FUSED_TILE_MAX)
        .then(|| format!("Lorenzo tiles of {tile} values exceed the fused inverse's {FUSED_TILE_MAX}"))
}

/// Fewest Lorenzo tiles for which `auto` runs the inverse of a 2-D/3-D chain fused: the
/// fused inverse walks one tile per workgroup, so a field of few large tiles (3-D tiles
/// of 128^3) leaves most of the GPU idle; the staged inverse parallelizes over lines.
/// Measured on an NVIDIA H100 (docs/results/h100-3d.log): 255 MiB of tiled CESM TS
/// (288x192x1210, 60 tiles) decodes at 25 GB/s fused and 61-91 GB/s staged, a
/// 1024x1024x256 cube (128 tiles) at 82 fused and 67-103 staged; a 1 GiB 2-D field
/// (16384 tiles of 128^2) at 172 GB/s fused and 72-116 staged (H200).
pub const FUSED_INVERSE_MIN_TILES: u64 = 1024;

/// Why `auto` stages a fusable forward chain for speed (None: fuse). Measured (H200,
/// 1 GiB, `docs/results/h200-chain.log`): the one-pass `chain_encode` runs 4-8x faster
/// than the staged kernels, centered or not (with flat units, rows not whole units of
/// 32, H200 8190x32768 through CUDA: 4.2x the staged kernels uncentered, 6.6x
/// `chain_width`/`chain_pack` centered; lavapipe 8190x2048: 1.7x / 4.4x the staged
/// kernels; docs/performance-history.md, round 17); the two-pass
/// `chain_width`/`chain_pack` (bitpack blocks chain_encode does not take) is as fast as
/// staged without centering in 1-D and slower in 2-D (12%) and 3-D (35-50%); with
/// centering it wins (1.3-1.9x).
pub fn forward_prefers_staged(l: &LorenzoStage, b: &BitpackStage) -> Option<String> {
    let dims = l.dims?;
    let max = crate::kernels::chain::max_extent().ok()?;
    if l.params(dims).is_ok() && crate::kernels::chain::encode_unfit(b.block_size, max).is_none() {
        return None;
    }
    (!l.centering && dims.rank() > 1)
        .then(|| "staged is faster for uncentered 2-D/3-D chains outside chain_encode's geometries".to_string())
}

/// Fewest `chain_decode` invocations for which `auto` runs a 2-D inverse through it:
/// each invocation walks a whole band of tile rows (128 steps in the presets), so a
/// small 2-D field leaves the GPU idle (H200, 512x512: 2.7 GB/s against 12 GB/s staged;
/// 1 GiB: 938 against 117, `docs/results/h200-chain2.log`). Below it `auto` takes the
/// line-parallel `chain_scan` (H200, 2048x2048: 324 / 269 GB/s through CUDA and
/// 264 / 203 through Vulkan against the staged inverse's 229 / 202 and 180 / 157;
/// 512x512 within -7% .. +12% of it, `docs/results/h200-r16a.log`), or stages where
/// that is switched off.
pub const DECODE_MIN_INVOCATIONS: u64 = 4096;

/// A 2-D/3-D field with fewer than [`DECODE_MIN_INVOCATIONS`] `chain_decode`
/// invocations (1-D invocations do one step each: no walk to wait for).
fn decode_too_small(lp: &LorenzoParams) -> bool {
    lp.ny * lp.nz > 1 && crate::kernels::chain::decode_invocations(lp) < DECODE_MIN_INVOCATIONS
}

/// Why `auto` stages a fusable inverse for speed (None: fuse).
pub fn inverse_prefers_staged(l: &LorenzoStage, b: &BitpackStage) -> Option<String> {
    let dims = l.dims?;
    let lp = l.params(dims).ok()?;
    let form = inverse_kernels(b, &lp, true);
    if form == "chain_decode" {
        // (here only with chain_scan switched off)
        return decode_too_small(&lp).then(|| {
            format!("{} chain_decode invocations: the staged inverse has more parallelism", crate::kernels::chain::decode_invocations(&lp))
        });
    }
    if dims.rank() < 2 || form == "chain_scan" || form == "chain_planes" {
        // (chain_scan parallelizes over lines like the staged inverse, in fewer passes)
        return None;
    }
    let tiles = LorenzoStage::tiles(&lp);
    (tiles < FUSED_INVERSE_MIN_TILES).then(|| format!("{tiles} Lorenzo tiles: the staged inverse has more parallelism"))
}

/// Why the inverse of a chain cannot be fused (the field and its integer sums must fit
/// one binding, and AdaptiveBitpack must have written one chunk), or None.
pub fn inverse_ineligible(q: &QuantizerStage, l: &LorenzoStage, b: &BitpackStage, r: &Recorder, opts: &RunOptions) -> Option<String> {
    let dims = l.dims?;
    let n = dims.len();
    if let Some(why) = tile_too_large(l, dims) {
        return Some(why);
    }
    match b.geometry(r, n, opts) {
        Ok(g) if g.nchunks == 1 => {}
        Ok(g) => return Some(format!("AdaptiveBitpack runs in {} chunks", g.nchunks)),
        Err(e) => return Some(e.to_string()),
    }
    let sz = if q.f64v_pub() { 8 } else { 4 };
    let mut limit = r.backend.info().max_binding_bytes.min((1u64 << 31) - 256);
    if let Some(m) = opts.max_chunk_bytes {
        limit = limit.min(m);
    }
    if n * sz > limit || n * 4 + 256 > limit {
        return Some("the field exceeds one binding".into());
    }
    None
}

/// The kernel of a fused inverse: `chain_decode` (one pass, 1-D and 2-D geometries it
/// takes, unless `FZWGPU_CHAIN_DECODE=off`; with `auto`, 2-D only from
/// [`DECODE_MIN_INVOCATIONS`] invocations), else for 2-D/3-D fields `chain_scan`
/// (line-parallel: `chain_scan_x`, `lorenzo_scan_axis` along y in 3-D,
/// `chain_scan_last`; unless `FZWGPU_CHAIN_SCAN=off`), else `chain_unpack`. `auto`:
/// the fusion policy is `auto` (`force` keeps `chain_decode` wherever it fits).
pub fn inverse_kernels(b: &BitpackStage, lp: &LorenzoParams, auto: bool) -> &'static str {
    let fits = crate::kernels::chain::max_extent().is_ok_and(|max| crate::kernels::chain::decode_unfit(b.block_size, lp, max).is_none());
    let scan = lp.ny * lp.nz > 1 && crate::envcfg::switch("FZWGPU_CHAIN_SCAN").ok().flatten() != Some(false);
    let small = auto && decode_too_small(lp);
    if fits && crate::envcfg::switch("FZWGPU_CHAIN_DECODE").ok().flatten() != Some(false) && !(small && scan) {
        "chain_decode"
    } else if scan && planes_take(b, lp, auto) {
        "chain_planes"
    } else if scan {
        "chain_scan"
    } else {
        "chain_unpack"
    }
}

/// The kernels an inverse of form `form` ([`inverse_kernels`]) runs on this geometry
/// (`one_d`: the backend's `BackendInfo::decode_1d`), in order (the run notes name them beside the form; the Quantizer's outlier patch
/// follows every form).
pub fn inverse_kernel_names(form: &str, lp: &LorenzoParams, one_d: bool) -> String {
    use crate::kernels::chain::{decode_kernel, planes_kernel};
    match form {
        "chain_decode" => decode_kernel(lp, one_d).name().to_string(),
        "chain_planes" => format!("{} + chain_scan_last", planes_kernel(lp).name()),
        "chain_scan" if lp.nz > 1 => "chain_scan_x + lorenzo_scan_axis + chain_scan_last".to_string(),
        "chain_scan" => "chain_scan_x + chain_scan_last".to_string(),
        other => other.to_string(),
    }
}

/// Whether a 3-D inverse runs `chain_planes` (`chain_decode_planes` then
/// `chain_scan_last`): the geometry fits it ([`crate::kernels::chain::planes_unfit`]),
/// and with `auto` the dispatch has at least [`DECODE_MIN_INVOCATIONS`] invocations
/// (each walks a band of tile rows, as `chain_decode`'s in 2-D).
/// `FZWGPU_CHAIN_PLANES`: `off` never, `on` wherever the geometry fits.
fn planes_take(b: &BitpackStage, lp: &LorenzoParams, auto: bool) -> bool {
    use crate::kernels::chain::{max_extent, planes_invocations, planes_unfit};
    let fits = lp.nz > 1 && max_extent().is_ok_and(|max| planes_unfit(b.block_size, lp, max).is_none());
    match crate::envcfg::switch("FZWGPU_CHAIN_PLANES").ok().flatten() {
        Some(on) => on && fits,
        None => fits && !(auto && planes_invocations(lp) < DECODE_MIN_INVOCATIONS),
    }
}

/// Record the fused inverse: [packed (archived), means (if centering), outliers] in,
/// the field out.
#[allow(clippy::too_many_arguments)] // the three fused stages, their ports and the run's state
pub fn record_inverse(
    q: &mut QuantizerStage,
    l: &mut LorenzoStage,
    b: &mut BitpackStage,
    r: &mut Recorder,
    packed: &PortData,
    means: Option<&PortData>,
    outliers: &PortData,
    opts: &RunOptions,
) -> Result<PortData<'static>> {
    let res = q.resolved.ok_or_else(|| Error::corrupt("Quantizer: no stored configuration"))?;
    let dims = l.dims.ok_or_else(|| Error::corrupt("Lorenzo: no stored dims"))?;
    let n = dims.len();
    if b.n != Some(n) || res.n != n {
        return Err(Error::corrupt("chain: stage element counts disagree"));
    }
    let (g, per, slice) = b.validate_input(r, std::slice::from_ref(packed), opts)?;
    if g.nchunks != 1 {
        return Err(Error::Pipeline("fused inverse: more than one AdaptiveBitpack chunk".into()));
    }
    let f64v = q.f64v_pub();
    let sz = if f64v { 8 } else { 4 };
    let lp = l.params(dims)?;
    let ntiles = LorenzoStage::tiles(&lp);
    let means_w = match (l.centering, means) {
        (true, Some(m)) => {
            let (m, mlen) = m.device("means")?;
            if mlen != 4 * ntiles {
                return Err(Error::corrupt(format!("Lorenzo: {mlen} bytes of means for {ntiles} tiles")));
            }
            BufSlice::new(m.buf, m.offset, 4 * ntiles)
        }
        (true, None) => return Err(Error::corrupt("Lorenzo: means missing")),
        (false, _) => BufSlice::new(r.temp(16)?, 0, 16),
    };
    // offsets of the bitpack blocks (one chunk)
    let (c_w, o_w) = (BufSlice::new(r.temp(4 * g.nb)?, 0, 4 * g.nb), BufSlice::new(r.temp(4 * g.nb)?, 0, 4 * g.nb));
    let bp = crate::kernels::params::BitpackParams {
        n: n as u32,
        block_size: b.block_size,
        nblocks: g.nb as u32,
        zigzag: (b.dtype == DataType::I32) as u32,
        ..Default::default()
    };
    let ChunkWindows { meta_w, pay_w, word_base } = BitpackStage::chunk_windows(r, &g, slice, &per, 0, 0);
    BitpackStage::record_offsets(r, &bp, meta_w, c_w, o_w, g.nb)?;
    let word_base = word_base as u32;
    let (qzz, bzz, cen) = (q.zigzag_pub() as u32, (b.dtype == DataType::I32) as u32, l.centering as u32);
    let info = r.backend.info();
    let form = inverse_kernels(b, &lp, opts.fusion == super::FusionPolicy::Auto);
    let shared_scan = crate::kernels::chain::needs_workgroup_memory(lp.tx / crate::kernels::chain::ENCODE_LANE, info.subgroups) as u32;
    macro_rules! unpack_params {
        ($t:ident, $f:ty) => {{
            let (eb, inv, step) = res.steps::<$f>();
            let p = crate::kernels::params::$t {
                n: n as u32,
                block_size: b.block_size,
                ntiles: ntiles as u32,
                nx: lp.nx,
                ny: lp.ny,
                nz: lp.nz,
                tx: lp.tx,
                ty: lp.ty,
                tz: lp.tz,
                ntx: lp.ntx,
                nty: lp.nty,
                word_base,
                qzigzag: qzz,
                bzigzag: bzz,
                centering: cen,
                shared_scan,
                eb,
                inv,
                step,
                one: 1.0,
                ..Default::default()
            };
            bytemuck::bytes_of(&p).to_vec()
        }};
    }
    let pbytes = if f64v { unpack_params!(ChainUnpackParams64, f64) } else { unpack_params!(ChainUnpackParams32, f32) };
    if form == "chain_scan" || form == "chain_planes" {
        // x sums with the residuals extracted on the way in, y (3-D) in place, then the
        // last axis dequantized into the output; chain_planes: the x-y sums of every
        // plane in one pass (chain_decode's 2-D walk), then the z axis
        let sums = r.temp((4 * n).next_multiple_of(16))?;
        let sums_w = BufSlice::new(sums, 0, 4 * n);
        // chain_scan_x and chain_decode_planes read only the integer fields: the
        // float32 layout serves both
        let p32 = unpack_params!(ChainUnpackParams32, f32);
        if form == "chain_planes" {
            // (float32 forms store whole 16-byte pieces: the window padded to 16)
            let planes_w = BufSlice::new(sums, 0, (4 * n).next_multiple_of(16));
            let k = crate::kernels::chain::planes_kernel(&lp);
            r.dispatch_bytes(k, false, &p32, &[meta_w, o_w, pay_w, means_w, planes_w], crate::kernels::chain::planes_groups(&lp)?)?;
        } else {
            let wg = workgroup_size(Kernel::ChainScanX)?;
            let team = crate::kernels::chain::scan_x_team(lp.tx, wg)?;
            let (_, teams) = crate::kernels::chain::scan_x_teams(lp.ntx, lp.ny as u64 * lp.nz as u64, info.coalesce)?;
            r.dispatch_bytes(Kernel::ChainScanX, false, &p32, &[meta_w, o_w, pay_w, means_w, sums_w], teams.div_ceil((wg / team) as u64))?;
        }
        if lp.nz > 1 && form == "chain_scan" {
            let mut py = lp;
            py.axis = 1;
            py.nlines = lp.nx * lp.nty * lp.nz;
            let per = workgroup_size(Kernel::LorenzoScanAxis)? as u64;
            r.dispatch(Kernel::LorenzoScanAxis, false, &py, &[sums_w], (py.nlines as u64).div_ceil(per))?;
        }
        let lines = if lp.nz > 1 { lp.nx as u64 * lp.ny as u64 * lp.nz.div_ceil(lp.tz) as u64 } else { lp.nx as u64 * lp.nty as u64 };
        let out = r.alloc(n * sz)?;
        let out_w = BufSlice::new(out, 0, n * sz);
        let per = workgroup_size(Kernel::ChainScanLast)? as u64;
        r.dispatch_bytes(Kernel::ChainScanLast, f64v, &pbytes, &[sums_w, out_w], lines.div_ceil(per))?;
        q.record_patch(r, out, outliers, opts)?;
        return Ok(PortData::Device { slice: out_w, len: n * sz, host: None });
    }
    if form == "chain_decode" {
        // float32 values are stored 16 bytes at a time: the window is padded to 16
        let out = r.alloc((n * sz).next_multiple_of(16))?;
        let out_w = BufSlice::new(out, 0, (n * sz).next_multiple_of(16));
        let groups = crate::kernels::chain::decode_groups(&lp)?;
        let k = crate::kernels::chain::decode_kernel(&lp, info.decode_1d());
        r.dispatch_bytes(k, f64v, &pbytes, &[meta_w, o_w, pay_w, means_w, out_w], groups)?;
        q.record_patch(r, out, outliers, opts)?;
        return Ok(PortData::Device { slice: BufSlice::new(out, 0, n * sz), len: n * sz, host: None });
    }
    let out = r.alloc(n * sz)?;
    let out_w = BufSlice::new(out, 0, n * sz);
    // integer sums of finished rows, read back by 2-D and 3-D tiles
    let scratch_bytes = if dims.rank() > 1 { 4 * n } else { 16 };
    let scratch_w = BufSlice::new(r.temp(scratch_bytes)?, 0, scratch_bytes);
    r.dispatch_bytes(Kernel::ChainUnpack, f64v, &pbytes, &[meta_w, o_w, pay_w, means_w, out_w, scratch_w], ntiles)?;
    q.record_patch(r, out, outliers, opts)?;
    Ok(PortData::Device { slice: out_w, len: n * sz, host: None })
}

/// Which path each Quantizer -> Lorenzo -> AdaptiveBitpack chain of an archive takes
/// under `fusion = auto` (for `fzwgpu info`): the archive bytes are the same either way.
pub fn describe_archive_chains(stages: &[Box<dyn super::Stage>], infos: &[crate::format::fzm::StageInfo]) -> Vec<String> {
    let n = stages.len();
    let consumers_of = |id: u16| -> Vec<usize> { (0..n).filter(|&s| infos[s].inputs.contains(&id)).collect() };
    let mut out = Vec::new();
    for qi in 0..n {
        if stages[qi].as_any().downcast_ref::<QuantizerStage>().is_none() {
            continue;
        }
        let [li] = consumers_of(infos[qi].outputs[0])[..] else { continue };
        let Some(l) = stages[li].as_any().downcast_ref::<LorenzoStage>() else { continue };
        let [bi] = consumers_of(infos[li].outputs[0])[..] else { continue };
        if stages[bi].as_any().downcast_ref::<BitpackStage>().is_none() {
            continue;
        }
        let names = format!("{}+{}+{}", infos[qi].name, infos[li].name, infos[bi].name);
        let b = stages[bi].as_any().downcast_ref::<BitpackStage>();
        let lp = l.dims.and_then(|d| l.params(d).ok());
        let inverse = match (l.dims, lp, b) {
            (Some(d), Some(lp), Some(b)) => match tile_too_large(l, d).or_else(|| inverse_prefers_staged(l, b)) {
                None => format!("fused ({}) when the field fits one binding", inverse_kernels(b, &lp, true)),
                Some(why) => format!("staged ({why})"),
            },
            _ => "staged (no Lorenzo dims)".to_string(),
        };
        let max = crate::kernels::chain::max_extent().unwrap_or(0);
        let forward = match (lp, b) {
            (Some(_), Some(b)) if forward_prefers_staged(l, b).is_some() => {
                format!("stages it ({})", forward_prefers_staged(l, b).unwrap_or_default())
            }
            (Some(lp), Some(b)) if crate::kernels::chain::encode_unfit(b.block_size, max).is_none() => {
                let k = crate::kernels::chain::encode_kernel(&lp).name();
                format!("fuses it ({k}) when the field fits one binding")
            }
            _ => "fuses it (chain_width/chain_pack) when the field fits one binding".to_string(),
        };
        out.push(format!(
            "{names}: under fusion = auto, compress {forward}; decompress runs {inverse}; fused and staged write the same bytes"
        ));
    }
    out
}
