//! Fused Quantizer -> Lorenzo -> AdaptiveBitpack == staged, byte for byte, on both
//! backends; the switch (off/auto/force) and the run notes say which path ran.

mod common;
use common::*;
use fzwgpu::stages::{FusionPolicy, RunOptions};
use fzwgpu::{Dims, ErrorBound, ErrorMode, Field, Pipeline};

fn run(preset_or_toml: &str, field: &Field, fusion: FusionPolicy, be: &dyn fzwgpu::Backend) -> fzwgpu::Result<fzwgpu::Compressed> {
    let mut p =
        if preset_or_toml.contains("[[stage]]") { Pipeline::from_toml(preset_or_toml)? } else { Pipeline::from_preset(preset_or_toml)? };
    p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3)?)?;
    p.options.fusion = fusion;
    p.compress(be, field)
}

const UINT_CHAIN: &str = r#"
[pipeline]
fusion = "force"
[[stage]]
name = "q"
type = "Quantizer"
code_type = "uint32"
zigzag_codes = true
[[stage]]
name = "l"
type = "Lorenzo"
data_type = "uint32"
block_size = 16
centering = true
inputs = [{ from = "q", port = "codes" }]
[[stage]]
name = "b"
type = "AdaptiveBitpack"
data_type = "uint32"
block_size = 64
inputs = [{ from = "l", port = "residuals" }]
"#;

#[test]
fn fused_equals_staged() {
    let mut rng = Rng(99);
    let fields: Vec<Field> = vec![
        Field::from_f32(
            Dims::d1(20_011).unwrap(),
            &(0..20_011).map(|i| if i == 77 { f32::NAN } else { (i as f32 * 0.01).sin() * 100.0 }).collect::<Vec<_>>(),
        )
        .unwrap(),
        Field::from_f32(
            Dims::new(150, 97, 1).unwrap(),
            &(0..150 * 97).map(|i| ((i % 150) as f32 * 0.05).cos() * 3.0 + rng.unit() as f32 * 0.01).collect::<Vec<_>>(),
        )
        .unwrap(),
        Field::from_f64(
            Dims::new(33, 20, 17).unwrap(),
            &(0..33 * 20 * 17).map(|i| (i as f64 * 0.003).sin() * 1e4 + if i == 5 { f64::INFINITY } else { 0.0 }).collect::<Vec<_>>(),
        )
        .unwrap(),
    ];
    for f in &fields {
        for preset in ["szp_composed", "szp_centered", UINT_CHAIN] {
            for (name, be) in backends() {
                let staged = run(preset, f, FusionPolicy::Off, be.as_ref()).unwrap();
                let fused = run(preset, f, FusionPolicy::Force, be.as_ref()).unwrap();
                assert!(fused.report.notes.iter().any(|(s, n)| s == "pipeline" && n.starts_with("fused=")), "{:?}", fused.report.notes);
                assert!(!staged.report.notes.iter().any(|(_, n)| n.starts_with("fused=")));
                assert!(
                    staged.bytes == fused.bytes,
                    "{} {} on {name}: fused archive differs from staged",
                    f.dims,
                    if preset.len() > 20 { "uint chain" } else { preset }
                );
                let d = fzwgpu::decompress(be.as_ref(), &fused.bytes, &RunOptions::default()).unwrap();
                let bad = match f.dtype {
                    fzwgpu::DataType::F32 => check_f32(&f32_from(&f.bytes), &f32_from(&d.field.bytes), fused.report.bounds[0].1).1,
                    _ => check_f64(&f64_from(&f.bytes), &f64_from(&d.field.bytes), fused.report.bounds[0].1).1,
                };
                assert_eq!(bad, 0);
            }
        }
    }
}

const WIDE_BLOCKS: &str = r#"
[pipeline]
fusion = "force"
[[stage]]
name = "q"
type = "Quantizer"
code_type = "int32"
[[stage]]
name = "l"
type = "Lorenzo"
data_type = "int32"
block_size = 64
inputs = [{ from = "q", port = "codes" }]
[[stage]]
name = "b"
type = "AdaptiveBitpack"
data_type = "int32"
block_size = 512
inputs = [{ from = "l", port = "residuals" }]
"#;

