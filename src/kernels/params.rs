//! Rust mirrors of the WGSL params structs. `tests/layouts.rs` checks every field's
//! name and offset against naga's reflection of the WGSL, so a drift fails CI.

macro_rules! wgsl_params {
    ($(#[$m:meta])* $name:ident { $($f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name { $(pub $f: $t),* }
        impl $name {
            /// (field name, byte offset) in declaration order.
            pub const FIELDS: &'static [(&'static str, usize)] =
                &[$((stringify!($f), std::mem::offset_of!($name, $f))),*];
        }
    };
}

wgsl_params!(
    /// `ScanParams` of shaders/scan/*.wgsl.
    ScanParams { n: u32, ntiles: u32, fallback: u32, _pad1: u32 }
);

wgsl_params!(
    /// `RangeParams` of shaders/szx/range_*.wgsl.
    RangeParams { n: u32, nparts: u32, _pad0: u32, _pad1: u32 }
);

wgsl_params!(
    /// `Params` of the SZx kernels, float32 variant.
    SzxParams32 {
        n: u32, block_size: u32, nblocks: u32, exact: u32, chunk: u32, word_base: u32, fallback: u32, _pad1: u32,
        eb: f32, inv: f32, step: f32, one: f32, tiny: f32, two_maxw: f32, _pad2: f32, _pad3: f32,
    }
);

