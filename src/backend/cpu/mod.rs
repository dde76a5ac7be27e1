//! The cpu backend: buffers are host vectors and every kernel runs as its pure-Rust
//! twin (same name, same binding order as the WGSL), multi-threaded with rayon. It is
//! the reference for the GPU tests and the backend when no GPU is present.

// The twins say what their kernels say: comparisons written `!(a < b)` so that NaN takes
// the same branch as in the WGSL, and loops over an index where the kernel has one
// invocation per index.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop, clippy::manual_find)]

pub mod bitpack;
pub mod chain;
pub mod lorenzo;
pub mod probe;
pub mod quant;
pub mod scan;
pub mod szp;
pub mod szx;
pub mod wavelet;

use super::{validate_recording, Backend, BackendInfo, BackendKind, Submission};
use crate::error::{Error, Result};
use crate::kernels::{self, BindKind, Kernel, Variant};
use crate::recording::{BufId, BufSlice, Command, Recording};
use std::sync::Mutex;
use std::time::Instant;

/// Read-only and read-write windows of one dispatch, in binding order.
pub struct Bindings<'a> {
    pub ro: Vec<&'a [u8]>,
    pub rw: Vec<&'a mut [u8]>,
}

/// Signature of every CPU twin: params bytes, bindings, workgroup count.
pub type Twin = fn(params: &[u8], b: &mut Bindings, groups: u32) -> Result<()>;

