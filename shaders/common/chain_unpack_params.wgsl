// Parameters of the fused chain inverse kernels chain_unpack and chain_decode (mirrored
// by ChainUnpackParams32/ChainUnpackParams64).
struct Params {
    n: u32,          // values
    block_size: u32, // AdaptiveBitpack block
    ntiles: u32,
    word_base: u32,  // payload word offset inside the bound window
    qzigzag: u32,
    bzigzag: u32,
    centering: u32,
    nx: u32,
    ny: u32,
    nz: u32,
    tx: u32,         // Lorenzo tile extents
    ty: u32,
    tz: u32,
    ntx: u32,        // tiles along x and y
    nty: u32,
    shared_scan: u32, // chain_decode: 1 = tile-row scans through workgroup memory, 0 = subgroup shuffles
    eb: FT,
    inv: FT,
    step: FT,
    one: FT,
    _pad0: FT,
    _pad1: FT,
    _pad2: FT,
    _pad3: FT,
}
