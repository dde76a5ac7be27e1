// scan_reduce: first pass of the device-wide exclusive scan (reduce-then-scan).
// partials[t] = sum of the TILE = WG * ITEMS input values of tile t.
#include "common/grid.wgsl"

struct ScanParams {
    n: u32,
    ntiles: u32,
    // scan_lookback only (tests of its paths): 0 normal, 1 never use a published
    // value (every tile sums its predecessors from their input), 2 use published
    // aggregates but no inclusive prefix (every walk goes back to tile 0)
    fallback: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> partials: array<u32>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
#include "common/wg_scan.wgsl"

@compute @workgroup_size(WG)
fn scan_reduce(@builtin(local_invocation_index) lid: u32,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= S.ntiles) {
        return;
    }
    let base = (t * WG + lid) * ITEMS;
    var acc = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        if (base + k < S.n) {
            acc = acc + input[base + k];
        }
    }
    let total = wg_sum(lid, acc, SG_ARGS);
    if (lid == 0u) {
        partials[t] = total;
    }
}
