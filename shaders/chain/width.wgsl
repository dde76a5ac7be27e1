// chain_width: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, first pass. One
// team (common/team.wgsl) per AdaptiveBitpack block, blocks walked grid-stride: every value's Lorenzo residual is computed from
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

const WG: u32 = 256u;
#include "common/team.wgsl"

fn width_block(b: u32, lane: u32, ts: u32) {
    let start = P.base + b * P.block_size;
    let len = block_len(b);
    var m = 0u;
    for (var i = lane; i < len; i += ts) {
        m = max(m, packed_value(lorenzo_residual(start + i).x));
    }
    let mx = team_max(lane, m);
    if (lane == 0u) {
        let w = 32u - countLeadingZeros(mx);
        widths[b] = w;
        cost[b] = block_words(w, len);
    }
}

@compute @workgroup_size(WG)
fn chain_width(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        width_block(b, t.x, t.y);
    }
}
