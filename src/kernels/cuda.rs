//! The CUDA C form of every kernel, generated from its WGSL.
//!
//! A kernel has three forms: its WGSL (the source of truth), its CPU twin (written
//! by hand from the same definition, tested bit for bit against the WGSL), and its
//! CUDA C, which is *generated* here from the naga IR of the same preprocessed WGSL
//! variant, so it cannot drift: same entry-point name, same bindings in the same
//! order, same params struct layout (checked with `static_assert`s in the generated
//! code), same workgroup size, same arithmetic (IEEE, no contraction: the backend
//! compiles with `--fmad=false`, as lavapipe and the CPU twins compute).
//!
//! The translation covers the part of WGSL the crate's kernels use (compute entry
//! points, scalars, vectors, fixed and runtime arrays, structs, atomics, workgroup
//! and private variables, barriers, subgroup operations); anything else is a typed
//! error naming the construct. WGSL semantics that C++ leaves undefined are made
//! explicit by the prelude (`cuda_prelude.cuh`): integer division by zero, shifts by
//! the bit width or more, signed overflow, float-to-integer saturation.
//!
//! Calling convention of a generated kernel: one by-value argument
//! `Args { u64 ptr[NB]; u32 len[NB]; (16-aligned) u8 params[PS]; }` where `ptr[k]`
//! is the device address of storage binding `k` (its window's start), `len[k]` the
//! window's length in elements of the binding's array, and `params` the bytes of the
//! WGSL uniform params struct. Workgroups are laid out along x only.

use crate::error::{Error, Result};
use crate::kernels::{self, Kernel, Variant};
use naga::{
    AddressSpace, ArraySize, BinaryOperator as B, Expression as E, Handle, Literal, MathFunction as M, Module, ScalarKind, Statement as S,
    TypeInner as T,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

const PRELUDE: &str = include_str!("cuda_prelude.cuh");

/// Options of the generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CudaOptions {
    /// WGSL's bounds semantics as wgpu gives them on Vulkan: reads past a storage
    /// binding's window give zero and writes there are dropped (robustBufferAccess2),
    /// indices into fixed-size arrays are clamped; off drops the checks.
    pub bounds_checks: bool,
    /// With `bounds_checks`: load from the clamped index unconditionally, then
    /// select zero past the window (branch-free), instead of a conditional load.
    pub clamp_loads: bool,
    /// Load bindings the kernel never writes through the read-only data path.
    pub ldg: bool,
    /// Workgroups each multiprocessor must hold at once (the second argument of
    /// `__launch_bounds__`, which caps registers per thread: more warps for
    /// register-heavy kernels such as `chain_encode`, 119 registers uncapped on sm_90,
    /// spilling below 96 registers = 10 workgroups of 64). From `FZWGPU_CUDA_MINBLOCKS`
    /// (measurement knob; applies to every kernel); None: the kernel's own
    /// `// cuda-min-blocks:` line, if any (see [`min_blocks_of`]).
    pub min_blocks: Option<u32>,
}

impl Default for CudaOptions {
    fn default() -> Self {
        CudaOptions { bounds_checks: true, clamp_loads: false, ldg: true, min_blocks: None }
    }
}

impl CudaOptions {
    /// From `FZWGPU_CUDA_CHECKS`: `on` (default), `clamp` (branch-free loads) or
    /// `off` (no checks: diagnostic only; reads past a window are not zero, and loads
    /// that WGSL evaluates eagerly, as both sides of `&&`, may leave the allocation).
    pub fn from_env() -> Self {
        let mut o = match crate::envcfg::get("FZWGPU_CUDA_CHECKS").ok().flatten().as_deref() {
            Some("off") => CudaOptions { bounds_checks: false, ..Default::default() },
            Some("clamp") => CudaOptions { clamp_loads: true, ..Default::default() },
            _ => CudaOptions::default(),
        };
        o.min_blocks = crate::envcfg::number("FZWGPU_CUDA_MINBLOCKS").ok().flatten().and_then(|v| u32::try_from(v).ok());
        o
    }
}

/// A generated kernel and how to call it.
#[derive(Debug, Clone)]
pub struct CudaKernel {
    /// CUDA C++ source (prelude included) for NVRTC.
    pub source: String,
    /// The `extern "C"` entry point: the kernel's name.
    pub entry: String,
    pub workgroup_size: [u32; 3],
    /// Byte stride of each storage binding's array element, in binding order.
    pub binding_strides: Vec<u32>,
    /// Size of the params struct in bytes.
    pub params_size: u32,
}

impl CudaKernel {
    /// Byte offset of `params` in the `Args` blob.
    pub fn params_offset(&self) -> usize {
        (12 * self.binding_strides.len()).div_ceil(16) * 16
    }

    /// Size of the `Args` blob.
    pub fn args_size(&self) -> usize {
        (self.params_offset() + self.params_size as usize).div_ceil(16) * 16
    }

    /// Serialize the kernel's argument: binding addresses and window lengths (bytes),
    /// then the params, in 16-byte-aligned storage (the launch reads it in place).
    pub fn args(&self, addrs: &[u64], window_bytes: &[u64], params: &[u8]) -> Result<Vec<u128>> {
        let nb = self.binding_strides.len();
        if addrs.len() != nb || window_bytes.len() != nb || params.len() != self.params_size as usize {
            return Err(Error::Device(format!("{}: arguments do not match the kernel's interface", self.entry)));
        }
        let mut words = vec![0u128; self.args_size() / 16];
        let a: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        for k in 0..nb {
            a[8 * k..8 * k + 8].copy_from_slice(&addrs[k].to_le_bytes());
            let len = window_bytes[k] / self.binding_strides[k].max(1) as u64;
            let len = u32::try_from(len).map_err(|_| Error::TooLarge {
                what: format!("{} binding {k} elements", self.entry),
                actual: len,
                limit: u32::MAX as u64,
            })?;
            a[8 * nb + 4 * k..8 * nb + 4 * k + 4].copy_from_slice(&len.to_le_bytes());
        }
        let o = self.params_offset();
        a[o..o + params.len()].copy_from_slice(params);
        Ok(words)
    }
}

/// The CUDA C of a kernel variant.
pub fn cuda_kernel(kernel: Kernel, variant: Variant, opts: CudaOptions) -> Result<CudaKernel> {
    let (module, info) = kernels::parse_validated(kernel, variant)?;
    let file = kernels::shader_file(kernel.file())?;
    let guarded = self_guarded(file);
    let own = min_blocks_of(file).map_err(|e| Error::Unsupported(format!("{}: {e}", kernel.name())))?;
    let opts = CudaOptions { min_blocks: opts.min_blocks.or(own), ..opts };
    translate(&module, &info, kernel.name(), opts, &guarded)
        .map_err(|e| Error::Unsupported(format!("{}: WGSL -> CUDA: {e}", kernel.name())))
}

