//! The algorithm layer. A [`Stage`] declares its ports, its config (at most 128 bytes
//! in the archive) and records its kernels into a [`Recorder`]; it never touches a
//! backend type. Stages are registered by their StageType id, which is never reused.

pub mod bitpack;
pub mod bits;
pub mod correct;
pub mod lorenzo;
pub mod quantizer;
pub mod speck;
pub mod szp;
pub mod szx;
pub mod wavelet;

use crate::error::{Error, Result};
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims, ErrorBound};

/// StageType ids of the FZM format (REFERENCE.md). Never reused or renumbered.
pub mod ids {
    pub const LORENZO_QUANT: u16 = 1;
    pub const DIFFERENCE: u16 = 2;
    pub const SCALE: u16 = 3;
    pub const PASSTHROUGH: u16 = 4;
    pub const RLE: u16 = 5;
    pub const HUFFMAN: u16 = 6;
    pub const BITPACK: u16 = 7;
    pub const SPLIT: u16 = 10;
    pub const MERGE: u16 = 11;
    pub const LORENZO: u16 = 12;
    pub const QUANTIZER: u16 = 14;
    pub const ZIGZAG: u16 = 15;
    pub const NEGABINARY: u16 = 16;
    pub const BITSHUFFLE: u16 = 17;
    pub const RZE: u16 = 18;
    pub const ADM: u16 = 19;
    pub const ANS: u16 = 20;
    pub const SZX: u16 = 36;
    pub const SZP: u16 = 37;
    // Assigned by fzwgpu (REFERENCE.md lists no ids for these; 0x100 and up stay clear
    // of the original's range).
    pub const CDF97: u16 = 0x100;
    pub const CDF97_OUTLIER_CORRECT: u16 = 0x101;
    pub const SPECK2D: u16 = 0x102;
    pub const SPECK3D: u16 = 0x103;
    pub const CDF53: u16 = 0x104;
    pub const CDF53_OUTLIER_CORRECT: u16 = 0x105;
}

/// Maximum serialized config size of a stage.
pub const MAX_CONFIG_BYTES: usize = 128;

/// A named, typed port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortSpec {
    pub name: String,
    pub dtype: DataType,
}

impl PortSpec {
    pub fn new(name: &str, dtype: DataType) -> Self {
        PortSpec { name: name.to_string(), dtype }
    }
}

/// How the length of a deferred part becomes known: fixed, or a u32 word of a
/// readback times a scale.
#[derive(Debug, Clone, Copy)]
pub enum PartLen {
    Fixed(u64),
    Readback { index: usize, word: usize, scale: u64 },
}

/// One piece of a deferred output: the first `len` bytes of `slice`.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    pub slice: BufSlice,
    pub len: PartLen,
}

/// Host bytes of a port: the archive's own bytes of an archived buffer on decode (no
/// copy: they live as long as the decode call that borrows the archive), or bytes read
/// back from the device.
#[derive(Debug, Clone)]
pub enum HostBytes<'a> {
    Archive(&'a [u8]),
    Owned(Vec<u8>),
}

impl HostBytes<'_> {
    pub fn new(v: Vec<u8>) -> Self {
        HostBytes::Owned(v)
    }
}

impl std::ops::Deref for HostBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            HostBytes::Archive(b) => b,
            HostBytes::Owned(v) => v,
        }
    }
}

/// Data on a port.
#[derive(Debug, Clone)]
pub enum PortData<'a> {
    /// Contiguous bytes in a device window whose length is known on the host; `host`
    /// holds the same bytes on the host where they are at hand (on decode, an archived
    /// buffer's bytes in the archive itself).
    Device { slice: BufSlice, len: u64, host: Option<HostBytes<'a>> },
    /// Assembled on the host after the submission from parts whose lengths are read
    /// back at the end: only for outputs that go to the archive.
    Deferred { parts: Vec<Part> },
}

