//! The wgpu backend (Vulkan, Metal, DX12, GL). Pipelines and bind group layouts are
//! created once per kernel variant and cached; buffers come from a pool; each
//! [`Recording`] becomes one queue submission with GPU timestamps around it; large
//! uploads and readbacks go through persistent staging buffers (uploads from host memory
//! through Vulkan: `host_staging.rs`).

#[cfg(any(windows, target_os = "linux", target_os = "android", target_os = "freebsd"))]
mod host_import;
#[cfg(any(windows, target_os = "linux", target_os = "android", target_os = "freebsd"))]
mod host_staging;
/// Without the Vulkan backend there is no import of host memory: staged transfers.
#[cfg(not(any(windows, target_os = "linux", target_os = "android", target_os = "freebsd")))]
mod host_import {
    pub(crate) fn offered(_: &wgpu::Adapter) -> bool {
        false
    }
    pub(crate) fn open(_: &wgpu::Adapter, _: &wgpu::DeviceDescriptor) -> std::result::Result<(wgpu::Device, wgpu::Queue), String> {
        Err("importing host memory needs the Vulkan backend".into())
    }
    pub(crate) fn alignment(_: &wgpu::Device) -> Option<u64> {
        None
    }
    pub(crate) unsafe fn import(_: &wgpu::Device, _: usize, _: usize, _: u64) -> std::result::Result<(wgpu::Buffer, u64), String> {
        Err("importing host memory needs the Vulkan backend".into())
    }
}
/// Without the Vulkan backend there is no host-memory staging: wgpu's mapped buffers.
#[cfg(not(any(windows, target_os = "linux", target_os = "android", target_os = "freebsd")))]
mod host_staging {
    pub(crate) struct HostStaging {
        pub buffer: wgpu::Buffer,
    }
    impl HostStaging {
        pub fn new(_: &wgpu::Device, _: u64) -> std::result::Result<HostStaging, String> {
            Err("host-memory staging needs the Vulkan backend".into())
        }
        pub fn bytes_mut(&mut self) -> &mut [u8] {
            &mut []
        }
    }
    pub(crate) fn probe(_: &wgpu::Device) -> std::result::Result<String, String> {
        Err("host-memory staging needs the Vulkan backend".into())
    }
}
use super::pool::{pool_from_env, size_class, BufferTable};
use super::{grid, validate_recording, Backend, BackendInfo, BackendKind, Submission};
use crate::error::{Error, Result};
use crate::kernels::{self, BindKind, Kernel, Variant};
use crate::recording::{BufId, BufSlice, Command, Recording};
use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// How to pick the adapter.
#[derive(Debug, Clone, Default)]
pub struct WgpuOptions {
    /// Substring of the adapter name (case-insensitive). Else `WGPU_ADAPTER_NAME`,
    /// else the highest-performance adapter.
    pub adapter: Option<String>,
    /// Do not request SHADER_F64 (tests the cpu fallback for float64 stages). Also
    /// set by `FZWGPU_DISABLE=f64`.
    pub no_f64: bool,
    /// Do not use subgroup kernels (tests the shared-memory variants). Also set by
    /// `FZWGPU_DISABLE=subgroup`.
    pub no_subgroups: bool,
    /// Fault injection for tests: every device buffer allocation after this many
    /// fails with `Error::OutOfMemory`.
    pub fail_allocs_after: Option<u64>,
    /// A budget for the pooled device buffers (bytes): past it, idle pooled buffers are
    /// freed and then allocations fail with `Error::OutOfMemory`. Also set by
    /// `FZWGPU_MEMORY_LIMIT` (e.g. `512M`); simulates a device with less free memory.
    pub memory_limit: Option<u64>,
    /// `Variant::coalesce` (None: `FZWGPU_COALESCE`, else off): tests run the
    /// CUDA-tuned kernel variants through lavapipe with it.
    pub coalesce: Option<bool>,
    /// Stage large uploads in host memory (`Some(true)`, where the Vulkan driver offers
    /// it) or in wgpu's mapped buffers (`Some(false)`); None: `FZWGPU_UPLOAD_STAGING`,
    /// else host memory where offered.
    pub host_staging: Option<bool>,
    /// Fault injection for tests: the host-memory upload staging's allocation fails at
    /// run time (the backend then falls back to wgpu's mapped buffers and says so in
    /// [`Backend::upload_staging`]).
    pub fail_host_staging: bool,
    /// Direct transfers (`host_import.rs`): large uploads and `read_into` readbacks
    /// import the caller's memory (`VK_EXT_external_memory_host`) and the device copies
    /// straight from and into it (`Some(true)`, where the adapter offers it); None:
    /// `FZWGPU_HOST_IMPORT`, else off.
    pub host_import: Option<bool>,
    /// Direct transfers' import piece in bytes (tests; None: `FZWGPU_IMPORT_PIECE`, else
    /// 64 MiB).
    pub import_piece: Option<u64>,
    /// Fault injection for tests: every import fails (direct transfers then go through
    /// the staging buffers and [`Backend::upload_staging`] says so).
    pub fail_import: bool,
    /// Fault injection for tests: the subgroup layout check at device open fails (the
    /// backend then runs its variants without subgroups and says why in
    /// `BackendInfo::subgroup_layout`).
    pub fail_subgroup_layout: bool,
}

/// How long one wait on the device may take before it is reported as a hang.
pub const POLL_TIMEOUT: Duration = Duration::from_secs(300);
/// Uploads of at least this many bytes go through the persistent staging buffers.
const UPLOAD_MIN: u64 = 4 << 20;
/// Readbacks of at least this many bytes (in all) go through the download staging.
/// (The staging buffers' size and count per direction: `super::staging::Shape`.)
const DOWNLOAD_MIN: u64 = 4 << 20;
const PARAMS_STRIDE: u64 = 256;
use super::direct::{self, IMPORT_MIN};

struct Pipe {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    uniform_size: u64,
}

/// One upload staging buffer.
enum UpStaging {
    /// wgpu's `MAP_WRITE` buffer, and whether it is mapped now.
    Mapped(wgpu::Buffer, bool),
    /// A buffer in host memory, mapped for its lifetime.
    Host(host_staging::HostStaging),
}

struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f32,
}

/// A wgpu device and queue with cached pipelines and pooled buffers.
pub struct WgpuBackend {
    info: BackendInfo,
    /// Dropped by `Drop for WgpuBackend` (under `life_guard`), after every resource.
    device: std::mem::ManuallyDrop<wgpu::Device>,
    queue: std::mem::ManuallyDrop<wgpu::Queue>,
    pipes: Mutex<HashMap<(Kernel, Variant), Arc<Pipe>>>,
    slab: Mutex<BufferTable<wgpu::Buffer>>,
    params: Mutex<Option<(u64, wgpu::Buffer)>>,
    staging: Mutex<Option<(u64, wgpu::Buffer)>>,
    /// Upload staging: `upload_buffers` persistent buffers of `upload_chunk` bytes, each
    /// with the submission of its last copy.
    uploads: Mutex<Vec<(UpStaging, Option<wgpu::SubmissionIndex>)>>,
    /// Stage uploads in host memory (`host_staging.rs`): Vulkan with a suitable memory
    /// type, unless `FZWGPU_UPLOAD_STAGING=mapped`; cleared if creating one fails.
    host_staging: AtomicBool,
    /// Why host-memory staging stopped serving uploads after the backend was created
    /// (its allocation failed at run time); None while it serves or was never used.
    staging_fallback: Mutex<Option<String>>,
    /// The staging buffers' size and count per direction (`FZWGPU_UPLOAD_CHUNK`, ...).
    shape: super::staging::Shape,
    /// Download staging: `shape.download_buffers` persistent MAP_READ buffers of
    /// `shape.download_chunk` bytes.
    downloads: Mutex<Vec<wgpu::Buffer>>,
    ts: Option<Timestamps>,
    lost: Arc<AtomicBool>,
    uncaptured: Arc<Mutex<Option<String>>>,
    /// Subgroup variants in use (adapter offers SUBGROUP with sizes the kernels handle).
    use_subgroups: bool,
    /// Serializes submissions and uploads: the params buffer (written, then submitted)
    /// and the upload staging are shared.
    queue_lock: Mutex<()>,
    /// Serializes readbacks: the readback staging (`staging`, `downloads`) is shared.
    /// Readers never take `queue_lock`, so a thread reading back (an overlapped run's
    /// reader) does not hold up another's uploads and submissions (round 37: with reads
    /// under `queue_lock`, an H100 ran overlapped runs 2-3x slower than plain ones). A
    /// waited submission takes it after `queue_lock`; nothing takes them the other way.
    read_lock: Mutex<()>,
    /// Device buffer allocations so far, and the injected-failure threshold.
    allocs: AtomicU64,
    fail_allocs_after: Option<u64>,
    fail_host_staging: bool,
    memory_limit: Option<u64>,
    /// Wait limit in nanoseconds (POLL_TIMEOUT unless changed by `set_poll_timeout`).
    poll_timeout_ns: AtomicU64,
    /// A GL adapter: every call into wgpu holds GL_SERIAL.
    gl: bool,
    /// Direct transfers: the import alignment where they are on (`host_import.rs`).
    import_align: Option<u64>,
    import_piece: u64,
    /// Why the last direct transfer fell back to the staging buffers (an import the
    /// driver refused); None while none has.
    import_fallback: direct::Fallback,
    fail_import: bool,
}

