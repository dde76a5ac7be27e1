//! Bad archives: truncated at many lengths, every byte flipped, wrong magic/version,
//! absurd sizes. Each returns a typed error; none panics, hangs or allocates hugely.

mod common;
use common::*;
use fzwgpu::format::fzm;
use fzwgpu::{Dims, Error, ErrorBound, ErrorMode, Field, Pipeline};

fn sample() -> Vec<u8> {
    let v: Vec<f32> = (0..3000).map(|i| if i % 500 == 0 { f32::NAN } else { (i as f32 * 0.01).sin() * 100.0 }).collect();
    let f = Field::from_f32(Dims::new(60, 50, 1).unwrap(), &v).unwrap();
    let mut p = Pipeline::from_preset("szx").unwrap();
    p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap()).unwrap();
    p.compress(cpu().as_ref(), &f).unwrap().bytes
}

/// Recompute both CRCs so corruption reaches the structural checks behind them.
fn refresh_crcs(b: &mut [u8]) {
    if b.len() < 80 {
        return;
    }
    let hs = u64::from_le_bytes(b[24..32].try_into().unwrap()) as usize;
    if hs < 80 || hs > b.len() {
        return;
    }
    let d = crc32fast::hash(&b[hs..]);
    b[72..76].copy_from_slice(&d.to_le_bytes());
    b[76..80].fill(0);
    let h = crc32fast::hash(&b[..hs]);
    b[76..80].copy_from_slice(&h.to_le_bytes());
}

#[test]
fn header_layout_is_as_documented() {
    let a = sample();
    assert_eq!(&a[0..4], &0x464D_5A32u32.to_le_bytes());
    assert_eq!(u16::from_le_bytes([a[4], a[5]]), 0x0301);
    let arch = fzm::read(&a).unwrap();
    assert_eq!(arch.header.header_size, 80 + 256 + 256);
    assert_eq!(arch.header.compressed_size, a.len() as u64);
    assert_eq!(arch.header.uncompressed_size, 12_000);
    assert_eq!(arch.stages.len(), 1);
    assert_eq!(arch.stages[0].stage_type, 36);
    assert_eq!(arch.stages[0].inputs, vec![0]);
    assert_eq!(arch.stages[0].flags & fzm::STAGE_FLAG_PRIMARY, 1);
    assert!(arch.stages[0].config.len() <= 128);
    assert_eq!(arch.buffers[0].byte_offset, 0);
    assert_eq!(arch.buffers[0].name, "szx.compressed");
    // SZx buffer: meta of 2 bytes per block padded to 8, then payload
    let nb = 3000usize.div_ceil(128);
    assert!(arch.buffers[0].data_size as usize > (2 * nb).next_multiple_of(8));
}

#[test]
fn every_truncation_is_an_error() {
    let a = sample();
    for len in 0..a.len() {
        let r = fzwgpu::decompress(cpu().as_ref(), &a[..len], &Default::default());
        assert!(r.is_err(), "truncated to {len} bytes decoded");
    }
    let mut longer = a.clone();
    longer.push(0);
    assert!(fzwgpu::decompress(cpu().as_ref(), &longer, &Default::default()).is_err());
}

#[test]
fn every_byte_flip_is_caught() {
    let a = sample();
    let good = fzwgpu::decompress(cpu().as_ref(), &a, &Default::default()).unwrap().field.bytes;
    for i in 0..a.len() {
        let mut b = a.clone();
        b[i] ^= 0x41;
        // with CRCs: always detected
        assert!(fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()).is_err(), "flip at {i} not detected");
        // with CRCs recomputed: a structural error, or a decode that stays sane
        refresh_crcs(&mut b);
        match fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()) {
            Err(_) => {}
            Ok(d) => assert_eq!(d.field.bytes.len(), good.len(), "flip at {i} changed the size silently"),
        }
    }
}

