//! Twins of shaders/bitpack/*.wgsl and of the shared packing helpers
//! (shaders/common/bitpack_gather.wgsl, bitpack_extract.wgsl).

use super::{need, params, view, view_mut, Bindings};
use crate::error::{Error, Result};
use crate::kernels::params::BitpackParams;
use rayon::prelude::*;

/// Pack `codes` (each < 2^w) at `w` bits LSB-first into `out` (its words are
/// overwritten; `out.len()` must be ceil(len*w/32)).
pub fn pack_codes(codes: impl Iterator<Item = u32>, w: u32, out: &mut [u32]) {
    out.fill(0);
    if w == 0 {
        return;
    }
    for (i, c) in codes.enumerate() {
        let pos = i * w as usize;
        let (wi, sh) = (pos / 32, pos % 32);
        let v = (c as u64) << sh;
        out[wi] |= v as u32;
        if sh + w as usize > 32 {
            out[wi + 1] |= (v >> 32) as u32;
        }
    }
}

/// Code `i` of a stream starting at word `base` (twin of `extract_code`).
pub fn extract_code(words: &[u32], base: usize, i: usize, w: u32) -> u32 {
    if w == 0 {
        return 0;
    }
    let pos = i * w as usize;
    let (wi, sh) = (base + pos / 32, pos % 32);
    let mut c = (words[wi] as u64) >> sh;
    if sh + w as usize > 32 {
        c |= (words[wi + 1] as u64) << (32 - sh);
    }
    let mask = if w < 32 { (1u64 << w) - 1 } else { u32::MAX as u64 };
    (c & mask) as u32
}

/// Twin of `write_width_meta` (shaders/common/width_meta.wgsl) for blocks `0..nb` of
/// a chunk of `nblocks`.
pub fn write_width_meta(widths: &[u32], nb: usize, nblocks: usize, meta: &mut [u32]) -> Result<()> {
    for blk in (0..nb).step_by(4) {
        let mut m = 0u32;
        for k in 0..4 {
            if blk + k < nblocks {
                m |= (widths[blk + k] & 0xff) << (8 * k);
            }
        }
        *meta.get_mut(blk / 4).ok_or_else(|| Error::Device("meta window".into()))? = m;
    }
    Ok(())
}

pub fn block_words(w: u32, len: u32) -> u32 {
    (len * w).div_ceil(32)
}

fn to_unsigned(c: u32, zigzag: bool) -> u32 {
    if zigzag {
        let q = c as i32;
        ((q << 1) ^ (q >> 31)) as u32
    } else {
        c
    }
}

fn from_unsigned(u: u32, zigzag: bool) -> u32 {
    if zigzag {
        (((u >> 1) as i32) ^ -((u & 1) as i32)) as u32
    } else {
        u
    }
}

fn block_len(p: &BitpackParams, b: u32) -> u32 {
    p.block_size.min(p.n - b * p.block_size)
}

/// Twin of `bitpack_width`.
pub fn bitpack_width(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: BitpackParams = params(pb)?;
    let codes: &[u32] = view(b.ro[0], "bitpack_width.codes")?;
    let nb = p.nblocks.min(groups) as usize;
    need(codes.len() >= p.n as usize, "bitpack_width codes")?;
    let res: Vec<(u32, u32)> = (0..nb as u32)
        .into_par_iter()
        .map(|blk| {
            let s = (blk * p.block_size) as usize;
            let len = block_len(&p, blk);
            let m = codes[s..s + len as usize].iter().map(|&c| to_unsigned(c, p.zigzag == 1)).max().unwrap_or(0);
            let w = 32 - m.leading_zeros();
            (w, block_words(w, len))
        })
        .collect();
    let [widths, cost] = &mut b.rw[..] else {
        return Err(Error::Device("bitpack_width: bindings".into()));
    };
    let widths: &mut [u32] = view_mut(widths, "widths")?;
    let cost: &mut [u32] = view_mut(cost, "cost")?;
    need(widths.len() >= nb && cost.len() >= nb, "bitpack_width outputs")?;
    for (i, (w, c)) in res.into_iter().enumerate() {
        widths[i] = w;
        cost[i] = c;
    }
    Ok(())
}