impl<'a> PortData<'a> {
    /// The device window, its length and its bytes on the host: the archive's own bytes
    /// when the port has them, else read back (after submitting what was recorded).
    pub fn host_bytes(&self, r: &mut Recorder, what: &str) -> Result<(BufSlice, u64, HostBytes<'a>)> {
        self.host_prefix(r, what, u64::MAX)
    }

    /// Like [`host_bytes`](Self::host_bytes), for a caller that reads only the first
    /// `want` bytes on the host: the bytes returned hold at least `min(want, len)`
    /// (the port's host bytes when they are that long, else read back from the device).
    pub fn host_prefix(&self, r: &mut Recorder, what: &str, want: u64) -> Result<(BufSlice, u64, HostBytes<'a>)> {
        match self {
            PortData::Device { slice, len, host: Some(h) } if h.len() as u64 >= want.min(*len) => Ok((*slice, *len, h.clone())),
            PortData::Device { slice, len, .. } => {
                r.submit()?;
                let n = want.min(*len);
                let mut v = r.backend.read_buffers(&[BufSlice::new(slice.buf, slice.offset, n.next_multiple_of(4))])?.remove(0);
                v.truncate(n as usize);
                Ok((*slice, *len, HostBytes::new(v)))
            }
            PortData::Deferred { .. } => Err(Error::Pipeline(format!("{what}: input must be a device buffer"))),
        }
    }

    /// The same port without its host copy (what a stage returns: outputs are device
    /// windows or deferred parts, never bytes of the archive being decoded).
    pub fn without_host(&self) -> PortData<'static> {
        match self {
            PortData::Device { slice, len, .. } => PortData::Device { slice: *slice, len: *len, host: None },
            PortData::Deferred { parts } => PortData::Deferred { parts: parts.clone() },
        }
    }

    pub fn device(&self, what: &str) -> Result<(BufSlice, u64)> {
        match self {
            PortData::Device { slice, len, .. } => Ok((*slice, *len)),
            PortData::Deferred { .. } => {
                Err(Error::Pipeline(format!("{what}: input is a deferred archive output and cannot feed another stage")))
            }
        }
    }
}

/// Whether adjacent Quantizer -> Lorenzo -> AdaptiveBitpack stages run as fused
/// kernels (the archive bytes are the same either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FusionPolicy {
    /// Always the staged kernels.
    Off,
    /// Fuse every eligible chain (the field fits one binding), stage the rest.
    #[default]
    Auto,
    /// Fuse, or fail with an error naming why not.
    Force,
}

impl std::str::FromStr for FusionPolicy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "off" => Ok(FusionPolicy::Off),
            "auto" => Ok(FusionPolicy::Auto),
            "force" => Ok(FusionPolicy::Force),
            other => Err(Error::config(format!("fusion '{other}' (off, auto or force)"))),
        }
    }
}

