// correct_scatter: every flagged value becomes the entry [base + i, k, value lo,
// value hi] at its scanned position: k != 0 when the value is within eb of
// trial + k * step64 (decided exactly as correct_apply will rebuild it), k = 0 for an
// exact copy. Entries past P.cap are dropped (the host compares the total and fails).
// The last invocation writes the chunk's total.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/correct_params.wgsl"
#include "common/raw_plain.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> raw_u: array<u32>;
@group(0) @binding(2) var<storage, read> raw_f: array<FT>;
@group(0) @binding(3) var<storage, read> work: array<f64>;
@group(0) @binding(4) var<storage, read> flags: array<u32>;
@group(0) @binding(5) var<storage, read> pos: array<u32>;
@group(0) @binding(6) var<storage, read_write> entries: array<u32>;
@group(0) @binding(7) var<storage, read_write> totals: array<u32>;

#include "common/szx_math.wgsl"
#include "common/correct_value.wgsl"

const WG: u32 = 256u;

@compute @workgroup_size(WG)
fn correct_scatter(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.n) {
        return;
    }
    if (i + 1u == P.n) {
        totals[P.chunk] = pos[i] + flags[i];
    }
    if (flags[i] == 0u || pos[i] >= P.cap) {
        return;
    }
    let x = raw_f[i];
    let w = work[i];
    var k = 0;
    if (raw_plain(i) && P.exact == 0u) {
        let d = ftz64(f64(x) - w);
        let qf = floor(ftz64(ftz64((d * P.inv64) * P.one64) + 0.5lf));
        if (abs(qf) < P.kmax && qf != 0.0lf) {
            let kk = i32(qf);
            if (within(x, corrected(w, kk))) {
                k = kk;
            }
        }
    }
    let e = pos[i] * 4u;
    entries[e] = P.base + i;
    entries[e + 1u] = bitcast<u32>(k);
    entries[e + 2u] = raw_u[i * WT];
    entries[e + 3u] = select(0u, raw_u[i * WT + 1u], WT == 2u);
}
