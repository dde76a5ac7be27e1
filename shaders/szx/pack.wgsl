// szx_pack: one team (see common/team.wgsl) per block, blocks walked grid-stride.
// Writes the block's payload at its scanned word offset: the reference, then
// (quantized) the codes bit-packed LSB-first at the block's width, each payload word
// gathered by one lane from codes computed on the fly, or (raw) the values verbatim.
// Also writes the chunk's meta words (two blocks per u32, written by the even block)
// and the chunk's payload total (last block).
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read> info: array<u32>;
@group(0) @binding(4) var<storage, read> refs_u: array<u32>;
@group(0) @binding(5) var<storage, read> refs_f: array<FT>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(8) var<storage, read_write> payload: array<u32>;
@group(0) @binding(9) var<storage, read_write> totals: array<u32>;

#include "common/szx_math.wgsl"

const WG: u32 = 256u;
#include "common/team.wgsl"

// the block being gathered
var<private> g_start: u32;
var<private> g_ref: FT;
var<private> g_qlim: u32;
fn packed_code(i: u32) -> u32 {
    return code_of(data_f[g_start + i], g_ref, g_qlim).x;
}
#include "common/bitpack_gather.wgsl"

fn pack_block(b: u32, lane: u32, ts: u32) {
    let start = b * P.block_size;
    let len = block_len(b);
    let inf = info[b];
    let typ = inf & 0xffu;
    let w = (inf >> 8u) & 0xffu;
    let off = offsets[b];

    if (lane == 0u) {
        if ((b & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (b + 1u < P.nblocks) {
                m = m | ((info[b + 1u] & 0xffffu) << 16u);
            }
            block_meta[b >> 1u] = m;
        }
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_cost(inf, len);
        }
    }
    if (typ == BT_RAW) {
        for (var j = lane; j < len * WT; j += ts) {
            payload[off + j] = data_u[start * WT + j];
        }
        return;
    }
    if (lane < WT) {
        payload[off + lane] = refs_u[b * WT + lane];
    }
    if (typ == BT_CONST) {
        return;
    }
    g_start = start;
    g_ref = refs_f[b];
    g_qlim = width_limit(w);
    let nwords = block_cost(inf, len) - WT;
    let base = off + WT;
    for (var j = lane; j < nwords; j += ts) {
        payload[base + j] = gather_word(j, w, len);
    }
}

@compute @workgroup_size(WG)
fn szx_pack(@builtin(local_invocation_index) lid: u32,
            @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        pack_block(b, t.x, t.y);
    }
}
