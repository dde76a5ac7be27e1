//! Every WGSL kernel against its CPU twin: same inputs, output buffers pre-poisoned
//! with different patterns on each side, outputs compared bit for bit. Fresh random
//! data each run (seed printed) plus real fields.

mod common;
use common::*;
use fzwgpu::backend::cpu::szx::{block_cost, SzxFloat};
use fzwgpu::backend::Backend;
use fzwgpu::kernels::params::{
    BitpackParams, LorenzoParams, QuantParams32, QuantParams64, RangeParams, ScanParams, SzpParams32, SzpParams64, SzxParams32, SzxParams64,
};
use fzwgpu::kernels::scan::TILE;
use fzwgpu::kernels::{BindKind, Kernel, Variant};
use fzwgpu::recording::{BufSlice, Recorder};

#[derive(Clone)]
enum B {
    /// read-only data
    In(Vec<u8>),
    /// same buffer as binding k
    Same(usize),
    /// read-write output of this many bytes, pre-poisoned
    Out(usize),
    /// `Out` bound as whole 16-byte pieces (a vec4 array; the bytes past n must keep the
    /// poison on each backend): how the host binds the compaction kernels' payload
    Out16(usize),
    /// read-write scratch the kernel may leave unwritten (not compared)
    Scratch(usize),
    /// read-write with initial contents (compared after)
    Init(Vec<u8>),
}

fn run(be: &dyn Backend, poison: u8, k: Kernel, f64v: bool, params: &[u8], binds: &[B], groups: u64) -> Vec<Vec<u8>> {
    // a read-write binding must be compared (Out / Init) or declared Scratch: an `In` there
    // would let a kernel write anything unchecked
    let kinds: Vec<BindKind> = fzwgpu::kernels::reflect(k, Variant { f64: f64v, ..Default::default() })
        .unwrap()
        .bindings
        .iter()
        .copied()
        .filter(|b| *b != BindKind::Uniform)
        .collect();
    for (i, (b, kind)) in binds.iter().zip(&kinds).enumerate() {
        assert!(
            !(matches!(b, B::In(_)) && *kind == BindKind::ReadWrite),
            "{}: binding {i} is read-write but the test passes it as In (use Init, Out or Scratch)",
            k.name()
        );
    }
    let mut r = Recorder::new(be);
    let mut slices: Vec<BufSlice> = Vec::new();
    let mut outs = Vec::new();
    for b in binds {
        let s = match b {
            B::In(d) => {
                let size = (d.len() as u64).next_multiple_of(4).max(16);
                let id = r.alloc(size).unwrap();
                let mut p = d.clone();
                p.resize(size as usize, 0);
                be.write_buffer(id, 0, &p).unwrap();
                BufSlice::new(id, 0, size)
            }
            B::Same(j) => slices[*j],
            B::Init(d) => {
                let size = (d.len() as u64).next_multiple_of(4).max(16);
                let id = r.alloc(size).unwrap();
                let mut p = d.clone();
                p.resize(size as usize, 0);
                be.write_buffer(id, 0, &p).unwrap();
                outs.push((id, d.len(), 0));
                BufSlice::new(id, 0, size)
            }
            B::Out(n) | B::Scratch(n) | B::Out16(n) => {
                let size = (*n as u64).next_multiple_of(if matches!(b, B::Out16(_)) { 16 } else { 4 }).max(16);
                let id = r.alloc(size).unwrap();
                be.write_buffer(id, 0, &vec![poison; size as usize]).unwrap();
                // Out16: the bytes past n must keep the poison (checked below)
                let tail = if matches!(b, B::Out16(_)) { size as usize - n } else { 0 };
                outs.push((id, if matches!(b, B::Scratch(_)) { 0 } else { *n }, tail));
                BufSlice::new(id, 0, size)
            }
        };
        slices.push(s);
    }
    r.rec.commands.push(fzwgpu::recording::Command::Dispatch {
        kernel: k,
        f64: f64v,
        params: params.to_vec(),
        bindings: slices,
        groups: groups as u32,
    });
    r.submit().unwrap();
    let reads: Vec<BufSlice> =
        outs.iter().map(|(id, n, tail)| BufSlice::new(*id, 0, (*n as u64 + *tail as u64).next_multiple_of(4))).collect();
    let mut v = be.read_buffers(&reads).unwrap();
    for (x, (_, n, tail)) in v.iter_mut().zip(&outs) {
        if *tail > 0 {
            let past = x[*n..*n + *tail].iter().position(|&c| c != poison);
            assert!(past.is_none(), "{}: wrote past its output's {n} bytes (at byte {})", k.name(), n + past.unwrap_or(0));
        }
        x.truncate(*n);
    }
    v
}

/// Run on both backends with different poison; outputs must match bit for bit.
fn twin_check(what: &str, k: Kernel, f64v: bool, params: &[u8], binds: &[B], groups: u64) -> Vec<Vec<u8>> {
    twin_check_on(what, k, f64v, params, binds, groups, true)
}

/// [`twin_check`]; `plain`: also on the adapter's variants without subgroups.
fn twin_check_on(what: &str, k: Kernel, f64v: bool, params: &[u8], binds: &[B], groups: u64, plain: bool) -> Vec<Vec<u8>> {
    let c = cpu();
    let b = run(c.as_ref(), 0x5A, k, f64v, params, binds, groups);
    let mut gpus = vec![gpu()];
    if plain && !k.always_f64() && !(f64v && k.f64_arith()) {
        gpus.push(gpu_plain()); // shared-memory variants
    }
    if k.has_coalesce() && !f64v && !gpu().info().coalesce {
        gpus.push(gpu_coalesce()); // the CUDA-tuned variants (Variant::coalesce)
    }
    for g in gpus {
        if (k.always_f64() || (f64v && k.f64_arith())) && !g.info().shader_f64 {
            // (an adapter without SHADER_F64, such as GL's: the pipelines never dispatch
            // this variant there but run on the cpu backend; CI's lavapipe has it, which
            // common::gpu asserts under WGPU_BACKEND=vulkan)
            eprintln!("{what}: {} float64 not run on {} (no SHADER_F64)", k.name(), g.info().adapter);
            continue;
        }
        let a = run(g.as_ref(), 0xA5, k, f64v, params, binds, groups);
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if x != y {
                let first = x.iter().zip(y).position(|(p, q)| p != q).unwrap();
                panic!(
                    "{what}: {} output {i} differs from its CPU twin at byte {first} (gpu {:?} cpu {:?}, subgroups {}, coalesce {})",
                    k.name(),
                    &x[first..(first + 8).min(x.len())],
                    &y[first..(first + 8).min(y.len())],
                    g.info().subgroups,
                    g.info().coalesce
                );
            }
        }
    }
    b
}

fn seed() -> u64 {
    let s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("kernel test seed {s:#x}");
    s
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
fn bytes32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The exclusive prefix sums of `v` (wrapping u32), computed here.
fn exclusive_scan_ref(v: &[u32]) -> Vec<u32> {
    v.iter()
        .scan(0u32, |acc, &x| {
            let e = *acc;
            *acc = acc.wrapping_add(x);
            Some(e)
        })
        .collect()
}

/// The exclusive prefix sums of `v` and their total (offsets of consecutive runs of
/// `v[i]` items; the sums fit u32 in these tests).
fn offsets_of(v: &[u32]) -> (Vec<u32>, u32) {
    let mut acc = 0u32;
    let offs = v
        .iter()
        .map(|&x| {
            let e = acc;
            acc += x;
            e
        })
        .collect();
    (offs, acc)
}

/// `got` is the exclusive scan of `input`; else the first differing position.
fn assert_exclusive_scan(got: &[u32], input: &[u32], what: &str) {
    let want = exclusive_scan_ref(input);
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
        panic!("{what}: exclusive scan at {i} of {}: got {} want {}", input.len(), got[i], want[i]);
    }
}

#[test]
fn scan_kernels_match_twins_and_reference() {
    let mut rng = Rng(seed());
    for n in [1usize, 5, 255, 1023, 1024, 1025, 4097, 300_001] {
        let input: Vec<u32> = (0..n).map(|_| (rng.next() >> 40) as u32).collect();
        let tiles = n.div_ceil(TILE);
        let p = ScanParams { n: n as u32, ntiles: tiles as u32, ..Default::default() };
        let parts = twin_check(
            "scan_reduce",
            Kernel::ScanReduce,
            false,
            bytemuck::bytes_of(&p),
            &[B::In(bytes32(&input)), B::Out(tiles * 4)],
            tiles as u64,
        );
        let offs = exclusive_scan_ref(&u32s(&parts[0]));
        let out = twin_check(
            "scan_downsweep",
            Kernel::ScanDownsweep,
            false,
            bytemuck::bytes_of(&p),
            &[B::In(bytes32(&input)), B::In(bytes32(&offs)), B::Out(n * 4)],
            tiles as u64,
        );
        assert_exclusive_scan(&u32s(&out[0]), &input, "scan_reduce + scan_downsweep");
    }
}

/// The one-pass scan against its twin and the reference: outputs and the look-back
/// state (zeroed first, as the host clears it) bit for bit, with published values used
/// where the timing allows, with every tile forced through the fallback (each tile
/// sums all of its predecessors from their input), and with inclusive prefixes ignored
/// (every walk adds windows of aggregates down to tile 0).
#[test]
fn scan_lookback_matches_twin_and_reference() {
    let mut rng = Rng(seed());
    for fallback in [0u32, 1, 2] {
        for n in [1usize, 5, 1023, 1024, 1025, 4097, 65_537, 300_001] {
            if fallback == 1 && n > 65_537 {
                continue; // quadratic work by design
            }
            // large values too, so the sums wrap and both 16-bit halves matter
            let input: Vec<u32> = (0..n).map(|i| if i % 7 == 3 { rng.next() as u32 } else { (rng.next() >> 44) as u32 }).collect();
            let tiles = n.div_ceil(TILE);
            let p = ScanParams { n: n as u32, ntiles: tiles as u32, fallback, ..Default::default() };
            let out = twin_check(
                &format!("scan_lookback n={n} fallback={fallback}"),
                Kernel::ScanLookback,
                false,
                bytemuck::bytes_of(&p),
                &[B::In(bytes32(&input)), B::Out(n * 4), B::Init(vec![0u8; 4 + 16 * tiles])],
                tiles as u64,
            );
            assert_exclusive_scan(&u32s(&out[0]), &input, &format!("scan_lookback (fallback {fallback})"));
            let state = u32s(&out[1]);
            assert_eq!(state[0], tiles as u32, "ticket counter");
        }
    }
}

/// record_exclusive_scan gives the same offsets in both modes, on the adapter and on
/// the cpu backend (the mode is process-wide, so this test sets it and restores it).
#[test]
fn exclusive_scan_modes_agree() {
    use fzwgpu::kernels::scan::{record_exclusive_scan, scan_mode, set_scan_mode, ScanMode};
    let before = scan_mode();
    let mut rng = Rng(seed());
    for n in [1usize, 1000, 1024 * 1024 + 17] {
        let input: Vec<u32> = (0..n).map(|_| (rng.next() >> 36) as u32).collect();
        for (name, be) in backends() {
            for mode in [ScanMode::ReduceThenScan, ScanMode::LookBack] {
                set_scan_mode(mode);
                let mut r = Recorder::new(be.as_ref());
                let bytes = (4 * n as u64).next_multiple_of(16);
                let i = r.alloc(bytes).unwrap();
                let o = r.alloc(bytes).unwrap();
                let mut data = bytes32(&input);
                data.resize(bytes as usize, 0);
                be.write_buffer(i, 0, &data).unwrap();
                be.write_buffer(o, 0, &vec![0xA5u8; bytes as usize]).unwrap();
                record_exclusive_scan(&mut r, BufSlice::new(i, 0, bytes), BufSlice::new(o, 0, bytes), n as u64).unwrap();
                r.submit().unwrap();
                let got = u32s(&be.read_buffers(&[BufSlice::new(o, 0, bytes)]).unwrap()[0]);
                assert_exclusive_scan(&got[..n], &input, &format!("{name} {}", mode.name()));
            }
        }
    }
    set_scan_mode(before);
}

fn szx_params<F: SzxFloat>(n: usize, bs: u32, eb: f64, exact: bool) -> Vec<u8> {
    let nb = n.div_ceil(bs as usize) as u32;
    if F::WT == 1 {
        let e = f32::round_down_from_f64(eb);
        let step = e + e;
        let p = SzxParams32 {
            n: n as u32,
            block_size: bs,
            nblocks: nb,
            exact: exact as u32,
            eb: e,
            inv: (1.0 / step as f64) as f32,
            step,
            one: 1.0,
            tiny: f32::TINY,
            two_maxw: 16777216.0,
            ..Default::default()
        };
        bytemuck::bytes_of(&p).to_vec()
    } else {
        let step = eb + eb;
        let p = SzxParams64 {
            n: n as u32,
            block_size: bs,
            nblocks: nb,
            exact: exact as u32,
            eb,
            inv: 1.0 / step,
            step,
            one: 1.0,
            tiny: f64::TINY,
            two_maxw: 4294967296.0,
            ..Default::default()
        };
        bytemuck::bytes_of(&p).to_vec()
    }
}

