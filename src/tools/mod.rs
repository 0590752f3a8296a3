//! Tools: thin façades over the [`Engine`]. A tool validates its arguments against the schema
//! it advertises, converts them into typed values, calls the engine and shapes the result.
//! Tools never touch the filesystem.
//!
//! The [`Registry`] holds the tools a configuration publishes (the `ptc` set; the `fs` set
//! arrives with its own module), with `--read-only` dropping every mutating tool.

mod ptc;
mod validate;

use serde_json::{Map, Value};

pub use validate::violations;

use crate::config::{Limits, ToolSelection};
use crate::engine::{Engine, EngineError, Limit};

/// What a tool call produced: structured content, or a refusal the caller reads.
pub type ToolOutcome = Result<Value, String>;

/// A published tool: its advertised definition and its handler.
#[derive(Clone)]
pub struct ToolSpec {
    /// Published name.
    pub name: String,
    /// Human-readable title.
    pub title: &'static str,
    /// What the tool does, for the model or program choosing it.
    pub description: &'static str,
    /// JSON Schema of the arguments (also what arguments are validated against).
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`.
    pub output_schema: Value,
    /// Whether the tool only reads.
    pub read_only: bool,
    handler: fn(&Engine, &Map<String, Value>) -> Result<Value, EngineError>,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ToolSpec {
    /// Validates `arguments` against the input schema, then runs the handler.
    pub fn call(&self, engine: &Engine, arguments: &Map<String, Value>) -> ToolOutcome {
        let errors = violations(&self.input_schema, &Value::Object(arguments.clone()));
        if !errors.is_empty() {
            return Err(format!(
                "Input validation error: Invalid arguments for tool {}: {}",
                self.name,
                errors.join(", ")
            ));
        }
        (self.handler)(engine, arguments).map_err(|e| e.to_string())
    }
}

/// The tools one server publishes, in a fixed order.
#[derive(Debug, Clone)]
pub struct Registry {
    tools: Vec<ToolSpec>,
}

impl Registry {
    /// The tools for a selection of tool sets; `read_only` drops mutating tools.
    pub fn new(selection: ToolSelection, read_only: bool, limits: &Limits) -> Registry {
        let mut tools = Vec::new();
        if selection.ptc {
            tools.extend(ptc::tools(limits));
        }
        tools.retain(|t| t.read_only || !read_only);
        Registry { tools }
    }

    /// Every published tool.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// The tool published under `name`.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// An optional string argument (the schema has already checked its type).
fn optional_str<'a>(arguments: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    arguments.get(name).and_then(Value::as_str)
}

/// `limit` as given: a safe positive integer, absent, or invalid.
fn limit_of(arguments: &Map<String, Value>) -> Limit {
    match arguments.get("limit") {
        None => Limit::Default,
        Some(value) => match positive_safe_integer(value) {
            Some(n) => Limit::Given(n),
            None => Limit::Invalid,
        },
    }
}

/// A JSON number that is an integer in `1..=2^53-1`.
fn positive_safe_integer(value: &Value) -> Option<u64> {
    const MAX_SAFE: u64 = crate::config::limits::MAX_SAFE_INTEGER;
    let n = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 1.0 && *f <= MAX_SAFE as f64)
            .map(|f| f as u64)
    })?;
    (1..=MAX_SAFE).contains(&n).then_some(n)
}
