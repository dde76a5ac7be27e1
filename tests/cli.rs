//! The command-line tool: exit codes, one-line errors, no partial outputs, bound
//! overrides applied, presets by name, info.

mod common;
use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(common::fzwgpu_bin())
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fzwgpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn write_field(name: &str, n: usize) -> PathBuf {
    let v: Vec<f32> = (0..n).map(|i| (i as f32 * 0.01).sin() * 10.0).collect();
    let p = tmp(name);
    std::fs::write(&p, common::f32_bytes(&v)).unwrap();
    p
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = bin().args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into())
}

#[test]
fn compress_decompress_info_roundtrip_on_both_backends() {
    let input = write_field("a.f32", 100 * 60);
    for backend in ["cpu", "wgpu"] {
        let arch = tmp(&format!("a-{backend}.fzm"));
        let out = tmp(&format!("a-{backend}.out"));
        let (c, _, e) = run(&[
            "compress",
            "-i",
            input.to_str().unwrap(),
            "-o",
            arch.to_str().unwrap(),
            "--dims",
            "100x60",
            "--preset",
            "szx",
            "--eb",
            "0.05",
            "--mode",
            "abs",
            "--backend",
            backend,
        ]);
        assert_eq!(c, 0, "{e}");
        let (c, _, e) = run(&["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", backend]);
        assert_eq!(c, 0, "{e}");
        let a = common::f32_from(&std::fs::read(&input).unwrap());
        let b = common::f32_from(&std::fs::read(&out).unwrap());
        assert_eq!(common::check_f32(&a, &b, 0.05).1, 0);
        let (c, o, _) = run(&["info", arch.to_str().unwrap(), "--json"]);
        assert_eq!(c, 0);
        let j: serde_json::Value = serde_json::from_str(&o).unwrap();
        assert_eq!(j["stages"][0]["type"], "SZx");
        assert_eq!(j["stages"][0]["config"]["dims"], "100x60");
        // the --eb override reached the stage (the preset says 1e-3)
        assert_eq!(j["stages"][0]["config"]["error_bound"], "5e-2");
        assert!(j["stages"][0]["run_notes"][0].as_str().unwrap().starts_with("constant_block_fraction="));
        let (c, o, _) = run(&["info", arch.to_str().unwrap()]);
        assert_eq!(c, 0);
        assert!(o.contains("FZM 3.1") && o.contains("[primary]"));
    }
    let a = std::fs::read(tmp("a-cpu.fzm")).unwrap();
    let b = std::fs::read(tmp("a-wgpu.fzm")).unwrap();
    assert!(a == b, "cpu and wgpu archives differ");
}

#[test]
fn eval_reports_metrics_and_noa_override() {
    let input = write_field("e.f32", 5000);
    let (c, o, e) = run(&[
        "eval",
        "-i",
        input.to_str().unwrap(),
        "--dims",
        "5000",
        "--eb",
        "1e-3",
        "--mode",
        "noa",
        "--json",
        "--repeat",
        "1",
        "--compare-cpu",
    ]);
    assert_eq!(c, 0, "{e}");
    let j: serde_json::Value = serde_json::from_str(o.lines().last().unwrap()).unwrap();
    let eb = j["resolved_bound"].as_f64().unwrap();
    assert!((eb - 1e-3 * 20.0).abs() < 1e-4, "NOA bound resolved against the range: {eb}");
    assert!(j["max_abs_error"].as_f64().unwrap() <= eb);
    assert_eq!(j["bound_ok"], true);
    for k in [
        "ratio",
        "psnr_db",
        "nrmse",
        "compress_kernel_gbps",
        "compress_e2e_gbps",
        "decompress_kernel_gbps",
        "decompress_e2e_gbps",
        "adapter",
        "backend",
    ] {
        assert!(!j[k].is_null(), "missing {k}");
    }
    let (c, o, _) = run(&["eval", "-i", input.to_str().unwrap(), "--dims", "5000", "--backend", "cpu", "--widen"]);
    assert_eq!(c, 0);
    assert!(o.contains("float64") && o.contains("within bound"));
}

