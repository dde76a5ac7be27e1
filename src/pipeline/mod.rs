//! The pipeline: a DAG of stages built from code or TOML. `finalize` checks port
//! types and orders the graph; `compress` records every stage's forward kernels into
//! one submission (stages that need a host decision, like NOA's range, flush first),
//! reads sizes back once at the end and writes the FZM archive; `decompress` rebuilds
//! the stages from the archive alone and runs the inverse DAG.

pub mod config;

use crate::backend::cpu::CpuBackend;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::format::fzm::{self, BufferEntry, StageInfo, EXTERNAL_ID, STAGE_FLAG_PRIMARY};
use crate::kernels::range::device_range;
use crate::recording::{BufSlice, Recorder};
use crate::stages::bitpack::BitpackStage;
use crate::stages::lorenzo::LorenzoStage;
use crate::stages::quantizer::QuantizerStage;
use crate::stages::{self, FusionPolicy, PartLen, PortData, RunOptions, Stage};
use crate::types::{DataType, Dims, ErrorBound, Field};
use config::MemoryStrategy;
use std::collections::HashMap;
use std::time::Instant;

/// Handle of a stage in a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StageId(pub usize);

/// Where a stage input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The raw field.
    External,
    /// Output `port` of stage `node`.
    Port { node: usize, port: usize },
}

struct Node {
    name: String,
    stage: Box<dyn Stage>,
    inputs: Vec<Option<Source>>,
}

/// A DAG of stages.
pub struct Pipeline {
    nodes: Vec<Node>,
    dims: Option<Dims>,
    primary: Option<usize>,
    order: Vec<usize>,
    finalized: bool,
    pub memory_strategy: MemoryStrategy,
    pub pool_multiplier: f64,
    pub options: RunOptions,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

/// What one compress or decompress call did.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Kernel time: GPU timestamps (wgpu) or compute wall time (cpu), summed over the
    /// direction's submissions.
    pub kernel_seconds: Option<f64>,
    /// Host-to-host time of the whole call (upload, kernels, readback, archive I/O).
    pub wall_seconds: f64,
    pub submissions: u32,
    /// Untimed pre-heat submissions (`RunOptions::timing_preheat_ms`) run before the
    /// timed replays.
    pub preheat_submissions: u32,
    /// Backend that ran the kernels (after any fallback).
    pub backend: String,
    pub adapter: String,
    /// (stage name, note)
    pub notes: Vec<(String, String)>,
    /// (stage name, resolved absolute bound) of lossy stages
    pub bounds: Vec<(String, f64)>,
    /// The stage whose inverse returns the field (the primary source).
    pub primary: String,
    /// Where the wall time went, in seconds: "upload" (host to device), "device"
    /// (submissions, including the waits and the small readbacks that come with
    /// them), "download" (device to host), "host" (archive parsing or assembly; on
    /// compress also split out: "host.setup" (configuring the stages for the field,
    /// before the upload), "host.record" (recording the stages' commands, outside the
    /// submissions and buffer creation), "host.finish" (the stages' statistics from
    /// their archived outputs, and the archive's entries), "host.coding" (host coders
    /// such as SPECK), "host.archive" (writing the FZM bytes with their CRCs); on decompress
    /// "host.parse" (reading and checking the archive's header and layout; the payload
    /// checksum of archives past 1 MiB runs on another thread beside the uploads),
    /// "host.verify" (waiting for that checksum after the uploads) and "host.record"
    /// (recording the inverses, with the stages' metadata scans, which read the archive
    /// in place); both: "host.alloc" (buffer creation or pool reuse), "host.release"
    /// (returning buffers)).
    pub phases: Vec<(String, f64)>,
}

/// A compressed archive and its report.
#[derive(Debug, Clone)]
pub struct Compressed {
    pub bytes: Vec<u8>,
    pub report: RunReport,
}

/// A decompressed field and its report.
#[derive(Debug, Clone)]
pub struct Decompressed {
    pub field: Field,
    pub report: RunReport,
}

/// A field resident in one backend's device memory: uploaded once and compressed many
/// times ([`Pipeline::compress_device`]), or the output of [`decompress_device`]
/// (no host copy). Its buffer goes back to the backend's pool on drop.
pub struct DeviceField<'b> {
    backend: &'b dyn Backend,
    buf: crate::recording::BufId,
    offset: u64,
    len: u64,
    pub dtype: DataType,
    pub dims: Dims,
}

impl<'b> DeviceField<'b> {
    /// Upload a host field.
    pub fn upload(backend: &'b dyn Backend, field: &Field) -> Result<Self> {
        let len = field.bytes.len() as u64;
        let buf = backend.create_buffer(len.next_multiple_of(4))?;
        let df = DeviceField { backend, buf, offset: 0, len, dtype: field.dtype, dims: field.dims };
        backend.write_buffer(buf, 0, &field.bytes)?;
        Ok(df)
    }

    /// Copy the field back to the host.
    pub fn download(&self) -> Result<Field> {
        let mut bytes = self.backend.read_buffers(&[BufSlice::new(self.buf, self.offset, self.len.next_multiple_of(4))])?.remove(0);
        bytes.truncate(self.len as usize);
        Field::new(self.dtype, self.dims, bytes)
    }

    pub fn len_bytes(&self) -> u64 {
        self.len
    }

    /// A field over a live buffer of `backend` (its first `len` bytes); the buffer is
    /// released when the field drops.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn from_buffer(backend: &'b dyn Backend, buf: crate::recording::BufId, len: u64, dtype: DataType, dims: Dims) -> Self {
        DeviceField { backend, buf, offset: 0, len, dtype, dims }
    }

    /// The field's bytes as a window (length rounded up to 4).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn slice(&self) -> BufSlice {
        BufSlice::new(self.buf, self.offset, self.len.next_multiple_of(4))
    }

    fn port(&self) -> PortData<'static> {
        PortData::Device { slice: BufSlice::new(self.buf, self.offset, self.len.next_multiple_of(4)), len: self.len, host: None }
    }
}

impl Drop for DeviceField<'_> {
    fn drop(&mut self) {
        self.backend.release_buffer(self.buf);
    }
}

/// The overlap's chunk and whether the compression's readback overlaps the upload, from
/// `RunOptions` and the environment (see `RunOptions::overlap_chunk_bytes`); None: no
/// overlap (also under timing replays, which need each submission waited for).
fn overlap_chunk(be: &dyn Backend, opts: &RunOptions) -> Result<Option<(u64, bool)>> {
    let mode = crate::envcfg::get("FZWGPU_OVERLAP")?;
    // off unless asked for: on an H100 (round 37) both directions ran 1.5-2x slower
    // than the plain path through Vulkan and 2-3x through CUDA (PERFORMANCE.md, Tried)
    let env_on = matches!(mode.as_deref(), Some("on" | "upload"));
    // the payload read back while later chunks upload (`upload`: at the end)
    let read = opts.overlap_readback.unwrap_or(mode.as_deref() != Some("upload"));
    let env_chunk = crate::envcfg::get("FZWGPU_OVERLAP_CHUNK")?.map(|v| crate::types::parse_size(&v)).transpose()?;
    let chunk = match opts.overlap_chunk_bytes {
        Some(0) => return Ok(None),
        Some(c) => c,
        None if !env_on || be.info().kind == crate::backend::BackendKind::Cpu => return Ok(None),
        None => env_chunk.unwrap_or(OVERLAP_CHUNK),
    };
    Ok((opts.timing_replays == 0).then_some((chunk, read)))
}

/// `opts` with chunks of at most `chunk` bytes: the overlap's chunks are the SZx
/// stage's own (which never change the archive).
fn chunked(opts: &RunOptions, chunk: u64) -> RunOptions {
    RunOptions { max_chunk_bytes: Some(opts.max_chunk_bytes.map_or(chunk, |m| m.min(chunk))), ..opts.clone() }
}

