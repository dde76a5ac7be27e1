//! Overlapped compression: a host field uploads in chunks, each coded while the next
//! uploads, with the NOA/REL range scanned on the host meanwhile. The archive must be
//! the plain one to the byte, and the host's range the device's to the bit.

mod common;
use common::*;
use fzwgpu::kernels::range::{device_range, host_range};
use fzwgpu::recording::{BufSlice, Recorder};
use fzwgpu::stages::szx::{SzxConfig, SzxStage};
use fzwgpu::{Backend, DataType, Dims, ErrorBound, ErrorMode, Field, Pipeline};

/// Fields that stress the range and the bound: smooth with NaN and infinities, signed
/// zeros only, all NaN (no finite value), constant, huge and tiny magnitudes,
/// subnormals.
fn fields(n: usize) -> Vec<(&'static str, Vec<f64>)> {
    let smooth: Vec<f64> = (0..n)
        .map(|i| match i % 9_973 {
            17 => f64::NAN,
            5_000 => f64::INFINITY,
            6_001 => f64::NEG_INFINITY,
            _ => ((i as f64) * 0.003).sin() * 50.0 + (i % 11) as f64 * 0.01,
        })
        .collect();
    let zeros: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }).collect();
    let nan = vec![f64::NAN; n];
    let constant = vec![3.25; n];
    let huge: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 3.0e38 } else { -2.5e38 } * ((i % 7) as f64 / 7.0)).collect();
    let tiny: Vec<f64> = (0..n).map(|i| (i % 101) as f64 * 1e-44 - 5e-43).collect();
    vec![("smooth", smooth), ("signed zeros", zeros), ("all NaN", nan), ("constant", constant), ("huge", huge), ("tiny", tiny)]
}

