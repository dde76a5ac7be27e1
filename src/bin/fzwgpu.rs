//! The fzwgpu command-line tool: compress, decompress, info, eval, demo.
// the bench record is one json! literal with many keys
#![recursion_limit = "256"]

use clap::{Args, Parser, Subcommand};
use fzwgpu::backend::{self, Backend, BackendChoice};
use fzwgpu::format::fzm;
use fzwgpu::metrics;
use fzwgpu::pipeline::config;
use fzwgpu::recording::BufSlice;
use fzwgpu::stages::RunOptions;
use fzwgpu::{DataType, Dims, Error, ErrorBound, ErrorMode, Field, Pipeline, Result};
use serde_json::json;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "fzwgpu", version, about = "Error-bounded lossy compression of float fields on any GPU (wgpu) or the CPU")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compress a raw little-endian float file (or `-`: standard input) into an FZM
    /// archive, or, past --chunk-size, an FZMS stream of chunks (bounded memory).
    /// `-o -` writes to standard output.
    Compress {
        #[arg(short, long)]
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        field: FieldArgs,
        #[command(flatten)]
        pipe: PipeArgs,
        #[command(flatten)]
        dev: DevArgs,
        /// Inputs larger than this (bytes; K/M/G suffixes) are compressed in chunks of
        /// this size into an FZMS stream; standard input always streams.
        #[arg(long, default_value = "1G")]
        chunk_size: String,
    },
    /// Decompress an FZM archive or FZMS stream (`-`: a stream on standard input) into
    /// a raw float file (`-o -`: standard output).
    Decompress {
        #[arg(short, long)]
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        dev: DevArgs,
        /// Streams: decode only chunk K (its values, in order).
        #[arg(long, conflicts_with = "range")]
        chunk: Option<usize>,
        /// Decode only values START..END (flat indices, end exclusive), reading only
        /// the chunks they touch.
        #[arg(long, conflicts_with = "r#box")]
        range: Option<String>,
        /// Streams: decode only the box x0:x1,y0:y1[,z0:z1] (x fastest), reading only
        /// the chunks it crosses.
        #[arg(long = "box", conflicts_with = "chunk")]
        r#box: Option<String>,
        /// Fusion of the inverse of Quantizer -> Lorenzo -> AdaptiveBitpack chains: auto,
        /// force (the one-pass decoder, `chain_decode`, or an error saying why it cannot
        /// run) or off (the staged kernels). The values are the same. For a stream,
        /// the policy of every chunk decoded.
        #[arg(long, default_value = "auto")]
        fusion: String,
    },
    /// Show an archive's header, stages, configs, buffers and run notes.
    Info {
        input: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Round trip in memory and report ratio, error and throughput.
    Eval {
        #[arg(short, long)]
        input: PathBuf,
        #[command(flatten)]
        field: FieldArgs,
        #[command(flatten)]
        pipe: PipeArgs,
        #[command(flatten)]
        dev: DevArgs,
        /// Timed repetitions after one warm-up (the median is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        #[arg(long)]
        json: bool,
        /// Read float32 and evaluate the values widened to float64.
        #[arg(long)]
        widen: bool,
        /// Also run the cpu backend and require byte-identical archives and
        /// bit-identical reconstructions.
        #[arg(long)]
        compare_cpu: bool,
    },
    /// Markdown table and SVG plots from `bench --json` / `eval --json` records:
    /// throughput per preset per adapter, rate-distortion per preset per field.
    Report {
        /// Files of JSON records, one per line (text before a line's first `{` is
        /// ignored, so validation logs work as they are).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Directory for report.md and the SVG plots (default: print the Markdown only).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Benchmark presets: kernel time (GPU timestamps) and end-to-end time, median of
    /// repetitions after warm-up, GB/s of input; optional JSON lines appended to a file.
    Bench {
        /// Input file (raw floats); default: a generated smooth field of --dims, or of
        /// --size (8192 x rows), of --dtype (float64: the same values, not rounded to
        /// float32; the tiled real field is widened).
        #[arg(short, long, requires = "dims")]
        input: Option<PathBuf>,
        #[arg(long)]
        dims: Option<String>,
        #[arg(long, default_value = "f32")]
        dtype: String,
        /// Tile the --input field along its slowest dimension up to --size (whole
        /// copies), e.g. a 256 MiB field from CESM TS as in the cuSZp reference runs.
        #[arg(long, requires = "input")]
        tile: bool,
        /// Size of the generated field (e.g. 64M, 1G), when no --input is given.
        #[arg(long, default_value = "1G")]
        size: String,
        /// Without --input or --dims: the fields to run, `smooth` (generated), `tiled`
        /// (CESM TS tiled to --size along its slowest axis, 3-D; from --data-dir),
        /// `tiled-1d` (the same values as a 1-D field, as in native cuSZp's reference
        /// runs). By default smooth and tiled, the tiled one only where its file is found.
        #[arg(long, value_delimiter = ',')]
        fields: Option<Vec<String>>,
        /// Folder of the real fields for `--fields tiled` (default FZWGPU_DATA_DIR, else
        /// ../shared/data where it exists); given, the tiled field must be found there.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Comma-separated presets (default: every built-in preset).
        #[arg(long)]
        presets: Option<String>,
        /// Bound applied to every preset (default: range-relative 1e-3).
        #[arg(long, default_value_t = 1e-3, allow_negative_numbers = true)]
        eb: f64,
        #[arg(long, default_value = "noa")]
        mode: String,
        #[arg(long, default_value_t = 1)]
        warmup: usize,
        #[arg(long, default_value_t = 5)]
        reps: usize,
        /// Kernel timing: every resident submission is replayed this many times back
        /// to back (no readbacks), so the device runs at its sustained clocks; see
        /// --replay-mode for which figure counts (0: time the single submissions).
        #[arg(long, default_value_t = 20)]
        replays: u32,
        /// How the replays run: batched (all in one submission, back to back on the
        /// device; the mean counts) or separate (each its own submission, waited for;
        /// the median counts; the device may lower its clocks while the host records
        /// the next one)
        #[arg(long, default_value = "batched")]
        replay_mode: String,
        /// Before each submission's timed replays, replay it untimed until this many
        /// milliseconds of device time have run (the submission's first run counts;
        /// at most twice that of wall time and 1000 submissions),
        /// so the device is timed at its sustained clocks: NVIDIA's driver lowers the
        /// clocks through Vulkan within a second or two of idling (the host phases
        /// between runs) and raises them only after 100-300 ms of load. 0: none.
        /// Default: 500 on GPUs, 0 on adapters that compute on the CPU (lavapipe,
        /// llvmpipe, the cpu backend).
        #[arg(long)]
        preheat_ms: Option<u32>,
        /// Fusion of Quantizer -> Lorenzo -> AdaptiveBitpack chains: off, auto or force
        /// (compare the fused and staged kernels; the archives are the same).
        #[arg(long, default_value = "auto")]
        fusion: String,
        /// Device-wide offset scan: reduce (reduce-then-scan) or lookback (one pass with
        /// decoupled look-back); default FZWGPU_SCAN, else reduce. Same archives.
        #[arg(long)]
        scan: Option<String>,
        /// Append one JSON record per preset to this file (JSON lines).
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        dev: DevArgs,
    },
    /// List the wgpu adapters and the one fzwgpu picks (honours WGPU_BACKEND and
    /// WGPU_ADAPTER_NAME), and the CUDA device in a build with `--features cuda`.
    Adapters,
    /// Print a kernel's source as a backend compiles it: the preprocessed WGSL, or
    /// (--cuda) the CUDA C generated from it. Without a name, list the kernels.
    KernelSource {
        /// Kernel name (its WGSL entry point, e.g. chain_encode).
        name: Option<String>,
        /// The float64 variant.
        #[arg(long)]
        f64: bool,
        /// The variant without subgroup operations (WGSL only; CUDA always has them).
        #[arg(long)]
        no_subgroups: bool,
        /// The generated CUDA C instead of the WGSL.
        #[arg(long)]
        cuda: bool,
        /// With --cuda (a `--features cuda` build): also compile it with NVRTC for
        /// FZWGPU_CUDA_ARCH (default sm_90) and write the CUBIN image to this file, to
        /// read the machine code (`cuobjdump -sass FILE`).
        #[arg(long, requires = "cuda")]
        cubin: Option<PathBuf>,
    },
    /// Run every built-in preset on a generated smooth 2-D field, on the best adapter
    /// and on the cpu backend, and print a table.
    Demo {
        /// Field size (fastest first).
        #[arg(long, default_value = "2048x2048")]
        dims: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct FieldArgs {
    /// Dims, fastest first: 3600x1800 is nx=3600, ny=1800.
    #[arg(long)]
    dims: String,
    #[arg(long, default_value = "f32")]
    dtype: String,
}

#[derive(Args)]
struct PipeArgs {
    /// Built-in preset (szx). Default: szx when no --config is given.
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// TOML pipeline config file.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Override the error bound of every lossy stage.
    /// (`--eb -1` reaches the bound's own check: a one-line error, status 1)
    #[arg(long, allow_negative_numbers = true)]
    eb: Option<f64>,
    /// Bound mode for --eb: abs, noa (value-range relative) or rel (max-abs relative).
    #[arg(long, requires = "eb")]
    mode: Option<String>,
    /// Cap on bytes per kernel binding (exercises chunking; never changes the archive).
    #[arg(long)]
    max_chunk_bytes: Option<u64>,
}

#[derive(Args)]
struct DevArgs {
    /// auto (wgpu if an adapter exists, else cpu), wgpu, cpu, or cuda (a build with
    /// `--features cuda`).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Adapter name substring (wgpu); default WGPU_ADAPTER_NAME or the fastest.
    #[arg(long)]
    adapter: Option<String>,
}

fn open_backend(d: &DevArgs) -> Result<Arc<dyn Backend>> {
    let mut choice: BackendChoice = d.backend.parse()?;
    if let Some(a) = &d.adapter {
        choice = match choice {
            BackendChoice::Cpu => return Err(Error::Config("--adapter needs --backend wgpu or auto".into())),
            _ => BackendChoice::Wgpu { adapter: Some(a.clone()) },
        };
    }
    backend::open(&choice)
}

fn build_pipeline(p: &PipeArgs) -> Result<Pipeline> {
    let mut pipe = match (&p.preset, &p.config) {
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading config {}", path.display()), e))?;
            Pipeline::from_toml(&text)?
        }
        (Some(name), None) => Pipeline::from_preset(name)?,
        (None, None) => Pipeline::from_preset("szx")?,
    };
    if let Some(eb) = p.eb {
        let mode: ErrorMode = match &p.mode {
            Some(m) => m.parse()?,
            None => ErrorMode::Abs,
        };
        pipe.override_bound(ErrorBound::new(mode, eb)?)?;
    }
    if let Some(c) = p.max_chunk_bytes {
        pipe.options.max_chunk_bytes = Some(c);
    }
    Ok(pipe)
}

/// The message for a file whose size is not that of its dims: the dims as given, their
/// count of values (dims past the third fold into z) and the bytes they need.
fn size_mismatch(path: &Path, have: u64, given: &str, dims: Dims, dtype: DataType) -> String {
    let n = dims.len();
    format!(
        "{} has {have} bytes; --dims {} ({n} value{}) of {dtype} needs {} bytes",
        path.display(),
        given.trim(),
        if n == 1 { "" } else { "s" },
        n * dtype.size() as u64
    )
}

fn read_field(path: &Path, f: &FieldArgs) -> Result<Field> {
    let dims: Dims = f.dims.parse()?;
    let dtype = DataType::parse_float(&f.dtype)?;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let want = dims.len() * dtype.size() as u64;
    if meta.len() != want {
        return Err(Error::Input(size_mismatch(path, meta.len(), &f.dims, dims, dtype)));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    Field::new(dtype, dims, bytes)
}

/// Write `data` to `path` through a temporary file renamed on success, so a failed run
/// never leaves a complete-looking output.
fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    write_output(path, true, |w| w.write_all(data).map_err(|e| Error::io(format!("writing {}", path.display()), e)))
}

/// Whether an output path names standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A command's output, written by `f` through a 4 MiB buffer: to a file as `NAME.part`,
/// renamed to NAME on success and removed on failure (a failed run never leaves a
/// complete-looking output; `sync`: flushed to the disk before the rename), or to
/// standard output for `-` (refused when it is a terminal; what was written before a
/// failure stays written, and the exit status says it failed).
fn write_output(path: &Path, sync: bool, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    if is_stdout(path) {
        let out = std::io::stdout();
        if std::io::IsTerminal::is_terminal(&out) {
            return Err(Error::Input("standard output is a terminal: give -o FILE or redirect it".into()));
        }
        let mut w = std::io::BufWriter::with_capacity(1 << 22, out.lock());
        f(&mut w)?;
        return w.flush().map_err(|e| Error::io("writing standard output", e));
    }
    let tmp = part_path(path);
    let res = (|| -> Result<()> {
        let io = |e| Error::io(format!("writing {}", path.display()), e);
        let mut w = std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(&tmp).map_err(io)?);
        f(&mut w)?;
        let file = w.into_inner().map_err(|e| io(e.into_error()))?;
        if sync {
            file.sync_all().map_err(io)?;
        }
        Ok(())
    })();
    finish_part(&tmp, path, res)
}

fn gbps(bytes: u64, secs: Option<f64>) -> Option<f64> {
    secs.filter(|s| *s > 0.0).map(|s| bytes as f64 / s / 1e9)
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "n/a".into())
}