/// encode -> (cpu scan) -> compact -> meta_cost -> (cpu scan) -> unpack, each kernel
/// checked against its twin. encode's slots start as the same poison on both sides, so
/// the comparison also checks that it writes exactly the words it defines.
fn szx_chain<F: SzxFloat>(what: &str, data: Vec<u8>, n: usize, bs: u32, eb: f64) {
    let f64v = F::WT == 2;
    let sz = 4 * F::WT as usize;
    let nb = n.div_ceil(bs as usize);
    let p = szx_params::<F>(n, bs, eb, false);
    // data as u32, vec4<u32> and float views; info, refs, cost; slots
    let enc = [B::In(data), B::Same(0), B::Same(0), B::Out(nb * 4), B::Out(nb * sz), B::Out(nb * 4), B::Init(vec![0xC3; n * sz])];
    let out = twin_check(what, Kernel::SzxEncode, f64v, &p, &enc, nb as u64);
    let (info, refs, cost, slots) = (out[0].clone(), out[1].clone(), u32s(&out[2]), out[3].clone());
    // two workgroups: each team walks many blocks, loading the next one ahead (the
    // subgroup variant only: the host gives workgroup teams one block each, and a
    // workgroup walking thousands of blocks reaches llvmpipe's loop limit; so not where
    // the adapter itself has no subgroups and such a limit, as llvmpipe with
    // LP_NATIVE_VECTOR_WIDTH=128, whose subgroups of 4 fzwgpu does not use)
    let gi = gpu().info().clone();
    if gi.subgroups || gi.loop_limit.is_none() {
        let again = twin_check_on(&format!("{what} (2 workgroups)"), Kernel::SzxEncode, f64v, &p, &enc, 2, false);
        assert_eq!(again, out, "{what}: szx_encode with two workgroups");
    }
    if !f64v && bs == 128 {
        // szx_encode8 (teams of 8 lanes) writes the same words: one workgroup per 32
        // blocks (it does not walk), with subgroups and without
        let groups = nb.div_ceil(32) as u64;
        let e8 = twin_check_on(&format!("{what} (szx_encode8, {groups} workgroups)"), Kernel::SzxEncode8, false, &p, &enc, groups, true);
        assert_eq!(e8, out, "{what}: szx_encode8 against szx_encode");
        // two workgroups code the first 64 blocks and leave every other word as it was
        // (outputs start as the same poison on both sides)
        if nb > 64 {
            let mut short = enc.clone();
            for (i, len) in [(3, nb * 4), (4, nb * sz), (5, nb * 4)] {
                short[i] = B::Init(vec![0x3C; len]);
            }
            let e8 = twin_check_on(&format!("{what} (szx_encode8, 2 workgroups)"), Kernel::SzxEncode8, false, &p, &short, 2, true);
            assert_eq!(&e8[0][..64 * 4], &out[0][..64 * 4], "{what}: szx_encode8's first 64 blocks");
            assert!(e8[0][64 * 4..].iter().all(|&x| x == 0x3C), "{what}: szx_encode8 wrote past its 64 blocks");
        }
    }
    let (offs, acc) = offsets_of(&cost[..nb]);
    let total = acc as usize;
    let out = twin_check(
        what,
        Kernel::SzxCompact,
        f64v,
        &p,
        &[
            B::In(info.clone()),
            B::In(refs.clone()),
            B::In(bytes32(&offs)),
            B::In(slots),
            B::Out((2 * nb).next_multiple_of(4)),
            B::Out16(total * 4),
            B::Out(4),
        ],
        nb as u64,
    );
    assert_eq!(u32s(&out[2])[0] as usize, total, "{what}: totals");
    let (meta, payload) = (out[0].clone(), out[1].clone());
    if !f64v && bs == 128 {
        szx_lookback_check(what, &p, &enc[0], nb, &out);
    }
    let out = twin_check(what, Kernel::SzxMetaCost, f64v, &p, &[B::In(meta.clone()), B::Out(nb * 4)], nb.div_ceil(256) as u64);
    assert_eq!(u32s(&out[0]), cost, "{what}: meta_cost");
    // payload window with an f64-aligned base
    let out = twin_check(
        what,
        Kernel::SzxUnpack,
        f64v,
        &p,
        &[B::In(meta.clone()), B::In(bytes32(&offs)), B::In(payload.clone()), B::Same(2), B::Out(n * sz)],
        nb as u64,
    );
    assert_eq!(out[0].len(), n * sz);
    // an inconsistent archive: the last block's offset points past the payload. The
    // kernel's own per-block guard (what its CUDA form relies on instead of per-access
    // checks) skips that block: its values stay poisoned, the others decode as before.
    // (The CPU twin rejects such input with an error instead.)
    let mut bad = offs.clone();
    bad[nb - 1] = 0x8000_0000;
    let start = (nb - 1) * bs as usize * sz;
    let mut gpus = vec![gpu()];
    if !f64v {
        gpus.push(gpu_plain()); // the variant without subgroups (no f64 there)
    }
    // (float64 only where the adapter has SHADER_F64, as in twin_check_on)
    gpus.retain(|g| !f64v || g.info().shader_f64);
    for g in gpus {
        let got = run(
            g.as_ref(),
            0xA5,
            Kernel::SzxUnpack,
            f64v,
            &p,
            &[B::In(meta.clone()), B::In(bytes32(&bad)), B::In(payload.clone()), B::Same(2), B::Out(n * sz)],
            nb as u64,
        );
        assert_eq!(&got[0][..start], &out[0][..start], "{what}: blocks before the inconsistent one");
        assert!(got[0][start..].iter().all(|b| *b == 0xA5), "{what}: the inconsistent block was written");
    }
    // quick sanity: infos are valid and costs consistent
    for (b, c) in cost.iter().enumerate() {
        let inf = u32::from_le_bytes(info[4 * b..4 * b + 4].try_into().unwrap());
        let len = (n - b * bs as usize).min(bs as usize) as u32;
        assert_eq!(*c, block_cost::<F>(inf, len));
    }
}

/// `szx_encode8_lookback` writes what `szx_encode8` + the scan + `szx_compact` wrote
/// (`compact`: meta, payload, totals), against its twin, in each look-back mode: 0
/// (published values where the timing allows), 1 (every tile recomputes all of its
/// predecessors' costs, the fallback; quadratic, so only up to 64 tiles), 2 (published
/// aggregates, no inclusive prefix: every walk goes back to tile 0). Also with fewer
/// workgroups than tiles: the tiles past the tickets stay unwritten.
fn szx_lookback_check(what: &str, p: &[u8], data: &B, nb: usize, compact: &[Vec<u8>]) {
    let tiles = nb.div_ceil(32);
    let total = compact[1].len();
    for mode in [0u32, 1, 2] {
        if mode == 1 && tiles > 64 {
            continue;
        }
        let mut pm = p.to_vec();
        pm[24..28].copy_from_slice(&mode.to_le_bytes());
        let binds = [
            data.clone(),
            B::Same(0),
            B::Same(0),
            B::Out((2 * nb).next_multiple_of(4)),
            B::Out16(total),
            B::Out(4),
            B::Init(vec![0u8; 4 + 16 * tiles]),
        ];
        let w = format!("{what} (szx_encode8_lookback, mode {mode})");
        let out = twin_check_on(&w, Kernel::SzxEncode8Lookback, false, &pm, &binds, tiles as u64, true);
        assert_eq!(&out[..3], compact, "{w}: against szx_encode8 + scan + szx_compact");
        assert_eq!(u32s(&out[3])[0], tiles as u32, "{w}: ticket counter");
    }
    if tiles > 2 {
        // two workgroups: tiles 0 and 1 only (64 blocks); no total
        let words = 64 * 128;
        let binds = [
            data.clone(),
            B::Same(0),
            B::Same(0),
            B::Init(vec![0x3C; (2 * nb).next_multiple_of(4)]),
            B::Init(vec![0x3C; 4 * (words + 64)]),
            B::Init(vec![0x3C; 4]),
            B::Init(vec![0u8; 4 + 16 * tiles]),
        ];
        let w = format!("{what} (szx_encode8_lookback, 2 workgroups)");
        let out = twin_check_on(&w, Kernel::SzxEncode8Lookback, false, p, &binds, 2, true);
        assert_eq!(&out[0][..128], &compact[0][..128], "{w}: meta (two blocks per word)");
        assert!(out[0][128..].iter().all(|&x| x == 0x3C), "{w}: meta past the tiles");
        let st = u32s(&out[3]);
        let head = &st[7..9];
        let end = ((head[0] & 0xffff) | ((head[1] & 0xffff) << 16)) as usize * 4;
        assert_eq!(&out[1][..end], &compact[1][..end], "{w}: payload");
        assert!(out[1][end..].iter().all(|&x| x == 0x3C), "{w}: payload past the tiles");
        assert_eq!(out[2], vec![0x3C; 4], "{w}: total");
    }
}

#[test]
fn szx_kernels_match_twins_random() {
    let mut rng = Rng(seed());
    for &(n, bs) in &[(1usize, 128u32), (127, 128), (1000, 1), (5000, 7), (5000, 6), (3001, 64), (70_001, 128), (9000, 4096)] {
        // smooth + noise, some constant stretches, some specials
        let v: Vec<f32> = (0..n)
            .map(|i| {
                let x = i as f64;
                let r = rng.unit();
                match i % 977 {
                    0 => f32::NAN,
                    1 => 1e-40, // subnormal
                    _ if (i / 300) % 5 == 0 => 3.25,
                    _ => ((x * 0.01).sin() * 100.0 + r * 0.5) as f32,
                }
            })
            .collect();
        for eb in [1e-4, 1e-2, 1.0] {
            szx_chain::<f32>(&format!("f32 n={n} bs={bs} eb={eb}"), f32_bytes(&v), n, bs, eb);
            let v64: Vec<f64> = v.iter().map(|&x| x as f64 * 1.000001).collect();
            szx_chain::<f64>(&format!("f64 n={n} bs={bs} eb={eb}"), v64.iter().flat_map(|x| x.to_le_bytes()).collect(), n, bs, eb);
        }
    }
}

/// Values exactly halfway between two codes: with eb a power of two, 1 / step is exact
/// and (x - r) / step lands on k + 1/2, where the rounding of the quotient picks one
/// of two codes that both reconstruct at exactly eb (the tie rule of `within`), and the
/// vector path's strict test sends every such unit to the per-value path. Blocks of 128
/// and ragged ones, both encoders and the twin.
#[test]
fn szx_encode_ties() {
    let mut rng = Rng(seed());
    let eb = 1.0 / 64.0;
    let step = 2.0 * eb as f32;
    for bs in [128u32, 100] {
        let n = bs as usize * 40 + 77;
        let v: Vec<f32> = (0..n)
            .map(|i| {
                let base = (i / bs as usize) as f32 * 8.0 + 1.0;
                if i % bs as usize == 0 {
                    base
                } else {
                    base + ((rng.unit() * 200.0) as u32 as f32 + 0.5) * step
                }
            })
            .collect();
        szx_chain::<f32>(&format!("ties bs={bs}"), f32_bytes(&v), n, bs, eb);
    }
}

/// Values near the middle between two codes at large magnitudes against eb (|x| / eb
/// from 2^8 to 2^23): there the reconstruction's own rounding is up to half a bound,
/// so the flush-free path's first test (`fast_lim`) must leave exactly the units whose
/// first code may miss the bound to the full test; a first test that passed one of them
/// would keep a code that the twin's full test replaces or rejects. Blocks of one sign
/// (either), of 128 and ragged, both encoders and the twin.
#[test]
fn szx_encode_near_ties_large_offsets() {
    let mut rng = Rng(seed());
    let eb = 1.37e-3f64;
    let step = 2.0 * f32::round_down_from_f64(eb) as f64;
    for bs in [128u32, 100] {
        let nb = 48usize;
        let n = bs as usize * nb - 3;
        let v: Vec<f32> = (0..n)
            .map(|i| {
                let b = i / bs as usize;
                let k = 8 + (b % 16) as i32;
                let sign = if b % 3 == 2 { -1.0 } else { 1.0 };
                let base = eb * 2f64.powi(k);
                let j = if i % bs as usize == 0 { 0.0 } else { (rng.unit() * 40.0).floor() + 0.5 + (rng.unit() - 0.5) * 0.08 };
                (sign * (base + j * step)) as f32
            })
            .collect();
        szx_chain::<f32>(&format!("near ties, large offsets bs={bs}"), f32_bytes(&v), n, bs, eb);
    }
}

