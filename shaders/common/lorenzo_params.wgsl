// Parameters of the Lorenzo kernels (mirrored by LorenzoParams). Tiles of
// tx * ty * tz elements reset the predictor (neighbours outside the tile count as 0).
struct Params {
    nx: u32,
    ny: u32,
    nz: u32,
    centering: u32,  // 1: each tile is predicted relative to its head value (means port)
    tx: u32,
    ty: u32,
    tz: u32,
    ntx: u32,        // tiles along x
    nty: u32,        // tiles along y
    ntz: u32,        // tiles along z
    axis: u32,       // lorenzo_scan_axis: 1 = y, 2 = z
    nlines: u32,     // lorenzo_scan_axis: lines to scan; lorenzo_scan_x: row segments
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
}

fn tile_index(x: u32, y: u32, z: u32) -> u32 {
    return ((z / P.tz) * P.nty + (y / P.ty)) * P.ntx + (x / P.tx);
}