fn field(dt: DataType, v: &[f64]) -> Field {
    let dims = Dims::d1(v.len() as u64).unwrap();
    match dt {
        DataType::F32 => Field::from_f32(dims, &v.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(),
        _ => Field::from_f64(dims, v).unwrap(),
    }
}

#[test]
fn host_range_is_the_device_range_to_the_bit() {
    let gpu = gpu();
    let cpu = cpu();
    let bes: [(&str, &dyn Backend); 2] = [("cpu", cpu.as_ref()), ("wgpu", gpu.as_ref())];
    let mut rnd = Rng(0x2545_f491_4f6c_dd1d);
    let mut cases = fields(20_011);
    // random bit patterns: every class of value, both signs
    cases.push(("random bits", (0..20_011).map(|_| f64::from_bits(rnd.next())).collect()));
    cases.push(("one value", vec![-0.0]));
    cases.push(("-0 then +0", (0..5_000).map(|i| if i < 2_500 { -0.0 } else { 0.0 }).collect()));
    for dt in [DataType::F32, DataType::F64] {
        for (name, v) in &cases {
            let f = match (*name, dt) {
                // random f32 bit patterns, not f64 ones rounded
                ("random bits", DataType::F32) => {
                    let w: Vec<f32> = v.iter().map(|x| f32::from_bits(x.to_bits() as u32)).collect();
                    Field::from_f32(Dims::d1(w.len() as u64).unwrap(), &w).unwrap()
                }
                _ => field(dt, v),
            };
            let n = f.bytes.len() as u64 / dt.size() as u64;
            for chunk in [64u64, 640, 1 << 20] {
                for (bname, be) in bes {
                    let mut r = Recorder::new(be);
                    let buf = r.alloc(f.bytes.len() as u64).unwrap();
                    be.write_buffer(buf, 0, &f.bytes).unwrap();
                    let d = device_range(&mut r, BufSlice::new(buf, 0, f.bytes.len() as u64), n, dt == DataType::F64, chunk).unwrap();
                    for threads in [1, 3] {
                        let h = host_range(&f.bytes, dt == DataType::F64, chunk, threads).unwrap();
                        let bits = |x: Option<(f64, f64)>| x.map(|(a, b)| (a.to_bits(), b.to_bits()));
                        assert_eq!(bits(h), bits(d), "{dt} {name} chunk {chunk} threads {threads}: host {h:?}, {bname} {d:?}");
                    }
                }
            }
        }
    }
}

fn szx(dt: DataType, bs: u32, bound: ErrorBound) -> Pipeline {
    let mut p = Pipeline::new();
    p.add_stage("szx", Box::new(SzxStage::new(SzxConfig { dtype: dt, block_size: bs, bound }).unwrap())).unwrap();
    p
}

#[test]
fn overlapped_compression_gives_the_plain_archive() {
    let n = 50_003usize;
    let gpu = gpu();
    let cpu = cpu();
    let bes: [(&str, &dyn Backend); 2] = [("cpu", cpu.as_ref()), ("wgpu", gpu.as_ref())];
    let bounds = [
        ErrorBound::new(ErrorMode::Abs, 1e-2).unwrap(),
        ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap(),
        ErrorBound::new(ErrorMode::Rel, 1e-4).unwrap(),
    ];
    for (name, v) in fields(n) {
        for dt in [DataType::F32, DataType::F64] {
            let f = field(dt, &v);
            let sz = dt.size() as u64;
            for bs in [7u32, 128] {
                for bound in bounds {
                    let mut p = szx(dt, bs, bound);
                    p.options.overlap_chunk_bytes = Some(0);
                    let reference = p.compress(cpu.as_ref(), &f).unwrap().bytes;
                    let min_chunk = 128 * bs as u64 * sz + 256;
                    // several chunks, a ragged last one; with and without a smaller
                    // binding limit beside it
                    let len = f.bytes.len() as u64;
                    for (chunk, max) in [(min_chunk, None), (len / 3 + 100, None), (len / 2, Some(min_chunk * 2))] {
                        for ((bname, be), read) in bes.into_iter().flat_map(|b| [(b, true), (b, false)]) {
                            let mut p = szx(dt, bs, bound);
                            p.options.overlap_chunk_bytes = Some(chunk);
                            p.options.overlap_readback = Some(read);
                            p.options.max_chunk_bytes = max;
                            let what = format!("{name} {dt} bs={bs} {bound:?} chunk={chunk} max={max:?} readback={read} on {bname}");
                            // into fresh memory, then into the same memory again (its
                            // capacity now holds the field: the readback's path)
                            let mut out = Vec::new();
                            for pass in 0..2 {
                                let rep = p.compress_into(be, &f, &mut out).unwrap();
                                let how = if read { "(uploads and readbacks)" } else { "(uploads)" };
                                assert!(
                                    rep.notes.iter().any(|(_, n)| n.starts_with("overlapped=") && n.ends_with(how)),
                                    "{what}: not overlapped so ({:?})",
                                    rep.notes
                                );
                                assert!(out == reference, "{what} pass {pass}: the overlapped archive differs from the plain one");
                            }
                        }
                    }
                    if name == "smooth" {
                        let d = fzwgpu::decompress(cpu.as_ref(), &reference, &Default::default()).unwrap();
                        let orig: Vec<f64> = match dt {
                            DataType::F32 => v.iter().map(|&x| x as f32 as f64).collect(),
                            _ => v.clone(),
                        };
                        let eb = fzwgpu::kernels::range::resolve_abs(bound, range_of(&orig));
                        let bad = if dt == DataType::F32 {
                            let o: Vec<f32> = orig.iter().map(|&x| x as f32).collect();
                            check_f32(&o, &f32_from(&d.field.bytes), eb).1
                        } else {
                            check_f64(&orig, &f64_from(&d.field.bytes), eb).1
                        };
                        assert_eq!(bad, 0, "{name} {dt} bs={bs} {bound:?}");
                    }
                }
            }
        }
    }
}

/// The finite min and max (None when no value is finite), for the bound's check.
fn range_of(v: &[f64]) -> Option<(f64, f64)> {
    let f: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    (!f.is_empty()).then(|| (f.iter().copied().fold(f64::INFINITY, f64::min), f.iter().copied().fold(f64::NEG_INFINITY, f64::max)))
}

#[test]
fn streaming_applies_where_it_should() {
    let n = 40_000usize;
    let v: Vec<f32> = (0..n).map(|i| (i as f32 * 0.01).cos()).collect();
    let f = Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap();
    let gpu = gpu();
    let overlapped = |p: &mut Pipeline, be: &dyn Backend| {
        let mut out = Vec::new();
        let rep = p.compress_into(be, &f, &mut out).unwrap();
        rep.notes.iter().any(|(_, n)| n.starts_with("overlapped="))
    };
    let chunk = 128 * 128 * 4 + 256;
    // the szx preset streams a field of two chunks or more on a device backend
    let mut p = Pipeline::from_preset("szx").unwrap();
    p.options.overlap_chunk_bytes = Some(chunk);
    assert!(overlapped(&mut p, gpu.as_ref()));
    // not a field below two chunks, not with Some(0), not with timing replays
    p.options.overlap_chunk_bytes = Some(f.bytes.len() as u64);
    assert!(!overlapped(&mut p, gpu.as_ref()));
    p.options.overlap_chunk_bytes = Some(0);
    assert!(!overlapped(&mut p, gpu.as_ref()));
    p.options.overlap_chunk_bytes = Some(chunk);
    p.options.timing_replays = 1;
    assert!(!overlapped(&mut p, gpu.as_ref()));
    // by default: not on the cpu backend, nor below two 64 MiB chunks
    let mut p = Pipeline::from_preset("szx").unwrap();
    assert!(!overlapped(&mut p, cpu().as_ref()));
    assert!(!overlapped(&mut p, gpu.as_ref()));
    // not a pipeline of other stages
    for preset in ["szp_composed", "szp_centered"] {
        let mut p = Pipeline::from_preset(preset).unwrap();
        p.options.overlap_chunk_bytes = Some(chunk);
        assert!(!overlapped(&mut p, gpu.as_ref()), "{preset}");
    }
}

#[test]
fn overlapped_decompression_gives_the_plain_field() {
    let n = 50_003usize;
    let gpu = gpu();
    let cpu = cpu();
    let bes: [(&str, &dyn Backend); 2] = [("cpu", cpu.as_ref()), ("wgpu", gpu.as_ref())];
    for (name, v) in fields(n) {
        for dt in [DataType::F32, DataType::F64] {
            let f = field(dt, &v);
            let sz = dt.size() as u64;
            for bs in [7u32, 128] {
                for bound in [ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap(), ErrorBound::new(ErrorMode::Abs, 1e-2).unwrap()] {
                    let archive = szx(dt, bs, bound).compress(cpu.as_ref(), &f).unwrap().bytes;
                    let off = fzwgpu::stages::RunOptions { overlap_chunk_bytes: Some(0), ..Default::default() };
                    let reference = fzwgpu::decompress(cpu.as_ref(), &archive, &off).unwrap().field.bytes;
                    let min_chunk = 128 * bs as u64 * sz + 256;
                    let len = f.bytes.len() as u64;
                    for (chunk, max) in [(min_chunk, None), (len / 3 + 100, None), (len / 2, Some(min_chunk * 2))] {
                        for (bname, be) in bes {
                            let what = format!("{name} {dt} bs={bs} {bound:?} chunk={chunk} max={max:?} on {bname}");
                            let opts =
                                fzwgpu::stages::RunOptions { overlap_chunk_bytes: Some(chunk), max_chunk_bytes: max, ..Default::default() };
                            let d = fzwgpu::decompress(be, &archive, &opts).unwrap();
                            assert!(
                                d.report.notes.iter().any(|(_, n)| n.starts_with("overlapped=")),
                                "{what}: not overlapped ({:?})",
                                d.report.notes
                            );
                            assert!(d.field.bytes == reference, "{what}: the overlapped field differs");
                            assert_eq!((d.field.dtype, d.field.dims), (f.dtype, f.dims), "{what}");
                            // into memory that holds other bytes
                            let mut into = vec![0xa5u8; f.bytes.len()];
                            let di = fzwgpu::decompress_into(be, &archive, &opts, &mut into).unwrap();
                            assert!(di.report.notes.iter().any(|(_, n)| n.starts_with("overlapped=")), "{what}: into, not overlapped");
                            assert!(into == reference, "{what}: the overlapped field (into) differs");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn overlapped_decompression_rejects_corrupt_archives() {
    // noisy, so the payload passes 1 MiB: smaller ones are checked before any upload
    let n = 600_000usize;
    let v: Vec<f32> = (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 8) as f32 * 1e-3).collect();
    let f = Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap();
    let archive = Pipeline::from_preset("szx").unwrap().compress(cpu().as_ref(), &f).unwrap().bytes;
    assert!(archive.len() > 1 << 20, "{} bytes", archive.len());
    let gpu = gpu();
    let cpu = cpu();
    let opts = fzwgpu::stages::RunOptions { overlap_chunk_bytes: Some(1 << 20), ..Default::default() };
    for (bname, be) in [("cpu", cpu.as_ref()), ("wgpu", gpu.as_ref())] {
        let ok = fzwgpu::decompress(be, &archive, &opts).unwrap();
        assert!(ok.report.notes.iter().any(|(_, n)| n.starts_with("overlapped=")));
        // one byte of the payload's last chunk, of the meta region, of the tail
        for at in [archive.len() - 100, archive.len() / 2, archive.len() - 1] {
            let mut bad = archive.clone();
            bad[at] ^= 0x10;
            let mut into = vec![0u8; f.bytes.len()];
            for r in [fzwgpu::decompress(be, &bad, &opts).map(|_| ()), fzwgpu::decompress_into(be, &bad, &opts, &mut into).map(|_| ())] {
                assert!(r.is_err(), "{bname}: byte {at} flipped, no error");
            }
        }
        // truncated
        let mut into = vec![0u8; f.bytes.len()];
        assert!(fzwgpu::decompress_into(be, &archive[..archive.len() - 8], &opts, &mut into).is_err(), "{bname}: truncated");
    }
}
