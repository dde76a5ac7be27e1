//! zerocopy-probe: can kernels read their input from, and write their output into,
//! host memory over the link fast enough to replace the separate upload and readback
//! copies of an end-to-end run through wgpu on Vulkan? With one wgpu queue the copies
//! and the kernels run one after another (round 37: the overlapped path measured
//! slower than the plain one); a kernel that reads host memory and writes host memory
//! moves both directions at once, on a full-duplex link.
//!
//! It times, with GPU timestamps around each submission (and the wall clock):
//! - the DMA copies the library uses: host -> device of N bytes, device -> host of N/4,
//!   and both in one submission;
//! - a 4:1 kernel (`squeeze`: reads N bytes, writes N/4, the traffic of a compression
//!   at ratio 4) and a 1:4 kernel (`expand`: reads N/4, writes N, a decompression's),
//!   with source and destination each in device memory or in host memory;
//! - the plain path's shape: upload, squeeze on the device, readback, in one submission.
//!
//! Host buffers are `VkBuffer`s bound to host-visible, non-device-local memory (cached
//! where offered), as the library's upload staging (src/backend/wgpu/host_staging.rs),
//! with storage usage added. Every figure is GB/s of N (the field's side). The output
//! of each kernel run is checked on the host. Nothing here is used by the library.
//!
//! Where the adapter offers VK_EXT_external_memory_host it also imports the process's own
//! memory (as a caller's field and archive would be) as storage buffers: the cost of an
//! import and its release per call, and the 4:1 kernel over imported memory (no host
//! copy at all).
//!
//! Usage: zerocopy-probe [MiB=1024] [--iters K=5]
use ash::vk;
use std::time::Instant;

const SHADER: &str = r#"
struct P { n4: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> p: P;

// dst[i] = src[i] ^ src[i + n4] ^ src[i + 2 n4] ^ src[i + 3 n4]: reads 4 n4, writes n4
@compute @workgroup_size(256)
fn squeeze(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let stride = nw.x * 256u;
    for (var i = g.x; i < p.n4; i += stride) {
        dst[i] = src[i] ^ src[i + p.n4] ^ src[i + 2u * p.n4] ^ src[i + 3u * p.n4];
    }
}

// dst[i + k n4] = src[i] ^ k: reads n4, writes 4 n4
@compute @workgroup_size(256)
fn expand(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let stride = nw.x * 256u;
    for (var i = g.x; i < p.n4; i += stride) {
        let v = src[i];
        dst[i] = v;
        dst[i + p.n4] = v ^ vec4<u32>(1u);
        dst[i + 2u * p.n4] = v ^ vec4<u32>(2u);
        dst[i + 3u * p.n4] = v ^ vec4<u32>(3u);
    }
}
"#;

const GROUPS: u32 = 8192;

/// A buffer and, for one in host memory, its mapping.
struct Buf {
    buffer: wgpu::Buffer,
    host: Option<*mut u8>,
    size: u64,
}

impl Buf {
    // a probe's shortcut: the mapping is only touched between submissions, one view at a time
    #[allow(clippy::mut_from_ref)]
    fn bytes(&self) -> &mut [u8] {
        // SAFETY: the mapping covers `size` bytes while the buffer lives; the caller
        // touches it only between submissions (after a wait)
        unsafe { std::slice::from_raw_parts_mut(self.host.expect("a host buffer"), self.size as usize) }
    }
}

fn usages() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
}

fn device_buf(device: &wgpu::Device, size: u64) -> Buf {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor { label: Some("device"), size, usage: usages(), mapped_at_creation: false });
    Buf { buffer, host: None, size }
}

