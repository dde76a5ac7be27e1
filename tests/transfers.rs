//! Large host <-> device transfers: uploads through the staging pair (filled on several
//! threads), readbacks through the download staging pair, `read_into` into caller
//! memory, and direct transfers (the caller's memory imported, `FZWGPU_HOST_IMPORT`).
//! Every byte must arrive, in place, and nothing outside the destinations may be
//! written.

mod common;
use common::*;
use fzwgpu::recording::BufSlice;

const MIB: usize = 1 << 20;

fn pattern(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        v.extend_from_slice(&rng.next().to_le_bytes());
    }
    v.truncate(n);
    v
}

#[test]
fn large_uploads_and_readbacks_are_exact() {
    // past two 32 MiB staging chunks, with a tail that is not a whole 1 MiB piece
    let n = 70 * MIB + 8;
    let data = pattern(n, 7);
    for (name, be) in backends() {
        let buf = be.create_buffer(n as u64).unwrap();
        be.write_buffer(buf, 0, &data).unwrap();
        // several windows at once: one larger than a chunk, a small one, one that
        // starts inside the second chunk and ends in the third
        let windows = [(0usize, 40 * MIB), (4, 1000), (36 * MIB + 12, 33 * MIB + 4), (n - 8, 8)];
        let slices: Vec<BufSlice> = windows.iter().map(|&(o, l)| BufSlice::new(buf, o as u64, l as u64)).collect();
        let got = be.read_buffers(&slices).unwrap();
        for ((o, l), g) in windows.iter().zip(&got) {
            assert_eq!(g.len(), *l, "{name}: window {o}+{l} length");
            assert!(g[..] == data[*o..o + l], "{name}: window {o}+{l} differs");
        }
        // a second upload at an offset over the same buffer (with its CRC)
        let data2 = pattern(9 * MIB + 4, 8);
        assert_eq!(be.write_buffer_crc(buf, 4 * MIB as u64, &data2).unwrap(), crc32fast::hash(&data2), "{name}: write_buffer_crc");
        let got = be.read_buffers(&[BufSlice::new(buf, 0, n as u64)]).unwrap().remove(0);
        assert!(got[..4 * MIB] == data[..4 * MIB], "{name}: bytes before the second upload changed");
        assert!(got[4 * MIB..4 * MIB + data2.len()] == data2[..], "{name}: second upload differs");
        assert!(got[4 * MIB + data2.len()..] == data[4 * MIB + data2.len()..], "{name}: bytes after the second upload changed");
        be.release_buffer(buf);
    }
}

#[test]
fn read_into_fills_exactly_the_destinations() {
    let n = 40 * MIB;
    let data = pattern(n, 11);
    for (name, be) in backends() {
        let buf = be.create_buffer(n as u64).unwrap();
        be.write_buffer(buf, 0, &data).unwrap();
        // ragged destination lengths (1-3 bytes short of the window), carved out of
        // one poisoned allocation with guard gaps between them
        let windows = [(0usize, 33 * MIB, 3usize), (8, 17, 1), (5 * MIB, 6 * MIB + 4, 2), (n - 4, 4, 0)];
        let gap = 64;
        let total: usize = windows.iter().map(|&(_, l, short)| l - short + gap).sum();
        // plain, then with the CRC of each destination hashed as it is copied in
        for with_crc in [false, true] {
            let mut mem = vec![0xABu8; total];
            let mut crcs = Vec::new();
            {
                let mut rest = mem.as_mut_slice();
                let mut dsts: Vec<&mut [u8]> = Vec::new();
                for &(_, l, short) in &windows {
                    let (d, r) = rest.split_at_mut(l - short);
                    let (_, r) = r.split_at_mut(gap);
                    dsts.push(d);
                    rest = r;
                }
                let slices: Vec<BufSlice> = windows.iter().map(|&(o, l, _)| BufSlice::new(buf, o as u64, l as u64)).collect();
                if with_crc {
                    crcs = be.read_into_crc(&slices, &mut dsts).unwrap();
                } else {
                    be.read_into(&slices, &mut dsts).unwrap();
                }
            }
            let mut at = 0;
            for (i, &(o, l, short)) in windows.iter().enumerate() {
                let k = l - short;
                assert!(mem[at..at + k] == data[o..o + k], "{name}: window {o}+{l} differs");
                assert!(mem[at + k..at + k + gap].iter().all(|&b| b == 0xAB), "{name}: bytes past window {o}+{l} were written");
                if with_crc {
                    assert_eq!(crcs[i], crc32fast::hash(&data[o..o + k]), "{name}: CRC of window {o}+{l}");
                }
                at += k + gap;
            }
        }
        // a destination longer than its window is an error, not a partial read
        let mut big = vec![0u8; 12];
        let err = be.read_into(&[BufSlice::new(buf, 0, 8)], &mut [big.as_mut_slice()]);
        assert!(err.is_err(), "{name}: an oversized destination must be refused");
        be.release_buffer(buf);
    }
}