/// Overlapped decompression of an archive of one SZx stage into host memory: the meta
/// region uploads, then each chunk's payload; each chunk is decoded (queued without a
/// wait) as soon as its payload is on the device, and a thread of its own reads the
/// decoded chunk into `dst` while later chunks upload and decode. The payload's
/// checksum is made of the uploads' pieces and checked at the end: on a mismatch the
/// call fails after `dst` was written (unlike the plain path, where no stage reads
/// a buffer before the check). Returns the field's device port, the upload and the
/// readback's wait after the last chunk (seconds).
#[allow(clippy::too_many_arguments)]
fn decode_overlapped(
    r: &mut Recorder,
    st: &mut stages::szx::SzxStage,
    arch: &fzm::Archive,
    pending: Option<&fzm::PendingChecksum>,
    hash: bool,
    opts: &RunOptions,
    chunk: u64,
    dst: &mut [u8],
) -> Result<(PortData<'static>, f64, f64)> {
    let be = r.backend;
    let data = arch.buffer_data(0);
    let at = arch.buffers[0].byte_offset;
    let size = (data.len() as u64).next_multiple_of(4).max(4);
    let buf = r.alloc(size)?;
    let inputs =
        [PortData::Device { slice: BufSlice::new(buf, 0, size), len: data.len() as u64, host: Some(stages::HostBytes::Archive(data)) }];
    let sopts = chunked(opts, chunk);
    // checks the buffer against its meta region (read from the archive on the host)
    let inv = st.inverse_begin(r, &inputs, &sopts)?;
    let field = inv.output();
    if field.device("field")?.1 != dst.len() as u64 {
        return Err(Error::corrupt(format!("the SZx stage decodes {} bytes, the header says {}", field.device("field")?.1, dst.len())));
    }
    let tu = Instant::now();
    let mut pieces: Vec<(u64, u64, u32)> = Vec::new();
    let mut upload = |range: std::ops::Range<u64>| -> Result<()> {
        let bytes = &data[range.start as usize..range.end as usize];
        if bytes.is_empty() {
            return Ok(());
        }
        if hash {
            pieces.push((at + range.start, bytes.len() as u64, be.write_buffer_crc(buf, range.start, bytes)?));
        } else {
            be.write_buffer(buf, range.start, bytes)?;
        }
        Ok(())
    };
    let trace = Trace::new();
    upload(0..inv.g.meta_pad())?;
    let (tx, rx) = std::sync::mpsc::channel::<(BufSlice, std::ops::Range<usize>)>();
    let mut t_wait = 0.0;
    std::thread::scope(|sc| -> Result<()> {
        // where the uploads do not hash their pieces, a thread hashes the payload beside them
        let check = pending.filter(|_| !hash).map(|p| sc.spawn(move || p.verify()));
        let reader = sc.spawn(move || -> Result<()> {
            let mut rest = dst;
            let mut pos = 0usize;
            for (k, (win, range)) in rx.into_iter().enumerate() {
                // windows come in order, each after the one before
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(range.end - pos);
                trace.ev("read", k as u64);
                be.read_into(&[win], &mut [&mut head[range.start - pos..]])?;
                trace.ev("read-done", k as u64);
                rest = tail;
                pos = range.end;
            }
            Ok(())
        });
        for k in 0..inv.g.nchunks {
            trace.ev("upload", k);
            upload(inv.payload(k))?;
            trace.ev("uploaded", k);
            st.inverse_chunk(r, &inv, k)?;
            r.submit_nowait()?;
            trace.ev("submitted", k);
            let w = inv.out_window(k);
            let o = (w.offset - field.device("field")?.0.offset) as usize;
            // a reader that stopped returns its error at the join below
            let _ = tx.send((w, o..o + w.size as usize));
        }
        drop(tx);
        let tw = Instant::now();
        let got = reader.join().map_err(|_| Error::Pipeline("the overlapped readback panicked".into()))?;
        t_wait = tw.elapsed().as_secs_f64();
        got?;
        match check {
            Some(h) => h.join().map_err(|_| Error::Pipeline("the payload checksum thread panicked".into()))?,
            None => Ok(()),
        }
    })?;
    let t_upload = tu.elapsed().as_secs_f64() - t_wait;
    if let (true, Some(p)) = (hash, pending) {
        p.check(payload_crc(arch.payload, pieces))?;
    }
    Ok((field, t_upload, t_wait))
}

/// An overlapped compression's payload, read back while the field uploaded: the archive's
/// memory with each chunk's payload in place, and each chunk's (CRC-32, bytes).
struct Prefetched {
    archive: Vec<u8>,
    parts: Vec<(u32, u64)>,
}

/// The overlapped readback's thread: for each coded chunk (its payload window and its
/// total's word), in order, read the total, then that many bytes of payload into
/// `archive` from `base` on, each chunk after the one before. On the device a read
/// runs after everything queued before it, later chunks' uploads included: through one
/// queue that is what kept this slower than the plain path (PERFORMANCE.md, Tried).
fn read_overlapped(
    be: &dyn Backend,
    chunks: std::sync::mpsc::Receiver<(BufSlice, BufSlice)>,
    mut archive: Vec<u8>,
    base: u64,
    trace: Trace,
) -> Result<Prefetched> {
    let mut parts = Vec::new();
    let mut at = base as usize;
    for (payload, total) in chunks {
        let k = parts.len() as u64;
        trace.ev("read-total", k);
        let w = be.read_buffers(&[total])?;
        trace.ev("read-payload", k);
        let w = w.first().and_then(|w| w.get(..4)).ok_or_else(|| Error::Device("overlapped total readback too short".into()))?;
        let len = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64 * 4;
        if len > payload.size {
            return Err(Error::Device(format!("an overlapped chunk reported {len} bytes in a {}-byte buffer", payload.size)));
        }
        let end = at + len as usize;
        if archive.len() < end {
            archive.resize(end, 0);
        }
        let crc = be.read_into_crc(&[BufSlice::new(payload.buf, payload.offset, len)], &mut [&mut archive[at..end]])?;
        parts.push((crc.first().copied().unwrap_or(0), len));
        trace.ev("read-done", k);
        at = end;
    }
    Ok(Prefetched { archive, parts })
}

/// `FZWGPU_OVERLAP_TRACE` (diagnostic): an overlapped run's timeline on stderr, one
/// line per event (milliseconds since the run's start, event, chunk).
#[derive(Clone, Copy)]
struct Trace {
    t0: Instant,
    on: bool,
}

impl Trace {
    fn new() -> Self {
        Trace { t0: Instant::now(), on: crate::envcfg::get("FZWGPU_OVERLAP_TRACE").ok().flatten().is_some() }
    }
    fn ev(&self, what: &str, k: u64) {
        if self.on {
            eprintln!("overlap-trace {:9.3} {what} {k}", self.t0.elapsed().as_secs_f64() * 1e3);
        }
    }
}

/// Overlapped compression's default chunk: 64 MiB of the field (`FZWGPU_OVERLAP_CHUNK`).
pub const OVERLAP_CHUNK: u64 = 64 << 20;

/// The field a compression reads: host bytes (uploaded by the run) or a resident one.
enum Input<'a, 'b> {
    Host(&'a Field),
    Device(&'a DeviceField<'b>),
}

/// The backend a run uses: `backend`, or the cpu backend (same archives) when the
/// stages need float64 arithmetic the adapter lacks, or when one of their kernel
/// invocations would loop longer than the adapter lets it (`loops`, see
/// `BackendInfo::loop_limit`). The reason goes to the run notes.
fn cpu_fallback<'a>(
    backend: &'a dyn Backend,
    needs_f64: bool,
    loops: u64,
    holder: &'a mut Option<CpuBackend>,
    notes: &mut Vec<(String, String)>,
) -> &'a dyn Backend {
    let info = backend.info();
    let why = if needs_f64 && !info.shader_f64 {
        Some(format!("no SHADER_F64 on {}", info.adapter))
    } else {
        // half the limit: a margin for loop overheads the estimate does not count
        info.loop_limit
            .filter(|&l| loops > l / 2)
            .map(|l| format!("a kernel invocation would run {loops} loop iterations; {} stops loops after {l}", info.adapter))
    };
    match why {
        Some(why) => {
            notes.push(("pipeline".into(), format!("fallback=cpu({why})")));
            holder.insert(CpuBackend::new())
        }
        None => backend,
    }
}

impl RunReport {
    /// The bound the returned field is guaranteed to: the primary stage's, else the
    /// first lossy stage's (0 when there is none).
    pub fn field_bound(&self) -> f64 {
        self.bounds.iter().find(|b| b.0 == self.primary).or(self.bounds.first()).map_or(0.0, |b| b.1)
    }
}

impl Pipeline {
    pub fn new() -> Self {
        Pipeline {
            nodes: Vec::new(),
            dims: None,
            primary: None,
            order: Vec::new(),
            finalized: false,
            memory_strategy: MemoryStrategy::default(),
            pool_multiplier: 3.0,
            options: RunOptions::default(),
        }
    }

    /// Build from TOML text.
    pub fn from_toml(text: &str) -> Result<Self> {
        config::parse(text)
    }

    /// Build from a built-in preset name.
    pub fn from_preset(name: &str) -> Result<Self> {
        config::parse(config::preset(name)?)
    }