/// Per-run options that affect how (not what) a stage records.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Fusion of Quantizer -> Lorenzo -> AdaptiveBitpack chains.
    pub fusion: FusionPolicy,
    /// Cap on the bytes one kernel binding may cover (default: the device limit).
    /// Smaller values exercise the chunked paths on small data; they never change the
    /// archive bytes.
    pub max_chunk_bytes: Option<u64>,
    /// Benchmarking: submit every submission's commands this many more times, back to
    /// back and without readbacks, and report the median of those kernel times (the
    /// device stays busy, so it runs at its sustained clocks). The results of the run
    /// are those of the first submission; inverse stages that work in place (staged
    /// Lorenzo) leave their device buffers scrambled, which only resident decompression
    /// (`decompress_device`) exposes. 0 (the default) for normal use.
    pub timing_replays: u32,
    /// Benchmarking: put the `timing_replays` replays into one submission, back to back
    /// on the device with no host round trip between them, and report their mean (the
    /// span / replays). False (the default): each replay is its own submission, waited
    /// for, and the median counts.
    pub timing_batched: bool,
    /// Benchmarking: before each submission's timed replays, replay it untimed until
    /// this many milliseconds of device time have run, so a device that lowers its
    /// clocks while idle (NVIDIA through Vulkan: down to 345 MHz within about 2 s of
    /// idling, and back up only after 100-300 ms of load) is timed at its sustained
    /// clocks; it also stops after twice this many milliseconds of wall time, or after
    /// `recording::PREHEAT_MAX_SUBMISSIONS` submissions (a small field on a fast GPU;
    /// `RunReport::preheat_submissions` counts them). 0 (the default): no pre-heat.
    pub timing_preheat_ms: u32,
    /// Overlapped transfers of a pipeline of one SZx stage (ARCHITECTURE.md): compressing
    /// a host field, it uploads in chunks of this many bytes, each coded while the next
    /// uploads; decompressing into host memory, the archive uploads and decodes by
    /// chunks while a thread reads the decoded ones back. `None` (the default): only
    /// with `FZWGPU_OVERLAP=on|upload` on a device backend, in chunks of
    /// `pipeline::OVERLAP_CHUNK` (`FZWGPU_OVERLAP_CHUNK`); off otherwise, since it
    /// measured slower than the plain path on an H100 (round 37, PERFORMANCE.md).
    /// `Some(0)`: never; `Some(c)`: chunks of `c` on any backend (rounded to whole
    /// chunks of blocks; fields of fewer than two chunks are not overlapped). Never
    /// changes the archive or the field's bytes.
    pub overlap_chunk_bytes: Option<u64>,
    /// Overlapped compression: whether a thread reads each coded chunk's payload back
    /// into the archive while later chunks upload (`Some(false)`: all at the end, as
    /// on the plain path). `None` (the default): yes, unless `FZWGPU_OVERLAP=upload`.
    pub overlap_readback: Option<bool>,
}

