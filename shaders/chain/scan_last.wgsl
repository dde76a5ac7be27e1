// chain_scan_last: last step of the line-parallel fused chain inverse: the inclusive
// prefix sum along the last used axis (y in 2-D, z in 3-D) inside each tile, of the
// sums the earlier scans left, dequantized straight into `out` (lorenzo_scan_axis and
// quant_decode in one pass, without writing the codes back). One invocation per line,
// consecutive invocations on consecutive x; four loads before their stores.
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

@compute @workgroup_size(WG)
fn chain_scan_last(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = wg_linear(wid, nwg) * WG + lid;
    let x = l % P.nx;
    var start = 0u;
    var stride = 0u;
    var len = 0u;
    if (P.nz > 1u) {
        // lines: x fastest, then y, then tile index along z
        let ntz = (P.nz + P.tz - 1u) / P.tz;
        if (l >= P.nx * P.ny * ntz) {
            return;
        }
        let y = (l / P.nx) % P.ny;
        let z0 = (l / (P.nx * P.ny)) * P.tz;
        start = (z0 * P.ny + y) * P.nx + x;
        stride = P.nx * P.ny;
        len = min(P.tz, P.nz - z0);
    } else {
        // lines: x fastest, then tile index along y
        if (l >= P.nx * P.nty) {
            return;
        }
        let y0 = (l / P.nx) * P.ty;
        start = y0 * P.nx + x;
        stride = P.nx;
        len = min(P.ty, P.ny - y0);
    }
    var acc = 0u;
    var i = start;
    var k = 0u;
    for (; k + 4u <= len; k += 4u) {
        let a0 = sums[i];
        let a1 = sums[i + stride];
        let a2 = sums[i + 2u * stride];
        let a3 = sums[i + 3u * stride];
        acc = acc + a0;
        out[i] = out_value(dequant_code(acc));
        acc = acc + a1;
        out[i + stride] = out_value(dequant_code(acc));
        acc = acc + a2;
        out[i + 2u * stride] = out_value(dequant_code(acc));
        acc = acc + a3;
        out[i + 3u * stride] = out_value(dequant_code(acc));
        i = i + 4u * stride;
    }
    for (; k < len; k++) {
        acc = acc + sums[i];
        out[i] = out_value(dequant_code(acc));
        i = i + stride;
    }
}