#[test]
fn both_upload_stagings_are_exact() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::Backend;
    // wgpu's mapped buffers, and buffers in host memory (lavapipe offers a cached
    // host-visible type, so CI runs this path): ragged lengths, offsets, several chunks
    let n = 67 * MIB + 4;
    let data = pattern(n, 21);
    for host in [false, true] {
        let be = WgpuBackend::new(&WgpuOptions { host_staging: Some(host), host_import: Some(false), ..Default::default() })
            .expect("wgpu adapter");
        let staging = be.info().upload_staging.clone();
        assert_eq!(staging.starts_with("host memory"), host, "{staging}");
        let buf = be.create_buffer(n as u64 + 16).unwrap();
        be.write_buffer(buf, 0, &vec![0x5Au8; n + 16]).unwrap();
        // write_buffer_crc: the same upload, and the CRC-32 of the bytes written
        let crc = be.write_buffer_crc(buf, 12, &data[..n - 3]).unwrap();
        assert_eq!(crc, crc32fast::hash(&data[..n - 3]), "{staging}: write_buffer_crc's CRC");
        let got = be.read_buffers(&[BufSlice::new(buf, 0, n as u64 + 16)]).unwrap().remove(0);
        assert!(got[..12].iter().all(|&b| b == 0x5A), "{staging}: bytes before the upload changed");
        assert!(got[12..n + 9] == data[..n - 3], "{staging}: the upload differs");
        // the ragged tail is padded to a whole word with zero bytes
        assert!(got[n + 9..n + 12] == [0, 0, 0], "{staging}: padding bytes");
        assert!(got[n + 12..].iter().all(|&b| b == 0x5A), "{staging}: bytes after the upload changed");
        // the pair reused: a second upload, back to back, then read
        let data2 = pattern(40 * MIB, 22);
        be.write_buffer(buf, 4 * MIB as u64, &data2).unwrap();
        let got = be.read_buffers(&[BufSlice::new(buf, 4 * MIB as u64, data2.len() as u64)]).unwrap().remove(0);
        assert!(got == data2, "{staging}: the second upload differs");
        be.release_buffer(buf);
    }
}

#[test]
fn staging_allocation_failures_are_typed_errors() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::{Backend, Error};
    let data = pattern(9 * MIB, 3);
    // allocations in order: the buffer, then the upload and the download staging buffers
    // (two each by default; FZWGPU_UPLOAD_BUFFERS / FZWGPU_DOWNLOAD_BUFFERS change the
    // counts, so the test finds the count instead of assuming it): failing each one in
    // turn gives a typed error, until k passes the last allocation and the run
    // succeeds; wgpu's mapped upload staging and the host-memory one make as many
    let mut counts = Vec::new();
    for host in [false, true] {
        let mut done = None;
        for k in 0..64u64 {
            let be = WgpuBackend::new(&WgpuOptions {
                fail_allocs_after: Some(k),
                host_staging: Some(host),
                host_import: Some(false),
                ..Default::default()
            })
            .expect("wgpu adapter");
            let run = || -> fzwgpu::Result<Vec<u8>> {
                let buf = be.create_buffer(data.len() as u64)?;
                be.write_buffer(buf, 0, &data)?;
                Ok(be.read_buffers(&[BufSlice::new(buf, 0, data.len() as u64)])?.remove(0))
            };
            match run() {
                Ok(got) => {
                    assert!(got == data, "allocation {k} (host staging {host}): the bytes differ");
                    done = Some(k);
                    break;
                }
                Err(Error::OutOfMemory(_)) => {}
                Err(e) => panic!("allocation {k} (host staging {host}): untyped failure {e}"),
            }
        }
        let k = done.expect("no run succeeded within 64 allocations");
        // the buffer and at least two staging buffers each way
        assert!(k >= 5, "host staging {host}: only {k} allocations failed before a run succeeded");
        counts.push(k);
    }
    assert_eq!(counts[0], counts[1], "the two upload stagings allocate differently");
}

