//! Twins of shaders/szx/*.wgsl and of the value path in shaders/common/szx_math.wgsl.
//! Every function here performs the same IEEE operations in the same order as its WGSL
//! counterpart; `tests/kernels.rs` checks the GPU against these bit for bit.

use super::{need, params, team_blocks, view, view_mut, view_trunc, Bindings};
use crate::error::{Error, Result};
use crate::kernels::params::{QuantParams32, QuantParams64, RangeParams, SzpParams32, SzpParams64, SzxParams32, SzxParams64};
use rayon::prelude::*;

/// Block types of the meta region.
pub const BT_CONST: u32 = 0;
pub const BT_QUANT: u32 = 1;
pub const BT_RAW: u32 = 2;

/// Workgroup size of szx_range_partial times its ITEMS (elements per partial).
pub const RANGE_PER_GROUP: usize = 256 * 64;

/// The float types SZx handles, with the constants of shaders/common/szx_types.wgsl.
pub trait SzxFloat: Copy + PartialOrd + Send + Sync + bytemuck::Pod + std::fmt::Debug + 'static {
    /// u32 words per value.
    const WT: u32;
    /// Widest code in bits.
    const MAXW: u32;
    const MIN_NORMAL: Self;
    const ZERO: Self;
    const HALF: Self;
    /// Bounds below this use exact mode; half-ranges below it are treated as zero.
    const TINY: Self;
    /// Largest bound used (larger requests are clamped: the guarantee still holds).
    const BIG: Self;
    type Params: bytemuck::Pod + Send + Sync;
    type Key: Copy + Ord + Send + Sync + std::fmt::Debug;
    const KEY_MIN: Self::Key;
    const KEY_MAX: Self::Key;
    fn abs(self) -> Self;
    fn floor(self) -> Self;
    /// Nearest integer, ties to even (WGSL `round`).
    fn round_even(self) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn from_u32(q: u32) -> Self;
    fn to_u32(self) -> u32;
    fn to_f64(self) -> f64;
    /// Largest value <= v (v finite, >= 0).
    fn round_down_from_f64(v: f64) -> Self;
    /// Nearest value to v.
    fn from_f64(v: f64) -> Self;
    fn words(self) -> [u32; 2];
    /// From the low 32 (float32) or all 64 (float64) bits.
    fn from_bits64(b: u64) -> Self;
    /// (lo, hi) words of element i of a u32 view.
    fn key_class(words: &[u32], i: usize) -> (Self::Key, u32);
    fn key_words(k: Self::Key) -> [u32; 2];
    fn key_from_words(w: &[u32]) -> Self::Key;
    fn key_to_f64(k: Self::Key) -> f64;
    fn params(p: &[u8]) -> Result<SzxP<Self>>;
    /// The Quantizer params in typed form.
    fn qparams(p: &[u8]) -> Result<QuantP<Self>>;
    /// The SZp params in typed form (block fields in `math`).
    fn zparams(p: &[u8]) -> Result<QuantP<Self>>;
    fn pow2(e: i32) -> Self;
    fn from_i32(q: i32) -> Self;
    fn to_i32(self) -> i32;
}

/// The Quantizer params in typed form (shaders/common/quant_params.wgsl).
#[derive(Debug, Clone, Copy)]
pub struct QuantP<F> {
    pub codes_off: u32,
    pub n: u32,
    pub base: u32,
    pub zigzag: u32,
    pub count: u32,
    pub chunk: u32,
    pub math: SzxP<F>,
    pub limit: F,
}

/// The SZx params in typed form.
#[derive(Debug, Clone, Copy, Default)]
pub struct SzxP<F> {
    pub n: u32,
    pub block_size: u32,
    pub nblocks: u32,
    pub exact: u32,
    pub chunk: u32,
    pub word_base: u32,
    pub eb: F,
    pub inv: F,
    pub step: F,
    pub one: F,
    pub tiny: F,
    pub two_maxw: F,
}

