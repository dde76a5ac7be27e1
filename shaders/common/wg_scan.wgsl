// Workgroup-wide sum and exclusive scan of one u32 per invocation (WG invocations).
// With SUBGROUP, subgroup operations do the work inside each subgroup (any subgroup
// size that divides WG; subgroup k holds invocations [k*S, (k+1)*S), which the wgpu
// backend checks when it opens a device: shaders/probe/subgroup_layout.wgsl); without
// it, a shared-memory Hillis-Steele scan. Both give identical integer results.
var<workgroup> s_scan: array<u32, WG>;

#ifdef SUBGROUP
fn wg_exclusive_scan(lid: u32, v: u32, sg_lane: u32, sg_size: u32) -> u32 {
    let incl = subgroupInclusiveAdd(v);
    let sg = lid / sg_size;
    let nsg = WG / sg_size;
    if (sg_lane == sg_size - 1u) {
        s_scan[sg] = incl;
    }
    workgroupBarrier();
    if (lid == 0u) {
        var acc = 0u;
        for (var k = 0u; k < nsg; k++) {
            let t = s_scan[k];
            s_scan[k] = acc;
            acc = acc + t;
        }
    }
    workgroupBarrier();
    let r = s_scan[sg] + incl - v;
    workgroupBarrier();
    return r;
}
#else
fn wg_exclusive_scan(lid: u32, v: u32, sg_lane: u32, sg_size: u32) -> u32 {
    return team_exclusive_scan(lid, v, WG);
}
#endif

// Exclusive scan of one u32 per invocation inside each aligned team of `team`
// invocations (a power of two dividing WG, the same for the whole workgroup): a
// shared-memory Hillis-Steele scan. Every invocation of the workgroup calls it.
fn team_exclusive_scan(lid: u32, v: u32, team: u32) -> u32 {
    let lane = lid % team;
    s_scan[lid] = v;
    workgroupBarrier();
    for (var off = 1u; off < team; off = off << 1u) {
        var t = 0u;
        if (lane >= off) {
            t = s_scan[lid - off];
        }
        workgroupBarrier();
        s_scan[lid] = s_scan[lid] + t;
        workgroupBarrier();
    }
    let r = s_scan[lid] - v;
    workgroupBarrier();
    return r;
}

fn wg_sum(lid: u32, v: u32, sg_lane: u32, sg_size: u32) -> u32 {
    let e = wg_exclusive_scan(lid, v, sg_lane, sg_size);
    if (lid == WG - 1u) {
        s_scan[0] = e + v;
    }
    workgroupBarrier();
    let t = s_scan[0];
    workgroupBarrier();
    return t;
}
