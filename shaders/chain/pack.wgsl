// chain_pack: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, second pass. One
// workgroup per AdaptiveBitpack block: recomputes the residuals, packs them at the
// block's width at its scanned offset, writes the width bytes, the chunk total and
// (centering) the tile heads — the same bytes as the staged bitpack_pack and
// lorenzo_forward.
#include "common/grid.wgsl"
#include "common/ordered.wgsl"
#include "common/float_types.wgsl"
#include "common/chain_params.wgsl"
#include "common/lorenzo_tiles.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read> widths: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(6) var<storage, read_write> payload: array<u32>;
@group(0) @binding(7) var<storage, read_write> totals: array<u32>;
@group(0) @binding(8) var<storage, read_write> means: array<u32>;

#include "common/szx_math.wgsl"
#include "common/quantize.wgsl"
#include "common/lorenzo_stencil.wgsl"

const WG: u32 = 128u;
const MAX_BLOCK: u32 = 4096u;
var<workgroup> s_codes: array<u32, MAX_BLOCK>;

fn packed_code(i: u32) -> u32 {
    return s_codes[i];
}
#include "common/bitpack_gather.wgsl"
#include "common/width_meta.wgsl"

@compute @workgroup_size(WG)
fn chain_pack(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = P.base + b * P.block_size;
    let len = block_len(b);
    let w = widths[b];
    let off = offsets[b];
    if (lid == 0u) {
        write_width_meta(b);
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_words(w, len);
        }
    }
    for (var i = lid; i < len; i += WG) {
        let g = start + i;
        let r = lorenzo_residual(g);
        if (P.centering == 1u && r.y == 1u) {
            means[tile_index(g % P.nx, (g / P.nx) % P.ny, g / (P.nx * P.ny))] = r.z;
        }
        s_codes[i] = packed_value(r.x);
    }
    workgroupBarrier();
    let nwords = block_words(w, len);
    for (var j = lid; j < nwords; j += WG) {
        payload[off + j] = gather_word(j, w, len);
    }
}
