// Parameters of the Lorenzo kernels (mirrored by LorenzoParams). Tiles of
// tx * ty * tz elements reset the predictor (neighbours outside the tile count as 0).
// Large fields run in slabs of whole tiles along the slowest used dimension: nx, ny, nz
// are then the slab's extents and elem_base / tile_base place it.
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
    elem_base: u32,  // index of this slab's first value inside the bound windows
    tile_base: u32,  // global index of this slab's first tile (means)
    team: u32,       // lorenzo_scan_x: invocations per row segment (a power of two <= WG)
    _pad3: u32,
}

#include "common/lorenzo_tiles.wgsl"
