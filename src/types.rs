//! Plain data types shared by every layer: dims, data types, error bounds.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// Element type of a buffer, with the FZM archive's numeric codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DataType {
    U8 = 0,
    U16 = 1,
    U32 = 2,
    U64 = 3,
    I8 = 4,
    I16 = 5,
    I32 = 6,
    I64 = 7,
    F32 = 8,
    F64 = 9,
    /// Opts out of port type checking (byte-transparent data).
    Unknown = 255,
}

impl DataType {
    pub fn from_code(c: u8) -> Option<Self> {
        use DataType::*;
        Some(match c {
            0 => U8,
            1 => U16,
            2 => U32,
            3 => U64,
            4 => I8,
            5 => I16,
            6 => I32,
            7 => I64,
            8 => F32,
            9 => F64,
            255 => Unknown,
            _ => return None,
        })
    }
    /// Bytes per element (1 for Unknown, which is treated as bytes).
    pub fn size(self) -> usize {
        use DataType::*;
        match self {
            U8 | I8 | Unknown => 1,
            U16 | I16 => 2,
            U32 | I32 | F32 => 4,
            U64 | I64 | F64 => 8,
        }
    }
    /// The TOML spelling ("float32", "uint8", ...).
    pub fn toml_name(self) -> &'static str {
        use DataType::*;
        match self {
            U8 => "uint8",
            U16 => "uint16",
            U32 => "uint32",
            U64 => "uint64",
            I8 => "int8",
            I16 => "int16",
            I32 => "int32",
            I64 => "int64",
            F32 => "float32",
            F64 => "float64",
            Unknown => "unknown",
        }
    }
    pub fn from_toml_name(s: &str) -> Result<Self> {
        use DataType::*;
        Ok(match s {
            "uint8" => U8,
            "uint16" => U16,
            "uint32" => U32,
            "uint64" => U64,
            "int8" => I8,
            "int16" => I16,
            "int32" => I32,
            "int64" => I64,
            "float32" | "f32" => F32,
            "float64" | "f64" => F64,
            other => return Err(Error::config(format!("unknown data type '{other}'"))),
        })
    }
    /// The short float names the CLI uses ("f32", "f64").
    pub fn parse_float(s: &str) -> Result<Self> {
        match s {
            "f32" | "float32" => Ok(DataType::F32),
            "f64" | "float64" => Ok(DataType::F64),
            other => Err(Error::config(format!("unsupported field dtype '{other}' (use f32 or f64)"))),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.toml_name())
    }
}

/// Field dimensions, fastest-varying first (as in the SZ family): `3600x1800` is
/// nx = 3600, ny = 1800. Unused trailing dims are 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dims {
    pub x: u64,
    pub y: u64,
    pub z: u64,
}

impl Dims {
    pub fn new(x: u64, y: u64, z: u64) -> Result<Self> {
        let d = Dims { x, y, z };
        if x == 0 || y == 0 || z == 0 {
            return Err(Error::Input(format!("dims must be positive, got {d}")));
        }
        if x.checked_mul(y).and_then(|v| v.checked_mul(z)).is_none() {
            return Err(Error::Input(format!("dims {d} overflow")));
        }
        Ok(d)
    }
    pub fn d1(n: u64) -> Result<Self> {
        Self::new(n, 1, 1)
    }
    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.x * self.y * self.z
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of dims larger than one (at least 1).
    pub fn rank(&self) -> u32 {
        if self.z > 1 {
            3
        } else if self.y > 1 {
            2
        } else {
            1
        }
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rank() {
            1 => write!(f, "{}", self.x),
            2 => write!(f, "{}x{}", self.x, self.y),
            _ => write!(f, "{}x{}x{}", self.x, self.y, self.z),
        }
    }
}

