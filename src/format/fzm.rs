//! FZM v3.1 archives: an 80-byte core header, one 256-byte StageInfo per stage, one
//! 256-byte BufferEntry per archived buffer, then the payload. Little-endian. Byte
//! tables in FORMAT.md. The reader checks every size, offset and id before it uses
//! it and allocates nothing from an unchecked size.

use crate::error::{Error, Result};
use crate::types::DataType;

/// "FZM2" as a little-endian u32 (bytes on disk: 32 5A 4D 46).
pub const MAGIC: u32 = 0x464D_5A32;
pub const VERSION_MAJOR: u8 = 3;
pub const VERSION_MINOR: u8 = 1;
pub const CORE_HEADER_BYTES: usize = 80;
pub const STAGE_INFO_BYTES: usize = 256;
pub const BUFFER_ENTRY_BYTES: usize = 256;
pub const MAX_INPUTS: usize = 8;
pub const MAX_OUTPUTS: usize = 8;
pub const CONFIG_SLOT: usize = 128;
pub const NAME_BYTES: usize = 64;
pub const UNUSED_ID: u16 = 0xFFFF;
/// Buffer id of the raw field (the external input).
pub const EXTERNAL_ID: u16 = 0;
/// Sanity caps on header counts (checked before anything is allocated).
pub const MAX_STAGES: u32 = 256;
pub const MAX_BUFFERS: u16 = 1024;
pub const FLAG_DATA_CRC: u16 = 1;
pub const FLAG_HEADER_CRC: u16 = 2;
/// StageInfo flag: this stage's inverse output 0 is the reconstructed field.
pub const STAGE_FLAG_PRIMARY: u16 = 1;
/// Payload buffers start at multiples of this.
pub const PAYLOAD_ALIGN: u64 = 8;

/// One stage of an archive.
#[derive(Debug, Clone, PartialEq)]
pub struct StageInfo {
    pub stage_type: u16,
    pub stage_version: u16,
    pub inputs: Vec<u16>,
    pub outputs: Vec<u16>,
    pub flags: u16,
    pub config: Vec<u8>,
    /// The node's name (fzwgpu stores it in the reserved bytes 172..236).
    pub name: String,
}

/// One archived buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferEntry {
    pub stage_type: u16,
    pub stage_version: u16,
    pub data_type: DataType,
    pub producer_output_idx: u8,
    pub dag_buffer_id: u16,
    pub name: String,
    pub data_size: u64,
    pub allocated_size: u64,
    pub uncompressed_size: u64,
    pub byte_offset: u64,
    pub config: Vec<u8>,
}

/// The parsed core header.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreHeader {
    pub version_major: u8,
    pub version_minor: u8,
    pub num_buffers: u16,
    pub uncompressed_size: u64,
    pub compressed_size: u64,
    pub header_size: u64,
    pub num_stages: u32,
    pub num_sources: u16,
    pub flags: u16,
    pub source_uncompressed_sizes: [u64; 4],
    pub data_checksum: u32,
    pub header_checksum: u32,
}

/// A parsed archive, borrowing its payload.
#[derive(Debug, Clone)]
pub struct Archive<'a> {
    pub header: CoreHeader,
    pub stages: Vec<StageInfo>,
    pub buffers: Vec<BufferEntry>,
    pub payload: &'a [u8],
}

impl Archive<'_> {
    /// The bytes of buffer `i`.
    pub fn buffer_data(&self, i: usize) -> &[u8] {
        let b = &self.buffers[i];
        &self.payload[b.byte_offset as usize..(b.byte_offset + b.data_size) as usize]
    }
}

fn put_name(out: &mut [u8], name: &str) {
    let bytes = name.as_bytes();
    let n = bytes.len().min(out.len() - 1);
    out[..n].copy_from_slice(&bytes[..n]);
}

fn get_name(b: &[u8]) -> Result<String> {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8(b[..end].to_vec()).map_err(|_| Error::corrupt("name is not UTF-8"))
}

/// Where an archive of `num_stages` stages and buffers of `sizes` bytes puts things:
/// the header size, each buffer's payload offset (from the end of the header) and the
/// total size.
pub struct Layout {
    pub header_size: usize,
    pub offsets: Vec<u64>,
    pub total: u64,
}