fn rank(info: &wgpu::AdapterInfo) -> (u32, u32) {
    let dev = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let api = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (dev, api)
}

/// One line per adapter the instance sees (WGPU_BACKEND applies).
pub fn list_adapters() -> Vec<String> {
    let (_, adapters) = shared_instance();
    adapters
        .iter()
        .map(|a| {
            let i = a.get_info();
            format!(
                "{} | {:?} | {:?} | {} {} | subgroup sizes {}..{}",
                i.name, i.backend, i.device_type, i.driver, i.driver_info, i.subgroup_min_size, i.subgroup_max_size
            )
        })
        .collect()
}

/// The process's wgpu instance for the APIs the environment selects (created once per
/// `WGPU_BACKEND` value), which also saves the instance's set-up per backend. Every
/// backend used to create its own, and a process that opened over a hundred backends
/// in a row (the fault tests) found no Vulkan adapter on the H200's NVIDIA driver
/// (lavapipe kept working); with one shared instance those tests pass there
/// (docs/results/h200-wgpu9.log).
///
/// The instance's adapters are enumerated once and shared too: wgpu's GL backend gives
/// every enumeration's adapter its own lock around the one EGL context of the instance,
/// so two backends opened from two enumerations and used from two threads at once made
/// that context current on both (EGL_BAD_ACCESS, a panic inside wgpu-hal); devices of one
/// adapter share its lock.
fn shared_instance() -> (wgpu::Backends, Vec<wgpu::Adapter>) {
    type Shared = (wgpu::Backends, wgpu::Instance, Vec<wgpu::Adapter>);
    static INSTANCES: Mutex<Vec<Shared>> = Mutex::new(Vec::new());
    let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let backends = desc.backends;
    let mut all = INSTANCES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, a)) = all.iter().find(|(b, _, _)| *b == backends) {
        return (backends, a.clone());
    }
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    // (the instance is kept with its adapters)
    all.push((backends, instance, adapters.clone()));
    (backends, adapters)
}

/// Held by every call of a GL backend into wgpu (any GL backend of the process): wgpu's
/// GL backend serializes all work on the instance's one EGL context behind a lock that
/// panics after 6 s of waiting ("Could not lock adapter context"), which long kernels on a
/// slow GL device (llvmpipe's) exceed when several threads use GL backends at once. With
/// this lock the other threads wait here, without a limit, instead.
static GL_SERIAL: Mutex<()> = Mutex::new(());

/// Held shared by every call of a backend of another API (Vulkan, Metal, DX12) into
/// wgpu, and exclusively while a device is created or destroyed: NVIDIA's Vulkan driver
/// (580.x, H100, round 29) deadlocked in `vkDestroyDevice` of one device while other
/// threads of the process submitted work or created pipelines on their own devices
/// (the three waiting in the driver's lock, the destroying thread waiting on one of the
/// driver's threads): `tests/faults.rs` with 8 test threads hung in 2 of 8 runs
/// (`docs/results/h100-r29b*`), never with its tests one at a time. Creating and
/// dropping devices is rare, so the exclusive hold costs nothing measurable; the shared
/// one is an uncontended read lock per call.
static DEVICE_LIFE: RwLock<()> = RwLock::new(());

/// A held lock: GL_SERIAL on GL, else a hold of DEVICE_LIFE (shared or exclusive).
enum Held<G> {
    Gl(#[allow(dead_code)] MutexGuard<'static, ()>),
    Other(#[allow(dead_code)] G),
}

fn hold<G>(gl: bool, other: impl FnOnce() -> G) -> Held<G> {
    if gl {
        Held::Gl(GL_SERIAL.lock().unwrap_or_else(|p| p.into_inner()))
    } else {
        Held::Other(other())
    }
}

/// What a call into wgpu holds: GL_SERIAL on GL, DEVICE_LIFE shared elsewhere.
fn call_guard(gl: bool) -> Held<RwLockReadGuard<'static, ()>> {
    hold(gl, || DEVICE_LIFE.read().unwrap_or_else(|p| p.into_inner()))
}

/// What creating or destroying a device holds: GL_SERIAL on GL (as every GL call),
/// DEVICE_LIFE exclusively elsewhere (no other thread is inside a driver call).
fn life_guard(gl: bool) -> Held<RwLockWriteGuard<'static, ()>> {
    hold(gl, || DEVICE_LIFE.write().unwrap_or_else(|p| p.into_inner()))
}

