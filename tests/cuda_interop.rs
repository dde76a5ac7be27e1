//! CUDA interop (build with `--features cuda`; needs an NVIDIA GPU and NVRTC, fails
//! without them): compress from and decompress into caller-owned device memory gives
//! the same archive and the same values as the host path on the cpu backend.
#![cfg(feature = "cuda")]

mod common;
use common::*;
use cudarc::driver::result as cu;
use fzwgpu::backend::cuda::{compress_from_device, decompress_to_device, CudaBackend, CudaBackendOptions};
use fzwgpu::{DataType, Dims, Error, Field};

#[test]
fn compress_and_decompress_through_device_pointers() {
    let be = CudaBackend::new(&Default::default()).expect("CUDA device and NVRTC");
    let mut rng = Rng(0x1234_5678_9abc_def1);
    // 257 x 311 values: rows that are not whole blocks; +4 bytes of slack for the
    // unaligned case
    let dims = Dims::new(311, 257, 1).unwrap();
    let n = dims.len() as usize;
    let v: Vec<f32> = (0..n).map(|i| ((i as f32) * 0.0007).sin() * 40.0 + (rng.next() >> 40) as f32 * 1e-6).collect();
    let field = Field::from_f32(dims, &v).unwrap();
    let bytes = field.bytes.len();
    let cpu = cpu();
    unsafe {
        let src = cu::malloc_sync(bytes + 16).unwrap();
        let dst = cu::malloc_sync(bytes + 16).unwrap();
        for (what, at) in [("aligned", src), ("unaligned", src + 4)] {
            cu::memcpy_htod_sync(at, &field.bytes).unwrap();
            for preset in ["szx", "szp_composed", "szp_centered"] {
                let host = noa_pipeline(preset).compress(cpu.as_ref(), &field).unwrap();
                let dev = compress_from_device(&mut noa_pipeline(preset), &be, DataType::F32, dims, at, 0).unwrap();
                assert_eq!(host.bytes, dev.bytes, "{preset} {what}: archive differs from the host path");
                let want = fzwgpu::decompress(cpu.as_ref(), &host.bytes, &Default::default()).unwrap();
                cu::memset_d8_sync(dst, 0xA5, bytes + 16).unwrap();
                let (dtype, d, _) = decompress_to_device(&be, &dev.bytes, dst, bytes as u64, 0).unwrap();
                assert_eq!((dtype, d), (DataType::F32, dims));
                let mut got = vec![0u8; bytes + 16];
                cu::memcpy_dtoh_sync(&mut got, dst).unwrap();
                assert_eq!(&got[..bytes], &want.field.bytes[..], "{preset} {what}: reconstruction differs");
                assert!(got[bytes..].iter().all(|b| *b == 0xA5), "{preset}: wrote past the field");
                let small = decompress_to_device(&be, &dev.bytes, dst, bytes as u64 - 4, 0);
                assert!(matches!(small, Err(Error::Input(_))), "{preset}: too small a destination must be an input error");
            }
        }
        assert!(matches!(compress_from_device(&mut noa_pipeline("szx"), &be, DataType::F32, dims, 0, 0), Err(Error::Input(_))));
        cu::free_sync(src).unwrap();
        cu::free_sync(dst).unwrap();
    }
}

/// Allocation failures at every point of a run on the CUDA backend are
/// `OutOfMemory` errors, never a panic or a wrong archive, and every buffer returns.
#[test]
fn cuda_allocation_failures_are_typed_errors() {
    let f = fault_field();
    let cpu = cpu();
    for preset in ["szx", "szp_composed", "szp_centered"] {
        let good = noa_pipeline(preset).compress(cpu.as_ref(), &f).unwrap().bytes;
        alloc_failure_sweep(
            preset,
            &f,
            &good,
            30,
            |k| CudaBackend::new(&CudaBackendOptions { fail_allocs_after: Some(k), ..Default::default() }).expect("CUDA device and NVRTC"),
            CudaBackend::live_buffers,
        );
    }
}

/// A damaged kernel cache (a truncated file that still starts like a CUBIN) costs a
/// recompile, never an error: the backend replaces the file and gives the same archive.
#[test]
fn damaged_kernel_cache_is_recompiled() {
    let dir = std::env::temp_dir().join(format!("fzwgpu-damaged-cache-{}", std::process::id()));
    std::env::set_var("FZWGPU_CACHE_DIR", &dir);
    let f = fault_field();
    let good = {
        let be = CudaBackend::new(&Default::default()).expect("CUDA device and NVRTC");
        noa_pipeline("szx").compress(&be, &f).unwrap().bytes
    };
    let mut damaged = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::write(e.path(), b"\x7fELF\x02\x01\x01\x00truncated").unwrap();
        damaged += 1;
    }
    assert!(damaged > 0, "nothing was cached in {}", dir.display());
    let be = CudaBackend::new(&Default::default()).expect("CUDA device and NVRTC");
    assert_eq!(noa_pipeline("szx").compress(&be, &f).unwrap().bytes, good, "archive after the recompile differs");
    let repaired = std::fs::read_dir(&dir).unwrap().flatten().filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.len() > 1000)).count();
    // (the other tests of this binary may share the folder: only count replacements)
    assert!(repaired > 0, "no damaged cache file was replaced");
    let _ = std::fs::remove_dir_all(&dir);
}
