// chain_decode: fused inverse of Quantizer -> Lorenzo -> AdaptiveBitpack in one pass, 1-D
// and 2-D (chain_unpack serves the rest). Each invocation holds LANE = 32 consecutive
// values of a row: their residuals are exactly `w` payload words of their block (the
// layout chain_encode writes), each code read with its own one or two loads (independent,
// so they overlap; the serial bit-stream reader they replaced was within 1% through
// Vulkan on three fields and 6% slower on the fourth, and 1-15% slower through CUDA,
// but faster on lavapipe: docs/performance-history.md, rounds 6 and 7). In 2-D every invocation walks
// the rows of one band of Lorenzo tiles, keeping its columns' running sums (the prefix
// along y) in registers; per row the prefix along x is the invocation's own 32-value
// prefix plus the exclusive scan of the totals of the invocations before it in the
// tile (tx / 32 of them: subgroup shuffles, or workgroup memory). Then the tile head
// is added and the codes are dequantized straight into `out` (float32: 16-byte
// stores; the out window is padded to 16 bytes, and the values past n that land in
// the padding are not part of the output). With subgroups (float32, not COALESCE) the
// stores go by quads (QUAD_STORES, below): 64-byte pieces per store instruction
// instead of 16-byte ones 128 bytes apart (round 30: Vulkan 2-D decompression 1.9x;
// round 31, RAGGED: Vulkan 1.4-1.5x on 8190-wide rows; round 32: CUDA 1.12-1.14x
// there, against COALESCE). The COALESCE variant (float32; the CUDA backend's for
// chain_decode_1d, measured in docs/performance-history.md, round 6; not RAGGED)
// stores the values through workgroup memory, 32 consecutive words per group of 32
// invocations at a time; same output, padding included. Outliers are patched
// afterwards by quant_patch. Preconditions (checked by the host): block_size a power
// of two in [32, 32 * WG]; tx a multiple of 32 dividing 32 * WG; nz = 1; in 2-D, nx a
// multiple of 32 (a block may straddle rows: each invocation reads its own 32 codes).
// chain_decode_ragged (this file with RAGGED; it has no COALESCE variant) takes 2-D
// rows that are not whole units of 32: a row's units then start anywhere in the flat
// order, so each value's code is read from its own block (a unit's values lie in one
// or two), the values past the row's end are left out, and the values are stored by
// quads of aligned 16-byte pieces with the unaligned ends by component (float32 with
// subgroups, QUAD_STORES), by 16-byte pieces (float32 without subgroups) or one by one
// (float64), exactly the row's values (no padding).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_unpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> means: array<u32>;
#include "common/block_width.wgsl"
#ifdef F64
@group(0) @binding(5) var<storage, read_write> out: array<f64>;
#else
#ifdef COALESCE
@group(0) @binding(5) var<storage, read_write> out: array<u32>;
#else
@group(0) @binding(5) var<storage, read_write> out: array<vec4<u32>>;
#endif
#endif

#include "common/szx_math.wgsl"
#include "common/v32.wgsl"

const WG: u32 = 64u;
const LANE: u32 = 32u;

// chain_decode_1d (ONE_D; kernels::chain::decode_kernel for ny = nz = 1): one step per
// invocation, no walk over tile rows, so no running column sums to carry (NVRTC sm_90:
// 48 registers against 96). Takes ny = nz = 1 only (an invocation of another dispatch does
// nothing).
// chain_decode_planes / chain_decode_planes_ragged (PLANES; kernels::chain::planes_kernel
// for nz > 1, float32 layout whatever the field's type): the 2-D walk over every plane
// of a 3-D field (band k = plane z's band k % bands), storing each value's integer sum
// along x and y inside its tile (plus the tile head in the tile's first plane) instead
// of its value: the `sums` chain_scan_last scans along z and dequantizes (the work of
// chain_scan_x and lorenzo_scan_axis along y, in one pass). Takes nz > 1 only.
#ifdef ONE_D
const ONE_D: bool = true;
#else
const ONE_D: bool = false;
#endif

// Code j of the 32 whose w * 32 bits start at word `base`: one or two loads, each
// independent of the others (the word after the last one may be read: its bits are
// masked off).
fn code_at(base: u32, j: u32, w: u32, m: u32) -> u32 {
    let bit = j * w;
    let a = base + (bit >> 5u);
    let s = bit & 31u;
    let lo = payload_u[a] >> s;
    let hi = select(0u, payload_u[a + 1u] << ((32u - s) & 31u), s + w > 32u);
    return (lo | hi) & m;
}

