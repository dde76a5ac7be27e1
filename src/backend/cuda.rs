//! The CUDA backend (cargo feature `cuda`): NVIDIA GPUs through the CUDA driver API,
//! with every kernel in its CUDA C form generated from its WGSL
//! ([`crate::kernels::cuda`]) and compiled at run time by NVRTC for the device's
//! architecture. The driver and NVRTC libraries are loaded at run time (cudarc's
//! dynamic loading): a binary built with the feature starts where CUDA is absent and
//! reports [`Error::NoAdapter`] when asked for this backend.
//!
//! One stream per backend; a submission records its commands on it between two
//! events (the kernel time), synchronizes, then reads back. Buffers are pooled like
//! the wgpu backend's (size classes of 1/8 of a power of two, idle buffers kept up to
//! the peak working set, at least 4 GiB).

use super::{validate_recording, Backend, BackendInfo, BackendKind, Submission};
use crate::error::{Error, Result};
use crate::kernels::cuda::{cuda_kernel, CudaKernel, CudaOptions};
use crate::kernels::{Kernel, Variant};
use crate::recording::{BufId, BufSlice, Command, Recording};
use cudarc::driver::{result as cu, sys};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

/// Options of the CUDA backend.
#[derive(Debug, Clone, Default)]
pub struct CudaBackendOptions {
    /// Device ordinal (else `FZWGPU_CUDA_DEVICE`, else 0).
    pub device: Option<usize>,
    /// Generated-code options (else from `FZWGPU_CUDA_CHECKS` = off / on).
    pub code: Option<CudaOptions>,
}

struct Loaded {
    func: sys::CUfunction,
    k: CudaKernel,
    _module: sys::CUmodule,
}

#[derive(Default)]
struct Slab {
    bufs: Vec<Option<(sys::CUdeviceptr, u64)>>,
    free_ids: Vec<u32>,
    pool: Vec<(u64, sys::CUdeviceptr)>,
    pool_bytes: u64,
    live_bytes: u64,
    peak_bytes: u64,
}

/// The CUDA backend.
pub struct CudaBackend {
    info: BackendInfo,
    ctx: Arc<cudarc::driver::CudaContext>,
    stream: sys::CUstream,
    events: (sys::CUevent, sys::CUevent),
    arch: String,
    code: CudaOptions,
    slab: Mutex<Slab>,
    kernels: Mutex<HashMap<(Kernel, Variant), Arc<Loaded>>>,
    /// Serializes submissions and transfers on the one stream.
    run: Mutex<()>,
}

// The raw handles are used only under the locks above, with the context bound.
unsafe impl Send for CudaBackend {}
unsafe impl Sync for CudaBackend {}
unsafe impl Send for Loaded {}
unsafe impl Sync for Loaded {}

fn dev_err(what: &str, e: impl std::fmt::Debug) -> Error {
    let s = format!("{e:?}");
    if s.contains("OUT_OF_MEMORY") {
        Error::OutOfMemory(format!("{what}: {s}"))
    } else {
        Error::Device(format!("cuda: {what}: {s}"))
    }
}

/// Whether the CUDA driver and NVRTC libraries can be loaded here.
pub fn libraries_present() -> (bool, bool) {
    unsafe { (sys::is_culib_present(), cudarc::nvrtc::sys::is_culib_present()) }
}

/// Compile a kernel variant's generated CUDA C to PTX with NVRTC for `arch`
/// ("sm_90"); needs NVRTC, not a GPU.
pub fn compile_ptx(kernel: Kernel, variant: Variant, code: CudaOptions, arch: &str) -> Result<(CudaKernel, String)> {
    if !libraries_present().1 {
        return Err(Error::NoAdapter("NVRTC (libnvrtc) not found: set LD_LIBRARY_PATH to CUDA's lib directory".into()));
    }
    let k = cuda_kernel(kernel, variant, code)?;
    let opts = cudarc::nvrtc::CompileOptions {
        fmad: Some(false),
        ftz: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        options: vec![format!("--gpu-architecture={arch}"), "-std=c++17".into(), "--diag-suppress=177,550".into()],
        name: Some(format!("{}.cu", kernel.name())),
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(&k.source, opts).map_err(|e| match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => {
            Error::Unsupported(format!("{}: NVRTC: {}", kernel.name(), log.to_string_lossy()))
        }
        other => Error::Unsupported(format!("{}: NVRTC: {other:?}", kernel.name())),
    })?;
    Ok((k, ptx.to_src()))
}

