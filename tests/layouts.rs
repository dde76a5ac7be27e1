//! Every WGSL kernel parses and validates with naga, and every Rust params struct
//! matches its WGSL twin field by field (names and offsets) and in size.

use fzwgpu::kernels::params::{
    BitpackParams, ChainParams32, ChainParams64, ChainUnpackParams32, ChainUnpackParams64, CorrectParams32, CorrectParams64, LorenzoParams,
    ProbeParams, QuantParams32, QuantParams64, RangeParams, ScanParams, SzpParams32, SzpParams64, SzxParams32, SzxParams64, WaveletParams,
};
use fzwgpu::kernels::{reflect, scan, Kernel, Variant};

/// Every combination of the variant switches (each kernel takes the ones it has).
fn variants() -> impl Iterator<Item = Variant> {
    (0..8u8).map(|b| Variant { f64: b & 1 != 0, subgroup: b & 2 != 0, coalesce: b & 4 != 0 })
}

#[test]
fn every_kernel_variant_validates() {
    for k in Kernel::ALL {
        for v in variants() {
            let r = reflect(k, v).unwrap_or_else(|e| panic!("{} {v:?}: {e}", k.name()));
            assert!(r.workgroup_size[0] > 0, "{}", k.name());
            // the variants of a kernel share its interface (one host side)
            let plain = reflect(k, Variant { f64: v.f64, ..Default::default() }).unwrap();
            assert_eq!(r.bindings, plain.bindings, "{} bindings", k.name());
            assert_eq!(r.params, plain.params, "{} params", k.name());
        }
    }
}

/// The kernels whose params `check` has compared (so that a new kernel cannot go
/// unchecked).
static CHECKED: std::sync::Mutex<std::collections::BTreeSet<&'static str>> = std::sync::Mutex::new(std::collections::BTreeSet::new());

fn check(k: Kernel, f64: bool, fields: &[(&str, usize)], size: usize) {
    CHECKED.lock().unwrap().insert(k.name());
    let r = reflect(k, Variant { f64, subgroup: false, coalesce: false }).unwrap();
    let got: Vec<(String, u32)> = r.params.clone();
    let want: Vec<(String, u32)> = fields.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect();
    assert_eq!(got, want, "{} (f64={f64}) params layout", k.name());
    assert_eq!(r.params_size as usize, size, "{} params size", k.name());
}

