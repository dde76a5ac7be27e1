//! The `FZWGPU_*` environment variables: one table of every name fzwgpu reads, what
//! each accepts, and one parser per variable that the reading code calls.
//!
//! Every backend calls [`check`] when it is created, so a misspelt name
//! (`FZWGPU_MEMORYLIMIT`) or value (`FZWGPU_MEMORY_LIMIT=512MB`, `FZWGPU_SCAN=lookbak`)
//! is a typed configuration error there instead of silently meaning the default. The
//! readers run after that check; where they cannot return an error they fall back to
//! the default, which [`check`] has already ruled out as a silent outcome.

use crate::error::{Error, Result};

/// What a variable accepts.
#[derive(Clone, Copy, Debug)]
enum Accepts {
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A size such as `512M`, `4G` or a byte count ([`crate::types::parse_size`]).
    Size,
    /// A positive integer.
    Positive,
    /// A non-negative integer.
    Index,
    /// A CUDA architecture such as `sm_90`.
    Arch,
    /// A comma-separated subset of these words.
    Subset(&'static [&'static str]),
    /// Any value (a path, or a switch that is on when set).
    Any,
}

impl Accepts {
    fn ok(self, v: &str) -> bool {
        match self {
            Accepts::Choice(words) => words.contains(&v),
            Accepts::Size => crate::types::parse_size(v).is_ok(),
            Accepts::Positive => v.parse::<u64>().is_ok_and(|n| n > 0),
            Accepts::Index => v.parse::<u64>().is_ok(),
            Accepts::Arch => v.strip_prefix("sm_").is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_alphanumeric())),
            Accepts::Subset(words) => v.split(',').map(str::trim).all(|w| w.is_empty() || words.contains(&w.to_lowercase().as_str())),
            Accepts::Any => true,
        }
    }

    fn describe(self) -> String {
        match self {
            Accepts::Choice(words) => words.join(" | "),
            Accepts::Size => "a size such as 512M or 4G".into(),
            Accepts::Positive => "a positive integer".into(),
            Accepts::Index => "a non-negative integer".into(),
            Accepts::Arch => "a CUDA architecture such as sm_90".into(),
            Accepts::Subset(words) => format!("a comma-separated list of {}", words.join(", ")),
            Accepts::Any => "any value".into(),
        }
    }
}

const ON_OFF: &[&str] = &["on", "off", "1", "0"];

