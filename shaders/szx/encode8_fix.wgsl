// szx_encode8_fix: the second dispatch of the one-pass SZx encoder. szx_encode8_lb
// places a tile's payload itself unless the tile deferred (its look-back found a tile
// with nothing published for LB_ROUNDS rounds, or P.defer_every forced it); a
// deferred tile left its blocks' references in refs, their bodies in their slots (as
// szx_encode8 does) and its meta words, and published its aggregate but no inclusive
// prefix. Here every aggregate is published (the encoder's dispatch is over), so the
// look-back of a deferred tile never waits: it sums the aggregates back to the nearest
// inclusive prefix, publishes its own, and moves its blocks into the payload (and, the
// last tile, writes the chunk's total). Without deferred tiles (state word 1 is 0)
// every workgroup returns at once. A dispatch of any number of workgroups covers every
// tile (workgroup k takes tiles k, k + G, ...; the host dispatches FIX_GROUPS at
// most). An aggregate missing here would be a broken invariant: the chunk's total is
// then set to 0xffffffff, which the host rejects as a payload larger than its buffer.
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> refs_u: array<u32>;
@group(0) @binding(2) var<storage, read> slots: array<u32>;
@group(0) @binding(3) var<storage, read> block_meta: array<u32>;
@group(0) @binding(4) var<storage, read_write> payload: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<u32>;
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;

const WG: u32 = 256u;
// blocks per tile (szx_encode8_lb's WG / TL) and lanes per block here
const TB: u32 = 32u;
const TL: u32 = 8u;
// the most workgroups the host dispatches
const FIX_GROUPS: u32 = 1024u;
#include "common/wg_scan.wgsl"
#include "common/lookback_words.wgsl"
#include "common/szx_lookback.wgsl"

var<workgroup> s_any: u32;
var<workgroup> s_flag: u32;

fn fix_tile(lid: u32, tile: u32) {
    let own = lb_at(tile);
    let agg = peek(own).y;
    var lb = vec2<u32>(0u, 1u);
    if (tile > 0u) {
        lb = look_back(lid, tile, 1u);
    }
    if (lb.y != 1u) {
        if (lid == 0u) {
            totals[P.chunk] = 0xffffffffu;
        }
        return;
    }
    let prior = lb.x;
    if (lid == 0u) {
        publish(own + 2u, prior + agg);
        if ((tile + 1u) * TB >= P.nblocks) {
            totals[P.chunk] = prior + agg;
        }
    }
    let team = lid / TL;
    let t = lid % TL;
    let b = tile * TB + team;
    let live = b < P.nblocks;
    var inf = 0u;
    var len = 0u;
    var c = 0u;
    if (live) {
        inf = (block_meta[b >> 1u] >> (16u * (b & 1u))) & 0xffffu;
        len = block_len(b);
        c = block_cost(inf, len);
    }
    // lane 0 of each team adds its block's cost: the other lanes' prefix includes it
    let off = prior + wg_exclusive_scan(lid, select(0u, c, t == 0u), 0u, 1u) - select(0u, c, t > 0u);
    if (live) {
        // raw: the values; else the reference, then the code words (none: constant)
        var n = c;
        var dst = off;
        if ((inf & 0xffu) != BT_RAW) {
            if (t == 0u) {
                payload[off] = refs_u[b];
            }
            n = c - 1u;
            dst = off + 1u;
        }
        let src = b * P.block_size;
        for (var k = t; k < n; k += TL) {
            payload[dst + k] = slots[src + k];
        }
    }
}

@compute @workgroup_size(WG)
fn szx_encode8_fix(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    if (lid == 0u) {
        s_any = atomicLoad(&state[1]);
    }
    if (workgroupUniformLoad(&s_any) == 0u) {
        return;
    }
    let ntiles = (P.nblocks + TB - 1u) / TB;
    let groups = nwg.x * nwg.y * nwg.z;
    for (var tile = wg_linear(wid, nwg); tile < ntiles; tile += groups) {
        if (lid == 0u) {
            s_flag = peek(lb_at(tile) + 2u).x;
        }
        if (workgroupUniformLoad(&s_flag) == 0u) {
            fix_tile(lid, tile);
        }
        // every invocation has read s_flag before the next tile's is written
        workgroupBarrier();
    }
}
