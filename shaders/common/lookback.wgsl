// Decoupled look-back with fallback: the device-wide exclusive prefix of a tile's
// aggregate in one pass, shared by scan_lookback and szx_encode8_lookback. Each
// workgroup takes a ticket (tiles are handed out in the order workgroups start),
// computes its tile's aggregate, publishes it, then walks back over the earlier tiles
// a window at a time, one tile per polling invocation: it adds the window's
// aggregates up to the nearest published inclusive prefix (and stops there) or up to
// the nearest tile that has published nothing; that tile is polled SPINS times and
// then recomputed from the input by the waiting workgroup itself (the fallback, the
// includer's `tile_sum`), so no workgroup ever waits for another to be scheduled: the
// kernel needs no forward-progress guarantee. A poll reads a tile's aggregate only
// where its inclusive prefix is not ready. With subgroups the first subgroup walks
// alone (a window of sg_size tiles, combined by subgroup operations, no workgroup
// barrier per round); without, the workgroup walks LB_WIN tiles at a time, combined
// through workgroup memory (round 48: on the H100 the barrier form ran the encoder's
// one pass at 507 GB/s through Vulkan, against 947 for the three passes). Every
// round moves at least one tile back, so an invocation loops at most
// ntiles * (SPINS + 1 + the two sums' loops) times plus the tile's own work (the host
// checks that against an adapter's loop limit). Then it publishes its inclusive
// prefix.
//
// state (zeroed by the host before the dispatch): word 0 is the ticket counter; tile t
// owns words 1 + 4t .. 4 + 4t: aggregate low and high halves, inclusive low and high
// halves. Each word is READY | 16-bit half, so every word carries its own ready bit
// and a reader needs no ordering between words (WGSL atomics are relaxed): a value is
// taken only when both of its halves are ready. Sums wrap in u32.
//
// Requires WG, SPINS, LB_WIN (the window without subgroups, at most WG), the binding
// `state: array<atomic<u32>>`, common/wg_scan.wgsl, and the includer's
// `fn tile_sum(tile: u32, lid: u32, sg_lane: u32, sg_size: u32) -> u32`: tile's
// aggregate recomputed from the input, called by every invocation of the workgroup
// (control flow uniform over it), the same value in each.
const READY: u32 = 0x10000u;
const_assert LB_WIN >= 1u && LB_WIN <= WG;

var<workgroup> s_ticket: u32;
// The workgroup's tile (uniform over it).
fn take_ticket(lid: u32) -> u32 {
    if (lid == 0u) {
        s_ticket = atomicAdd(&state[0], 1u);
    }
    return workgroupUniformLoad(&s_ticket);
}

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

// Tile j's state for a walk: (2, its inclusive prefix) where that is ready (mode 0),
// else (1, its aggregate) where that is ready, else (0, 0); in mode 1 always (0, 0).
// The aggregate is read only where the inclusive prefix is not ready.
fn poll(j: u32, mode: u32) -> vec2<u32> {
    if (mode == 1u) {
        return vec2<u32>(0u, 0u);
    }
    let at = 1u + 4u * j;
    let inc = peek(at + 2u);
    if (inc.x == 1u && mode == 0u) {
        return vec2<u32>(2u, inc.y);
    }
    return peek(at);
}

// poll(j) until tile j has published something, SPINS times at most (none in mode 1):
// (0, 0) if it has not
fn poll_silent(j: u32, mode: u32) -> vec2<u32> {
    for (var k = select(0u, SPINS, mode != 1u); k > 0u; k--) {
        let m = poll(j, mode);
        if (m.x != 0u) {
            return m;
        }
    }
    return vec2<u32>(0u, 0u);
}

// Tile t's aggregate (and tile 0's inclusive prefix, the same), by invocation 0.
fn publish_aggregate(t: u32, lid: u32, agg: u32) {
    if (lid == 0u) {
        publish(1u + 4u * t, agg);
        if (t == 0u) {
            publish(3u, agg);
        }
    }
}

// walk(j0): the sum of the aggregates of tiles j0, j0 - 1, ..., 0 (j0 uniform over
// the workgroup), the same value in every invocation; mode as in look_back.
#ifdef SUBGROUP
// With subgroups the first subgroup walks alone, its lanes polling a window of
// sg_size tiles per round and combining them with subgroup operations, so a round
// costs no workgroup barrier; the rest of the workgroup waits at one
// workgroupUniformLoad for its result: the prefix summed so far, and whether it is
// complete or stopped at a tile that published nothing after SPINS polls, which the
// whole workgroup then recomputes (tile_sum) before the first subgroup walks on past
// it. (Subgroup k holds invocations [k * sg_size, (k + 1) * sg_size), as in
// common/wg_scan.wgsl.) LB_WIN is the window of the form without subgroups.
const LB_NONE: u32 = 0xffffffffu;
// the first subgroup's result: (1 complete | 0 recompute tile z, sum, z)
var<workgroup> s_walk: vec3<u32>;

