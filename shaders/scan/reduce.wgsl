// scan_reduce: first pass of the device-wide exclusive scan (reduce-then-scan).
// partials[t] = sum of the TILE = WG * ITEMS input values of tile t.
#include "common/grid.wgsl"

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> partials: array<u32>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
#include "common/wg_scan.wgsl"
#include "common/scan_params.wgsl"

@compute @workgroup_size(WG)
fn scan_reduce(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= S.ntiles) {
        return;
    }
    let x = load4(t, lid);
    let acc = x.x + x.y + x.z + x.w;
    let total = wg_sum(lid, acc, SG_ARGS);
    if (lid == 0u) {
        partials[t] = total;
    }
}
