// szx_compact: after szx_encode and the scan of the blocks' costs, moves each block's
// payload to its scanned word offset: the reference (refs), then the body szx_encode
// left in the block's slot (quantized: the code words, zero padded to the cost; raw:
// the values). Also writes the chunk's meta words (two blocks per u32, written by the
// even block) and the chunk's payload total (last block). One workgroup per WG
// consecutive blocks: their payloads form one contiguous run of words, which the
// invocations walk four words (one 16-byte piece of the payload, bound as a vec4 array
// in whole pieces) at a time (coalesced writes), each finding the block of a piece's
// first word by a binary search over the group's offsets in workgroup memory (every
// block has at least one word, so the search lands on the block that holds the word,
// and the next word lies in that block or the next). Each block's word
// sources (refs, slot, zero padding) are worked out once per block, not per word.
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@group(0) @binding(2) var<storage, read> refs_u: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> slots: array<u32>;
@group(0) @binding(5) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(6) var<storage, read_write> payload: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;
#include "common/group_offsets.wgsl"
// Each block's word sources, computed once per block: its first s_nref[k] words come
// from refs (WT for constant and quantized blocks, 0 for raw ones), words up to
// s_nsrc[k] from the block's slot, the rest (the quantized body's zero padding) are 0.
var<workgroup> s_nref: array<u32, WG>;
var<workgroup> s_nsrc: array<u32, WG>;
var<workgroup> s_end: u32;

// Payload word o (in the group's run [o0, o1), else 0 and no load) of block b0 + k.
fn word_at(b0: u32, k: u32, o: u32, o0: u32, o1: u32) -> u32 {
    if (o < o0 || o >= o1) {
        return 0u;
    }
    let bk = b0 + k;
    let j = o - s_off[k];
    let nref = s_nref[k];
    var v = 0u;
    if (j < nref) {
        v = refs_u[bk * WT + j];
    } else if (j < s_nsrc[k]) {
        v = slots[bk * P.block_size * WT + j - nref];
    }
    return v;
}

// The group's block holding word o, given block k holding word o - 1 (when o - 1 >= oa,
// the first word searched for; before it k stays): k or k + 1.
fn next_block(k: u32, o: u32, oa: u32) -> u32 {
    if (o <= oa || k + 1u >= WG) {
        return k;
    }
    return select(k, k + 1u, s_off[k + 1u] <= o);
}

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
    var off = 0u;
    if (lid < nb) {
        let inf = info[b];
        let len = block_len(b);
        off = offsets[b];
        let t = inf & 0xffu;
        var nref = WT;
        var nsrc = WT;
        if (t == BT_RAW) {
            nref = 0u;
            nsrc = len * WT;
        } else if (t == BT_QUANT) {
            nsrc = WT + (len * ((inf >> 8u) & 0xffu) + 31u) / 32u;
        }
        s_nref[lid] = nref;
        s_nsrc[lid] = nsrc;
        if ((b & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (b + 1u < P.nblocks) {
                m = m | ((info[b + 1u] & 0xffffu) << 16u);
            }
            block_meta[b >> 1u] = m;
        }
        // the group's last block ends its run of words (and, last in the chunk, the
        // chunk's payload)
        if (lid + 1u == nb) {
            let end = off + block_cost(inf, len);
            s_end = end;
            if (b + 1u == P.nblocks) {
                totals[P.chunk] = end;
            }
        }
    }
    set_group_offset(lid, nb, off);
    workgroupBarrier();
    let o0 = s_off[0];
    let o1 = s_end;
    // the 16-byte pieces q of the payload that hold words of the group's run [o0, o1):
    // one search per piece, for its first word in the run; each later word lies in the
    // same block or the next (every block has at least one word). Pieces inside the run
    // are stored whole, the two it shares with the neighbouring groups by components.
    for (var q = o0 / 4u + lid; q < (o1 + 3u) / 4u; q += WG) {
        let o = 4u * q;
        let oa = max(o, o0);
        var k = block_at(oa);
        let x = word_at(b0, k, o, o0, o1);
        k = next_block(k, o + 1u, oa);
        let y = word_at(b0, k, o + 1u, o0, o1);
        k = next_block(k, o + 2u, oa);
        let z = word_at(b0, k, o + 2u, o0, o1);
        k = next_block(k, o + 3u, oa);
        let w = word_at(b0, k, o + 3u, o0, o1);
        if (o >= o0 && o + 4u <= o1) {
            payload[q] = vec4<u32>(x, y, z, w);
        } else {
            if (o >= o0 && o < o1) {
                payload[q].x = x;
            }
            if (o + 1u >= o0 && o + 1u < o1) {
                payload[q].y = y;
            }
            if (o + 2u >= o0 && o + 2u < o1) {
                payload[q].z = z;
            }
            if (o + 3u >= o0 && o + 3u < o1) {
                payload[q].w = w;
            }
        }
    }
}