fn class_bits32(lo: u32) -> u32 {
    let e = (lo >> 23) & 0xff;
    if e == 0xff {
        2
    } else if e == 0 && (lo & 0x7f_ffff) != 0 {
        1
    } else {
        0
    }
}
fn class_bits64(lo: u32, hi: u32) -> u32 {
    let e = (hi >> 20) & 0x7ff;
    if e == 0x7ff {
        2
    } else if e == 0 && ((hi & 0xf_ffff) | lo) != 0 {
        1
    } else {
        0
    }
}
/// Total-order key of f32 bits (as shaders/common/ordered.wgsl).
pub fn key32(lo: u32) -> u32 {
    if lo & 0x8000_0000 != 0 {
        !lo
    } else {
        lo ^ 0x8000_0000
    }
}
pub fn unkey32(k: u32) -> u32 {
    if k & 0x8000_0000 != 0 {
        k ^ 0x8000_0000
    } else {
        !k
    }
}
/// Total-order key of f64 bits as (hi, lo) so tuple order is key order.
pub fn key64(lo: u32, hi: u32) -> (u32, u32) {
    if hi & 0x8000_0000 != 0 {
        (!hi, !lo)
    } else {
        (hi ^ 0x8000_0000, lo)
    }
}
pub fn unkey64(k: (u32, u32)) -> u64 {
    let (h, l) = k;
    let bits = ((h as u64) << 32) | l as u64;
    if h & 0x8000_0000 != 0 {
        bits ^ (1u64 << 63)
    } else {
        !bits
    }
}

/// The methods of [`SzxFloat`] that read the same for both widths: arithmetic, casts,
/// and the conversions of the kernels' param structs (float32 or float64 forms with the
/// same fields) to the twins' `SzxP` / `QuantP`.
macro_rules! shared_float_fns {
    ($t:ty, $szx:ty, $szp:ty, $quant:ty) => {
        fn abs(self) -> $t {
            <$t>::abs(self)
        }
        fn floor(self) -> $t {
            <$t>::floor(self)
        }
        fn round_even(self) -> $t {
            <$t>::round_ties_even(self)
        }
        fn add(self, o: $t) -> $t {
            self + o
        }
        fn sub(self, o: $t) -> $t {
            self - o
        }
        fn mul(self, o: $t) -> $t {
            self * o
        }
        fn from_u32(q: u32) -> $t {
            q as $t
        }
        fn to_u32(self) -> u32 {
            self as u32
        }
        fn to_f64(self) -> f64 {
            self as f64
        }
        fn from_f64(v: f64) -> $t {
            v as $t
        }
        fn pow2(e: i32) -> $t {
            (2.0 as $t).powi(e)
        }
        fn from_i32(q: i32) -> $t {
            q as $t
        }
        fn to_i32(self) -> i32 {
            self as i32
        }
        fn params(p: &[u8]) -> Result<SzxP<$t>> {
            let q: $szx = params(p)?;
            Ok(SzxP {
                n: q.n,
                block_size: q.block_size,
                nblocks: q.nblocks,
                exact: q.exact,
                chunk: q.chunk,
                word_base: q.word_base,
                eb: q.eb,
                inv: q.inv,
                step: q.step,
                one: q.one,
                tiny: q.tiny,
                two_maxw: q.two_maxw,
            })
        }
        fn zparams(p: &[u8]) -> Result<QuantP<$t>> {
            let q: $szp = params(p)?;
            Ok(QuantP {
                codes_off: 0,
                n: q.n,
                base: 0,
                zigzag: 1,
                count: 0,
                chunk: q.chunk,
                // (exact, tiny and two_maxw: 0)
                math: SzxP {
                    n: q.n,
                    block_size: q.block_size,
                    nblocks: q.nblocks,
                    chunk: q.chunk,
                    word_base: q.word_base,
                    eb: q.eb,
                    inv: q.inv,
                    step: q.step,
                    one: q.one,
                    ..Default::default()
                },
                limit: q.limit,
            })
        }
        fn qparams(p: &[u8]) -> Result<QuantP<$t>> {
            let q: $quant = params(p)?;
            Ok(QuantP {
                codes_off: q.codes_off,
                n: q.n,
                base: q.base,
                zigzag: q.zigzag,
                count: q.count,
                chunk: q.chunk,
                // (nblocks, exact, word_base, tiny and two_maxw: 0)
                math: SzxP { n: q.n, block_size: 1, chunk: q.chunk, eb: q.eb, inv: q.inv, step: q.step, one: q.one, ..Default::default() },
                limit: q.limit,
            })
        }
    };
}

