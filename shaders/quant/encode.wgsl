// quant_encode: linear quantization q = round(x / (2 eb)), one invocation per value.
// A value whose code would leave (-LIMIT, LIMIT), or whose reconstruction q * step
// misses the bound for q and both neighbours, or that is NaN, +-Inf or subnormal, is
// an outlier: its code is 0 and flags[i] = 1 (quant_scatter stores it exactly).
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> codes: array<u32>;
@group(0) @binding(4) var<storage, read_write> flags: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn quant_encode(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    let qv = quantize_value(i);
    if (P.codes_off == 0u) {
        codes[i] = encode_code(qv.x);
    }
    flags[i] = select(1u, 0u, qv.y == 1i);
}
