//! Streaming: fields larger than device (or host) memory, compressed from any `Read`
//! chunk by chunk into an FZMS stream — a header, one self-contained FZM archive per
//! chunk, and an index at the end — and decoded whole, one chunk at a time, or as a
//! value range, reading only the chunks it needs. Layout: FORMAT.md, "FZMS streams".
//!
//! Chunks are slabs of whole rows (2-D) or planes (3-D) along the slowest used
//! dimension, so every chunk is an ordinary field the pipeline compresses on its own
//! (Lorenzo tiles restart at chunk edges). A range-relative bound (NOA/REL) must mean
//! the range of the whole field: the caller passes the finite range (`scan_range`, a
//! first pass over a seekable input) and every chunk is compressed with the resulting
//! absolute bound, which the header records. Memory: one chunk of input, its archive
//! and the device buffers of one run.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::kernels::range::resolve_abs;
use crate::pipeline::{decompress, Pipeline};
use crate::stages::RunOptions;
use crate::types::{DataType, Dims, ErrorBound, ErrorMode, Field};
use std::io::{Read, Seek, SeekFrom, Write};

pub const MAGIC: [u8; 4] = *b"FZMS";
pub const VERSION_MAJOR: u8 = 1;
pub const VERSION_MINOR: u8 = 0;
const HEADER_BYTES: usize = 64;
const ENTRY_BYTES: usize = 32;
const FOOTER_BYTES: usize = 32;

/// Whether `prefix` (the first bytes of a file) starts an FZMS stream.
pub fn is_stream(prefix: &[u8]) -> bool {
    prefix.len() >= 4 && prefix[..4] == MAGIC
}

/// The stream header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamHeader {
    pub dtype: DataType,
    pub dims: Dims,
    /// Values per chunk (every chunk but the last).
    pub chunk_values: u64,
    /// The absolute bound every chunk was compressed with (0 when no stage is lossy).
    pub abs_bound: f64,
}

/// One chunk: where its archive is and which values it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkEntry {
    pub offset: u64,
    pub length: u64,
    pub first: u64,
    pub count: u64,
}

#[derive(Debug, Clone)]
pub struct StreamIndex {
    pub header: StreamHeader,
    pub chunks: Vec<ChunkEntry>,
    /// Total stream bytes.
    pub total_bytes: u64,
}

/// Values of one slab unit (a row in 2-D, a plane in 3-D, a value in 1-D), and the dims
/// of a slab of `units` units.
fn slab(dims: Dims) -> (u64, impl Fn(u64) -> Result<Dims>) {
    let (nx, ny, nz) = (dims.x, dims.y, dims.z);
    let unit = if nz > 1 {
        nx * ny
    } else if ny > 1 {
        nx
    } else {
        1
    };
    (unit, move |k: u64| {
        if nz > 1 {
            Dims::new(nx, ny, k)
        } else if ny > 1 {
            Dims::new(nx, k, 1)
        } else {
            Dims::d1(k)
        }
    })
}

/// Values per chunk for chunks of about `chunk_bytes` bytes of input (whole units).
pub fn chunk_values(dtype: DataType, dims: Dims, chunk_bytes: u64) -> u64 {
    let (unit, _) = slab(dims);
    let units = (chunk_bytes / dtype.size() as u64 / unit).max(1);
    units * unit
}

/// The finite range of a whole field: its min and max, or None when no value is finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldRange(pub Option<(f64, f64)>);

/// Values `first .. first + count` of an input of `n` into `buf`: an input that ends
/// before them is an input error (shorter than its dims), other failures are I/O errors.
fn read_values<R: Read>(input: &mut R, buf: &mut [u8], first: u64, count: u64, n: u64) -> Result<()> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            Error::Input(format!("the input ends within values {first}..{} of its {n} values", first + count))
        }
        _ => Error::io(format!("reading values {first}..{}", first + count), e),
    })
}

