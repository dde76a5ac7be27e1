//! criterion benches: every built-in preset per backend, compress and decompress, on a
//! device-resident field (kernels and readback of the archive; `compress_device`,
//! `decompress_device`) and host to host, in bytes of input per second. On lavapipe
//! compare ratios within one run; absolute numbers mean something only on a real GPU,
//! where `fzwgpu bench` (GPU timestamps, replays) is the reference.

mod common;
use common::backends;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::pipeline::config::PRESETS;
use fzwgpu::{DeviceField, ErrorBound, ErrorMode, Pipeline};

fn bench_presets(c: &mut Criterion) {
    let f = common::field(1024, 512);
    let bound = ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap();
    for (preset, _) in PRESETS {
        let mut g = c.benchmark_group(format!("preset/{preset}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(f.bytes.len() as u64));
        for be in backends() {
            let name = common::name(be.as_ref());
            let mut p = Pipeline::from_preset(preset).unwrap();
            p.override_bound(bound).unwrap();
            let arch = p.compress(be.as_ref(), &f).unwrap().bytes;
            let resident = DeviceField::upload(be.as_ref(), &f).unwrap();
            // a pipeline that falls back to the cpu backend on this adapter (float64
            // arithmetic without SHADER_F64, as on GL) has no resident form there
            match p.compress_device(&resident) {
                Ok(_) => {
                    g.bench_function(BenchmarkId::new("compress_resident", &name), |b| b.iter(|| p.compress_device(&resident).unwrap()));
                    g.bench_function(BenchmarkId::new("decompress_resident", &name), |b| {
                        b.iter(|| fzwgpu::decompress_device(be.as_ref(), &arch, &Default::default()).unwrap())
                    });
                }
                Err(fzwgpu::Error::Unsupported(m)) => eprintln!("preset/{preset} on {name}: no resident benches ({m})"),
                Err(e) => panic!("preset/{preset} on {name}: {e}"),
            }
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
