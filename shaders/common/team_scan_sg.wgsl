// team_exclusive_scan (wg_scan.wgsl) by subgroup operations, for kernels built with
// SUBGROUP (subgroup k holds invocations
// [k*S, (k+1)*S), as wg_scan.wgsl assumes): a team inside one subgroup needs no
// barrier; a team of several whole subgroups adds its earlier subgroups' totals through
// workgroup memory (two barriers instead of two per doubling step).
fn team_scan_sg(lid: u32, v: u32, team: u32, sg_lane: u32, sg_size: u32) -> u32 {
    let excl = subgroupExclusiveAdd(v);
    if (team <= sg_size) {
        return excl - subgroupShuffle(excl, sg_lane & ~(team - 1u));
    }
    let sg = lid / sg_size;
    if (sg_lane == sg_size - 1u) {
        s_scan[sg] = excl + v;
    }
    workgroupBarrier();
    var before = 0u;
    let per = team / sg_size;
    for (var k = sg - sg % per; k < sg; k++) {
        before = before + s_scan[k];
    }
    workgroupBarrier();
    return before + excl;
}
