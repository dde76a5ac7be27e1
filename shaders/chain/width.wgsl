// chain_width: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, first pass. One
// workgroup per AdaptiveBitpack block: every value's Lorenzo residual is computed from
// codes quantized on the fly (no codes or residuals buffer), then the block's width and
// payload words, exactly as bitpack_width would compute them from the staged buffers.
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_params.wgsl"
#include "common/lorenzo_tiles.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> widths: array<u32>;
@group(0) @binding(4) var<storage, read_write> cost: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"
#include "common/lorenzo_stencil.wgsl"

const WG: u32 = 128u;
var<workgroup> s_max: array<u32, WG>;

@compute @workgroup_size(WG)
fn chain_width(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = P.base + b * P.block_size;
    let len = block_len(b);
    var m = 0u;
    for (var i = lid; i < len; i += WG) {
        m = max(m, packed_value(lorenzo_residual(start + i).x));
    }
    s_max[lid] = m;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off >> 1u) {
        if (lid < off) {
            s_max[lid] = max(s_max[lid], s_max[lid + off]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        let w = 32u - countLeadingZeros(s_max[0]);
        widths[b] = w;
        cost[b] = block_words(w, len);
    }
}