/// The PTX cache folder: `FZWGPU_CACHE_DIR`, else `$XDG_CACHE_HOME/fzwgpu`, else
/// `$HOME/.cache/fzwgpu` (None: no cache).
fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("FZWGPU_CACHE_DIR") {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(std::path::PathBuf::from(d).join("fzwgpu"));
    }
    std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache").join("fzwgpu"))
}

/// [`compile_ptx`] through an on-disk cache keyed by the generated source, the
/// options, the architecture and the NVRTC version (NVRTC takes ~0.4 s per kernel; a
/// CLI call would pay it every time). Cache failures only cost the compile.
fn compile_cached(kernel: Kernel, variant: Variant, code: CudaOptions, arch: &str) -> Result<(CudaKernel, String)> {
    use std::hash::{Hash, Hasher};
    let k = cuda_kernel(kernel, variant, code)?;
    let (mut a, mut b) = (0i32, 0i32);
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b) };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&k.source, arch, a, b, env!("CARGO_PKG_VERSION")).hash(&mut h);
    let path = cache_dir().map(|d| d.join(format!("cuda-{}-{arch}-{:016x}.ptx", kernel.name(), h.finish())));
    if let Some(p) = &path {
        if let Ok(ptx) = std::fs::read_to_string(p) {
            return Ok((k, ptx));
        }
    }
    let (k, ptx) = compile_ptx(kernel, variant, code, arch)?;
    if let Some(p) = &path {
        if let Some(d) = p.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        let tmp = p.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &ptx).is_ok() {
            let _ = std::fs::rename(&tmp, p);
        }
    }
    Ok((k, ptx))
}