/// A storage buffer in host memory, mapped for its lifetime; also says which memory type.
fn host_buf(device: &wgpu::Device, size: u64) -> Result<(Buf, String), String> {
    // SAFETY: raw objects created on this device, bound and mapped before wgpu sees
    // them, then handed to wgpu-hal, which frees them with the buffer
    unsafe {
        let hal = device.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan device")?;
        let raw = hal.raw_device();
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buf = raw.create_buffer(&info, None).map_err(|e| format!("vkCreateBuffer: {e}"))?;
        let req = raw.get_buffer_memory_requirements(buf);
        let props = hal.shared_instance().raw_instance().get_physical_device_memory_properties(hal.raw_physical_device());
        let types = &props.memory_types[..props.memory_type_count as usize];
        let hv = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ok = |i: usize, want: vk::MemoryPropertyFlags, local: bool| {
            req.memory_type_bits & (1 << i) != 0
                && types[i].property_flags.contains(want)
                && types[i].property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL) == local
        };
        let pick = |want, local| (0..types.len()).find(|&i| ok(i, want, local));
        let ty = pick(hv | vk::MemoryPropertyFlags::HOST_CACHED, false)
            .or_else(|| pick(hv, false))
            .or_else(|| pick(hv | vk::MemoryPropertyFlags::HOST_CACHED, true))
            .ok_or("no host-visible memory type")?;
        let mem = raw
            .allocate_memory(&vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty as u32), None)
            .map_err(|e| format!("vkAllocateMemory: {e}"))?;
        raw.bind_buffer_memory(buf, mem, 0).map_err(|e| format!("bind: {e}"))?;
        let ptr = raw.map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()).map_err(|e| format!("map: {e}"))?;
        let hal_buf = wgpu::hal::vulkan::Buffer::from_raw_managed(buf, mem, 0, req.size);
        let buffer = device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
            hal_buf,
            &wgpu::BufferDescriptor { label: Some("host"), size, usage: usages(), mapped_at_creation: false },
        );
        Ok((Buf { buffer, host: Some(ptr.cast()), size }, format!("memory type {ty}: {:?}", types[ty].property_flags)))
    }
}

struct Ctx {
    device: wgpu::Device,
    queue: wgpu::Queue,
    qs: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    period: f64,
    bgl: wgpu::BindGroupLayout,
    squeeze: wgpu::ComputePipeline,
    expand: wgpu::ComputePipeline,
}

enum Step<'a> {
    Copy(&'a Buf, &'a Buf, u64),
    Kernel(&'a wgpu::ComputePipeline, &'a Buf, &'a Buf, u32),
}

