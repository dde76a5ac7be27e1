// szx_compact: after szx_encode and the scan of the blocks' costs, moves each block's
// payload to its scanned word offset: the reference (refs), then the body szx_encode
// left in the block's slot (quantized: the code words, zero padded to the cost; raw:
// the values). Also writes the chunk's meta words (two blocks per u32, written by the
// even block) and the chunk's payload total (last block). One workgroup per WG
// consecutive blocks: their payloads form one contiguous run of words, which the
// invocations walk word by word (coalesced writes), each finding its block by a binary
// search over the group's offsets in workgroup memory (every block has at least one
// word, so the search lands on the block that holds the word).
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
#include "common/group_offsets.wgsl"
var<workgroup> s_inf: array<u32, WG>;

@compute @workgroup_size(WG)
fn szx_compact(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let b0 = wg_linear(wid, nwg) * WG;
    if (b0 >= P.nblocks) {
        return;
    }
    let nb = min(WG, P.nblocks - b0);
    let b = b0 + lid;
    if (lid < nb) {
        let inf = info[b];
        let off = offsets[b];
        s_off[lid] = off;
        s_inf[lid] = inf;
        if ((b & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (b + 1u < P.nblocks) {
                m = m | ((info[b + 1u] & 0xffffu) << 16u);
            }
            block_meta[b >> 1u] = m;
        }
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_cost(inf, block_len(b));
        }
    }
    workgroupBarrier();
    let last = nb - 1u;
    let o0 = s_off[0];
    let o1 = s_off[last] + block_cost(s_inf[last], block_len(b0 + last));
    for (var o = o0 + lid; o < o1; o += WG) {
        let k = block_at(o, nb);
        let bk = b0 + k;
        let inf = s_inf[k];
        let j = o - s_off[k];
        let slot = bk * P.block_size * WT;
        var v = 0u;
        if ((inf & 0xffu) == BT_RAW) {
            v = slots[slot + j];
        } else if (j < WT) {
            v = refs_u[bk * WT + j];
        } else {
            // quantized: the code words, then zero padding up to the cost
            let nw = (block_len(bk) * ((inf >> 8u) & 0xffu) + 31u) / 32u;
            if (j - WT < nw) {
                v = slots[slot + j - WT];
            }
        }
        payload[o] = v;
    }
}