impl CudaBackend {
    pub fn new(opts: &CudaBackendOptions) -> Result<Self> {
        let (drv, rtc) = libraries_present();
        if !drv {
            return Err(Error::NoAdapter("CUDA driver library (libcuda) not found".into()));
        }
        if !rtc {
            return Err(Error::NoAdapter("NVRTC (libnvrtc) not found: set LD_LIBRARY_PATH to CUDA's lib directory".into()));
        }
        let ordinal = match opts.device {
            Some(d) => d,
            None => match std::env::var("FZWGPU_CUDA_DEVICE") {
                Ok(s) => s.parse().map_err(|_| Error::config(format!("FZWGPU_CUDA_DEVICE={s} is not a device number")))?,
                Err(_) => 0,
            },
        };
        cu::init().map_err(|e| Error::NoAdapter(format!("cuInit failed: {e:?}")))?;
        let count = cu::device::get_count().map_err(|e| Error::NoAdapter(format!("no CUDA device: {e:?}")))?;
        if ordinal as i32 >= count {
            return Err(Error::NoAdapter(format!("CUDA device {ordinal} asked, {count} present")));
        }
        let ctx = cudarc::driver::CudaContext::new(ordinal).map_err(|e| Error::NoAdapter(format!("CUDA context: {e:?}")))?;
        let (major, minor) = ctx.compute_capability().map_err(|e| dev_err("compute capability", e))?;
        let name = ctx.name().map_err(|e| dev_err("device name", e))?;
        let total = ctx.total_mem().map_err(|e| dev_err("device memory", e))? as u64;
        let mut version = 0i32;
        unsafe { sys::cuDriverGetVersion(&mut version) };
        let (rmaj, rmin) = unsafe {
            let (mut a, mut b) = (0i32, 0i32);
            cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b);
            (a, b)
        };
        let stream = cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(|e| dev_err("stream", e))?;
        let events = (
            cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| dev_err("event", e))?,
            cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| dev_err("event", e))?,
        );
        let code = match opts.code {
            Some(c) => c,
            None => {
                CudaOptions { bounds_checks: std::env::var("FZWGPU_CUDA_CHECKS").map(|v| v != "off").unwrap_or(true), ..Default::default() }
            }
        };
        let info = BackendInfo {
            kind: BackendKind::Cuda,
            adapter: name,
            api: "CUDA".into(),
            driver: format!("CUDA driver {}.{}, NVRTC {rmaj}.{rmin}, sm_{major}{minor}", version / 1000, (version % 1000) / 10),
            shader_f64: true,
            subgroups: true,
            subgroup_max: 32,
            timestamps: true,
            // the same cap as the wgpu backend on this card (the stages cap windows at
            // 2 GiB - 256 anyway), so archives split identically
            max_binding_bytes: (1 << 31) - 256,
            max_buffer_bytes: total,
            max_workgroups_per_dim: i32::MAX as u32,
            storage_align: 256,
            loop_limit: None,
        };
        Ok(CudaBackend {
            info,
            ctx,
            stream,
            events,
            arch: format!("sm_{major}{minor}"),
            code,
            slab: Mutex::new(Slab::default()),
            kernels: Mutex::new(HashMap::new()),
            run: Mutex::new(()),
        })
    }

    fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| dev_err("bind context", e))
    }

    fn kernel(&self, kernel: Kernel, f64: bool) -> Result<Arc<Loaded>> {
        let variant = Variant { f64: f64 && kernel.has_f64(), subgroup: kernel.has_subgroup() };
        let mut cache = self.kernels.lock().map_err(|_| Error::Device("kernel cache poisoned".into()))?;
        if let Some(l) = cache.get(&(kernel, variant)) {
            return Ok(l.clone());
        }
        let (k, ptx) = compile_cached(kernel, variant, self.code, &self.arch)?;
        let ptx = CString::new(ptx).map_err(|_| Error::Device("PTX with a NUL byte".into()))?;
        let module =
            unsafe { cu::module::load_data(ptx.as_ptr() as *const c_void) }.map_err(|e| dev_err(&format!("load {}", kernel.name()), e))?;
        let name = CString::new(k.entry.clone()).map_err(|_| Error::Device("kernel name with a NUL byte".into()))?;
        let func = unsafe { cu::module::get_function(module, name) }.map_err(|e| dev_err(&format!("find {}", kernel.name()), e))?;
        let l = Arc::new(Loaded { func, k, _module: module });
        cache.insert((kernel, variant), l.clone());
        Ok(l)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Slab>> {
        self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))
    }

    fn ptr(&self, s: &BufSlice) -> Result<sys::CUdeviceptr> {
        let slab = self.lock()?;
        let (p, cap) =
            slab.bufs.get(s.buf.0 as usize).and_then(|b| *b).ok_or_else(|| Error::Device(format!("buffer {} is not live", s.buf.0)))?;
        if s.offset.checked_add(s.size).is_none_or(|e| e > cap) {
            return Err(Error::Device(format!("window {}+{} outside buffer of {cap}", s.offset, s.size)));
        }
        Ok(p + s.offset)
    }

    fn trim_idle(&self) -> u64 {
        let Ok(mut slab) = self.lock() else { return 0 };
        let mut freed = 0;
        let _ = self.bind();
        for (c, p) in slab.pool.drain(..).collect::<Vec<_>>() {
            unsafe {
                let _ = cu::free_sync(p);
            }
            freed += c;
        }
        slab.pool_bytes = 0;
        slab.live_bytes -= freed;
        freed
    }

    /// The device address of a live buffer (for interop and tests).
    pub fn device_ptr(&self, id: BufId) -> Result<u64> {
        self.ptr(&BufSlice::new(id, 0, 0))
    }

    fn record(&self, cmd: &Command) -> Result<()> {
        match cmd {
            Command::Dispatch { kernel, f64, params, bindings, groups } => {
                let l = self.kernel(*kernel, *f64)?;
                let mut addrs = Vec::with_capacity(bindings.len());
                let mut sizes = Vec::with_capacity(bindings.len());
                for s in bindings {
                    addrs.push(self.ptr(s)?);
                    sizes.push(s.size);
                }
                let blob = l.k.args(&addrs, &sizes, params)?;
                // 16-byte aligned copy of the argument
                let mut aligned = vec![0u128; blob.len().div_ceil(16)];
                bytemuck::cast_slice_mut::<u128, u8>(&mut aligned)[..blob.len()].copy_from_slice(&blob);
                let mut args = [aligned.as_mut_ptr() as *mut c_void];
                let [x, y, z] = l.k.workgroup_size;
                unsafe { cu::launch_kernel(l.func, (*groups, 1, 1), (x, y, z), 0, self.stream, &mut args) }
                    .map_err(|e| dev_err(&format!("launch {} over {groups} workgroups", kernel.name()), e))?;
            }
            Command::Clear { dst } => {
                let p = self.ptr(dst)?;
                unsafe { cu::memset_d8_async(p, 0, dst.size as usize, self.stream) }.map_err(|e| dev_err("clear", e))?;
            }
            Command::Copy { src, dst } => {
                if src.size != dst.size {
                    return Err(Error::Device("copy between windows of different sizes".into()));
                }
                let (s, d) = (self.ptr(src)?, self.ptr(dst)?);
                unsafe { cu::memcpy_dtod_async(d, s, src.size as usize, self.stream) }.map_err(|e| dev_err("copy", e))?;
            }
        }
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        unsafe { cu::stream::synchronize(self.stream) }
            .map_err(|e| dev_err("stream synchronize (a kernel failed or the device was lost)", e))
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            unsafe {
                let _ = cu::stream::synchronize(self.stream);
                if let Ok(mut slab) = self.slab.lock() {
                    for (p, _) in slab.bufs.drain(..).flatten() {
                        let _ = cu::free_sync(p);
                    }
                    for (_, p) in slab.pool.drain(..) {
                        let _ = cu::free_sync(p);
                    }
                }
                if let Ok(mut k) = self.kernels.lock() {
                    for (_, l) in k.drain() {
                        if let Ok(l) = Arc::try_unwrap(l) {
                            let _ = cu::module::unload(l._module);
                        }
                    }
                }
                let _ = cu::event::destroy(self.events.0);
                let _ = cu::event::destroy(self.events.1);
                let _ = cu::stream::destroy(self.stream);
            }
        }
    }
}

