//! Golden archives: archives written by this version are checked in, and every later
//! build must (a) decode them to the same bits and (b) write the same bytes for the
//! same input. A deliberate format change re-blesses them with
//! `FZWGPU_BLESS=1 cargo test --release --test golden` and bumps the FZM minor (or
//! major) version.

mod common;
use common::*;
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};
use std::path::PathBuf;

fn cases() -> Vec<(&'static str, &'static str, Field, ErrorBound)> {
    let smooth2d: Vec<f32> = (0..60 * 40).map(|i| ((i % 60) as f32 * 0.1).sin() * ((i / 60) as f32 * 0.07).cos() * 50.0 + 300.0).collect();
    let mut special = smooth2d.clone();
    special[7] = f32::NAN;
    special[100] = f32::NEG_INFINITY;
    special[1000] = 1e-40;
    let cube: Vec<f64> = (0..16 * 12 * 10).map(|i| ((i % 16) as f64 * 0.3).cos() * 1e5 + (i / 192) as f64).collect();
    let d2 = Dims::new(60, 40, 1).unwrap();
    let d3 = Dims::new(16, 12, 10).unwrap();
    let noa = |v| ErrorBound::new(ErrorMode::Noa, v).unwrap();
    vec![
        ("szx_f32_2d", "szx", Field::from_f32(d2, &special).unwrap(), noa(1e-3)),
        ("szx_f64_3d", "szx", Field::from_f64(d3, &cube).unwrap(), ErrorBound::abs(0.5).unwrap()),
        ("szp_composed_f32_2d", "szp_composed", Field::from_f32(d2, &special).unwrap(), noa(1e-3)),
        ("szp_centered_f64_3d", "szp_centered", Field::from_f64(d3, &cube).unwrap(), noa(1e-4)),
        ("szp_f32_2d", "szp", Field::from_f32(d2, &smooth2d).unwrap(), noa(1e-2)),
        ("sperr_gpu_f32_2d", "sperr_gpu", Field::from_f32(d2, &special).unwrap(), noa(1e-3)),
        ("sperr_gpu_f64_3d", "sperr_gpu", Field::from_f64(d3, &cube).unwrap(), noa(1e-4)),
    ]
}

#[test]
fn golden_archives_decode_and_encode_identically() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden");
    let bless = std::env::var("FZWGPU_BLESS").is_ok();
    for (name, preset, field, bound) in cases() {
        let path = dir.join(format!("{name}.fzm"));
        let mut p = Pipeline::from_preset(preset).unwrap();
        p.override_bound(bound).unwrap();
        let fresh = p.compress(cpu().as_ref(), &field).unwrap().bytes;
        if bless {
            std::fs::write(&path, &fresh).unwrap();
            let d = fzwgpu::decompress(cpu().as_ref(), &fresh, &Default::default()).unwrap();
            std::fs::write(dir.join(format!("{name}.out")), &d.field.bytes).unwrap();
            continue;
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (bless with FZWGPU_BLESS=1)", path.display()));
        let expected = std::fs::read(dir.join(format!("{name}.out"))).unwrap();
        assert!(fresh == golden, "{name}: this build writes different bytes than the golden archive");
        for (bname, be) in backends() {
            let d = fzwgpu::decompress(be.as_ref(), &golden, &Default::default()).unwrap();
            assert!(d.field.bytes == expected, "{name}: {bname} decodes the golden archive differently");
            assert_eq!(d.field.dims, field.dims);
        }
    }
}
