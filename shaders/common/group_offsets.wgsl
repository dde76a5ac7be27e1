// The word offsets of a workgroup's WG consecutive blocks in workgroup memory, and the
// search that finds the block holding a payload word: used by the compaction kernels
// (szx/compact.wgsl, chain/compact.wgsl), whose invocations walk the group's contiguous
// run of payload words. Requires WG (a power of two). Slots past the group's nb blocks
// must hold OFF_PAD (set_group_offset writes it), so the search needs no count check:
// each of its log2(WG) steps is one load, one compare and one select.
var<workgroup> s_off: array<u32, WG>;

const OFF_PAD: u32 = 0xffffffffu;

// Invocation lid's slot: the offset of block b0 + lid when lid < nb, else OFF_PAD
// (every payload word lies below OFF_PAD, so a padded slot is never chosen).
fn set_group_offset(lid: u32, nb: u32, off: u32) {
    s_off[lid] = select(OFF_PAD, off, lid < nb);
}

// One step of the search: k + h where that block's offset is at or before word o. Steps
// of h >= WG are no steps (WG is a constant: the compiler drops them).
fn search_step(k: u32, h: u32, o: u32) -> u32 {
    if (h >= WG) {
        return k;
    }
    return select(k, k + h, s_off[k + h] <= o);
}

// The last of the group's blocks whose offset is at or before word o (a block without
// words shares its offset with the next one). s_off[0] <= o always holds. Written out
// step by step (WG <= 1024) rather than as a loop: naga bounds every loop with a
// counter of its own, which a driver need not see through to unroll.
fn block_at(o: u32) -> u32 {
    var k = search_step(0u, 512u, o);
    k = search_step(k, 256u, o);
    k = search_step(k, 128u, o);
    k = search_step(k, 64u, o);
    k = search_step(k, 32u, o);
    k = search_step(k, 16u, o);
    k = search_step(k, 8u, o);
    k = search_step(k, 4u, o);
    k = search_step(k, 2u, o);
    return search_step(k, 1u, o);
}
