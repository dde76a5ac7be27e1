// chain_width: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, first pass. One
// workgroup per max(1, WG / block_size) AdaptiveBitpack blocks (a contiguous span, as
// chain_pack): every value's Lorenzo residual is computed from codes quantized on the
// fly, once per window (common/lorenzo_window.wgsl; no codes or residuals buffer),
// then each block's width and payload words, exactly as bitpack_width would compute
// them from the staged buffers.
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

const WG: u32 = 256u;
#include "common/lorenzo_window.wgsl"
var<workgroup> s_max: array<atomic<u32>, WG>;

@compute @workgroup_size(WG)
fn chain_width(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let per = max(1u, WG / P.block_size);
    let b0 = wg_linear(wid, nwg) * per;
    if (b0 >= P.nblocks) {
        return;
    }
    let nb = min(per, P.nblocks - b0);
    let start = P.base + b0 * P.block_size;
    let len = min(nb * P.block_size, P.n - b0 * P.block_size);
    atomicStore(&s_max[lid], 0u);
    workgroupBarrier();
    for (var seg = 0u; seg < len; seg += SPAN) {
        let slen = min(SPAN, len - seg);
        fill_windows(start + seg, slen, lid);
        workgroupBarrier();
        for (var i = lid; i < slen; i += WG) {
            let v = packed_value(window_residual(i, start + seg + i).x);
            atomicMax(&s_max[(seg + i) / P.block_size], v);
        }
        workgroupBarrier();
    }
    if (lid < nb) {
        let b = b0 + lid;
        let w = 32u - countLeadingZeros(atomicLoad(&s_max[lid]));
        widths[b] = w;
        cost[b] = block_words(w, block_len(b));
    }
}
