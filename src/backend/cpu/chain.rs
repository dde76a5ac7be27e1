//! Twins of shaders/chain/*.wgsl: the fused Quantizer -> Lorenzo -> AdaptiveBitpack
//! forward kernels, built from the staged twins' functions so both paths share one
//! definition of every step.

use super::bitpack::{block_words, pack_codes};
use super::lorenzo::residual;
use super::quant::{encode_code, quantize_one};
use super::szx::{QuantP, SzxFloat, SzxP};
use super::{need, params, view, view_mut, view_trunc, Bindings};
use crate::error::{Error, Result};
use crate::kernels::chain::{encode_groups, encode_unfit, max_extent, ENCODE_LANE};
use crate::kernels::params::{ChainParams32, ChainParams64, LorenzoParams};
use crate::kernels::Kernel;
use rayon::prelude::*;

struct ChainP<F> {
    n: u32,
    block_size: u32,
    nblocks: u32,
    chunk: u32,
    base: u32,
    walk: u32,
    bzigzag: bool,
    q: QuantP<F>,
    l: LorenzoParams,
}

macro_rules! chain_p {
    ($c:expr) => {{
        let c = $c;
        ChainP {
            n: c.n,
            block_size: c.block_size,
            nblocks: c.nblocks,
            chunk: c.chunk,
            base: c.base,
            walk: c.walk,
            bzigzag: c.bzigzag == 1,
            q: QuantP {
                codes_off: 0,
                n: 0,
                base: 0,
                zigzag: c.qzigzag,
                count: 0,
                chunk: 0,
                math: SzxP {
                    n: 0,
                    block_size: 1,
                    nblocks: 0,
                    exact: 0,
                    chunk: 0,
                    word_base: 0,
                    eb: c.eb,
                    inv: c.inv,
                    step: c.step,
                    one: c.one,
                    tiny: 0.0,
                    two_maxw: 0.0,
                },
                limit: c.limit,
            },
            l: LorenzoParams {
                nx: c.nx,
                ny: c.ny,
                nz: c.nz,
                centering: c.centering,
                tx: c.tx,
                ty: c.ty,
                tz: c.tz,
                ntx: c.ntx,
                nty: c.nty,
                ntz: c.nz.div_ceil(c.tz),
                tile_base: c.tile_base,
                ..Default::default()
            },
        }
    }};
}

fn chain_params<F: SzxFloat>(pb: &[u8]) -> Result<ChainP<F>> {
    // F decides the variant; the casts below are between identical types
    if F::WT == 2 {
        let c: ChainParams64 = params(pb)?;
        let p = chain_p!(c);
        Ok(unsafe_cast(p))
    } else {
        let c: ChainParams32 = params(pb)?;
        let p = chain_p!(c);
        Ok(unsafe_cast(p))
    }
}

/// ChainP<f32|f64> -> ChainP<F> where F is that very type (checked by size).
fn unsafe_cast<A: SzxFloat, F: SzxFloat>(p: ChainP<A>) -> ChainP<F> {
    let conv = |x: A| F::from_f64(x.to_f64());
    ChainP {
        n: p.n,
        block_size: p.block_size,
        nblocks: p.nblocks,
        chunk: p.chunk,
        base: p.base,
        walk: p.walk,
        bzigzag: p.bzigzag,
        q: QuantP {
            codes_off: 0,
            n: 0,
            base: 0,
            zigzag: p.q.zigzag,
            count: 0,
            chunk: 0,
            math: SzxP {
                n: 0,
                block_size: 1,
                nblocks: 0,
                exact: 0,
                chunk: 0,
                word_base: 0,
                eb: conv(p.q.math.eb),
                inv: conv(p.q.math.inv),
                step: conv(p.q.math.step),
                one: conv(p.q.math.one),
                tiny: F::ZERO,
                two_maxw: F::ZERO,
            },
            limit: conv(p.q.limit),
        },
        l: p.l,
    }
}

fn packed_value(r: u32, zz: bool) -> u32 {
    if zz {
        let q = r as i32;
        ((q << 1) ^ (q >> 31)) as u32
    } else {
        r
    }
}

/// The staged Quantizer's codes for the whole field.
fn all_codes<F: SzxFloat>(p: &ChainP<F>, data_u: &[u32], data_f: &[F]) -> Result<Vec<u32>> {
    Ok(all_quantized(p, data_u, data_f)?.into_iter().map(|q| encode_code(q.unwrap_or(0), p.q.zigzag == 1)).collect())
}