/// `fast_lim` (shaders/common/szx_units.wgsl) checked on the CPU against exact
/// arithmetic: for random float32 blocks on the flush-free path, of one sign or of
/// both with zeros among them (eb from
/// 2^-40 to 2^40, |x| / eb from 2^-3 to 2^24, spans up to 2^22 steps, many values
/// within 1% of a step of a tie), from the block's minimum and from the shifted
/// reference, whenever a value passes the first test, whether t - round(t) is rounded
/// once (unfused) or fused into one rounding of (x - r) inv - q, its reconstruction
/// (q * step) + r is within eb (1 - 2^-23) of it in exact arithmetic. The mirror of
/// fast_lim below is the WGSL formula, operation for operation, unfused.
#[test]
fn fast_lim_first_test_implies_the_bound() {
    let mut rng = Rng(seed());
    let f = |v: f64| v as f32;
    let (mut passed, mut checked) = (0u64, 0u64);
    for _ in 0..6000 {
        let eb = f(2f64.powf(rng.unit() * 80.0 - 40.0) * (1.0 + rng.unit()));
        let step = eb + eb;
        let inv = f(1.0 / step as f64);
        let mag = eb as f64 * 2f64.powf(rng.unit() * 27.0 - 3.0);
        let span = step as f64 * 2f64.powf(rng.unit() * 22.0);
        // 0: positive, 1: negative, 2: both signs and some zeros
        let signs = rng.next() % 3;
        let ties = rng.next().is_multiple_of(3);
        let xs: Vec<f32> = (0..64)
            .map(|_| {
                let o = if ties {
                    ((rng.unit() * span / step as f64).floor() + 0.5 + (rng.unit() - 0.5) * 0.02) * step as f64
                } else {
                    rng.unit() * span
                };
                let sign = match signs {
                    0 => 1.0,
                    1 => -1.0,
                    _ => [1.0, -1.0, 0.0][(rng.next() % 3) as usize],
                };
                f(sign * (mag + o))
            })
            .collect();
        let (mn, mx) = xs.iter().fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        // the flush-free path (block_noflush): no nonzero magnitude below T, 1 / step normal
        let t_min = f(2f64.powi(-100).max(eb as f64 * 2f64.powi(-90)));
        if xs.iter().any(|&x| x != 0.0 && x.abs() < t_min) || !inv.is_normal() || !mx.is_finite() {
            continue;
        }
        for r in [mn, mn - step * 0.25] {
            let quant = |x: f32| ((x - r) * inv).round_ties_even();
            let qmx = quant(mx);
            if qmx >= 16_777_216.0 {
                continue;
            }
            let w = 32 - (qmx as u32).leading_zeros();
            let qlim = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
            let m = mn.abs().max(mx.abs());
            let d = (qlim as f32 + 2.0) * f(2f64.powi(-21)) + (m * inv) * f(2f64.powi(-23));
            let lim = 0.5f32 - d;
            for &x in &xs {
                let d1 = x - r;
                let t = d1 * inv;
                let q = t.round_ties_even();
                let unfused = (t - q).abs();
                let fused = f(d1 as f64 * inv as f64 - q as f64).abs();
                checked += 1;
                if unfused.min(fused) > lim {
                    continue;
                }
                passed += 1;
                let y = q * step + r;
                let err = (x as f64 - y as f64).abs();
                assert!(
                    err <= eb as f64 * (1.0 - 2f64.powi(-23)),
                    "x {x:e} r {r:e} eb {eb:e} q {q} lim {lim}: |x - y| = {err:e} passed the first test"
                );
            }
        }
    }
    // the test means something only if most values take the first test's exit
    assert!(passed > checked / 2 && checked > 100_000, "{passed} of {checked} values passed the first test");
}

/// Blocks whose only special value is one nonzero subnormal (either sign, the smallest
/// and the largest, at every lane position of a team, in otherwise smooth blocks that
/// would be quantized), next to blocks holding +0 / -0 (not special): the subnormal's
/// block must stay raw in both encoders, as in the twin. Float32 blocks of 128 and
/// ragged ones.
#[test]
fn szx_encode_lone_subnormals() {
    let subs = [f32::from_bits(1), -f32::from_bits(1), 1e-40, -1e-41, f32::from_bits(0x007f_ffff), -f32::from_bits(0x007f_ffff)];
    for bs in [128u32, 100] {
        let nb = 2 * 128;
        let n = bs as usize * nb - 9;
        let v: Vec<f32> = (0..n)
            .map(|i| {
                let (b, j) = (i / bs as usize, i % bs as usize);
                let x = 1.5 + (i as f64 * 0.01).sin() as f32 * 0.25;
                match b % 4 {
                    // one subnormal at position (b / 4) % bs of the block
                    0 if j == (b / 4 * 7) % bs as usize => subs[(b / 4) % subs.len()],
                    // zeros of both signs (not special)
                    2 if j % 16 == 3 => 0.0,
                    2 if j % 16 == 9 => -0.0,
                    _ => x,
                }
            })
            .collect();
        szx_chain::<f32>(&format!("lone subnormals bs={bs}"), f32_bytes(&v), n, bs, 1e-3);
    }
}

/// Every code width: block k spans 0.75 * 2^k quantization steps (1.25 for k = 1: a
/// range of at most one step is a constant block), its ends included, so its largest
/// code has k bits and szx_encode packs each width 1..=26 once, including those whose
/// 4 codes per lane fill a word exactly (1, 2, 4, 8), lie inside one (3, 5, 6, 7) or
/// span several (16, 24); in whole blocks of 128 and in ragged blocks of 100 and 37.
#[test]
fn szx_encode_every_width() {
    let mut rng = Rng(seed());
    let eb = 1e-3f64;
    for bs in [128u32, 100, 37] {
        let mut v32 = Vec::new();
        let mut v64 = Vec::new();
        for k in 1..=26 {
            let steps = if k == 1 { 1.25 } else { 0.75 * 2f64.powi(k) };
            let span = steps * 2.0 * eb;
            for i in 0..bs {
                let x = 0.5 + span * [0.0, 1.0].get(i as usize).copied().unwrap_or_else(|| rng.unit());
                v32.push(x as f32);
                v64.push(x);
            }
        }
        // a ragged last block
        v32.truncate(v32.len() - 5);
        v64.truncate(v64.len() - 5);
        szx_chain::<f32>(&format!("widths f32 bs={bs}"), f32_bytes(&v32), v32.len(), bs, eb);
        szx_chain::<f64>(&format!("widths f64 bs={bs}"), v64.iter().flat_map(|x| x.to_le_bytes()).collect(), v64.len(), bs, eb);
    }
}

/// Tiny (down to 2^-100 and 1e-37) and huge magnitudes mixed in blocks, zeros, sign
/// changes, and blocks of one sign and of both around the flush-free threshold, at bounds from
/// 1e-30 to 1e30.
#[test]
fn szx_encode_magnitude_edges() {
    let mut rng = Rng(seed());
    for eb in [1e-30f64, 2f64.powi(-89), 1e-3, 3.0, 1e20, 2f64.powi(89), 1e30] {
        let t = 2f64.powi(-100).max(eb * 2f64.powi(-90)).min(1e30);
        let v: Vec<f32> = (0..4096)
            .map(|i| {
                let r = rng.unit();
                let base = match (i / 128) % 8 {
                    0 => t,
                    1 => t * 0.999,
                    2 => 2f64.powi(-100),
                    3 => 1e-37,
                    4 => eb * 10.0,
                    5 => 0.0,
                    6 => -t,
                    _ => eb * 1e-3,
                };
                let x = match i % 5 {
                    0 => base,
                    1 => base * (1.0 + r * 1e-6),
                    2 => 0.0,
                    3 => base + eb * r,
                    _ => -base * (1.0 + r),
                };
                x as f32
            })
            .collect();
        szx_chain::<f32>(&format!("edges eb={eb:e}"), f32_bytes(&v), v.len(), 128, eb);
        // blocks of one sign (the flush-free path's condition looks at the block's
        // smallest magnitude against t): at t, just below it, and spread above it
        let w: Vec<f32> = (0..4096)
            .map(|i| {
                let r = rng.unit();
                let base = match (i / 128) % 6 {
                    0 => t,
                    1 => t * 0.999,
                    2 => -t,
                    3 => -t * 0.999,
                    4 => t * 1.001,
                    _ => eb * 10.0,
                };
                let x = match i % 3 {
                    0 => base,
                    1 => base * (1.0 + r * 1e-6),
                    _ => base * (1.0 + r * 4.0),
                };
                x as f32
            })
            .collect();
        szx_chain::<f32>(&format!("one-sign edges eb={eb:e}"), f32_bytes(&w), w.len(), 128, eb);
        // blocks of both signs, some with zeros, whose least nonzero magnitude is at t,
        // just below it, just above it, or far above it (the flush-free condition since
        // round 44 looks at the least nonzero magnitude, whatever the signs)
        let z: Vec<f32> = (0..4096)
            .map(|i| {
                let r = rng.unit();
                let (base, zeros) = match (i / 128) % 8 {
                    0 => (t, false),
                    1 => (t * 0.999, false),
                    2 => (t * 1.001, false),
                    3 => (t, true),
                    4 => (t * 0.999, true),
                    5 => (eb * 10.0, true),
                    6 => (eb * 0.3, false),
                    _ => (eb * 3.0, false),
                };
                let x = match i % 4 {
                    0 => base,
                    1 => -base * (1.0 + r * 1e-6),
                    2 if zeros => 0.0,
                    2 => -base,
                    _ => base * (1.0 + r * 4.0) * if i % 8 == 3 { -1.0 } else { 1.0 },
                };
                x as f32
            })
            .collect();
        szx_chain::<f32>(&format!("two-sign edges eb={eb:e}"), f32_bytes(&z), z.len(), 128, eb);
    }
}

/// Blocks whose constant test hinges on one value at a time: all 2.0 but a low end at
/// one position and a high end at another, with ends whose distances to the rounded
/// midpoint differ (one a tie within eb, the other just past it, or both ties), at
/// every position of a block of 128 (every lane slot of every team lane), eb = 1.
#[test]
fn szx_encode_const_test_every_position() {
    let ends: [(f32, f32); 4] = [(1.0, 3.000_000_2), (0.999_999_94, 3.0), (1.0, 3.0), (-1.0, 1.0)];
    let mut v = Vec::new();
    for (lo, hi) in ends {
        for p in 0..128usize {
            let q = (p + 1 + p / 16) % 128;
            for i in 0..128usize {
                v.push(if i == p {
                    hi
                } else if i == q {
                    lo
                } else {
                    (lo + hi) * 0.5
                });
            }
            for i in 0..128usize {
                v.push(if i == p {
                    lo
                } else if i == q {
                    hi
                } else {
                    (lo + hi) * 0.5
                });
            }
        }
    }
    szx_chain::<f32>("const test at every position", f32_bytes(&v), v.len(), 128, 1.0);
}

#[test]
fn szx_kernels_match_twins_real() {
    for (name, _, v) in real_fields().into_iter().take(4) {
        let r = range_f64(&v.iter().map(|&x| x as f64).collect::<Vec<_>>());
        szx_chain::<f32>(&name, f32_bytes(&v), v.len(), 128, 1e-3 * r);
    }
}

