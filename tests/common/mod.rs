//! Shared test helpers: backends (the GPU one must exist: a missing adapter fails the
//! test, it never skips), data generators, and an independent f64 bound checker.
#![allow(dead_code)]

use fzwgpu::backend::cpu::CpuBackend;
use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
use fzwgpu::backend::Backend;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The device backend under test: wgpu by default; `FZWGPU_TEST_BACKEND=cuda` runs the
/// same suite on the CUDA backend (a build with `--features cuda`). Fails (panics) when
/// no adapter is found; when WGPU_BACKEND is set to vulkan (or gl), asserts that the
/// wgpu adapter really is a Vulkan (GL) one.
pub fn gpu() -> Arc<dyn Backend> {
    static GPU: OnceLock<Arc<dyn Backend>> = OnceLock::new();
    let b = GPU.get_or_init(|| {
        let want = std::env::var("FZWGPU_TEST_BACKEND").unwrap_or_else(|_| "wgpu".into());
        let b: Arc<dyn Backend> = match want.as_str() {
            "wgpu" => Arc::new(WgpuBackend::new(&WgpuOptions::default()).unwrap_or_else(|e| {
                panic!("GPU tests need a wgpu adapter (CI uses lavapipe: apt-get install mesa-vulkan-drivers libvulkan1): {e}")
            })),
            "cuda" => cuda_backend(),
            other => panic!("FZWGPU_TEST_BACKEND={other}: expected wgpu or cuda"),
        };
        let i = b.info();
        eprintln!(
            "GPU test adapter: {} | {} | {} | f64={} subgroups={} timestamps={}",
            i.adapter, i.api, i.driver, i.shader_f64, i.subgroups, i.timestamps
        );
        if want == "cuda" {
            assert_eq!(i.api, "CUDA");
        } else {
            assert_wgpu_api(i);
        }
        b
    });
    b.clone()
}

/// Asserts that a wgpu adapter runs the API that WGPU_BACKEND names (vulkan or gl;
/// nothing when it is unset), whichever backend FZWGPU_TEST_BACKEND picks for `gpu()`.
pub fn assert_wgpu_api(i: &fzwgpu::backend::BackendInfo) {
    let wanted = std::env::var("WGPU_BACKEND").unwrap_or_default().to_ascii_lowercase();
    if wanted == "vulkan" {
        assert_eq!(i.api, "Vulkan", "WGPU_BACKEND=vulkan but the adapter is {}", i.api);
        // the kernel tests leave out float64 variants on adapters without SHADER_F64
        // (GL's); every Vulkan adapter we test on has it, so none is left out there
        assert!(i.shader_f64, "Vulkan adapter {} without SHADER_F64", i.adapter);
    } else if wanted == "gl" {
        assert_eq!(i.api, "Gl", "WGPU_BACKEND=gl but the adapter is {}", i.api);
    }
}

#[cfg(feature = "cuda")]
fn cuda_backend() -> Arc<dyn Backend> {
    Arc::new(
        fzwgpu::backend::cuda::CudaBackend::new(&Default::default())
            .unwrap_or_else(|e| panic!("FZWGPU_TEST_BACKEND=cuda needs a CUDA device and NVRTC: {e}")),
    )
}

#[cfg(not(feature = "cuda"))]
fn cuda_backend() -> Arc<dyn Backend> {
    panic!("FZWGPU_TEST_BACKEND=cuda needs a build with --features cuda")
}

/// The `fzwgpu` binary the CLI tests run: `FZWGPU_BIN`, else the one cargo built
/// (so test binaries carried to another machine can point at a carried binary).
pub fn fzwgpu_bin() -> String {
    std::env::var("FZWGPU_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_fzwgpu").to_string())
}

pub fn cpu() -> Arc<dyn Backend> {
    Arc::new(CpuBackend::new())
}

/// Both backends, named.
pub fn backends() -> Vec<(&'static str, Arc<dyn Backend>)> {
    vec![("cpu", cpu()), ("wgpu", gpu())]
}