/// Every `FZWGPU_*` variable: name, what it accepts, what it does (README.md lists the
/// user-facing ones).
const VARS: &[(&str, Accepts, &str)] = &[
    ("FZWGPU_MEMORY_LIMIT", Accepts::Size, "cap on the device memory of fzwgpu's buffers"),
    ("FZWGPU_DISABLE", Accepts::Subset(&["f64", "subgroup"]), "adapter features not to use"),
    ("FZWGPU_SCAN", Accepts::Choice(&["reduce", "lookback"]), "device-wide offset scan"),
    ("FZWGPU_POOL", Accepts::Choice(ON_OFF), "keep released device buffers for reuse"),
    ("FZWGPU_HUGEPAGES", Accepts::Choice(ON_OFF), "ask for transparent huge pages for large host buffers (default off)"),
    (
        "FZWGPU_UPLOAD_STAGING",
        Accepts::Choice(&["host", "mapped"]),
        "Vulkan upload staging: buffers in host memory (host, the default where the driver offers such memory) or wgpu's mapped buffers (mapped; measurements)",
    ),
    (
        "FZWGPU_HOST_IMPORT",
        Accepts::Choice(ON_OFF),
        "direct transfers: large uploads and readbacks copy straight from and into the caller's memory (Vulkan: VK_EXT_external_memory_host; CUDA: cuMemHostRegister) instead of staging (default off)",
    ),
    ("FZWGPU_IMPORT_PIECE", Accepts::Size, "direct transfers' import piece, a multiple of 64K up to 1G (default 64M; measurements)"),
    ("FZWGPU_UPLOAD_CHUNK", Accepts::Size, "upload staging buffer size (wgpu and CUDA), a multiple of 64K from 1M to 1G (default 32M; measurements)"),
    ("FZWGPU_UPLOAD_BUFFERS", Accepts::Positive, "upload staging buffers used in turn (wgpu and CUDA), 2-8 (default 2; measurements)"),
    ("FZWGPU_DOWNLOAD_CHUNK", Accepts::Size, "readback staging buffer size (wgpu and CUDA), a multiple of 64K from 1M to 1G (default 32M; CUDA 8M; measurements)"),
    ("FZWGPU_DOWNLOAD_BUFFERS", Accepts::Positive, "readback staging buffers used in turn (wgpu and CUDA), 2-8 (default 2; CUDA 4; measurements)"),
    (
        "FZWGPU_STREAM_COPY",
        Accepts::Choice(&["auto", "on", "off", "1", "0"]),
        "the staged transfers' host copies store with non-temporal instructions (x86_64): auto (the default: readbacks, and uploads up to 256 MiB), on, off (measurements)",
    ),
    (
        "FZWGPU_HASH_ON_UPLOAD",
        Accepts::Choice(ON_OFF),
        "decompression hashes the archive's payload in the upload's copy threads (on, the GPU backends' default) or on a thread beside the upload (off; measurements)",
    ),
    (
        "FZWGPU_OVERLAP",
        Accepts::Choice(&["on", "upload", "off"]),
        "overlapped transfers for one-SZx-stage pipelines (default off: slower on an H100; upload: compression reads back at the end)",
    ),
    ("FZWGPU_OVERLAP_CHUNK", Accepts::Size, "overlapped compression's chunk of the field (default 64M; measurements)"),
    ("FZWGPU_OVERLAP_TRACE", Accepts::Any, "print overlapped runs' per-chunk timeline to stderr (diagnostic)"),
    ("FZWGPU_TRANSFER_TRACE", Accepts::Any, "print each staged CUDA transfer's fills (waits and host copies) to stderr (diagnostic)"),
    ("FZWGPU_PROFILE", Accepts::Any, "time every dispatch (diagnostic)"),
    ("FZWGPU_SHADER_CHECKS", Accepts::Choice(&["full", "noloop", "nobounds"]), "wgpu shader runtime checks (diagnostic)"),
    ("FZWGPU_WG_ZERO_INIT", Accepts::Choice(ON_OFF), "zero workgroup memory before each workgroup (default off; measurements)"),
    ("FZWGPU_COALESCE", Accepts::Choice(&["1", "0"]), "coalesced kernel variants (diagnostic)"),
    ("FZWGPU_CHAIN_ENCODE", Accepts::Choice(ON_OFF), "fused chain compression kernels"),
    ("FZWGPU_CHAIN_DECODE", Accepts::Choice(ON_OFF), "fused chain decompression kernel"),
    ("FZWGPU_CHAIN_SCAN", Accepts::Choice(ON_OFF), "line-parallel fused chain inverse for 2-D/3-D fields"),
    (
        "FZWGPU_CHAIN_PLANES",
        Accepts::Choice(ON_OFF),
        "3-D fused chain inverse with x-y sums of every plane in one pass (chain_decode_planes): on wherever it fits, off never",
    ),
    (
        "FZWGPU_DECODE_1D",
        Accepts::Choice(ON_OFF),
        "1-D chain inverses by chain_decode_1d (on) or the walking chain_decode (off); default per backend (measurements)",
    ),
    ("FZWGPU_CHAIN_WALK", Accepts::Positive, "rows walked per chain_encode invocation (measurements)"),
    ("FZWGPU_ENCODE_GROUPS", Accepts::Index, "szx_encode's workgroup cap, 0 for none: one team per block (measurements)"),
    ("FZWGPU_SZX_TEAM8", Accepts::Choice(ON_OFF), "szx_encode8 for float32 blocks of 128 (default on; off: szx_encode)"),
    ("FZWGPU_SZX_LOOKBACK", Accepts::Choice(ON_OFF), "szx_encode8 in one pass with a look-back (szx_encode8_lookback; off: encode, scan, compact)"),
    ("FZWGPU_CACHE_DIR", Accepts::Any, "CUDA kernel cache folder"),
    ("FZWGPU_CUDA_DEVICE", Accepts::Index, "CUDA device ordinal"),
    ("FZWGPU_CUDA_ARCH", Accepts::Arch, "CUDA architecture for kernel-source --cubin"),
    ("FZWGPU_CUDA_CHECKS", Accepts::Choice(&["on", "clamp", "off"]), "CUDA bounds checks (diagnostic)"),
    ("FZWGPU_CUDA_MINBLOCKS", Accepts::Positive, "CUDA launch bounds (measurements)"),
    ("FZWGPU_CUDA_LINEINFO", Accepts::Choice(ON_OFF), "NVRTC -lineinfo for source-level profiles (diagnostic)"),
    // read by the test harness, not the library
    ("FZWGPU_TEST_BACKEND", Accepts::Choice(&["wgpu", "cuda"]), "tests: device backend under test"),
    ("FZWGPU_TEST_NATIVE_GPU", Accepts::Any, "tests: also run the native-GPU tests"),
    ("FZWGPU_DATA_DIR", Accepts::Any, "tests and `bench`'s tiled field: the real fields' folder"),
    ("FZWGPU_BIN", Accepts::Any, "tests: the CLI binary"),
    ("FZWGPU_BLESS", Accepts::Any, "tests: rewrite the golden archives"),
];

