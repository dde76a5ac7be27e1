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

// Folds part p (when p < nparts) into (mn, mx).
fn fold_part(mn: ptr<function, KT>, mx: ptr<function, KT>, p: u32) {
    if (p < R.nparts) {
        let a = parts[2u * p];
        let b = parts[2u * p + 1u];
        if (key_lt(a, *mn)) {
            *mn = a;
        }
        if (key_lt(*mx, b)) {
            *mx = b;
        }
    }
}

@compute @workgroup_size(WG)
fn szx_range_final(@builtin(local_invocation_index) lid: u32) {
    var mn = KEY_MAX;
    var mx = KEY_MIN;
    // eight parts per step, written out so that their loads can be in flight together
    // (an inner loop, bounded by naga's counter, need not be unrolled by the driver);
    // past the end: the neutral pair
    for (var p0 = lid; p0 < R.nparts; p0 += 8u * WG) {
        fold_part(&mn, &mx, p0);
        fold_part(&mn, &mx, p0 + WG);
        fold_part(&mn, &mx, p0 + 2u * WG);
        fold_part(&mn, &mx, p0 + 3u * WG);
        fold_part(&mn, &mx, p0 + 4u * WG);
        fold_part(&mn, &mx, p0 + 5u * WG);
        fold_part(&mn, &mx, p0 + 6u * WG);
        fold_part(&mn, &mx, p0 + 7u * WG);
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
