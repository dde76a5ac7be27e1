//! Speed of the host's range scan (`kernels::range::host_range`, what an overlapped
//! compression runs beside its upload): a 1 GiB float32 field, one and two threads.
//! `cargo run --release --example host_range_speed [MiB]`
fn main() {
    let mib: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1024);
    let n = (mib << 20) / 4;
    let bytes: Vec<u8> = (0..n).flat_map(|i| (((i % 8192) as f32 * 0.001).sin()).to_le_bytes()).collect();
    // the device range's chunking at the largest binding (2 GiB less 256 bytes)
    let chunk = ((1u64 << 31) - 256) / 4 / 64 * 64;
    for threads in [1usize, 2, 1, 2] {
        let t = std::time::Instant::now();
        let r = fzwgpu::kernels::range::host_range(&bytes, false, chunk, threads).expect("scan");
        let s = t.elapsed().as_secs_f64();
        println!("{mib} MiB, {threads} thread(s): {:.1} ms, {:.2} GB/s, range {r:?}", s * 1e3, bytes.len() as f64 / s / 1e9);
    }
}
