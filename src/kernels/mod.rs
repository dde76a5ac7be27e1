//! The kernel registry: every compute kernel has one WGSL file (the single source of
//! truth for its bindings, workgroup size and params struct) and one CPU twin of the
//! same name. Backends address kernels by [`Kernel`] + [`Variant`]; stages never see a
//! backend type. Binding kinds and workgroup sizes are reflected from the WGSL with
//! naga, so Rust never restates them.

pub mod chain;
pub mod cuda;
pub mod params;
pub mod probe;
pub mod range;
pub mod scan;

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Every compute kernel of the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    ScanReduce,
    ScanDownsweep,
    ScanLookback,
    SzxRangePartial,
    SzxRangeFinal,
    SzxEncode,
    SzxEncode8,
    SzxEncode8Lookback,
    SzxCompact,
    SzxMetaCost,
    SzxUnpack,
    QuantEncode,
    QuantScatter,
    QuantDecode,
    QuantPatch,
    BitpackWidth,
    BitpackPack,
    BitpackMetaCost,
    BitpackUnpack,
    LorenzoForward,
    LorenzoScanX,
    LorenzoScanAxis,
    SzpClassify,
    SzpPack,
    SzpMetaCost,
    SzpUnpack,
    ChainWidth,
    ChainPack,
    ChainEncode,
    ChainEncodeFlat,
    ChainEncode3d,
    ChainEncodeFlat3d,
    ChainEncode1d,
    ChainCompact,
    ChainUnpack,
    ChainDecode,
    ChainDecode1d,
    ChainDecodeRagged,
    ChainDecodePlanes,
    ChainDecodePlanesRagged,
    ChainScanX,
    ChainScanLast,
    WaveletLift,
    WaveletLoad,
    WaveletStore,
    CorrectFlag,
    CorrectScatter,
    CorrectApply,
    SubgroupLayout,
}

impl Kernel {
    pub const ALL: [Kernel; 49] = [
        Kernel::ScanReduce,
        Kernel::ScanDownsweep,
        Kernel::ScanLookback,
        Kernel::SzxRangePartial,
        Kernel::SzxRangeFinal,
        Kernel::SzxEncode,
        Kernel::SzxEncode8,
        Kernel::SzxEncode8Lookback,
        Kernel::SzxCompact,
        Kernel::SzxMetaCost,
        Kernel::SzxUnpack,
        Kernel::QuantEncode,
        Kernel::QuantScatter,
        Kernel::QuantDecode,
        Kernel::QuantPatch,
        Kernel::BitpackWidth,
        Kernel::BitpackPack,
        Kernel::BitpackMetaCost,
        Kernel::BitpackUnpack,
        Kernel::LorenzoForward,
        Kernel::LorenzoScanX,
        Kernel::LorenzoScanAxis,
        Kernel::SzpClassify,
        Kernel::SzpPack,
        Kernel::SzpMetaCost,
        Kernel::SzpUnpack,
        Kernel::ChainWidth,
        Kernel::ChainPack,
        Kernel::ChainEncode,
        Kernel::ChainEncodeFlat,
        Kernel::ChainEncode3d,
        Kernel::ChainEncodeFlat3d,
        Kernel::ChainEncode1d,
        Kernel::ChainCompact,
        Kernel::ChainUnpack,
        Kernel::ChainDecode,
        Kernel::ChainDecode1d,
        Kernel::ChainDecodeRagged,
        Kernel::ChainDecodePlanes,
        Kernel::ChainDecodePlanesRagged,
        Kernel::ChainScanX,
        Kernel::ChainScanLast,
        Kernel::WaveletLift,
        Kernel::WaveletLoad,
        Kernel::WaveletStore,
        Kernel::CorrectFlag,
        Kernel::CorrectScatter,
        Kernel::CorrectApply,
        Kernel::SubgroupLayout,
    ];

