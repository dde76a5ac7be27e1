//! The staged transfers' shape, shared by the GPU backends: how large each staging
//! buffer is and how many are used in turn, per direction. A staged transfer goes
//! through these buffers piece by piece: the host fills (or drains) one while the
//! device copies another, so a transfer of N bytes costs about N at the slower of the
//! two rates plus one piece at the other (the pipeline's fill and drain). Smaller
//! pieces shorten that fill and drain, more of them keep more copies queued; both are
//! measured, not guessed (PERFORMANCE.md), so they are knobs with fixed defaults.

use crate::error::{Error, Result};

/// Staging buffers' size and count per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub upload_chunk: u64,
    pub upload_buffers: usize,
    pub download_chunk: u64,
    pub download_buffers: usize,
}

impl Shape {
    /// The wgpu backend's: two buffers of 32 MiB each way (round 33 measured larger and
    /// more upload buffers on an H100, round 41 smaller readback buffers: none faster).
    pub(crate) const WGPU: Shape = Shape { upload_chunk: 32 << 20, upload_buffers: 2, download_chunk: 32 << 20, download_buffers: 2 };
    /// The CUDA backend's: uploads as wgpu's; readbacks through four buffers of 8 MiB
    /// (round 41 on an H100, `h100-r41b.log` and `h100-r41c.log`, `szx` on 1 GiB: a
    /// readback into touched memory 51.9-53.4 GB/s against 36.4-51.8 with two of 32
    /// MiB, `decompress_into` 38.1-39.0 against 33.1-37.8, and the archive's readback
    /// in `compress_into` 2.7-3.8 ms against 3.6-4.4).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) const CUDA: Shape = Shape { download_chunk: 8 << 20, download_buffers: 4, ..Shape::WGPU };

    /// The defaults `d`, changed by `FZWGPU_UPLOAD_CHUNK`, `FZWGPU_UPLOAD_BUFFERS`,
    /// `FZWGPU_DOWNLOAD_CHUNK` and `FZWGPU_DOWNLOAD_BUFFERS` (measurements): sizes a
    /// multiple of 64K from 1M to 1G, counts 2 to 8.
    pub(crate) fn from_env(d: Shape) -> Result<Self> {
        Ok(Shape {
            upload_chunk: chunk("FZWGPU_UPLOAD_CHUNK", d.upload_chunk)?,
            upload_buffers: count("FZWGPU_UPLOAD_BUFFERS", d.upload_buffers)?,
            download_chunk: chunk("FZWGPU_DOWNLOAD_CHUNK", d.download_chunk)?,
            download_buffers: count("FZWGPU_DOWNLOAD_BUFFERS", d.download_buffers)?,
        })
    }
}

/// Whether decompression hashes the archive's payload in the upload's own copy threads
/// (`BackendInfo::hash_on_upload`): the backend's `default`, unless
/// `FZWGPU_HASH_ON_UPLOAD=on|off` (measurements) says otherwise.
pub(crate) fn hash_on_upload(default: bool) -> Result<bool> {
    Ok(crate::envcfg::switch("FZWGPU_HASH_ON_UPLOAD")?.unwrap_or(default))
}

fn chunk(var: &str, default: u64) -> Result<u64> {
    check_chunk(var, crate::envcfg::get(var)?.map(|v| crate::types::parse_size(&v)).transpose()?.unwrap_or(default))
}

fn check_chunk(var: &str, v: u64) -> Result<u64> {
    if !(1 << 20..=1 << 30).contains(&v) || !v.is_multiple_of(64 << 10) {
        return Err(Error::config(format!("{var}={v}: want a multiple of 64K from 1M to 1G")));
    }
    Ok(v)
}

fn count(var: &str, default: usize) -> Result<usize> {
    check_count(var, crate::envcfg::number(var)?.unwrap_or(default as u64))
}

fn check_count(var: &str, v: u64) -> Result<usize> {
    if !(2..=8).contains(&v) {
        return Err(Error::config(format!("{var}={v}: want 2 to 8")));
    }
    Ok(v as usize)
}

