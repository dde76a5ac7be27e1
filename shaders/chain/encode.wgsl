// chain_encode: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, in one pass over
// the field (chain_compact then moves the block bodies to their scanned offsets). Each
// invocation holds LANE = 32 consecutive values of a row and walks P.walk rows (2-D) or
// planes (3-D, at a fixed row) of one Lorenzo tile (the host picks P.walk so that the
// field still gives enough invocations), keeping the previous row's (plane's)
// differences in registers, so every value is quantized once (plus the left neighbour
// of each invocation's first value, and in 3-D the row above). Per row step, the
// Lorenzo residuals of the 32 values give their AdaptiveBitpack block's width (a block
// is block_size / 32 invocations: subgroup shuffles, or workgroup memory), and the
// invocation packs its 32 codes into exactly `w` words of its unit's slot (word k of
// unit t = i / 32 at unit_slot(t, k): the units interleaved in groups of 32,
// common/chain_slots.wgsl; 32 codes of w bits are w whole words, so no invocation
// shares a word). Writes widths[b], cost[b] (payload words), the slot words, with centering the
// tile heads, and the Quantizer's outlier mask (bit j of word i / 32 for value i) and
// outlier counts per 256 values (qmask[counts_at + i / 256], added atomically to zeroed
// counts; quant_encode's outputs, so the Quantizer only scans and scatters) — the
// staged stages' values (tests/fusion.rs). Where tx, or in 2-D/3-D nx, is not a
// multiple of 32, the host runs chain_encode_flat (this file with FLAT), whose
// invocations hold flat units instead (the field's values 32 g .. 32 g + 31 across
// rows, tiles and planes, each neighbour term taken per value through masks, tile heads
// where a value has no neighbour in its tile; one plane, so values are quantized twice
// in 2-D and four times in 3-D). Preconditions (the host checks them, else it runs
// chain_width / chain_pack): block_size a power of two in [32, 32 * WG]; chain_encode:
// tx and, in 2-D/3-D, nx multiples of 32; chain_encode_flat: not both, and P.walk = 1;
// unless P.walk = 1, nx (2-D) or nx * ny (3-D) a multiple of block_size (with P.walk = 1 a block may straddle rows: invocations then
// go in the field's order; a 3-D step covers whole planes, so there blocks may
// straddle rows at any walk); P.walk divides ty (2-D) or tz (3-D); base = 0 (the whole
// field in one dispatch); n below 2^31 (rows above the field's first wrap to indices
// past n).
//
// Bounds: the kernel keeps every access to its storage bindings inside them itself.
// Once per invocation it tests that the data, width, cost, slot and outlier windows
// hold the field (values below n, blocks below ceil(n / block_size), slot words below
// slots_needed: whole groups of 32 units of 32 values; mask and count
// words); an invocation whose windows do not does
// nothing (but keeps to the barriers). A tile head's store tests its index. The CUDA
// translation relies on that instead of checking each access:
// cuda-guarded: data_u data4 data_f widths cost slots means qmask
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_params.wgsl"
#include "common/lorenzo_tiles.wgsl"
#include "common/chain_slots.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> data_f: array<FT>;
@group(0) @binding(4) var<storage, read_write> widths: array<u32>;
@group(0) @binding(5) var<storage, read_write> cost: array<u32>;
@group(0) @binding(6) var<storage, read_write> slots: array<u32>;
@group(0) @binding(7) var<storage, read_write> means: array<u32>;
@group(0) @binding(8) var<storage, read_write> qmask: array<atomic<u32>>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"

const WG: u32 = 64u;
const LANE: u32 = 32u;

// chain_encode_flat (the host's kernels::chain::encode_flat geometries): every FLAT
// branch folds away in chain_encode
#ifdef FLAT
const FLAT: bool = true;
#else
const FLAT: bool = false;
#endif
// chain_encode_3d / chain_encode_flat_3d (THREE_D; the host's kernels::chain::encode_kernel
// for nz > 1): the only forms with a 3-D walk and plane_d's second row. The others
// take nz = 1 only (an invocation of a dispatch with nz > 1 does nothing) and quantize
// one row per step with no loop, so they do not keep the first row's 32 values live
// across a second row's quantization (nor a loop counter for it).
#ifdef THREE_D
const THREE_D: bool = true;
#else
const THREE_D: bool = false;
#endif
// chain_encode_1d (ONE_D; kernels::chain::encode_kernel for ny = nz = 1 in whole
// units): one step per invocation, no walk. A 1-D field has no row before a step's, so
// nothing is carried between steps: without the walk's loop the kernel holds no
// previous step (NVRTC sm_90: 63 registers against 128). Takes ny = nz = 1 only (an
// invocation of another dispatch does nothing).
#ifdef ONE_D
const ONE_D: bool = true;
#else
const ONE_D: bool = false;
#endif

