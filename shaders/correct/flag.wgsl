// correct_flag: flags[i] = 1 where the trial reconstruction (float64 work values, as
// field values) misses the bound, or the value is NaN/Inf.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/correct_params.wgsl"
#include "common/raw_plain.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> raw_u: array<u32>;
@group(0) @binding(2) var<storage, read> raw_f: array<FT>;
@group(0) @binding(3) var<storage, read> work: array<f64>;
@group(0) @binding(4) var<storage, read_write> flags: array<u32>;

#include "common/szx_math.wgsl"

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn correct_flag(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    var miss = !raw_plain(i);
    if (!miss) {
        // exact mode: within() flushes differences below the smallest normal to 0,
        // which is only sound for bounds of at least 2^-100 / 2^-1000
        let t = to_field(work[i]);
        miss = select(!within(raw_f[i], t), raw_f[i] != t, P.exact == 1u);
    }
    flags[i] = select(0u, 1u, miss);
}
