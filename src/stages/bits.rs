//! Bit-level writer and reader for the host-side coders (SPECK, correction lists).
//! Bits are packed LSB-first into little-endian u64 words; reading past the end is a
//! typed corrupt-archive error, never a panic.

use crate::error::{Error, Result};

#[derive(Debug, Default, Clone)]
pub struct BitWriter {
    words: Vec<u64>,
    cur: u64,
    used: u32,
    nbits: u64,
}

impl BitWriter {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn bit(&mut self, b: bool) {
        self.cur |= (b as u64) << self.used;
        self.used += 1;
        self.nbits += 1;
        if self.used == 64 {
            self.words.push(self.cur);
            self.cur = 0;
            self.used = 0;
        }
    }

    /// The low `n` bits of `v` (n <= 64), least significant first.
    pub fn bits(&mut self, v: u64, n: u32) {
        for k in 0..n {
            self.bit((v >> k) & 1 == 1);
        }
    }

    /// Elias-gamma code of v >= 1.
    pub fn gamma(&mut self, v: u64) {
        let nb = 64 - v.leading_zeros();
        for _ in 1..nb {
            self.bit(false);
        }
        self.bit(true);
        self.bits(v, nb - 1);
    }

    pub fn len_bits(&self) -> u64 {
        self.nbits
    }

    /// The bytes (ceil(bits / 8) of them).
    pub fn into_bytes(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.words.push(self.cur);
        }
        let mut b: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        b.truncate(self.nbits.div_ceil(8) as usize);
        b
    }
}

#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
    nbits: u64,
    what: &'static str,
}

impl<'a> BitReader<'a> {
    /// A reader of the first `nbits` bits of `bytes` (which must hold them).
    pub fn new(bytes: &'a [u8], nbits: u64, what: &'static str) -> Result<Self> {
        if nbits.div_ceil(8) != bytes.len() as u64 {
            return Err(Error::corrupt(format!("{what}: {} bytes for {nbits} bits", bytes.len())));
        }
        Ok(BitReader { bytes, pos: 0, nbits, what })
    }

    #[inline]
    pub fn bit(&mut self) -> Result<bool> {
        if self.pos >= self.nbits {
            return Err(Error::corrupt(format!("{}: bitstream ends early", self.what)));
        }
        let b = (self.bytes[(self.pos >> 3) as usize] >> (self.pos & 7)) & 1 == 1;
        self.pos += 1;
        Ok(b)
    }

    pub fn bits(&mut self, n: u32) -> Result<u64> {
        let mut v = 0u64;
        for k in 0..n {
            v |= (self.bit()? as u64) << k;
        }
        Ok(v)
    }

    /// Elias-gamma code (values up to 2^63).
    pub fn gamma(&mut self) -> Result<u64> {
        let mut zeros = 0;
        while !self.bit()? {
            zeros += 1;
            if zeros > 63 {
                return Err(Error::corrupt(format!("{}: gamma code too long", self.what)));
            }
        }
        Ok((1u64 << zeros) | self.bits(zeros)?)
    }

    pub fn remaining(&self) -> u64 {
        self.nbits - self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let mut w = BitWriter::new();
        for v in 1..300u64 {
            w.gamma(v);
            w.bits(v, 9);
            w.bit(v % 3 == 0);
        }
        let n = w.len_bits();
        let b = w.into_bytes();
        assert_eq!(b.len() as u64, n.div_ceil(8));
        let mut r = BitReader::new(&b, n, "t").unwrap();
        for v in 1..300u64 {
            assert_eq!(r.gamma().unwrap(), v);
            assert_eq!(r.bits(9).unwrap(), v & 511);
            assert_eq!(r.bit().unwrap(), v % 3 == 0);
        }
        assert_eq!(r.remaining(), 0);
        assert!(r.bit().is_err());
        assert!(BitReader::new(&b[..b.len() - 1], n, "t").is_err());
        // a run of zeros is a typed error, not a loop or panic
        let z = vec![0u8; 16];
        assert!(BitReader::new(&z, 128, "t").unwrap().gamma().is_err());
    }
}
