// bitpack_unpack: decode side, one workgroup per block: extracts the block's codes
// and undoes the zigzag mapping.
#include "common/grid.wgsl"
#include "common/bitpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

const WG: u32 = 128u;
#include "common/bitpack_extract.wgsl"

@compute @workgroup_size(WG)
fn bitpack_unpack(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    let w = (block_meta[b >> 2u] >> (8u * (b & 3u))) & 0xffu;
    let base = P.word_base + offsets[b];
    for (var i = lid; i < len; i += WG) {
        out[start + i] = from_unsigned(extract_code(base, i, w));
    }
}
