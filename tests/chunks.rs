//! Chunking: fields larger than one storage binding are processed in chunks whose
//! size never changes the archive. Small chunk limits exercise the boundaries on small
//! data; one test goes just past lavapipe's real 128 MiB binding limit (and past
//! 65535 workgroups per dimension).

mod common;
use common::*;
use fzwgpu::stages::szx::{SzxConfig, SzxStage};
use fzwgpu::stages::RunOptions;
use fzwgpu::{DataType, Dims, ErrorBound, ErrorMode, Field, Pipeline};

fn compress(be: &dyn fzwgpu::Backend, f: &Field, bs: u32, chunk: Option<u64>) -> Vec<u8> {
    let mut p = Pipeline::new();
    let s = SzxStage::new(SzxConfig { dtype: f.dtype, block_size: bs, bound: ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap() }).unwrap();
    p.add_stage("szx", Box::new(s)).unwrap();
    p.options.max_chunk_bytes = chunk;
    p.compress(be, f).unwrap().bytes
}

#[test]
fn chunk_limits_never_change_the_archive() {
    let n = 50_003usize;
    let v: Vec<f32> =
        (0..n).map(|i| if i % 20_000 == 17 { f32::NAN } else { ((i as f32) * 0.003).sin() * 50.0 + (i % 11) as f32 * 0.01 }).collect();
    let v64: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    for (dt, field) in [
        (DataType::F32, Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap()),
        (DataType::F64, Field::from_f64(Dims::d1(n as u64).unwrap(), &v64).unwrap()),
    ] {
        for bs in [1u32, 7, 128] {
            let sz = dt.size() as u64;
            let reference = compress(cpu().as_ref(), &field, bs, None);
            let min_chunk = 128 * bs as u64 * sz + 256;
            for chunk in [min_chunk, min_chunk * 3 + 100, min_chunk * 17] {
                for (name, be) in backends() {
                    let a = compress(be.as_ref(), &field, bs, Some(chunk));
                    assert!(a == reference, "{dt} bs={bs} chunk={chunk} on {name}: archive differs from the unchunked one");
                    let opts = RunOptions { max_chunk_bytes: Some(chunk), ..Default::default() };
                    let d = fzwgpu::decompress(be.as_ref(), &a, &opts).unwrap();
                    let d0 = fzwgpu::decompress(cpu().as_ref(), &a, &Default::default()).unwrap();
                    assert!(d.field.bytes == d0.field.bytes, "{dt} bs={bs} chunk={chunk} on {name}: chunked decode differs");
                }
            }
            let d = fzwgpu::decompress(cpu().as_ref(), &reference, &Default::default()).unwrap();
            let eb = 1e-3 * range_f64(&v64);
            let bad = if dt == DataType::F32 {
                check_f32(&v, &f32_from(&d.field.bytes), eb).1
            } else {
                check_f64(&v64, &f64_from(&d.field.bytes), eb).1
            };
            assert_eq!(bad, 0);
        }
    }
    // a limit below one chunk's minimum is a clear error
    let f = Field::from_f32(Dims::d1(1000).unwrap(), &vec![1.0; 1000]).unwrap();
    let mut p = Pipeline::from_preset("szx").unwrap();
    p.options.max_chunk_bytes = Some(1000);
    assert!(matches!(p.compress(cpu().as_ref(), &f), Err(fzwgpu::Error::TooLarge { .. })));
}

