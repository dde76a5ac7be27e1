//! Adversarial inputs on both backends: the bound holds (independent f64 check),
//! non-finite values come back bit-exact, archives and reconstructions are identical
//! across backends, and bad bounds are refused with a typed error.

mod common;
use common::*;
use fzwgpu::stages::szx::{SzxConfig, SzxStage};
use fzwgpu::{DataType, Dims, Error, ErrorBound, ErrorMode, Field, Pipeline};

fn pipeline(bs: u32, mode: ErrorMode, eb: f64, dtype: DataType) -> Pipeline {
    let mut p = Pipeline::new();
    let s = SzxStage::new(SzxConfig { dtype, block_size: bs, bound: ErrorBound::new(mode, eb).unwrap() }).unwrap();
    p.add_stage("szx", Box::new(s)).unwrap();
    p
}

/// Round trip on both backends; returns (resolved eb, ratio, reconstruction bytes).
fn roundtrip(what: &str, field: &Field, bs: u32, mode: ErrorMode, eb: f64) -> (f64, f64, Vec<u8>) {
    let mut arch = Vec::new();
    let mut rec = Vec::new();
    let mut ebs = Vec::new();
    for (name, be) in backends() {
        let mut p = pipeline(bs, mode, eb, field.dtype);
        let c = p.compress(be.as_ref(), field).unwrap_or_else(|e| panic!("{what} on {name}: {e}"));
        let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap_or_else(|e| panic!("{what} decode on {name}: {e}"));
        assert_eq!(d.field.dims, field.dims, "{what}: dims");
        assert_eq!(d.field.dtype, field.dtype, "{what}: dtype");
        ebs.push(c.report.bounds[0].1);
        arch.push(c.bytes);
        rec.push(d.field.bytes);
    }
    assert!(arch[0] == arch[1], "{what}: archives differ between cpu and wgpu");
    assert!(rec[0] == rec[1], "{what}: reconstructions differ between cpu and wgpu");
    // cross-decode
    let d = fzwgpu::decompress(gpu().as_ref(), &arch[0], &Default::default()).unwrap();
    assert!(d.field.bytes == rec[0], "{what}: cross decode differs");
    let eb_abs = ebs[0];
    let bad = match field.dtype {
        DataType::F32 => check_f32(&f32_from(&field.bytes), &f32_from(&rec[0]), eb_abs),
        _ => check_f64(&f64_from(&field.bytes), &f64_from(&rec[0]), eb_abs),
    };
    assert_eq!(bad.1, 0, "{what}: {} bound violations (max err {:e}, eb {eb_abs:e})", bad.1, bad.0);
    (eb_abs, field.bytes.len() as f64 / arch[0].len() as f64, rec.remove(0))
}

fn f32f(v: &[f32]) -> Field {
    Field::from_f32(Dims::d1(v.len() as u64).unwrap(), v).unwrap()
}
fn f64f(v: &[f64]) -> Field {
    Field::from_f64(Dims::d1(v.len() as u64).unwrap(), v).unwrap()
}

#[test]
fn constant_fields_any_length() {
    for n in [1usize, 2, 127, 128, 129, 1000, 1024 * 3 + 1, 100_000] {
        let v = vec![273.15f32; n];
        let (_, ratio, rec) = roundtrip(&format!("constant n={n}"), &f32f(&v), 128, ErrorMode::Abs, 1e-3);
        assert!(f32_from(&rec).iter().all(|&x| (x - 273.15).abs() <= 1e-3));
        if n >= 100_000 {
            assert!(ratio > 20.0, "constant n={n}: ratio {ratio}");
        }
        // NOA on a constant field: range 0 -> exact mode, bit-exact
        let (eb, _, rec) = roundtrip(&format!("constant NOA n={n}"), &f32f(&v), 128, ErrorMode::Noa, 1e-3);
        assert_eq!(eb, 0.0);
        assert_eq!(f32_from(&rec), v);
    }
}

#[test]
fn single_elements_and_tails() {
    for x in [0.0f32, -0.0, 1.0, -3.5e-20, 3e38, f32::MIN_POSITIVE] {
        roundtrip(&format!("single {x}"), &f32f(&[x]), 128, ErrorMode::Abs, 1e-3);
    }
    let mut rng = Rng(7);
    for bs in [1u32, 3, 64, 128, 1000, 4096] {
        for n in [1usize, bs as usize - 1, bs as usize + 1, 3 * bs as usize + 7] {
            if n == 0 {
                continue;
            }
            let v: Vec<f32> = (0..n).map(|_| (rng.unit() * 10.0) as f32).collect();
            roundtrip(&format!("tail bs={bs} n={n}"), &f32f(&v), bs, ErrorMode::Abs, 1e-2);
        }
    }
}

