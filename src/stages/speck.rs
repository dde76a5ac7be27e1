//! SPECK set-partitioning bit-plane coder for integer codes (StageType SPECK2D and
//! SPECK3D), lossless. Forward `codes (int32 or zigzag uint32) -> bitstream`.
//!
//! The codes are read as sign + magnitude. Sets are boxes of the field. The initial
//! partition follows the wavelet's subbands (the level rule of `stages::wavelet`): the
//! whole field is split at ceil(len/2) along every axis that has a level left, the
//! high-pass boxes become sets, and the low-pass box is split again; the coarsest
//! low-pass box is the last set. Then, bit-plane by bit-plane from the highest:
//! - the sorting pass tests the insignificant pixels (LIP), then the insignificant
//!   sets from the smallest to the largest: a significant set is split at the middle
//!   of every axis longer than 1 (up to 8 children, recursively); a significant pixel
//!   sends its sign and joins the significant list. The last child of a significant
//!   set whose siblings were all insignificant is significant without a bit.
//! - the refinement pass sends bit b of every pixel that was significant before it.
//!
//! Encoder and decoder run the same traversal (`traverse`); only the `Io` differs
//! (the encoder knows the magnitudes and writes bits, the decoder reads them). No
//! entropy coder follows (as in SPERR); the stream ends at bit-plane 0, exact.
//!
//! SPECK2D and SPECK3D are the same coder: the partition follows the field's dims, so a
//! SPECK2D stage given a 3-D field (as the original's `sperr_gpu` preset names it)
//! codes the 3-D subbands of a 3-D transform with octree splits (run note
//! `partition=3d`); a 2-D-only split of 3-D subbands would cost bits for nothing.
//! The coder runs on the host (on the bytes the pipeline reads back once).

use super::bits::{BitReader, BitWriter};
use super::wavelet::levels;
use super::{ids, Part, PartLen, PortData, PortSpec, RunOptions, Stage};
use crate::backend::cpu::quant::{decode_code, encode_code};
use crate::error::{Error, Result};
use crate::pipeline::config::Keys;
use crate::recording::{BufSlice, Recorder};
use crate::types::{DataType, Dims};

const CONFIG_VERSION: u8 = 1;
const CONFIG_BYTES: usize = 40;
const STREAM_VERSION: u8 = 1;

/// A box of the field, with its partition depth (and, on the encoder side, the
/// largest magnitude inside).
#[derive(Debug, Clone, Copy)]
struct Set {
    o: [u32; 3],
    l: [u32; 3],
    lvl: u16,
    max: u32,
}

impl Set {
    fn is_pixel(&self) -> bool {
        self.l == [1, 1, 1]
    }
}

/// Split `s` at ceil(len/2) along each axis in `axes` that is longer than 1; children
/// in z, y, x order, low halves first.
fn split(s: &Set, axes: [bool; 3]) -> ([Set; 8], usize) {
    let mut halves = [[(0u32, 0u32); 2]; 3];
    let mut cnt = [1usize; 3];
    for a in 0..3 {
        if axes[a] && s.l[a] > 1 {
            let lo = s.l[a] - s.l[a] / 2;
            halves[a] = [(s.o[a], lo), (s.o[a] + lo, s.l[a] / 2)];
            cnt[a] = 2;
        } else {
            halves[a] = [(s.o[a], s.l[a]), (0, 0)];
        }
    }
    let mut out = [Set { o: [0; 3], l: [0; 3], lvl: 0, max: 0 }; 8];
    let mut k = 0;
    for hz in &halves[2][..cnt[2]] {
        for hy in &halves[1][..cnt[1]] {
            for hx in &halves[0][..cnt[0]] {
                out[k] = Set { o: [hx.0, hy.0, hz.0], l: [hx.1, hy.1, hz.1], lvl: s.lvl + 1, max: 0 };
                k += 1;
            }
        }
    }
    (out, k)
}

/// What differs between encoding and decoding.
trait Io {
    /// Fill encoder-side information of a new set.
    fn fill(&mut self, s: &mut Set);
    /// Significance of a set (not a pixel) at plane b.
    fn sig_set(&mut self, s: &Set, b: u32) -> Result<bool>;
    /// Significance of pixel `i` at plane b.
    fn sig_pixel(&mut self, i: usize, b: u32) -> Result<bool>;
    /// Pixel `i` became significant at plane b: its sign.
    fn newly(&mut self, i: usize, b: u32) -> Result<()>;
    /// Bit b of a pixel significant before this plane.
    fn refine(&mut self, i: usize, b: u32) -> Result<()>;
}