impl Backend for CudaBackend {
    fn info(&self) -> &BackendInfo {
        &self.info
    }

    fn create_buffer(&self, bytes: u64) -> Result<BufId> {
        let bytes = bytes.max(16);
        let p = bytes.next_power_of_two();
        let step = (p / 8).max(256);
        let cap = bytes.next_multiple_of(step);
        let mut slab = self.lock()?;
        let ptr = match slab.pool.iter().position(|(c, _)| *c == cap) {
            Some(i) => {
                let (_, b) = slab.pool.swap_remove(i);
                slab.pool_bytes -= cap;
                b
            }
            None => {
                drop(slab);
                self.bind()?;
                let ptr = match unsafe { cu::malloc_sync(cap as usize) } {
                    Ok(p) => p,
                    Err(_) if self.trim_idle() > 0 => {
                        unsafe { cu::malloc_sync(cap as usize) }.map_err(|e| dev_err(&format!("allocate {cap} bytes"), e))?
                    }
                    Err(e) => return Err(dev_err(&format!("allocate {cap} bytes"), e)),
                };
                slab = self.lock()?;
                slab.live_bytes += cap;
                slab.peak_bytes = slab.peak_bytes.max(slab.live_bytes);
                ptr
            }
        };
        let id = match slab.free_ids.pop() {
            Some(id) => {
                slab.bufs[id as usize] = Some((ptr, cap));
                id
            }
            None => {
                slab.bufs.push(Some((ptr, cap)));
                (slab.bufs.len() - 1) as u32
            }
        };
        Ok(BufId(id))
    }

    fn release_buffer(&self, id: BufId) {
        if let Ok(mut slab) = self.lock() {
            if let Some((p, cap)) = slab.bufs.get_mut(id.0 as usize).and_then(Option::take) {
                slab.free_ids.push(id.0);
                if slab.pool_bytes + cap <= slab.peak_bytes.max(4 << 30) {
                    slab.pool_bytes += cap;
                    slab.pool.push((cap, p));
                } else {
                    slab.live_bytes -= cap;
                    drop(slab);
                    if self.bind().is_ok() {
                        // the stream may still use it: wait first
                        let _ = self.sync();
                        unsafe {
                            let _ = cu::free_sync(p);
                        }
                    }
                }
            }
        }
    }