/// `../shared/data` next to the repository (CI has it).
pub fn data_dir() -> PathBuf {
    let d = match std::env::var_os("FZWGPU_DATA_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join("data"),
    };
    assert!(d.is_dir(), "test data folder {} is missing", d.display());
    d
}

/// (name, dims fastest-first, values) of every real field.
pub fn real_fields() -> Vec<(String, fzwgpu::Dims, Vec<f32>)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(data_dir()).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.extension().and_then(|e| e.to_str()) != Some("f32") {
            continue;
        }
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        // trailing _AxBxC is slowest-first in the data README; our dims are fastest-first
        let dimstr = stem.rsplit('_').next().unwrap();
        let mut d: Vec<u64> = dimstr.split('x').map(|s| s.parse().unwrap()).collect();
        d.reverse();
        let dims: fzwgpu::Dims = d.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("x").parse().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let v: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert_eq!(v.len() as u64, dims.len(), "{stem}");
        out.push((stem, dims, v));
    }
    assert!(out.len() >= 10, "expected the shared data fields");
    out
}

/// Independent bound check in f64: returns (max |x - x'| over finite x, violations).
/// Non-finite inputs must come back bit-identical.
pub fn check_bound_f64(orig: &[f64], orig_bits: &[u64], recon: &[f64], recon_bits: &[u64], eb: f64) -> (f64, usize) {
    assert_eq!(orig.len(), recon.len());
    let mut max = 0f64;
    let mut bad = 0;
    for i in 0..orig.len() {
        if !orig[i].is_finite() {
            if orig_bits[i] != recon_bits[i] {
                bad += 1;
            }
            continue;
        }
        let e = (orig[i] - recon[i]).abs();
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // a NaN error counts as a violation
        if !(e <= eb) {
            bad += 1;
        }
        if e > max || e.is_nan() {
            max = if e.is_nan() { f64::INFINITY } else { e };
        }
    }
    (max, bad)
}

/// Check f32 data: differences computed exactly in f64.
pub fn check_f32(orig: &[f32], recon: &[f32], eb: f64) -> (f64, usize) {
    let o: Vec<f64> = orig.iter().map(|&x| x as f64).collect();
    let r: Vec<f64> = recon.iter().map(|&x| x as f64).collect();
    let ob: Vec<u64> = orig.iter().map(|x| x.to_bits() as u64).collect();
    let rb: Vec<u64> = recon.iter().map(|x| x.to_bits() as u64).collect();
    check_bound_f64(&o, &ob, &r, &rb, eb)
}

/// Check f64 data. The difference of two f64 values is rounded; to stay exact the
/// check compares x' against x - eb and x + eb computed with an error term.
pub fn check_f64(orig: &[f64], recon: &[f64], eb: f64) -> (f64, usize) {
    let ob: Vec<u64> = orig.iter().map(|x| x.to_bits()).collect();
    let rb: Vec<u64> = recon.iter().map(|x| x.to_bits()).collect();
    let (max, mut bad) = check_bound_f64(orig, &ob, recon, &rb, eb);
    // exact re-check of elements whose rounded error is within one ulp of eb
    for i in 0..orig.len() {
        if !orig[i].is_finite() {
            continue;
        }
        let e = (orig[i] - recon[i]).abs();
        if e <= eb && e >= eb * (1.0 - 4.0 * f64::EPSILON) && !exact_within(orig[i], recon[i], eb) {
            bad += 1;
        }
    }
    (max, bad)
}