struct Lists {
    dims: [u32; 3],
    lis: Vec<Vec<Set>>,
    lip: Vec<u32>,
    lsp: Vec<u32>,
    lsp_new: Vec<u32>,
}

impl Lists {
    fn index(&self, s: &Set) -> usize {
        let d = &self.dims;
        s.o[0] as usize + d[0] as usize * (s.o[1] as usize + d[1] as usize * s.o[2] as usize)
    }
    fn push_set(&mut self, s: Set) {
        let l = s.lvl as usize;
        if self.lis.len() <= l {
            self.lis.resize_with(l + 1, Vec::new);
        }
        self.lis[l].push(s);
    }
}

fn code_s<I: Io>(io: &mut I, st: &mut Lists, s: &Set, b: u32) -> Result<()> {
    let (children, k) = split(s, [true; 3]);
    let mut any = false;
    for (i, c) in children[..k].iter().enumerate() {
        let known = i + 1 == k && !any;
        if c.is_pixel() {
            let idx = st.index(c);
            if known || io.sig_pixel(idx, b)? {
                any = true;
                io.newly(idx, b)?;
                st.lsp_new.push(idx as u32);
            } else {
                st.lip.push(idx as u32);
            }
        } else {
            let mut c = *c;
            io.fill(&mut c);
            if known || io.sig_set(&c, b)? {
                any = true;
                code_s(io, st, &c, b)?;
            } else {
                st.push_set(c);
            }
        }
    }
    Ok(())
}

/// The shared traversal: initial partition, then planes `top` down to 0.
fn traverse<I: Io>(io: &mut I, dims: Dims, top: Option<u32>) -> Result<()> {
    let d = [dims.x as u32, dims.y as u32, dims.z as u32];
    let lv = levels(dims);
    let mut st = Lists { dims: d, lis: Vec::new(), lip: Vec::new(), lsp: Vec::new(), lsp_new: Vec::new() };
    let Some(top) = top else { return Ok(()) };
    let mut big = Set { o: [0; 3], l: d, lvl: 0, max: 0 };
    let steps = *lv.iter().max().unwrap_or(&0);
    for s in 0..steps {
        let (children, k) = split(&big, [s < lv[0], s < lv[1], s < lv[2]]);
        for c in &children[1..k] {
            let mut c = *c;
            io.fill(&mut c);
            if c.is_pixel() {
                st.lip.push(st.index(&c) as u32);
            } else {
                st.push_set(c);
            }
        }
        big = children[0];
    }
    io.fill(&mut big);
    if big.is_pixel() {
        st.lip.push(st.index(&big) as u32);
    } else {
        st.push_set(big);
    }
    for b in (0..=top).rev() {
        // sorting pass: pixels, then sets from the smallest
        let lip = std::mem::take(&mut st.lip);
        for &p in &lip {
            if io.sig_pixel(p as usize, b)? {
                io.newly(p as usize, b)?;
                st.lsp_new.push(p);
            } else {
                st.lip.push(p);
            }
        }
        for lvl in (0..st.lis.len()).rev() {
            let sets = std::mem::take(&mut st.lis[lvl]);
            for s in sets {
                if io.sig_set(&s, b)? {
                    code_s(io, &mut st, &s, b)?;
                } else {
                    st.lis[lvl].push(s);
                }
            }
        }
        // refinement pass over the pixels significant before this plane
        for &p in &st.lsp {
            io.refine(p as usize, b)?;
        }
        let new = std::mem::take(&mut st.lsp_new);
        st.lsp.extend(new);
    }
    Ok(())
}

struct Encoder<'a> {
    mag: &'a [u32],
    neg: &'a [bool],
    dims: [usize; 3],
    w: BitWriter,
}

