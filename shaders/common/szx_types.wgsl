#include "common/float_types.wgsl"

// Block types stored in the meta region.
const BT_CONST: u32 = 0u;
const BT_QUANT: u32 = 1u;
const BT_RAW: u32 = 2u;

// Parameters shared by every SZx kernel (mirrored by SzxParams32/SzxParams64 in Rust;
// a test compares both layouts through naga reflection).
struct Params {
    n: u32,          // elements in this chunk
    block_size: u32, // elements per block
    nblocks: u32,    // blocks in this chunk
    exact: u32,      // 1: eb too small to quantize, only bit-equal constant blocks
    chunk: u32,      // chunk index (slot in the totals buffer)
    word_base: u32,  // decode: word offset of the chunk's payload inside the bound window
    fallback: u32,   // szx_encode8_lookback only (tests of its paths): look_back's mode
    _pad1: u32,
    eb: FT,          // the bound checked, already rounded down to FT
    inv: FT,         // 1 / step, rounded to FT on the host
    step: FT,        // 2 * eb, exact
    one: FT,         // 1.0; read from memory so no driver can fuse a*b+c
    tiny: FT,        // below this a half-range is treated as zero (2^-100 / 2^-1000)
    two_maxw: FT,    // 2^MAXW: codes must stay below it
    _pad2: FT,
    _pad3: FT,
}

// Block length of block b.
fn block_len(b: u32) -> u32 {
    let start = b * P.block_size;
    return min(P.block_size, P.n - start);
}

// Payload words of a block from its meta (type | width << 8) and length.
fn block_cost(info: u32, len: u32) -> u32 {
    let t = info & 0xffu;
    let w = (info >> 8u) & 0xffu;
    if (t == BT_CONST) {
        return WT;
    }
    if (t == BT_QUANT) {
        let words = (len * w + 31u) / 32u;
        return WT + ((words + WT - 1u) / WT) * WT;
    }
    return len * WT;
}