fn codes4(base: u32, j: u32, w: u32, m: u32) -> vec4<u32> {
    return vec4<u32>(code_at(base, j, w, m), code_at(base, j + 1u, w, m), code_at(base, j + 2u, w, m), code_at(base, j + 3u, w, m));
}

fn unzz4(v: vec4<u32>) -> vec4<u32> {
    if (P.bzigzag == 1u) {
        return bitcast<vec4<u32>>(bitcast<vec4<i32>>(v >> vec4<u32>(1u)) ^ (-bitcast<vec4<i32>>(v & vec4<u32>(1u))));
    }
    return v;
}

#ifdef RAGGED
// The unit being read: its first value's block (0) and the next (1), the lane where
// block 1 starts, block 0's position of the first value, the lanes inside the row;
// rg_row: values from the invocation's column to its row's end (set once by the
// entry point: one division per invocation, not per step).
var<private> rg_base0: u32;
var<private> rg_base1: u32;
var<private> rg_w0: u32;
var<private> rg_w1: u32;
var<private> rg_row: u32;
var<private> rg_split: u32;
var<private> rg_p0: u32;
var<private> rg_valid: u32;

// Code of lane j of the unit (0 from rg_valid on and in blocks of width 0): one or two
// loads, as code_at.
fn rcode(j: u32) -> u32 {
    let second = j >= rg_split;
    let w = select(rg_w0, rg_w1, second);
    if (j >= rg_valid || w == 0u) {
        return 0u;
    }
    let bit = select(rg_p0 + j, j - rg_split, second) * w;
    let a = select(rg_base0, rg_base1, second) + (bit >> 5u);
    let s = bit & 31u;
    let lo = payload_u[a] >> s;
    let hi = select(0u, payload_u[a + 1u] << ((32u - s) & 31u), s + w > 32u);
    return (lo | hi) & width_limit(w);
}

fn rcodes4(j: u32) -> vec4<u32> {
    return vec4<u32>(rcode(j), rcode(j + 1u), rcode(j + 2u), rcode(j + 3u));
}

// The residuals of the values from index i to the end of its row (at most 32; 0 after).
fn residuals32(i: u32) -> V32 {
    rg_valid = min(LANE, min(rg_row, P.n - i));
    let b = i / P.block_size;
    rg_p0 = i % P.block_size;
    rg_split = min(LANE, P.block_size - rg_p0);
    rg_w0 = block_width(b);
    rg_base0 = P.word_base + offsets[b];
    rg_w1 = 0u;
    rg_base1 = 0u;
    if (rg_split < rg_valid) {
        rg_w1 = block_width(b + 1u);
        rg_base1 = P.word_base + offsets[b + 1u];
    }
    return V32(unzz4(rcodes4(0u)), unzz4(rcodes4(4u)), unzz4(rcodes4(8u)), unzz4(rcodes4(12u)), unzz4(rcodes4(16u)),
               unzz4(rcodes4(20u)), unzz4(rcodes4(24u)), unzz4(rcodes4(28u)));
}
#else
// The 32 residuals of the values from index i (0 past the end of a w = 0 block).
fn residuals32(i: u32) -> V32 {
    let b = i / P.block_size;
    let w = block_width(b);
    if (w == 0u) {
        return v32_zero();
    }
    let base = P.word_base + offsets[b] + ((i % P.block_size) / LANE) * w;
    let m = width_limit(w);
    let r0 = unzz4(codes4(base, 0u, w, m));
    let r1 = unzz4(codes4(base, 4u, w, m));
    let r2 = unzz4(codes4(base, 8u, w, m));
    let r3 = unzz4(codes4(base, 12u, w, m));
    let r4 = unzz4(codes4(base, 16u, w, m));
    let r5 = unzz4(codes4(base, 20u, w, m));
    let r6 = unzz4(codes4(base, 24u, w, m));
    let r7 = unzz4(codes4(base, 28u, w, m));
    return V32(r0, r1, r2, r3, r4, r5, r6, r7);
}
#endif