impl Ctx {
    fn wait(&self) {
        self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).expect("poll");
    }

    /// One submission of `steps`, timestamps at its start and end: (gpu s, wall s).
    fn run(&self, steps: &[Step]) -> (f64, f64) {
        let t0 = Instant::now();
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.write_timestamp(&self.qs, 0);
        let mut keep = Vec::new();
        for s in steps {
            match s {
                Step::Copy(a, b, n) => enc.copy_buffer_to_buffer(&a.buffer, 0, &b.buffer, 0, *n),
                Step::Kernel(pl, a, b, n4) => {
                    let u = self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: None,
                        size: 16,
                        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    });
                    self.queue.write_buffer(&u, 0, bytemuck::cast_slice(&[*n4, 0, 0, 0]));
                    let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: None,
                        layout: &self.bgl,
                        entries: &[
                            wgpu::BindGroupEntry { binding: 0, resource: a.buffer.as_entire_binding() },
                            wgpu::BindGroupEntry { binding: 1, resource: b.buffer.as_entire_binding() },
                            wgpu::BindGroupEntry { binding: 2, resource: u.as_entire_binding() },
                        ],
                    });
                    {
                        let mut pass = enc.begin_compute_pass(&Default::default());
                        pass.set_pipeline(pl);
                        pass.set_bind_group(0, &bg, &[]);
                        pass.dispatch_workgroups(GROUPS, 1, 1);
                    }
                    keep.push((u, bg));
                }
            }
        }
        enc.write_timestamp(&self.qs, 1);
        enc.resolve_query_set(&self.qs, 0..2, &self.resolve, 0);
        enc.copy_buffer_to_buffer(&self.resolve, 0, &self.read, 0, 16);
        self.queue.submit([enc.finish()]);
        self.wait();
        let wall = t0.elapsed().as_secs_f64();
        let slice = self.read.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        self.wait();
        let t: Vec<u64> = bytemuck::cast_slice(&slice.get_mapped_range().expect("mapped")).to_vec();
        self.read.unmap();
        (t[1].wrapping_sub(t[0]) as f64 * self.period * 1e-9, wall)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut mib, mut iters) = (1024u64, 5usize);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" => iters = args.next().and_then(|v| v.parse().ok()).expect("--iters K"),
            v => mib = v.parse().expect("usage: zerocopy-probe [MiB=1024] [--iters K=5]"),
        }
    }
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .expect("no adapter");
    let info = adapter.get_info();
    println!("adapter: {} ({:?}, {} {})", info.name, info.backend, info.driver, info.driver_info);
    let limits = adapter.limits();
    let desc = wgpu::DeviceDescriptor {
        label: None,
        required_features: wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    let (device, queue, import) = open_device(&adapter, &desc);
    println!("VK_EXT_external_memory_host: {}", if import { "enabled" } else { "not offered" });
    // N: the field's bytes, within one binding, a multiple of 64
    let n = (mib << 20).min(limits.max_storage_buffer_binding_size as u64).min(limits.max_buffer_size) / 64 * 64;
    let n4 = (n / 64) as u32; // vec4s on the small side
    println!("N = {} MiB, iterations {iters} (medians)", n >> 20);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(SHADER.into()) });
    let entry = |b: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
        binding: b,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    };
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[
            entry(0, wgpu::BufferBindingType::Storage { read_only: true }),
            entry(1, wgpu::BufferBindingType::Storage { read_only: false }),
            entry(2, wgpu::BufferBindingType::Uniform),
        ],
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let pipe = |e: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(e),
            layout: Some(&layout),
            module: &module,
            entry_point: Some(e),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let (squeeze, expand) = (pipe("squeeze"), pipe("expand"));
    let qs = device.create_query_set(&wgpu::QuerySetDescriptor { label: None, ty: wgpu::QueryType::Timestamp, count: 2 });
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let period = queue.get_timestamp_period() as f64;
    let ctx = Ctx { device, queue, qs, resolve, read, period, bgl, squeeze, expand };
    let (d_big, d_small) = (device_buf(&ctx.device, n), device_buf(&ctx.device, n / 4));
    let (h_big, ty) = host_buf(&ctx.device, n).expect("host buffer");
    let (h_small, _) = host_buf(&ctx.device, n / 4).expect("host buffer");
    println!("host buffers: {ty}");
    // inputs: a pattern in both host buffers, copied to the device ones
    for (i, w) in bytemuck::cast_slice_mut::<u8, u32>(h_big.bytes()).iter_mut().enumerate() {
        *w = (i as u32).wrapping_mul(2654435761);
    }
    for (i, w) in bytemuck::cast_slice_mut::<u8, u32>(h_small.bytes()).iter_mut().enumerate() {
        *w = (i as u32).wrapping_mul(40503) ^ 0x5a5a;
    }
    let big_in: Vec<u32> = bytemuck::cast_slice(h_big.bytes()).to_vec();
    let small_in: Vec<u32> = bytemuck::cast_slice(h_small.bytes()).to_vec();
    ctx.run(&[Step::Copy(&h_big, &d_big, n), Step::Copy(&h_small, &d_small, n / 4)]);
    let gb = n as f64 / 1e9;
    let report = |label: &str, steps: &[Step]| {
        ctx.run(steps); // warm-up
        let (mut g, mut w) = (Vec::new(), Vec::new());
        for _ in 0..iters {
            let (a, b) = ctx.run(steps);
            g.push(a);
            w.push(b);
        }
        let (g, w) = (median(g), median(w));
        println!("{label:<44} gpu {:>8.3} ms {:>7.1} GB/s   wall {:>8.3} ms {:>7.1} GB/s", g * 1e3, gb / g, w * 1e3, gb / w);
    };
    report("dma host->device N", &[Step::Copy(&h_big, &d_big, n)]);
    report("dma device->host N/4", &[Step::Copy(&d_small, &h_small, n / 4)]);
    report("dma host->device N + device->host N/4", &[Step::Copy(&h_big, &d_big, n), Step::Copy(&d_small, &h_small, n / 4)]);
    report("dma device->host N", &[Step::Copy(&d_big, &h_big, n)]);
    // restore the inputs the copies above overwrote
    bytemuck::cast_slice_mut::<u8, u32>(h_big.bytes()).copy_from_slice(&big_in);
    ctx.run(&[Step::Copy(&h_big, &d_big, n)]);
    let sq_want: Vec<u32> = {
        let q = n4 as usize * 4; // u32 words per quarter
        (0..q).map(|i| big_in[i] ^ big_in[i + q] ^ big_in[i + 2 * q] ^ big_in[i + 3 * q]).collect()
    };
    let sq = &ctx.squeeze;
    for (label, src, dst) in [
        ("squeeze 4:1 device -> device", &d_big, &d_small),
        ("squeeze 4:1 host -> device (zero-copy in)", &h_big, &d_small),
        ("squeeze 4:1 device -> host (zero-copy out)", &d_big, &h_small),
        ("squeeze 4:1 host -> host (zero-copy both)", &h_big, &h_small),
    ] {
        report(label, &[Step::Kernel(sq, src, dst, n4)]);
        check(&ctx, dst, &h_small, &sq_want, label);
    }
    report(
        "plain: dma in N, squeeze, dma out N/4",
        &[Step::Copy(&h_big, &d_big, n), Step::Kernel(sq, &d_big, &d_small, n4), Step::Copy(&d_small, &h_small, n / 4)],
    );
    // decompression's traffic: read N/4, write N
    bytemuck::cast_slice_mut::<u8, u32>(h_small.bytes()).copy_from_slice(&small_in);
    ctx.run(&[Step::Copy(&h_small, &d_small, n / 4)]);
    let ex = &ctx.expand;
    let ex_want: Vec<u32> = (0..4 * small_in.len()).map(|i| small_in[i % small_in.len()] ^ (i / small_in.len()) as u32).collect();
    for (label, src, dst) in [
        ("expand 1:4 device -> device", &d_small, &d_big),
        ("expand 1:4 host -> device (zero-copy in)", &h_small, &d_big),
        ("expand 1:4 device -> host (zero-copy out)", &d_small, &h_big),
        ("expand 1:4 host -> host (zero-copy both)", &h_small, &h_big),
    ] {
        // the zero-copy-out checks read h_big back: keep h_small's input intact
        report(label, &[Step::Kernel(ex, src, dst, n4)]);
        check(&ctx, dst, &h_big, &ex_want, label);
    }
    report(
        "plain: dma in N/4, expand, dma out N",
        &[Step::Copy(&h_small, &d_small, n / 4), Step::Kernel(ex, &d_small, &d_big, n4), Step::Copy(&d_big, &h_big, n)],
    );
    // the host's side of a zero-copy decompression: the field read out of the mapping
    // (into memory already touched: the first pass faults its pages in)
    let mut out = vec![0u8; n as usize];
    out.copy_from_slice(h_big.bytes());
    let t = Instant::now();
    out.copy_from_slice(h_big.bytes());
    println!("host copy out of the mapping, 1 thread, touched memory: {:.1} GB/s", gb / t.elapsed().as_secs_f64());
    std::hint::black_box(&out);
    if import {
        imported(&ctx, n, n4, iters, &big_in, &sq_want);
    }
}

