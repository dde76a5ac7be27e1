//! The device layer. A [`Backend`] owns buffers, runs a [`Recording`] as one
//! submission, and reads windows back; it knows nothing about compression.
//!
//! Implementations: [`wgpu`] (Vulkan, Metal, DX12, GL) and [`cpu`] (pure-Rust twins of
//! every kernel, the reference). A CUDA backend implements the same trait: see
//! ARCHITECTURE.md.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
mod direct;
mod pool;
mod staging;
pub mod wgpu;

use crate::error::{Error, Result};
use crate::kernels::{self, BindKind, Variant};
use crate::recording::{BufId, BufSlice, Command, Recording};
use std::sync::Arc;

/// Which implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    Wgpu,
    Cpu,
    /// NVIDIA GPUs through the CUDA driver API (cargo feature `cuda`).
    Cuda,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cpu => "cpu",
            BackendKind::Cuda => "cuda",
        }
    }
}

/// What a backend can do, and on what.
#[derive(Debug, Clone)]
pub struct BackendInfo {
    pub kind: BackendKind,
    /// Adapter name ("NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu (16 threads)").
    pub adapter: String,
    /// Graphics API ("Vulkan", "Gl", "Metal", "Dx12", "cpu").
    pub api: String,
    pub driver: String,
    pub shader_f64: bool,
    pub subgroups: bool,
    /// Largest subgroup size the adapter may use (0 without subgroups).
    pub subgroup_max: u32,
    /// Whether the adapter's subgroups have the layout the subgroup variants assume
    /// (checked by running `subgroup_layout` when a wgpu device opens; CUDA's warps
    /// have it by definition), or why subgroups are off.
    pub subgroup_layout: String,
    pub timestamps: bool,
    pub max_binding_bytes: u64,
    pub max_buffer_bytes: u64,
    pub max_workgroups_per_dim: u32,
    /// Alignment of storage-buffer binding offsets.
    pub storage_align: u64,
    /// Some(n) when the adapter silently ends the loops of a kernel invocation after n
    /// iterations in total: llvmpipe/lavapipe (Mesa's gallivm loop limiter, 65535,
    /// shared by every loop of an invocation). Stages whose invocations could loop
    /// longer (`Stage::loop_iterations`) run on the cpu backend there.
    pub loop_limit: Option<u64>,
    /// `Variant::coalesce` as this backend compiles its kernels (the variants tuned for
    /// the CUDA backend: on there, off through wgpu, `FZWGPU_COALESCE` overrides); the
    /// host reads it where a variant changes the dispatch (`chain_scan_x`'s SEGS).
    pub coalesce: bool,
    /// The adapter computes on the host's CPU: the cpu backend, and wgpu adapters of
    /// device type Cpu (lavapipe/llvmpipe). `bench` skips its pre-heat there.
    pub software: bool,
    /// Where large uploads are staged on the host: "pinned host memory" (CUDA), "host
    /// memory (cached) (Vulkan memory type 3)" (Vulkan, `host_staging.rs`), "mapped
    /// buffers" (wgpu's own `MAP_WRITE` buffers), "none" (cpu), as chosen when the
    /// backend was created; [`Backend::upload_staging`] says what runs now (`bench`
    /// and `adapters` print that).
    pub upload_staging: String,
    /// Decompression computes the archive's payload checksum from the pieces this
    /// backend's upload threads hash as they copy them (`write_buffer_crc`) instead of
    /// on another thread beside the upload. On an H100 (round 33,
    /// `docs/results/h100-r33c.log` against `h100-r33e.log`): through Vulkan `szx`'s
    /// archive upload and decode 6.5-7.3 -> 4.7 ms, the chain presets unchanged; through
    /// CUDA the archive's upload was 1-1.6 ms slower then, because it hashed after the
    /// copy. Since round 41 CUDA's upload threads hash each piece as they copy it, and
    /// on an H100 (`h100-r41c.log`, `szx`, three runs each) the archive's upload took
    /// 5.7-6.2 ms against 6.4-6.6 with the thread, `decompress_into` 39.5-40.3 GB/s
    /// against 38.9-39.0: on for both GPU backends; the cpu backend keeps the thread.
    /// `FZWGPU_HASH_ON_UPLOAD` overrides a GPU backend's choice (measurements).
    pub hash_on_upload: bool,
}

