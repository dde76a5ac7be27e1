// lorenzo_scan_x: decode side, one workgroup per row segment of one tile (tx values
// along x): inclusive prefix sum in place (wrapping u32). The head of each tile first
// gets its stored value back from `means` (centering), so the later scans along y and
// z carry it to the whole tile.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> means: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;

const WG: u32 = 256u;
#include "common/wg_scan.wgsl"

@compute @workgroup_size(WG)
fn lorenzo_scan_x(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let s = wg_linear(wid, nwg);
    if (s >= P.nlines) {
        return;
    }
    let sx = s % P.ntx;
    let row = s / P.ntx;          // y + z * ny
    let y = row % P.ny;
    let z = row / P.ny;
    let x0 = sx * P.tx;
    let len = min(P.tx, P.nx - x0);
    let base = P.elem_base + row * P.nx + x0;
    let per = (len + WG - 1u) / WG;
    let lo = min(lid * per, len);
    let hi = min(lo + per, len);
    var acc = 0u;
    for (var k = lo; k < hi; k++) {
        var v = values[base + k];
        if (k == 0u && P.centering == 1u && y % P.ty == 0u && z % P.tz == 0u) {
            v = v + means[tile_index(x0, y, z)];
        }
        acc = acc + v;
    }
    var run = wg_exclusive_scan(lid, acc, SG_ARGS);
    for (var k = lo; k < hi; k++) {
        var v = values[base + k];
        if (k == 0u && P.centering == 1u && y % P.ty == 0u && z % P.tz == 0u) {
            v = v + means[tile_index(x0, y, z)];
        }
        run = run + v;
        values[base + k] = run;
    }
}
