// scan_downsweep: second pass of the device-wide exclusive scan. Each tile scans its
// TILE values and adds the tile's offset (the exclusive scan of the partials).
#include "common/grid.wgsl"

struct ScanParams {
    n: u32,
    ntiles: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> tile_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
#include "common/wg_scan.wgsl"

@compute @workgroup_size(WG)
fn scan_downsweep(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= S.ntiles) {
        return;
    }
    let base = (t * WG + lid) * ITEMS;
    var v: array<u32, ITEMS>;
    var acc = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        var x = 0u;
        if (base + k < S.n) {
            x = input[base + k];
        }
        v[k] = acc;
        acc = acc + x;
    }
    let pre = wg_exclusive_scan(lid, acc, SG_ARGS) + tile_offsets[t];
    for (var k = 0u; k < ITEMS; k++) {
        if (base + k < S.n) {
            output[base + k] = pre + v[k];
        }
    }
}
