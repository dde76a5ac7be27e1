//! FZMS streams: chunked compression from a reader, whole / per-chunk / range decode,
//! the whole-field meaning of range-relative bounds, corrupt streams, and peak memory
//! bounded by a few chunks for a field much larger than a chunk (CLI, lavapipe).

mod common;
use common::*;
use fzwgpu::stream::{compress_stream, decompress_chunk, decompress_range, read_index, scan_range};
use fzwgpu::{DataType, Dims, Error, ErrorBound, ErrorMode, Pipeline};
use std::io::Cursor;

fn make(preset: &'static str, eb: ErrorBound) -> impl Fn() -> fzwgpu::Result<Pipeline> {
    move || {
        let mut p = Pipeline::from_preset(preset)?;
        p.override_bound(eb)?;
        Ok(p)
    }
}

/// Compress in-memory `bytes` as a stream of `preset` at `eb` into `out` (no progress).
#[allow(clippy::too_many_arguments)]
fn stream_into(
    be: &dyn fzwgpu::Backend,
    preset: &'static str,
    eb: ErrorBound,
    bytes: &[u8],
    out: &mut Vec<u8>,
    dtype: DataType,
    dims: Dims,
    chunk: u64,
    range: Option<fzwgpu::stream::FieldRange>,
) -> fzwgpu::Result<fzwgpu::stream::StreamSummary> {
    compress_stream(be, &make(preset, eb), Cursor::new(bytes), out, dtype, dims, chunk, range, &mut |_| {})
}

fn values(n: usize) -> Vec<f32> {
    let mut rng = Rng(3);
    (0..n).map(|i| if i == 777 { f32::NAN } else { (i as f32 * 0.0007).sin() * 40.0 + rng.unit() as f32 * 0.1 }).collect()
}

#[test]
fn chunked_round_trips_hold_the_whole_field_bound() {
    let dims = Dims::new(64, 50, 37).unwrap();
    let v = values(dims.len() as usize);
    let bytes = f32_bytes(&v);
    let eb = ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap();
    let range = scan_range(Cursor::new(&bytes), DataType::F32, dims.len()).unwrap();
    // the same absolute bound the in-memory path resolves
    let whole =
        make("szx", eb)().unwrap().compress(gpu().as_ref(), &fzwgpu::Field::new(DataType::F32, dims, bytes.clone()).unwrap()).unwrap();
    let eb_abs = whole.report.bounds[0].1;
    for (name, be) in backends() {
        for preset in ["szx", "szp_composed", "szp_centered"] {
            let mut out = Vec::new();
            // chunks of 5 planes (64 x 50 x 4 bytes each) and a ragged last chunk
            let s = stream_into(be.as_ref(), preset, eb, &bytes, &mut out, DataType::F32, dims, 5 * 64 * 50 * 4, Some(range)).unwrap();
            assert_eq!(s.chunks, 8, "{preset}");
            assert_eq!(s.abs_bound, eb_abs, "{preset}: the stream's bound is the whole field's");
            let mut r = Cursor::new(out.clone());
            let ix = read_index(&mut r).unwrap();
            assert_eq!(ix.chunks.len(), 8);
            let mut dec = Vec::new();
            let n = decompress_range(be.as_ref(), &Default::default(), &mut r, &ix, 0, dims.len(), &mut dec, &mut |_| {}).unwrap();
            assert_eq!(n, bytes.len() as u64);
            let (_, bad) = check_f32(&v, &f32_from(&dec), eb_abs);
            assert_eq!(bad, 0, "{preset} on {name}");
            // one chunk and a range straddling chunks decode to the same values
            let c5 = decompress_chunk(be.as_ref(), &Default::default(), &mut r, &ix, 5).unwrap();
            assert_eq!(c5.dims, Dims::new(64, 50, 5).unwrap());
            let off = (ix.chunks[5].first * 4) as usize;
            assert!(c5.bytes[..] == dec[off..off + c5.bytes.len()]);
            let mut part = Vec::new();
            decompress_range(be.as_ref(), &Default::default(), &mut r, &ix, 12_345, 54_321, &mut part, &mut |_| {}).unwrap();
            assert!(part[..] == dec[12_345 * 4..54_321 * 4]);
            // streams are byte-identical across backends
            if name == "wgpu" {
                let mut cpu_out = Vec::new();
                stream_into(cpu().as_ref(), preset, eb, &bytes, &mut cpu_out, DataType::F32, dims, 5 * 64 * 50 * 4, Some(range)).unwrap();
                assert!(cpu_out == out, "{preset}: wgpu and cpu streams differ");
            }
        }
    }
}