/// The staged Quantizer's result for every value of the field (None: an outlier).
fn all_quantized<F: SzxFloat>(p: &ChainP<F>, data_u: &[u32], data_f: &[F]) -> Result<Vec<Option<i32>>> {
    let total = (p.l.nx as usize) * (p.l.ny as usize) * (p.l.nz as usize);
    need(data_f.len() >= total, "chain input window")?;
    Ok((0..total).into_par_iter().map(|j| quantize_one(data_f[j], F::key_class(data_u, j).1, &p.q)).collect())
}

fn block_len<F>(p: &ChainP<F>, b: u32) -> u32 {
    p.block_size.min(p.n - b * p.block_size)
}

/// Twin of `chain_width`.
pub fn chain_width<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = chain_params::<F>(pb)?;
    let data_u: &[u32] = view(b.ro[0], "chain_width.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[1], "chain_width.data_f")?;
    let codes = all_codes(&p, data_u, data_f)?;
    let nb = super::team_blocks(p.nblocks, groups);
    let res: Vec<(u32, u32)> = (0..nb as u32)
        .into_par_iter()
        .map(|blk| {
            let s = p.base + blk * p.block_size;
            let len = block_len(&p, blk);
            let m = (s..s + len).map(|i| packed_value(residual(&p.l, &codes, i), p.bzigzag)).max().unwrap_or(0);
            let w = 32 - m.leading_zeros();
            (w, block_words(w, len))
        })
        .collect();
    let [widths, cost] = &mut b.rw[..] else { return Err(Error::Device("chain_width: bindings".into())) };
    let widths: &mut [u32] = view_mut(widths, "widths")?;
    let cost: &mut [u32] = view_mut(cost, "cost")?;
    need(widths.len() >= nb && cost.len() >= nb, "chain_width outputs")?;
    for (i, (w, c)) in res.into_iter().enumerate() {
        widths[i] = w;
        cost[i] = c;
    }
    Ok(())
}

/// Twin of `chain_pack`.
pub fn chain_pack<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = chain_params::<F>(pb)?;
    let data_u: &[u32] = view(b.ro[0], "chain_pack.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[1], "chain_pack.data_f")?;
    let widths: &[u32] = view(b.ro[2], "chain_pack.widths")?;
    let offsets: &[u32] = view(b.ro[3], "chain_pack.offsets")?;
    let codes = all_codes(&p, data_u, data_f)?;
    // one workgroup serves max(1, WG / block_size) blocks (shaders/chain/pack.wgsl)
    let per = (crate::kernels::workgroup_size(crate::kernels::Kernel::ChainPack)? / p.block_size.max(1)).max(1);
    let nb = p.nblocks.min(groups.saturating_mul(per)) as usize;
    need(widths.len() >= nb && offsets.len() >= nb, "chain_pack inputs")?;
    let [meta, payload, totals, means] = &mut b.rw[..] else { return Err(Error::Device("chain_pack: bindings".into())) };
    let meta: &mut [u32] = view_mut(meta, "meta")?;
    let payload: &mut [u32] = view_mut(payload, "payload")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    let means: &mut [u32] = view_mut(means, "means")?;
    super::bitpack::write_width_meta(widths, nb, p.nblocks as usize, meta)?;
    if nb == p.nblocks as usize && nb > 0 {
        let l = nb - 1;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? =
            offsets[l] + block_words(widths[l], block_len(&p, l as u32));
    }
    let l = &p.l;
    for blk in 0..nb {
        let len = block_len(&p, blk as u32);
        let nw = block_words(widths[blk], len) as usize;
        let off = offsets[blk] as usize;
        need(off + nw <= payload.len(), "chain_pack payload window")?;
        let s = p.base + blk as u32 * p.block_size;
        pack_codes((s..s + len).map(|i| packed_value(residual(l, &codes, i), p.bzigzag)), widths[blk], &mut payload[off..off + nw]);
        if l.centering == 1 {
            for i in s..s + len {
                let (x, y, z) = (i % l.nx, (i / l.nx) % l.ny, i / (l.nx * l.ny));
                if x % l.tx == 0 && y % l.ty == 0 && z % l.tz == 0 {
                    let t = (l.tile_base + ((z / l.tz) * l.nty + (y / l.ty)) * l.ntx + (x / l.tx)) as usize;
                    *means.get_mut(t).ok_or_else(|| Error::Device("means window".into()))? = codes[i as usize];
                }
            }
        }
    }
    Ok(())
}

