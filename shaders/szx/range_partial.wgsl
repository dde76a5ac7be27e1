// szx_range_partial: min/max keys of the finite values (subnormals included; inf and
// NaN excluded) of ITEMS * WG consecutive elements per workgroup. Output per
// workgroup: the min key then the max key. No finite value: (KEY_MAX, KEY_MIN).
#include "common/grid.wgsl"
#include "common/ordered.wgsl"

struct RangeParams {
    n: u32,
    nparts: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> R: RangeParams;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read_write> parts: array<KT>;

const WG: u32 = 256u;
const ITEMS: u32 = 16u;
#ifdef F64
const WT: u32 = 2u;
#else
const WT: u32 = 1u;
#endif
var<workgroup> s_min: array<KT, WG>;
var<workgroup> s_max: array<KT, WG>;

@compute @workgroup_size(WG)
fn szx_range_partial(@builtin(local_invocation_index) lid: u32,
                     @builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = wg_linear(wid, nwg);
    if (p >= R.nparts) {
        return;
    }
    var mn = KEY_MAX;
    var mx = KEY_MIN;
    let base = p * WG * ITEMS;
    for (var k = 0u; k < ITEMS; k++) {
        let i = base + k * WG + lid;
        if (i < R.n) {
            let lo = data_u[i * WT];
            let hi = data_u[i * WT + WT - 1u];
            if (value_class(lo, hi) != 2u) {
                let key = key_from_words(lo, hi);
                if (key_lt(key, mn)) {
                    mn = key;
                }
                if (key_lt(mx, key)) {
                    mx = key;
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
        parts[2u * p] = s_min[0];
        parts[2u * p + 1u] = s_max[0];
    }
}