pub fn layout(num_stages: usize, sizes: &[u64]) -> Result<Layout> {
    if num_stages > MAX_STAGES as usize || sizes.len() > MAX_BUFFERS as usize {
        return Err(Error::TooLarge {
            what: "stages or buffers in one archive".into(),
            actual: num_stages.max(sizes.len()) as u64,
            limit: MAX_BUFFERS as u64,
        });
    }
    let header_size = CORE_HEADER_BYTES + STAGE_INFO_BYTES * num_stages + BUFFER_ENTRY_BYTES * sizes.len();
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut payload_len = 0u64;
    for &n in sizes {
        payload_len = payload_len.next_multiple_of(PAYLOAD_ALIGN);
        offsets.push(payload_len);
        payload_len += n;
    }
    Ok(Layout { header_size, offsets, total: header_size as u64 + payload_len })
}

/// Write an archive. `buffers[i].1` is the data of entry `i` (offsets are assigned
/// here).
pub fn write(stages: &[StageInfo], buffers: &[(BufferEntry, Vec<u8>)], uncompressed_size: u64) -> Result<Vec<u8>> {
    let sizes: Vec<u64> = buffers.iter().map(|(_, d)| d.len() as u64).collect();
    let lay = layout(stages.len(), &sizes)?;
    let mut out = alloc(&lay)?;
    for ((_, data), off) in buffers.iter().zip(&lay.offsets) {
        let at = lay.header_size + *off as usize;
        crate::hostmem::par_copy(&mut out[at..at + data.len()], data);
    }
    let entries: Vec<BufferEntry> = buffers.iter().map(|(e, d)| BufferEntry { data_size: d.len() as u64, ..e.clone() }).collect();
    finish(stages, &entries, &lay, &mut out, uncompressed_size, None)?;
    Ok(out)
}

/// The archive's bytes, zero (untouched zero pages: the payload writes fault them in).
pub fn alloc(lay: &Layout) -> Result<Vec<u8>> {
    let total = usize::try_from(lay.total).map_err(|_| Error::OutOfMemory(format!("archive of {} bytes", lay.total)))?;
    crate::hostmem::zeroed(total)
}

/// [`alloc`] in `recycled`'s memory when it can hold the archive (else a fresh
/// allocation): the bytes the payload copies do not write (the header and the padding
/// between payloads, `sizes[i]` bytes at `lay.offsets[i]`) are zero, the payload
/// regions hold whatever they held (every byte of them is written next).
pub fn alloc_reusing(lay: &Layout, sizes: &[u64], mut recycled: Vec<u8>) -> Result<Vec<u8>> {
    let total = usize::try_from(lay.total).map_err(|_| Error::OutOfMemory(format!("archive of {} bytes", lay.total)))?;
    if recycled.capacity() < total || sizes.len() != lay.offsets.len() {
        return alloc(lay);
    }
    if recycled.len() >= total {
        recycled.truncate(total);
    } else {
        recycled.resize(total, 0);
    }
    recycled[..lay.header_size].fill(0);
    let mut end = lay.header_size;
    for (&off, &size) in lay.offsets.iter().zip(sizes) {
        let start = lay.header_size + off as usize;
        recycled[end..start].fill(0);
        end = start + size as usize;
    }
    recycled[end..].fill(0);
    Ok(recycled)
}

