// The per-unit pieces of the SZx encoders (szx_encode, szx_encode8): a unit is four
// consecutive values of one lane, addressed by constant components so they stay in
// registers; their loads, min / max keys, codes and constant tests, on the flushing
// and the flush-free value paths. Requires the bindings data_u, data4, data_f, the
// params P, common/szx_math.wgsl, UNIT = 4 and F32_PATH.

// Four consecutive values starting at i0; only the first `n` (0..4) are in the block.
struct Unit {
    x: vec4<FT>,
    lo: vec4<u32>,
    hi: vec4<u32>,
    n: u32,
}

// The words (lo, hi) of element i (float32: the one word twice).
fn words_at(i: u32) -> vec2<u32> {
#ifdef F64
    return vec2<u32>(data_u[2u * i], data_u[2u * i + 1u]);
#else
    return vec2<u32>(data_u[i], data_u[i]);
#endif
}

// The 4 values of a unit are addressed by constant components (.x .. .w), never by a
// dynamic index, so they stay in registers.
fn load_unit(i0: u32, end: u32) -> Unit {
    var u: Unit;
    u.n = select(0u, min(UNIT, end - i0), i0 < end);
    u.lo = vec4<u32>(0u);
    u.hi = vec4<u32>(0u);
#ifdef F64
    let wide = u.n == UNIT && (i0 & 1u) == 0u;
    if (wide) {
        let a = data4[i0 / 2u];
        let b = data4[i0 / 2u + 1u];
        u.lo = vec4<u32>(a.x, a.z, b.x, b.z);
        u.hi = vec4<u32>(a.y, a.w, b.y, b.w);
    }
#else
    let wide = u.n == UNIT && (i0 & 3u) == 0u;
    if (wide) {
        u.lo = data4[i0 / 4u];
        u.hi = u.lo;
    }
#endif
    if (!wide) {
#ifndef F64
        // positions past the block hold a copy of its last value (end - 1), so the
        // float32 fold needs no mask (a copy changes no min, max or special flag);
        // nothing else reads them (codes, constant tests and raw stores take the
        // first n). end = 0: a team past the last block, whose results are not stored.
        if (u.n < UNIT) {
            u.lo = vec4<u32>(select(0u, data_u[max(end, 1u) - 1u], end > 0u));
        }
#endif
        // word by word (a block's ragged end, or units not 16-byte aligned)
        if (u.n > 0u) {
            let w = words_at(i0);
            u.lo.x = w.x;
            u.hi.x = w.y;
        }
        if (u.n > 1u) {
            let w = words_at(i0 + 1u);
            u.lo.y = w.x;
            u.hi.y = w.y;
        }
        if (u.n > 2u) {
            let w = words_at(i0 + 2u);
            u.lo.z = w.x;
            u.hi.z = w.y;
        }
        if (u.n > 3u) {
            let w = words_at(i0 + 3u);
            u.lo.w = w.x;
            u.hi.w = w.y;
        }
    }
#ifdef F64
    // no bitcast to f64 in WGSL: the values through the float view
    u.x = vec4<FT>(0.0);
    if (u.n > 0u) {
        u.x.x = data_f[i0];
    }
    if (u.n > 1u) {
        u.x.y = data_f[i0 + 1u];
    }
    if (u.n > 2u) {
        u.x.z = data_f[i0 + 2u];
    }
    if (u.n > 3u) {
        u.x.w = data_f[i0 + 3u];
    }
#else
    u.x = bitcast<vec4<f32>>(u.lo);
#endif
    return u;
}

#ifndef F64
// float32: load_unit's wide case without its bounds logic, for a caller that knows
// the four values at i0 (a multiple of 4) are inside the block (szx_encode8's full
// blocks).
fn full_unit(i0: u32) -> Unit {
    let lo = data4[i0 / 4u];
    return Unit(bitcast<vec4<f32>>(lo), lo, lo, UNIT);
}
#endif

// Running min/max keys of a team lane (float64: the index of each, to fetch the value).
struct MinMax {
    kmn: KT,
    kmx: KT,
    imn: u32,
    imx: u32,
    special: u32,
}

