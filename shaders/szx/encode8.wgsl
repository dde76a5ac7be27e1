// szx_encode8: szx_encode for float32 blocks of 128 values, with a team of 8 lanes per
// block instead of a subgroup: same bindings, same outputs (info, refs, cost, each
// block's body in its slot; the rest of `slots` untouched), for the blocks it covers:
// unlike szx_encode it does not walk, a workgroup codes one round of WG / 8 blocks
// (the CPU twin covers the same blocks). A 32-lane
// subgroup serves four blocks at once, so the per-block work every lane repeats (the
// block's decisions, its reductions, the loop) is paid once per four blocks; each
// lane holds 16 consecutive values of its block (four units) in registers from the
// load to the pack. A lane's 16 codes are 16 w bits: whole words for an even width;
// for an odd one the last half word of an even lane is completed by the next lane's
// first 16 bits (one exchange), so the packing needs no other. The reductions are
// butterflies over the team's 8 lanes (subgroupShuffleXor 1, 2, 4; without subgroups
// through workgroup memory, 8 lanes = 8 consecutive invocations). Control flow around
// every exchange is uniform over the workgroup: team k of the workgroup takes block
// first + k (a team past the last block computes and stores nothing), and per-block
// choices select results instead of skipping exchanges. The host picks it for
// float32 blocks of 128 on adapters with subgroups (sizes multiples of 8) unless
// FZWGPU_SZX_TEAM8=off; see stages/szx.rs. With LOOKBACK the file is
// szx_encode8_lookback (bindings 4-7: meta, payload, totals, the look-back state): the
// same decisions and packing, each block's payload written at its final offset (see
// its entry point below).
// Through CUDA its registers are capped at 64 (4 workgroups per multiprocessor on
// sm_90; 80 uncapped = 3 in round 12, when it held two sets of codes per lane):
// 690 -> 738 GB/s on the H200's 2-D field (round 12). Since round 21 (one set of
// codes) NVRTC gives it 64 registers uncapped too (8 bytes of stack; capped: none,
// where it had 56 bytes before).
// cuda-min-blocks: 4
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> data_f: array<FT>;
#ifdef LOOKBACK
@group(0) @binding(4) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(5) var<storage, read_write> payload: array<u32>;
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;
#else
@group(0) @binding(4) var<storage, read_write> info: array<u32>;
@group(0) @binding(5) var<storage, read_write> refs: array<FT>;
@group(0) @binding(6) var<storage, read_write> cost: array<u32>;
@group(0) @binding(7) var<storage, read_write> slots: array<u32>;
#endif

#include "common/szx_math.wgsl"

const WG: u32 = 256u;
const UNIT: u32 = 4u;
const F32_PATH: bool = true;
// lanes per team, values per lane: TL * LV = 128, the block size this kernel takes
const TL: u32 = 8u;
const LV: u32 = 16u;
#include "common/szx_units.wgsl"

// The invocation's index in the workgroup, its subgroup lane and the subgroup size
// (set once at entry; the exchanges below use them).
var<private> g_lid: u32;
var<private> g_sl: u32;
var<private> g_ss: u32;

#ifdef SUBGROUP
fn cl_min(v: u32) -> u32 {
    let a = min(v, subgroupShuffleXor(v, 1u));
    let b = min(a, subgroupShuffleXor(a, 2u));
    return min(b, subgroupShuffleXor(b, 4u));
}
fn cl_max(v: u32) -> u32 {
    let a = max(v, subgroupShuffleXor(v, 1u));
    let b = max(a, subgroupShuffleXor(a, 2u));
    return max(b, subgroupShuffleXor(b, 4u));
}
// v of the next lane (the team's last lane gets some lane's value: unused)
fn cl_next(v: u32) -> u32 {
    return subgroupShuffle(v, min(g_sl + 1u, g_ss - 1u));
}
// whether p holds in any lane of the subgroup (uniform over it)
fn sg_any(p: bool) -> bool {
    return subgroupMax(select(0u, 1u, p)) != 0u;
}
#else
var<workgroup> s_cl: array<u32, WG>;
fn cl_fold(v: u32, mx: bool) -> u32 {
    s_cl[g_lid] = v;
    workgroupBarrier();
    let base = g_lid & ~(TL - 1u);
    var m = s_cl[base];
    for (var i = 1u; i < TL; i++) {
        m = select(min(m, s_cl[base + i]), max(m, s_cl[base + i]), mx);
    }
    workgroupBarrier();
    return m;
}
fn cl_min(v: u32) -> u32 {
    return cl_fold(v, false);
}
fn cl_max(v: u32) -> u32 {
    return cl_fold(v, true);
}
fn cl_next(v: u32) -> u32 {
    s_cl[g_lid] = v;
    workgroupBarrier();
    let r = s_cl[min(g_lid + 1u, WG - 1u)];
    workgroupBarrier();
    return r;
}
// without subgroups every lane takes the rare paths (barriers need the workgroup)
fn sg_any(p: bool) -> bool {
    return true;
}
#endif