/// The phases of a call's reports, one per repetition, as a JSON object: each phase's
/// median over the repetitions (null without a report).
fn phases_json(reports: &[fzwgpu::RunReport]) -> serde_json::Value {
    let Some(first) = reports.first() else { return serde_json::Value::Null };
    first
        .phases
        .iter()
        .map(|(k, _)| {
            let mut v: Vec<f64> = reports.iter().filter_map(|r| r.phases.iter().find(|p| &p.0 == k).map(|p| p.1)).collect();
            (k.clone(), serde_json::json!(median(&mut v)))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    Some(v[v.len() / 2])
}

struct EvalResult {
    compressed: u64,
    bound: f64,
    q: metrics::Quality,
    c_kernel: Option<f64>,
    c_wall: f64,
    d_kernel: Option<f64>,
    d_wall: f64,
    notes: Vec<String>,
    backend: String,
    adapter: String,
}

fn evaluate(be: &dyn Backend, pipe: &mut Pipeline, field: &Field, repeat: usize) -> Result<EvalResult> {
    let opts = pipe.options.clone();
    // warm-up: pipelines compile, pools fill
    let c = pipe.compress(be, field)?;
    let d = fzwgpu::decompress(be, &c.bytes, &opts)?;
    let q = metrics::quality(field, &d.field);
    let (mut ck, mut cw, mut dk, mut dw) = (vec![], vec![], vec![], vec![]);
    for _ in 0..repeat.max(1) {
        let c2 = pipe.compress(be, field)?;
        if c2.bytes != c.bytes {
            return Err(Error::Device("two compressions of the same input differ".into()));
        }
        cw.push(c2.report.wall_seconds);
        ck.extend(c2.report.kernel_seconds);
        let d2 = fzwgpu::decompress(be, &c.bytes, &opts)?;
        dw.push(d2.report.wall_seconds);
        dk.extend(d2.report.kernel_seconds);
    }
    let mut notes: Vec<String> = c.report.notes.iter().map(|(s, n)| format!("{s}:{n}")).collect();
    notes.extend(d.report.notes.iter().filter(|(s, _)| s == "pipeline").map(|(s, n)| format!("{s}:{n}")));
    notes.dedup();
    Ok(EvalResult {
        compressed: c.bytes.len() as u64,
        bound: c.report.field_bound(),
        q,
        c_kernel: median(&mut ck),
        c_wall: median(&mut cw).unwrap_or(0.0),
        d_kernel: median(&mut dk),
        d_wall: median(&mut dw).unwrap_or(0.0),
        notes,
        backend: c.report.backend.clone(),
        adapter: c.report.adapter.clone(),
    })
}

fn eval_json(name: &str, source: &str, field: &Field, r: &EvalResult) -> serde_json::Value {
    let n = field.bytes.len() as u64;
    json!({
        "preset": name,
        "source": source,
        "dims": field.dims.to_string(),
        "dtype": field.dtype.to_string(),
        "input_bytes": n,
        "compressed_bytes": r.compressed,
        "ratio": metrics::ratio(n, r.compressed),
        "bits_per_value": metrics::bit_rate(r.compressed, field.len()),
        "resolved_bound": r.bound,
        "max_abs_error": r.q.max_abs_error,
        "bound_ok": r.q.max_abs_error <= r.bound && r.q.non_finite_mismatches == 0,
        "psnr_db": if r.q.psnr_db.is_finite() { json!(r.q.psnr_db) } else { json!("inf") },
        "nrmse": r.q.nrmse,
        "non_finite": r.q.non_finite,
        "compress_kernel_gbps": gbps(n, r.c_kernel),
        "compress_e2e_gbps": gbps(n, Some(r.c_wall)),
        "decompress_kernel_gbps": gbps(n, r.d_kernel),
        "decompress_e2e_gbps": gbps(n, Some(r.d_wall)),
        "backend": r.backend,
        "adapter": r.adapter,
        "notes": r.notes,
        "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        "version": env!("CARGO_PKG_VERSION"),
    })
}

fn print_eval(name: &str, field: &Field, r: &EvalResult) {
    let n = field.bytes.len() as u64;
    println!("preset            {name}");
    println!("field             {} {} ({} bytes)", field.dims, field.dtype, n);
    println!("backend           {} | {}", r.backend, r.adapter);
    println!(
        "compressed        {} bytes, ratio {:.3}, {:.3} bits/value",
        r.compressed,
        metrics::ratio(n, r.compressed),
        metrics::bit_rate(r.compressed, field.len())
    );
    println!("resolved bound    {:e}", r.bound);
    println!(
        "max abs error     {:e} ({})",
        r.q.max_abs_error,
        if r.q.max_abs_error <= r.bound { "within bound" } else { "BOUND VIOLATED" }
    );
    println!("PSNR              {:.2} dB", r.q.psnr_db);
    println!("NRMSE             {:e}", r.q.nrmse);
    if r.q.non_finite > 0 {
        println!("non-finite        {} (bit-exact: {})", r.q.non_finite, r.q.non_finite_mismatches == 0);
    }
    let src = if r.backend == "cpu" { "cpu wall" } else { "GPU timestamps" };
    println!(
        "compress          kernel {} GB/s ({src}), end-to-end {} GB/s",
        fmt_opt(gbps(n, r.c_kernel)),
        fmt_opt(gbps(n, Some(r.c_wall)))
    );
    println!(
        "decompress        kernel {} GB/s ({src}), end-to-end {} GB/s",
        fmt_opt(gbps(n, r.d_kernel)),
        fmt_opt(gbps(n, Some(r.d_wall)))
    );
    if !r.notes.is_empty() {
        println!("notes             {}", r.notes.join(" "));
    }
}

/// The demo's smooth 2-D field (a sum of low-frequency waves plus a gentle ramp).
pub fn demo_field(dims: Dims) -> Result<Field> {
    Field::from_f32(dims, &smooth_values(dims).iter().map(|&s| s as f32).collect::<Vec<_>>())
}

/// The generated smooth field's values (float64; `demo_field` rounds them to float32).
fn smooth_values(dims: Dims) -> Vec<f64> {
    let (nx, ny) = (dims.x as usize, (dims.y * dims.z) as usize);
    let mut v = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        let y = j as f64 / ny as f64;
        for i in 0..nx {
            let x = i as f64 / nx as f64;
            v.push((6.0 * x + 1.0).sin() * (4.0 * y).cos() + 0.5 * (17.0 * (x + y)).sin() * (-(x - 0.5) * (x - 0.5) * 8.0).exp() + 0.3 * x);
        }
    }
    v
}

/// The generated smooth field in `dtype` (bench's `--dtype`), with its description.
fn smooth_field(dims: Dims, dtype: DataType) -> Result<(Field, String)> {
    let f = match dtype {
        DataType::F64 => Field::from_f64(dims, &smooth_values(dims))?,
        _ => demo_field(dims)?,
    };
    Ok((f, format!("generated smooth {dims} {dtype}")))
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Compress { input, output, field, pipe, dev, chunk_size } => {
            let chunk = fzwgpu::types::parse_size(&chunk_size)?;
            let dims: Dims = field.dims.parse()?;
            let dtype = DataType::parse_float(&field.dtype)?;
            let stdin = input.as_os_str() == "-";
            if stdin || dims.len() * dtype.size() as u64 > chunk {
                return compress_stream_cli(&input, &output, dims, dtype, &pipe, &dev, chunk);
            }
            let f = read_field(&input, &field)?;
            let mut p = build_pipeline(&pipe)?;
            let be = open_backend(&dev)?;
            let c = p.compress(be.as_ref(), &f)?;
            write_atomic(&output, &c.bytes)?;
            eprintln!(
                "{} -> {}: {} -> {} bytes (ratio {:.3}), bound {:e}, {} on {}",
                input.display(),
                output.display(),
                f.bytes.len(),
                c.bytes.len(),
                metrics::ratio(f.bytes.len() as u64, c.bytes.len() as u64),
                c.report.field_bound(),
                c.report.backend,
                c.report.adapter
            );
            Ok(())
        }
        Cmd::Decompress { input, output, dev, chunk, range, r#box, fusion } => {
            let fusion: fzwgpu::stages::FusionPolicy = fusion.parse()?;
            // one policy for a single archive and for every chunk of a stream
            let opts = RunOptions { fusion, ..RunOptions::default() };
            if input.as_os_str() == "-" {
                // a stream from standard input, decoded in order without seeking
                if chunk.is_some() || range.is_some() || r#box.is_some() {
                    return Err(Error::Input("--chunk, --range and --box need a seekable input file".into()));
                }
                let be = open_backend(&dev)?;
                let mut hdr = None;
                write_output(&output, false, |w| {
                    let h = fzwgpu::stream::decompress_sequential(
                        be.as_ref(),
                        &opts,
                        std::io::BufReader::with_capacity(1 << 22, std::io::stdin().lock()),
                        w,
                        &mut |_| {},
                    )?;
                    hdr = Some(h);
                    Ok(())
                })?;
                if let Some(h) = hdr {
                    eprintln!(
                        "- -> {}: {} {} from a stream, peak resident {}, on {}",
                        output.display(),
                        h.dims,
                        h.dtype,
                        peak_rss(),
                        be.info().adapter
                    );
                }
                return Ok(());
            }
            if is_stream_file(&input)? {
                return decompress_stream_cli(&input, &output, &dev, &opts, chunk, range.as_deref(), r#box.as_deref());
            }
            if chunk.is_some() || r#box.is_some() {
                return Err(Error::Input(format!("{} is a single FZM archive, not a stream of chunks", input.display())));
            }
            let bytes = std::fs::read(&input).map_err(|e| Error::io(format!("reading {}", input.display()), e))?;
            let be = open_backend(&dev)?;
            let mut d = fzwgpu::decompress(be.as_ref(), &bytes, &opts)?;
            if let Some(r) = range.as_deref() {
                let (a, b) = parse_range(r, d.field.len())?;
                let sz = d.field.dtype.size();
                d.field.bytes = d.field.bytes[a as usize * sz..b as usize * sz].to_vec();
            }
            write_atomic(&output, &d.field.bytes)?;
            eprintln!(
                "{} -> {}: {} {} values ({} bytes) on {}",
                input.display(),
                output.display(),
                d.field.dims,
                d.field.dtype,
                d.field.bytes.len(),
                d.report.adapter
            );
            Ok(())
        }
        Cmd::Info { input, json } => info(&input, json),
        Cmd::Eval { input, field, pipe, dev, repeat, json, compare_cpu, widen } => {
            let mut f = read_field(&input, &field)?;
            if widen {
                if f.dtype != DataType::F32 {
                    return Err(Error::Config("--widen reads float32 input".into()));
                }
                f = Field::from_f64(f.dims, &f.to_f64())?;
            }
            let mut p = build_pipeline(&pipe)?;
            let be = open_backend(&dev)?;
            let name =
                pipe.preset.clone().or_else(|| pipe.config.as_ref().map(|c| c.display().to_string())).unwrap_or_else(|| "szx".into());
            let r = evaluate(be.as_ref(), &mut p, &f, repeat)?;
            if compare_cpu {
                let cpu = backend::open(&BackendChoice::Cpu)?;
                let a = p.compress(be.as_ref(), &f)?;
                let mut pc = build_pipeline(&pipe)?;
                let b = pc.compress(cpu.as_ref(), &f)?;
                if a.bytes != b.bytes {
                    let at = a.bytes.iter().zip(&b.bytes).position(|(x, y)| x != y).unwrap_or(a.bytes.len().min(b.bytes.len()));
                    return Err(Error::Device(format!("archive from {} differs from the cpu backend's at byte {at}", r.adapter)));
                }
                let opts = p.options.clone();
                let da = fzwgpu::decompress(be.as_ref(), &a.bytes, &opts)?;
                let db = fzwgpu::decompress(cpu.as_ref(), &a.bytes, &opts)?;
                if da.field.bytes != db.field.bytes {
                    return Err(Error::Device(format!("reconstruction on {} differs from the cpu backend's", r.adapter)));
                }
                eprintln!("compare-cpu: archive ({} bytes) and reconstruction identical to the cpu backend", a.bytes.len());
            }
            if json {
                println!("{}", eval_json(&name, &input.display().to_string(), &f, &r));
            } else {
                print_eval(&name, &f, &r);
            }
            if r.q.max_abs_error > r.bound || r.q.non_finite_mismatches > 0 {
                return Err(Error::Device("the reconstruction violates the bound".into()));
            }
            Ok(())
        }
        Cmd::Demo { dims, json } => demo(&dims, json),
        Cmd::Report { inputs, out } => report(&inputs, out.as_deref()),
        Cmd::Bench {
            input,
            dims,
            dtype,
            tile,
            size,
            fields,
            data_dir,
            presets,
            eb,
            mode,
            warmup,
            reps,
            replays,
            replay_mode,
            preheat_ms,
            fusion,
            scan,
            json,
            dev,
        } => {
            if let Some(s) = scan {
                fzwgpu::kernels::scan::set_scan_mode(s.parse()?);
            }
            let batched = match replay_mode.as_str() {
                "separate" => false,
                "batched" => true,
                other => return Err(Error::Config(format!("replay mode '{other}' (separate or batched)"))),
            };
            let fields = bench_fields(input, dims, &dtype, tile, &size, fields, data_dir)?;
            bench(fields, presets, eb, &mode, warmup, reps, (replays, batched, preheat_ms), &fusion, json, &dev)
        }
        Cmd::KernelSource { name, f64, no_subgroups, cuda, cubin } => {
            use fzwgpu::kernels::{self, Kernel, Variant};
            let Some(name) = name else {
                for k in Kernel::ALL {
                    println!("{:20} shaders/{}", k.name(), k.file());
                }
                return Ok(());
            };
            let k = Kernel::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .ok_or_else(|| Error::Config(format!("unknown kernel '{name}' (run kernel-source without a name for the list)")))?;
            if cuda {
                let c = kernels::cuda::cuda_kernel(
                    k,
                    Variant { f64, subgroup: true, coalesce: kernels::coalesce_from_env(true) },
                    kernels::cuda::CudaOptions::from_env(),
                )?;
                print!("{}", c.source);
                if let Some(path) = cubin {
                    write_cubin(k, &c, &path)?;
                }
            } else {
                print!("{}", kernels::source(k, Variant { f64, subgroup: !no_subgroups, coalesce: kernels::coalesce_from_env(false) })?);
            }
            Ok(())
        }
        Cmd::Adapters => {
            for line in fzwgpu::backend::wgpu::list_adapters() {
                println!("adapter: {line}");
            }
            #[cfg(feature = "cuda")]
            match backend::open(&BackendChoice::Cuda { device: None }) {
                Ok(b) => println!("cuda: {} | {} | {}", b.info().adapter, b.info().api, b.info().driver),
                Err(e) => println!("cuda: not available ({e})"),
            }
            let b = backend::open(&BackendChoice::Wgpu { adapter: None })?;
            let i = b.info();
            println!(
                "selected: {} | {} | {} | shader_f64={} subgroups={} ({}) timestamps={} max_binding={} MiB | upload staging: {}",
                i.adapter,
                i.api,
                i.driver,
                i.shader_f64,
                i.subgroups,
                i.subgroup_layout,
                i.timestamps,
                i.max_binding_bytes >> 20,
                b.upload_staging()
            );
            Ok(())
        }
    }
}

