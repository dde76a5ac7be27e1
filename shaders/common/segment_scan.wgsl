// The run scan of lorenzo_scan_x and chain_scan_x: the invocation `lid`, in an aligned
// team of `team`, holds the run [lo, hi) of a row segment starting at value `base`
// (an empty run past the last segment: every invocation calls this, for the barriers
// of the shared-memory scan); the segment's first value gets `head` added (centering).
// The includer defines residual_of(i) (the Lorenzo residual of value i),
// residuals4(i, count) (the residuals of values i .. i + count - 1, count <= 4, in the
// first count lanes of a vec4, the rest 0) and put_sum(i, v) (the inclusive sum of
// value i), includes common/wg_scan.wgsl (and common/team_scan_sg.wgsl with SUBGROUP),
// and passes SG_ARGS.
//
// Runs of at most four values (every run, with RUN = 4, up to tx = 4 * WG) read their
// residuals once, together, and keep them in registers for the second pass:
// re-reading them there put a second chain of dependent loads (block width -> block
// offset -> payload word, in chain_scan_x) behind the team scan. Longer runs read each
// residual twice.

// Values per invocation the host's teams aim at (kernels::chain::scan_x_team reflects
// it; chain_scan_x's team_log2 uses it).
const RUN: u32 = 4u;

fn segment_scan(lid: u32, team: u32, base: u32, lo: u32, hi: u32, head: u32, sg_lane: u32, sg_size: u32) {
    let short = hi - lo <= 4u;
    var r4 = vec4<u32>(0u);
    var acc = 0u;
    if (short) {
        if (hi > lo) {
            r4 = residuals4(base + lo, hi - lo);
        }
        acc = r4.x + r4.y + r4.z + r4.w;
    } else {
        for (var k = lo; k < hi; k++) {
            acc = acc + residual_of(base + k);
        }
    }
    if (lo == 0u) {
        acc = acc + head;             // the segment's first value (lane 0's run)
        r4.x = r4.x + head;
    }
    // the runs before this one in its team
#ifdef SUBGROUP
    var run = team_scan_sg(lid, acc, team, sg_lane, sg_size);
#else
    var run = team_exclusive_scan(lid, acc, team);
#endif
    if (short) {
        for (var k = 0u; k < 4u; k++) {
            if (lo + k < hi) {
                run = run + r4[k];
                put_sum(base + lo + k, run);
            }
        }
        return;
    }
    for (var k = lo; k < hi; k++) {
        var v = residual_of(base + k);
        if (k == 0u) {
            v = v + head;
        }
        run = run + v;
        put_sum(base + k, run);
    }
}