fn cl_all(p: bool) -> bool {
    return cl_min(select(0u, 1u, p)) != 0u;
}

// The lane's 16 codes and whether all reconstruct within eb.
struct Codes16 {
    c0: vec4<u32>,
    c1: vec4<u32>,
    c2: vec4<u32>,
    c3: vec4<u32>,
    ok: bool,
}

// nf: the flush-free path, whose first test is |t - q| <= lim (fast_lim)
fn codes16(u0: Unit, u1: Unit, u2: Unit, u3: Unit, r: FT, qlim: u32, nf: bool, lim: FT) -> Codes16 {
    var a: Codes;
    var b: Codes;
    var c: Codes;
    var d: Codes;
    if (nf) {
        a = unit_codes_nf(u0, r, qlim, lim);
        b = unit_codes_nf(u1, r, qlim, lim);
        c = unit_codes_nf(u2, r, qlim, lim);
        d = unit_codes_nf(u3, r, qlim, lim);
    } else {
        a = unit_codes(u0, r, qlim);
        b = unit_codes(u1, r, qlim);
        c = unit_codes(u2, r, qlim);
        d = unit_codes(u3, r, qlim);
    }
    return Codes16(a.c, b.c, c.c, d.c, a.ok && b.ok && c.ok && d.ok);
}

// Word j of the block bodies' buffer: the slots (a block's body in its slot), or in
// the look-back form the tile's staged payloads in workgroup memory (s_pay).
fn put(j: u32, v: u32) {
#ifdef LOOKBACK
    s_pay[j] = v;
#else
    slots[j] = v;
#endif
}

// Bit packer of one lane: words of the block's bit string emitted in order to
// slots[wbase + k], the first one dropped when `skip0` (its low half belongs to the
// previous lane), none at or past the block's word `nw` (relative to `base`).
struct Packer {
    lo: u32,
    nb: u32,
    k: u32,
    first: u32,
}

fn pack_code(pk: ptr<function, Packer>, c: u32, w: u32, wbase: u32, base: u32, nw: u32, skip0: bool) {
    let nb = (*pk).nb;
    let lo = (*pk).lo | (c << nb);
    // the bits of c past the word (shift amounts are taken modulo 32: nb = 0 selects 0)
    let spill = select(0u, c >> ((32u - nb) & 31u), nb > 0u);
    let nb2 = nb + w;
    // branch-free but for the store (lanes of a subgroup fill their words at different
    // steps): the state moves by selects
    let full = nb2 >= 32u;
    let k = (*pk).k;
    (*pk).first = select((*pk).first, lo, full && k == 0u);
    let j = wbase + k;
    if (full && !(skip0 && k == 0u) && j - base < nw) {
        put(j, lo);
    }
    (*pk).k = k + select(0u, 1u, full);
    (*pk).lo = select(lo, spill, full);
    (*pk).nb = select(nb2, nb2 - 32u, full);
}

// Four codes of w bits; for w <= 8 as one piece of 4 w bits (the same bit string in a
// quarter of the packer's dependent steps).
fn pack_vec(pk: ptr<function, Packer>, c: vec4<u32>, w: u32, wbase: u32, base: u32, nw: u32, skip0: bool) {
    if (w <= 8u) {
        pack_code(pk, c.x | (c.y << w) | (c.z << (2u * w)) | (c.w << (3u * w)), 4u * w, wbase, base, nw, skip0);
    } else {
        pack_code(pk, c.x, w, wbase, base, nw, skip0);
        pack_code(pk, c.y, w, wbase, base, nw, skip0);
        pack_code(pk, c.z, w, wbase, base, nw, skip0);
        pack_code(pk, c.w, w, wbase, base, nw, skip0);
    }
}

fn raw_unit(u: Unit, at: u32) {
    if (u.n > 0u) {
        put(at, u.lo.x);
    }
    if (u.n > 1u) {
        put(at + 1u, u.lo.y);
    }
    if (u.n > 2u) {
        put(at + 2u, u.lo.z);
    }
    if (u.n > 3u) {
        put(at + 3u, u.lo.w);
    }
}