/// "START:END" (or "START..END") as a value range inside `n` values.
fn parse_range(s: &str, n: u64) -> Result<(u64, u64)> {
    let (a, b) = s.split_once(':').or_else(|| s.split_once("..")).ok_or_else(|| Error::Input(format!("--range {s}: want START:END")))?;
    let p = |v: &str| v.trim().parse::<u64>().map_err(|_| Error::Input(format!("--range {s}: '{v}' is not a value index")));
    let (a, b) = (p(a)?, p(b)?);
    if a > b || b > n {
        return Err(Error::Input(format!("--range {a}:{b} is outside the field's {n} values")));
    }
    Ok((a, b))
}

/// A progress bar on stderr when it is a terminal (bytes, throughput, ETA).
fn progress_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}") {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}

/// Peak resident memory of this process (Linux), for the streaming summaries.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.trim_start_matches("VmHWM:").trim().to_string()))
        .unwrap_or_else(|| "n/a".into())
}

/// Whether the file at `path` is an FZMS stream (by its magic).
fn is_stream_file(path: &Path) -> Result<bool> {
    let mut head = [0u8; 4];
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let got = f.read(&mut head).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    Ok(fzwgpu::stream::is_stream(&head[..got]))
}

/// Temporary output path, renamed on success.
fn part_path(path: &Path) -> PathBuf {
    path.with_extension(format!("{}.part", path.extension().and_then(|e| e.to_str()).unwrap_or("out")))
}