/// The twin of each kernel.
pub fn twin(kernel: Kernel, f64: bool) -> Twin {
    match (kernel, f64) {
        (Kernel::ScanReduce, _) => scan::scan_reduce,
        (Kernel::ScanDownsweep, _) => scan::scan_downsweep,
        (Kernel::ScanLookback, _) => scan::scan_lookback,
        (Kernel::SzxRangePartial, false) => szx::szx_range_partial::<f32>,
        (Kernel::SzxRangePartial, true) => szx::szx_range_partial::<f64>,
        (Kernel::SzxRangeFinal, false) => szx::szx_range_final::<f32>,
        (Kernel::SzxRangeFinal, true) => szx::szx_range_final::<f64>,
        (Kernel::SzxEncode, false) => szx::szx_encode::<f32>,
        (Kernel::SzxEncode, true) => szx::szx_encode::<f64>,
        (Kernel::SzxEncode8, _) => szx::szx_encode8,
        (Kernel::SzxEncode8Lookback, _) => szx::szx_encode8_lookback,
        (Kernel::SzxCompact, false) => szx::szx_compact::<f32>,
        (Kernel::SzxCompact, true) => szx::szx_compact::<f64>,
        (Kernel::SzxMetaCost, false) => szx::szx_meta_cost::<f32>,
        (Kernel::SzxMetaCost, true) => szx::szx_meta_cost::<f64>,
        (Kernel::SzxUnpack, false) => szx::szx_unpack::<f32>,
        (Kernel::SzxUnpack, true) => szx::szx_unpack::<f64>,
        (Kernel::QuantEncode, false) => quant::quant_encode::<f32>,
        (Kernel::QuantEncode, true) => quant::quant_encode::<f64>,
        (Kernel::QuantScatter, false) => quant::quant_scatter::<f32>,
        (Kernel::QuantScatter, true) => quant::quant_scatter::<f64>,
        (Kernel::QuantDecode, false) => quant::quant_decode::<f32>,
        (Kernel::QuantDecode, true) => quant::quant_decode::<f64>,
        (Kernel::QuantPatch, false) => quant::quant_patch::<f32>,
        (Kernel::QuantPatch, true) => quant::quant_patch::<f64>,
        (Kernel::BitpackWidth, _) => bitpack::bitpack_width,
        (Kernel::BitpackPack, _) => bitpack::bitpack_pack,
        (Kernel::BitpackMetaCost, _) => bitpack::bitpack_meta_cost,
        (Kernel::BitpackUnpack, _) => bitpack::bitpack_unpack,
        (Kernel::LorenzoForward, _) => lorenzo::lorenzo_forward,
        (Kernel::LorenzoScanX, _) => lorenzo::lorenzo_scan_x,
        (Kernel::LorenzoScanAxis, _) => lorenzo::lorenzo_scan_axis,
        (Kernel::SzpClassify, false) => szp::szp_classify::<f32>,
        (Kernel::SzpClassify, true) => szp::szp_classify::<f64>,
        (Kernel::SzpPack, false) => szp::szp_pack::<f32>,
        (Kernel::SzpPack, true) => szp::szp_pack::<f64>,
        (Kernel::SzpMetaCost, false) => szp::szp_meta_cost::<f32>,
        (Kernel::SzpMetaCost, true) => szp::szp_meta_cost::<f64>,
        (Kernel::SzpUnpack, false) => szp::szp_unpack::<f32>,
        (Kernel::SzpUnpack, true) => szp::szp_unpack::<f64>,
        (Kernel::ChainWidth, false) => chain::chain_width::<f32>,
        (Kernel::ChainWidth, true) => chain::chain_width::<f64>,
        (Kernel::ChainPack, false) => chain::chain_pack::<f32>,
        (Kernel::ChainPack, true) => chain::chain_pack::<f64>,
        (Kernel::ChainEncode, false) => chain::chain_encode::<f32>,
        (Kernel::ChainEncode, true) => chain::chain_encode::<f64>,
        (Kernel::ChainEncodeFlat, false) => chain::chain_encode_flat::<f32>,
        (Kernel::ChainEncodeFlat, true) => chain::chain_encode_flat::<f64>,
        (Kernel::ChainEncode3d, false) => chain::chain_encode_3d::<f32>,
        (Kernel::ChainEncode3d, true) => chain::chain_encode_3d::<f64>,
        (Kernel::ChainEncodeFlat3d, false) => chain::chain_encode_flat_3d::<f32>,
        (Kernel::ChainEncodeFlat3d, true) => chain::chain_encode_flat_3d::<f64>,
        (Kernel::ChainEncode1d, false) => chain::chain_encode_1d::<f32>,
        (Kernel::ChainEncode1d, true) => chain::chain_encode_1d::<f64>,
        (Kernel::ChainCompact, _) => chain::chain_compact,
        (Kernel::ChainUnpack, false) => chain::chain_unpack::<f32>,
        (Kernel::ChainUnpack, true) => chain::chain_unpack::<f64>,
        (Kernel::ChainDecode, false) => chain::chain_decode::<f32>,
        (Kernel::ChainDecode, true) => chain::chain_decode::<f64>,
        (Kernel::ChainDecodeRagged, false) => chain::chain_decode_ragged::<f32>,
        (Kernel::ChainDecodeRagged, true) => chain::chain_decode_ragged::<f64>,
        (Kernel::ChainDecode1d, false) => chain::chain_decode_1d::<f32>,
        (Kernel::ChainDecode1d, true) => chain::chain_decode_1d::<f64>,
        (Kernel::ChainDecodePlanes, _) => chain::chain_decode_planes,
        (Kernel::ChainDecodePlanesRagged, _) => chain::chain_decode_planes_ragged,
        (Kernel::ChainScanX, _) => chain::chain_scan_x,
        (Kernel::ChainScanLast, false) => chain::chain_scan_last::<f32>,
        (Kernel::ChainScanLast, true) => chain::chain_scan_last::<f64>,
        (Kernel::WaveletLift, _) => wavelet::wavelet_lift,
        (Kernel::WaveletLoad, false) => wavelet::wavelet_load::<f32>,
        (Kernel::WaveletLoad, true) => wavelet::wavelet_load::<f64>,
        (Kernel::WaveletStore, false) => wavelet::wavelet_store::<f32>,
        (Kernel::WaveletStore, true) => wavelet::wavelet_store::<f64>,
        (Kernel::CorrectFlag, false) => wavelet::correct_flag::<f32>,
        (Kernel::CorrectFlag, true) => wavelet::correct_flag::<f64>,
        (Kernel::CorrectScatter, false) => wavelet::correct_scatter::<f32>,
        (Kernel::CorrectScatter, true) => wavelet::correct_scatter::<f64>,
        (Kernel::CorrectApply, false) => wavelet::correct_apply::<f32>,
        (Kernel::CorrectApply, true) => wavelet::correct_apply::<f64>,
        (Kernel::SubgroupLayout, _) => probe::subgroup_layout,
    }
}

