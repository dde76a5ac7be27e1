//! Direct transfers: the caller's own memory imported as a Vulkan buffer
//! (`VK_EXT_external_memory_host`), so the device's copy engine reads an upload from the
//! caller's slice, and writes a readback into the caller's slice, with no host copy.
//!
//! A staged transfer moves each byte through host memory three times (the host reads the
//! caller's slice and writes the staging buffer; the device's copy reads the staging
//! buffer). An imported one moves it once. Round 38 measured the staged form near what
//! the H100 host's memory sustains (PERFORMANCE.md, end to end); this is the form that
//! does not pay the two host passes.
//!
//! What an import covers: the pages around the slice (the import's address and size must
//! be multiples of the device's `minImportedHostPointerAlignment`, 4 KiB on most
//! drivers). Pages shared with other data are only pinned; the device's copies touch
//! the slice's bytes alone. An import lives for one call: the backend waits for its copies
//! and destroys it before returning, so nothing keeps a view of the caller's memory
//! past the borrow (a cache of imports could not know whether the caller freed and
//! reused the pages).
//!
//! Off unless asked for (`FZWGPU_HOST_IMPORT=on`, `WgpuOptions::host_import`): the
//! device is then opened through wgpu-hal with the extension added. Where the adapter
//! lacks it, or an import fails (memory the driver will not pin, such as a read-only
//! mapping), the transfer goes through the staging buffers instead and
//! `Backend::upload_staging` says why.

use ash::vk;

const HT: vk::ExternalMemoryHandleTypeFlags = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;

/// Whether the adapter offers `VK_EXT_external_memory_host` (false for any other API).
pub(crate) fn offered(adapter: &wgpu::Adapter) -> bool {
    let name = ash::ext::external_memory_host::NAME;
    // SAFETY: a query of the adapter's own physical device
    unsafe {
        adapter.as_hal::<wgpu::hal::api::Vulkan>().is_some_and(|hal| {
            hal.shared_instance()
                .raw_instance()
                .enumerate_device_extension_properties(hal.raw_physical_device())
                .is_ok_and(|v| v.iter().any(|e| e.extension_name_as_c_str() == Ok(name)))
        })
    }
}

/// Open the device through wgpu-hal with `VK_EXT_external_memory_host` added to what
/// wgpu would enable, then hand it to wgpu (the caller checked [`offered`]).
pub(crate) fn open(adapter: &wgpu::Adapter, desc: &wgpu::DeviceDescriptor) -> std::result::Result<(wgpu::Device, wgpu::Queue), String> {
    let name = ash::ext::external_memory_host::NAME;
    // SAFETY: the device is opened on this adapter's physical device with the
    // descriptor's features and limits; the callback only adds an extension the
    // adapter offers; wgpu then owns the device
    unsafe {
        let open = {
            let hal = adapter.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan adapter")?;
            let cb: Box<wgpu::hal::vulkan::CreateDeviceCallback> = Box::new(move |args| args.extensions.push(name));
            hal.open_with_callback(desc.required_features, &desc.required_limits, &desc.memory_hints, Some(cb))
                .map_err(|e| format!("opening the device with VK_EXT_external_memory_host: {e}"))?
        };
        adapter.create_device_from_hal(open, desc).map_err(|e| format!("wgpu device from the hal device: {e}"))
    }
}

/// The device's import alignment (`minImportedHostPointerAlignment`).
pub(crate) fn alignment(device: &wgpu::Device) -> Option<u64> {
    // SAFETY: a query of the device's own physical device
    unsafe {
        let hal = device.as_hal::<wgpu::hal::api::Vulkan>()?;
        let mut emh = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut emh);
        hal.shared_instance().raw_instance().get_physical_device_properties2(hal.raw_physical_device(), &mut p2);
        let a = emh.min_imported_host_pointer_alignment;
        (a.is_power_of_two() && a <= 1 << 21).then_some(a)
    }
}

/// The pages around `len` bytes at `addr` (which the caller keeps allocated, and does
/// not free, until the returned buffer is destroyed and the device is done with it)
/// imported as a wgpu buffer (`COPY_SRC | COPY_DST`), and the slice's offset in it.
///
/// # Safety
/// `addr..addr + len` must be memory of this process that stays mapped while the
/// buffer lives; device copies into the buffer must stay inside the slice.
pub(crate) unsafe fn import(
    device: &wgpu::Device,
    addr: usize,
    len: usize,
    align: u64,
) -> std::result::Result<(wgpu::Buffer, u64), String> {
    let (start, size, off) = crate::backend::direct::span(addr, len, align);
    let ptr = start as *mut std::ffi::c_void;
    // SAFETY: objects created on this device; on every error path before the hand-over
    // to wgpu-hal (`from_raw_managed`, which destroys the buffer and frees the import
    // once wgpu is done with it) they are destroyed here. The import only pins the
    // caller's pages; freeing it leaves them to their owner.
    unsafe {
        let (raw_buf, mem, alloc) = {
            let hal = device.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan device")?;
            let raw = hal.raw_device();
            let emh = ash::ext::external_memory_host::Device::new(hal.shared_instance().raw_instance(), raw);
            let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(HT);
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .push_next(&mut ext);
            let buf = raw.create_buffer(&info, None).map_err(|e| format!("vkCreateBuffer: {e}"))?;
            let req = raw.get_buffer_memory_requirements(buf);
            let mut hp = vk::MemoryHostPointerPropertiesEXT::default();
            let bits = match (emh.fp().get_memory_host_pointer_properties_ext)(raw.handle(), HT, ptr, &mut hp).result() {
                Ok(()) => req.memory_type_bits & hp.memory_type_bits,
                Err(e) => {
                    raw.destroy_buffer(buf, None);
                    return Err(format!("vkGetMemoryHostPointerPropertiesEXT: {e}"));
                }
            };
            if bits == 0 || req.size > size {
                raw.destroy_buffer(buf, None);
                return Err(format!("no memory type imports these pages for a buffer (types {bits:#x}, {} bytes)", req.size));
            }
            let mut imp = vk::ImportMemoryHostPointerInfoEXT::default().handle_type(HT).host_pointer(ptr);
            let ainfo =
                vk::MemoryAllocateInfo::default().allocation_size(size).memory_type_index(bits.trailing_zeros()).push_next(&mut imp);
            let mem = match raw.allocate_memory(&ainfo, None) {
                Ok(m) => m,
                Err(e) => {
                    raw.destroy_buffer(buf, None);
                    return Err(format!("vkAllocateMemory (import of {size} bytes): {e}"));
                }
            };
            if let Err(e) = raw.bind_buffer_memory(buf, mem, 0) {
                raw.destroy_buffer(buf, None);
                raw.free_memory(mem, None);
                return Err(format!("vkBindBufferMemory (import): {e}"));
            }
            (buf, mem, size)
        };
        let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = super::host_staging::adopt(device, raw_buf, mem, alloc, size, usage, "fzwgpu.imported");
        Ok((buffer, off))
    }
}
