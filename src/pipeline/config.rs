//! TOML configs (REFERENCE.md schema). Unknown keys and stage types are rejected by
//! name.
//!
//! ```toml
//! [pipeline]
//! dims = [3600, 1800, 1]          # x fastest (optional)
//! memory_strategy = "PREALLOCATE" # or "MINIMAL"
//! pool_multiplier = 3.0
//! primary_source = "szx"          # optional
//! max_chunk_bytes = 134217728     # optional, fzwgpu extension
//!
//! [[stage]]
//! name = "szx"
//! type = "SZx"
//! inputs = [{ from = "__external__" }]   # or { from = "quant", port = "codes" }
//! # ... stage keys
//! ```

use crate::error::{Error, Result};
use crate::pipeline::Pipeline;
use crate::types::Dims;

/// A TOML table whose keys must all be consumed: leftovers are an error naming them.
pub struct Keys {
    ctx: String,
    table: toml::Table,
}

impl Keys {
    pub fn new(ctx: &str, table: toml::Table) -> Self {
        Keys { ctx: ctx.to_string(), table }
    }
    fn take(&mut self, k: &str) -> Option<toml::Value> {
        self.table.remove(k)
    }
    pub fn str(&mut self, k: &str) -> Result<Option<String>> {
        match self.take(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(Error::config(format!("{}: '{k}' must be a string, got {v}", self.ctx))),
        }
    }
    pub fn int(&mut self, k: &str) -> Result<Option<i64>> {
        match self.take(k) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) => Ok(Some(i)),
            Some(v) => Err(Error::config(format!("{}: '{k}' must be an integer, got {v}", self.ctx))),
        }
    }
    pub fn float(&mut self, k: &str) -> Result<Option<f64>> {
        match self.take(k) {
            None => Ok(None),
            Some(toml::Value::Float(f)) => Ok(Some(f)),
            Some(toml::Value::Integer(i)) => Ok(Some(i as f64)),
            Some(v) => Err(Error::config(format!("{}: '{k}' must be a number, got {v}", self.ctx))),
        }
    }
    pub fn bool(&mut self, k: &str) -> Result<Option<bool>> {
        match self.take(k) {
            None => Ok(None),
            Some(toml::Value::Boolean(b)) => Ok(Some(b)),
            Some(v) => Err(Error::config(format!("{}: '{k}' must be true or false, got {v}", self.ctx))),
        }
    }
    pub fn value(&mut self, k: &str) -> Option<toml::Value> {
        self.take(k)
    }
    /// Error if any key was not consumed.
    pub fn finish(self) -> Result<()> {
        if !self.table.is_empty() {
            let all: Vec<&String> = self.table.keys().collect();
            return Err(Error::config(format!(
                "{}: unknown key{} {}",
                self.ctx,
                if all.len() > 1 { "s" } else { "" },
                all.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(())
    }
}

/// Memory strategy of the original (kept for config compatibility; fzwgpu always
/// pools buffers and releases them at the end of each run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryStrategy {
    #[default]
    Preallocate,
    Minimal,
}

/// The embedded presets, by name.
pub const PRESETS: &[(&str, &str)] = &[
    ("szx", include_str!("../../presets/szx.toml")),
    ("szp_composed", include_str!("../../presets/szp_composed.toml")),
    ("szp_centered", include_str!("../../presets/szp_centered.toml")),
    ("szp", include_str!("../../presets/szp.toml")),
    ("sperr_gpu", include_str!("../../presets/sperr_gpu.toml")),
];

/// The TOML text of a built-in preset.
pub fn preset(name: &str) -> Result<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s).ok_or_else(|| {
        Error::config(format!("unknown preset '{name}' (built-in: {})", PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")))
    })
}

/// Build a pipeline from TOML text.
pub fn parse(text: &str) -> Result<Pipeline> {
    let root: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::config(format!("TOML: {}", e.message())))?;
    let mut root = Keys::new("config", root);
    let mut p = Pipeline::new();
    let mut primary: Option<String> = None;
    if let Some(v) = root.value("pipeline") {
        let toml::Value::Table(t) = v else {
            return Err(Error::config("[pipeline] must be a table"));
        };
        let mut t = Keys::new("[pipeline]", t);
        if let Some(d) = t.value("dims") {
            let toml::Value::Array(a) = d else {
                return Err(Error::config("[pipeline] dims must be an array of 1 to 3 integers"));
            };
            let mut v = Vec::new();
            for x in a {
                match x {
                    toml::Value::Integer(i) if i > 0 => v.push(i as u64),
                    other => return Err(Error::config(format!("[pipeline] dims: {other} is not a positive integer"))),
                }
            }
            if v.is_empty() || v.len() > 3 {
                return Err(Error::config("[pipeline] dims must have 1 to 3 entries"));
            }
            p.set_dims(Dims::new(v[0], v.get(1).copied().unwrap_or(1), v.get(2).copied().unwrap_or(1))?);
        }
        if let Some(m) = t.str("memory_strategy")? {
            p.memory_strategy = match m.as_str() {
                "PREALLOCATE" => MemoryStrategy::Preallocate,
                "MINIMAL" => MemoryStrategy::Minimal,
                other => return Err(Error::config(format!("[pipeline] memory_strategy '{other}' (PREALLOCATE or MINIMAL)"))),
            };
        }
        if let Some(m) = t.float("pool_multiplier")? {
            if !(m.is_finite() && m > 0.0) {
                return Err(Error::config(format!("[pipeline] pool_multiplier {m} must be > 0")));
            }
            p.pool_multiplier = m;
        }
        primary = t.str("primary_source")?;
        if let Some(f) = t.str("fusion")? {
            p.options.fusion = f.parse()?;
        }
        if let Some(c) = t.int("max_chunk_bytes")? {
            if c <= 0 {
                return Err(Error::config("[pipeline] max_chunk_bytes must be > 0"));
            }
            p.options.max_chunk_bytes = Some(c as u64);
        }
        t.finish()?;
    }
    let stages = match root.value("stage") {
        Some(toml::Value::Array(a)) => a,
        Some(_) => return Err(Error::config("'stage' must be an array of tables ([[stage]])")),
        None => return Err(Error::config("no [[stage]] in config")),
    };
    root.finish()?;
    // first pass: create stages; second pass: connect
    let mut wiring = Vec::new();
    for (i, s) in stages.into_iter().enumerate() {
        let toml::Value::Table(t) = s else {
            return Err(Error::config(format!("stage #{i} is not a table")));
        };
        let mut t = Keys::new(&format!("stage #{i}"), t);
        let name = t.str("name")?.ok_or_else(|| Error::config(format!("stage #{i}: missing 'name'")))?;
        let ty = t.str("type")?.ok_or_else(|| Error::config(format!("stage '{name}': missing 'type'")))?;
        let inputs = t.value("inputs");
        let mut t = Keys::new(&format!("stage '{name}' ({ty})"), t.table);
        let stage = crate::stages::from_toml(&ty, &mut t)?;
        t.finish()?;
        let id = p.add_stage(&name, stage)?;
        wiring.push((id, name, inputs));
    }
    for (id, name, inputs) in wiring {
        let Some(inputs) = inputs else { continue };
        let toml::Value::Array(list) = inputs else {
            return Err(Error::config(format!("stage '{name}': inputs must be an array")));
        };
        for (port, inp) in list.into_iter().enumerate() {
            let toml::Value::Table(t) = inp else {
                return Err(Error::config(format!("stage '{name}': inputs[{port}] must be a table")));
            };
            let mut t = Keys::new(&format!("stage '{name}' inputs[{port}]"), t);
            let from = t.str("from")?.ok_or_else(|| Error::config(format!("stage '{name}': inputs[{port}] needs 'from'")))?;
            let out_port = t.str("port")?;
            t.finish()?;
            if from == "__external__" {
                p.bind_external_input(id, port)?;
            } else {
                let src = p.find(&from).ok_or_else(|| Error::config(format!("stage '{name}': input from unknown stage '{from}'")))?;
                p.connect(src, out_port.as_deref(), id, port)?;
            }
        }
    }
    if let Some(ps) = primary {
        let id = p.find(&ps).ok_or_else(|| Error::config(format!("primary_source '{ps}' is not a stage")))?;
        p.set_primary_source(id)?;
    }
    Ok(p)
}
