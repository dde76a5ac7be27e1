// quant_decode: x' = q * step for every code (outliers are patched afterwards).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

#include "common/out_value.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> codes: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<OT>;

#include "common/szx_math.wgsl"

const WG: u32 = 256u;
// values per invocation: value (group * CODES + j) * WG + lid at step j, so each step
// stores whole lines (one value per invocation ran ~4 k workgroups per SM per GiB
// through the H200's workgroup launches: 2.2 TB/s, r14c)
const CODES: u32 = 4u;

@compute @workgroup_size(WG)
fn quant_decode(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = wg_linear(wid, nwg) * CODES;
    for (var j = 0u; j < CODES; j++) {
        let i = (first + j) * WG + lid;
        if (i >= P.n) {
            return;
        }
        out[i] = out_value(mulr(FT(decode_code(codes[i])), P.step));
    }
}
