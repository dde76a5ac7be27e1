//! The CUDA backend (cargo feature `cuda`): NVIDIA GPUs through the CUDA driver API,
//! with every kernel in its CUDA C form generated from its WGSL
//! ([`crate::kernels::cuda`]) and compiled at run time by NVRTC for the device's
//! architecture. The driver and NVRTC libraries are loaded at run time (cudarc's
//! dynamic loading): a binary built with the feature starts where CUDA is absent and
//! reports [`Error::NoAdapter`] when asked for this backend.
//!
//! Two streams per backend: submissions and uploads on one; a submission records its
//! commands on it between two events (the kernel time), synchronizes, then reads
//! back. Reads of buffers ([`Backend::read_into`] and its kin) run on the second,
//! ordered after the work queued on the first before the call, so they proceed
//! beside later uploads and kernels (the overlapped paths). Buffers are pooled like
//! the wgpu backend's (size classes of 1/8 of a power of two, idle buffers kept up to
//! the peak working set, at least 4 GiB).

use super::pool::{pool_from_env, size_class, BufferTable};
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
    /// Generated-code options (else [`CudaOptions::from_env`]).
    pub code: Option<CudaOptions>,
    /// Fault injection for tests: every device allocation after this many fails with
    /// `Error::OutOfMemory`.
    pub fail_allocs_after: Option<u64>,
    /// Direct transfers: large uploads and readbacks register the caller's memory
    /// (`cuMemHostRegister`) and copy straight from and into it instead of through the
    /// pinned staging buffers (`Some(true)`); None: `FZWGPU_HOST_IMPORT`, else off.
    pub host_import: Option<bool>,
    /// Direct transfers' piece in bytes (tests; None: `FZWGPU_IMPORT_PIECE`, else
    /// 64 MiB).
    pub import_piece: Option<u64>,
}

struct Loaded {
    func: sys::CUfunction,
    k: CudaKernel,
    _module: sys::CUmodule,
}

/// A device allocation in the buffer table.
struct Dev {
    ptr: sys::CUdeviceptr,
    /// Caller-owned ([`CudaBackend::import`]): never pooled or freed.
    external: bool,
}

/// The CUDA backend.
pub struct CudaBackend {
    info: BackendInfo,
    ctx: Arc<cudarc::driver::CudaContext>,
    stream: sys::CUstream,
    events: (sys::CUevent, sys::CUevent),
    arch: String,
    code: CudaOptions,
    slab: Mutex<BufferTable<Dev>>,
    kernels: Mutex<HashMap<(Kernel, Variant), Arc<Loaded>>>,
    fail_allocs_after: Option<u64>,
    allocs: std::sync::atomic::AtomicU64,
    /// Serializes submissions and uploads on the main stream; holds the pinned
    /// staging buffers they go through.
    run: Mutex<Staging>,
    /// Serializes reads on the read stream; holds their own staging buffers.
    reads: Mutex<ReadSide>,
    /// Direct transfers on (`register_span`), and why the last one fell back to staging.
    host_import: bool,
    /// Direct transfers' piece in bytes (`direct::config`).
    import_piece: usize,
    import_fallback: direct::Fallback,
}

/// The reads' stream, staging buffers and ordering event: a read makes its stream wait
/// (on the device, through `after`) for the work queued on the main stream before
/// it, then copies while later uploads and kernels run on the main stream.
struct ReadSide {
    stream: sys::CUstream,
    after: sys::CUevent,
    staging: Staging,
}

const HOST_PAGE: usize = 4096;
use super::direct::{self, IMPORT_MIN};

/// Registered spans of the caller's memory (page starts), unregistered on drop.
struct Registered(Vec<usize>);

impl Drop for Registered {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: each was registered by `register_span` and its copies have been
            // waited for (or never queued)
            unsafe { sys::cuMemHostUnregister(p as *mut c_void) };
        }
    }
}

/// Register the pages around `len` bytes at `addr` (page-locked for the device's copy
/// engine); returns the span's start, or the driver's refusal (memory already
/// registered by another call, or not pinnable).
fn register_span(addr: usize, len: usize) -> std::result::Result<usize, String> {
    let (start, size, _) = direct::span(addr, len, HOST_PAGE as u64);
    // SAFETY: the caller's memory, mapped for the borrow the caller holds; registering
    // only pins it
    let r = unsafe { sys::cuMemHostRegister_v2(start as *mut c_void, size as usize, 0) };
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(start)
    } else {
        Err(format!("cuMemHostRegister of {size} bytes: {r:?}"))
    }
}

/// Page-locked host buffers used in turn (two by default; `staging::Shape`), each with
/// an event marking the end of the last copy that used it: the host fills (or drains)
/// one while the device copies the others, at the DMA rate pageable memory does not
/// reach.
struct Staging {
    bufs: Vec<(*mut u8, sys::CUevent)>,
    /// Bytes of each buffer.
    bytes: usize,
}

// The raw handles are used only under the locks above, with the context bound.
unsafe impl Send for CudaBackend {}
unsafe impl Sync for CudaBackend {}
unsafe impl Send for Loaded {}
unsafe impl Send for Staging {}
unsafe impl Send for ReadSide {}
unsafe impl Sync for Loaded {}

impl Staging {
    /// `count` pinned staging buffers of `bytes` each (fewer than two if page-locked
    /// memory is refused: then pageable copies).
    fn pinned(count: usize, bytes: u64) -> Self {
        let bytes = bytes as usize;
        let mut staging = Staging { bufs: Vec::new(), bytes };
        for _ in 0..count {
            let Ok(p) = (unsafe { cu::malloc_host(bytes, 0) }) else { break };
            let Ok(e) = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) else {
                unsafe {
                    let _ = cu::free_host(p);
                }
                break;
            };
            staging.bufs.push((p as *mut u8, e));
        }
        staging
    }

    /// Free the buffers (the streams that used them synchronized).
    fn free(&self) {
        for (p, e) in &self.bufs {
            unsafe {
                let _ = cu::free_host(*p as *mut c_void);
                let _ = cu::event::destroy(*e);
            }
        }
    }
}

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

