// quant_scatter: writes each outlier as an entry (global index, value words) at its
// position: the exclusive scan of the workgroups' outlier counts (offs) plus its rank
// among the set bits of its workgroup's mask words. Entries are 2 * WT words (float64:
// index, 0, lo, hi). The last invocation writes the chunk's outlier count to
// totals[chunk].
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/quant_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read> offs: array<u32>;
@group(0) @binding(4) var<storage, read> counts: array<u32>;
@group(0) @binding(5) var<storage, read_write> entries: array<u32>;
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn quant_scatter(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wg_linear(wid, nwg);
    let i = g * WG + lid;
    if (i >= P.n) {
        return;
    }
    if (i + 1u == P.n) {
        totals[P.chunk] = offs[g] + counts[g];
    }
    let mw = g * (WG / 32u);
    let word = mask[mw + lid / 32u];
    let bit = lid % 32u;
    if (((word >> bit) & 1u) == 0u) {
        return;
    }
    var rank = countOneBits(word & ((1u << bit) - 1u));
    for (var k = 0u; k < lid / 32u; k++) {
        rank += countOneBits(mask[mw + k]);
    }
    let e = (offs[g] + rank) * 2u * WT;
    entries[e] = P.base + i;
    if (WT == 2u) {
        entries[e + 1u] = 0u;
    }
    for (var k = 0u; k < WT; k++) {
        entries[e + WT + k] = data_u[i * WT + k];
    }
}