// inclusive prefix of a vec4 plus a carry
fn prefix4(v: vec4<u32>, c: u32) -> vec4<u32> {
    let x = c + v.x;
    let y = x + v.y;
    let z = y + v.z;
    return vec4<u32>(x, y, z, z + v.w);
}

fn prefix32(a: V32, c: u32) -> V32 {
    let p0 = prefix4(a.v0, c);
    let p1 = prefix4(a.v1, p0.w);
    let p2 = prefix4(a.v2, p1.w);
    let p3 = prefix4(a.v3, p2.w);
    let p4 = prefix4(a.v4, p3.w);
    let p5 = prefix4(a.v5, p4.w);
    let p6 = prefix4(a.v6, p5.w);
    let p7 = prefix4(a.v7, p6.w);
    return V32(p0, p1, p2, p3, p4, p5, p6, p7);
}

fn v32_total(a: V32) -> u32 {
    let s = (a.v0 + a.v1) + (a.v2 + a.v3) + ((a.v4 + a.v5) + (a.v6 + a.v7));
    return (s.x + s.y) + (s.z + s.w);
}

fn dq(c: u32) -> FT {
    var q = bitcast<i32>(c);
    if (P.qzigzag == 1u) {
        q = bitcast<i32>(c >> 1u) ^ (-bitcast<i32>(c & 1u));
    }
    return mulr(FT(q), P.step);
}

#ifndef F64
// The word a float32 form stores for a value's code: its value's bits; PLANES stores
// the integer sum itself (chain_scan_last dequantizes after the z scan).
fn dqw(c: u32) -> u32 {
#ifdef PLANES
    return c;
#else
    return bitcast<u32>(dq(c));
#endif
}

fn dqw4(c: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(dqw(c.x), dqw(c.y), dqw(c.z), dqw(c.w));
}
#endif

#ifdef F64
// (RAGGED: up to the end of the row being stored)
var<private> st_end: u32;

fn store4(i: u32, c: vec4<u32>) {
#ifdef RAGGED
    let end = st_end;
#else
    let end = P.n;
#endif
    if (i < end) {
        out[i] = dq(c.x);
    }
    if (i + 1u < end) {
        out[i + 1u] = dq(c.y);
    }
    if (i + 2u < end) {
        out[i + 2u] = dq(c.z);
    }
    if (i + 3u < end) {
        out[i + 3u] = dq(c.w);
    }
}
#else
#ifdef COALESCE
// Each invocation parks its 32 values in a row of s_val (33 words apart: no bank
// conflicts either way), then each group of 32 invocations writes the 32 rows of its
// group, one row per step: 32 consecutive words (one 128-byte line) per step instead of
// one 16-byte piece per invocation 128 bytes apart. Like the 16-byte stores, a row
// writes up to the next multiple of 4 past n (the padding of the out window).
const NONE: u32 = 0xffffffffu;
const ROW: u32 = LANE + 1u; // words per parked row (one more than LANE: no bank conflicts)
var<workgroup> s_val: array<u32, WG * ROW>;
var<workgroup> s_at: array<u32, WG>; // first index of each row, NONE for none

fn park4(o: u32, c: vec4<u32>) {
    s_val[o] = dqw(c.x);
    s_val[o + 1u] = dqw(c.y);
    s_val[o + 2u] = dqw(c.z);
    s_val[o + 3u] = dqw(c.w);
}

fn park32(lid: u32, c: V32) {
    let o = lid * ROW;
    park4(o, c.v0);
    park4(o + 4u, c.v1);
    park4(o + 8u, c.v2);
    park4(o + 12u, c.v3);
    park4(o + 16u, c.v4);
    park4(o + 20u, c.v5);
    park4(o + 24u, c.v6);
    park4(o + 28u, c.v7);
}