/// |a - b| <= eb decided exactly (two-sum of a - b).
pub fn exact_within(a: f64, b: f64, eb: f64) -> bool {
    let s = a - b;
    let bb = s - a;
    let err = (a - (s - bb)) + (-b - bb);
    // exact difference = s + err
    let abs_s = s.abs();
    if abs_s < eb {
        return true;
    }
    if abs_s > eb {
        return false;
    }
    // abs_s == eb: within iff err moves toward zero or is zero
    err == 0.0 || (err < 0.0) == (s > 0.0)
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn f32_from(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
pub fn f64_from(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Deterministic xorshift generator.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// uniform in [0, 1)
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Range (max - min) of finite values.
pub fn range_f64(v: &[f64]) -> f64 {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for &x in v {
        if x.is_finite() {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if hi >= lo {
        hi - lo
    } else {
        0.0
    }
}

/// A second wgpu backend on the same adapter with subgroups and float64 turned off:
/// exercises the shared-memory kernel variants and the float64 cpu fallback.
pub fn gpu_plain() -> Arc<dyn Backend> {
    static G: OnceLock<Arc<WgpuBackend>> = OnceLock::new();
    G.get_or_init(|| {
        Arc::new(WgpuBackend::new(&WgpuOptions { no_f64: true, no_subgroups: true, ..Default::default() }).expect("wgpu adapter"))
    })
    .clone()
}

/// A second wgpu backend on the same adapter with the CUDA-tuned kernel variants
/// (`Variant::coalesce`), so that CI checks them through lavapipe.
pub fn gpu_coalesce() -> Arc<dyn Backend> {
    static G: OnceLock<Arc<WgpuBackend>> = OnceLock::new();
    G.get_or_init(|| Arc::new(WgpuBackend::new(&WgpuOptions { coalesce: Some(true), ..Default::default() }).expect("wgpu adapter"))).clone()
}

/// A preset with every bound set to NOA 1e-3.
pub fn noa_pipeline(preset: &str) -> fzwgpu::Pipeline {
    let mut p = fzwgpu::Pipeline::from_preset(preset).unwrap();
    p.override_bound(fzwgpu::ErrorBound::new(fzwgpu::ErrorMode::Noa, 1e-3).unwrap()).unwrap();
    p
}

/// The fault tests' field: 400 x 500 float32 with one NaN.
pub fn fault_field() -> fzwgpu::Field {
    let v: Vec<f32> = (0..200_000).map(|i| if i == 999 { f32::NAN } else { (i as f32 * 0.001).sin() * 30.0 }).collect();
    fzwgpu::Field::from_f32(fzwgpu::Dims::new(400, 500, 1).unwrap(), &v).unwrap()
}

/// Compress `preset` on backends whose device allocations fail after k = 0..kmax
/// (`make(k)`): every run writes `good` (and decodes) or fails with the injected
/// `OutOfMemory`, and every buffer goes back (`live(&backend) == 0`). Asserts that
/// the failures were reached.
pub fn alloc_failure_sweep<B: Backend>(
    preset: &str,
    f: &fzwgpu::Field,
    good: &[u8],
    kmax: u64,
    make: impl Fn(u64) -> B,
    live: impl Fn(&B) -> usize,
) {
    use fzwgpu::Error;
    let mut failed = 0;
    for k in 0..kmax {
        let be = make(k);
        match noa_pipeline(preset).compress(&be, f) {
            Ok(c) => {
                assert!(c.bytes == good, "{preset}: run with allocation {k} failing wrote a different archive");
                match fzwgpu::decompress(&be, &c.bytes, &Default::default()) {
                    Ok(d) => assert_eq!(d.field.bytes.len(), f.bytes.len()),
                    Err(Error::OutOfMemory(m)) => assert!(m.contains("injected"), "{m}"),
                    Err(e) => panic!("{preset}: decompress with allocation {k} failing: unexpected {e:?}"),
                }
            }
            Err(Error::OutOfMemory(m)) => {
                assert!(m.contains("injected"), "{m}");
                failed += 1;
            }
            Err(e) => panic!("{preset}: allocation {k} failing gave {e:?}, expected OutOfMemory"),
        }
        assert_eq!(live(&be), 0, "{preset}: buffers not returned after allocation {k} failed");
    }
    assert!(failed > 3, "{preset}: the injected failures were not reached ({failed})");
}
