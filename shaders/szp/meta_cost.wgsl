// szp_meta_cost: decode side, one invocation per block: payload words from the width
// byte (validated on the host).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/szp_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read_write> cost: array<u32>;
#include "common/block_width.wgsl"

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn szp_meta_cost(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg) * WG + lid;
    if (b >= P.nblocks) {
        return;
    }
    let w = block_width(b);
    cost[b] = szp_cost(w, block_len(b));
}
