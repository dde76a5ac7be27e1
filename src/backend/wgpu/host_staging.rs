//! Upload staging in host memory (Vulkan only).
//!
//! wgpu places a `MAP_WRITE` buffer where gpu-allocator puts `CpuToGpu` memory, which
//! prefers `DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT`. On a discrete NVIDIA GPU that
//! is the PCIe BAR: the host's writes into the mapped staging buffer cross the link as
//! write-combined stores, which is why uploads through Vulkan ran at 27.7-30.5 GB/s on the
//! H100 and H200 against 45-52 GB/s for the CUDA backend's pinned host memory
//! (PERFORMANCE.md, end to end). Here each staging buffer is a `VkBuffer` bound to
//! `HOST_VISIBLE | HOST_COHERENT` memory that is not device-local (`HOST_CACHED` where
//! offered), mapped once for its lifetime: the host fills it at memory speed and the
//! device's copy pulls it over the link. On an adapter with no such memory (lavapipe,
//! integrated GPUs: every host-visible type is device-local) a `HOST_CACHED` type is
//! taken, so the path is exercised there too. `FZWGPU_UPLOAD_STAGING=mapped` keeps
//! wgpu's own mapped buffers (the A/B switch); any failure here falls back to them.

use ash::vk;
use std::ptr::NonNull;

/// Which memory type to take, from the types' property flags (in the driver's order)
/// and the buffer's allowed types: the first `HOST_VISIBLE | HOST_COHERENT |
/// HOST_CACHED` type that is not `DEVICE_LOCAL`, else the first such type without
/// `HOST_CACHED`, else (all host memory is device-local: a unified-memory adapter) the
/// first `HOST_VISIBLE | HOST_COHERENT | HOST_CACHED` type. None: keep wgpu's buffers.
pub(crate) fn pick_memory_type(types: &[vk::MemoryPropertyFlags], allowed_bits: u32) -> Option<usize> {
    let hv = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let cached = hv | vk::MemoryPropertyFlags::HOST_CACHED;
    let bad = vk::MemoryPropertyFlags::LAZILY_ALLOCATED | vk::MemoryPropertyFlags::PROTECTED;
    let ok = |i: usize, f: &vk::MemoryPropertyFlags| i < 32 && allowed_bits & (1 << i) != 0 && !f.intersects(bad);
    let find = |want: vk::MemoryPropertyFlags, local: Option<bool>| {
        types
            .iter()
            .enumerate()
            .position(|(i, f)| ok(i, f) && f.contains(want) && local.is_none_or(|l| f.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL) == l))
    };
    find(cached, Some(false)).or_else(|| find(hv, Some(false))).or_else(|| find(cached, None))
}

/// A memory type for reports: "host memory (cached)", "host memory (device-local, cached)", ...
fn describe(f: vk::MemoryPropertyFlags) -> String {
    let mut v = Vec::new();
    if f.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL) {
        v.push("device-local");
    }
    if f.contains(vk::MemoryPropertyFlags::HOST_CACHED) {
        v.push("cached");
    }
    format!("host memory ({})", if v.is_empty() { "uncached".to_string() } else { v.join(", ") })
}

/// A raw `VkBuffer` bound to `mem` (`alloc` bytes) handed to wgpu as a buffer of `size`
/// bytes for `usage`: wgpu-hal owns both from here (`from_raw_managed`) and destroys
/// the buffer and frees the memory once wgpu is done with the buffer. Shared by the
/// host-memory staging and the imports of direct transfers (`host_import.rs`).
///
/// # Safety
/// `raw_buf` and `mem` were created on `device`'s Vulkan device, `raw_buf` is bound to
/// `mem` at offset 0 with `usage`'s transfer flags, and nothing else frees them.
pub(crate) unsafe fn adopt(
    device: &wgpu::Device,
    raw_buf: vk::Buffer,
    mem: vk::DeviceMemory,
    alloc: u64,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> wgpu::Buffer {
    // SAFETY: the caller's contract above
    unsafe {
        let hal_buf = wgpu::hal::vulkan::Buffer::from_raw_managed(raw_buf, mem, 0, alloc);
        device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
            hal_buf,
            &wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false },
        )
    }
}

/// One staging buffer: a wgpu buffer (`COPY_SRC`) whose memory stays mapped at `ptr`.
pub(crate) struct HostStaging {
    pub buffer: wgpu::Buffer,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping belongs to `buffer`'s memory, which lives until `buffer` (and
// wgpu's use of it) ends; the pointer is only dereferenced through `&mut self`.
unsafe impl Send for HostStaging {}
unsafe impl Sync for HostStaging {}

fn buffer_info(size: u64) -> vk::BufferCreateInfo<'static> {
    vk::BufferCreateInfo::default()
        .size(size)
        .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
}