#[test]
fn wrong_magic_version_and_absurd_sizes() {
    let a = sample();
    let mut b = a.clone();
    b[0] = b'X';
    assert!(matches!(fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()), Err(Error::Corrupt(_))));
    let mut b = a.clone();
    b[5] = 4; // major 4
    refresh_crcs(&mut b);
    match fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()) {
        Err(Error::Version { found_major: 4, supported_major: 3, .. }) => {}
        other => panic!("expected a version error, got {other:?}"),
    }
    let mut b = a.clone();
    b[4] = 9; // minor 9 is readable
    refresh_crcs(&mut b);
    assert!(fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()).is_ok());
    for (off, val) in [(6usize, u64::MAX), (8, u64::MAX), (16, u64::MAX), (24, u64::MAX), (32, u64::MAX)] {
        let mut b = a.clone();
        let w = if off == 6 {
            2
        } else if off == 32 {
            4
        } else {
            8
        };
        b[off..off + w].copy_from_slice(&val.to_le_bytes()[..w]);
        refresh_crcs(&mut b);
        assert!(fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()).is_err(), "absurd field at {off}");
    }
    // absurd element count in the SZx config (n and dims at config bytes 8..40)
    let cfg = 80 + 40;
    let mut b = a.clone();
    for (k, v) in [(8usize, 1u64 << 60), (16, 1 << 60), (24, 1), (32, 1)] {
        b[cfg + k..cfg + k + 8].copy_from_slice(&v.to_le_bytes());
    }
    refresh_crcs(&mut b);
    let t = std::time::Instant::now();
    assert!(fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()).is_err());
    assert!(t.elapsed().as_secs() < 5);
}

#[test]
fn gpu_decoder_rejects_the_same_corruptions() {
    let a = sample();
    let g = gpu();
    for i in (0..a.len()).step_by(7) {
        let mut b = a.clone();
        b[i] ^= 0x10;
        refresh_crcs(&mut b);
        let c = fzwgpu::decompress(cpu().as_ref(), &b, &Default::default());
        let w = fzwgpu::decompress(g.as_ref(), &b, &Default::default());
        assert_eq!(c.is_ok(), w.is_ok(), "flip at {i}: cpu {c:?} vs gpu {:?}", w.as_ref().map(|_| ()));
        if let (Ok(c), Ok(w)) = (c, w) {
            assert!(c.field.bytes == w.field.bytes, "flip at {i}: backends decode differently");
        }
    }
}

/// The writer's two forms agree: `write` (payloads copied in) and `layout` + `alloc` +
/// payloads placed by the caller + `finish` (how compression reads outputs straight into
/// the archive) give the archive back byte for byte; a layout that does not match the
/// stages and entries is refused.
#[test]
fn writing_in_place_equals_writing_copies() {
    let bytes = sample();
    let a = fzm::read(&bytes).unwrap();
    let data: Vec<Vec<u8>> = (0..a.buffers.len()).map(|k| a.buffer_data(k).to_vec()).collect();
    let pairs: Vec<(fzm::BufferEntry, Vec<u8>)> = a.buffers.iter().cloned().zip(data.iter().cloned()).collect();
    assert!(fzm::write(&a.stages, &pairs, a.header.uncompressed_size).unwrap() == bytes);
    let sizes: Vec<u64> = data.iter().map(|d| d.len() as u64).collect();
    let lay = fzm::layout(a.stages.len(), &sizes).unwrap();
    let mut out = fzm::alloc(&lay).unwrap();
    for (d, off) in data.iter().zip(&lay.offsets) {
        let at = lay.header_size + *off as usize;
        out[at..at + d.len()].copy_from_slice(d);
    }
    fzm::finish(&a.stages, &a.buffers, &lay, &mut out, a.header.uncompressed_size, None).unwrap();
    assert!(out == bytes);
    // one stage or one buffer entry too few or too many, or a wrong total
    let bad = fzm::finish(&a.stages[1..], &a.buffers, &lay, &mut out, 0, None);
    assert!(matches!(bad, Err(Error::Pipeline(_))), "{bad:?}");
    let bad = fzm::finish(&a.stages, &a.buffers[1..], &lay, &mut out, 0, None);
    assert!(matches!(bad, Err(Error::Pipeline(_))), "{bad:?}");
    let mut longer = out.clone();
    longer.push(0);
    let bad = fzm::finish(&a.stages, &a.buffers, &lay, &mut longer, 0, None);
    assert!(matches!(bad, Err(Error::Pipeline(_))), "{bad:?}");
    let mut big = a.buffers.clone();
    big[0].data_size = lay.total;
    let bad = fzm::finish(&a.stages, &big, &lay, &mut out, 0, None);
    assert!(matches!(bad, Err(Error::Pipeline(_))), "{bad:?}");
}