/// Fill in the header of an archive whose payloads are already in place (`out` from
/// [`alloc`], buffer `i`'s `entries[i].data_size` bytes at `lay.offsets[i]` after the
/// header), and both CRCs. The padding between payloads must be zero.
///
/// `data_crc`: the payload's CRC-32 when the caller hashed it already (as the readback
/// wrote it); `None` hashes `out`'s payload here.
pub fn finish(
    stages: &[StageInfo],
    entries: &[BufferEntry],
    lay: &Layout,
    out: &mut [u8],
    uncompressed_size: u64,
    data_crc: Option<u32>,
) -> Result<()> {
    let header_size = lay.header_size;
    let want_header = CORE_HEADER_BYTES + STAGE_INFO_BYTES * stages.len() + BUFFER_ENTRY_BYTES * entries.len();
    if entries.len() != lay.offsets.len()
        || header_size != want_header
        || out.len() as u64 != lay.total
        || entries.iter().zip(&lay.offsets).any(|(e, &o)| header_size as u64 + o + e.data_size > lay.total)
    {
        return Err(Error::Pipeline("archive layout does not match its stages and entries".into()));
    }
    let total = lay.total;
    let offsets = &lay.offsets;
    // stage infos
    for (i, s) in stages.iter().enumerate() {
        let o = CORE_HEADER_BYTES + i * STAGE_INFO_BYTES;
        let b = &mut out[o..o + STAGE_INFO_BYTES];
        if s.inputs.len() > MAX_INPUTS || s.outputs.len() > MAX_OUTPUTS || s.config.len() > CONFIG_SLOT {
            return Err(Error::Pipeline(format!("stage {} exceeds the FZM slots (8 ports, 128 config bytes)", s.name)));
        }
        b[0..2].copy_from_slice(&s.stage_type.to_le_bytes());
        b[2..4].copy_from_slice(&s.stage_version.to_le_bytes());
        b[4] = s.inputs.len() as u8;
        b[5] = s.outputs.len() as u8;
        b[6..8].copy_from_slice(&s.flags.to_le_bytes());
        for k in 0..MAX_INPUTS {
            let id = s.inputs.get(k).copied().unwrap_or(UNUSED_ID);
            b[8 + 2 * k..10 + 2 * k].copy_from_slice(&id.to_le_bytes());
        }
        for k in 0..MAX_OUTPUTS {
            let id = s.outputs.get(k).copied().unwrap_or(UNUSED_ID);
            b[24 + 2 * k..26 + 2 * k].copy_from_slice(&id.to_le_bytes());
        }
        b[40..40 + s.config.len()].copy_from_slice(&s.config);
        b[168..172].copy_from_slice(&(s.config.len() as u32).to_le_bytes());
        put_name(&mut b[172..172 + NAME_BYTES], &s.name);
    }
    // buffer entries
    for (i, (e, off)) in entries.iter().zip(offsets).enumerate() {
        let o = CORE_HEADER_BYTES + stages.len() * STAGE_INFO_BYTES + i * BUFFER_ENTRY_BYTES;
        let b = &mut out[o..o + BUFFER_ENTRY_BYTES];
        if e.config.len() > CONFIG_SLOT {
            return Err(Error::Pipeline("buffer config over 128 bytes".into()));
        }
        b[0..2].copy_from_slice(&e.stage_type.to_le_bytes());
        b[2..4].copy_from_slice(&e.stage_version.to_le_bytes());
        b[4] = e.data_type as u8;
        b[5] = e.producer_output_idx;
        b[6..8].copy_from_slice(&e.dag_buffer_id.to_le_bytes());
        put_name(&mut b[8..8 + NAME_BYTES], &e.name);
        b[72..80].copy_from_slice(&e.data_size.to_le_bytes());
        b[80..88].copy_from_slice(&e.allocated_size.to_le_bytes());
        b[88..96].copy_from_slice(&e.uncompressed_size.to_le_bytes());
        b[96..104].copy_from_slice(&off.to_le_bytes());
        b[104..104 + e.config.len()].copy_from_slice(&e.config);
        b[232..236].copy_from_slice(&(e.config.len() as u32).to_le_bytes());
    }
    // core header
    let flags = FLAG_DATA_CRC | FLAG_HEADER_CRC;
    let data_crc = data_crc.unwrap_or_else(|| crate::hostmem::crc32(&out[header_size..]));
    let h = &mut out[..CORE_HEADER_BYTES];
    h[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    h[4..6].copy_from_slice(&(((VERSION_MAJOR as u16) << 8) | VERSION_MINOR as u16).to_le_bytes());
    h[6..8].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    h[8..16].copy_from_slice(&uncompressed_size.to_le_bytes());
    h[16..24].copy_from_slice(&total.to_le_bytes());
    h[24..32].copy_from_slice(&(header_size as u64).to_le_bytes());
    h[32..36].copy_from_slice(&(stages.len() as u32).to_le_bytes());
    h[36..38].copy_from_slice(&1u16.to_le_bytes());
    h[38..40].copy_from_slice(&flags.to_le_bytes());
    h[40..48].copy_from_slice(&uncompressed_size.to_le_bytes());
    h[72..76].copy_from_slice(&data_crc.to_le_bytes());
    let header_crc = crc32fast::hash(&out[..header_size]);
    out[76..80].copy_from_slice(&header_crc.to_le_bytes());
    Ok(())
}

/// CRC-32/IEEE, as used for both archive checksums.
pub fn crc32(b: &[u8]) -> u32 {
    crate::hostmem::crc32(b)
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// Parse and validate the core header only (cheap; used by `info` too).
pub fn read_header(bytes: &[u8]) -> Result<CoreHeader> {
    if bytes.len() < CORE_HEADER_BYTES {
        return Err(Error::corrupt(format!("{} bytes is shorter than the 80-byte FZM header", bytes.len())));
    }
    let magic = u32_at(bytes, 0);
    if magic != MAGIC {
        return Err(Error::corrupt(format!("bad magic {magic:#010x} (not an FZM archive)")));
    }
    let v = u16_at(bytes, 4);
    let (major, minor) = ((v >> 8) as u8, (v & 0xff) as u8);
    if major != VERSION_MAJOR {
        return Err(Error::Version { found_major: major, found_minor: minor, supported_major: VERSION_MAJOR });
    }
    let mut src = [0u64; 4];
    for (k, s) in src.iter_mut().enumerate() {
        *s = u64_at(bytes, 40 + 8 * k);
    }
    Ok(CoreHeader {
        version_major: major,
        version_minor: minor,
        num_buffers: u16_at(bytes, 6),
        uncompressed_size: u64_at(bytes, 8),
        compressed_size: u64_at(bytes, 16),
        header_size: u64_at(bytes, 24),
        num_stages: u32_at(bytes, 32),
        num_sources: u16_at(bytes, 36),
        flags: u16_at(bytes, 38),
        source_uncompressed_sizes: src,
        data_checksum: u32_at(bytes, 72),
        header_checksum: u32_at(bytes, 76),
    })
}

/// Parse and validate a whole archive.
pub fn read(bytes: &[u8]) -> Result<Archive<'_>> {
    let (a, pending) = read_unverified(bytes)?;
    if let Some(p) = pending {
        p.verify()?;
    }
    Ok(a)
}

/// The payload checksum of an archive read by [`read_unverified`], still to be checked.
#[derive(Debug, Clone, Copy)]
pub struct PendingChecksum<'a> {
    payload: &'a [u8],
    stored: u32,
}

