// chain_unpack: fused inverse of Quantizer -> Lorenzo -> AdaptiveBitpack in 1-D, 2-D
// and 3-D, one workgroup per Lorenzo tile. The inverse Lorenzo transform is the
// tile-wise inclusive prefix sum along x, then y, then z.
//  - 1-D: the invocations split the tile into runs; each extracts its packed residuals
//    (undoing the zigzag), a workgroup scan gives every run its start, and the run's
//    sums are dequantized straight into `out`.
//  - 2-D / 3-D: one pass per axis over the tile's lines, every invocation walking
//    whole lines: x (extract + sum into `scratch`), then y, then z; the last pass
//    dequantizes into `out`. Passes are separated by storage barriers.
// The tile head (centering) is added before dequantization. Every invocation runs at
// most 3 * tile / WG line steps: the host only fuses tiles of up to 2^21 values,
// which also keeps lavapipe (whose invocations stop after 65535 loop iterations in
// total) exact. Outliers are patched afterwards by quant_patch, as in the staged
// inverse.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"

#include "common/chain_unpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> means: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<OT>;
@group(0) @binding(6) var<storage, read_write> scratch: array<u32>;

#include "common/out_value.wgsl"
#include "common/szx_math.wgsl"
#include "common/bitpack_extract.wgsl"

const WG: u32 = 256u;
#include "common/wg_scan.wgsl"

#include "common/chain_residual.wgsl"
#include "common/chain_dequant.wgsl"

fn store(i: u32, s: u32, head: u32) {
    out[i] = out_value(dequant_code(s + head));
}

@compute @workgroup_size(WG)
fn chain_unpack(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= P.ntiles) {
        return;
    }
    let x0 = (t % P.ntx) * P.tx;
    let y0 = ((t / P.ntx) % P.nty) * P.ty;
    let z0 = (t / (P.ntx * P.nty)) * P.tz;
    let lx = min(P.tx, P.nx - x0);
    let ly = min(P.ty, P.ny - y0);
    let lz = min(P.tz, P.nz - z0);
    var head = 0u;
    if (P.centering == 1u) {
        head = means[t];
    }
    let origin = (z0 * P.ny + y0) * P.nx + x0;
    let plane = P.nx * P.ny;
    if (P.ny * P.nz == 1u) {
        let per = (lx + WG - 1u) / WG;
        let lo = min(lid * per, lx);
        let hi = min(lo + per, lx);
        var acc = 0u;
        for (var k = lo; k < hi; k++) {
            acc = acc + residual_at(origin + k);
        }
        var run = wg_exclusive_scan(lid, acc, SG_ARGS);
        for (var k = lo; k < hi; k++) {
            run = run + residual_at(origin + k);
            store(origin + k, run, head);
        }
        return;
    }
    let last_y = P.nz == 1u;
    // x: lines are (y, z)
    for (var l = lid; l < ly * lz; l += WG) {
        let row = origin + (l / ly) * plane + (l % ly) * P.nx;
        var acc = 0u;
        for (var k = 0u; k < lx; k++) {
            acc = acc + residual_at(row + k);
            scratch[row + k] = acc;
        }
    }
    storageBarrier();
    // y: lines are (x, z)
    for (var l = lid; l < lx * lz; l += WG) {
        let col = origin + (l / lx) * plane + (l % lx);
        var acc = 0u;
        for (var k = 0u; k < ly; k++) {
            let i = col + k * P.nx;
            acc = acc + scratch[i];
            if (last_y) {
                store(i, acc, head);
            } else {
                scratch[i] = acc;
            }
        }
    }
    if (last_y) {
        return;
    }
    storageBarrier();
    // z: lines are (x, y)
    for (var l = lid; l < lx * ly; l += WG) {
        let col = origin + (l / lx) * P.nx + (l % lx);
        var acc = 0u;
        for (var k = 0u; k < lz; k++) {
            let i = col + k * plane;
            acc = acc + scratch[i];
            store(i, acc, head);
        }
    }
}
