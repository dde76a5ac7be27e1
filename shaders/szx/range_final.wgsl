// szx_range_final: one workgroup folds the partial (min, max) key pairs of
// szx_range_partial into result[0] = min key, result[1] = max key.
#include "common/ordered.wgsl"

struct RangeParams {
    n: u32,
    nparts: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> R: RangeParams;
@group(0) @binding(1) var<storage, read> parts: array<KT>;
@group(0) @binding(2) var<storage, read_write> result: array<KT>;

const WG: u32 = 256u;
var<workgroup> s_min: array<KT, WG>;
var<workgroup> s_max: array<KT, WG>;

@compute @workgroup_size(WG)
fn szx_range_final(@builtin(local_invocation_index) lid: u32) {
    var mn = KEY_MAX;
    var mx = KEY_MIN;
    // four parts per step (independent loads); past the end: the neutral pair
    for (var p0 = 0u; p0 < R.nparts; p0 += 4u * WG) {
        for (var j = 0u; j < 4u; j++) {
            let p = p0 + j * WG + lid;
            if (p < R.nparts) {
                let a = parts[2u * p];
                let b = parts[2u * p + 1u];
                if (key_lt(a, mn)) {
                    mn = a;
                }
                if (key_lt(mx, b)) {
                    mx = b;
                }
            }
        }
    }
    s_min[lid] = mn;
    s_max[lid] = mx;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off >> 1u) {
        if (lid < off) {
            if (key_lt(s_min[lid + off], s_min[lid])) {
                s_min[lid] = s_min[lid + off];
            }
            if (key_lt(s_max[lid], s_max[lid + off])) {
                s_max[lid] = s_max[lid + off];
            }
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        result[0] = s_min[0];
        result[1] = s_max[0];
    }
}