impl BackendInfo {
    /// Whether 1-D chain inverses run `chain_decode_1d` rather than the walking
    /// `chain_decode` (`kernels::chain::decode_kernel`): with the CUDA-tuned variants
    /// (H200 round 23: CUDA 1-D decompression +7-10%), with subgroups, where both forms
    /// store by quads (`Kernel::has_quad_stores`; H100 round 30 through Vulkan: 1-D
    /// `szp_composed` 1492 against 1343 GB/s, `szp_centered` 1649 against 1518; with
    /// 16-byte stores 128 bytes apart the 1-D form had lost, 779 / 451 against 863 /
    /// 799), and on software adapters (lavapipe, round 24: 1-D chain decompression
    /// 2.0-3.5x, `docs/results/lavapipe-r24-decode1d-ab.log`). `FZWGPU_DECODE_1D=on|off`
    /// overrides it (measurements: the two forms apart from the other variants).
    pub fn decode_1d(&self) -> bool {
        crate::envcfg::switch("FZWGPU_DECODE_1D").ok().flatten().unwrap_or(self.coalesce || self.subgroups || self.software)
    }
}

/// Mesa gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`: llvmpipe and lavapipe stop every loop
/// of an invocation once this many iterations have run (results are then wrong, with
/// no error).
pub const LLVMPIPE_LOOP_LIMIT: u64 = 65535;

/// Result of one submission.
#[derive(Debug, Default)]
pub struct Submission {
    /// The bytes of each requested readback, in order.
    pub readbacks: Vec<Vec<u8>>,
    /// Kernel time: GPU timestamps (wgpu) or compute wall time (cpu).
    pub kernel_seconds: Option<f64>,
}

/// `FZWGPU_PROFILE` output of one submission (both GPU backends): `times[k]` is the
/// (start, end) in seconds of the submission's k-th dispatch, relative to any common
/// origin. Prints the span and, per kernel in order of first use, its dispatch count,
/// workgroups and summed time to stderr; returns the span.
pub(crate) fn print_profile(rec: &Recording, times: &[(f64, f64)]) -> Option<f64> {
    let mut per: Vec<(&str, u32, u64, f64)> = Vec::new();
    let mut k = 0;
    for c in &rec.commands {
        if let Command::Dispatch { kernel, groups, .. } = c {
            let (t0, t1) = *times.get(k)?;
            let dt = (t1 - t0).max(0.0);
            match per.iter_mut().find(|p| p.0 == kernel.name()) {
                Some(p) => {
                    p.1 += 1;
                    p.2 += *groups as u64;
                    p.3 += dt;
                }
                None => per.push((kernel.name(), 1, *groups as u64, dt)),
            }
            k += 1;
        }
    }
    let span = (times.get(k.checked_sub(1)?)?.1 - times.first()?.0).max(0.0);
    let busy: f64 = per.iter().map(|p| p.3).sum();
    eprintln!("profile: {k} dispatches, span {:.3} ms, sum of kernels {:.3} ms", span * 1e3, busy * 1e3);
    for (name, n, g, dt) in per {
        eprintln!("profile:   {name:<22} x{n:<4} {g:>10} groups {:>9.3} ms", dt * 1e3);
    }
    Some(span)
}

/// `read_into`'s arguments: one destination per slice, none longer than its slice.
pub(crate) fn check_read_into(slices: &[BufSlice], outs: &[&mut [u8]]) -> Result<()> {
    if slices.len() != outs.len() {
        return Err(Error::Device(format!("read_into: {} slices, {} destinations", slices.len(), outs.len())));
    }
    for (s, o) in slices.iter().zip(outs) {
        if o.len() as u64 > s.size {
            return Err(Error::Device(format!("read_into: {} bytes asked from a {}-byte window", o.len(), s.size)));
        }
    }
    Ok(())
}