#[derive(Default)]
struct Slab {
    bufs: Vec<Option<Vec<u64>>>,
    free_ids: Vec<u32>,
    /// released buffers kept for reuse
    pool: Vec<Vec<u64>>,
}

/// The pure-Rust backend.
pub struct CpuBackend {
    info: BackendInfo,
    slab: Mutex<Slab>,
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl CpuBackend {
    pub fn new() -> Self {
        let threads = rayon::current_num_threads();
        CpuBackend {
            info: BackendInfo {
                kind: BackendKind::Cpu,
                adapter: format!("cpu ({threads} threads)"),
                api: "cpu".into(),
                driver: format!("fzwgpu {}", env!("CARGO_PKG_VERSION")),
                shader_f64: true,
                subgroups: false,
                subgroup_max: 0,
                subgroup_layout: "no subgroups".into(),
                timestamps: false,
                max_binding_bytes: 1 << 40,
                max_buffer_bytes: 1 << 40,
                max_workgroups_per_dim: u32::MAX,
                storage_align: 4,
                loop_limit: None,
                coalesce: false,
                software: true,
                upload_staging: "none".into(),
                hash_on_upload: false,
            },
            slab: Mutex::new(Slab::default()),
        }
    }

    /// A backend whose limits mimic a small device (for chunking tests).
    pub fn with_limits(max_binding_bytes: u64, storage_align: u64) -> Self {
        let mut b = Self::new();
        b.info.max_binding_bytes = max_binding_bytes;
        b.info.storage_align = storage_align;
        b
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Slab>> {
        self.slab.lock().map_err(|_| Error::Device("cpu backend state poisoned by an earlier panic".into()))
    }

    /// A recording's commands, in order, on the buffer table.
    fn run_commands(slab: &mut Slab, rec: &Recording) -> Result<()> {
        for cmd in &rec.commands {
            match cmd {
                Command::Dispatch { kernel, f64, params, bindings, groups } => {
                    Self::run_dispatch(slab, *kernel, *f64, params, bindings, *groups)?;
                }
                Command::Clear { dst } => {
                    let v = slab.bufs[dst.buf.0 as usize].as_mut().ok_or_else(|| Error::Device("clear of dead buffer".into()))?;
                    let bytes: &mut [u8] = bytemuck::cast_slice_mut(v.as_mut_slice());
                    bytes[dst.offset as usize..(dst.offset + dst.size) as usize].fill(0);
                }
                Command::Copy { src, dst } => {
                    let data = {
                        let v = slab.bufs[src.buf.0 as usize].as_ref().ok_or_else(|| Error::Device("copy from dead buffer".into()))?;
                        let bytes: &[u8] = bytemuck::cast_slice(v);
                        bytes[src.offset as usize..(src.offset + src.size) as usize].to_vec()
                    };
                    let v = slab.bufs[dst.buf.0 as usize].as_mut().ok_or_else(|| Error::Device("copy to dead buffer".into()))?;
                    let bytes: &mut [u8] = bytemuck::cast_slice_mut(v.as_mut_slice());
                    bytes[dst.offset as usize..(dst.offset + dst.size) as usize].copy_from_slice(&data);
                }
            }
        }
        Ok(())
    }

    fn run_dispatch(slab: &mut Slab, kernel: Kernel, f64: bool, params: &[u8], bindings: &[BufSlice], groups: u32) -> Result<()> {
        let refl = kernels::reflect(kernel, Variant { f64, subgroup: false, coalesce: false })?;
        let kinds: Vec<BindKind> = refl.bindings.iter().copied().filter(|k| *k != BindKind::Uniform).collect();
        // Take the written buffers out of the slab so the read-only ones can be borrowed.
        let mut taken: Vec<(u32, Vec<u64>)> = Vec::new();
        for (s, k) in bindings.iter().zip(&kinds) {
            if *k == BindKind::ReadWrite && !taken.iter().any(|(id, _)| *id == s.buf.0) {
                let v = slab
                    .bufs
                    .get_mut(s.buf.0 as usize)
                    .and_then(Option::take)
                    .ok_or_else(|| Error::Device(format!("{}: buffer {} is not live", kernel.name(), s.buf.0)))?;
                taken.push((s.buf.0, v));
            }
        }
        let result = {
            let mut ro = Vec::new();
            for (s, k) in bindings.iter().zip(&kinds) {
                if *k == BindKind::ReadOnly {
                    let v = slab.bufs.get(s.buf.0 as usize).and_then(Option::as_ref).ok_or_else(|| {
                        Error::Device(format!("{}: buffer {} is bound both read-only and read-write", kernel.name(), s.buf.0))
                    })?;
                    let bytes: &[u8] = bytemuck::cast_slice(v);
                    ro.push(&bytes[s.offset as usize..(s.offset + s.size) as usize]);
                }
            }
            let mut rw = Vec::new();
            let mut rw_slices: Vec<(usize, BufSlice)> = Vec::new();
            for (s, k) in bindings.iter().zip(&kinds) {
                if *k == BindKind::ReadWrite {
                    let idx = taken.iter().position(|(id, _)| *id == s.buf.0).unwrap_or(0);
                    if rw_slices.iter().any(|(i, _)| *i == idx) {
                        return Err(Error::Device(format!("{}: one buffer bound read-write twice", kernel.name())));
                    }
                    rw_slices.push((idx, *s));
                }
            }
            // Hand out disjoint &mut windows of the taken buffers.
            let mut taken_refs: Vec<Option<&mut Vec<u64>>> = taken.iter_mut().map(|(_, v)| Some(v)).collect();
            for (idx, s) in &rw_slices {
                let v = taken_refs[*idx].take().ok_or_else(|| Error::Device("binding aliasing".into()))?;
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(v.as_mut_slice());
                rw.push(&mut bytes[s.offset as usize..(s.offset + s.size) as usize]);
            }
            let mut b = Bindings { ro, rw };
            twin(kernel, f64)(params, &mut b, groups)
        };
        for (id, v) in taken {
            slab.bufs[id as usize] = Some(v);
        }
        result
    }
}

fn words_for(bytes: u64) -> usize {
    (bytes.max(16).div_ceil(8)) as usize
}

impl Backend for CpuBackend {
    fn info(&self) -> &BackendInfo {
        &self.info
    }

    fn create_buffer(&self, bytes: u64) -> Result<BufId> {
        let words = words_for(bytes);
        let mut slab = self.lock()?;
        let v = match slab.pool.iter().position(|p| p.len() == words) {
            Some(i) => slab.pool.swap_remove(i),
            None => {
                let mut v = Vec::new();
                v.try_reserve_exact(words).map_err(|_| Error::OutOfMemory(format!("host allocation of {bytes} bytes failed")))?;
                v.resize(words, 0u64);
                v
            }
        };
        let id = match slab.free_ids.pop() {
            Some(id) => {
                slab.bufs[id as usize] = Some(v);
                id
            }
            None => {
                slab.bufs.push(Some(v));
                (slab.bufs.len() - 1) as u32
            }
        };
        Ok(BufId(id))
    }

    fn release_buffer(&self, id: BufId) {
        if let Ok(mut slab) = self.lock() {
            if let Some(v) = slab.bufs.get_mut(id.0 as usize).and_then(Option::take) {
                slab.free_ids.push(id.0);
                if slab.pool.len() < 64 {
                    slab.pool.push(v);
                }
            }
        }
    }

    fn buffer_size(&self, id: BufId) -> Result<u64> {
        let slab = self.lock()?;
        slab.bufs
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .map(|v| v.len() as u64 * 8)
            .ok_or_else(|| Error::Device(format!("buffer {} is not live", id.0)))
    }

    fn write_buffer(&self, id: BufId, offset: u64, data: &[u8]) -> Result<()> {
        let mut slab = self.lock()?;
        let v = slab
            .bufs
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
            .ok_or_else(|| Error::Device(format!("buffer {} is not live", id.0)))?;
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(v.as_mut_slice());
        let end = offset
            .checked_add(data.len() as u64)
            .filter(|e| *e <= bytes.len() as u64)
            .ok_or_else(|| Error::Device("write outside buffer".into()))?;
        bytes[offset as usize..end as usize].copy_from_slice(data);
        Ok(())
    }

    fn submit(&self, rec: &Recording) -> Result<Submission> {
        validate_recording(self, rec)?;
        let t0 = Instant::now();
        let mut guard = self.lock()?;
        // the kernels' parallel work runs on fzwgpu's own pool while the buffer table is
        // held (hostmem::isolated: a caller's rayon worker must not run the caller's
        // other tasks meanwhile, which may call into this backend)
        let slab: &mut Slab = &mut guard;
        crate::hostmem::isolated(|| Self::run_commands(slab, rec))?;
        let kernel_seconds = Some(t0.elapsed().as_secs_f64());
        drop(guard);
        let readbacks = self.read_buffers(&rec.readbacks)?;
        Ok(Submission { readbacks, kernel_seconds })
    }

    fn read_buffers(&self, slices: &[BufSlice]) -> Result<Vec<Vec<u8>>> {
        let slab = self.lock()?;
        slices
            .iter()
            .map(|s| {
                let v = slab
                    .bufs
                    .get(s.buf.0 as usize)
                    .and_then(Option::as_ref)
                    .ok_or_else(|| Error::Device("readback of dead buffer".into()))?;
                let bytes: &[u8] = bytemuck::cast_slice(v);
                let end = s
                    .offset
                    .checked_add(s.size)
                    .filter(|e| *e <= bytes.len() as u64)
                    .ok_or_else(|| Error::Device("readback outside buffer".into()))?;
                Ok(bytes[s.offset as usize..end as usize].to_vec())
            })
            .collect()
    }

    fn trim_pool(&self) {
        if let Ok(mut slab) = self.lock() {
            slab.pool.clear();
        }
    }
}

/// Typed view helpers for twins.
pub(crate) fn view<'a, T: bytemuck::Pod>(b: &'a [u8], what: &str) -> Result<&'a [T]> {
    bytemuck::try_cast_slice(b).map_err(|e| Error::Device(format!("{what}: {e:?}")))
}
pub(crate) fn view_mut<'a, T: bytemuck::Pod>(b: &'a mut [u8], what: &str) -> Result<&'a mut [T]> {
    bytemuck::try_cast_slice_mut(b).map_err(|e| Error::Device(format!("{what}: {e:?}")))
}
pub(crate) fn params<P: bytemuck::Pod>(b: &[u8]) -> Result<P> {
    bytemuck::try_pod_read_unaligned(b).map_err(|e| Error::Device(format!("params: {e:?}")))
}

/// A device-style error from a twin's size check.
pub(crate) fn need(ok: bool, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Device(format!("cpu twin: {what}")))
    }
}

/// A view of `b` as `T`, truncated to whole elements (windows may end mid-element).
pub(crate) fn view_trunc<'a, T: bytemuck::Pod>(b: &'a [u8], what: &str) -> Result<&'a [T]> {
    let sz = std::mem::size_of::<T>();
    view(&b[..b.len() / sz * sz], what)
}

/// Blocks a team kernel (shaders/common/team.wgsl) covers: all of them, grid-stride,
/// for any dispatch of at least one workgroup.
pub(crate) fn team_blocks(nblocks: u32, groups: u32) -> usize {
    if groups == 0 {
        0
    } else {
        nblocks as usize
    }
}
