// szx_pack: one workgroup per block. Writes the block's payload at its scanned word
// offset: the reference, then (quantized) the codes bit-packed LSB-first at the block's
// width, or (raw) the values verbatim. Also writes the chunk's meta words (two blocks
// per u32, written by the even block) and the chunk's payload total (last block).
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> data_u: array<u32>;
@group(0) @binding(2) var<storage, read> data_f: array<FT>;
@group(0) @binding(3) var<storage, read> info: array<u32>;
@group(0) @binding(4) var<storage, read> refs_u: array<u32>;
@group(0) @binding(5) var<storage, read> refs_f: array<FT>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> block_meta: array<u32>;
@group(0) @binding(8) var<storage, read_write> payload: array<u32>;
@group(0) @binding(9) var<storage, read_write> totals: array<u32>;

#include "common/szx_math.wgsl"
#include "common/bitpack_gather.wgsl"

const WG: u32 = 128u;
const MAX_BLOCK: u32 = 4096u;
var<workgroup> s_codes: array<u32, MAX_BLOCK>;

@compute @workgroup_size(WG)
fn szx_pack(@builtin(local_invocation_index) lid: u32,
            @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = wg_linear(wid, nwg);
    if (b >= P.nblocks) {
        return;
    }
    let start = b * P.block_size;
    let len = block_len(b);
    let inf = info[b];
    let typ = inf & 0xffu;
    let w = (inf >> 8u) & 0xffu;
    let off = offsets[b];

    if (lid == 0u) {
        if ((b & 1u) == 0u) {
            var m = inf & 0xffffu;
            if (b + 1u < P.nblocks) {
                m = m | ((info[b + 1u] & 0xffffu) << 16u);
            }
            block_meta[b >> 1u] = m;
        }
        if (b + 1u == P.nblocks) {
            totals[P.chunk] = off + block_cost(inf, len);
        }
    }
    if (typ == BT_RAW) {
        for (var j = lid; j < len * WT; j += WG) {
            payload[off + j] = data_u[start * WT + j];
        }
        return;
    }
    if (lid < WT) {
        payload[off + lid] = refs_u[b * WT + lid];
    }
    if (typ == BT_CONST) {
        return;
    }
    let r = refs_f[b];
    let qlim = width_limit(w);
    for (var i = lid; i < len; i += WG) {
        s_codes[i] = code_of(data_f[start + i], r, qlim).x;
    }
    workgroupBarrier();
    let nwords = block_cost(inf, len) - WT;
    let base = off + WT;
    for (var j = lid; j < nwords; j += WG) {
        payload[base + j] = gather_word(j, w, len);
    }
}