    fn buffer_size(&self, id: BufId) -> Result<u64> {
        let slab = self.lock()?;
        slab.bufs
            .get(id.0 as usize)
            .and_then(|b| b.as_ref())
            .map(|(_, c)| *c)
            .ok_or_else(|| Error::Device(format!("buffer {} is not live", id.0)))
    }

    fn write_buffer(&self, id: BufId, offset: u64, data: &[u8]) -> Result<()> {
        let _run = self.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))?;
        let p = self.ptr(&BufSlice::new(id, offset, data.len() as u64))?;
        self.bind()?;
        // on this stream (a non-blocking one: the legacy stream's synchronous copies
        // would not be ordered with it), then wait, as `data` is borrowed
        unsafe { cu::memcpy_htod_async(p, data, self.stream) }.map_err(|e| dev_err("upload", e))?;
        self.sync()
    }

    fn submit(&self, rec: &Recording) -> Result<Submission> {
        validate_recording(self, rec)?;
        let _run = self.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))?;
        self.bind()?;
        // compile everything first, so compile time is not kernel time
        for cmd in &rec.commands {
            if let Command::Dispatch { kernel, f64, .. } = cmd {
                self.kernel(*kernel, *f64)?;
            }
        }
        unsafe { cu::event::record(self.events.0, self.stream) }.map_err(|e| dev_err("event", e))?;
        for cmd in &rec.commands {
            self.record(cmd)?;
        }
        unsafe { cu::event::record(self.events.1, self.stream) }.map_err(|e| dev_err("event", e))?;
        self.sync()?;
        let ms = unsafe { cu::event::elapsed(self.events.0, self.events.1) }.map_err(|e| dev_err("event time", e))?;
        let mut readbacks = Vec::with_capacity(rec.readbacks.len());
        for s in &rec.readbacks {
            let p = self.ptr(s)?;
            let mut v = vec![0u8; s.size as usize];
            unsafe { cu::memcpy_dtoh_async(&mut v, p, self.stream) }.map_err(|e| dev_err("readback", e))?;
            self.sync()?;
            readbacks.push(v);
        }
        Ok(Submission { readbacks, kernel_seconds: Some(ms as f64 * 1e-3) })
    }

    fn read_buffers(&self, slices: &[BufSlice]) -> Result<Vec<Vec<u8>>> {
        let _run = self.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))?;
        self.bind()?;
        self.sync()?;
        let mut out = Vec::with_capacity(slices.len());
        for s in slices {
            let p = self.ptr(s)?;
            let mut v = vec![0u8; s.size as usize];
            unsafe { cu::memcpy_dtoh_async(&mut v, p, self.stream) }.map_err(|e| dev_err("readback", e))?;
            self.sync()?;
            out.push(v);
        }
        Ok(out)
    }

    fn read_into(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<()> {
        super::check_read_into(slices, outs)?;
        let _run = self.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))?;
        self.bind()?;
        self.sync()?;
        for (s, o) in slices.iter().zip(outs.iter_mut()) {
            let p = self.ptr(s)?;
            unsafe { cu::memcpy_dtoh_async(o, p, self.stream) }.map_err(|e| dev_err("readback", e))?;
            self.sync()?;
        }
        Ok(())
    }

    fn trim_pool(&self) {
        self.trim_idle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel variant's generated CUDA C compiles with NVRTC (needs libnvrtc,
    /// not a GPU; fails when NVRTC is missing).
    #[test]
    fn every_kernel_compiles_with_nvrtc() {
        let arch = std::env::var("FZWGPU_CUDA_ARCH").unwrap_or_else(|_| "sm_90".into());
        let mut failures = Vec::new();
        for k in Kernel::ALL {
            for f64 in [false, true] {
                if f64 && !k.has_f64() {
                    continue;
                }
                for checks in [true, false] {
                    let code = CudaOptions { bounds_checks: checks, ..Default::default() };
                    if let Err(e) = compile_ptx(k, Variant { f64, subgroup: true }, code, &arch) {
                        failures.push(format!("{} f64={f64} checks={checks}: {e}", k.name()));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
