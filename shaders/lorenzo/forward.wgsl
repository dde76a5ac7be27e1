// lorenzo_forward: first-order Lorenzo residual of every integer code, one invocation
// per value, in 1-D, 2-D and 3-D alike (missing dims have extent 1 and their
// neighbours are outside the tile). Neighbours outside the value's tile count as 0; with
// centering every tile is predicted relative to its head value, which goes to `means`.
// Arithmetic wraps modulo 2^32, so the transform is lossless for any input.
#include "common/grid.wgsl"
#include "common/lorenzo_params.wgsl"

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> codes: array<u32>;
@group(0) @binding(2) var<storage, read_write> residuals: array<u32>;
@group(0) @binding(3) var<storage, read_write> means: array<u32>;

const WG: u32 = 256u;

fn code_at(j: u32) -> u32 {
    return codes[P.elem_base + j];
}

#include "common/lorenzo_stencil.wgsl"

@compute @workgroup_size(WG)
fn lorenzo_forward(@builtin(local_invocation_index) lid: u32,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wg_linear(wid, nwg) * WG + lid;
    if (i >= P.nx * P.ny * P.nz) {
        return;
    }
    let r = lorenzo_residual(i);
    if (P.centering == 1u && r.y == 1u) {
        means[tile_index(i % P.nx, (i / P.nx) % P.ny, i / (P.nx * P.ny))] = r.z;
    }
    residuals[P.elem_base + i] = r.x;
}