impl Io for Encoder<'_> {
    fn fill(&mut self, s: &mut Set) {
        let (nx, nxy) = (self.dims[0], self.dims[0] * self.dims[1]);
        let mut m = 0;
        for z in s.o[2]..s.o[2] + s.l[2] {
            for y in s.o[1]..s.o[1] + s.l[1] {
                let row = z as usize * nxy + y as usize * nx + s.o[0] as usize;
                for &v in &self.mag[row..row + s.l[0] as usize] {
                    m = m.max(v);
                }
            }
        }
        s.max = m;
    }
    fn sig_set(&mut self, s: &Set, b: u32) -> Result<bool> {
        let sig = s.max >> b != 0;
        self.w.bit(sig);
        Ok(sig)
    }
    fn sig_pixel(&mut self, i: usize, b: u32) -> Result<bool> {
        let sig = self.mag[i] >> b != 0;
        self.w.bit(sig);
        Ok(sig)
    }
    fn newly(&mut self, i: usize, _b: u32) -> Result<()> {
        self.w.bit(self.neg[i]);
        Ok(())
    }
    fn refine(&mut self, i: usize, b: u32) -> Result<()> {
        self.w.bit((self.mag[i] >> b) & 1 == 1);
        Ok(())
    }
}

struct Decoder<'a> {
    mag: Vec<u32>,
    neg: Vec<bool>,
    r: BitReader<'a>,
}

impl Io for Decoder<'_> {
    fn fill(&mut self, _s: &mut Set) {}
    fn sig_set(&mut self, _s: &Set, _b: u32) -> Result<bool> {
        self.r.bit()
    }
    fn sig_pixel(&mut self, _i: usize, _b: u32) -> Result<bool> {
        self.r.bit()
    }
    fn newly(&mut self, i: usize, b: u32) -> Result<()> {
        self.neg[i] = self.r.bit()?;
        self.mag[i] = 1 << b;
        Ok(())
    }
    fn refine(&mut self, i: usize, b: u32) -> Result<()> {
        if self.r.bit()? {
            self.mag[i] |= 1 << b;
        }
        Ok(())
    }
}

/// Encode `codes` (int32 bits, or zigzag uint32 when `zigzag`) of a field of `dims`.
pub fn encode(codes: &[u32], dims: Dims, zigzag: bool) -> Result<Vec<u8>> {
    if codes.len() as u64 != dims.len() {
        return Err(Error::Pipeline(format!("SPECK: {} codes for dims {dims}", codes.len())));
    }
    let mut mag = Vec::with_capacity(codes.len());
    let mut neg = Vec::with_capacity(codes.len());
    let mut all = 0u32;
    for &c in codes {
        let q = decode_code(c, zigzag);
        mag.push(q.unsigned_abs());
        neg.push(q < 0);
        all |= q.unsigned_abs();
    }
    let top = (all != 0).then(|| 31 - all.leading_zeros());
    let mut e = Encoder { mag: &mag, neg: &neg, dims: [dims.x as usize, dims.y as usize, dims.z as usize], w: BitWriter::new() };
    traverse(&mut e, dims, top)?;
    let nbits = e.w.len_bits();
    let mut out = vec![STREAM_VERSION, top.map_or(0, |t| t as u8 + 1), 0, 0, 0, 0, 0, 0];
    out.extend_from_slice(&nbits.to_le_bytes());
    out.extend_from_slice(&e.w.into_bytes());
    Ok(out)
}

/// Decode a stream of [`encode`] back into codes.
pub fn decode(b: &[u8], dims: Dims, zigzag: bool) -> Result<Vec<u32>> {
    if b.len() < 16 || b[0] != STREAM_VERSION || b[1] > 32 || b[2..8] != [0; 6] {
        return Err(Error::corrupt("SPECK stream header"));
    }
    let nbits = u64::from_le_bytes(b[8..16].try_into().unwrap_or([0; 8]));
    let n = dims.len() as usize;
    let r = BitReader::new(&b[16..], nbits, "SPECK stream")?;
    let top = (b[1] > 0).then(|| b[1] as u32 - 1);
    let mut d = Decoder { mag: vec![0; n], neg: vec![false; n], r };
    traverse(&mut d, dims, top)?;
    if d.r.remaining() != 0 {
        return Err(Error::corrupt("SPECK stream: trailing bits"));
    }
    d.mag
        .iter()
        .zip(&d.neg)
        .map(|(&m, &s)| {
            let q = if s { -(m as i64) } else { m as i64 };
            let q = i32::try_from(q).map_err(|_| Error::corrupt("SPECK stream: code out of range"))?;
            if s && m == 0 {
                return Err(Error::corrupt("SPECK stream: negative zero"));
            }
            Ok(encode_code(q, zigzag))
        })
        .collect()
}

