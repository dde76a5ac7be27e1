// quant_scatter: writes each outlier as an entry (global index, value words) at its
// scanned position; entries are 2 * WT words (float64: index, 0, lo, hi). The last
// invocation writes the chunk's outlier count to totals[chunk].
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> flags: array<u32>;
@group(0) @binding(3) var<storage, read> pos: array<u32>;
@group(0) @binding(4) var<storage, read_write> entries: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn quant_scatter(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    if (i + 1u == P.n) {
        totals[P.chunk] = pos[i] + flags[i];
    }
    if (flags[i] == 0u) {
        return;
    }
    let e = pos[i] * 2u * WT;
    entries[e] = P.base + i;
    if (WT == 2u) {
        entries[e + 1u] = 0u;
    }
    for (var k = 0u; k < WT; k++) {
        entries[e + WT + k] = data_u[i * WT + k];
    }
}