    /// The kernel's name: its WGSL entry point and its CPU twin's function name.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::ScanReduce => "scan_reduce",
            Kernel::ScanDownsweep => "scan_downsweep",
            Kernel::ScanLookback => "scan_lookback",
            Kernel::SzxRangePartial => "szx_range_partial",
            Kernel::SzxRangeFinal => "szx_range_final",
            Kernel::SzxEncode => "szx_encode",
            Kernel::SzxEncode8 => "szx_encode8",
            Kernel::SzxEncode8Lookback => "szx_encode8_lookback",
            Kernel::SzxCompact => "szx_compact",
            Kernel::SzxMetaCost => "szx_meta_cost",
            Kernel::SzxUnpack => "szx_unpack",
            Kernel::QuantEncode => "quant_encode",
            Kernel::QuantScatter => "quant_scatter",
            Kernel::QuantDecode => "quant_decode",
            Kernel::QuantPatch => "quant_patch",
            Kernel::BitpackWidth => "bitpack_width",
            Kernel::BitpackPack => "bitpack_pack",
            Kernel::BitpackMetaCost => "bitpack_meta_cost",
            Kernel::BitpackUnpack => "bitpack_unpack",
            Kernel::LorenzoForward => "lorenzo_forward",
            Kernel::LorenzoScanX => "lorenzo_scan_x",
            Kernel::LorenzoScanAxis => "lorenzo_scan_axis",
            Kernel::SzpClassify => "szp_classify",
            Kernel::SzpPack => "szp_pack",
            Kernel::SzpMetaCost => "szp_meta_cost",
            Kernel::SzpUnpack => "szp_unpack",
            Kernel::ChainWidth => "chain_width",
            Kernel::ChainPack => "chain_pack",
            Kernel::ChainEncode => "chain_encode",
            Kernel::ChainEncodeFlat => "chain_encode_flat",
            Kernel::ChainEncode3d => "chain_encode_3d",
            Kernel::ChainEncodeFlat3d => "chain_encode_flat_3d",
            Kernel::ChainEncode1d => "chain_encode_1d",
            Kernel::ChainCompact => "chain_compact",
            Kernel::ChainUnpack => "chain_unpack",
            Kernel::ChainScanX => "chain_scan_x",
            Kernel::ChainScanLast => "chain_scan_last",
            Kernel::ChainDecode => "chain_decode",
            Kernel::ChainDecode1d => "chain_decode_1d",
            Kernel::ChainDecodeRagged => "chain_decode_ragged",
            Kernel::ChainDecodePlanes => "chain_decode_planes",
            Kernel::ChainDecodePlanesRagged => "chain_decode_planes_ragged",
            Kernel::WaveletLift => "wavelet_lift",
            Kernel::WaveletLoad => "wavelet_load",
            Kernel::WaveletStore => "wavelet_store",
            Kernel::CorrectFlag => "correct_flag",
            Kernel::CorrectScatter => "correct_scatter",
            Kernel::CorrectApply => "correct_apply",
            Kernel::SubgroupLayout => "subgroup_layout",
        }
    }

    /// Path of the WGSL file under `shaders/`.
    pub fn file(self) -> &'static str {
        match self {
            Kernel::ScanReduce => "scan/reduce.wgsl",
            Kernel::ScanDownsweep => "scan/downsweep.wgsl",
            Kernel::ScanLookback => "scan/lookback.wgsl",
            Kernel::SzxRangePartial => "szx/range_partial.wgsl",
            Kernel::SzxRangeFinal => "szx/range_final.wgsl",
            Kernel::SzxEncode => "szx/encode.wgsl",
            Kernel::SzxEncode8 | Kernel::SzxEncode8Lookback => "szx/encode8.wgsl",
            Kernel::SzxCompact => "szx/compact.wgsl",
            Kernel::SzxMetaCost => "szx/meta_cost.wgsl",
            Kernel::SzxUnpack => "szx/unpack.wgsl",
            Kernel::QuantEncode => "quant/encode.wgsl",
            Kernel::QuantScatter => "quant/scatter.wgsl",
            Kernel::QuantDecode => "quant/decode.wgsl",
            Kernel::QuantPatch => "quant/patch.wgsl",
            Kernel::BitpackWidth => "bitpack/width.wgsl",
            Kernel::BitpackPack => "bitpack/pack.wgsl",
            Kernel::BitpackMetaCost => "bitpack/meta_cost.wgsl",
            Kernel::BitpackUnpack => "bitpack/unpack.wgsl",
            Kernel::LorenzoForward => "lorenzo/forward.wgsl",
            Kernel::LorenzoScanX => "lorenzo/scan_x.wgsl",
            Kernel::LorenzoScanAxis => "lorenzo/scan_axis.wgsl",
            Kernel::SzpClassify => "szp/classify.wgsl",
            Kernel::SzpPack => "szp/pack.wgsl",
            Kernel::SzpMetaCost => "szp/meta_cost.wgsl",
            Kernel::SzpUnpack => "szp/unpack.wgsl",
            Kernel::ChainWidth => "chain/width.wgsl",
            Kernel::ChainPack => "chain/pack.wgsl",
            Kernel::ChainEncode | Kernel::ChainEncodeFlat | Kernel::ChainEncode3d | Kernel::ChainEncodeFlat3d | Kernel::ChainEncode1d => {
                "chain/encode.wgsl"
            }
            Kernel::ChainCompact => "chain/compact.wgsl",
            Kernel::ChainUnpack => "chain/unpack.wgsl",
            Kernel::ChainScanX => "chain/scan_x.wgsl",
            Kernel::ChainScanLast => "chain/scan_last.wgsl",
            Kernel::ChainDecode
            | Kernel::ChainDecodeRagged
            | Kernel::ChainDecode1d
            | Kernel::ChainDecodePlanes
            | Kernel::ChainDecodePlanesRagged => "chain/decode.wgsl",
            Kernel::WaveletLift => "wavelet/lift.wgsl",
            Kernel::WaveletLoad => "wavelet/load.wgsl",
            Kernel::WaveletStore => "wavelet/store.wgsl",
            Kernel::CorrectFlag => "correct/flag.wgsl",
            Kernel::CorrectScatter => "correct/scatter.wgsl",
            Kernel::CorrectApply => "correct/apply.wgsl",
            Kernel::SubgroupLayout => "probe/subgroup_layout.wgsl",
        }
    }

    /// Whether the kernel has a float64 variant (`#ifdef F64`).
    pub fn has_f64(self) -> bool {
        !matches!(
            self,
            Kernel::ScanReduce
                | Kernel::ScanDownsweep
                | Kernel::ScanLookback
                | Kernel::BitpackWidth
                | Kernel::BitpackPack
                | Kernel::BitpackMetaCost
                | Kernel::BitpackUnpack
                | Kernel::ChainCompact
                | Kernel::ChainScanX
                | Kernel::ChainDecodePlanes
                | Kernel::ChainDecodePlanesRagged
                | Kernel::WaveletLift
                | Kernel::SzxEncode8
                | Kernel::SzxEncode8Lookback
                | Kernel::SubgroupLayout
        )
    }

    /// Whether every variant does float64 arithmetic (the wavelet kernels transform in
    /// float64 whatever the field's type): they need SHADER_F64 always.
    pub fn always_f64(self) -> bool {
        matches!(
            self,
            Kernel::WaveletLift
                | Kernel::WaveletLoad
                | Kernel::WaveletStore
                | Kernel::CorrectFlag
                | Kernel::CorrectScatter
                | Kernel::CorrectApply
        )
    }

    /// Defines a kernel's WGSL file is read with beside the variant's (`f64`: the
    /// variant's element type): a second kernel from one file, so that the other
    /// geometries run the code they were tuned with (round 17 measured 3-7% slower CUDA
    /// and 16-20% slower Vulkan compression with flat units inside `chain_encode`).
    /// `chain_encode_flat`: `chain_encode` with `FLAT` (flat units); `chain_encode_3d`,
    /// `chain_encode_flat_3d`: either with `THREE_D`, the only forms with a 3-D walk
    /// (the others take nz = 1 and quantize one row per step, with no loop over a
    /// second row);
    /// `chain_decode_ragged`: `chain_decode` with `RAGGED` (rows not whole units of 32;
    /// float32 stores through workgroup memory where the backend coalesces, else
    /// aligned 16-byte pieces with component stores at the row's ends);
    /// `chain_decode_planes`, `chain_decode_planes_ragged`: `chain_decode` /
    /// `chain_decode_ragged` with `PLANES` (3-D: the 2-D walk over every plane, storing
    /// the x-y sums for `chain_scan_last`; no float64 variant, as `chain_scan_x`);
    /// `chain_encode_1d`, `chain_decode_1d`: with `ONE_D` (ny = nz = 1: one step per
    /// invocation and nothing carried between steps, so no walk's loop and no state
    /// for it: NVRTC sm_90 63 / 48 registers against 128 / 96).
    /// `szx_encode8_lookback`: `szx_encode8` with `LOOKBACK` (each block's payload at
    /// its final offset by a look-back over the tiles' costs: encode, scan and compact
    /// in one pass).
    pub fn defines(self) -> &'static [&'static str] {
        match self {
            Kernel::ChainEncodeFlat => &["FLAT"],
            Kernel::ChainEncode3d => &["THREE_D"],
            Kernel::ChainEncodeFlat3d => &["FLAT", "THREE_D"],
            Kernel::ChainEncode1d | Kernel::ChainDecode1d => &["ONE_D"],
            Kernel::ChainDecodeRagged => &["RAGGED"],
            Kernel::ChainDecodePlanes => &["PLANES"],
            Kernel::ChainDecodePlanesRagged => &["PLANES", "RAGGED"],
            Kernel::SzxEncode8Lookback => &["LOOKBACK"],
            _ => &[],
        }
    }

    /// Whether the kernel has a CUDA-tuned variant (`#ifdef COALESCE`, float32 only:
    /// `Variant::coalesce`). `chain_decode` (the walking form) has none since round 30:
    /// its quad stores beat its workgroup-memory stores through CUDA too.
    pub fn has_coalesce(self) -> bool {
        matches!(
            self,
            Kernel::ChainEncode
                | Kernel::ChainDecode1d
                | Kernel::ChainScanX
                | Kernel::SzxEncode
                | Kernel::SzxEncode8
                | Kernel::SzxEncode8Lookback
        )
    }

    /// Whether the kernel's float32 subgroup variant without `COALESCE` stores by quads
    /// (`QUAD_STORES` in shaders/chain/decode.wgsl): each quad of lanes transposes its
    /// values with xor shuffles, so a store instruction writes 64-byte pieces, not
    /// 16-byte ones 128 bytes apart. H100, round 30 (`docs/results/h100-r30c.log`),
    /// decompression GB/s through Vulkan: 2-D `szp_composed` 793 -> 1600, `szp_centered`
    /// 749 -> 1402; 1-D 863 / 799 -> 1492 / 1649 (with `chain_decode_1d`); the tiled
    /// field 463 / 417 -> 469 / 423. Through CUDA: 2-D 1260 / 1169 (`COALESCE`) ->
    /// 1558 / 1402, tiled (`chain_decode_planes`) 443 / 405 -> 475 / 436. The ragged
    /// forms (rows not whole units of 32) store their aligned pieces by quads and the
    /// rows' unaligned ends by component: round 31 (`h100-r31b.log`), 8190x32768
    /// through Vulkan 635 / 603 -> 942 / 857; through CUDA 815 / 778 (`COALESCE`) ->
    /// 927 / 869 (round 32, `h100-r32a.log`).
    pub fn has_quad_stores(self) -> bool {
        matches!(
            self,
            Kernel::ChainDecode
                | Kernel::ChainDecode1d
                | Kernel::ChainDecodePlanes
                | Kernel::ChainDecodeRagged
                | Kernel::ChainDecodePlanesRagged
        )
    }

    /// Whether the kernel's float32 subgroup variant without `COALESCE` loads by quads
    /// (`QUAD_LOADS` in shaders/chain/encode.wgsl, the load-side twin of
    /// `has_quad_stores`): a quad of lanes reads 64-byte pieces per load instruction and
    /// transposes them with xor shuffles. H100, round 31 (`docs/results/h100-r31b.log`),
    /// compression GB/s: 2-D through Vulkan `szp_composed` 791 -> 809, `szp_centered`
    /// 722 -> 743 (CUDA runs the 2-D form's `COALESCE` variant, unchanged); 1-D through
    /// Vulkan 616 / 771 -> 614 / 790, through CUDA 675 / 851 -> 702 / 828.
    pub fn has_quad_loads(self) -> bool {
        matches!(self, Kernel::ChainEncode | Kernel::ChainEncode1d)
    }

    /// Lanes per team of a kernel whose teams are not whole subgroups (`szx_encode8`:
    /// 8); None: a team is a subgroup.
    pub fn team_lanes(self) -> Option<u32> {
        match self {
            Kernel::SzxEncode8 | Kernel::SzxEncode8Lookback => Some(8),
            _ => None,
        }
    }

    /// Whether the kernel has a subgroup variant (`#ifdef SUBGROUP`).
    pub fn has_subgroup(self) -> bool {
        matches!(
            self,
            Kernel::ScanReduce
                | Kernel::ScanDownsweep
                | Kernel::ScanLookback
                | Kernel::SzpUnpack
                | Kernel::ChainUnpack
                | Kernel::SzxEncode
                | Kernel::SzxEncode8
                | Kernel::SzxEncode8Lookback
                | Kernel::SzxUnpack
                | Kernel::ChainWidth
                | Kernel::ChainEncode
                | Kernel::ChainEncodeFlat
                | Kernel::ChainEncode3d
                | Kernel::ChainEncodeFlat3d
                | Kernel::ChainEncode1d
                | Kernel::ChainDecode1d
                | Kernel::ChainDecode
                | Kernel::ChainDecodeRagged
                | Kernel::ChainDecodePlanes
                | Kernel::ChainDecodePlanesRagged
                | Kernel::LorenzoScanX
                | Kernel::ChainScanX
                | Kernel::SubgroupLayout
        )
    }

    /// Whether the float64 variant does float64 arithmetic (needs SHADER_F64). The
    /// range kernels only compare integer keys, so they run anywhere.
    pub fn f64_arith(self) -> bool {
        self.always_f64() || (self.has_f64() && !matches!(self, Kernel::SzxRangePartial | Kernel::SzxRangeFinal))
    }
}

