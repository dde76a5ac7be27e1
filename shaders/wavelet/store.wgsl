// wavelet_store: float64 work values to field values (to_field: nearest float32,
// +-Inf past its range, canonical NaN, +0 below the smallest normal float32).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/correct_params.wgsl"
#include "common/out_value.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> work: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<OT>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn wavelet_store(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    out[i] = out_value(to_field(work[i]));
}
