//! Geometry of `chain_encode` (shaders/chain/encode.wgsl) shared by the host, which
//! decides whether the kernel takes a chain and sizes its dispatch, and the CPU twin.

use crate::error::Result;
use crate::kernels::params::LorenzoParams;

/// Values per invocation of `chain_encode` (32 codes of w bits are w whole words).
pub const ENCODE_LANE: u32 = 32;

/// Whether `chain_encode` takes this geometry (block size, Lorenzo tiles and dims; the
/// preconditions at the top of shaders/chain/encode.wgsl), or why not.
pub fn encode_unfit(block_size: u32, l: &LorenzoParams, strip: u32) -> Option<String> {
    let bs = block_size;
    if !bs.is_power_of_two() || bs < ENCODE_LANE || bs > strip {
        return Some(format!("block size {bs} is not a power of two in [{ENCODE_LANE}, {strip}]"));
    }
    if l.tx % ENCODE_LANE != 0 {
        return Some(format!("Lorenzo tile x extent {} is not a multiple of {ENCODE_LANE}", l.tx));
    }
    if l.ny * l.nz > 1 && l.nx % bs != 0 {
        return Some(format!("rows of {} values are not whole blocks of {bs}", l.nx));
    }
    None
}

/// Workgroups of a `chain_encode` dispatch (strips x walks), given `walk` planes per walk.
pub fn encode_groups(l: &LorenzoParams, walk: u32, strip: u32) -> u64 {
    let strips = l.nx.div_ceil(strip) as u64;
    let walks = if l.nz > 1 {
        l.ny as u64 * l.nz.div_ceil(walk) as u64
    } else if l.ny > 1 {
        l.ny.div_ceil(walk) as u64
    } else {
        1
    };
    strips * walks
}

pub fn encode_strip() -> Result<u32> {
    Ok(super::workgroup_size(super::Kernel::ChainEncode)? * ENCODE_LANE)
}


/// Whether `chain_decode` takes this geometry (the preconditions at the top of
/// shaders/chain/decode.wgsl), or why not.
pub fn decode_unfit(block_size: u32, l: &LorenzoParams, strip: u32) -> Option<String> {
    if l.nz > 1 {
        return Some("3-D fields decode with chain_unpack".into());
    }
    if let Some(why) = encode_unfit(block_size, l, strip) {
        return Some(why);
    }
    if strip % l.tx != 0 {
        return Some(format!("Lorenzo tile x extent {} does not divide {strip}", l.tx));
    }
    None
}

/// Workgroups of a `chain_decode` dispatch (strips x bands of tiles).
pub fn decode_groups(l: &LorenzoParams, strip: u32) -> u64 {
    l.nx.div_ceil(strip) as u64 * if l.ny > 1 { l.ny.div_ceil(l.ty) as u64 } else { 1 }
}

/// `chain_decode`'s strip: values of a row per workgroup.
pub fn decode_strip() -> Result<u32> {
    Ok(super::workgroup_size(super::Kernel::ChainDecode)? * ENCODE_LANE)
}
