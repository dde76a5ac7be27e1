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

#include "common/szx_units.wgsl"

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

// u0: the block's first unit, loaded by the caller (ahead of time).
fn encode_block(b: u32, lane: u32, ts: u32, u0: Unit) {
    let start = b * P.block_size;
    let len = block_len(b);
    let end = start + len;
    let step_u = UNIT * ts;
    let units = (len + step_u - 1u) / step_u;

    // pass 1: min / max keys; the first unit stays in registers
    var mm = minmax_init();
    fold_unit(&mm, u0, start + UNIT * lane);
    for (var k = 1u; k < units; k++) {
        let i0 = start + k * step_u + UNIT * lane;
        fold_unit(&mm, load_unit(i0, end), i0);
    }
    let kmin = team_min_key(lane, mm.kmn);
    let kmax = team_max_key(lane, mm.kmx);
#ifdef F64
    let any_special = team_any(lane, lane_special(mm));
    let smin = 0u;
    // no bitcast to f64 in WGSL: fetch the value at an index holding the key
    let imin = team_min(lane, select(0xffffffffu, mm.imn, mm.imn != 0xffffffffu && key_eq(mm.kmn, kmin)));
    let imax = team_min(lane, select(0xffffffffu, mm.imx, mm.imx != 0xffffffffu && key_eq(mm.kmx, kmax)));
#else
    // the block's least nonzero |x| bits - 1 (for block_noflush); the special flag is
    // read off it and the keys (keys_special)
    let smin = team_min(lane, mm.special);
    let any_special = keys_special(kmin, kmax, smin);
    let imin = 0u;
    let imax = 0u;
#endif
    let mn = value_of_key(kmin, imin);
    let mx = value_of_key(kmax, imax);

    var typ = BT_RAW;
    var width = 0u;
    var r = FT(0.0);
    var c0 = vec4<u32>(0u);
    // float32 blocks with no small nonzero magnitude take the flush-free value path
    let noflush = block_noflush(any_special, smin);
    if (!any_special) {
        if (P.exact == 1u) {
            if (key_eq(kmin, kmax)) {
                typ = BT_CONST;
                r = mn;
            }
        } else {
            // pass 2: verify (same decisions as the CPU twin's classify_block)
            let bb = block_basics(mn, mx);
            let mid = bb.mid;
            let maybe_const = bb.maybe_const;
            var qok = bb.lv.ok;
            var w = bb.lv.w;
            let qlim = bb.lv.qlim;
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
                        cs = unit_codes_nf(u0, mn, qlim, fast_lim(mn, mx, qlim));
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
                let r2 = shifted_ref(mn);
                let lv2 = levels(mx, r2);
                var ok2 = lv2.ok;
                let w2 = lv2.w;
                let qlim2 = lv2.qlim;
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