#[test]
fn range_kernels_match_twins() {
    let mut rng = Rng(seed());
    let per = fzwgpu::backend::cpu::szx::RANGE_PER_GROUP;
    // whole parts (the kernel's unconditional path), a ragged last part, and data
    // shorter than one 16-byte group
    for n in [1usize, 3, 100, per, per + 1, 3 * per + 4 * 257 + 3, 100_000] {
        let v: Vec<f32> = (0..n).map(|i| if i % 13 == 5 { f32::INFINITY } else { (rng.unit() * 2e6 - 1e6) as f32 }).collect();
        let np = n.div_ceil(per);
        let p = RangeParams { n: n as u32, nparts: np as u32, ..Default::default() };
        let parts = twin_check(
            "range f32",
            Kernel::SzxRangePartial,
            false,
            bytemuck::bytes_of(&p),
            &[B::In(f32_bytes(&v)), B::Same(0), B::Out(np * 8)],
            np as u64,
        );
        twin_check("range f32", Kernel::SzxRangeFinal, false, bytemuck::bytes_of(&p), &[B::In(parts[0].clone()), B::Out(8)], 1);
        let v64: Vec<u8> = v.iter().flat_map(|&x| (x as f64 * -3.0).to_le_bytes()).collect();
        let parts = twin_check(
            "range f64",
            Kernel::SzxRangePartial,
            true,
            bytemuck::bytes_of(&p),
            &[B::In(v64), B::Same(0), B::Out(np * 16)],
            np as u64,
        );
        twin_check("range f64", Kernel::SzxRangeFinal, true, bytemuck::bytes_of(&p), &[B::In(parts[0].clone()), B::Out(16)], 1);
    }
    // the final fold over many parts (several steps of four parts per invocation)
    for np in [1usize, 5, 1023, 1024, 1025, 3001] {
        let p = RangeParams { n: (np * per) as u32, nparts: np as u32, ..Default::default() };
        let keys: Vec<u8> = (0..np * 4).flat_map(|_| ((rng.unit() * 4e9) as u32).to_le_bytes()).collect();
        twin_check(
            "range final f32",
            Kernel::SzxRangeFinal,
            false,
            bytemuck::bytes_of(&p),
            &[B::In(keys[..np * 8].to_vec()), B::Out(8)],
            1,
        );
        twin_check("range final f64", Kernel::SzxRangeFinal, true, bytemuck::bytes_of(&p), &[B::In(keys), B::Out(16)], 1);
    }
    // the extremes in one part at a time, at every place of a step (parts are taken in
    // steps of eight per invocation over the workgroup) and past two whole steps
    let np = 2 * 8 * 256 + 300;
    let p = RangeParams { n: (np * per) as u32, nparts: np as u32, ..Default::default() };
    for pos in [0usize, 255, 256, 1000, 1791, 1792, 2047, 2048, 4095, 4096, np - 1] {
        // per part the min key then the max key: f32 one word each, f64 (lo, hi) words
        for (f64v, extremes) in [(false, &[7u32, 0xffff_fff0][..]), (true, &[9, 3, 1, 0xffff_fff0][..])] {
            let w = extremes.len();
            let mut keys: Vec<u32> = (0..np * w).map(|_| 0x4000_0000 + (rng.unit() * 1e9) as u32).collect();
            keys[w * pos..w * (pos + 1)].copy_from_slice(extremes);
            let what = format!("range final extremes at part {pos} (f64 {f64v})");
            let out = twin_check(&what, Kernel::SzxRangeFinal, f64v, bytemuck::bytes_of(&p), &[B::In(bytes32(&keys)), B::Out(4 * w)], 1);
            assert_eq!(u32s(&out[0]), extremes, "{what}");
        }
    }
}

#[test]
fn quant_kernels_match_twins() {
    let mut rng = Rng(seed());
    for n in [1usize, 255, 1000, 70_001] {
        let v: Vec<f32> = (0..n)
            .map(|i| match i % 501 {
                0 => f32::NAN,
                1 => 1e-41,
                2 => 3e38,
                _ => ((rng.unit() - 0.5) * 2000.0) as f32,
            })
            .collect();
        // the last bound's step is tiny (products near the subnormal range)
        for (eb, zz) in [(1e-3f64, 0u32), (0.5, 1), (1e-33, 0)] {
            let v: Vec<f32> = if eb < 1e-20 { v.iter().map(|x| x * 1e-33).collect() } else { v.clone() };
            let e = f32::round_down_from_f64(eb);
            let p = QuantParams32 {
                n: n as u32,
                zigzag: zz,
                eb: e,
                inv: (1.0 / (2.0 * e as f64)) as f32,
                step: e + e,
                one: 1.0,
                limit: 16777216.0,
                ..Default::default()
            };
            let pb = bytemuck::bytes_of(&p).to_vec();
            let wg = 256u64;
            let g = (n as u64).div_ceil(wg);
            let ng = g as usize;
            let out = twin_check(
                "quant f32",
                Kernel::QuantEncode,
                false,
                &pb,
                &[B::In(f32_bytes(&v)), B::Same(0), B::Out(n * 4), B::Out(ng * 32), B::Out(ng * 4)],
                g,
            );
            let (codes, mask, counts) = (out[0].clone(), u32s(&out[1]), u32s(&out[2]));
            let flags: Vec<u32> = (0..n).map(|i| (mask[i / 32] >> (i % 32)) & 1).collect();
            for (k, c) in counts.iter().enumerate() {
                assert_eq!(*c, flags[k * 256..((k + 1) * 256).min(n)].iter().sum::<u32>(), "count of workgroup {k}");
            }
            let (offs, acc) = offsets_of(&counts[..ng]);
            let out = twin_check(
                "quant f32",
                Kernel::QuantScatter,
                false,
                &pb,
                &[
                    B::In(f32_bytes(&v)),
                    B::In(bytes32(&mask)),
                    B::In(bytes32(&offs)),
                    B::In(bytes32(&counts)),
                    B::Out(acc as usize * 8),
                    B::Out(4),
                ],
                g,
            );
            assert_eq!(u32s(&out[1])[0], acc);
            // entries in increasing index order, exactly the flagged values
            let ent = u32s(&out[0]);
            let idx: Vec<u32> = ent.chunks_exact(2).map(|e| e[0]).collect();
            assert_eq!(idx, (0..n as u32).filter(|&i| flags[i as usize] == 1).collect::<Vec<_>>());
            let entries = out[0].clone();
            let dec = twin_check("quant f32", Kernel::QuantDecode, false, &pb, &[B::In(codes.clone()), B::Out(n * 4)], g);
            if acc > 0 {
                let mut pp = p;
                pp.count = acc;
                let pb2 = bytemuck::bytes_of(&pp).to_vec();
                // patch over the decoded field
                let patched = twin_check(
                    "quant f32",
                    Kernel::QuantPatch,
                    false,
                    &pb2,
                    &[B::In(entries.clone()), B::Same(0), B::Init(dec[0].clone())],
                    (acc as u64).div_ceil(wg),
                );
                let pv = f32_from(&patched[0]);
                for i in 0..n {
                    if flags[i] == 1 {
                        assert_eq!(pv[i].to_bits(), v[i].to_bits(), "outlier {i} restored exactly");
                    }
                }
            }
            // the decoded values are within the bound where not outliers
            let d = f32_from(&dec[0]);
            for i in 0..n {
                if flags[i] == 0 {
                    assert!(((v[i] as f64) - (d[i] as f64)).abs() <= e as f64, "quant value {i}");
                }
            }
        }
        let v64: Vec<f64> = v.iter().map(|&x| x as f64 * 1.5).collect();
        let p = QuantParams64 {
            n: n as u32,
            zigzag: 1,
            eb: 1e-3,
            inv: 1.0 / 2e-3,
            step: 2e-3,
            one: 1.0,
            limit: 2147483648.0,
            ..Default::default()
        };
        let pb = bytemuck::bytes_of(&p).to_vec();
        let g = (n as u64).div_ceil(256);
        let bytes: Vec<u8> = v64.iter().flat_map(|x| x.to_le_bytes()).collect();
        let ng = g as usize;
        let out = twin_check(
            "quant f64",
            Kernel::QuantEncode,
            true,
            &pb,
            &[B::In(bytes), B::Same(0), B::Out(n * 4), B::Out(ng * 32), B::Out(ng * 4)],
            g,
        );
        twin_check("quant f64", Kernel::QuantDecode, true, &pb, &[B::In(out[0].clone()), B::Out(n * 8)], g);
    }
}

#[test]
fn bitpack_kernels_match_twins() {
    let mut rng = Rng(seed());
    for &(n, bs) in &[(1usize, 128u32), (1000, 32), (4097, 7), (70_000, 128), (9000, 4096)] {
        let codes: Vec<u32> = (0..n).map(|i| if (i / 300) % 4 == 0 { 0 } else { ((rng.next() >> 40) as i32 >> (i % 20)) as u32 }).collect();
        for zz in [0u32, 1] {
            let nb = n.div_ceil(bs as usize);
            let p = BitpackParams { n: n as u32, block_size: bs, nblocks: nb as u32, zigzag: zz, ..Default::default() };
            let pb = bytemuck::bytes_of(&p).to_vec();
            let out = twin_check(
                "bitpack",
                Kernel::BitpackWidth,
                false,
                &pb,
                &[B::In(bytes32(&codes)), B::Out(nb * 4), B::Out(nb * 4)],
                nb as u64,
            );
            let (widths, cost) = (out[0].clone(), u32s(&out[1]));
            let (offs, acc) = offsets_of(&cost[..nb]);
            let out = twin_check(
                "bitpack",
                Kernel::BitpackPack,
                false,
                &pb,
                &[
                    B::In(bytes32(&codes)),
                    B::In(widths),
                    B::In(bytes32(&offs)),
                    B::Out(nb.next_multiple_of(4)),
                    B::Out(acc as usize * 4),
                    B::Out(4),
                ],
                nb as u64,
            );
            let (meta, payload) = (out[0].clone(), out[1].clone());
            let mc =
                twin_check("bitpack", Kernel::BitpackMetaCost, false, &pb, &[B::In(meta.clone()), B::Out(nb * 4)], nb.div_ceil(256) as u64);
            assert_eq!(u32s(&mc[0]), cost);
            let out = twin_check(
                "bitpack",
                Kernel::BitpackUnpack,
                false,
                &pb,
                &[B::In(meta), B::In(bytes32(&offs)), B::In(payload), B::Out(n * 4)],
                fzwgpu::stages::bitpack::BitpackStage::unpack_groups(n as u64).unwrap(),
            );
            assert_eq!(u32s(&out[0]), codes, "bitpack round trip n={n} bs={bs} zz={zz}");
        }
    }
}

#[test]
fn lorenzo_kernels_match_twins_and_invert() {
    let mut rng = Rng(seed());
    for &(nx, ny, nz, bs) in
        &[(1000u32, 1u32, 1u32, 128u32), (37, 29, 1, 8), (33, 17, 9, 4), (64, 64, 3, 32), (5, 1, 1, 1), (2100, 3, 1, 2048), (70, 9, 40, 32)]
    {
        let n = (nx * ny * nz) as usize;
        let codes: Vec<u32> = (0..n).map(|i| ((i as f64 * 0.1).sin() * 1000.0) as i32 as u32 ^ ((rng.next() & 3) as u32)).collect();
        for centering in [0u32, 1] {
            let rank = if nz > 1 {
                3
            } else if ny > 1 {
                2
            } else {
                1
            };
            let (tx, ty, tz) = (bs, if rank >= 2 { bs } else { 1 }, if rank >= 3 { bs } else { 1 });
            let mut p = LorenzoParams {
                nx,
                ny,
                nz,
                centering,
                tx,
                ty,
                tz,
                ntx: nx.div_ceil(tx),
                nty: ny.div_ceil(ty),
                ntz: nz.div_ceil(tz),
                ..Default::default()
            };
            let tiles = (p.ntx * p.nty * p.ntz) as usize;
            let out = twin_check(
                "lorenzo",
                Kernel::LorenzoForward,
                false,
                bytemuck::bytes_of(&p),
                &[B::In(bytes32(&codes)), B::Out(n * 4), if centering == 1 { B::Out(tiles * 4) } else { B::Scratch(tiles * 4) }],
                (n as u64).div_ceil(256),
            );
            let (res, means) = (out[0].clone(), if centering == 1 { out[1].clone() } else { vec![0u8; tiles * 4] });
            let groups = fzwgpu::stages::lorenzo::LorenzoStage::scan_x_setup(&mut p).unwrap();
            assert_eq!(p.nlines, p.ntx * ny * nz);
            // the x scan's output feeds the axis scans' twin checks below
            let scanned = twin_check(
                "lorenzo",
                Kernel::LorenzoScanX,
                false,
                bytemuck::bytes_of(&p),
                &[B::In(means.clone()), B::In(res.clone()), B::Out(n * 4)],
                groups,
            )
            .remove(0);
            // the axis scans run in place: chain them on the cpu to check the inverse
            let c = cpu();
            let mut r = fzwgpu::recording::Recorder::new(c.as_ref());
            let buf = r.alloc((n * 4) as u64).unwrap();
            let src = r.alloc((n * 4) as u64).unwrap();
            let mb = r.alloc((tiles * 4) as u64).unwrap();
            c.write_buffer(src, 0, &res).unwrap();
            c.write_buffer(mb, 0, &means).unwrap();
            let w = BufSlice::new(buf, 0, (n * 4) as u64);
            let (m, s) = (BufSlice::new(mb, 0, (tiles * 4) as u64), BufSlice::new(src, 0, (n * 4) as u64));
            r.dispatch(Kernel::LorenzoScanX, false, &p, &[m, s, w], groups).unwrap();
            if ny > 1 {
                let mut q = p;
                q.axis = 1;
                q.nlines = nx * p.nty * nz;
                r.dispatch(Kernel::LorenzoScanAxis, false, &q, &[w], (q.nlines as u64).div_ceil(256)).unwrap();
                twin_check(
                    "lorenzo",
                    Kernel::LorenzoScanAxis,
                    false,
                    bytemuck::bytes_of(&q),
                    &[B::Init(scanned.clone())],
                    (q.nlines as u64).div_ceil(256),
                );
            }
            if nz > 1 {
                let mut q = p;
                q.axis = 2;
                q.nlines = nx * ny * p.ntz;
                r.dispatch(Kernel::LorenzoScanAxis, false, &q, &[w], (q.nlines as u64).div_ceil(256)).unwrap();
                twin_check(
                    "lorenzo",
                    Kernel::LorenzoScanAxis,
                    false,
                    bytemuck::bytes_of(&q),
                    &[B::Init(scanned.clone())],
                    (q.nlines as u64).div_ceil(256),
                );
            }
            r.submit().unwrap();
            let back = u32s(&c.read_buffers(&[w]).unwrap()[0]);
            assert_eq!(back, codes, "lorenzo inverse {nx}x{ny}x{nz} bs={bs} centering={centering}");
        }
    }
}