impl SzxFloat for f32 {
    const WT: u32 = 1;
    const MAXW: u32 = 24;
    const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
    const ZERO: f32 = 0.0;
    const HALF: f32 = 0.5;
    const TINY: f32 = f32::from_bits((127 - 100) << 23); // 2^-100
    const BIG: f32 = f32::from_bits((127 + 124) << 23); // 2^124
    type Params = SzxParams32;
    type Key = u32;
    const KEY_MIN: u32 = 0;
    const KEY_MAX: u32 = u32::MAX;
    fn round_down_from_f64(v: f64) -> f32 {
        let f = v as f32;
        if (f as f64) > v {
            f32::from_bits(f.to_bits() - 1)
        } else {
            f
        }
    }
    fn words(self) -> [u32; 2] {
        [self.to_bits(), 0]
    }
    fn from_bits64(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
    fn key_class(w: &[u32], i: usize) -> (u32, u32) {
        let lo = w[i];
        (key32(lo), class_bits32(lo))
    }
    fn key_words(k: u32) -> [u32; 2] {
        [k, 0]
    }
    fn key_from_words(w: &[u32]) -> u32 {
        w[0]
    }
    fn key_to_f64(k: u32) -> f64 {
        f32::from_bits(unkey32(k)) as f64
    }
    shared_float_fns!(f32, SzxParams32, SzpParams32, QuantParams32);
}

impl SzxFloat for f64 {
    const WT: u32 = 2;
    const MAXW: u32 = 32;
    const MIN_NORMAL: f64 = f64::MIN_POSITIVE;
    const ZERO: f64 = 0.0;
    const HALF: f64 = 0.5;
    const TINY: f64 = f64::from_bits((1023 - 1000) << 52); // 2^-1000
    const BIG: f64 = f64::from_bits((1023 + 1020) << 52); // 2^1020
    type Params = SzxParams64;
    type Key = (u32, u32);
    const KEY_MIN: (u32, u32) = (0, 0);
    const KEY_MAX: (u32, u32) = (u32::MAX, u32::MAX);
    fn round_down_from_f64(v: f64) -> f64 {
        v
    }
    fn words(self) -> [u32; 2] {
        let b = self.to_bits();
        [b as u32, (b >> 32) as u32]
    }
    fn from_bits64(b: u64) -> f64 {
        f64::from_bits(b)
    }
    fn key_class(w: &[u32], i: usize) -> ((u32, u32), u32) {
        let (lo, hi) = (w[2 * i], w[2 * i + 1]);
        (key64(lo, hi), class_bits64(lo, hi))
    }
    fn key_words(k: (u32, u32)) -> [u32; 2] {
        // WGSL stores vec2(lo, hi) of the key
        [k.1, k.0]
    }
    fn key_from_words(w: &[u32]) -> (u32, u32) {
        (w[1], w[0])
    }
    fn key_to_f64(k: (u32, u32)) -> f64 {
        f64::from_bits(unkey64(k))
    }
    shared_float_fns!(f64, SzxParams64, SzpParams64, QuantParams64);
}

// ---- the value path (shaders/common/szx_math.wgsl) ----

#[inline]
pub fn ftz<F: SzxFloat>(v: F) -> F {
    if v.abs() < F::MIN_NORMAL {
        F::ZERO
    } else {
        v
    }
}
#[inline]
pub fn subr<F: SzxFloat>(a: F, b: F) -> F {
    ftz(a.sub(b))
}
#[inline]
pub fn addr<F: SzxFloat>(a: F, b: F) -> F {
    ftz(a.add(b))
}
#[inline]
pub fn mulr<F: SzxFloat>(a: F, b: F, one: F) -> F {
    ftz(a.mul(b).mul(one))
}
/// The SZx code of x against r as a float: the product rounded to an integer, ties to
/// even (no addition follows it, so it takes no `* one`: the operations of
/// `quant` in shaders/common/szx_math.wgsl, in order).
#[inline]
pub fn quant<F: SzxFloat>(x: F, r: F, p: &SzxP<F>) -> F {
    ftz(subr(x, r).mul(p.inv)).round_even()
}
#[inline]
pub fn dequant<F: SzxFloat>(q: u32, r: F, p: &SzxP<F>) -> F {
    addr(mulr(F::from_u32(q), p.step, p.one), r)
}
#[inline]
pub fn within<F: SzxFloat>(x: F, y: F, eb: F) -> bool {
    let a = subr(x, y).abs();
    if a < eb {
        return true;
    }
    a == eb && x.abs() >= eb && y.abs() >= eb && ((x < F::ZERO) == (y < F::ZERO))
}

/// Twin of `code_of`: the code of x, or its neighbour when rounding missed the bound;
/// None when no code in [0, qlim] is within eb.
#[inline]
pub fn code_of<F: SzxFloat>(x: F, r: F, qlim: u32, p: &SzxP<F>) -> (u32, bool) {
    let q = quant(x, r, p).to_u32();
    if within(x, dequant(q, r, p), p.eb) {
        return (q, true);
    }
    if q > 0 && within(x, dequant(q - 1, r, p), p.eb) {
        return (q - 1, true);
    }
    if q < qlim && within(x, dequant(q + 1, r, p), p.eb) {
        return (q + 1, true);
    }
    (q, false)
}

/// Twin of `width_limit`.
#[inline]
pub fn width_limit(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

/// Payload words of a block (shaders/common/szx_types.wgsl `block_cost`).
#[inline]
pub fn block_cost<F: SzxFloat>(info: u32, len: u32) -> u32 {
    let t = info & 0xff;
    let w = (info >> 8) & 0xff;
    match t {
        BT_CONST => F::WT,
        BT_QUANT => {
            let words = (len * w).div_ceil(32);
            F::WT + words.div_ceil(F::WT) * F::WT
        }
        _ => len * F::WT,
    }
}

fn block_len<F>(p: &SzxP<F>, b: u32) -> u32 {
    let start = b * p.block_size;
    p.block_size.min(p.n - start)
}

/// The classification of one block: (info, ref, cost).
/// `codes` receives the block's codes when it ends quantized (verification computes
/// them; szx_encode packs them without computing them again).
pub fn classify_block<F: SzxFloat>(p: &SzxP<F>, data_u: &[u32], data_f: &[F], b: u32, codes: &mut Vec<u32>) -> (u32, F, u32) {
    codes.clear();
    let start = (b * p.block_size) as usize;
    let len = block_len(p, b);
    let end = start + len as usize;
    let mut kmn = F::KEY_MAX;
    let mut kmx = F::KEY_MIN;
    let (mut imn, mut imx) = (start, start);
    let mut special = false;
    for i in start..end {
        let (k, c) = F::key_class(data_u, i);
        special |= c != 0;
        if k < kmn {
            kmn = k;
            imn = i;
        }
        if k > kmx {
            kmx = k;
            imx = i;
        }
    }
    let mut typ = BT_RAW;
    let mut width = 0;
    let mut r = F::ZERO;
    if !special {
        let (mn, mx) = (data_f[imn], data_f[imx]);
        if p.exact == 1 {
            if kmn == kmx {
                typ = BT_CONST;
                r = mn;
            }
        } else {
            let d = subr(mx, mn);
            let half = if d < p.tiny { F::ZERO } else { mulr(d, F::HALF, p.one) };
            let mid = addr(mn, half);
            let qmaxf = quant(mx, mn, p);
            let mut qok = qmaxf < p.two_maxw;
            let qmax = if qok { qmaxf.to_u32() } else { 0 };
            let mut w = 32 - qmax.leading_zeros();
            let qlim = width_limit(w);
            // a range above 2 steps rules a constant block out; the kernels rule it out
            // above 1 step, the same decisions (block_basics in
            // shaders/common/szx_units.wgsl): the twin keeps the looser filter, so the
            // twin tests check that equivalence
            let mut cok = !(d > p.step.mul(F::from_f64(2.0)));
            if cok {
                cok = data_f[start..end].iter().all(|&x| within(x, mid, p.eb));
            }
            // a constant block wins: its codes are not needed
            if !cok {
                for &x in &data_f[start..end] {
                    if !qok {
                        break;
                    }
                    let (q, ok) = code_of(x, mn, qlim, p);
                    codes.push(q);
                    qok = ok;
                }
            }
            let mut rq = mn;
            if !cok && !qok {
                // quarter-step shift of the levels (the kernels' shifted_ref, common/szx_units.wgsl)
                let r2 = subr(mn, mulr(p.step, F::from_f64(0.25), p.one));
                let qf2 = quant(mx, r2, p);
                let mut ok2 = qf2 < p.two_maxw;
                let qmax2 = if ok2 { qf2.to_u32() } else { 0 };
                let w2 = 32 - qmax2.leading_zeros();
                let qlim2 = width_limit(w2);
                codes.clear();
                for &x in &data_f[start..end] {
                    if ok2 {
                        let (q, ok) = code_of(x, r2, qlim2, p);
                        codes.push(q);
                        ok2 = ok;
                    }
                }
                if ok2 {
                    qok = true;
                    rq = r2;
                    w = w2;
                }
            }
            if cok {
                typ = BT_CONST;
                r = mid;
            } else if qok && block_cost::<F>(BT_QUANT | (w << 8), len) < len * F::WT {
                typ = BT_QUANT;
                width = w;
                r = rq;
            }
        }
    }
    let inf = typ | (width << 8);
    (inf, r, block_cost::<F>(inf, len))
}

/// The body szx_encode leaves in block `b`'s slot: the packed codes (quantized) or
/// the values (raw); nothing for a constant block.
/// `codes`: the block's codes from [`classify_block`] (used when it is quantized).
fn encode_body<F: SzxFloat>(p: &SzxP<F>, data_u: &[u32], inf: u32, b: u32, codes: &[u32], out: &mut [u32]) {
    let start = (b * p.block_size) as usize;
    let len = block_len(p, b) as usize;
    let (typ, w) = (inf & 0xff, (inf >> 8) & 0xff);
    let wt = F::WT as usize;
    match typ {
        BT_RAW => out[..len * wt].copy_from_slice(&data_u[start * wt..(start + len) * wt]),
        BT_QUANT => {
            debug_assert_eq!(codes.len(), len);
            let nw = (len * w as usize).div_ceil(32);
            super::bitpack::pack_codes(codes.iter().copied(), w, &mut out[..nw]);
        }
        _ => {}
    }
}

/// Twin of `szx_encode8` (float32 blocks of 128 with teams of 8 lanes): the same
/// outputs as `szx_encode` for the blocks it covers. It does not walk: a workgroup
/// codes one round of WG / 8 blocks, so a dispatch of `groups` workgroups covers the
/// first `groups * WG / 8` blocks and leaves the rest of its outputs untouched.
pub fn szx_encode8(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let k = crate::kernels::Kernel::SzxEncode8;
    let teams = crate::kernels::workgroup_size(k)? / k.team_lanes().unwrap_or(1);
    let nb = (<f32 as SzxFloat>::params(p)?.nblocks as u64).min(groups as u64 * teams as u64) as usize;
    encode_blocks::<f32>(p, b, nb)
}

/// Twin of `szx_encode`: its teams walk the blocks, so any dispatch covers them all.
pub fn szx_encode<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let nb = team_blocks(F::params(p)?.nblocks, groups);
    encode_blocks::<F>(p, b, nb)
}

/// The first `nb` blocks of `szx_encode` / `szx_encode8`.
fn encode_blocks<F: SzxFloat>(p: &[u8], b: &mut Bindings, nb: usize) -> Result<()> {
    let p = F::params(p)?;
    let data_u: &[u32] = view(b.ro[0], "szx_encode.data_u")?;
    let data_f: &[F] = view_trunc(b.ro[2], "szx_encode.data_f")?;
    let [info, refs, cost, slots] = &mut b.rw[..] else {
        return Err(Error::Device("szx_encode: bindings".into()));
    };
    let info: &mut [u32] = view_mut(info, "info")?;
    let refs: &mut [F] = view_mut(&mut refs[..], "refs")?;
    let cost: &mut [u32] = view_mut(cost, "cost")?;
    let slots: &mut [u32] = view_mut(slots, "slots")?;
    encode_into(&p, data_u, data_f, nb, info, refs, cost, slots)
}

/// The decisions of the first `nb` blocks (info, refs, cost) and each one's body in its
/// slot of `slots`; the rest of every output untouched.
#[allow(clippy::too_many_arguments)]
fn encode_into<F: SzxFloat>(
    p: &SzxP<F>,
    data_u: &[u32],
    data_f: &[F],
    nb: usize,
    info: &mut [u32],
    refs: &mut [F],
    cost: &mut [u32],
    slots: &mut [u32],
) -> Result<()> {
    need(data_f.len() >= p.n as usize && (p.nblocks as u64) * (p.block_size as u64) >= p.n as u64, "encode sizes")?;
    let slot = (p.block_size * F::WT) as usize;
    need(info.len() >= nb && refs.len() >= nb && cost.len() >= nb && slots.len() >= p.n as usize * F::WT as usize, "encode outputs")?;
    // one pass per block: classify (computing the codes once), then pack them
    let res: Vec<(u32, F, u32)> = slots[..p.n as usize * F::WT as usize]
        .par_chunks_mut(slot)
        .enumerate()
        .take(nb)
        .map_init(Vec::new, |codes, (blk, out)| {
            let (a, r, c) = classify_block(p, data_u, data_f, blk as u32, codes);
            encode_body(p, data_u, a, blk as u32, codes, out);
            (a, r, c)
        })
        .collect();
    for (i, (a, r, c)) in res.iter().enumerate() {
        info[i] = *a;
        refs[i] = *r;
        cost[i] = *c;
    }
    Ok(())
}

/// Twin of `szx_encode8_lookback`: what `szx_encode8`, the exclusive scan of its costs
/// and `szx_compact` write (the chunk's meta words, each block's payload at its offset,
/// the chunk's total), for the tiles of TEAMS blocks that `groups` workgroups take
/// (their tickets 0..groups), and the look-back state as the kernel leaves it: the
/// ticket counter at `groups`, then per tile taken its aggregate and inclusive prefix
/// as two `READY | half` words each.
pub fn szx_encode8_lookback(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let k = crate::kernels::Kernel::SzxEncode8Lookback;
    let teams = (crate::kernels::workgroup_size(k)? / k.team_lanes().unwrap_or(1)) as usize;
    let p = <f32 as SzxFloat>::params(p)?;
    let nb = (p.nblocks as usize).min(groups as usize * teams);
    let data_u: &[u32] = view(b.ro[0], "szx_encode8_lookback.data_u")?;
    let data_f: &[f32] = view_trunc(b.ro[2], "szx_encode8_lookback.data_f")?;
    let [meta, payload, totals, state] = &mut b.rw[..] else {
        return Err(Error::Device("szx_encode8_lookback: bindings".into()));
    };
    let (mut info, mut refs, mut cost) = (vec![0u32; nb], vec![0f32; nb], vec![0u32; nb]);
    let mut slots = vec![0u32; p.n as usize];
    encode_into(&p, data_u, data_f, nb, &mut info, &mut refs, &mut cost, &mut slots)?;
    let mut offsets = Vec::with_capacity(nb);
    let mut acc = 0u32;
    for c in &cost {
        offsets.push(acc);
        acc = acc.wrapping_add(*c);
    }
    let refs_u: &[u32] = bytemuck::cast_slice(&refs);
    compact_into::<f32>(
        &p,
        &info,
        refs_u,
        &offsets,
        &slots,
        nb,
        view_mut(meta, "meta")?,
        view_mut(payload, "payload")?,
        view_mut(totals, "totals")?,
    )?;
    let state: &mut [u32] = view_mut(state, "state")?;
    for (t, c) in cost.chunks(teams).enumerate() {
        let agg = c.iter().fold(0u32, |a, x| a.wrapping_add(*x));
        super::scan::publish_tile(state, t, agg, offsets[t * teams].wrapping_add(agg))?;
    }
    *state.first_mut().ok_or_else(|| Error::Device("szx_encode8_lookback: no state".into()))? = groups;
    Ok(())
}

/// Twin of `szx_compact`.
pub fn szx_compact<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::params(p)?;
    let info: &[u32] = view(b.ro[0], "szx_compact.info")?;
    let refs_u: &[u32] = view(b.ro[1], "szx_compact.refs_u")?;
    let offsets: &[u32] = view(b.ro[2], "szx_compact.offsets")?;
    let slots: &[u32] = view(b.ro[3], "szx_compact.slots")?;
    // one workgroup per WG consecutive blocks
    let wg = crate::kernels::workgroup_size(crate::kernels::Kernel::SzxCompact)? as usize;
    let nb = (p.nblocks as usize).min(groups as usize * wg);
    let [meta, payload, totals] = &mut b.rw[..] else {
        return Err(Error::Device("szx_compact: bindings".into()));
    };
    compact_into::<F>(
        &p,
        info,
        refs_u,
        offsets,
        slots,
        nb,
        view_mut(meta, "meta")?,
        view_mut(payload, "payload")?,
        view_mut(totals, "totals")?,
    )
}

