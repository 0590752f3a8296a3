//! Tools: thin façades over the [`Engine`]. A tool validates its arguments against the schema
//! it advertises, converts them into typed values, calls the engine and shapes the result.
//! Tools never touch the filesystem.
//!
//! The [`Registry`] holds the tools a configuration publishes (the `ptc` set; the `fs` set
//! arrives with its own module), with `--read-only` dropping every mutating tool.

pub mod fs;
mod ptc;
mod validate;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value};

pub use validate::violations;

use crate::config::ToolSelection;
use crate::engine::{Engine, EngineError, Limit};
use crate::root::{Call, Progress};

/// What a tool returns on success: the text a reader sees, and structured content when the
/// tool advertises an output schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The one text block of the result.
    pub text: String,
    /// `structuredContent`, present exactly when the tool has an output schema.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// A program-facing result: the structured value, with its compact JSON as the text.
    pub fn structured(value: Value) -> ToolOutput {
        ToolOutput {
            text: value.to_string(),
            structured: Some(value),
        }
    }
}

/// What a tool call produced: an output, or a refusal the caller reads.
pub type ToolOutcome = Result<ToolOutput, String>;

/// A tool handler: typed work on one engine.
pub type Handler = fn(&Engine, &Map<String, Value>) -> Result<ToolOutput, EngineError>;

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
    /// JSON Schema of `structuredContent`, for tools that return it.
    pub output_schema: Option<Value>,
    /// Whether the tool only reads.
    pub read_only: bool,
    /// Whether the tool publishes behaviour hints (`readOnlyHint` …) at all.
    pub hints: bool,
    /// Arguments accepted although the schema does not advertise them (removed before
    /// validation and seen only by the handler).
    pub reserved: &'static [&'static str],
    handler: Handler,
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
        // Reserved arguments are skipped rather than removed from a copy: arguments can be
        // megabytes.
        let errors = validate::object_violations(&self.input_schema, arguments, self.reserved);
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

/// A published tool bound to the root it serves.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The tool.
    pub spec: ToolSpec,
    /// The engine (one root) its calls run on.
    pub engine: Arc<Engine>,
}

impl Entry {
    /// Runs one call within the root's per-call deadline.
    pub fn call(&self, arguments: &Map<String, Value>) -> ToolOutcome {
        self.call_under(arguments, None, None)
    }

    /// Runs one call within the root's per-call deadline, stopped at its next check once
    /// `cancelled` is non-zero and reporting its progress to `progress`.
    pub fn call_under(
        &self,
        arguments: &Map<String, Value>,
        cancelled: Option<Arc<AtomicUsize>>,
        progress: Option<Arc<Progress>>,
    ) -> ToolOutcome {
        let seconds = self.engine.root().limits().max_call_seconds;
        let mut call = Call::within(std::time::Duration::from_secs(seconds));
        if let Some(flag) = cancelled {
            call = call.cancelled_by(flag);
        }
        if let Some(progress) = progress {
            call = call.reporting(progress);
        }
        let _running = Running::start();
        call.run(|| {
            fault::inject(&self.spec.name);
            self.spec.call(&self.engine, arguments)
        })
    }
}

/// Tool calls still working, even those whose client has gone or cancelled them.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Counts one call as running until dropped.
struct Running;

impl Running {
    fn start() -> Running {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits, at most `limit`, until no tool call is working: a process leaving after its input
/// ended lets a write it accepted (even one cancelled, whose answer is never sent) finish
/// and remove its temp file rather than cutting it off.
pub fn wait_for_running_calls(limit: std::time::Duration) {
    let deadline = std::time::Instant::now() + limit;
    while RUNNING.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The tools one server publishes, in a fixed order, across one or more roots.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Entry>,
    /// Whether some root publishes the model-facing set, whose clients expect its wording of
    /// protocol refusals.
    fs: bool,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Publishes the selected tool sets of one root; `read_only` drops mutating tools. Fails
    /// with the clashing name when a tool of that name is already published.
    pub fn add_root(
        &mut self,
        engine: Arc<Engine>,
        selection: ToolSelection,
        prefix: &str,
        read_only: bool,
    ) -> Result<(), String> {
        let limits = *engine.root().limits();
        let mut specs = Vec::new();
        if selection.ptc {
            specs.extend(ptc::tools(&limits));
        }
        if selection.fs {
            specs.extend(fs::tools(&limits, prefix));
            self.fs = true;
        }
        for spec in specs.into_iter().filter(|t| t.read_only || !read_only) {
            if self.get(&spec.name).is_some() {
                return Err(spec.name);
            }
            self.entries.push(Entry {
                spec,
                engine: engine.clone(),
            });
        }
        Ok(())
    }

    /// Every published tool.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The refusal of a call to a tool no root publishes: ptc-fs-mcp's wording, or the
    /// model-facing toolkit's when that set is published.
    pub fn unknown_tool_message(&self, name: &str) -> String {
        if self.fs {
            format!("Unknown tool: '{name}'")
        } else {
            format!("Tool {name} not found")
        }
    }

    /// The tool published under `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.spec.name == name)
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

/// Test-only fault injection, compiled into debug builds only: `FSMCP_TEST_FAULT=<tool>:panic`
/// makes every call of that tool panic, `<tool>:slow` makes it sleep 1.5 s before working, and
/// `<tool>:spin` makes it report progress until it is cancelled or out of time, so tests can
/// prove a panic stays inside its call, the deadline refuses a slow one, and progress and
/// cancellation work.
mod fault {
    #[cfg(debug_assertions)]
    pub(super) fn inject(tool: &str) {
        static FAULT: std::sync::OnceLock<Option<(String, String)>> = std::sync::OnceLock::new();
        let fault = FAULT.get_or_init(|| {
            let spec = std::env::var("FSMCP_TEST_FAULT").ok()?;
            let (name, kind) = spec.split_once(':')?;
            Some((name.to_owned(), kind.to_owned()))
        });
        match fault {
            Some((name, kind)) if name == tool && kind == "panic" => panic!("injected fault"),
            Some((name, kind)) if name == tool && kind == "slow" => {
                std::thread::sleep(std::time::Duration::from_millis(1500));
            }
            // Work that never ends by itself: a unit of progress every millisecond until the
            // call is cancelled or past its deadline.
            Some((name, kind)) if name == tool && kind == "spin" => {
                while crate::root::check_deadline().is_ok() {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            _ => {}
        }
    }

    #[cfg(not(debug_assertions))]
    pub(super) fn inject(_tool: &str) {}
}