/// Print whether `b`'s first words are `want` (a device buffer read through the host
/// buffer `via`).
fn check(ctx: &Ctx, b: &Buf, via: &Buf, want: &[u32], label: &str) {
    let len = want.len() * 4;
    if b.host.is_none() {
        ctx.run(&[Step::Copy(b, via, len as u64)]);
    }
    let got: &[u32] = bytemuck::cast_slice(&if b.host.is_some() { b } else { via }.bytes()[..len]);
    let bad = got.iter().zip(want).filter(|(x, y)| x != y).count();
    println!("  check {label}: {}", if bad == 0 { "ok".to_string() } else { format!("{bad} WRONG words") });
}

/// The device, with VK_EXT_external_memory_host enabled where the adapter offers it
/// (opened through wgpu-hal with the extension added, then handed to wgpu).
fn open_device(adapter: &wgpu::Adapter, desc: &wgpu::DeviceDescriptor) -> (wgpu::Device, wgpu::Queue, bool) {
    let name = ash::ext::external_memory_host::NAME;
    // SAFETY: queries and device creation on this adapter's own physical device; the
    // callback only adds an extension the device offers
    let open = unsafe {
        let hal = adapter.as_hal::<wgpu::hal::api::Vulkan>().expect("a Vulkan adapter");
        let offered = hal
            .shared_instance()
            .raw_instance()
            .enumerate_device_extension_properties(hal.raw_physical_device())
            .map(|v| v.iter().any(|e| e.extension_name_as_c_str() == Ok(name)))
            .unwrap_or(false);
        if offered {
            let cb: Box<wgpu::hal::vulkan::CreateDeviceCallback> = Box::new(move |args| args.extensions.push(name));
            Some(
                hal.open_with_callback(desc.required_features, &desc.required_limits, &desc.memory_hints, Some(cb))
                    .expect("open the device"),
            )
        } else {
            None
        }
    };
    match open {
        // SAFETY: the device was opened on this adapter with the descriptor's features and limits
        Some(o) => {
            let (d, q) = unsafe { adapter.create_device_from_hal(o, desc) }.expect("device from hal");
            (d, q, true)
        }
        None => {
            let (d, q) = pollster::block_on(adapter.request_device(desc)).expect("request_device (timestamps inside encoders needed)");
            (d, q, false)
        }
    }
}