// every invocation of the workgroup (uniform control flow: barriers)
fn store_rows(lid: u32) {
    workgroupBarrier();
    let col = lid % LANE;
    let first = lid - col;
    let n4 = (P.n + 3u) / 4u * 4u;
    for (var r = 0u; r < LANE; r++) {
        let at = s_at[first + r];
        if (at != NONE && at + col < n4) {
            out[at + col] = s_val[(first + r) * ROW + col];
        }
    }
    workgroupBarrier();
}
#else
#ifdef RAGGED
// Ragged rows (no COALESCE form): the values i .. i + rg_valid - 1 go out as whole 16-byte
// stores where four of them fill an aligned piece, and as component stores at the two
// ends (the pieces they share with the neighbouring rows' invocations). Row starts are
// not 16-byte aligned: piece m holds values h + 4 m .. h + 4 m + 3 (h = the values
// before the first aligned index), taken from two of the invocation's vec4s by h.
// values h .. h + 3 of a followed by b
fn funnel(a: vec4<u32>, b: vec4<u32>, h: u32) -> vec4<u32> {
    return select(select(select(a, vec4<u32>(a.y, a.z, a.w, b.x), h == 1u), vec4<u32>(a.z, a.w, b.x, b.y), h == 2u),
                  vec4<u32>(a.w, b.x, b.y, b.z), h == 3u);
}

// piece m (at aligned word index `at`) when all four of its values are the row's;
// otherwise its first `t` components (t < 4)
fn put_piece(at: u32, v: vec4<u32>, t: u32) {
    if (t >= 4u) {
        out[at] = v;
    } else {
        if (t > 0u) {
            out[at].x = v.x;
        }
        if (t > 1u) {
            out[at].y = v.y;
        }
        if (t > 2u) {
            out[at].z = v.z;
        }
    }
}

// the head: values 0 .. h - 1 of a0 into components s .. s + h - 1 of piece i / 4
fn store_head(i: u32, a0: vec4<u32>, h: u32) {
    let s = i & 3u;
    let k = i / 4u;
    if (s == 1u) {
        out[k].y = a0.x;
        if (h > 1u) {
            out[k].z = a0.y;
        }
        if (h > 2u) {
            out[k].w = a0.z;
        }
    } else if (s == 2u) {
        out[k].z = a0.x;
        if (h > 1u) {
            out[k].w = a0.y;
        }
    } else if (s == 3u) {
        out[k].w = a0.x;
    }
}

// The invocation's eight aligned pieces: its dequantized values from value h on, four
// per piece (piece m: values h + 4 m .. h + 4 m + 3; zeros past its 32)
fn funnel32(c: V32, h: u32) -> V32 {
    let a0 = dqw4(c.v0);
    let a1 = dqw4(c.v1);
    let a2 = dqw4(c.v2);
    let a3 = dqw4(c.v3);
    let a4 = dqw4(c.v4);
    let a5 = dqw4(c.v5);
    let a6 = dqw4(c.v6);
    let a7 = dqw4(c.v7);
    return V32(funnel(a0, a1, h), funnel(a1, a2, h), funnel(a2, a3, h), funnel(a3, a4, h), funnel(a4, a5, h),
               funnel(a5, a6, h), funnel(a6, a7, h), funnel(a7, vec4<u32>(0u), h));
}

fn store32(i: u32, c: V32) {
    let cnt = rg_valid;
    let h = min((4u - (i & 3u)) & 3u, cnt);
    store_head(i, dqw4(c.v0), h);
    let p = funnel32(c, h);
    // pieces from the first aligned index
    let at = (i + h) / 4u;
    let left = cnt - h;
    put_piece(at, p.v0, left);
    if (left > 4u) {
        put_piece(at + 1u, p.v1, left - 4u);
    }
    if (left > 8u) {
        put_piece(at + 2u, p.v2, left - 8u);
    }
    if (left > 12u) {
        put_piece(at + 3u, p.v3, left - 12u);
    }
    if (left > 16u) {
        put_piece(at + 4u, p.v4, left - 16u);
    }
    if (left > 20u) {
        put_piece(at + 5u, p.v5, left - 20u);
    }
    if (left > 24u) {
        put_piece(at + 6u, p.v6, left - 24u);
    }
    if (left > 28u) {
        put_piece(at + 7u, p.v7, left - 28u);
    }
}
#else
fn store4(i: u32, c: vec4<u32>) {
    if (i < P.n) {
        out[i / 4u] = dqw4(c);
    }
}
#endif
#endif
#endif

#ifndef COALESCE
// (store32 by vec4s, where the ragged float32 form above does not replace it; the
// preprocessor has no #if, so one include in each branch)
#ifdef F64
#include "common/store32_vec4.wgsl"
#else
#ifndef RAGGED
#include "common/store32_vec4.wgsl"
#endif
#endif
#endif