/// The SPECK stage.
#[derive(Debug, Clone)]
pub struct SpeckStage {
    three_d: bool,
    code_type: DataType,
    dims: Option<Dims>,
    n: Option<u64>,
}

impl SpeckStage {
    pub fn new(three_d: bool, code_type: DataType) -> Result<Self> {
        if !matches!(code_type, DataType::I32 | DataType::U32) {
            return Err(Error::config(format!("SPECK data_type must be int32 or uint32 (zigzag), got {code_type}")));
        }
        Ok(SpeckStage { three_d, code_type, dims: None, n: None })
    }

    pub fn from_toml(three_d: bool, t: &mut Keys) -> Result<Self> {
        let ct = match t.str("data_type")? {
            Some(s) => DataType::from_toml_name(&s)?,
            None => DataType::U32,
        };
        Self::new(three_d, ct)
    }

    pub fn from_config(three_d: bool, version: u16, c: &[u8]) -> Result<Self> {
        if version != 1 || c.len() != CONFIG_BYTES || c[0] != CONFIG_VERSION || c[2..8] != [0; 6] {
            return Err(Error::corrupt(format!("SPECK config: version {version}, {} bytes", c.len())));
        }
        let code_type = DataType::from_code(c[1])
            .filter(|d| matches!(d, DataType::I32 | DataType::U32))
            .ok_or_else(|| Error::corrupt("SPECK code type"))?;
        let u64_at = |o: usize| u64::from_le_bytes(c[o..o + 8].try_into().unwrap_or([0; 8]));
        let dims = Dims::new(u64_at(16), u64_at(24), u64_at(32)).map_err(|_| Error::corrupt("SPECK dims"))?;
        let n = u64_at(8);
        if dims.len() != n || dims.x > u32::MAX as u64 || dims.y > u32::MAX as u64 || dims.z > u32::MAX as u64 || n >= u32::MAX as u64 {
            return Err(Error::corrupt(format!("SPECK: dims {dims} and {n} values")));
        }
        Ok(SpeckStage { three_d, code_type, dims: Some(dims), n: Some(n) })
    }

    fn zigzag(&self) -> bool {
        self.code_type == DataType::U32
    }
}

