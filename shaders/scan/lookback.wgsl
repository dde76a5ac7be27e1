// scan_lookback: the device-wide exclusive scan in one pass (single-pass scan with
// decoupled look-back and fallback, common/lookback.wgsl), the alternative to
// scan_reduce + scan_downsweep. Each workgroup takes a ticket, scans its TILE = WG *
// ITEMS values, publishes the tile's sum and looks back; a tile that has published
// nothing after SPINS polls is reduced from its input by the waiting workgroup itself
// (tile_sum). Then it writes its outputs.

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
// polls of a tile that has published nothing before reducing it from its input
const SPINS: u32 = 16u;
// tiles polled per look-back round: one per invocation
const LB_WIN: u32 = WG;
#include "common/wg_scan.wgsl"
#include "common/scan_params.wgsl"
#include "common/scan_store.wgsl"
#include "common/lookback.wgsl"

var<workgroup> s_sum: u32;

// the look-back's fallback: tile jn's sum from its input
fn tile_sum(jn: u32, lid: u32, sg_lane: u32, sg_size: u32) -> u32 {
    let y = load4(jn, lid);
    return wg_sum(lid, y.x + y.y + y.z + y.w, sg_lane, sg_size);
}

@compute @workgroup_size(WG)
fn scan_lookback(@builtin(local_invocation_index) lid: u32 SG_PARAMS) {
    let t = take_ticket(lid);
    if (t >= S.ntiles) {
        return;
    }
    let x = load4(t, lid);
    // exclusive prefix within the invocation, then within the tile
    let v = vec4<u32>(0u, x.x, x.x + x.y, x.x + x.y + x.z);
    let acc = v.w + x.w;
    let pre = wg_exclusive_scan(lid, acc, SG_ARGS);
    if (lid == WG - 1u) {
        s_sum = pre + acc;
    }
    let agg = workgroupUniformLoad(&s_sum);
    let prior = look_back(t, lid, agg, S.fallback, SG_ARGS);
    store4(t, lid, prior + pre, v);
}