#[test]
fn ramps_noise_and_alternating_huge() {
    let ramp: Vec<f32> = (0..10_000).map(|i| i as f32 * 1e-3).collect();
    for eb in [1e-3, 5e-4, 2.5e-4] {
        // exact ties (x on a multiple of eb) are decided exactly
        roundtrip(&format!("ramp eb={eb}"), &f32f(&ramp), 128, ErrorMode::Abs, eb);
    }
    let mut rng = Rng(11);
    let noise: Vec<f32> = (0..50_000).map(|_| (rng.unit() * 2.0 - 1.0) as f32).collect();
    roundtrip("noise", &f32f(&noise), 128, ErrorMode::Abs, 1e-3);
    let alt: Vec<f32> = (0..5000).map(|i| if i % 2 == 0 { 1e30 } else { -1e30 }).collect();
    for rel in [1e-2, 1e-4] {
        roundtrip(&format!("alternating 1e30 rel {rel}"), &f32f(&alt), 128, ErrorMode::Noa, rel);
    }
    let alt64: Vec<f64> = (0..5000).map(|i| if i % 2 == 0 { 1e300 } else { -1e300 }).collect();
    roundtrip("alternating 1e300 f64", &f64f(&alt64), 128, ErrorMode::Noa, 1e-3);
}

#[test]
fn tiny_magnitudes_subnormals_and_signed_zeros() {
    let tiny: Vec<f32> = (0..5000).map(|i| (i as f32 + 1.0) * 1e-36).collect();
    roundtrip("tiny rel", &f32f(&tiny), 128, ErrorMode::Noa, 1e-3);
    let sub: Vec<f32> = (0..5000).map(|i| f32::from_bits(1 + (i as u32 * 1000) % 0x7f_ffff)).collect();
    let (_, _, rec) = roundtrip("subnormals rel", &f32f(&sub), 128, ErrorMode::Noa, 1e-3);
    // blocks of subnormals are stored verbatim
    assert_eq!(f32_from(&rec), sub);
    roundtrip("subnormals abs", &f32f(&sub), 128, ErrorMode::Abs, 1e-3);
    let mixed: Vec<f32> = (0..5000).map(|i| if i % 3 == 0 { 1e-40 } else { (i as f32).sin() }).collect();
    roundtrip("subnormals mixed", &f32f(&mixed), 128, ErrorMode::Abs, 1e-3);
    let zeros: Vec<f32> = (0..3000).map(|i| if i % 2 == 0 { 0.0 } else { -0.0 }).collect();
    roundtrip("signed zeros", &f32f(&zeros), 128, ErrorMode::Abs, 1e-3);
    roundtrip("signed zeros NOA", &f32f(&zeros), 128, ErrorMode::Noa, 1e-3);
    let sub64: Vec<f64> = (0..3000).map(|i| f64::from_bits(1 + i as u64 * 12345)).collect();
    roundtrip("f64 subnormals", &f64f(&sub64), 128, ErrorMode::Noa, 1e-2);
}

#[test]
fn f64_beyond_f32_range() {
    let v: Vec<f64> = (0..20_000).map(|i| 1e200 * ((i as f64) * 0.001).sin() + 1e250).collect();
    roundtrip("f64 1e250", &f64f(&v), 128, ErrorMode::Noa, 1e-3);
    let v: Vec<f64> = (0..20_000).map(|i| 1e-200 * ((i as f64) * 0.01).cos()).collect();
    roundtrip("f64 1e-200", &f64f(&v), 128, ErrorMode::Noa, 1e-4);
    let v: Vec<f64> = (0..4000).map(|i| if i % 2 == 0 { f64::MAX } else { -f64::MAX }).collect();
    roundtrip("f64 +-MAX", &f64f(&v), 128, ErrorMode::Noa, 1e-3);
}

#[test]
fn fill_values_in_blocks() {
    // a 1e20 fill value mixed into ordinary blocks: those blocks go raw, the rest
    // keep compressing, and the bound holds everywhere
    let v: Vec<f32> = (0..50_000).map(|i| if i % 1000 < 3 { 1e20 } else { 280.0 + ((i as f32) * 0.01).sin() }).collect();
    let (_, ratio, _) = roundtrip("fill 1e20", &f32f(&v), 128, ErrorMode::Abs, 1e-2);
    assert!(ratio > 2.0, "fill values should only cost their own blocks, ratio {ratio}");
}

#[test]
fn bound_too_small_for_codes() {
    // codes would need more than 24 bits: blocks fall back to raw, never wrap around
    let v: Vec<f32> = (0..10_000).map(|i| (i as f32) * 1000.0).collect();
    let (_, ratio, rec) = roundtrip("eb 1e-6 on 1e7 range", &f32f(&v), 128, ErrorMode::Abs, 1e-6);
    assert!(ratio <= 1.01);
    assert_eq!(f32_from(&rec), v);
    // an absolute bound below 2^-100 switches to exact mode
    let (_, _, rec) = roundtrip("eb 1e-35", &f32f(&v), 128, ErrorMode::Abs, 1e-35);
    assert_eq!(f32_from(&rec), v);
    // a huge bound is clamped, still guaranteed
    roundtrip("eb 1e38", &f32f(&v), 128, ErrorMode::Abs, 1e38);
}

