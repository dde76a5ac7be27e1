// quant_patch: writes the exact values of the chunk's outliers over the decoded field
// (entries were validated on the host: indices inside the chunk, increasing).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

#ifdef F64
alias OT = f64;
#else
alias OT = u32;
#endif

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> entries_u: array<u32>;
@group(0) @binding(2) var<storage, read> entries_v: array<OT>;
@group(0) @binding(3) var<storage, read_write> out: array<OT>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn quant_patch(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = wg_linear(wid, nwg) * WG + lid;
    if (j >= P.count) {
        return;
    }
    let idx = entries_u[j * 2u * WT] - P.base;
    out[idx] = entries_v[2u * j + 1u];
}