/// Twin of `chain_encode`: each block's width and payload words (cost), the slot words
/// the kernel's invocations write (32 codes of w bits are w words, so a block of `len`
/// values gets ceil(len / 32) * w words at word b * block_size, zero padded; none when
/// w = 0), with centering the tile heads, and the Quantizer's outlier mask (word
/// i / 32) and per-256-value counts (added at `counts_at`). Needs a dispatch that
/// covers the field, and the geometry `kernels::chain::encode_kernel` gives this kernel
/// (2-D rows of whole units, nz = 1).
pub fn chain_encode<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    encode_as::<F>(Kernel::ChainEncode, pb, b, groups)
}

/// Twin of `chain_encode_flat` (`chain_encode` built with FLAT: flat units, the
/// geometries `kernels::chain::encode_flat` names, nz = 1): the same outputs.
pub fn chain_encode_flat<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    encode_as::<F>(Kernel::ChainEncodeFlat, pb, b, groups)
}

/// Twin of `chain_encode_3d` (`chain_encode` built with THREE_D: rows of whole units,
/// nz > 1): the same outputs.
pub fn chain_encode_3d<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    encode_as::<F>(Kernel::ChainEncode3d, pb, b, groups)
}

/// Twin of `chain_encode_flat_3d` (FLAT and THREE_D: flat units, nz > 1): the same
/// outputs.
pub fn chain_encode_flat_3d<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    encode_as::<F>(Kernel::ChainEncodeFlat3d, pb, b, groups)
}

/// Twin of `chain_encode_1d` (ONE_D: 1-D fields in whole units, one step per
/// invocation): the same outputs.
pub fn chain_encode_1d<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    encode_as::<F>(Kernel::ChainEncode1d, pb, b, groups)
}

/// The five forms compute the same thing; each takes only the geometries the host
/// gives it (`kernels::chain::encode_kernel`).
fn encode_as<F: SzxFloat>(kernel: Kernel, pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let want = crate::kernels::chain::encode_kernel(&chain_params::<F>(pb)?.l);
    need(want == kernel, &format!("{}: this geometry is {}'s", kernel.name(), want.name()))?;
    encode::<F>(pb, b, groups)
}

fn encode<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = chain_params::<F>(pb)?;
    let counts_at = if F::WT == 2 { params::<ChainParams64>(pb)?.counts_at } else { params::<ChainParams32>(pb)?.counts_at };
    let l = &p.l;
    let strip = max_extent()?;
    need(p.base == 0 && p.n as u64 == l.nx as u64 * l.ny as u64 * l.nz as u64, "chain_encode: one dispatch over the whole field")?;
    if let Some(why) = encode_unfit(p.block_size, strip) {
        return Err(Error::Device(format!("chain_encode: {why}")));
    }
    need(
        p.walk > 0 && (l.nz > 1 && l.tz % p.walk == 0 || l.nz == 1 && (l.ny == 1 || l.ty % p.walk == 0)),
        "chain_encode: walk divides the walked tile extent",
    )?;
    need(
        p.walk == 1 || !crate::kernels::chain::encode_walk_one(p.block_size, l),
        "chain_encode: rows that are not whole blocks walk one plane at a time",
    )?;
    need(groups as u64 >= encode_groups(l, p.walk)?, "chain_encode: the dispatch covers the field")?;
    let data_u: &[u32] = view(b.ro[0], "chain_encode.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[2], "chain_encode.data_f")?;
    let quantized = all_quantized(&p, data_u, data_f)?;
    let codes: Vec<u32> = quantized.iter().map(|q| encode_code(q.unwrap_or(0), p.q.zigzag == 1)).collect();
    let bs = p.block_size;
    let res: Vec<(u32, u32, Vec<u32>)> = (0..p.nblocks)
        .into_par_iter()
        .map(|blk| {
            let s = blk * bs;
            let len = block_len(&p, blk);
            let vals: Vec<u32> = (s..s + len).map(|i| packed_value(residual(l, &codes, i), p.bzigzag)).collect();
            let w = 32 - vals.iter().max().copied().unwrap_or(0).leading_zeros();
            let mut words = vec![0u32; if w == 0 { 0 } else { (len.div_ceil(ENCODE_LANE) * w) as usize }];
            pack_codes(vals.iter().copied(), w, &mut words);
            (w, block_words(w, len), words)
        })
        .collect();
    let [widths, cost, slots, means, qmask] = &mut b.rw[..] else { return Err(Error::Device("chain_encode: bindings".into())) };
    // the Quantizer's outlier mask and (added to) its per-256-value counts
    let qmask: &mut [u32] = view_mut(qmask, "qmask")?;
    let n = p.n as usize;
    let words = n.div_ceil(32);
    let ca = counts_at as usize;
    need(words <= qmask.len() && ca + n.div_ceil(256) <= qmask.len(), "chain_encode qmask")?;
    let bad: Vec<u32> = (0..words)
        .into_par_iter()
        .map(|m| (0..32usize).filter(|j| m * 32 + j < n && quantized[m * 32 + j].is_none()).fold(0u32, |a, j| a | 1 << j))
        .collect();
    for (m, &w) in bad.iter().enumerate() {
        qmask[m] = w;
        qmask[ca + m / 8] = qmask[ca + m / 8].wrapping_add(w.count_ones());
    }
    let widths: &mut [u32] = view_mut(widths, "widths")?;
    let cost: &mut [u32] = view_mut(cost, "cost")?;
    let slots: &mut [u32] = view_mut(slots, "slots")?;
    let means: &mut [u32] = view_mut(means, "means")?;
    let nb = p.nblocks as usize;
    need(widths.len() >= nb && cost.len() >= nb, "chain_encode outputs")?;
    for (blk, (w, c, words)) in res.into_iter().enumerate() {
        widths[blk] = w;
        cost[blk] = c;
        for (m, &word) in words.iter().enumerate() {
            let at = crate::kernels::chain::slot_word(blk as u64, m as u64, bs as u64, w as u64) as usize;
            *slots.get_mut(at).ok_or_else(|| Error::Device("chain_encode slots".into()))? = word;
        }
    }
    if l.centering == 1 {
        for z in (0..l.nz).step_by(l.tz as usize) {
            for y in (0..l.ny).step_by(l.ty as usize) {
                for x in (0..l.nx).step_by(l.tx as usize) {
                    let t = (l.tile_base + ((z / l.tz) * l.nty + (y / l.ty)) * l.ntx + (x / l.tx)) as usize;
                    *means.get_mut(t).ok_or_else(|| Error::Device("means window".into()))? = codes[((z * l.ny + y) * l.nx + x) as usize];
                }
            }
        }
    }
    Ok(())
}