#[test]
fn errors_are_one_line_and_leave_no_output() {
    let input = write_field("b.f32", 1000);
    let out = tmp("never.fzm");
    let cases: Vec<Vec<&str>> = vec![
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "999"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--eb", "0"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--eb", "-1"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--preset", "nope"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--dtype", "f16"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "10x0"],
        vec!["compress", "-i", "/nonexistent/x.f32", "-o", out.to_str().unwrap(), "--dims", "1000"],
        vec!["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--backend", "tpu"],
        vec![
            "compress",
            "-i",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--dims",
            "1000",
            "--mode",
            "noa",
            "--eb",
            "1e-3",
            "--max-chunk-bytes",
            "10",
        ],
        vec!["decompress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap()],
        vec!["info", input.to_str().unwrap()],
    ];
    for args in cases {
        let (c, _, e) = run(&args);
        assert_ne!(c, 0, "{args:?} succeeded");
        assert!(c == 1 || (c == 2 && e.contains("Usage")), "{args:?}: exit {c}: {e}");
        if c == 1 {
            assert_eq!(e.trim().lines().count(), 1, "{args:?}: not one line: {e}");
            assert!(e.starts_with("error: "), "{e}");
        }
        assert!(!out.exists(), "{args:?} left an output file");
        let part = out.with_extension("fzm.part");
        assert!(!part.exists(), "{args:?} left a partial file");
    }
    // a negative bound is the bound's own error (status 1), not a parse error
    let (c, _, e) = run(&["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--eb", "-1"]);
    assert!(c == 1 && e.contains("error bound must be finite and > 0"), "exit {c}: {e}");
    // wrong dims: the message gives the dims as written (past three they fold into z),
    // their count of values and the bytes they need
    let (c, _, e) = run(&["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "5x5x5x2"]);
    assert!(c == 1 && e.contains("has 4000 bytes; --dims 5x5x5x2 (250 values) of float32 needs 1000 bytes"), "exit {c}: {e}");
}

#[test]
fn environment_variables_are_checked() {
    // a misspelt FZWGPU_* name or value is a one-line error on every backend, not the
    // default in silence; a valid one is accepted
    let input = write_field("env.f32", 1000);
    let out = tmp("env.fzm");
    for backend in ["cpu", "wgpu"] {
        for (k, v, says) in [
            ("FZWGPU_MEMORY_LIMIT", "512MB", "expected a size"),
            ("FZWGPU_SCAN", "lookbak", "expected reduce | lookback"),
            ("FZWGPU_MEMORYLIMIT", "1G", "unknown environment variable FZWGPU_MEMORYLIMIT"),
            ("FZWGPU_POOL", "maybe", "expected on | off"),
        ] {
            let o = bin()
                .env(k, v)
                .args(["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000", "--backend", backend])
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{k}={v} {backend}: {e}");
            assert!(e.starts_with("error: ") && e.contains(says) && e.trim().lines().count() == 1, "{k}={v}: {e}");
            assert!(!out.exists(), "{k}={v} left an output file");
        }
    }
    let o = bin()
        .env("FZWGPU_SCAN", "lookback")
        .env("FZWGPU_MEMORY_LIMIT", "512M")
        .args(["compress", "-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_file(&out).unwrap();
}

#[test]
fn config_files_reject_unknown_keys_and_types() {
    let input = write_field("c.f32", 1000);
    let out = tmp("c.fzm");
    let bad = [
        ("[[stage]]\nname = \"s\"\ntype = \"SZx\"\nerror_bund = 1e-3\n", "error_bund"),
        ("[[stage]]\nname = \"s\"\ntype = \"SZz\"\n", "SZz"),
        ("[pipeline]\nfoo = 1\n[[stage]]\nname = \"s\"\ntype = \"SZx\"\n", "foo"),
        ("[[stage]]\nname = \"s\"\ntype = \"SZx\"\nblock_size = 5000\n", "block_size"),
        ("[[stage]]\nname = \"s\"\ntype = \"SZx\"\nerror_bound = 0.0\n", "bound"),
        ("[[stage]]\nname = \"s\"\ntype = \"SZx\"\ninputs = [{ from = \"nobody\" }]\n", "nobody"),
    ];
    for (i, (text, word)) in bad.iter().enumerate() {
        let cfg = tmp(&format!("bad{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let (c, _, e) = run(&[
            "compress",
            "-i",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--dims",
            "1000",
            "--config",
            cfg.to_str().unwrap(),
            "--backend",
            "cpu",
        ]);
        assert_eq!(c, 1, "{text}");
        assert!(e.contains(word), "error for {text:?} does not name '{word}': {e}");
    }
    let good = tmp("good.toml");
    std::fs::write(&good, "[[stage]]\nname = \"s\"\ntype = \"SZx\"\nerror_bound = 0.5\nerror_bound_mode = \"ABS\"\nblock_size = 64\n")
        .unwrap();
    let (c, _, e) = run(&[
        "compress",
        "-i",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dims",
        "1000",
        "--config",
        good.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert_eq!(c, 0, "{e}");
}

#[test]
fn demo_runs_without_input() {
    let (c, o, e) = run(&["demo", "--dims", "256x128"]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("szx") && o.contains("within"), "{o}");
}

/// `fzwgpu bench` on the cpu backend, a generated 1 MiB field, one repetition and no
/// warm-up, plus `extra`.
fn bench_cpu(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["bench", "--size", "1M", "--reps", "1", "--warmup", "0", "--backend", "cpu", "--fields", "smooth"];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn bench_prints_a_table_and_appends_json() {
    let out = tmp("bench.jsonl");
    let _ = std::fs::remove_file(&out);
    for _ in 0..2 {
        let (c, o, e) = bench_cpu(&["--presets", "szx,szp_centered", "--json", out.to_str().unwrap()]);
        assert_eq!(c, 0, "{e}");
        assert!(o.contains("szx") && o.contains("szp_centered") && o.contains("adapter:"), "{o}");
    }
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "one record per preset per run, appended");
    for l in &lines {
        assert_eq!(l["bound_ok"], true);
        for k in [
            "ratio",
            "compress_kernel_gbps",
            "compress_e2e_gbps",
            "decompress_kernel_gbps",
            "decompress_e2e_gbps",
            "adapter",
            "driver",
            "upload_staging",
            "subgroups",
            "subgroup_layout",
            "backend",
        ] {
            assert!(!l[k].is_null(), "missing {k}");
        }
        // each end-to-end call's wall-time split, the reused-buffer calls' too
        for k in ["compress_phases_s", "decompress_phases_s", "compress_into_phases_s", "decompress_into_phases_s"] {
            assert!(l[k]["host"].is_number() && l[k]["upload"].is_number(), "{k}: {}", l[k]);
        }
    }
    let (c, _, e) = run(&["bench", "--size", "1M", "--presets", "nope", "--backend", "cpu"]);
    assert_eq!(c, 1, "{e}");
    // the offset scan is chosen, recorded and labelled; an unknown one is refused
    let scan_out = tmp("bench-scan.jsonl");
    let _ = std::fs::remove_file(&scan_out);
    for m in ["reduce", "lookback"] {
        let (c, o, e) = bench_cpu(&["--presets", "szx", "--scan", m, "--json", scan_out.to_str().unwrap()]);
        assert_eq!(c, 0, "{e}");
        assert!(o.contains(&format!("offset scan: {m}")), "{o}");
    }
    let recs: Vec<serde_json::Value> =
        std::fs::read_to_string(&scan_out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.iter().map(|r| r["scan"].as_str().unwrap()).collect::<Vec<_>>(), ["reduce", "lookback"]);
    assert!(recs[0]["ratio"].is_f64());
    assert_eq!(recs[0]["ratio"], recs[1]["ratio"], "same archive size either way");
    let (c, o, _) = run(&["report", scan_out.to_str().unwrap()]);
    assert_eq!(c, 0);
    assert!(o.contains("szx (scan lookback)"), "{o}");
    let (c, _, e) = run(&["bench", "--size", "1M", "--backend", "cpu", "--presets", "szx", "--scan", "bogus"]);
    assert_eq!(c, 1);
    assert!(e.contains("scan 'bogus'"), "{e}");
    // kernel replays in separate submissions or batched into one: both time the
    // kernels through the GPU's timestamps and say which they used; the pre-heat is
    // given (separate) or left to its default, none on a CPU adapter such as lavapipe
    let rm_out = tmp("bench-replays.jsonl");
    let _ = std::fs::remove_file(&rm_out);
    for (m, heat) in [("separate", Some("--preheat-ms=20")), ("batched", None)] {
        let mut args = vec![
            "bench",
            "--size",
            "1M",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--backend",
            "wgpu",
            "--fields",
            "smooth",
            "--presets",
            "szx",
            "--replays",
            "3",
            "--replay-mode",
            m,
            "--json",
            rm_out.to_str().unwrap(),
        ];
        args.extend(heat);
        let (c, o, e) = run(&args);
        assert_eq!(c, 0, "{e}");
        assert!(o.contains("kernel replays: 3"), "{o}");
    }
    let recs: Vec<serde_json::Value> =
        std::fs::read_to_string(&rm_out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.iter().map(|r| r["replay_mode"].as_str().unwrap()).collect::<Vec<_>>(), ["separate", "batched"]);
    // the default pre-heat: none on a CPU adapter (lavapipe, the record's "software"),
    // some on a GPU (the suite on the H100, round 28)
    let heats: Vec<u64> = recs.iter().map(|r| r["preheat_ms"].as_u64().unwrap()).collect();
    let software = recs[1]["software"].as_bool().unwrap();
    assert!(heats[0] == 20 && (heats[1] == 0) == software, "{recs:?}");
    assert!(recs.iter().all(|r| r["compress_kernel_gbps"].as_f64().is_some_and(|g| g > 0.0)), "{recs:?}");
    let (c, _, e) = run(&["bench", "--size", "1M", "--backend", "cpu", "--presets", "szx", "--replay-mode", "bogus"]);
    assert_eq!(c, 1);
    assert!(e.contains("replay mode 'bogus'"), "{e}");
    // a real field tiled up to a size (whole copies along the slowest dimension)
    let small = write_field("tile.f32", 4000);
    let (c, o, e) = run(&[
        "bench",
        "-i",
        small.to_str().unwrap(),
        "--dims",
        "40x100",
        "--tile",
        "--size",
        "64K",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--backend",
        "cpu",
        "--presets",
        "szx",
    ]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("tiled x4"), "{o}");
    // the records become a Markdown report with plots
    let dir = tmp("report");
    let (c, _, e) = run(&["report", out.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("| szx |") || md.contains("| szx | "), "{md}");
    assert!(md.contains("szp_centered") && md.contains("Rate-distortion"), "{md}");
    let svgs: Vec<_> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).filter(|e| e.path().extension().is_some_and(|x| x == "svg")).collect();
    assert!(svgs.len() >= 2, "throughput and rate-distortion plots");
    let (c, o, _) = run(&["report", out.to_str().unwrap()]);
    assert_eq!(c, 0);
    assert!(o.starts_with("# fzwgpu report"));
    let junk = tmp("junk.txt");
    std::fs::write(&junk, "no records here\n").unwrap();
    let (c, _, e) = run(&["report", junk.to_str().unwrap()]);
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("no records"), "{e}");
}

#[test]
fn info_says_how_a_chain_runs() {
    let input = write_field("f.f32", 4000);
    let arch = tmp("f.fzm");
    let (c, _, e) = run(&[
        "compress",
        "-i",
        input.to_str().unwrap(),
        "-o",
        arch.to_str().unwrap(),
        "--dims",
        "4000",
        "--preset",
        "szp_composed",
        "--backend",
        "cpu",
    ]);
    assert_eq!(c, 0, "{e}");
    let (c, o, _) = run(&["info", arch.to_str().unwrap()]);
    assert_eq!(c, 0);
    assert!(o.contains("fusion: quant+lorenzo+bitpack") && o.contains("decompress runs fused"), "{o}");
}

#[test]
fn kernel_source_prints_wgsl_and_cuda_and_refuses_bad_requests() {
    let (c, o, e) = run(&["kernel-source"]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("szx_encode") && o.contains("chain_decode"), "kernel list: {o}");
    let (c, o, e) = run(&["kernel-source", "szx_encode"]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("fn szx_encode("), "not the WGSL");
    let (c, o, e) = run(&["kernel-source", "szx_encode", "--cuda"]);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("__global__"), "not CUDA C");
    let (c, _, e) = run(&["kernel-source", "no_such_kernel"]);
    assert_eq!(c, 1);
    assert!(e.contains("unknown kernel"), "{e}");
    // --cubin only with --cuda (a usage error)
    let cubin = tmp("szx_encode.cubin");
    let (c, _, _) = run(&["kernel-source", "szx_encode", "--cubin", cubin.to_str().unwrap()]);
    assert_eq!(c, 2);
    // a build without the cuda feature has no NVRTC: a clear error, no file
    if !cfg!(feature = "cuda") {
        let (c, _, e) = run(&["kernel-source", "szx_encode", "--cuda", "--cubin", cubin.to_str().unwrap()]);
        assert_eq!(c, 1);
        assert!(e.contains("--features cuda"), "{e}");
        assert!(!cubin.exists());
    }
}

/// By default `bench` runs the generated smooth field and CESM TS tiled to --size (one
/// record each, told apart by "source"); without the real field's file it says so and
/// runs the smooth one; `--fields tiled` without it, or an unknown field, is an error.
#[test]
fn bench_runs_the_smooth_and_the_tiled_field_by_default() {
    let data = common::data_dir();
    let out = tmp("bench-fields.jsonl");
    let _ = std::fs::remove_file(&out);
    let base = ["bench", "--size", "3M", "--reps", "1", "--warmup", "0", "--backend", "cpu", "--presets", "szx"];
    let mut args = base.to_vec();
    args.extend(["--data-dir", data.to_str().unwrap(), "--json", out.to_str().unwrap()]);
    let (c, o, e) = run(&args);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("generated smooth") && o.contains("cesm_camfv_TS_10x192x288.f32 tiled x1"), "{o}");
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 2, "one record per field");
    assert!(recs[0]["source"].as_str().unwrap().starts_with("generated smooth"));
    assert_eq!(recs[1]["dims"], "288x192x10");
    // found through the default lookup (FZWGPU_DATA_DIR here) or not at all: a note
    let missing = tmp("no-such-data-dir");
    let o = bin().args(base).env("FZWGPU_DATA_DIR", &missing).output().unwrap();
    let (c, o, e) = (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("the tiled real field is skipped") && o.contains("generated smooth"), "{o}");
    // asked for (--data-dir, or --fields tiled) and missing: an error
    for extra in [vec!["--data-dir", missing.to_str().unwrap()], vec!["--fields", "tiled", "--data-dir", missing.to_str().unwrap()]] {
        let mut args = base.to_vec();
        args.extend(extra);
        let (c, _, e) = run(&args);
        assert!(c == 1 && e.contains("not found"), "{args:?}: {c} {e}");
    }
    // the same values as 1-D (native cuSZp's configuration)
    let out1 = tmp("bench-fields-1d.jsonl");
    let _ = std::fs::remove_file(&out1);
    let mut args = base.to_vec();
    args.extend(["--data-dir", data.to_str().unwrap(), "--fields", "tiled-1d", "--json", out1.to_str().unwrap()]);
    let (c, o, e) = run(&args);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("tiled x1 as 1-D"), "{o}");
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out1).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["dims"], "552960");
    let mut args = base.to_vec();
    args.extend(["--fields", "smooth,bogus"]);
    let (c, _, e) = run(&args);
    assert!(c == 1 && e.contains("bogus"), "{c} {e}");
    // --dtype f64: the generated fields are float64 (they were float32 whatever --dtype
    // said) and the tiled real field is widened; --size counts float64 bytes
    let out64 = tmp("bench-fields-f64.jsonl");
    let _ = std::fs::remove_file(&out64);
    let mut args = base.to_vec();
    args.extend(["--dtype", "f64", "--data-dir", data.to_str().unwrap(), "--json", out64.to_str().unwrap()]);
    let (c, o, e) = run(&args);
    assert_eq!(c, 0, "{e}");
    assert!(o.contains("float64") && o.contains("widened to float64 tiled x1"), "{o}");
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out64).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["dtype"], "float64", "{r}");
        assert_eq!(r["bound_ok"], true, "{r}");
    }
    assert_eq!(recs[0]["dims"], "8192x48", "3 MiB of float64");
    let mut args = base.to_vec();
    args.extend(["--dims", "100x10", "--dtype", "f64"]);
    let (c, o, e) = run(&args);
    assert!(c == 0 && o.contains("generated smooth 100x10 float64"), "{c} {o} {e}");
}