#ifdef QUAD_STORES
// QUAD_STORES (float32 with subgroups, not COALESCE): the four invocations of
// each quad (consecutive subgroup lanes) transpose their values by xor shuffles, so that
// each store instruction writes whole 64-byte pieces (four lanes, 16 bytes each, side by
// side) instead of one 16-byte piece per lane 128 bytes from its neighbours'. Every
// invocation of the quad calls it (the shuffles); `on` says whether its own 32 values
// are stored. Same stores as store32: a 16-byte piece goes out when its first index is
// below n (the out window is padded to 16 bytes).
#include "common/quad.wgsl"

fn qput(at: u32, piece: u32, v: vec4<u32>) {
    if (at != 0xffffffffu && at + 4u * piece < P.n) {
        out[at / 4u + piece] = v;
    }
}

#ifdef RAGGED
// piece m of a quad lane's aligned pieces (from word index at; `left` values from there)
fn qput_r(at: u32, left: u32, m: u32, v: vec4<u32>) {
    if (left > 4u * m) {
        put_piece(at + m, v, left - 4u * m);
    }
}

// RAGGED: the head's components stored by the invocation itself (as store32), then its
// eight aligned pieces (funnel) by quads, each bounded by the invocation's count
fn store_unit(i: u32, on: bool, c: V32, lane: u32, size: u32) {
    let j = lane & 3u;
    let cnt = select(0u, rg_valid, on);
    let h = min((4u - (i & 3u)) & 3u, cnt);
    if (on) {
        store_head(i, dqw4(c.v0), h);
    }
    let p = funnel32(c, h);
    let a = qt(p.v0, p.v1, p.v2, p.v3, j);
    let b = qt(p.v4, p.v5, p.v6, p.v7, j);
    // each quad lane's first aligned piece and its values from there
    let at = qgather((i + h) / 4u, lane);
    let left = qgather(cnt - h, lane);
    qput_r(at.x, left.x, j, a.e0);
    qput_r(at.x, left.x, 4u + j, b.e0);
    qput_r(at.y, left.y, j, a.e1);
    qput_r(at.y, left.y, 4u + j, b.e1);
    qput_r(at.z, left.z, j, a.e2);
    qput_r(at.z, left.z, 4u + j, b.e2);
    qput_r(at.w, left.w, j, a.e3);
    qput_r(at.w, left.w, 4u + j, b.e3);
}
#else
fn store_unit(i: u32, on: bool, c: V32, lane: u32, size: u32) {
    let j = lane & 3u;
    let a = qt(dqw4(c.v0), dqw4(c.v1), dqw4(c.v2), dqw4(c.v3), j);
    let b = qt(dqw4(c.v4), dqw4(c.v5), dqw4(c.v6), dqw4(c.v7), j);
    // the first index of each quad lane's values (none where it stores nothing)
    let at = qgather(select(0xffffffffu, i, on), lane);
    qput(at.x, j, a.e0);
    qput(at.x, 4u + j, b.e0);
    qput(at.y, j, a.e1);
    qput(at.y, 4u + j, b.e1);
    qput(at.z, j, a.e2);
    qput(at.z, 4u + j, b.e2);
    qput(at.w, j, a.e3);
    qput(at.w, 4u + j, b.e3);
}
#endif
#else
#ifndef COALESCE
fn store_unit(i: u32, on: bool, c: V32, lane: u32, size: u32) {
    if (on) {
        store32(i, c);
    }
}
#endif
#endif

// invocation totals for the tile-row scans through workgroup memory (by step parity)
var<workgroup> s_tot: array<u32, 2u * WG>;

#ifdef SUBGROUP
// One step of the inclusive scan over a tile row's invocations (seg = the invocation's
// place in the row): adds the value o places up where o < lanes (uniform) and seg >= o.
fn scan_up_step(inc: u32, o: u32, lanes: u32, seg: u32) -> u32 {
    if (o >= lanes) {
        return inc;
    }
    return inc + select(0u, subgroupShuffleUp(inc, o), seg >= o);
}
#endif

