// chain_unpack: fused inverse of Quantizer -> Lorenzo -> AdaptiveBitpack for 1-D fields
// whose Lorenzo tile is a whole number of AdaptiveBitpack blocks. One workgroup per
// tile: extract each value's packed residual, undo the zigzag, prefix-sum the tile
// (with its head value back, for centering), undo the code mapping and dequantize.
// Outliers are patched afterwards by quant_patch, as in the staged inverse.
#include "common/grid.wgsl"
#include "common/float_types.wgsl"

struct Params {
    n: u32,          // values
    block_size: u32, // AdaptiveBitpack block
    tile: u32,       // Lorenzo tile (a multiple of block_size)
    ntiles: u32,
    word_base: u32,  // payload word offset inside the bound window
    qzigzag: u32,
    bzigzag: u32,
    centering: u32,
    eb: FT,
    inv: FT,
    step: FT,
    one: FT,
    _pad0: FT,
    _pad1: FT,
    _pad2: FT,
    _pad3: FT,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read> means: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<OT>;

#include "common/out_value.wgsl"
#include "common/szx_math.wgsl"
#include "common/bitpack_extract.wgsl"

const WG: u32 = 256u;
#include "common/wg_scan.wgsl"

fn residual_at(i: u32) -> u32 {
    let b = i / P.block_size;
    let w = (block_meta[b >> 2u] >> (8u * (b & 3u))) & 0xffu;
    let u = extract_code(P.word_base + offsets[b], i - b * P.block_size, w);
    if (P.bzigzag == 1u) {
        return bitcast<u32>(bitcast<i32>(u >> 1u) ^ (-bitcast<i32>(u & 1u)));
    }
    return u;
}

fn dequant_code(c: u32) -> FT {
    var q = bitcast<i32>(c);
    if (P.qzigzag == 1u) {
        q = bitcast<i32>(c >> 1u) ^ (-bitcast<i32>(c & 1u));
    }
    return mulr(FT(q), P.step);
}

@compute @workgroup_size(WG)
fn chain_unpack(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = wg_linear(wid, nwg);
    if (t >= P.ntiles) {
        return;
    }
    let start = t * P.tile;
    let len = min(P.tile, P.n - start);
    let per = (len + WG - 1u) / WG;
    let lo = min(lid * per, len);
    let hi = min(lo + per, len);
    var head = 0u;
    if (P.centering == 1u) {
        head = means[t];
    }
    var acc = 0u;
    for (var k = lo; k < hi; k++) {
        acc = acc + residual_at(start + k);
    }
    var run = wg_exclusive_scan(lid, acc, SG_ARGS) + head;
    for (var k = lo; k < hi; k++) {
        run = run + residual_at(start + k);
        out[start + k] = out_value(dequant_code(run));
    }
}
