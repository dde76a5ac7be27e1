// Element type of the float kernels and the u32 words one value occupies.
#ifdef F64
alias FT = f64;
const WT: u32 = 2u;
const MAXW: u32 = 32u;
const MIN_NORMAL: f64 = 2.2250738585072014e-308lf;
#else
alias FT = f32;
const WT: u32 = 1u;
const MAXW: u32 = 24u;
const MIN_NORMAL: f32 = 1.17549435e-38f;
#endif