/// `fzwgpu compress` of `input` to `arch` with an absolute bound; must succeed.
fn compress_abs(input: &std::path::Path, arch: &std::path::Path, dims: &str, preset: &str, eb: &str, backend: &str) {
    let (i, a) = (input.to_str().unwrap(), arch.to_str().unwrap());
    let (c, _, e) =
        run(&["compress", "-i", i, "-o", a, "--dims", dims, "--preset", preset, "--eb", eb, "--mode", "abs", "--backend", backend]);
    assert_eq!(c, 0, "compress {preset} on {backend}: {e}");
}

#[test]
fn decompress_fusion_flag_chooses_the_decoder() {
    // a ragged 2-D field (41 values per row): force decodes it with chain_decode_ragged,
    // off with the staged kernels, auto with what the adapter prefers; same values
    let input = write_field("g.f32", 41 * 33);
    for backend in ["cpu", "wgpu"] {
        let arch = tmp(&format!("g-{backend}.fzm"));
        compress_abs(&input, &arch, "41x33", "szp_composed", "1e-3", backend);
        let mut outs = Vec::new();
        // through wgpu, FZWGPU_PROFILE names the kernels that ran
        for (fusion, kernel) in [("auto", "chain_scan_x"), ("force", "chain_decode_ragged"), ("off", "lorenzo_scan_x")] {
            let out = tmp(&format!("g-{backend}-{fusion}.out"));
            let o = bin()
                .args(["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", backend, "--fusion", fusion])
                .env("FZWGPU_PROFILE", "1")
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(0), "{backend} --fusion {fusion}: {e}");
            if backend == "wgpu" {
                assert!(e.contains(kernel), "{backend} --fusion {fusion}: no {kernel} in {e}");
            }
            outs.push(std::fs::read(&out).unwrap());
        }
        assert!(outs[0] == outs[1] && outs[0] == outs[2], "{backend}: the decoders disagree");
        let a = common::f32_from(&std::fs::read(&input).unwrap());
        assert_eq!(common::check_f32(&a, &common::f32_from(&outs[0]), 1e-3).1, 0);
    }
    // force on an archive without such a chain, an unknown policy
    let arch = tmp("g-szx.fzm");
    compress_abs(&input, &arch, "41x33", "szx", "1e-3", "cpu");
    let out = tmp("g-szx.out");
    let (c, _, e) =
        run(&["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", "cpu", "--fusion", "force"]);
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("no Quantizer -> Lorenzo -> AdaptiveBitpack chain"), "{e}");
    assert!(!out.exists(), "no output on error");
    let (c, _, e) =
        run(&["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", "cpu", "--fusion", "sometimes"]);
    assert_eq!(c, 1, "{e}");
    assert!(e.lines().count() == 1 && e.contains("sometimes"), "{e}");
}