/// The first `nb` blocks' meta words, payloads at their offsets and (when `nb` is every
/// block) the chunk's total, from their decisions and bodies in their slots.
#[allow(clippy::too_many_arguments)]
fn compact_into<F: SzxFloat>(
    p: &SzxP<F>,
    info: &[u32],
    refs_u: &[u32],
    offsets: &[u32],
    slots: &[u32],
    nb: usize,
    meta: &mut [u32],
    payload: &mut [u32],
    totals: &mut [u32],
) -> Result<()> {
    let wt = F::WT as usize;
    need(info.len() >= nb && offsets.len() >= nb && refs_u.len() >= nb * wt, "compact inputs")?;
    need(slots.len() >= p.n as usize * wt, "compact slots")?;
    for blk in (0..nb).step_by(2) {
        let mut m = info[blk] & 0xffff;
        if blk + 1 < p.nblocks as usize {
            m |= (info[blk + 1] & 0xffff) << 16;
        }
        *meta.get_mut(blk / 2).ok_or_else(|| Error::Device("meta window too small".into()))? = m;
    }
    if nb == p.nblocks as usize && nb > 0 {
        let last = nb - 1;
        *totals.get_mut(p.chunk as usize).ok_or_else(|| Error::Device("totals too small".into()))? =
            offsets[last] + block_cost::<F>(info[last], block_len(p, last as u32));
    }
    // carve the payload into each block's disjoint window, then fill them in parallel
    let mut jobs: Vec<(usize, &mut [u32])> = Vec::with_capacity(nb);
    let mut rest: &mut [u32] = payload;
    let mut consumed = 0usize;
    for blk in 0..nb {
        let off = offsets[blk] as usize;
        let c = block_cost::<F>(info[blk], block_len(p, blk as u32)) as usize;
        need(off >= consumed && off + c <= consumed + rest.len(), "compact offsets not monotone or out of range")?;
        let tail = std::mem::take(&mut rest);
        let (_, tail) = tail.split_at_mut(off - consumed);
        let (mine, tail) = tail.split_at_mut(c);
        rest = tail;
        consumed = off + c;
        jobs.push((blk, mine));
    }
    let slot = (p.block_size as usize) * wt;
    jobs.into_par_iter().for_each(|(blk, out)| {
        let len = block_len(p, blk as u32) as usize;
        let (typ, w) = (info[blk] & 0xff, (info[blk] >> 8) & 0xff);
        let body = &slots[blk * slot..];
        if typ == BT_RAW {
            out.copy_from_slice(&body[..out.len()]);
            return;
        }
        out[..wt].copy_from_slice(&refs_u[blk * wt..blk * wt + wt]);
        let nw = (len * w as usize).div_ceil(32);
        for (j, o) in out[wt..].iter_mut().enumerate() {
            *o = if j < nw { body[j] } else { 0 };
        }
    });
    Ok(())
}