    pub fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }

    pub fn dims(&self) -> Option<Dims> {
        self.dims
    }

    /// Add a stage under a unique name (at most 63 bytes).
    pub fn add_stage(&mut self, name: &str, stage: Box<dyn Stage>) -> Result<StageId> {
        if name.is_empty() || name.len() >= fzm::NAME_BYTES || name == "__external__" {
            return Err(Error::Pipeline(format!("stage name '{name}' must be 1..63 bytes and not __external__")));
        }
        if self.find(name).is_some() {
            return Err(Error::Pipeline(format!("two stages named '{name}'")));
        }
        let n_in = stage.inputs().len();
        self.nodes.push(Node { name: name.to_string(), stage, inputs: vec![None; n_in] });
        self.finalized = false;
        Ok(StageId(self.nodes.len() - 1))
    }

    pub fn find(&self, name: &str) -> Option<StageId> {
        self.nodes.iter().position(|n| n.name == name).map(StageId)
    }

    fn node(&self, id: StageId) -> Result<&Node> {
        self.nodes.get(id.0).ok_or_else(|| Error::Pipeline(format!("no stage #{}", id.0)))
    }

    /// Feed output `port` (by name; None = the first output) of `src` into input
    /// `dst_port` of `dst`.
    pub fn connect(&mut self, src: StageId, port: Option<&str>, dst: StageId, dst_port: usize) -> Result<()> {
        let s = self.node(src)?;
        let outs = s.stage.outputs();
        let p = match port {
            None => 0,
            Some(name) => outs.iter().position(|o| o.name == name).ok_or_else(|| {
                Error::Pipeline(format!(
                    "stage '{}' has no output '{name}' (outputs: {})",
                    s.name,
                    outs.iter().map(|o| o.name.clone()).collect::<Vec<_>>().join(", ")
                ))
            })?,
        };
        self.set_input(dst, dst_port, Source::Port { node: src.0, port: p })
    }

    /// Feed the raw field into input `port` of `dst`.
    pub fn bind_external_input(&mut self, dst: StageId, port: usize) -> Result<()> {
        self.set_input(dst, port, Source::External)
    }

    fn set_input(&mut self, dst: StageId, port: usize, src: Source) -> Result<()> {
        let n = self.nodes.get_mut(dst.0).ok_or_else(|| Error::Pipeline(format!("no stage #{}", dst.0)))?;
        let slot = n.inputs.get_mut(port).ok_or_else(|| Error::Pipeline(format!("stage '{}' has no input {port}", n.name)))?;
        *slot = Some(src);
        self.finalized = false;
        Ok(())
    }

    /// The stage whose inverse output 0 is the field `decompress` returns.
    pub fn set_primary_source(&mut self, id: StageId) -> Result<()> {
        self.node(id)?;
        self.primary = Some(id.0);
        Ok(())
    }

    /// Override the bound of every lossy stage; error if there is none.
    pub fn override_bound(&mut self, eb: ErrorBound) -> Result<usize> {
        let eb = ErrorBound::new(eb.mode, eb.value)?;
        let mut n = 0;
        for node in &mut self.nodes {
            if node.stage.override_bound(eb) {
                n += 1;
            }
        }
        if n == 0 {
            return Err(Error::config("--eb/--mode given but the pipeline has no lossy stage"));
        }
        Ok(n)
    }

    /// The bounds the lossy stages are configured with, in stage order.
    pub fn configured_bounds(&self) -> Vec<ErrorBound> {
        self.nodes.iter().filter_map(|n| n.stage.configured_bound()).collect()
    }

    /// Borrow a stage (e.g. to read SZx's constant-block fraction after a run).
    pub fn stage(&self, id: StageId) -> Option<&dyn Stage> {
        self.nodes.get(id.0).map(|n| n.stage.as_ref())
    }

    pub fn stage_names(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.name.clone()).collect()
    }

    /// Check the graph: inputs connected (a stage with none is fed the raw field),
    /// port data types agree (UNKNOWN opts out), no cycles, a primary source.
    pub fn finalize(&mut self) -> Result<()> {
        if self.nodes.is_empty() {
            return Err(Error::Pipeline("no stages".into()));
        }
        for node in &mut self.nodes {
            if node.inputs.iter().all(Option::is_none) {
                if let Some(first) = node.inputs.first_mut() {
                    *first = Some(Source::External);
                }
            }
            if let Some(k) = node.inputs.iter().position(Option::is_none) {
                return Err(Error::Pipeline(format!("stage '{}': input {k} is not connected", node.name)));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for (k, src) in node.inputs.iter().enumerate() {
                if let Some(Source::Port { node: s, port }) = src {
                    let from = self.nodes[*s].stage.outputs();
                    let to = node.stage.inputs();
                    let (a, b) = (from[*port].dtype, to[k].dtype);
                    if a != b && a != DataType::Unknown && b != DataType::Unknown {
                        return Err(Error::Pipeline(format!(
                            "type mismatch: '{}'.{} is {a}, '{}' input {k} takes {b}",
                            self.nodes[*s].name, from[*port].name, node.name
                        )));
                    }
                    if *s == i {
                        return Err(Error::Pipeline(format!("stage '{}' feeds itself", node.name)));
                    }
                }
            }
        }
        // Kahn's topological order
        let n = self.nodes.len();
        let mut indeg = vec![0usize; n];
        for (i, node) in self.nodes.iter().enumerate() {
            indeg[i] = node.inputs.iter().filter(|s| matches!(s, Some(Source::Port { .. }))).count();
        }
        let mut order = Vec::with_capacity(n);
        let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        while let Some(i) = ready.pop() {
            order.push(i);
            for (j, node) in self.nodes.iter().enumerate() {
                for s in &node.inputs {
                    if let Some(Source::Port { node: src, .. }) = s {
                        if *src == i {
                            indeg[j] -= 1;
                            if indeg[j] == 0 {
                                ready.push(j);
                            }
                        }
                    }
                }
            }
        }
        if order.len() != n {
            return Err(Error::Pipeline("the stage graph has a cycle".into()));
        }
        let externals: Vec<usize> = (0..n).filter(|&i| self.nodes[i].inputs.contains(&Some(Source::External))).collect();
        if externals.is_empty() {
            return Err(Error::Pipeline("no stage takes the raw field".into()));
        }
        if self.primary.is_none() {
            self.primary = Some(externals[0]);
        }
        if let Some(p) = self.primary {
            if !self.nodes[p].inputs.contains(&Some(Source::External)) {
                return Err(Error::Pipeline(format!("primary source '{}' does not take the raw field", self.nodes[p].name)));
            }
        }
        self.order = order;
        self.finalized = true;
        Ok(())
    }

    /// Let float and integer types flow along connections: a stage fed by another
    /// stage's output adapts to that output's type when it can (a Quantizer after a
    /// float64 transform takes float64, a coder after zigzag codes takes uint32). A
    /// stage that cannot keeps its type and `finalize` reports the mismatch.
    fn propagate_dtypes(&mut self) {
        for _ in 0..self.nodes.len() {
            let mut changed = false;
            for i in 0..self.nodes.len() {
                for k in 0..self.nodes[i].inputs.len() {
                    let Some(Source::Port { node, port }) = self.nodes[i].inputs[k] else { continue };
                    let Some(d) = self.nodes.get(node).and_then(|n| n.stage.outputs().get(port).map(|p| p.dtype)) else { continue };
                    let cur = self.nodes[i].stage.inputs().get(k).map(|p| p.dtype).unwrap_or(DataType::Unknown);
                    if d != cur && d != DataType::Unknown && cur != DataType::Unknown && self.nodes[i].stage.set_input_dtype(k, d).is_ok() {
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// (quantizer, lorenzo, bitpack) node triples that form a fusable chain: the
    /// Quantizer's codes feed only the Lorenzo, whose residuals feed only the
    /// AdaptiveBitpack.
    fn fusable_chains(&self, consumers: &HashMap<(usize, usize), usize>) -> Vec<(usize, usize, usize)> {
        let only_consumer = |node: usize, port: usize| -> Option<usize> {
            if consumers.get(&(node, port)) != Some(&1) {
                return None;
            }
            self.nodes.iter().position(|n| n.inputs.first() == Some(&Some(Source::Port { node, port })))
        };
        let is = |i: usize, id: u16| self.nodes[i].stage.type_id() == id;
        let mut out = Vec::new();
        for i in 0..self.nodes.len() {
            if !is(i, stages::ids::QUANTIZER) {
                continue;
            }
            let Some(j) = only_consumer(i, 0).filter(|&j| is(j, stages::ids::LORENZO)) else { continue };
            let Some(k) = only_consumer(j, 0).filter(|&k| is(k, stages::ids::BITPACK)) else { continue };
            out.push((i, j, k));
        }
        out
    }

    fn consumers(&self) -> HashMap<(usize, usize), usize> {
        let mut c = HashMap::new();
        for node in &self.nodes {
            for s in node.inputs.iter().flatten() {
                if let Source::Port { node: n, port } = s {
                    *c.entry((*n, *port)).or_insert(0) += 1;
                }
            }
        }
        c
    }

    /// Whether to overlap this compression with its transfers, and with which chunk
    /// (bytes of the field): `Some((node, chunk, readback))` for a pipeline of one SZx
    /// stage taking the field, a field of at least two chunks, and an overlap asked for
    /// (`RunOptions::overlap_chunk_bytes`, or `FZWGPU_OVERLAP=on|upload` on a GPU
    /// backend), never under timing replays (those need each submission waited for).
    fn overlap_plan(&self, be: &dyn Backend, opts: &RunOptions, len: u64) -> Result<Option<(usize, u64, bool)>> {
        let Some((chunk, read)) = overlap_chunk(be, opts)? else { return Ok(None) };
        if self.nodes.len() != 1 || len < 2 * chunk {
            return Ok(None);
        }
        let node = &self.nodes[0];
        let szx = node.stage.as_any().downcast_ref::<stages::szx::SzxStage>().is_some();
        Ok((szx && node.inputs.iter().all(|s| matches!(s, Some(Source::External) | None))).then_some((0, chunk, read)))
    }

    /// Upload `bytes` into `ext` chunk by chunk and record SZx node `i`'s chunks as they
    /// arrive, each queued without a wait, so the device codes chunk k while chunk k + 1
    /// uploads (the archive is the same bytes as plain). NOA/REL: the field's range
    /// comes from the host, scanned by threads of its own while the upload runs
    /// (`host_range`, the device range's result to the bit); chunks are coded once it is
    /// known. Returns the node's outputs; the caller's final submission reads them back.
    ///
    /// With `memory` (the caller's recycled archive memory), a thread of its own reads
    /// each coded chunk's payload back into the archive's place while later chunks
    /// upload (`Prefetched`), so only the meta region is read at the end.
    #[allow(clippy::too_many_arguments)]
    fn compress_overlapped(
        &mut self,
        r: &mut Recorder,
        i: usize,
        ext: &PortData,
        bytes: &[u8],
        opts: &RunOptions,
        chunk: u64,
        range_chunk: u64,
        memory: Option<Vec<u8>>,
    ) -> Result<(Vec<PortData<'static>>, Option<Prefetched>)> {
        let nstages = self.order.len();
        let (inbuf, _) = ext.device("field")?;
        let stage = self.nodes[i]
            .stage
            .as_any_mut()
            .downcast_mut::<stages::szx::SzxStage>()
            .ok_or_else(|| Error::Pipeline("overlapped: not an SZx stage".into()))?;
        let sopts = chunked(opts, chunk);
        let inputs = [ext.clone()];
        let mut f = stage.forward_begin(r, &inputs, &sopts)?;
        let sz = stage.config().dtype.size() as u64;
        let f64v = stage.config().dtype == DataType::F64;
        let wants_range = stage.wants_field_range();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get() / 2).clamp(1, 8);
        // the archive's memory: the payload's chunks land at `base` and after, each after
        // the one before (one stage, one archived output at payload offset 0)
        let base = fzm::layout(nstages, &[0])?.header_size as u64 + f.g.meta_pad();
        let memory = match memory {
            Some(m) if m.capacity() as u64 >= base + bytes.len() as u64 => Some(m),
            // fresh zero pages (mapped as the readback first touches them)
            Some(_) => Some(crate::hostmem::zeroed((base + bytes.len() as u64) as usize)?),
            None => None,
        };
        let be = r.backend;
        let trace = Trace::new();
        let (tx, rx) = std::sync::mpsc::channel::<(BufSlice, BufSlice)>();
        let prefetched = std::thread::scope(|sc| -> Result<Option<Prefetched>> {
            let reader = memory.map(|m| sc.spawn(move || read_overlapped(be, rx, m, base, trace)));
            let scan = wants_range.then(|| sc.spawn(move || crate::kernels::range::host_range(bytes, f64v, range_chunk, threads)));
            let mut scan = scan.map(Some).unwrap_or(None);
            let mut next = 0u64; // the next chunk to record
            let nchunks = f.g.nchunks;
            for k in 0..nchunks {
                let v = f.values(k);
                trace.ev("upload", k);
                r.backend.write_buffer(inbuf.buf, inbuf.offset + v.start * sz, &bytes[(v.start * sz) as usize..(v.end * sz) as usize])?;
                trace.ev("uploaded", k);
                let last = k + 1 == nchunks;
                // the range: taken once the scan is done (waited for after the last chunk)
                if let Some(h) = scan.take_if(|h| last || h.is_finished()) {
                    let range = h.join().map_err(|_| Error::Pipeline("the host's range scan panicked".into()))??;
                    trace.ev("range", k);
                    stage.set_field_range(range);
                    stage.prepare_forward(r, &inputs, &sopts)?;
                }
                if scan.is_none() {
                    let from = next;
                    while next <= k {
                        stage.forward_chunk(r, &mut f, next)?;
                        next += 1;
                    }
                    r.submit_nowait()?;
                    trace.ev("submitted", k);
                    for j in from..next {
                        // a reader that stopped returns its error at the join below
                        let _ = tx.send(f.chunk_readback(j));
                    }
                }
            }
            drop(tx);
            match reader {
                Some(h) => h.join().map_err(|_| Error::Pipeline("the overlapped readback panicked".into()))?.map(Some),
                None => Ok(None),
            }
        })?;
        Ok((f.end(), prefetched))
    }

    /// Compress `field` on `backend` into a self-describing FZM archive.
    pub fn compress(&mut self, backend: &dyn Backend, field: &Field) -> Result<Compressed> {
        let mut c = self.compress_input(backend, Input::Host(field), Vec::new())?;
        // an overlapped readback's memory holds the field's size (untouched past the archive)
        if c.bytes.capacity() > c.bytes.len() + (1 << 20) {
            c.bytes.shrink_to_fit();
        }
        Ok(c)
    }

    /// [`Pipeline::compress`] into `out`, whose memory is reused when it can hold the
    /// archive (its old contents are replaced; the archive is the same bytes): for
    /// callers that compress step after step, the archive's readback then lands in
    /// memory whose pages are already mapped instead of a fresh allocation that pays a
    /// page fault per 4 KiB (docs/performance-history.md, round 11). On error `out` is left empty.
    pub fn compress_into(&mut self, backend: &dyn Backend, field: &Field, out: &mut Vec<u8>) -> Result<RunReport> {
        let c = self.compress_input(backend, Input::Host(field), std::mem::take(out))?;
        *out = c.bytes;
        Ok(c.report)
    }

    /// Compress a field already in device memory (no upload; the archive is the same
    /// as [`Pipeline::compress`] of the same values).
    pub fn compress_device(&mut self, field: &DeviceField) -> Result<Compressed> {
        self.compress_input(field.backend, Input::Device(field), Vec::new())
    }

    /// `recycled`: memory for the archive (see [`Pipeline::compress_into`]; empty: a
    /// fresh allocation).
    fn compress_input(&mut self, backend: &dyn Backend, input: Input, mut recycled: Vec<u8>) -> Result<Compressed> {
        let t0 = Instant::now();
        struct Meta {
            dtype: DataType,
            dims: Dims,
        }
        let field = match &input {
            Input::Host(f) => Meta { dtype: f.dtype, dims: f.dims },
            Input::Device(f) => Meta { dtype: f.dtype, dims: f.dims },
        };
        let len = match &input {
            Input::Host(f) => f.bytes.len() as u64,
            Input::Device(f) => f.len,
        };
        if let Some(d) = self.dims {
            if d.len() != field.dims.len() {
                return Err(Error::Input(format!(
                    "field has {} elements ({}), the pipeline's dims {d} hold {}",
                    field.dims.len(),
                    field.dims,
                    d.len()
                )));
            }
        }
        for node in &mut self.nodes {
            for k in 0..node.inputs.len() {
                if node.inputs[k] == Some(Source::External) || (node.inputs.iter().all(Option::is_none) && k == 0) {
                    node.stage.set_input_dtype(k, field.dtype)?;
                }
            }
            node.stage.set_dims(field.dims);
        }
        self.propagate_dtypes();
        self.finalize()?;
        let mut notes = Vec::new();
        let needs_f64 = self.nodes.iter().any(|n| n.stage.needs_f64());
        let loops = self.nodes.iter().map(|n| n.stage.loop_iterations()).max().unwrap_or(0);
        let mut holder = None;
        let be = cpu_fallback(backend, needs_f64, loops, &mut holder, &mut notes);
        let fell_back = be.info().kind != backend.info().kind;
        let opts = self.options.clone();
        let consumers = self.consumers();
        let mut r = Recorder::new(be);
        r.replays = opts.timing_replays;
        r.replays_batched = opts.timing_batched;
        r.preheat_ms = opts.timing_preheat_ms;
        let t_setup = t0.elapsed().as_secs_f64();
        let mut t_upload = 0.0;
        // the device range's chunks (NOA/REL), whether the device or the host finds it
        let range_chunk = {
            let sz = field.dtype.size() as u64;
            let mut limit = be.info().max_binding_bytes.min((1u64 << 31) - 256);
            if let Some(m) = opts.max_chunk_bytes {
                limit = limit.min(m);
            }
            (limit / sz / 64 * 64).max(64)
        };
        // an overlapped node's outputs, recorded (and queued) while the field uploaded
        let mut overlapped: Option<(usize, Vec<PortData>)> = None;
        // its payload parts, read back into the archive while later chunks uploaded
        let mut prefetched: Option<(usize, Prefetched)> = None;
        let external = match input {
            Input::Host(f) => {
                let len = f.bytes.len() as u64;
                let tu = Instant::now();
                let inbuf = r.alloc(len.next_multiple_of(4))?;
                let ext = PortData::Device { slice: BufSlice::new(inbuf, 0, len.next_multiple_of(4)), len, host: None };
                match self.overlap_plan(be, &opts, len)? {
                    Some((node, chunk, read)) => {
                        let recycled = if read { std::mem::take(&mut recycled) } else { Vec::new() };
                        let (outs, pre) =
                            self.compress_overlapped(&mut r, node, &ext, &f.bytes, &opts, chunk, range_chunk, read.then_some(recycled))?;
                        let how = if read { "uploads and readbacks" } else { "uploads" };
                        notes.push(("pipeline".into(), format!("overlapped={} chunks of {chunk} bytes ({how})", len.div_ceil(chunk))));
                        overlapped = Some((node, outs));
                        prefetched = pre.map(|p| (node, p));
                    }
                    None => be.write_buffer(inbuf, 0, &f.bytes)?,
                }
                t_upload = tu.elapsed().as_secs_f64();
                ext
            }
            Input::Device(_) if fell_back => {
                return Err(Error::Unsupported(format!(
                    "this pipeline cannot run on the device field's adapter ({})",
                    notes.last().map_or("", |n| n.1.as_str())
                )))
            }
            Input::Device(f) => f.port(),
        };
        // recording: wall time from here to the last submission, less the submissions
        // and buffer creation in it
        let (t_rec, sub0, alloc0) = (Instant::now(), r.submit_seconds, r.alloc_seconds);
        if overlapped.is_none() && self.nodes.iter().any(|n| n.stage.wants_field_range()) {
            // NOA/REL bounds are relative to the raw field, whatever a stage's input is
            let (slice, len) = external.device("field")?;
            let sz = field.dtype.size() as u64;
            let range = device_range(&mut r, slice, len / sz, field.dtype == DataType::F64, range_chunk)?;
            for node in &mut self.nodes {
                node.stage.set_field_range(range);
            }
        }
        let mut values: Vec<Vec<PortData>> = (0..self.nodes.len()).map(|_| Vec::new()).collect();
        let chains = if opts.fusion == FusionPolicy::Off { Vec::new() } else { self.fusable_chains(&consumers) };
        if opts.fusion == FusionPolicy::Force && chains.is_empty() {
            return Err(Error::Pipeline("fusion = force, but there is no Quantizer -> Lorenzo -> AdaptiveBitpack chain to fuse".into()));
        }
        let mut fused_nodes: Vec<usize> = Vec::new();
        for &i in &self.order.clone() {
            if fused_nodes.contains(&i) {
                continue;
            }
            if let Some((node, outs)) = overlapped.take_if(|(node, _)| *node == i) {
                values[node] = outs;
                continue;
            }
            let inputs: Vec<PortData> = self.nodes[i]
                .inputs
                .iter()
                .map(|s| match s {
                    Some(Source::External) | None => Ok(external.clone()),
                    Some(Source::Port { node, port }) => {
                        values[*node].get(*port).cloned().ok_or_else(|| Error::Pipeline("input not produced".into()))
                    }
                })
                .collect::<Result<_>>()?;
            if let Some(&(_, j, k)) = chains.iter().find(|c| c.0 == i) {
                self.nodes[i].stage.prepare_forward(&mut r, &inputs, &opts)?;
                let n = inputs[0].device("field")?.1 / field.dtype.size() as u64;
                let [qn, ln, bn] = self.nodes.get_disjoint_mut([i, j, k]).map_err(|_| Error::Pipeline("fusion: bad chain".into()))?;
                let (q, l, b) = (
                    qn.stage.as_any_mut().downcast_mut::<QuantizerStage>(),
                    ln.stage.as_any_mut().downcast_mut::<LorenzoStage>(),
                    bn.stage.as_any_mut().downcast_mut::<BitpackStage>(),
                );
                let (Some(q), Some(l), Some(b)) = (q, l, b) else { return Err(Error::Pipeline("fusion: stage types".into())) };
                let why = stages::chain::ineligible(q, l, b, &r, n, &opts).or_else(|| {
                    if opts.fusion == FusionPolicy::Auto {
                        stages::chain::forward_prefers_staged(l, b)
                    } else {
                        None
                    }
                });
                match why {
                    None => {
                        let stages::chain::FusedForward { ports: [qo, lo, bo], kernels, walk } =
                            stages::chain::record_forward(q, l, b, &mut r, &inputs, &opts)?;
                        let names = format!("{}+{}+{} ({kernels})", qn.name, ln.name, bn.name);
                        values[i] = qo;
                        values[j] = lo;
                        values[k] = bo;
                        fused_nodes.extend([j, k]);
                        notes.push(("pipeline".into(), format!("fused={names}")));
                        if let Some(walk) = walk {
                            // rows (2-D) or planes (3-D) each chain_encode invocation walks
                            notes.push(("pipeline".into(), format!("chain_encode_walk={walk}")));
                        }
                        continue;
                    }
                    Some(why) if opts.fusion == FusionPolicy::Force => {
                        return Err(Error::Pipeline(format!(
                            "fusion = force, but {}+{}+{} cannot be fused: {why}",
                            qn.name, ln.name, bn.name
                        )))
                    }
                    Some(why) => notes.push(("pipeline".into(), format!("staged={}+{}+{} ({why})", qn.name, ln.name, bn.name))),
                }
                let outs = self.nodes[i].stage.record_forward(&mut r, &inputs, &opts)?;
                values[i] = outs;
                continue;
            }
            let node = &mut self.nodes[i];
            node.stage.prepare_forward(&mut r, &inputs, &opts)?;
            let outs = node.stage.record_forward(&mut r, &inputs, &opts)?;
            if outs.len() != node.stage.outputs().len() {
                return Err(Error::Pipeline(format!(
                    "stage '{}' produced {} outputs, declares {}",
                    node.name,
                    outs.len(),
                    node.stage.outputs().len()
                )));
            }
            for (p, o) in outs.iter().enumerate() {
                if matches!(o, PortData::Deferred { .. }) && consumers.contains_key(&(i, p)) {
                    return Err(Error::Pipeline(format!(
                        "output {p} of '{}' is an archive-only output and cannot feed another stage",
                        node.name
                    )));
                }
            }
            values[i] = outs;
        }
        let t_record = (t_rec.elapsed().as_secs_f64() - (r.submit_seconds - sub0) - (r.alloc_seconds - alloc0)).max(0.0);
        r.submit()?;
        // resolve the archived (unconsumed) outputs: one batch of reads
        let mut wanted: Vec<(usize, usize)> = Vec::new();
        let mut slices = Vec::new();
        let mut lens = Vec::new();
        for &i in &self.order {
            for (p, v) in values[i].iter().enumerate() {
                if consumers.contains_key(&(i, p)) {
                    continue;
                }
                let parts: Vec<(BufSlice, u64)> = match v {
                    PortData::Device { slice, len, .. } => vec![(*slice, *len)],
                    PortData::Deferred { parts } => parts
                        .iter()
                        .map(|part| {
                            let l = match part.len {
                                PartLen::Fixed(l) => l,
                                PartLen::Readback { index, word, scale } => {
                                    let b = r.result(index)?;
                                    let w = b.get(4 * word..4 * word + 4).ok_or_else(|| Error::Device("size readback too short".into()))?;
                                    u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64 * scale
                                }
                            };
                            if l > part.slice.size {
                                return Err(Error::Device(format!(
                                    "stage '{}' reported {l} bytes in a {}-byte buffer",
                                    self.nodes[i].name, part.slice.size
                                )));
                            }
                            Ok((part.slice, l))
                        })
                        .collect::<Result<_>>()?,
                };
                wanted.push((i, p));
                let mut plen = Vec::new();
                for (s, l) in parts {
                    slices.push(BufSlice::new(s.buf, s.offset, l.next_multiple_of(4)));
                    plen.push(l);
                }
                lens.push(plen);
            }
        }
        // Each output's parts are read straight into their places: into the archive's
        // payload when no archived output is coded on the host (the usual case), else
        // into one allocation per output.
        let direct = wanted.iter().all(|&(i, p)| !self.nodes[i].stage.host_coded(p));
        let sizes: Vec<u64> = lens.iter().map(|pl| pl.iter().sum()).collect();
        let td = Instant::now();
        let mut outputs: HashMap<(usize, usize), Vec<u8>> = HashMap::new();
        let mut placed: Option<(fzm::Layout, Vec<u8>)> = None;
        // the CRC of each destination, hashed as the readback copies it in (direct only)
        let mut part_crcs: Vec<u32> = Vec::new();
        {
            let mut whole: Vec<Vec<u8>> = Vec::new();
            let mut regions: Vec<&mut [u8]> = Vec::with_capacity(sizes.len());
            if direct {
                let lay = fzm::layout(self.order.len(), &sizes)?;
                // an overlapped run's payload is in place already (alloc_reusing keeps the
                // outputs' regions)
                let memory = match &mut prefetched {
                    Some((_, pre)) => std::mem::take(&mut pre.archive),
                    None => recycled,
                };
                let archive = fzm::alloc_reusing(&lay, &sizes, memory)?;
                placed = Some((lay, archive));
                let (lay, archive) = placed.as_mut().expect("just set");
                let mut rest = &mut archive[lay.header_size..];
                let mut at = 0u64;
                for (&off, &size) in lay.offsets.iter().zip(&sizes) {
                    let (_, r) = rest.split_at_mut((off - at) as usize);
                    let (a, r) = r.split_at_mut(size as usize);
                    regions.push(a);
                    rest = r;
                    at = off + size;
                }
            } else {
                whole = sizes.iter().map(|&n| crate::hostmem::zeroed(n as usize)).collect::<Result<_>>()?;
                regions.extend(whole.iter_mut().map(|w| w.as_mut_slice()));
            }
            let mut dsts: Vec<&mut [u8]> = Vec::with_capacity(slices.len());
            for (region, plen) in regions.into_iter().zip(&lens) {
                let mut rest = region;
                for &l in plen {
                    let (a, b) = rest.split_at_mut(l as usize);
                    dsts.push(a);
                    rest = b;
                }
            }
            if let (true, Some((node, pre))) = (direct, &prefetched) {
                // read what the overlap did not (the meta region); the prefetched parts'
                // lengths must be the ones the totals' readback gives
                let k =
                    wanted.iter().position(|w| *w == (*node, 0)).ok_or_else(|| Error::Pipeline("overlapped output not archived".into()))?;
                let first: usize = lens[..k].iter().map(Vec::len).sum();
                let ahead = lens[k].get(1..).unwrap_or_default();
                if ahead.len() != pre.parts.len() || ahead.iter().zip(&pre.parts).any(|(&l, p)| l != p.1) {
                    return Err(Error::Device("the overlapped readback's lengths differ from the chunks' totals".into()));
                }
                let (mut rs, mut rd, mut at) = (Vec::new(), Vec::new(), Vec::new());
                for (j, (s, d)) in slices.iter().zip(dsts).enumerate() {
                    if j <= first || j > first + ahead.len() {
                        rs.push(*s);
                        rd.push(d);
                        at.push(j);
                    }
                }
                let got = be.read_into_crc(&rs, &mut rd)?;
                part_crcs = vec![0; slices.len()];
                for (j, c) in at.into_iter().zip(got) {
                    part_crcs[j] = c;
                }
                for (m, p) in pre.parts.iter().enumerate() {
                    part_crcs[first + 1 + m] = p.0;
                }
            } else if direct {
                part_crcs = be.read_into_crc(&slices, &mut dsts)?;
            } else {
                be.read_into(&slices, &mut dsts)?;
            }
            for (key, bytes) in wanted.iter().zip(whole) {
                outputs.insert(*key, bytes);
            }
        }
        let t_download = td.elapsed().as_secs_f64();
        let (kernel_seconds, submissions, t_device, t_alloc) = (r.kernel_seconds, r.submissions, r.submit_seconds, r.alloc_seconds);
        let preheat_submissions = r.preheat_submissions;
        let trel = Instant::now();
        drop(r); // release this run's buffers to the pool
        let t_release = trel.elapsed().as_secs_f64();
        let tc = Instant::now();
        for &i in &self.order {
            for p in 0..self.nodes[i].stage.outputs().len() {
                if let Some(b) = outputs.remove(&(i, p)) {
                    let coded = self.nodes[i].stage.host_encode(p, b)?;
                    outputs.insert((i, p), coded);
                }
            }
        }
        let t_coding = tc.elapsed().as_secs_f64();
        let tf = Instant::now();
        // the bytes of archived output k, wherever they are
        let archived = |k: usize| -> &[u8] {
            match &placed {
                Some((lay, a)) => {
                    let at = lay.header_size + lay.offsets[k] as usize;
                    &a[at..at + sizes[k] as usize]
                }
                None => outputs.get(&wanted[k]).map_or(&[][..], |v| v.as_slice()),
            }
        };
        for &i in &self.order {
            let n_out = self.nodes[i].stage.outputs().len();
            let hosts: Vec<Option<&[u8]>> = (0..n_out).map(|p| wanted.iter().position(|w| *w == (i, p)).map(&archived)).collect();
            self.nodes[i].stage.finish_forward(&hosts)?;
        }
        // the archive
        let mut ids: HashMap<(usize, usize), u16> = HashMap::new();
        let mut next = 1u16;
        for &i in &self.order {
            for p in 0..self.nodes[i].stage.outputs().len() {
                ids.insert((i, p), next);
                next = next.checked_add(1).filter(|&v| v < fzm::UNUSED_ID).ok_or_else(|| Error::Pipeline("too many buffers".into()))?;
            }
        }
        let mut infos = Vec::new();
        let mut bufs = Vec::new();
        let mut report = RunReport {
            backend: be.info().kind.name().into(),
            adapter: be.info().adapter.clone(),
            notes,
            kernel_seconds,
            submissions,
            preheat_submissions,
            primary: self.primary.map(|p| self.nodes[p].name.clone()).unwrap_or_default(),
            ..Default::default()
        };
        for &i in &self.order {
            let node = &self.nodes[i];
            let config = node.stage.config_bytes();
            if config.len() > stages::MAX_CONFIG_BYTES {
                return Err(Error::Pipeline(format!("stage '{}' config is {} bytes (max 128)", node.name, config.len())));
            }
            let outs = node.stage.outputs();
            infos.push(StageInfo {
                stage_type: node.stage.type_id(),
                stage_version: node.stage.version(),
                inputs: node
                    .inputs
                    .iter()
                    .map(|s| match s {
                        Some(Source::Port { node, port }) => ids[&(*node, *port)],
                        _ => EXTERNAL_ID,
                    })
                    .collect(),
                outputs: (0..outs.len()).map(|p| ids[&(i, p)]).collect(),
                flags: if self.primary == Some(i) { STAGE_FLAG_PRIMARY } else { 0 },
                config: config.clone(),
                name: node.name.clone(),
            });
            for (p, spec) in outs.iter().enumerate() {
                if let Some(k) = wanted.iter().position(|w| *w == (i, p)) {
                    let size = archived(k).len() as u64;
                    let entry = BufferEntry {
                        stage_type: node.stage.type_id(),
                        stage_version: node.stage.version(),
                        data_type: spec.dtype,
                        producer_output_idx: p as u8,
                        dag_buffer_id: ids[&(i, p)],
                        name: format!("{}.{}", node.name, spec.name),
                        data_size: size,
                        allocated_size: node.stage.output_upper_bounds(&[len]).get(p).copied().unwrap_or(size),
                        uncompressed_size: len,
                        byte_offset: 0,
                        config: config.clone(),
                    };
                    bufs.push(entry);
                }
            }
            for note in node.stage.run_notes() {
                report.notes.push((node.name.clone(), note));
            }
            if let Some(b) = node.stage.resolved_bound() {
                report.bounds.push((node.name.clone(), b));
            }
        }
        if bufs.len() != wanted.len() {
            return Err(Error::Pipeline(format!("{} archived outputs, {} buffer entries", wanted.len(), bufs.len())));
        }
        let t_finish = tf.elapsed().as_secs_f64();
        let tw = Instant::now();
        let bytes = match placed {
            Some((lay, mut archive)) => {
                // the payload's CRC from the parts' CRCs, in archive order, with the
                // alignment gaps (and the tail) between the outputs hashed here
                let mut pieces: Vec<(u32, u64)> = Vec::with_capacity(part_crcs.len() + 2 * sizes.len() + 1);
                let mut parts = part_crcs.iter().zip(lens.iter().flatten());
                let payload = &archive[lay.header_size..];
                let mut at = 0usize;
                for (k, (&off, &size)) in lay.offsets.iter().zip(&sizes).enumerate() {
                    let gap = &payload[at..off as usize];
                    pieces.push((crate::hostmem::crc32(gap), gap.len() as u64));
                    for _ in 0..lens[k].len() {
                        let (&crc, &l) = parts.next().ok_or_else(|| Error::Pipeline("readback checksums missing".into()))?;
                        pieces.push((crc, l));
                    }
                    at = (off + size) as usize;
                }
                pieces.push((crate::hostmem::crc32(&payload[at..]), (payload.len() - at) as u64));
                let data_crc = crate::hostmem::crc32_concat(pieces);
                fzm::finish(&infos, &bufs, &lay, &mut archive, len, Some(data_crc))?;
                archive
            }
            None => {
                let data: Vec<(BufferEntry, Vec<u8>)> =
                    bufs.into_iter().zip(&wanted).map(|(e, key)| (e, outputs.remove(key).unwrap_or_default())).collect();
                fzm::write(&infos, &data, len)?
            }
        };
        let t_archive = tw.elapsed().as_secs_f64();
        report.wall_seconds = t0.elapsed().as_secs_f64();
        let host = (report.wall_seconds - t_upload - t_device - t_download).max(0.0);
        report.phases = vec![
            ("upload".into(), t_upload),
            ("device".into(), t_device),
            ("download".into(), t_download),
            ("host".into(), host),
            ("host.setup".into(), t_setup),
            ("host.record".into(), t_record),
            ("host.finish".into(), t_finish),
            ("host.coding".into(), t_coding),
            ("host.archive".into(), t_archive),
            ("host.alloc".into(), t_alloc),
            ("host.release".into(), t_release),
        ];
        Ok(Compressed { bytes, report })
    }
}

/// Decompress an FZM archive: the stages are rebuilt from the archive alone.
pub fn decompress(backend: &dyn Backend, bytes: &[u8], opts: &RunOptions) -> Result<Decompressed> {
    match decompress_to(backend, bytes, opts, Target::Host)? {
        Decoded { host: Some(field), report, .. } => Ok(Decompressed { field, report }),
        _ => Err(Error::Pipeline("decompress: no host field".into())),
    }
}

/// Decompress into device memory (no download of the field).
pub fn decompress_device<'b>(backend: &'b dyn Backend, bytes: &[u8], opts: &RunOptions) -> Result<(DeviceField<'b>, RunReport)> {
    match decompress_to(backend, bytes, opts, Target::Device)? {
        Decoded { device: Some(df), report, .. } => Ok((df, report)),
        _ => Err(Error::Pipeline("decompress_device: no device field".into())),
    }
}

/// Decompress into the caller's memory: `out` must hold exactly the archive's
/// uncompressed bytes (else a typed input error before any device work). For callers
/// that decompress many archives into the same arrays: the readback lands in memory
/// whose pages are already mapped, where a fresh `Vec` pays a page fault per 4 KiB
/// (docs/performance-history.md, round 11). Returns the field's type and dims with the report.
/// On an error `out` holds unspecified bytes: an overlapped decompression (one SZx
/// stage, `RunOptions::overlap_chunk_bytes`) writes it before the payload's checksum
/// is known.
pub fn decompress_into(backend: &dyn Backend, bytes: &[u8], opts: &RunOptions, out: &mut [u8]) -> Result<DecompressedInto> {
    let d = decompress_to(backend, bytes, opts, Target::Into(out))?;
    Ok(DecompressedInto { dtype: d.dtype, dims: d.dims, report: d.report })
}

/// What [`decompress_into`] returns: the field's type and dims (its bytes are in the
/// caller's buffer) and the run's report.
#[derive(Debug, Clone)]
pub struct DecompressedInto {
    pub dtype: DataType,
    pub dims: Dims,
    pub report: RunReport,
}

/// What `decompress_to` made: the field on the host or the device (per its target;
/// neither for `Target::Into`), its type and dims, and the report.
struct Decoded<'b> {
    host: Option<Field>,
    device: Option<DeviceField<'b>>,
    dtype: DataType,
    dims: Dims,
    report: RunReport,
}

/// Where a decompression's field goes.
enum Target<'o> {
    Host,
    Device,
    Into(&'o mut [u8]),
}

/// The CRC-32 of `payload` from the CRCs of pieces of it (offset, length, CRC), in any
/// order: the bytes between and after the pieces (padding between buffers) are hashed
/// here. Pieces that overlap or leave the payload mean the whole payload is hashed again.
fn payload_crc(payload: &[u8], mut pieces: Vec<(u64, u64, u32)>) -> u32 {
    pieces.sort_unstable_by_key(|p| p.0);
    let mut parts: Vec<(u32, u64)> = Vec::with_capacity(2 * pieces.len() + 1);
    let mut pos = 0u64;
    for (off, len, crc) in pieces {
        if off < pos || off.checked_add(len).is_none_or(|e| e > payload.len() as u64) {
            return crate::hostmem::crc32(payload);
        }
        if off > pos {
            parts.push((crate::hostmem::crc32(&payload[pos as usize..off as usize]), off - pos));
        }
        parts.push((crc, len));
        pos = off + len;
    }
    if (pos as usize) < payload.len() {
        parts.push((crate::hostmem::crc32(&payload[pos as usize..]), payload.len() as u64 - pos));
    }
    crate::hostmem::crc32_concat(parts)
}

fn decompress_to<'b>(backend: &'b dyn Backend, bytes: &[u8], opts: &RunOptions, target: Target<'_>) -> Result<Decoded<'b>> {
    let t0 = Instant::now();
    // the payload checksum runs beside the uploads below (before any stage reads a
    // buffer); a small payload is checked here, where a thread would cost more
    let (arch, mut pending) = fzm::read_unverified(bytes)?;
    if arch.payload.len() < 1 << 20 {
        if let Some(p) = pending.take() {
            p.verify()?;
        }
    }
    if let Target::Into(out) = &target {
        if out.len() as u64 != arch.header.uncompressed_size {
            return Err(Error::Input(format!(
                "the output buffer holds {} bytes, the archive decompresses to {}",
                out.len(),
                arch.header.uncompressed_size
            )));
        }
    }
    let t_parse = t0.elapsed().as_secs_f64();
    let mut stages: Vec<Box<dyn Stage>> = Vec::with_capacity(arch.stages.len());
    for (i, s) in arch.stages.iter().enumerate() {
        let st = stages::from_config(s.stage_type, s.stage_version, &s.config)?;
        if st.inputs().len() != s.inputs.len() || st.outputs().len() != s.outputs.len() {
            return Err(Error::corrupt(format!("stage {i} ({}): port counts do not match its type", st.type_name())));
        }
        stages.push(st);
    }
    // producers of each buffer id, and an order where producers come first
    let mut producer: HashMap<u16, usize> = HashMap::new();
    for (i, s) in arch.stages.iter().enumerate() {
        for &id in &s.outputs {
            producer.insert(id, i);
        }
    }
    let n = stages.len();
    let mut order = Vec::with_capacity(n);
    let mut done = vec![false; n];
    while order.len() < n {
        let before = order.len();
        for i in 0..n {
            if !done[i] && arch.stages[i].inputs.iter().all(|id| *id == EXTERNAL_ID || producer.get(id).is_some_and(|&p| done[p])) {
                done[i] = true;
                order.push(i);
            }
        }
        if order.len() == before {
            return Err(Error::corrupt("stage graph has a cycle"));
        }
    }
    let primaries: Vec<usize> = (0..n).filter(|&i| arch.stages[i].flags & STAGE_FLAG_PRIMARY != 0).collect();
    if primaries.len() > 1 || arch.stages.iter().any(|s| s.flags & !STAGE_FLAG_PRIMARY != 0) {
        return Err(Error::corrupt("stage flags"));
    }
    let primary = match primaries.first() {
        Some(&p) => p,
        None => {
            (0..n).find(|&i| arch.stages[i].inputs.contains(&EXTERNAL_ID)).ok_or_else(|| Error::corrupt("no stage takes the raw field"))?
        }
    };
    if !arch.stages[primary].inputs.contains(&EXTERNAL_ID) {
        return Err(Error::corrupt("the primary stage does not take the raw field"));
    }
    let mut notes = Vec::new();
    let needs_f64 = stages.iter().any(|s| s.needs_f64());
    let loops = stages.iter().map(|s| s.loop_iterations()).max().unwrap_or(0);
    let mut holder = None;
    let be = cpu_fallback(backend, needs_f64, loops, &mut holder, &mut notes);
    let fell_back = be.info().kind != backend.info().kind;
    if matches!(target, Target::Device) && fell_back {
        return Err(Error::Unsupported(format!(
            "this archive cannot be decoded on the adapter ({})",
            notes.last().map_or("", |n| n.1.as_str())
        )));
    }
    let mut r = Recorder::new(be);
    r.replays = opts.timing_replays;
    r.replays_batched = opts.timing_batched;
    r.preheat_ms = opts.timing_preheat_ms;
    let mut t_upload = 0.0;
    let mut values: HashMap<u16, PortData> = HashMap::new();
    // overlapped: an archive of one SZx stage decoded into host memory, in chunks
    let overlap = match overlap_chunk(be, opts)? {
        Some((chunk, _))
            if n == 1
                && arch.buffers.len() == 1
                && arch.stages[0].outputs.len() == 1
                && arch.stages[0].outputs[0] == arch.buffers[0].dag_buffer_id
                && arch.header.uncompressed_size >= 2 * chunk
                && !matches!(target, Target::Device)
                && stages[0].as_any().downcast_ref::<stages::szx::SzxStage>().is_some() =>
        {
            Some(chunk)
        }
        _ => None,
    };
    let mut target = target;
    // the field's host memory when overlapped into a new field
    let mut overlapped_host: Option<Vec<u8>> = None;
    let mut overlapped_field: Option<(PortData, f64)> = None;
    if let Some(chunk) = overlap {
        let hash = pending.is_some() && be.info().hash_on_upload;
        let mut own = match target {
            Target::Into(_) => Vec::new(),
            _ => crate::hostmem::zeroed(arch.header.uncompressed_size as usize)?,
        };
        let dst: &mut [u8] = match &mut target {
            Target::Into(out) => out,
            _ => &mut own[..],
        };
        let st =
            stages[0].as_any_mut().downcast_mut::<stages::szx::SzxStage>().ok_or_else(|| Error::Pipeline("overlapped: not SZx".into()))?;
        let (field, tu, tw) = decode_overlapped(&mut r, st, &arch, pending.take().as_ref(), hash, opts, chunk, dst)?;
        if !matches!(target, Target::Into(_)) {
            overlapped_host = Some(own);
        }
        t_upload = tu;
        notes.push(("pipeline".into(), format!("overlapped={} chunks of {chunk} bytes", arch.header.uncompressed_size.div_ceil(chunk))));
        overlapped_field = Some((field, tw));
    }
    // the archived buffers go to the device while the payload's checksum is computed:
    // from the pieces the upload's threads hash as they copy them into staging where
    // the backend does that well (`BackendInfo::hash_on_upload`), else by another
    // thread reading the payload beside the upload. The stages read what they need on
    // the host (block metadata, outlier lists) from the archive itself, and nothing
    // reads a buffer's contents before the checksum passed (checked below, before any
    // stage runs).
    let hash_on_upload = pending.is_some() && be.info().hash_on_upload;
    let t_verify = if overlap.is_some() {
        0.0
    } else {
        std::thread::scope(|sc| -> Result<f64> {
            let check = if hash_on_upload { None } else { pending.as_ref().map(|p| sc.spawn(move || p.verify())) };
            let mut crc_pieces: Vec<(u64, u64, u32)> = Vec::with_capacity(arch.buffers.len());
            for (k, e) in arch.buffers.iter().enumerate() {
                let data = arch.buffer_data(k);
                let size = (data.len() as u64).next_multiple_of(4).max(4);
                let buf = r.alloc(size)?;
                let tu = Instant::now();
                // whole words straight from the archive, the ragged tail padded
                let whole = data.len() / 4 * 4;
                if whole > 0 {
                    if hash_on_upload {
                        crc_pieces.push((e.byte_offset, whole as u64, be.write_buffer_crc(buf, 0, &data[..whole])?));
                    } else {
                        be.write_buffer(buf, 0, &data[..whole])?;
                    }
                }
                if whole < data.len() || data.is_empty() {
                    let mut tail = [0u8; 4];
                    tail[..data.len() - whole].copy_from_slice(&data[whole..]);
                    be.write_buffer(buf, whole as u64, &tail)?;
                    if hash_on_upload && whole < data.len() {
                        let rest = &data[whole..];
                        crc_pieces.push((e.byte_offset + whole as u64, rest.len() as u64, crate::hostmem::crc32(rest)));
                    }
                }
                t_upload += tu.elapsed().as_secs_f64();
                values.insert(
                    e.dag_buffer_id,
                    PortData::Device {
                        slice: BufSlice::new(buf, 0, size),
                        len: data.len() as u64,
                        host: Some(stages::HostBytes::Archive(data)),
                    },
                );
            }
            let tv = Instant::now();
            if let Some(h) = check {
                h.join().map_err(|_| Error::Pipeline("the payload checksum thread panicked".into()))??;
            } else if let (true, Some(p)) = (hash_on_upload, &pending) {
                p.check(payload_crc(arch.payload, crc_pieces))?;
            }
            Ok(tv.elapsed().as_secs_f64())
        })?
    };
    // Quantizer -> Lorenzo -> AdaptiveBitpack chains whose inverse runs fused
    let consumers_of = |id: u16| -> Vec<usize> { (0..n).filter(|&s| arch.stages[s].inputs.contains(&id)).collect() };
    let mut chains: Vec<(usize, usize, usize)> = Vec::new();
    if opts.fusion != FusionPolicy::Off {
        for qi in 0..n {
            if stages[qi].type_id() != stages::ids::QUANTIZER {
                continue;
            }
            let codes_id = arch.stages[qi].outputs[0];
            let [li] = consumers_of(codes_id)[..] else { continue };
            if stages[li].type_id() != stages::ids::LORENZO
                || arch.stages[li].inputs.first() != Some(&codes_id)
                || values.contains_key(&codes_id)
            {
                continue;
            }
            let res_id = arch.stages[li].outputs[0];
            let [bi] = consumers_of(res_id)[..] else { continue };
            if stages[bi].type_id() != stages::ids::BITPACK
                || arch.stages[bi].inputs.first() != Some(&res_id)
                || values.contains_key(&res_id)
            {
                continue;
            }
            let (q, l, b) = (
                stages[qi].as_any().downcast_ref::<QuantizerStage>(),
                stages[li].as_any().downcast_ref::<LorenzoStage>(),
                stages[bi].as_any().downcast_ref::<BitpackStage>(),
            );
            let (Some(q), Some(l), Some(b)) = (q, l, b) else { continue };
            let names = format!("{}+{}+{}", arch.stages[qi].name, arch.stages[li].name, arch.stages[bi].name);
            let why = stages::chain::inverse_ineligible(q, l, b, &r, opts).or_else(|| {
                if opts.fusion == FusionPolicy::Auto {
                    stages::chain::inverse_prefers_staged(l, b)
                } else {
                    None
                }
            });
            match why {
                None => {
                    // the form, then the kernels it runs on this geometry
                    let (form, kernels) = l.dims.and_then(|d| l.params(d).ok()).map_or(("chain_unpack", String::new()), |lp| {
                        let form = stages::chain::inverse_kernels(b, &lp, opts.fusion == FusionPolicy::Auto);
                        (form, format!(" via {}", stages::chain::inverse_kernel_names(form, &lp, r.backend.info().decode_1d())))
                    });
                    notes.push(("pipeline".into(), format!("fused={names} ({form}){kernels}")));
                    chains.push((qi, li, bi));
                }
                Some(why) if opts.fusion == FusionPolicy::Force => {
                    return Err(Error::Pipeline(format!("fusion = force, but the inverse of {names} cannot be fused: {why}")))
                }
                Some(why) => notes.push(("pipeline".into(), format!("staged={names} ({why})"))),
            }
        }
        if opts.fusion == FusionPolicy::Force && chains.is_empty() {
            return Err(Error::Pipeline(
                "fusion = force, but the archive has no Quantizer -> Lorenzo -> AdaptiveBitpack chain to fuse".into(),
            ));
        }
    }
    // only the stages whose inverse leads to the primary field run: a stage is needed
    // when a needed stage consumes one of its rebuilt forward inputs (e.g. with
    // primary_source = "correct", the transform's own inverse is skipped)
    let mut needed = vec![false; n];
    needed[primary] = true;
    loop {
        let mut changed = false;
        for i in 0..n {
            if !needed[i] {
                continue;
            }
            for id in &arch.stages[i].outputs {
                if values.contains_key(id) {
                    continue;
                }
                for c in consumers_of(*id) {
                    if !needed[c] {
                        needed[c] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut field_data: Option<PortData> = None;
    let mut t_download = 0.0;
    if let Some((f, tw)) = overlapped_field {
        field_data = Some(f);
        t_download = tw;
    }
    let (trec, sub0, alloc0) = (Instant::now(), r.submit_seconds, r.alloc_seconds);
    for &i in order.iter().rev() {
        if overlap.is_some() || !needed[i] || chains.iter().any(|c| c.1 == i || c.2 == i) {
            continue;
        }
        let info = &arch.stages[i];
        let outs = if let Some(&(qi, li, bi)) = chains.iter().find(|c| c.0 == i) {
            let get =
                |id: u16| values.get(&id).cloned().ok_or_else(|| Error::corrupt(format!("buffer {id} is neither archived nor rebuilt")));
            let packed = get(arch.stages[bi].outputs[0])?;
            let means = arch.stages[li].outputs.get(1).map(|&id| get(id)).transpose()?;
            let outliers = get(arch.stages[qi].outputs[1])?;
            let [qs, ls, bs] = stages.get_disjoint_mut([qi, li, bi]).map_err(|_| Error::Pipeline("fusion: bad chain".into()))?;
            let (Some(q), Some(l), Some(b)) = (
                qs.as_any_mut().downcast_mut::<QuantizerStage>(),
                ls.as_any_mut().downcast_mut::<LorenzoStage>(),
                bs.as_any_mut().downcast_mut::<BitpackStage>(),
            ) else {
                return Err(Error::Pipeline("fusion: stage types".into()));
            };
            vec![stages::chain::record_inverse(q, l, b, &mut r, &packed, means.as_ref(), &outliers, opts)?]
        } else {
            let inputs: Vec<PortData> = info
                .outputs
                .iter()
                .map(|id| values.get(id).cloned().ok_or_else(|| Error::corrupt(format!("buffer {id} is neither archived nor rebuilt"))))
                .collect::<Result<_>>()?;
            stages[i].record_inverse(&mut r, &inputs, opts)?
        };
        if outs.len() != info.inputs.len() {
            return Err(Error::Pipeline("inverse produced the wrong number of outputs".into()));
        }
        for (id, o) in info.inputs.iter().zip(outs) {
            if *id == EXTERNAL_ID {
                if i == primary {
                    field_data = Some(o);
                }
            } else {
                values.entry(*id).or_insert(o);
            }
        }
    }
    // recording the inverses, outside the submissions and buffer creation within it
    let t_record = (trec.elapsed().as_secs_f64() - (r.submit_seconds - sub0) - (r.alloc_seconds - alloc0)).max(0.0);
    let pst = &stages[primary];
    let dtype = pst.inputs()[0].dtype;
    let (slice, len) = field_data.ok_or_else(|| Error::corrupt("primary stage produced no field"))?.device("field")?;
    if len != arch.header.uncompressed_size || len % dtype.size() as u64 != 0 {
        return Err(Error::corrupt(format!("reconstructed {len} bytes, the header says {}", arch.header.uncompressed_size)));
    }
    r.submit()?;
    let count = len / dtype.size() as u64;
    let dims = pst.field_dims().filter(|d| d.len() == count).map_or_else(|| Dims::d1(count), Ok)?;
    let (host, device) = match target {
        _ if overlap.is_some() => (overlapped_host.map(|b| Field::new(dtype, dims, b)).transpose()?, None),
        Target::Device => {
            r.keep(slice.buf);
            (None, Some(DeviceField { backend, buf: slice.buf, offset: slice.offset, len, dtype, dims }))
        }
        Target::Host => {
            let td = Instant::now();
            let mut bytes = be.read_buffers(&[BufSlice::new(slice.buf, slice.offset, len.next_multiple_of(4))])?.remove(0);
            t_download = td.elapsed().as_secs_f64();
            bytes.truncate(len as usize);
            (Some(Field::new(dtype, dims, bytes)?), None)
        }
        Target::Into(out) => {
            let td = Instant::now();
            be.read_into(&[BufSlice::new(slice.buf, slice.offset, len.next_multiple_of(4))], &mut [out])?;
            t_download = td.elapsed().as_secs_f64();
            (None, None)
        }
    };
    let (t_device, t_alloc) = (r.submit_seconds, r.alloc_seconds);
    let mut report = RunReport {
        kernel_seconds: r.kernel_seconds,
        submissions: r.submissions,
        preheat_submissions: r.preheat_submissions,
        primary: arch.stages[primary].name.clone(),
        backend: be.info().kind.name().into(),
        adapter: be.info().adapter.clone(),
        notes,
        ..Default::default()
    };
    let trel = Instant::now();
    drop(r);
    let t_release = trel.elapsed().as_secs_f64();
    for (i, s) in stages.iter().enumerate() {
        for note in s.run_notes() {
            report.notes.push((arch.stages[i].name.clone(), note));
        }
        if let Some(b) = s.resolved_bound() {
            report.bounds.push((arch.stages[i].name.clone(), b));
        }
    }
    report.wall_seconds = t0.elapsed().as_secs_f64();
    let t_host = (report.wall_seconds - t_upload - t_device - t_download).max(0.0);
    report.phases = vec![
        ("upload".into(), t_upload),
        ("device".into(), t_device),
        ("download".into(), t_download),
        ("host".into(), t_host),
        ("host.parse".into(), t_parse),
        ("host.verify".into(), t_verify),
        ("host.record".into(), t_record),
        ("host.alloc".into(), t_alloc),
        ("host.release".into(), t_release),
    ];
    Ok(Decoded { host, device, dtype, dims, report })
}

#[cfg(test)]
mod tests {
    use super::payload_crc;

    #[test]
    fn payload_crc_from_pieces() {
        let payload: Vec<u8> = (0..10_000u32).map(|i| (i.wrapping_mul(2654435761u32) >> 13) as u8).collect();
        let want = crc32fast::hash(&payload);
        let piece = |a: usize, b: usize| (a as u64, (b - a) as u64, crc32fast::hash(&payload[a..b]));
        // in order, with gaps before, between and after; out of order; empty; whole
        assert_eq!(payload_crc(&payload, vec![piece(16, 4000), piece(4008, 9000)]), want);
        assert_eq!(payload_crc(&payload, vec![piece(4008, 9000), piece(0, 4000)]), want);
        assert_eq!(payload_crc(&payload, vec![]), want);
        assert_eq!(payload_crc(&payload, vec![piece(0, 10_000)]), want);
        // overlapping or outside: hashed whole
        assert_eq!(payload_crc(&payload, vec![piece(0, 4000), piece(3000, 5000)]), want);
        assert_eq!(payload_crc(&payload, vec![(9000, 2000, 7)]), want);
        // a wrong piece CRC gives a wrong total (what the caller compares)
        assert_ne!(payload_crc(&payload, vec![(16, 3984, 1)]), want);
    }
}
