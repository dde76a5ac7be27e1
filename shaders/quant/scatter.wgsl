// quant_scatter: writes each outlier as an entry (global index, value words) at its
// position: the exclusive scan of the 256-value groups' outlier counts (offs) plus its
// rank among the set bits of its group's mask words. Entries are 2 * WT words (float64:
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
// outlier counts are per 256-value group (quant_encode's workgroup): 8 mask words
const GROUP_WORDS: u32 = 8u;

// One invocation per mask word (32 values): outliers are rare, so most invocations
// read one word and stop (one per value used to cost a thread per value).
@compute @workgroup_size(WG)
fn quant_scatter(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let m = wg_linear(wid, nwg) * WG + lid;
    let words = (P.n + 31u) / 32u;
    if (m >= words) {
        return;
    }
    let g = m / GROUP_WORDS;
    if (m + 1u == words) {
        totals[P.chunk] = offs[g] + counts[g];
    }
    var word = mask[m];
    if (m + 1u == words && (P.n & 31u) != 0u) {
        word = word & ((1u << (P.n & 31u)) - 1u);
    }
    if (word == 0u) {
        return;
    }
    var rank = offs[g];
    for (var k = g * GROUP_WORDS; k < m; k++) {
        rank += countOneBits(mask[k]);
    }
    while (word != 0u) {
        let bit = countTrailingZeros(word);
        word = word & (word - 1u);
        let i = m * 32u + bit;
        let e = rank * 2u * WT;
        rank += 1u;
        entries[e] = P.base + i;
        if (WT == 2u) {
            entries[e + 1u] = 0u;
        }
        for (var k = 0u; k < WT; k++) {
            entries[e + WT + k] = data_u[i * WT + k];
        }
    }
}
