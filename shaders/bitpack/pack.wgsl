// bitpack_pack: one workgroup per block; writes the block's codes at its width at its
// scanned offset, the chunk's meta bytes (four blocks per word, written by the block
// whose index is a multiple of 4) and the chunk's payload total (last block).
#include "common/grid.wgsl"
#include "common/bitpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> codes: array<u32>;
@group(0) @binding(2) var<storage, read> widths: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(5) var<storage, read_write> payload: array<u32>;
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;

const WG: u32 = 128u;
const MAX_BLOCK: u32 = 4096u;
var<workgroup> s_codes: array<u32, MAX_BLOCK>;

fn packed_code(i: u32) -> u32 {
    return s_codes[i];
}
#include "common/bitpack_gather.wgsl"
#include "common/width_meta.wgsl"

@compute @workgroup_size(WG)
fn bitpack_pack(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    let w = widths[b];
    let off = offsets[b];
    if (lid == 0u) {
        write_width_meta(b);
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_words(w, len);
        }
    }
    for (var i = lid; i < len; i += WG) {
        s_codes[i] = to_unsigned(codes[start + i]);
    }
    workgroupBarrier();
    let nwords = block_words(w, len);
    for (var j = lid; j < nwords; j += WG) {
        payload[off + j] = gather_word(j, w, len);
    }
}