fn finish_part(tmp: &Path, path: &Path, res: Result<()>) -> Result<()> {
    match res.and_then(|_| std::fs::rename(tmp, path).map_err(|e| Error::io(format!("writing {}", path.display()), e))) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(tmp);
            Err(e)
        }
    }
}

fn compress_stream_cli(input: &Path, output: &Path, dims: Dims, dtype: DataType, pipe: &PipeArgs, dev: &DevArgs, chunk: u64) -> Result<()> {
    let be = open_backend(dev)?;
    let stdin = input.as_os_str() == "-";
    let want = dims.len() * dtype.size() as u64;
    let probe = build_pipeline(pipe)?;
    let relative = probe.configured_bounds().iter().any(|b| b.mode != fzwgpu::ErrorMode::Abs);
    // a range-relative bound needs the whole field's range before the first chunk: a
    // file is scanned first; standard input of at most one chunk is read into memory
    // (the memory --chunk-size allows) and scanned there; a longer one is refused
    let held = if relative && stdin {
        if want > chunk {
            return Err(Error::Config(format!(
                "a range-relative bound (noa/rel) over standard input needs the field's range before the first chunk: standard input is read into memory up to --chunk-size ({chunk} bytes), and --dims {dims} of {dtype} is {want} bytes; give a file, a larger --chunk-size, or an absolute bound (--mode abs)"
            )));
        }
        // (one byte past the field, so compress_stream still finds a too long input; a
        // short one fails scan_range, both with the stream's own errors)
        let mut b = Vec::new();
        std::io::stdin().lock().take(want + 1).read_to_end(&mut b).map_err(|e| Error::io("reading standard input", e))?;
        Some(b)
    } else {
        None
    };
    let range = if let Some(b) = &held {
        Some(fzwgpu::stream::scan_range(std::io::Cursor::new(b), dtype, dims.len())?)
    } else if relative {
        let f = std::fs::File::open(input).map_err(|e| Error::io(format!("reading {}", input.display()), e))?;
        Some(fzwgpu::stream::scan_range(std::io::BufReader::with_capacity(1 << 22, f), dtype, dims.len())?)
    } else {
        None
    };
    let reader: Box<dyn Read> = if let Some(b) = held {
        Box::new(std::io::Cursor::new(b))
    } else if stdin {
        Box::new(std::io::stdin().lock())
    } else {
        let meta = std::fs::metadata(input).map_err(|e| Error::io(format!("reading {}", input.display()), e))?;
        if meta.len() != want {
            return Err(Error::Input(size_mismatch(input, meta.len(), &dims.to_string(), dims, dtype)));
        }
        Box::new(std::fs::File::open(input).map_err(|e| Error::io(format!("reading {}", input.display()), e))?)
    };
    let pb = progress_bar(want, "compress");
    let t0 = std::time::Instant::now();
    let mut summary = None;
    let res = write_output(output, false, |w| {
        let make = || build_pipeline(pipe);
        let s =
            fzwgpu::stream::compress_stream(be.as_ref(), &make, reader, w, dtype, dims, chunk, range, &mut |done| pb.set_position(done))?;
        summary = Some(s);
        Ok(())
    });
    pb.finish_and_clear();
    res?;
    let s = summary.ok_or_else(|| Error::Pipeline("stream summary missing".into()))?;
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "{} -> {}: {} -> {} bytes (ratio {:.3}) in {} chunks, bound {:e}, {:.2} GB/s, peak resident {}, on {}",
        input.display(),
        output.display(),
        s.input_bytes,
        s.output_bytes,
        metrics::ratio(s.input_bytes, s.output_bytes),
        s.chunks,
        s.abs_bound,
        s.input_bytes as f64 / secs / 1e9,
        peak_rss(),
        be.info().adapter
    );
    Ok(())
}

