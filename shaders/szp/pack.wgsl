// szp_pack: one workgroup per block: zigzag deltas packed at the block's width at its
// scanned offset (or the values verbatim), the chunk's width bytes (four blocks per
// word, by the block whose index is a multiple of 4) and its payload total.
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/szp_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read> widths: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(6) var<storage, read_write> payload: array<u32>;
@group(0) @binding(7) var<storage, read_write> totals: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"

const WG: u32 = 128u;
const MAX_BLOCK: u32 = 4096u;
var<workgroup> s_codes: array<u32, MAX_BLOCK>;

fn packed_code(i: u32) -> u32 {
    return s_codes[i];
}
#include "common/bitpack_gather.wgsl"
#include "common/width_meta.wgsl"

@compute @workgroup_size(WG)
fn szp_pack(@builtin(local_invocation_index) lid: u32,
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
            totals[P.chunk] = off + szp_cost(w, len);
        }
    }
    if (w == RAW_WIDTH) {
        for (var j = lid; j < len * WT; j += WG) {
            payload[off + j] = data_u[start * WT + j];
        }
        return;
    }
    for (var i = lid; i < len; i += WG) {
        var prev = 0i;
        if (i > 0u) {
            prev = quantize_value(start + i - 1u).x;
        }
        s_codes[i] = zigzag(quantize_value(start + i).x - prev);
    }
    workgroupBarrier();
    let nwords = szp_cost(w, len);
    for (var j = lid; j < nwords; j += WG) {
        payload[off + j] = gather_word(j, w, len);
    }
}
