// The transpose of a quad (four consecutive subgroup lanes, the first a multiple of
// 4) by xor shuffles: lane j holds row j of a 4x4 matrix of vec4s and gets column j,
// in two rounds of exchanges (partners 2 apart, then 1). The chain kernels use it so
// that a quad's stores (chain_decode*, QUAD_STORES) or loads (chain_encode_1d,
// QUAD_LOADS) of 32 consecutive values per lane touch 64 contiguous bytes per
// instruction instead of 16-byte pieces 128 bytes apart. Requires subgroups whose
// size is a multiple of 4 (the subgroup variants run with sizes 8 to 128).

struct Pair {
    a: vec4<u32>,
    b: vec4<u32>,
}

// One exchange of the transpose between lanes j and j ^ m: a = e[k], b = e[k ^ m] (k's
// bit m clear); the lower lane keeps a and takes its partner's a into b, the upper one
// keeps b and takes its partner's b into a.
fn qx(a: vec4<u32>, b: vec4<u32>, m: u32, upper: bool) -> Pair {
    let t = select(b, a, upper);
    let g = vec4<u32>(subgroupShuffleXor(t.x, m), subgroupShuffleXor(t.y, m), subgroupShuffleXor(t.z, m), subgroupShuffleXor(t.w, m));
    return Pair(select(a, g, upper), select(g, b, upper));
}

struct Quad {
    e0: vec4<u32>,
    e1: vec4<u32>,
    e2: vec4<u32>,
    e3: vec4<u32>,
}

// Lane j holds row j (e0..e3) of a 4x4 matrix of vec4s; returns column j (element q:
// lane q's e_j).
fn qt(e0: vec4<u32>, e1: vec4<u32>, e2: vec4<u32>, e3: vec4<u32>, j: u32) -> Quad {
    let u2 = (j & 2u) != 0u;
    let p02 = qx(e0, e2, 2u, u2);
    let p13 = qx(e1, e3, 2u, u2);
    let u1 = (j & 1u) != 0u;
    let p01 = qx(p02.a, p13.a, 1u, u1);
    let p23 = qx(p02.b, p13.b, 1u, u1);
    return Quad(p01.a, p01.b, p23.a, p23.b);
}

// v of each of the quad's four lanes (.x: the quad's first lane), for the lane whose
// subgroup index is `lane`
fn qgather(v: u32, lane: u32) -> vec4<u32> {
    let q0 = lane & ~3u;
    return vec4<u32>(subgroupShuffle(v, q0), subgroupShuffle(v, q0 + 1u), subgroupShuffle(v, q0 + 2u), subgroupShuffle(v, q0 + 3u));
}