/// Twin of `szx_meta_cost`.
pub fn szx_meta_cost<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::params(p)?;
    let meta: &[u32] = view(b.ro[0], "szx_meta_cost.meta")?;
    let cost: &mut [u32] = view_mut(b.rw[0], "szx_meta_cost.cost")?;
    let per_group = crate::kernels::workgroup_size(crate::kernels::Kernel::SzxMetaCost)? as usize;
    let nb = (p.nblocks as usize).min(groups as usize * per_group);
    need(meta.len() * 2 >= nb && cost.len() >= nb, "meta_cost sizes")?;
    for (blk, c) in cost.iter_mut().enumerate().take(nb) {
        let inf = (meta[blk / 2] >> ((blk & 1) * 16)) & 0xffff;
        *c = block_cost::<F>(inf, block_len(&p, blk as u32));
    }
    Ok(())
}

/// Twin of `szx_unpack`.
pub fn szx_unpack<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p = F::params(p)?;
    let meta: &[u32] = view(b.ro[0], "szx_unpack.meta")?;
    let offsets: &[u32] = view(b.ro[1], "szx_unpack.offsets")?;
    let pay: &[u32] = view(b.ro[2], "szx_unpack.payload_u")?;
    let out: &mut [u32] = view_mut(b.rw[0], "szx_unpack.out")?;
    let nb = team_blocks(p.nblocks, groups);
    let wt = F::WT as usize;
    let bs = p.block_size as usize;
    need(meta.len() * 2 >= nb && offsets.len() >= nb && out.len() >= p.n as usize * wt, "unpack sizes")?;
    let out = &mut out[..p.n as usize * wt];
    out.par_chunks_mut(bs * wt).enumerate().take(nb).try_for_each(|(blk, o)| -> Result<()> {
        let len = block_len(&p, blk as u32) as usize;
        let inf = (meta[blk / 2] >> ((blk & 1) * 16)) & 0xffff;
        let (typ, w) = (inf & 0xff, (inf >> 8) & 0xff);
        let off = (p.word_base + offsets[blk]) as usize;
        let cost = block_cost::<F>(inf, len as u32) as usize;
        need(off + cost <= pay.len(), "payload window too small")?;
        match typ {
            BT_RAW => o[..len * wt].copy_from_slice(&pay[off..off + len * wt]),
            BT_CONST => {
                for v in o.chunks_exact_mut(wt).take(len) {
                    v.copy_from_slice(&pay[off..off + wt]);
                }
            }
            _ => {
                let r: F = bytemuck::pod_read_unaligned(bytemuck::cast_slice(&pay[off..off + wt]));
                let base = off + wt;
                for (i, v) in o.chunks_exact_mut(wt).take(len).enumerate() {
                    let code = super::bitpack::extract_code(pay, base, i, w);
                    let x = dequant(code, r, &p);
                    v.copy_from_slice(&x.words()[..wt]);
                }
            }
        }
        Ok(())
    })
}

