// szx_classify: one team (a subgroup, or the workgroup without subgroups; see
// common/team.wgsl) per block, blocks walked grid-stride. Finds the block's min/max
// (integer keys), then decides the block type: constant (midpoint within eb of every
// value), quantized (reference = min, fixed-width codes, every reconstruction verified
// within eb) or raw (non-finite or subnormal values, codes too wide, or verification
// failed). Writes info[b] = type | width << 8, refs[b] and cost[b] (payload words).
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> info: array<u32>;
@group(0) @binding(4) var<storage, read_write> refs: array<FT>;
@group(0) @binding(5) var<storage, read_write> cost: array<u32>;

#include "common/szx_math.wgsl"

const WG: u32 = 256u;
#include "common/team.wgsl"

fn key_at(i: u32) -> KT {
    return key_from_words(data_u[i * WT], data_u[i * WT + WT - 1u]);
}
fn class_at(i: u32) -> u32 {
    return value_class(data_u[i * WT], data_u[i * WT + WT - 1u]);
}

fn classify_block(b: u32, lane: u32, ts: u32) {
    let start = b * P.block_size;
    let len = block_len(b);
    let end = start + len;

    // keys are a bijection of the bit patterns: any index holding the min (max) key
    // holds the same bits
    var kmn = KEY_MAX;
    var kmx = KEY_MIN;
    var imn = 0xffffffffu;
    var imx = 0xffffffffu;
    var special = 0u;
    for (var i = start + lane; i < end; i += ts) {
        let k = key_at(i);
        if (class_at(i) != 0u) {
            special = 1u;
        }
        if (key_lt(k, kmn) || imn == 0xffffffffu) {
            kmn = k;
            imn = i;
        }
        if (key_lt(kmx, k) || imx == 0xffffffffu) {
            kmx = k;
            imx = i;
        }
    }
    let any_special = team_or(lane, special);
    let kmin = team_min_key(lane, kmn);
    let kmax = team_max_key(lane, kmx);
    let imin = team_min(lane, select(0xffffffffu, imn, imn != 0xffffffffu && key_eq(kmn, kmin)));
    let imax = team_min(lane, select(0xffffffffu, imx, imx != 0xffffffffu && key_eq(kmx, kmax)));
    let mn = data_f[imin];
    let mx = data_f[imax];

    var typ = BT_RAW;
    var width = 0u;
    var r = FT(0.0);
    if (any_special == 0u) {
        if (P.exact == 1u) {
            if (key_eq(kmin, kmax)) {
                typ = BT_CONST;
                r = mn;
            }
        } else {
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
            // a range above 4 eb (2 steps; exact) leaves mn or mx more than eb from any
            // midpoint, so the constant test is skipped: same answer, less work
            let maybe_const = !(d > P.step * FT(2.0));
            var cok = maybe_const;
            for (var i = start + lane; i < end; i += ts) {
                let x = data_f[i];
                if (maybe_const) {
                    cok = cok && within(x, mid);
                }
                if (qok) {
                    qok = code_of(x, mn, qlim).y == 1u;
                }
            }
            let flags = team_and(lane, select(0u, 1u, cok) | select(0u, 2u, qok));
            var rq = mn;
            var quant_ok = (flags & 2u) != 0u;
            if (flags == 0u) {
                // A value sitting on the midpoint between two levels can miss the bound
                // on both sides once the levels are rounded to FT. Shifting the levels
                // by a quarter step moves every such value off the midpoints.
                let r2 = subr(mn, mulr(P.step, FT(0.25)));
                let qf2 = quant(mx, r2);
                var ok2 = qf2 < P.two_maxw;
                var qmax2 = 0u;
                if (ok2) {
                    qmax2 = u32(qf2);
                }
                let w2 = 32u - countLeadingZeros(qmax2);
                let qlim2 = width_limit(w2);
                for (var i = start + lane; i < end; i += ts) {
                    if (ok2) {
                        ok2 = code_of(data_f[i], r2, qlim2).y == 1u;
                    }
                }
                if (team_and(lane, select(0u, 2u, ok2)) != 0u) {
                    quant_ok = true;
                    rq = r2;
                    w = w2;
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
    if (lane == 0u) {
        let inf = typ | (width << 8u);
        info[b] = inf;
        refs[b] = r;
        cost[b] = block_cost(inf, len);
    }
}

@compute @workgroup_size(WG)
fn szx_classify(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        classify_block(b, t.x, t.y);
    }
}