#[test]
fn decompress_fusion_flag_applies_to_every_chunk_of_a_stream() {
    // a ragged 41x330 field in chunks of 8 rows (42 chunks): every way of decoding a
    // stream (whole, --range, --box, --chunk, from standard input) takes the policy
    let input = write_field("s.f32", 41 * 330);
    let a = common::f32_from(&std::fs::read(&input).unwrap());
    // streams of 8 rows per chunk
    let stream = |preset: &str, backend: &str| {
        let arch = tmp(&format!("s-{preset}.fzms"));
        let (i, o) = (input.to_str().unwrap(), arch.to_str().unwrap());
        let args = ["compress", "-i", i, "-o", o, "--dims", "41x330", "--preset", preset, "--eb", "1e-3", "--mode", "abs"];
        let (c, _, e) = run(&[&args[..], &["--chunk-size", "1312", "--backend", backend]].concat());
        assert_eq!(c, 0, "{preset}: {e}");
        arch
    };
    let arch = stream("szp_composed", "wgpu");
    let ways: [&[&str]; 4] = [&[], &["--range", "100:9000"], &["--box", "3:40,17:290"], &["--chunk", "7"]];
    for (w, extra) in ways.iter().enumerate() {
        let mut outs = Vec::new();
        for (fusion, kernel) in [("auto", "chain_scan_x"), ("force", "chain_decode_ragged"), ("off", "lorenzo_scan_x")] {
            let out = tmp(&format!("s-{w}-{fusion}.out"));
            let mut args = vec!["decompress", "-i", arch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", "wgpu"];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["--fusion", fusion]);
            let o = bin().args(&args).env("FZWGPU_PROFILE", "1").output().unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
            assert!(e.contains(kernel), "{args:?}: no {kernel} in {e}");
            outs.push(std::fs::read(&out).unwrap());
        }
        assert!(outs[0] == outs[1] && outs[0] == outs[2], "{extra:?}: the decoders disagree");
        // the expected values, cut from the input the same way
        let want: Vec<f32> = match w {
            0 => a.clone(),
            1 => a[100..9000].to_vec(),
            2 => (17..290).flat_map(|y| a[y * 41 + 3..y * 41 + 40].to_vec()).collect(),
            _ => a[7 * 8 * 41..8 * 8 * 41].to_vec(),
        };
        assert_eq!(common::check_f32(&want, &common::f32_from(&outs[0]), 1e-3).1, 0, "{extra:?}");
    }
    // from standard input, decoded in order
    let bytes = std::fs::read(&arch).unwrap();
    let mut outs = Vec::new();
    for (fusion, kernel) in [("auto", "chain_scan_x"), ("force", "chain_decode_ragged"), ("off", "lorenzo_scan_x")] {
        let out = tmp(&format!("s-pipe-{fusion}.out"));
        let mut c = bin()
            .args(["decompress", "-i", "-", "-o", out.to_str().unwrap(), "--backend", "wgpu", "--fusion", fusion])
            .env("FZWGPU_PROFILE", "1")
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&bytes).unwrap();
        }
        let o = c.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "stdin --fusion {fusion}: {e}");
        assert!(e.contains(kernel), "stdin --fusion {fusion}: no {kernel} in {e}");
        outs.push(std::fs::read(&out).unwrap());
    }
    assert!(outs[0] == outs[1] && outs[0] == outs[2], "stdin: the decoders disagree");
    assert_eq!(common::check_f32(&a, &common::f32_from(&outs[0]), 1e-3).1, 0);
    // force on a stream whose chunks hold no such chain: an error, no output
    let sarch = stream("szx", "cpu");
    let out = tmp("s-szx.out");
    let (c, _, e) =
        run(&["decompress", "-i", sarch.to_str().unwrap(), "-o", out.to_str().unwrap(), "--backend", "cpu", "--fusion", "force"]);
    assert_eq!(c, 1, "{e}");
    assert!(e.lines().count() == 1 && e.contains("no Quantizer -> Lorenzo -> AdaptiveBitpack chain"), "{e}");
    assert!(!out.exists(), "no output on error");
}