// A lane's fold before its first unit.
fn minmax_init() -> MinMax {
#ifdef F64
    return MinMax(KEY_MAX, KEY_MIN, 0xffffffffu, 0xffffffffu, 0u);
#else
    return MinMax(KEY_MAX, KEY_MIN, 0xffffffffu, 0xffffffffu, 0xffffffffu);
#endif
}

#ifdef F64
// float64: whether the lane's values hold a NaN, an infinity or a nonzero subnormal
// (the fold's flag; the encoders reduce it over the block).
fn lane_special(m: MinMax) -> bool {
    return m.special != 0u;
}
#else
// float32: whether a block with min / max keys kmn / kmx and least nonzero |x| bits
// minus one smin (MinMax.special, each reduced over the block's lanes) holds a NaN, an
// infinity or a nonzero subnormal.
fn keys_special(kmn: u32, kmx: u32, smin: u32) -> bool {
    return smin < 0x7fffffu || kmx >= 0xff800000u || kmn <= 0x007fffffu;
}
#endif

#ifdef F64
fn fold_one(m: ptr<function, MinMax>, lo: u32, hi: u32, i: u32) {
    let k = key_from_words(lo, hi);
    if (value_class(lo, hi) != 0u) {
        (*m).special = 1u;
    }
    if (key_lt(k, (*m).kmn) || (*m).imn == 0xffffffffu) {
        (*m).kmn = k;
        (*m).imn = i;
    }
    if (key_lt((*m).kmx, k) || (*m).imx == 0xffffffffu) {
        (*m).kmx = k;
        (*m).imx = i;
    }
}

fn fold_unit(m: ptr<function, MinMax>, u: Unit, i0: u32) {
    if (u.n > 0u) {
        fold_one(m, u.lo.x, u.hi.x, i0);
    }
    if (u.n > 1u) {
        fold_one(m, u.lo.y, u.hi.y, i0 + 1u);
    }
    if (u.n > 2u) {
        fold_one(m, u.lo.z, u.hi.z, i0 + 2u);
    }
    if (u.n > 3u) {
        fold_one(m, u.lo.w, u.hi.w, i0 + 3u);
    }
}
#else
// float32: the keys' plain min / max (the value comes back from its key, so no index
// is tracked), four at once with no mask (load_unit fills the positions past the
// block with a copy of its last value). Special (a NaN, an infinity, or a nonzero
// value below the smallest normal) is read off the block's results by keys_special: NaN and
// infinities have the extreme keys (>= +Inf's, <= -Inf's), and `special` holds the
// least |x| bits minus one, where zero wraps to 0xffffffff and subnormals land below
// 0x7fffff.
fn fold_unit(m: ptr<function, MinMax>, u: Unit, i0: u32) {
    let s = bitcast<vec4<u32>>(bitcast<vec4<i32>>(u.lo) >> vec4<u32>(31u));
    let k = u.lo ^ (s | vec4<u32>(0x80000000u));
    (*m).kmn = min((*m).kmn, min(min(k.x, k.y), min(k.z, k.w)));
    (*m).kmx = max((*m).kmx, max(max(k.x, k.y), max(k.z, k.w)));
    let a1 = (u.lo & vec4<u32>(0x7fffffffu)) - vec4<u32>(1u);
    (*m).special = min((*m).special, min(min(a1.x, a1.y), min(a1.z, a1.w)));
}
#endif

// Codes of a unit against reference r (0 past the block), and whether every one
// reconstructs its value within eb.
struct Codes {
    c: vec4<u32>,
    ok: bool,
}

// (code, ok) of value j of a unit; (0, ok) past the block
fn code_in(x: FT, j: u32, n: u32, r: FT, qlim: u32) -> vec2<u32> {
    if (j < n) {
        return code_of(x, r, qlim);
    }
    return vec2<u32>(0u, 1u);
}

fn unit_codes(u: Unit, r: FT, qlim: u32) -> Codes {
    let a = code_in(u.x.x, 0u, u.n, r, qlim);
    let b = code_in(u.x.y, 1u, u.n, r, qlim);
    let c = code_in(u.x.z, 2u, u.n, r, qlim);
    let d = code_in(u.x.w, 3u, u.n, r, qlim);
    return Codes(vec4<u32>(a.x, b.x, c.x, d.x), (a.y & b.y & c.y & d.y) == 1u);
}