/// Storage bindings a kernel's WGSL file declares self-guarded, with a line
/// `// cuda-guarded: name name ..` (read from the file as written, so it applies to every
/// variant; each name must be a storage binding of each): the kernel itself keeps every
/// access to them inside the binding (a test per block against `arrayLength`, say), so
/// the translation leaves out the per-access bounds checks it otherwise adds (one
/// compare and select per load or store, which a load/store kernel pays in throughput;
/// Vulkan's robust buffer access does it in hardware). The claim is checked where it is
/// made: the kernel's guard sits beside the directive and the twin tests run the kernel
/// on both backends.
pub fn self_guarded(source: &str) -> Vec<String> {
    directives(source, "guarded").flat_map(|l| l.split_whitespace().map(str::to_string)).collect()
}

/// The values of a kernel file's `// cuda-<name>: value` lines, in order.
fn directives<'a>(source: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> {
    source.lines().filter_map(move |l| l.trim().strip_prefix("// cuda-")?.strip_prefix(name)?.strip_prefix(':'))
}

/// The launch bound a kernel's WGSL file asks for, with a line `// cuda-min-blocks: N`:
/// workgroups each multiprocessor must hold at once, which caps its registers per
/// thread (`szx_encode8`: 4 workgroups of 256 = 64 registers on sm_90, against 80
/// uncapped = 3 workgroups; measured faster on the H200, docs/performance-history.md, round 12).
/// A line whose N is not a positive integer, or a second such line, is an error, not a
/// silent no-op.
pub fn min_blocks_of(source: &str) -> R<Option<u32>> {
    let mut lines = directives(source, "min-blocks");
    let Some(v) = lines.next() else { return Ok(None) };
    if lines.next().is_some() {
        return Err("more than one `// cuda-min-blocks:` line".into());
    }
    match v.trim().parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(format!("`// cuda-min-blocks:{v}` is not a positive number of workgroups")),
    }
}

type R<X> = std::result::Result<X, String>;

/// Translate the compute entry point `entry` of a validated module.
pub fn translate(module: &Module, info: &naga::valid::ModuleInfo, entry: &str, opts: CudaOptions, guarded: &[String]) -> R<CudaKernel> {
    let (ep_index, ep) =
        module.entry_points.iter().enumerate().find(|(_, e)| e.name == entry).ok_or_else(|| format!("no entry point {entry}"))?;
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).map_err(|e| format!("layout: {e}"))?;
    for name in guarded {
        if !module
            .global_variables
            .iter()
            .any(|(_, g)| g.name.as_deref() == Some(name.as_str()) && matches!(g.space, AddressSpace::Storage { .. }))
        {
            return Err(format!("cuda-guarded: no storage binding named {name}"));
        }
    }
    let mut w = Writer { m: module, layouter, opts, out: String::new(), globals: BTreeMap::new(), guarded: guarded.to_vec() };
    w.out.push_str(PRELUDE);
    w.out.push('\n');
    w.structs()?;
    let (strides, params_size) = w.globals()?;
    for (h, f) in module.functions.iter() {
        w.function(Some(h), f, &info[h], None)?;
    }
    w.function(None, &ep.function, info.get_entry_point(ep_index), Some(ep))?;
    Ok(CudaKernel { source: w.out, entry: entry.to_string(), workgroup_size: ep.workgroup_size, binding_strides: strides, params_size })
}

#[derive(Debug, Clone)]
enum Global {
    /// Storage binding k; `runtime`: its type is a runtime-sized array; `ro`: never
    /// written; `guarded`: the kernel keeps its accesses in bounds itself (no checks).
    Storage {
        k: usize,
        runtime: bool,
        ro: bool,
        guarded: bool,
    },
    Uniform,
    Workgroup(String),
    Private(String),
}

struct Writer<'a> {
    m: &'a Module,
    layouter: naga::proc::Layouter,
    opts: CudaOptions,
    out: String,
    /// (ordered: the entry point's set-up is emitted in this order, and the source is
    /// the key of the on-disk kernel cache, so it must not vary between runs)
    globals: BTreeMap<Handle<naga::GlobalVariable>, Global>,
    guarded: Vec<String>,
}

/// Per-function state.
struct Fun<'a> {
    f: &'a naga::Function,
    fi: &'a naga::valid::FunctionInfo,
    names: HashMap<Handle<naga::Expression>, String>,
    /// Text of each entry-point argument (builtins).
    args: Vec<String>,
    indent: usize,
}

fn ident(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

fn scalar_name(s: naga::Scalar) -> R<&'static str> {
    Ok(match (s.kind, s.width) {
        (ScalarKind::Bool, _) => "bool",
        (ScalarKind::Uint, 4) => "uint",
        (ScalarKind::Sint, 4) => "int",
        (ScalarKind::Float, 4) => "float",
        (ScalarKind::Float, 8) => "double",
        (ScalarKind::Uint, 8) => "ullong",
        (ScalarKind::Sint, 8) => "llong",
        other => return Err(format!("scalar type {other:?}")),
    })
}

fn vsize(s: naga::VectorSize) -> u32 {
    s as u32
}

const COMP: [&str; 4] = ["x", "y", "z", "w"];

fn literal(l: &Literal) -> R<String> {
    Ok(match *l {
        Literal::F32(v) => {
            if v.is_finite() {
                let s = format!("{v:?}");
                format!("{s}f")
            } else {
                format!("__int_as_float({:#x})", v.to_bits() as i32)
            }
        }
        Literal::F64(v) => {
            if v.is_finite() {
                format!("{v:?}")
            } else {
                format!("__longlong_as_double({:#x}ll)", v.to_bits() as i64)
            }
        }
        Literal::U32(v) => format!("{v}u"),
        Literal::I32(v) => {
            if v == i32::MIN {
                "(-2147483647 - 1)".into()
            } else if v < 0 {
                format!("({v})")
            } else {
                format!("{v}")
            }
        }
        Literal::U64(v) => format!("{v}ull"),
        Literal::I64(v) => {
            if v == i64::MIN {
                "(-9223372036854775807ll - 1ll)".into()
            } else {
                format!("({v}ll)")
            }
        }
        Literal::Bool(b) => if b { "true" } else { "false" }.into(),
        ref other => return Err(format!("literal {other:?}")),
    })
}

impl<'a> Writer<'a> {
    fn ty(&self, h: Handle<naga::Type>) -> R<String> {
        match &self.m.types[h].inner {
            T::Struct { .. } => Ok(self.struct_name(h)),
            inner => self.inner_ty(inner),
        }
    }

    fn struct_name(&self, h: Handle<naga::Type>) -> String {
        format!("S{}_{}", h.index(), ident(self.m.types[h].name.as_deref().unwrap_or("anon")))
    }

    fn inner_ty(&self, inner: &T) -> R<String> {
        Ok(match *inner {
            T::Scalar(s) | T::Atomic(s) => scalar_name(s)?.to_string(),
            T::Vector { size, scalar } => format!("vec<{}, {}>", scalar_name(scalar)?, vsize(size)),
            T::Array { base, size: ArraySize::Constant(n), .. } => format!("arr<{}, {}>", self.ty(base)?, n),
            T::Array { base, size: ArraySize::Dynamic, .. } => format!("{}*", self.ty(base)?),
            T::Pointer { base, .. } => format!("{}*", self.ty(base)?),
            T::ValuePointer { size: None, scalar, .. } => format!("{}*", scalar_name(scalar)?),
            T::ValuePointer { size: Some(n), scalar, .. } => format!("vec<{}, {}>*", scalar_name(scalar)?, vsize(n)),
            T::Struct { .. } => return Err("anonymous struct type".into()),
            ref other => return Err(format!("type {other:?}")),
        })
    }