#[test]
fn relative_bounds_need_the_range_and_corrupt_streams_are_errors() {
    let dims = Dims::d1(10_000).unwrap();
    let v = values(10_000);
    let bytes = f32_bytes(&v);
    let be = cpu();
    let noa = ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap();
    let mut out = Vec::new();
    let e = stream_into(be.as_ref(), "szx", noa, &bytes, &mut out, DataType::F32, dims, 4000, None);
    assert!(matches!(e, Err(Error::Config(_))), "{e:?}");
    // a reader with more values than the dims is a wrong --dims: an input error
    let mut long = bytes.clone();
    long.extend_from_slice(&[0; 4]);
    let e = stream_into(
        be.as_ref(),
        "szx",
        ErrorBound::new(ErrorMode::Abs, 0.01).unwrap(),
        &long,
        &mut Vec::new(),
        DataType::F32,
        dims,
        4000,
        None,
    );
    assert!(matches!(e, Err(Error::Input(_))), "{e:?}");
    // a short reader is an I/O error, not a short stream
    let e = stream_into(
        be.as_ref(),
        "szx",
        ErrorBound::new(ErrorMode::Abs, 0.01).unwrap(),
        &bytes[..20_000],
        &mut Vec::new(),
        DataType::F32,
        dims,
        4000,
        None,
    );
    // an input shorter than its dims: an input error naming where it ended
    assert!(matches!(&e, Err(Error::Input(m)) if m.contains("ends within values 5000..6000")), "{e:?}");
    let mut out = Vec::new();
    stream_into(be.as_ref(), "szx", ErrorBound::new(ErrorMode::Abs, 0.01).unwrap(), &bytes, &mut out, DataType::F32, dims, 4000, None)
        .unwrap();
    assert!(read_index(&mut Cursor::new(out.clone())).is_ok());
    // every truncation and a flip in every 97th byte: typed errors or, for flips inside
    // a chunk archive, an error when that chunk is decoded; never a panic
    for cut in (0..out.len()).step_by(101) {
        assert!(read_index(&mut Cursor::new(out[..cut].to_vec())).is_err(), "truncated at {cut}");
    }
    for at in (0..out.len()).step_by(97) {
        let mut bad = out.clone();
        bad[at] ^= 0x5a;
        let mut r = Cursor::new(bad);
        if let Ok(ix) = read_index(&mut r) {
            let res = decompress_range(be.as_ref(), &Default::default(), &mut r, &ix, 0, 10_000, Vec::new(), &mut |_| {});
            assert!(res.is_err(), "flip at {at} went unnoticed");
        }
    }
}

