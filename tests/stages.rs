//! Stage-level checks for Quantizer, Lorenzo and AdaptiveBitpack: port types, config
//! round trip (<= 128 bytes), exact output sizes, corrupt inputs -> typed errors.

mod common;
use common::*;
use fzwgpu::format::fzm;
use fzwgpu::stages::{self, bitpack::BitpackStage, lorenzo::LorenzoStage, quantizer::QuantizerStage, Stage};
use fzwgpu::{DataType, Dims, Field, Pipeline};

fn compress(preset: &str, f: &Field) -> Vec<u8> {
    Pipeline::from_preset(preset).unwrap().compress(cpu().as_ref(), f).unwrap().bytes
}

fn refresh_crcs(b: &mut [u8]) {
    let hs = u64::from_le_bytes(b[24..32].try_into().unwrap()) as usize;
    if hs < 80 || hs > b.len() {
        return;
    }
    let d = fzm::crc32(&b[hs..]);
    b[72..76].copy_from_slice(&d.to_le_bytes());
    b[76..80].fill(0);
    let h = fzm::crc32(&b[..hs]);
    b[76..80].copy_from_slice(&h.to_le_bytes());
}

#[test]
fn ports_and_type_checks() {
    let q = QuantizerStage::new(Default::default()).unwrap();
    assert_eq!(
        q.outputs().iter().map(|p| (p.name.as_str(), p.dtype)).collect::<Vec<_>>(),
        vec![("codes", DataType::I32), ("outliers", DataType::U8)]
    );
    let l = LorenzoStage::new(DataType::I32, 128, true).unwrap();
    assert_eq!(l.outputs().len(), 2);
    assert_eq!(LorenzoStage::new(DataType::I32, 128, false).unwrap().outputs().len(), 1);
    assert!(LorenzoStage::new(DataType::F32, 128, false).is_err());
    assert!(BitpackStage::new(DataType::I32, 0).is_err());
    assert!(BitpackStage::new(DataType::I32, 4097).is_err());
    // a float field into Lorenzo is a type mismatch at finalize
    let toml = "[[stage]]\nname=\"q\"\ntype=\"Quantizer\"\ncode_type=\"uint32\"\n[[stage]]\nname=\"l\"\ntype=\"Lorenzo\"\ndata_type=\"int32\"\ninputs=[{from=\"q\", port=\"codes\"}]\n";
    let mut p = Pipeline::from_toml(toml).unwrap();
    assert!(matches!(p.finalize(), Err(fzwgpu::Error::Pipeline(m)) if m.contains("mismatch")));
    // quantizer option checks
    assert!(Pipeline::from_toml("[[stage]]\nname=\"q\"\ntype=\"Quantizer\"\ncode_type=\"int32\"\nzigzag_codes=true\n").is_err());
    assert!(Pipeline::from_toml("[[stage]]\nname=\"q\"\ntype=\"Quantizer\"\nlinear_mode=false\n").is_err());
    assert!(Pipeline::from_toml("[[stage]]\nname=\"l\"\ntype=\"Lorenzo\"\ncenter=true\n").is_err());
}

#[test]
fn configs_round_trip_within_128_bytes() {
    let v: Vec<f32> = (0..5000).map(|i| (i as f32 * 0.01).sin()).collect();
    let f = Field::from_f32(Dims::new(100, 50, 1).unwrap(), &v).unwrap();
    for preset in ["szx", "szp_composed", "szp_centered", "szp"] {
        let a = compress(preset, &f);
        let arch = fzm::read(&a).unwrap();
        for s in &arch.stages {
            assert!(s.config.len() <= 128, "{preset} {}: config {} bytes", s.name, s.config.len());
            let st = stages::from_config(s.stage_type, s.stage_version, &s.config).unwrap();
            assert_eq!(st.config_bytes(), s.config, "{preset} {}: config does not round-trip", s.name);
        }
    }
}