    /// Struct definitions with explicit padding to the WGSL offsets, checked by
    /// static_asserts, and a maker function per struct.
    fn structs(&mut self) -> R<()> {
        for (h, t) in self.m.types.iter() {
            let T::Struct { members, span } = &t.inner else { continue };
            let name = self.struct_name(h);
            let mut s = format!("struct {name} {{\n");
            let mut at = 0u32;
            let mut asserts = String::new();
            for (i, mem) in members.iter().enumerate() {
                if let T::Array { size: ArraySize::Dynamic, .. } = self.m.types[mem.ty].inner {
                    return Err("runtime-sized array inside a struct".into());
                }
                if mem.offset > at {
                    let _ = writeln!(s, "    unsigned char _pad{i}[{}];", mem.offset - at);
                }
                let mt = self.ty(mem.ty)?;
                let size = self.layouter[mem.ty].size;
                let _ = writeln!(s, "    {mt} m{i};");
                // explicit padding places member i at its WGSL offset when its C++
                // alignment divides that offset and every member has its WGSL size
                let _ = writeln!(
                    asserts,
                    "static_assert({} % alignof({mt}) == 0 && sizeof({mt}) == {size}, \"WGSL layout of {name}.m{i}\");",
                    mem.offset
                );
                at = mem.offset + size;
            }
            if *span > at {
                let _ = writeln!(s, "    unsigned char _pad_end[{}];", span - at);
            }
            s.push_str("};\n");
            let _ = writeln!(asserts, "static_assert(sizeof({name}) == {span}, \"WGSL layout\");");
            let params: Vec<String> =
                members.iter().enumerate().map(|(i, mem)| Ok(format!("{} a{i}", self.ty(mem.ty)?))).collect::<R<_>>()?;
            let _ = writeln!(s, "FI {name} {name}_make({}) {{\n    {name} r{{}};", params.join(", "));
            for i in 0..members.len() {
                let _ = writeln!(s, "    r.m{i} = a{i};");
            }
            s.push_str("    return r;\n}\n");
            self.out.push_str(&s);
            self.out.push_str(&asserts);
        }
        Ok(())
    }

    /// The Ctx struct (bindings, params, private variables) and workgroup variables.
    fn globals(&mut self) -> R<(Vec<u32>, u32)> {
        let mut storage: Vec<(u32, Handle<naga::GlobalVariable>)> = Vec::new();
        let mut uniform = None;
        for (h, g) in self.m.global_variables.iter() {
            match g.space {
                AddressSpace::Storage { .. } => {
                    let rb = g.binding.as_ref().ok_or("storage variable without binding")?;
                    storage.push((rb.binding, h));
                }
                AddressSpace::Uniform => {
                    if uniform.is_some() {
                        return Err("more than one uniform".into());
                    }
                    uniform = Some(h);
                }
                AddressSpace::WorkGroup => {
                    let name = format!("w_{}", ident(g.name.as_deref().unwrap_or("anon")));
                    let _ = writeln!(self.out, "__shared__ {} {name};", self.ty(g.ty)?);
                    self.globals.insert(h, Global::Workgroup(name));
                }
                AddressSpace::Private => {
                    self.globals.insert(h, Global::Private(format!("p_{}_{}", h.index(), ident(g.name.as_deref().unwrap_or("")))));
                }
                other => return Err(format!("global in address space {other:?}")),
            }
        }
        storage.sort_by_key(|s| s.0);
        let mut ctx = String::from("struct Ctx {\n");
        let mut strides = Vec::new();
        for (k, (_, h)) in storage.iter().enumerate() {
            let g = &self.m.global_variables[*h];
            let ro = match g.space {
                AddressSpace::Storage { access } => !access.contains(naga::StorageAccess::STORE),
                _ => false,
            };
            let (elem, runtime, stride) = match self.m.types[g.ty].inner {
                T::Array { base, size: ArraySize::Dynamic, stride } => (self.ty(base)?, true, stride),
                _ => (self.ty(g.ty)?, false, self.layouter[g.ty].size),
            };
            if runtime {
                let _ = writeln!(self.out, "static_assert(sizeof({elem}) == {stride}, \"WGSL array stride\");");
            }
            let _ = writeln!(ctx, "    {elem}* b{k};\n    uint n{k};");
            strides.push(stride);
            let guarded = g.name.as_ref().is_some_and(|n| self.guarded.contains(n));
            self.globals.insert(*h, Global::Storage { k, runtime, ro, guarded });
        }
        let mut params_size = 0;
        if let Some(h) = uniform {
            let g = &self.m.global_variables[h];
            let _ = writeln!(ctx, "    {} u;", self.ty(g.ty)?);
            params_size = self.layouter[g.ty].size;
            self.globals.insert(h, Global::Uniform);
        }
        for (h, g) in self.m.global_variables.iter() {
            if let Some(Global::Private(name)) = self.globals.get(&h) {
                let _ = writeln!(ctx, "    {} {name};", self.ty(g.ty)?);
            }
        }
        ctx.push_str("};\n");
        let nb = storage.len();
        let _ = writeln!(
            ctx,
            "struct Args {{\n    ullong ptr[{}];\n    uint len[{}];\n    alignas(16) unsigned char params[{}];\n}};",
            nb.max(1),
            nb.max(1),
            params_size.max(1)
        );
        if nb == 0 {
            return Err("a kernel without storage bindings".into());
        }
        // the host side serializes this struct (`CudaKernel::args`): the same layout
        let params_offset = (12 * nb).div_ceil(16) * 16;
        let size = (params_offset + params_size.max(1) as usize).div_ceil(16) * 16;
        let _ = writeln!(
            ctx,
            "static_assert(sizeof(Args) == {size} && sizeof(((Args*)0)->ptr) + sizeof(((Args*)0)->len) <= {params_offset}, \"Args layout\");"
        );
        self.out.push_str(&ctx);
        Ok((strides, params_size))
    }

    fn global_const(&self, h: Handle<naga::Expression>) -> R<String> {
        let e = &self.m.global_expressions[h];
        Ok(match e {
            E::Literal(l) => literal(l)?,
            E::Constant(c) => self.global_const(self.m.constants[*c].init)?,
            E::ZeroValue(t) => format!("{}{{}}", self.ty(*t)?),
            E::Compose { ty, components } => {
                let comps: Vec<String> = components.iter().map(|c| self.global_const(*c)).collect::<R<_>>()?;
                self.compose(*ty, comps, None)?
            }
            E::Splat { size, value } => format!("_splat<{}>({})", vsize(*size), self.global_const(*value)?),
            other => return Err(format!("constant expression {other:?}")),
        })
    }