#[test]
fn szp_kernels_match_twins() {
    let mut rng = Rng(seed());
    for &(n, bs) in &[(1usize, 128u32), (1000, 32), (5000, 7), (70_001, 128), (9000, 4096)] {
        let v: Vec<f32> =
            (0..n).map(|i| if i % 3001 == 5 { f32::NAN } else { ((i as f64 * 0.01).sin() * 100.0 + rng.unit()) as f32 }).collect();
        let v64: Vec<f64> = v.iter().map(|&x| x as f64 * 3.0).collect();
        let nb = n.div_ceil(bs as usize);
        for f64v in [false, true] {
            let (pb, data, sz) = if f64v {
                let p = SzpParams64 {
                    n: n as u32,
                    block_size: bs,
                    nblocks: nb as u32,
                    eb: 1e-2,
                    inv: 50.0,
                    step: 2e-2,
                    one: 1.0,
                    limit: 2147483648.0,
                    ..Default::default()
                };
                (bytemuck::bytes_of(&p).to_vec(), v64.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(), 8usize)
            } else {
                let p = SzpParams32 {
                    n: n as u32,
                    block_size: bs,
                    nblocks: nb as u32,
                    eb: 1e-2,
                    inv: 50.0,
                    step: 2e-2,
                    one: 1.0,
                    limit: 16777216.0,
                    ..Default::default()
                };
                (bytemuck::bytes_of(&p).to_vec(), f32_bytes(&v), 4usize)
            };
            let out = twin_check(
                "szp",
                Kernel::SzpClassify,
                f64v,
                &pb,
                &[B::In(data.clone()), B::Same(0), B::Out(nb * 4), B::Out(nb * 4)],
                nb as u64,
            );
            let (widths, cost) = (out[0].clone(), u32s(&out[1]));
            let (offs, acc) = offsets_of(&cost[..nb]);
            let out = twin_check(
                "szp",
                Kernel::SzpPack,
                f64v,
                &pb,
                &[
                    B::In(data.clone()),
                    B::Same(0),
                    B::In(widths),
                    B::In(bytes32(&offs)),
                    B::Out(nb.next_multiple_of(4)),
                    B::Out(acc as usize * 4),
                    B::Out(4),
                ],
                nb as u64,
            );
            let (meta, payload) = (out[0].clone(), out[1].clone());
            let mc = twin_check("szp", Kernel::SzpMetaCost, f64v, &pb, &[B::In(meta.clone()), B::Out(nb * 4)], nb.div_ceil(256) as u64);
            assert_eq!(u32s(&mc[0]), cost);
            let out = twin_check(
                "szp",
                Kernel::SzpUnpack,
                f64v,
                &pb,
                &[B::In(meta), B::In(bytes32(&offs)), B::In(payload), B::Same(2), B::Out(n * sz)],
                nb as u64,
            );
            assert_eq!(out[0].len(), n * sz);
        }
    }
}

/// ChainUnpackParams32 / ChainUnpackParams64 of the chain decode tests: the geometry
/// (n, block size, tiles, (nx, ny, nz, tx, ty, tz, ntx, nty)) and the fields given.
macro_rules! unpack_params {
    ($t:ident, $n:expr, $bs:expr, $ntiles:expr, ($nx:expr, $ny:expr, $nz:expr, $tx:expr, $ty:expr, $tz:expr, $ntx:expr, $nty:expr) { $($f:ident: $v:expr),* $(,)? }) => {
        $t {
            n: $n as u32,
            block_size: $bs,
            ntiles: $ntiles as u32,
            nx: $nx,
            ny: $ny,
            nz: $nz,
            tx: $tx,
            ty: $ty,
            tz: $tz,
            ntx: $ntx,
            nty: $nty,
            $($f: $v,)*
            ..Default::default()
        }
    };
}

/// ChainParams32 / ChainParams64 bytes of the chain kernel tests (eb 0.05, step 0.1,
/// the Quantizer's code limit of the element type): (centering, qzigzag, bzigzag), the
/// geometry of `lp`, and (walk, shared_max, counts_at) of `chain_encode`.
fn chain_test_params(
    f64v: bool,
    n: usize,
    bs: u32,
    (centering, qzigzag, bzigzag): (u32, u32, u32),
    lp: &fzwgpu::kernels::params::LorenzoParams,
    (walk, shared_max, counts_at): (u32, u32, u32),
) -> Vec<u8> {
    use fzwgpu::kernels::params::{ChainParams32, ChainParams64};
    macro_rules! fill {
        ($t:ident, $lim:expr) => {
            bytemuck::bytes_of(&$t {
                n: n as u32,
                block_size: bs,
                nblocks: n.div_ceil(bs as usize) as u32,
                qzigzag,
                bzigzag,
                centering,
                nx: lp.nx,
                ny: lp.ny,
                nz: lp.nz,
                tx: lp.tx,
                ty: lp.ty,
                tz: lp.tz,
                ntx: lp.ntx,
                nty: lp.nty,
                walk,
                shared_max,
                counts_at,
                eb: 0.05,
                inv: 10.0,
                step: 0.1,
                one: 1.0,
                limit: $lim,
                ..Default::default()
            })
            .to_vec()
        };
    }
    if f64v {
        fill!(ChainParams64, 2147483648.0)
    } else {
        fill!(ChainParams32, 16777216.0)
    }
}

#[test]
fn chain_kernels_match_twins() {
    use fzwgpu::kernels::params::LorenzoParams;
    let mut rng = Rng(seed());
    for &(nx, ny, nz, tile, bs) in &[
        (5000u32, 1u32, 1u32, 128u32, 128u32),
        (61, 37, 1, 16, 32),
        (19, 13, 11, 4, 64),
        (40, 30, 7, 8, 512),
        (300, 17, 1, 128, 1024),
        (77, 5, 3, 32, 1),
    ] {
        let n = (nx * ny * nz) as usize;
        let v: Vec<f32> =
            (0..n).map(|i| if i % 777 == 3 { f32::NAN } else { ((i as f64 * 0.02).sin() * 50.0 + rng.unit()) as f32 }).collect();
        let rank = if nz > 1 {
            3
        } else if ny > 1 {
            2
        } else {
            1
        };
        let (tx, ty, tz) = (tile, if rank >= 2 { tile } else { 1 }, if rank >= 3 { tile } else { 1 });
        let (ntx, nty, ntz) = (nx.div_ceil(tx), ny.div_ceil(ty), nz.div_ceil(tz));
        let tiles = (ntx * nty * ntz) as usize;
        let nb = n.div_ceil(bs as usize);
        for (centering, qzz, bzz, f64v) in [(1u32, 0u32, 1u32, false), (0, 1, 0, false), (1, 0, 1, true)] {
            let lp = LorenzoParams { nx, ny, nz, tx, ty, tz, ntx, nty, ..Default::default() };
            let pb = chain_test_params(f64v, n, bs, (centering, qzz, bzz), &lp, (0, 0, 0));
            let data: Vec<u8> = if f64v { v.iter().flat_map(|&x| (x as f64).to_le_bytes()).collect() } else { f32_bytes(&v) };
            let out = twin_check(
                "chain",
                Kernel::ChainWidth,
                f64v,
                &pb,
                &[B::In(data.clone()), B::Same(0), B::Out(nb * 4), B::Out(nb * 4)],
                nb as u64,
            );
            let (widths, cost) = (out[0].clone(), u32s(&out[1]));
            let (offs, acc) = offsets_of(&cost[..nb]);
            twin_check(
                "chain",
                Kernel::ChainPack,
                f64v,
                &pb,
                &[
                    B::In(data),
                    B::Same(0),
                    B::In(widths),
                    B::In(bytes32(&offs)),
                    B::Out(nb.next_multiple_of(4)),
                    B::Out(acc as usize * 4),
                    B::Out(4),
                    if centering == 1 { B::Out(tiles * 4) } else { B::Scratch(tiles * 4) },
                ],
                nb as u64,
            );
        }
    }
}

