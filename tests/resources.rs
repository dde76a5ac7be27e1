//! Memory stays flat over 2000 compress/decompress calls on one device (buffers come
//! from the pool and go back to it; nothing accumulates per call). Measured as the
//! process's resident set (Linux /proc/self/statm) after a warm-up and at the end.

mod common;
use common::*;
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};

fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm (Linux)");
    let pages: u64 = s.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn memory_is_flat_over_2000_calls() {
    let be = gpu();
    let v: Vec<f32> = (0..30_000).map(|i| (i as f32 * 0.003).sin() * 50.0).collect();
    let f = Field::from_f32(Dims::new(300, 100, 1).unwrap(), &v).unwrap();
    let presets = ["szx", "szp_composed", "szp_centered", "szp"];
    let mut pipes: Vec<Pipeline> = presets
        .iter()
        .map(|p| {
            let mut p = Pipeline::from_preset(p).unwrap();
            p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
            p
        })
        .collect();
    let mut run = |i: usize| {
        let p = &mut pipes[i % presets.len()];
        let c = p.compress(be.as_ref(), &f).unwrap();
        let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
        assert_eq!(d.field.bytes.len(), f.bytes.len());
    };
    for i in 0..200 {
        run(i);
    }
    let warm = rss_bytes();
    for i in 200..2000 {
        run(i);
    }
    let end = rss_bytes();
    let growth = end.saturating_sub(warm);
    eprintln!("resident set after 200 calls {} MiB, after 2000 calls {} MiB", warm >> 20, end >> 20);
    assert!(growth < 16 << 20, "resident set grew by {} KiB over 1800 calls", growth >> 10);
}