/// Page-aligned host memory of the process's own (as a caller's field would be),
/// touched, freed on drop.
struct HostAlloc {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl HostAlloc {
    fn new(size: usize, align: usize) -> HostAlloc {
        let layout = std::alloc::Layout::from_size_align(size, align).expect("layout");
        // SAFETY: a non-zero size
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "allocation of {size} bytes");
        let a = HostAlloc { ptr, layout };
        a.bytes().iter_mut().step_by(4096).for_each(|b| *b = 1);
        a
    }
    // a probe's shortcut: the mapping is only touched between submissions, one view at a time
    #[allow(clippy::mut_from_ref)]
    fn bytes(&self) -> &mut [u8] {
        // SAFETY: the allocation's bytes, used between submissions only
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for HostAlloc {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Import `size` bytes at `ptr` (aligned to the device's import alignment) as a
/// storage buffer: the device reads and writes the process's own pages in place.
fn import_buf(device: &wgpu::Device, ptr: *mut u8, size: u64) -> Result<Buf, String> {
    let ht = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
    // SAFETY: objects created on this device; the memory imports `size` bytes the
    // caller keeps allocated until the buffer is dropped (then wgpu-hal frees the
    // import, which leaves the pages to their owner)
    unsafe {
        let hal = device.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan device")?;
        let raw = hal.raw_device();
        let emh = ash::ext::external_memory_host::Device::new(hal.shared_instance().raw_instance(), raw);
        let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(ht);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut ext);
        let buf = raw.create_buffer(&info, None).map_err(|e| format!("vkCreateBuffer: {e}"))?;
        let req = raw.get_buffer_memory_requirements(buf);
        let mut hp = vk::MemoryHostPointerPropertiesEXT::default();
        (emh.fp().get_memory_host_pointer_properties_ext)(raw.handle(), ht, ptr as *const std::ffi::c_void, &mut hp)
            .result()
            .map_err(|e| format!("vkGetMemoryHostPointerPropertiesEXT: {e}"))?;
        let bits = req.memory_type_bits & hp.memory_type_bits;
        if bits == 0 {
            raw.destroy_buffer(buf, None);
            return Err("no memory type for an imported storage buffer".into());
        }
        let mut imp = vk::ImportMemoryHostPointerInfoEXT::default().handle_type(ht).host_pointer(ptr as *mut std::ffi::c_void);
        let ainfo = vk::MemoryAllocateInfo::default()
            .allocation_size(size.max(req.size))
            .memory_type_index(bits.trailing_zeros())
            .push_next(&mut imp);
        let mem = match raw.allocate_memory(&ainfo, None) {
            Ok(m) => m,
            Err(e) => {
                raw.destroy_buffer(buf, None);
                return Err(format!("vkAllocateMemory (import): {e}"));
            }
        };
        raw.bind_buffer_memory(buf, mem, 0).map_err(|e| format!("bind: {e}"))?;
        let hal_buf = wgpu::hal::vulkan::Buffer::from_raw_managed(buf, mem, 0, size.max(req.size));
        let buffer = device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
            hal_buf,
            &wgpu::BufferDescriptor { label: Some("imported"), size, usage: usages(), mapped_at_creation: false },
        );
        Ok(Buf { buffer, host: Some(ptr), size })
    }
}

/// The caller's own memory imported (VK_EXT_external_memory_host): what an import costs
/// per call (pinning the pages; and the release), and the 4:1 kernel reading the
/// imported field and writing the imported output, with no host copy at all.
fn imported(ctx: &Ctx, n: u64, n4: u32, iters: usize, big_in: &[u32], sq_want: &[u32]) {
    let align = 2 << 20; // past any minImportedHostPointerAlignment (4 KiB on most)
    let field = HostAlloc::new(n as usize, align);
    let out = HostAlloc::new((n / 4).next_multiple_of(align as u64) as usize, align);
    bytemuck::cast_slice_mut::<u8, u32>(field.bytes()).copy_from_slice(big_in);
    let gb = n as f64 / 1e9;
    let (mut t_in, mut t_out, mut t_drop, mut g, mut w) = (vec![], vec![], vec![], vec![], vec![]);
    for k in 0..iters + 1 {
        let t = Instant::now();
        let a = match import_buf(&ctx.device, field.ptr, n) {
            Ok(b) => b,
            Err(e) => return println!("import: {e}"),
        };
        t_in.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let b = match import_buf(&ctx.device, out.ptr, out.layout.size() as u64) {
            Ok(b) => b,
            Err(e) => return println!("import: {e}"),
        };
        t_out.push(t.elapsed().as_secs_f64());
        let (gk, wk) = ctx.run(&[Step::Kernel(&ctx.squeeze, &a, &b, n4)]);
        if k > 0 {
            g.push(gk);
            w.push(wk);
        }
        if k == 0 {
            check(ctx, &b, &b, sq_want, "squeeze 4:1 imported -> imported");
        }
        let t = Instant::now();
        drop(a);
        drop(b);
        ctx.wait();
        t_drop.push(t.elapsed().as_secs_f64());
    }
    let ms = |v: Vec<f64>| median(v) * 1e3;
    println!("import of the caller's N bytes: {:.3} ms; of N/4: {:.3} ms; release of both: {:.3} ms", ms(t_in), ms(t_out), ms(t_drop));
    let (g, w) = (median(g), median(w));
    println!(
        "{:<44} gpu {:>8.3} ms {:>7.1} GB/s   wall {:>8.3} ms {:>7.1} GB/s",
        "squeeze 4:1 imported -> imported (no copy)",
        g * 1e3,
        gb / g,
        w * 1e3,
        gb / w
    );
}