impl WgpuBackend {
    /// Open the adapter chosen by `opts` and the environment (`WGPU_BACKEND` selects the
    /// APIs, `WGPU_ADAPTER_NAME` the adapter).
    pub fn new(opts: &WgpuOptions) -> Result<Self> {
        crate::envcfg::check()?;
        let memory_limit_env = crate::envcfg::get("FZWGPU_MEMORY_LIMIT")?.map(|v| crate::types::parse_size(&v)).transpose()?;
        let (backends, adapters) = shared_instance();
        // the APIs searched, for the messages below
        let apis = match std::env::var("WGPU_BACKEND") {
            Ok(v) => format!("WGPU_BACKEND={v}: {backends:?}"),
            Err(_) => "every API: WGPU_BACKEND is not set".to_string(),
        };
        let wanted = opts.adapter.clone().or_else(|| std::env::var("WGPU_ADAPTER_NAME").ok()).map(|s| s.to_lowercase());
        let names: Vec<String> = adapters.iter().map(|a| format!("{} ({:?})", a.get_info().name, a.get_info().backend)).collect();
        let mut candidates: Vec<wgpu::Adapter> = adapters
            .into_iter()
            .filter(|a| wanted.as_ref().is_none_or(|w| a.get_info().name.to_lowercase().contains(w.as_str())))
            .collect();
        candidates.sort_by_key(|a| rank(&a.get_info()));
        let adapter = candidates.into_iter().next().ok_or_else(|| {
            Error::NoAdapter(match &wanted {
                Some(w) => format!("no adapter matches '{w}' among [{}] ({apis})", names.join(", ")),
                None => {
                    format!("no adapter found ({apis}); install a Vulkan driver (e.g. mesa-vulkan-drivers) or use --backend cpu")
                }
            })
        })?;
        let ainfo = adapter.get_info();
        let af = adapter.features();
        let disable = crate::envcfg::get("FZWGPU_DISABLE")?.unwrap_or_default().to_lowercase();
        let mut wanted_features = wgpu::Features::SHADER_F64 | wgpu::Features::SUBGROUP | wgpu::Features::TIMESTAMP_QUERY;
        if opts.no_f64 || disable.contains("f64") {
            wanted_features.remove(wgpu::Features::SHADER_F64);
        }
        if opts.no_subgroups || disable.contains("subgroup") {
            wanted_features.remove(wgpu::Features::SUBGROUP);
        }
        let features = wanted_features & af;
        let limits = adapter.limits();
        let gl = ainfo.backend == wgpu::Backend::Gl;
        let life = life_guard(gl);
        let desc = wgpu::DeviceDescriptor {
            label: Some("fzwgpu"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (want_import, import_piece) = direct::config(opts.host_import, opts.import_piece)?;
        // direct transfers: the device opened with VK_EXT_external_memory_host, or why not
        let mut import_note = if want_import { None } else { Some("off".to_string()) };
        let mut opened = None;
        if want_import {
            if host_import::offered(&adapter) {
                match host_import::open(&adapter, &desc) {
                    Ok(dq) => opened = Some(dq),
                    Err(e) => import_note = Some(e),
                }
            } else {
                import_note = Some("the adapter lacks VK_EXT_external_memory_host".to_string());
            }
        }
        let (device, queue) = match opened {
            Some(dq) => dq,
            None => pollster::block_on(adapter.request_device(&desc))
                .map_err(|e| Error::Device(format!("request_device on {}: {e}", ainfo.name)))?,
        };
        let import_align = if import_note.is_none() { host_import::alignment(&device) } else { None };
        if import_note.is_none() && import_align.is_none() {
            import_note = Some("no usable minImportedHostPointerAlignment".to_string());
        }
        let lost = Arc::new(AtomicBool::new(false));
        let l2 = lost.clone();
        device.set_device_lost_callback(move |_, _| l2.store(true, Ordering::SeqCst));
        let uncaptured: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let u2 = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e| {
            if let Ok(mut g) = u2.lock() {
                g.get_or_insert_with(|| e.to_string());
            }
        }));
        let dl = device.limits();
        let ts = if features.contains(wgpu::Features::TIMESTAMP_QUERY) {
            let set =
                device.create_query_set(&wgpu::QuerySetDescriptor { label: Some("fzwgpu.ts"), ty: wgpu::QueryType::Timestamp, count: 2 });
            let resolve = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("fzwgpu.ts.resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            Some(Timestamps { set, resolve, period_ns: queue.get_timestamp_period() })
        } else {
            None
        };
        // szx_encode's packing needs team sizes that are multiples of 8 (a unit of
        // 4 values per lane then fills whole words); smaller subgroups use the
        // workgroup variants
        let sg_ok = features.contains(wgpu::Features::SUBGROUP)
            && ainfo.subgroup_min_size >= crate::kernels::chain::MIN_SUBGROUP
            && ainfo.subgroup_max_size <= 128
            && ainfo.subgroup_max_size.is_power_of_two()
            && ainfo.subgroup_min_size.is_power_of_two();
        let coalesce = opts.coalesce.unwrap_or_else(|| kernels::coalesce_from_env(false));
        let staging_env = crate::envcfg::get("FZWGPU_UPLOAD_STAGING")?;
        let host_staging = match (opts.host_staging, staging_env.as_deref()) {
            (Some(false), _) => Err("not asked for".to_string()),
            (None, Some("mapped")) => Err("FZWGPU_UPLOAD_STAGING=mapped".to_string()),
            _ => host_staging::probe(&device),
        };
        let shape = super::staging::Shape::from_env(super::staging::Shape::WGPU)?;
        let mut upload_staging = match &host_staging {
            Ok(d) => d.clone(),
            Err(why) => format!("mapped buffers ({why})"),
        };
        match &import_note {
            None => upload_staging = format!("the caller's memory imported (direct transfers; else {upload_staging})"),
            Some(why) if want_import => upload_staging = format!("{upload_staging}; no direct transfers: {why}"),
            Some(_) => {}
        }
        let info = BackendInfo {
            kind: BackendKind::Wgpu,
            adapter: ainfo.name.clone(),
            api: format!("{:?}", ainfo.backend),
            driver: format!("{} {}", ainfo.driver, ainfo.driver_info).trim().to_string(),
            shader_f64: features.contains(wgpu::Features::SHADER_F64),
            subgroups: sg_ok,
            subgroup_max: if sg_ok { ainfo.subgroup_max_size } else { 0 },
            timestamps: ts.is_some(),
            max_binding_bytes: dl.max_storage_buffer_binding_size & !255,
            max_buffer_bytes: dl.max_buffer_size,
            max_workgroups_per_dim: dl.max_compute_workgroups_per_dimension,
            storage_align: dl.min_storage_buffer_offset_alignment as u64,
            loop_limit: (ainfo.name.to_lowercase().contains("llvmpipe") || ainfo.driver.to_lowercase().contains("llvmpipe"))
                .then_some(super::LLVMPIPE_LOOP_LIMIT),
            coalesce,
            software: ainfo.device_type == wgpu::DeviceType::Cpu,
            upload_staging,
            hash_on_upload: super::staging::hash_on_upload(true)?,
            subgroup_layout: if features.contains(wgpu::Features::SUBGROUP) && !sg_ok {
                format!(
                    "subgroups off: sizes {}..{} (the kernels need powers of two in {}..128)",
                    ainfo.subgroup_min_size,
                    ainfo.subgroup_max_size,
                    crate::kernels::chain::MIN_SUBGROUP
                )
            } else if !sg_ok {
                "no subgroups (not offered, or not asked for)".to_string()
            } else {
                String::new() // set by the check below
            },
        };
        let mut b = WgpuBackend {
            info,
            device: std::mem::ManuallyDrop::new(device),
            queue: std::mem::ManuallyDrop::new(queue),
            pipes: Mutex::new(HashMap::new()),
            slab: Mutex::new(BufferTable::new(pool_from_env()?)),
            params: Mutex::new(None),
            staging: Mutex::new(None),
            uploads: Mutex::new(Vec::new()),
            host_staging: AtomicBool::new(host_staging.is_ok()),
            staging_fallback: Mutex::new(None),
            shape,
            downloads: Mutex::new(Vec::new()),
            ts,
            lost,
            uncaptured,
            use_subgroups: sg_ok,
            queue_lock: Mutex::new(()),
            read_lock: Mutex::new(()),
            allocs: AtomicU64::new(0),
            // set after the subgroup layout probe below
            fail_allocs_after: None,
            fail_host_staging: opts.fail_host_staging,
            memory_limit: opts.memory_limit.or(memory_limit_env),
            poll_timeout_ns: AtomicU64::new(POLL_TIMEOUT.as_nanos() as u64),
            gl,
            import_align,
            import_piece,
            import_fallback: direct::Fallback::default(),
            fail_import: opts.fail_import,
        };
        // the probe calls into wgpu as any call does (call_guard): the device is made
        drop(life);
        if b.use_subgroups {
            let layout = if opts.fail_subgroup_layout {
                Err("FZWGPU test option fail_subgroup_layout".to_string())
            } else {
                b.probe_subgroup_layout(ainfo.subgroup_min_size, ainfo.subgroup_max_size)?
            };
            match layout {
                Ok(size) => b.info.subgroup_layout = format!("checked: {size} lanes in runs of local indices"),
                Err(why) => {
                    // the subgroup variants would compute wrong results here: the
                    // workgroup-memory variants (the same outputs) run instead
                    b.use_subgroups = false;
                    b.info.subgroups = false;
                    b.info.subgroup_max = 0;
                    b.info.subgroup_layout = format!("subgroups off: {why}");
                }
            }
            // the backend as the probe found it: the params buffer and the staging it
            // created are made again by the first run, and the allocation count (and
            // its injected failures) start there
            {
                // (no other thread has the backend yet; dropping buffers calls into wgpu)
                let _call = call_guard(gl);
                b.params = Mutex::new(None);
                b.staging = Mutex::new(None);
                b.uploads = Mutex::new(Vec::new());
                b.downloads = Mutex::new(Vec::new());
                b.trim_idle();
            }
            b.allocs.store(0, Ordering::SeqCst);
        }
        b.fail_allocs_after = opts.fail_allocs_after;
        Ok(b)
    }

    /// Runs `subgroup_layout` (two workgroups) and checks its output against the
    /// layout the subgroup variants assume (`kernels::probe::check_subgroup_layout`):
    /// Ok(Ok(subgroup size)), Ok(Err(what differs)), or the device's error.
    fn probe_subgroup_layout(&self, min: u32, max: u32) -> Result<std::result::Result<u32, String>> {
        let wg = kernels::workgroup_size(Kernel::SubgroupLayout)?;
        let n = 2 * wg;
        let bytes = 16 * n as u64;
        let mut r = crate::recording::Recorder::new(self);
        let out = r.alloc(bytes)?;
        // poisoned: an invocation that writes nothing fails the check
        self.write_buffer(out, 0, &vec![0xA5; bytes as usize])?;
        let p = crate::kernels::params::ProbeParams { n, ..Default::default() };
        r.dispatch(Kernel::SubgroupLayout, false, &p, &[BufSlice::new(out, 0, bytes)], 2)?;
        let at = r.readback(BufSlice::new(out, 0, bytes));
        r.submit()?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(r.result(at)?);
        Ok(kernels::probe::check_subgroup_layout(&words, n as usize, wg, min, max))
    }

    fn check_alive(&self) -> Result<()> {
        if self.lost.load(Ordering::SeqCst) {
            return Err(Error::Device(format!("device lost ({})", self.info.adapter)));
        }
        if let Some(e) = self.uncaptured.lock().ok().and_then(|mut g| g.take()) {
            return Err(Error::Device(e));
        }
        Ok(())
    }

    fn pipe(&self, kernel: Kernel, f64: bool) -> Result<Arc<Pipe>> {
        let variant = Variant { f64, subgroup: self.use_subgroups, coalesce: self.info.coalesce }.for_kernel(kernel);
        let mut pipes = self.pipes.lock().map_err(|_| Error::Device("pipeline cache poisoned".into()))?;
        if let Some(p) = pipes.get(&(kernel, variant)) {
            return Ok(p.clone());
        }
        if ((variant.f64 && kernel.f64_arith()) || kernel.always_f64()) && !self.info.shader_f64 {
            return Err(Error::Unsupported(format!("{} needs SHADER_F64, which {} lacks", kernel.name(), self.info.adapter)));
        }
        let refl = kernels::reflect(kernel, variant)?;
        let src = kernels::source(kernel, variant)?;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = refl
            .bindings
            .iter()
            .enumerate()
            .map(|(i, k)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match k {
                        BindKind::Uniform => wgpu::BufferBindingType::Uniform,
                        BindKind::ReadOnly => wgpu::BufferBindingType::Storage { read_only: true },
                        BindKind::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let layout =
            self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(kernel.name()), entries: &entries });
        let desc = wgpu::ShaderModuleDescriptor { label: Some(kernel.name()), source: wgpu::ShaderSource::Wgsl(src.into()) };
        let module = match shader_checks() {
            ShaderChecks::Full => self.device.create_shader_module(desc),
            // SAFETY: every loop in the crate's kernels is bounded by parameters the
            // host validated (see ARCHITECTURE.md "Shader runtime checks"); bounds
            // checks and division guards stay on.
            ShaderChecks::NoLoopBounding => unsafe {
                let mut c = wgpu::ShaderRuntimeChecks::checked();
                c.force_loop_bounding = false;
                self.device.create_shader_module_trusted(desc, c)
            },
            // SAFETY: diagnostic only (see `ShaderChecks::NoBoundsChecks`); the crate's
            // kernels index within the windows the host sized for valid inputs.
            ShaderChecks::NoBoundsChecks => unsafe {
                let mut c = wgpu::ShaderRuntimeChecks::checked();
                c.bounds_checks = false;
                self.device.create_shader_module_trusted(desc, c)
            },
        };
        let pl = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(kernel.name()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel.name()),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(kernel.name()),
            compilation_options: wgpu::PipelineCompilationOptions {
                zero_initialize_workgroup_memory: crate::kernels::workgroup_zero_init(),
                ..Default::default()
            },
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(format!("building pipeline {}: {e}", kernel.name())));
        }
        let p = Arc::new(Pipe { pipeline, layout, uniform_size: refl.params_size as u64 });
        pipes.insert((kernel, variant), p.clone());
        Ok(p)
    }

    /// Change how long one wait on the device may take (`None`: POLL_TIMEOUT). A wait
    /// that runs out returns `Error::Device` ("timed out"); tests use a zero limit to
    /// check that a timed-out call leaves the backend usable.
    pub fn set_poll_timeout(&self, limit: Option<Duration>) {
        let ns = limit.unwrap_or(POLL_TIMEOUT).as_nanos().min(u64::MAX as u128) as u64;
        self.poll_timeout_ns.store(ns, Ordering::SeqCst);
    }

    /// Destroy the device, as a driver reset would (tests: every later call must
    /// return `Error::Device`).
    pub fn destroy_device(&self) {
        let _life = life_guard(self.gl);
        self.device.destroy();
    }

    /// Device buffers currently handed out (not in the pool): 0 between calls.
    pub fn live_buffers(&self) -> usize {
        self.slab.lock().map(|s| s.live_ids().count()).unwrap_or(usize::MAX)
    }

    fn get_buf(&self, id: BufId) -> Result<wgpu::Buffer> {
        let slab = self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))?;
        Ok(slab.get(id)?.0.clone())
    }

    fn wait(&self, idx: wgpu::SubmissionIndex) -> Result<()> {
        let limit = Duration::from_nanos(self.poll_timeout_ns.load(Ordering::SeqCst));
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(idx), timeout: Some(limit) })
            .map_err(|e| Error::Device(format!("waiting for the device ({limit:?} limit): {e}")))?;
        self.check_alive()
    }

    /// Wait for submission `idx`, then for the map callback it carries (`rx`).
    fn wait_map(
        &self,
        idx: wgpu::SubmissionIndex,
        rx: &std::sync::mpsc::Receiver<std::result::Result<(), wgpu::BufferAsyncError>>,
        what: &str,
    ) -> Result<std::result::Result<(), wgpu::BufferAsyncError>> {
        self.wait(idx)?;
        rx.recv_timeout(Duration::from_secs(5)).map_err(|_| Error::Device(format!("{what} map callback never arrived")))
    }

    /// A buffer with at least `size` bytes for `usage`, grown (never shrunk) in `slot`.
    fn scratch(
        &self,
        slot: &Mutex<Option<(u64, wgpu::Buffer)>>,
        size: u64,
        usage: wgpu::BufferUsages,
        label: &str,
    ) -> Result<wgpu::Buffer> {
        let mut g = slot.lock().map_err(|_| Error::Device("scratch poisoned".into()))?;
        if let Some((cap, b)) = g.as_ref() {
            if *cap >= size {
                return Ok(b.clone());
            }
        }
        let cap = size.next_power_of_two().max(4096);
        let b = self.alloc_raw(cap, usage, label)?;
        *g = Some((cap, b.clone()));
        Ok(b)
    }

    /// `write_buffer`, with the CRC pieces of `data` appended to `crcs` when asked.
    fn write_impl(&self, id: BufId, offset: u64, data: &[u8], crcs: Option<&mut Vec<(u32, u64)>>) -> Result<()> {
        let _call = call_guard(self.gl);
        let b = self.get_buf(id)?;
        let end = offset.checked_add(data.len() as u64).ok_or_else(|| Error::Device("write overflow".into()))?;
        if end > b.size() || !offset.is_multiple_of(4) {
            return Err(Error::Device(format!("write of {} bytes at {offset} outside buffer of {}", data.len(), b.size())));
        }
        if data.len() as u64 >= UPLOAD_MIN && end.next_multiple_of(4) <= b.size() {
            let mut crcs = crcs;
            if let Some(align) = self.direct([data]) {
                match self.upload_direct(&b, offset, data, align, crcs.as_deref_mut())? {
                    Ok(()) => return Ok(()),
                    Err(why) => self.import_fallback.note(why),
                }
            }
            return self.upload_staged(&b, offset, data, crcs);
        }
        // small writes (and a ragged write that ends at the buffer's end) through the
        // queue's own staging
        if data.len().is_multiple_of(4) {
            self.queue.write_buffer(&b, offset, data);
        } else {
            let mut padded = data.to_vec();
            padded.resize(data.len().next_multiple_of(4), 0);
            if offset + padded.len() as u64 > b.size() {
                return Err(Error::Device("unaligned write at buffer end".into()));
            }
            self.queue.write_buffer(&b, offset, &padded);
        }
        if let Some(c) = crcs {
            c.push((crate::hostmem::crc32(data), data.len() as u64));
        }
        Ok(())
    }

    /// The import alignment if direct transfers are on and these destinations (or
    /// sources) qualify: at least IMPORT_MIN bytes in all, each non-empty, starting at
    /// and as long as a multiple of 4 bytes (the copies' unit).
    fn direct<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> Option<u64> {
        let align = self.import_align?;
        let mut total = 0u64;
        for p in parts {
            if p.is_empty() || !(p.as_ptr() as usize).is_multiple_of(4) || !p.len().is_multiple_of(4) {
                return None;
            }
            total += p.len() as u64;
        }
        (total >= IMPORT_MIN).then_some(align)
    }

    /// Copies between device buffers and the caller's memory, imported piece by piece
    /// (`host_import.rs`): each item is (the caller's piece, the device buffer, the offset
    /// there, whether the device reads the piece (an upload) or writes it). Each piece's
    /// copy is submitted as soon as it is imported, so the next import runs beside it;
    /// `during` runs on the host once all are submitted (the upload's CRC). Returns once
    /// every copy has run and every import is destroyed. Ok(Err(why)): an import failed
    /// (the copies submitted before it ran; the caller redoes the transfer staged).
    fn direct_copies(
        &self,
        items: &[(usize, usize, &wgpu::Buffer, u64, bool)],
        align: u64,
        during: impl FnOnce(),
    ) -> Result<std::result::Result<(), String>> {
        self.check_alive()?;
        let mut held: Vec<wgpu::Buffer> = Vec::new();
        let mut last = None;
        let mut failed = None;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        // pieces end at multiples of the piece (and of the alignment) in address, so
        // no two imports of one transfer share a page
        let step = self.import_piece.max(align) as usize;
        'items: for &(addr, len, dev, dev_off, upload) in items {
            for (done, n) in direct::pieces(addr, len, step) {
                let imported = if self.fail_import {
                    Err("injected failure (WgpuOptions::fail_import)".to_string())
                } else {
                    // SAFETY: the caller's piece is borrowed for this call, which waits
                    // for the copies and destroys the imports before it returns; the
                    // copy touches the piece's bytes only
                    unsafe { host_import::import(&self.device, addr + done, n, align) }
                };
                match imported {
                    Ok((buf, off)) => {
                        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("fzwgpu.direct") });
                        let at = dev_off + done as u64;
                        if upload {
                            enc.copy_buffer_to_buffer(&buf, off, dev, at, n as u64);
                        } else {
                            enc.copy_buffer_to_buffer(dev, at, &buf, off, n as u64);
                        }
                        last = Some(self.queue.submit([enc.finish()]));
                        held.push(buf);
                    }
                    Err(why) => {
                        failed = Some(why);
                        break 'items;
                    }
                }
            }
        }
        let rejected = pollster::block_on(scope.pop());
        if failed.is_none() && rejected.is_none() {
            during();
        }
        let waited = match &last {
            Some(idx) => self.wait(idx.clone()),
            None => Ok(()),
        };
        if let (Err(_), Some(idx)) = (&waited, last) {
            // Past the wait limit the copies may still run, reading or writing the
            // caller's memory: wait on without a limit until they have run or the device
            // is lost (then they never will) before freeing the imports and returning,
            // with the timeout as the result.
            let _ = self.device.poll(wgpu::PollType::Wait { submission_index: Some(idx), timeout: None });
        }
        for b in &held {
            b.destroy();
        }
        drop(held);
        // free the imports now (their copies have run), not at some later submission
        let _ = self.device.poll(wgpu::PollType::Poll);
        waited?;
        if let Some(e) = rejected {
            return Err(Error::Device(format!("direct transfer rejected: {e}")));
        }
        Ok(failed.map_or(Ok(()), Err))
    }

    /// An upload straight from the caller's memory (`direct_copies`), with the CRC of
    /// `data` computed on the host while the device copies it.
    fn upload_direct(
        &self,
        dst: &wgpu::Buffer,
        offset: u64,
        data: &[u8],
        align: u64,
        crcs: Option<&mut Vec<(u32, u64)>>,
    ) -> Result<std::result::Result<(), String>> {
        let item = [(data.as_ptr() as usize, data.len(), dst, offset, true)];
        let mut crc = None;
        let r = self.direct_copies(&item, align, || {
            if crcs.is_some() {
                crc = Some(crate::hostmem::crc32(data));
            }
        })?;
        if r.is_ok() {
            if let (Some(c), Some(v)) = (crcs, crc) {
                c.push((v, data.len() as u64));
            }
        }
        Ok(r)
    }

    /// The buffer a readback of `len` bytes from `s` copies from, checked: `s` starts on
    /// a 4-byte word and the whole words covering `len` bytes lie inside the buffer.
    fn readback_source(&self, s: &BufSlice, len: usize) -> Result<wgpu::Buffer> {
        let b = self.get_buf(s.buf)?;
        let want = (len as u64).next_multiple_of(4);
        if !s.offset.is_multiple_of(4) || s.offset.checked_add(want).is_none_or(|e| e > b.size()) {
            return Err(Error::Device(format!("readback of {len} bytes at {} of a {}-byte buffer", s.offset, b.size())));
        }
        Ok(b)
    }

    /// A readback straight into the caller's memory (`direct_copies`); with `crcs`, each
    /// destination's CRC and length, hashed after its copy.
    fn download_direct(
        &self,
        slices: &[BufSlice],
        outs: &mut [&mut [u8]],
        align: u64,
        crcs: Option<&mut [Vec<(u32, u64)>]>,
    ) -> Result<std::result::Result<(), String>> {
        let bufs = slices.iter().zip(outs.iter()).map(|(s, o)| self.readback_source(s, o.len())).collect::<Result<Vec<_>>>()?;
        let items: Vec<_> = slices
            .iter()
            .zip(outs.iter_mut())
            .zip(&bufs)
            .map(|((s, o), b)| (o.as_mut_ptr() as usize, o.len(), b, s.offset, false))
            .collect();
        let r = self.direct_copies(&items, align, || {})?;
        if r.is_ok() {
            if let Some(c) = crcs {
                for (k, o) in outs.iter().enumerate() {
                    c[k].push((crate::hostmem::crc32(o), o.len() as u64));
                }
            }
        }
        Ok(r)
    }

    /// `read_into` and `read_into_crc`: straight into the caller's memory where direct
    /// transfers are on and the destinations qualify, else (or after a refused import)
    /// through the download staging buffers; with `crcs`, each destination's CRC pieces.
    fn read_impl(&self, slices: &[BufSlice], outs: &mut [&mut [u8]], mut crcs: Option<&mut [Vec<(u32, u64)>]>) -> Result<()> {
        let _call = call_guard(self.gl);
        super::check_read_into(slices, outs)?;
        self.check_alive()?;
        if let Some(align) = self.direct(outs.iter().map(|o| &o[..])) {
            match self.download_direct(slices, outs, align, crcs.as_deref_mut())? {
                Ok(()) => return Ok(()),
                Err(why) => self.import_fallback.note(why),
            }
        }
        let _r = self.read_lock.lock().map_err(|_| Error::Device("read lock poisoned".into()))?;
        self.download_staged(slices, outs, crcs)
    }

    /// Large uploads through two persistent staging buffers, chunk by chunk: while the
    /// device copies one chunk, the host fills the other. The buffers are in host memory
    /// through Vulkan (`host_staging.rs`), else wgpu's mapped `MAP_WRITE` buffers.
    /// (`queue.write_buffer` allocates fresh staging memory for every call, which the
    /// host then faults in.)
    /// The copies are submitted in order on the queue, so later submissions see the data.
    /// With `crcs`, the CRC and length of each chunk of `data` are appended in order
    /// (hashed as the threads copy it into host-memory staging; after the copy into
    /// wgpu's write-only mapped buffers, a second read).
    fn upload_staged(&self, dst: &wgpu::Buffer, offset: u64, data: &[u8], mut crcs: Option<&mut Vec<(u32, u64)>>) -> Result<()> {
        self.check_alive()?;
        let _q = self.queue_lock.lock().map_err(|_| Error::Device("queue lock poisoned".into()))?;
        let mut up = self.uploads.lock().map_err(|_| Error::Device("upload staging poisoned".into()))?;
        let chunk_bytes = self.shape.upload_chunk;
        while up.len() < self.shape.upload_buffers {
            let k = self.allocs.fetch_add(1, Ordering::SeqCst);
            if self.fail_allocs_after.is_some_and(|n| k >= n) {
                return Err(Error::OutOfMemory(format!("upload staging: injected failure (allocation {k})")));
            }
            if self.host_staging.load(Ordering::SeqCst) {
                let made = if self.fail_host_staging {
                    Err("injected failure (WgpuOptions::fail_host_staging)".to_string())
                } else {
                    host_staging::HostStaging::new(&self.device, chunk_bytes)
                };
                match made {
                    Ok(h) => {
                        up.push((UpStaging::Host(h), None));
                        continue;
                    }
                    // from now on wgpu's own buffers (the two kinds are never mixed)
                    Err(e) => {
                        self.host_staging.store(false, Ordering::SeqCst);
                        if let Ok(mut f) = self.staging_fallback.lock() {
                            *f = Some(e.to_string());
                        }
                        up.clear();
                    }
                }
            }
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("fzwgpu.upload"),
                size: chunk_bytes,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            });
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(Error::OutOfMemory(format!("upload staging: {e}")));
            }
            up.push((UpStaging::Mapped(buf, true), None));
        }
        let stream = crate::hostmem::stream_copies(crate::hostmem::Way::Up, data.len());
        let result = (|| -> Result<()> {
            let nbuf = up.len();
            for (k, chunk) in data.chunks(chunk_bytes as usize).enumerate() {
                let (stage, last) = &mut up[k % nbuf];
                let len = chunk.len() as u64;
                let padded = len.next_multiple_of(4);
                let buf = match stage {
                    UpStaging::Host(h) => {
                        // the copy that last read this buffer must be done before the
                        // host overwrites it
                        if let Some(idx) = last.take() {
                            self.wait(idx)?;
                        }
                        let bytes = &mut h.bytes_mut()[..padded as usize];
                        match crcs.as_deref_mut() {
                            Some(c) => c.push((crate::hostmem::par_copy_crc_as(&mut bytes[..len as usize], chunk, stream), len)),
                            None => crate::hostmem::par_copy_as(&mut bytes[..len as usize], chunk, stream),
                        }
                        bytes[len as usize..].fill(0);
                        &h.buffer
                    }
                    UpStaging::Mapped(buf, mapped) => {
                        if !*mapped {
                            // mapping for writing completes once the copy that read it has run
                            let (tx, rx) = std::sync::mpsc::channel();
                            buf.slice(..).map_async(wgpu::MapMode::Write, move |r| {
                                let _ = tx.send(r);
                            });
                            if let Some(idx) = last.take() {
                                self.wait(idx)?;
                            } else {
                                self.device
                                    .poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(POLL_TIMEOUT) })
                                    .map_err(|e| Error::Device(format!("waiting for the device: {e}")))?;
                            }
                            rx.recv_timeout(Duration::from_secs(5))
                                .map_err(|_| Error::Device("upload staging map callback never arrived".into()))?
                                .map_err(|e| Error::Device(format!("map_async (write): {e}")))?;
                            *mapped = true;
                        }
                        {
                            let mut view = buf
                                .slice(..padded)
                                .get_mapped_range_mut()
                                .map_err(|e| Error::Device(format!("get_mapped_range_mut: {e}")))?;
                            if len == padded {
                                par_write(view.slice(..), chunk);
                            } else {
                                let mut tail = chunk.to_vec();
                                tail.resize(padded as usize, 0);
                                view.copy_from_slice(&tail);
                            }
                        }
                        buf.unmap();
                        *mapped = false;
                        if let Some(c) = crcs.as_deref_mut() {
                            c.push((crate::hostmem::crc32(chunk), len));
                        }
                        &*buf
                    }
                };
                let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("fzwgpu.upload") });
                enc.copy_buffer_to_buffer(buf, 0, dst, offset + k as u64 * chunk_bytes, padded);
                *last = Some(self.queue.submit([enc.finish()]));
            }
            Ok(())
        })();
        if result.is_err() {
            // a staging buffer may be mid-map or mid-copy: never reuse them
            up.clear();
        }
        result
    }

    /// Large readbacks through persistent mapped staging buffers used in turn
    /// (`shape.download_buffers` of `shape.download_chunk` bytes): the slices are cut
    /// into pieces packed into buffer fills (`staging::pack`); while the host copies
    /// one fill out of its buffer (several threads: the copy also faults in the fresh
    /// destination pages), the device copies the next fills into the others. Each
    /// slice's bytes land in the matching `outs` window; with `crcs`, each piece's CRC
    /// and length are appended to its destination's list (in order) as it is copied.
    fn download_staged(&self, slices: &[BufSlice], outs: &mut [&mut [u8]], mut crcs: Option<&mut [Vec<(u32, u64)>]>) -> Result<()> {
        let mut down = self.downloads.lock().map_err(|_| Error::Device("download staging poisoned".into()))?;
        let (chunk, nbuf) = (self.shape.download_chunk, self.shape.download_buffers);
        while down.len() < nbuf {
            let b = self.alloc_raw(chunk, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, "fzwgpu.download")?;
            down.push(b);
        }
        // each source checked and looked up once, as the direct path does
        let srcs = slices.iter().zip(outs.iter()).map(|(s, o)| self.readback_source(s, o.len())).collect::<Result<Vec<_>>>()?;
        // the buffer fills; copies are whole 4-byte words (up to 3 bytes past the
        // window, inside the buffer) at 8-byte offsets; the host keeps outs[k].len() bytes
        let lens: Vec<u64> = outs.iter().map(|o| o.len() as u64).collect();
        let chunks = super::staging::pack(&lens, chunk, 8, 4);
        let stream = crate::hostmem::stream_copies(crate::hostmem::Way::Down, lens.iter().sum::<u64>() as usize);
        type Pending =
            (usize, usize, std::sync::mpsc::Receiver<std::result::Result<(), wgpu::BufferAsyncError>>, wgpu::SubmissionIndex, u64);
        let finish = |p: Pending, outs: &mut [&mut [u8]], crcs: &mut Option<&mut [Vec<(u32, u64)>]>| -> Result<()> {
            let (c, bi, rx, idx, used) = p;
            self.wait_map(idx, &rx, "download staging")?.map_err(|e| Error::Device(format!("map_async (read): {e}")))?;
            {
                let view = down[bi].slice(..used).get_mapped_range().map_err(|e| Error::Device(format!("get_mapped_range: {e}")))?;
                for &super::staging::Piece { out: k, off, len, at } in &chunks[c] {
                    let keep = len.min(outs[k].len() as u64 - off) as usize;
                    let (dst, src) = (&mut outs[k][off as usize..off as usize + keep], &view[at as usize..at as usize + keep]);
                    match crcs {
                        Some(c) => c[k].push((crate::hostmem::par_copy_crc_as(dst, src, stream), keep as u64)),
                        None => crate::hostmem::par_copy_as(dst, src, stream),
                    }
                }
            }
            down[bi].unmap();
            Ok(())
        };
        let result = (|| -> Result<()> {
            let mut pending: std::collections::VecDeque<Pending> = std::collections::VecDeque::new();
            for (c, pieces) in chunks.iter().enumerate() {
                if pending.len() == nbuf {
                    finish(pending.pop_front().expect("a fill pending"), outs, &mut crcs)?;
                }
                let bi = c % nbuf;
                let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("fzwgpu.download") });
                let mut used = 0u64;
                for &super::staging::Piece { out: k, off, len, at } in pieces {
                    enc.copy_buffer_to_buffer(&srcs[k], slices[k].offset + off, &down[bi], at, len);
                    used = used.max(at + len);
                }
                let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
                let idx = self.queue.submit([enc.finish()]);
                if let Some(e) = pollster::block_on(scope.pop()) {
                    return Err(Error::Device(format!("readback rejected: {e}")));
                }
                let used = used.max(4);
                let (tx, rx) = std::sync::mpsc::channel();
                down[bi].slice(..used).map_async(wgpu::MapMode::Read, move |r| {
                    let _ = tx.send(r);
                });
                pending.push_back((c, bi, rx, idx, used));
            }
            while let Some(p) = pending.pop_front() {
                finish(p, outs, &mut crcs)?;
            }
            Ok(())
        })();
        if result.is_err() {
            // a staging buffer may be mid-map: never reuse them
            down.clear();
        }
        result
    }

    /// Destroy the idle pooled buffers; returns the bytes freed.
    fn trim_idle(&self) -> u64 {
        let Ok(mut slab) = self.slab.lock() else { return 0 };
        let (idle, freed) = slab.drain_idle();
        for b in idle {
            b.destroy();
        }
        freed
    }

    fn alloc_raw(&self, size: u64, usage: wgpu::BufferUsages, label: &str) -> Result<wgpu::Buffer> {
        let k = self.allocs.fetch_add(1, Ordering::SeqCst);
        if self.fail_allocs_after.is_some_and(|n| k >= n) {
            return Err(Error::OutOfMemory(format!("{size} bytes for {label}: injected failure (allocation {k})")));
        }
        if size > self.info.max_buffer_bytes {
            return Err(Error::TooLarge { what: format!("buffer {label}"), actual: size, limit: self.info.max_buffer_bytes });
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::OutOfMemory(format!("{size} bytes for {label}: {e}")));
        }
        Ok(b)
    }

    /// Print the per-dispatch times of a profiled submission, summed per kernel; returns
    /// the span from the first dispatch's start to the last one's end.
    fn print_profile(&self, read: &wgpu::Buffer, period_ns: f64, rec: &Recording) -> Option<f64> {
        let slice = read.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(POLL_TIMEOUT) }).ok()?;
        rx.recv_timeout(Duration::from_secs(5)).ok()?.ok()?;
        let t: Vec<u64> = bytemuck::cast_slice(&slice.get_mapped_range().ok()?).to_vec();
        read.unmap();
        let s = period_ns * 1e-9;
        let times: Vec<(f64, f64)> =
            t.chunks_exact(2).map(|p| (p[0].saturating_sub(t[0]) as f64 * s, p[1].saturating_sub(t[0]) as f64 * s)).collect();
        super::print_profile(rec, &times)
    }

    fn read_batch(&self, slices: &[BufSlice], encoder: Option<wgpu::CommandEncoder>) -> Result<(Vec<Vec<u8>>, Option<f64>)> {
        let mut data: Vec<Vec<u8>> = Vec::with_capacity(slices.len());
        let secs = self.read_with(slices, encoder, &mut |_, bytes| data.push(bytes.to_vec()))?;
        Ok((data, secs))
    }

    /// Copy `slices` to the host and hand each one's bytes, straight from the mapped
    /// staging memory, to `sink` (slice index, bytes): one copy on the host.
    fn read_with(
        &self,
        slices: &[BufSlice],
        encoder: Option<wgpu::CommandEncoder>,
        sink: &mut dyn FnMut(usize, &[u8]),
    ) -> Result<Option<f64>> {
        let mut enc = encoder.unwrap_or_else(|| self.device.create_command_encoder(&Default::default()));
        let mut total = 0u64;
        let mut placed = Vec::with_capacity(slices.len());
        for s in slices {
            placed.push(total);
            total += s.size.next_multiple_of(8);
        }
        let ts_bytes = if self.ts.is_some() { 16 } else { 0 };
        let need = total + ts_bytes;
        let staging =
            self.scratch(&self.staging, need.max(16), wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, "fzwgpu.staging")?;
        for (s, at) in slices.iter().zip(&placed) {
            if s.size > 0 {
                let b = self.get_buf(s.buf)?;
                enc.copy_buffer_to_buffer(&b, s.offset, &staging, *at, s.size);
            }
        }
        if let Some(ts) = &self.ts {
            enc.resolve_query_set(&ts.set, 0..2, &ts.resolve, 0);
            enc.copy_buffer_to_buffer(&ts.resolve, 0, &staging, total, 16);
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let idx = self.queue.submit([enc.finish()]);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(format!("submission rejected: {e}")));
        }
        let slice = staging.slice(0..need.max(16));
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        let mapped = self.wait_map(idx, &rx, "buffer").and_then(|r| r.map_err(|e| Error::Device(format!("map_async: {e}"))));
        if let Err(e) = mapped {
            // the staging buffer may still have a map pending: never reuse it
            if let Ok(mut g) = self.staging.lock() {
                *g = None;
            }
            return Err(e);
        }
        let out = {
            let view = slice.get_mapped_range().map_err(|e| Error::Device(format!("get_mapped_range: {e}")))?;
            let v: &[u8] = &view;
            for (k, (s, at)) in slices.iter().zip(&placed).enumerate() {
                sink(k, &v[*at as usize..(*at + s.size) as usize]);
            }

            if self.ts.is_some() {
                let t: [u64; 2] = bytemuck::pod_read_unaligned(&v[total as usize..total as usize + 16]);
                Some(t)
            } else {
                None
            }
        };
        staging.unmap();
        let secs = match (out, &self.ts) {
            (Some([a, b]), Some(ts)) if b > a => Some((b - a) as f64 * ts.period_ns as f64 * 1e-9),
            _ => None,
        };
        Ok(secs)
    }
}

