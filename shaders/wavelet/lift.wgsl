// wavelet_lift: one lifting pass of a wavelet level along one axis, one workgroup per
// line (float64). Analysis copies the line into its scratch segment, applies the
// lifting steps (whole-sample symmetric extension at both ends), then writes the low
// samples scaled to the first ceil(len/2) positions and the high samples after them.
// Synthesis is the exact reverse. Within a step every updated sample reads only
// samples of the other parity, so the parallel update equals the sequential one; a
// storage barrier separates the steps. Every operation is one IEEE operation flushed
// below the smallest normal, products multiplied by P.one before the addition (no
// contraction): the twin in src/backend/cpu/wavelet.rs does the same.
#include "common/grid.wgsl"
#include "common/wavelet_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f64>;
@group(0) @binding(2) var<storage, read_write> scratch: array<f64>;

const WG: u32 = 128u;
const F64_MIN_NORMAL: f64 = 2.2250738585072014e-308lf;

fn ftz64(v: f64) -> f64 {
    return select(v, 0.0lf, abs(v) < F64_MIN_NORMAL);
}

fn coef(k: u32) -> f64 {
    switch k {
        case 0u: { return P.c0; }
        case 1u: { return P.c1; }
        case 2u: { return P.c2; }
        default: { return P.c3; }
    }
}

fn lift_step(sb: u32, lid: u32, k: u32, inverse: bool) {
    let len = P.len;
    let parity = select(0u, 1u, (k & 1u) == 0u);
    let c = coef(k);
    for (var i = parity + 2u * lid; i < len; i += 2u * WG) {
        let l = select(i - 1u, min(1u, len - 1u), i == 0u);
        let r = select(i + 1u, max(len, 2u) - 2u, i + 1u >= len);
        let t = ftz64((c * ftz64(scratch[sb + l] + scratch[sb + r])) * P.one);
        let s = scratch[sb + i];
        scratch[sb + i] = select(ftz64(s + t), ftz64(s - t), inverse);
    }
}

@compute @workgroup_size(WG)
fn wavelet_lift(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = wg_linear(wid, nwg);
    if (j >= P.nlines) {
        return;
    }
    let len = P.len;
    let base = (j % P.a_len) * P.a_stride + (j / P.a_len) * P.b_stride;
    let sb = j * len;
    let nlow = (len + 1u) / 2u;
    if (P.inverse == 0u) {
        for (var i = lid; i < len; i += WG) {
            scratch[sb + i] = data[base + i * P.stride];
        }
        storageBarrier();
        for (var k = 0u; k < P.nsteps; k++) {
            lift_step(sb, lid, k, false);
            storageBarrier();
        }
        for (var i = lid; i < len; i += WG) {
            let v = scratch[sb + i];
            if ((i & 1u) == 0u) {
                data[base + (i / 2u) * P.stride] = ftz64(v * P.scale_lo);
            } else {
                data[base + (nlow + i / 2u) * P.stride] = ftz64(v * P.scale_hi);
            }
        }
    } else {
        for (var i = lid; i < len; i += WG) {
            if ((i & 1u) == 0u) {
                scratch[sb + i] = ftz64(data[base + (i / 2u) * P.stride] * P.inv_lo);
            } else {
                scratch[sb + i] = ftz64(data[base + (nlow + i / 2u) * P.stride] * P.inv_hi);
            }
        }
        storageBarrier();
        for (var t = 0u; t < P.nsteps; t++) {
            lift_step(sb, lid, P.nsteps - 1u - t, true);
            storageBarrier();
        }
        for (var i = lid; i < len; i += WG) {
            data[base + i * P.stride] = scratch[sb + i];
        }
    }
}