/// A compression stage.
pub trait Stage: Send {
    /// StageType id written into the archive.
    fn type_id(&self) -> u16;
    /// TOML `type` name.
    fn type_name(&self) -> &'static str;
    /// Version of the stage's config and buffer layout.
    fn version(&self) -> u16 {
        1
    }
    /// Forward input ports.
    fn inputs(&self) -> Vec<PortSpec>;
    /// Forward output ports.
    fn outputs(&self) -> Vec<PortSpec>;
    /// Adapt to the data type arriving on forward input `port` (for stages fed by the
    /// raw field); an error when the stage cannot take it.
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        let want = self.inputs().get(port).map(|p| p.dtype).unwrap_or(DataType::Unknown);
        if want == dtype || want == DataType::Unknown {
            Ok(())
        } else {
            Err(Error::Pipeline(format!("{} takes {want} on input {port}, got {dtype}", self.type_name())))
        }
    }
    /// The pipeline's dims (x fastest).
    fn set_dims(&mut self, _dims: Dims) {}
    /// Lossy stages take a new bound (CLI/API override) and return true.
    fn override_bound(&mut self, _eb: ErrorBound) -> bool {
        false
    }
    /// The bound a lossy stage is configured with (None for lossless stages).
    fn configured_bound(&self) -> Option<ErrorBound> {
        None
    }
    /// Safe upper bounds of the forward outputs, from the input sizes in bytes.
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64>;
    /// Whether the forward path records without any host readback mid-pipeline.
    fn graph_compatible(&self) -> bool {
        true
    }
    /// Host decisions before recording (e.g. resolving a NOA/REL bound against the
    /// range from `set_field_range`). The
    /// inputs are on the device already (earlier work has been submitted).
    fn prepare_forward(&mut self, _r: &mut Recorder, _inputs: &[PortData], _opts: &RunOptions) -> Result<()> {
        Ok(())
    }
    /// Record the forward kernels.
    fn record_forward(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>>;
    /// After the submission: the host bytes of this stage's archived outputs (None for
    /// outputs consumed by other stages).
    fn finish_forward(&mut self, _outputs: &[Option<&[u8]>]) -> Result<()> {
        Ok(())
    }
    /// Record the inverse kernels: inputs are the forward outputs, outputs rebuild the
    /// forward inputs.
    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], opts: &RunOptions) -> Result<Vec<PortData<'static>>>;
    /// Serialized config (at most [`MAX_CONFIG_BYTES`]).
    fn config_bytes(&self) -> Vec<u8>;
    /// Human-readable config, for `info`.
    fn describe(&self) -> Vec<(String, String)>;
    /// Short machine-readable tokens about what the last run did.
    fn run_notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The resolved absolute bound of the last run, for lossy stages.
    fn resolved_bound(&self) -> Option<f64> {
        None
    }
    /// Dims of the field this stage reconstructs (decode side).
    fn field_dims(&self) -> Option<Dims> {
        None
    }
    /// Whether this stage's NOA/REL bound needs the raw field's finite range (the
    /// pipeline then computes it once and hands it over with `set_field_range`).
    fn wants_field_range(&self) -> bool {
        false
    }
    /// The raw field's finite (min, max), None when no value is finite. NOA/REL bounds
    /// are relative to the field the user gave, whatever this stage's input is.
    fn set_field_range(&mut self, _range: Option<(f64, f64)>) {}
    /// Whether `host_encode` changes output `port` (then the archive cannot receive the
    /// readback in place).
    fn host_coded(&self, _port: usize) -> bool {
        false
    }
    /// Host-side coding of an archived output after the one readback (SPECK, the
    /// correction list); identity by default.
    fn host_encode(&mut self, _port: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        Ok(bytes)
    }
    /// The most loop iterations one invocation of this stage's kernels can run on the
    /// current dims (0: bounded by the stage's limits, far below any loop limit). The
    /// pipeline runs on the cpu backend when this exceeds the adapter's
    /// `BackendInfo::loop_limit`.
    fn loop_iterations(&self) -> u64 {
        0
    }
    /// Whether the forward kernels need SHADER_F64 on this config.
    fn needs_f64(&self) -> bool {
        false
    }
    /// For downcasting to the concrete stage (e.g. `SzxStage::constant_block_fraction`).
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// Build a stage from its archived type id, version and config bytes.
pub fn from_config(type_id: u16, version: u16, config: &[u8]) -> Result<Box<dyn Stage>> {
    Ok(match type_id {
        ids::SZX => Box::new(szx::SzxStage::from_config(version, config)?),
        ids::QUANTIZER => Box::new(quantizer::QuantizerStage::from_config(version, config)?),
        ids::LORENZO => Box::new(lorenzo::LorenzoStage::from_config(version, config)?),
        ids::BITPACK => Box::new(bitpack::BitpackStage::from_config(version, config)?),
        ids::SZP => Box::new(szp::SzpStage::from_config(version, config)?),
        ids::CDF97 => Box::new(wavelet::WaveletStage::from_config(wavelet::Wavelet::Cdf97, version, config)?),
        ids::CDF53 => Box::new(wavelet::WaveletStage::from_config(wavelet::Wavelet::Cdf53, version, config)?),
        ids::CDF97_OUTLIER_CORRECT => Box::new(correct::Cdf97OutlierCorrectStage::from_config(version, config)?),
        ids::CDF53_OUTLIER_CORRECT => Box::new(correct::Cdf53OutlierCorrectStage::from_config(version, config)?),
        ids::SPECK2D => Box::new(speck::SpeckStage::from_config(false, version, config)?),
        ids::SPECK3D => Box::new(speck::SpeckStage::from_config(true, version, config)?),
        other => return Err(Error::UnknownStage(format!("id {other} ({})", type_name_of(other)))),
    })
}

/// The TOML `type` names this build knows.
pub const TOML_TYPES: &[&str] = &[
    "SZx",
    "SZp",
    "Quantizer",
    "Lorenzo",
    "AdaptiveBitpack",
    "CDF97",
    "CDF53",
    "Cdf97OutlierCorrect",
    "Cdf53OutlierCorrect",
    "SPECK2D",
    "SPECK3D",
];

