//! vkstats: compile fzwgpu's kernels to SPIR-V the way wgpu-hal 30 does for Vulkan
//! (naga, SPIR-V 1.6, loop bounding on, workgroup memory zeroed natively, buffer bounds
//! checks left to the driver's robustBufferAccess2) and print the driver's own pipeline
//! statistics (VK_KHR_pipeline_executable_properties: registers, instructions, spills,
//! as the driver names them) for each kernel: as wgpu builds it, without naga's loop
//! counters, and with the device's robustness features off (with naga's own clamps, and
//! with no checks at all). A diagnostic for the Vulkan-against-CUDA gaps of the
//! same WGSL (PERFORMANCE.md); nothing here is used by the library.
//!
//! Usage: vkstats [--f64] [--no-subgroups] [--coalesce] [--ir] [KERNEL...]
//! (no kernel: every kernel; --ir also prints the driver's internal representations)
use ash::vk;
use std::ffi::{c_char, CStr};

struct Opts {
    f64: bool,
    subgroup: bool,
    coalesce: bool,
    ir: bool,
    kernels: Vec<String>,
}

fn spirv(src: &str, entry: &str, robust2: bool, loops: bool) -> Result<Vec<u32>, String> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
    let mut o = naga::back::spv::Options { lang_version: (1, 6), ..Default::default() };
    o.flags.remove(naga::back::spv::WriterFlags::DEBUG);
    o.bounds_check_policies = naga::proc::BoundsCheckPolicies {
        index: naga::proc::BoundsCheckPolicy::Restrict,
        buffer: if robust2 { naga::proc::BoundsCheckPolicy::Unchecked } else { naga::proc::BoundsCheckPolicy::Restrict },
        image_load: naga::proc::BoundsCheckPolicy::Restrict,
        binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
    };
    // as the wgpu backend builds them: no zeroing of workgroup memory unless
    // FZWGPU_WG_ZERO_INIT=on (fzwgpu::kernels::workgroup_zero_init)
    o.zero_initialize_workgroup_memory = if fzwgpu::kernels::workgroup_zero_init() {
        naga::back::spv::ZeroInitializeWorkgroupMemoryMode::Native
    } else {
        naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None
    };
    o.force_loop_bounding = loops;
    let po = naga::back::spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: entry.to_string() };
    naga::back::spv::write_vec(&module, &info, &o, Some(&po)).map_err(|e| format!("{e:?}"))
}

/// (binding, descriptor type) of group 0, from the module's globals
fn bindings(src: &str) -> Vec<(u32, vk::DescriptorType)> {
    let module = naga::front::wgsl::parse_str(src).expect("parsed once already");
    let mut v: Vec<(u32, vk::DescriptorType)> = module
        .global_variables
        .iter()
        .filter_map(|(_, g)| {
            let b = g.binding.as_ref()?;
            let t = match g.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                _ => return None,
            };
            Some((b.binding, t))
        })
        .collect();
    v.sort();
    v
}

struct Dev {
    device: ash::Device,
    /// None where the driver lacks VK_KHR_pipeline_executable_properties (lavapipe):
    /// the pipelines are still built, which checks the SPIR-V and the layouts
    pep: Option<ash::khr::pipeline_executable_properties::Device>,
}

unsafe fn make_device(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    qf: u32,
    robust: bool,
    has_r2: bool,
    has_pe: bool,
) -> Result<Dev, String> {
    let prio = [1.0f32];
    let qci = [vk::DeviceQueueCreateInfo::default().queue_family_index(qf).queue_priorities(&prio)];
    let mut exts: Vec<*const c_char> = Vec::new();
    if has_pe {
        exts.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
    }
    if has_r2 {
        exts.push(ash::ext::robustness2::NAME.as_ptr());
    }
    let core = vk::PhysicalDeviceFeatures::default().robust_buffer_access(robust).shader_float64(true).shader_int64(true);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default().shader_zero_initialize_workgroup_memory(true);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(robust && has_r2);
    let mut pe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
    let mut ci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&qci)
        .enabled_extension_names(&exts)
        .enabled_features(&core)
        .push_next(&mut f13)
        .push_next(&mut f12);
    if has_pe {
        ci = ci.push_next(&mut pe);
    }
    if has_r2 {
        ci = ci.push_next(&mut r2);
    }
    let device = instance.create_device(pd, &ci, None).map_err(|e| format!("vkCreateDevice: {e}"))?;
    let pep = has_pe.then(|| ash::khr::pipeline_executable_properties::Device::new(instance, &device));
    Ok(Dev { device, pep })
}

