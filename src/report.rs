//! `fzwgpu report`: benchmark and evaluation records (the JSON objects that `bench
//! --json` and `eval --json` print, one per line; text before the first `{` of a line
//! is ignored, so logs such as docs/results/h200-validation.log read as they are) turned
//! (a validation-log prefix `"<preset> <field> ..."` names the field) into a Markdown summary and SVG plots: throughput per preset per adapter, and
//! rate–distortion (bits/value against PSNR) per preset per field.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One record, the fields the report uses.
#[derive(Debug, Clone)]
pub struct Record {
    pub preset: String,
    /// The field: `source` when the record has it, else dims and type.
    pub field: String,
    pub adapter: String,
    pub bits_per_value: Option<f64>,
    pub psnr_db: Option<f64>,
    pub ratio: Option<f64>,
    pub compress_kernel: Option<f64>,
    pub compress_e2e: Option<f64>,
    pub decompress_kernel: Option<f64>,
    pub decompress_e2e: Option<f64>,
    pub bound_ok: Option<bool>,
    /// From `bench` (throughput records) rather than `eval`.
    pub bench: bool,
    /// When the record was written (`unix_time`, seconds), if it says.
    pub time: Option<f64>,
}

fn num(v: &Value, k: &str) -> Option<f64> {
    match v.get(k)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == "inf" => Some(f64::INFINITY),
        _ => None,
    }
}

/// Parse every line holding a JSON object with a `preset`; returns the records and
/// the number of lines skipped (no object, or not a record).
pub fn parse(text: &str) -> (Vec<Record>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    for line in text.lines() {
        let Some(at) = line.find('{') else {
            if !line.trim().is_empty() {
                skipped += 1;
            }
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&line[at..]) else {
            skipped += 1;
            continue;
        };
        let Some(preset) = v.get("preset").and_then(Value::as_str) else {
            skipped += 1;
            continue;
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let field = match v.get("source").and_then(Value::as_str) {
            Some(src) => {
                let base = src.rsplit('/').next().unwrap_or(src);
                let base = base.strip_suffix(".f32").or_else(|| base.strip_suffix(".f64")).unwrap_or(base);
                // `bench`'s generated fields name their type already ("generated smooth
                // 8192x2048 float32"): not twice
                let dtype = s("dtype");
                if dtype.is_empty() || base.ends_with(&dtype) {
                    base.to_string()
                } else {
                    format!("{base} ({dtype})")
                }
            }
            // validation logs (docs/results/h200-validation.sh) prefix each record with
            // "<preset> <field> ..."; otherwise dims and type name the field
            None => match line[..at].split_whitespace().nth(1) {
                Some(name) => format!("{name} ({})", s("dtype")),
                None => format!("{} {}", s("dims"), s("dtype")),
            },
        };
        // bench runs with fusion other than the default are labelled as such
        let preset = match v.get("fusion").and_then(Value::as_str) {
            Some(f) if f != "auto" => format!("{preset} (fusion {f})"),
            _ => preset.to_string(),
        };
        // and so are runs with the look-back scan
        let preset = match v.get("scan").and_then(Value::as_str) {
            Some(m) if m != "reduce" => format!("{preset} (scan {m})"),
            _ => preset,
        };
        out.push(Record {
            preset,
            field,
            // the adapter, with the backend when it is not the default wgpu one (CUDA and
            // Vulkan records of one GPU share the adapter name)
            adapter: match (v.get("adapter").is_some(), s("backend").as_str()) {
                (false, _) => "?".into(),
                (true, "cuda") => format!("{} (cuda)", s("adapter")),
                (true, _) => s("adapter"),
            },
            bits_per_value: num(&v, "bits_per_value"),
            psnr_db: num(&v, "psnr_db"),
            ratio: num(&v, "ratio"),
            compress_kernel: num(&v, "compress_kernel_gbps"),
            compress_e2e: num(&v, "compress_e2e_gbps"),
            decompress_kernel: num(&v, "decompress_kernel_gbps"),
            decompress_e2e: num(&v, "decompress_e2e_gbps"),
            bound_ok: v.get("bound_ok").and_then(Value::as_bool),
            bench: v.get("reps").is_some(),
            time: num(&v, "unix_time"),
        });
    }
    (out, skipped)
}

fn f(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.prec$}"),
        Some(_) => "inf".into(),
        None => "-".into(),
    }
}