/// One geometry of `chain_encode` / `chain_encode_flat` + `chain_compact` (and where it
/// fits, `chain_decode` / `chain_decode_ragged`) against the twins: three element and
/// centering mixes, block maxima by shuffles and through memory; in 3-D, where it fits,
/// `chain_decode_planes` / `_ragged`. Returns the decode cases checked (all 1-D/2-D,
/// ragged, planes).
fn chain_geometry_matches_twins(rng: &mut Rng, (nx, ny, nz, tile, bs, walk): (u32, u32, u32, u32, u32, u32)) -> (u32, u32, u32) {
    use fzwgpu::kernels::chain::{decode_groups, decode_unfit, encode_groups, encode_unfit, max_extent, needs_workgroup_memory};
    use fzwgpu::kernels::params::{BitpackParams, ChainUnpackParams32, ChainUnpackParams64, LorenzoParams};
    let (strip, dstrip) = (max_extent().unwrap(), max_extent().unwrap());
    let (mut decoded, mut ragged_decoded, mut planes) = (0, 0, 0);
    let n = (nx * ny * nz) as usize;
    let v: Vec<f64> = (0..n)
        .map(|i| match i % 997 {
            3 => f64::NAN,
            5 => f64::INFINITY,
            7 => 1e-40,
            11 => 3e9,
            // codes of 2^22 to 2^24 in magnitude (eb 0.05): past the fast path's reach
            // without COALESCE (fast_qlim), inside the quantizer's limit
            13 => 1.0e6 + rng.unit() * 6.0e5,
            17 => -4.2e5 - rng.unit() * 1.2e6,
            _ => (i as f64 * 0.02).sin() * 50.0 + rng.unit() * 2.0,
        })
        .collect();
    let (tx, ty, tz) = (tile, if ny > 1 || nz > 1 { tile } else { 1 }, if nz > 1 { tile } else { 1 });
    let (ntx, nty, ntz) = (nx.div_ceil(tx), ny.div_ceil(ty), nz.div_ceil(tz));
    let lp = LorenzoParams { nx, ny, nz, tx, ty, tz, ntx, nty, ntz, ..Default::default() };
    assert_eq!(encode_unfit(bs, strip), None, "{nx}x{ny}x{nz} block {bs}");
    let groups = encode_groups(&lp, walk).unwrap();
    let tiles = (ntx * nty * ntz) as usize;
    let nb = n.div_ceil(bs as usize);
    let lanes = bs / 32;
    let counts_at = (n.div_ceil(256) * 8).next_multiple_of(64);
    for (centering, qzz, bzz, f64v) in [(1u32, 0u32, 1u32, false), (0, 1, 0, false), (1, 0, 1, true)] {
        for shared_max in [0u32, 1] {
            if shared_max == 0 && needs_workgroup_memory(lanes, true) {
                continue;
            }
            let pb = chain_test_params(f64v, n, bs, (centering, qzz, bzz), &lp, (walk, shared_max, counts_at as u32));
            // mask words, then counts (here starting at 7: the kernel adds to them)
            let mut qmask = vec![0xEEu8; counts_at * 4];
            qmask.extend((0..n.div_ceil(256)).flat_map(|_| 7u32.to_le_bytes()));
            let data: Vec<u8> = if f64v {
                v.iter().flat_map(|&x| x.to_le_bytes()).collect()
            } else {
                v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
            };
            let what = format!(
                "chain_encode {nx}x{ny}x{nz} tile {tile} block {bs} walk {walk} centering {centering} f64 {f64v} shared {shared_max}"
            );
            let out = twin_check(
                &what,
                fzwgpu::kernels::chain::encode_kernel(&lp),
                f64v,
                &pb,
                &[
                    B::In(data),
                    B::Same(0),
                    B::Same(0),
                    B::Out(nb * 4),
                    B::Out(nb * 4),
                    B::Init(vec![0xEE; fzwgpu::kernels::chain::slot_words(nb as u64, bs as u64) as usize * 4]),
                    if centering == 1 { B::Out(tiles * 4) } else { B::Scratch(tiles * 4) },
                    B::Init(qmask.clone()),
                ],
                groups,
            );
            let (widths, cost, slots) = (out[0].clone(), u32s(&out[1]), out[2].clone());
            let means = out[3].clone();
            // the outlier mask and counts are quant_encode's
            let qm = u32s(&out[out.len() - 1]);
            let flags: Vec<u32> = (0..n).map(|i| (qm[i / 32] >> (i % 32)) & 1).collect();
            for g in 0..n.div_ceil(256) {
                let want = flags[g * 256..((g + 1) * 256).min(n)].iter().sum::<u32>();
                assert_eq!(qm[counts_at + g], want.wrapping_add(7), "{what}: outlier count of group {g}");
            }
            assert!(flags.contains(&1), "{what}: the data has outliers");
            let (offs, acc) = offsets_of(&cost[..nb]);
            let bp = BitpackParams { n: n as u32, block_size: bs, nblocks: nb as u32, zigzag: bzz, ..Default::default() };
            let out = twin_check(
                &what,
                Kernel::ChainCompact,
                false,
                bytemuck::bytes_of(&bp),
                &[
                    B::In(widths),
                    B::In(bytes32(&offs)),
                    B::In(slots),
                    B::Out(nb.next_multiple_of(4)),
                    B::Out16(acc as usize * 4),
                    B::Out(4),
                ],
                (nb as u64).div_ceil(256),
            );
            assert_eq!(u32s(&out[2])[0], acc);
            // chain_decode inverts it (1-D and 2-D; values of outliers are patched later)
            if decode_unfit(bs, &lp, dstrip).is_none() {
                let (meta, payload) = (out[0].clone(), out[1].clone());
                let means_in = if centering == 1 { means.clone() } else { vec![0u8; 16] };
                for shared_scan in [0u32, 1] {
                    if shared_scan == 0 && needs_workgroup_memory(tx / 32, true) {
                        continue;
                    }
                    macro_rules! uparams {
                        ($t:ident) => {
                            bytemuck::bytes_of(&unpack_params!($t, n, bs, tiles, (nx, ny, nz, tx, ty, tz, ntx, nty) {
                                qzigzag: qzz,
                                bzigzag: bzz,
                                centering: centering,
                                shared_scan: shared_scan,
                                eb: 0.05,
                                inv: 10.0,
                                step: 0.1,
                                one: 1.0,
                            }))
                            .to_vec()
                        };
                    }
                    let up = if f64v { uparams!(ChainUnpackParams64) } else { uparams!(ChainUnpackParams32) };
                    // float32 windows padded to 16 bytes, as the stage binds them;
                    // chain_decode_ragged stores the field's values only (Out16: the
                    // padding keeps its poison). Bound at n * 4 bytes, the last piece
                    // is only partly in the window: the Vulkan drivers and the twin
                    // take its component stores, the CUDA translation (bounds checked
                    // by whole elements) dropped them (H100, round 34)
                    let ragged = fzwgpu::kernels::chain::decode_ragged(&lp);
                    let out_bytes = if f64v { n * 8 } else { (n * 4).next_multiple_of(16) };
                    let out_bind = if ragged && !f64v { B::Out16(n * 4) } else { B::Out(out_bytes) };
                    decoded += 1;
                    ragged_decoded += ragged as u32;
                    // both backends' forms (1-D: chain_decode_1d with the CUDA-tuned
                    // variants, the walking chain_decode without)
                    let (plain, tuned) =
                        (fzwgpu::kernels::chain::decode_kernel(&lp, false), fzwgpu::kernels::chain::decode_kernel(&lp, true));
                    for k in if plain == tuned { vec![plain] } else { vec![plain, tuned] } {
                        twin_check(
                            &format!("{what} decode shared {shared_scan}"),
                            k,
                            f64v,
                            &up,
                            &[
                                B::In(meta.clone()),
                                B::In(bytes32(&offs)),
                                B::In(payload.clone()),
                                B::In(means_in.clone()),
                                out_bind.clone(),
                            ],
                            decode_groups(&lp).unwrap(),
                        );
                    }
                }
            }
            // chain_decode_planes inverts it up to the z scan (3-D: the x-y sums of every
            // plane, the tile head in each tile's first plane; float32 layout whatever
            // the field's type)
            if fzwgpu::kernels::chain::planes_unfit(bs, &lp, dstrip).is_none() {
                let (meta, payload) = (out[0].clone(), out[1].clone());
                let means_in = if centering == 1 { means.clone() } else { vec![0u8; 16] };
                for shared_scan in [0u32, 1] {
                    if shared_scan == 0 && needs_workgroup_memory(tx / 32, true) {
                        continue;
                    }
                    let up = bytemuck::bytes_of(&unpack_params!(ChainUnpackParams32, n, bs, tiles, (nx, ny, nz, tx, ty, tz, ntx, nty) {
                        bzigzag: bzz,
                        centering: centering,
                        shared_scan: shared_scan,
                    }))
                    .to_vec();
                    planes += 1;
                    twin_check(
                        &format!("{what} planes shared {shared_scan}"),
                        fzwgpu::kernels::chain::planes_kernel(&lp),
                        false,
                        &up,
                        &[B::In(meta.clone()), B::In(bytes32(&offs)), B::In(payload.clone()), B::In(means_in.clone()), B::Out16(n * 4)],
                        fzwgpu::kernels::chain::planes_groups(&lp).unwrap(),
                    );
                }
            }
        }
    }
    (decoded, ragged_decoded, planes)
}

/// Random geometries of one-plane walks (mostly flat units and ragged rows): row
/// lengths, tile extents and block sizes drawn from the test seed (printed), so each
/// run checks new edge positions.
#[test]
fn chain_random_geometries_match_twins() {
    let mut rng = Rng(seed() ^ 0x5eed_cafe);
    let tiles = [8u32, 16, 32, 48, 64, 100, 128, 256];
    let blocks = [32u32, 64, 128, 256, 512];
    let mut pick = |k: u64| (rng.next() % k) as u32;
    let geos: Vec<(u32, u32, u32, u32, u32, u32)> = (0..8)
        .map(|g| {
            let nx = 1 + pick(700);
            let ny = if g % 4 == 0 { 1 } else { 2 + pick(60) };
            let nz = if g % 2 == 0 { 1 } else { 1 + pick(6) };
            // at least 1000 values (the data's outliers start at index 3)
            let ny = ny.max(1000u32.div_ceil(nx * nz));
            (nx, ny, nz, tiles[pick(tiles.len() as u64) as usize], blocks[pick(blocks.len() as u64) as usize], 1)
        })
        .collect();
    let mut rng = Rng(seed() ^ 0xda7a);
    for g in geos {
        eprintln!("random chain geometry (nx, ny, nz, tile, block, walk) = {g:?}");
        chain_geometry_matches_twins(&mut rng, g);
    }
}

/// An inert-dispatch case of `chain_encode`'s forms: the params (centering, float32, walk
/// 1, block maxima through memory) and bindings of an n-value field of geometry `lp`
/// (smooth data; poisoned widths, costs and tile heads; slots and the outlier mask
/// and counts with known contents, returned to compare against).
fn encode_case(lp: &LorenzoParams, bs: u32) -> (Vec<u8>, [B; 8], Vec<u8>) {
    let n = (lp.nx * lp.ny * lp.nz) as usize;
    let tiles = (lp.ntx * lp.nty * lp.ntz.max(1)) as usize;
    let nb = n.div_ceil(bs as usize);
    let counts_at = (n.div_ceil(256) * 8).next_multiple_of(64);
    let pb = chain_test_params(false, n, bs, (1, 0, 1), lp, (1, 1, counts_at as u32));
    let mut qmask = vec![0xEEu8; counts_at * 4];
    qmask.extend((0..n.div_ceil(256)).flat_map(|_| 7u32.to_le_bytes()));
    let binds = [
        B::In(f32_bytes(&(0..n).map(|i| (i as f32 * 0.37).sin() * 20.0).collect::<Vec<_>>())),
        B::Same(0),
        B::Same(0),
        B::Out(nb * 4),
        B::Out(nb * 4),
        B::Init(vec![0xEE; fzwgpu::kernels::chain::slot_words(nb as u64, bs as u64) as usize * 4]),
        B::Out(tiles * 4),
        B::Init(qmask.clone()),
    ];
    (pb, binds, qmask)
}

/// `chain_encode` and `chain_encode_flat` have no 3-D walk (their `_3d` forms do): given
/// a field with nz > 1 they write nothing (every output keeps its poison), and their
/// twins refuse it, so a wrong choice of form cannot write a wrong archive unseen.
/// The host's choice (`encode_kernel`) is the form each geometry's twin takes.
/// Likewise the 1-D forms (`chain_encode_1d`, `chain_decode_1d`) and the 3-D
/// `chain_decode_planes` given 2-D fields.
#[test]
fn chain_forms_leave_other_geometries_alone() {
    use fzwgpu::kernels::chain::{encode_groups, encode_kernel};
    for (nx, flat) in [(64u32, false), (40, true)] {
        let (ny, nz, tile, bs) = (8u32, 4u32, 8u32, 64u32);
        let lp = LorenzoParams {
            nx,
            ny,
            nz,
            tx: 32,
            ty: tile,
            tz: tile,
            ntx: nx.div_ceil(32),
            nty: ny.div_ceil(tile),
            ntz: nz.div_ceil(tile),
            ..Default::default()
        };
        let three = if flat { Kernel::ChainEncodeFlat3d } else { Kernel::ChainEncode3d };
        let plain = if flat { Kernel::ChainEncodeFlat } else { Kernel::ChainEncode };
        assert_eq!(encode_kernel(&lp), three);
        let mut flat_lp = lp;
        flat_lp.nz = 1;
        flat_lp.ny = ny * nz;
        flat_lp.nty = flat_lp.ny.div_ceil(tile);
        flat_lp.tz = 1;
        flat_lp.ntz = 1;
        assert_eq!(encode_kernel(&flat_lp), plain, "the same rows as a 2-D field");
        let (pb, binds, qmask) = encode_case(&lp, bs);
        let groups = encode_groups(&lp, 1).unwrap();
        for g in [gpu(), gpu_plain()] {
            let out = run(g.as_ref(), 0xA5, plain, false, &pb, &binds, groups);
            let what = format!("{} on {nx}x{ny}x{nz} (subgroups {})", plain.name(), g.info().subgroups);
            assert!(out[0].iter().chain(&out[1]).chain(&out[3]).all(|&c| c == 0xA5), "{what}: wrote widths, costs or tile heads");
            assert!(out[2].iter().all(|&c| c == 0xEE), "{what}: wrote slot words");
            assert_eq!(out[4], qmask, "{what}: wrote the outlier mask or counts");
            // the 3-D form of the same dispatch writes every output
            let out = run(g.as_ref(), 0xA5, three, false, &pb, &binds, groups);
            assert!(out[0].chunks(4).all(|w| w != [0xA5; 4]), "{}: a block without a width", three.name());
        }
        let c = cpu();
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(c.as_ref(), 0x5A, plain, false, &pb, &binds, groups)));
        assert!(refused.is_err(), "{}'s twin took a 3-D field", plain.name());
    }
    // the 1-D forms on a 2-D field (rows of whole units), which chain_encode /
    // chain_decode take
    use fzwgpu::kernels::chain::{decode_groups, decode_kernel};
    use fzwgpu::kernels::params::ChainUnpackParams32;
    let (nx, ny, tile, bs) = (256u32, 24u32, 32u32, 128u32);
    let n = (nx * ny) as usize;
    let lp =
        LorenzoParams { nx, ny, nz: 1, tx: tile, ty: tile, tz: 1, ntx: nx / tile, nty: ny.div_ceil(tile), ntz: 1, ..Default::default() };
    assert_eq!(encode_kernel(&lp), Kernel::ChainEncode);
    assert_eq!(decode_kernel(&lp, true), Kernel::ChainDecode);
    assert_eq!(decode_kernel(&lp, false), Kernel::ChainDecode);
    let one = LorenzoParams { nx: nx * ny, ny: 1, ty: 1, nty: 1, ntx: (nx * ny) / tile, ..lp };
    assert_eq!(encode_kernel(&one), Kernel::ChainEncode1d, "the same values as a 1-D field");
    assert_eq!(decode_kernel(&one, true), Kernel::ChainDecode1d, "the same values as a 1-D field (CUDA-tuned)");
    assert_eq!(decode_kernel(&one, false), Kernel::ChainDecode, "the same values as a 1-D field (walking form)");
    let tiles = (lp.ntx * lp.nty) as usize;
    let nb = n.div_ceil(bs as usize);
    let (pb, binds, qmask) = encode_case(&lp, bs);
    let up = bytemuck::bytes_of(&unpack_params!(ChainUnpackParams32, n, bs, tiles, (nx, ny, 1, tile, tile, 1, lp.ntx, lp.nty) {
        centering: 1,
        shared_scan: 1,
        eb: 0.05,
        inv: 10.0,
        step: 0.1,
        one: 1.0,
    }))
    .to_vec();
    // a decodable archive's inputs are not needed: an inert kernel reads none of them
    let dbinds = [B::In(vec![0u8; nb * 2]), B::In(vec![0u8; nb * 4]), B::In(vec![0u8; 16]), B::In(vec![0u8; tiles * 4]), B::Out(n * 4)];
    for g in [gpu(), gpu_plain()] {
        let sub = g.info().subgroups;
        let out = run(g.as_ref(), 0xA5, Kernel::ChainEncode1d, false, &pb, &binds, encode_groups(&lp, 1).unwrap());
        assert!(
            out[0].iter().chain(&out[1]).chain(&out[3]).all(|&c| c == 0xA5) && out[2].iter().all(|&c| c == 0xEE) && out[4] == qmask,
            "chain_encode_1d on {nx}x{ny} (subgroups {sub}): wrote an output"
        );
        let out = run(g.as_ref(), 0xA5, Kernel::ChainDecode1d, false, &up, &dbinds, decode_groups(&lp).unwrap());
        assert!(out[0].iter().all(|&c| c == 0xA5), "chain_decode_1d on {nx}x{ny} (subgroups {sub}): wrote values");
        // the 3-D planes form likewise (it takes nz > 1 only)
        let out = run(g.as_ref(), 0xA5, Kernel::ChainDecodePlanes, false, &up, &dbinds, decode_groups(&lp).unwrap());
        assert!(out[0].iter().all(|&c| c == 0xA5), "chain_decode_planes on {nx}x{ny} (subgroups {sub}): wrote sums");
    }
    let c = cpu();
    for (k, p, b) in
        [(Kernel::ChainEncode1d, &pb, &binds[..]), (Kernel::ChainDecode1d, &up, &dbinds[..]), (Kernel::ChainDecodePlanes, &up, &dbinds[..])]
    {
        let groups = if k == Kernel::ChainEncode1d { encode_groups(&lp, 1).unwrap() } else { decode_groups(&lp).unwrap() };
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(c.as_ref(), 0x5A, k, false, p, b, groups)));
        assert!(refused.is_err(), "{}'s twin took a 2-D field", k.name());
    }
}

