// Published u32 values of a decoupled look-back (scan_lookback, szx_encode8_lb and
// szx_encode8_fix). WGSL atomics are relaxed and give no ordering between two words,
// so a value goes as two words of READY | 16-bit half, each carrying its own ready
// bit: a reader takes a value only when both halves are ready. Requires the binding
// `state: array<atomic<u32>>`, zeroed by the host before the dispatch.
const READY: u32 = 0x10000u;

fn publish(at: u32, v: u32) {
    atomicStore(&state[at], READY | (v & 0xffffu));
    atomicStore(&state[at + 1u], READY | (v >> 16u));
}

// (1, value) when both halves at `at` are ready, else (0, 0)
fn peek(at: u32) -> vec2<u32> {
    let lo = atomicLoad(&state[at]);
    let hi = atomicLoad(&state[at + 1u]);
    if ((lo & hi & READY) != 0u) {
        return vec2<u32>(1u, (lo & 0xffffu) | ((hi & 0xffffu) << 16u));
    }
    return vec2<u32>(0u, 0u);
}