/// The Markdown summary and the SVG plots (file name, contents).
pub struct Report {
    pub markdown: String,
    pub svgs: Vec<(String, String)>,
}

/// File-name-safe form of a label.
pub fn slug(s: &str) -> String {
    let mut o: String = s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    while o.contains("--") {
        o = o.replace("--", "-");
    }
    o.trim_matches('-').to_string()
}

pub fn render(records: &[Record]) -> Report {
    let mut md = String::new();
    let mut svgs = Vec::new();
    let _ = writeln!(md, "# fzwgpu report\n\n{} records.\n", records.len());
    // throughput: bench records, one row per (adapter, field, preset): the newest record
    // where both say when they were written, else the later one in the input
    let bench: Vec<&Record> = records.iter().filter(|r| r.bench).collect();
    if !bench.is_empty() {
        let mut rows: BTreeMap<(String, String, String), &Record> = BTreeMap::new();
        for r in &bench {
            let key = (r.adapter.clone(), r.field.clone(), r.preset.clone());
            let older = matches!((rows.get(&key).and_then(|e| e.time), r.time), (Some(a), Some(b)) if b < a);
            if !older {
                rows.insert(key, r);
            }
        }
        let _ = writeln!(md, "## Throughput (GB/s of input)\n");
        let _ = writeln!(
            md,
            "| adapter | field | preset | ratio | compress kernel | compress e2e | decompress kernel | decompress e2e | bound |"
        );
        let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---:|---|");
        for ((a, fld, p), r) in &rows {
            let _ = writeln!(
                md,
                "| {a} | {fld} | {p} | {} | {} | {} | {} | {} | {} |",
                f(r.ratio, 2),
                f(r.compress_kernel, 1),
                f(r.compress_e2e, 2),
                f(r.decompress_kernel, 1),
                f(r.decompress_e2e, 2),
                match r.bound_ok {
                    Some(true) => "ok",
                    Some(false) => "VIOLATED",
                    None => "-",
                }
            );
        }
        // one bar chart per field: presets x adapters, compress and decompress kernel
        let mut by_field: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
        for r in rows.values() {
            by_field.entry(r.field.clone()).or_default().push(r);
        }
        for (fld, rs) in by_field {
            let name = format!("throughput-{}.svg", slug(&fld));
            let _ = writeln!(md, "\n![throughput on {fld}]({name})");
            svgs.push((name, throughput_svg(&fld, &rs)));
        }
    }
    // rate-distortion: records with bits/value and a finite PSNR, per field
    let mut rd: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for r in records {
        if let (Some(b), Some(p)) = (r.bits_per_value, r.psnr_db) {
            if b.is_finite() && p.is_finite() {
                rd.entry(r.field.clone()).or_default().entry(r.preset.clone()).or_default().push((b, p));
            }
        }
    }
    if !rd.is_empty() {
        let _ = writeln!(md, "\n## Rate-distortion (bits/value, PSNR dB)\n");
        let _ = writeln!(md, "| field | preset | points (bits/value : PSNR) |");
        let _ = writeln!(md, "|---|---|---|");
        for (fld, presets) in &mut rd {
            for (p, pts) in presets.iter_mut() {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                pts.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
                let list: Vec<String> = pts.iter().map(|(b, q)| format!("{b:.2} : {q:.1}")).collect();
                let _ = writeln!(md, "| {fld} | {p} | {} |", list.join(", "));
            }
        }
        for (fld, presets) in &rd {
            let name = format!("rd-{}.svg", slug(fld));
            let _ = writeln!(md, "\n![rate-distortion on {fld}]({name})");
            svgs.push((name, rd_svg(fld, presets)));
        }
    }
    Report { markdown: md, svgs }
}

