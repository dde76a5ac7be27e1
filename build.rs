//! Embeds every file under shaders/ (the kernel registry looks them up by relative
//! path), so adding a shader never needs a hand-kept list.
use std::fmt::Write as _;
use std::path::Path;

fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("shaders/").flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, root, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("wgsl") {
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    println!("cargo:rerun-if-changed=shaders");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    let mut src = String::from("/// Every shader file, by path relative to shaders/.\npub const SHADER_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        let _ = writeln!(src, "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/shaders/{f}\"))),");
    }
    src.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("shaders.rs");
    std::fs::write(out, src).unwrap();
}
