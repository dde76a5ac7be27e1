//! criterion benches: every built-in preset per backend, compress and decompress, on a
//! device-resident field (kernels and readback of the archive; `compress_device`,
//! `decompress_device`) and host to host, in bytes of input per second. On lavapipe
//! compare ratios within one run; absolute numbers mean something only on a real GPU,
//! where `fzwgpu bench` (GPU timestamps, replays) is the reference.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::backend::{self, Backend, BackendChoice};
use fzwgpu::pipeline::config::PRESETS;
use fzwgpu::{DeviceField, Dims, ErrorBound, ErrorMode, Field, Pipeline};
use std::sync::Arc;

fn backends() -> Vec<Arc<dyn Backend>> {
    let mut v = vec![backend::open(&BackendChoice::Cpu).expect("cpu backend")];
    match backend::open(&BackendChoice::Wgpu { adapter: None }) {
        Ok(b) => v.push(b),
        Err(e) => eprintln!("no wgpu adapter, benching cpu only: {e}"),
    }
    v
}

fn field() -> Field {
    let (nx, ny) = (1024usize, 512usize);
    let v: Vec<f32> = (0..nx * ny).map(|i| ((i % nx) as f32 * 0.01).sin() * ((i / nx) as f32 * 0.02).cos() * 100.0).collect();
    Field::from_f32(Dims::new(nx as u64, ny as u64, 1).unwrap(), &v).unwrap()
}

fn bench_presets(c: &mut Criterion) {
    let f = field();
    let bound = ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap();
    for (preset, _) in PRESETS {
        let mut g = c.benchmark_group(format!("preset/{preset}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(f.bytes.len() as u64));
        for be in backends() {
            let name = format!("{}:{}", be.info().kind.name(), be.info().adapter);
            let mut p = Pipeline::from_preset(preset).unwrap();
            p.override_bound(bound).unwrap();
            let arch = p.compress(be.as_ref(), &f).unwrap().bytes;
            let resident = DeviceField::upload(be.as_ref(), &f).unwrap();
            g.bench_function(BenchmarkId::new("compress_resident", &name), |b| b.iter(|| p.compress_device(&resident).unwrap()));
            g.bench_function(BenchmarkId::new("decompress_resident", &name), |b| {
                b.iter(|| fzwgpu::decompress_device(be.as_ref(), &arch, &Default::default()).unwrap())
            });
            g.bench_function(BenchmarkId::new("compress_e2e", &name), |b| b.iter(|| p.compress(be.as_ref(), &f).unwrap()));
            g.bench_function(BenchmarkId::new("decompress_e2e", &name), |b| {
                b.iter(|| fzwgpu::decompress(be.as_ref(), &arch, &Default::default()).unwrap())
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_presets);
criterion_main!(benches);
