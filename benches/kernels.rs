//! criterion benches of single kernels on a 16 MiB float32 field (one dispatch per
//! iteration, submit and wait included), per backend, in bytes of input per second:
//! the range reduction, SZx encoding, the Quantizer's encode pass and the one-pass
//! SZp chain encoder and decoder (2-D 4096 x 1024, tiles and blocks of 128; the decoder
//! on a synthetic payload of 6-bit codes, in the backend's variant, so
//! `FZWGPU_COALESCE=0|1` compares the two forms). The
//! The `scan` group compares the two device-wide scans. The
//! per-kernel times of whole runs on a real GPU come from `FZWGPU_PROFILE=1 fzwgpu
//! bench` (GPU timestamps); these benches compare kernels and backends within one run.

mod common;
use common::backends;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fzwgpu::backend::Backend;
use fzwgpu::kernels::params::{ChainParams32, ChainUnpackParams32, LorenzoParams, QuantParams32, SzxParams32};
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
        // chain_encode over the field as 4096 x 1024, Lorenzo tiles and bitpack blocks
        // of 128, walks of 32 rows (the outlier counts must start at zero)
        let (nx, ny, t) = (4096u32, (N / 4096) as u32, 128u32);
        let lp = LorenzoParams { nx, ny, nz: 1, tx: t, ty: t, tz: 1, ntx: nx / t, nty: ny.div_ceil(t), ntz: 1, ..Default::default() };
        let groups256 = N.div_ceil(256);
        let counts_at = (8 * groups256).next_multiple_of(64);
        let cp = ChainParams32 {
            n: N as u32,
            block_size: bs,
            nblocks: nb,
            bzigzag: 1,
            nx,
            ny,
            nz: 1,
            tx: t,
            ty: t,
            tz: 1,
            ntx: lp.ntx,
            nty: lp.nty,
            walk: 32,
            shared_max: fzwgpu::kernels::chain::needs_workgroup_memory(bs / 32, be.info().subgroups) as u32,
            counts_at: counts_at as u32,
            eb,
            inv: 1.0 / (2.0 * eb),
            step: 2.0 * eb,
            one: 1.0,
            limit: 16777216.0,
            ..Default::default()
        };
        let cgroups = fzwgpu::kernels::chain::encode_groups(&lp, 32).unwrap();
        let tiles = (lp.ntx * lp.nty) as u64;
        g.bench_function(BenchmarkId::new("chain_encode", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                let widths = BufSlice::new(r.alloc(4 * nb as u64).unwrap(), 0, 4 * nb as u64);
                let cost = BufSlice::new(r.alloc(4 * nb as u64).unwrap(), 0, 4 * nb as u64);
                let slots = BufSlice::new(r.alloc(N * 4).unwrap(), 0, N * 4);
                let means = BufSlice::new(r.alloc(4 * tiles).unwrap(), 0, 4 * tiles);
                let qm = r.alloc(4 * (counts_at + groups256)).unwrap();
                r.clear(BufSlice::new(qm, 4 * counts_at, 4 * groups256));
                let qmask = BufSlice::new(qm, 0, 4 * (counts_at + groups256));
                r.dispatch(Kernel::ChainEncode, false, &cp, &[inw, inw.vec4_view(), inw, widths, cost, slots, means, qmask], cgroups)
                    .unwrap();
                r.submit().unwrap();
            })
        });
        // chain_decode of the same geometry: every block 6 bits wide, payload words from a
        // fixed pseudo-random sequence (any bits decode), no centering
        let w = 6u32;
        let per_block = bs / 32 * w;
        let meta: Vec<u32> = vec![w * 0x0101_0101; (nb as usize).div_ceil(4)];
        let offs: Vec<u32> = (0..nb).map(|b| b * per_block).collect();
        let pay: Vec<u32> = (0..nb * per_block).map(|i| i.wrapping_mul(2654435761).rotate_left(13)).collect();
        let upload = |v: &[u32]| {
            let bytes = (4 * v.len() as u64).max(4);
            let id = be.create_buffer(bytes).unwrap();
            be.write_buffer(id, 0, bytemuck::cast_slice(v)).unwrap();
            BufSlice::new(id, 0, bytes)
        };
        let (meta_w, offs_w, pay_w, means_w) = (upload(&meta), upload(&offs), upload(&pay), upload(&[0u32; 4]));
        let up = ChainUnpackParams32 {
            n: N as u32,
            block_size: bs,
            ntiles: (lp.ntx * lp.nty),
            bzigzag: 1,
            nx,
            ny,
            nz: 1,
            tx: t,
            ty: t,
            tz: 1,
            ntx: lp.ntx,
            nty: lp.nty,
            shared_scan: fzwgpu::kernels::chain::needs_workgroup_memory(t / 32, be.info().subgroups) as u32,
            eb,
            inv: 1.0 / (2.0 * eb),
            step: 2.0 * eb,
            one: 1.0,
            ..Default::default()
        };
        let dgroups = fzwgpu::kernels::chain::decode_groups(&lp).unwrap();
        g.bench_function(BenchmarkId::new("chain_decode", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                let out = BufSlice::new(r.alloc(N * 4).unwrap(), 0, N * 4);
                r.dispatch(Kernel::ChainDecode, false, &up, &[meta_w, offs_w, pay_w, means_w, out], dgroups).unwrap();
                r.submit().unwrap();
            })
        });
        for b in [meta_w, offs_w, pay_w, means_w] {
            be.release_buffer(b.buf);
        }
        be.release_buffer(data);
    }
    g.finish();
}

/// The two device-wide exclusive scans over 2^18 u32 values (the block costs of a
/// 128 MiB float32 field; within lavapipe's loop limit for the look-back form):
/// reduce-then-scan (`scan_reduce` + `scan_downsweep`) and one pass (`scan_lookback`).
fn bench_scans(c: &mut Criterion) {
    use fzwgpu::kernels::scan::{record_exclusive_scan, record_lookback_scan, set_scan_mode, ScanMode};
    const NS: u64 = 1 << 18;
    let mut g = c.benchmark_group("scan");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(NS * 4));
    set_scan_mode(ScanMode::ReduceThenScan);
    for be in backends() {
        let name = common::name(be.as_ref());
        let costs: Vec<u32> = (0..NS as u32).map(|i| 1 + (i.wrapping_mul(2654435761) >> 27)).collect();
        let inp = be.create_buffer(NS * 4).unwrap();
        be.write_buffer(inp, 0, bytemuck::cast_slice(&costs)).unwrap();
        let out = be.create_buffer(NS * 4).unwrap();
        let (iw, ow) = (BufSlice::new(inp, 0, NS * 4), BufSlice::new(out, 0, NS * 4));
        g.bench_function(BenchmarkId::new("reduce_then_scan", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                record_exclusive_scan(&mut r, iw, ow, NS).unwrap();
                r.submit().unwrap();
            })
        });
        g.bench_function(BenchmarkId::new("lookback", &name), |b| {
            b.iter(|| {
                let mut r = Recorder::new(be.as_ref());
                record_lookback_scan(&mut r, iw, ow, NS).unwrap();
                r.submit().unwrap();
            })
        });
        be.release_buffer(inp);
        be.release_buffer(out);
    }
    g.finish();
}

criterion_group!(benches, bench_kernels, bench_scans);
criterion_main!(benches);
