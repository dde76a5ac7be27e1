// Total-order keys of IEEE bit patterns: key(a) < key(b) <=> a < b for non-NaN values,
// with -0 < +0. Integer-only, so immune to denormal flushing on any device.
// KT is u32 for float32 and vec2<u32> (lo, hi) for float64.
#ifdef F64
alias KT = vec2<u32>;
const KEY_MIN: KT = vec2<u32>(0u, 0u);
const KEY_MAX: KT = vec2<u32>(0xffffffffu, 0xffffffffu);
fn key_from_words(lo: u32, hi: u32) -> KT {
    if ((hi & 0x80000000u) != 0u) {
        return vec2<u32>(~lo, ~hi);
    }
    return vec2<u32>(lo, hi ^ 0x80000000u);
}
fn key_lt(a: KT, b: KT) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}
fn key_eq(a: KT, b: KT) -> bool {
    return a.x == b.x && a.y == b.y;
}
// Class of the value whose words are (lo, hi): 0 normal or zero, 1 subnormal, 2 inf/nan.
fn value_class(lo: u32, hi: u32) -> u32 {
    let e = (hi >> 20u) & 0x7ffu;
    if (e == 0x7ffu) {
        return 2u;
    }
    if (e == 0u && ((hi & 0xfffffu) | lo) != 0u) {
        return 1u;
    }
    return 0u;
}
#else
alias KT = u32;
const KEY_MIN: KT = 0u;
const KEY_MAX: KT = 0xffffffffu;
fn key_from_words(lo: u32, hi: u32) -> KT {
    if ((lo & 0x80000000u) != 0u) {
        return ~lo;
    }
    return lo ^ 0x80000000u;
}
fn key_lt(a: KT, b: KT) -> bool {
    return a < b;
}
fn key_eq(a: KT, b: KT) -> bool {
    return a == b;
}
fn value_class(lo: u32, hi: u32) -> u32 {
    let e = (lo >> 23u) & 0xffu;
    if (e == 0xffu) {
        return 2u;
    }
    if (e == 0u && (lo & 0x7fffffu) != 0u) {
        return 1u;
    }
    return 0u;
}
#endif
