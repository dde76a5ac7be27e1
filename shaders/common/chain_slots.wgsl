// The slots of chain_encode's block bodies, which chain_compact moves to their offsets:
// word m of block b at b * bs + m (a block's invocations write their words one after
// another), except for blocks of 32 values (one invocation per block), which are
// interleaved in groups of 32 blocks: word m of block b at (b / 32) * 1024 + m * 32 +
// b % 32. A block of 32 has one word per bit of width, so with b * 32 + m the
// invocations of a subgroup (consecutive blocks) would each store a few words 128 bytes
// apart, and chain_compact would read them so; interleaved, the subgroup's m-th words
// are consecutive. The host's twin is kernels::chain::slot_word (the kernel tests
// compare the slots both write), the slot buffer's size kernels::chain::slot_words.
const SLOT_GROUP: u32 = 32u;

fn slot_word(b: u32, m: u32, bs: u32) -> u32 {
    if (bs == 32u) {
        return (b / SLOT_GROUP) * (SLOT_GROUP * 32u) + m * SLOT_GROUP + b % SLOT_GROUP;
    }
    return b * bs + m;
}

// the distance between a block's consecutive words
fn slot_stride(bs: u32) -> u32 {
    return select(1u, SLOT_GROUP, bs == 32u);
}

// the slot words that the nb blocks of n values may write (whole groups of 32 blocks
// of 32; else n rounded up to 32: every invocation writes inside its blocks)
fn slots_needed(nb: u32, n: u32, bs: u32) -> u32 {
    if (bs == 32u) {
        return (nb + SLOT_GROUP - 1u) / SLOT_GROUP * (SLOT_GROUP * 32u);
    }
    return (n + 31u) / 32u * 32u;
}