fn decompress_stream_cli(
    input: &Path,
    output: &Path,
    dev: &DevArgs,
    opts: &RunOptions,
    chunk: Option<usize>,
    range: Option<&str>,
    bx: Option<&str>,
) -> Result<()> {
    let be = open_backend(dev)?;
    let mut f = std::io::BufReader::new(std::fs::File::open(input).map_err(|e| Error::io(format!("reading {}", input.display()), e))?);
    let index = fzwgpu::stream::read_index(&mut f)?;
    let n = index.header.dims.len();
    if let Some(spec) = bx {
        let b = fzwgpu::stream::FieldBox::parse(spec, index.header.dims)?;
        write_output(output, false, |w| {
            fzwgpu::stream::decompress_box(be.as_ref(), opts, &mut f, &index, b, w, &mut |_| {})?;
            Ok(())
        })?;
        eprintln!(
            "{} -> {}: box {spec} of {} {} ({} values), peak resident {}, on {}",
            input.display(),
            output.display(),
            index.header.dims,
            index.header.dtype,
            b.len(),
            peak_rss(),
            be.info().adapter
        );
        return Ok(());
    }
    let (a, b) = match (chunk, range) {
        (Some(k), _) => {
            let c = index.chunks.get(k).ok_or_else(|| Error::Input(format!("chunk {k}: the stream has {} chunks", index.chunks.len())))?;
            (c.first, c.first + c.count)
        }
        (None, Some(r)) => parse_range(r, n)?,
        (None, None) => (0, n),
    };
    let sz = index.header.dtype.size() as u64;
    let pb = progress_bar((b - a) * sz, "decompress");
    let t0 = std::time::Instant::now();
    let res = write_output(output, false, |w| {
        fzwgpu::stream::decompress_range(be.as_ref(), opts, &mut f, &index, a, b, w, &mut |done| pb.set_position(done))?;
        Ok(())
    });
    pb.finish_and_clear();
    res?;
    eprintln!(
        "{} -> {}: values {a}..{b} of {} {} ({} bytes), {:.2} GB/s, peak resident {}, on {}",
        input.display(),
        output.display(),
        index.header.dims,
        index.header.dtype,
        (b - a) * sz,
        (b - a) as f64 * sz as f64 / t0.elapsed().as_secs_f64() / 1e9,
        peak_rss(),
        be.info().adapter
    );
    Ok(())
}

fn report(inputs: &[PathBuf], out: Option<&std::path::Path>) -> Result<()> {
    let mut records = Vec::new();
    for p in inputs {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(format!("reading {}", p.display()), e))?;
        let (mut r, skipped) = fzwgpu::report::parse(&text);
        if r.is_empty() {
            return Err(Error::Input(format!("{}: no records (JSON objects with a \"preset\")", p.display())));
        }
        eprintln!("{}: {} records, {skipped} other lines", p.display(), r.len());
        records.append(&mut r);
    }
    let rep = fzwgpu::report::render(&records);
    match out {
        None => print!("{}", rep.markdown),
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
            write_atomic(&dir.join("report.md"), rep.markdown.as_bytes())?;
            for (name, svg) in &rep.svgs {
                write_atomic(&dir.join(name), svg.as_bytes())?;
            }
            eprintln!("wrote {} and {} plots", dir.join("report.md").display(), rep.svgs.len());
        }
    }
    Ok(())
}

/// The real field the default bench tiles (the cuSZp reference's), and its dims.
const TILED_FIELD: (&str, &str) = ("cesm_camfv_TS_10x192x288.f32", "288x192x10");

/// `f` repeated along its slowest dimension: whole copies up to `size` bytes.
fn tiled(f: Field, size: &str, what: &str) -> Result<(Field, String)> {
    let copies = (fzwgpu::types::parse_size(size)? / f.bytes.len() as u64).max(1);
    let dims = match (f.dims.y, f.dims.z) {
        (_, z) if z > 1 => Dims::new(f.dims.x, f.dims.y, z * copies)?,
        (y, _) if y > 1 => Dims::new(f.dims.x, y * copies, 1)?,
        _ => Dims::d1(f.dims.x * copies)?,
    };
    let bytes = f.bytes.repeat(copies as usize);
    Ok((Field::new(f.dtype, dims, bytes)?, format!("{what} tiled x{copies}")))
}