/// The value of `name` (one of [`VARS`]) if it is set, or an error naming what it
/// accepts if the value is not one of those (or if fzwgpu does not read `name`).
pub fn get(name: &str) -> Result<Option<String>> {
    let Some(&(n, accepts, _)) = VARS.iter().find(|(n, _, _)| *n == name) else {
        return Err(Error::config(format!("{name} is not an environment variable fzwgpu reads")));
    };
    match std::env::var(n) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::config(format!("{n} is not valid UTF-8"))),
        Ok(v) if accepts.ok(&v) => Ok(Some(v)),
        Ok(v) => Err(Error::config(format!("{n}={v:?}: expected {}", accepts.describe()))),
    }
}

/// An on/off variable: `Some(true)` for on/1, `Some(false)` for off/0, None if unset.
pub(crate) fn switch(name: &str) -> Result<Option<bool>> {
    Ok(get(name)?.map(|v| v == "on" || v == "1"))
}

/// A numeric variable (positive or index), None if unset.
pub(crate) fn number(name: &str) -> Result<Option<u64>> {
    get(name)?.map(|v| v.parse::<u64>().map_err(|_| Error::config(format!("{name}={v:?} is not a number")))).transpose()
}

/// A process-wide setting: an override set through the API (tests, benchmarks, the
/// CLI's flags) over what `read` gives (an environment variable, else its default).
/// `FZWGPU_SCAN` and `FZWGPU_SZX_LOOKBACK` are two.
pub(crate) struct Setting<T: Copy + 'static> {
    over: std::sync::RwLock<Option<T>>,
    read: fn() -> T,
}

impl<T: Copy + 'static> Setting<T> {
    pub(crate) const fn new(read: fn() -> T) -> Self {
        Setting { over: std::sync::RwLock::new(None), read }
    }

    /// The override if one is set, else `read`'s value.
    pub(crate) fn get(&self) -> T {
        let over = *self.over.read().unwrap_or_else(|e| e.into_inner());
        over.unwrap_or_else(self.read)
    }

    /// Sets the override; None: back to `read`.
    pub(crate) fn set(&self, v: Option<T>) {
        *self.over.write().unwrap_or_else(|e| e.into_inner()) = v;
    }
}

