// chain_compact: after chain_encode, moves each block's words from its slot (block b's
// word m at slot_word(b, m, bs, w) of the chunk's slot window: its units' words,
// interleaved in groups of 32 units, common/chain_slots.wgsl) to its scanned offset in
// the chunk's payload; writes the chunk's width bytes (four blocks per word, by the
// block whose index is a multiple of 4) and its payload total (last block): the bytes
// bitpack_pack writes. One workgroup per WG consecutive blocks: their words form one
// contiguous run of the payload, which the invocations walk word by word (coalesced
// writes), each finding its block by a binary search over the group's offsets in
// workgroup memory; with blocks of 128 values or more, four words (one vec4 store) at a
// time, loaded one by one (a unit's consecutive words are 128 bytes apart in the
// slots; the other units of its group, whose words share those lines, are moved by
// neighbouring invocations of the same workgroup). Blocks of 32 values are moved block
// by block instead: each invocation copies its block's words, with no search, and a
// subgroup's loads of its blocks' m-th words are side by side. The slot and payload
// windows are bound as vec4 arrays (whole 16-byte pieces: the host pads them).
#include "common/grid.wgsl"
#include "common/bitpack_params.wgsl"
#include "common/chain_slots.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> widths: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> slots: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(5) var<storage, read_write> payload: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;
#include "common/group_offsets.wgsl"

#include "common/width_meta.wgsl"

// body word m of block b (width w), 0 past the block's words (the field's last piece)
fn body_word(b: u32, m: u32, w: u32) -> u32 {
    if (m >= block_words(w, block_len(b))) {
        return 0u;
    }
    let j = slot_word(b, m, P.block_size, w);
    return slots[j / 4u][j % 4u];
}

@compute @workgroup_size(WG)
fn chain_compact(@builtin(local_invocation_index) lid: u32,
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
        off = offsets[b];
        write_width_meta(b);
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_words(widths[b], block_len(b));
        }
    }
    set_group_offset(lid, nb, off);
    workgroupBarrier();
    let last = b0 + nb - 1u;
    let o0 = s_off[0];
    let o1 = s_off[nb - 1u] + block_words(widths[last], block_len(last));
    if (P.block_size % 128u == 0u) {
        // every block but the field's last holds a multiple of 4 words (block_size / 32
        // per bit of width), so payload offsets are 16-byte aligned: one search per
        // four words, stored as one 16-byte piece; the last piece of the field's last
        // block by components (no word past the payload is written)
        for (var q = o0 / 4u + lid; q < (o1 + 3u) / 4u; q += WG) {
            let o = 4u * q;
            let k = block_at(o);
            // four words of one block (of one or two of its units, 128 bytes apart in the
            // slots; none past the block's words)
            let bk = b0 + k;
            let w = widths[bk];
            let m = o - s_off[k];
            let v = vec4<u32>(body_word(bk, m, w), body_word(bk, m + 1u, w), body_word(bk, m + 2u, w), body_word(bk, m + 3u, w));
            if (o + 4u <= o1) {
                payload[q] = v;
            } else {
                payload[q].x = v.x;
                if (o + 1u < o1) {
                    payload[q].y = v.y;
                }
                if (o + 2u < o1) {
                    payload[q].z = v.z;
                }
            }
        }
    } else if (P.block_size == 32u) {
        // one block per invocation (a block of 32 has at most 32 words)
        if (lid < nb) {
            let c = block_words(widths[b], block_len(b));
            for (var m = 0u; m < c; m++) {
                let j = unit_slot(b, m);
                let o = off + m;
                payload[o / 4u][o % 4u] = slots[j / 4u][j % 4u];
            }
        }
    } else {
        for (var o = o0 + lid; o < o1; o += WG) {
            let k = block_at(o);
            let j = slot_word(b0 + k, o - s_off[k], P.block_size, widths[b0 + k]);
            payload[o / 4u][o % 4u] = slots[j / 4u][j % 4u];
        }
    }
}
