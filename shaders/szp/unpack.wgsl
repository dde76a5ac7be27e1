// szp_unpack: decode side, one workgroup per block: unzigzag the deltas, prefix-sum
// them inside the block (wrapping) to recover q, write q * step; raw blocks are copied.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"
#include "common/szp_params.wgsl"

#include "common/out_value.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> payload_v: array<OT>;
@group(0) @binding(5) var<storage, read_write> out: array<OT>;
#include "common/block_width.wgsl"

#include "common/szx_math.wgsl"
#include "common/bitpack_extract.wgsl"

const WG: u32 = 128u;
#include "common/wg_scan.wgsl"

fn unzigzag(u: u32) -> u32 {
    return bitcast<u32>(bitcast<i32>(u >> 1u) ^ (-bitcast<i32>(u & 1u)));
}

@compute @workgroup_size(WG)
fn szp_unpack(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    let w = block_width(b);
    let off = P.word_base + offsets[b];
    if (w == RAW_WIDTH) {
        for (var i = lid; i < len; i += WG) {
#ifdef F64
            out[start + i] = payload_v[off / 2u + i];
#else
            out[start + i] = payload_u[off + i];
#endif
        }
        return;
    }
    // each invocation owns a contiguous run of the block
    let per = (len + WG - 1u) / WG;
    let lo = min(lid * per, len);
    let hi = min(lo + per, len);
    var acc = 0u;
    for (var i = lo; i < hi; i++) {
        acc = acc + unzigzag(extract_code(off, i, w));
    }
    var q = wg_exclusive_scan(lid, acc, SG_ARGS);
    for (var i = lo; i < hi; i++) {
        q = q + unzigzag(extract_code(off, i, w));
        out[start + i] = out_value(mulr(FT(bitcast<i32>(q)), P.step));
    }
}
