//! Twins of shaders/quant/*.wgsl (the Quantizer stage).

use super::szx::{addr, mulr, within, SzxFloat};
use super::{need, view, view_mut, view_trunc, Bindings};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// `encode_code` of quant_params.wgsl.
pub fn encode_code(q: i32, zigzag: bool) -> u32 {
    if zigzag {
        ((q << 1) ^ (q >> 31)) as u32
    } else {
        q as u32
    }
}

/// `decode_code` of quant_params.wgsl.
pub fn decode_code(c: u32, zigzag: bool) -> i32 {
    if zigzag {
        ((c >> 1) as i32) ^ -((c & 1) as i32)
    } else {
        c as i32
    }
}

/// The code of one value, or None for an outlier (quant_encode's per-value work).
pub fn quantize_one<F: SzxFloat>(x: F, class: u32, p: &super::szx::QuantP<F>) -> Option<i32> {
    if class != 0 {
        return None;
    }
    let m = &p.math;
    let qf = addr(mulr(x, m.inv, m.one), F::HALF).floor();
    if !(qf.abs() < p.limit) {
        return None;
    }
    let q = qf.to_i32();
    for c in [q, q - 1, q + 1] {
        if within(x, mulr(F::from_i32(c), m.step, m.one), m.eb) {
            return Some(c);
        }
    }
    None
}

/// Values per workgroup of quant_encode / quant_scatter, and mask words per workgroup.
const QWG: usize = 256;
const QWORDS: usize = QWG / 32;

/// Twin of `quant_encode`: codes, the outlier mask (one bit per value, QWORDS words
/// per workgroup) and each workgroup's outlier count.
pub fn quant_encode<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::qparams(p)?;
    let data_u: &[u32] = view(b.ro[0], "quant_encode.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[1], "quant_encode.data_f")?;
    let n = (p.n as usize).min(groups as usize * QWG);
    need(data_f.len() >= n, "quant_encode input")?;
    let [codes, mask, counts] = &mut b.rw[..] else {
        return Err(Error::Device("quant_encode: bindings".into()));
    };
    let codes: &mut [u32] = view_mut(codes, "codes")?;
    let mask: &mut [u32] = view_mut(mask, "mask")?;
    let counts: &mut [u32] = view_mut(counts, "counts")?;
    let ng = n.div_ceil(QWG);
    need((p.codes_off == 1 || codes.len() >= n) && mask.len() >= ng * QWORDS && counts.len() >= ng, "quant_encode outputs")?;
    let q: Vec<Option<i32>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (_, class) = F::key_class(data_u, i);
            quantize_one(data_f[i], class, &p)
        })
        .collect();
    if p.codes_off == 0 {
        codes[..n].par_iter_mut().zip(&q).for_each(|(c, q)| *c = encode_code(q.unwrap_or(0), p.zigzag == 1));
    }
    for g in 0..ng {
        let mut cnt = 0;
        for w in 0..QWORDS {
            let mut word = 0u32;
            for bit in 0..32 {
                let i = g * QWG + w * 32 + bit;
                if i < n && q[i].is_none() {
                    word |= 1 << bit;
                    cnt += 1;
                }
            }
            mask[g * QWORDS + w] = word;
        }
        counts[g] = cnt;
    }
    Ok(())
}

/// Twin of `quant_scatter`.
pub fn quant_scatter<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::qparams(p)?;
    let data_u: &[u32] = view(b.ro[0], "quant_scatter.data_u")?;
    let mask: &[u32] = view(b.ro[1], "quant_scatter.mask")?;
    let offs: &[u32] = view(b.ro[2], "quant_scatter.offs")?;
    let counts: &[u32] = view(b.ro[3], "quant_scatter.counts")?;
    // one invocation per mask word (32 values)
    let wg = crate::kernels::workgroup_size(crate::kernels::Kernel::QuantScatter)? as usize;
    let words_all = (p.n as usize).div_ceil(32);
    let words = words_all.min(groups as usize * wg);
    let n = (p.n as usize).min(words * 32);
    let wt = F::WT as usize;
    let ng = words.div_ceil(QWORDS);
    need(mask.len() >= words && offs.len() >= ng && counts.len() >= ng && data_u.len() >= n * wt, "quant_scatter inputs")?;
    let [entries, totals] = &mut b.rw[..] else {
        return Err(Error::Device("quant_scatter: bindings".into()));
    };
    let entries: &mut [u32] = view_mut(entries, "entries")?;
    let totals: &mut [u32] = view_mut(totals, "totals")?;
    if words == words_all && words > 0 {
        let g = (words - 1) / QWORDS;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals".into()))? = offs[g].wrapping_add(counts[g]);
    }
    for g in 0..ng {
        let mut rank = 0u32;
        for w in 0..QWORDS {
            let m = g * QWORDS + w;
            if m >= words {
                break;
            }
            let word = mask[m];
            for bit in 0..32 {
                let i = m * 32 + bit;
                if i >= n || (word >> bit) & 1 == 0 {
                    continue;
                }
                let e = offs[g].wrapping_add(rank) as usize * 2 * wt;
                rank += 1;
                need(e + 2 * wt <= entries.len(), "quant_scatter entries window")?;
                entries[e] = p.base + i as u32;
                if wt == 2 {
                    entries[e + 1] = 0;
                }
                entries[e + wt..e + 2 * wt].copy_from_slice(&data_u[i * wt..i * wt + wt]);
            }
        }
    }
    Ok(())
}

/// Twin of `quant_decode`.
pub fn quant_decode<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::qparams(p)?;
    let codes: &[u32] = view(b.ro[0], "quant_decode.codes")?;
    let out: &mut [u32] = view_mut(b.rw[0], "quant_decode.out")?;
    let per_group = crate::kernels::items_per_group(crate::kernels::Kernel::QuantDecode)?;
    let n = (p.n as u64).min(groups as u64 * per_group) as usize;
    let wt = F::WT as usize;
    need(codes.len() >= n && out.len() >= n * wt, "quant_decode sizes")?;
    let m = p.math;
    out[..n * wt].par_chunks_mut(wt).zip(codes[..n].par_iter()).for_each(|(o, &c)| {
        let x = mulr(F::from_i32(decode_code(c, p.zigzag == 1)), m.step, m.one);
        o.copy_from_slice(&x.words()[..wt]);
    });
    Ok(())
}

/// Twin of `quant_patch`.
pub fn quant_patch<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::qparams(p)?;
    let entries: &[u32] = view(b.ro[0], "quant_patch.entries_u")?;
    let out: &mut [u32] = view_mut(b.rw[0], "quant_patch.out")?;
    let wt = F::WT as usize;
    let count = (p.count as usize).min(groups as usize * 256);
    need(entries.len() >= count * 2 * wt, "quant_patch entries")?;
    for j in 0..count {
        let idx = entries[j * 2 * wt].wrapping_sub(p.base) as usize;
        need(idx * wt + wt <= out.len(), "quant_patch index outside the window")?;
        out[idx * wt..idx * wt + wt].copy_from_slice(&entries[j * 2 * wt + wt..j * 2 * wt + 2 * wt]);
    }
    Ok(())
}
