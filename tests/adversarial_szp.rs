//! The adversarial inputs of the foundation, through the composed presets
//! (Quantizer -> Lorenzo -> AdaptiveBitpack) on both backends.

mod common;
use common::*;
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};

fn roundtrip(preset: &str, what: &str, field: &Field, mode: ErrorMode, eb: f64) -> Vec<u8> {
    let mut arch = Vec::new();
    let mut rec = Vec::new();
    let mut bound = 0.0;
    for (name, be) in backends() {
        let mut p = Pipeline::from_preset(preset).unwrap();
        p.override_bound(ErrorBound::new(mode, eb).unwrap()).unwrap();
        let c = p.compress(be.as_ref(), field).unwrap_or_else(|e| panic!("{preset} {what} on {name}: {e}"));
        let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default())
            .unwrap_or_else(|e| panic!("{preset} {what} decode on {name}: {e}"));
        assert_eq!(d.field.dims, field.dims);
        bound = c.report.bounds[0].1;
        arch.push(c.bytes);
        rec.push(d.field.bytes);
    }
    assert!(arch[0] == arch[1], "{preset} {what}: archives differ");
    assert!(rec[0] == rec[1], "{preset} {what}: reconstructions differ");
    let bad = match field.dtype {
        fzwgpu::DataType::F32 => check_f32(&f32_from(&field.bytes), &f32_from(&rec[0]), bound),
        _ => check_f64(&f64_from(&field.bytes), &f64_from(&rec[0]), bound),
    };
    assert_eq!(bad.1, 0, "{preset} {what}: {} violations (max {:e}, eb {bound:e})", bad.1, bad.0);
    rec.remove(0)
}

#[test]
fn composed_presets_on_adversarial_inputs() {
    for preset in ["szp_composed", "szp_centered", "szp"] {
        let f = |v: Vec<f32>, d: Dims| Field::from_f32(d, &v).unwrap();
        let d1 = |n: usize| Dims::d1(n as u64).unwrap();
        for n in [1usize, 127, 129, 1000] {
            roundtrip(preset, &format!("constant {n}"), &f(vec![273.15; n], d1(n)), ErrorMode::Abs, 1e-3);
            let r = roundtrip(preset, &format!("constant NOA {n}"), &f(vec![273.15; n], d1(n)), ErrorMode::Noa, 1e-3);
            assert_eq!(f32_from(&r), vec![273.15f32; n], "NOA on a constant field is exact");
        }
        roundtrip(
            preset,
            "2-D tails",
            &f((0..37 * 29).map(|i| (i as f32 * 0.01).sin()).collect(), Dims::new(37, 29, 1).unwrap()),
            ErrorMode::Abs,
            1e-3,
        );
        roundtrip(
            preset,
            "3-D tails",
            &f((0..33 * 17 * 9).map(|i| (i as f32 * 0.013).cos() * 5.0).collect(), Dims::new(33, 17, 9).unwrap()),
            ErrorMode::Noa,
            1e-4,
        );
        roundtrip(preset, "ramp", &f((0..5000).map(|i| i as f32 * 1e-3).collect(), d1(5000)), ErrorMode::Abs, 5e-4);
        roundtrip(
            preset,
            "alternating 1e30",
            &f((0..5000).map(|i| if i % 2 == 0 { 1e30 } else { -1e30 }).collect(), d1(5000)),
            ErrorMode::Noa,
            1e-3,
        );
        let sub: Vec<f32> = (0..3000).map(|i| f32::from_bits(1 + (i as u32 * 977) % 0x7f_ffff)).collect();
        let r = roundtrip(preset, "subnormals", &f(sub.clone(), d1(3000)), ErrorMode::Noa, 1e-3);
        assert_eq!(f32_from(&r), sub, "subnormals are stored exactly");
        roundtrip(
            preset,
            "signed zeros",
            &f((0..1000).map(|i| if i % 2 == 0 { 0.0 } else { -0.0 }).collect(), d1(1000)),
            ErrorMode::Abs,
            1e-3,
        );
        roundtrip(
            preset,
            "fill 1e20",
            &f((0..20_000).map(|i| if i % 1000 < 3 { 1e20 } else { 280.0 + (i as f32 * 0.01).sin() }).collect(), d1(20_000)),
            ErrorMode::Abs,
            1e-2,
        );
        // codes past 2^24: outliers, never wrap-around
        let big: Vec<f32> = (0..4000).map(|i| i as f32 * 1000.0).collect();
        let r = roundtrip(preset, "eb too small", &f(big.clone(), d1(4000)), ErrorMode::Abs, 1e-6);
        assert_eq!(f32_from(&r), big);
        let mut v: Vec<f32> = (0..5000).map(|i| (i as f32 * 0.01).sin()).collect();
        v[7] = f32::NAN;
        v[8] = f32::from_bits(0xffc0_0001);
        v[4000] = f32::INFINITY;
        v[4001] = f32::NEG_INFINITY;
        let r = f32_from(&roundtrip(preset, "nan/inf", &f(v.clone(), d1(5000)), ErrorMode::Noa, 1e-3));
        for i in [7usize, 8, 4000, 4001] {
            assert_eq!(r[i].to_bits(), v[i].to_bits());
        }
        // the same specials in 2-D and 3-D rows that are not whole units of 32
        // (chain_encode_flat; 2-D also decoded through chain_decode_ragged, forced)
        for d in [Dims::new(100, 50, 1).unwrap(), Dims::new(91, 11, 5).unwrap()] {
            let n = d.len() as usize;
            let mut v: Vec<f32> = (0..n).map(|i| ((i % 91) as f32 * 0.05).sin() * 30.0 + (i / 91) as f32 * 0.01).collect();
            for (i, x) in [(0, f32::NAN), (99, f32::INFINITY), (100, f32::NEG_INFINITY), (1234, 3e38), (2001, 1e-42), (n - 1, f32::NAN)] {
                v[i] = x;
            }
            let field = f(v.clone(), d);
            let r = f32_from(&roundtrip(preset, &format!("specials {d}"), &field, ErrorMode::Noa, 1e-3));
            for i in [0usize, 99, 100, n - 1] {
                assert_eq!(r[i].to_bits(), v[i].to_bits(), "{preset} {d}: value {i}");
            }
            if preset != "szp" && d.z == 1 {
                for (name, be) in backends() {
                    let mut p = Pipeline::from_preset(preset).unwrap();
                    p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
                    let c = p.compress(be.as_ref(), &field).unwrap();
                    let force = fzwgpu::stages::RunOptions { fusion: fzwgpu::stages::FusionPolicy::Force, ..Default::default() };
                    let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &force).unwrap();
                    assert!(d.report.notes.iter().any(|(_, n)| n.contains("(chain_decode)")), "{:?}", d.report.notes);
                    assert_eq!(
                        f32_from(&d.field.bytes).iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        r.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        "{preset} on {name}"
                    );
                }
            }
        }
        let v64: Vec<f64> = (0..6000).map(|i| 1e200 * (i as f64 * 0.001).sin() + 1e250).collect();
        roundtrip(preset, "f64 1e250", &Field::from_f64(d1(6000), &v64).unwrap(), ErrorMode::Noa, 1e-3);
        let v64: Vec<f64> = (0..6000).map(|i| if i % 3 == 0 { f64::MAX } else { -1e-300 }).collect();
        let mode = if preset == "szp" { ErrorMode::Noa } else { ErrorMode::Rel };
        roundtrip(preset, "f64 extremes", &Field::from_f64(d1(6000), &v64).unwrap(), mode, 1e-3);
    }
}