/// Twin of `bitpack_pack`.
pub fn bitpack_pack(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: BitpackParams = params(pb)?;
    let codes: &[u32] = view(b.ro[0], "bitpack_pack.codes")?;
    let widths: &[u32] = view(b.ro[1], "bitpack_pack.widths")?;
    let offsets: &[u32] = view(b.ro[2], "bitpack_pack.offsets")?;
    let nb = p.nblocks.min(groups) as usize;
    need(widths.len() >= nb && offsets.len() >= nb && codes.len() >= p.n as usize, "bitpack_pack inputs")?;
    let [meta, payload, totals] = &mut b.rw[..] else {
        return Err(Error::Device("bitpack_pack: bindings".into()));
    };
    let meta: &mut [u32] = view_mut(meta, "meta")?;
    let payload: &mut [u32] = view_mut(payload, "payload")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    write_width_meta(widths, nb, p.nblocks as usize, meta)?;
    if nb == p.nblocks as usize && nb > 0 {
        let l = nb - 1;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? =
            offsets[l] + block_words(widths[l], block_len(&p, l as u32));
    }
    for blk in 0..nb {
        let len = block_len(&p, blk as u32);
        let nw = block_words(widths[blk], len) as usize;
        let off = offsets[blk] as usize;
        need(off + nw <= payload.len(), "bitpack_pack payload window")?;
        let s = blk * p.block_size as usize;
        pack_codes(codes[s..s + len as usize].iter().map(|&c| to_unsigned(c, p.zigzag == 1)), widths[blk], &mut payload[off..off + nw]);
    }
    Ok(())
}

/// Twin of `bitpack_meta_cost`.
pub fn bitpack_meta_cost(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: BitpackParams = params(pb)?;
    let meta: &[u32] = view(b.ro[0], "bitpack_meta_cost.meta")?;
    let cost: &mut [u32] = view_mut(b.rw[0], "bitpack_meta_cost.cost")?;
    let per = crate::kernels::workgroup_size(crate::kernels::Kernel::BitpackMetaCost)? as usize;
    let nb = (p.nblocks as usize).min(groups as usize * per);
    need(meta.len() * 4 >= nb && cost.len() >= nb, "bitpack_meta_cost sizes")?;
    for (blk, c) in cost.iter_mut().enumerate().take(nb) {
        let w = (meta[blk / 4] >> (8 * (blk & 3))) & 0xff;
        *c = block_words(w, block_len(&p, blk as u32));
    }
    Ok(())
}

/// Twin of `bitpack_unpack`.
pub fn bitpack_unpack(pb: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: BitpackParams = params(pb)?;
    let meta: &[u32] = view(b.ro[0], "bitpack_unpack.meta")?;
    let offsets: &[u32] = view(b.ro[1], "bitpack_unpack.offsets")?;
    let pay: &[u32] = view(b.ro[2], "bitpack_unpack.payload_u")?;
    let out: &mut [u32] = view_mut(b.rw[0], "bitpack_unpack.out")?;
    // the dispatch covers the first groups * WG * CODES codes
    let per_group = crate::kernels::items_per_group(crate::kernels::Kernel::BitpackUnpack)?;
    let covered = (p.n as u64).min(groups as u64 * per_group) as usize;
    let bs = p.block_size as usize;
    let nb = covered.div_ceil(bs.max(1));
    need(meta.len() * 4 >= nb && offsets.len() >= nb && out.len() >= p.n as usize, "bitpack_unpack sizes")?;
    out[..covered].par_chunks_mut(bs).enumerate().try_for_each(|(blk, o)| -> Result<()> {
        let len = block_len(&p, blk as u32) as usize;
        let w = (meta[blk / 4] >> (8 * (blk & 3))) & 0xff;
        let base = (p.word_base + offsets[blk]) as usize;
        need(base + block_words(w, len as u32) as usize <= pay.len(), "bitpack_unpack payload window")?;
        for (i, v) in o.iter_mut().enumerate() {
            *v = from_unsigned(extract_code(pay, base, i, w), p.zigzag == 1);
        }
        Ok(())
    })
}