/// Twin of `szx_range_partial`.
pub fn szx_range_partial<F: SzxFloat>(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: RangeParams = params(p)?;
    let data_u: &[u32] = view(b.ro[0], "szx_range_partial.data_u")?;
    // b.ro[1] is the same data as vec4<u32> (the kernel's wide loads)
    let parts: &mut [u32] = view_mut(b.rw[0], "szx_range_partial.parts")?;
    let n = (p.n as usize).min(data_u.len() / F::WT as usize);
    let np = p.nparts.min(groups) as usize;
    let wt = F::WT as usize;
    need(parts.len() >= np * 2 * wt, "range parts")?;
    parts.par_chunks_mut(2 * wt).take(np).enumerate().for_each(|(pi, out)| {
        let (mut mn, mut mx) = (F::KEY_MAX, F::KEY_MIN);
        for i in (pi * RANGE_PER_GROUP).min(n)..((pi + 1) * RANGE_PER_GROUP).min(n) {
            let (k, c) = F::key_class(data_u, i);
            if c != 2 {
                mn = mn.min(k);
                mx = mx.max(k);
            }
        }
        out[..wt].copy_from_slice(&F::key_words(mn)[..wt]);
        out[wt..].copy_from_slice(&F::key_words(mx)[..wt]);
    });
    Ok(())
}

/// Twin of `szx_range_final`.
pub fn szx_range_final<F: SzxFloat>(p: &[u8], b: &mut Bindings, _groups: u32) -> Result<()> {
    let p: RangeParams = params(p)?;
    let parts: &[u32] = view(b.ro[0], "szx_range_final.parts")?;
    let result: &mut [u32] = view_mut(b.rw[0], "szx_range_final.result")?;
    let wt = F::WT as usize;
    need(parts.len() >= p.nparts as usize * 2 * wt && result.len() >= 2 * wt, "range final sizes")?;
    let (mut mn, mut mx) = (F::KEY_MAX, F::KEY_MIN);
    for pi in 0..p.nparts as usize {
        let s = &parts[pi * 2 * wt..];
        mn = mn.min(F::key_from_words(&s[..wt]));
        mx = mx.max(F::key_from_words(&s[wt..2 * wt]));
    }
    result[..wt].copy_from_slice(&F::key_words(mn)[..wt]);
    result[wt..2 * wt].copy_from_slice(&F::key_words(mx)[..wt]);
    Ok(())
}
