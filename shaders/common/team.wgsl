// Teams: the invocations that share one block. With SUBGROUP a team is one subgroup
// (subgroup k holds invocations [k*S, (k+1)*S), as wg_scan.wgsl also assumes), so a
// workgroup serves WG / S blocks and the reductions are single subgroup operations,
// with no barrier. Without SUBGROUP the team is the whole workgroup and the reductions
// go through workgroup memory. Every lane of the team gets the result. Kernels walk
// their blocks grid-stride (team_first, team_stride), so any dispatch size covers all
// blocks. Requires WG, the SG_PARAMS builtins and common/ordered.wgsl.
#ifdef SUBGROUP
fn team_min(lane: u32, v: u32) -> u32 {
    return subgroupMin(v);
}
fn team_max(lane: u32, v: u32) -> u32 {
    return subgroupMax(v);
}
// Predicates go through subgroupMin / subgroupMax of 0 / 1, not subgroupAnd / Or: on
// the H200 (NVIDIA 580, Vulkan) subgroupAnd in szx_encode returned all ones while 20 of
// the 32 active lanes held 0, in a build without naga's loop counters
// (FZWGPU_SHADER_CHECKS=noloop) with hand-written counters in its loops, while min and
// max gave the right results in the same kernel (docs/results/h200-r10d-*.log). Such
// builds still differ from the twin in float64 with this change (docs/performance-history.md, round
// 10); with naga's loop counters (the default) both forms pass every test.
fn team_all(lane: u32, p: bool) -> bool {
    return subgroupMin(select(0u, 1u, p)) != 0u;
}
fn team_any(lane: u32, p: bool) -> bool {
    return subgroupMax(select(0u, 1u, p)) != 0u;
}
#else
var<workgroup> s_team: array<u32, WG>;
fn team_reduce(lane: u32, v: u32, op: u32) -> u32 {
    s_team[lane] = v;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off >> 1u) {
        if (lane < off) {
            let a = s_team[lane];
            let b = s_team[lane + off];
            s_team[lane] = select(max(a, b), min(a, b), op == 0u);
        }
        workgroupBarrier();
    }
    let r = s_team[0];
    workgroupBarrier();
    return r;
}
fn team_min(lane: u32, v: u32) -> u32 {
    return team_reduce(lane, v, 0u);
}
fn team_max(lane: u32, v: u32) -> u32 {
    return team_reduce(lane, v, 1u);
}
fn team_all(lane: u32, p: bool) -> bool {
    return team_reduce(lane, select(0u, 1u, p), 0u) != 0u;
}
fn team_any(lane: u32, p: bool) -> bool {
    return team_reduce(lane, select(0u, 1u, p), 1u) != 0u;
}
#endif

// Smallest / largest key of the team (float64 keys compare (hi, lo)).
fn team_min_key(lane: u32, k: KT) -> KT {
#ifdef F64
    let hi = team_min(lane, k.y);
    let lo = team_min(lane, select(0xffffffffu, k.x, k.y == hi));
    return vec2<u32>(lo, hi);
#else
    return team_min(lane, k);
#endif
}
fn team_max_key(lane: u32, k: KT) -> KT {
#ifdef F64
    let hi = team_max(lane, k.y);
    let lo = team_max(lane, select(0u, k.x, k.y == hi));
    return vec2<u32>(lo, hi);
#else
    return team_max(lane, k);
#endif
}

// (lane, team size, team index in the workgroup, teams per workgroup)
#ifdef SUBGROUP
fn team_geom(lid: u32, sg_lane: u32, sg_size: u32) -> vec4<u32> {
    return vec4<u32>(sg_lane, sg_size, lid / sg_size, WG / sg_size);
}
#else
fn team_geom(lid: u32, sg_lane: u32, sg_size: u32) -> vec4<u32> {
    return vec4<u32>(lid, WG, 0u, 1u);
}
#endif
fn team_first(t: vec4<u32>, wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wg_linear(wid, nwg) * t.w + t.z;
}
fn team_stride(t: vec4<u32>, nwg: vec3<u32>) -> u32 {
    return nwg.x * nwg.y * t.w;
}
