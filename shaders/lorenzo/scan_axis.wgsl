// lorenzo_scan_axis: decode side, inclusive prefix sum along y (axis 1) or z (axis 2)
// inside each tile, one invocation per line (consecutive invocations walk consecutive
// x, so loads coalesce; common/axis_scan.wgsl). In place, wrapping u32.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;

const WG: u32 = 256u;

#include "common/axis_scan.wgsl"

fn axis_get(i: u32) -> u32 {
    return values[i];
}

fn axis_put(i: u32, s: u32) {
    values[i] = s;
}

@compute @workgroup_size(WG)
fn lorenzo_scan_axis(@builtin(local_invocation_index) lid: u32,
                     @builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = wg_linear(wid, nwg) * WG + lid;
    if (l >= P.nlines) {
        return;
    }
    let line = axis_line(l, P.axis);
    axis_scan(P.elem_base + line.x, line.y, line.z);
}