#include "common/v32.wgsl"

// AdaptiveBitpack's unsigned values (zigzag for int32 input)
fn packed4(v: vec4<u32>) -> vec4<u32> {
    if (P.bzigzag == 1u) {
        let q = bitcast<vec4<i32>>(v);
        return bitcast<vec4<u32>>((q << vec4<u32>(1u)) ^ (q >> vec4<u32>(31u)));
    }
    return v;
}

fn v32_packed(a: V32) -> V32 {
    return V32(packed4(a.v0), packed4(a.v1), packed4(a.v2), packed4(a.v3), packed4(a.v4), packed4(a.v5), packed4(a.v6), packed4(a.v7));
}

// Outlier bits of the values quantized by codes4 (bit 4 * k + j for value j of the
// k-th call since the caller cleared it).
var<private> q_bad: u32;
var<private> q_at: u32;

// float32: the flush-free threshold of codes4's fast path (set once by the entry
// point). With eb >= 2^-100 and 1 / (2 eb) normal, for a value x that is zero or
// finite with |x| >= T = max(2^-100, eb * 2^-90), no operation of quantize_bits' first
// candidate lands below MIN_NORMAL except at zero: x * inv is 0 or >= 2^-92 in
// magnitude, adding 0.5 leaves 0 or a multiple of 2^-114, q * step is 0 or >= step,
// and x - q * step is a multiple of 2^-123 (x and q * step are multiples of it). So
// every `ftz` of quantize_bits returns its operand and the vector form computes the
// same q (the twins, which always flush, check it bit for bit). Otherwise +Inf (only
// zeros take the fast path: their q is 0 either way).
var<private> q_tn: FT;

fn nf_threshold() -> FT {
#ifdef F64
    return FT(0.0);
#else
    if (P.eb >= ldexp(1.0, -100) && P.inv >= MIN_NORMAL) {
        return noflush_min();
    }
    return bitcast<f32>(0x7f800000u);
#endif
}

// The largest |code| (exclusive) codes4's fast path takes: the quantizer's limit, and
// without COALESCE at most 2^22, where its integer comes off a float sum's bits (units
// with larger codes take quantize_bits, which computes the same codes).
fn fast_qlim() -> FT {
#ifdef COALESCE
    return P.limit;
#else
    return min(P.limit, FT(4194304.0));
#endif
}

// The code of quantization result q for value j of the current group of four; past
// P.n (`valid` false) the code is 0 and no outlier is noted.
fn cq(q: vec2<i32>, j: u32, valid: bool) -> u32 {
    if (valid && q.y != 1i) {
        q_bad = q_bad | (1u << (q_at + j));
    }
    return select(0u, code_of_q(q.x), valid);
}

