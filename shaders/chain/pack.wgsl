// chain_pack: fused Quantizer -> Lorenzo -> AdaptiveBitpack, forward, second pass. One
// team (common/team.wgsl) per AdaptiveBitpack block, blocks walked grid-stride:
// recomputes the residuals, packs them at the block's width at its scanned offset (each
// payload word gathered by one lane from residuals computed on the fly), writes the width bytes, the chunk total and
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
#include "common/team.wgsl"

var<private> g_start: u32;
fn packed_code(i: u32) -> u32 {
    return packed_value(lorenzo_residual(g_start + i).x);
}
#include "common/bitpack_gather.wgsl"
#include "common/width_meta.wgsl"

fn pack_block(b: u32, lane: u32, ts: u32) {
    let start = P.base + b * P.block_size;
    let len = block_len(b);
    let w = widths[b];
    let off = offsets[b];
    if (lane == 0u) {
        write_width_meta(b);
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_words(w, len);
        }
    }
    if (P.centering == 1u) {
        // tile heads: positions first, the code only where there is one
        for (var i = lane; i < len; i += ts) {
            let g = start + i;
            let x = g % P.nx;
            let y = (g / P.nx) % P.ny;
            let z = g / (P.nx * P.ny);
            if (x % P.tx == 0u && y % P.ty == 0u && z % P.tz == 0u) {
                means[tile_index(x, y, z)] = code_at(g);
            }
        }
    }
    g_start = start;
    let nwords = block_words(w, len);
    for (var j = lane; j < nwords; j += ts) {
        payload[off + j] = gather_word(j, w, len);
    }
}

@compute @workgroup_size(WG)
fn chain_pack(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32> SG_PARAMS) {
    let t = team_geom(lid, SG_ARGS);
    for (var b = team_first(t, wid, nwg); b < P.nblocks; b += team_stride(t, nwg)) {
        pack_block(b, t.x, t.y);
    }
}
