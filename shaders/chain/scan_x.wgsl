// chain_scan_x: first step of the line-parallel fused chain inverse (2-D and 3-D fields
// of few large tiles, where chain_unpack's one workgroup per tile leaves the GPU idle):
// lorenzo_scan_x with the residuals extracted from their AdaptiveBitpack blocks on the
// way in (no bitpack_unpack pass writing them first). Row segments of tx values get a
// team of ~tx / RUN invocations each (a power of two up to WG, as the host picks for
// lorenzo_scan_x); the tile head is added to the first value of each tile (centering).
// A team scans up to SEGS consecutive segments of one row, one after the other, so
// that its row, the row's y and z and the row's centering test (divisions by runtime
// values, about half of the per-warp SASS path before round 15's shifts) are paid once
// per SEGS segments (sm_90, r15e: 320 M -> 276 M warp instructions at 256 MiB).
// Writes the x sums into `sums`; lorenzo_scan_axis (3-D: y) and chain_scan_last follow.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_unpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> means: array<u32>;
@group(0) @binding(5) var<storage, read_write> sums: array<u32>;

#include "common/bitpack_extract.wgsl"

const WG: u32 = 256u;
#include "common/wg_scan.wgsl"
#include "common/chain_residual.wgsl"

#ifdef SUBGROUP
#include "common/team_scan_sg.wgsl"
#endif
#include "common/segment_scan.wgsl"

fn residual_of(i: u32) -> u32 {
    return residual_at(i);
}

fn residuals4(i: u32, count: u32) -> vec4<u32> {
    return residuals4_at(i, count);
}

fn put_sum(i: u32, v: u32) {
    sums[i] = v;
}

// Segments of one row a team scans (kernels::chain::scan_x_teams reflects it). Four in
// the CUDA-tuned variant (COALESCE; H200 r15e: CUDA +9-11%, Vulkan 1-24% slower).
#ifdef COALESCE
const SEGS: u32 = 4u;
#else
const SEGS: u32 = 1u;
#endif

// log2 of the invocations per row segment: the power of two at or above ceil(tx / RUN),
// at most WG (teams are powers of two, so lanes and runs need shifts, not divisions)
fn team_log2() -> u32 {
    let q = (P.tx + RUN - 1u) / RUN;
    if (q <= 1u) {
        return 0u;
    }
    return min(firstLeadingBit(q - 1u) + 1u, firstTrailingBit(WG));
}

// One row segment: team `tb` (log2 of its size) scans segment sx of `row`, if live.
fn scan_segment(lid: u32, tb: u32, row: u32, sx: u32, live: bool, heads: bool, tile0: u32, sg_lane: u32, sg_size: u32) {
    let team = 1u << tb;
    var base = 0u;
    var lo = 0u;
    var hi = 0u;
    var head = 0u;
    if (live && sx < P.ntx) {
        let x0 = sx * P.tx;
        let len = min(P.tx, P.nx - x0);
        base = row * P.nx + x0;
        let per = (len + team - 1u) >> tb;
        lo = min((lid & (team - 1u)) * per, len);
        hi = min(lo + per, len);
        if (heads) {
            head = means[tile0 + sx];
        }
    }
    segment_scan(lid, team, base, lo, hi, head, sg_lane, sg_size);
}

@compute @workgroup_size(WG)
fn chain_scan_x(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let tb = team_log2();
    let t = wg_linear(wid, nwg) * (WG >> tb) + (lid >> tb);
    // SEGS (or ntx, if fewer) segments per team; tpr teams per row
    let g = min(SEGS, P.ntx);
    let tpr = (P.ntx + g - 1u) / g;
    let row = t / tpr;                // y + z * ny
    let sx0 = (t - row * tpr) * g;
    let z = row / P.ny;
    let y = row - z * P.ny;
    let live = row < P.ny * P.nz;
    var heads = false;
    var tile0 = 0u;
    if (P.centering == 1u) {
        let qy = y / P.ty;
        let qz = z / P.tz;
        heads = y == qy * P.ty && z == qz * P.tz;
        tile0 = (qz * P.nty + qy) * P.ntx;
    }
#ifdef COALESCE
    // every invocation runs every iteration (an empty run where there is no segment),
    // for the barriers of the shared-memory team scan
    for (var k = 0u; k < g; k++) {
        scan_segment(lid, tb, row, sx0 + k, live, heads, tile0, SG_ARGS);
    }
#else
    // one segment, outside any loop: the loop of one iteration (barriers inside a loop)
    // ran 43% slower through lavapipe (tiled 32 MiB chain decompression 0.27 -> 0.155
    // GB/s)
    scan_segment(lid, tb, row, sx0, live, heads, tile0, SG_ARGS);
#endif
}
