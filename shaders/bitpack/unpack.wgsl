// bitpack_unpack: decode side, one code per invocation at a time, CODES codes per
// invocation (WG * CODES per workgroup) whatever the block size: code e of block
// e / block_size is extracted and the zigzag mapping undone. The workgroup's codes
// e = (group * CODES + j) * WG + lid, so each step of j stores whole lines. (One
// workgroup per block left 3/4 of the invocations idle for blocks of 32; one code per
// invocation took 0.39 ms for 64 Mi codes on the H200, r14c: ~4 k workgroups per SM.)
#include "common/grid.wgsl"
#include "common/bitpack_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> block_meta: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> payload_u: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
#include "common/block_width.wgsl"

const WG: u32 = 128u;
const CODES: u32 = 4u;
#include "common/bitpack_extract.wgsl"

@compute @workgroup_size(WG)
fn bitpack_unpack(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = wg_linear(wid, nwg) * CODES;
    for (var j = 0u; j < CODES; j++) {
        let e = (first + j) * WG + lid;
        if (e >= P.n) {
            return;
        }
        let b = e / P.block_size;
        let w = block_width(b);
        out[e] = from_unsigned(extract_code(P.word_base + offsets[b], e - b * P.block_size, w));
    }
}