/// The fields `bench` runs, with their descriptions: the given file (tiled or not), a
/// generated field of `--dims`, or by default the generated smooth field of `--size` and
/// CESM TS tiled to `--size` (skipped with a note when its file is not found, unless
/// `--fields` or `--data-dir` asks for it).
fn bench_fields(
    input: Option<PathBuf>,
    dims: Option<String>,
    dtype: &str,
    tile: bool,
    size: &str,
    fields: Option<Vec<String>>,
    data_dir: Option<PathBuf>,
) -> Result<Vec<(Field, String)>> {
    if fields.is_some() && (input.is_some() || dims.is_some()) {
        return Err(Error::Config("--fields picks the default fields; not with --input or --dims".into()));
    }
    // the element type of every field: the file's, or the generated field's (float32 or
    // float64), or the tiled real field's (float32, widened to float64 for f64)
    let dt = DataType::parse_float(dtype)?;
    match (&input, &dims) {
        (Some(p), Some(d)) if tile => {
            return Ok(vec![tiled(
                read_field(p, &FieldArgs { dims: d.clone(), dtype: dtype.to_string() })?,
                size,
                &p.display().to_string(),
            )?])
        }
        (Some(p), Some(d)) => {
            return Ok(vec![(read_field(p, &FieldArgs { dims: d.clone(), dtype: dtype.to_string() })?, p.display().to_string())])
        }
        (None, Some(d)) => return Ok(vec![smooth_field(d.parse()?, dt)?]),
        _ => {}
    }
    // asked for by name (--fields, or a --data-dir to read it from): a missing file is
    // an error; by default (FZWGPU_DATA_DIR or ../shared/data) a note
    let asked = fields.is_some() || data_dir.is_some();
    let fields = fields.unwrap_or_else(|| vec!["smooth".into(), "tiled".into()]);
    let mut out = Vec::new();
    for f in &fields {
        match f.trim() {
            "smooth" => {
                let n = fzwgpu::types::parse_size(size)? / dt.size() as u64;
                let nx = 8192u64.min(n);
                out.push(smooth_field(Dims::new(nx, n / nx, 1)?, dt)?);
            }
            which @ ("tiled" | "tiled-1d") => {
                let dir = data_dir
                    .clone()
                    .or_else(|| fzwgpu::envcfg::get("FZWGPU_DATA_DIR").ok().flatten().map(PathBuf::from))
                    .unwrap_or_else(|| PathBuf::from("../shared/data"));
                let path = dir.join(TILED_FIELD.0);
                if !path.is_file() {
                    if asked {
                        return Err(Error::Input(format!("--fields {which}: {} not found (--data-dir)", path.display())));
                    }
                    println!("bench: the tiled real field is skipped: {} not found (--data-dir or FZWGPU_DATA_DIR)", path.display());
                    continue;
                }
                let mut f = read_field(&path, &FieldArgs { dims: TILED_FIELD.1.into(), dtype: "f32".into() })?;
                if which == "tiled-1d" {
                    // the same values as one line (native cuSZp's reference runs are 1-D)
                    f = Field::new(f.dtype, Dims::d1(f.dims.len())?, f.bytes)?;
                }
                let mut what = TILED_FIELD.0.to_string();
                if dt == DataType::F64 {
                    // the real field is float32: its values widened (exactly) to float64,
                    // so --size counts float64 bytes
                    f = Field::from_f64(f.dims, &f.to_f64())?;
                    what += " widened to float64";
                }
                let (f, what) = tiled(f, size, &what)?;
                out.push((f, if which == "tiled-1d" { format!("{what} as 1-D") } else { what }));
            }
            other => return Err(Error::Config(format!("--fields: '{other}' (smooth, tiled or tiled-1d)"))),
        }
    }
    if out.is_empty() {
        return Err(Error::Config("--fields: no field to run".into()));
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn bench(
    fields: Vec<(Field, String)>,
    presets: Option<String>,
    eb: f64,
    mode: &str,
    warmup: usize,
    reps: usize,
    (replays, batched, preheat_ms): (u32, bool, Option<u32>),
    fusion: &str,
    json: Option<PathBuf>,
    dev: &DevArgs,
) -> Result<()> {
    let fusion: fzwgpu::stages::FusionPolicy = fusion.parse()?;
    let be = open_backend(dev)?;
    let preheat_ms = preheat_ms.unwrap_or(if be.info().software { 0 } else { 500 });
    let names: Vec<String> = match presets {
        Some(p) => p.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
        None => config::PRESETS.iter().map(|p| p.0.to_string()).collect(),
    };
    let bound = ErrorBound::new(mode.parse()?, eb)?;
    let info = be.info().clone();
    let mut out = match &json {
        Some(p) => Some(
            std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?,
        ),
        None => None,
    };
    // a preset that cannot run here (e.g. a field past the adapter's limits) is
    // reported and the others still run; the command then fails with the list
    let mut failed: Vec<String> = Vec::new();
    for (field, source) in &fields {
        bench_field(
            be.as_ref(),
            &info,
            field,
            source,
            &names,
            bound,
            warmup,
            reps,
            (replays, batched, preheat_ms),
            fusion,
            &mut out,
            &mut failed,
        )?;
    }
    println!(
        "GB/s of input; 'k' = kernel time on a device-resident field (GPU timestamps over back-to-back replays, see 'kernel replays' above; cpu: compute wall time), 'e2e' = host to host (upload, kernels, download)."
    );
    if !failed.is_empty() {
        return Err(Error::Pipeline(format!(
            "{} of {} preset runs failed: {}",
            failed.len(),
            names.len() * fields.len(),
            failed.join("; ")
        )));
    }
    Ok(())
}

/// One field of `bench`: its header, copy bandwidth, and a table row (and a JSON
/// record) per preset; a preset that fails is added to `failed`.
#[allow(clippy::too_many_arguments)]
fn bench_field(
    be: &dyn Backend,
    info: &fzwgpu::backend::BackendInfo,
    field: &Field,
    source: &str,
    names: &[String],
    bound: ErrorBound,
    warmup: usize,
    reps: usize,
    (replays, batched, preheat_ms): (u32, bool, u32),
    fusion: fzwgpu::stages::FusionPolicy,
    out: &mut Option<std::fs::File>,
    failed: &mut Vec<String>,
) -> Result<()> {
    let n = field.bytes.len() as u64;
    println!(
        "fzwgpu bench: {source} ({:.1} MiB), {} {:e}, warm-up {warmup}, median of {reps}",
        n as f64 / (1 << 20) as f64,
        bound.mode,
        bound.value
    );
    println!("adapter: {} | {} | {} | backend {}", info.adapter, info.api, info.driver, info.kind.name());
    println!("upload staging: {}", info.upload_staging);
    println!("subgroups: {} ({})", info.subgroups, info.subgroup_layout);
    let opts = RunOptions { fusion, ..RunOptions::default() };
    // kernel times come from runs on a resident field (uploaded once, decompressed
    // into device memory), each submission replayed back to back so the device stays
    // busy at its sustained clocks; end-to-end times from host-to-host runs
    let timing = RunOptions { timing_replays: replays, timing_batched: batched, timing_preheat_ms: preheat_ms, ..opts.clone() };
    let resident = fzwgpu::DeviceField::upload(be, field)?;
    let copies = copy_seconds(be, &field.bytes, reps.max(1))?;
    let (up_s, down_s, down_best_s) = (copies.up_s, copies.down_s, copies.best_down_s());
    println!(
        "copy: host->device {} GB/s, device->host {} GB/s into fresh memory, {} GB/s into touched memory (write_buffer / readbacks of the field's {} bytes, median of {}); '%up' / '%upi' / '%down' / '%into' = e2e against the upload / the upload / the faster readback / the readback into touched memory ('comp into', 'dec into': compress_into / decompress_into buffers reused across runs)",
        fmt_opt(gbps(n, Some(up_s))),
        fmt_opt(gbps(n, Some(down_s))),
        fmt_opt(gbps(n, Some(copies.down_touched_s))),
        n,
        reps.max(1)
    );
    println!(
        "offset scan: {} (--scan); kernel replays: {replays} {}, after {preheat_ms} ms of untimed replays (--replays, --replay-mode, --preheat-ms)",
        fzwgpu::kernels::scan::scan_mode().name(),
        if batched { "batched in one submission, mean" } else { "separate submissions, median" }
    );
    let checks = fzwgpu::backend::wgpu::shader_checks();
    if checks != fzwgpu::backend::wgpu::ShaderChecks::Full {
        println!("shader runtime checks: {} (FZWGPU_SHADER_CHECKS, diagnostic)", checks.name());
    }
    println!(
        "{:<14} {:>8} {:>11} {:>11} {:>6} {:>11} {:>6} {:>11} {:>11} {:>6} {:>11} {:>6} {:>11} {:>8}",
        "preset",
        "ratio",
        "comp k",
        "comp e2e",
        "%up",
        "comp into",
        "%upi",
        "dec k",
        "dec e2e",
        "%down",
        "dec into",
        "%into",
        "max err",
        "ok"
    );
    for name in names {
        let mut one = || -> Result<()> {
            let mut p = Pipeline::from_preset(name)?;
            p.override_bound(bound)?;
            p.options.fusion = fusion;
            p.options.timing_replays = replays;
            p.options.timing_batched = batched;
            p.options.timing_preheat_ms = preheat_ms;
            for _ in 0..warmup {
                let c = p.compress_device(&resident)?;
                fzwgpu::decompress_device(be, &c.bytes, &timing)?;
            }
            let (mut ck, mut cw, mut dk, mut dw) = (vec![], vec![], vec![], vec![]);
            let mut archive = None;
            for _ in 0..reps.max(1) {
                let c = p.compress_device(&resident)?;
                ck.extend(c.report.kernel_seconds);
                archive = Some(c.bytes);
            }
            let archive = archive.ok_or_else(|| Error::Config("no repetitions".into()))?;
            for _ in 0..reps.max(1) {
                let (_, rep) = fzwgpu::decompress_device(be, &archive, &timing)?;
                dk.extend(rep.kernel_seconds);
            }
            p.options.timing_replays = 0;
            let mut last = None;
            // decompress_into's destination: one buffer, touched before the first run
            let mut into = fzwgpu::hostmem::zeroed(field.bytes.len())?;
            fzwgpu::hostmem::par_copy(&mut into, &field.bytes);
            let mut diw = vec![];
            // every repetition's reports (their phases' medians go to the JSON record)
            let (mut rep_c, mut rep_d, mut rep_ci, mut rep_di) = (vec![], vec![], vec![], vec![]);
            // compress_into's archive buffer: reused across runs (touched by the first)
            let (mut reused, mut ciw) = (Vec::new(), vec![]);
            p.compress_into(be, field, &mut reused)?;
            for _ in 0..reps.max(1) {
                let ci = p.compress_into(be, field, &mut reused)?;
                ciw.push(ci.wall_seconds);
                rep_ci.push(ci);
                let c = p.compress(be, field)?;
                cw.push(c.report.wall_seconds);
                if c.bytes != archive {
                    return Err(Error::Device(format!("{name}: the resident and host runs wrote different archives")));
                }
                let d = fzwgpu::decompress(be, &c.bytes, &opts)?;
                dw.push(d.report.wall_seconds);
                let di = fzwgpu::decompress_into(be, &c.bytes, &opts, &mut into)?;
                diw.push(di.report.wall_seconds);
                rep_di.push(di.report);
                rep_c.push(c.report.clone());
                rep_d.push(d.report.clone());
                last = Some((c, d));
            }
            let (c, d) = last.ok_or_else(|| Error::Config("no repetitions".into()))?;
            if into != d.field.bytes {
                return Err(Error::Device(format!("{name}: decompress_into and decompress reconstructed different fields")));
            }
            if reused != c.bytes {
                return Err(Error::Device(format!("{name}: compress_into and compress wrote different archives")));
            }
            let (diw, ciw) = (median(&mut diw), median(&mut ciw));
            let q = metrics::quality(field, &d.field);
            let bound_abs = c.report.field_bound();
            let ok = q.max_abs_error <= bound_abs && q.non_finite_mismatches == 0;
            let (ck, cw, dk, dw) = (median(&mut ck), median(&mut cw), median(&mut dk), median(&mut dw));
            let pct = |copy: f64, e2e: Option<f64>| e2e.filter(|&t| t > 0.0).map(|t| 100.0 * copy / t);
            let (c_pct, d_pct, d_best_pct) = (pct(up_s, cw), pct(down_s, dw), pct(down_best_s, dw));
            let (di_pct, ci_pct) = (pct(copies.down_touched_s, diw), pct(up_s, ciw));
            println!(
                "{:<14} {:>8.3} {:>11} {:>11} {:>6} {:>11} {:>6} {:>11} {:>11} {:>6} {:>11} {:>6} {:>11.3e} {:>8}",
                name,
                metrics::ratio(n, c.bytes.len() as u64),
                fmt_opt(gbps(n, ck)),
                fmt_opt(gbps(n, cw)),
                c_pct.map_or("-".to_string(), |v| format!("{v:.0}%")),
                fmt_opt(gbps(n, ciw)),
                ci_pct.map_or("-".to_string(), |v| format!("{v:.0}%")),
                fmt_opt(gbps(n, dk)),
                fmt_opt(gbps(n, dw)),
                d_best_pct.map_or("-".to_string(), |v| format!("{v:.0}%")),
                fmt_opt(gbps(n, diw)),
                di_pct.map_or("-".to_string(), |v| format!("{v:.0}%")),
                q.max_abs_error,
                ok
            );
            if let Some(f) = out.as_mut() {
                let rec = json!({
                    "preset": name,
                    "source": source,
                    "dims": field.dims.to_string(),
                    "dtype": field.dtype.to_string(),
                    "input_bytes": n,
                    "bound_mode": bound.mode.name(),
                    "bound_value": bound.value,
                    "resolved_bound": bound_abs,
                    "ratio": metrics::ratio(n, c.bytes.len() as u64),
                    "bits_per_value": metrics::bit_rate(c.bytes.len() as u64, field.len()),
                    "psnr_db": if q.psnr_db.is_finite() { json!(q.psnr_db) } else { json!("inf") },
                    "max_abs_error": q.max_abs_error,
                    "bound_ok": ok,
                    "compress_kernel_s": ck,
                    "compress_e2e_s": cw,
                    "decompress_kernel_s": dk,
                    "decompress_e2e_s": dw,
                    "compress_phases_s": phases_json(&rep_c),
                    "decompress_phases_s": phases_json(&rep_d),
                    "compress_into_phases_s": phases_json(&rep_ci),
                    "decompress_into_phases_s": phases_json(&rep_di),
                    "compress_kernel_gbps": gbps(n, ck),
                    "compress_e2e_gbps": gbps(n, cw),
                    "decompress_kernel_gbps": gbps(n, dk),
                    "decompress_e2e_gbps": gbps(n, dw),
                    "copy_up_gbps": gbps(n, Some(up_s)),
                    "copy_down_gbps": gbps(n, Some(down_s)),
                    "compress_e2e_pct_of_upload": c_pct,
                    "copy_down_touched_gbps": gbps(n, Some(copies.down_touched_s)),
                    "decompress_e2e_pct_of_download": d_pct,
                    "decompress_e2e_pct_of_best_download": d_best_pct,
                    "compress_into_e2e_s": ciw,
                    "compress_into_e2e_gbps": gbps(n, ciw),
                    "compress_into_pct_of_upload": ci_pct,
                    "decompress_into_e2e_s": diw,
                    "decompress_into_e2e_gbps": gbps(n, diw),
                    "decompress_into_pct_of_touched_download": di_pct,
                    "reps": reps,
                    "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
                    "version": env!("CARGO_PKG_VERSION"),
                    "replays": replays,
                    "replay_mode": if batched { "batched" } else { "separate" },
                    "preheat_ms": preheat_ms,
                    "fusion": format!("{fusion:?}").to_lowercase(),
                    "scan": fzwgpu::kernels::scan::scan_mode().name(),
                    "shader_checks": checks.name(),
                    "warmup": warmup,
                    "adapter": info.adapter,
                    "api": info.api,
                    "driver": info.driver,
                    // what staged this run's uploads (a runtime fallback shows here)
                    "upload_staging": be.upload_staging(),
                    "software": info.software,
                    // whether the subgroup variants ran, and the device-open check's word
                    "subgroups": info.subgroups,
                    "subgroup_layout": info.subgroup_layout,
                    "backend": info.kind.name(),
                    "notes": c.report.notes.iter().map(|(s, n)| format!("{s}:{n}")).collect::<Vec<_>>(),
                });
                writeln!(f, "{rec}").map_err(|e| Error::io("writing bench JSON", e))?;
            }
            if !ok {
                return Err(Error::Device(format!("{name}: the reconstruction violates the bound")));
            }
            Ok(())
        };
        if let Err(e) = one() {
            println!("{name:<14} failed: {e}");
            failed.push(format!("{name} on {source}: {e}"));
        }
    }
    Ok(())
}

/// Median seconds of a plain upload of `bytes` (write_buffer, completed by a 4-byte
/// readback) and of a plain readback of them, on the bench's backend: the copy
/// bandwidth end-to-end times are compared with.
fn copy_seconds(be: &dyn Backend, bytes: &[u8], reps: usize) -> Result<Copies> {
    let len = (bytes.len() as u64).next_multiple_of(4);
    let buf = be.create_buffer(len)?;
    let mut padded;
    let data = if bytes.len() as u64 == len {
        bytes
    } else {
        padded = bytes.to_vec();
        padded.resize(len as usize, 0);
        &padded[..]
    };
    let (mut up, mut down, mut down_touched) = (Vec::new(), Vec::new(), Vec::new());
    let mut run = || -> Result<()> {
        // a destination whose pages are already mapped: the link and the staging copy
        // without first-touch page faults (a decompression's output is fresh memory)
        let mut touched = fzwgpu::hostmem::zeroed(len as usize)?;
        fzwgpu::hostmem::par_copy(&mut touched, data);
        for k in 0..=reps {
            let t = Instant::now();
            be.write_buffer(buf, 0, data)?;
            be.read_buffers(&[BufSlice::new(buf, 0, 4)])?;
            let u = t.elapsed().as_secs_f64();
            let t = Instant::now();
            be.read_buffers(&[BufSlice::new(buf, 0, len)])?;
            let d = t.elapsed().as_secs_f64();
            let t = Instant::now();
            be.read_into(&[BufSlice::new(buf, 0, len)], &mut [&mut touched[..]])?;
            let dt = t.elapsed().as_secs_f64();
            if k > 0 {
                up.push(u);
                down.push(d);
                down_touched.push(dt);
            }
        }
        Ok(())
    };
    let r = run();
    be.release_buffer(buf);
    r?;
    Ok(Copies {
        up_s: median(&mut up).unwrap_or(0.0),
        down_s: median(&mut down).unwrap_or(0.0),
        down_touched_s: median(&mut down_touched).unwrap_or(0.0),
    })
}

/// The plain copy probe's median seconds: the field uploaded (`write_buffer`), read
/// back into fresh memory (`read_buffers`, as a decompression's output), and read back
/// into memory already touched (`read_into`).
struct Copies {
    up_s: f64,
    down_s: f64,
    down_touched_s: f64,
}

impl Copies {
    /// The faster readback: what `%down` is measured against.
    fn best_down_s(&self) -> f64 {
        if self.down_touched_s > 0.0 && (self.down_s <= 0.0 || self.down_touched_s < self.down_s) {
            self.down_touched_s
        } else {
            self.down_s
        }
    }
}

fn demo(dims: &str, json_out: bool) -> Result<()> {
    let dims: Dims = dims.parse()?;
    let field = demo_field(dims)?;
    let mut backends: Vec<Arc<dyn Backend>> = Vec::new();
    match backend::open(&BackendChoice::Wgpu { adapter: None }) {
        Ok(b) => backends.push(b),
        Err(e) => eprintln!("note: no GPU adapter ({e}); running on the cpu backend only"),
    }
    backends.push(backend::open(&BackendChoice::Cpu)?);
    if !json_out {
        println!(
            "fzwgpu demo: smooth 2-D field {} f32 ({:.1} MiB), every built-in preset",
            field.dims,
            field.bytes.len() as f64 / (1 << 20) as f64
        );
        println!(
            "{:<14} {:<8} {:<34} {:>8} {:>11} {:>11} {:>8} {:>10} {:>10} {:>10} {:>10}",
            "preset", "backend", "adapter", "ratio", "bound", "max err", "PSNR", "comp k", "comp e2e", "dec k", "dec e2e"
        );
    }
    let mut all_ok = true;
    for (name, _) in config::PRESETS {
        for be in &backends {
            let mut p = Pipeline::from_preset(name)?;
            let r = evaluate(be.as_ref(), &mut p, &field, 2)?;
            let ok = r.q.max_abs_error <= r.bound;
            all_ok &= ok;
            if json_out {
                println!("{}", eval_json(name, &format!("demo {}", field.dims), &field, &r));
            } else {
                let n = field.bytes.len() as u64;
                let mut adapter = r.adapter.clone();
                adapter.truncate(34);
                println!(
                    "{:<14} {:<8} {:<34} {:>8.3} {:>11.3e} {:>11.3e} {:>8.2} {:>10} {:>10} {:>10} {:>10}",
                    name,
                    r.backend,
                    adapter,
                    metrics::ratio(n, r.compressed),
                    r.bound,
                    r.q.max_abs_error,
                    r.q.psnr_db,
                    fmt_opt(gbps(n, r.c_kernel)),
                    fmt_opt(gbps(n, Some(r.c_wall))),
                    fmt_opt(gbps(n, r.d_kernel)),
                    fmt_opt(gbps(n, Some(r.d_wall))),
                );
            }
        }
    }
    if !json_out {
        println!("GB/s of input: 'k' = kernel time (GPU timestamps; cpu: compute wall time), 'e2e' = host to host.");
        println!("every reconstruction {} its bound", if all_ok { "is within" } else { "VIOLATES" });
    }
    if !all_ok {
        return Err(Error::Device("a demo reconstruction violated its bound".into()));
    }
    Ok(())
}

fn stream_info(path: &Path, json_out: bool) -> Result<()> {
    let mut f = std::io::BufReader::new(std::fs::File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?);
    let ix = fzwgpu::stream::read_index(&mut f)?;
    let h = &ix.header;
    let n = h.dims.len();
    let input = n * h.dtype.size() as u64;
    if json_out {
        let v = json!({
            "format": "FZMS",
            "dims": h.dims.to_string(),
            "dtype": h.dtype.to_string(),
            "values": n,
            "chunk_values": h.chunk_values,
            "abs_bound": h.abs_bound,
            "stream_bytes": ix.total_bytes,
            "ratio": metrics::ratio(input, ix.total_bytes),
            "chunks": ix.chunks.iter().map(|c| json!({"offset": c.offset, "length": c.length, "first": c.first, "count": c.count})).collect::<Vec<_>>(),
        });
        println!("{v}");
    } else {
        println!(
            "FZMS stream {}: {} {} ({} values), {} bytes, ratio {:.3}",
            path.display(),
            h.dims,
            h.dtype,
            n,
            ix.total_bytes,
            metrics::ratio(input, ix.total_bytes)
        );
        println!(
            "  {} chunks of {} values (slabs along the slowest dimension), absolute bound {:e}",
            ix.chunks.len(),
            h.chunk_values,
            h.abs_bound
        );
        for (k, c) in ix.chunks.iter().enumerate() {
            println!("  chunk {k}: values {}..{}, FZM archive of {} bytes at offset {}", c.first, c.first + c.count, c.length, c.offset);
        }
        println!("  (each chunk is a self-contained FZM archive; decompress --chunk K or --range A:B reads only what it needs)");
    }
    Ok(())
}

fn info(path: &Path, json_out: bool) -> Result<()> {
    if is_stream_file(path)? {
        return stream_info(path, json_out);
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let a = fzm::read(&bytes)?;
    let h = &a.header;
    let mut stages = Vec::new();
    let mut built = Vec::new();
    for s in &a.stages {
        let st = fzwgpu::stages::from_config(s.stage_type, s.stage_version, &s.config)?;
        stages.push((s, st.describe(), st.run_notes()));
        built.push(st);
    }
    let fusion = fzwgpu::stages::chain::describe_archive_chains(&built, &a.stages);
    if json_out {
        let v = json!({
            "file": path.display().to_string(),
            "version": format!("{}.{}", h.version_major, h.version_minor),
            "uncompressed_size": h.uncompressed_size,
            "compressed_size": h.compressed_size,
            "ratio": metrics::ratio(h.uncompressed_size, h.compressed_size),
            "header_size": h.header_size,
            "flags": h.flags,
            "data_checksum": format!("{:#010x}", h.data_checksum),
            "header_checksum": format!("{:#010x}", h.header_checksum),
            "stages": stages.iter().map(|(s, d, notes)| json!({
                "name": s.name,
                "type": fzwgpu::stages::type_name_of(s.stage_type),
                "type_id": s.stage_type,
                "version": s.stage_version,
                "inputs": s.inputs,
                "outputs": s.outputs,
                "primary_source": s.flags & fzm::STAGE_FLAG_PRIMARY != 0,
                "config_bytes": s.config.len(),
                "config": d.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "run_notes": notes,
            })).collect::<Vec<_>>(),
            "fusion": fusion,
            "buffers": a.buffers.iter().map(|b| json!({
                "name": b.name,
                "id": b.dag_buffer_id,
                "data_type": b.data_type.to_string(),
                "data_size": b.data_size,
                "allocated_size": b.allocated_size,
                "uncompressed_size": b.uncompressed_size,
                "byte_offset": b.byte_offset,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    println!("{}: FZM {}.{}", path.display(), h.version_major, h.version_minor);
    println!(
        "  uncompressed {} bytes, compressed {} bytes, ratio {:.3}",
        h.uncompressed_size,
        h.compressed_size,
        metrics::ratio(h.uncompressed_size, h.compressed_size)
    );
    println!(
        "  header {} bytes, {} stage(s), {} buffer(s), CRC-32 data {:#010x} header {:#010x}",
        h.header_size, h.num_stages, h.num_buffers, h.data_checksum, h.header_checksum
    );
    for (s, d, notes) in &stages {
        println!(
            "  stage '{}' type {} (id {}, v{}){} inputs {:?} outputs {:?}, config {} bytes",
            s.name,
            fzwgpu::stages::type_name_of(s.stage_type),
            s.stage_type,
            s.stage_version,
            if s.flags & fzm::STAGE_FLAG_PRIMARY != 0 { " [primary]" } else { "" },
            s.inputs,
            s.outputs,
            s.config.len()
        );
        for (k, v) in d {
            println!("    {k:<20} {v}");
        }
        if !notes.is_empty() {
            println!("    run notes            {}", notes.join(" "));
        }
    }
    for b in &a.buffers {
        println!(
            "  buffer '{}' id {} {}: {} bytes at payload offset {} (bound {} bytes)",
            b.name, b.dag_buffer_id, b.data_type, b.data_size, b.byte_offset, b.allocated_size
        );
    }
    for f in &fusion {
        println!("  fusion: {f}");
    }
    Ok(())
}

fn main() {
    // Mesa's implicit Vulkan layer VK_LAYER_MESA_device_select (installed with
    // mesa-vulkan-drivers) only orders the adapters, which fzwgpu ranks itself, and
    // without XDG_RUNTIME_DIR (batch jobs, containers) its probe of a Wayland display
    // prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." twice
    // on every run. So it is off unless the environment sets one of its variables
    // (NODEVICE_SELECT, MESA_VK_DEVICE_SELECT*). Set here, before any other thread.
    if !std::env::vars_os().any(|(k, _)| k == "NODEVICE_SELECT" || k.to_string_lossy().starts_with("MESA_VK_DEVICE_SELECT")) {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    std::panic::set_hook(Box::new(|p| {
        let msg = p
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // println! panics when the reader of a pipe has gone (`fzwgpu info A | head`):
        // not a failure of ours, so leave quietly as a process killed by SIGPIPE would
        // (Rust ignores the signal, so writes fail with EPIPE instead)
        if msg.starts_with("failed printing to stdout") && msg.contains("os error 32") {
            std::process::exit(141);
        }
        eprintln!("error: internal failure: {msg} (please report this)");
    }));
    let cli = Cli::parse();
    // every FZWGPU_* variable checked once, whatever the backend (the cpu backend has
    // no fallible constructor of its own)
    let code = match std::panic::catch_unwind(|| fzwgpu::envcfg::check().and_then(|()| run(cli))) {
        Ok(Ok(())) => 0,
        // the reader of the output pipe has gone (`fzwgpu decompress ... -o - | head`):
        // quietly, as for a println! above
        Ok(Err(Error::Io { source, .. })) if source.kind() == std::io::ErrorKind::BrokenPipe => 141,
        Ok(Err(e)) => {
            eprintln!("error: {}", e.to_string().replace('\n', " "));
            1
        }
        Err(_) => 2,
    };
    std::process::exit(code);
}

/// `kernel-source --cuda --cubin FILE`: the NVRTC image of the printed source.
#[cfg(feature = "cuda")]
fn write_cubin(k: fzwgpu::kernels::Kernel, c: &fzwgpu::kernels::cuda::CudaKernel, path: &Path) -> Result<()> {
    let image = fzwgpu::backend::cuda::compile_source(k, c, &fzwgpu::backend::cuda::arch_from_env())?;
    write_atomic(path, &image)
}

#[cfg(not(feature = "cuda"))]
fn write_cubin(_: fzwgpu::kernels::Kernel, _: &fzwgpu::kernels::cuda::CudaKernel, _: &Path) -> Result<()> {
    Err(Error::Unsupported("--cubin needs a build with --features cuda (NVRTC)".into()))
}