/// Geometries the one-pass `chain_encode` takes (rows of whole blocks, tiles a multiple
/// of 32 wide): the same archive as the staged stages, and the run says which kernels ran.
#[test]
fn chain_encode_equals_staged() {
    let mut rng = Rng(17);
    let mut wave = |n: usize, f: &dyn Fn(usize) -> f64| -> Vec<f64> {
        (0..n)
            .map(|i| match i % 4099 {
                17 => f64::NAN,
                19 => f64::NEG_INFINITY,
                23 => 1e-41,
                29 => -7e12,
                _ => f(i) + rng.unit() * 0.01,
            })
            .collect()
    };
    let d2 = wave(256 * 131, &|i| ((i % 256) as f64 * 0.05).cos() * 3.0 + (i / 256) as f64 * 0.01);
    let d3 = wave(128 * 5 * 130, &|i| (i as f64 * 0.001).sin() * 40.0);
    let d1 = wave(40_003, &|i| (i as f64 * 0.01).sin() * 100.0);
    let wide = wave(1024 * 20, &|i| (i as f64 * 0.002).sin() * 9.0);
    let narrow = wave(128 * 300, &|i| ((i % 128) as f64 * 0.1).sin() * 5.0 + (i / 128) as f64 * 0.02);
    // rows of 288 (CESM's width): szp_composed's blocks of 128 straddle rows
    let cesm2 = wave(288 * 140, &|i| ((i % 288) as f64 * 0.03).sin() * 20.0 + (i / 288) as f64 * 0.1);
    let cesm3 = wave(288 * 19 * 5, &|i| ((i % 288) as f64 * 0.03).cos() * 20.0 + (i / 288) as f64 * 0.05);
    // rows that are not whole units of 32 (most real fields): chain_encode's flat units
    let odd2 = wave(1000 * 37, &|i| ((i % 1000) as f64 * 0.02).sin() * 30.0 + (i / 1000) as f64 * 0.2);
    let odd3 = wave(91 * 13 * 9, &|i| ((i % 91) as f64 * 0.07).cos() * 8.0 + (i / 91) as f64 * 0.03);
    let fields: Vec<(Field, &str)> = vec![
        (Field::from_f32(Dims::d1(40_003).unwrap(), &d1.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f32(Dims::new(256, 131, 1).unwrap(), &d2.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f64(Dims::new(256, 131, 1).unwrap(), &d2).unwrap(), "both"),
        (Field::from_f32(Dims::new(128, 5, 130).unwrap(), &d3.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f32(Dims::new(1024, 20, 1).unwrap(), &wide.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "wide"),
        (Field::from_f32(Dims::new(128, 300, 1).unwrap(), &narrow.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f32(Dims::new(288, 140, 1).unwrap(), &cesm2.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f64(Dims::new(288, 19, 5).unwrap(), &cesm3).unwrap(), "both"),
        (Field::from_f32(Dims::new(1000, 37, 1).unwrap(), &odd2.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
        (Field::from_f64(Dims::new(91, 13, 9).unwrap(), &odd3).unwrap(), "both"),
        (Field::from_f32(Dims::new(91, 13, 9).unwrap(), &odd3.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap(), "both"),
    ];
    let mut planes = 0;
    for (f, which) in &fields {
        let presets: Vec<&str> = if *which == "wide" { vec![WIDE_BLOCKS] } else { vec!["szp_composed", "szp_centered"] };
        for preset in presets {
            for (name, be) in backends() {
                let staged = run(preset, f, FusionPolicy::Off, be.as_ref()).unwrap();
                let fused = run(preset, f, FusionPolicy::Force, be.as_ref()).unwrap();
                assert!(
                    fused.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_encode")),
                    "{} on {name}: {:?}",
                    f.dims,
                    fused.report.notes
                );
                let label = if preset.len() > 20 { "wide blocks" } else { preset };
                assert!(staged.bytes == fused.bytes, "{} {label} on {name}: chain_encode archive differs from staged", f.dims);
                let d = fzwgpu::decompress(be.as_ref(), &fused.bytes, &RunOptions { fusion: FusionPolicy::Force, ..Default::default() })
                    .unwrap();
                let bad = match f.dtype {
                    fzwgpu::DataType::F32 => check_f32(&f32_from(&f.bytes), &f32_from(&d.field.bytes), fused.report.bounds[0].1).1,
                    _ => check_f64(&f64_from(&f.bytes), &f64_from(&d.field.bytes), fused.report.bounds[0].1).1,
                };
                assert_eq!(bad, 0);
                // the one-pass inverse (1-D and 2-D; rows that are not whole units of 32
                // through chain_decode_ragged), and in 3-D chain_planes (the x-y sums of
                // every plane in one pass, then the z scan) where its geometry fits, else
                // the line-parallel one, equal the staged one
                let want: &[&str] = if f.dims.z == 1 { &["(chain_decode)"] } else { &["(chain_planes)", "(chain_scan)"] };
                let form = d.report.notes.iter().find(|(_, n)| n.starts_with("fused=") && want.iter().any(|w| n.contains(w)));
                assert!(form.is_some(), "{} on {name}: {:?}", f.dims, d.report.notes);
                planes += form.is_some_and(|(_, n)| n.contains("(chain_planes)")) as u32;
                // the note names the kernels the form ran
                let via = match form.map(|(_, n)| n.as_str()) {
                    Some(n) if n.contains("(chain_planes)") => "via chain_decode_planes",
                    Some(n) if n.contains("(chain_scan)") => "via chain_scan_x + lorenzo_scan_axis + chain_scan_last",
                    _ => "via chain_decode",
                };
                assert!(form.is_some_and(|(_, n)| n.contains(via)), "{} on {name}: {form:?} should say {via}", f.dims);
                let staged_d =
                    fzwgpu::decompress(be.as_ref(), &fused.bytes, &RunOptions { fusion: FusionPolicy::Off, ..Default::default() }).unwrap();
                assert!(staged_d.field.bytes == d.field.bytes, "{} {label} on {name}: fused inverse differs from staged", f.dims);
            }
        }
    }
    assert!(planes >= 8, "chain_planes decoded {planes} of the 3-D archives");
}

/// A 3-D field of CESM's 288-value rows, large enough for `auto` to walk several planes
/// (szp_composed's blocks of 128 straddle rows but not planes): the note says the walk,
/// the archive equals the staged one and both inverses give the same field in bound.
#[test]
fn chain_encode_walks_3d_straddling_rows() {
    let (nx, ny, nz) = (288usize, 192usize, 160usize);
    let v: Vec<f32> = (0..nx * ny * nz)
        .map(|i| {
            let (x, y, z) = (i % nx, (i / nx) % ny, i / (nx * ny));
            match i % 100_003 {
                7 => f32::NAN,
                11 => 3e30,
                _ => ((x as f32 * 0.03).sin() + (y as f32 * 0.05).cos()) * 20.0 + z as f32 * 0.01,
            }
        })
        .collect();
    let f = Field::from_f32(Dims::new(nx as u64, ny as u64, nz as u64).unwrap(), &v).unwrap();
    for (name, be) in backends() {
        let fused = run("szp_composed", &f, FusionPolicy::Auto, be.as_ref()).unwrap();
        let walk = fused.report.notes.iter().find_map(|(_, n)| n.strip_prefix("chain_encode_walk=")).map(|w| w.parse::<u32>().unwrap());
        assert!(walk.is_some_and(|w| w > 1), "{name}: {:?}", fused.report.notes);
        let staged = run("szp_composed", &f, FusionPolicy::Off, be.as_ref()).unwrap();
        assert!(staged.bytes == fused.bytes, "{name}: chain_encode archive differs from staged");
        let d = fzwgpu::decompress(be.as_ref(), &fused.bytes, &RunOptions::default()).unwrap();
        let ds = fzwgpu::decompress(be.as_ref(), &fused.bytes, &RunOptions { fusion: FusionPolicy::Off, ..Default::default() }).unwrap();
        assert!(d.field.bytes == ds.field.bytes, "{name}: fused inverse differs from staged");
        assert_eq!(check_f32(&v, &f32_from(&d.field.bytes), fused.report.bounds[0].1).1, 0, "{name}");
    }
}

/// Adversarial fields through the one-pass kernels (1-D always takes them; 2-D rows of
/// 128): single values, lengths around one invocation's 32 values and one block,
/// constant, all-NaN, huge and tiny magnitudes, float64. Same archive as staged, same
/// field from both inverses, the bound on every value.
#[test]
fn chain_encode_adversarial() {
    let mut fields: Vec<Field> = Vec::new();
    for n in [1usize, 5, 31, 32, 33, 127, 128, 129, 4097] {
        fields.push(
            Field::from_f32(Dims::d1(n as u64).unwrap(), &(0..n).map(|i| (i as f32 * 0.37).sin() * 10.0).collect::<Vec<_>>()).unwrap(),
        );
    }
    fields.push(Field::from_f32(Dims::d1(1000).unwrap(), &[3.25f32; 1000]).unwrap());
    fields.push(Field::from_f32(Dims::d1(300).unwrap(), &[f32::NAN; 300]).unwrap());
    fields.push(
        Field::from_f32(
            Dims::new(128, 9, 1).unwrap(),
            &(0..128 * 9)
                .map(|i| {
                    if i % 7 == 0 {
                        3e37
                    } else if i % 7 == 1 {
                        -1e-30
                    } else {
                        i as f32 * 1e3
                    }
                })
                .collect::<Vec<_>>(),
        )
        .unwrap(),
    );
    fields.push(Field::from_f64(Dims::d1(77).unwrap(), &(0..77).map(|i| (i as f64).powi(3) * 1e-3 - 7.0).collect::<Vec<_>>()).unwrap());
    fields.push(
        Field::from_f64(
            Dims::new(256, 3, 1).unwrap(),
            &(0..768).map(|i| if i == 5 { f64::MAX } else { (i as f64).sqrt() }).collect::<Vec<_>>(),
        )
        .unwrap(),
    );
    for f in &fields {
        for preset in ["szp_composed", "szp_centered"] {
            for (name, be) in backends() {
                let staged = run(preset, f, FusionPolicy::Off, be.as_ref()).unwrap();
                let fused = run(preset, f, FusionPolicy::Force, be.as_ref()).unwrap();
                assert!(
                    fused.report.notes.iter().any(|(_, n)| n.contains("(chain_encode")),
                    "{} {preset} on {name}: {:?}",
                    f.dims,
                    fused.report.notes
                );
                assert!(staged.bytes == fused.bytes, "{} {preset} on {name}: chain_encode archive differs from staged", f.dims);
                let force = RunOptions { fusion: FusionPolicy::Force, ..Default::default() };
                let off = RunOptions { fusion: FusionPolicy::Off, ..Default::default() };
                let a = fzwgpu::decompress(be.as_ref(), &fused.bytes, &force).unwrap();
                let b = fzwgpu::decompress(be.as_ref(), &fused.bytes, &off).unwrap();
                assert!(a.field.bytes == b.field.bytes, "{} {preset} on {name}: fused inverse differs", f.dims);
                let eb = fused.report.bounds[0].1;
                let (_, bad) = match f.dtype {
                    fzwgpu::DataType::F32 => check_f32(&f32_from(&f.bytes), &f32_from(&a.field.bytes), eb),
                    _ => check_f64(&f64_from(&f.bytes), &f64_from(&a.field.bytes), eb),
                };
                assert_eq!(bad, 0, "{} {preset} on {name}: bound", f.dims);
            }
        }
    }
}

#[test]
fn fusion_switch() {
    let f = Field::from_f32(Dims::d1(10_000).unwrap(), &(0..10_000).map(|i| i as f32 * 0.001).collect::<Vec<_>>()).unwrap();
    // auto fuses by default
    let c = run("szp_composed", &f, FusionPolicy::Auto, cpu().as_ref()).unwrap();
    assert!(c.report.notes.iter().any(|(_, n)| n.starts_with("fused=quant+lorenzo+bitpack")), "{:?}", c.report.notes);
    // force without a chain is an error
    assert!(run("szx", &f, FusionPolicy::Force, cpu().as_ref()).is_err());
    // a field past the chunk limit: auto stages (and says why), force refuses
    let big = Field::from_f32(Dims::d1(100_000).unwrap(), &(0..100_000).map(|i| i as f32 * 0.001).collect::<Vec<_>>()).unwrap();
    let mut p = Pipeline::from_preset("szp_composed").unwrap();
    p.options.max_chunk_bytes = Some(200_000);
    let c = p.compress(cpu().as_ref(), &big).unwrap();
    assert!(c.report.notes.iter().any(|(_, n)| n.starts_with("staged=")), "{:?}", c.report.notes);
    p.options.fusion = FusionPolicy::Force;
    assert!(matches!(p.compress(cpu().as_ref(), &big), Err(fzwgpu::Error::Pipeline(m)) if m.contains("cannot be fused")));
    assert!(Pipeline::from_toml("[pipeline]\nfusion = \"sometimes\"\n[[stage]]\nname=\"s\"\ntype=\"SZx\"\n").is_err());
}

#[test]
fn fused_inverse_equals_staged_inverse() {
    let mut rng = Rng(5);
    for f in
        [
            Field::from_f32(
                Dims::d1(50_003).unwrap(),
                &(0..50_003)
                    .map(|i| if i % 9000 == 11 { f32::NAN } else { (i as f32 * 0.003).sin() * 70.0 + rng.unit() as f32 })
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
            Field::from_f64(Dims::d1(7777).unwrap(), &(0..7777).map(|i| (i as f64 * 0.01).cos() * 1e6).collect::<Vec<_>>()).unwrap(),
            // 2-D and 3-D, ragged tiles, an outlier and a NaN
            Field::from_f32(
                Dims::new(300, 131, 1).unwrap(),
                &(0..300 * 131)
                    .map(|i| {
                        if i == 4321 {
                            f32::NAN
                        } else {
                            ((i % 300) as f32 * 0.02).sin() * 40.0 + (i / 300) as f32 * 0.1 + rng.unit() as f32
                        }
                    })
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
            Field::from_f64(
                Dims::new(41, 30, 17).unwrap(),
                &(0..41 * 30 * 17).map(|i| (i as f64 * 0.002).cos() * 1e3 + if i == 999 { 1e30 } else { 0.0 }).collect::<Vec<_>>(),
            )
            .unwrap(),
            Field::from_f32(
                Dims::new(130, 129, 3).unwrap(),
                &(0..130 * 129 * 3).map(|i| (i as f32 * 0.0007).sin() * 5.0 + rng.unit() as f32 * 0.3).collect::<Vec<_>>(),
            )
            .unwrap(),
        ]
    {
        for preset in ["szp_composed", "szp_centered", UINT_CHAIN] {
            for (name, be) in backends() {
                let c = run(preset, &f, FusionPolicy::Off, be.as_ref()).unwrap();
                let staged =
                    fzwgpu::decompress(be.as_ref(), &c.bytes, &RunOptions { fusion: FusionPolicy::Off, ..Default::default() }).unwrap();
                let fused =
                    fzwgpu::decompress(be.as_ref(), &c.bytes, &RunOptions { fusion: FusionPolicy::Force, ..Default::default() }).unwrap();
                assert!(fused.report.notes.iter().any(|(_, n)| n.starts_with("fused=")), "{:?}", fused.report.notes);
                assert!(!staged.report.notes.iter().any(|(_, n)| n.starts_with("fused=")), "{:?}", staged.report.notes);
                assert!(staged.field.bytes == fused.field.bytes, "{} on {name}: fused inverse differs", f.dims);
            }
        }
    }
    // rows that are not whole units of 32: auto fuses the forward chain with chain_encode's
    // flat units, centered or not; the bytes are the staged ones
    let f = Field::from_f32(Dims::new(300, 200, 1).unwrap(), &(0..60_000).map(|i| (i as f32 * 0.01).sin()).collect::<Vec<_>>()).unwrap();
    let auto = run("szp_composed", &f, FusionPolicy::Auto, cpu().as_ref()).unwrap();
    assert!(auto.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_encode_flat)")), "{:?}", auto.report.notes);
    let centered = run("szp_centered", &f, FusionPolicy::Auto, cpu().as_ref()).unwrap();
    assert!(
        centered.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_encode")),
        "{:?}",
        centered.report.notes
    );
    let staged = run("szp_composed", &f, FusionPolicy::Off, cpu().as_ref()).unwrap();
    assert!(staged.bytes == auto.bytes);
    // (a 2-D inverse outside chain_decode's geometries runs the line-parallel chain_scan,
    // which needs no tiles to be fast)
    let d = fzwgpu::decompress(cpu().as_ref(), &auto.bytes, &RunOptions::default()).unwrap();
    assert!(d.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_scan)")), "{:?}", d.report.notes);
    // a small 2-D field inside chain_decode's geometries: too few chain_decode
    // invocations, so auto runs chain_scan (force keeps chain_decode); the same field
    let f = Field::from_f32(Dims::new(256, 256, 1).unwrap(), &(0..65_536).map(|i| (i as f32 * 0.01).sin()).collect::<Vec<_>>()).unwrap();
    for (name, be) in backends() {
        let c = run("szp_centered", &f, FusionPolicy::Auto, be.as_ref()).unwrap();
        let auto = fzwgpu::decompress(be.as_ref(), &c.bytes, &RunOptions::default()).unwrap();
        let force = fzwgpu::decompress(be.as_ref(), &c.bytes, &RunOptions { fusion: FusionPolicy::Force, ..Default::default() }).unwrap();
        assert!(
            auto.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_scan)")),
            "{name}: {:?}",
            auto.report.notes
        );
        assert!(
            force.report.notes.iter().any(|(_, n)| n.starts_with("fused=") && n.contains("(chain_decode)")),
            "{name}: {:?}",
            force.report.notes
        );
        assert!(auto.field.bytes == force.field.bytes, "{name}");
    }
    // a field past the chunk limit: auto stages the inverse and says why; force refuses
    let f = Field::from_f32(Dims::new(60_000, 1, 1).unwrap(), &(0..60_000).map(|i| i as f32 * 0.01).collect::<Vec<_>>()).unwrap();
    let c = run("szp_composed", &f, FusionPolicy::Off, cpu().as_ref()).unwrap();
    let small = RunOptions { max_chunk_bytes: Some(200_000), ..Default::default() };
    let d = fzwgpu::decompress(cpu().as_ref(), &c.bytes, &small).unwrap();
    assert!(d.report.notes.iter().any(|(_, n)| n.starts_with("staged=")), "{:?}", d.report.notes);
    let whole = fzwgpu::decompress(cpu().as_ref(), &c.bytes, &RunOptions::default()).unwrap();
    assert!(whole.report.notes.iter().any(|(_, n)| n.starts_with("fused=")), "{:?}", whole.report.notes);
    assert!(d.field.bytes == whole.field.bytes);
    let force_small = RunOptions { fusion: FusionPolicy::Force, ..small };
    assert!(fzwgpu::decompress(cpu().as_ref(), &c.bytes, &force_small).is_err());
}
