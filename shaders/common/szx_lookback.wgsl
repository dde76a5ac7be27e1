// The tile offsets of the one-pass SZx encoder (szx_encode8_lb, then szx_encode8_fix
// for the tiles it deferred). A tile is one workgroup's TB blocks. Requires WG, the
// `state` binding, P (Params) and common/lookback_words.wgsl.
//
// state (zeroed by the host before szx_encode8_lb): word 0 the ticket counter, word 1
// the number of deferred tiles, then tile t's four words at lb_at(t): its aggregate
// (the sum of its blocks' payload words), then its inclusive prefix (the sum up to and
// including it), each as two READY | half words.
const LB_HEAD: u32 = 2u;
// Rounds a tile of szx_encode8_lb polls a window holding a tile that has published
// nothing before it defers its placement to szx_encode8_fix (which needs no waiting:
// every aggregate is published by then). No workgroup waits unboundedly for another,
// so the encoder needs no forward-progress guarantee between workgroups (WGSL gives
// none); where the adapter gives it (NVIDIA), a tile waits only for tiles that took
// their tickets before it and are running, and none defers. The bound also keeps an
// invocation's loop iterations (one per round) below llvmpipe's 65535.
const LB_ROUNDS: u32 = 16384u;
// tests: this bit of P.defer_every makes every look-back ignore inclusive prefixes, so
// each walks windows of aggregates down to tile 0
const LB_NO_INC: u32 = 0x80000000u;

fn lb_at(t: u32) -> u32 {
    return LB_HEAD + 4u * t;
}

// the window's nearest inclusive prefix and nearest tile with nothing published (as
// invocation indices; WG if none), one pair per parity of the round (a round resets
// the next round's pair, last used two rounds before), the round's sum, and messages
var<workgroup> s_lb_inc0: atomic<u32>;
var<workgroup> s_lb_nr0: atomic<u32>;
var<workgroup> s_lb_inc1: atomic<u32>;
var<workgroup> s_lb_nr1: atomic<u32>;
var<workgroup> s_lb_add: atomic<u32>;
var<workgroup> s_lb_msg: vec2<u32>;
var<workgroup> s_lb_out: vec2<u32>;

// The sum of the aggregates of tiles 0 .. t - 1 (t > 0), walking back from tile t - 1
// over windows of WG tiles, each invocation polling one tile of the window: the
// window's aggregates are added up to its nearest published inclusive prefix (added
// too; the walk ends there) or up to its nearest tile with nothing published, from
// which the next round polls again. Returns (sum, 1), or (partial sum, 2) once
// `rounds` rounds found a tile with nothing published (the caller defers). Every
// invocation of the workgroup calls it (t uniform); the sum is the same in all.
fn look_back(lid: u32, t: u32, rounds: u32) -> vec2<u32> {
    if (lid == 0u) {
        atomicStore(&s_lb_inc0, WG);
        atomicStore(&s_lb_nr0, WG);
        atomicStore(&s_lb_add, 0u);
    }
    workgroupBarrier();
    var prior = 0u; // lid 0's running sum
    var j = t - 1u; // the nearest earlier tile not yet accounted for
    var left = rounds;
    var odd = false;
    var done = 0u;
    loop {
        var kind = 3u; // past tile 0
        var val = 0u;
        if (lid <= j) {
            let at = lb_at(j - lid);
            let inc = peek(at + 2u);
            let ag = peek(at);
            kind = 0u;
            if (inc.x == 1u && (P.defer_every & LB_NO_INC) == 0u) {
                kind = 2u;
                val = inc.y;
            } else if (ag.x == 1u) {
                kind = 1u;
                val = ag.y;
            }
        }
        if (odd) {
            if (kind == 2u) {
                atomicMin(&s_lb_inc1, lid);
            }
            if (kind == 0u) {
                atomicMin(&s_lb_nr1, lid);
            }
        } else {
            if (kind == 2u) {
                atomicMin(&s_lb_inc0, lid);
            }
            if (kind == 0u) {
                atomicMin(&s_lb_nr0, lid);
            }
        }
        workgroupBarrier();
        if (lid == 0u) {
            if (odd) {
                s_lb_msg = vec2<u32>(atomicLoad(&s_lb_inc1), atomicLoad(&s_lb_nr1));
                atomicStore(&s_lb_inc0, WG);
                atomicStore(&s_lb_nr0, WG);
            } else {
                s_lb_msg = vec2<u32>(atomicLoad(&s_lb_inc0), atomicLoad(&s_lb_nr0));
                atomicStore(&s_lb_inc1, WG);
                atomicStore(&s_lb_nr1, WG);
            }
        }
        let w = workgroupUniformLoad(&s_lb_msg);
        // the window's aggregates before both, and the inclusive prefix if it comes first
        if ((lid < min(w.x, w.y) || (lid == w.x && w.x < w.y)) && val != 0u) {
            atomicAdd(&s_lb_add, val);
        }
        workgroupBarrier();
        if (lid == 0u) {
            prior = prior + atomicLoad(&s_lb_add);
            atomicStore(&s_lb_add, 0u);
        }
        odd = !odd;
        if (w.x < w.y) {
            done = 1u;
            break;
        }
        if (w.y == WG) {
            // the whole window had aggregates
            if (j < WG) {
                done = 1u; // down to tile 0
                break;
            }
            j = j - WG;
            continue;
        }
        // tile j - w.y has published nothing yet: poll again from it
        j = j - w.y;
        left = left - 1u;
        if (left == 0u) {
            done = 2u;
            break;
        }
    }
    if (lid == 0u) {
        s_lb_out = vec2<u32>(prior, done);
    }
    return workgroupUniformLoad(&s_lb_out);
}
