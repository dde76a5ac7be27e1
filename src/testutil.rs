//! Helpers for the library's unit tests (the integration tests have tests/common).

/// A deterministic xorshift generator from `seed` (nonzero): each call, the next word.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
