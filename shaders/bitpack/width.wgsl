// bitpack_width: one workgroup per block. Width of the block = bits of its largest
// (zigzag) code; 0 when the whole block is zero (rate-0: no payload words).
#include "common/grid.wgsl"
#include "common/bitpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> codes: array<u32>;
@group(0) @binding(2) var<storage, read_write> widths: array<u32>;
@group(0) @binding(3) var<storage, read_write> cost: array<u32>;

const WG: u32 = 128u;
var<workgroup> s_max: array<u32, WG>;

@compute @workgroup_size(WG)
fn bitpack_width(@builtin(local_invocation_index) lid: u32,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    var m = 0u;
    for (var i = lid; i < len; i += WG) {
        m = max(m, to_unsigned(codes[start + i]));
    }
    s_max[lid] = m;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off >> 1u) {
        if (lid < off) {
            s_max[lid] = max(s_max[lid], s_max[lid + off]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        let w = 32u - countLeadingZeros(s_max[0]);
        widths[b] = w;
        cost[b] = block_words(w, len);
    }
}
