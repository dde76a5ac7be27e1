// Parameters of the AdaptiveBitpack kernels (mirrored by BitpackParams).
struct Params {
    n: u32,          // codes in this chunk
    block_size: u32,
    nblocks: u32,    // blocks in this chunk
    zigzag: u32,     // 1: input is int32, packed as zigzag; 0: uint32 as is
    chunk: u32,      // slot in the totals buffer
    word_base: u32,  // decode: word offset of the chunk payload in the bound window
    _pad0: u32,
    _pad1: u32,
}

fn block_len(b: u32) -> u32 {
    return min(P.block_size, P.n - b * P.block_size);
}

fn block_words(w: u32, len: u32) -> u32 {
    return (len * w + 31u) / 32u;
}

fn to_unsigned(c: u32) -> u32 {
    if (P.zigzag == 1u) {
        let q = bitcast<i32>(c);
        return bitcast<u32>((q << 1u) ^ (q >> 31u));
    }
    return c;
}

fn from_unsigned(u: u32) -> u32 {
    if (P.zigzag == 1u) {
        return bitcast<u32>(bitcast<i32>(u >> 1u) ^ (-bitcast<i32>(u & 1u)));
    }
    return u;
}
