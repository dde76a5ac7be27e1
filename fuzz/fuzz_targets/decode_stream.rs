//! Arbitrary bytes into the FZMS stream reader and decoder (cpu backend): an error or
//! values, never a panic, a hang or a huge allocation. Each input is also tried with
//! its header, index and footer checksums made valid, to reach the checks behind them.
#![no_main]
use fzwgpu::backend::cpu::CpuBackend;
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fn decode(be: &CpuBackend, b: &[u8]) {
    let mut r = Cursor::new(b);
    if let Ok(ix) = fzwgpu::stream::read_index(&mut r) {
        let n = ix.header.dims.len();
        let _ = fzwgpu::stream::decompress_range(be, &Default::default(), &mut r, &ix, 0, n, std::io::sink(), &mut |_| {});
        let _ = fzwgpu::stream::decompress_range(be, &Default::default(), &mut r, &ix, n / 3, n / 2, std::io::sink(), &mut |_| {});
    }
}

fuzz_target!(|data: &[u8]| {
    let be = CpuBackend::new();
    decode(&be, data);
    if data.len() >= 96 {
        let mut b = data.to_vec();
        let crc = fzwgpu::format::fzm::crc32(&b[..56]);
        b[56..60].copy_from_slice(&crc.to_le_bytes());
        let len = b.len();
        let f = len - 32;
        let io = u64::from_le_bytes(b[f..f + 8].try_into().unwrap()) as usize;
        if io >= 64 && io <= f {
            let crc = fzwgpu::format::fzm::crc32(&b[io..f]);
            b[f + 16..f + 20].copy_from_slice(&crc.to_le_bytes());
        }
        b[f + 20..f + 24].copy_from_slice(b"FZMS");
        let crc = fzwgpu::format::fzm::crc32(&b[f..f + 24]);
        b[f + 24..f + 28].copy_from_slice(&crc.to_le_bytes());
        decode(&be, &b);
    }
});