    /// Compose text; `comp_types` gives each component's type when components may be
    /// vectors (to be flattened).
    fn compose(&self, ty: Handle<naga::Type>, comps: Vec<String>, comp_sizes: Option<Vec<u32>>) -> R<String> {
        let name = self.ty(ty)?;
        Ok(match &self.m.types[ty].inner {
            T::Vector { .. } => {
                let mut flat = Vec::new();
                for (i, c) in comps.iter().enumerate() {
                    let n = comp_sizes.as_ref().map_or(1, |s| s[i]);
                    if n == 1 {
                        flat.push(c.clone());
                    } else {
                        for comp in COMP.iter().take(n as usize) {
                            flat.push(format!("({c}).{comp}"));
                        }
                    }
                }
                format!("{name}{{{}}}", flat.join(", "))
            }
            T::Array { .. } => format!("{name}{{{{{}}}}}", comps.join(", ")),
            T::Struct { .. } => format!("{name}_make({})", comps.join(", ")),
            other => return Err(format!("compose of {other:?}")),
        })
    }

    fn function(
        &mut self,
        handle: Option<Handle<naga::Function>>,
        f: &naga::Function,
        fi: &naga::valid::FunctionInfo,
        ep: Option<&naga::EntryPoint>,
    ) -> R<()> {
        let mut fun = Fun { f, fi, names: HashMap::new(), args: Vec::new(), indent: 1 };
        let mut head = String::new();
        if let Some(ep) = ep {
            if ep.stage != naga::ShaderStage::Compute {
                return Err("not a compute entry point".into());
            }
            let [x, y, z] = ep.workgroup_size;
            let wg = x * y * z;
            let bounds = match self.opts.min_blocks {
                Some(b) => format!("{wg}, {b}"),
                None => format!("{wg}"),
            };
            let _ = writeln!(head, "extern \"C\" __global__ void __launch_bounds__({bounds}) {}(const Args args) {{", ep.name);
            head.push_str("    Ctx ctx;\n");
            for (h, g) in self.globals.iter() {
                if let Global::Storage { k, .. } = g {
                    let _ = writeln!(
                        head,
                        "    ctx.b{k} = ({}*)args.ptr[{k}];\n    ctx.n{k} = args.len[{k}];",
                        match self.m.types[self.m.global_variables[*h].ty].inner {
                            T::Array { base, size: ArraySize::Dynamic, .. } => self.ty(base)?,
                            _ => self.ty(self.m.global_variables[*h].ty)?,
                        }
                    );
                }
            }
            if self.globals.values().any(|g| matches!(g, Global::Uniform)) {
                head.push_str("    ctx.u = *(const decltype(ctx.u)*)args.params;\n");
            }
            for (h, g) in self.m.global_variables.iter() {
                if let Some(Global::Private(name)) = self.globals.get(&h) {
                    let init = match g.init {
                        Some(i) => self.global_const(i)?,
                        None => format!("{}{{}}", self.ty(g.ty)?),
                    };
                    let _ = writeln!(head, "    ctx.{name} = {init};");
                }
            }
            head.push_str("    const uint _lii = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n");
            // WGSL zero-initializes workgroup memory; the crate's kernels do not need it
            // (`kernels::workgroup_zero_init`: only with FZWGPU_WG_ZERO_INIT=on)
            let wgvars: Vec<String> =
                self.globals.values().filter_map(|g| if let Global::Workgroup(n) = g { Some(n.clone()) } else { None }).collect();
            if !wgvars.is_empty() && super::workgroup_zero_init() {
                for n in &wgvars {
                    let _ = writeln!(head, "    for (uint i = _lii; i < sizeof({n}) / 4u; i += {wg}u) {{ ((uint*)&{n})[i] = 0u; }}");
                }
                head.push_str("    __syncthreads();\n");
            }
            for (i, a) in ep.function.arguments.iter().enumerate() {
                let Some(naga::Binding::BuiltIn(b)) = &a.binding else {
                    return Err(format!("entry-point argument {i} is not a builtin"));
                };
                use naga::BuiltIn as Bi;
                let text = match b {
                    Bi::LocalInvocationIndex => "_lii".to_string(),
                    Bi::WorkGroupId => "vec<uint, 3>{blockIdx.x, blockIdx.y, blockIdx.z}".into(),
                    Bi::NumWorkGroups => "vec<uint, 3>{gridDim.x, gridDim.y, gridDim.z}".into(),
                    Bi::LocalInvocationId => "vec<uint, 3>{threadIdx.x, threadIdx.y, threadIdx.z}".into(),
                    Bi::GlobalInvocationId => "vec<uint, 3>{blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z}".into(),
                    Bi::SubgroupInvocationId => "(_lii & 31u)".into(),
                    Bi::SubgroupSize => "32u".into(),
                    Bi::SubgroupId => "(_lii >> 5)".into(),
                    Bi::NumSubgroups => format!("{}u", wg.div_ceil(32)),
                    other => return Err(format!("builtin {other:?}")),
                };
                let name = format!("_a{i}");
                let _ = writeln!(head, "    const auto {name} = {text};");
                fun.args.push(name);
            }
        } else {
            let f_name = self.fn_name(handle.ok_or("helper without handle")?);
            let ret = match &f.result {
                Some(r) => self.ty(r.ty)?,
                None => "void".into(),
            };
            let mut params = vec!["Ctx& ctx".to_string()];
            for (i, a) in f.arguments.iter().enumerate() {
                params.push(format!("{} a{i}", self.ty(a.ty)?));
                fun.args.push(match self.m.types[a.ty].inner {
                    T::Pointer { .. } => format!("(*a{i})"),
                    _ => format!("a{i}"),
                });
            }
            let _ = writeln!(head, "FI {ret} {f_name}({}) {{", params.join(", "));
        }
        for (h, l) in f.local_variables.iter() {
            let name = format!("l{}_{}", h.index(), ident(l.name.as_deref().unwrap_or("")));
            let init = match l.init {
                Some(i) => self.expr(&fun, i)?,
                None => format!("{}{{}}", self.ty(l.ty)?),
            };
            let _ = writeln!(head, "    {} {name} = {init};", self.ty(l.ty)?);
        }
        self.out.push_str(&head);
        let mut body = String::new();
        self.block(&mut fun, &f.body, &mut body)?;
        self.out.push_str(&body);
        self.out.push_str("}\n");
        Ok(())
    }

    fn fn_name(&self, h: Handle<naga::Function>) -> String {
        format!("f{}_{}", h.index(), ident(self.m.functions[h].name.as_deref().unwrap_or("")))
    }

    fn type_of<'b>(&'b self, fun: &'b Fun, h: Handle<naga::Expression>) -> &'b T {
        fun.fi[h].ty.inner_with(&self.m.types)
    }

    fn is_pointer(&self, fun: &Fun, h: Handle<naga::Expression>) -> bool {
        matches!(self.type_of(fun, h), T::Pointer { .. } | T::ValuePointer { .. })
    }

    /// The type a pointer expression points to (or the value's own type).
    fn pointee<'b>(&'b self, fun: &'b Fun, h: Handle<naga::Expression>) -> PointeeKind<'b> {
        match self.type_of(fun, h) {
            T::Pointer { base, .. } => PointeeKind::Ty(&self.m.types[*base].inner),
            T::ValuePointer { size: Some(_), .. } => PointeeKind::Vector,
            T::ValuePointer { size: None, .. } => PointeeKind::Scalar,
            other => PointeeKind::Ty(other),
        }
    }