/// The memory type for a buffer with these requirements, and its description.
fn choose(hal: &wgpu::hal::vulkan::Device, req: &vk::MemoryRequirements) -> std::result::Result<(usize, String), String> {
    // SAFETY: a query of the device's own physical device
    let props = unsafe { hal.shared_instance().raw_instance().get_physical_device_memory_properties(hal.raw_physical_device()) };
    let n = (props.memory_type_count as usize).min(vk::MAX_MEMORY_TYPES);
    let flags: Vec<vk::MemoryPropertyFlags> = props.memory_types[..n].iter().map(|t| t.property_flags).collect();
    let ty = pick_memory_type(&flags, req.memory_type_bits).ok_or("no host-visible memory type for a staging buffer")?;
    Ok((ty, format!("{} (Vulkan memory type {ty})", describe(flags[ty]))))
}

/// Where a staging buffer would live on this device (for reports), without allocating
/// one; Err says why there is none (the caller keeps wgpu's mapped buffers).
pub(crate) fn probe(device: &wgpu::Device) -> std::result::Result<String, String> {
    // SAFETY: a buffer created and destroyed here, never bound or used
    unsafe {
        let hal = device.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan device")?;
        let raw = hal.raw_device();
        let buf = raw.create_buffer(&buffer_info(1 << 20), None).map_err(|e| format!("vkCreateBuffer: {e}"))?;
        let r = choose(&hal, &raw.get_buffer_memory_requirements(buf));
        raw.destroy_buffer(buf, None);
        r.map(|(_, d)| d)
    }
}

impl HostStaging {
    /// A staging buffer of `size` bytes in host memory, or why not (not a Vulkan device,
    /// no suitable memory type, or a failed Vulkan call: the caller falls back).
    pub fn new(device: &wgpu::Device, size: u64) -> std::result::Result<HostStaging, String> {
        // SAFETY: the raw objects are created on this device, bound and mapped before
        // wgpu sees them, and handed to wgpu-hal (`from_raw_managed`), which destroys the
        // buffer and frees the memory (unmapping it) once wgpu is done with the buffer.
        // On every error path before that hand-over they are destroyed here.
        unsafe {
            let (raw_buf, mem, alloc, ptr) = {
                let hal = device.as_hal::<wgpu::hal::api::Vulkan>().ok_or("not a Vulkan device")?;
                let raw = hal.raw_device();
                let buf = raw.create_buffer(&buffer_info(size), None).map_err(|e| format!("vkCreateBuffer: {e}"))?;
                let req = raw.get_buffer_memory_requirements(buf);
                let ty = match choose(&hal, &req) {
                    Ok((ty, _)) => ty,
                    Err(e) => {
                        raw.destroy_buffer(buf, None);
                        return Err(e);
                    }
                };
                let ainfo = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty as u32);
                let mem = match raw.allocate_memory(&ainfo, None) {
                    Ok(m) => m,
                    Err(e) => {
                        raw.destroy_buffer(buf, None);
                        return Err(format!("vkAllocateMemory of {} bytes: {e}", req.size));
                    }
                };
                let mapped =
                    raw.bind_buffer_memory(buf, mem, 0).and_then(|_| raw.map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()));
                let ptr = match mapped.map(|p| NonNull::new(p.cast::<u8>())) {
                    Ok(Some(p)) => p,
                    other => {
                        raw.destroy_buffer(buf, None);
                        raw.free_memory(mem, None);
                        return Err(format!("binding or mapping the staging memory: {:?}", other.err()));
                    }
                };
                (buf, mem, req.size, ptr)
            };
            let buffer = adopt(device, raw_buf, mem, alloc, size, wgpu::BufferUsages::COPY_SRC, "fzwgpu.upload.host");
            Ok(HostStaging { buffer, ptr, len: size as usize })
        }
    }

    /// The mapped bytes. The caller must know that no device copy still reads them
    /// (it waits for the submission of the last copy first).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `len` bytes mapped at `ptr` for as long as `buffer` lives; `&mut self`
        // makes this the only view
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    type F = vk::MemoryPropertyFlags;

    #[test]
    fn picks_system_memory_over_the_bar() {
        let dl = F::DEVICE_LOCAL;
        let hv = F::HOST_VISIBLE | F::HOST_COHERENT;
        // an NVIDIA discrete GPU's list: device-local, BAR (device-local + host-visible),
        // system memory, system memory cached
        let nv = [dl, dl | hv, hv, hv | F::HOST_CACHED];
        assert_eq!(pick_memory_type(&nv, !0), Some(3));
        // the cached type not allowed for this buffer: the uncached system memory
        assert_eq!(pick_memory_type(&nv, 0b0111), Some(2));
        // only the BAR: keep wgpu's buffers
        assert_eq!(pick_memory_type(&nv, 0b0011), None);
        // lavapipe: one type, everything
        let lvp = [dl | hv | F::HOST_CACHED];
        assert_eq!(pick_memory_type(&lvp, !0), Some(0));
        // protected memory is never taken
        assert_eq!(pick_memory_type(&[hv | F::HOST_CACHED | F::PROTECTED], !0), None);
    }
}
