// quant_encode: linear quantization q = round(x / (2 eb)), one invocation per value.
// A value whose code would leave (-LIMIT, LIMIT), or whose reconstruction q * step
// misses the bound for q and both neighbours, or that is NaN, +-Inf or subnormal, is
// an outlier: its code is 0 and its bit is set in the chunk's outlier mask (one bit per
// value, WG / 32 words per workgroup); counts[g] is workgroup g's outlier count
// (quant_scatter stores them exactly at the scanned counts). Outliers are rare, so a
// bit and a per-workgroup count replace a u32 flag per value and its device-wide scan.
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> codes: array<u32>;
@group(0) @binding(4) var<storage, read_write> mask: array<u32>;
@group(0) @binding(5) var<storage, read_write> counts: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"

const WG: u32 = 256u;
var<workgroup> s_mask: array<atomic<u32>, WG / 32u>;
var<workgroup> s_count: atomic<u32>;

@compute @workgroup_size(WG)
fn quant_encode(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wg_linear(wid, nwg);
    let i = g * WG + lid;
    if (lid < WG / 32u) {
        atomicStore(&s_mask[lid], 0u);
    }
    if (lid == 0u) {
        atomicStore(&s_count, 0u);
    }
    workgroupBarrier();
    if (i < P.n) {
        let qv = quantize_value(i);
        if (P.codes_off == 0u) {
            codes[i] = encode_code(qv.x);
        }
        if (qv.y != 1i) {
            atomicOr(&s_mask[lid / 32u], 1u << (lid % 32u));
            atomicAdd(&s_count, 1u);
        }
    }
    workgroupBarrier();
    if (g * WG < P.n) {
        if (lid < WG / 32u) {
            mask[g * (WG / 32u) + lid] = atomicLoad(&s_mask[lid]);
        }
        if (lid == 0u) {
            counts[g] = atomicLoad(&s_count);
        }
    }
}