/// The backend's resources and device are released under `life_guard`: on GL the
/// GL_SERIAL every other call holds (dropping the device locks the instance's one EGL
/// context, and beside another thread's long GL job wgpu's 6 s limit on that lock
/// panicked, "Could not lock adapter context", test `backends_come_and_go_beside_a_long_job`
/// in a fresh-clone CI run, round 28); elsewhere DEVICE_LIFE exclusively (NVIDIA's
/// Vulkan driver deadlocked in `vkDestroyDevice` beside other threads' calls, round 29).
/// Resources first, then the queue and the device.
impl Drop for WgpuBackend {
    fn drop(&mut self) {
        let _life = life_guard(self.gl);
        self.ts = None;
        fn inner<T: Default>(m: &mut Mutex<T>) -> T {
            std::mem::take(m.get_mut().unwrap_or_else(|p| p.into_inner()))
        }
        drop(inner(&mut self.pipes));
        drop(inner(&mut self.slab));
        drop(inner(&mut self.params));
        drop(inner(&mut self.staging));
        drop(inner(&mut self.uploads));
        drop(inner(&mut self.downloads));
        // SAFETY: dropped once, here; nothing uses them after (the struct is going away)
        unsafe {
            std::mem::ManuallyDrop::drop(&mut self.queue);
            std::mem::ManuallyDrop::drop(&mut self.device);
        }
    }
}

