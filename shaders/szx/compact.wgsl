// szx_compact: one team (see common/team.wgsl) per block, blocks walked grid-stride.
// Moves each block's payload to its scanned word offset: the reference (refs), then
// the body szx_encode left in the block's slot (quantized: the code words, zero
// padded to the cost; raw: the values). Also writes the chunk's meta words (two blocks
// per u32, written by the even block) and the chunk's payload total (last block).
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@group(0) @binding(2) var<storage, read> refs_u: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> slots: array<u32>;
@group(0) @binding(5) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(6) var<storage, read_write> payload: array<u32>;
@group(0) @binding(7) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;
#include "common/ordered.wgsl"
#include "common/team.wgsl"

fn compact_block(b: u32, lane: u32, ts: u32) {
    let len = block_len(b);
    let inf = info[b];
    let typ = inf & 0xffu;
    let w = (inf >> 8u) & 0xffu;
    let off = offsets[b];
    let c = block_cost(inf, len);

    if (lane == 0u) {
        if ((b & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (b + 1u < P.nblocks) {
                m = m | ((info[b + 1u] & 0xffffu) << 16u);
            }
            block_meta[b >> 1u] = m;
        }
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + c;
        }
    }
    let slot = b * P.block_size * WT;
    if (typ == BT_RAW) {
        for (var j = lane; j < c; j += ts) {
            payload[off + j] = slots[slot + j];
        }
        return;
    }
    // reference, then (quantized) the code words and their zero padding
    let nw = (len * w + 31u) / 32u;
    for (var j = lane; j < c; j += ts) {
        var v = 0u;
        if (j < WT) {
            v = refs_u[b * WT + j];
        } else if (j - WT < nw) {
            v = slots[slot + j - WT];
        }
        payload[off + j] = v;
    }
}

@compute @workgroup_size(WG)
fn szx_compact(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        compact_block(b, t.x, t.y);
    }
}