/// Peak resident memory of a CLI run does not grow with the field: a 128 MiB field in
/// 4 MiB chunks peaks within a few chunks of what an 8 MiB field does (lavapipe's
/// device memory is host memory too, so device buffers count).
#[test]
fn cli_streams_with_bounded_memory() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("fzwgpu-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = &fzwgpu_bin();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(bin).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let peak_kb = |log: &str| -> u64 {
        let at = log.find("peak resident ").expect("peak resident in the summary") + "peak resident ".len();
        log[at..].split_whitespace().next().unwrap().parse().unwrap()
    };
    let mut peaks = Vec::new();
    for nz in [4u64, 64] {
        let (nx, ny) = (1024u64, 512u64); // 2 MiB per plane
        let input = dir.join(format!("f{nz}.f32"));
        {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
            let mut row = vec![0f32; nx as usize];
            for j in 0..ny * nz {
                for (i, x) in row.iter_mut().enumerate() {
                    *x = ((i as f32) * 0.01).sin() * ((j as f32) * 0.003).cos() * 100.0;
                }
                w.write_all(&f32_bytes(&row)).unwrap();
            }
        }
        let arch = dir.join(format!("f{nz}.fzms"));
        let out = dir.join(format!("f{nz}.out"));
        let dims = format!("{nx}x{ny}x{nz}");
        let c = run(&[
            "compress",
            "-i",
            input.to_str().unwrap(),
            "-o",
            arch.to_str().unwrap(),
            "--dims",
            &dims,
            "--preset",
            "szx",
            "--eb",
            "1e-3",
            "--mode",
            "noa",
            "--chunk-size",
            "4M",
            "--backend",
            "wgpu",
        ]);
        let d = run(&["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", "wgpu"]);
        eprintln!("{c}{d}");
        assert_eq!(std::fs::metadata(&out).unwrap().len(), nx * ny * nz * 4);
        peaks.push((peak_kb(&c), peak_kb(&d)));
    }
    let ((c0, d0), (c1, d1)) = (peaks[0], peaks[1]);
    // 16x the field, at most 6 more chunks (24 MiB) of peak memory
    assert!(c1 < c0 + 24 * 1024 && d1 < d0 + 24 * 1024, "peak resident KiB: 8 MiB field {c0}/{d0}, 128 MiB field {c1}/{d1}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn boxes_decode_from_the_chunks_they_cross() {
    use fzwgpu::stream::{decompress_box, FieldBox};
    let be = cpu();
    let eb = ErrorBound::new(ErrorMode::Abs, 0.01).unwrap();
    for (dims, chunk, spec) in [
        (Dims::new(40, 30, 25).unwrap(), 3 * 40 * 30 * 4, "5:17,3:29,4:19"),
        (Dims::new(40, 30, 25).unwrap(), 3 * 40 * 30 * 4, "0:40,0:30,24:25"),
        (Dims::new(90, 70, 1).unwrap(), 9 * 90 * 4, "10:11,2:69"),
        (Dims::d1(5000).unwrap(), 700 * 4, "650:2150"),
    ] {
        let v = values(dims.len() as usize);
        let bytes = f32_bytes(&v);
        let mut out = Vec::new();
        stream_into(be.as_ref(), "szp_centered", eb, &bytes, &mut out, DataType::F32, dims, chunk as u64, None).unwrap();
        let mut r = Cursor::new(out);
        let ix = read_index(&mut r).unwrap();
        let mut all = Vec::new();
        decompress_range(be.as_ref(), &Default::default(), &mut r, &ix, 0, dims.len(), &mut all, &mut |_| {}).unwrap();
        let b = FieldBox::parse(spec, dims).unwrap();
        let mut got = Vec::new();
        let n = decompress_box(be.as_ref(), &Default::default(), &mut r, &ix, b, &mut got, &mut |_| {}).unwrap();
        assert_eq!(n, b.len() * 4);
        let mut want = Vec::new();
        for z in b.z.0..b.z.1 {
            for y in b.y.0..b.y.1 {
                let row = ((z * dims.y + y) * dims.x) as usize;
                want.extend_from_slice(&all[(row + b.x.0 as usize) * 4..(row + b.x.1 as usize) * 4]);
            }
        }
        assert!(got == want, "{dims} box {spec}");
    }
    assert!(FieldBox::parse("5:3,0:1", Dims::new(10, 10, 1).unwrap()).is_err());
    assert!(FieldBox::parse("0:11", Dims::new(10, 10, 1).unwrap()).is_err());
}

