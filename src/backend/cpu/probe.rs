//! Twin of the adapter probe (shaders/probe/).

use super::{need, params, view_mut, Bindings};
use crate::error::Result;
use crate::kernels::params::ProbeParams;
use crate::kernels::{workgroup_size, Kernel};

/// Twin of `subgroup_layout` (its variant without subgroups, the only one the cpu
/// backend has): invocation i < n of workgroup i / WG writes (0, 1, i % WG, 1), a
/// subgroup of one.
pub fn subgroup_layout(p: &[u8], b: &mut Bindings, groups: u32) -> Result<()> {
    let p: ProbeParams = params(p)?;
    let wg = workgroup_size(Kernel::SubgroupLayout)? as usize;
    let out: &mut [u32] = view_mut(b.rw[0], "subgroup_layout.out")?;
    let n = (p.n as usize).min(groups as usize * wg);
    need(out.len() >= 4 * n, "subgroup_layout out")?;
    for (i, w) in out.chunks_exact_mut(4).take(n).enumerate() {
        w.copy_from_slice(&[0, 1, (i % wg) as u32, 1]);
    }
    Ok(())
}
