// The word offsets of a workgroup's WG consecutive blocks in workgroup memory, and the
// search that finds the block holding a payload word: used by the compaction kernels
// (szx/compact.wgsl, chain/compact.wgsl), whose invocations walk the group's contiguous
// run of payload words. Requires WG (a power of two).
var<workgroup> s_off: array<u32, WG>;

// The last of the group's first nb blocks whose offset is at or before word o (a block
// without words shares its offset with the next one).
fn block_at(o: u32, nb: u32) -> u32 {
    var k = 0u;
    for (var h = WG / 2u; h > 0u; h = h >> 1u) {
        if (k + h < nb && s_off[k + h] <= o) {
            k += h;
        }
    }
    return k;
}