impl Stage for SpeckStage {
    fn type_id(&self) -> u16 {
        if self.three_d {
            ids::SPECK3D
        } else {
            ids::SPECK2D
        }
    }
    fn type_name(&self) -> &'static str {
        if self.three_d {
            "SPECK3D"
        } else {
            "SPECK2D"
        }
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("codes", self.code_type)]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("bitstream", DataType::U8)]
    }
    fn set_input_dtype(&mut self, port: usize, dtype: DataType) -> Result<()> {
        if port != 0 || !matches!(dtype, DataType::I32 | DataType::U32) {
            return Err(Error::Pipeline(format!("{} takes int32 or uint32 codes, got {dtype}", self.type_name())));
        }
        self.code_type = dtype;
        Ok(())
    }
    fn set_dims(&mut self, dims: Dims) {
        self.dims = Some(dims);
    }
    fn output_upper_bounds(&self, input_bytes: &[u64]) -> Vec<u64> {
        // worst case: about 2 bits per plane per value plus set bits
        vec![16 + input_bytes.first().copied().unwrap_or(0) * 3]
    }
    fn record_forward(&mut self, _r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (codes, len) = inputs.first().ok_or_else(|| Error::Pipeline("SPECK: no input".into()))?.device("codes")?;
        let n = len / 4;
        if n == 0 || len % 4 != 0 || n >= u32::MAX as u64 {
            return Err(Error::Input(format!("SPECK: {len} bytes are not whole codes")));
        }
        let dims = self.dims.filter(|d| d.len() == n).unwrap_or(Dims { x: n, y: 1, z: 1 });
        self.dims = Some(dims);
        self.n = Some(n);
        Ok(vec![PortData::Deferred { parts: vec![Part { slice: BufSlice::new(codes.buf, codes.offset, len), len: PartLen::Fixed(len) }] }])
    }
    fn host_coded(&self, _port: usize) -> bool {
        true
    }
    fn host_encode(&mut self, _port: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        let dims = self.dims.ok_or_else(|| Error::Pipeline("SPECK: no run".into()))?;
        let codes: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        encode(&codes, dims, self.zigzag())
    }
    fn record_inverse(&mut self, r: &mut Recorder, inputs: &[PortData], _opts: &RunOptions) -> Result<Vec<PortData<'static>>> {
        let (dims, n) = match (self.dims, self.n) {
            (Some(d), Some(n)) => (d, n),
            _ => return Err(Error::corrupt("SPECK: no stored configuration")),
        };
        let (_, _, host) =
            inputs.first().ok_or_else(|| Error::Pipeline("SPECK inverse: no input".into()))?.host_bytes(r, "SPECK stream")?;
        // the device buffer first: a size past the device's limits is a typed error
        // before the host decoder allocates n magnitudes
        let buf = r.alloc(n * 4)?;
        let codes = decode(&host, dims, self.zigzag())?;
        r.backend.write_buffer(buf, 0, bytemuck::cast_slice(&codes))?;
        Ok(vec![PortData::Device { slice: BufSlice::new(buf, 0, n * 4), len: n * 4, host: None }])
    }
    fn config_bytes(&self) -> Vec<u8> {
        let (Some(n), Some(d)) = (self.n, self.dims) else {
            return Vec::new();
        };
        let mut b = vec![CONFIG_VERSION, self.code_type as u8, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&n.to_le_bytes());
        for v in [d.x, d.y, d.z] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    }
    fn describe(&self) -> Vec<(String, String)> {
        let mut v = vec![("code_type".to_string(), self.code_type.to_string())];
        if let Some(d) = self.dims {
            v.push(("dims".into(), d.to_string()));
        }
        v
    }
    fn run_notes(&self) -> Vec<String> {
        match self.dims {
            Some(d) if d.rank() == 3 && !self.three_d => vec!["partition=3d".into()],
            _ => Vec::new(),
        }
    }
    fn field_dims(&self) -> Option<Dims> {
        self.dims
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_exactly() {
        let mut rng = crate::testutil::xorshift(0x9e3779b97f4a7c15);
        for dims in [
            Dims { x: 1, y: 1, z: 1 },
            Dims { x: 7, y: 1, z: 1 },
            Dims { x: 33, y: 17, z: 1 },
            Dims { x: 9, y: 10, z: 11 },
            Dims { x: 64, y: 64, z: 1 },
        ] {
            for zigzag in [false, true] {
                let n = dims.len() as usize;
                for scale in [0u64, 1, 3, 1000, u32::MAX as u64] {
                    let codes: Vec<u32> = (0..n)
                        .map(|_| {
                            let v = if scale == 0 { 0 } else { (rng() % (2 * scale + 1)) as i64 - scale as i64 };
                            let q = v.clamp(i32::MIN as i64 + 1, i32::MAX as i64) as i32;
                            encode_code(q, zigzag)
                        })
                        .collect();
                    let b = encode(&codes, dims, zigzag).unwrap();
                    assert_eq!(decode(&b, dims, zigzag).unwrap(), codes, "{dims} zigzag {zigzag} scale {scale}");
                    // truncated or extended streams are typed errors
                    if b.len() > 16 {
                        assert!(decode(&b[..b.len() - 1], dims, zigzag).is_err());
                    }
                    let mut longer = b.clone();
                    longer.push(0);
                    assert!(decode(&longer, dims, zigzag).is_err());
                }
            }
        }
    }

    #[test]
    fn extreme_codes() {
        let dims = Dims { x: 4, y: 2, z: 1 };
        let codes: Vec<u32> = [i32::MIN, i32::MAX, 0, -1, 1, i32::MIN + 1, 5, -5].iter().map(|&q| encode_code(q, false)).collect();
        let b = encode(&codes, dims, false).unwrap();
        assert_eq!(decode(&b, dims, false).unwrap(), codes);
        // the stream of all zeros is the header alone
        let z = encode(&[0u32; 8], dims, true).unwrap();
        assert_eq!(z.len(), 16);
        assert_eq!(decode(&z, dims, true).unwrap(), vec![0u32; 8]);
    }
}