#[test]
fn nan_and_inf_are_bit_exact() {
    let mut v: Vec<f32> = (0..10_000).map(|i| (i as f32 * 0.01).sin()).collect();
    v[5] = f32::NAN;
    v[300] = f32::from_bits(0x7fc0_1234); // NaN with payload
    v[301] = f32::from_bits(0xffc0_0001); // negative NaN
    v[7000] = f32::INFINITY;
    v[7001] = f32::NEG_INFINITY;
    let (_, _, rec) = roundtrip("nan/inf", &f32f(&v), 128, ErrorMode::Noa, 1e-3);
    let r = f32_from(&rec);
    for i in [5usize, 300, 301, 7000, 7001] {
        assert_eq!(r[i].to_bits(), v[i].to_bits(), "element {i}");
    }
    let all_nan = vec![f32::NAN; 1000];
    let (eb, _, rec) = roundtrip("all NaN NOA", &f32f(&all_nan), 128, ErrorMode::Noa, 1e-3);
    assert_eq!(eb, 0.0);
    assert!(f32_from(&rec).iter().all(|x| x.to_bits() == f32::NAN.to_bits()));
    let mut v64: Vec<f64> = (0..5000).map(|i| i as f64).collect();
    v64[10] = f64::from_bits(0x7ff8_0000_dead_beef);
    v64[11] = f64::NEG_INFINITY;
    let (_, _, rec) = roundtrip("f64 nan/inf", &f64f(&v64), 128, ErrorMode::Abs, 0.5);
    let r = f64_from(&rec);
    assert_eq!(r[10].to_bits(), v64[10].to_bits());
    assert_eq!(r[11].to_bits(), v64[11].to_bits());
}

#[test]
fn rel_mode_and_block_sizes() {
    let v: Vec<f32> = (0..30_000).map(|i| 50.0 + 10.0 * (i as f32 * 0.002).sin()).collect();
    for bs in [1u32, 2, 16, 128, 4096] {
        let (eb, _, _) = roundtrip(&format!("REL bs={bs}"), &f32f(&v), bs, ErrorMode::Rel, 1e-3);
        assert!((eb - 1e-3 * 60.0).abs() < 1e-3, "REL resolves against max|x|: {eb}");
    }
}

#[test]
fn bad_bounds_and_sizes_are_refused() {
    for eb in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(ErrorBound::new(ErrorMode::Abs, eb), Err(Error::ErrorBound(_))), "{eb}");
    }
    for bs in [0u32, 4097] {
        assert!(SzxStage::new(SzxConfig { block_size: bs, ..Default::default() }).is_err());
    }
    let mut p = Pipeline::from_preset("szx").unwrap();
    p.set_dims(Dims::new(10, 10, 1).unwrap());
    let f = f32f(&vec![1.0; 99]);
    assert!(matches!(p.compress(cpu().as_ref(), &f), Err(Error::Input(_))));
    assert!(Field::new(DataType::F32, Dims::d1(10).unwrap(), vec![0u8; 39]).is_err());
    assert!(Field::new(DataType::I32, Dims::d1(10).unwrap(), vec![0u8; 40]).is_err());
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Arbitrary bit patterns (NaN, Inf, subnormals included), block sizes and
        /// bounds: the bound holds and non-finite values survive, on the cpu backend.
        #[test]
        fn arbitrary_f32_bits(bits in proptest::collection::vec(any::<u32>(), 1..600), bs in 1u32..300, e in -8i32..4, noa in any::<bool>()) {
            let v: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
            let mode = if noa { ErrorMode::Noa } else { ErrorMode::Abs };
            let eb = 10f64.powi(e);
            let be = cpu();
            let mut p = pipeline(bs, mode, eb, DataType::F32);
            let c = p.compress(be.as_ref(), &f32f(&v)).unwrap();
            let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
            let (_, bad) = check_f32(&v, &f32_from(&d.field.bytes), c.report.bounds[0].1);
            prop_assert_eq!(bad, 0);
        }

        #[test]
        fn smooth_f64(n in 1usize..3000, scale in -30i32..30, bs in 1u32..513) {
            let s = 10f64.powi(scale);
            let v: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * s).collect();
            let be = cpu();
            let mut p = pipeline(bs, ErrorMode::Noa, 1e-4, DataType::F64);
            let c = p.compress(be.as_ref(), &f64f(&v)).unwrap();
            let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
            let (_, bad) = check_f64(&v, &f64_from(&d.field.bytes), c.report.bounds[0].1);
            prop_assert_eq!(bad, 0);
        }
    }
}