#[test]
fn host_staging_failure_falls_back_and_says_so() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::Backend;
    // the host-memory staging's allocation fails at the first large upload: the upload
    // goes through wgpu's mapped buffers instead, exactly, and upload_staging() (what
    // bench records) says so from then on, where info() keeps the choice at creation
    let be = WgpuBackend::new(&WgpuOptions {
        host_staging: Some(true),
        fail_host_staging: true,
        host_import: Some(false),
        ..Default::default()
    })
    .expect("wgpu adapter");
    assert!(be.info().upload_staging.starts_with("host memory"), "{}", be.info().upload_staging);
    assert_eq!(be.upload_staging(), be.info().upload_staging, "before any upload");
    let data = pattern(9 * MIB + 4, 5);
    let buf = be.create_buffer(data.len() as u64).unwrap();
    be.write_buffer(buf, 0, &data).unwrap();
    let got = be.read_buffers(&[BufSlice::new(buf, 0, data.len() as u64)]).unwrap().remove(0);
    assert!(got == data, "the upload through the fallback differs");
    let now = be.upload_staging();
    assert!(now.starts_with("mapped buffers (host-memory staging failed at run time: injected failure"), "{now}");
    be.release_buffer(buf);
}

#[test]
fn direct_transfers_are_exact() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::Backend;
    // the caller's memory imported (VK_EXT_external_memory_host, which lavapipe offers:
    // CI must run this path), in pieces of 1 MiB so one transfer takes several imports;
    // slices that start and end inside pages, through write_buffer(_crc), read_into(_crc)
    // into poisoned destinations with guard bytes around them, and the transfers that
    // do not qualify (a start or length not a multiple of 4: staged) beside them
    let be = WgpuBackend::new(&WgpuOptions { host_import: Some(true), import_piece: Some(MIB as u64), ..Default::default() })
        .expect("wgpu adapter");
    let how = be.upload_staging();
    assert!(how.starts_with("the caller's memory imported"), "direct transfers not on: {how}");
    let data = pattern(9 * MIB + 4 * 1000 + 8, 11);
    let n = data.len() - 8;
    for (start, len) in [(4usize, n), (0, 5 * MIB), (1, n - 8), (8, n - 3)] {
        let src = &data[start..start + len];
        let buf = be.create_buffer(len as u64 + 16).unwrap();
        let crc = be.write_buffer_crc(buf, 4, src).unwrap();
        assert_eq!(crc, crc32fast::hash(src), "upload crc, start {start} len {len}");
        let mut dst = vec![0xA5u8; len + 12];
        {
            let mut outs = [&mut dst[4..4 + len]];
            let crcs = be.read_into_crc(&[BufSlice::new(buf, 4, len as u64)], &mut outs).unwrap();
            assert_eq!(crcs, vec![crc32fast::hash(src)], "readback crc, start {start} len {len}");
        }
        assert!(dst[4..4 + len] == *src, "readback differs, start {start} len {len}");
        assert!(dst[..4].iter().chain(&dst[4 + len..]).all(|&b| b == 0xA5), "guard bytes touched, start {start} len {len}");
        dst.fill(0x5A);
        be.write_buffer(buf, 0, &data[start..start + len]).unwrap();
        be.read_into(&[BufSlice::new(buf, 0, len as u64)], &mut [&mut dst[8..8 + len]]).unwrap();
        assert!(dst[8..8 + len] == *src, "read_into differs, start {start} len {len}");
        assert!(dst[..8].iter().chain(&dst[8 + len..]).all(|&b| b == 0x5A), "guard bytes touched (read_into), start {start}");
        be.release_buffer(buf);
    }
    assert_eq!(be.upload_staging(), how, "no import fell back");
}

#[test]
fn failed_imports_fall_back_and_say_so() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::Backend;
    let be = WgpuBackend::new(&WgpuOptions { host_import: Some(true), fail_import: true, ..Default::default() }).expect("wgpu adapter");
    let data = pattern(6 * MIB, 12);
    let buf = be.create_buffer(data.len() as u64).unwrap();
    let crc = be.write_buffer_crc(buf, 0, &data).unwrap();
    assert_eq!(crc, crc32fast::hash(&data));
    let mut dst = vec![0u8; data.len()];
    be.read_into(&[BufSlice::new(buf, 0, data.len() as u64)], &mut [&mut dst[..]]).unwrap();
    assert!(dst == data, "the transfers through the fallback differ");
    let now = be.upload_staging();
    assert!(now.contains("a direct transfer fell back to staging: injected failure"), "{now}");
    be.release_buffer(buf);
    // asked for but off (the option): the staging serves, and says nothing of imports
    let off = WgpuBackend::new(&WgpuOptions { host_import: Some(false), ..Default::default() }).expect("wgpu adapter");
    assert!(!off.upload_staging().contains("import"), "{}", off.upload_staging());
}