#[test]
fn field_past_the_lavapipe_binding_limit() {
    let g = gpu();
    let limit = g.info().max_binding_bytes;
    // just past one binding (128 MiB on lavapipe), at most 160 MiB of f32
    let n = ((limit.min(128 << 20) / 4) + 12_345) as usize;
    let dims = Dims::new(8192, (n as u64).div_ceil(8192), 1).unwrap();
    let n = dims.len() as usize;
    let v: Vec<f32> = (0..n).map(|i| ((i % 8192) as f32 * 0.001).sin() * 100.0 + ((i / 8192) as f32 * 0.01).cos()).collect();
    let field = Field::from_f32(dims, &v).unwrap();
    assert!(field.bytes.len() as u64 > limit.min(128 << 20));
    assert!(n / 128 > 65_535, "also past 65535 workgroups per dimension");
    let mut p = Pipeline::from_preset("szx").unwrap();
    p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
    let t = std::time::Instant::now();
    let c = p.compress(g.as_ref(), &field).unwrap();
    eprintln!(
        "{} MiB on {}: compress {:.1}s, ratio {:.2}",
        field.bytes.len() >> 20,
        g.info().adapter,
        t.elapsed().as_secs_f64(),
        field.bytes.len() as f64 / c.bytes.len() as f64
    );
    let mut pc = Pipeline::from_preset("szx").unwrap();
    pc.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
    let cc = pc.compress(cpu().as_ref(), &field).unwrap();
    assert!(c.bytes == cc.bytes, "wgpu and cpu archives differ past the binding limit");
    let d = fzwgpu::decompress(g.as_ref(), &c.bytes, &Default::default()).unwrap();
    let eb = c.report.bounds[0].1;
    let (max, bad) = check_f32(&v, &f32_from(&d.field.bytes), eb);
    assert_eq!(bad, 0, "max err {max:e} eb {eb:e}");
    let dc = fzwgpu::decompress(cpu().as_ref(), &c.bytes, &Default::default()).unwrap();
    assert!(d.field.bytes == dc.field.bytes);
}

#[test]
fn composed_presets_chunked_match_unchunked() {
    let cases: Vec<(Dims, usize)> = vec![
        (Dims::d1(30_001).unwrap(), 30_001),
        (Dims::new(301, 300, 1).unwrap(), 301 * 300),
        (Dims::new(40, 30, 300).unwrap(), 40 * 30 * 300),
    ];
    for (dims, n) in cases {
        let v: Vec<f32> =
            (0..n).map(|i| if i % 9001 == 3 { f32::NAN } else { ((i as f32) * 0.002).sin() * 40.0 + (i % 13) as f32 * 0.01 }).collect();
        let field = Field::from_f32(dims, &v).unwrap();
        for preset in ["szp_composed", "szp_centered", "szp"] {
            let mk = |chunk: Option<u64>| {
                let mut p = Pipeline::from_preset(preset).unwrap();
                p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
                p.options.max_chunk_bytes = chunk;
                p
            };
            let reference = mk(None).compress(cpu().as_ref(), &field).unwrap().bytes;
            let expect = fzwgpu::decompress(cpu().as_ref(), &reference, &Default::default()).unwrap().field.bytes;
            // small enough to split every stage into several chunks, large enough for one
            // row of 128-tiles of the 2-D case
            // several chunks for every stage; one row of 128-tiles still fits (2-D: 128 x 301,
            // 3-D: 128 x 40 x 30 values)
            for chunk in [128 * 301 * 4 + 512, 128 * 40 * 30 * 4 + 512] {
                for (name, be) in backends() {
                    let a = match mk(Some(chunk)).compress(be.as_ref(), &field) {
                        Ok(c) => c.bytes,
                        Err(fzwgpu::Error::TooLarge { .. }) if chunk < 128 * 40 * 30 * 4 => continue, // one tile row does not fit: a clear error
                        Err(e) => panic!("{preset} {dims} chunk {chunk} on {name}: {e}"),
                    };
                    assert!(a == reference, "{preset} {dims} chunk {chunk} on {name}: archive differs from the unchunked one");
                    let d =
                        fzwgpu::decompress(be.as_ref(), &a, &RunOptions { max_chunk_bytes: Some(chunk), ..Default::default() }).unwrap();
                    assert!(d.field.bytes == expect, "{preset} {dims} chunk {chunk} on {name}: chunked decode differs");
                }
            }
        }
    }
}

