// szp_classify: one workgroup per block. q_i = round(x_i / (2 eb)), d_0 = q_0,
// d_i = q_i - q_{i-1} (wrapping), width = bits of the largest zigzag(d_i). A block with
// any value that cannot be quantized (NaN, +-Inf, subnormal, |q| too large) is stored
// verbatim (width byte 255).
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/szp_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read_write> widths: array<u32>;
@group(0) @binding(4) var<storage, read_write> cost: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"

const WG: u32 = 128u;
var<workgroup> s_max: array<u32, WG>;
var<workgroup> s_raw: array<u32, WG>;

@compute @workgroup_size(WG)
fn szp_classify(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    var m = 0u;
    var raw = 0u;
    for (var i = lid; i < len; i += WG) {
        let q = quantize_value(start + i);
        var prev = vec2<i32>(0i, 1i);
        if (i > 0u) {
            prev = quantize_value(start + i - 1u);
        }
        if (q.y == 0i) {
            raw = 1u;
        }
        m = max(m, zigzag(q.x - prev.x));
    }
    s_max[lid] = m;
    s_raw[lid] = raw;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off >> 1u) {
        if (lid < off) {
            s_max[lid] = max(s_max[lid], s_max[lid + off]);
            s_raw[lid] = s_raw[lid] | s_raw[lid + off];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        var w = 32u - countLeadingZeros(s_max[0]);
        if (s_raw[0] != 0u || szp_cost(w, len) >= len * WT) {
            w = RAW_WIDTH;
        }
        widths[b] = w;
        cost[b] = szp_cost(w, len);
    }
}
