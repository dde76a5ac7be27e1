// wavelet_load: field values to float64 work values; NaN and +-Inf become 0 (the
// outlier-correction stage stores them exactly).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/correct_params.wgsl"
#include "common/raw_plain.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> raw_u: array<u32>;
@group(0) @binding(2) var<storage, read> raw_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> work: array<f64>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn wavelet_load(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    work[i] = select(0.0lf, f64(raw_f[i]), raw_plain(i));
}