fn walk(j0: u32, lid: u32, mode: u32, sg_lane: u32, sg_size: u32) -> u32 {
    var prior = 0u;
    // j: the nearest earlier tile not yet accounted for (uniform over the workgroup)
    var j = j0;
    loop {
        if (lid < sg_size) {
            var sum = 0u;
            var res = vec3<u32>(1u, 0u, 0u);
            var jj = j;
            loop {
                // lane i polls tile jj - i
                var pm = vec2<u32>(3u, 0u); // kind 3: past tile 0
                if (sg_lane <= jj) {
                    pm = poll(jj - sg_lane, mode);
                }
                let kind = pm.x;
                let val = pm.y;
                // the nearest inclusive prefix and the nearest tile with nothing published
                let wi = subgroupMin(select(LB_NONE, sg_lane, kind == 2u));
                let wn = subgroupMin(select(LB_NONE, sg_lane, kind == 0u));
                // the window's aggregates before both, and the inclusive prefix if it
                // comes first
                let take = sg_lane < min(wi, wn) || (sg_lane == wi && wi < wn);
                sum = sum + subgroupAdd(select(0u, val, take));
                if (wi < wn) {
                    break;
                }
                if (wn == LB_NONE) {
                    // the whole window had aggregates
                    if (jj < sg_size) {
                        break; // down to tile 0
                    }
                    jj = jj - sg_size;
                    continue;
                }
                // tile jn has published nothing yet: poll it (lane 0), then let the
                // workgroup recompute it
                let jn = jj - wn;
                var m = vec2<u32>(0u, 0u);
                if (sg_lane == 0u) {
                    m = poll_silent(jn, mode);
                }
                m = subgroupBroadcastFirst(m);
                if (m.x == 0u) {
                    res = vec3<u32>(0u, 0u, jn);
                    break;
                }
                sum = sum + m.y;
                if (m.x == 2u || jn == 0u) {
                    break;
                }
                jj = jn - 1u;
            }
            if (lid == 0u) {
                s_walk = vec3<u32>(res.x, sum, res.z);
            }
        }
        let w = workgroupUniformLoad(&s_walk);
        prior = prior + w.y;
        if (w.x == 1u) {
            break;
        }
        prior = prior + tile_sum(w.z, lid, sg_lane, sg_size);
        if (w.z == 0u) {
            break;
        }
        j = w.z - 1u;
    }
    return prior;
}
#else
// the window's nearest inclusive prefix and nearest tile with nothing published (as
// invocation indices; WG if none), then the polled tile's (kind, value): 2 inclusive
// prefix, 1 aggregate, 0 nothing
var<workgroup> s_min_inc: atomic<u32>;
var<workgroup> s_min_nr: atomic<u32>;
var<workgroup> s_msg: vec2<u32>;

fn walk(j0: u32, lid: u32, mode: u32, sg_lane: u32, sg_size: u32) -> u32 {
    var prior = 0u;
    // j: the nearest earlier tile not yet accounted for (uniform over the workgroup)
    var j = j0;
    loop {
        // invocation i < LB_WIN polls tile j - i (the window j, ..., j - LB_WIN + 1)
        if (lid == 0u) {
            atomicStore(&s_min_inc, WG);
            atomicStore(&s_min_nr, WG);
        }
        workgroupBarrier();
        var pm = vec2<u32>(3u, 0u); // kind 3: past tile 0 or outside the window
        if (lid <= j && lid < LB_WIN) {
            pm = poll(j - lid, mode);
        }
        let kind = pm.x;
        let val = pm.y;
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
        prior = prior + wg_sum(lid, add, sg_lane, sg_size);
        if (w.x < w.y) {
            break;
        }
        if (w.y == WG) {
            // the whole window had aggregates
            if (j < LB_WIN) {
                break; // down to tile 0
            }
            j = j - LB_WIN;
            continue;
        }
        // tile jn has published nothing yet: poll it, then recompute it
        let jn = j - w.y;
        if (lid == 0u) {
            s_msg = poll_silent(jn, mode);
        }
        let m = workgroupUniformLoad(&s_msg);
        if (m.x == 0u) {
            prior = prior + tile_sum(jn, lid, sg_lane, sg_size);
        } else {
            prior = prior + m.y;
        }
        if (m.x == 2u || jn == 0u) {
            break;
        }
        j = jn - 1u;
    }
    return prior;
}
#endif

// The sum of the aggregates of tiles before t (t and agg uniform over the workgroup),
// after publishing agg and, at the end, the inclusive prefix. mode (tests of the
// paths): 0 normal, 1 never use a published value (every tile recomputes its
// predecessors), 2 use published aggregates but no inclusive prefix (every walk goes
// back to tile 0).
fn look_back(t: u32, lid: u32, agg: u32, mode: u32, sg_lane: u32, sg_size: u32) -> u32 {
    publish_aggregate(t, lid, agg);
    if (t == 0u) {
        return 0u;
    }
    let prior = walk(t - 1u, lid, mode, sg_lane, sg_size);
    if (lid == 0u) {
        publish(3u + 4u * t, prior + agg);
    }
    return prior;
}
