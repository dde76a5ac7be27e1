//! Arbitrary bytes as float32/float64 values, compressed and decompressed on the cpu
//! backend with a bound, block size and pipeline (SZx, or the szp_composed,
//! szp_centered, szp and sperr_gpu presets, 1-D or 2-D) taken from the input: the
//! bound must hold and non-finite values must come back bit-exact.
#![no_main]
use fzwgpu::backend::cpu::CpuBackend;
use fzwgpu::stages::szx::{SzxConfig, SzxStage};
use fzwgpu::{DataType, Dims, ErrorBound, ErrorMode, Field, Pipeline};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (head, body) = data.split_at(4);
    let f64v = head[0] & 1 == 1;
    let mode = match head[0] >> 1 & 3 { 0 => ErrorMode::Abs, 1 => ErrorMode::Noa, _ => ErrorMode::Rel };
    let eb = 10f64.powi(-((head[1] % 40) as i32) + 3);
    let bs = 1 + (u16::from_le_bytes([head[2], head[3]]) % 4096) as u32;
    let sz = if f64v { 8 } else { 4 };
    let n = body.len() / sz;
    if n == 0 {
        return;
    }
    let dtype = if f64v { DataType::F64 } else { DataType::F32 };
    // 2-D when the count factors with a row of 7 or more
    let dims = match (7..=64u64).find(|w| n as u64 % w == 0 && n as u64 / w > 1) {
        Some(w) if head[0] & 0x20 != 0 => Dims::new(w, n as u64 / w, 1).unwrap(),
        _ => Dims::d1(n as u64).unwrap(),
    };
    let field = Field::new(dtype, dims, body[..n * sz].to_vec()).unwrap();
    let be = CpuBackend::new();
    let bound = ErrorBound::new(mode, eb).unwrap();
    let mut p = match head[0] >> 3 & 3 {
        _ if head[0] & 0x40 != 0 => {
            let mut p = Pipeline::from_preset("sperr_gpu").unwrap();
            p.override_bound(bound).unwrap();
            p
        }
        0 => {
            let mut p = Pipeline::new();
            let st = SzxStage::new(SzxConfig { dtype, block_size: bs, bound }).unwrap();
            p.add_stage("szx", Box::new(st)).unwrap();
            p
        }
        k => {
            let mut p = Pipeline::from_preset(["szp_composed", "szp_centered", "szp"][k as usize - 1]).unwrap();
            p.override_bound(bound).unwrap();
            p
        }
    };
    let c = match p.compress(&be, &field) {
        Ok(c) => c,
        // SZp has no REL mode: a typed refusal is the documented answer
        Err(fzwgpu::Error::Config(_)) if mode == ErrorMode::Rel => return,
        Err(e) => panic!("compress of valid input failed: {e:?}"),
    };
    let d = fzwgpu::decompress(&be, &c.bytes, &Default::default()).expect("decode of own archive failed");
    let eb_abs = c.report.field_bound();
    let a = field.to_f64();
    let b = d.field.to_f64();
    for i in 0..n {
        let (ba, bb) = (&field.bytes[i * sz..(i + 1) * sz], &d.field.bytes[i * sz..(i + 1) * sz]);
        if !a[i].is_finite() {
            assert_eq!(ba, bb, "non-finite element {i} changed");
        } else if f64v {
            // exact check: x' within [x - eb, x + eb] via two-sum
            let s = a[i] - b[i];
            let t = s - a[i];
            let err = (a[i] - (s - t)) + (-b[i] - t);
            assert!(s.abs() < eb_abs || (s.abs() == eb_abs && (err == 0.0 || (err < 0.0) == (s > 0.0))), "element {i}: {} vs {} eb {eb_abs}", a[i], b[i]);
        } else {
            assert!((a[i] - b[i]).abs() <= eb_abs, "element {i}: {} vs {} eb {eb_abs}", a[i], b[i]);
        }
    }
});