impl Backend for WgpuBackend {
    fn info(&self) -> &BackendInfo {
        &self.info
    }

    fn upload_staging(&self) -> String {
        let s = match self.staging_fallback.lock().ok().and_then(|f| f.clone()) {
            Some(why) => format!("mapped buffers (host-memory staging failed at run time: {why})"),
            None => self.info.upload_staging.clone(),
        };
        self.import_fallback.describe(s)
    }

    fn create_buffer(&self, bytes: u64) -> Result<BufId> {
        let _call = call_guard(self.gl);
        let cap = size_class(bytes);
        let mut slab = self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))?;
        let buf = match slab.take_idle(cap) {
            Some(b) => b,
            None => {
                if let Some(limit) = self.memory_limit {
                    // free idle buffers first, then refuse
                    while slab.live_bytes + cap > limit {
                        let Some((_, b)) = slab.pop_idle() else { break };
                        b.destroy();
                    }
                    if slab.live_bytes + cap > limit {
                        return Err(Error::OutOfMemory(format!(
                            "{cap} bytes more would pass the device memory limit of {limit} bytes ({} in use)",
                            slab.live_bytes
                        )));
                    }
                }
                drop(slab);
                let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
                let b = match self.alloc_raw(cap, usage, "fzwgpu.buffer") {
                    Ok(b) => b,
                    // out of memory with idle buffers pooled: free them and try once more
                    Err(Error::OutOfMemory(_)) if self.fail_allocs_after.is_none() && self.trim_idle() > 0 => {
                        self.alloc_raw(cap, usage, "fzwgpu.buffer")?
                    }
                    Err(e) => return Err(e),
                };
                slab = self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))?;
                slab.allocated(cap);
                b
            }
        };
        Ok(slab.insert(buf, cap))
    }

    fn release_buffer(&self, id: BufId) {
        let _call = call_guard(self.gl);
        if let Ok(mut slab) = self.slab.lock() {
            if let Some((b, cap)) = slab.remove(id) {
                // idle buffers are kept for reuse within the pool's budget (an
                // allocation that fails frees them and retries; trim_pool frees them on
                // demand)
                if let Some(b) = slab.release(b, cap) {
                    b.destroy();
                }
            }
        }
    }

    fn buffer_size(&self, id: BufId) -> Result<u64> {
        let slab = self.slab.lock().map_err(|_| Error::Device("buffer table poisoned".into()))?;
        Ok(slab.get(id)?.1)
    }

    fn write_buffer(&self, id: BufId, offset: u64, data: &[u8]) -> Result<()> {
        self.write_impl(id, offset, data, None)
    }

    fn write_buffer_crc(&self, id: BufId, offset: u64, data: &[u8]) -> Result<u32> {
        let mut pieces = Vec::new();
        self.write_impl(id, offset, data, Some(&mut pieces))?;
        Ok(crate::hostmem::crc32_concat(pieces))
    }

    fn submit(&self, rec: &Recording) -> Result<Submission> {
        self.submit_impl(rec, true)?.ok_or_else(|| Error::Device("submission not waited for".into()))
    }

    fn submit_nowait(&self, rec: &Recording) -> Result<()> {
        if !rec.readbacks.is_empty() {
            return Err(Error::Pipeline("submit_nowait: a recording with readbacks".into()));
        }
        self.submit_impl(rec, false).map(|_| ())
    }

    fn read_buffers(&self, slices: &[BufSlice]) -> Result<Vec<Vec<u8>>> {
        let _call = call_guard(self.gl);
        self.check_alive()?;
        let _r = self.read_lock.lock().map_err(|_| Error::Device("read lock poisoned".into()))?;
        if slices.iter().map(|s| s.size).sum::<u64>() >= DOWNLOAD_MIN {
            let mut outs = slices.iter().map(|s| crate::hostmem::zeroed(s.size as usize)).collect::<Result<Vec<_>>>()?;
            let mut dsts: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
            self.download_staged(slices, &mut dsts, None)?;
            return Ok(outs);
        }
        // small reads (under DOWNLOAD_MIN in all): one copy into the grown staging buffer
        Ok(self.read_batch(slices, None)?.0)
    }

    fn read_into(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<()> {
        self.read_impl(slices, outs, None)
    }

    fn read_into_crc(&self, slices: &[BufSlice], outs: &mut [&mut [u8]]) -> Result<Vec<u32>> {
        let mut pieces: Vec<Vec<(u32, u64)>> = vec![Vec::new(); outs.len()];
        self.read_impl(slices, outs, Some(&mut pieces))?;
        Ok(pieces.into_iter().map(crate::hostmem::crc32_concat).collect())
    }

    fn trim_pool(&self) {
        let _call = call_guard(self.gl);
        self.trim_idle();
    }
}