/// A compute device.
pub trait Backend: Send + Sync {
    fn info(&self) -> &BackendInfo;
    /// Where large uploads are staged now: `info().upload_staging`, unless the backend
    /// has since fallen back to another staging (wgpu: host-memory staging that failed
    /// at run time, after which wgpu's mapped buffers serve; said with the reason).
    fn upload_staging(&self) -> String {
        self.info().upload_staging.clone()
    }
    /// A buffer of at least `bytes` (rounded up to 16), from the pool when possible.
    /// Contents are undefined.
    fn create_buffer(&self, bytes: u64) -> Result<BufId>;
    /// Return a buffer to the pool.
    fn release_buffer(&self, id: BufId);
    /// Size of a live buffer.
    fn buffer_size(&self, id: BufId) -> Result<u64>;
    fn write_buffer(&self, id: BufId, offset: u64, data: &[u8]) -> Result<()>;
    /// `write_buffer` that also returns the CRC-32/IEEE of `data`, so an archive's
    /// payload check needs no second pass over it while it uploads. The GPU backends'
    /// staged uploads hash each piece as their threads copy it into staging; this
    /// default (the cpu backend) writes, then hashes.
    fn write_buffer_crc(&self, id: BufId, offset: u64, data: &[u8]) -> Result<u32> {
        self.write_buffer(id, offset, data)?;
        Ok(crate::hostmem::crc32(data))
    }
    /// Run every command of `rec` as one submission, wait, then read back.
    fn submit(&self, rec: &Recording) -> Result<Submission>;
    /// Queue the commands of `rec` (its readbacks must be empty) without waiting for
    /// them: later submissions, transfers and reads are ordered after them, and an
    /// error in them surfaces there at the latest. No kernel time is measured. Overlapped
    /// compression queues each chunk's kernels this way while the next chunk uploads.
    /// This default (cpu) runs them and waits.
    fn submit_nowait(&self, rec: &Recording) -> Result<()> {
        if !rec.readbacks.is_empty() {
            return Err(Error::Pipeline("submit_nowait: a recording with readbacks".into()));
        }
        self.submit(rec).map(|_| ())
    }
    /// Read windows of buffers (after all earlier submissions).
    fn read_buffers(&self, slices: &[BufSlice]) -> Result<Vec<Vec<u8>>>;
    /// Read windows of buffers into caller memory: the first `outs[k].len()` bytes of
    /// `slices[k]` (at most its size) land in `outs[k]`, so the parts of one archived
    /// output can be read straight into their places.
    fn read_into(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<()> {
        check_read_into(slices, outs)?;
        for (s, o) in slices.iter().zip(outs.iter_mut()) {
            let d = self.read_buffers(std::slice::from_ref(s))?.remove(0);
            let n = o.len();
            o.copy_from_slice(d.get(..n).ok_or_else(|| Error::Device("readback shorter than asked".into()))?);
        }
        Ok(())
    }
    /// `read_into` that also returns the CRC-32/IEEE of each destination's bytes, so an
    /// archive read straight into place needs no second pass for its payload check.
    /// The staged backends hash each piece as their threads copy it out of staging;
    /// this default reads, then hashes.
    fn read_into_crc(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<Vec<u32>> {
        self.read_into(slices, outs)?;
        Ok(outs.iter().map(|o| crate::hostmem::crc32(o)).collect())
    }
    /// Drop pooled buffers that are not in use.
    fn trim_pool(&self);
}

/// Which backend to use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// wgpu if an adapter is found, else cpu.
    #[default]
    Auto,
    /// wgpu; `adapter` picks by name substring (else `WGPU_ADAPTER_NAME`, else the
    /// high-performance adapter). The API set comes from `WGPU_BACKEND` (default all).
    Wgpu {
        adapter: Option<String>,
    },
    Cpu,
    /// CUDA (builds with the `cuda` feature); `device` is the ordinal (else
    /// `FZWGPU_CUDA_DEVICE`, else 0).
    Cuda {
        device: Option<usize>,
    },
}

impl std::str::FromStr for BackendChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "wgpu" | "gpu" => Ok(BackendChoice::Wgpu { adapter: None }),
            "cpu" => Ok(BackendChoice::Cpu),
            "cuda" => Ok(BackendChoice::Cuda { device: None }),
            other => Err(Error::config(format!("unknown backend '{other}' (auto, wgpu, cpu or cuda)"))),
        }
    }
}