// The entry point is named by kernels::source: the form's own name (chain_decode,
// chain_decode_ragged, chain_decode_1d)
@compute @workgroup_size(WG)
fn KERNEL_ENTRY(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    // invocation -> (unit u of its row, band k of tile rows); a row has `units` units,
    // padded to whole tiles so that a tile row's invocations are consecutive and aligned
    let lanes = P.tx / LANE;    // invocations per tile row
    let units = ((P.nx + LANE - 1u) / LANE + lanes - 1u) / lanes * lanes;
    let g = wg_linear(wid, nwg) * WG + lid;
    let u = g % units;
    let k = g / units;
    let x = u * LANE;
#ifdef RAGGED
    rg_row = P.nx - min(x, P.nx);
#endif
    var y = 0u;
    var steps = 1u;
    var bands = 1u;
#ifdef PLANES
    // band k of the whole field: band kb of tile rows of plane z
    if (P.ny > 1u) {
        bands = (P.ny + P.ty - 1u) / P.ty;
    }
    let z = k / bands;
    let kb = k - z * bands;
    if (P.ny > 1u) {
        y = kb * P.ty;
        steps = min(P.ty, max(P.ny, y) - y);
    }
    let live = x < P.nx && z < P.nz && P.nz > 1u;
    // the tile head goes into every sum of the tile's first plane (the z scan carries
    // it on: chain_scan_x adds it to the tile's first value, whose x and y sums reach
    // that whole plane)
    var head = 0u;
    if (P.centering == 1u && live && z % P.tz == 0u) {
        head = means[((z / P.tz) * P.nty + kb) * P.ntx + x / P.tx];
    }
#else
    if (P.ny > 1u) {
        bands = (P.ny + P.ty - 1u) / P.ty;
        y = k * P.ty;
        steps = min(P.ty, max(P.ny, y) - y);
    }
    let live = x < P.nx && k < bands && (!ONE_D || (P.ny == 1u && P.nz == 1u));
    var head = 0u;
    if (P.centering == 1u && live) {
        head = means[(y / P.ty) * P.ntx + x / P.tx];
    }
#endif
    let seg = u % lanes;        // this invocation's place in its tile row
    var col = v32_zero();       // running sums along y (2-D)
    // every invocation runs ty steps (uniform control flow for the barriers of the
    // workgroup-memory scans); steps past its band's end do nothing. ONE_D: the one
    // step, outside any loop (col stays this step's residuals)
#ifdef ONE_D
    {
        let st = 0u;
#else
    for (var st = 0u; st < P.ty; st++) {
#endif
#ifdef PLANES
        let i = (z * P.ny + y + st) * P.nx + x;
#else
        let i = (y + st) * P.nx + x;
#endif
        let on = live && st < steps && i < P.n;
        var r = v32_zero();
        if (on) {
            r = residuals32(i);
        }
        col = v32_add(col, r);
        let tot = v32_total(col);
        // exclusive prefix of the totals of the tile row's earlier invocations
        var before = 0u;
#ifdef SUBGROUP
        if (P.shared_scan == 0u) {
            // the steps written out, not as a loop (naga bounds every loop with a counter
            // of its own, which the driver need not see through): lanes <= the subgroup
            // size <= 128, and the host takes this path for lanes <= 8 only; the
            // conditions are uniform (P.tx)
            var inc = tot;
            inc = scan_up_step(inc, 1u, lanes, seg);
            inc = scan_up_step(inc, 2u, lanes, seg);
            inc = scan_up_step(inc, 4u, lanes, seg);
            if (lanes > 8u) {
                inc = scan_up_step(inc, 8u, lanes, seg);
                inc = scan_up_step(inc, 16u, lanes, seg);
                inc = scan_up_step(inc, 32u, lanes, seg);
                inc = scan_up_step(inc, 64u, lanes, seg);
            }
            before = inc - tot;
        } else {
#endif
            let base = (st & 1u) * WG;
            s_tot[base + lid] = tot;
            workgroupBarrier();
            for (var j = lid - seg; j < lid; j++) {
                before += s_tot[base + j];
            }
#ifdef SUBGROUP
        }
#endif
#ifdef COALESCE
        if (on) {
            park32(lid, v32_add(prefix32(col, before), v32_splat(head)));
        }
        s_at[lid] = select(NONE, i, on);
        store_rows(lid);
#else
#ifdef RAGGED
#ifdef F64
        if (on) {
            st_end = i + rg_valid;
        }
#endif
#endif
        store_unit(i, on, v32_add(prefix32(col, before), v32_splat(head)), SG_ARGS);
#endif
    }
}
