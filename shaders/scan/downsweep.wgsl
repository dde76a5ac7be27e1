// scan_downsweep: second pass of the device-wide exclusive scan. Each tile scans its
// TILE values and adds the tile's offset (the exclusive scan of the partials).
#include "common/grid.wgsl"

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> tile_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
#include "common/wg_scan.wgsl"
#include "common/scan_params.wgsl"
#include "common/scan_store.wgsl"

@compute @workgroup_size(WG)
fn scan_downsweep(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= S.ntiles) {
        return;
    }
    let x = load4(t, lid);
    // exclusive prefix within the invocation
    let v = vec4<u32>(0u, x.x, x.x + x.y, x.x + x.y + x.z);
    let acc = v.w + x.w;
    let pre = wg_exclusive_scan(lid, acc, SG_ARGS) + tile_offsets[t];
    store4(t, lid, pre, v);
}