// A block after its decisions, as one lane of its team holds it: the lane's four
// units and 16 codes, the block's meta (type | width << 8), reference and length.
struct Block8 {
    u0: Unit,
    u1: Unit,
    u2: Unit,
    u3: Unit,
    cs: Codes16,
    inf: u32,
    r: FT,
    len: u32,
    live: bool,
}

// The decisions for block b by the team whose lane this is (t = 0..7); b may be past
// the last block (live false, len 0).
fn decide8(b: u32, t: u32) -> Block8 {
    let live = b < P.nblocks;
    let start = b * P.block_size;
    let len = select(0u, block_len(b), live);
    // end = 0 past the last block (load_unit then loads nothing)
    let end = select(0u, start + len, live);
    let i0 = start + LV * t;
    var u0: Unit;
    var u1: Unit;
    var u2: Unit;
    var u3: Unit;
    if (len == TL * LV) {
        // a full block (every block but a chunk's last): four 16-byte loads, none of
        // load_unit's per-unit bounds logic (start is a multiple of 128). Round 45 on
        // an H100 (h100-r45a.log, h100-r45d.log): the Vulkan driver's registers 64 ->
        // 58, 2-D compression 906 -> 941 through Vulkan
        u0 = full_unit(i0);
        u1 = full_unit(i0 + 4u);
        u2 = full_unit(i0 + 8u);
        u3 = full_unit(i0 + 12u);
    } else {
        u0 = load_unit(i0, end);
        u1 = load_unit(i0 + 4u, end);
        u2 = load_unit(i0 + 8u, end);
        u3 = load_unit(i0 + 12u, end);
    }

    var mm = minmax_init();
    fold_unit(&mm, u0, i0);
    fold_unit(&mm, u1, i0 + 4u);
    fold_unit(&mm, u2, i0 + 8u);
    fold_unit(&mm, u3, i0 + 12u);
    // the block's least nonzero |x| bits - 1 (for block_noflush) and its keys; the
    // special flag is read off them (keys_special)
    let smin = cl_min(mm.special);
    let kmin = cl_min(mm.kmn);
    let kmax = cl_max(mm.kmx);
    let any_special = keys_special(kmin, kmax, smin);
    let mn = value_of_key(kmin, 0u);
    let mx = value_of_key(kmax, 0u);

    var typ = BT_RAW;
    var width = 0u;
    var r = FT(0.0);
    var cs = Codes16(vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), false);
    let noflush = block_noflush(any_special, smin);
    if (P.exact == 1u) {
        if (!any_special && key_eq(kmin, kmax)) {
            typ = BT_CONST;
            r = mn;
        }
    } else {
        // the decisions of szx_encode (and of the twin's classify_block), with every
        // exchange taken by all lanes; a block with a NaN, an infinity or a subnormal
        // computes them too and stays raw
        let bb = block_basics(mn, mx);
        let mid = bb.mid;
        let maybe_const = bb.maybe_const;
        var qok = bb.lv.ok;
        var w = bb.lv.w;
        let qlim = bb.lv.qlim;
        var lc = false;
        if (maybe_const) {
            if (noflush) {
                lc = unit_const_ok_nf(u0, mid) && unit_const_ok_nf(u1, mid) && unit_const_ok_nf(u2, mid) && unit_const_ok_nf(u3, mid);
            } else {
                lc = unit_const_ok(u0, mid) && unit_const_ok(u1, mid) && unit_const_ok(u2, mid) && unit_const_ok(u3, mid);
            }
        }
        let cok = cl_all(lc);
        if (!cok && qok) {
            cs = codes16(u0, u1, u2, u3, mn, qlim, noflush, fast_lim(mn, mx, qlim));
            qok = cs.ok;
        }
        let qall = cl_all(qok);
        var flags = select(0u, 2u, qall);
        if (cok) {
            flags = 1u;
        }
        var rq = mn;
        var quant_ok = (flags & 2u) != 0u;
        // quarter-step shift of the levels (see the CPU twin), for the blocks whose
        // codes failed; taken by the whole subgroup when any of its blocks needs it
        let need = live && !any_special && flags == 0u;
        if (sg_any(need)) {
            // the shifted codes go straight into cs: a block that needs them has no
            // use for its first codes (they failed), and the others keep theirs; so
            // one set of 16 codes is live per lane, not two
            let r2 = shifted_ref(mn);
            let lv2 = levels(mx, r2);
            var ok2 = lv2.ok;
            if (need && ok2) {
                cs = codes16(u0, u1, u2, u3, r2, lv2.qlim, false, FT(0.0));
                ok2 = cs.ok;
            }
            let all2 = cl_all(ok2);
            if (need && all2) {
                quant_ok = true;
                rq = r2;
                w = lv2.w;
            }
        }
        if (!any_special) {
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
    return Block8(u0, u1, u2, u3, cs, typ | (width << 8u), r, len, live);
}

// Lane t's words of block d's body, the body's first word at `body`: the raw values,
// or the quantized codes packed (none for a constant block).
fn emit8(d: Block8, t: u32, body: u32) {
    let typ = d.inf & 0xffu;
#ifndef LOOKBACK
    // (the look-back form stages no raw body: it copies the block from the input)
    let i0 = body + LV * t;
    if (d.live && typ == BT_RAW) {
        raw_unit(d.u0, i0);
        raw_unit(d.u1, i0 + 4u);
        raw_unit(d.u2, i0 + 8u);
        raw_unit(d.u3, i0 + 12u);
    }
#endif
    // the codes of a quantized block; every lane runs the packer (w = 0 stores nothing)
    let wq = select(0u, d.inf >> 8u, d.live && typ == BT_QUANT);
    let base = body;
    let nw = (d.len * wq + 31u) / 32u;
    let oddw = (wq & 1u) == 1u;
    let skip0 = oddw && (t & 1u) == 1u;
    let wbase = base + ((wq * t) >> 1u);
    var pk = Packer(0u, select(0u, 16u, skip0), 0u, 0u);
    if (wq > 0u) {
        pack_vec(&pk, d.cs.c0, wq, wbase, base, nw, skip0);
        pack_vec(&pk, d.cs.c1, wq, wbase, base, nw, skip0);
        pack_vec(&pk, d.cs.c2, wq, wbase, base, nw, skip0);
        pack_vec(&pk, d.cs.c3, wq, wbase, base, nw, skip0);
    }
    // odd widths: an even lane's last half word takes the next lane's first 16 bits
    // (in the high half of that lane's first word, which it did not store)
    let head = cl_next(pk.first >> 16u);
    if (oddw && !skip0) {
        let j = wbase + pk.k;
        if (j - base < nw) {
            put(j, pk.lo | (head << 16u));
        }
    }
}

#ifdef LOOKBACK
// szx_encode8_lookback: szx_encode8 writing each block's payload at its final offset,
// and the chunk's meta words and total, as szx_encode8 + the scan of the costs +
// szx_compact do (the same bytes): one pass, no slots. A workgroup takes a ticket for
// its tile of TEAMS blocks, makes their decisions, scans their costs and stages the
// payloads of its constant and quantized blocks (reference and codes) in workgroup
// memory, in the tile's order; then it looks back over the earlier tiles
// (common/lookback.wgsl) for the tile's first word, and copies the tile's run of
// payload words out, coalesced: staged words, and raw blocks' values from the input.
// So no lane holds its values or codes across the look-back, whose fallback (a tile
// that has published nothing after SPINS polls) recomputes that tile's decisions
// (tile_sum): round 46's first form kept them in registers, 114 through the NVIDIA
// Vulkan driver, and compressed at 430 GB/s on the H100 against 947 for the three
// passes (docs/results/h100-r46b-*).
const TEAMS: u32 = WG / TL;
// polls of a tile that has published nothing before recomputing its blocks' costs
const SPINS: u32 = 64u;
// tiles polled per look-back round: one per invocation
const LB_WIN: u32 = WG;
// staged words of a tile: per block at most a reference and 128 codes of MAXW bits
const STAGE: u32 = TEAMS * (1u + TL * LV * MAXW / 32u);
#include "common/wg_scan.wgsl"
#include "common/lookback.wgsl"

var<workgroup> s_pay: array<u32, STAGE>;
// per team: its block's meta, its first word in the tile's run, its first staged word
var<workgroup> s_inf: array<u32, TEAMS>;
var<workgroup> s_pre: array<u32, TEAMS>;
var<workgroup> s_spre: array<u32, TEAMS>;
var<workgroup> s_agg: u32;

// Cost of the team's block, counted once per team (by its last lane; 0 past the last
// block): the workgroup's exclusive scan of it is, in every lane of team k, the words
// of the tile's blocks before block k.
fn team_cost(d: Block8, t: u32) -> u32 {
    return select(0u, block_cost(d.inf, d.len), d.live && t == TL - 1u);
}

// the look-back's fallback: the payload words of tile jn, from its blocks' decisions
fn tile_sum(jn: u32, lid: u32, sg_lane: u32, sg_size: u32) -> u32 {
    let d = decide8(jn * TEAMS + lid / TL, lid % TL);
    return wg_sum(lid, team_cost(d, lid % TL), sg_lane, sg_size);
}

// The tile's team whose block holds word i of the tile's run (i below the run's end):
// the last k with s_pre[k] <= i (every live block has a word; teams past the last
// block start at the run's end, so none is chosen). Written out, not a loop.
fn team_at(i: u32) -> u32 {
    var k = select(0u, 16u, s_pre[16] <= i);
    k = select(k, k + 8u, s_pre[k + 8u] <= i);
    k = select(k, k + 4u, s_pre[k + 4u] <= i);
    k = select(k, k + 2u, s_pre[k + 2u] <= i);
    return select(k, k + 1u, s_pre[k + 1u] <= i);
}
const_assert TEAMS == 32u; // team_at's five steps

@compute @workgroup_size(WG)
fn KERNEL_ENTRY(@builtin(local_invocation_index) lid: u32 SG_PARAMS) {
    let lanes = vec2<u32>(SG_ARGS);
    g_lid = lid;
    g_sl = lanes.x;
    g_ss = lanes.y;
    let tile = take_ticket(lid);
    let b0 = tile * TEAMS;
    if (b0 >= P.nblocks) {
        return;
    }
    let k = lid / TL;
    let t = lid % TL;
    let b = b0 + k;
    let d = decide8(b, t);
    let typ = d.inf & 0xffu;
    // the block's words, and those staged (not a raw block's), as one scan of
    // (staged << 16 | words): a tile has at most 32 * 128 words
    let c = team_cost(d, t);
    let cs = c | (select(c, 0u, typ == BT_RAW) << 16u);
    let pre2 = wg_exclusive_scan(lid, cs, SG_ARGS);
    let pre = pre2 & 0xffffu;
    let spre = pre2 >> 16u;
    if (lid == WG - 1u) {
        s_agg = (pre2 + cs) & 0xffffu;
    }
    if (t == 0u) {
        s_inf[k] = d.inf;
        s_pre[k] = pre;
        s_spre[k] = spre;
        if (d.live && typ != BT_RAW) {
            s_pay[spre] = bitcast<u32>(d.r);
        }
    }
    emit8(d, t, spre + WT);
    let agg = workgroupUniformLoad(&s_agg);
    let prior = look_back(tile, lid, agg, P.fallback, SG_ARGS);
    workgroupBarrier();
    // after the look-back every value comes from workgroup memory or from lid and the
    // tile, so nothing of the decisions stays live across it (and its fallback)
    let kb = lid / TL;
    let bb = b0 + kb;
    if (bb < P.nblocks && lid % TL == 0u) {
        let inf = s_inf[kb];
        // two blocks' meta per word, by the even one (b0 is even)
        if ((bb & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (bb + 1u < P.nblocks) {
                m = m | ((s_inf[kb + 1u] & 0xffffu) << 16u);
            }
            block_meta[bb >> 1u] = m;
        }
        if (bb + 1u == P.nblocks) {
            totals[P.chunk] = prior + s_pre[kb] + block_cost(inf, block_len(bb));
        }
    }
    // the tile's run of payload words [prior, prior + agg), word i by invocation i % WG
    for (var i = lid; i < agg; i += WG) {
        let kk = team_at(i);
        let j = i - s_pre[kk];
        var v = 0u;
        if ((s_inf[kk] & 0xffu) == BT_RAW) {
            v = data_u[(b0 + kk) * P.block_size + j];
        } else {
            v = s_pay[s_spre[kk] + j];
        }
        payload[prior + i] = v;
    }
}

#else
// Block b by the team whose lane this is (t = 0..7); b may be past the last block.
fn encode8(b: u32, t: u32) {
    let d = decide8(b, t);
    if (d.live && t == 0u) {
        info[b] = d.inf;
        refs[b] = d.r;
        cost[b] = block_cost(d.inf, d.len);
    }
    emit8(d, t, b * P.block_size * WT);
}

@compute @workgroup_size(WG)
fn KERNEL_ENTRY(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let lanes = vec2<u32>(SG_ARGS);
    g_lid = lid;
    g_sl = lanes.x;
    g_ss = lanes.y;
    // one round of 32 blocks per workgroup, no walk: a loop here is one naga bounds
    // with a counter, and the NVIDIA Vulkan driver then gave the kernel 80 registers
    // (61 without; h100-r29a-vkstats*.txt); the host dispatches a workgroup per 32
    // blocks. b0, the workgroup's first block, is uniform over it.
    let b0 = wg_linear(wid, nwg) * (WG / TL);
    if (b0 < P.nblocks) {
        encode8(b0 + lid / TL, lid % TL);
    }
}
#endif
