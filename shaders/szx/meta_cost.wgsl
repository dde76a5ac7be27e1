// szx_meta_cost: decode side. One invocation per block: payload words of the block from
// its meta entry (the host validated every entry before upload).
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read_write> cost: array<u32>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn szx_meta_cost(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg) * WG + lid;
    if (b >= P.nblocks) {
        return;
    }
    let inf = (block_meta[b >> 1u] >> ((b & 1u) * 16u)) & 0xffffu;
    cost[b] = block_cost(inf, block_len(b));
}