const COLORS: [&str; 8] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Grouped horizontal bars: one group per (preset, adapter), bars for compress and
/// decompress kernel GB/s on a log axis (throughputs span decades).
fn throughput_svg(field: &str, rs: &[&Record]) -> String {
    let rows: Vec<(String, f64, f64)> = rs
        .iter()
        .map(|r| (format!("{} | {}", r.preset, r.adapter), r.compress_kernel.unwrap_or(0.0), r.decompress_kernel.unwrap_or(0.0)))
        .collect();
    let maxv = rows.iter().flat_map(|r| [r.1, r.2]).fold(1.0f64, f64::max);
    let lo = rows.iter().flat_map(|r| [r.1, r.2]).filter(|&v| v > 0.0).fold(maxv, f64::min).min(1.0);
    let (l0, l1) = (lo.log10().floor(), maxv.log10().ceil().max(lo.log10().floor() + 1.0));
    let (left, width, bar, gap) = (260.0, 520.0, 12.0, 10.0);
    let h = 60.0 + rows.len() as f64 * (2.0 * bar + gap) + 40.0;
    let x = |v: f64| left + if v <= 0.0 { 0.0 } else { ((v.log10() - l0) / (l1 - l0)).clamp(0.0, 1.0) * width };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{h}" font-family="sans-serif" font-size="11">"#,
        left + width + 40.0
    );
    let _ = writeln!(s, r#"<text x="10" y="20" font-size="14">Kernel throughput, GB/s of input (log scale): {}</text>"#, esc(field));
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="30" width="10" height="10" fill="{}"/><text x="{}" y="39">compress</text>"#,
        COLORS[0],
        left + 14.0
    );
    let _ = writeln!(
        s,
        r#"<rect x="{}" y="30" width="10" height="10" fill="{}"/><text x="{}" y="39">decompress</text>"#,
        left + 90.0,
        COLORS[1],
        left + 104.0
    );
    let mut d = l0;
    while d <= l1 {
        let xv = x(10f64.powf(d));
        let _ = writeln!(
            s,
            r##"<line x1="{xv}" y1="50" x2="{xv}" y2="{}" stroke="#ccc"/><text x="{xv}" y="{}" text-anchor="middle">{}</text>"##,
            h - 30.0,
            h - 15.0,
            10f64.powf(d)
        );
        d += 1.0;
    }
    for (i, (label, c, dk)) in rows.iter().enumerate() {
        let y = 55.0 + i as f64 * (2.0 * bar + gap);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, left - 6.0, y + bar + 4.0, esc(label));
        for (k, v) in [*c, *dk].into_iter().enumerate() {
            let yy = y + k as f64 * bar;
            let _ = writeln!(s, r#"<rect x="{left}" y="{yy}" width="{:.1}" height="{}" fill="{}"/>"#, x(v) - left, bar - 1.0, COLORS[k]);
            let _ = writeln!(s, r#"<text x="{:.1}" y="{}">{:.1}</text>"#, x(v) + 3.0, yy + bar - 2.0, v);
        }
    }
    s.push_str("</svg>\n");
    s
}

