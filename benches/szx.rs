//! criterion benches: the szx preset per backend and direction, and the device scan,
//! in bytes of input per second. On lavapipe compare ratios within one run; absolute
//! numbers only mean something on a real GPU (see `fzwgpu eval` for GPU timestamps).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::backend::{self, Backend, BackendChoice};
use fzwgpu::kernels::scan::record_exclusive_scan;
use fzwgpu::recording::{BufSlice, Recorder};
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};
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
    let (nx, ny) = (1024usize, 1024usize);
    let v: Vec<f32> = (0..nx * ny).map(|i| ((i % nx) as f32 * 0.01).sin() * ((i / nx) as f32 * 0.02).cos() * 100.0).collect();
    Field::from_f32(Dims::new(nx as u64, ny as u64, 1).unwrap(), &v).unwrap()
}

fn bench_szx(c: &mut Criterion) {
    let f = field();
    let mut g = c.benchmark_group("szx");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(f.bytes.len() as u64));
    for be in backends() {
        let name = format!("{}:{}", be.info().kind.name(), be.info().adapter);
        let mut p = Pipeline::from_preset("szx").unwrap();
        p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
        let arch = p.compress(be.as_ref(), &f).unwrap().bytes;
        g.bench_with_input(BenchmarkId::new("compress", &name), &f, |b, f| b.iter(|| p.compress(be.as_ref(), f).unwrap()));
        g.bench_with_input(BenchmarkId::new("decompress", &name), &arch, |b, a| {
            b.iter(|| fzwgpu::decompress(be.as_ref(), a, &Default::default()).unwrap())
        });
    }
    g.finish();
}

fn bench_scan(c: &mut Criterion) {
    let n = 1u64 << 20;
    let mut g = c.benchmark_group("scan");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(n * 4));
    for be in backends() {
        let name = format!("{}:{}", be.info().kind.name(), be.info().adapter);
        g.bench_function(BenchmarkId::new("exclusive_scan_u32", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                let i = r.alloc(n * 4).unwrap();
                let o = r.alloc(n * 4).unwrap();
                r.clear(BufSlice::new(i, 0, n * 4));
                record_exclusive_scan(&mut r, BufSlice::new(i, 0, n * 4), BufSlice::new(o, 0, n * 4), n).unwrap();
                r.submit().unwrap();
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_szx, bench_scan);
criterion_main!(benches);