/// Twin of `chain_compact`: each block's `cost` words from its slot to its offset, the
/// chunk's width bytes and its payload total.
pub fn chain_compact(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: crate::kernels::params::BitpackParams = params(pb)?;
    let wg = crate::kernels::workgroup_size(crate::kernels::Kernel::ChainCompact)?;
    let nb = (p.nblocks as u64).min(groups as u64 * wg as u64) as usize;
    let widths: &[u32] = view(b.ro[0], "chain_compact.widths")?;
    let offsets: &[u32] = view(b.ro[1], "chain_compact.offsets")?;
    let slots: &[u32] = view(b.ro[2], "chain_compact.slots")?;
    need(widths.len() >= nb && offsets.len() >= nb, "chain_compact inputs")?;
    let [meta, payload, totals] = &mut b.rw[..] else { return Err(Error::Device("chain_compact: bindings".into())) };
    let meta: &mut [u32] = view_mut(meta, "meta")?;
    let payload: &mut [u32] = view_mut(payload, "payload")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    let blen = |blk: usize| p.block_size.min(p.n - blk as u32 * p.block_size);
    super::bitpack::write_width_meta(widths, nb, p.nblocks as usize, meta)?;
    if nb == p.nblocks as usize && nb > 0 {
        let l = nb - 1;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? = offsets[l] + block_words(widths[l], blen(l));
    }
    for blk in 0..nb {
        let c = block_words(widths[blk], blen(blk)) as usize;
        let off = offsets[blk] as usize;
        need(off + c <= payload.len(), "chain_compact payload")?;
        for (m, word) in payload[off..off + c].iter_mut().enumerate() {
            let at = crate::kernels::chain::slot_word(blk as u64, m as u64, p.block_size as u64, widths[blk] as u64) as usize;
            *word = *slots.get(at).ok_or_else(|| Error::Device("chain_compact slots".into()))?;
        }
    }
    Ok(())
}

/// Twin of `chain_decode`: the values `chain_unpack` writes (the same inverse), and in
/// float32 the padding of the last vec4 as the kernel fills it. Needs a dispatch that
/// covers the field.
pub fn chain_decode<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    decode::<F>(pb, b, groups, Kernel::ChainDecode)
}

/// Twin of `chain_decode_1d` (`chain_decode` built with ONE_D: 1-D fields, one step per
/// invocation): the same outputs.
pub fn chain_decode_1d<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    decode::<F>(pb, b, groups, Kernel::ChainDecode1d)
}

/// Twin of `chain_decode_ragged` (`chain_decode` built with RAGGED: 2-D rows that are
/// not whole units of 32): the field's values, nothing past them.
pub fn chain_decode_ragged<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    decode::<F>(pb, b, groups, Kernel::ChainDecodeRagged)
}