/// Compile a kernel variant's generated CUDA C with NVRTC to machine code (CUBIN) for
/// `arch` ("sm_90"), so the driver loads it without a JIT step; needs NVRTC, not a
/// GPU. Options: IEEE arithmetic with no contraction (`--fmad=false`: the WGSL and
/// the CPU twins compute a * b + c in two roundings), no flush to zero, exact
/// division and square root.
pub fn compile(kernel: Kernel, variant: Variant, code: CudaOptions, arch: &str) -> Result<(CudaKernel, Vec<u8>)> {
    let k = cuda_kernel(kernel, variant, code)?;
    let image = compile_source(kernel, &k, arch)?;
    Ok((k, image))
}

/// The architecture to compile for without a device (tests, `kernel-source --cubin`):
/// `FZWGPU_CUDA_ARCH`, else sm_90 (the H200). A backend compiles for its device's.
pub fn arch_from_env() -> String {
    crate::envcfg::get("FZWGPU_CUDA_ARCH").ok().flatten().unwrap_or_else(|| "sm_90".into())
}

/// NVRTC's options for `arch`: [`extra_options`] after the fixed ones.
fn nvrtc_options(arch: &str) -> Vec<String> {
    let mut o: Vec<String> = vec![
        format!("--gpu-architecture={arch}"),
        "--fmad=false".into(),
        "--ftz=false".into(),
        "--prec-div=true".into(),
        "--prec-sqrt=true".into(),
        "-std=c++17".into(),
        "--diag-suppress=177,550".into(),
    ];
    o.extend(extra_options());
    o
}

/// Optional NVRTC options: with `FZWGPU_CUDA_LINEINFO=on` (diagnostic) `-lineinfo`, so
/// Nsight Compute can attribute its source-level counters to lines of the generated
/// CUDA C (`fzwgpu kernel-source K --cuda` prints that source); the same machine code
/// otherwise. The kernel cache keys on them.
fn extra_options() -> Vec<String> {
    let mut o = Vec::new();
    if crate::envcfg::switch("FZWGPU_CUDA_LINEINFO").ok().flatten() == Some(true) {
        o.push("-lineinfo".into());
    }
    o
}

/// [`compile`] of an already generated kernel.
pub fn compile_source(kernel: Kernel, k: &CudaKernel, arch: &str) -> Result<Vec<u8>> {
    use cudarc::nvrtc::{result as rtc, sys as rsys};
    if !libraries_present().1 {
        return Err(Error::NoAdapter("NVRTC (libnvrtc) not found: set LD_LIBRARY_PATH to CUDA's lib directory".into()));
    }
    let err = |what: &str, e: rtc::NvrtcError| Error::Unsupported(format!("{}: NVRTC {what}: {e:?}", kernel.name()));
    let src = CString::new(k.source.as_bytes()).map_err(|_| Error::Unsupported("generated source with a NUL byte".into()))?;
    let name = CString::new(format!("{}.cu", kernel.name())).map_err(|_| Error::Unsupported("kernel name".into()))?;
    let prog = rtc::create_program(&src, Some(&name)).map_err(|e| err("create", e))?;
    let options = nvrtc_options(arch);
    let out = (|| {
        if let Err(e) = unsafe { rtc::compile_program(prog, &options) } {
            let log = unsafe { rtc::get_program_log(prog) }
                .map(|l| {
                    let bytes: Vec<u8> = l.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
                    String::from_utf8_lossy(&bytes).into_owned()
                })
                .unwrap_or_default();
            return Err(Error::Unsupported(format!("{}: NVRTC: {e:?}\n{log}", kernel.name())));
        }
        let mut size = 0usize;
        unsafe { rsys::nvrtcGetCUBINSize(prog, &mut size) }.result().map_err(|e| err("cubin size", e))?;
        if size == 0 {
            return Err(Error::Unsupported(format!("{}: NVRTC made no machine code for {arch}", kernel.name())));
        }
        let mut image = vec![0u8; size];
        unsafe { rsys::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut std::ffi::c_char) }.result().map_err(|e| err("cubin", e))?;
        Ok(image)
    })();
    unsafe {
        let _ = rtc::destroy_program(prog);
    }
    out
}

/// The kernel cache folder: `FZWGPU_CACHE_DIR`, else `$XDG_CACHE_HOME/fzwgpu`, else
/// `$HOME/.cache/fzwgpu`, else `fzwgpu-cache` in the temporary folder.
fn cache_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("FZWGPU_CACHE_DIR") {
        return d.into();
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return std::path::PathBuf::from(d).join("fzwgpu");
    }
    match std::env::var_os("HOME") {
        Some(h) => std::path::PathBuf::from(h).join(".cache").join("fzwgpu"),
        None => std::env::temp_dir().join("fzwgpu-cache"),
    }
}

/// [`compile`] through an on-disk cache keyed by the generated source, the
/// architecture and the NVRTC version (NVRTC takes 0.4 s to several seconds per kernel;
/// each CLI call would pay it). A cache that cannot be read or written only costs the
/// compile.
fn compile_cached(kernel: Kernel, variant: Variant, code: CudaOptions, arch: &str) -> Result<(CudaKernel, Vec<u8>)> {
    let k = cuda_kernel(kernel, variant, code)?;
    let path = cache_path(kernel, &k, arch);
    if let Ok(file) = std::fs::read(&path) {
        if let Some(image) = cached_image(file) {
            return Ok((k, image));
        }
    }
    let image = compile_source(kernel, &k, arch)?;
    store_cached(&path, &image);
    Ok((k, image))
}

/// The cache file of a generated kernel: keyed by its source, the architecture and
/// any optional NVRTC options, the NVRTC version and the crate version.
fn cache_path(kernel: Kernel, k: &CudaKernel, arch: &str) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let (mut a, mut b) = (0i32, 0i32);
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b) };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&k.source, arch, a, b, env!("CARGO_PKG_VERSION")).hash(&mut h);
    // (caches made without optional options keep their keys)
    let extra = extra_options();
    if !extra.is_empty() {
        extra.hash(&mut h);
    }
    cache_dir().join(format!("cuda-{}-{arch}-{:016x}.cubin", kernel.name(), h.finish()))
}

