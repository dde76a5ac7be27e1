// The slots of chain_encode's block bodies, which chain_compact moves to their offsets.
// A block body is its units' words one after another (unit: 32 consecutive values, one
// invocation of chain_encode; 32 codes of w bits are w words), so body word m of block
// b (width w, blocks of bs values) is word m % w of unit t = b * bs / 32 + m / w. The
// slots interleave the units in groups of 32: word k of unit t at
// (t / 32) * 1024 + k * 32 + t % 32. The units of a subgroup are consecutive, so its
// store instructions write their k-th words side by side, whatever the block size
// (one block per invocation since round 26; every block size since round 32: with
// b * bs + m, blocks of 128 values put each lane's word w words from its block
// neighbours' and 512 bytes from the next block's; H100, round 32: 1-D szp_composed
// compression 616 -> 785 GB/s through Vulkan, 703 -> 819 through CUDA, 2-D +2-5%,
// docs/results/h100-r32c.log). The host's twins are
// kernels::chain::unit_slot / slot_word (the kernel tests compare the slots both
// write), the slot buffer's size kernels::chain::slot_words.
const SLOT_GROUP: u32 = 32u;

fn unit_slot(t: u32, k: u32) -> u32 {
    return (t / SLOT_GROUP) * (SLOT_GROUP * 32u) + k * SLOT_GROUP + t % SLOT_GROUP;
}

// body word m of block b (w > 0: a block of width 0 has no words)
fn slot_word(b: u32, m: u32, bs: u32, w: u32) -> u32 {
    let j = m / w;
    return unit_slot(b * (bs / 32u) + j, m - j * w);
}

// the slot words that the units of n values may write (whole groups of 32 units)
fn slots_needed(n: u32) -> u32 {
    return ((n + 31u) / 32u + SLOT_GROUP - 1u) / SLOT_GROUP * (SLOT_GROUP * 32u);
}