unsafe fn stats(d: &Dev, words: &[u32], binds: &[(u32, vk::DescriptorType)], entry: &str, ir: bool) -> Result<Vec<String>, String> {
    let dev = &d.device;
    let sm =
        dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None).map_err(|e| format!("shader module: {e}"))?;
    let lb: Vec<vk::DescriptorSetLayoutBinding> = binds
        .iter()
        .map(|&(b, t)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(t)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let dsl =
        dev.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&lb), None).map_err(|e| e.to_string())?;
    let sets = [dsl];
    let pl = dev.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&sets), None).map_err(|e| e.to_string())?;
    let name = std::ffi::CString::new(entry).unwrap();
    let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(sm).name(&name);
    let mut flags = vk::PipelineCreateFlags::empty();
    if d.pep.is_some() {
        flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
    }
    if ir && d.pep.is_some() {
        flags |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
    }
    let cpci = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(pl).flags(flags)];
    let p = dev.create_compute_pipelines(vk::PipelineCache::null(), &cpci, None).map_err(|(_, e)| format!("pipeline: {e}"))?[0];
    let mut out = Vec::new();
    let Some(pep) = d.pep.as_ref() else {
        dev.destroy_pipeline(p, None);
        dev.destroy_pipeline_layout(pl, None);
        dev.destroy_descriptor_set_layout(dsl, None);
        dev.destroy_shader_module(sm, None);
        return Ok(vec![format!(
            "pipeline built ({} SPIR-V words; no statistics: the driver lacks VK_KHR_pipeline_executable_properties)",
            words.len()
        )]);
    };
    let execs = pep.get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(p)).map_err(|e| e.to_string())?;
    for (i, ex) in execs.iter().enumerate() {
        let info = vk::PipelineExecutableInfoKHR::default().pipeline(p).executable_index(i as u32);
        let mut line = format!("[{}]", ex.name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
        for s in pep.get_pipeline_executable_statistics(&info).map_err(|e| e.to_string())? {
            let n = s.name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let v = match s.format {
                vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => format!("{:.3}", s.value.f64),
                _ => "?".into(),
            };
            line += &format!(" {n}={v};");
        }
        out.push(line);
        if ir {
            // three calls: the count, the sizes, then the data (ash's wrapper stops at the sizes)
            let f = pep.fp().get_pipeline_executable_internal_representations_khr;
            let mut n = 0u32;
            // (VK_INCOMPLETE is no failure here: the sizes are what the second call asks)
            let ok = |r: vk::Result| match r {
                vk::Result::SUCCESS | vk::Result::INCOMPLETE => Ok(()),
                e => Err(format!("internal representations: {e}")),
            };
            ok(f(dev.handle(), &info, &mut n, std::ptr::null_mut()))?;
            let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n as usize];
            ok(f(dev.handle(), &info, &mut n, reps.as_mut_ptr()))?;
            let mut bufs: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
            for (r, b) in reps.iter_mut().zip(bufs.iter_mut()) {
                r.p_data = b.as_mut_ptr().cast();
            }
            ok(f(dev.handle(), &info, &mut n, reps.as_mut_ptr()))?;
            for (r, b) in reps.iter().zip(&bufs) {
                let rn = r.name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if r.is_text == vk::TRUE {
                    let t = CStr::from_bytes_until_nul(b).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                    out.push(format!("--- {rn} ({} lines)\n{t}", t.lines().count()));
                } else {
                    out.push(format!("--- {rn}: {} bytes (binary)", b.len()));
                }
            }
        }
    }
    dev.destroy_pipeline(p, None);
    dev.destroy_pipeline_layout(pl, None);
    dev.destroy_descriptor_set_layout(dsl, None);
    dev.destroy_shader_module(sm, None);
    Ok(out)
}

fn main() {
    let mut o = Opts { f64: false, subgroup: true, coalesce: false, ir: false, kernels: Vec::new() };
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--f64" => o.f64 = true,
            "--no-subgroups" => o.subgroup = false,
            "--coalesce" => o.coalesce = true,
            "--ir" => o.ir = true,
            k => o.kernels.push(k.to_string()),
        }
    }
    if let Err(e) = unsafe { run(&o) } {
        eprintln!("vkstats: {e}");
        std::process::exit(1);
    }
}

unsafe fn run(o: &Opts) -> Result<(), String> {
    use fzwgpu::kernels::{source, Kernel, Variant};
    let entry = ash::Entry::load().map_err(|e| format!("no Vulkan loader: {e}"))?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).map_err(|e| e.to_string())?;
    let pds = instance.enumerate_physical_devices().map_err(|e| e.to_string())?;
    let pd = *pds.first().ok_or("no Vulkan device")?;
    let props = instance.get_physical_device_properties(pd);
    let exts = instance.enumerate_device_extension_properties(pd).map_err(|e| e.to_string())?;
    let has = |n: &CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(n));
    let has_pe = has(ash::khr::pipeline_executable_properties::NAME);
    let has_r2 = has(ash::ext::robustness2::NAME);
    let qf = instance
        .get_physical_device_queue_family_properties(pd)
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or("no compute queue")? as u32;
    println!(
        "device: {} (driver {:#x}, API {}.{}), robustness2: {has_r2}, pipeline statistics: {has_pe}",
        props.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        props.driver_version,
        vk::api_version_major(props.api_version),
        vk::api_version_minor(props.api_version)
    );
    // as wgpu creates it (robustBufferAccess and, where offered, robustBufferAccess2),
    // then with both off (naga then adds its own clamps: BoundsCheckPolicy::Restrict)
    let on = make_device(&instance, pd, qf, true, has_r2, has_pe)?;
    let off = make_device(&instance, pd, qf, false, has_r2, has_pe)?;
    let v = Variant { f64: o.f64, subgroup: o.subgroup, coalesce: o.coalesce };
    for k in Kernel::ALL {
        if !o.kernels.is_empty() && !o.kernels.iter().any(|n| n == k.name()) {
            continue;
        }
        let src = source(k, v).map_err(|e| e.to_string())?;
        let binds = bindings(&src);
        for (label, d, r2, loops) in [
            ("robust", &on, has_r2, true),
            ("robust,no-loop-bounding", &on, has_r2, false),
            ("no-robust+naga-clamps", &off, false, true),
            ("no-robust,no-checks", &off, true, true),
        ] {
            let words = match spirv(&src, k.name(), r2, loops) {
                Ok(w) => w,
                Err(e) => {
                    println!("{} {label}: SPIR-V failed: {e}", k.name());
                    continue;
                }
            };
            match stats(d, &words, &binds, k.name(), o.ir && label == "robust") {
                Ok(lines) => {
                    for l in lines {
                        println!("{} {label} {l}", k.name());
                    }
                }
                Err(e) => println!("{} {label}: {e}", k.name()),
            }
        }
    }
    Ok(())
}
