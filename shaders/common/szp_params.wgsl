// Parameters of the SZp kernels (mirrored by SzpParams32/SzpParams64).
struct Params {
    n: u32,          // values in this chunk
    block_size: u32,
    nblocks: u32,    // blocks in this chunk
    chunk: u32,      // slot in the totals buffer
    word_base: u32,  // decode: word offset of the chunk payload in the bound window
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    eb: FT,
    inv: FT,
    step: FT,
    one: FT,         // 1.0 from memory (no contraction)
    limit: FT,       // |q| bound (2^24 float32, 2^31 float64; 0 in exact mode)
    _pad3: FT,
    _pad4: FT,
    _pad5: FT,
}

// Width byte of a block stored verbatim.
const RAW_WIDTH: u32 = 255u;

fn block_len(b: u32) -> u32 {
    return min(P.block_size, P.n - b * P.block_size);
}

// Payload words of a block (rounded up to WT so float64 blocks stay 8-byte aligned).
fn szp_cost(w: u32, len: u32) -> u32 {
    if (w == RAW_WIDTH) {
        return len * WT;
    }
    let words = (len * w + 31u) / 32u;
    return ((words + WT - 1u) / WT) * WT;
}

fn zigzag(d: i32) -> u32 {
    return bitcast<u32>((d << 1u) ^ (d >> 31u));
}