fn const_in(x: FT, j: u32, n: u32, mid: FT) -> bool {
    return j >= n || within(x, mid);
}

fn unit_const_ok(u: Unit, mid: FT) -> bool {
    return const_in(u.x.x, 0u, u.n, mid) && const_in(u.x.y, 1u, u.n, mid) && const_in(u.x.z, 2u, u.n, mid) && const_in(u.x.w, 3u, u.n, mid);
}

// The flush-free value path (float32). For a block whose nonzero values all have
// magnitude >= T = max(2^-100, eb * 2^-90), with eb >= 2^-100 (not exact mode) and
// 1 / step normal, no per-value operation of the value path can land below MIN_NORMAL
// except at zero: every operand is zero or a multiple of at least 2^-124 (values >= T
// and the references mn, mn - eb/2, the midpoint and the reconstructions built from
// them), so every nonzero sum or difference is >= max(2^-124, eb * 2^-116); scaled
// by 1 / step = 1 / (2 eb) it is >= 2^-117 (normal), and the code is that product
// rounded to an integer. So each `ftz` would return its operand
// (a -0 instead of +0 changes no later result), and the codes and decisions are those
// of the flushing path. Signs play no part: every float of magnitude >= T is a
// multiple of g = ulp(T) >= max(2^-123, eb * 2^-114), and so are the block-level
// values built from them (mn, the half range, the midpoint, mn - eb/2, q * step),
// rounded or exact, however small the midpoint of a block that straddles zero is; so
// zeros and both signs may share a block. The twins (which always flush) check it bit
// for bit, also at magnitudes around T in blocks of one sign and of both
// (szx_encode_magnitude_edges). The condition is the block's least nonzero magnitude
// >= T, read off the fold's `special` reduced over the block (block_noflush). Until
// round 44 it was taken from the block's min / max (one sign and min(|mn|, |mx|) >= T),
// so every block that straddles zero took the flushing path: 4% of the blocks of
// bench's 2-D field at 1e-3, in 16% of szx_encode8's subgroups of four blocks, whose
// lanes then ran both paths. Block-level values (mn, mid, the shifted reference) keep
// the flushing operations on both paths, and szx_encode's units past the first keep
// the flushing path. T is noflush_min (common/szx_math.wgsl, shared with
// chain_encode's fast path).
fn quant_nf(x: FT, r: FT) -> FT {
    return round((x - r) * P.inv);
}
fn dequant_nf(q: u32, r: FT) -> FT {
    return (FT(q) * P.step) * P.one + r;
}
fn within_nf(x: FT, y: FT) -> bool {
    let a = abs(x - y);
    if (a < P.eb) {
        return true;
    }
    return a == P.eb && abs(x) >= P.eb && abs(y) >= P.eb && ((x < FT(0.0)) == (y < FT(0.0)));
}
fn code_of_nf(x: FT, r: FT, qlim: u32) -> vec2<u32> {
    let q = u32(quant_nf(x, r));
    if (within_nf(x, dequant_nf(q, r))) {
        return vec2<u32>(q, 1u);
    }
    if (q > 0u && within_nf(x, dequant_nf(q - 1u, r))) {
        return vec2<u32>(q - 1u, 1u);
    }
    if (q < qlim && within_nf(x, dequant_nf(q + 1u, r))) {
        return vec2<u32>(q + 1u, 1u);
    }
    return vec2<u32>(q, 0u);
}
fn code_in_nf(x: FT, j: u32, n: u32, r: FT, qlim: u32) -> vec2<u32> {
    if (j < n) {
        return code_of_nf(x, r, qlim);
    }
    return vec2<u32>(0u, 1u);
}
// The bound of the flush-free path's first test (unit_codes_nf) for a block whose values
// lie in [mn, mx], coded from a reference r that is mn or mn - step / 4 with codes up
// to qlim: lim = 1/2 - d, d = (qlim + 2) 2^-21 + M inv 2^-23, M = max(|mn|, |mx|).
// Claim: for t = (x - r) * inv and q = round(t) (rounded float32 operations, u = 2^-24,
// no flushing on this path), |t - q| <= lim implies |x - y| <= eb (1 - 2u) for the
// reconstruction y = (q * step) * one + r, so the full test |x - y| < eb passes too
// and code_of_nf returns the same q. Proof sketch (s = step = 2 eb exactly, inv =
// (1 + e) / s with |e| <= 1.01u):
//   x - r = s t (1 + h), |h| <= 3.02u (the subtraction, the product, inv's rounding);
//   y = (q s (1 + e3) + r)(1 + e4), |e3|, |e4| <= u; |r| <= M + s / 4;
//   0 <= t <= qlim + 1/2 (t is monotone in x and mx's code is <= qlim).
//   |x - y| / s <= |t - q| + 3.02u t + u q + u |y| / s (1 + 2u)
//              <= |t - q| + u (1.77 + 5.03 qlim + 1.0001 M inv)    (1 / s <= inv (1 + 1.02u)).
//   The target eb (1 - 2u) / s is 1/2 - u. A driver that fuses t - q into one rounding
//   of (x - r) inv - q tests a value at most u (qlim + 1.01) from t - q (which is exact
//   unfused: Sterbenz). So lim <= 1/2 - u (3.78 + 6.03 qlim + 1.0001 M inv) suffices;
//   d as computed is >= u (15.9 + 7.9 qlim + 1.99 M inv) (three roundings, or fewer
//   fused), and 1/2 - d is exact or off by at most 2^-27 = u / 8.
// So the first test only skips work: a unit it does not pass takes the full test, and
// the codes are those of the full test (which the twin runs alone) on every device.
// d >= 1/2 (M / eb above ~2^21) leaves every unit to the full test.
fn fast_lim(mn: FT, mx: FT, qlim: u32) -> FT {
    let m = max(abs(mn), abs(mx));
    let d = (FT(qlim) + FT(2.0)) * FT(4.76837158203125e-7) + (m * P.inv) * FT(1.1920928955078125e-7);
    return FT(0.5) - d;
}
// round(t), ties to even, as a float and as an integer, for 0 <= t < 2^23 (else
// unspecified; unit_codes_nf uses it only where its fast test passes, which implies
// t < 2^20: lim >= 0 only for qlim + 2 <= 2^20, and t <= qlim + 1/2; t >= 0 as r is
// the block's minimum).
struct Rounded {
    f: vec4<FT>,
    q: vec4<u32>,
}
fn round_small(t: vec4<FT>) -> Rounded {
#ifdef F64
    let f = round(t);
    return Rounded(f, vec4<u32>(f));
#else
#ifdef COALESCE
    // the CUDA-tuned form (Variant::coalesce): a rounding and a conversion instruction
    let f = round(t);
    return Rounded(f, vec4<u32>(f));
#else
    // no conversion instruction (through Vulkan, where naga also clamps before one):
    // s = t + 2^23 rounds to 2^23 + round(t), its spacing being 1 there, so s - 2^23
    // is round(t) exactly and s's bits less 2^23's are its integer. `* one` keeps a
    // driver that contracts from rounding t * inv + 2^23 once (it computes
    // fma(t, 1, 2^23)), and one that reassociates (lavapipe does) from folding
    // (t + 2^23) - 2^23 into t.
    let s = t * P.one + vec4<FT>(8388608.0);
    return Rounded(s * P.one - vec4<FT>(8388608.0), bitcast<vec4<u32>>(s) - vec4<u32>(0x4b000000u));
#endif
#endif
}
fn unit_codes_nf(u: Unit, r: FT, qlim: u32, lim: FT) -> Codes {
    if (u.n == UNIT) {
        // a full unit: every value's first candidate, kept when all four are at most
        // lim from their rounded quotient (fast_lim: then they reconstruct within eb;
        // the usual case), else when all four reconstruct strictly within eb (what
        // code_of_nf returns then), each computed as one vector with no branch per
        // value; else value by value below
        let t = (u.x - vec4<FT>(r)) * P.inv;
        let fr = round_small(t);
        if (all(abs(t - fr.f) <= vec4<FT>(lim))) {
            return Codes(fr.q, true);
        }
        let q = vec4<u32>(round(t));
        let y = (vec4<FT>(q) * P.step) * P.one + vec4<FT>(r);
        if (all(abs(u.x - y) < vec4<FT>(P.eb))) {
            return Codes(q, true);
        }
    }
    let a = code_in_nf(u.x.x, 0u, u.n, r, qlim);
    let b = code_in_nf(u.x.y, 1u, u.n, r, qlim);
    let c = code_in_nf(u.x.z, 2u, u.n, r, qlim);
    let d = code_in_nf(u.x.w, 3u, u.n, r, qlim);
    return Codes(vec4<u32>(a.x, b.x, c.x, d.x), (a.y & b.y & c.y & d.y) == 1u);
}
fn const_in_nf(x: FT, j: u32, n: u32, mid: FT) -> bool {
    return j >= n || within_nf(x, mid);
}
fn unit_const_ok_nf(u: Unit, mid: FT) -> bool {
    // a full unit strictly within eb of the midpoint (the usual constant block) in one
    // vector test; else value by value (the tie rule)
    if (u.n == UNIT && all(abs(u.x - vec4<FT>(mid)) < vec4<FT>(P.eb))) {
        return true;
    }
    return const_in_nf(u.x.x, 0u, u.n, mid) && const_in_nf(u.x.y, 1u, u.n, mid) && const_in_nf(u.x.z, 2u, u.n, mid) && const_in_nf(u.x.w, 3u, u.n, mid);
}

