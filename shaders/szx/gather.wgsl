// szx_gather: after szx_encode8 and the scan of its tiles' run lengths (tile_sums ->
// tile_offs), moves each tile's run of payload words (common/szx_tile.wgsl) from its
// place in `slots` to its offset in the payload, and writes the chunk's payload total
// (last tile). One workgroup per tile: a plain copy of consecutive words, with no
// per-block work left (szx_encode8 already laid the run out and wrote the block meta).
// Float32 only, as szx_encode8.
#include "common/grid.wgsl"
#include "common/szx_types.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> tile_sums: array<u32>;
@group(0) @binding(2) var<storage, read> tile_offs: array<u32>;
@group(0) @binding(3) var<storage, read> slots: array<u32>;
@group(0) @binding(4) var<storage, read_write> payload: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<u32>;

const WG: u32 = 256u;
#include "common/szx_tile.wgsl"

@compute @workgroup_size(WG)
fn szx_gather(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = wg_linear(wid, nwg);
    let nt = tile_count();
    if (k >= nt) {
        return;
    }
    let len = tile_sums[k];
    let dst = tile_offs[k];
    let src = k * TILE_BLOCKS * P.block_size;
    for (var j = lid; j < len; j += WG) {
        payload[dst + j] = slots[src + j];
    }
    if (lid == 0u && k + 1u == nt) {
        totals[P.chunk] = dst + len;
    }
}