#[test]
fn exact_output_sizes() {
    // constant field: codes all equal -> residuals 0 (centering) or only tile heads
    // non-zero; every AdaptiveBitpack block rate-0 with centering
    let n = 10_000usize;
    let f = Field::from_f32(Dims::d1(n as u64).unwrap(), &vec![5.0; n]).unwrap();
    let a = compress("szp_centered", &f);
    let arch = fzm::read(&a).unwrap();
    let size = |name: &str| arch.buffers.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("{name}")).data_size;
    assert_eq!(size("quant.outliers"), 0);
    // residual blocks of 32: all zero -> meta only
    assert_eq!(size("bitpack.packed"), (n as u64).div_ceil(32).next_multiple_of(8));
    // one head per 128-tile, each = round(5 / 2e-3) = 2500 -> zigzag 5000 -> 13 bits
    let tiles = (n as u64).div_ceil(128);
    assert_eq!(size("heads.packed"), tiles.div_ceil(128).next_multiple_of(8) + 4 * (tiles * 13).div_ceil(32));
    // one NaN -> one 8-byte outlier entry
    let mut v = vec![5.0f32; n];
    v[123] = f32::NAN;
    let a = compress("szp_composed", &Field::from_f32(Dims::d1(n as u64).unwrap(), &v).unwrap());
    let arch = fzm::read(&a).unwrap();
    assert_eq!(arch.buffers.iter().find(|b| b.name == "quant.outliers").unwrap().data_size, 8);
    let o = arch.buffer_data(arch.buffers.iter().position(|b| b.name == "quant.outliers").unwrap());
    assert_eq!(u32::from_le_bytes(o[0..4].try_into().unwrap()), 123);
    assert_eq!(u32::from_le_bytes(o[4..8].try_into().unwrap()), f32::NAN.to_bits());
}

#[test]
fn corrupt_stage_data_is_an_error() {
    let v: Vec<f32> = (0..4000).map(|i| if i == 17 { f32::NAN } else { (i as f32 * 0.01).sin() }).collect();
    let f = Field::from_f32(Dims::new(80, 50, 1).unwrap(), &v).unwrap();
    let a = compress("szp_centered", &f);
    let arch = fzm::read(&a).unwrap();
    let hs = arch.header.header_size as usize;
    let buf = |name: &str| arch.buffers.iter().find(|b| b.name == name).unwrap().clone();
    // 1. a bitpack width byte of 40
    let b = buf("bitpack.packed");
    let mut x = a.clone();
    x[hs + b.byte_offset as usize] = 40;
    refresh_crcs(&mut x);
    assert!(fzwgpu::decompress(cpu().as_ref(), &x, &Default::default()).is_err());
    // 2. an outlier index past the end
    let o = buf("quant.outliers");
    let mut x = a.clone();
    x[hs + o.byte_offset as usize..hs + o.byte_offset as usize + 4].copy_from_slice(&100_000u32.to_le_bytes());
    refresh_crcs(&mut x);
    assert!(matches!(fzwgpu::decompress(cpu().as_ref(), &x, &Default::default()), Err(fzwgpu::Error::Corrupt(_))));
    // 3. Lorenzo dims that do not match the codes (config bytes 8..16 = x)
    let li = arch.stages.iter().position(|s| s.name == "lorenzo").unwrap();
    let off = 80 + 256 * li + 40 + 8;
    let mut x = a.clone();
    x[off..off + 8].copy_from_slice(&81u64.to_le_bytes());
    refresh_crcs(&mut x);
    assert!(fzwgpu::decompress(cpu().as_ref(), &x, &Default::default()).is_err());
    // 4. every single-byte flip with CRCs refreshed: error or same-size output, on both backends alike
    for i in (0..a.len()).step_by(3) {
        let mut x = a.clone();
        x[i] ^= 0x24;
        refresh_crcs(&mut x);
        let c = fzwgpu::decompress(cpu().as_ref(), &x, &Default::default());
        let g = fzwgpu::decompress(gpu().as_ref(), &x, &Default::default());
        assert_eq!(c.is_ok(), g.is_ok(), "flip at {i}");
        if let (Ok(c), Ok(g)) = (c, g) {
            assert_eq!(c.field.bytes.len(), v.len() * 4);
            assert!(c.field.bytes == g.field.bytes, "flip at {i}: backends disagree");
        }
    }
}