// The value whose key is k.
#ifdef F64
fn value_of_key(k: KT, i: u32) -> FT {
    return data_f[i];
}
#else
fn value_of_key(k: KT, i: u32) -> FT {
    return bitcast<f32>(select(~k, k ^ 0x80000000u, (k & 0x80000000u) != 0u));
}
#endif

// The code levels of a block from reference r to its largest value mx: whether its
// largest code fits below 2^MAXW (ok), its width w and the largest code width w allows.
struct Levels {
    ok: bool,
    w: u32,
    qlim: u32,
}

fn levels(mx: FT, r: FT) -> Levels {
    let qf = quant(mx, r);
    let ok = qf < P.two_maxw;
    var q = 0u;
    if (ok) {
        q = u32(qf);
    }
    let w = 32u - countLeadingZeros(q);
    return Levels(ok, w, width_limit(w));
}

// The reference of the retry for a block whose codes failed from its minimum: the
// levels shifted down by a quarter step (the CPU twin's classify_block).
fn shifted_ref(mn: FT) -> FT {
    return subr(mn, mulr(P.step, FT(0.25)));
}

// A block's midpoint (the constant block's value), whether it may be constant, and its
// code levels from its minimum: the decisions of the CPU twin's classify_block, shared
// by the encoders. May be constant: a computed range d = ftz(mx - mn) <= step = 2 eb
// (exact: eb + eb). A constant block has every value within eb of the midpoint, exactly
// (within / within_nf decide |x - mid| <= eb exactly), so its exact range is <= 2 eb,
// and d, rounded (monotone) and perhaps flushed, is <= 2 eb too: a block with d > step
// is not constant, and skipping its value test changes no decision. The twin keeps the
// looser pre-filter d <= 2 step (until round 45 the kernels' too, so that every block
// with a range in (2 eb, 4 eb] ran the value test, in 29% of szx_encode8's subgroups
// on bench's 2-D field), so the twin tests check this equivalence on their data.
struct Basics {
    mid: FT,
    maybe_const: bool,
    lv: Levels,
}

fn block_basics(mn: FT, mx: FT) -> Basics {
    let d = subr(mx, mn);
    let half = select(mulr(d, FT(0.5)), FT(0.0), d < P.tiny);
    return Basics(addr(mn, half), !(d > P.step), levels(mx, mn));
}

// Whether a float32 block takes the flush-free value path: no NaN / infinity /
// subnormal, not exact mode, 1 / step normal, and no nonzero magnitude below
// noflush_min (see the flush-free path above). smin: the block's least nonzero |x|
// bits minus one (MinMax.special reduced over the block; 0xffffffff when every value
// is zero, where smin + 1 wraps to 0, below T's bits: the flushing path); unused for
// float64.
fn block_noflush(any_special: bool, smin: u32) -> bool {
    return F32_PATH && !any_special && P.exact == 0u && P.inv >= MIN_NORMAL && smin + 1u >= bitcast<u32>(f32(noflush_min()));
}
