//! fzwgpu: error-bounded lossy compression of scientific floating-point data on any
//! GPU (wgpu/WGSL: Vulkan, Metal, DX12, GL) or on the CPU.
//!
//! Three layers: [`backend`] (devices, buffers, one submission per direction),
//! [`stages`] (algorithms that record kernel dispatches), [`pipeline`] (the DAG,
//! TOML configs, the FZM archive). See ARCHITECTURE.md.

pub mod backend;
pub mod envcfg;
pub mod error;
pub mod kernels;
pub mod metrics;
pub mod recording;
pub mod types;

pub use error::{Error, Result};
pub use types::{DataType, Dims, ErrorBound, ErrorMode, Field};
pub mod format;
pub mod hostmem;
pub mod pipeline;
pub mod report;
pub mod stages;
pub mod stream;
#[cfg(test)]
mod testutil;

pub use backend::{Backend, BackendChoice};
pub use pipeline::{
    decompress, decompress_device, decompress_into, Compressed, Decompressed, DecompressedInto, DeviceField, Pipeline, RunReport,
};