/// Twin of `chain_decode_planes` (`chain_decode` built with PLANES: 3-D fields; the
/// ChainUnpackParams32 layout, only its integer fields): each value's sum along x and
/// y inside its tile, plus the tile head in the tile's first plane (what
/// `chain_scan_x` then `lorenzo_scan_axis` along y leave), into `sums`.
pub fn chain_decode_planes(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    planes(pb, b, groups, Kernel::ChainDecodePlanes)
}

/// Twin of `chain_decode_planes_ragged` (PLANES and RAGGED: rows that are not whole
/// units of 32): the same sums, nothing past the field.
pub fn chain_decode_planes_ragged(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    planes(pb, b, groups, Kernel::ChainDecodePlanesRagged)
}

fn planes(pb: &[u8], b: &mut Bindings, groups: u32, kernel: Kernel) -> Result<()> {
    use crate::kernels::chain::{planes_groups, planes_kernel, planes_unfit};
    use crate::kernels::params::ChainUnpackParams32;
    let c: ChainUnpackParams32 = params(pb)?;
    let l = LorenzoParams { nx: c.nx, ny: c.ny, nz: c.nz, tx: c.tx, ty: c.ty, tz: c.tz, ntx: c.ntx, nty: c.nty, ..Default::default() };
    if let Some(why) = planes_unfit(c.block_size, &l, max_extent()?) {
        return Err(Error::Device(format!("{}: {why}", kernel.name())));
    }
    need(groups as u64 >= planes_groups(&l)?, "chain_decode_planes: the dispatch covers the field")?;
    let want = planes_kernel(&l);
    need(want == kernel, &format!("{}: this geometry is {}'s", kernel.name(), want.name()))?;
    let (nx, ny, nz, tx, ty, tz, ntx, nty) = (c.nx as usize, c.ny as usize, c.nz, c.tx as usize, c.ty as usize, c.tz, c.ntx, c.nty);
    let n = nx * ny * nz as usize;
    need(n == c.n as usize && tx > 0 && ty > 0 && tz > 0 && c.block_size > 0, "chain_decode_planes geometry")?;
    let r = Residuals::of(&c, &b.ro, "chain_decode_planes")?;
    let means: &[u32] = view(b.ro[3], "chain_decode_planes.means")?;
    let sums: &mut [u32] = view_mut(b.rw[0], "chain_decode_planes.sums")?;
    need(sums.len() >= n, "chain_decode_planes sums")?;
    // per plane, the inclusive 2-D prefix inside each tile (neighbours outside the tile
    // count as 0), by inclusion-exclusion in wrapping arithmetic
    sums[..n].par_chunks_mut(nx * ny).enumerate().try_for_each(|(z, plane)| -> Result<()> {
        for y in 0..ny {
            for x in 0..nx {
                let i = (z * ny + y) * nx + x;
                let mut v = r.at(i as u32)?;
                let (left, up) = (x % tx != 0, y % ty != 0);
                if left {
                    v = v.wrapping_add(plane[y * nx + x - 1]);
                }
                if up {
                    v = v.wrapping_add(plane[(y - 1) * nx + x]);
                }
                if left && up {
                    v = v.wrapping_sub(plane[(y - 1) * nx + x - 1]);
                }
                plane[y * nx + x] = v;
            }
        }
        if c.centering == 1 && (z as u32).is_multiple_of(tz) {
            for y in 0..ny {
                for x in 0..nx {
                    let t = (((z as u32 / tz) * nty + (y / ty) as u32) * ntx + (x / tx) as u32) as usize;
                    let head = *means.get(t).ok_or_else(|| Error::Device("means window".into()))?;
                    plane[y * nx + x] = plane[y * nx + x].wrapping_add(head);
                }
            }
        }
        Ok(())
    })
}

