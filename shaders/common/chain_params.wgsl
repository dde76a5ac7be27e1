// Parameters of the fused Quantizer -> Lorenzo -> AdaptiveBitpack kernels (mirrored
// by ChainParams32/ChainParams64). The bitpack view (n, block_size, nblocks, chunk,
// base) walks the chunk; the Lorenzo view (nx.. nty, tile_base, centering) is the whole
// field (the fused path runs only when the field fits one binding).
struct Params {
    n: u32,          // values in this chunk
    block_size: u32, // AdaptiveBitpack block
    nblocks: u32,    // blocks in this chunk
    chunk: u32,      // slot in the totals buffer
    base: u32,       // global index of the chunk's first value
    qzigzag: u32,    // Quantizer codes are zigzag (uint32)
    bzigzag: u32,    // AdaptiveBitpack input is int32 (zigzag mapped)
    centering: u32,
    nx: u32,
    ny: u32,
    nz: u32,
    tx: u32,
    ty: u32,
    tz: u32,
    ntx: u32,
    nty: u32,
    tile_base: u32,
    walk: u32,       // chain_encode: planes per workgroup walk (divides the walked tile extent)
    shared_max: u32, // chain_encode: 1 = block maxima through workgroup memory, 0 = subgroup shuffles
    counts_at: u32,  // chain_encode: word of qmask where the outlier counts start
    eb: FT,
    inv: FT,
    step: FT,
    one: FT,
    limit: FT,
    _pad3: FT,
    _pad4: FT,
    _pad5: FT,
}

fn block_len(b: u32) -> u32 {
    return min(P.block_size, P.n - b * P.block_size);
}

fn block_words(w: u32, len: u32) -> u32 {
    return (len * w + 31u) / 32u;
}

// the Quantizer's code of value j (as its `codes` output holds it)
fn code_at(j: u32) -> u32 {
    return code_of_q(quantize_value(j).x);
}

fn code_of_q(q: i32) -> u32 {
    if (P.qzigzag == 1u) {
        return bitcast<u32>((q << 1u) ^ (q >> 31u));
    }
    return bitcast<u32>(q);
}

// AdaptiveBitpack's unsigned value of a residual
fn packed_value(r: u32) -> u32 {
    if (P.bzigzag == 1u) {
        let q = bitcast<i32>(r);
        return bitcast<u32>((q << 1u) ^ (q >> 31u));
    }
    return r;
}
