// The chain inverses' residuals (chain_unpack, chain_scan_x; P is the
// ChainUnpackParams struct): residual_at(i) is the Lorenzo residual of value i,
// extracted from its AdaptiveBitpack block (needs the bindings block_meta, offsets,
// payload_u and common/bitpack_extract.wgsl). residuals4_at(i, count) gives those of
// values i .. i + count - 1 (count 1..4) in a vec4 (the rest 0), looking up the block's
// width and offset once when the run lies in one block, so the payload loads of the
// four codes are independent of each other.
#include "common/block_width.wgsl"

fn unzigzag_residual(u: u32) -> u32 {
    if (P.bzigzag == 1u) {
        return bitcast<u32>(bitcast<i32>(u >> 1u) ^ (-bitcast<i32>(u & 1u)));
    }
    return u;
}

fn residual_at(i: u32) -> u32 {
    let b = i / P.block_size;
    let w = block_width(b);
    return unzigzag_residual(extract_code(P.word_base + offsets[b], i - b * P.block_size, w));
}

fn residuals4_at(i: u32, count: u32) -> vec4<u32> {
    let b = i / P.block_size;
    let j = i - b * P.block_size;
    if (j + count > P.block_size) {
        var r = vec4<u32>(0u);
        for (var k = 0u; k < count; k++) {
            r[k] = residual_at(i + k);
        }
        return r;
    }
    let w = block_width(b);
    let start = P.word_base + offsets[b];
    var r = vec4<u32>(unzigzag_residual(extract_code(start, j, w)), 0u, 0u, 0u);
    if (count > 1u) {
        r.y = unzigzag_residual(extract_code(start, j + 1u, w));
    }
    if (count > 2u) {
        r.z = unzigzag_residual(extract_code(start, j + 2u, w));
    }
    if (count > 3u) {
        r.w = unzigzag_residual(extract_code(start, j + 3u, w));
    }
    return r;
}