#[test]
fn params_layouts_match_wgsl() {
    for k in [Kernel::ScanReduce, Kernel::ScanDownsweep, Kernel::ScanLookback] {
        check(k, false, ScanParams::FIELDS, std::mem::size_of::<ScanParams>());
    }
    for k in [Kernel::SzxRangePartial, Kernel::SzxRangeFinal] {
        for f64 in [false, true] {
            check(k, f64, RangeParams::FIELDS, std::mem::size_of::<RangeParams>());
        }
    }
    for k in [Kernel::SzxEncode, Kernel::SzxCompact, Kernel::SzxMetaCost, Kernel::SzxUnpack] {
        check(k, false, SzxParams32::FIELDS, std::mem::size_of::<SzxParams32>());
        check(k, true, SzxParams64::FIELDS, std::mem::size_of::<SzxParams64>());
    }
    check(Kernel::SzxEncode8, false, SzxParams32::FIELDS, std::mem::size_of::<SzxParams32>());
    check(Kernel::SzxEncode8Lookback, false, SzxParams32::FIELDS, std::mem::size_of::<SzxParams32>());
    for k in [Kernel::QuantEncode, Kernel::QuantScatter, Kernel::QuantDecode, Kernel::QuantPatch] {
        check(k, false, QuantParams32::FIELDS, std::mem::size_of::<QuantParams32>());
        check(k, true, QuantParams64::FIELDS, std::mem::size_of::<QuantParams64>());
    }
    for k in [Kernel::BitpackWidth, Kernel::BitpackPack, Kernel::BitpackMetaCost, Kernel::BitpackUnpack, Kernel::ChainCompact] {
        check(k, false, BitpackParams::FIELDS, std::mem::size_of::<BitpackParams>());
    }
    for k in [Kernel::LorenzoForward, Kernel::LorenzoScanX, Kernel::LorenzoScanAxis] {
        check(k, false, LorenzoParams::FIELDS, std::mem::size_of::<LorenzoParams>());
    }
    for k in [Kernel::SzpClassify, Kernel::SzpPack, Kernel::SzpMetaCost, Kernel::SzpUnpack] {
        check(k, false, SzpParams32::FIELDS, std::mem::size_of::<SzpParams32>());
        check(k, true, SzpParams64::FIELDS, std::mem::size_of::<SzpParams64>());
    }
    for k in [
        Kernel::ChainWidth,
        Kernel::ChainPack,
        Kernel::ChainEncode,
        Kernel::ChainEncodeFlat,
        Kernel::ChainEncode3d,
        Kernel::ChainEncodeFlat3d,
        Kernel::ChainEncode1d,
    ] {
        check(k, false, ChainParams32::FIELDS, std::mem::size_of::<ChainParams32>());
        check(k, true, ChainParams64::FIELDS, std::mem::size_of::<ChainParams64>());
    }
    check(Kernel::ChainUnpack, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainUnpack, true, ChainUnpackParams64::FIELDS, std::mem::size_of::<ChainUnpackParams64>());
    check(Kernel::ChainDecode, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainDecode, true, ChainUnpackParams64::FIELDS, std::mem::size_of::<ChainUnpackParams64>());
    check(Kernel::ChainDecodeRagged, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainDecodeRagged, true, ChainUnpackParams64::FIELDS, std::mem::size_of::<ChainUnpackParams64>());
    check(Kernel::ChainDecode1d, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainDecode1d, true, ChainUnpackParams64::FIELDS, std::mem::size_of::<ChainUnpackParams64>());
    check(Kernel::ChainScanX, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    // (the planes forms have no float64 variant: the float32 layout serves both types)
    check(Kernel::ChainDecodePlanes, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainDecodePlanesRagged, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainScanLast, false, ChainUnpackParams32::FIELDS, std::mem::size_of::<ChainUnpackParams32>());
    check(Kernel::ChainScanLast, true, ChainUnpackParams64::FIELDS, std::mem::size_of::<ChainUnpackParams64>());
    check(Kernel::WaveletLift, false, WaveletParams::FIELDS, std::mem::size_of::<WaveletParams>());
    for k in [Kernel::WaveletLoad, Kernel::WaveletStore, Kernel::CorrectFlag, Kernel::CorrectScatter, Kernel::CorrectApply] {
        check(k, false, CorrectParams32::FIELDS, std::mem::size_of::<CorrectParams32>());
        check(k, true, CorrectParams64::FIELDS, std::mem::size_of::<CorrectParams64>());
    }
    check(Kernel::SubgroupLayout, false, ProbeParams::FIELDS, std::mem::size_of::<ProbeParams>());
    // every kernel's params are covered above
    let all: std::collections::BTreeSet<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
    let checked = CHECKED.lock().unwrap().clone();
    assert_eq!(all.difference(&checked).collect::<Vec<_>>(), Vec::<&&str>::new(), "kernels whose params layout is not checked");
}

#[test]
fn scan_tile_matches_wgsl() {
    assert_eq!(scan::tile_from_wgsl().unwrap(), scan::TILE);
}

#[test]
fn range_group_matches_wgsl() {
    let r = reflect(Kernel::SzxRangePartial, Variant::default()).unwrap();
    assert_eq!(r.workgroup_size[0] as usize * r.consts["ITEMS"] as usize, fzwgpu::backend::cpu::szx::RANGE_PER_GROUP);
}

/// The interleaved slot groups of blocks of 32 (shaders/common/chain_slots.wgsl) are
/// declared in WGSL and mirrored by the host (kernels::chain::SLOT_GROUP, which sizes
/// the slot buffers and the chunk windows): both kernels that index them agree with it.
#[test]
fn chain_slot_group_matches_wgsl() {
    for k in [Kernel::ChainEncode, Kernel::ChainCompact] {
        let r = reflect(k, Variant::default()).unwrap();
        assert_eq!(r.consts.get("SLOT_GROUP").copied().map(u64::from), Some(fzwgpu::kernels::chain::SLOT_GROUP), "{}", k.name());
    }
}

/// The quad forms (`QUAD_STORES`, `QUAD_LOADS`) are in exactly the variants that
/// `Kernel::has_quad_stores` / `has_quad_loads` name (float32 with subgroups, not
/// `COALESCE`): a kernel list or a define that drifted would otherwise only show as a
/// slower benchmark on a GPU, since both forms give the same output.
#[test]
fn quad_forms_are_in_their_variants() {
    for k in Kernel::ALL {
        for v in variants() {
            let src = fzwgpu::kernels::source(k, v).unwrap();
            let quads = v.quad_forms(k);
            let name = format!("{} {v:?}", k.name());
            // float32 with subgroups, not COALESCE, and only there
            let own = v.for_kernel(k);
            assert_eq!(quads, own.subgroup && !own.f64 && !own.coalesce, "quad_forms: {name}");
            assert_eq!(src.contains("fn qput("), quads && k.has_quad_stores(), "quad stores: {name}");
            assert_eq!(src.contains("fn quad_load("), quads && k.has_quad_loads(), "quad loads: {name}");
            // the transpose is included by exactly the kernels that use it
            assert_eq!(src.contains("fn qt("), quads && (k.has_quad_stores() || k.has_quad_loads()), "transpose: {name}");
        }
    }
}
