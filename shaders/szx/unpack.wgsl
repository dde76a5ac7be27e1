// szx_unpack: decode side, one team (see common/team.wgsl) per block, blocks walked
// grid-stride. Reads the block's payload at its
// scanned offset and writes the reconstructed values (constant: the reference;
// quantized: reference + code * step; raw: the stored bits).
//
// Bounds: every access to `out` and the payload stays inside the block's output span
// and payload window, tested once per block below (a block that would leave them can
// only come from an inconsistent archive and is skipped). The CUDA translation relies
// on that test instead of checking each access:
// cuda-guarded: out payload_u payload_f
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/szx_types.wgsl"

#include "common/out_value.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> payload_f: array<FT>;
@group(0) @binding(5) var<storage, read_write> out: array<OT>;

#include "common/szx_math.wgsl"
#include "common/bitpack_extract.wgsl"

const WG: u32 = 256u;
#include "common/team.wgsl"

fn ref_at(o: u32) -> FT {
#ifdef F64
    return payload_f[o / 2u];
#else
    return bitcast<f32>(payload_u[o]);
#endif
}

fn raw_at(o: u32) -> OT {
#ifdef F64
    return payload_f[o / 2u];
#else
    return payload_u[o];
#endif
}

fn unpack_block(b: u32, lane: u32, ts: u32) {
    let start = b * P.block_size;
    let len = block_len(b);
    let inf = (block_meta[b >> 1u] >> ((b & 1u) * 16u)) & 0xffffu;
    let typ = inf & 0xffu;
    let w = (inf >> 8u) & 0xffu;
    let off = P.word_base + offsets[b];
    // the block's values go to out[start, start + len), its payload words are
    // [off, off + cost): raw reads off + i * WT (i < len), quantized the reference
    // (WT words) and ceil(len * w / 32) code words after it (extract_code reads the
    // next word only when a code straddles into it), constant the reference
    let lo = arrayLength(&out);
    let lp = arrayLength(&payload_u);
    let cost = block_cost(inf, len);
    if (start > lo || len > lo - start || off > lp || cost > lp - off) {
        return;
    }
#ifdef F64
    if ((off & 1u) != 0u || (off + cost) / 2u > arrayLength(&payload_f)) {
        return;
    }
#endif
    if (typ == BT_RAW) {
        for (var i = lane; i < len; i += ts) {
            out[start + i] = raw_at(off + i * WT);
        }
        return;
    }
    let r = ref_at(off);
    if (typ == BT_CONST) {
#ifdef F64
        let v = r;
#else
        let v = payload_u[off];
#endif
        for (var i = lane; i < len; i += ts) {
            out[start + i] = v;
        }
        return;
    }
    let base = off + WT;
    for (var i = lane; i < len; i += ts) {
        out[start + i] = out_value(dequant(extract_code(base, i, w), r));
    }
}

@compute @workgroup_size(WG)
fn szx_unpack(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        unpack_block(b, t.x, t.y);
    }
}