#[test]
fn chain_encode_and_compact_match_twins() {
    let mut decoded = 0;
    let mut ragged_decoded = 0;
    let mut planes = 0;
    let mut rng = Rng(seed());
    // (nx, ny, nz, tile, block, walk): ragged 1-D tails, walks that start inside a tile,
    // ragged tile bands, partial strips, block maxima by shuffles and through memory
    for &(nx, ny, nz, tile, bs, walk) in [
        (5003u32, 1u32, 1u32, 128u32, 128u32, 1u32),
        (70, 1, 1, 32, 32, 1),
        (256, 131, 1, 128, 128, 32),
        (2176, 7, 1, 128, 128, 4),
        (128, 5, 130, 128, 32, 32),
        (1024, 20, 1, 64, 512, 16),
        (64, 9, 40, 32, 32, 8),
        (4096, 3, 1, 32, 2048, 1),
        (1024, 9, 1, 512, 128, 1),
        (1056, 70, 1, 64, 32, 4),
        (96, 77, 1, 32, 32, 1),
        (160, 9, 1, 64, 32, 2),
        (64, 3, 50, 32, 64, 4),
        // 3-D rows that are not whole blocks in planes that are: blocks straddle rows
        // inside a step, walks of several planes (from inside a tile too)
        (288, 8, 12, 32, 128, 4),
        (96, 4, 10, 32, 128, 2),
        (160, 8, 6, 32, 256, 2),
        // rows that are not whole blocks: blocks straddle rows, walks of one plane
        (288, 7, 1, 32, 128, 1),
        (96, 5, 9, 32, 64, 1),
        (160, 3, 1, 32, 2048, 1),
        // flat units (rows or tiles that are not whole units of 32): units straddle
        // rows, tiles and planes; tiles wider than rows, tiles of 8, rows of 8 (four
        // rows per unit), ragged 1-D tiles
        (100, 37, 1, 128, 128, 1),
        (61, 45, 1, 16, 32, 1),
        (49, 37, 24, 128, 128, 1),
        (33, 20, 19, 8, 32, 1),
        (91, 13, 9, 128, 32, 1),
        (8, 8, 40, 128, 64, 1),
        (999, 5, 1, 128, 256, 1),
        (96, 30, 1, 48, 64, 1),
        (5003, 1, 1, 100, 128, 1),
        // ragged rows in several bands of tile rows (chain_decode_ragged)
        (100, 70, 1, 32, 64, 1),
        (250, 65, 1, 32, 32, 1),
        // a 3-D row of more units than a workgroup has invocations (chain_encode_3d: no
        // row above from workgroup memory, each invocation quantizes its own)
        (2112, 3, 4, 32, 64, 1),
        (288, 192, 10, 128, 128, 1),
        (288, 192, 10, 128, 128, 2),
        (288, 192, 10, 128, 128, 8),
        // 3-D planes in several bands of tile rows (chain_decode_planes, ragged or not)
        (64, 70, 3, 32, 64, 1),
        (100, 40, 3, 32, 64, 1),
        // rows starting at every offset mod 4 whose last unit holds fewer values than
        // precede its first 16-byte boundary (1 or 2 values), or 24-27 values
        (33, 41, 1, 32, 32, 1),
        (66, 37, 1, 64, 32, 1),
        (1, 1000, 1, 32, 32, 1),
        (2, 600, 1, 32, 32, 1),
        (91, 30, 1, 32, 32, 1),
    ]
    .iter()
    // chain_decode_ragged's last piece of every length: rows of 4k + 1 values past a
    // whole unit, starting at every offset mod 4
    .chain(&(0..8u32).map(|k| (33 + 4 * k, 24, 1, 32, 32, 1)).collect::<Vec<_>>())
    {
        let (d, r, p) = chain_geometry_matches_twins(&mut rng, (nx, ny, nz, tile, bs, walk));
        decoded += d;
        ragged_decoded += r;
        planes += p;
    }
    assert!(decoded >= 40 && ragged_decoded >= 8, "chain_decode checked on {decoded} cases, {ragged_decoded} ragged");
    assert!(planes >= 30, "chain_decode_planes checked on {planes} cases");
}

#[test]
fn chain_unpack_matches_twin() {
    use fzwgpu::kernels::params::{ChainUnpackParams32, ChainUnpackParams64, LorenzoParams};
    let mut rng = Rng(seed());
    let mut planes_checked = 0;
    // (dims, tile extent per used dim, bitpack block): 1-D, 2-D and 3-D, ragged edges,
    // tiles that do and do not hold whole bitpack blocks
    for &((nx, ny, nz), tile, bs) in &[
        ((5000u32, 1u32, 1u32), 128u32, 32u32),
        ((777, 1, 1), 64, 64),
        ((4096, 1, 1), 4096, 128),
        ((300, 37, 1), 128, 32),
        ((61, 45, 1), 16, 128),
        ((33, 20, 19), 8, 32),
        ((700, 3, 2), 512, 128),
        ((49, 37, 240), 128, 128),
        ((100, 3, 1), 4096, 64),
        ((3000, 2, 1), 4096, 64), // rows past 4 * 256: chain_scan_x's runs of 12
        ((256, 40, 5), 32, 128),  // whole units of 32 (chain_decode_planes), bands of 32
    ] {
        let n = (nx * ny * nz) as usize;
        let (tx, ty, tz) = (tile, if ny > 1 { tile } else { 1 }, if nz > 1 { tile } else { 1 });
        let (ntx, nty, ntz) = (nx.div_ceil(tx), ny.div_ceil(ty), nz.div_ceil(tz));
        let res: Vec<u32> = (0..n).map(|i| if i % 100 < 50 { 0 } else { ((rng.next() >> 58) as i32 - 32) as u32 }).collect();
        let nb = n.div_ceil(bs as usize);
        let p = BitpackParams { n: n as u32, block_size: bs, nblocks: nb as u32, zigzag: 1, ..Default::default() };
        let c = cpu();
        let w = run(
            c.as_ref(),
            0,
            Kernel::BitpackWidth,
            false,
            bytemuck::bytes_of(&p),
            &[B::In(bytes32(&res)), B::Out(nb * 4), B::Out(nb * 4)],
            nb as u64,
        );
        let cost = u32s(&w[1]);
        let (offs, acc) = offsets_of(&cost[..nb]);
        let pk = run(
            c.as_ref(),
            0,
            Kernel::BitpackPack,
            false,
            bytemuck::bytes_of(&p),
            &[
                B::In(bytes32(&res)),
                B::In(w[0].clone()),
                B::In(bytes32(&offs)),
                B::Out(nb.next_multiple_of(4)),
                B::Out(acc.max(1) as usize * 4),
                B::Out(4),
            ],
            nb as u64,
        );
        let ntiles = (ntx * nty * ntz) as usize;
        let means: Vec<u32> = (0..ntiles).map(|t| t as u32 * 7).collect();
        for (f64v, centering) in [(false, 1u32), (true, 0u32)] {
            macro_rules! uparams {
                ($t:ident { $($f:ident: $v:expr),* }) => {
                    unpack_params!($t, n, bs, ntiles, (nx, ny, nz, tx, ty, tz, ntx, nty) { bzigzag: 1, centering: centering, $($f: $v),* })
                };
            }
            // the integer fields (chain_scan_x reads only these, in the float32 layout)
            let p32 = uparams!(ChainUnpackParams32 {});
            let pb = if f64v {
                bytemuck::bytes_of(&uparams!(ChainUnpackParams64 { qzigzag: 1, eb: 0.5, inv: 1.0, step: 1.0, one: 1.0 })).to_vec()
            } else {
                bytemuck::bytes_of(&uparams!(ChainUnpackParams32 { qzigzag: 0, eb: 0.25, inv: 2.0, step: 0.5, one: 1.0 })).to_vec()
            };
            let unpacked = twin_check(
                "chain_unpack",
                Kernel::ChainUnpack,
                f64v,
                &pb,
                &[
                    B::In(pk[0].clone()),
                    B::In(bytes32(&offs)),
                    B::In(pk[1].clone()),
                    B::In(bytes32(&means)),
                    B::Out(n * if f64v { 8 } else { 4 }),
                    if ny * nz > 1 { B::Out(n * 4) } else { B::Scratch(16) },
                ],
                ntiles as u64,
            );
            if ny * nz == 1 {
                continue;
            }
            // the line-parallel form (chain_scan_x, lorenzo_scan_axis along y in 3-D,
            // chain_scan_last) must give chain_unpack's values bit for bit
            let team = fzwgpu::kernels::chain::scan_x_team(tx, 256).unwrap();
            // (a dispatch sized for the default variant: the CUDA-tuned one, four segments
            // per team, runs the same dispatch below, its surplus teams idle)
            let (_, teams) = fzwgpu::kernels::chain::scan_x_teams(ntx, (ny * nz) as u64, false).unwrap();
            let mut sums = twin_check(
                "chain_scan_x",
                Kernel::ChainScanX,
                false,
                bytemuck::bytes_of(&p32),
                &[B::In(pk[0].clone()), B::In(bytes32(&offs)), B::In(pk[1].clone()), B::In(bytes32(&means)), B::Out(n * 4)],
                teams.div_ceil((256 / team) as u64),
            )
            .remove(0);
            let g = gpu_coalesce();
            assert!(g.info().coalesce);
            let tuned = run(
                g.as_ref(),
                0xA5,
                Kernel::ChainScanX,
                false,
                bytemuck::bytes_of(&p32),
                &[B::In(pk[0].clone()), B::In(bytes32(&offs)), B::In(pk[1].clone()), B::In(bytes32(&means)), B::Out(n * 4)],
                teams.div_ceil((256 / team) as u64),
            );
            assert!(tuned[0] == sums, "chain_scan_x (SEGS of the CUDA-tuned variant) differs from its twin, dims {nx}x{ny}x{nz}");
            if nz > 1 {
                let lp = LorenzoParams { nx, ny, nz, tx, ty, tz, ntx, nty, ntz, axis: 1, nlines: nx * nty * nz, ..Default::default() };
                sums = twin_check(
                    "chain_scan y",
                    Kernel::LorenzoScanAxis,
                    false,
                    bytemuck::bytes_of(&lp),
                    &[B::Init(sums)],
                    (lp.nlines as u64).div_ceil(256),
                )
                .remove(0);
                // chain_decode_planes leaves the same sums in one pass, where it fits
                let lp = LorenzoParams { nx, ny, nz, tx, ty, tz, ntx, nty, ntz, ..Default::default() };
                let max = fzwgpu::kernels::chain::max_extent().unwrap();
                if fzwgpu::kernels::chain::planes_unfit(bs, &lp, max).is_none() {
                    let shared = fzwgpu::kernels::chain::needs_workgroup_memory(tx / 32, true) as u32;
                    let pp = uparams!(ChainUnpackParams32 { shared_scan: shared });
                    let planes = twin_check(
                        "chain_decode_planes",
                        fzwgpu::kernels::chain::planes_kernel(&lp),
                        false,
                        bytemuck::bytes_of(&pp),
                        &[B::In(pk[0].clone()), B::In(bytes32(&offs)), B::In(pk[1].clone()), B::In(bytes32(&means)), B::Out16(n * 4)],
                        fzwgpu::kernels::chain::planes_groups(&lp).unwrap(),
                    );
                    assert!(
                        planes[0][..n * 4] == sums[..],
                        "chain_decode_planes differs from chain_scan_x + lorenzo_scan_axis ({nx}x{ny}x{nz})"
                    );
                    planes_checked += 1;
                }
            }
            let lines = if nz > 1 { (nx * ny * ntz) as u64 } else { (nx * nty) as u64 };
            let out = twin_check(
                "chain_scan_last",
                Kernel::ChainScanLast,
                f64v,
                &pb,
                &[B::In(sums), B::Out(n * if f64v { 8 } else { 4 })],
                lines.div_ceil(256),
            );
            assert!(out[0] == unpacked[0], "chain_scan differs from chain_unpack ({nx}x{ny}x{nz}, tile {tile}, f64 {f64v})");
        }
    }
    assert!(planes_checked >= 4, "chain_decode_planes checked on {planes_checked} geometries");
}