/// Compile-time variant of a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Variant {
    /// Element type float64 (else float32).
    pub f64: bool,
    /// Use subgroup operations (chosen by the backend from the adapter's features).
    pub subgroup: bool,
    /// The CUDA-tuned variants (`COALESCE`), chosen per backend from H200
    /// measurements: the CUDA backend's default, off through Vulkan, where the same code
    /// ran slower (PERFORMANCE.md); `FZWGPU_COALESCE=0|1` overrides.
    /// - `chain_decode_1d`, float32: values stored through workgroup memory, coalesced
    ///   (the walking `chain_decode` had it too until round 30, when its quad stores,
    ///   `Kernel::has_quad_stores`, beat it through CUDA by 20-24% on the 2-D field;
    ///   round 6 had measured CUDA +26-88%, Vulkan 24-43% slower, against 16-byte
    ///   stores 128 bytes apart).
    /// - `chain_scan_x`: four row segments per team (SEGS; CUDA +9-11%, Vulkan -1-3% on
    ///   the tiled field and -24% on the cube, round 15e).
    /// - `chain_encode` (the 2-D form), float32: the walk's previous step kept in
    ///   workgroup memory, not registers (CUDA 842 / 743 -> 926 / 768 GB/s on the
    ///   1 GiB 2-D field; Vulkan 892 / 709 -> 644 / 572; round 24).
    /// - `szx_encode8` and `szx_encode`, float32: the flush-free codes' first candidates
    ///   rounded by a rounding and a conversion instruction; without it (Vulkan) by
    ///   adding 2^23 (`round_small`, common/szx_units.wgsl: naga clamps before every
    ///   float-to-integer conversion). H100, round 43 (`docs/results/h100-r43b.log`,
    ///   `szx_encode8` on the 1 GiB 2-D field, kernel GB/s, two runs each): Vulkan
    ///   784-787 -> 799-802, CUDA 833-836 -> 813 (one run). Confirmed against main
    ///   before it in `h100-r43c.log`: Vulkan 784 -> 799-800, tiled and 1-D unchanged.
    /// - `chain_encode`'s fast path (every form), float32: `i32(qf)` by a conversion
    ///   instruction; without it by adding 1.5 * 2^23 for codes below 2^22 in magnitude
    ///   (`fast_qlim`; larger codes take the per-value path), which every form but
    ///   CUDA's 2-D walk takes (the forms with no `COALESCE` variant run it through
    ///   CUDA too). H100, round 43 (`h100-r43c.log`, `h100-r43d.log`, one run each):
    ///   Vulkan 1-D `szp_composed` / `szp_centered` 790 / 795 -> 808 / 812, 2-D 838 /
    ///   749 -> 866 / 768; CUDA 1-D 827 / 839 -> 826 / 838, 2-D (the `COALESCE` walk
    ///   with it) 842 / 774 -> 825 / 773.
    /// - 1-D chain inverses run `chain_decode_1d` (CUDA 1-D decompression +7-10%,
    ///   round 23), as they do wherever subgroups give it quad stores and on software
    ///   adapters (`BackendInfo::decode_1d`, `kernels::chain::decode_kernel`).
    ///
    /// `chain_decode_planes` has no such variant: its workgroup-memory stores ran
    /// 22-25% slower through CUDA than its 16-byte stores (368 / 348 against 489 / 446 GB/s on
    /// the tiled field, round 23). Nor, since round 32, has `chain_decode_ragged`: its
    /// workgroup-memory stores (CUDA 818 against 783 GB/s without, round 19) lost to its
    /// quad stores through CUDA too (H100, 8190x32768: 815 / 778 against 927 / 869 GB/s,
    /// `docs/results/h100-r32a.log`).
    pub coalesce: bool,
}