/// Meta entries FORMAT.md calls corrupt (a width on a constant or raw block, a
/// quantized width above 24 for float32, an unknown type) are typed errors, with the
/// CRCs made right so the entry itself is what is checked.
#[test]
fn szx_meta_entries_outside_the_format_are_corrupt() {
    let a = sample();
    let hs = fzm::read(&a).unwrap().header.header_size as usize;
    for (entry, what) in [(0x0300u16, "constant, width 3"), (0x0102, "raw, width 1"), (0x1901, "quantized, width 25"), (0x0003, "type 3")] {
        let mut b = a.clone();
        b[hs..hs + 2].copy_from_slice(&entry.to_le_bytes());
        refresh_crcs(&mut b);
        match fzwgpu::decompress(cpu().as_ref(), &b, &Default::default()) {
            Err(Error::Corrupt(m)) => assert!(m.contains("meta entry"), "{what}: {m}"),
            other => panic!("{what}: {:?}", other.map(|d| d.field.bytes.len())),
        }
    }
}

/// Past 1 MiB of payload, decoding checks the payload checksum on another thread while
/// the buffers upload: a flipped payload byte is still a checksum error before any
/// stage reads the buffers, through `decompress` and `decompress_into` on both
/// backends, and the intact archive still decodes.
#[test]
fn large_payload_checksum_comes_from_the_upload() {
    let mut s = 0x9e3779b97f4a7c15u64;
    let v: Vec<f32> = (0..4_000_000)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 * 1e-3
        })
        .collect();
    let f = Field::from_f32(Dims::d1(v.len() as u64).unwrap(), &v).unwrap();
    let a = noa_pipeline("szx").compress(cpu().as_ref(), &f).unwrap().bytes;
    let hs = fzm::read(&a).unwrap().header.header_size as usize;
    // past 4 MiB: wgpu's staged upload, whose threads hash the payload as they copy it
    // (the checksum comes from those pieces; the cpu backend checks it on a thread)
    assert!(a.len() - hs > 4 << 20, "the payload must take the staged upload: {} bytes", a.len() - hs);
    let g = gpu();
    for at in [hs, hs + (a.len() - hs) / 2, a.len() - 1] {
        let mut b = a.clone();
        b[at] ^= 0x04;
        for be in [cpu(), g.clone()] {
            match fzwgpu::decompress(be.as_ref(), &b, &Default::default()) {
                Err(Error::Checksum { what: "payload", .. }) => {}
                other => panic!("flip at {at}: {:?}", other.map(|_| ())),
            }
            let mut out = vec![0u8; f.bytes.len()];
            match fzwgpu::decompress_into(be.as_ref(), &b, &Default::default(), &mut out) {
                Err(Error::Checksum { what: "payload", .. }) => {}
                other => panic!("flip at {at} (into): {:?}", other.map(|_| ())),
            }
        }
    }
    let d = fzwgpu::decompress(g.as_ref(), &a, &Default::default()).unwrap();
    assert_eq!(d.field.bytes.len(), f.bytes.len());
}