#[test]
fn pipes_in_and_out() {
    use std::io::Write;
    let dims = Dims::new(64, 40, 9).unwrap();
    let v = values(dims.len() as usize);
    let bytes = f32_bytes(&v);
    let be = cpu();
    let eb = ErrorBound::new(ErrorMode::Abs, 0.02).unwrap();
    let mut out = Vec::new();
    stream_into(be.as_ref(), "szp_composed", eb, &bytes, &mut out, DataType::F32, dims, 2 * 64 * 40 * 4, None).unwrap();
    // sequential decode (no seeking) equals the indexed decode
    let mut seq = Vec::new();
    let h = fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &out[..], &mut seq, &mut |_| {}).unwrap();
    assert_eq!(h.dims, dims);
    let mut r = Cursor::new(out.clone());
    let ix = read_index(&mut r).unwrap();
    let mut all = Vec::new();
    decompress_range(be.as_ref(), &Default::default(), &mut r, &ix, 0, dims.len(), &mut all, &mut |_| {}).unwrap();
    assert!(seq == all);
    // a damaged tail or trailing bytes are caught by the sequential reader too
    let mut bad = out.clone();
    let last = bad.len() - 40;
    bad[last] ^= 1;
    assert!(fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &bad[..], Vec::new(), &mut |_| {}).is_err());
    // cut anywhere (inside the header, a chunk's header, a chunk): a corrupt stream
    for cut in [10, 70, out.len() / 2] {
        let e = fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &out[..cut], Vec::new(), &mut |_| {});
        assert!(matches!(&e, Err(Error::Corrupt(m)) if m.contains("ends inside")), "cut at {cut}: {e:?}");
    }
    let mut longer = out.clone();
    longer.push(0);
    assert!(fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &longer[..], Vec::new(), &mut |_| {}).is_err());
    // the CLI: standard input to a stream and back through a pipe
    let dir = std::env::temp_dir().join(format!("fzwgpu-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (arch, back) = (dir.join("p.fzms"), dir.join("p.out"));
    let bin = &fzwgpu_bin();
    let pipe = |args: &[&str], input: &[u8]| {
        let mut c = std::process::Command::new(bin)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let _ = c.stdin.take().unwrap().write_all(input); // a refusing run may exit before reading
        let o = c.wait_with_output().unwrap();
        (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (ok, e) = pipe(
        &[
            "compress",
            "-i",
            "-",
            "-o",
            arch.to_str().unwrap(),
            "--dims",
            "64x40x9",
            "--preset",
            "szx",
            "--eb",
            "0.02",
            "--chunk-size",
            "40K",
            "--backend",
            "cpu",
        ],
        &bytes,
    );
    assert!(ok, "{e}");
    let (ok, e) = pipe(&["decompress", "-i", "-", "-o", back.to_str().unwrap(), "--backend", "cpu"], &std::fs::read(&arch).unwrap());
    assert!(ok, "{e}");
    let (_, badv) = check_f32(&v, &f32_from(&std::fs::read(&back).unwrap()), 0.02);
    assert_eq!(badv, 0);
    // NOA from a pipe: standard input of at most --chunk-size is read into memory and
    // its range scanned there; it decodes to the same values as the single archive of
    // the same field from a file, and holds the bound of the whole field's range
    let file = dir.join("p.f32");
    std::fs::write(&file, &bytes).unwrap();
    let noa = ["--dims", "64x40x9", "--eb", "1e-3", "--mode", "noa", "--backend", "cpu"];
    let (ok, e) = pipe(&[&["compress", "-i", "-", "-o", arch.to_str().unwrap()][..], &noa[..]].concat(), &bytes);
    assert!(ok, "{e}");
    let (ok, e) = pipe(&["decompress", "-i", "-", "-o", back.to_str().unwrap(), "--backend", "cpu"], &std::fs::read(&arch).unwrap());
    assert!(ok, "{e}");
    let from_stdin = std::fs::read(&back).unwrap();
    let single = dir.join("p.fzm");
    let (ok, e) = pipe(&[&["compress", "-i", file.to_str().unwrap(), "-o", single.to_str().unwrap()][..], &noa[..]].concat(), &[]);
    assert!(ok, "{e}");
    let (ok, e) = pipe(&["decompress", "-i", single.to_str().unwrap(), "-o", back.to_str().unwrap(), "--backend", "cpu"], &[]);
    assert!(ok, "{e}");
    assert!(from_stdin == std::fs::read(&back).unwrap(), "NOA from standard input decodes differently from the file's archive");
    let (lo, hi) = v.iter().filter(|x| x.is_finite()).fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x as f64), b.max(x as f64)));
    assert_eq!(check_f32(&v, &f32_from(&from_stdin), 1e-3 * (hi - lo)).1, 0);
    // shorter or longer than its dims: the stream's own input errors
    let (ok, e) = pipe(&[&["compress", "-i", "-", "-o", arch.to_str().unwrap()][..], &noa[..]].concat(), &bytes[..bytes.len() - 4]);
    assert!(!ok && e.contains("the input ends within values"), "{e}");
    let (ok, e) = pipe(&[&["compress", "-i", "-", "-o", arch.to_str().unwrap()][..], &noa[..]].concat(), &[&bytes[..], &[0u8; 4]].concat());
    assert!(!ok && e.contains("holds more than"), "{e}");
    // longer than --chunk-size: refused with a clear message
    let (ok, e) = pipe(&[&["compress", "-i", "-", "-o", arch.to_str().unwrap(), "--chunk-size", "40K"][..], &noa[..]].concat(), &bytes);
    assert!(!ok && e.contains("--chunk-size") && e.contains("--mode abs"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn constant_and_non_finite_fields_stream_losslessly_under_noa() {
    let be = cpu();
    let dims = Dims::new(30, 20, 7).unwrap();
    let noa = ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap();
    for v in [vec![2.5f32; 4200], (0..4200).map(|i| if i % 2 == 0 { f32::NAN } else { f32::INFINITY }).collect::<Vec<_>>()] {
        let bytes = f32_bytes(&v);
        let range = scan_range(Cursor::new(&bytes), DataType::F32, dims.len()).unwrap();
        for preset in ["szx", "szp_centered"] {
            let mut out = Vec::new();
            let s = stream_into(be.as_ref(), preset, noa, &bytes, &mut out, DataType::F32, dims, 2 * 600 * 4, Some(range)).unwrap();
            assert_eq!(s.abs_bound, 0.0);
            let mut back = Vec::new();
            fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &out[..], &mut back, &mut |_| {}).unwrap();
            assert!(back == bytes, "{preset}: bit-exact");
        }
    }
}

#[test]
fn float64_streams() {
    let be = gpu();
    let dims = Dims::new(33, 21, 10).unwrap();
    let v: Vec<f64> = (0..dims.len() as usize).map(|i| (i as f64 * 0.003).sin() * 1e6 + if i == 5 { f64::NAN } else { 0.0 }).collect();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let noa = ErrorBound::new(ErrorMode::Noa, 1e-4).unwrap();
    let range = scan_range(Cursor::new(&bytes), DataType::F64, dims.len()).unwrap();
    for preset in ["szx", "szp_composed"] {
        let mut out = Vec::new();
        let s = stream_into(be.as_ref(), preset, noa, &bytes, &mut out, DataType::F64, dims, 3 * 33 * 21 * 8, Some(range)).unwrap();
        assert_eq!(s.chunks, 4);
        let mut back = Vec::new();
        fzwgpu::stream::decompress_sequential(be.as_ref(), &Default::default(), &out[..], &mut back, &mut |_| {}).unwrap();
        let (_, bad) = check_f64(&v, &f64_from(&back), s.abs_bound);
        assert_eq!(bad, 0, "{preset}");
    }
}
