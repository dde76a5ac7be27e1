// chain_pack: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, second pass. One
// workgroup per max(1, WG / block_size) AdaptiveBitpack blocks (so small blocks keep
// every invocation busy): computes each residual once into workgroup memory, packs them at the
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

const WG: u32 = 256u;
const MAX_BLOCK: u32 = 4096u;
var<workgroup> s_codes: array<u32, MAX_BLOCK>;

// gather_word reads the codes of the block being gathered at s_codes[g_base..]
var<private> g_base: u32;
fn packed_code(i: u32) -> u32 {
    return s_codes[g_base + i];
}
#include "common/bitpack_gather.wgsl"
#include "common/width_meta.wgsl"

@compute @workgroup_size(WG)
fn chain_pack(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let per = max(1u, WG / P.block_size);
    let b0 = wg_linear(wid, nwg) * per;
    if (b0 >= P.nblocks) {
        return;
    }
    let nb = min(per, P.nblocks - b0);
    let start = P.base + b0 * P.block_size;
    // values of the group's blocks (the last block may be short)
    let len = min(nb * P.block_size, P.n - b0 * P.block_size);
    if (lid < nb) {
        let b = b0 + lid;
        write_width_meta(b);
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = offsets[b] + block_words(widths[b], block_len(b));
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
    // (block, word) pairs; a block has at most block_size words (width <= 32)
    let maxw = P.block_size;
    for (var t = lid; t < nb * maxw; t += WG) {
        let k = t / maxw;
        let j = t % maxw;
        let b = b0 + k;
        let w = widths[b];
        let bl = block_len(b);
        if (j < block_words(w, bl)) {
            g_base = k * P.block_size;
            payload[offsets[b] + j] = gather_word(j, w, bl);
        }
    }
}