impl Variant {
    /// The variant as kernel `kernel` has it: the switches it does not have are off.
    pub fn for_kernel(self, kernel: Kernel) -> Variant {
        let f64 = self.f64 && kernel.has_f64();
        Variant { f64, subgroup: self.subgroup && kernel.has_subgroup(), coalesce: self.coalesce && kernel.has_coalesce() && !f64 }
    }

    /// Whether kernel `kernel` takes its quad forms in this variant (`QUAD_STORES` where
    /// `Kernel::has_quad_stores`, `QUAD_LOADS` where `Kernel::has_quad_loads`): float32
    /// with subgroups, not `COALESCE`, as the kernel has the switches.
    pub fn quad_forms(self, kernel: Kernel) -> bool {
        let v = self.for_kernel(kernel);
        v.subgroup && !v.f64 && !v.coalesce
    }
}

/// `FZWGPU_COALESCE`: "1" / "0" force `Variant::coalesce` on / off; unset leaves the
/// backend's default (other values are refused by `envcfg::check`).
pub fn coalesce_from_env(default: bool) -> bool {
    match crate::envcfg::get("FZWGPU_COALESCE").ok().flatten().as_deref() {
        Some("1") => true,
        Some("0") => false,
        _ => default,
    }
}

// All shader files, embedded at build time (generated by build.rs).
include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