impl FromStr for Dims {
    type Err = Error;
    /// Parses `NX[xNY[xNZ[xNW...]]]`, fastest first. More than three dims fold the
    /// slowest ones into z (e.g. `480x241x3x2` is 480x241x6).
    fn from_str(s: &str) -> Result<Self> {
        let parts: Vec<&str> = s.split(['x', 'X', ',']).map(str::trim).collect();
        if parts.is_empty() || parts.iter().any(|p| p.is_empty()) {
            return Err(Error::Input(format!("bad dims '{s}': expected e.g. 3600x1800")));
        }
        let mut v = Vec::with_capacity(parts.len());
        for p in parts {
            let n: u64 = p.parse().map_err(|_| Error::Input(format!("bad dims '{s}': '{p}' is not a positive integer")))?;
            v.push(n);
        }
        let x = v[0];
        let y = v.get(1).copied().unwrap_or(1);
        let mut z: u64 = 1;
        for &w in v.iter().skip(2) {
            z = z.checked_mul(w).ok_or_else(|| Error::Input(format!("dims '{s}' overflow")))?;
        }
        Dims::new(x, y, z)
    }
}

/// How the error bound value is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorMode {
    /// |x - x'| <= eb for every element.
    Abs,
    /// Value-range relative: abs_eb = eb * (max - min) over the finite values.
    Noa,
    /// Max-abs relative: abs_eb = eb * max |x| over the finite values.
    Rel,
}

impl ErrorMode {
    pub fn code(self) -> u8 {
        match self {
            ErrorMode::Abs => 0,
            ErrorMode::Noa => 1,
            ErrorMode::Rel => 2,
        }
    }
    pub fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(ErrorMode::Abs),
            1 => Some(ErrorMode::Noa),
            2 => Some(ErrorMode::Rel),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ErrorMode::Abs => "ABS",
            ErrorMode::Noa => "NOA",
            ErrorMode::Rel => "REL",
        }
    }
}

impl FromStr for ErrorMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "ABS" => Ok(ErrorMode::Abs),
            "NOA" | "RANGE" | "VR_REL" => Ok(ErrorMode::Noa),
            "REL" => Ok(ErrorMode::Rel),
            _ => Err(Error::config(format!("unknown error_bound_mode '{s}' (ABS, NOA or REL)"))),
        }
    }
}

impl fmt::Display for ErrorMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error bound: a value and how to interpret it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorBound {
    pub mode: ErrorMode,
    pub value: f64,
}

impl ErrorBound {
    pub fn new(mode: ErrorMode, value: f64) -> Result<Self> {
        if !(value.is_finite() && value > 0.0) {
            return Err(Error::ErrorBound(format!("error bound must be finite and > 0, got {value}")));
        }
        Ok(ErrorBound { mode, value })
    }
    pub fn abs(value: f64) -> Result<Self> {
        Self::new(ErrorMode::Abs, value)
    }
}

/// A field: raw little-endian element bytes plus its type and dims.
#[derive(Debug, Clone)]
pub struct Field {
    pub dtype: DataType,
    pub dims: Dims,
    pub bytes: Vec<u8>,
}

impl Field {
    pub fn new(dtype: DataType, dims: Dims, bytes: Vec<u8>) -> Result<Self> {
        if !matches!(dtype, DataType::F32 | DataType::F64) {
            return Err(Error::Input(format!("fields must be float32 or float64, got {dtype}")));
        }
        let want = dims.len().checked_mul(dtype.size() as u64).ok_or_else(|| Error::Input("field too large".into()))?;
        if bytes.len() as u64 != want {
            return Err(Error::Input(format!("{} bytes do not match dims {dims} of {dtype} ({want} bytes expected)", bytes.len())));
        }
        Ok(Field { dtype, dims, bytes })
    }
    pub fn from_f32(dims: Dims, v: &[f32]) -> Result<Self> {
        Self::new(DataType::F32, dims, bytemuck::cast_slice(v).to_vec())
    }
    pub fn from_f64(dims: Dims, v: &[f64]) -> Result<Self> {
        Self::new(DataType::F64, dims, bytemuck::cast_slice(v).to_vec())
    }
    /// The values widened to f64 (exact for f32).
    pub fn to_f64(&self) -> Vec<f64> {
        match self.dtype {
            DataType::F32 => self.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64).collect(),
            _ => self.bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect(),
        }
    }
    pub fn len(&self) -> u64 {
        self.dims.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A byte size: a number with an optional K, M or G suffix (powers of 1024), at least 4.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(mult))
        .filter(|v| *v >= 4)
        .ok_or_else(|| Error::Config(format!("bad size '{s}' (e.g. 64M, 1G)")))
}