impl PendingChecksum<'_> {
    /// Compute the payload's CRC-32 (on several threads) and compare it with the stored one.
    pub fn verify(&self) -> Result<()> {
        self.check(crate::hostmem::crc32(self.payload))
    }

    /// Compare a CRC-32 of the payload computed elsewhere (e.g. while it uploaded, from
    /// its pieces) with the stored one.
    pub fn check(&self, computed: u32) -> Result<()> {
        if computed != self.stored {
            return Err(Error::Checksum { what: "payload", stored: self.stored, computed });
        }
        Ok(())
    }
}

/// [`read`] without the payload checksum, which it returns to be verified (where the
/// archive has one) before anything reads the buffers' contents: decoding checks it
/// while the buffers upload. The header, its checksum and every structural field are
/// checked here as in [`read`].
pub fn read_unverified(bytes: &[u8]) -> Result<(Archive<'_>, Option<PendingChecksum<'_>>)> {
    let h = read_header(bytes)?;
    if h.num_stages == 0 || h.num_stages > MAX_STAGES {
        return Err(Error::corrupt(format!("{} stages (1..={MAX_STAGES} allowed)", h.num_stages)));
    }
    if h.num_buffers == 0 || h.num_buffers > MAX_BUFFERS {
        return Err(Error::corrupt(format!("{} buffers (1..={MAX_BUFFERS} allowed)", h.num_buffers)));
    }
    if h.num_sources != 1 {
        return Err(Error::corrupt(format!("{} sources (this build writes and reads 1)", h.num_sources)));
    }
    let want_header =
        CORE_HEADER_BYTES as u64 + STAGE_INFO_BYTES as u64 * h.num_stages as u64 + BUFFER_ENTRY_BYTES as u64 * h.num_buffers as u64;
    if h.header_size != want_header {
        return Err(Error::corrupt(format!("header_size {} (stage and buffer counts imply {want_header})", h.header_size)));
    }
    if h.compressed_size != bytes.len() as u64 {
        return Err(Error::corrupt(format!("archive is {} bytes, header says {} (truncated or padded)", bytes.len(), h.compressed_size)));
    }
    if h.header_size > bytes.len() as u64 {
        return Err(Error::corrupt("header runs past the end"));
    }
    let hs = h.header_size as usize;
    if h.flags & !(FLAG_DATA_CRC | FLAG_HEADER_CRC) != 0 {
        return Err(Error::corrupt(format!("unknown header flags {:#06x}", h.flags)));
    }
    if h.flags & FLAG_HEADER_CRC != 0 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&bytes[..76]);
        hasher.update(&[0, 0, 0, 0]);
        hasher.update(&bytes[80..hs]);
        let c = hasher.finalize();
        if c != h.header_checksum {
            return Err(Error::Checksum { what: "header", stored: h.header_checksum, computed: c });
        }
    }
    let payload = &bytes[hs..];
    let pending = (h.flags & FLAG_DATA_CRC != 0).then_some(PendingChecksum { payload, stored: h.data_checksum });
    if h.source_uncompressed_sizes[0] != h.uncompressed_size || h.source_uncompressed_sizes[1..].iter().any(|&s| s != 0) {
        return Err(Error::corrupt("source sizes disagree with the uncompressed size"));
    }
    let mut stages = Vec::with_capacity(h.num_stages as usize);
    for i in 0..h.num_stages as usize {
        let o = CORE_HEADER_BYTES + i * STAGE_INFO_BYTES;
        let b = &bytes[o..o + STAGE_INFO_BYTES];
        let (n_in, n_out) = (b[4] as usize, b[5] as usize);
        if n_in > MAX_INPUTS || n_out > MAX_OUTPUTS || n_out == 0 {
            return Err(Error::corrupt(format!("stage {i}: {n_in} inputs / {n_out} outputs")));
        }
        let cs = u32_at(b, 168) as usize;
        if cs > CONFIG_SLOT {
            return Err(Error::corrupt(format!("stage {i}: config of {cs} bytes (max 128)")));
        }
        let inputs: Vec<u16> = (0..n_in).map(|k| u16_at(b, 8 + 2 * k)).collect();
        let outputs: Vec<u16> = (0..n_out).map(|k| u16_at(b, 24 + 2 * k)).collect();
        if inputs.contains(&UNUSED_ID) || outputs.contains(&UNUSED_ID) || outputs.contains(&EXTERNAL_ID) {
            return Err(Error::corrupt(format!("stage {i}: invalid buffer ids")));
        }
        stages.push(StageInfo {
            stage_type: u16_at(b, 0),
            stage_version: u16_at(b, 2),
            inputs,
            outputs,
            flags: u16_at(b, 6),
            config: b[40..40 + cs].to_vec(),
            name: get_name(&b[172..172 + NAME_BYTES])?,
        });
    }
    // every buffer id is produced by exactly one stage output
    let mut produced = std::collections::HashSet::new();
    for s in &stages {
        for &id in &s.outputs {
            if !produced.insert(id) {
                return Err(Error::corrupt(format!("buffer id {id} produced twice")));
            }
        }
    }
    for s in &stages {
        for &id in &s.inputs {
            if id != EXTERNAL_ID && !produced.contains(&id) {
                return Err(Error::corrupt(format!("buffer id {id} consumed but never produced")));
            }
        }
    }
    let mut buffers = Vec::with_capacity(h.num_buffers as usize);
    let mut seen = std::collections::HashSet::new();
    for i in 0..h.num_buffers as usize {
        let o = CORE_HEADER_BYTES + h.num_stages as usize * STAGE_INFO_BYTES + i * BUFFER_ENTRY_BYTES;
        let b = &bytes[o..o + BUFFER_ENTRY_BYTES];
        let data_type = DataType::from_code(b[4]).ok_or_else(|| Error::corrupt(format!("buffer {i}: data type {}", b[4])))?;
        let data_size = u64_at(b, 72);
        let byte_offset = u64_at(b, 96);
        let end = byte_offset.checked_add(data_size).ok_or_else(|| Error::corrupt(format!("buffer {i}: offset overflow")))?;
        if end > payload.len() as u64 || !byte_offset.is_multiple_of(PAYLOAD_ALIGN) {
            return Err(Error::corrupt(format!("buffer {i}: bytes {byte_offset}..{end} outside the {}-byte payload", payload.len())));
        }
        let cs = u32_at(b, 232) as usize;
        if cs > CONFIG_SLOT {
            return Err(Error::corrupt(format!("buffer {i}: config of {cs} bytes")));
        }
        let id = u16_at(b, 6);
        if !produced.contains(&id) || !seen.insert(id) {
            return Err(Error::corrupt(format!("buffer {i}: id {id} unknown or archived twice")));
        }
        buffers.push(BufferEntry {
            stage_type: u16_at(b, 0),
            stage_version: u16_at(b, 2),
            data_type,
            producer_output_idx: b[5],
            dag_buffer_id: id,
            name: get_name(&b[8..8 + NAME_BYTES])?,
            data_size,
            allocated_size: u64_at(b, 80),
            uncompressed_size: u64_at(b, 88),
            byte_offset,
            config: b[104..104 + cs].to_vec(),
        });
    }
    // buffers must not overlap
    let mut spans: Vec<(u64, u64)> = buffers.iter().map(|b| (b.byte_offset, b.byte_offset + b.data_size)).collect();
    spans.sort();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(Error::corrupt("archived buffers overlap"));
        }
    }
    Ok((Archive { header: h, stages, buffers, payload }, pending))
}
