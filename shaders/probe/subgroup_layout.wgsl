// subgroup_layout: the adapter's subgroup layout as the crate's subgroup kernels use it.
// They take an invocation's lane to be lid % sg_size (SG_ARGS) and subgroup k to hold
// invocations [k * sg_size, (k + 1) * sg_size) (common/wg_scan.wgsl, common/team.wgsl,
// common/lookback.wgsl), which Vulkan does not promise ("no direct relationship
// between SubgroupLocalInvocationId and LocalInvocationIndex"; subgroups may also be
// launched with inactive invocations unless full subgroups are required). Each
// invocation i < P.n (global, WG per workgroup) writes out[4i .. 4i + 3] = (its
// subgroup_invocation_id, subgroup_size, the least local index in its subgroup, the
// number of invocations in its subgroup). Without SUBGROUP each invocation is a
// subgroup of one: (0, 1, lid, 1), as its CPU twin writes. The wgpu backend runs it
// when it opens a device and uses its subgroup variants only if every invocation
// reports the layout above (`backend::wgpu::check_subgroup_layout`).
#include "common/grid.wgsl"

struct ProbeParams {
    n: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> P: ProbeParams;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// the largest workgroup of the crate's kernels
const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn subgroup_layout(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>
#ifdef SUBGROUP
                   , @builtin(subgroup_invocation_id) lane: u32,
                   @builtin(subgroup_size) size: u32
#endif
                   ) {
#ifdef SUBGROUP
    // in uniform control flow: every invocation of the workgroup takes part
    let first = subgroupMin(lid);
    let count = subgroupAdd(1u);
#else
    let lane = 0u;
    let size = 1u;
    let first = lid;
    let count = 1u;
#endif
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i < P.n) {
        out[4u * i] = lane;
        out[4u * i + 1u] = size;
        out[4u * i + 2u] = first;
        out[4u * i + 3u] = count;
    }
}