/// Build a stage from a TOML `[[stage]]` table (its `type` already read).
pub fn from_toml(type_name: &str, t: &mut crate::pipeline::config::Keys) -> Result<Box<dyn Stage>> {
    Ok(match type_name {
        "SZx" => Box::new(szx::SzxStage::from_toml(t)?),
        "Quantizer" => Box::new(quantizer::QuantizerStage::from_toml(t)?),
        "Lorenzo" => Box::new(lorenzo::LorenzoStage::from_toml(t)?),
        "AdaptiveBitpack" => Box::new(bitpack::BitpackStage::from_toml(t)?),
        "SZp" => Box::new(szp::SzpStage::from_toml(t)?),
        "CDF97" => Box::new(wavelet::WaveletStage::from_toml(wavelet::Wavelet::Cdf97, t)?),
        "CDF53" => Box::new(wavelet::WaveletStage::from_toml(wavelet::Wavelet::Cdf53, t)?),
        "Cdf97OutlierCorrect" => Box::new(correct::Cdf97OutlierCorrectStage::from_toml(t)?),
        "Cdf53OutlierCorrect" => Box::new(correct::Cdf53OutlierCorrectStage::from_toml(t)?),
        "SPECK2D" => Box::new(speck::SpeckStage::from_toml(false, t)?),
        "SPECK3D" => Box::new(speck::SpeckStage::from_toml(true, t)?),
        other => return Err(Error::UnknownStage(format!("'{other}' (known: {})", TOML_TYPES.join(", ")))),
    })
}

/// Name of a stage type id, if known.
pub fn type_name_of(id: u16) -> &'static str {
    match id {
        ids::SZX => "SZx",
        ids::SZP => "SZp",
        ids::QUANTIZER => "Quantizer",
        ids::LORENZO => "Lorenzo",
        ids::BITPACK => "AdaptiveBitpack",
        ids::CDF97 => "CDF97",
        ids::CDF53 => "CDF53",
        ids::CDF97_OUTLIER_CORRECT => "Cdf97OutlierCorrect",
        ids::CDF53_OUTLIER_CORRECT => "Cdf53OutlierCorrect",
        ids::SPECK2D => "SPECK2D",
        ids::SPECK3D => "SPECK3D",
        _ => "?",
    }
}
pub mod bound;
pub mod chain;
pub mod geo;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::backend::Backend;

    /// `host_prefix` hands out the attached host copy when it is long enough and reads
    /// the device window back when it is not (a short host copy costs a
    /// readback, never wrong bytes).
    #[test]
    fn host_prefix_reads_back_what_the_copy_lacks() {
        let be = CpuBackend::new();
        let mut r = Recorder::new(&be);
        let bytes: Vec<u8> = (0..64u8).collect();
        let buf = r.alloc(64).unwrap();
        be.write_buffer(buf, 0, &bytes).unwrap();
        let slice = BufSlice::new(buf, 0, 64);
        // a host copy of the first 16 bytes, marked so that its use is visible
        let copy = HostBytes::new(vec![0xee; 16]);
        let p = PortData::Device { slice, len: 60, host: Some(copy) };
        let (_, len, h) = p.host_prefix(&mut r, "t", 16).unwrap();
        assert_eq!((len, &h[..]), (60, &[0xee; 16][..]));
        let (_, _, h) = p.host_prefix(&mut r, "t", 24).unwrap();
        assert_eq!(&h[..], &bytes[..24]);
        let (_, _, h) = p.host_bytes(&mut r, "t").unwrap();
        assert_eq!(&h[..], &bytes[..60]);
        let p = PortData::Device { slice, len: 60, host: None };
        let (_, _, h) = p.host_prefix(&mut r, "t", 1000).unwrap();
        assert_eq!(&h[..], &bytes[..60]);
    }
}
