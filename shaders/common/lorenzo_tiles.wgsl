// Global tile index of position (x, y, z) of a slab (Params: tx, ty, tz, ntx, nty,
// tile_base).
fn tile_index(x: u32, y: u32, z: u32) -> u32 {
    return P.tile_base + ((z / P.tz) * P.nty + (y / P.ty)) * P.ntx + (x / P.tx);
}
