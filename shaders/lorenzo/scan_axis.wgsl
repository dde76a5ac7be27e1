// lorenzo_scan_axis: decode side, inclusive prefix sum along y (axis 1) or z (axis 2)
// inside each tile, one invocation per line (consecutive invocations walk consecutive
// x, so loads coalesce). In place, wrapping u32.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn lorenzo_scan_axis(@builtin(local_invocation_index) lid: u32,
                     @builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = wg_linear(wid, nwg) * WG + lid;
    if (l >= P.nlines) {
        return;
    }
    let x = l % P.nx;
    var start = 0u;
    var stride = 0u;
    var len = 0u;
    if (P.axis == 1u) {
        // lines: x fastest, then tile row along y, then z
        let ty_i = (l / P.nx) % P.nty;
        let z = l / (P.nx * P.nty);
        let y0 = ty_i * P.ty;
        start = (z * P.ny + y0) * P.nx + x;
        stride = P.nx;
        len = min(P.ty, P.ny - y0);
    } else {
        let y = (l / P.nx) % P.ny;
        let tz_i = l / (P.nx * P.ny);
        let z0 = tz_i * P.tz;
        start = (z0 * P.ny + y) * P.nx + x;
        stride = P.nx * P.ny;
        len = min(P.tz, P.nz - z0);
    }
    // four loads before their stores: a store may alias a later load for the compiler,
    // so a plain load-add-store loop waits out one memory latency per value
    var acc = 0u;
    var i = P.elem_base + start;
    var k = 0u;
    for (; k + 4u <= len; k += 4u) {
        let a0 = values[i];
        let a1 = values[i + stride];
        let a2 = values[i + 2u * stride];
        let a3 = values[i + 3u * stride];
        acc = acc + a0;
        values[i] = acc;
        acc = acc + a1;
        values[i + stride] = acc;
        acc = acc + a2;
        values[i + 2u * stride] = acc;
        acc = acc + a3;
        values[i + 3u * stride] = acc;
        i = i + 4u * stride;
    }
    for (; k < len; k++) {
        acc = acc + values[i];
        values[i] = acc;
        i = i + stride;
    }
}