/// `FZWGPU_TRANSFER_TRACE` (diagnostic): one line per staged transfer on stderr, with
/// each fill's wait (for the buffer's previous copy) and host copy, in ms, and the
/// final wait for the stream: where a transfer's time goes, fill by fill.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct FillTrace {
    on: bool,
    t0: std::time::Instant,
    mark: std::time::Instant,
    waits: Vec<f64>,
    copies: Vec<f64>,
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl FillTrace {
    pub(crate) fn new() -> Self {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let on = *ON.get_or_init(|| crate::envcfg::get("FZWGPU_TRANSFER_TRACE").ok().flatten().is_some());
        let now = std::time::Instant::now();
        FillTrace { on, t0: now, mark: now, waits: Vec::new(), copies: Vec::new() }
    }

    fn lap(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let ms = (now - self.mark).as_secs_f64() * 1e3;
        self.mark = now;
        ms
    }

    /// Since the last mark: time waiting for a buffer.
    pub(crate) fn waited(&mut self) {
        if self.on {
            let ms = self.lap();
            self.waits.push(ms);
        }
    }

    /// Since the last mark: a host copy (and whatever was queued with it).
    pub(crate) fn copied(&mut self) {
        if self.on {
            let ms = self.lap();
            self.copies.push(ms);
        }
    }

    /// Prints the line: `what` (with "+crc" when hashed, "streamed" with streaming
    /// stores), the bytes and the host address (its alignment matters to memcpy), the
    /// fills, and the final wait since the last mark.
    pub(crate) fn done(mut self, what: &str, crc: bool, streamed: bool, bytes: usize, host: usize, chunk: usize) {
        if !self.on {
            return;
        }
        let what = format!("{what}{}{}", if crc { "+crc" } else { "" }, if streamed { " streamed" } else { "" });
        let sync = self.lap();
        let list = |v: &[f64]| v.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(" ");
        eprintln!(
            "transfer-trace: {what} {bytes} B (host % 64 = {}, % 4096 = {}) in {} fills of {chunk} B: total {:.3} ms; waits {}; copies {}; final wait {sync:.3}",
            host % 64,
            host % 4096,
            self.copies.len(),
            self.t0.elapsed().as_secs_f64() * 1e3,
            list(&self.waits),
            list(&self.copies),
        );
    }
}

/// One piece of a packed readback: destination `out`, `len` bytes from offset `off`
/// of its source, at byte `at` of a staging buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub out: usize,
    pub off: u64,
    pub len: u64,
    pub at: u64,
}

/// A readback of windows of `lens[k]` bytes cut into pieces packed into staging
/// buffers of `chunk` bytes: one list of pieces per buffer fill, in order, each
/// window's pieces in order; a piece starts at a multiple of `align` bytes (a power of
/// two) of its buffer, and each window's length is first rounded up to `round` bytes
/// (a power of two: whole words where the copy engine wants them; the host keeps
/// only the window's own bytes).
pub(crate) fn pack(lens: &[u64], chunk: u64, align: u64, round: u64) -> Vec<Vec<Piece>> {
    let mut fills: Vec<Vec<Piece>> = Vec::new();
    let mut cur: Vec<Piece> = Vec::new();
    let mut fill = 0u64;
    for (k, &l) in lens.iter().enumerate() {
        let want = l.next_multiple_of(round);
        let mut off = 0u64;
        while off < want {
            if fill >= chunk {
                fills.push(std::mem::take(&mut cur));
                fill = 0;
            }
            let len = (want - off).min(chunk - fill);
            cur.push(Piece { out: k, off, len, at: fill });
            off += len;
            fill = (fill + len).next_multiple_of(align).min(chunk);
        }
    }
    if !cur.is_empty() {
        fills.push(cur);
    }
    fills
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_covers_each_window_once_in_order_inside_its_buffer() {
        let cases: &[(&[u64], u64)] = &[
            (&[], 1 << 20),
            (&[0, 0], 1 << 20),
            (&[5, 3 << 20, 7, 1 << 20, 0, (1 << 20) + 1], 1 << 20),
            (&[(4 << 20) + 12], 1 << 20),
            (&[1, 2, 3, 4, 5, 6, 7, 8, 9], 64),
        ];
        for &(lens, chunk) in cases {
            for (align, round) in [(8u64, 4u64), (64, 1), (1, 1)] {
                let fills = pack(lens, chunk, align, round);
                let mut next = vec![0u64; lens.len()];
                let mut last_out = 0usize;
                for f in &fills {
                    assert!(!f.is_empty());
                    let mut end = 0u64;
                    for p in f {
                        assert!(p.len > 0 && p.at % align == 0 && p.at >= end && p.at + p.len <= chunk, "{p:?}");
                        assert_eq!(p.off, next[p.out], "{lens:?} {p:?}");
                        assert!(p.out >= last_out);
                        last_out = p.out;
                        next[p.out] += p.len;
                        end = p.at + p.len;
                    }
                }
                for (k, &l) in lens.iter().enumerate() {
                    assert_eq!(next[k], l.next_multiple_of(round), "{lens:?} window {k}");
                }
            }
        }
    }

    #[test]
    fn shape_rejects_out_of_range_values() {
        // the defaults pass unchanged
        for s in [Shape::WGPU, Shape::CUDA] {
            assert_eq!(check_chunk("X", s.upload_chunk).unwrap(), s.upload_chunk);
            assert_eq!(check_chunk("X", s.download_chunk).unwrap(), s.download_chunk);
            assert_eq!(check_count("X", s.upload_buffers as u64).unwrap(), s.upload_buffers);
            assert_eq!(check_count("X", s.download_buffers as u64).unwrap(), s.download_buffers);
        }
        for bad in [0, 4, (1 << 20) - (64 << 10), (1 << 20) + 4, (1 << 30) + (64 << 10)] {
            assert!(check_chunk("X", bad).is_err(), "{bad}");
        }
        assert_eq!(check_chunk("X", (1 << 20) + (64 << 10)).unwrap(), (1 << 20) + (64 << 10));
        for bad in [0, 1, 9] {
            assert!(check_count("X", bad).is_err(), "{bad}");
        }
    }
}
