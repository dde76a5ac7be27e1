// scan_lookback: the device-wide exclusive scan in one pass (single-pass scan with
// decoupled look-back and fallback), the alternative to scan_reduce + scan_downsweep.
// Each workgroup takes a ticket (tiles are handed out in the order workgroups start),
// scans its TILE = WG * ITEMS values, publishes the tile's sum ("aggregate"), then
// walks back over the earlier tiles WG at a time (each invocation polls one tile of the
// window): it adds the window's aggregates up to the nearest published inclusive prefix
// (and stops there) or up to the nearest tile that has published nothing; that tile is
// polled SPINS times and then reduced from its input by the waiting workgroup itself
// (the fallback), so no workgroup ever waits for another to be scheduled: the kernel
// needs no forward-progress guarantee. Every round moves at least one tile back, so an
// invocation loops at most ntiles * (SPINS + 1 + the two sums' loops) times plus the
// tile scan's own (the host checks that against an adapter's loop limit). Then it
// publishes its inclusive prefix and writes its outputs.
//
// state (zeroed by the host before the dispatch): word 0 is the ticket counter; tile t
// owns words 1 + 4t .. 4 + 4t: aggregate low and high halves, inclusive low and high
// halves. Each word is READY | 16-bit half, so every word carries its own ready bit
// and a reader needs no ordering between words (WGSL atomics are relaxed): a value is
// taken only when both of its halves are ready. Sums wrap in u32 like scan_downsweep's.

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;

const WG: u32 = 256u;
const ITEMS: u32 = 4u;
// polls of a tile that has published nothing before reducing it from its input
const SPINS: u32 = 16u;
const READY: u32 = 0x10000u;
#include "common/wg_scan.wgsl"
#include "common/scan_params.wgsl"
#include "common/scan_store.wgsl"

var<workgroup> s_tile: u32;
var<workgroup> s_sum: u32;
// the window's nearest inclusive prefix and nearest tile with nothing published (as
// invocation indices; WG if none), then the polled tile's (kind, value): 2 inclusive
// prefix, 1 aggregate, 0 nothing
var<workgroup> s_min_inc: atomic<u32>;
var<workgroup> s_min_nr: atomic<u32>;
var<workgroup> s_msg: vec2<u32>;

fn publish(at: u32, v: u32) {
    atomicStore(&state[at], READY | (v & 0xffffu));
    atomicStore(&state[at + 1u], READY | (v >> 16u));
}

// (1, value) when both halves at `at` are ready, else (0, 0)
fn peek(at: u32) -> vec2<u32> {
    let lo = atomicLoad(&state[at]);
    let hi = atomicLoad(&state[at + 1u]);
    if ((lo & hi & READY) != 0u) {
        return vec2<u32>(1u, (lo & 0xffffu) | ((hi & 0xffffu) << 16u));
    }
    return vec2<u32>(0u, 0u);
}

@compute @workgroup_size(WG)
fn scan_lookback(@builtin(local_invocation_index) lid: u32 SG_PARAMS) {
    if (lid == 0u) {
        s_tile = atomicAdd(&state[0], 1u);
    }
    let t = workgroupUniformLoad(&s_tile);
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
    let own = 1u + 4u * t;
    if (lid == 0u) {
        publish(own, agg);
        if (t == 0u) {
            publish(own + 2u, agg);
        }
    }
    var prior = 0u;
    if (t > 0u) {
        // j: the nearest earlier tile not yet accounted for
        var j = t - 1u;
        loop {
            // every invocation polls one tile of the window j, j - 1, ..., j - WG + 1
            if (lid == 0u) {
                atomicStore(&s_min_inc, WG);
                atomicStore(&s_min_nr, WG);
            }
            workgroupBarrier();
            var kind = 3u; // past tile 0
            var val = 0u;
            if (lid <= j) {
                kind = 0u;
                if (S.fallback != 1u) {
                    let at = 1u + 4u * (j - lid);
                    let inc = peek(at + 2u);
                    let ag = peek(at);
                    if (inc.x == 1u && S.fallback == 0u) {
                        kind = 2u;
                        val = inc.y;
                    } else if (ag.x == 1u) {
                        kind = 1u;
                        val = ag.y;
                    }
                }
            }
            if (kind == 2u) {
                atomicMin(&s_min_inc, lid);
            }
            if (kind == 0u) {
                atomicMin(&s_min_nr, lid);
            }
            workgroupBarrier();
            if (lid == 0u) {
                s_msg = vec2<u32>(atomicLoad(&s_min_inc), atomicLoad(&s_min_nr));
            }
            // the nearest inclusive prefix and the nearest tile with nothing published
            let w = workgroupUniformLoad(&s_msg);
            // the window's aggregates before both, and the inclusive prefix if it comes first
            var add = 0u;
            if (lid < min(w.x, w.y) || (lid == w.x && w.x < w.y)) {
                add = val;
            }
            prior = prior + wg_sum(lid, add, SG_ARGS);
            if (w.x < w.y) {
                break;
            }
            if (w.y == WG) {
                // the whole window had aggregates
                if (j < WG) {
                    break; // down to tile 0
                }
                j = j - WG;
                continue;
            }
            // tile jn has published nothing yet: poll it, then sum it from its input
            let jn = j - w.y;
            if (lid == 0u) {
                let at = 1u + 4u * jn;
                var m = vec2<u32>(0u, 0u);
                for (var k = select(0u, SPINS, S.fallback != 1u); k > 0u; k--) {
                    let inc = peek(at + 2u);
                    if (inc.x == 1u && S.fallback == 0u) {
                        m = vec2<u32>(2u, inc.y);
                        break;
                    }
                    let ag = peek(at);
                    if (ag.x == 1u) {
                        m = vec2<u32>(1u, ag.y);
                        break;
                    }
                }
                s_msg = m;
            }
            let m = workgroupUniformLoad(&s_msg);
            if (m.x == 0u) {
                let y = load4(jn, lid);
                prior = prior + wg_sum(lid, y.x + y.y + y.z + y.w, SG_ARGS);
            } else {
                prior = prior + m.y;
            }
            if (m.x == 2u || jn == 0u) {
                break;
            }
            j = jn - 1u;
        }
        if (lid == 0u) {
            publish(own + 2u, prior + agg);
        }
    }
    store4(t, lid, prior + pre, v);
}
