//! Twins of shaders/szp/*.wgsl (the experimental SZp stage).

use super::bitpack::{extract_code, pack_codes};
use super::quant::quantize_one;
use super::szx::{mulr, QuantP, SzxFloat};
use super::{need, view, view_mut, view_trunc, Bindings};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Width byte of a block stored verbatim.
pub const RAW_WIDTH: u32 = 255;

/// Payload words of a block (twin of `szp_cost`).
pub fn szp_cost<F: SzxFloat>(w: u32, len: u32) -> u32 {
    if w == RAW_WIDTH {
        return len * F::WT;
    }
    (len * w).div_ceil(32).div_ceil(F::WT) * F::WT
}

fn zigzag(d: i32) -> u32 {
    ((d << 1) ^ (d >> 31)) as u32
}

fn block_len<F>(p: &QuantP<F>, b: u32) -> u32 {
    p.math.block_size.min(p.n - b * p.math.block_size)
}

/// Codes of a block (None: the block goes raw).
fn block_codes<F: SzxFloat>(p: &QuantP<F>, data_u: &[u32], data_f: &[F], b: u32) -> Option<Vec<i32>> {
    let s = (b * p.math.block_size) as usize;
    (s..s + block_len(p, b) as usize).map(|i| quantize_one(data_f[i], F::key_class(data_u, i).1, p)).collect()
}

fn deltas(q: &[i32]) -> impl Iterator<Item = u32> + '_ {
    q.iter().enumerate().map(|(i, &v)| zigzag(v.wrapping_sub(if i > 0 { q[i - 1] } else { 0 })))
}

/// Twin of `szp_classify`.
pub fn szp_classify<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::zparams(pb)?;
    let data_u: &[u32] = view(b.ro[0], "szp_classify.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[1], "szp_classify.data_f")?;
    let nb = p.math.nblocks.min(groups) as usize;
    need(data_f.len() >= p.n as usize, "szp_classify input")?;
    let res: Vec<(u32, u32)> = (0..nb as u32)
        .into_par_iter()
        .map(|blk| {
            let len = block_len(&p, blk);
            let w = match block_codes(&p, data_u, data_f, blk) {
                Some(q) => {
                    let w = 32 - deltas(&q).max().unwrap_or(0).leading_zeros();
                    if szp_cost::<F>(w, len) >= len * F::WT {
                        RAW_WIDTH
                    } else {
                        w
                    }
                }
                None => RAW_WIDTH,
            };
            (w, szp_cost::<F>(w, len))
        })
        .collect();
    let [widths, cost] = &mut b.rw[..] else { return Err(Error::Device("szp_classify: bindings".into())) };
    let widths: &mut [u32] = view_mut(widths, "widths")?;
    let cost: &mut [u32] = view_mut(cost, "cost")?;
    need(widths.len() >= nb && cost.len() >= nb, "szp_classify outputs")?;
    for (i, (w, c)) in res.into_iter().enumerate() {
        widths[i] = w;
        cost[i] = c;
    }
    Ok(())
}

/// Twin of `szp_pack`.
pub fn szp_pack<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::zparams(pb)?;
    let data_u: &[u32] = view(b.ro[0], "szp_pack.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[1], "szp_pack.data_f")?;
    let widths: &[u32] = view(b.ro[2], "szp_pack.widths")?;
    let offsets: &[u32] = view(b.ro[3], "szp_pack.offsets")?;
    let nb = p.math.nblocks.min(groups) as usize;
    need(widths.len() >= nb && offsets.len() >= nb, "szp_pack inputs")?;
    let [meta, payload, totals] = &mut b.rw[..] else { return Err(Error::Device("szp_pack: bindings".into())) };
    let meta: &mut [u32] = view_mut(meta, "meta")?;
    let payload: &mut [u32] = view_mut(payload, "payload")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    super::bitpack::write_width_meta(widths, nb, p.math.nblocks as usize, meta)?;
    if nb == p.math.nblocks as usize && nb > 0 {
        let l = nb - 1;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? =
            offsets[l] + szp_cost::<F>(widths[l], block_len(&p, l as u32));
    }
    let wt = F::WT as usize;
    for blk in 0..nb {
        let len = block_len(&p, blk as u32);
        let (w, off) = (widths[blk], offsets[blk] as usize);
        let c = szp_cost::<F>(w, len) as usize;
        need(off + c <= payload.len(), "szp_pack payload window")?;
        let s = blk * p.math.block_size as usize;
        let out = &mut payload[off..off + c];
        if w == RAW_WIDTH {
            out.copy_from_slice(&data_u[s * wt..(s + len as usize) * wt]);
        } else {
            let q = block_codes(&p, data_u, data_f, blk as u32)
                .ok_or_else(|| Error::Device("szp_pack: quantized block has an outlier".into()))?;
            pack_codes(deltas(&q), w, out);
        }
    }
    Ok(())
}

/// Twin of `szp_meta_cost`.
pub fn szp_meta_cost<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::zparams(pb)?;
    let meta: &[u32] = view(b.ro[0], "szp_meta_cost.meta")?;
    let cost: &mut [u32] = view_mut(b.rw[0], "szp_meta_cost.cost")?;
    let per = crate::kernels::workgroup_size(crate::kernels::Kernel::SzpMetaCost)? as usize;
    let nb = (p.math.nblocks as usize).min(groups as usize * per);
    need(meta.len() * 4 >= nb && cost.len() >= nb, "szp_meta_cost sizes")?;
    for (blk, c) in cost.iter_mut().enumerate().take(nb) {
        let w = (meta[blk / 4] >> (8 * (blk & 3))) & 0xff;
        *c = szp_cost::<F>(w, block_len(&p, blk as u32));
    }
    Ok(())
}

/// Twin of `szp_unpack`.
pub fn szp_unpack<F: SzxFloat>(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::zparams(pb)?;
    let meta: &[u32] = view(b.ro[0], "szp_unpack.meta")?;
    let offsets: &[u32] = view(b.ro[1], "szp_unpack.offsets")?;
    let pay: &[u32] = view(b.ro[2], "szp_unpack.payload_u")?;
    let out: &mut [u32] = view_mut(b.rw[0], "szp_unpack.out")?;
    let nb = p.math.nblocks.min(groups) as usize;
    let wt = F::WT as usize;
    need(meta.len() * 4 >= nb && offsets.len() >= nb && out.len() >= p.n as usize * wt, "szp_unpack sizes")?;
    let bs = p.math.block_size as usize;
    out[..p.n as usize * wt].par_chunks_mut(bs * wt).enumerate().take(nb).try_for_each(|(blk, o)| -> Result<()> {
        let len = block_len(&p, blk as u32) as usize;
        let w = (meta[blk / 4] >> (8 * (blk & 3))) & 0xff;
        let off = (p.math.word_base + offsets[blk]) as usize;
        need(off + szp_cost::<F>(w, len as u32) as usize <= pay.len(), "szp_unpack payload window")?;
        if w == RAW_WIDTH {
            o[..len * wt].copy_from_slice(&pay[off..off + len * wt]);
            return Ok(());
        }
        let mut q = 0u32;
        for (i, v) in o.chunks_exact_mut(wt).take(len).enumerate() {
            let u = extract_code(pay, off, i, w);
            q = q.wrapping_add((((u >> 1) as i32) ^ -((u & 1) as i32)) as u32);
            let x = mulr(F::from_i32(q as i32), p.math.step, p.math.one);
            v.copy_from_slice(&x.words()[..wt]);
        }
        Ok(())
    })
}
