// szx_encode: SZx compression of each block in one pass over the data. One team (a
// subgroup, or the workgroup without subgroups; see common/team.wgsl) per block,
// blocks walked grid-stride. Each lane holds UNIT = 4 consecutive values per unit
// (a team's unit covers 4 * team-size values, a multiple of 32, so a unit's codes fill
// whole words); the block's first unit stays in registers from the load to the pack.
// Per block: min/max (integer keys), the block type (constant: midpoint within eb of
// every value; quantized: reference = min, fixed-width codes, every reconstruction
// verified within eb; raw otherwise), written as info[b] = type | width << 8, refs[b],
// cost[b] (payload words); and the block's body in its own slot of the `slots` buffer
// (block b at word b * block_size * WT): the packed codes (quantized) or the values
// (raw); a constant block has no body. szx_compact then moves the bodies to their
// scanned offsets. Writes exactly those words: the rest of `slots` is left untouched.
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> data_f: array<FT>;
@group(0) @binding(4) var<storage, read_write> info: array<u32>;
@group(0) @binding(5) var<storage, read_write> refs: array<FT>;
@group(0) @binding(6) var<storage, read_write> cost: array<u32>;
@group(0) @binding(7) var<storage, read_write> slots: array<u32>;

#include "common/szx_math.wgsl"

const WG: u32 = 256u;
const UNIT: u32 = 4u;
#ifdef F64
const F32_PATH: bool = false;
#else
const F32_PATH: bool = true;
#endif
#include "common/team.wgsl"

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

