mod common;
use common::*;
use fzwgpu::{ErrorBound, ErrorMode, Field, Pipeline};

#[test]
fn smoke() {
    let n = 100_003;
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as f32) * 0.001).sin() * 10.0 + (i % 7) as f32 * 0.01)
        .collect();
    let field = Field::from_f32(fzwgpu::Dims::d1(n as u64).unwrap(), &v).unwrap();
    let mut archives = Vec::new();
    for (name, be) in backends() {
        let mut p = Pipeline::from_preset("szx").unwrap();
        p.override_bound(ErrorBound::new(ErrorMode::Noa, 1e-3).unwrap())
            .unwrap();
        let c = p.compress(be.as_ref(), &field).unwrap();
        let d = fzwgpu::decompress(be.as_ref(), &c.bytes, &Default::default()).unwrap();
        let r = f32_from(&d.field.bytes);
        let eb = c.report.bounds[0].1;
        let (max, bad) = check_f32(&v, &r, eb);
        eprintln!(
            "{name}: ratio {:.3} max {max:e} eb {eb:e} bad {bad} notes {:?} kt {:?}",
            (n * 4) as f64 / c.bytes.len() as f64,
            c.report.notes,
            c.report.kernel_seconds
        );
        assert_eq!(bad, 0);
        archives.push(c.bytes);
    }
    assert!(archives[0] == archives[1], "archives differ");
}
