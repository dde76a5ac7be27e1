// lorenzo_scan_x: decode side, inclusive prefix sums (wrapping u32) of row segments of
// one tile (tx values along x), from `residuals` into `values` (out of place, so the
// inverse needs no copy of the residuals first). A team of P.team invocations (a power
// of two <= WG, chosen by the host for about four values per invocation) scans one
// segment, so a workgroup scans WG / P.team segments: tiles of 128 take teams of 32, 8
// segments per workgroup (one workgroup per segment left most invocations idle and paid
// a workgroup scan per segment). Passing the segments through workgroup memory, so
// that lanes load and store consecutive values, ran 48% slower on the H200 (0.41 ->
// 0.61 ms at 256 MiB, r14d): a subgroup's four loads of 16-byte strides already cover
// whole lines through its cache. With subgroups, the team scan uses subgroup
// operations (team_scan_sg below: no barrier where a team fits in a subgroup, as teams
// of 32 do on NVIDIA; through lavapipe, 8-lane subgroups, 51 -> 25 ms per 16 MiB tiled
// field). The head of each tile first gets its stored value back
// from `means` (centering), so the later scans along y and z carry it to the whole tile.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> means: array<u32>;
@group(0) @binding(2) var<storage, read> residuals: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;

const WG: u32 = 256u;
#include "common/wg_scan.wgsl"

#ifdef SUBGROUP
#include "common/team_scan_sg.wgsl"
#endif
#include "common/segment_scan.wgsl"

fn residual_of(i: u32) -> u32 {
    return residuals[i];
}

fn residuals4(i: u32, count: u32) -> vec4<u32> {
    var r = vec4<u32>(residuals[i], 0u, 0u, 0u);
    if (count > 1u) {
        r.y = residuals[i + 1u];
    }
    if (count > 2u) {
        r.z = residuals[i + 2u];
    }
    if (count > 3u) {
        r.w = residuals[i + 3u];
    }
    return r;
}

fn put_sum(i: u32, v: u32) {
    values[i] = v;
}

@compute @workgroup_size(WG)
fn lorenzo_scan_x(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let tb = firstTrailingBit(max(P.team, 1u));  // P.team is a power of two
    let team = 1u << tb;
    let lane = lid & (team - 1u);
    let s = wg_linear(wid, nwg) * (WG >> tb) + (lid >> tb);
    // an invocation past the last segment keeps an empty run: every invocation takes part
    // in every barrier below
    var base = 0u;
    var lo = 0u;
    var hi = 0u;
    var head = 0u;
    if (s < P.nlines) {
        let sx = s % P.ntx;
        let row = s / P.ntx;          // y + z * ny
        let y = row % P.ny;
        let z = row / P.ny;
        let x0 = sx * P.tx;
        let len = min(P.tx, P.nx - x0);
        base = P.elem_base + row * P.nx + x0;
        let per = (len + team - 1u) >> tb;
        lo = min(lane * per, len);
        hi = min(lo + per, len);
        if (P.centering == 1u && y % P.ty == 0u && z % P.tz == 0u) {
            head = means[tile_index(x0, y, z)];
        }
    }
    segment_scan(lid, team, base, lo, hi, head, SG_ARGS);
}