fn decode<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32, kernel: Kernel) -> Result<()> {
    use crate::kernels::chain::{decode_groups, decode_kernel, decode_unfit};
    use crate::kernels::params::{ChainUnpackParams32, ChainUnpackParams64};
    let ragged = kernel == Kernel::ChainDecodeRagged;
    let (n, bs, ntiles, l) = if F::WT == 2 {
        let c: ChainUnpackParams64 = params(pb)?;
        (
            c.n,
            c.block_size,
            c.ntiles,
            LorenzoParams { nx: c.nx, ny: c.ny, nz: c.nz, tx: c.tx, ty: c.ty, tz: c.tz, ntx: c.ntx, nty: c.nty, ..Default::default() },
        )
    } else {
        let c: ChainUnpackParams32 = params(pb)?;
        (
            c.n,
            c.block_size,
            c.ntiles,
            LorenzoParams { nx: c.nx, ny: c.ny, nz: c.nz, tx: c.tx, ty: c.ty, tz: c.tz, ntx: c.ntx, nty: c.nty, ..Default::default() },
        )
    };
    if let Some(why) = decode_unfit(bs, &l, max_extent()?) {
        return Err(Error::Device(format!("chain_decode: {why}")));
    }
    need(groups as u64 >= decode_groups(&l)?, "chain_decode: the dispatch covers the field")?;
    // (1-D: either form, by the backend's tuning)
    let (plain, tuned) = (decode_kernel(&l, false), decode_kernel(&l, true));
    need(kernel == plain || kernel == tuned, &format!("{}: this geometry is {}'s", kernel.name(), tuned.name()))?;
    let mut scratch = vec![0u8; if l.ny * l.nz > 1 { 4 * n as usize } else { 16 }];
    let [out] = &mut b.rw[..] else { return Err(Error::Device("chain_decode: bindings".into())) };
    let mut inner = Bindings { ro: b.ro.clone(), rw: vec![&mut out[..], &mut scratch[..]] };
    chain_unpack::<F>(pb, &mut inner, ntiles)?;
    // float32: the kernel stores whole vec4s; past n (a 1-D tail, inside the last
    // tile, whose residuals there are 0) they repeat value n - 1
    let n = n as usize;
    if F::WT == 1 && !n.is_multiple_of(4) && n > 0 && !ragged {
        let out: &mut [u32] = view_mut(out, "chain_decode.out")?;
        let end = n.next_multiple_of(4).min(out.len());
        let last = out[n - 1];
        out[n..end].fill(last);
    }
    Ok(())
}

/// Twin of `chain_unpack`: per tile, the prefix sums along x, then y, then z (what the
/// kernel leaves in `scratch` is the last pass before the final one: the x sums in 2-D,
/// the x-y sums in 3-D), then the dequantized values.
pub fn chain_unpack<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    use crate::kernels::params::{ChainUnpackParams32, ChainUnpackParams64};
    macro_rules! geo {
        ($c:expr, $step:expr, $one:expr) => {{
            let c = $c;
            (
                [c.n, c.block_size, c.ntiles, c.word_base, c.qzigzag, c.bzigzag, c.centering],
                [c.nx, c.ny, c.nz, c.tx, c.ty, c.tz, c.ntx, c.nty],
                F::from_f64($step),
                F::from_f64($one),
            )
        }};
    }
    let ([n, bs, ntiles, word_base, qzz, bzz, centering], [nx, ny, nz, tx, ty, tz, ntx, nty], step, one) = if F::WT == 2 {
        let c: ChainUnpackParams64 = params(pb)?;
        geo!(c, c.step, c.one)
    } else {
        let c: ChainUnpackParams32 = params(pb)?;
        geo!(c, c.step as f64, c.one as f64)
    };
    let meta: &[u32] = view(b.ro[0], "chain_unpack.meta")?;
    let offsets: &[u32] = view(b.ro[1], "chain_unpack.offsets")?;
    let pay: &[u32] = view(b.ro[2], "chain_unpack.payload_u")?;
    let means: &[u32] = view(b.ro[3], "chain_unpack.means")?;
    let wt = F::WT as usize;
    let nn = nx as u64 * ny as u64 * nz as u64;
    need(nn == n as u64 && tx > 0 && ty > 0 && tz > 0 && bs > 0 && ntx > 0 && nty > 0, "chain_unpack geometry")?;
    let keep = ny as u64 * nz as u64 > 1;
    let res = Residuals { meta, offsets, pay, n, bs, word_base, bzigzag: bzz == 1 };
    let residual_at = |i: u32| res.at(i);
    // (tile origin, extents, head, scratch values, final sums), both x-fastest
    type Tile = ((u32, u32, u32), (u32, u32, u32), u32, Vec<u32>, Vec<u32>);
    let tiles: Vec<Tile> = (0..ntiles.min(groups))
        .into_par_iter()
        .map(|t| -> Result<Tile> {
            let (x0, y0, z0) = ((t % ntx) * tx, ((t / ntx) % nty) * ty, (t / (ntx * nty)) * tz);
            need(x0 < nx && y0 < ny && z0 < nz, "chain_unpack tile")?;
            let (lx, ly, lz) = (tx.min(nx - x0), ty.min(ny - y0), tz.min(nz - z0));
            let head = if centering == 1 { *means.get(t as usize).ok_or_else(|| Error::Device("means".into()))? } else { 0 };
            let (sx, sxy) = (lx as usize, lx as usize * ly as usize);
            let mut s = vec![0u32; sxy * lz as usize];
            for z in 0..lz as usize {
                for y in 0..ly as usize {
                    let row = ((z0 + z as u32) * ny + (y0 + y as u32)) * nx + x0;
                    let mut acc = 0u32;
                    for k in 0..sx {
                        acc = acc.wrapping_add(residual_at(row + k as u32)?);
                        s[z * sxy + y * sx + k] = acc;
                    }
                }
            }
            let mut kept = Vec::new();
            for (axis, stride, len) in [(1, sx, ly as usize), (2, sxy, lz as usize)] {
                if axis == 2 && nz == 1 {
                    break;
                }
                if keep {
                    kept = s.clone();
                }
                for j in 0..s.len() {
                    if (j / stride) % len != 0 {
                        s[j] = s[j].wrapping_add(s[j - stride]);
                    }
                }
            }
            Ok(((x0, y0, z0), (lx, ly, lz), head, kept, s))
        })
        .collect::<Result<_>>()?;
    let [out, scratch] = &mut b.rw[..] else { return Err(Error::Device("chain_unpack: bindings".into())) };
    let out: &mut [u32] = view_mut(out, "chain_unpack.out")?;
    need(out.len() >= n as usize * wt, "chain_unpack out")?;
    let scratch: &mut [u32] = view_mut(scratch, "chain_unpack.scratch")?;
    need(!keep || scratch.len() >= n as usize, "chain_unpack scratch")?;
    for ((x0, y0, z0), (lx, ly, lz), head, kept, s) in tiles {
        let mut j = 0;
        for z in 0..lz {
            for y in 0..ly {
                let row = (((z0 + z) * ny + (y0 + y)) * nx + x0) as usize;
                for k in 0..lx as usize {
                    let v = s[j];
                    if keep {
                        scratch[row + k] = kept[j];
                    }
                    j += 1;
                    let c = v.wrapping_add(head);
                    let q = if qzz == 1 { ((c >> 1) as i32) ^ -((c & 1) as i32) } else { c as i32 };
                    let x = super::szx::mulr(F::from_i32(q), step, one);
                    out[(row + k) * wt..(row + k) * wt + wt].copy_from_slice(&x.words()[..wt]);
                }
            }
        }
    }
    Ok(())
}