/// PSNR against bits/value, one polyline per preset.
fn rd_svg(field: &str, presets: &BTreeMap<String, Vec<(f64, f64)>>) -> String {
    let pts: Vec<(f64, f64)> = presets.values().flatten().copied().collect();
    let (bmax, pmin, pmax) = pts.iter().fold((0.0f64, f64::MAX, f64::MIN), |a, p| (a.0.max(p.0), a.1.min(p.1), a.2.max(p.1)));
    let bmax = (bmax * 1.1).max(1.0);
    let (pmin, pmax) = ((pmin / 10.0).floor() * 10.0, ((pmax / 10.0).ceil() * 10.0).max(pmin + 10.0));
    let (left, top, w, h) = (60.0, 40.0, 520.0, 320.0);
    let x = |b: f64| left + b / bmax * w;
    let y = |p: f64| top + h - (p - pmin) / (pmax - pmin) * h;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="11">"#,
        left + w + 170.0,
        top + h + 50.0
    );
    let _ = writeln!(s, r#"<text x="10" y="20" font-size="14">Rate-distortion: {}</text>"#, esc(field));
    let _ = writeln!(s, r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#333"/>"##);
    for k in 0..=5 {
        let b = bmax * k as f64 / 5.0;
        let _ = writeln!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle">{b:.1}</text>"#, x(b), top + h + 15.0);
        let p = pmin + (pmax - pmin) * k as f64 / 5.0;
        let _ = writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{p:.0}</text>"#, left - 5.0, y(p) + 4.0);
    }
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">bits / value</text>"#, left + w / 2.0, top + h + 35.0);
    let _ = writeln!(
        s,
        r#"<text x="15" y="{}" transform="rotate(-90 15 {})" text-anchor="middle">PSNR (dB)</text>"#,
        top + h / 2.0,
        top + h / 2.0
    );
    for (i, (preset, pts)) in presets.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let line: Vec<String> = pts.iter().map(|(b, p)| format!("{:.1},{:.1}", x(*b), y(*p))).collect();
        let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#, line.join(" "));
        for (b, p) in pts {
            let _ = writeln!(s, r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"/>"#, x(*b), y(*p));
        }
        let ly = top + 10.0 + i as f64 * 16.0;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="10" height="10" fill="{c}"/><text x="{}" y="{}">{}</text>"#,
            left + w + 10.0,
            ly,
            left + w + 24.0,
            ly + 9.0,
            esc(preset)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bench_and_eval_lines_and_renders() {
        let text = r#"
szx f rel=1e-2 f32 {"preset":"szx","dims":"8x8x1","dtype":"float32","bits_per_value":4.0,"psnr_db":50.0,"ratio":8.0,"adapter":"A","bound_ok":true}
szx f rel=1e-3 f32 {"preset":"szx","dims":"8x8x1","dtype":"float32","bits_per_value":6.0,"psnr_db":"inf","ratio":5.3,"adapter":"A"}
{"preset":"szx","source":"x/cesm.f32","dims":"8x8x1","dtype":"float32","ratio":8.0,"compress_kernel_gbps":274.0,"decompress_kernel_gbps":1483.0,"compress_e2e_gbps":1.5,"decompress_e2e_gbps":0.6,"reps":5,"adapter":"H200","bound_ok":true,"bits_per_value":4.0,"psnr_db":60.0}
not json
"#;
        let (rs, skipped) = parse(text);
        assert_eq!(rs.len(), 3);
        assert_eq!(skipped, 1);
        assert_eq!(rs[2].field, "cesm (float32)");
        assert_eq!(rs[0].field, "f (float32)");
        assert!(rs[2].bench && !rs[0].bench);
        assert_eq!(rs[1].psnr_db, Some(f64::INFINITY));
        let r = render(&rs);
        assert!(r.markdown.contains("| H200 | cesm (float32) | szx | 8.00 | 274.0 | 1.50 | 1483.0 | 0.60 | ok |"), "{}", r.markdown);
        // the newest of two timed records wins whatever their order; untimed: the last
        let timed = r#"
{"preset":"szx","source":"x/a.f32","dtype":"float32","ratio":8.0,"compress_kernel_gbps":300.0,"reps":3,"adapter":"H200","unix_time":2000}
{"preset":"szx","source":"x/a.f32","dtype":"float32","ratio":8.0,"compress_kernel_gbps":100.0,"reps":3,"adapter":"H200","unix_time":1000}
{"preset":"szp","source":"x/a.f32","dtype":"float32","ratio":4.0,"compress_kernel_gbps":50.0,"reps":3,"adapter":"H200"}
{"preset":"szp","source":"x/a.f32","dtype":"float32","ratio":4.0,"compress_kernel_gbps":60.0,"reps":3,"adapter":"H200"}
"#;
        let md = render(&parse(timed).0).markdown;
        assert!(md.contains("| szx | 8.00 | 300.0 |") && !md.contains("100.0"), "{md}");
        assert!(md.contains("| szp | 4.00 | 60.0 |"), "{md}");
        // bench's generated fields carry their type in the name: it is not repeated
        let gen = r#"{"preset":"szx","source":"generated smooth 8192x2048 float32","dtype":"float32","ratio":8.0,"reps":3,"adapter":"A"}"#;
        let g = parse(gen).0;
        assert_eq!(g[0].field, "generated smooth 8192x2048 float32");
        assert!(render(&g).svgs.iter().all(|(n, _)| !n.contains("float32-float32")));
        assert!(r.markdown.contains("4.00 : 50.0"));
        assert_eq!(r.svgs.len(), 3, "{:?}", r.svgs.iter().map(|s| &s.0).collect::<Vec<_>>());
        for (_, svg) in &r.svgs {
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            assert!(!svg.contains("NaN"));
        }
    }
}