impl WgpuBackend {
    /// One submission of `rec`'s commands; with `wait`, timed (timestamps, profile) and
    /// waited for, its readbacks read (`Some`); without, queued only (`None`).
    fn submit_impl(&self, rec: &Recording, wait: bool) -> Result<Option<Submission>> {
        let _call = call_guard(self.gl);
        self.check_alive()?;
        validate_recording(self, rec)?;
        let _q = self.queue_lock.lock().map_err(|_| Error::Device("queue lock poisoned".into()))?;
        // params of every dispatch in one uniform buffer, 256 bytes apart
        let ndisp = rec.commands.iter().filter(|c| matches!(c, Command::Dispatch { .. })).count() as u64;
        let params_buf = if ndisp > 0 {
            let pb = self.scratch(
                &self.params,
                ndisp * PARAMS_STRIDE,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                "fzwgpu.params",
            )?;
            let mut bytes = vec![0u8; (ndisp * PARAMS_STRIDE) as usize];
            let mut i = 0;
            for c in &rec.commands {
                if let Command::Dispatch { params, .. } = c {
                    bytes[i * PARAMS_STRIDE as usize..i * PARAMS_STRIDE as usize + params.len()].copy_from_slice(params);
                    i += 1;
                }
            }
            self.queue.write_buffer(&pb, 0, &bytes);
            Some(pb)
        } else {
            None
        };
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("fzwgpu") });
        // FZWGPU_PROFILE: every dispatch in its own pass with its own timestamps, printed
        // per kernel to stderr after the submission (diagnostics; adds pass overhead)
        let ts = self.ts.as_ref().filter(|_| wait);
        let prof = match (ts, std::env::var_os("FZWGPU_PROFILE")) {
            (Some(_), Some(_)) if ndisp > 0 && ndisp <= 2048 => {
                let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("fzwgpu.profile"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2 * ndisp as u32,
                });
                let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("fzwgpu.profile.resolve"),
                    size: 16 * ndisp,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let read = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("fzwgpu.profile.read"),
                    size: 16 * ndisp,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                Some((set, resolve, read))
            }
            _ => None,
        };
        // group consecutive dispatches into compute passes
        let first_dispatch = rec.commands.iter().position(|c| matches!(c, Command::Dispatch { .. }));
        let last_dispatch = rec.commands.iter().rposition(|c| matches!(c, Command::Dispatch { .. }));
        let mut di = 0u64;
        let mut i = 0;
        let cmds = &rec.commands;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        while i < cmds.len() {
            match &cmds[i] {
                Command::Dispatch { .. } => {
                    let start = i;
                    while i < cmds.len() && matches!(cmds[i], Command::Dispatch { .. }) && (prof.is_none() || i == start) {
                        i += 1;
                    }
                    let tw = if let Some((set, _, _)) = &prof {
                        Some(wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(2 * di as u32),
                            end_of_pass_write_index: Some(2 * di as u32 + 1),
                        })
                    } else {
                        None
                    };
                    let tw = tw.or(ts.map(|ts| wgpu::ComputePassTimestampWrites {
                        query_set: &ts.set,
                        beginning_of_pass_write_index: (Some(start) == first_dispatch).then_some(0),
                        end_of_pass_write_index: (last_dispatch.is_some_and(|l| l < i && l >= start)).then_some(1),
                    }));
                    let tw = tw.filter(|t| t.beginning_of_pass_write_index.is_some() || t.end_of_pass_write_index.is_some());
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: tw });
                    for c in &cmds[start..i] {
                        let Command::Dispatch { kernel, f64, bindings, groups, .. } = c else {
                            continue;
                        };
                        let pipe = self.pipe(*kernel, *f64)?;
                        let pb = params_buf.as_ref().ok_or_else(|| Error::Device("params buffer missing".into()))?;
                        let mut bufs = Vec::with_capacity(bindings.len());
                        for s in bindings {
                            bufs.push(self.get_buf(s.buf)?);
                        }
                        let mut entries = vec![wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: pb,
                                offset: di * PARAMS_STRIDE,
                                size: NonZeroU64::new(pipe.uniform_size.next_multiple_of(16)),
                            }),
                        }];
                        for (k, (s, b)) in bindings.iter().zip(&bufs).enumerate() {
                            entries.push(wgpu::BindGroupEntry {
                                binding: k as u32 + 1,
                                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer: b,
                                    offset: s.offset,
                                    size: NonZeroU64::new(s.size),
                                }),
                            });
                        }
                        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(kernel.name()),
                            layout: &pipe.layout,
                            entries: &entries,
                        });
                        let (x, y) = grid(*groups, self.info.max_workgroups_per_dim)?;
                        pass.set_pipeline(&pipe.pipeline);
                        pass.set_bind_group(0, &bg, &[]);
                        pass.dispatch_workgroups(x, y, 1);
                        di += 1;
                    }
                }
                Command::Clear { dst } => {
                    let b = self.get_buf(dst.buf)?;
                    enc.clear_buffer(&b, dst.offset, Some(dst.size));
                    i += 1;
                }
                Command::Copy { src, dst } => {
                    let s = self.get_buf(src.buf)?;
                    let d = self.get_buf(dst.buf)?;
                    enc.copy_buffer_to_buffer(&s, src.offset, &d, dst.offset, src.size);
                    i += 1;
                }
            }
        }
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Device(format!("recording rejected: {e}")));
        }
        if !wait {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            self.queue.submit([enc.finish()]);
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(Error::Device(format!("submission rejected: {e}")));
            }
            return Ok(None);
        }
        if let Some((set, resolve, read)) = &prof {
            enc.resolve_query_set(set, 0..2 * ndisp as u32, resolve, 0);
            enc.copy_buffer_to_buffer(resolve, 0, read, 0, 16 * ndisp);
        }
        let _r = self.read_lock.lock().map_err(|_| Error::Device("read lock poisoned".into()))?;
        let (readbacks, mut secs) = self.read_batch(&rec.readbacks, Some(enc))?;
        if let (Some((_, _, read)), Some(ts)) = (&prof, &self.ts) {
            secs = self.print_profile(read, ts.period_ns as f64, rec).or(secs);
        }
        Ok(Some(Submission { readbacks, kernel_seconds: if first_dispatch.is_some() { secs } else { None } }))
    }
}