/// The Lorenzo residual of value `i` of a chain's single AdaptiveBitpack chunk (the
/// twins' `residual_at`, shaders/common/chain_residual.wgsl).
struct Residuals<'a> {
    meta: &'a [u32],
    offsets: &'a [u32],
    pay: &'a [u32],
    n: u32,
    bs: u32,
    word_base: u32,
    bzigzag: bool,
}

impl<'a> Residuals<'a> {
    /// The reader of a kernel whose first read-only bindings are the chain's meta,
    /// offsets and payload words (`what`: the kernel, for errors), from the
    /// ChainUnpackParams32 layout's integer fields.
    fn of(c: &crate::kernels::params::ChainUnpackParams32, ro: &[&'a [u8]], what: &str) -> Result<Self> {
        let [meta, offsets, pay] =
            ro.get(..3).and_then(|r| <[&[u8]; 3]>::try_from(r).ok()).ok_or_else(|| Error::Device(format!("{what}: bindings")))?;
        Ok(Residuals {
            meta: view(meta, &format!("{what}.meta"))?,
            offsets: view(offsets, &format!("{what}.offsets"))?,
            pay: view(pay, &format!("{what}.payload_u"))?,
            n: c.n,
            bs: c.block_size,
            word_base: c.word_base,
            bzigzag: c.bzigzag == 1,
        })
    }

    fn at(&self, i: u32) -> Result<u32> {
        let blk = (i / self.bs) as usize;
        let w = (self.meta.get(blk / 4).ok_or_else(|| Error::Device("meta".into()))? >> (8 * (blk & 3))) & 0xff;
        let base = (self.word_base + *self.offsets.get(blk).ok_or_else(|| Error::Device("offsets".into()))?) as usize;
        let blen = self.bs.min(self.n - blk as u32 * self.bs);
        need(base + block_words(w, blen) as usize <= self.pay.len(), "chain payload window")?;
        let u = super::bitpack::extract_code(self.pay, base, (i - blk as u32 * self.bs) as usize, w);
        Ok(if self.bzigzag { (((u >> 1) as i32) ^ -((u & 1) as i32)) as u32 } else { u })
    }
}

/// Twin of `chain_scan_x` (the ChainUnpackParams32 layout; only its integer fields).
pub fn chain_scan_x(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    use crate::kernels::params::ChainUnpackParams32;
    let c: ChainUnpackParams32 = params(pb)?;
    let r = Residuals::of(&c, &b.ro, "chain_scan_x")?;
    let means: &[u32] = view(b.ro[3], "chain_scan_x.means")?;
    let sums: &mut [u32] = view_mut(b.rw[0], "chain_scan_x.sums")?;
    let (nx, ny, nz, tx, ty, tz, ntx, nty) = (c.nx, c.ny, c.nz, c.tx, c.ty, c.tz, c.ntx, c.nty);
    let n = nx as u64 * ny as u64 * nz as u64;
    need(n == c.n as u64 && tx > 0 && ty > 0 && tz > 0 && c.block_size > 0 && ntx > 0 && nty > 0, "chain_scan_x geometry")?;
    need(sums.len() as u64 >= n, "chain_scan_x sums")?;
    let wg = crate::kernels::workgroup_size(crate::kernels::Kernel::ChainScanX)?;
    let team = crate::kernels::chain::scan_x_team(tx, wg)?;
    // team t scans segments [(t % tpr) * g, ...) of row t / tpr: those the dispatch
    // covers, with the default variant's g (SEGS = 1: the CUDA-tuned variant's teams
    // cover a prefix of these, so a dispatch sized for the default covers every
    // segment in both)
    let (g, _) = crate::kernels::chain::scan_x_teams(ntx, ny as u64 * nz as u64, false)?;
    let teams = groups as u64 * (wg / team) as u64;
    sums[..n as usize].par_chunks_mut(nx as usize).enumerate().try_for_each(|(row, out)| -> Result<()> {
        let (y, z) = (row as u32 % ny, row as u32 / ny);
        for sx in 0..ntx {
            if row as u64 * ntx.div_ceil(g) as u64 + (sx / g) as u64 >= teams {
                continue;
            }
            let (a, e) = (sx * tx, ((sx + 1) * tx).min(nx));
            let mut acc = 0u32;
            if c.centering == 1 && y % ty == 0 && z % tz == 0 {
                let t = (((z / tz) * nty + (y / ty)) * ntx + sx) as usize;
                acc = *means.get(t).ok_or_else(|| Error::Device("means window".into()))?;
            }
            for k in a..e {
                acc = acc.wrapping_add(r.at(row as u32 * nx + k)?);
                out[k as usize] = acc;
            }
        }
        Ok(())
    })
}

/// Twin of `chain_scan_last`.
pub fn chain_scan_last<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    use crate::kernels::params::{ChainUnpackParams32, ChainUnpackParams64};
    let (g, step, one) = if F::WT == 2 {
        let c: ChainUnpackParams64 = params(pb)?;
        ([c.nx, c.ny, c.nz, c.ty, c.tz, c.nty, c.qzigzag], F::from_f64(c.step), F::from_f64(c.one))
    } else {
        let c: ChainUnpackParams32 = params(pb)?;
        ([c.nx, c.ny, c.nz, c.ty, c.tz, c.nty, c.qzigzag], F::from_f64(c.step as f64), F::from_f64(c.one as f64))
    };
    let [nx, ny, nz, ty, tz, nty, qzz] = g;
    need(nx > 0 && ny > 0 && nz > 0 && ty > 0 && tz > 0, "chain_scan_last geometry")?;
    let sums: &[u32] = view(b.ro[0], "chain_scan_last.sums")?;
    let out: &mut [u32] = view_mut(b.rw[0], "chain_scan_last.out")?;
    let wt = F::WT as usize;
    let n = nx as usize * ny as usize * nz as usize;
    need(sums.len() >= n && out.len() >= n * wt, "chain_scan_last sizes")?;
    // the last used axis: z in 3-D, else y
    let (axis, all) = if nz > 1 { (2, nx as u64 * ny as u64 * nz.div_ceil(tz) as u64) } else { (1, nx as u64 * nty as u64) };
    let lines = all.min(groups as u64 * crate::kernels::workgroup_size(crate::kernels::Kernel::ChainScanLast)? as u64) as u32;
    let geo = super::lorenzo::AxisGeo { nx, ny, nz, ty, tz, nty };
    for l in 0..lines {
        let (start, stride, len) = geo.line(l, axis);
        let mut acc = 0u32;
        for k in 0..len {
            let i = (start + k * stride) as usize;
            acc = acc.wrapping_add(sums[i]);
            let q = if qzz == 1 { ((acc >> 1) as i32) ^ -((acc & 1) as i32) } else { acc as i32 };
            let v = super::szx::mulr(F::from_i32(q), step, one);
            out[i * wt..i * wt + wt].copy_from_slice(&v.words()[..wt]);
        }
    }
    Ok(())
}
