// chain_scan_last: last step of the line-parallel fused chain inverse: the inclusive
// prefix sum along the last used axis (y in 2-D, z in 3-D) inside each tile, of the
// sums the earlier scans left, dequantized straight into `out` (lorenzo_scan_axis and
// quant_decode in one pass, without writing the codes back). One invocation per line,
// consecutive invocations on consecutive x (common/axis_scan.wgsl, as lorenzo_scan_axis).
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_unpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> sums: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<OT>;

#include "common/out_value.wgsl"
#include "common/szx_math.wgsl"

const WG: u32 = 256u;

#include "common/chain_dequant.wgsl"

#include "common/axis_scan.wgsl"

fn axis_get(i: u32) -> u32 {
    return sums[i];
}

fn axis_put(i: u32, s: u32) {
    out[i] = out_value(dequant_code(s));
}

@compute @workgroup_size(WG)
fn chain_scan_last(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = wg_linear(wid, nwg) * WG + lid;
    // the last used axis: z in 3-D (lines per tile plane along z), else y
    var axis = 1u;
    var lines = P.nx * P.nty;
    if (P.nz > 1u) {
        axis = 2u;
        lines = P.nx * P.ny * ((P.nz + P.tz - 1u) / P.tz);
    }
    if (l >= lines) {
        return;
    }
    let line = axis_line(l, axis);
    axis_scan(line.x, line.y, line.z);
}