/// Which of wgpu's shader runtime checks the kernels are built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderChecks {
    /// All of wgpu's checks (bounds, division guards, loop bounding).
    Full,
    /// Without naga's loop-bounding counters (every loop of the crate's kernels ends).
    NoLoopBounding,
    /// Without the bounds checks naga adds itself (the driver's own robustness, where
    /// it has it, still applies); loop bounding and division guards stay. Measures
    /// what the checks cost; not for production (a corrupt archive could then make a
    /// decoder read or write outside its bindings on drivers without robustness).
    NoBoundsChecks,
}

impl ShaderChecks {
    /// The `FZWGPU_SHADER_CHECKS` value that selects it.
    pub fn name(self) -> &'static str {
        match self {
            ShaderChecks::Full => "full",
            ShaderChecks::NoLoopBounding => "noloop",
            ShaderChecks::NoBoundsChecks => "nobounds",
        }
    }
}

/// `FZWGPU_SHADER_CHECKS=full|noloop|nobounds` (diagnostic; default `full`). `noloop`
/// made the kernels 12-21% faster on the H200 but changed float64 `szx_encode` results
/// there (docs/performance-history.md, round 10), so it is not the default.
pub fn shader_checks() -> ShaderChecks {
    match crate::envcfg::get("FZWGPU_SHADER_CHECKS").ok().flatten().as_deref() {
        Some("noloop") => ShaderChecks::NoLoopBounding,
        Some("nobounds") => ShaderChecks::NoBoundsChecks,
        _ => ShaderChecks::Full,
    }
}

/// `dst.copy_from_slice(src)` into mapped (possibly write-combined) memory, 1 MiB pieces
/// on several threads when large.
fn par_write(dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    if src.len() < 4 * PIECE {
        let mut dst = dst;
        dst.copy_from_slice(src);
        return;
    }
    let (whole, mut rest) = dst.into_chunks::<PIECE>();
    let pieces: Vec<wgpu::WriteOnly<'_, [u8; PIECE]>> = whole.into_iter().collect();
    let split = pieces.len() * PIECE;
    // (under the backend's queue and staging locks: on fzwgpu's own pool, hostmem::isolated)
    crate::hostmem::isolated(|| {
        pieces.into_par_iter().zip(src[..split].par_chunks(PIECE)).for_each(|(d, s)| {
            let mut d: wgpu::WriteOnly<'_, [u8]> = d.into();
            d.copy_from_slice(s);
        })
    });
    rest.copy_from_slice(&src[split..]);
}