/// Checks every `FZWGPU_*` variable of the environment: an unknown name, or a value a
/// known name does not accept, is `Error::Config`.
pub fn check() -> Result<()> {
    for (k, _) in std::env::vars_os() {
        let Some(k) = k.to_str() else { continue };
        if !k.starts_with("FZWGPU_") {
            continue;
        }
        match VARS.iter().find(|(n, _, _)| *n == k) {
            None => {
                let known: Vec<&str> = VARS.iter().map(|(n, _, _)| *n).collect();
                return Err(Error::config(format!("unknown environment variable {k} (fzwgpu reads {})", known.join(", "))));
            }
            // paths and switches: any value, not necessarily UTF-8
            Some((_, Accepts::Any, _)) => {}
            Some(_) => {
                get(k)?;
            }
        }
    }
    Ok(())
}

/// Every variable with what it accepts and what it does (for `--help`-style listings).
pub fn describe() -> Vec<(&'static str, String, &'static str)> {
    VARS.iter().map(|(n, a, what)| (*n, a.describe(), *what)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> (&'static str, Accepts, &'static str) {
        *VARS.iter().find(|(n, _, _)| *n == name).unwrap_or_else(|| panic!("{name} is not in envcfg::VARS"))
    }

    #[test]
    fn a_setting_prefers_its_override() {
        static S: Setting<u32> = Setting::new(|| 7);
        assert_eq!(S.get(), 7);
        S.set(Some(3));
        assert_eq!(S.get(), 3);
        S.set(None);
        assert_eq!(S.get(), 7);
    }

    #[test]
    fn accepts_what_each_variable_takes() {
        assert!(Accepts::Size.ok("512M") && !Accepts::Size.ok("512MB") && !Accepts::Size.ok(""));
        assert!(Accepts::Positive.ok("4096") && !Accepts::Positive.ok("0") && !Accepts::Positive.ok("-1"));
        assert!(Accepts::Arch.ok("sm_90") && Accepts::Arch.ok("sm_90a") && !Accepts::Arch.ok("90") && !Accepts::Arch.ok("sm_"));
        let s = Accepts::Subset(&["f64", "subgroup"]);
        assert!(s.ok("f64") && s.ok("F64,subgroup") && s.ok("") && !s.ok("f64,fp16"));
        let c = entry("FZWGPU_SCAN").1;
        assert!(c.ok("lookback") && !c.ok("lookbak") && !c.ok("LOOKBACK"));
        assert!(entry("FZWGPU_SHADER_CHECKS").1.ok("noloop"));
        assert!(get("FZWGPU_NOT_A_VARIABLE").is_err(), "a name outside the table is an error, not a panic");
    }

    #[test]
    fn every_variable_the_crate_reads_is_in_the_table() {
        // no source file under src/, tests/ or benches/ names a FZWGPU_ variable the
        // table lacks, but for the wrong names this file and the cli test use on purpose
        const MISSPELT: &[&str] = &["FZWGPU_MEMORYLIMIT", "FZWGPU_NOT_A_VARIABLE"];
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs" || x == "cuh") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        // the checkout this test was built in, else (a test binary carried to another
        // machine, run from a copy of the checkout) the current folder
        let built = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let root = if built.join("src/envcfg.rs").exists() { built } else { std::env::current_dir().unwrap() };
        assert!(root.join("src/envcfg.rs").exists(), "no checkout at {} or here", env!("CARGO_MANIFEST_DIR"));
        for d in ["src", "tests", "benches"] {
            walk(&root.join(d), &mut files);
        }
        assert!(files.len() > 20, "found only {} source files", files.len());
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            for (i, _) in src.match_indices("FZWGPU_") {
                let name: String = src[i..].chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_').collect();
                // "FZWGPU_*" in prose names the family
                if name == "FZWGPU_" || MISSPELT.contains(&name.as_str()) {
                    continue;
                }
                assert!(VARS.iter().any(|(n, _, _)| *n == name), "{}: {name} is not in envcfg::VARS", f.display());
            }
        }
    }
}
