//! What an adapter probe's output must say for the crate's kernels to hold on it.

/// Checks the words of a `subgroup_layout` dispatch (shaders/probe/subgroup_layout.wgsl:
/// four per invocation, `invocations` of them in workgroups of `wg`) against the layout
/// every subgroup variant assumes: one subgroup size S for the whole dispatch, a power
/// of two in `[min, max]` that divides `wg`, and subgroup k of a workgroup is exactly
/// the local indices `[k * S, (k + 1) * S)`, full, with lane = local index % S.
/// Ok(S), or a description of the first invocation that shows otherwise.
pub fn check_subgroup_layout(words: &[u32], invocations: usize, wg: u32, min: u32, max: u32) -> Result<u32, String> {
    if words.len() < 4 * invocations || invocations == 0 {
        return Err(format!("{} words for {invocations} invocations", words.len()));
    }
    let size = words[1];
    if !size.is_power_of_two() || size < min || size > max || !wg.is_multiple_of(size) {
        return Err(format!("subgroup size {size} (the adapter reports {min}..{max}; workgroups of {wg})"));
    }
    for (i, w) in words.chunks_exact(4).take(invocations).enumerate() {
        let lid = i as u32 % wg;
        let want = [lid % size, size, lid - lid % size, size];
        if w != want {
            return Err(format!(
                "invocation {lid} of workgroup {} reports lane {}, size {}, subgroup from {} with {} active; the kernels assume {:?}",
                i as u32 / wg,
                w[0],
                w[1],
                w[2],
                w[3],
                want
            ));
        }
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::check_subgroup_layout;

    fn ideal(groups: u32, wg: u32, s: u32) -> Vec<u32> {
        (0..groups * wg).flat_map(|i| [i % wg % s, s, i % wg - i % wg % s, s]).collect()
    }

    #[test]
    fn ideal_layouts_pass() {
        for s in [8, 16, 32, 64, 128] {
            assert_eq!(check_subgroup_layout(&ideal(2, 256, s), 512, 256, 8, 128), Ok(s));
        }
    }

    #[test]
    fn other_layouts_fail() {
        let n = 512;
        // a size outside the adapter's range, or not dividing the workgroup
        assert!(check_subgroup_layout(&ideal(2, 256, 64), n, 256, 8, 32).is_err());
        assert!(check_subgroup_layout(&ideal(2, 256, 8), n, 256, 16, 64).is_err());
        // lanes in another order (reversed in each subgroup)
        let mut v = ideal(2, 256, 32);
        for w in v.chunks_exact_mut(4) {
            w[0] = 31 - w[0];
        }
        assert!(check_subgroup_layout(&v, n, 256, 8, 128).is_err());
        // subgroups interleaved across local indices (lane = lid / 8, subgroup lid % 8)
        let v: Vec<u32> = (0..n as u32).flat_map(|i| [(i % 256) / 8, 32, i % 8, 32]).collect();
        assert!(check_subgroup_layout(&v, n, 256, 8, 128).unwrap_err().contains("invocation 1 "));
        // a partial subgroup (one inactive lane) in the second workgroup
        let mut v = ideal(2, 256, 32);
        v[4 * 300 + 3] = 31;
        assert!(check_subgroup_layout(&v, n, 256, 8, 128).unwrap_err().contains("workgroup 1"));
        // sizes that vary within the dispatch
        let mut v = ideal(2, 256, 32);
        v[4 * 511 + 1] = 16;
        assert!(check_subgroup_layout(&v, n, 256, 8, 128).is_err());
        // an invocation that wrote nothing (poison) or too few words
        let mut v = ideal(2, 256, 32);
        v[4 * 7..4 * 8].fill(0xA5A5_A5A5);
        assert!(check_subgroup_layout(&v, n, 256, 8, 128).is_err());
        assert!(check_subgroup_layout(&ideal(1, 256, 32), n, 256, 8, 128).is_err());
        assert!(check_subgroup_layout(&[], 0, 256, 8, 128).is_err());
    }
}
