//! The pipeline API: building a DAG from code, finalize's checks, bound overrides,
//! the constant-block fraction, pool reuse across runs.

mod common;
use common::*;
use fzwgpu::pipeline::Pipeline;
use fzwgpu::recording::Recorder;
use fzwgpu::stages::szx::{SzxConfig, SzxStage};
use fzwgpu::stages::{PortData, PortSpec, RunOptions, Stage};
use fzwgpu::{DataType, Dims, Error, ErrorBound, ErrorMode, Field};

/// A do-nothing stage with configurable port types, for graph checks.
struct Mock {
    ins: Vec<DataType>,
    outs: Vec<DataType>,
}
impl Stage for Mock {
    fn type_id(&self) -> u16 {
        4
    }
    fn type_name(&self) -> &'static str {
        "Mock"
    }
    fn inputs(&self) -> Vec<PortSpec> {
        self.ins.iter().enumerate().map(|(i, d)| PortSpec::new(&format!("in{i}"), *d)).collect()
    }
    fn outputs(&self) -> Vec<PortSpec> {
        self.outs.iter().enumerate().map(|(i, d)| PortSpec::new(&format!("out{i}"), *d)).collect()
    }
    fn output_upper_bounds(&self, b: &[u64]) -> Vec<u64> {
        b.to_vec()
    }
    fn record_forward(&mut self, _: &mut Recorder, i: &[PortData], _: &RunOptions) -> fzwgpu::Result<Vec<PortData<'static>>> {
        Ok(i.iter().map(PortData::without_host).collect())
    }
    fn record_inverse(&mut self, _: &mut Recorder, i: &[PortData], _: &RunOptions) -> fzwgpu::Result<Vec<PortData<'static>>> {
        Ok(i.iter().map(PortData::without_host).collect())
    }
    fn config_bytes(&self) -> Vec<u8> {
        vec![]
    }
    fn describe(&self) -> Vec<(String, String)> {
        vec![]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

fn mock(ins: &[DataType], outs: &[DataType]) -> Box<dyn Stage> {
    Box::new(Mock { ins: ins.to_vec(), outs: outs.to_vec() })
}

#[test]
fn api_roundtrip_and_constant_fraction() {
    // the README's API example
    let backend = fzwgpu::backend::open(&fzwgpu::BackendChoice::Auto).unwrap();
    let dims = Dims::new(512, 256, 1).unwrap();
    let values: Vec<f32> = (0..dims.len()).map(|i| if i < 60_000 { 1.0 } else { (i as f32 * 1e-3).sin() }).collect();
    let field = Field::from_f32(dims, &values).unwrap();
    let mut p = Pipeline::new();
    let szx = p
        .add_stage(
            "szx",
            Box::new(
                SzxStage::new(SzxConfig { block_size: 128, bound: ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap(), ..Default::default() })
                    .unwrap(),
            ),
        )
        .unwrap();
    p.set_primary_source(szx).unwrap();
    let c = p.compress(backend.as_ref(), &field).unwrap();
    let s = p.stage(szx).unwrap().as_any().downcast_ref::<SzxStage>().unwrap();
    let frac = s.constant_block_fraction().unwrap();
    assert!(frac > 0.4 && frac < 0.6, "constant fraction {frac}");
    assert!(c.report.notes.iter().any(|(_, n)| n.starts_with("constant_block_fraction=")));
    let d = fzwgpu::decompress(backend.as_ref(), &c.bytes, &RunOptions::default()).unwrap();
    assert_eq!(d.field.dims, dims);
    assert_eq!(check_f32(&values, &f32_from(&d.field.bytes), c.report.bounds[0].1).1, 0);
}

#[test]
fn finalize_rejects_bad_graphs() {
    // type mismatch
    let mut p = Pipeline::new();
    let a = p.add_stage("a", mock(&[DataType::F32], &[DataType::U8])).unwrap();
    let b = p.add_stage("b", mock(&[DataType::F32], &[DataType::U8])).unwrap();
    p.connect(a, None, b, 0).unwrap();
    assert!(matches!(p.finalize(), Err(Error::Pipeline(m)) if m.contains("mismatch")));
    // UNKNOWN opts out
    let mut p = Pipeline::new();
    let a = p.add_stage("a", mock(&[DataType::F32], &[DataType::Unknown])).unwrap();
    let b = p.add_stage("b", mock(&[DataType::F32], &[DataType::U8])).unwrap();
    p.connect(a, None, b, 0).unwrap();
    p.finalize().unwrap();
    // cycle
    let mut p = Pipeline::new();
    let a = p.add_stage("a", mock(&[DataType::F32, DataType::U8], &[DataType::U8])).unwrap();
    let b = p.add_stage("b", mock(&[DataType::U8], &[DataType::U8])).unwrap();
    p.bind_external_input(a, 0).unwrap();
    p.connect(b, None, a, 1).unwrap();
    p.connect(a, None, b, 0).unwrap();
    assert!(matches!(p.finalize(), Err(Error::Pipeline(m)) if m.contains("cycle")));
    // unconnected second input
    let mut p = Pipeline::new();
    let a = p.add_stage("a", mock(&[DataType::F32, DataType::U8], &[DataType::U8])).unwrap();
    p.bind_external_input(a, 0).unwrap();
    assert!(matches!(p.finalize(), Err(Error::Pipeline(m)) if m.contains("not connected")));
    // unknown port, duplicate names, empty pipeline, bad primary
    let mut p = Pipeline::new();
    let a = p.add_stage("a", mock(&[DataType::F32], &[DataType::U8])).unwrap();
    let b = p.add_stage("b", mock(&[DataType::U8], &[DataType::U8])).unwrap();
    assert!(p.connect(a, Some("nope"), b, 0).is_err());
    assert!(p.add_stage("a", mock(&[], &[])).is_err());
    assert!(Pipeline::new().finalize().is_err());
    p.connect(a, Some("out0"), b, 0).unwrap();
    p.set_primary_source(b).unwrap();
    assert!(matches!(p.finalize(), Err(Error::Pipeline(m)) if m.contains("primary")));
}

#[test]
fn bound_override_needs_a_lossy_stage() {
    let mut p = Pipeline::new();
    p.add_stage("a", mock(&[DataType::F32], &[DataType::U8])).unwrap();
    assert!(p.override_bound(ErrorBound::new(ErrorMode::Abs, 1.0).unwrap()).is_err());
    let mut p = Pipeline::from_preset("szx").unwrap();
    assert_eq!(p.override_bound(ErrorBound::new(ErrorMode::Rel, 1e-2).unwrap()).unwrap(), 1);
}

#[test]
fn repeated_runs_reuse_the_pool_and_stay_identical() {
    let v: Vec<f32> = (0..200_000).map(|i| (i as f32 * 1e-3).cos()).collect();
    let f = Field::from_f32(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    for (_, be) in backends() {
        let mut p = Pipeline::from_preset("szx").unwrap();
        let first = p.compress(be.as_ref(), &f).unwrap().bytes;
        for _ in 0..20 {
            let c = p.compress(be.as_ref(), &f).unwrap();
            assert!(c.bytes == first);
            let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
            assert_eq!(d.field.bytes.len(), v.len() * 4);
        }
    }
}

#[test]
fn dtype_follows_the_field() {
    // the szx preset declares float32; an f64 field switches the stage to float64
    let v: Vec<f64> = (0..10_000).map(|i| (i as f64).sqrt()).collect();
    let f = Field::from_f64(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    let mut p = Pipeline::from_preset("szx").unwrap();
    let c = p.compress(cpu().as_ref(), &f).unwrap();
    let d = fzwgpu::decompress(cpu().as_ref(), &c.bytes, &Default::default()).unwrap();
    assert_eq!(d.field.dtype, DataType::F64);
    assert_eq!(check_f64(&v, &f64_from(&d.field.bytes), 1e-3).1, 0);
}

#[test]
fn float64_falls_back_to_cpu_without_shader_f64() {
    let v: Vec<f64> = (0..50_000).map(|i| (i as f64 * 1e-3).sin() * 1e5).collect();
    let f = Field::from_f64(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    let g = gpu_plain();
    assert!(!g.info().shader_f64 && !g.info().subgroups);
    let mut p = Pipeline::from_preset("szx").unwrap();
    let c = p.compress(g.as_ref(), &f).unwrap();
    assert!(c.report.notes.iter().any(|(_, n)| n.starts_with("fallback=cpu")), "{:?}", c.report.notes);
    let mut p2 = Pipeline::from_preset("szx").unwrap();
    assert!(p2.compress(cpu().as_ref(), &f).unwrap().bytes == c.bytes);
    // float32 still runs on the GPU, with the shared-memory scan
    let f32f = Field::from_f32(Dims::d1(50_000).unwrap(), &v.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap();
    let c = Pipeline::from_preset("szx").unwrap().compress(g.as_ref(), &f32f).unwrap();
    assert_eq!(c.report.backend, "wgpu");
    let c2 = Pipeline::from_preset("szx").unwrap().compress(cpu().as_ref(), &f32f).unwrap();
    assert!(c.bytes == c2.bytes);
}

/// Check one report's wall-time split: every phase once, finite and not negative; the
/// host sub-phases `subs` fit in the host time; the four main phases make up the wall
/// time; no other phases than those, host.alloc and the main four.
fn check_phases(what: &str, report: &fzwgpu::RunReport, subs: &[&str]) {
    let get = |k: &str| {
        let hits: Vec<f64> = report.phases.iter().filter(|(n, _)| n == k).map(|(_, s)| *s).collect();
        assert_eq!(hits.len(), 1, "{what}: phase {k} once");
        assert!(hits[0].is_finite() && hits[0] >= 0.0, "{what}: phase {k} = {}", hits[0]);
        hits[0]
    };
    let main = ["upload", "device", "download", "host"].map(get).iter().sum::<f64>();
    let wall = report.wall_seconds;
    assert!((main - wall).abs() <= 1e-6 + 1e-9 * wall.max(1.0), "{what}: phases {main} s, wall {wall} s");
    let sum = subs.iter().map(|k| get(k)).sum::<f64>();
    assert!(sum <= get("host") + 1e-6, "{what}: host sub-phases {sum} s, host {} s", get("host"));
    get("host.alloc");
    assert_eq!(report.phases.len(), subs.len() + 5, "{what}: {:?}", report.phases);
}

/// The reports' wall-time split, compression and decompression: the host sub-phases
/// that cannot overlap the upload, the submissions or the download fit in the host
/// time, and the four main phases make up the wall time.
#[test]
fn phases_split_the_wall_time() {
    let v: Vec<f32> = (0..300_000).map(|i| (i as f32 * 1e-3).sin()).collect();
    let f = Field::from_f32(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    for (name, be) in backends() {
        for preset in ["szx", "szp_centered"] {
            let mut p = Pipeline::from_preset(preset).unwrap();
            let c = p.compress(be.as_ref(), &f).unwrap();
            let subs = ["host.setup", "host.record", "host.finish", "host.coding", "host.archive", "host.release"];
            check_phases(&format!("{name} {preset} compress"), &c.report, &subs);
            let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
            let subs = ["host.parse", "host.verify", "host.record", "host.release"];
            check_phases(&format!("{name} {preset} decompress"), &d.report, &subs);
        }
    }
}

/// `decompress_into` writes what `decompress` returns into the caller's buffer, with
/// the field's type and dims; a buffer of another size is a typed input error.
#[test]
fn decompress_into_matches_decompress() {
    let be = gpu();
    let dims = Dims::new(300, 70, 1).unwrap();
    let v: Vec<f32> = (0..dims.len() as usize).map(|i| ((i % 300) as f32 * 0.02).sin() * ((i / 300) as f32 * 0.05).cos() * 7.0).collect();
    let f = Field::from_f32(dims, &v).unwrap();
    for preset in ["szx", "szp_composed"] {
        let c = noa_pipeline(preset).compress(be.as_ref(), &f).unwrap();
        let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
        let mut out = vec![0xA5u8; f.bytes.len()];
        let di = fzwgpu::decompress_into(be.as_ref(), &c.bytes, &Default::default(), &mut out).unwrap();
        assert_eq!(out, d.field.bytes, "{preset}");
        assert_eq!((di.dtype, di.dims), (DataType::F32, dims), "{preset}");
        for len in [f.bytes.len() - 4, f.bytes.len() + 4, 0] {
            let mut short = vec![0u8; len];
            match fzwgpu::decompress_into(be.as_ref(), &c.bytes, &Default::default(), &mut short) {
                Err(Error::Input(m)) => assert!(m.contains("output buffer"), "{m}"),
                other => panic!("{preset}: a {len}-byte buffer: {:?}", other.map(|d| d.dims)),
            }
        }
    }
}

/// `compress_into` writes the bytes `compress` returns, whatever the reused buffer
/// held (longer, shorter, with spare capacity, empty), for a preset whose archive is
/// read straight into place and one coded on the host.
#[test]
fn compress_into_reuses_memory_and_writes_the_same_archive() {
    let be = gpu();
    let dims = Dims::new(300, 70, 1).unwrap();
    let v: Vec<f32> = (0..dims.len() as usize).map(|i| ((i % 300) as f32 * 0.02).sin() * ((i / 300) as f32 * 0.05).cos() * 7.0).collect();
    let f = Field::from_f32(dims, &v).unwrap();
    for preset in ["szx", "szp_centered", "sperr_gpu"] {
        let want = noa_pipeline(preset).compress(be.as_ref(), &f).unwrap().bytes;
        let n = want.len();
        let mut spare = Vec::with_capacity(2 * n);
        spare.extend(std::iter::repeat_n(0xCDu8, n / 2));
        for (what, mut out) in
            [("empty", Vec::new()), ("longer", vec![0xABu8; 2 * n]), ("shorter", vec![0x5Au8; n / 3]), ("spare capacity", spare)]
        {
            let reused = out.capacity() >= n;
            let ptr = out.as_ptr();
            noa_pipeline(preset).compress_into(be.as_ref(), &f, &mut out).unwrap();
            assert!(out == want, "{preset}, {what} buffer: a different archive");
            if reused && preset != "sperr_gpu" {
                assert_eq!(out.as_ptr(), ptr, "{preset}, {what} buffer: not reused");
            }
        }
    }
}

/// `RunOptions::timing_preheat_ms`: untimed replays run before the timed ones (at
/// least that much device time, or twice it of wall time, per submission, unless
/// `PREHEAT_MAX_SUBMISSIONS` of them come first: on the H100 through CUDA a
/// submission of this small field took under 0.15 ms, round 28), and the archive is
/// the one of a plain run.
#[test]
fn timing_preheat_runs_before_the_timed_replays() {
    let v: Vec<f32> = (0..200_000).map(|i| (i as f32 * 1e-3).cos()).collect();
    let f = Field::from_f32(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    let be = gpu();
    // (bench pre-heats by default only where the adapter is not the CPU: lavapipe is)
    assert_eq!(be.info().software, be.info().adapter.to_lowercase().contains("llvmpipe"), "{:?}", be.info().adapter);
    assert!(fzwgpu::Backend::info(&fzwgpu::backend::cpu::CpuBackend::new()).software);
    let mut p = Pipeline::from_preset("szx").unwrap();
    let plain = p.compress(be.as_ref(), &f).unwrap();
    assert_eq!(plain.report.preheat_submissions, 0);
    let plain = plain.bytes;
    for batched in [true, false] {
        p.options.timing_replays = 2;
        p.options.timing_batched = batched;
        p.options.timing_preheat_ms = 150;
        let t = std::time::Instant::now();
        let c = p.compress(be.as_ref(), &f).unwrap();
        let took = t.elapsed();
        assert!(c.bytes == plain, "replays and pre-heat leave the archive unchanged");
        assert!(c.report.kernel_seconds.is_some_and(|s| s > 0.0));
        let heats = c.report.preheat_submissions;
        // (on a CPU adapter a submission can itself take the pre-heat's 150 ms, which
        // count towards it: llvmpipe through GL in CI)
        assert!(heats > 0 || be.info().software, "batched {batched}: no pre-heat submission");
        assert!(
            took >= std::time::Duration::from_millis(150) || heats >= fzwgpu::recording::PREHEAT_MAX_SUBMISSIONS,
            "batched {batched}: {took:?} after {heats} pre-heat submissions"
        );
    }
}

#[test]
fn subgroup_layout_is_checked_and_a_failed_check_turns_subgroups_off() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::Backend;
    // the adapter's subgroups were checked when the device opened (lavapipe: 8 lanes)
    let g = gpu();
    if g.info().subgroups {
        assert!(g.info().subgroup_layout.starts_with("checked: "), "{}", g.info().subgroup_layout);
    }
    // a failed check: the variants without subgroups run, with the same archives
    let be = WgpuBackend::new(&WgpuOptions { fail_subgroup_layout: true, ..Default::default() }).expect("wgpu adapter");
    assert!(!be.info().subgroups && be.info().subgroup_max == 0);
    if g.info().subgroups {
        assert!(be.info().subgroup_layout.starts_with("subgroups off: "), "{}", be.info().subgroup_layout);
    }
    let v: Vec<f32> = (0..300_001).map(|i| ((i as f32) * 1e-3).sin() * 50.0 + (i % 7) as f32).collect();
    let f = Field::from_f32(Dims::new(601, 499, 1).unwrap(), &v[..601 * 499]).unwrap();
    // and the adapter as the check left it (scripts/test.sh also runs this test on
    // lavapipe at 1024 bits, whose subgroups of 32 run 16 active in Mesa 22.3)
    for preset in ["szx", "szp_composed", "szp_centered"] {
        let b = Pipeline::from_preset(preset).unwrap().compress(cpu().as_ref(), &f).unwrap();
        let field = fzwgpu::decompress(cpu().as_ref(), &b.bytes, &Default::default()).unwrap().field.bytes;
        for (what, be) in [("without subgroups", &be as &dyn Backend), ("as checked", g.as_ref())] {
            let a = Pipeline::from_preset(preset).unwrap().compress(be, &f).unwrap();
            assert_eq!(a.report.backend, "wgpu");
            assert!(a.bytes == b.bytes, "{preset} {what}: the archive differs from the cpu backend's");
            let d = fzwgpu::decompress(be, &a.bytes, &Default::default()).unwrap();
            assert!(d.field.bytes == field, "{preset} {what}: the reconstruction differs from the cpu backend's");
        }
    }
}