/// The image of a cache file: `image ++ len (u64 LE) ++ CRC-32 of image (u32 LE)`,
/// when the length and the CRC match and the image is an ELF file. The driver's
/// cuModuleLoadData takes no length and trusts the offsets inside the image, so a
/// truncated or damaged file must never reach it.
fn cached_image(mut file: Vec<u8>) -> Option<Vec<u8>> {
    let n = file.len().checked_sub(12)?;
    let len = u64::from_le_bytes(file[n..n + 8].try_into().ok()?);
    let crc = u32::from_le_bytes(file[n + 8..].try_into().ok()?);
    file.truncate(n);
    (len == n as u64 && crc32fast::hash(&file) == crc && file.starts_with(b"\x7fELF")).then_some(file)
}

/// Write a compiled image to the cache (best effort: an unwritable cache only costs
/// compile time), with its length and CRC-32 (`cached_image`), atomically through a
/// temporary file.
fn store_cached(path: &std::path::Path, image: &[u8]) {
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = Vec::with_capacity(image.len() + 12);
    file.extend_from_slice(image);
    file.extend_from_slice(&(image.len() as u64).to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(image).to_le_bytes());
    if std::fs::write(&tmp, &file).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

impl CudaBackend {
    pub fn new(opts: &CudaBackendOptions) -> Result<Self> {
        crate::envcfg::check()?;
        let (drv, rtc) = libraries_present();
        if !drv {
            return Err(Error::NoAdapter("CUDA driver library (libcuda) not found".into()));
        }
        if !rtc {
            return Err(Error::NoAdapter("NVRTC (libnvrtc) not found: set LD_LIBRARY_PATH to CUDA's lib directory".into()));
        }
        let ordinal = match opts.device {
            Some(d) => d,
            None => crate::envcfg::number("FZWGPU_CUDA_DEVICE")?.unwrap_or(0) as usize,
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
            None => CudaOptions::from_env(),
        };
        let shape = super::staging::Shape::from_env(super::staging::Shape::CUDA)?;
        let reads = ReadSide {
            stream: cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(|e| dev_err("read stream", e))?,
            after: cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(|e| dev_err("event", e))?,
            staging: Staging::pinned(shape.download_buffers, shape.download_chunk),
        };
        let coalesce = crate::kernels::coalesce_from_env(true);
        let info = BackendInfo {
            kind: BackendKind::Cuda,
            adapter: name,
            api: "CUDA".into(),
            driver: format!("CUDA driver {}.{}, NVRTC {rmaj}.{rmin}, sm_{major}{minor}", version / 1000, (version % 1000) / 10),
            shader_f64: true,
            subgroups: true,
            subgroup_max: 32,
            subgroup_layout: "warps of 32 consecutive threads (CUDA's definition)".into(),
            timestamps: true,
            // the same cap as the wgpu backend on this card (the stages cap windows at
            // 2 GiB - 256 anyway), so archives split identically
            max_binding_bytes: (1 << 31) - 256,
            max_buffer_bytes: total,
            max_workgroups_per_dim: i32::MAX as u32,
            storage_align: 256,
            loop_limit: None,
            coalesce,
            software: false,
            upload_staging: "pinned host memory".into(),
            // round 41 (h100-r41c.log): the archive's upload 6.4-6.6 -> 5.7-6.2 ms,
            // decompress_into 38.9-39.0 -> 39.5-40.3 GB/s, now that the copy threads
            // hash (round 33's slower figures hashed after the copy)
            hash_on_upload: super::staging::hash_on_upload(true)?,
        };
        let (host_import, import_piece) = direct::config(opts.host_import, opts.import_piece)?;
        let mut info = info;
        if host_import {
            info.upload_staging = "the caller's memory registered (direct transfers; else pinned host memory)".into();
        }
        Ok(CudaBackend {
            host_import,
            import_piece: import_piece as usize,
            import_fallback: direct::Fallback::default(),
            info,
            ctx,
            stream,
            events,
            arch: format!("sm_{major}{minor}"),
            code,
            slab: Mutex::new(BufferTable::new(pool_from_env()?)),
            kernels: Mutex::new(HashMap::new()),
            run: Mutex::new(Staging::pinned(shape.upload_buffers, shape.upload_chunk)),
            reads: Mutex::new(reads),
            fail_allocs_after: opts.fail_allocs_after,
            allocs: std::sync::atomic::AtomicU64::new(0),
        })
    }

    fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| dev_err("bind context", e))
    }

    fn kernel(&self, kernel: Kernel, f64: bool) -> Result<Arc<Loaded>> {
        let variant = Variant { f64, subgroup: true, coalesce: self.info.coalesce }.for_kernel(kernel);
        let mut cache = self.kernels.lock().map_err(|_| Error::Device("kernel cache poisoned".into()))?;
        if let Some(l) = cache.get(&(kernel, variant)) {
            return Ok(l.clone());
        }
        let (k, image) = compile_cached(kernel, variant, self.code, &self.arch)?;
        // SAFETY: `image` is a complete CUBIN: NVRTC's output, or a cache file whose
        // length and CRC-32 match what was stored (`cached_image`); cuModuleLoadData
        // reads it before returning and the Vec outlives the call.
        let load = |image: &[u8]| unsafe { cu::module::load_data(image.as_ptr() as *const c_void) };
        let module = match load(&image) {
            Ok(m) => m,
            // a cached image the driver rejects (a driver update, say): compile
            // afresh and replace it
            Err(_) => {
                let image = compile_source(kernel, &k, &self.arch)?;
                store_cached(&cache_path(kernel, &k, &self.arch), &image);
                load(&image).map_err(|e| dev_err(&format!("load {}", kernel.name()), e))?
            }
        };
        let name = CString::new(k.entry.clone()).map_err(|_| Error::Device("kernel name with a NUL byte".into()))?;
        let func = unsafe { cu::module::get_function(module, name) }.map_err(|e| dev_err(&format!("find {}", kernel.name()), e))?;
        let l = Arc::new(Loaded { func, k, _module: module });
        cache.insert((kernel, variant), l.clone());
        Ok(l)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, BufferTable<Dev>>> {
        self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))
    }

    /// The run lock: one submission or upload on the main stream at a time; it holds
    /// the staging buffers.
    fn run(&self) -> Result<std::sync::MutexGuard<'_, Staging>> {
        self.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))
    }

    /// The read lock, with the read stream ordered after the work queued on the main
    /// stream so far (a record and a wait: neither blocks the host, nor takes the run
    /// lock, so a read does not wait for an upload in progress on another thread).
    fn read_side(&self) -> Result<std::sync::MutexGuard<'_, ReadSide>> {
        let rs = self.reads.lock().map_err(|_| Error::Device("read lock poisoned".into()))?;
        self.bind()?;
        unsafe {
            cu::event::record(rs.after, self.stream)
                .and_then(|_| cu::stream::wait_event(rs.stream, rs.after, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT))
        }
        .map_err(|e| dev_err("order a read after the main stream", e))?;
        Ok(rs)
    }

    fn ptr(&self, s: &BufSlice) -> Result<sys::CUdeviceptr> {
        let slab = self.lock()?;
        let (Dev { ptr: p, .. }, cap) = slab.get(s.buf)?;
        let (p, cap) = (*p, *cap);
        if s.offset.checked_add(s.size).is_none_or(|e| e > cap) {
            return Err(Error::Device(format!("window {}+{} outside buffer of {cap}", s.offset, s.size)));
        }
        Ok(p + s.offset)
    }

    fn trim_idle(&self) -> u64 {
        let Ok(mut slab) = self.lock() else { return 0 };
        let _ = self.bind();
        let (idle, freed) = slab.drain_idle();
        for d in idle {
            unsafe {
                let _ = cu::free_sync(d.ptr);
            }
        }
        freed
    }

    /// Buffers currently handed out (not in the pool, not imported): 0 between calls.
    pub fn live_buffers(&self) -> usize {
        self.lock().map(|s| s.live_ids().filter(|&i| s.get(BufId(i)).is_ok_and(|(d, _)| !d.external)).count()).unwrap_or(usize::MAX)
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
                let mut blob = l.k.args(&addrs, &sizes, params)?;
                let mut args = [blob.as_mut_ptr() as *mut c_void];
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

    /// Copy host bytes to device memory through the staging buffers (the caller holds
    /// the run lock: `st`), then wait. With `crc`, returns the CRC-32 of `data`, each
    /// staged piece hashed by the threads that copy it (while it is in their caches).
    fn upload(&self, st: &Staging, dst: sys::CUdeviceptr, data: &[u8], crc: bool) -> Result<Option<u32>> {
        let whole = |data: &[u8]| crc.then(|| crate::hostmem::crc32(data));
        if self.host_import && data.len() as u64 >= IMPORT_MIN {
            match self.direct(data.as_ptr() as usize, data.len(), self.stream, |at, n| {
                // SAFETY: `data` is borrowed until the stream is synchronized below
                unsafe { cu::memcpy_htod_async(dst + at as u64, &data[at..at + n], self.stream) }.map_err(|e| dev_err("upload", e))
            })? {
                Ok(()) => return Ok(whole(data)),
                Err(why) => self.import_fallback.note(why),
            }
        }
        if st.bufs.len() < 2 || data.len() < (1 << 20) {
            unsafe { cu::memcpy_htod_async(dst, data, self.stream) }.map_err(|e| dev_err("upload", e))?;
            self.sync()?;
            return Ok(whole(data));
        }
        let mut pieces: Vec<(u32, u64)> = Vec::new();
        let nbuf = st.bufs.len();
        let mut trace = super::staging::FillTrace::new();
        let stream = crate::hostmem::stream_copies(crate::hostmem::Way::Up, data.len());
        for (k, chunk) in data.chunks(st.bytes).enumerate() {
            let (buf, ev) = st.bufs[k % nbuf];
            if k >= nbuf {
                unsafe { cu::event::synchronize(ev) }.map_err(|e| dev_err("upload", e))?;
            }
            trace.waited();
            // SAFETY: `buf` is a pinned staging buffer of st.bytes >= chunk.len()
            // bytes that no copy in flight uses (its event was waited on above).
            let staged = unsafe {
                let s = std::slice::from_raw_parts_mut(buf, chunk.len());
                if crc {
                    pieces.push((crate::hostmem::par_copy_crc_as(s, chunk, stream), chunk.len() as u64));
                } else {
                    crate::hostmem::par_copy_as(s, chunk, stream);
                }
                &*s
            };
            let at = dst + (k * st.bytes) as u64;
            unsafe { cu::memcpy_htod_async(at, staged, self.stream) }.map_err(|e| dev_err("upload", e))?;
            unsafe { cu::event::record(ev, self.stream) }.map_err(|e| dev_err("upload", e))?;
            trace.copied();
        }
        self.sync()?;
        trace.done("cuda upload", crc, stream, data.len(), data.as_ptr() as usize, st.bytes);
        Ok(crc.then(|| crate::hostmem::crc32_concat(pieces)))
    }

    /// Copy device memory at `srcs[k]` into `outs[k]` (every k) through the staging
    /// buffers `st`, on `stream` (after the work queued on it), then wait for that
    /// stream; returns each destination's CRC-32 when `crc` (each piece hashed by the
    /// thread that copies it), else nothing. The windows are cut into pieces packed
    /// into buffer fills (`staging::pack`: small windows share a fill), up to one fill
    /// per buffer queued ahead of the host's copies.
    fn download(
        &self,
        st: &Staging,
        stream: sys::CUstream,
        srcs: &[sys::CUdeviceptr],
        outs: &mut [&mut [u8]],
        crc: bool,
    ) -> Result<Vec<u32>> {
        let mut crcs: Vec<Option<u32>> = vec![None; outs.len()];
        // direct transfers first (each waits for its stream), the rest staged
        let mut staged: Vec<usize> = Vec::with_capacity(outs.len());
        for (k, out) in outs.iter_mut().enumerate() {
            if !(self.host_import && out.len() as u64 >= IMPORT_MIN) {
                staged.push(k);
                continue;
            }
            let (addr, len, src) = (out.as_mut_ptr() as usize, out.len(), srcs[k]);
            match self.direct(addr, len, stream, |at, n| {
                // SAFETY: `out` is borrowed mutably until the stream is synchronized
                // (in `direct`); the copy writes its bytes at..at + n only
                let dst = unsafe { std::slice::from_raw_parts_mut((addr + at) as *mut u8, n) };
                unsafe { cu::memcpy_dtoh_async(dst, src + at as u64, stream) }.map_err(|e| dev_err("readback", e))
            })? {
                Ok(()) => crcs[k] = crc.then(|| crate::hostmem::crc32(out)),
                Err(why) => {
                    self.import_fallback.note(why);
                    staged.push(k);
                }
            }
        }
        if st.bufs.len() < 2 {
            // no pinned memory: pageable copies
            for &k in &staged {
                unsafe { cu::memcpy_dtoh_async(&mut *outs[k], srcs[k], stream) }.map_err(|e| dev_err("readback", e))?;
                sync(stream)?;
                crcs[k] = crc.then(|| crate::hostmem::crc32(outs[k]));
            }
        } else if !staged.is_empty() {
            let lens: Vec<u64> = staged.iter().map(|&k| outs[k].len() as u64).collect();
            let fills = super::staging::pack(&lens, st.bytes as u64, 64, 1);
            let nbuf = st.bufs.len();
            let issue = |c: usize| -> Result<()> {
                let (buf, ev) = st.bufs[c % nbuf];
                for p in &fills[c] {
                    // SAFETY: the piece lies inside the pinned buffer (`pack` keeps
                    // at + len <= st.bytes), whose previous fill the host has copied out
                    let dst = unsafe { std::slice::from_raw_parts_mut(buf.add(p.at as usize), p.len as usize) };
                    let src = srcs[staged[p.out]] + p.off;
                    unsafe { cu::memcpy_dtoh_async(dst, src, stream) }.map_err(|e| dev_err("readback", e))?;
                }
                unsafe { cu::event::record(ev, stream) }.map_err(|e| dev_err("readback", e))
            };
            let mut pieces: Vec<Vec<(u32, u64)>> = vec![Vec::new(); staged.len()];
            let mut trace = super::staging::FillTrace::new();
            let total = lens.iter().sum::<u64>() as usize;
            let nt = crate::hostmem::stream_copies(crate::hostmem::Way::Down, total);
            for c in 0..fills.len().min(nbuf) {
                issue(c)?;
            }
            for c in 0..fills.len() {
                let (buf, ev) = st.bufs[c % nbuf];
                unsafe { cu::event::synchronize(ev) }.map_err(|e| dev_err("readback", e))?;
                trace.waited();
                for p in &fills[c] {
                    let o = &mut outs[staged[p.out]][p.off as usize..(p.off + p.len) as usize];
                    // SAFETY: the fill's copies (waited on) wrote these bytes of the
                    // buffer; threads copy them out so the first-touch faults of the
                    // destination run in parallel
                    let src = unsafe { std::slice::from_raw_parts(buf.add(p.at as usize) as *const u8, p.len as usize) };
                    if crc {
                        pieces[p.out].push((crate::hostmem::par_copy_crc_as(o, src, nt), p.len));
                    } else {
                        crate::hostmem::par_copy_as(o, src, nt);
                    }
                }
                if c + nbuf < fills.len() {
                    issue(c + nbuf)?;
                }
                trace.copied();
            }
            sync(stream)?;
            let first = staged.first().map_or(0, |&k| outs[k].as_ptr() as usize);
            trace.done("cuda readback", crc, nt, total, first, st.bytes);
            for (j, &k) in staged.iter().enumerate() {
                crcs[k] = crc.then(|| crate::hostmem::crc32_concat(std::mem::take(&mut pieces[j])));
            }
        }
        Ok(crcs.into_iter().map(|c| c.unwrap_or(0)).collect())
    }

    /// A direct transfer of `len` bytes at `addr` (the caller's memory): each piece
    /// registered, then its copy queued on `stream` (`copy(offset, length)`), so the
    /// next registration runs beside it; then the stream is synchronized and the pieces
    /// unregistered. Ok(Err(why)): a registration failed (the pieces queued before it
    /// have run; the caller redoes the transfer staged).
    fn direct(
        &self,
        addr: usize,
        len: usize,
        stream: sys::CUstream,
        mut copy: impl FnMut(usize, usize) -> Result<()>,
    ) -> Result<std::result::Result<(), String>> {
        let mut held = Registered(Vec::new());
        let mut failed = None;
        let mut queued = Ok(());
        for (at, n) in direct::pieces(addr, len, self.import_piece.max(HOST_PAGE)) {
            match register_span(addr + at, n) {
                Ok(p) => held.0.push(p),
                Err(why) => {
                    failed = Some(why);
                    break;
                }
            }
            queued = copy(at, n);
            if queued.is_err() {
                break;
            }
        }
        let synced = sync(stream);
        drop(held);
        queued?;
        synced?;
        Ok(failed.map_or(Ok(()), Err))
    }

    /// Compile (or take from the cache) every kernel `rec` dispatches.
    fn compile(&self, rec: &Recording) -> Result<()> {
        for cmd in &rec.commands {
            if let Command::Dispatch { kernel, f64, .. } = cmd {
                self.kernel(*kernel, *f64)?;
            }
        }
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        sync(self.stream)
    }
}

