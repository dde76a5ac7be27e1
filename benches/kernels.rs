//! criterion benches of single kernels on a 16 MiB float32 field (one dispatch per
//! iteration, submit and wait included), per backend, in bytes of input per second:
//! the range reduction, SZx classification and the Quantizer's encode pass. The
//! per-kernel times of whole runs on a real GPU come from `FZWGPU_PROFILE=1 fzwgpu
//! bench` (GPU timestamps); these benches compare kernels and backends within one run.

mod common;
use common::backends;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::backend::Backend;
use fzwgpu::kernels::params::{QuantParams32, SzxParams32};
use fzwgpu::kernels::range::device_range;
use fzwgpu::kernels::Kernel;
use fzwgpu::recording::{BufSlice, Recorder};

const N: u64 = 1 << 22;

fn input(be: &dyn Backend) -> fzwgpu::recording::BufId {
    let v: Vec<f32> = (0..N as usize).map(|i| ((i % 4096) as f32 * 0.01).sin() * ((i / 4096) as f32 * 0.02).cos() * 100.0).collect();
    let id = be.create_buffer(N * 4).unwrap();
    be.write_buffer(id, 0, bytemuck::cast_slice(&v)).unwrap();
    id
}

fn bench_kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(N * 4));
    for be in backends() {
        let name = common::name(be.as_ref());
        let data = input(be.as_ref());
        let inw = BufSlice::new(data, 0, N * 4);
        g.bench_function(BenchmarkId::new("szx_range", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                device_range(&mut r, inw, N, false, N).unwrap()
            })
        });
        let (bs, eb) = (128u32, 0.01f32);
        let nb = (N as u32).div_ceil(bs);
        let sp = SzxParams32 {
            n: N as u32,
            block_size: bs,
            nblocks: nb,
            eb,
            inv: 1.0 / (2.0 * eb),
            step: 2.0 * eb,
            one: 1.0,
            tiny: f32::from_bits((127 - 100) << 23),
            two_maxw: 16777216.0,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::new("szx_encode", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                let info = BufSlice::new(r.alloc(4 * nb as u64).unwrap(), 0, 4 * nb as u64);
                let refs = BufSlice::new(r.alloc(4 * nb as u64).unwrap(), 0, 4 * nb as u64);
                let cost = BufSlice::new(r.alloc(4 * nb as u64).unwrap(), 0, 4 * nb as u64);
                let slots = BufSlice::new(r.alloc(N * 4).unwrap(), 0, N * 4);
                r.dispatch_teams(Kernel::SzxEncode, false, bytemuck::bytes_of(&sp), &[inw, inw, inw, info, refs, cost, slots], nb as u64)
                    .unwrap();
                r.submit().unwrap();
            })
        });
        let qp =
            QuantParams32 { n: N as u32, eb, inv: 1.0 / (2.0 * eb), step: 2.0 * eb, one: 1.0, limit: 16777216.0, ..Default::default() };
        g.bench_function(BenchmarkId::new("quant_encode", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                let codes = BufSlice::new(r.alloc(N * 4).unwrap(), 0, N * 4);
                let groups = N.div_ceil(256);
                let mask = BufSlice::new(r.alloc(groups * 32).unwrap(), 0, groups * 32);
                let counts = BufSlice::new(r.alloc(groups * 4).unwrap(), 0, groups * 4);
                r.dispatch(Kernel::QuantEncode, false, &qp, &[inw, inw, codes, mask, counts], groups).unwrap();
                r.submit().unwrap();
            })
        });
        be.release_buffer(data);
    }
    g.finish();
}

criterion_group!(benches, bench_kernels);
criterion_main!(benches);