    /// The storage global a pointer expression is rooted in.
    fn root_global(&self, fun: &Fun, mut h: Handle<naga::Expression>) -> Option<Global> {
        loop {
            match fun.f.expressions[h] {
                E::Access { base, .. } | E::AccessIndex { base, .. } => h = base,
                E::GlobalVariable(g) => return self.globals.get(&g).cloned(),
                _ => return None,
            }
        }
    }

    /// The condition under which a pointer into a storage binding's runtime array lies
    /// inside the binding's window (None: not such a pointer, or checks off).
    fn oob_guard(&self, fun: &Fun, mut h: Handle<naga::Expression>) -> R<Option<String>> {
        if !self.opts.bounds_checks {
            return Ok(None);
        }
        loop {
            let (base, index) = match fun.f.expressions[h] {
                E::Access { base, index } => (base, self.expr(fun, index)?),
                E::AccessIndex { base, index } => (base, format!("{index}u")),
                _ => return Ok(None),
            };
            if let E::GlobalVariable(g) = fun.f.expressions[base] {
                if let Some(Global::Storage { k, runtime: true, guarded: false, .. }) = self.globals.get(&g) {
                    return Ok(Some(format!("(({index}) < ctx.n{k})")));
                }
            }
            h = base;
        }
    }

    /// The storage binding `h` (an expression) is, when it is a runtime array binding.
    fn storage_runtime(&self, fun: &Fun, h: Handle<naga::Expression>) -> Option<usize> {
        match fun.f.expressions[h] {
            E::GlobalVariable(g) => match self.globals.get(&g) {
                Some(Global::Storage { k, runtime: true, guarded: false, .. }) => Some(*k),
                _ => None,
            },
            _ => None,
        }
    }

    fn expr(&self, fun: &Fun, h: Handle<naga::Expression>) -> R<String> {
        if let Some(n) = fun.names.get(&h) {
            return Ok(n.clone());
        }
        self.expr_text(fun, h)
    }

    fn expr_text(&self, fun: &Fun, h: Handle<naga::Expression>) -> R<String> {
        let ex = |x| self.expr(fun, x);
        Ok(match &fun.f.expressions[h] {
            E::Literal(l) => literal(l)?,
            E::Constant(c) => self.global_const(self.m.constants[*c].init)?,
            E::ZeroValue(t) => format!("{}{{}}", self.ty(*t)?),
            E::Compose { ty, components } => {
                let comps: Vec<String> = components.iter().map(|c| ex(*c)).collect::<R<_>>()?;
                let sizes = components
                    .iter()
                    .map(|c| match self.type_of(fun, *c) {
                        T::Vector { size, .. } => vsize(*size),
                        _ => 1,
                    })
                    .collect();
                self.compose(*ty, comps, Some(sizes))?
            }
            E::Access { base, index } => {
                let b = ex(*base)?;
                let i = ex(*index)?;
                match self.pointee(fun, *base) {
                    // storage windows: reads past the end give zero and writes there
                    // are dropped (robustBufferAccess2, what the CPU twins implement),
                    // guarded where the access is loaded or stored (`oob_guard`)
                    PointeeKind::Ty(T::Array { size: ArraySize::Dynamic, .. }) => match self.storage_runtime(fun, *base) {
                        Some(k) if self.opts.bounds_checks && self.opts.clamp_loads => format!("{b}[_ci({i}, ctx.n{k})]"),
                        _ => format!("{b}[{i}]"),
                    },
                    PointeeKind::Ty(T::Array { size: ArraySize::Constant(n), .. }) if self.opts.bounds_checks => {
                        format!("{b}.a[_ci({i}, {n}u)]")
                    }
                    PointeeKind::Ty(T::Array { .. }) => format!("{b}.a[{i}]"),
                    PointeeKind::Ty(T::Vector { .. }) | PointeeKind::Vector => format!("{b}[{i}]"),
                    PointeeKind::Ty(other) => return Err(format!("dynamic access into {other:?}")),
                    PointeeKind::Scalar => return Err("dynamic access into a scalar".into()),
                }
            }
            E::AccessIndex { base, index } => {
                let b = ex(*base)?;
                match self.pointee(fun, *base) {
                    PointeeKind::Ty(T::Array { size: ArraySize::Dynamic, .. }) => match self.storage_runtime(fun, *base) {
                        Some(k) if self.opts.bounds_checks && self.opts.clamp_loads => {
                            format!("{b}[_ci({index}u, ctx.n{k})]")
                        }
                        _ => format!("{b}[{index}u]"),
                    },
                    PointeeKind::Ty(T::Array { .. }) => format!("{b}.a[{index}]"),
                    PointeeKind::Ty(T::Vector { .. }) | PointeeKind::Vector => {
                        format!("{b}.{}", COMP.get(*index as usize).ok_or("vector index out of range")?)
                    }
                    PointeeKind::Ty(T::Struct { .. }) => format!("{b}.m{index}"),
                    PointeeKind::Ty(other) => return Err(format!("index into {other:?}")),
                    PointeeKind::Scalar => return Err("index into a scalar".into()),
                }
            }
            E::Splat { size, value } => format!("_splat<{}>({})", vsize(*size), ex(*value)?),
            E::Swizzle { size, vector, pattern } => {
                let v = ex(*vector)?;
                let T::Vector { scalar, .. } = self.type_of(fun, *vector) else { return Err("swizzle of a non-vector".into()) };
                let comps: Vec<String> =
                    pattern.iter().take(vsize(*size) as usize).map(|p| format!("({v}).{}", COMP[*p as usize])).collect();
                format!("vec<{}, {}>{{{}}}", scalar_name(*scalar)?, vsize(*size), comps.join(", "))
            }
            E::FunctionArgument(i) => fun.args.get(*i as usize).cloned().ok_or("argument out of range")?,
            E::GlobalVariable(g) => match self.globals.get(g).ok_or("unknown global")? {
                Global::Storage { k, runtime: true, .. } => format!("ctx.b{k}"),
                Global::Storage { k, runtime: false, .. } => format!("(*ctx.b{k})"),
                Global::Uniform => "ctx.u".into(),
                Global::Workgroup(n) => n.clone(),
                Global::Private(n) => format!("ctx.{n}"),
            },
            E::LocalVariable(l) => {
                format!("l{}_{}", l.index(), ident(fun.f.local_variables[*l].name.as_deref().unwrap_or("")))
            }
            E::Load { pointer } => {
                let p = ex(*pointer)?;
                match self.pointee(fun, *pointer) {
                    PointeeKind::Ty(T::Atomic(_)) => format!("_aload(&{p})"),
                    _ => {
                        let ro = matches!(self.root_global(fun, *pointer), Some(Global::Storage { ro: true, .. }));
                        let v = if ro && self.opts.ldg { format!("_ldg(&{p})") } else { p };
                        match self.oob_guard(fun, *pointer)? {
                            Some(c) if self.opts.clamp_loads => format!("_zs({c}, {v})"),
                            Some(c) => format!("({c} ? {v} : {}{{}})", self.inner_ty(self.type_of(fun, h))?),
                            None => v,
                        }
                    }
                }
            }
            E::Unary { op, expr } => {
                let x = ex(*expr)?;
                let sint = self.scalar_of(fun, *expr).map(|s| s.kind == ScalarKind::Sint).unwrap_or(false);
                match op {
                    naga::UnaryOperator::Negate if sint => format!("_ineg({x})"),
                    naga::UnaryOperator::Negate => format!("(-{x})"),
                    naga::UnaryOperator::LogicalNot => format!("(!{x})"),
                    naga::UnaryOperator::BitwiseNot => format!("(~{x})"),
                }
            }
            E::Binary { op, left, right } => {
                let l = ex(*left)?;
                let r = ex(*right)?;
                let s = self.scalar_of(fun, *left).ok_or("binary operation on a non-numeric type")?;
                let scalar_bool = s.kind == ScalarKind::Bool && matches!(self.type_of(fun, *left), T::Scalar(_));
                let sint = s.kind == ScalarKind::Sint;
                let op_s = match op {
                    B::Add if sint => return Ok(format!("_iadd({l}, {r})")),
                    B::Subtract if sint => return Ok(format!("_isub({l}, {r})")),
                    B::Multiply if sint => return Ok(format!("_imul({l}, {r})")),
                    B::Divide => return Ok(format!("_div({l}, {r})")),
                    B::Modulo => return Ok(format!("_mod({l}, {r})")),
                    B::ShiftLeft => return Ok(format!("_shl({l}, {r})")),
                    B::ShiftRight => return Ok(format!("_shr({l}, {r})")),
                    B::Add => "+",
                    B::Subtract => "-",
                    B::Multiply => "*",
                    B::Equal => "==",
                    B::NotEqual => "!=",
                    B::Less => "<",
                    B::LessEqual => "<=",
                    B::Greater => ">",
                    B::GreaterEqual => ">=",
                    B::And => "&",
                    B::ExclusiveOr => "^",
                    B::InclusiveOr => "|",
                    B::LogicalAnd => "&&",
                    B::LogicalOr => "||",
                };
                if scalar_bool && matches!(op, B::And | B::ExclusiveOr | B::InclusiveOr) {
                    format!("((bool)({l} {op_s} {r}))")
                } else {
                    format!("({l} {op_s} {r})")
                }
            }
            E::Select { condition, accept, reject } => {
                format!("_select({}, {}, {})", ex(*reject)?, ex(*accept)?, ex(*condition)?)
            }
            E::Relational { fun: rf, argument } => {
                let a = ex(*argument)?;
                match rf {
                    naga::RelationalFunction::All => format!("_all({a})"),
                    naga::RelationalFunction::Any => format!("_any({a})"),
                    naga::RelationalFunction::IsNan => format!("_isnan({a})"),
                    naga::RelationalFunction::IsInf => format!("_isinf({a})"),
                }
            }
            E::Math { fun: mf, arg, arg1, arg2, arg3 } => {
                let mut args = vec![ex(*arg)?];
                for a in [arg1, arg2, arg3].into_iter().flatten() {
                    args.push(ex(*a)?);
                }
                let name = match mf {
                    M::Abs => "_abs",
                    M::Min => "_min",
                    M::Max => "_max",
                    M::Clamp => "_clamp",
                    M::Floor => "_floor",
                    M::Ceil => "_ceil",
                    M::Round => "_round",
                    M::Trunc => "_trunc",
                    M::Fract => "_fract",
                    M::Sqrt => "_sqrt",
                    M::Exp2 => "_exp2",
                    M::Log2 => "_log2",
                    M::Pow => "_pow",
                    M::Fma => "_fma",
                    M::Ldexp => "_ldexp",
                    M::Sign => "_sign",
                    M::Dot => "_dot",
                    M::CountOneBits => "_popc",
                    M::CountLeadingZeros => "_clz",
                    M::CountTrailingZeros => "_ctz",
                    M::FirstLeadingBit => "_flb",
                    M::FirstTrailingBit => "_ftb",
                    M::ReverseBits => "_rev",
                    M::ExtractBits => "_extract",
                    M::InsertBits => "_insert",
                    other => return Err(format!("math function {other:?}")),
                };
                format!("{name}({})", args.join(", "))
            }
            E::As { expr, kind, convert } => {
                let x = ex(*expr)?;
                match convert {
                    Some(width) => {
                        let target = scalar_name(naga::Scalar { kind: *kind, width: *width })?;
                        format!("_cvt_{target}({x})")
                    }
                    None => {
                        let target = self.inner_ty(self.type_of(fun, h))?;
                        format!("_bitcast<{target}>({x})")
                    }
                }
            }
            E::ArrayLength(p) => match self.root_global(fun, *p) {
                Some(Global::Storage { k, runtime: true, .. }) => format!("ctx.n{k}"),
                _ => return Err("arrayLength of something other than a storage binding".into()),
            },
            E::CallResult(_)
            | E::AtomicResult { .. }
            | E::WorkGroupUniformLoadResult { .. }
            | E::SubgroupBallotResult
            | E::SubgroupOperationResult { .. } => return Err(format!("result expression {h:?} used before its statement")),
            other => return Err(format!("expression {other:?}")),
        })
    }