/// Open a backend.
pub fn open(choice: &BackendChoice) -> Result<Arc<dyn Backend>> {
    match choice {
        BackendChoice::Cpu => Ok(Arc::new(cpu::CpuBackend::new())),
        BackendChoice::Wgpu { adapter } => {
            Ok(Arc::new(wgpu::WgpuBackend::new(&wgpu::WgpuOptions { adapter: adapter.clone(), ..Default::default() })?))
        }
        #[cfg(feature = "cuda")]
        BackendChoice::Cuda { device } => {
            Ok(Arc::new(cuda::CudaBackend::new(&cuda::CudaBackendOptions { device: *device, ..Default::default() })?))
        }
        #[cfg(not(feature = "cuda"))]
        BackendChoice::Cuda { .. } => Err(Error::Unsupported("this build has no CUDA backend (build with `--features cuda`)".into())),
        BackendChoice::Auto => match wgpu::WgpuBackend::new(&wgpu::WgpuOptions::default()) {
            Ok(b) => Ok(Arc::new(b)),
            Err(Error::NoAdapter(_)) => Ok(Arc::new(cpu::CpuBackend::new())),
            Err(e) => Err(e),
        },
    }
}

/// Checks shared by every backend before running a recording: bindings match the
/// kernel's reflected interface, windows are aligned and within their buffers and the
/// binding limit, params have the reflected size.
pub(crate) fn validate_recording(b: &dyn Backend, rec: &Recording) -> Result<()> {
    let info = b.info();
    let check_slice = |s: &BufSlice, what: &str| -> Result<()> {
        let size = b.buffer_size(s.buf)?;
        let end = s.offset.checked_add(s.size).ok_or_else(|| Error::Device(format!("{what}: window overflow")))?;
        if end > size || !s.offset.is_multiple_of(4) || !s.size.is_multiple_of(4) {
            return Err(Error::Device(format!("{what}: window {}+{} outside buffer of {size} bytes or unaligned", s.offset, s.size)));
        }
        Ok(())
    };
    for cmd in &rec.commands {
        match cmd {
            Command::Dispatch { kernel, f64, params, bindings, .. } => {
                let r = kernels::reflect(*kernel, Variant { f64: *f64, subgroup: false, coalesce: false })?;
                let storage: Vec<&BindKind> = r.bindings.iter().filter(|k| **k != BindKind::Uniform).collect();
                if storage.len() != bindings.len() {
                    return Err(Error::Device(format!(
                        "{}: {} bindings recorded, the kernel declares {}",
                        kernel.name(),
                        bindings.len(),
                        storage.len()
                    )));
                }
                if params.len() != r.params_size as usize {
                    return Err(Error::Device(format!(
                        "{}: params of {} bytes, WGSL struct is {}",
                        kernel.name(),
                        params.len(),
                        r.params_size
                    )));
                }
                for s in bindings {
                    check_slice(s, kernel.name())?;
                    if s.size == 0 || s.size > info.max_binding_bytes || s.offset % info.storage_align != 0 {
                        return Err(Error::Device(format!(
                            "{}: binding window {}+{} violates the binding limit {} or alignment {}",
                            kernel.name(),
                            s.offset,
                            s.size,
                            info.max_binding_bytes,
                            info.storage_align
                        )));
                    }
                }
            }
            Command::Clear { dst } => check_slice(dst, "clear")?,
            Command::Copy { src, dst } => {
                check_slice(src, "copy source")?;
                check_slice(dst, "copy destination")?;
                if src.size != dst.size {
                    return Err(Error::Device("copy of unequal windows".into()));
                }
            }
        }
    }
    for s in &rec.readbacks {
        check_slice(s, "readback")?;
    }
    Ok(())
}

/// Split `groups` workgroups into an (x, y) grid within `max_per_dim`.
pub(crate) fn grid(groups: u32, max_per_dim: u32) -> Result<(u32, u32)> {
    if groups <= max_per_dim {
        return Ok((groups.max(1), 1));
    }
    let y = groups.div_ceil(max_per_dim);
    if y > max_per_dim {
        return Err(Error::TooLarge { what: "workgroup grid".into(), actual: groups as u64, limit: (max_per_dim as u64).pow(2) });
    }
    Ok((max_per_dim, y))
}