wgsl_params!(
    /// `Params` of the SZx kernels, float64 variant.
    SzxParams64 {
        n: u32, block_size: u32, nblocks: u32, exact: u32, chunk: u32, word_base: u32, fallback: u32, _pad1: u32,
        eb: f64, inv: f64, step: f64, one: f64, tiny: f64, two_maxw: f64, _pad2: f64, _pad3: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/quant/*.wgsl, float32 variant.
    QuantParams32 {
        n: u32, base: u32, zigzag: u32, count: u32, chunk: u32, codes_off: u32, _pad1: u32, _pad2: u32,
        eb: f32, inv: f32, step: f32, one: f32, limit: f32, _pad3: f32, _pad4: f32, _pad5: f32,
    }
);

wgsl_params!(
    /// `Params` of shaders/quant/*.wgsl, float64 variant.
    QuantParams64 {
        n: u32, base: u32, zigzag: u32, count: u32, chunk: u32, codes_off: u32, _pad1: u32, _pad2: u32,
        eb: f64, inv: f64, step: f64, one: f64, limit: f64, _pad3: f64, _pad4: f64, _pad5: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/bitpack/*.wgsl.
    BitpackParams { n: u32, block_size: u32, nblocks: u32, zigzag: u32, chunk: u32, word_base: u32, _pad0: u32, _pad1: u32 }
);

wgsl_params!(
    /// `Params` of shaders/lorenzo/*.wgsl.
    LorenzoParams {
        nx: u32, ny: u32, nz: u32, centering: u32, tx: u32, ty: u32, tz: u32, ntx: u32,
        nty: u32, ntz: u32, axis: u32, nlines: u32, elem_base: u32, tile_base: u32, team: u32, _pad3: u32,
    }
);

wgsl_params!(
    /// `Params` of shaders/szp/*.wgsl, float32 variant.
    SzpParams32 {
        n: u32, block_size: u32, nblocks: u32, chunk: u32, word_base: u32, _pad0: u32, _pad1: u32, _pad2: u32,
        eb: f32, inv: f32, step: f32, one: f32, limit: f32, _pad3: f32, _pad4: f32, _pad5: f32,
    }
);

wgsl_params!(
    /// `Params` of shaders/szp/*.wgsl, float64 variant.
    SzpParams64 {
        n: u32, block_size: u32, nblocks: u32, chunk: u32, word_base: u32, _pad0: u32, _pad1: u32, _pad2: u32,
        eb: f64, inv: f64, step: f64, one: f64, limit: f64, _pad3: f64, _pad4: f64, _pad5: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/chain/*.wgsl, float32 variant.
    ChainParams32 {
        n: u32, block_size: u32, nblocks: u32, chunk: u32, base: u32, qzigzag: u32, bzigzag: u32, centering: u32,
        nx: u32, ny: u32, nz: u32, tx: u32, ty: u32, tz: u32, ntx: u32, nty: u32,
        tile_base: u32, walk: u32, shared_max: u32, counts_at: u32,
        eb: f32, inv: f32, step: f32, one: f32, limit: f32, _pad3: f32, _pad4: f32, _pad5: f32,
    }
);

wgsl_params!(
    /// `Params` of shaders/chain/*.wgsl, float64 variant.
    ChainParams64 {
        n: u32, block_size: u32, nblocks: u32, chunk: u32, base: u32, qzigzag: u32, bzigzag: u32, centering: u32,
        nx: u32, ny: u32, nz: u32, tx: u32, ty: u32, tz: u32, ntx: u32, nty: u32,
        tile_base: u32, walk: u32, shared_max: u32, counts_at: u32,
        eb: f64, inv: f64, step: f64, one: f64, limit: f64, _pad3: f64, _pad4: f64, _pad5: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/chain/unpack.wgsl, float32 variant.
    ChainUnpackParams32 {
        n: u32, block_size: u32, ntiles: u32, word_base: u32, qzigzag: u32, bzigzag: u32, centering: u32,
        nx: u32, ny: u32, nz: u32, tx: u32, ty: u32, tz: u32, ntx: u32, nty: u32, shared_scan: u32,
        eb: f32, inv: f32, step: f32, one: f32, _pad0: f32, _pad1: f32, _pad2: f32, _pad3: f32,
    }
);

wgsl_params!(
    /// `Params` of shaders/chain/unpack.wgsl, float64 variant.
    ChainUnpackParams64 {
        n: u32, block_size: u32, ntiles: u32, word_base: u32, qzigzag: u32, bzigzag: u32, centering: u32,
        nx: u32, ny: u32, nz: u32, tx: u32, ty: u32, tz: u32, ntx: u32, nty: u32, shared_scan: u32,
        eb: f64, inv: f64, step: f64, one: f64, _pad0: f64, _pad1: f64, _pad2: f64, _pad3: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/wavelet/lift.wgsl (one lifting line pass of a wavelet level).
    WaveletParams {
        len: u32, stride: u32, a_len: u32, a_stride: u32, b_stride: u32, nlines: u32, inverse: u32, nsteps: u32,
        c0: f64, c1: f64, c2: f64, c3: f64, scale_lo: f64, scale_hi: f64, inv_lo: f64, inv_hi: f64, one: f64, _pad0: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/wavelet/{load,store}.wgsl and shaders/correct/*.wgsl, float32 fields.
    CorrectParams32 {
        n: u32, base: u32, count: u32, chunk: u32, cap: u32, exact: u32, _pad1: u32, _pad2: u32,
        eb: f32, inv: f32, step: f32, one: f32, _f0: f32, _f1: f32, _f2: f32, _f3: f32,
        step64: f64, inv64: f64, one64: f64, kmax: f64, nan64: f64, _g0: f64,
    }
);

wgsl_params!(
    /// `Params` of shaders/wavelet/{load,store}.wgsl and shaders/correct/*.wgsl, float64 fields.
    CorrectParams64 {
        n: u32, base: u32, count: u32, chunk: u32, cap: u32, exact: u32, _pad1: u32, _pad2: u32,
        eb: f64, inv: f64, step: f64, one: f64, _f0: f64, _f1: f64, _f2: f64, _f3: f64,
        step64: f64, inv64: f64, one64: f64, kmax: f64, nan64: f64, _g0: f64,
    }
);

wgsl_params!(
    /// `ProbeParams` of shaders/probe/subgroup_layout.wgsl: `n` invocations report.
    ProbeParams { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }
);
