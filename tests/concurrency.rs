//! Many threads on one device: 8 threads x 100 round trips with mixed presets, sizes,
//! element types and dimensionalities share one wgpu backend (device, queue, pipeline
//! cache and buffer pool); every archive must equal the single-threaded one and every
//! reconstruction must hold the bound.

mod common;
use common::*;
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};
use std::sync::Arc;

const PRESETS: [&str; 4] = ["szx", "szp_composed", "szp_centered", "szp"];

fn case(k: usize) -> (&'static str, Field) {
    let mut rng = Rng(k as u64 * 7919 + 1);
    let preset = PRESETS[k % PRESETS.len()];
    let n = [1usize, 127, 1000, 4099, 20_000][k % 5];
    let dims = match k % 3 {
        0 => Dims::d1(n as u64).unwrap(),
        1 if n >= 10 => Dims::new(10, (n / 10) as u64, 1).unwrap(),
        2 if n >= 100 => Dims::new(10, 5, (n / 50) as u64).unwrap(),
        _ => Dims::d1(n as u64).unwrap(),
    };
    let len = dims.len() as usize;
    let v: Vec<f64> = (0..len).map(|i| (i as f64 * 0.01 * (1 + k % 4) as f64).sin() * 100.0 + rng.unit()).collect();
    let f = if k.is_multiple_of(2) {
        Field::from_f32(dims, &v.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap()
    } else {
        Field::from_f64(dims, &v).unwrap()
    };
    (preset, f)
}

fn roundtrip(be: &dyn fzwgpu::Backend, k: usize) -> (Vec<u8>, Vec<u8>, f64) {
    let (preset, f) = case(k);
    let mut p = Pipeline::from_preset(preset).unwrap();
    p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
    let c = p.compress(be, &f).unwrap();
    let d = fzwgpu::decompress(be, &c.bytes, &Default::default()).unwrap();
    (c.bytes, d.field.bytes, c.report.bounds[0].1)
}

#[test]
fn pipelines_and_backends_are_send() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<Pipeline>();
    send::<Arc<dyn fzwgpu::Backend>>();
    sync::<Arc<dyn fzwgpu::Backend>>();
    send::<fzwgpu::DeviceField<'static>>();
}

#[test]
fn eight_threads_share_one_device() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 100;
    let be = gpu();
    // single-threaded references, one per distinct case
    let distinct = 60; // lcm of the case parameters (4 presets, 5 sizes, 3 shapes)
    let refs: Vec<(Vec<u8>, Vec<u8>)> = (0..distinct)
        .map(|k| {
            let (a, r, _) = roundtrip(be.as_ref(), k);
            (a, r)
        })
        .collect();
    let refs = Arc::new(refs);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let be = be.clone();
            let refs = refs.clone();
            std::thread::spawn(move || {
                for r in 0..ROUNDS {
                    let k = (t * 13 + r * 7) % distinct;
                    let (archive, recon, eb) = roundtrip(be.as_ref(), k);
                    assert!(archive == refs[k].0, "thread {t} round {r}: case {k} archive differs from the single-threaded one");
                    assert!(recon == refs[k].1, "thread {t} round {r}: case {k} reconstruction differs");
                    let (_, f) = case(k);
                    let bad = match f.dtype {
                        fzwgpu::DataType::F32 => check_f32(&f32_from(&f.bytes), &f32_from(&recon), eb).1,
                        _ => check_f64(&f64_from(&f.bytes), &f64_from(&recon), eb).1,
                    };
                    assert_eq!(bad, 0, "thread {t} round {r}: case {k} violates the bound");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a worker thread panicked");
    }
}

/// Backends opened, used and dropped on one thread while another thread runs long jobs
/// on its own backend. Through wgpu's GL backend all work shares the instance's one EGL
/// context behind a lock that panics after 6 s of waiting, and llvmpipe's GL takes about
/// 7 s per 4 M-value `szx` compression; calls into wgpu hold GL_SERIAL, and this checks
/// that opening and dropping backends beside such a job (the drop holds that lock too:
/// without it, wgpu's drop of a device panicked here once, round 28) neither panics nor
/// disturbs the job.
#[test]
fn backends_come_and_go_beside_a_long_job() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    let n = 1usize << 22;
    let v: Vec<f32> = (0..n).map(|i| (i as f32 * 0.001).sin()).collect();
    let big = Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let d2 = done.clone();
    let long = std::thread::spawn(move || {
        let be = WgpuBackend::new(&WgpuOptions::default()).unwrap();
        let mut p = Pipeline::from_preset("szx").unwrap();
        p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
        for _ in 0..2 {
            let c = p.compress(&be, &big).unwrap();
            let d = fzwgpu::decompress(&be, &c.bytes, &Default::default()).unwrap();
            assert_eq!(check_f32(&v, &f32_from(&d.field.bytes), c.report.bounds[0].1).1, 0);
        }
        d2.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let mut opened = 0;
    while !done.load(std::sync::atomic::Ordering::SeqCst) || opened < 3 {
        let be = WgpuBackend::new(&WgpuOptions::default()).unwrap();
        let (archive, _, _) = roundtrip(&be, opened % 60);
        assert!(!archive.is_empty());
        drop(be);
        opened += 1;
    }
    long.join().expect("the long job's thread panicked");
    eprintln!("{opened} backends opened and dropped beside the long job");
}

/// Compressions run from rayon tasks, many at once, through one shared backend. A rayon
/// worker that waits inside a parallel host copy (the staged upload's, holding the
/// backend's queue lock) runs other queued tasks meanwhile; if one of those called
/// into the same backend, it would wait on a lock its own thread holds. Each field is
/// past the 4 MiB from which host copies run in parallel.
#[test]
fn compressions_from_rayon_tasks_share_one_backend() {
    use rayon::prelude::*;
    let n = 3usize << 20; // 12 MiB of float32
    for be in [gpu(), cpu()] {
        let results: Vec<(usize, usize)> = (0..12usize)
            .into_par_iter()
            .map(|k| {
                let v: Vec<f32> = (0..n).map(|i| ((i + 977 * k) as f32 * 0.0007).sin() * 50.0).collect();
                let f = Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap();
                let mut p = Pipeline::from_preset(PRESETS[k % 3]).unwrap();
                p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
                let c = p.compress(be.as_ref(), &f).unwrap();
                let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
                (k, check_f32(&v, &f32_from(&d.field.bytes), c.report.bounds[0].1).1)
            })
            .collect();
        assert_eq!(results.len(), 12);
        for (k, bad) in results {
            assert_eq!(bad, 0, "{}: task {k}", be.info().adapter);
        }
    }
}