/// The finite min/max of `n` values read from `input` (NaN and ±Inf skipped), for a
/// range-relative bound.
pub fn scan_range<R: Read>(mut input: R, dtype: DataType, n: u64) -> Result<FieldRange> {
    let sz = dtype.size();
    let mut buf = vec![0u8; (1 << 22) * sz];
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut left = n;
    while left > 0 {
        let take = (left as usize).min(buf.len() / sz);
        read_values(&mut input, &mut buf[..take * sz], n - left, take as u64, n)?;
        for c in buf[..take * sz].chunks_exact(sz) {
            let v = match dtype {
                DataType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                _ => f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
            };
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        left -= take as u64;
    }
    Ok(FieldRange((lo <= hi).then_some((lo, hi))))
}

/// What a streamed compression did.
#[derive(Debug, Clone)]
pub struct StreamSummary {
    pub chunks: u64,
    pub input_bytes: u64,
    pub output_bytes: u64,
    pub abs_bound: f64,
}

/// Compress `dims` values of `dtype` from `input` into `out` as an FZMS stream, chunks
/// of about `chunk_bytes` bytes of input. `make` builds the pipeline (once per chunk:
/// stage state never leaks between chunks). `range`: the finite range of the whole
/// field (`scan_range`), needed when a lossy stage's bound is range-relative; None when
/// it was not computed. `progress` gets the
/// input bytes done after each chunk.
#[allow(clippy::too_many_arguments)]
pub fn compress_stream<R: Read, W: Write>(
    backend: &dyn Backend,
    make: &dyn Fn() -> Result<Pipeline>,
    mut input: R,
    mut out: W,
    dtype: DataType,
    dims: Dims,
    chunk_bytes: u64,
    range: Option<FieldRange>,
    progress: &mut dyn FnMut(u64),
) -> Result<StreamSummary> {
    if !matches!(dtype, DataType::F32 | DataType::F64) {
        return Err(Error::Input(format!("streams hold float32 or float64 fields, got {dtype}")));
    }
    // one bound for every chunk: range-relative bounds resolve against the whole field
    let probe = make()?;
    let bounds = probe.configured_bounds();
    let abs = match bounds.first() {
        None => None,
        Some(b) => {
            if bounds.iter().any(|o| o.mode != b.mode || o.value != b.value) {
                return Err(Error::config("streaming needs one bound for every lossy stage (use --eb/--mode)"));
            }
            if b.mode != ErrorMode::Abs && range.is_none() {
                return Err(Error::config(format!(
                    "a {} bound over a stream needs the field's range: give a seekable input or an absolute bound (--mode abs)",
                    b.mode.name()
                )));
            }
            let e = resolve_abs(*b, range.and_then(|r| r.0));
            if e > 0.0 {
                Some(ErrorBound::new(ErrorMode::Abs, e)?)
            } else {
                // a zero-width (or empty) finite range resolves to 0, i.e. lossless; every
                // chunk's own range is then zero or empty too, so keeping the relative
                // bound gives each chunk the same 0
                None
            }
        }
    };
    let n = dims.len();
    let per = chunk_values(dtype, dims, chunk_bytes);
    let (unit, slab_dims) = slab(dims);
    let header = StreamHeader { dtype, dims, chunk_values: per, abs_bound: abs.map_or(0.0, |b| b.value) };
    let hb = encode_header(&header);
    out.write_all(&hb).map_err(|e| Error::io("writing the stream header", e))?;
    let mut offset = hb.len() as u64;
    let mut entries = Vec::new();
    let sz = dtype.size() as u64;
    let mut buf = Vec::new();
    // one archive buffer for all chunks (compress_into reuses its memory)
    let mut archive = Vec::new();
    let mut first = 0u64;
    while first < n {
        let count = per.min(n - first);
        buf.resize((count * sz) as usize, 0);
        read_values(&mut input, &mut buf, first, count, n)?;
        let field = Field::new(dtype, slab_dims(count / unit)?, std::mem::take(&mut buf))?;
        let mut p = make()?;
        if let Some(b) = abs {
            p.override_bound(b)?;
        }
        p.compress_into(backend, &field, &mut archive)?;
        buf = field.bytes;
        out.write_all(&archive).map_err(|e| Error::io("writing a chunk", e))?;
        entries.push(ChunkEntry { offset, length: archive.len() as u64, first, count });
        offset += archive.len() as u64;
        first += count;
        progress(first * sz);
    }
    // more values than the dims hold is a wrong --dims, not something to drop silently
    let mut extra = [0u8; 1];
    if input.read(&mut extra).map_err(|e| Error::io("reading past the field", e))? != 0 {
        return Err(Error::Input(format!("the input holds more than the {n} values of dims {dims}")));
    }
    let (ib, fb) = encode_index(&entries, offset);
    out.write_all(&ib).and_then(|_| out.write_all(&fb)).and_then(|_| out.flush()).map_err(|e| Error::io("writing the stream index", e))?;
    Ok(StreamSummary {
        chunks: entries.len() as u64,
        input_bytes: n * sz,
        output_bytes: offset + (ib.len() + fb.len()) as u64,
        abs_bound: header.abs_bound,
    })
}

fn encode_header(h: &StreamHeader) -> Vec<u8> {
    let mut b = vec![0u8; HEADER_BYTES];
    b[0..4].copy_from_slice(&MAGIC);
    b[4] = VERSION_MINOR;
    b[5] = VERSION_MAJOR;
    b[6] = h.dtype as u8;
    b[8..16].copy_from_slice(&h.dims.x.to_le_bytes());
    b[16..24].copy_from_slice(&h.dims.y.to_le_bytes());
    b[24..32].copy_from_slice(&h.dims.z.to_le_bytes());
    b[32..40].copy_from_slice(&h.chunk_values.to_le_bytes());
    b[40..48].copy_from_slice(&h.abs_bound.to_le_bytes());
    let crc = crc32fast::hash(&b[..56]);
    b[56..60].copy_from_slice(&crc.to_le_bytes());
    b
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn decode_header(b: &[u8]) -> Result<StreamHeader> {
    if b.len() < HEADER_BYTES || !is_stream(b) {
        return Err(Error::corrupt("not an FZMS stream (bad magic or short header)"));
    }
    let (minor, major) = (b[4], b[5]);
    if major != VERSION_MAJOR {
        return Err(Error::corrupt(format!("FZMS stream version {major}.{minor}; this build reads {VERSION_MAJOR}.x")));
    }
    let (stored, computed) = (u32_at(b, 56), crc32fast::hash(&b[..56]));
    if stored != computed {
        return Err(Error::Checksum { what: "FZMS stream header", stored, computed });
    }
    let dtype = DataType::from_code(b[6])
        .filter(|d| matches!(d, DataType::F32 | DataType::F64))
        .ok_or_else(|| Error::corrupt(format!("FZMS data type code {}", b[6])))?;
    let dims = Dims::new(u64_at(b, 8), u64_at(b, 16), u64_at(b, 24)).map_err(|_| Error::corrupt("FZMS dims"))?;
    let chunk_values = u64_at(b, 32);
    let abs_bound = f64::from_le_bytes(b[40..48].try_into().unwrap_or([0; 8]));
    let (unit, _) = slab(dims);
    // `!(x >= 0.0)`: a NaN bound is refused too
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let bad_bound = !(abs_bound >= 0.0);
    if chunk_values == 0 || !chunk_values.is_multiple_of(unit) || bad_bound {
        return Err(Error::corrupt("FZMS chunk size or bound"));
    }
    Ok(StreamHeader { dtype, dims, chunk_values, abs_bound })
}

fn encode_index(entries: &[ChunkEntry], index_offset: u64) -> (Vec<u8>, Vec<u8>) {
    let mut ib = Vec::with_capacity(entries.len() * ENTRY_BYTES);
    for e in entries {
        for v in [e.offset, e.length, e.first, e.count] {
            ib.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut fb = vec![0u8; FOOTER_BYTES];
    fb[0..8].copy_from_slice(&index_offset.to_le_bytes());
    fb[8..16].copy_from_slice(&(entries.len() as u64).to_le_bytes());
    fb[16..20].copy_from_slice(&crc32fast::hash(&ib).to_le_bytes());
    fb[20..24].copy_from_slice(&MAGIC);
    let crc = crc32fast::hash(&fb[..24]);
    fb[24..28].copy_from_slice(&crc.to_le_bytes());
    (ib, fb)
}

/// Read and check a stream's header and index (three small reads; no chunk data).
pub fn read_index<R: Read + Seek>(r: &mut R) -> Result<StreamIndex> {
    let io = |what: &'static str| move |e: std::io::Error| Error::io(what, e);
    let total = r.seek(SeekFrom::End(0)).map_err(io("seeking the stream"))?;
    if total < (HEADER_BYTES + FOOTER_BYTES) as u64 {
        return Err(Error::corrupt(format!("{total} bytes is shorter than an FZMS header and footer")));
    }
    let mut hb = vec![0u8; HEADER_BYTES];
    r.seek(SeekFrom::Start(0)).map_err(io("seeking the stream"))?;
    r.read_exact(&mut hb).map_err(io("reading the stream header"))?;
    let header = decode_header(&hb)?;
    let mut fb = vec![0u8; FOOTER_BYTES];
    r.seek(SeekFrom::Start(total - FOOTER_BYTES as u64)).map_err(io("seeking the stream footer"))?;
    r.read_exact(&mut fb).map_err(io("reading the stream footer"))?;
    if fb[20..24] != MAGIC || u32_at(&fb, 24) != crc32fast::hash(&fb[..24]) {
        return Err(Error::corrupt("FZMS footer missing or damaged (truncated stream?)"));
    }
    let (index_offset, nchunks) = (u64_at(&fb, 0), u64_at(&fb, 8));
    let index_bytes = nchunks.checked_mul(ENTRY_BYTES as u64).ok_or_else(|| Error::corrupt("FZMS chunk count"))?;
    if index_offset < HEADER_BYTES as u64 || index_offset.checked_add(index_bytes) != Some(total - FOOTER_BYTES as u64) {
        return Err(Error::corrupt("FZMS index position"));
    }
    let mut ib = vec![0u8; index_bytes as usize];
    r.seek(SeekFrom::Start(index_offset)).map_err(io("seeking the stream index"))?;
    r.read_exact(&mut ib).map_err(io("reading the stream index"))?;
    let (stored, computed) = (u32_at(&fb, 16), crc32fast::hash(&ib));
    if stored != computed {
        return Err(Error::Checksum { what: "FZMS stream index", stored, computed });
    }
    let n = header.dims.len();
    let mut chunks = Vec::with_capacity(nchunks as usize);
    let (mut pos, mut first) = (HEADER_BYTES as u64, 0u64);
    for e in ib.chunks_exact(ENTRY_BYTES) {
        let c = ChunkEntry { offset: u64_at(e, 0), length: u64_at(e, 8), first: u64_at(e, 16), count: u64_at(e, 24) };
        let expect = header.chunk_values.min(n.saturating_sub(first));
        if c.offset != pos || c.length == 0 || c.first != first || c.count != expect || c.count == 0 {
            return Err(Error::corrupt(format!("FZMS index entry {}", chunks.len())));
        }
        pos = c.offset.checked_add(c.length).ok_or_else(|| Error::corrupt("FZMS chunk length"))?;
        first += c.count;
        chunks.push(c);
    }
    if pos != index_offset || first != n {
        return Err(Error::corrupt("FZMS chunks do not cover the field"));
    }
    Ok(StreamIndex { header, chunks, total_bytes: total })
}

/// Decode chunk `k` only (one seek, one read of its archive). `opts` are the run options
/// of every chunk's decode (its fusion policy, chunk cap; the same in the functions below).
pub fn decompress_chunk<R: Read + Seek>(
    backend: &dyn Backend,
    opts: &RunOptions,
    r: &mut R,
    index: &StreamIndex,
    k: usize,
) -> Result<Field> {
    let c = index.chunks.get(k).ok_or_else(|| Error::Input(format!("chunk {k} of {}", index.chunks.len())))?;
    let mut bytes = vec![0u8; c.length as usize];
    r.seek(SeekFrom::Start(c.offset)).map_err(|e| Error::io("seeking a chunk", e))?;
    r.read_exact(&mut bytes).map_err(|e| Error::io("reading a chunk", e))?;
    let d = decompress(backend, &bytes, opts)?;
    let (unit, slab_dims) = slab(index.header.dims);
    if d.field.dtype != index.header.dtype || d.field.len() != c.count || d.field.dims != slab_dims(c.count / unit)? {
        return Err(Error::corrupt(format!("FZMS chunk {k} holds {} {}, the index says {} values", d.field.dims, d.field.dtype, c.count)));
    }
    Ok(d.field)
}

/// Decode values `[start, end)` of the stream into `out` (raw little-endian values),
/// reading only the chunks they touch. `progress` gets the output bytes written.
#[allow(clippy::too_many_arguments)]
pub fn decompress_range<R: Read + Seek, W: Write>(
    backend: &dyn Backend,
    opts: &RunOptions,
    r: &mut R,
    index: &StreamIndex,
    start: u64,
    end: u64,
    mut out: W,
    progress: &mut dyn FnMut(u64),
) -> Result<u64> {
    let n = index.header.dims.len();
    if start > end || end > n {
        return Err(Error::Input(format!("range {start}..{end} outside the field's {n} values")));
    }
    let sz = index.header.dtype.size() as u64;
    let mut written = 0;
    for (k, c) in index.chunks.iter().enumerate() {
        let (a, b) = (c.first.max(start), (c.first + c.count).min(end));
        if a >= b {
            continue;
        }
        let f = decompress_chunk(backend, opts, r, index, k)?;
        let lo = ((a - c.first) * sz) as usize;
        let hi = ((b - c.first) * sz) as usize;
        out.write_all(&f.bytes[lo..hi]).map_err(|e| Error::io("writing decoded values", e))?;
        written += (hi - lo) as u64;
        progress(written);
    }
    out.flush().map_err(|e| Error::io("writing decoded values", e))?;
    Ok(written)
}

/// A box of the field: half-open ranges along x, y and z.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldBox {
    pub x: (u64, u64),
    pub y: (u64, u64),
    pub z: (u64, u64),
}

impl FieldBox {
    /// Parse `"x0:x1,y0:y1[,z0:z1]"` (missing trailing dims: the whole extent).
    pub fn parse(s: &str, dims: Dims) -> Result<Self> {
        let ext = [dims.x, dims.y, dims.z];
        let mut r = [(0, dims.x), (0, dims.y), (0, dims.z)];
        let parts: Vec<&str> = s.split(',').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(Error::Input(format!("--box {s}: want x0:x1,y0:y1[,z0:z1]")));
        }
        for (k, p) in parts.iter().enumerate() {
            let (a, b) = p.split_once(':').ok_or_else(|| Error::Input(format!("--box {s}: '{p}' is not START:END")))?;
            let num = |v: &str| v.trim().parse::<u64>().map_err(|_| Error::Input(format!("--box {s}: '{v}' is not an index")));
            let (a, b) = (num(a)?, num(b)?);
            if a >= b || b > ext[k] {
                return Err(Error::Input(format!("--box {s}: {a}:{b} is empty or outside 0:{}", ext[k])));
            }
            r[k] = (a, b);
        }
        Ok(FieldBox { x: r[0], y: r[1], z: r[2] })
    }

    pub fn len(&self) -> u64 {
        (self.x.1 - self.x.0) * (self.y.1 - self.y.0) * (self.z.1 - self.z.0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Decode the values of `b` (x fastest) into `out`, reading only the chunks whose
/// slabs it crosses. Returns the bytes written.
pub fn decompress_box<R: Read + Seek, W: Write>(
    backend: &dyn Backend,
    opts: &RunOptions,
    r: &mut R,
    index: &StreamIndex,
    b: FieldBox,
    mut out: W,
    progress: &mut dyn FnMut(u64),
) -> Result<u64> {
    let d = index.header.dims;
    if b.x.1 > d.x || b.y.1 > d.y || b.z.1 > d.z || b.is_empty() {
        return Err(Error::Input(format!("box {b:?} outside the field {d}")));
    }
    let sz = index.header.dtype.size() as u64;
    let plane = d.x * d.y;
    // rows in order; each chunk is decoded once, when the first row needing it comes
    let mut written = 0u64;
    let mut cur: Option<(usize, Field)> = None;
    for z in b.z.0..b.z.1 {
        for y in b.y.0..b.y.1 {
            let row = z * plane + y * d.x;
            let (a, e) = (row + b.x.0, row + b.x.1);
            // the run [a, e) may straddle chunks (1-D fields)
            let mut p = a;
            while p < e {
                let k = index.chunks.partition_point(|c| c.first + c.count <= p);
                let c = *index.chunks.get(k).ok_or_else(|| Error::corrupt("FZMS index does not cover the box"))?;
                if cur.as_ref().is_none_or(|(ck, _)| *ck != k) {
                    cur = Some((k, decompress_chunk(backend, opts, r, index, k)?));
                }
                let f = &cur.as_ref().ok_or_else(|| Error::Pipeline("box decode".into()))?.1;
                let q = e.min(c.first + c.count);
                let (s0, s1) = (((p - c.first) * sz) as usize, ((q - c.first) * sz) as usize);
                out.write_all(&f.bytes[s0..s1]).map_err(|e| Error::io("writing decoded values", e))?;
                written += (s1 - s0) as u64;
                p = q;
            }
        }
        progress(written);
    }
    out.flush().map_err(|e| Error::io("writing decoded values", e))?;
    Ok(written)
}

/// Decode a whole stream from a reader that cannot seek (a pipe): the header, then
/// each chunk's FZM archive in order (each says its own length), then the index and
/// footer, which are checked against what was read. Memory: one chunk.
pub fn decompress_sequential<R: Read, W: Write>(
    backend: &dyn Backend,
    opts: &RunOptions,
    mut r: R,
    mut out: W,
    progress: &mut dyn FnMut(u64),
) -> Result<StreamHeader> {
    let io = |what: &'static str| move |e: std::io::Error| Error::io(what, e);
    // the stream ending early is a truncated (corrupt) stream, not an I/O failure
    let short = |what: &'static str| {
        move |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Error::corrupt(format!("the FZMS stream ends inside {what} (truncated?)")),
            _ => Error::io(what, e),
        }
    };
    let mut hb = vec![0u8; HEADER_BYTES];
    r.read_exact(&mut hb).map_err(short("its header"))?;
    let header = decode_header(&hb)?;
    let n = header.dims.len();
    let (unit, slab_dims) = slab(header.dims);
    let sz = header.dtype.size() as u64;
    let mut entries = Vec::new();
    // one field buffer for all chunks (decompress_into reuses its memory)
    let mut values = Vec::new();
    let (mut pos, mut first) = (HEADER_BYTES as u64, 0u64);
    while first < n {
        let count = header.chunk_values.min(n - first);
        let mut core = vec![0u8; 80];
        r.read_exact(&mut core).map_err(short("a chunk's header"))?;
        let total = u64_at(&core, 16);
        // a chunk archive holds at most its values raw plus headers: refuse anything
        // claiming far more before allocating it
        let cap = count * sz * 2 + (1 << 20);
        if total < 80 || total > cap {
            return Err(Error::corrupt(format!("FZMS chunk {} claims {total} bytes", entries.len())));
        }
        let mut bytes = core;
        bytes.resize(total as usize, 0);
        r.read_exact(&mut bytes[80..]).map_err(short("a chunk"))?;
        values.resize((count * sz) as usize, 0);
        let d = match crate::pipeline::decompress_into(backend, &bytes, opts, &mut values) {
            // a chunk whose archive decodes to another size than the index says
            Err(Error::Input(m)) => return Err(Error::corrupt(format!("FZMS chunk {}: {m}", entries.len()))),
            d => d?,
        };
        if d.dtype != header.dtype || d.dims != slab_dims(count / unit)? {
            return Err(Error::corrupt(format!("FZMS chunk {} holds {} {}", entries.len(), d.dims, d.dtype)));
        }
        out.write_all(&values).map_err(io("writing decoded values"))?;
        entries.push(ChunkEntry { offset: pos, length: total, first, count });
        pos += total;
        first += count;
        progress(first * sz);
    }
    // the index and footer must describe exactly what was read
    let (ib, fb) = encode_index(&entries, pos);
    let mut tail = vec![0u8; ib.len() + fb.len()];
    r.read_exact(&mut tail).map_err(io("reading the stream index"))?;
    if tail[..ib.len()] != ib[..] || tail[ib.len()..] != fb[..] {
        return Err(Error::corrupt("FZMS index or footer does not match the chunks"));
    }
    let mut extra = [0u8; 1];
    if r.read(&mut extra).map_err(io("reading past the stream"))? != 0 {
        return Err(Error::corrupt("bytes after the FZMS footer"));
    }
    out.flush().map_err(io("writing decoded values"))?;
    Ok(header)
}
