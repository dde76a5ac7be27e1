// Parameters of shaders/wavelet/lift.wgsl (mirrored by WaveletParams). One dispatch
// is one lifting pass along one axis of one level: line j starts at
// (j % a_len) * a_stride + (j / a_len) * b_stride and has `len` samples `stride` apart.
struct Params {
    len: u32,
    stride: u32,
    a_len: u32,
    a_stride: u32,
    b_stride: u32,
    nlines: u32,
    inverse: u32,    // 0: analysis (interleaved -> low half | high half), 1: synthesis
    nsteps: u32,     // lifting steps: 4 for CDF 9/7, 2 for CDF 5/3
    c0: f64,         // lifting coefficients; even steps update odd samples
    c1: f64,
    c2: f64,
    c3: f64,
    scale_lo: f64,   // analysis scaling of the low (even) and high (odd) samples
    scale_hi: f64,
    inv_lo: f64,     // synthesis: 1 / scale, rounded once on the host
    inv_hi: f64,
    one: f64,        // 1.0 from memory (no contraction)
    _pad0: f64,
}