/// Field values that exercise the wavelet kernels' special cases: smooth values,
/// noise, huge and tiny magnitudes, zeros of both signs, NaN, ±Inf, subnormals.
fn wavelet_field(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| match rng.next() % 40 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => 1e-310,
            4 => -0.0,
            5 => 3.0e38 * if i % 2 == 0 { 1.0 } else { -1.0 },
            6 => 1e-39,
            7 => (rng.unit() - 0.5) * 1e30,
            _ => (i as f64 * 0.01).sin() * 100.0 + rng.unit(),
        })
        .collect()
}

fn field_bytes(v: &[f64], f64v: bool) -> Vec<u8> {
    if f64v {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    } else {
        v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect()
    }
}

fn correct_params(n: usize, eb: f64, f64v: bool, count: usize, cap: usize) -> Vec<u8> {
    use fzwgpu::kernels::params::{CorrectParams32, CorrectParams64};
    let eb = if f64v { eb } else { eb as f32 as f64 };
    let step64 = eb + eb;
    let (n, count, cap) = (n as u32, count as u32, cap as u32);
    let nan64 = f64::from_bits(fzwgpu::backend::cpu::wavelet::NAN64);
    macro_rules! fill {
        ($t:ident, $eb:expr) => {
            bytemuck::bytes_of(&$t {
                n,
                count,
                cap,
                eb: $eb,
                one: 1.0,
                step64,
                inv64: 1.0 / step64,
                one64: 1.0,
                kmax: (1u64 << 30) as f64,
                nan64,
                ..Default::default()
            })
            .to_vec()
        };
    }
    if f64v {
        fill!(CorrectParams64, eb)
    } else {
        fill!(CorrectParams32, eb as f32)
    }
}

#[test]
fn wavelet_lift_matches_twin_and_inverts() {
    use fzwgpu::stages::wavelet::{passes, Wavelet};
    use fzwgpu::Dims;
    let mut rng = Rng(seed());
    for &(nx, ny, nz) in &[(64u64, 1u64, 1u64), (333, 1, 1), (37, 29, 1), (9, 10, 11), (300, 17, 9), (8, 8, 8), (1000, 3, 1)] {
        let dims = Dims::new(nx, ny, nz).unwrap();
        let n = dims.len() as usize;
        let orig: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 50.0 + rng.unit() * 3.0 - 1.0).collect();
        for w in [Wavelet::Cdf97, Wavelet::Cdf53] {
            let mut cur: Vec<u8> = orig.iter().flat_map(|x| x.to_le_bytes()).collect();
            for inverse in [false, true] {
                for (p, lines) in passes(w, dims, inverse).unwrap() {
                    let out = twin_check(
                        &format!("{dims} {w:?} inverse {inverse} len {}", p.len),
                        Kernel::WaveletLift,
                        true,
                        bytemuck::bytes_of(&p),
                        &[B::Init(cur.clone()), B::Scratch(n * 8)],
                        lines,
                    );
                    cur = out[0].clone();
                }
            }
            let back = f64_from(&cur);
            let err = orig.iter().zip(&back).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(err < 1e-9, "{dims} {w:?}: forward + inverse differs by {err}");
        }
    }
}

#[test]
fn wavelet_io_and_correct_kernels_match_twins() {
    let mut rng = Rng(seed());
    for n in [1usize, 255, 257, 4099, 70_001] {
        let field = wavelet_field(&mut rng, n);
        for f64v in [false, true] {
            let sz = if f64v { 8 } else { 4 };
            let raw = field_bytes(&field, f64v);
            let p0 = correct_params(n, 0.0, f64v, 0, 0);
            let groups = n.div_ceil(256) as u64;
            let work = twin_check("wavelet_load", Kernel::WaveletLoad, f64v, &p0, &[B::In(raw.clone()), B::Same(0), B::Out(n * 8)], groups);
            // the trial: loaded values, perturbed (mostly within a bound of 0.5, some not)
            let trial: Vec<f64> = f64_from(&work[0])
                .iter()
                .map(|w| match rng.next() % 10 {
                    0 => w + 3.7,
                    1 => w - 0.9,
                    2 => w * 1e300,
                    _ => w + (rng.unit() - 0.5) * 0.9,
                })
                .collect();
            let tb: Vec<u8> = trial.iter().flat_map(|x| x.to_le_bytes()).collect();
            twin_check("wavelet_store", Kernel::WaveletStore, f64v, &p0, &[B::In(tb.clone()), B::Out(n * sz)], groups);
            let eb = 0.5;
            let p = correct_params(n, eb, f64v, 0, n);
            let flags = twin_check(
                "correct_flag",
                Kernel::CorrectFlag,
                f64v,
                &p,
                &[B::In(raw.clone()), B::Same(0), B::In(tb.clone()), B::Out(n * 4)],
                groups,
            );
            let fl = u32s(&flags[0]);
            let (pos, acc) = offsets_of(&fl[..n]);
            let count = acc as usize;
            let ent = twin_check(
                "correct_scatter",
                Kernel::CorrectScatter,
                f64v,
                &p,
                &[
                    B::In(raw.clone()),
                    B::Same(0),
                    B::In(tb.clone()),
                    B::In(flags[0].clone()),
                    B::In(bytes32(&pos)),
                    B::Init(vec![0; n * 16]),
                    B::Out(4),
                ],
                groups,
            );
            assert_eq!(u32s(&ent[1])[0] as usize, count);
            let entries = ent[0][..count * 16].to_vec();
            // apply over the stored trial: every value ends within the bound, NaN/Inf exact
            let stored = run(cpu().as_ref(), 0, Kernel::WaveletStore, f64v, &p0, &[B::In(tb.clone()), B::Out(n * sz)], groups).remove(0);
            let pa = correct_params(n, eb, f64v, count, count);
            let out = twin_check(
                "correct_apply",
                Kernel::CorrectApply,
                f64v,
                &pa,
                &[B::In(entries.clone()), B::Same(0), B::In(tb.clone()), B::Init(stored)],
                (count.div_ceil(256) as u64).max(1),
            );
            let (orig, recon): (Vec<f64>, Vec<f64>) = if f64v {
                (f64_from(&raw), f64_from(&out[0]))
            } else {
                (f32_from(&raw).iter().map(|&x| x as f64).collect(), f32_from(&out[0]).iter().map(|&x| x as f64).collect())
            };
            for i in 0..n {
                if orig[i].is_finite() {
                    assert!(exact_within(orig[i], recon[i], eb), "n {n} f64 {f64v}: value {i} {} -> {}", orig[i], recon[i]);
                } else {
                    let (a, b) = if f64v {
                        (orig[i].to_bits(), recon[i].to_bits())
                    } else {
                        ((orig[i] as f32).to_bits() as u64, (recon[i] as f32).to_bits() as u64)
                    };
                    assert_eq!(a, b, "non-finite value {i} not restored exactly");
                }
            }
        }
    }
}

/// Blocks whose quarter-step shift (the second try after a value's code missed the
/// bound) needs one bit more than the unshifted levels: found with the cpu twin at a
/// bound of 2.5625 float32 ULPs near 1.0, where codes miss through the levels'
/// rounding. Interleaved with blocks that keep their first codes, so one subgroup
/// holds blocks that shift and blocks that do not.
#[test]
fn szx_encode_shift_that_widens() {
    use fzwgpu::backend::cpu::szx::{classify_block, quant, BT_QUANT};
    let mut rng = Rng(seed());
    let e = f32::round_down_from_f64(2.5625 * 2f64.powi(-23));
    let step = e + e;
    // the twin's view of the kernels' params (the same bytes the kernels get)
    let p = <f32 as SzxFloat>::params(&szx_params::<f32>(128, 128, e as f64, false)).unwrap();
    let block = |rng: &mut Rng, k: i32, frac: f64| -> Vec<f32> {
        let base = 1.0 + rng.unit();
        let span = (2f64.powi(k) - 1.0 + frac) * step as f64;
        let mut v: Vec<f32> = (0..128).map(|i| (base + span * [0.0, 1.0].get(i).copied().unwrap_or_else(|| rng.unit())) as f32).collect();
        v[2] = v[0];
        v
    };
    let (mut field, mut hits) = (Vec::new(), 0);
    for t in 0..4000 {
        let frac = 0.25 + 0.25 * rng.unit();
        let v = block(&mut rng, 1 + t % 6, frac);
        let du: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
        let (inf, _, _) = classify_block(&p, &du, &v, 0, &mut Vec::new());
        let (mn, mx) = (v.iter().copied().fold(f32::INFINITY, f32::min), v.iter().copied().fold(f32::NEG_INFINITY, f32::max));
        let w0 = 32 - (quant(mx, mn, &p) as u32).leading_zeros();
        if inf & 0xff == BT_QUANT && inf >> 8 != w0 {
            hits += 1;
            field.extend_from_slice(&v);
            // a neighbour that keeps its first codes (or is constant or raw)
            let frac = 0.1 * rng.unit();
            field.extend(block(&mut rng, 1 + t % 6, frac));
        }
    }
    assert!(hits >= 16, "only {hits} widening shifts found");
    szx_chain::<f32>(&format!("{hits} widening shifts"), f32_bytes(&field), field.len(), 128, e as f64);
}

/// `subgroup_layout` (the adapter probe the wgpu backend runs when it opens a device):
/// its variant without subgroups against its twin, and its subgroup variant against
/// the layout the subgroup kernels assume, over a partial last workgroup whose
/// invocations past n must leave the poison.
#[test]
fn subgroup_layout_matches_twin_and_the_assumed_layout() {
    use fzwgpu::kernels::params::ProbeParams;
    let wg = fzwgpu::kernels::workgroup_size(Kernel::SubgroupLayout).unwrap() as usize;
    for n in [1usize, wg - 1, wg, 3 * wg - 5] {
        let groups = n.div_ceil(wg) as u64;
        let p = ProbeParams { n: n as u32, ..Default::default() };
        // room for every invocation of the dispatch: those past n write nothing
        let binds = [B::Out(16 * wg * groups as usize)];
        let go = |be: &dyn Backend, poison: u8| {
            let mut out = run(be, poison, Kernel::SubgroupLayout, false, bytemuck::bytes_of(&p), &binds, groups).remove(0);
            assert!(out[16 * n..].iter().all(|&c| c == poison), "n {n} on {}: wrote past invocation n", be.info().adapter);
            out.truncate(16 * n);
            out
        };
        let want = go(cpu().as_ref(), 0x5A);
        assert!(go(gpu_plain().as_ref(), 0xA5) == want, "n {n}: subgroup_layout without subgroups differs from its twin");
        let g = gpu();
        if g.info().subgroups {
            let words = u32s(&go(g.as_ref(), 0xA5));
            let size = fzwgpu::kernels::probe::check_subgroup_layout(&words, n, wg as u32, 1, 128)
                .unwrap_or_else(|e| panic!("n {n} on {}: {e}", g.info().adapter));
            assert!(g.info().subgroup_max >= size, "n {n}: size {size}");
        }
    }
}
