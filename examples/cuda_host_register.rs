//! What registering the caller's host memory with CUDA costs (`cuMemHostRegister` with
//! device mapping: the pages locked so the device reads and writes them in place, the
//! CUDA form of the import in `scripts/device/probes/zerocopy`), and its release
//! (`cuMemHostUnregister`), for N and N/4 bytes of touched memory, three times each.
//! The question for the item 5: does zero copy from the caller's memory cost
//! less per call than the staged copies it would save (PERFORMANCE.md, Next steps 5)?
//! Needs a CUDA device. `cargo run --release --features cuda --example cuda_host_register [MiB=1024]`
use cudarc::driver::sys;
use std::time::Instant;

fn check(what: &str, r: sys::CUresult) {
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS, "{what}");
}

fn main() {
    let mib: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1024);
    if !fzwgpu::backend::cuda::libraries_present().0 {
        eprintln!("cuda_host_register: no CUDA driver library here");
        std::process::exit(1);
    }
    let ctx = cudarc::driver::CudaContext::new(0).expect("CUDA device 0");
    ctx.bind_to_thread().expect("bind the context");
    println!("device: {}", ctx.name().unwrap_or_default());
    for size in [mib << 20, (mib << 20) / 4] {
        // touched, as a caller's field is
        let mut v = vec![1u8; size];
        for _ in 0..3 {
            let p = v.as_mut_ptr().cast();
            let t = Instant::now();
            // SAFETY: `size` bytes of `v`, unregistered below before `v` is dropped
            check("cuMemHostRegister", unsafe { sys::cuMemHostRegister_v2(p, size, sys::CU_MEMHOSTREGISTER_DEVICEMAP) });
            let reg = t.elapsed().as_secs_f64();
            let mut d: sys::CUdeviceptr = 0;
            check("cuMemHostGetDevicePointer", unsafe { sys::cuMemHostGetDevicePointer_v2(&mut d, p, 0) });
            let t = Instant::now();
            check("cuMemHostUnregister", unsafe { sys::cuMemHostUnregister(p) });
            let unreg = t.elapsed().as_secs_f64();
            println!(
                "{} MiB: register {:.3} ms ({:.1} GB/s of pages), device pointer {d:#x}, unregister {:.3} ms",
                size >> 20,
                reg * 1e3,
                size as f64 / reg / 1e9,
                unreg * 1e3
            );
        }
    }
}
