// Linear workgroup index of a 2-D dispatch grid (the host splits counts past
// max_compute_workgroups_per_dimension into x * y).
fn wg_linear(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}
