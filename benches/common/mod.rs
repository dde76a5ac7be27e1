//! Shared by the criterion benches: the backends to bench and a smooth test field.

use fzwgpu::backend::{self, Backend, BackendChoice};
use fzwgpu::{Dims, Field};
use std::sync::Arc;

/// The cpu backend, and the wgpu one when an adapter exists.
pub fn backends() -> Vec<Arc<dyn Backend>> {
    let mut v = vec![backend::open(&BackendChoice::Cpu).expect("cpu backend")];
    match backend::open(&BackendChoice::Wgpu { adapter: None }) {
        Ok(b) => v.push(b),
        Err(e) => eprintln!("no wgpu adapter, benching cpu only: {e}"),
    }
    v
}

/// A smooth nx x ny float32 field.
#[allow(dead_code)]
pub fn field(nx: usize, ny: usize) -> Field {
    let v: Vec<f32> = (0..nx * ny).map(|i| ((i % nx) as f32 * 0.01).sin() * ((i / nx) as f32 * 0.02).cos() * 100.0).collect();
    Field::from_f32(Dims::new(nx as u64, ny as u64, 1).unwrap(), &v).unwrap()
}

/// "cpu:cpu (2 threads)", "wgpu:NVIDIA H200", ...
pub fn name(be: &dyn Backend) -> String {
    format!("{}:{}", be.info().kind.name(), be.info().adapter)
}
