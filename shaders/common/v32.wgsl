// V32: the 32 consecutive values an invocation of chain_encode / chain_decode holds,
// as 8 vec4 addressed by constant components only (no dynamic index, so they stay in
// registers). Needs P.n.
struct V32 {
    v0: vec4<u32>,
    v1: vec4<u32>,
    v2: vec4<u32>,
    v3: vec4<u32>,
    v4: vec4<u32>,
    v5: vec4<u32>,
    v6: vec4<u32>,
    v7: vec4<u32>,
}

fn v32_zero() -> V32 {
    let z = vec4<u32>(0u);
    return V32(z, z, z, z, z, z, z, z);
}

fn v32_sub(a: V32, b: V32) -> V32 {
    return V32(a.v0 - b.v0, a.v1 - b.v1, a.v2 - b.v2, a.v3 - b.v3, a.v4 - b.v4, a.v5 - b.v5, a.v6 - b.v6, a.v7 - b.v7);
}

fn v32_add(a: V32, b: V32) -> V32 {
    return V32(a.v0 + b.v0, a.v1 + b.v1, a.v2 + b.v2, a.v3 + b.v3, a.v4 + b.v4, a.v5 + b.v5, a.v6 + b.v6, a.v7 + b.v7);
}

fn v32_splat(x: u32) -> V32 {
    let z = vec4<u32>(x);
    return V32(z, z, z, z, z, z, z, z);
}

// zero the components at indices >= P.n (i: index of component v0.x)
fn tail4(v: vec4<u32>, i: u32) -> vec4<u32> {
    let idx = vec4<u32>(i) + vec4<u32>(0u, 1u, 2u, 3u);
    return select(v, vec4<u32>(0u), idx >= vec4<u32>(P.n));
}

fn v32_tail(a: V32, i: u32) -> V32 {
    return V32(tail4(a.v0, i), tail4(a.v1, i + 4u), tail4(a.v2, i + 8u), tail4(a.v3, i + 12u), tail4(a.v4, i + 16u), tail4(a.v5, i + 20u), tail4(a.v6, i + 24u), tail4(a.v7, i + 28u));
}

fn v32_max(a: V32) -> u32 {
    let m = max(max(max(a.v0, a.v1), max(a.v2, a.v3)), max(max(a.v4, a.v5), max(a.v6, a.v7)));
    return max(max(m.x, m.y), max(m.z, m.w));
}