/// Wait for the work queued on `stream`.
fn sync(stream: sys::CUstream) -> Result<()> {
    unsafe { cu::stream::synchronize(stream) }.map_err(|e| dev_err("stream synchronize (a kernel failed or the device was lost)", e))
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            unsafe {
                let _ = cu::stream::synchronize(self.stream);
                if let Ok(mut slab) = self.slab.lock() {
                    for d in slab.drain_all() {
                        if !d.external {
                            let _ = cu::free_sync(d.ptr);
                        }
                    }
                }
                if let Ok(mut k) = self.kernels.lock() {
                    for (_, l) in k.drain() {
                        if let Ok(l) = Arc::try_unwrap(l) {
                            let _ = cu::module::unload(l._module);
                        }
                    }
                }
                if let Ok(st) = self.run.lock() {
                    st.free();
                }
                if let Ok(rs) = self.reads.lock() {
                    let _ = cu::stream::synchronize(rs.stream);
                    rs.staging.free();
                    let _ = cu::event::destroy(rs.after);
                    let _ = cu::stream::destroy(rs.stream);
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

    fn upload_staging(&self) -> String {
        self.import_fallback.describe(self.info.upload_staging.clone())
    }

    fn create_buffer(&self, bytes: u64) -> Result<BufId> {
        let cap = size_class(bytes);
        let mut slab = self.lock()?;
        let dev = match slab.take_idle(cap) {
            Some(d) => d,
            None => {
                drop(slab);
                let k = self.allocs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if self.fail_allocs_after.is_some_and(|n| k >= n) {
                    return Err(Error::OutOfMemory(format!("{cap} bytes: injected failure (allocation {k})")));
                }
                self.bind()?;
                let ptr = match unsafe { cu::malloc_sync(cap as usize) } {
                    Ok(p) => p,
                    Err(_) if self.trim_idle() > 0 => {
                        unsafe { cu::malloc_sync(cap as usize) }.map_err(|e| dev_err(&format!("allocate {cap} bytes"), e))?
                    }
                    Err(e) => return Err(dev_err(&format!("allocate {cap} bytes"), e)),
                };
                slab = self.lock()?;
                slab.allocated(cap);
                Dev { ptr, external: false }
            }
        };
        Ok(slab.insert(dev, cap))
    }

    fn release_buffer(&self, id: BufId) {
        let Ok(mut slab) = self.lock() else { return };
        let Some((d, cap)) = slab.remove(id) else { return };
        if d.external {
            return;
        }
        if let Some(d) = slab.release(d, cap) {
            drop(slab);
            if self.bind().is_ok() {
                // the stream may still use it: wait first
                let _ = self.sync();
                unsafe {
                    let _ = cu::free_sync(d.ptr);
                }
            }
        }
    }

    fn buffer_size(&self, id: BufId) -> Result<u64> {
        Ok(self.lock()?.get(id)?.1)
    }

    fn write_buffer(&self, id: BufId, offset: u64, data: &[u8]) -> Result<()> {
        let st = self.run()?;
        let p = self.ptr(&BufSlice::new(id, offset, data.len() as u64))?;
        self.bind()?;
        // on this stream (a non-blocking one: the legacy stream's synchronous copies
        // would not be ordered with it); returns when the bytes are on the device
        self.upload(&st, p, data, false).map(|_| ())
    }

    fn write_buffer_crc(&self, id: BufId, offset: u64, data: &[u8]) -> Result<u32> {
        let st = self.run()?;
        let p = self.ptr(&BufSlice::new(id, offset, data.len() as u64))?;
        self.bind()?;
        Ok(self.upload(&st, p, data, true)?.unwrap_or(0))
    }

    fn submit(&self, rec: &Recording) -> Result<Submission> {
        validate_recording(self, rec)?;
        let st = self.run()?;
        self.bind()?;
        // compile everything first, so compile time is not kernel time
        self.compile(rec)?;
        // FZWGPU_PROFILE: an event before and after every dispatch, printed per kernel to
        // stderr after the submission (diagnostics, as through wgpu)
        let ndisp = rec.commands.iter().filter(|c| matches!(c, Command::Dispatch { .. })).count();
        let prof = if std::env::var_os("FZWGPU_PROFILE").is_some() && ndisp > 0 && ndisp <= 2048 {
            let mut evs = Vec::with_capacity(2 * ndisp);
            for _ in 0..2 * ndisp {
                match cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT) {
                    Ok(e) => evs.push(e),
                    Err(e) => {
                        destroy_events(&evs);
                        return Err(dev_err("profile event", e));
                    }
                }
            }
            Some(evs)
        } else {
            None
        };
        let run = (|| -> Result<f32> {
            unsafe { cu::event::record(self.events.0, self.stream) }.map_err(|e| dev_err("event", e))?;
            let mut k = 0;
            for cmd in &rec.commands {
                let ev = match (&prof, cmd) {
                    (Some(evs), Command::Dispatch { .. }) => Some((evs[2 * k], evs[2 * k + 1])),
                    _ => None,
                };
                if let Some((e0, _)) = ev {
                    unsafe { cu::event::record(e0, self.stream) }.map_err(|e| dev_err("profile event", e))?;
                }
                self.record(cmd)?;
                if let Some((_, e1)) = ev {
                    unsafe { cu::event::record(e1, self.stream) }.map_err(|e| dev_err("profile event", e))?;
                    k += 1;
                }
            }
            unsafe { cu::event::record(self.events.1, self.stream) }.map_err(|e| dev_err("event", e))?;
            self.sync()?;
            if let Some(evs) = &prof {
                let mut times = Vec::with_capacity(ndisp);
                for p in evs.chunks_exact(2) {
                    let a = unsafe { cu::event::elapsed(evs[0], p[0]) }.map_err(|e| dev_err("profile event time", e))?;
                    let b = unsafe { cu::event::elapsed(evs[0], p[1]) }.map_err(|e| dev_err("profile event time", e))?;
                    times.push((a as f64 * 1e-3, b as f64 * 1e-3));
                }
                super::print_profile(rec, &times);
            }
            unsafe { cu::event::elapsed(self.events.0, self.events.1) }.map_err(|e| dev_err("event time", e))
        })();
        if let Some(evs) = &prof {
            destroy_events(evs);
        }
        let ms = run?;
        let mut readbacks = Vec::with_capacity(rec.readbacks.len());
        let mut srcs = Vec::with_capacity(rec.readbacks.len());
        for s in &rec.readbacks {
            srcs.push(self.ptr(s)?);
            readbacks.push(crate::hostmem::zeroed(s.size as usize)?);
        }
        let mut outs: Vec<&mut [u8]> = readbacks.iter_mut().map(|v| v.as_mut_slice()).collect();
        self.download(&st, self.stream, &srcs, &mut outs, false)?;
        Ok(Submission { readbacks, kernel_seconds: Some(ms as f64 * 1e-3) })
    }

    fn submit_nowait(&self, rec: &Recording) -> Result<()> {
        if !rec.readbacks.is_empty() {
            return Err(Error::Pipeline("submit_nowait: a recording with readbacks".into()));
        }
        validate_recording(self, rec)?;
        let _st = self.run()?;
        self.bind()?;
        self.compile(rec)?;
        // queued on the stream; the next transfer or submission waits for them
        for cmd in &rec.commands {
            self.record(cmd)?;
        }
        Ok(())
    }

    fn read_buffers(&self, slices: &[BufSlice]) -> Result<Vec<Vec<u8>>> {
        let srcs = slices.iter().map(|s| self.ptr(s)).collect::<Result<Vec<_>>>()?;
        let mut out = slices.iter().map(|s| crate::hostmem::zeroed(s.size as usize)).collect::<Result<Vec<_>>>()?;
        let rs = self.read_side()?;
        let mut outs: Vec<&mut [u8]> = out.iter_mut().map(|v| v.as_mut_slice()).collect();
        self.download(&rs.staging, rs.stream, &srcs, &mut outs, false)?;
        Ok(out)
    }

    fn read_into(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<()> {
        super::check_read_into(slices, outs)?;
        let srcs = slices.iter().map(|s| self.ptr(s)).collect::<Result<Vec<_>>>()?;
        let rs = self.read_side()?;
        self.download(&rs.staging, rs.stream, &srcs, outs, false)?;
        Ok(())
    }

    fn read_into_crc(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<Vec<u32>> {
        super::check_read_into(slices, outs)?;
        let srcs = slices.iter().map(|s| self.ptr(s)).collect::<Result<Vec<_>>>()?;
        let rs = self.read_side()?;
        self.download(&rs.staging, rs.stream, &srcs, outs, true)
    }

    fn trim_pool(&self) {
        self.trim_idle();
    }
}

// ---------------------------------------------------------------------------------
// Interop: caller-owned CUDA device memory.

impl CudaBackend {
    /// Register `bytes` of caller-owned device memory at `ptr` as a buffer of this
    /// backend, without a copy. Releasing the buffer only unregisters it.
    ///
    /// # Safety
    /// `ptr` must be a device address in this backend's device and in its primary
    /// context (what the CUDA runtime, PyTorch and CuPy use), valid for `bytes` bytes,
    /// 16-byte aligned, and must stay allocated and unmodified by others until the
    /// buffer is released.
    pub unsafe fn import(&self, ptr: u64, bytes: u64) -> Result<BufId> {
        if ptr == 0 || !ptr.is_multiple_of(16) || bytes == 0 {
            return Err(Error::Input(format!("device memory at {ptr:#x} ({bytes} bytes): not 16-byte aligned or empty")));
        }
        Ok(self.lock()?.insert(Dev { ptr, external: true }, bytes))
    }

    /// Make this backend's stream wait for the work queued so far on the caller's
    /// `stream` (a `CUstream` handle; 0 = the legacy default stream).
    fn after_stream(&self, stream: usize) -> Result<()> {
        self.bind()?;
        let ev = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(|e| dev_err("event", e))?;
        let r = unsafe {
            cu::event::record(ev, stream as sys::CUstream)
                .and_then(|_| cu::stream::wait_event(self.stream, ev, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT))
        };
        unsafe {
            let _ = cu::event::destroy(ev);
        }
        r.map_err(|e| dev_err("order after the caller's stream", e))
    }

    /// Copy `len` bytes of a window into caller device memory at `dst` (device to
    /// device), then wait.
    fn copy_out(&self, src: &BufSlice, dst: u64, len: u64) -> Result<()> {
        let _st = self.run()?;
        let p = self.ptr(src)?;
        self.bind()?;
        unsafe { cu::memcpy_dtod_async(dst, p, len as usize, self.stream) }.map_err(|e| dev_err("copy out", e))?;
        self.sync()
    }
}

/// Compress a field held in caller-owned CUDA device memory: no host copy of the
/// field (when `src` is 16-byte aligned the kernels read it in place; otherwise one
/// device-to-device copy into an aligned buffer). The work is ordered after
/// everything queued on the caller's `stream` before the call; the call returns when
/// the archive is on the host. The archive is byte-identical to
/// [`Pipeline::compress`](crate::Pipeline::compress) of the same values.
///
/// # Safety
/// `src` must be a device address of `backend`'s device (primary context) holding
/// `dims.len()` values of `dtype`, readable until the call returns and not written
/// by other work meanwhile; `stream` is a valid `CUstream` of that context or 0.
pub unsafe fn compress_from_device(
    pipeline: &mut crate::Pipeline,
    backend: &CudaBackend,
    dtype: crate::DataType,
    dims: crate::Dims,
    src: u64,
    stream: usize,
) -> Result<crate::Compressed> {
    let bytes = dims.len().checked_mul(dtype.size() as u64).ok_or_else(|| Error::Input("field size overflows".into()))?;
    if src == 0 {
        return Err(Error::Input("null device pointer".into()));
    }
    backend.after_stream(stream)?;
    let buf = if src.is_multiple_of(16) && bytes.is_multiple_of(16) {
        backend.import(src, bytes)?
    } else {
        // copy into an aligned pooled buffer
        let b = backend.create_buffer(bytes.next_multiple_of(16))?;
        let r = (|| {
            let _st = backend.run.lock().map_err(|_| Error::Device("stream lock poisoned".into()))?;
            let d = backend.ptr(&BufSlice::new(b, 0, bytes))?;
            unsafe { cu::memcpy_dtod_async(d, src, bytes as usize, backend.stream) }.map_err(|e| dev_err("copy in", e))?;
            backend.sync()
        })();
        if let Err(e) = r {
            backend.release_buffer(b);
            return Err(e);
        }
        b
    };
    let field = crate::DeviceField::from_buffer(backend, buf, bytes, dtype, dims);
    pipeline.compress_device(&field)
}

/// Decompress an archive into caller-owned CUDA device memory: no host copy of the
/// field (the reconstruction is copied device to device into `dst`). Ordered after
/// the work queued on the caller's `stream`; returns when `dst` holds the field, with
/// the field's type and dims. Fails with [`Error::Input`] when the field needs more
/// than `capacity` bytes.
///
/// # Safety
/// `dst` must be a device address of `backend`'s device (primary context), writable
/// for `capacity` bytes and not accessed by other work until the call returns;
/// `stream` is a valid `CUstream` of that context or 0.
pub unsafe fn decompress_to_device(
    backend: &CudaBackend,
    archive: &[u8],
    dst: u64,
    capacity: u64,
    stream: usize,
) -> Result<(crate::DataType, crate::Dims, crate::RunReport)> {
    if dst == 0 {
        return Err(Error::Input("null device pointer".into()));
    }
    backend.after_stream(stream)?;
    let (field, report) = crate::decompress_device(backend, archive, &Default::default())?;
    let len = field.len_bytes();
    if len > capacity {
        return Err(Error::Input(format!("the field needs {len} bytes, the destination holds {capacity}")));
    }
    backend.copy_out(&field.slice(), dst, len)?;
    Ok((field.dtype, field.dims, report))
}

/// Destroys profile events (errors ignored: diagnostics only).
fn destroy_events(evs: &[sys::CUevent]) {
    for &e in evs {
        unsafe {
            let _ = cu::event::destroy(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The on-disk cache returns the machine code it stored (needs libnvrtc only).
    #[test]
    fn compiled_kernels_are_cached_on_disk() {
        let dir = std::env::temp_dir().join(format!("fzwgpu-cache-test-{}", std::process::id()));
        std::env::set_var("FZWGPU_CACHE_DIR", &dir);
        let v = Variant { f64: false, subgroup: true, coalesce: false };
        let t = std::time::Instant::now();
        let (_, a) = compile_cached(Kernel::SzxEncode, v, CudaOptions::default(), "sm_90").unwrap();
        let cold = t.elapsed();
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(files.len(), 1, "one cubin in the cache");
        let t = std::time::Instant::now();
        let (_, b) = compile_cached(Kernel::SzxEncode, v, CudaOptions::default(), "sm_90").unwrap();
        let warm = t.elapsed();
        assert_eq!(a, b);
        // what CudaBackend hands to cuModuleLoadData as is: an ELF image (with NUL
        // bytes, so never through a C string)
        assert!(a.starts_with(b"\x7fELF") && a.contains(&0u8), "not a CUBIN image");
        assert!(warm < cold, "cache hit {warm:?} not faster than the compile {cold:?}");
        // a cache file cut short or with a flipped bit is never handed to the driver
        // (which trusts the offsets inside an image): it is compiled again and replaced
        let path = files[0].path();
        let stored = std::fs::read(&path).unwrap();
        assert_eq!(cached_image(stored.clone()).as_deref(), Some(&a[..]));
        let mut flipped = stored.clone();
        flipped[a.len() / 2] ^= 1;
        for bad in [stored[..stored.len() / 2].to_vec(), stored[..a.len()].to_vec(), flipped, Vec::new()] {
            assert!(cached_image(bad.clone()).is_none(), "a damaged cache file ({} bytes) was accepted", bad.len());
            std::fs::write(&path, &bad).unwrap();
            let (_, c) = compile_cached(Kernel::SzxEncode, v, CudaOptions::default(), "sm_90").unwrap();
            assert!(c == a, "recompiled image differs");
            let now = std::fs::read(&path).unwrap();
            assert!(
                now == stored,
                "damaged cache file ({} bytes) not replaced: now {} bytes, stored {}",
                bad.len(),
                now.len(),
                stored.len()
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every kernel variant's generated CUDA C compiles with NVRTC (needs libnvrtc,
    /// not a GPU; fails when NVRTC is missing). The compiles run in parallel: one after
    /// another they took over 120 s on the H100 machine's 16 cores (round 28), the
    /// device suite's limit per test binary.
    #[test]
    fn every_kernel_compiles_with_nvrtc() {
        use rayon::prelude::*;
        let arch = arch_from_env();
        let mut jobs = Vec::new();
        for k in Kernel::ALL {
            for f64 in [false, true] {
                if f64 && !k.has_f64() {
                    continue;
                }
                for coalesce in [true, false] {
                    if !coalesce && !k.has_coalesce() {
                        continue;
                    }
                    for (checks, clamp) in [(true, false), (true, true), (false, false)] {
                        jobs.push((k, f64, coalesce, checks, clamp));
                    }
                }
            }
        }
        let t0 = std::time::Instant::now();
        let failures: Vec<String> = jobs
            .par_iter()
            .filter_map(|&(k, f64, coalesce, checks, clamp)| {
                let code = CudaOptions { bounds_checks: checks, clamp_loads: clamp, ..Default::default() };
                let t = std::time::Instant::now();
                let what = format!("{} f64={f64} coalesce={coalesce} checks={checks} clamp={clamp}", k.name());
                match compile(k, Variant { f64, subgroup: true, coalesce }, code, &arch) {
                    Err(e) => Some(format!("{what}: {e}")),
                    Ok((_, image)) => {
                        eprintln!("{what}: {} bytes of {arch} code in {:.2} s", image.len(), t.elapsed().as_secs_f64());
                        None
                    }
                }
            })
            .collect();
        eprintln!("{} compiles in {:.1} s", jobs.len(), t0.elapsed().as_secs_f64());
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
