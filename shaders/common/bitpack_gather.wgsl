// Fixed-width bit packing shared by the SZx and AdaptiveBitpack kernels: codes of
// `w` bits, LSB-first, code i at stream bits [i*w, (i+1)*w), stream bit k in bit
// k % 32 of word k / 32.
//
// gather_word: word j of a block's stream from the codes `packed_code(i)` (defined by the
// including kernel: a workgroup-memory array, or a code computed on the fly).
fn gather_word(j: u32, w: u32, len: u32) -> u32 {
    var word = 0u;
    if (w == 0u) {
        return 0u;
    }
    let bit0 = j * 32u;
    let i0 = bit0 / w;
    let i1 = min(len, (bit0 + 32u + w - 1u) / w);
    for (var i = i0; i < i1; i++) {
        let pos = i * w;
        let c = packed_code(i);
        if (pos >= bit0) {
            word = word | (c << (pos - bit0));
        } else {
            word = word | (c >> (bit0 - pos));
        }
    }
    return word;
}