pub(crate) fn shader_file(path: &str) -> Result<&'static str> {
    SHADER_FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, s)| *s)
        .ok_or_else(|| Error::Unsupported(format!("shader file {path} is not embedded")))
}

/// The tiny preprocessor: `#include "path"`, `#ifdef NAME`, `#ifndef NAME`, `#else`,
/// `#endif`, and the SG_PARAMS / SG_ARGS substitutions for subgroup builtins (`source`
/// also names a shared file's entry point, KERNEL_ENTRY).
pub fn preprocess(path: &str, defines: &[&str]) -> Result<String> {
    let mut out = String::new();
    let mut seen = Vec::new();
    expand(path, defines, &mut out, &mut seen)?;
    let subgroup = defines.contains(&"SUBGROUP");
    let (params, args) = if subgroup {
        (", @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32", "lid % sg_size, sg_size")
    } else {
        ("", "0u, 1u")
    };
    Ok(out.replace("SG_PARAMS", params).replace("SG_ARGS", args))
}

fn expand(path: &str, defines: &[&str], out: &mut String, seen: &mut Vec<String>) -> Result<()> {
    if seen.iter().any(|s| s == path) {
        return Ok(()); // include once
    }
    seen.push(path.to_string());
    let src = shader_file(path)?;
    // stack of (this branch active, any branch taken)
    let mut stack: Vec<(bool, bool)> = Vec::new();
    for line in src.lines() {
        let t = line.trim();
        let active = stack.iter().all(|(a, _)| *a);
        if let Some(name) = t.strip_prefix("#ifdef ") {
            let on = defines.contains(&name.trim());
            stack.push((on, on));
        } else if let Some(name) = t.strip_prefix("#ifndef ") {
            let on = !defines.contains(&name.trim());
            stack.push((on, on));
        } else if t == "#else" {
            let top = stack.last_mut().ok_or_else(|| Error::Unsupported(format!("{path}: #else without #ifdef")))?;
            *top = (!top.1, true);
        } else if t == "#endif" {
            stack.pop().ok_or_else(|| Error::Unsupported(format!("{path}: #endif without #ifdef")))?;
        } else if let Some(inc) = t.strip_prefix("#include ") {
            if active {
                expand(inc.trim().trim_matches('"'), defines, out, seen)?;
            }
        } else if active {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !stack.is_empty() {
        return Err(Error::Unsupported(format!("{path}: unterminated #ifdef")));
    }
    Ok(())
}

/// Preprocessed WGSL of a kernel variant.
pub fn source(kernel: Kernel, variant: Variant) -> Result<String> {
    let v = variant.for_kernel(kernel);
    let mut defs: Vec<&str> =
        [(v.f64, "F64"), (v.subgroup, "SUBGROUP"), (v.coalesce, "COALESCE")].into_iter().filter(|d| d.0).map(|d| d.1).collect();
    defs.extend(kernel.defines());
    if v.quad_forms(kernel) && kernel.has_quad_stores() {
        defs.push("QUAD_STORES");
    }
    if v.quad_forms(kernel) && kernel.has_quad_loads() {
        defs.push("QUAD_LOADS");
    }
    // a file that holds several kernels (forms chosen by `Kernel::defines`) names its
    // entry point KERNEL_ENTRY: it is the kernel's own name (checked by `reflect`)
    Ok(preprocess(kernel.file(), &defs)?.replace("KERNEL_ENTRY", kernel.name()))
}

/// How a binding is accessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindKind {
    Uniform,
    ReadOnly,
    ReadWrite,
}

/// What naga reads out of a kernel's WGSL.
#[derive(Debug, Clone)]
pub struct Reflection {
    /// Binding kinds of group 0, by binding index (0..n, no gaps).
    pub bindings: Vec<BindKind>,
    pub workgroup_size: [u32; 3],
    /// The uniform params struct: (member name, byte offset), and its size.
    pub params: Vec<(String, u32)>,
    pub params_size: u32,
    /// Module-scope `const` u32 values (e.g. ITEMS).
    pub consts: HashMap<String, u32>,
}

/// The x workgroup size of a kernel, reflected from its WGSL.
pub fn workgroup_size(kernel: Kernel) -> Result<u32> {
    Ok(reflect(kernel, Variant::default())?.workgroup_size[0])
}

/// Items one workgroup of `kernel` covers: its x workgroup size times its `CODES` const
/// (items per invocation) where the WGSL declares one, else 1, reflected.
pub fn items_per_group(kernel: Kernel) -> Result<u64> {
    let r = reflect(kernel, Variant::default())?;
    Ok(r.workgroup_size[0] as u64 * r.consts.get("CODES").copied().unwrap_or(1) as u64)
}

/// The value of the module-level `const NAME: u32` that a kernel variant declares,
/// reflected (an error naming the kernel if it declares none).
pub fn kernel_const(kernel: Kernel, variant: Variant, name: &str) -> Result<u32> {
    reflect(kernel, variant)?.consts.get(name).copied().ok_or_else(|| crate::Error::Device(format!("{} declares no {name}", kernel.name())))
}

/// naga capabilities the crate's shaders may use.
pub fn naga_caps(variant: Variant) -> naga::valid::Capabilities {
    let mut c = naga::valid::Capabilities::empty();
    if variant.f64 {
        c |= naga::valid::Capabilities::FLOAT64;
    }
    if variant.subgroup {
        c |= naga::valid::Capabilities::SUBGROUP;
    }
    c
}

/// Parse and validate a kernel variant with naga and reflect its interface. Cached.
pub fn reflect(kernel: Kernel, variant: Variant) -> Result<&'static Reflection> {
    static CACHE: OnceLock<Mutex<HashMap<(Kernel, Variant), &'static Reflection>>> = OnceLock::new();
    let variant = variant.for_kernel(kernel);
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(r) = cache.lock().map_err(|_| Error::Device("kernel cache poisoned".into()))?.get(&(kernel, variant)) {
        return Ok(r);
    }
    let (module, _) = parse_validated(kernel, variant)?;
    let r = Box::leak(Box::new(reflect_module(kernel, &module)?));
    cache.lock().map_err(|_| Error::Device("kernel cache poisoned".into()))?.insert((kernel, variant), r);
    Ok(r)
}

