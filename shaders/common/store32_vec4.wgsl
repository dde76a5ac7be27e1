// The 32 values of a chain_decode invocation (V32, common/v32.wgsl) as eight store4
// calls; store4 (the caller's) dequantizes four values and stores them at index i.
fn store32(i: u32, c: V32) {
    store4(i, c.v0);
    store4(i + 4u, c.v1);
    store4(i + 8u, c.v2);
    store4(i + 12u, c.v3);
    store4(i + 16u, c.v4);
    store4(i + 20u, c.v5);
    store4(i + 24u, c.v6);
    store4(i + 28u, c.v7);
}
