// The run scan of lorenzo_scan_x and chain_scan_x: the invocation `lid`, in an aligned
// team of `team`, holds the run [lo, hi) of a row segment starting at value `base`
// (an empty run past the last segment: every invocation calls this, for the barriers
// of the shared-memory scan); the segment's first value gets `head` added (centering).
// The includer defines residual_of(i) (the Lorenzo residual of value i) and
// put_sum(i, v) (the inclusive sum of value i), includes common/wg_scan.wgsl (and
// common/team_scan_sg.wgsl with SUBGROUP), and passes SG_ARGS.
fn segment_scan(lid: u32, team: u32, base: u32, lo: u32, hi: u32, head: u32, sg_lane: u32, sg_size: u32) {
    var acc = 0u;
    for (var k = lo; k < hi; k++) {
        acc = acc + residual_of(base + k);
    }
    if (lo == 0u) {
        acc = acc + head;             // the segment's first value (lane 0's run)
    }
    // the runs before this one in its team
#ifdef SUBGROUP
    var run = team_scan_sg(lid, acc, team, sg_lane, sg_size);
#else
    var run = team_exclusive_scan(lid, acc, team);
#endif
    for (var k = lo; k < hi; k++) {
        var v = residual_of(base + k);
        if (k == 0u) {
            v = v + head;
        }
        run = run + v;
        put_sum(base + k, run);
    }
}
