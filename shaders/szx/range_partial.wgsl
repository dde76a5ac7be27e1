// szx_range_partial: min/max keys of the finite values (subnormals included; inf and
// NaN excluded) of ITEMS * WG consecutive elements per workgroup (a part). Output per
// workgroup: the min key then the max key. No finite value: (KEY_MAX, KEY_MIN).
// Reads 16-byte groups (data4, the same window) wherever a group lies wholly inside
// the data, word by word only at the end.
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
@group(0) @binding(2) var<storage, read> data4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> parts: array<KT>;

const WG: u32 = 256u;
const ITEMS: u32 = 64u;
#ifdef F64
const WT: u32 = 2u;
#else
const WT: u32 = 1u;
#endif
var<workgroup> s_min: array<KT, WG>;
var<workgroup> s_max: array<KT, WG>;

fn fold(mn: ptr<function, KT>, mx: ptr<function, KT>, lo: u32, hi: u32) {
    if (value_class(lo, hi) != 2u) {
        let key = key_from_words(lo, hi);
        if (key_lt(key, *mn)) {
            *mn = key;
        }
        if (key_lt(*mx, key)) {
            *mx = key;
        }
    }
}

// The first nv values of a 16-byte group (components by constant index: a dynamic
// index in a constant-count loop cost szx_encode 18% on the H200).
fn fold4(mn: ptr<function, KT>, mx: ptr<function, KT>, v: vec4<u32>, nv: u32) {
#ifdef F64
    if (nv > 0u) {
        fold(mn, mx, v.x, v.y);
    }
    if (nv > 1u) {
        fold(mn, mx, v.z, v.w);
    }
#else
    if (nv > 0u) {
        fold(mn, mx, v.x, v.x);
    }
    if (nv > 1u) {
        fold(mn, mx, v.y, v.y);
    }
    if (nv > 2u) {
        fold(mn, mx, v.z, v.z);
    }
    if (nv > 3u) {
        fold(mn, mx, v.w, v.w);
    }
#endif
}

// 16-byte groups per invocation; a multiple of 4 (four loads in flight per step)
const GROUPS: u32 = ITEMS * WT / 4u;

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
    let words = R.n * WT;
    // the part's ITEMS * WG values are GROUPS groups of 16 bytes per invocation
    let base = p * WG * GROUPS;
    if (4u * (base + GROUPS * WG) <= words) {
        // the whole part lies inside the data: four independent loads per step
        for (var k = 0u; k < GROUPS; k += 4u) {
            let q = base + k * WG + lid;
            let a = data4[q];
            let b = data4[q + WG];
            let c = data4[q + 2u * WG];
            let d = data4[q + 3u * WG];
            fold4(&mn, &mx, a, 4u / WT);
            fold4(&mn, &mx, b, 4u / WT);
            fold4(&mn, &mx, c, 4u / WT);
            fold4(&mn, &mx, d, 4u / WT);
        }
    } else {
        for (var k = 0u; k < GROUPS; k++) {
            let q = base + k * WG + lid;
            var v = vec4<u32>(0u);
            var nv = 0u;
            if (4u * q + 4u <= words) {
                v = data4[q];
                nv = 4u / WT;
            } else if (4u * q < words) {
                // the last, partial group
                nv = (words - 4u * q) / WT;
                let left = words - 4u * q;
                v.x = data_u[4u * q];
                if (left > 1u) {
                    v.y = data_u[4u * q + 1u];
                }
                if (left > 2u) {
                    v.z = data_u[4u * q + 2u];
                }
            }
            fold4(&mn, &mx, v, nv);
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