/// A direct transfer never returns while the device may still touch the caller's
/// memory, even past the wait limit (a zero limit here): a readback's destination
/// holds the data when the call returns, Ok or timed out, and stays so; an upload's
/// source may be overwritten as soon as the call returns, Ok or timed out, without the
/// device seeing the new bytes.
#[test]
fn direct_transfers_outlast_their_wait_limit() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::{Backend, Error};
    let be = WgpuBackend::new(&WgpuOptions { host_import: Some(true), ..Default::default() }).expect("wgpu adapter");
    assert!(be.upload_staging().starts_with("the caller's memory imported"), "{}", be.upload_staging());
    let n = 96 * MIB;
    let data = pattern(n, 13);
    let buf = be.create_buffer(n as u64).unwrap();
    be.write_buffer(buf, 0, &data).unwrap();
    let timed_out = |r: fzwgpu::Result<()>, what: &str| match r {
        Ok(()) => false,
        Err(Error::Device(m)) if m.contains("limit") => true,
        Err(e) => panic!("{what}: expected Ok or a timeout, got {e:?}"),
    };
    let (mut up_to, mut down_to) = (0, 0);
    let mut data = data;
    for round in 0..3 {
        // readback: the destination is complete at return and does not change after
        let mut dst = vec![0u8; n];
        be.set_poll_timeout(Some(std::time::Duration::ZERO));
        down_to += timed_out(be.read_into(&[BufSlice::new(buf, 0, n as u64)], &mut [&mut dst[..]]), "read_into") as u32;
        let at_return = dst.clone();
        be.set_poll_timeout(None);
        let same = at_return.iter().zip(&data).filter(|(a, b)| a == b).count();
        assert!(at_return == data, "round {round}: the readback's destination was incomplete when read_into returned ({same} of {n} bytes; {down_to} timeouts; {})", be.upload_staging());
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(dst == at_return, "round {round}: the device wrote into the destination after read_into returned");
        drop(dst);
        // upload: the source is overwritten right after the call returns
        let mut src = pattern(n, 100 + round);
        let want = src.clone();
        be.set_poll_timeout(Some(std::time::Duration::ZERO));
        up_to += timed_out(be.write_buffer(buf, 0, &src), "write_buffer") as u32;
        src.fill(0xEE);
        be.set_poll_timeout(None);
        let got = be.read_buffers(&[BufSlice::new(buf, 0, n as u64)]).unwrap();
        assert!(got[0] == want, "round {round}: the device read the upload's source after write_buffer returned");
        data = want;
    }
    eprintln!("timed out: {down_to} of 3 readbacks, {up_to} of 3 uploads");
    be.release_buffer(buf);
}

/// A readback window past its buffer's end, or not on a 4-byte word, is a typed error
/// (never a panic or a copy of other memory), through the staging pair and straight
/// into the caller's memory, by `read_into` and `read_into_crc`.
#[test]
fn readbacks_outside_a_buffer_are_typed_errors() {
    use fzwgpu::backend::wgpu::{WgpuBackend, WgpuOptions};
    use fzwgpu::{Backend, Error};
    for import in [false, true] {
        let be = WgpuBackend::new(&WgpuOptions { host_import: Some(import), ..Default::default() }).expect("wgpu adapter");
        let n = 8 * MIB;
        let buf = be.create_buffer(n as u64).unwrap();
        for (offset, len) in [(1u64 << 40, n), (2, n), (1u64 << 40, 64), (2, 64)] {
            let mut dst = vec![0x77u8; len];
            let s = [BufSlice::new(buf, offset, len as u64)];
            let r = be.read_into(&s, &mut [&mut dst[..]]);
            assert!(matches!(r, Err(Error::Device(_))), "import {import}, read_into at {offset} of {len}: {r:?}");
            let r = be.read_into_crc(&s, &mut [&mut dst[..]]);
            assert!(matches!(r, Err(Error::Device(_))), "import {import}, read_into_crc at {offset} of {len}: {r:?}");
            assert!(dst.iter().all(|&b| b == 0x77), "import {import}: a refused readback wrote its destination");
        }
        be.release_buffer(buf);
    }
}