// Running min/max keys of a team lane (float64: the index of each, to fetch the value).
struct MinMax {
    kmn: KT,
    kmx: KT,
    imn: u32,
    imx: u32,
    special: u32,
}

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
// is tracked; a key equal to the initial KEY_MAX / KEY_MIN is a NaN, and a block with
// one goes raw whatever its min / max), four at once; positions past the block are
// neutral (KEY_MAX for the min, KEY_MIN for the max). Special: |x| bits >= Inf's, or
// a nonzero value below the smallest normal.
fn fold_unit(m: ptr<function, MinMax>, u: Unit, i0: u32) {
    let neg = (u.lo & vec4<u32>(0x80000000u)) != vec4<u32>(0u);
    let k = select(u.lo ^ vec4<u32>(0x80000000u), ~u.lo, neg);
    let valid = vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(u.n);
    let kn = select(vec4<u32>(KEY_MAX), k, valid);
    let kx = select(vec4<u32>(KEY_MIN), k, valid);
    (*m).kmn = min((*m).kmn, min(min(kn.x, kn.y), min(kn.z, kn.w)));
    (*m).kmx = max((*m).kmx, max(max(kx.x, kx.y), max(kx.z, kx.w)));
    let a = u.lo & vec4<u32>(0x7fffffffu);
    let sp = valid & ((a >= vec4<u32>(0x7f800000u)) | ((a - vec4<u32>(1u)) < vec4<u32>(0x7fffffu)));
    if (any(sp)) {
        (*m).special = 1u;
    }
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
// by 1 / step = 1 / (2 eb) it is >= 2^-117 (normal); adding 0.5 to a
// number near -0.5 leaves a multiple of 2^-25. So each `ftz` would return its operand
// (a -0 instead of +0 changes no later result), and the codes and decisions are those
// of the flushing path; the twins (which always flush) check it bit for bit, also at
// magnitudes around T in blocks of one sign (szx_encode_magnitude_edges). The
// condition is taken from the block's min / max: one sign and a smallest magnitude
// >= T (a block that straddles zero keeps the flushing path). Block-level values
// (mn, mid, the shifted reference) and the units past the first keep it too. T is
// noflush_min (common/szx_math.wgsl, shared with chain_encode's fast path).
fn quant_nf(x: FT, r: FT) -> FT {
    return floor(((x - r) * P.inv) * P.one + FT(0.5));
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
fn unit_codes_nf(u: Unit, r: FT, qlim: u32) -> Codes {
    if (u.n == UNIT) {
        // a full unit: every value's first candidate, kept when all four reconstruct
        // strictly within eb (what code_of_nf returns then; the usual case), computed
        // as one vector with no branch per value; else value by value below
        let q = vec4<u32>(floor(((u.x - vec4<FT>(r)) * P.inv) * P.one + vec4<FT>(0.5)));
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

// The 32-bit value v placed at bit o of a word (o may be negative: low bits dropped).
fn piece(v: u32, o: i32) -> u32 {
    // branch-free: WGSL shifts use the amount modulo 32, the selects discard those
    let l = v << (u32(o) & 31u);
    let r = v >> (u32(-o) & 31u);
    return select(0u, select(r, l, o >= 0), o < 32 && o > -32);
}

// The 4 codes of a lane as one bit string of 4 * w bits (w <= 32), LSB first, in
// `parts` = ceil(4 w / 32) words (the others 0).
fn code_string(c: vec4<u32>, w: u32, parts: u32) -> vec4<u32> {
    let o = vec4<i32>(0, i32(w), i32(2u * w), i32(3u * w));
    var s = vec4<u32>(0u);
    s.x = piece(c.x, o.x) | piece(c.y, o.y) | piece(c.z, o.z) | piece(c.w, o.w);
    if (parts > 1u) {
        s.y = piece(c.x, o.x - 32) | piece(c.y, o.y - 32) | piece(c.z, o.z - 32) | piece(c.w, o.w - 32);
    }
    if (parts > 2u) {
        s.z = piece(c.x, o.x - 64) | piece(c.y, o.y - 64) | piece(c.z, o.z - 64) | piece(c.w, o.w - 64);
    }
    if (parts > 3u) {
        s.w = piece(c.x, o.x - 96) | piece(c.y, o.y - 96) | piece(c.z, o.z - 96) | piece(c.w, o.w - 96);
    }
    return s;
}

// Bits [o, o + 32) of a 128-bit string held in its first `parts` words (zeros
// outside it).
fn bits_at(s: vec4<u32>, o: i32, parts: u32) -> u32 {
    var r = piece(s.x, -o);
    if (parts > 1u) {
        r = r | piece(s.y, 32 - o) | piece(s.z, 64 - o) | piece(s.w, 96 - o);
    }
    return r;
}

#ifdef SUBGROUP
fn team_string(lane: u32, s: vec4<u32>, m: u32, parts: u32) -> vec4<u32> {
    var r = vec4<u32>(0u);
    r.x = subgroupShuffle(s.x, m);
    if (parts > 1u) {
        r.y = subgroupShuffle(s.y, m);
    }
    if (parts > 2u) {
        r.z = subgroupShuffle(s.z, m);
    }
    if (parts > 3u) {
        r.w = subgroupShuffle(s.w, m);
    }
    return r;
}
fn team_word(lane: u32, s: u32, m: u32) -> u32 {
    return subgroupShuffle(s, m);
}
fn team_publish(lane: u32, s: vec4<u32>) {}
fn team_done() {}
#else
var<workgroup> s_str: array<vec4<u32>, WG>;
fn team_publish(lane: u32, s: vec4<u32>) {
    s_str[lane] = s;
    workgroupBarrier();
}
fn team_string(lane: u32, s: vec4<u32>, m: u32, parts: u32) -> vec4<u32> {
    return s_str[m];
}
fn team_word(lane: u32, s: u32, m: u32) -> u32 {
    return s_str[m].x;
}
fn team_done() {
    workgroupBarrier();
}
#endif

// The lanes whose strings reach one output word, for a width w in 1..32 (no
// division): exactly 32 / (4 w) when a lane's 4 w bits divide a word (w = 1, 2, 4,
// 8), one when a word lies inside a lane's string (w a multiple of 8), else at most
// 8 / w + 2 (w = 3: 4; w = 5, 6, 7: 3; w > 8: 2).
fn pack_span(w: u32) -> u32 {
    if (w <= 8u) {
        if ((w & (w - 1u)) == 0u) {
            return 8u >> countTrailingZeros(w);
        }
        return select(3u, 4u, w == 3u);
    }
    return select(2u, 1u, (w & 7u) == 0u);
}

// Packs a unit's codes (lane `lane` holds values 4 * lane .. + 3 of the unit) into the
// slot words [wbase + k * ts * w / 8 ..), stopping at word `nw` of the block. Output
// word j ORs the strings of the lanes that reach it, from lane m0 = 8 j / w on.
fn pack_unit(lane: u32, ts: u32, c: vec4<u32>, w: u32, k: u32, base: u32, nw: u32) {
    let unit_words = ts * w / 8u;
    let wofs = k * unit_words;
    let wm = max(w, 1u);
    let lw = UNIT * wm;
    let span = pack_span(wm);
    if (w <= 8u) {
        // a lane's string fits one word (the codes are below 2^w)
        let s = c.x | (c.y << w) | (c.z << (2u * w)) | (c.w << (3u * w));
        team_publish(lane, vec4<u32>(s, 0u, 0u, 0u));
        for (var j0 = 0u; j0 < unit_words; j0 += ts) {
            let j = j0 + lane;
            let m0 = (8u * j) / wm;
            // bit of lane m0's string where word j starts (below lw)
            let o = 32u * j - lw * m0;
            // lane m0's string from bit o (m0 < ts for every stored word), then the
            // next lanes' strings shifted left while they start inside the word
            var word = team_word(lane, s, min(m0, ts - 1u)) >> o;
            for (var t = 1u; t < span; t++) {
                let sh = lw * t - o;
                let sm = team_word(lane, s, min(m0 + t, ts - 1u));
                word = word | select(0u, sm << (sh & 31u), sh < 32u && m0 + t < ts);
            }
            if (j < unit_words && wofs + j < nw) {
                slots[base + wofs + j] = word;
            }
        }
        team_done();
        return;
    }
    let parts = (UNIT * w + 31u) / 32u;
    let s = code_string(c, w, parts);
    team_publish(lane, s);
    for (var j0 = 0u; j0 < unit_words; j0 += ts) {
        let j = j0 + lane;
        let m0 = (8u * j) / wm;
        var word = 0u;
        for (var t = 0u; t < span; t++) {
            let m = min(m0 + t, ts - 1u);
            let sm = team_string(lane, s, m, parts);
            if (m0 + t < ts) {
                word = word | bits_at(sm, i32(32u * j) - i32(lw * (m0 + t)), parts);
            }
        }
        if (j < unit_words && wofs + j < nw) {
            slots[base + wofs + j] = word;
        }
    }
    team_done();
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

// u0: the block's first unit, loaded by the caller (ahead of time).
fn encode_block(b: u32, lane: u32, ts: u32, u0: Unit) {
    let start = b * P.block_size;
    let len = block_len(b);
    let end = start + len;
    let step_u = UNIT * ts;
    let units = (len + step_u - 1u) / step_u;

    // pass 1: min / max keys; the first unit stays in registers
    var mm = MinMax(KEY_MAX, KEY_MIN, 0xffffffffu, 0xffffffffu, 0u);
    fold_unit(&mm, u0, start + UNIT * lane);
    for (var k = 1u; k < units; k++) {
        let i0 = start + k * step_u + UNIT * lane;
        fold_unit(&mm, load_unit(i0, end), i0);
    }
    let any_special = team_any(lane, mm.special != 0u);
    let kmin = team_min_key(lane, mm.kmn);
    let kmax = team_max_key(lane, mm.kmx);
#ifdef F64
    // no bitcast to f64 in WGSL: fetch the value at an index holding the key
    let imin = team_min(lane, select(0xffffffffu, mm.imn, mm.imn != 0xffffffffu && key_eq(mm.kmn, kmin)));
    let imax = team_min(lane, select(0xffffffffu, mm.imx, mm.imx != 0xffffffffu && key_eq(mm.kmx, kmax)));
#else
    let imin = 0u;
    let imax = 0u;
#endif
    let mn = value_of_key(kmin, imin);
    let mx = value_of_key(kmax, imax);

    var typ = BT_RAW;
    var width = 0u;
    var r = FT(0.0);
    var c0 = vec4<u32>(0u);
    // float32 blocks with no small magnitudes take the flush-free value path
    // (a block of one sign whose smallest magnitude is >= T has no small magnitude;
    // a block that straddles zero takes the flushing path)
    let tsmall = noflush_min();
    let noflush = F32_PATH && !any_special && P.exact == 0u && P.inv >= MIN_NORMAL && (mn >= tsmall || mx <= -tsmall);
    if (!any_special) {
        if (P.exact == 1u) {
            if (key_eq(kmin, kmax)) {
                typ = BT_CONST;
                r = mn;
            }
        } else {
            // pass 2: verify (same decisions as the CPU twin's classify_block)
            let d = subr(mx, mn);
            let half = select(mulr(d, FT(0.5)), FT(0.0), d < P.tiny);
            let mid = addr(mn, half);
            let qmaxf = quant(mx, mn);
            var qok = qmaxf < P.two_maxw;
            var qmax = 0u;
            if (qok) {
                qmax = u32(qmaxf);
            }
            var w = 32u - countLeadingZeros(qmax);
            let qlim = width_limit(w);
            // a range above 4 eb (2 steps; exact) cannot be a constant block
            let maybe_const = !(d > P.step * FT(2.0));
            // constant first: the constant test (one team AND) before any code, and a
            // constant block computes none (it wins over a quantized one, as in the
            // twin). The rest keeps the layout of the combined pass.
            var cok = false;
            if (maybe_const) {
                if (noflush) {
                    cok = unit_const_ok_nf(u0, mid);
                } else {
                    cok = unit_const_ok(u0, mid);
                }
                for (var k = 1u; k < units; k++) {
                    cok = cok && unit_const_ok(load_unit(start + k * step_u + UNIT * lane, end), mid);
                }
                cok = team_all(lane, cok);
            }
            // a constant block skips the codes and the second team reduction
            var flags = 1u;
            if (!cok) {
                if (qok) {
                    var cs: Codes;
                    if (noflush) {
                        cs = unit_codes_nf(u0, mn, qlim);
                    } else {
                        cs = unit_codes(u0, mn, qlim);
                    }
                    c0 = cs.c;
                    qok = cs.ok;
                }
                for (var k = 1u; k < units; k++) {
                    if (qok) {
                        qok = unit_codes(load_unit(start + k * step_u + UNIT * lane, end), mn, qlim).ok;
                    }
                }
                flags = select(0u, 2u, team_all(lane, qok));
            }
            var rq = mn;
            var quant_ok = (flags & 2u) != 0u;
            if (flags == 0u) {
                // quarter-step shift of the levels (see the CPU twin)
                let r2 = subr(mn, mulr(P.step, FT(0.25)));
                let qf2 = quant(mx, r2);
                var ok2 = qf2 < P.two_maxw;
                var qmax2 = 0u;
                if (ok2) {
                    qmax2 = u32(qf2);
                }
                let w2 = 32u - countLeadingZeros(qmax2);
                let qlim2 = width_limit(w2);
                var c2 = vec4<u32>(0u);
                if (ok2) {
                    let cs = unit_codes(u0, r2, qlim2);
                    c2 = cs.c;
                    ok2 = cs.ok;
                }
                for (var k = 1u; k < units; k++) {
                    if (ok2) {
                        ok2 = unit_codes(load_unit(start + k * step_u + UNIT * lane, end), r2, qlim2).ok;
                    }
                }
                if (team_all(lane, ok2)) {
                    quant_ok = true;
                    rq = r2;
                    w = w2;
                    c0 = c2;
                }
            }
            if ((flags & 1u) != 0u) {
                typ = BT_CONST;
                r = mid;
            } else if (quant_ok && block_cost(BT_QUANT | (w << 8u), len) < len * WT) {
                typ = BT_QUANT;
                width = w;
                r = rq;
            }
        }
    }
    let inf = typ | (width << 8u);
    if (lane == 0u) {
        info[b] = inf;
        refs[b] = r;
        cost[b] = block_cost(inf, len);
    }
    let base = start * WT;
    if (typ == BT_RAW) {
        for (var j = lane; j < len * WT; j += ts) {
            slots[base + j] = data_u[base + j];
        }
    } else if (typ == BT_QUANT) {
        let nw = (len * width + 31u) / 32u;
        let qlim = width_limit(width);
        pack_unit(lane, ts, c0, width, 0u, base, nw);
        for (var k = 1u; k < units; k++) {
            let cs = unit_codes(load_unit(start + k * step_u + UNIT * lane, end), r, qlim);
            pack_unit(lane, ts, cs.c, width, k, base, nw);
        }
    }
}

@compute @workgroup_size(WG)
fn szx_encode(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    let stride = team_stride(t, nwg);
    var b = team_first(t, wid, nwg);
#ifdef SUBGROUP
    // the next block's first unit is loaded before this block is encoded, so its
    // memory latency overlaps the work (the host may dispatch fewer workgroups than
    // blocks / teams)
    var next = load_unit(b * P.block_size + UNIT * t.x, select(0u, b * P.block_size + block_len(b), b < P.nblocks));
    while (b < P.nblocks) {
        let u0 = next;
        let bn = b + stride;
        if (bn < P.nblocks) {
            next = load_unit(bn * P.block_size + UNIT * t.x, bn * P.block_size + block_len(bn));
        }
        encode_block(b, t.x, t.y, u0);
        b = bn;
    }
#else
    // workgroup teams (barriers inside): the host dispatches one workgroup per block
    // (walking ~1250 blocks, a workgroup reached llvmpipe's 65535-iteration loop limit)
    for (; b < P.nblocks; b += stride) {
        let start = b * P.block_size;
        encode_block(b, t.x, t.y, load_unit(start + UNIT * t.x, start + block_len(b)));
    }
#endif
}
