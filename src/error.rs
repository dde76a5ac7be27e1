//! The crate's one error type. Every input-dependent failure is a value of [`Error`],
//! never a panic.

use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong, with the facts needed to act on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The archive is malformed: truncated, corrupt, or inconsistent.
    #[error("corrupt archive: {0}")]
    Corrupt(String),
    /// A checksum in the archive does not match the bytes.
    #[error("checksum mismatch in {what}: stored {stored:#010x}, computed {computed:#010x}")]
    Checksum { what: &'static str, stored: u32, computed: u32 },
    /// The archive was written by an incompatible format version.
    #[error("unsupported FZM version {found_major}.{found_minor} (this build reads {supported_major}.x)")]
    Version { found_major: u8, found_minor: u8, supported_major: u8 },
    /// A configuration (TOML, API call or CLI flag) is invalid.
    #[error("invalid config: {0}")]
    Config(String),
    /// The input data does not match what was declared (dims, dtype, length).
    #[error("invalid input: {0}")]
    Input(String),
    /// The error bound is unusable (<= 0, NaN, or resolves to <= 0).
    #[error("invalid error bound: {0}")]
    ErrorBound(String),
    /// Pipeline graph errors: type mismatches, cycles, unconnected ports.
    #[error("pipeline: {0}")]
    Pipeline(String),
    /// A stage type id or name that this build does not know.
    #[error("unknown stage type {0}")]
    UnknownStage(String),
    /// No adapter matched the request.
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    /// The device failed: out of memory, validation error, lost device, timeout.
    #[error("device error: {0}")]
    Device(String),
    /// The device ran out of memory.
    #[error("device out of memory: {0}")]
    OutOfMemory(String),
    /// A size exceeds a limit of this build or device.
    #[error("too large: {what} is {actual}, limit {limit}")]
    TooLarge { what: String, actual: u64, limit: u64 },
    /// An unsupported combination (feature missing, dtype not handled by a stage...).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// I/O error with the path or operation that failed.
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
}

impl Error {
    pub(crate) fn corrupt(msg: impl fmt::Display) -> Self {
        Error::Corrupt(msg.to_string())
    }
    pub(crate) fn config(msg: impl fmt::Display) -> Self {
        Error::Config(msg.to_string())
    }
    /// An I/O error with what was being done.
    pub fn io(context: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io { context: context.to_string(), source }
    }
}