/// The naga module of a kernel variant, validated, with its analysis.
pub fn parse_validated(kernel: Kernel, variant: Variant) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let variant = variant.for_kernel(kernel);
    let src = source(kernel, variant)?;
    let caps = naga_caps(Variant { f64: variant.f64 || kernel.always_f64(), ..variant });
    let module = naga::front::wgsl::parse_str(&src)
        .map_err(|e| Error::Unsupported(format!("{}: WGSL parse error: {}", kernel.name(), e.emit_to_string(&src))))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| Error::Unsupported(format!("{}: WGSL validation error: {}", kernel.name(), e.emit_to_string(&src))))?;
    Ok((module, info))
}

fn reflect_module(kernel: Kernel, module: &naga::Module) -> Result<Reflection> {
    let ep = module
        .entry_points
        .iter()
        .find(|e| e.name == kernel.name())
        .ok_or_else(|| Error::Unsupported(format!("{}: entry point missing", kernel.name())))?;
    let mut binds: Vec<(u32, BindKind)> = Vec::new();
    let mut params = Vec::new();
    let mut params_size = 0;
    for (_, gv) in module.global_variables.iter() {
        let Some(rb) = &gv.binding else { continue };
        if rb.group != 0 {
            return Err(Error::Unsupported(format!("{}: only bind group 0 is used", kernel.name())));
        }
        let kind = match gv.space {
            naga::AddressSpace::Uniform => {
                if let naga::TypeInner::Struct { members, span } = &module.types[gv.ty].inner {
                    params = members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect();
                    params_size = *span;
                }
                BindKind::Uniform
            }
            naga::AddressSpace::Storage { access } => {
                if access.contains(naga::StorageAccess::STORE) {
                    BindKind::ReadWrite
                } else {
                    BindKind::ReadOnly
                }
            }
            _ => continue,
        };
        binds.push((rb.binding, kind));
    }
    binds.sort_by_key(|b| b.0);
    for (i, (b, _)) in binds.iter().enumerate() {
        if *b as usize != i {
            return Err(Error::Unsupported(format!("{}: bindings must be 0..n without gaps", kernel.name())));
        }
    }
    let mut consts = HashMap::new();
    for (_, c) in module.constants.iter() {
        if let (Some(name), naga::Expression::Literal(naga::Literal::U32(v))) = (&c.name, &module.global_expressions[c.init]) {
            consts.insert(name.clone(), *v);
        }
    }
    Ok(Reflection { bindings: binds.into_iter().map(|b| b.1).collect(), workgroup_size: ep.workgroup_size, params, params_size, consts })
}

/// Whether the kernels' workgroup memory is zeroed before each workgroup runs (WGSL's
/// default; wgpu has the driver do it, or on GL adds code to every kernel, and the CUDA
/// translation adds a loop and a barrier): only with `FZWGPU_WG_ZERO_INIT=on`, because
/// no kernel of the crate reads workgroup memory it has not written in the same
/// workgroup. ARCHITECTURE.md ("Workgroup memory is not zeroed") has the rule for new
/// kernels, the test that catches a breach and what the zeroing cost.
pub fn workgroup_zero_init() -> bool {
    crate::envcfg::switch("FZWGPU_WG_ZERO_INIT").ok().flatten().unwrap_or(false)
}
