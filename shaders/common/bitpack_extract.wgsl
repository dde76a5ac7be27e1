// Fixed-width bit packing shared by the SZx and AdaptiveBitpack kernels: codes of
// `w` bits, LSB-first, code i at stream bits [i*w, (i+1)*w), stream bit k in bit
// k % 32 of word k / 32.
//
// extract_code: code i of a stream starting at word `base` of `payload_u` (declared
// by the including kernel).
fn extract_code(base: u32, i: u32, w: u32) -> u32 {
    if (w == 0u) {
        return 0u;
    }
    let pos = i * w;
    let wi = base + pos / 32u;
    let sh = pos % 32u;
    var code = payload_u[wi] >> sh;
    if (sh + w > 32u) {
        code = code | (payload_u[wi + 1u] << (32u - sh));
    }
    if (w < 32u) {
        code = code & ((1u << w) - 1u);
    }
    return code;
}
