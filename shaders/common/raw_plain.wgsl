// Whether field value i (words in raw_u) is finite and not subnormal: the wavelet
// kernels load only such values (a device may flush subnormals on load); the others
// are stored exactly by the correction stage.
fn raw_plain(i: u32) -> bool {
#ifdef F64
    let hi = raw_u[2u * i + 1u];
    let e = hi & 0x7ff00000u;
    return e != 0x7ff00000u && (e != 0u || ((hi & 0x000fffffu) == 0u && raw_u[2u * i] == 0u));
#else
    let w = raw_u[i];
    let e = w & 0x7f800000u;
    return e != 0x7f800000u && (e != 0u || (w & 0x007fffffu) == 0u);
#endif
}