    fn scalar_of(&self, fun: &Fun, h: Handle<naga::Expression>) -> Option<naga::Scalar> {
        match self.type_of(fun, h) {
            T::Scalar(s) | T::Vector { scalar: s, .. } | T::Atomic(s) => Some(*s),
            _ => None,
        }
    }

    fn line(fun: &Fun, out: &mut String, s: &str) {
        for _ in 0..fun.indent {
            out.push_str("    ");
        }
        out.push_str(s);
        out.push('\n');
    }

    /// Bind the result of a statement to a name.
    fn bind(&self, fun: &mut Fun, out: &mut String, h: Handle<naga::Expression>, text: &str) {
        let name = format!("_e{}", h.index());
        Self::line(fun, out, &format!("const auto {name} = {text};"));
        fun.names.insert(h, name);
    }

    fn block(&self, fun: &mut Fun, b: &naga::Block, out: &mut String) -> R<()> {
        for st in b.iter() {
            self.statement(fun, st, out)?;
        }
        Ok(())
    }

    fn nested(&self, fun: &mut Fun, b: &naga::Block, out: &mut String) -> R<()> {
        fun.indent += 1;
        let r = self.block(fun, b, out);
        fun.indent -= 1;
        r
    }

    fn statement(&self, fun: &mut Fun, st: &naga::Statement, out: &mut String) -> R<()> {
        match st {
            S::Emit(range) => {
                for h in range.clone() {
                    if self.is_pointer(fun, h) {
                        continue;
                    }
                    let text = self.expr_text(fun, h)?;
                    let suffix = fun.f.named_expressions.get(&h).map(|n| format!("_{}", ident(n))).unwrap_or_default();
                    let name = format!("_e{}{suffix}", h.index());
                    Self::line(fun, out, &format!("const auto {name} = {text};"));
                    fun.names.insert(h, name);
                }
            }
            S::Block(b) => {
                Self::line(fun, out, "{");
                self.nested(fun, b, out)?;
                Self::line(fun, out, "}");
            }
            S::If { condition, accept, reject } => {
                let c = self.expr(fun, *condition)?;
                Self::line(fun, out, &format!("if ({c}) {{"));
                self.nested(fun, accept, out)?;
                if !reject.is_empty() {
                    Self::line(fun, out, "} else {");
                    self.nested(fun, reject, out)?;
                }
                Self::line(fun, out, "}");
            }
            S::Switch { selector, cases } => {
                let sel = self.expr(fun, *selector)?;
                Self::line(fun, out, &format!("switch ({sel}) {{"));
                for c in cases {
                    let label = match c.value {
                        naga::SwitchValue::I32(v) => format!("case {}:", literal(&Literal::I32(v))?),
                        naga::SwitchValue::U32(v) => format!("case {v}u:"),
                        naga::SwitchValue::Default => "default:".into(),
                    };
                    Self::line(fun, out, &format!("{label} {{"));
                    self.nested(fun, &c.body, out)?;
                    if !c.fall_through {
                        fun.indent += 1;
                        Self::line(fun, out, "break;");
                        fun.indent -= 1;
                    }
                    Self::line(fun, out, "}");
                }
                Self::line(fun, out, "}");
            }
            S::Loop { body, continuing, break_if } => {
                if continuing.is_empty() && break_if.is_none() {
                    Self::line(fun, out, "for (;;) {");
                    self.nested(fun, body, out)?;
                    Self::line(fun, out, "}");
                } else {
                    let gate = format!("_gate{}", out.len());
                    Self::line(fun, out, &format!("bool {gate} = true;"));
                    Self::line(fun, out, "for (;;) {");
                    fun.indent += 1;
                    Self::line(fun, out, &format!("if (!{gate}) {{"));
                    self.nested(fun, continuing, out)?;
                    if let Some(bi) = break_if {
                        let c = self.expr(fun, *bi)?;
                        fun.indent += 1;
                        Self::line(fun, out, &format!("if ({c}) {{ break; }}"));
                        fun.indent -= 1;
                    }
                    Self::line(fun, out, "}");
                    Self::line(fun, out, &format!("{gate} = false;"));
                    self.block(fun, body, out)?;
                    fun.indent -= 1;
                    Self::line(fun, out, "}");
                }
            }
            S::Break => Self::line(fun, out, "break;"),
            S::Continue => Self::line(fun, out, "continue;"),
            S::Return { value } => match value {
                Some(v) => {
                    let v = self.expr(fun, *v)?;
                    Self::line(fun, out, &format!("return {v};"));
                }
                None => Self::line(fun, out, "return;"),
            },
            S::ControlBarrier(b) => {
                if b.intersects(naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE | naga::Barrier::TEXTURE) {
                    Self::line(fun, out, "__syncthreads();");
                } else {
                    Self::line(fun, out, "__syncwarp();");
                }
            }
            S::MemoryBarrier(b) => {
                if b.contains(naga::Barrier::STORAGE) {
                    Self::line(fun, out, "__threadfence();");
                } else {
                    Self::line(fun, out, "__threadfence_block();");
                }
            }
            S::Store { pointer, value } => {
                let p = self.expr(fun, *pointer)?;
                let v = self.expr(fun, *value)?;
                let st = match self.pointee(fun, *pointer) {
                    PointeeKind::Ty(T::Atomic(_)) => format!("_astore(&{p}, {v});"),
                    _ => format!("{p} = {v};"),
                };
                match self.oob_guard(fun, *pointer)? {
                    Some(c) => Self::line(fun, out, &format!("if ({c}) {{ {st} }}")),
                    None => Self::line(fun, out, &st),
                }
            }
            S::Atomic { pointer, fun: af, value, result } => {
                let p = self.expr(fun, *pointer)?;
                let v = self.expr(fun, *value)?;
                let call = match af {
                    naga::AtomicFunction::Add => format!("atomicAdd(&{p}, {v})"),
                    naga::AtomicFunction::Subtract => format!("atomicSub(&{p}, {v})"),
                    naga::AtomicFunction::And => format!("atomicAnd(&{p}, {v})"),
                    naga::AtomicFunction::ExclusiveOr => format!("atomicXor(&{p}, {v})"),
                    naga::AtomicFunction::InclusiveOr => format!("atomicOr(&{p}, {v})"),
                    naga::AtomicFunction::Min => format!("atomicMin(&{p}, {v})"),
                    naga::AtomicFunction::Max => format!("atomicMax(&{p}, {v})"),
                    naga::AtomicFunction::Exchange { compare: None } => format!("atomicExch(&{p}, {v})"),
                    naga::AtomicFunction::Exchange { compare: Some(_) } => {
                        return Err("atomicCompareExchangeWeak".into());
                    }
                };
                match (result, self.oob_guard(fun, *pointer)?) {
                    (Some(r), Some(c)) => {
                        let t = self.inner_ty(self.type_of(fun, *r))?;
                        self.bind(fun, out, *r, &format!("{c} ? {call} : {t}{{}}"))
                    }
                    (Some(r), None) => self.bind(fun, out, *r, &call),
                    (None, Some(c)) => Self::line(fun, out, &format!("if ({c}) {{ {call}; }}")),
                    (None, None) => Self::line(fun, out, &format!("{call};")),
                }
            }
            S::WorkGroupUniformLoad { pointer, result } => {
                let p = self.expr(fun, *pointer)?;
                Self::line(fun, out, "__syncthreads();");
                self.bind(fun, out, *result, &p);
                Self::line(fun, out, "__syncthreads();");
            }
            S::Call { function, arguments, result } => {
                let callee = &self.m.functions[*function];
                let mut args = vec!["ctx".to_string()];
                for (i, a) in arguments.iter().enumerate() {
                    let t = self.expr(fun, *a)?;
                    let by_ptr = matches!(self.m.types[callee.arguments[i].ty].inner, T::Pointer { .. });
                    args.push(if by_ptr { format!("&{t}") } else { t });
                }
                let call = format!("{}({})", self.fn_name(*function), args.join(", "));
                match result {
                    Some(r) => self.bind(fun, out, *r, &call),
                    None => Self::line(fun, out, &format!("{call};")),
                }
            }
            S::SubgroupBallot { result, predicate } => {
                let p = match predicate {
                    Some(p) => self.expr(fun, *p)?,
                    None => "true".into(),
                };
                self.bind(fun, out, *result, &format!("_ballot({p})"));
            }
            S::SubgroupGather { mode, argument, result } => {
                let a = self.expr(fun, *argument)?;
                let call = match mode {
                    naga::GatherMode::BroadcastFirst => format!("_bcast_first({a})"),
                    naga::GatherMode::Broadcast(i) | naga::GatherMode::Shuffle(i) => {
                        format!("_shfl({a}, {})", self.expr(fun, *i)?)
                    }
                    naga::GatherMode::ShuffleDown(i) => format!("_shfl_down({a}, {})", self.expr(fun, *i)?),
                    naga::GatherMode::ShuffleUp(i) => format!("_shfl_up({a}, {})", self.expr(fun, *i)?),
                    naga::GatherMode::ShuffleXor(i) => format!("_shfl_xor({a}, {})", self.expr(fun, *i)?),
                    other => return Err(format!("subgroup gather {other:?}")),
                };
                self.bind(fun, out, *result, &call);
            }
            S::SubgroupCollectiveOperation { op, collective_op, argument, result } => {
                use naga::{CollectiveOperation as C, SubgroupOperation as O};
                let a = self.expr(fun, *argument)?;
                let call = match (collective_op, op) {
                    (C::Reduce, O::All) => format!("_sg_all({a})"),
                    (C::Reduce, O::Any) => format!("_sg_any({a})"),
                    (C::Reduce, O::Add) => format!("_sg_add({a})"),
                    (C::Reduce, O::Mul) => format!("_sg_mul({a})"),
                    (C::Reduce, O::Min) => format!("_sg_min({a})"),
                    (C::Reduce, O::Max) => format!("_sg_max({a})"),
                    (C::Reduce, O::And) => format!("_sg_and({a})"),
                    (C::Reduce, O::Or) => format!("_sg_or({a})"),
                    (C::Reduce, O::Xor) => format!("_sg_xor({a})"),
                    (C::InclusiveScan, O::Add) => format!("_sg_iscan_add({a})"),
                    (C::InclusiveScan, O::Mul) => format!("_sg_iscan_mul({a})"),
                    (C::ExclusiveScan, O::Add) => format!("_sg_escan_add({a})"),
                    (C::ExclusiveScan, O::Mul) => format!("_sg_escan_mul({a})"),
                    other => return Err(format!("subgroup operation {other:?}")),
                };
                self.bind(fun, out, *result, &call);
            }
            other => return Err(format!("statement {other:?}")),
        }
        Ok(())
    }
}

