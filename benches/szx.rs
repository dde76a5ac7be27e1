//! criterion benches: the szx preset per backend and direction, and the device scan,
//! in bytes of input per second. On lavapipe compare ratios within one run; absolute
//! numbers only mean something on a real GPU (see `fzwgpu eval` for GPU timestamps).

mod common;
use common::backends;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::kernels::scan::record_exclusive_scan;
use fzwgpu::recording::{BufSlice, Recorder};
use fzwgpu::{ErrorBound, ErrorMode, Pipeline};

fn bench_szx(c: &mut Criterion) {
    let f = common::field(1024, 1024);
    let mut g = c.benchmark_group("szx");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(f.bytes.len() as u64));
    for be in backends() {
        let name = common::name(be.as_ref());
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
        let name = common::name(be.as_ref());
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
