// The line scan of lorenzo_scan_axis and chain_scan_last: line l along y (axis 1: x
// fastest, then the tile row along y, then z) or z (axis 2: x fastest, then y, then the
// tile index along z) of the tiles (Params: nx, ny, nz, ty, tz, nty), and the
// inclusive prefix sum (wrapping u32) along it. The includer defines axis_get(i) (the
// value at i) and axis_put(i, s) (the sum at i).
fn axis_line(l: u32, axis: u32) -> vec3<u32> {
    let x = l % P.nx;
    if (axis == 1u) {
        let ty_i = (l / P.nx) % P.nty;
        let z = l / (P.nx * P.nty);
        let y0 = ty_i * P.ty;
        return vec3<u32>((z * P.ny + y0) * P.nx + x, P.nx, min(P.ty, P.ny - y0));
    }
    let y = (l / P.nx) % P.ny;
    let z0 = (l / (P.nx * P.ny)) * P.tz;
    return vec3<u32>((z0 * P.ny + y) * P.nx + x, P.nx * P.ny, min(P.tz, P.nz - z0));
}

// (start, stride, len): four loads before their stores, since a store may alias a later
// load for the compiler, so a plain load-add-store loop waits out one memory latency per
// value
fn axis_scan(start: u32, stride: u32, len: u32) {
    var acc = 0u;
    var i = start;
    var k = 0u;
    for (; k + 4u <= len; k += 4u) {
        let a0 = axis_get(i);
        let a1 = axis_get(i + stride);
        let a2 = axis_get(i + 2u * stride);
        let a3 = axis_get(i + 3u * stride);
        acc = acc + a0;
        axis_put(i, acc);
        acc = acc + a1;
        axis_put(i + stride, acc);
        acc = acc + a2;
        axis_put(i + 2u * stride, acc);
        acc = acc + a3;
        axis_put(i + 3u * stride, acc);
        i = i + 4u * stride;
    }
    for (; k < len; k++) {
        acc = acc + axis_get(i);
        axis_put(i, acc);
        i = i + stride;
    }
}