enum PointeeKind<'b> {
    Ty(&'b T),
    Vector,
    Scalar,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The argument blob puts addresses, element counts and params where the generated
    /// `Args` struct has them (its size is static_asserted in the source).
    #[test]
    fn args_blob_layout() {
        let k = cuda_kernel(Kernel::SzxUnpack, Variant { f64: false, subgroup: true, coalesce: false }, CudaOptions::default()).unwrap();
        let nb = k.binding_strides.len();
        assert!(k.source.contains(&format!("static_assert(sizeof(Args) == {}", k.args_size())));
        let addrs: Vec<u64> = (0..nb as u64).map(|i| 0x1000 * (i + 1)).collect();
        let sizes: Vec<u64> = k.binding_strides.iter().map(|s| 64 * *s as u64).collect();
        let params: Vec<u8> = (0..k.params_size).map(|i| i as u8).collect();
        let words = k.args(&addrs, &sizes, &params).unwrap();
        let a: &[u8] = bytemuck::cast_slice(&words);
        assert_eq!(a.len(), k.args_size());
        for i in 0..nb {
            assert_eq!(u64::from_le_bytes(a[8 * i..8 * i + 8].try_into().unwrap()), addrs[i]);
            assert_eq!(u32::from_le_bytes(a[8 * nb + 4 * i..8 * nb + 4 * i + 4].try_into().unwrap()), 64);
        }
        assert_eq!(&a[k.params_offset()..k.params_offset() + params.len()], &params[..]);
        assert!(k.args(&addrs[1..], &sizes[1..], &params).is_err());
    }

    /// Every variant of every kernel translates (compiling it needs NVRTC: the cuda
    /// backend's tests do that).
    #[test]
    fn every_kernel_translates() {
        for k in Kernel::ALL {
            for (f64, subgroup, coalesce) in (0..8).map(|b| (b & 1 != 0, b & 2 != 0, b & 4 != 0)) {
                let v = Variant { f64, subgroup, coalesce };
                let c = cuda_kernel(k, v, CudaOptions::default()).unwrap_or_else(|e| panic!("{e}"));
                // the source keys the on-disk cache: the same on every translation
                // (an unordered map once made it vary, and every process compiled anew)
                let again = cuda_kernel(k, v, CudaOptions::default()).unwrap();
                assert!(again.source == c.source, "{}: translation is not deterministic", k.name());
                assert_eq!(c.entry, k.name());
                let r = kernels::reflect(k, v).unwrap();
                assert_eq!(c.workgroup_size, r.workgroup_size);
                assert_eq!(c.params_size, r.params_size);
                assert_eq!(c.binding_strides.len(), r.bindings.iter().filter(|b| **b != kernels::BindKind::Uniform).count());
            }
        }
    }

    /// `// cuda-guarded:` drops the per-access checks of the named bindings and only
    /// theirs; a name that is not a storage binding is an error, not a silent no-op.
    #[test]
    fn self_guarded_bindings_lose_only_their_checks() {
        for f64 in [false, true] {
            let v = Variant { f64, subgroup: true, coalesce: false };
            let src = kernels::shader_file(Kernel::SzxUnpack.file()).unwrap();
            assert_eq!(self_guarded(src), ["out", "payload_u", "payload_f"]);
            let c = cuda_kernel(Kernel::SzxUnpack, v, CudaOptions::default()).unwrap();
            // storage bindings in order: block_meta 0, offsets 1, payload_u 2, payload_f 3, out 4
            for k in [0, 1] {
                assert!(c.source.contains(&format!("< ctx.n{k})")), "binding {k} lost its checks");
            }
            for k in [2, 3, 4] {
                assert!(!c.source.contains(&format!("< ctx.n{k})")), "guarded binding {k} still checked");
            }
            // the kernel's own guard reads the lengths
            assert!(c.source.contains("ctx.n4") && c.source.contains("ctx.n2"));
        }
        let (m, info) = kernels::parse_validated(Kernel::SzxUnpack, Variant { f64: false, subgroup: true, coalesce: false }).unwrap();
        let e = translate(&m, &info, "szx_unpack", CudaOptions::default(), &["nonesuch".into()]).unwrap_err();
        assert!(e.contains("nonesuch"), "{e}");
    }

    /// A kernel's `// cuda-min-blocks:` line becomes its launch bound; the
    /// FZWGPU_CUDA_MINBLOCKS option overrides it; kernels without one have none.
    #[test]
    fn kernels_own_launch_bounds() {
        let v = Variant { f64: false, subgroup: true, coalesce: false };
        let src = kernels::shader_file(Kernel::SzxEncode8.file()).unwrap();
        assert_eq!(min_blocks_of(src), Ok(Some(4)));
        let c = cuda_kernel(Kernel::SzxEncode8, v, CudaOptions::default()).unwrap();
        assert!(c.source.contains("__launch_bounds__(256, 4)"));
        let c = cuda_kernel(Kernel::SzxEncode8, v, CudaOptions { min_blocks: Some(3), ..Default::default() }).unwrap();
        assert!(c.source.contains("__launch_bounds__(256, 3)"));
        let c = cuda_kernel(Kernel::SzxEncode, v, CudaOptions::default()).unwrap();
        assert!(c.source.contains("__launch_bounds__(256)"));
        for k in Kernel::ALL {
            assert!(min_blocks_of(kernels::shader_file(k.file()).unwrap()).is_ok(), "{}", k.name());
        }
        for bad in
            ["// cuda-min-blocks: 0", "// cuda-min-blocks: four", "  // cuda-min-blocks:", "// cuda-min-blocks: 2\n// cuda-min-blocks: 3"]
        {
            assert!(min_blocks_of(bad).is_err(), "{bad}");
        }
        assert_eq!(min_blocks_of("// cuda-min-blocks: 2\nfn f() {}"), Ok(Some(2)));
    }
}
