// The tiles of szx_encode8 and szx_gather: TILE_BLOCKS consecutive blocks (one round of
// an szx_encode8 workgroup, one team per block). szx_encode8 writes tile k's payload
// words (each block's reference, then its body, in block order: the archive's payload
// of those blocks) as one run from slots[k * TILE_BLOCKS * block_size], and the run's
// length to tile_sums[k]; szx_gather moves every run to its scanned offset.
const TILE_BLOCKS: u32 = 32u;

fn tile_count() -> u32 {
    return (P.nblocks + TILE_BLOCKS - 1u) / TILE_BLOCKS;
}
