//! Arbitrary text into the TOML config parser: an error or a pipeline, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(mut p) = fzwgpu::Pipeline::from_toml(s) {
            let _ = p.finalize();
        }
    }
});