/// Output into a pipe whose reader has gone (`fzwgpu kernel-source K | head -1`) ends
/// the process quietly, as a SIGPIPE would (exit 141), not as an internal failure.
#[test]
fn a_closed_output_pipe_is_not_an_internal_failure() {
    use std::process::Stdio;
    // well past a pipe's buffer, so the writes meet the closed pipe whatever the timing
    let mut child = bin().args(["kernel-source", "chain_encode", "--cuda"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!e.contains("internal failure"), "{e}");
    assert_eq!(o.status.code(), Some(141), "{e}");
}

/// Raw stdout bytes of a run (`-o -`), with its exit code and stderr; `stdin`: bytes fed
/// to standard input.
fn run_bytes(args: &[&str], stdin: Option<&[u8]>) -> (i32, Vec<u8>, String) {
    use std::process::Stdio;
    let mut child = bin()
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(b) = stdin {
        let mut i = child.stdin.take().unwrap();
        let b = b.to_vec();
        // fed from a thread, so a large input and a large output cannot block each other
        std::thread::spawn(move || std::io::Write::write_all(&mut i, &b).unwrap());
    }
    let o = child.wait_with_output().unwrap();
    (o.status.code().unwrap_or(-1), o.stdout, String::from_utf8_lossy(&o.stderr).into())
}

/// `-o -` writes to standard output the same bytes as `-o FILE` would, for a single
/// archive and for a stream of chunks, compressing and decompressing (also a stream
/// read from standard input), and leaves no file named `-`.
#[test]
fn output_dash_is_standard_output() {
    let input = write_field("dash.f32", 120 * 50);
    let inp = input.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("fzwgpu-cli-dash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // one archive, then a stream of 8 KB chunks
    for (label, extra) in [("fzm", vec![]), ("fzms", vec!["--chunk-size", "8K"])] {
        let common_args = ["-i", inp, "--dims", "120x50", "--preset", "szp_composed", "--eb", "1e-3", "--backend", "cpu"];
        let arch = file(&format!("dash.{label}"));
        let mut args = vec!["compress", "-o", arch.as_str()];
        args.extend(common_args);
        args.extend(extra.iter().copied());
        let (c, _, e) = run(&args);
        assert_eq!(c, 0, "{e}");
        let mut args = vec!["compress", "-o", "-"];
        args.extend(common_args);
        args.extend(extra.iter().copied());
        let (c, piped, e) = run_bytes(&args, None);
        assert_eq!(c, 0, "{e}");
        assert!(piped == std::fs::read(&arch).unwrap(), "{label}: compress -o - differs from -o FILE");
        let out = file(&format!("dash-{label}.out"));
        let (c, _, e) = run(&["decompress", "-i", arch.as_str(), "-o", out.as_str(), "--backend", "cpu"]);
        assert_eq!(c, 0, "{e}");
        let want = std::fs::read(&out).unwrap();
        let (c, got, e) = run_bytes(&["decompress", "-i", arch.as_str(), "-o", "-", "--backend", "cpu"], None);
        assert_eq!(c, 0, "{e}");
        assert!(got == want, "{label}: decompress -o - differs from -o FILE");
        if label == "fzms" {
            let (c, got, e) = run_bytes(&["decompress", "-i", "-", "-o", "-", "--backend", "cpu"], Some(&piped));
            assert_eq!(c, 0, "{e}");
            assert!(got == want, "stream from standard input to standard output");
            let (c, got, e) = run_bytes(&["decompress", "-i", arch.as_str(), "-o", "-", "--range", "100:900", "--backend", "cpu"], None);
            assert_eq!(c, 0, "{e}");
            assert!(got == want[400..3600], "a range to standard output");
        }
    }
    // a failing run writes nothing to standard output and says why
    let (c, got, e) = run_bytes(&["decompress", "-i", inp, "-o", "-", "--backend", "cpu"], None);
    assert_eq!(c, 1, "{e}");
    assert!(got.is_empty() && e.starts_with("error: ") && e.lines().count() == 1, "{e}");
    assert!(!std::path::Path::new("-").exists() && !dir.join("-").exists());
}

/// Without XDG_RUNTIME_DIR (batch jobs, containers), Mesa's implicit Vulkan layer
/// VK_LAYER_MESA_device_select printed "error: XDG_RUNTIME_DIR is invalid or not set in
/// the environment." twice on every run (through libwayland) where mesa-vulkan-drivers
/// is installed, as in CI. The CLI turns that layer off unless the environment sets one
/// of its variables: a successful run prints no error line.
#[test]
fn a_successful_run_prints_no_error_line_without_xdg_runtime_dir() {
    let o = bin().arg("adapters").env_remove("XDG_RUNTIME_DIR").env_remove("NODEVICE_SELECT").output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    assert!(!e.contains("error"), "stderr of a successful run: {e}");
}

/// No adapter: `--backend wgpu` where the Vulkan loader finds no driver, or `--adapter`
/// matching none, is one typed error line naming what was searched (the WGPU_BACKEND
/// value, or that it is not set) and what to do; `--backend auto` falls back to cpu.
#[test]
fn a_missing_adapter_is_one_clear_error() {
    let input = write_field("noadapter.f32", 1000);
    let out = tmp("noadapter.fzm");
    let io = ["-i", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dims", "1000"];
    let none = |args: &[&str]| {
        let o = bin()
            .arg("compress")
            .args(io)
            .args(args)
            .env("WGPU_BACKEND", "vulkan")
            .env("VK_DRIVER_FILES", "/nonexistent/none.json")
            .env("VK_ICD_FILENAMES", "/nonexistent/none.json")
            .output()
            .unwrap();
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).to_string(), String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (c, _, e) = none(&["--backend", "wgpu"]);
    assert_eq!(c, 1, "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("no GPU adapter") && e.contains("WGPU_BACKEND=vulkan") && e.contains("--backend cpu"), "{e}");
    assert!(!out.exists());
    let (c, o, e) = none(&["--backend", "auto"]);
    assert!(c == 0 && e.contains("cpu on cpu"), "{c} {o} {e}");
    let _ = std::fs::remove_file(&out);
    let (c, _, e) = run(&["compress", io[0], io[1], io[2], io[3], io[4], io[5], "--backend", "wgpu", "--adapter", "no-such-gpu"]);
    assert!(c == 1 && e.contains("no adapter matches 'no-such-gpu' among ["), "{c} {e}");
    assert!(!out.exists());
}