/// The staged Lorenzo inverse in slabs whose windows do not start storage-aligned
/// (tiles of 5: a row of tiles is 5 x 37 x 23 values), with its residuals read straight
/// from the archive (no bit packing after Lorenzo): every backend and chunk limit decodes
/// the same field, within the bound.
#[test]
fn lorenzo_slabs_at_unaligned_windows() {
    let toml = "[[stage]]\nname=\"q\"\ntype=\"Quantizer\"\ninput_type=\"float32\"\ncode_type=\"int32\"\nerror_bound=1e-3\n\
                error_bound_mode=\"NOA\"\nlinear_mode=true\ninputs=[{from=\"__external__\"}]\n\
                [[stage]]\nname=\"l\"\ntype=\"Lorenzo\"\ndata_type=\"int32\"\nblock_size=5\ncentering=true\n\
                inputs=[{from=\"q\", port=\"codes\"}]\n";
    let dims = Dims::new(37, 23, 50).unwrap();
    let n = dims.len() as usize;
    let v: Vec<f32> = (0..n).map(|i| ((i % 37) as f32 * 0.3).sin() * 20.0 + ((i / 851) as f32 * 0.1).cos() * 5.0).collect();
    let field = Field::from_f32(dims, &v).unwrap();
    let c = Pipeline::from_toml(toml).unwrap().compress(cpu().as_ref(), &field).unwrap();
    let bound = c.report.bounds[0].1;
    let expect = fzwgpu::decompress(cpu().as_ref(), &c.bytes, &Default::default()).unwrap().field.bytes;
    let (_, bad) = check_f32(&v, &f32_from(&expect), bound);
    assert_eq!(bad, 0);
    for chunk in [None, Some(40_000u64), Some(5 * 37 * 23 * 4 + 300)] {
        for (name, be) in backends() {
            let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &RunOptions { max_chunk_bytes: chunk, ..Default::default() }).unwrap();
            assert!(d.field.bytes == expect, "chunk {chunk:?} on {name}: decode differs");
        }
    }
}

/// The one-pass `szx` encoder (`szx_encode8_lookback`) writes the same archive as the
/// three passes (`szx_encode8`, the scan, `szx_compact`) and as the cpu backend: whole
/// fields and chunked ones (each chunk's look-back starts afresh), lengths that end
/// mid-tile and mid-block, with special values. The run notes name the encoder, so the
/// test knows the one-pass form ran where it should (float32 blocks of 128 on an
/// adapter with subgroups, chunks within lavapipe's loop limit) and not elsewhere.
/// The switch is process-wide; the other tests of this binary give the same archives
/// either way.
#[test]
fn szx_one_pass_encoder_gives_the_same_archive() {
    use fzwgpu::stages::szx::set_lookback;
    let encoder_of = |c: &fzwgpu::pipeline::Compressed| {
        c.report.notes.iter().find_map(|(_, n)| n.strip_prefix("encoder=").map(str::to_string)).unwrap_or_default()
    };
    let g = gpu();
    for (n, chunk) in [(1usize, None), (129, None), (4096 * 3 + 5, None), (500_001, None), (2_000_000, Some(1_100_000u64))] {
        let v: Vec<f32> = (0..n)
            .map(|i| match i % 7919 {
                5 => f32::NAN,
                9 => f32::INFINITY,
                _ if (i / 2000) % 4 == 1 => 7.5,
                _ => ((i as f32) * 0.002).sin() * 30.0 + (i % 13) as f32 * 0.004,
            })
            .collect();
        let field = Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap();
        let run = |be: &dyn fzwgpu::Backend, one: bool| {
            set_lookback(Some(one));
            let mut p = Pipeline::from_preset("szx").unwrap();
            p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
            p.options.max_chunk_bytes = chunk;
            let c = p.compress(be, &field).unwrap();
            set_lookback(None);
            c
        };
        let reference = run(cpu().as_ref(), false);
        let three = run(g.as_ref(), false);
        let one = run(g.as_ref(), true);
        let what = format!("n={n} chunk={chunk:?} on {}", g.info().adapter);
        let sg = g.info().subgroups && fzwgpu::stages::szx::team8();
        assert_eq!(encoder_of(&three), if sg { "szx_encode8" } else { "szx_encode" }, "{what}");
        assert_eq!(encoder_of(&one), if sg { "szx_encode8_lookback" } else { "szx_encode" }, "{what}");
        assert!(three.bytes == reference.bytes, "{what}: three passes differ from the cpu backend");
        assert!(one.bytes == reference.bytes, "{what}: the one-pass encoder differs from the cpu backend");
    }
}