// The Quantizer's codes of values i .. i + 3 (0 past P.n); notes their outliers in
// q_bad at bits q_at .. q_at + 3, then advances q_at by 4. One quantization per value
// whichever way the values are loaded (one 16-byte load when the four are inside and
// aligned, else one by one): the kernel's code stays half as long as with a second,
// per-value quantizing path for the tails.
fn codes4(i: u32, pre: vec4<u32>) -> vec4<u32> {
#ifdef F64
    var lo = vec4<u32>(0u);
    var hi = vec4<u32>(0u);
    var x0 = 0.0lf;
    var x1 = 0.0lf;
    var x2 = 0.0lf;
    var x3 = 0.0lf;
#ifdef FLAT
    if (i < P.n && i + 4u <= P.n && (i & 1u) == 0u) {
#else
    if (i + 4u <= P.n && (i & 1u) == 0u) {
#endif
        let a = data4[i / 2u];
        let b = data4[i / 2u + 1u];
        lo = vec4<u32>(a.x, a.z, b.x, b.z);
        hi = vec4<u32>(a.y, a.w, b.y, b.w);
        x0 = data_f[i];
        x1 = data_f[i + 1u];
        x2 = data_f[i + 2u];
        x3 = data_f[i + 3u];
    } else {
        if (i < P.n) {
            lo.x = data_u[2u * i];
            hi.x = data_u[2u * i + 1u];
            x0 = data_f[i];
        }
        if (i + 1u < P.n) {
            lo.y = data_u[2u * i + 2u];
            hi.y = data_u[2u * i + 3u];
            x1 = data_f[i + 1u];
        }
        if (i + 2u < P.n) {
            lo.z = data_u[2u * i + 4u];
            hi.z = data_u[2u * i + 5u];
            x2 = data_f[i + 2u];
        }
        if (i + 3u < P.n) {
            lo.w = data_u[2u * i + 6u];
            hi.w = data_u[2u * i + 7u];
            x3 = data_f[i + 3u];
        }
    }
    let c = vec4<u32>(cq(quantize_bits(x0, lo.x, hi.x), 0u, i < P.n), cq(quantize_bits(x1, lo.y, hi.y), 1u, i + 1u < P.n),
                      cq(quantize_bits(x2, lo.z, hi.z), 2u, i + 2u < P.n), cq(quantize_bits(x3, lo.w, hi.w), 3u, i + 3u < P.n));
#else
    var w = vec4<u32>(0u);
#ifdef FLAT
    let s = i & 3u;
    let a = i - s;
    if (i < P.n && i + 4u <= P.n && s == 0u) {
        w = data4[i / 4u];
    } else if (i < P.n && a + 8u <= P.n) {
        // four values that are not 16-byte aligned (a flat unit's row or plane above
        // when nx or nx * ny is not a multiple of 4; s is the same in every invocation
        // of the dispatch): two aligned loads and a shift, not four scalar loads
        let lo = data4[a / 4u];
        let hi = data4[a / 4u + 1u];
        w = select(select(vec4<u32>(lo.w, hi.x, hi.y, hi.z), vec4<u32>(lo.z, lo.w, hi.x, hi.y), s == 2u),
                   vec4<u32>(lo.y, lo.z, lo.w, hi.x), s == 1u);
    } else {
#else
    if (i + 4u <= P.n && (i & 3u) == 0u) {
#ifdef QUAD_LOADS
        w = pre;
#else
        w = data4[i / 4u];
#endif
    } else {
#endif
        if (i < P.n) {
            w.x = data_u[i];
        }
        if (i + 1u < P.n) {
            w.y = data_u[i + 1u];
        }
        if (i + 2u < P.n) {
            w.z = data_u[i + 2u];
        }
        if (i + 3u < P.n) {
            w.w = data_u[i + 3u];
        }
    }
    let x = bitcast<vec4<f32>>(w);
#ifdef FLAT
    if (i < P.n && i + 4u <= P.n) {
#else
    if (i + 4u <= P.n) {
#endif
        // flush-free fast path: four values that are finite with |x| >= q_tn or zero
        // take quantize_bits' first candidate as one vector, kept when all four are
        // inside the code limit and reconstruct strictly within eb (no outliers then)
        let ax = w & vec4<u32>(0x7fffffffu);
        let qf = floor((x * P.inv) * P.one + vec4<f32>(0.5));
        if (all(ax < vec4<u32>(0x7f800000u)) && all((abs(x) >= vec4<f32>(q_tn)) | (ax == vec4<u32>(0u))) && all(abs(qf) < vec4<f32>(fast_qlim()))) {
#ifdef COALESCE
            // the CUDA-tuned form (its 2-D walk): a conversion instruction each way
            let q = vec4<i32>(qf);
            let y = (vec4<f32>(q) * P.step) * P.one;
#else
            // i32(qf) with no conversion instruction (naga clamps before one): qf is an
            // integer below 2^22 in magnitude (fast_qlim), so qf + 1.5 * 2^23 is exact
            // and its bits less 1.5 * 2^23's are q; `* one` keeps a driver from
            // reassociating the sum. qf itself is vec4<f32>(q) exactly.
            let q = bitcast<vec4<i32>>(qf * P.one + vec4<f32>(12582912.0)) - vec4<i32>(0x4b400000);
            let y = (qf * P.step) * P.one;
#endif
            if (all(abs(x - y) < vec4<f32>(P.eb))) {
                q_at += 4u;
                return vec4<u32>(code_of_q(q.x), code_of_q(q.y), code_of_q(q.z), code_of_q(q.w));
            }
        }
    }
    let c = vec4<u32>(cq(quantize_bits(x.x, w.x, w.x), 0u, i < P.n), cq(quantize_bits(x.y, w.y, w.y), 1u, i + 1u < P.n),
                      cq(quantize_bits(x.z, w.z, w.z), 2u, i + 2u < P.n), cq(quantize_bits(x.w, w.w, w.w), 3u, i + 3u < P.n));
#endif
    q_at += 4u;
    return c;
}

fn shift_in(v: vec4<u32>, p: u32) -> vec4<u32> {
    return vec4<u32>(p, v.x, v.y, v.z);
}

// Flat units (FLAT, see the entry point): per-lane masks of the invocation's 32 values,
// bit j for value i + j. f_xm: its left neighbour is in its tile (x % tx != 0); f_ym:
// the row above is (y % ty != 0); f_zm: the plane above is (z % tz != 0). Values past
// P.n keep their bits set.
var<private> f_xm: u32;
var<private> f_ym: u32;
var<private> f_zm: u32;

// Sets the masks of the 32 values from index i, one step per run of values inside one
// row and one tile column (at most 32 steps; one to three for rows of 32 or more).
fn flat_masks(i: u32) {
    f_xm = 0xffffffffu;
    f_ym = 0xffffffffu;
    f_zm = 0xffffffffu;
    var x = i % P.nx;
    let row = i / P.nx;
    var y = row % P.ny;
    var z = row / P.ny;
    var j = 0u;
    while (j < LANE && i + j < P.n) {
        let len = min(min(P.tx - x % P.tx, P.nx - x), LANE - j);
        let run = (0xffffffffu >> (32u - len)) << j;
        if (x % P.tx == 0u) {
            f_xm = f_xm & ~(1u << j);
        }
        if (y % P.ty == 0u) {
            f_ym = f_ym & ~run;
        }
        if (z % P.tz == 0u) {
            f_zm = f_zm & ~run;
        }
        j += len;
        x += len;
        if (x == P.nx) {
            x = 0u;
            y += 1u;
            if (y == P.ny) {
                y = 0u;
                z += 1u;
            }
        }
    }
}

// the components whose bit (of the low four of m) is set, others 0
fn keep4(v: vec4<u32>, m: u32) -> vec4<u32> {
    return select(vec4<u32>(0u), v, (vec4<u32>(m) & vec4<u32>(1u, 2u, 4u, 8u)) != vec4<u32>(0u));
}

fn v32_keep(a: V32, m: u32) -> V32 {
    return V32(keep4(a.v0, m), keep4(a.v1, m >> 4u), keep4(a.v2, m >> 8u), keep4(a.v3, m >> 12u), keep4(a.v4, m >> 16u),
               keep4(a.v5, m >> 20u), keep4(a.v6, m >> 24u), keep4(a.v7, m >> 28u));
}

// The words of the invocation's 32 values as QUAD_LOADS loaded them (read by row_d's
// codes4 where four values are inside the field and aligned; unused in other forms).
var<private> q_pre: V32;

#ifdef QUAD_LOADS
// QUAD_LOADS (chain_encode_1d and the 2-D chain_encode, float32 with subgroups, not
// COALESCE; each step of the walk): the four invocations of each quad (consecutive
// subgroup lanes) load their 32 values together, so that each load
// instruction reads whole 64-byte pieces (four lanes, 16 bytes each, side by side)
// instead of one 16-byte piece per lane 128 bytes from its neighbours', then transpose
// them by xor shuffles (common/quad.wgsl; the inverse of chain_decode's QUAD_STORES).
// Every invocation of the quad calls it (the shuffles); `on` says whether its own
// values are wanted. A piece is loaded when its four values are inside the field (what
// codes4 takes it for); the others are 0 and codes4 loads their values one by one.
#include "common/quad.wgsl"

fn qget(at: u32, piece: u32) -> vec4<u32> {
    if (at != 0xffffffffu && at + 4u * piece + 4u <= P.n) {
        return data4[at / 4u + piece];
    }
    return vec4<u32>(0u);
}

fn quad_load(i: u32, on: bool, lane: u32, size: u32) -> V32 {
    let j = lane & 3u;
    // the first index of each quad lane's values (none where it loads nothing); i is
    // a multiple of 4 (1-D: 32 u; 2-D: rows and tiles of whole units of 32)
    let at = qgather(select(0xffffffffu, i, on), lane);
    // lane j loads piece j (and 4 + j) of every quad lane's values, then the transpose
    // gives it pieces 0..3 (4..7) of its own
    let a = qt(qget(at.x, j), qget(at.y, j), qget(at.z, j), qget(at.w, j), j);
    let b = qt(qget(at.x, 4u + j), qget(at.y, 4u + j), qget(at.z, 4u + j), qget(at.w, 4u + j), j);
    return V32(a.e0, a.e1, a.e2, a.e3, b.e0, b.e1, b.e2, b.e3);
}
#endif

// nb(x) - nb(x - 1) of the 32 values from index i (x: the first one's column), where
// nb = code - mu inside the tile and 0 outside it (wrapping arithmetic). Flat units
// (mu = 0): per value, nb(x - 1) is taken where f_xm says the left neighbour is in the
// tile; i may be a wrapped negative index (a row above the field's first rows: those
// values' terms are masked off by the caller, and nothing outside the field is read).
// Sets q_bad to the 32 values' outlier bits.
fn row_d(i: u32, x: u32, mu: u32) -> V32 {
    let m = vec4<u32>(mu);
    var left = 0u;
    var inside = x % P.tx != 0u;
    if (FLAT) {
        inside = (f_xm & 1u) != 0u && i - 1u < P.n;
    }
    if (inside) {
        left = code_at(i - 1u) - mu;
    }
    q_bad = 0u;
    q_at = 0u;
    let n0 = codes4(i, q_pre.v0) - m;
    let n1 = codes4(i + 4u, q_pre.v1) - m;
    let n2 = codes4(i + 8u, q_pre.v2) - m;
    let n3 = codes4(i + 12u, q_pre.v3) - m;
    let n4 = codes4(i + 16u, q_pre.v4) - m;
    let n5 = codes4(i + 20u, q_pre.v5) - m;
    let n6 = codes4(i + 24u, q_pre.v6) - m;
    let n7 = codes4(i + 28u, q_pre.v7) - m;
    if (FLAT) {
        let s = V32(shift_in(n0, left), shift_in(n1, n0.w), shift_in(n2, n1.w), shift_in(n3, n2.w), shift_in(n4, n3.w),
                    shift_in(n5, n4.w), shift_in(n6, n5.w), shift_in(n7, n6.w));
        return v32_sub(V32(n0, n1, n2, n3, n4, n5, n6, n7), v32_keep(s, f_xm));
    }
    return V32(n0 - shift_in(n0, left), n1 - shift_in(n1, n0.w), n2 - shift_in(n2, n1.w), n3 - shift_in(n3, n2.w),
               n4 - shift_in(n4, n3.w), n5 - shift_in(n5, n4.w), n6 - shift_in(n6, n5.w), n7 - shift_in(n7, n6.w));
}

// The walked quantity of a row: the x difference (1-D, 2-D), or in 3-D the 2-D Lorenzo
// of the plane (x difference of row y minus that of row y - 1 inside the tile).
// Leaves q_bad = the outlier bits of the 32 values at i.
// One call site of row_d, in a loop of one or two rows (3-D forms; the others call it
// once), so the kernel holds a single copy of the 32 quantizations.
fn plane_d(i: u32, x: u32, y: u32, mu: u32) -> V32 {
#ifndef THREE_D
    return row_d(i, x, mu);
#else
    var d = v32_zero();
    var bad = 0u;
    var rows = select(1u, 2u, P.nz > 1u && y % P.ty != 0u);
    if (FLAT) {
        rows = select(1u, 2u, P.nz > 1u && f_ym != 0u);
    }
    for (var r = 0u; r < rows; r++) {
        var e = row_d(i - r * P.nx, x, mu);
        if (r == 0u) {
            d = e;
            bad = q_bad;
        } else {
            if (FLAT) {
                e = v32_keep(e, f_ym);
            }
            d = v32_sub(d, e);
        }
    }
    q_bad = bad;
    return d;
#endif
}

// Packing: 32 codes of w bits are exactly w words, written LSB-first from slot word
// pk_at on, pk_step apart (SLOT_GROUP: the unit's words in the interleaved slots).
var<private> pk_acc: u32;
var<private> pk_bits: u32;
var<private> pk_at: u32;
var<private> pk_step: u32;

fn put(c: u32, w: u32) {
    pk_acc = pk_acc | (c << pk_bits);
    pk_bits = pk_bits + w;
    if (pk_bits >= 32u) {
        slots[pk_at] = pk_acc;
        pk_at = pk_at + pk_step;
        pk_bits = pk_bits - 32u;
        pk_acc = select(0u, c >> ((w - pk_bits) & 31u), pk_bits > 0u);
    }
}

fn put4(v: vec4<u32>, w: u32) {
    put(v.x, w);
    put(v.y, w);
    put(v.z, w);
    put(v.w, w);
}

// Four codes as one 4 w-bit piece (4 w <= 32; codes below 2^w), two as 2 w bits.
fn quad(v: vec4<u32>, w: u32) -> u32 {
    return v.x | (v.y << w) | (v.z << (2u * w)) | (v.w << (3u * w));
}

fn put_pairs(v: vec4<u32>, w: u32) {
    put(v.x | (v.y << w), 2u * w);
    put(v.z | (v.w << w), 2u * w);
}

// The same bit stream in fewer, wider pieces when they fit a word (8 puts for w <= 8,
// 16 for w <= 16): the writer's chain of dependent steps is 4x / 2x shorter.
fn pack32(r: V32, w: u32, at: u32) {
    pk_acc = 0u;
    pk_bits = 0u;
    pk_at = at;
    pk_step = SLOT_GROUP;
    if (w <= 8u) {
        let w4 = 4u * w;
        put(quad(r.v0, w), w4);
        put(quad(r.v1, w), w4);
        put(quad(r.v2, w), w4);
        put(quad(r.v3, w), w4);
        put(quad(r.v4, w), w4);
        put(quad(r.v5, w), w4);
        put(quad(r.v6, w), w4);
        put(quad(r.v7, w), w4);
    } else if (w <= 16u) {
        put_pairs(r.v0, w);
        put_pairs(r.v1, w);
        put_pairs(r.v2, w);
        put_pairs(r.v3, w);
        put_pairs(r.v4, w);
        put_pairs(r.v5, w);
        put_pairs(r.v6, w);
        put_pairs(r.v7, w);
    } else {
        put4(r.v0, w);
        put4(r.v1, w);
        put4(r.v2, w);
        put4(r.v3, w);
        put4(r.v4, w);
        put4(r.v5, w);
        put4(r.v6, w);
        put4(r.v7, w);
    }
}

// block maxima through workgroup memory (double-buffered by step parity)
var<workgroup> s_max: array<atomic<u32>, 2u * WG>;

// chain_encode's CUDA-tuned variant (COALESCE; only the 2-D form has one): the previous
// step's walked quantity of each invocation in workgroup memory rather than in 32
// registers (piece k of invocation lid at k * WG + lid: a subgroup's accesses to one
// piece are consecutive 16-byte words). Only the owning invocation touches its pieces,
// so no barrier is needed. H200, round 24 (1 GiB 2-D field, kernel GB/s): through CUDA
// 842 / 743 -> 926 / 768 (szp_composed / szp_centered); through Vulkan the same code
// ran 892 / 709 -> 644 / 572, and the 3-D forms lost there too (tiled 419 / 339 ->
// 328 / 282), so neither has it.
#ifdef COALESCE
var<workgroup> s_prev: array<vec4<u32>, 8u * WG>;

// p minus the stored piece k, which becomes p
fn prev_step4(k: u32, lid: u32, p: vec4<u32>) -> vec4<u32> {
    let j = k * WG + lid;
    let o = s_prev[j];
    s_prev[j] = p;
    return p - o;
}

fn prev_step(p: V32, lid: u32) -> V32 {
    return V32(prev_step4(0u, lid, p.v0), prev_step4(1u, lid, p.v1), prev_step4(2u, lid, p.v2), prev_step4(3u, lid, p.v3),
               prev_step4(4u, lid, p.v4), prev_step4(5u, lid, p.v5), prev_step4(6u, lid, p.v6), prev_step4(7u, lid, p.v7));
}
#endif

#ifdef SUBGROUP
// One step of the butterfly maximum over a block's invocations: with the value o lanes
// away where o < lanes (uniform).
fn max_xor_step(m: u32, o: u32, lanes: u32) -> u32 {
    if (o >= lanes) {
        return m;
    }
    return max(m, subgroupShuffleXor(m, o));
}
#endif

// The entry point is named by kernels::source: the form's own name (chain_encode,
// chain_encode_flat, chain_encode_3d, chain_encode_flat_3d, chain_encode_1d)
@compute @workgroup_size(WG)
fn KERNEL_ENTRY(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    // invocation -> (unit u of its row, walk k). Rows are whole units (nx a multiple of
    // 32 in 2-D/3-D), so a block's invocations are consecutive and aligned: within a
    // row when rows are whole blocks, within a step's plane in 3-D when planes are
    // (a plane's rows are consecutive invocations), else across rows with walks of one
    // plane (then invocation order is the field's order: k is the row)
    q_tn = nf_threshold();
    let lanes = P.block_size / LANE;
    // flat units where a row's or a tile's 32-value units would not be aligned:
    // invocation g holds values 32 g .. 32 g + 31 of the field wherever they lie (across
    // rows and tiles), walks one plane, and takes each neighbour term per value through
    // the masks of flat_masks; its tile heads are the values with no neighbour in the
    // tile (all three masks clear)
    let limit = select(P.nx, P.n, FLAT);
    let units = (limit + LANE - 1u) / LANE;
    let g = wg_linear(wid, nwg) * WG + lid;
    let u = g % units;
    let k = g / units;
    let x = u * LANE;
    var y = 0u;
    var z = 0u;
    var steps = 1u;
    var stride = 0u;
    var lead = 0u; // position inside the tile along the walk
    var walks = 1u;
    // a 3-D walk (only the THREE_D forms have one)
    let three = THREE_D && P.nz > 1u;
    if (three) {
        walks = P.ny * ((P.nz + P.walk - 1u) / P.walk);
        y = k % P.ny;
        z = (k / P.ny) * P.walk;
        steps = min(P.walk, max(P.nz, z) - z);
        stride = P.nx * P.ny;
        lead = z % P.tz;
    } else if (P.ny > 1u) {
        walks = (P.ny + P.walk - 1u) / P.walk;
        y = k * P.walk;
        steps = min(P.walk, max(P.ny, y) - y);
        stride = P.nx;
        lead = y % P.ty;
    }
    // every index the kernel forms for an invocation with live set is below these
    // (values j < n: data_u[j * WT + WT - 1], data4 of four aligned values inside n,
    // data_f[j]; block b < nb; a unit's slot words inside its group of 32 units:
    // slots_needed)
    let nb = (P.n + P.block_size - 1u) / P.block_size;
    let fits = P.n * WT <= arrayLength(&data_u) && P.n / (4u / WT) <= arrayLength(&data4) && P.n <= arrayLength(&data_f)
        && nb <= arrayLength(&widths) && nb <= arrayLength(&cost) && slots_needed(P.n) <= arrayLength(&slots)
        && (P.n + 31u) / 32u <= arrayLength(&qmask) && P.counts_at + (P.n + 255u) / 256u <= arrayLength(&qmask)
        && (THREE_D || P.nz == 1u) && (!ONE_D || (P.ny == 1u && P.nz == 1u));
    let live = x < limit && k < select(walks, 1u, FLAT) && fits;
    let i0 = (z * P.ny + y) * P.nx + x;
    // flat: the lead mask (values with a plane before theirs in the tile) and the heads
    var lm = 0u;
    var heads = 0u;
    if (FLAT && live) {
        flat_masks(i0);
        lm = select(f_ym, f_zm, three);
        heads = ~(f_xm | f_ym | f_zm);
    }
    var mu = 0u;
    if (P.centering == 1u && live && !FLAT) {
        mu = code_at(((z - z % P.tz) * P.ny + (y - y % P.ty)) * P.nx + (x - x % P.tx));
    }
    // Pass 0 computes the walked quantity of the plane before the first (0 at a tile's
    // start); passes 1..=P.walk are the steps. Every invocation runs every pass
    // (uniform control flow for the barriers of the workgroup-memory maxima); steps
    // past its walk's end do nothing. One call site of plane_d keeps one copy of the
    // quantization code in the kernel. ONE_D runs pass 1 alone (1-D: no plane before,
    // one step), outside any loop. The previous step: prev, or s_prev (COALESCE).
#ifdef COALESCE
    let z4 = vec4<u32>(0u);
    s_prev[lid] = z4;
    s_prev[WG + lid] = z4;
    s_prev[2u * WG + lid] = z4;
    s_prev[3u * WG + lid] = z4;
    s_prev[4u * WG + lid] = z4;
    s_prev[5u * WG + lid] = z4;
    s_prev[6u * WG + lid] = z4;
    s_prev[7u * WG + lid] = z4;
#else
    var prev = v32_zero();
#endif
    var py = y;
    if (!three) {
        py = y - 1u;
    }
#ifdef ONE_D
    {
        let ps = 1u;
        let first = false;
#else
    for (var ps = 0u; ps <= P.walk; ps++) {
        let first = ps == 0u;
#endif
        let st = ps - 1u;
        let i = select(i0 + st * stride, i0 - stride, first);
        let on = select(live && st < steps, live && select(lead != 0u, lm != 0u, FLAT), first);
        var r = v32_zero();
        var bad = 0u;
#ifdef QUAD_LOADS
        q_pre = quad_load(i, on, SG_ARGS);
#endif
        if (on) {
            // (pass 0: the previous step is still zero and r goes unused)
            var p = plane_d(i, x, select(y, py, first), mu);
            if (FLAT && first) {
                p = v32_keep(p, lm);
            }
            bad = q_bad;
#ifdef COALESCE
            r = prev_step(p, lid);
#else
            r = v32_sub(p, prev);
            prev = p;
#endif
            if (FLAT && P.centering == 1u) {
                // a head's residual is its code minus itself
                r = v32_keep(r, ~heads);
            }
            r = v32_packed(r);
            if (i + LANE > P.n) {
                r = v32_tail(r, i);
            }
        }
#ifndef ONE_D
        if (first) {
            continue;
        }
#endif
        var m = v32_max(r);
#ifdef SUBGROUP
        if (P.shared_max == 0u) {
            // the steps written out, not as a loop (naga bounds every loop with a counter
            // of its own, which the driver need not see through): lanes <= the subgroup
            // size <= 128, and the host takes this path for lanes <= 8 only; the
            // conditions are uniform
            m = max_xor_step(m, 1u, lanes);
            m = max_xor_step(m, 2u, lanes);
            m = max_xor_step(m, 4u, lanes);
            if (lanes > 8u) {
                m = max_xor_step(m, 8u, lanes);
                m = max_xor_step(m, 16u, lanes);
                m = max_xor_step(m, 32u, lanes);
                m = max_xor_step(m, 64u, lanes);
            }
        } else {
#endif
            let slot = (st & 1u) * WG + lid / lanes;
            if (lid % lanes == 0u) {
                atomicStore(&s_max[slot], 0u);
            }
            workgroupBarrier();
            atomicMax(&s_max[slot], m);
            workgroupBarrier();
            m = atomicLoad(&s_max[slot]);
#ifdef SUBGROUP
        }
#endif
        let w = 32u - countLeadingZeros(m);
        if (on && i < P.n) {
            atomicStore(&qmask[i / 32u], bad);
            if (bad != 0u) {
                atomicAdd(&qmask[P.counts_at + i / 256u], countOneBits(bad));
            }
            let b = i / P.block_size;
            let lb = i % P.block_size;
            if (lb == 0u) {
                widths[b] = w;
                cost[b] = block_words(w, block_len(b));
            }
            if (P.centering == 1u && FLAT) {
                var h = heads;
                while (h != 0u) {
                    let j = i + firstTrailingBit(h);
                    h = h & (h - 1u);
                    let row = j / P.nx;
                    let ti = tile_index(j % P.nx, row % P.ny, row / P.ny);
                    if (ti < arrayLength(&means)) {
                        means[ti] = code_at(j);
                    }
                }
            } else if (P.centering == 1u && x % P.tx == 0u) {
                var cy = y;
                var cz = z;
                if (three) {
                    cz = z + st;
                } else {
                    cy = y + st;
                }
                let ti = tile_index(x, cy, cz);
                if (cy % P.ty == 0u && cz % P.tz == 0u && ti < arrayLength(&means)) {
                    means[ti] = mu;
                }
            }
            if (w > 0u) {
                pack32(r, w, unit_slot(b * (P.block_size / LANE) + lb / LANE, 0u));
            }
        }
    }
}
