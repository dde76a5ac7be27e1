//! Arbitrary bytes into the archive decoder (cpu backend): an error or a field, never
//! a panic, a hang or a huge allocation. The corpus is seeded with valid archives
//! with their CRCs refreshed after mutation, so the structural checks get exercised.
#![no_main]
use fzwgpu::backend::cpu::CpuBackend;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let be = CpuBackend::new();
    let _ = fzwgpu::decompress(&be, data, &Default::default());
    // the same bytes with both CRCs made valid reach the checks behind them
    if data.len() >= 80 {
        let mut b = data.to_vec();
        let hs = u64::from_le_bytes(b[24..32].try_into().unwrap()) as usize;
        if hs >= 80 && hs <= b.len() {
            let d = crc32fast_hash(&b[hs..]);
            b[72..76].copy_from_slice(&d.to_le_bytes());
            b[76..80].fill(0);
            let h = crc32fast_hash(&b[..hs]);
            b[76..80].copy_from_slice(&h.to_le_bytes());
            let _ = fzwgpu::decompress(&be, &b, &Default::default());
        }
    }
});

fn crc32fast_hash(b: &[u8]) -> u32 {
    fzwgpu::format::fzm::crc32(b)
}
