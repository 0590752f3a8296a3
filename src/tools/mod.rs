//! What every tool shares, whichever set owns it: its advertised definition ([`ToolSpec`]),
//! argument validation against that schema, and the [`Registry`] of the tools one server
//! publishes across its roots (with `--read-only` dropping every mutating tool).
//!
//! The tools themselves live with their set: `crate::ptc` and `crate::fs` each hold their
//! tools' schemas, typed arguments, operations, state and wording. A set hands each tool to
//! the registry as a [`Tool`] bound to that set's state for one root.

mod validate;
pub use validate::Wording;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value};

pub use validate::violations;

use crate::root::{Call, Progress, Root};

/// What a tool returns on success: the text a reader sees, an image when the answer is one,
/// and structured content when the tool advertises an output schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text block of the result (the first block).
    pub text: String,
    /// An image block following the text (`fs_read` of an image).
    pub image: Option<Image>,
    /// `structuredContent`, present exactly when the tool has an output schema.
    pub structured: Option<Value>,
}

/// An image a result carries, as MCP's image content block holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The image's bytes in base64 (standard alphabet, padded).
    pub data: String,
    /// Its MIME type (`image/png`, ...).
    pub mime_type: &'static str,
}

impl ToolOutput {
    /// A program-facing result: the structured value, with its compact JSON as the text.
    pub fn structured(value: Value) -> ToolOutput {
        ToolOutput {
            text: value.to_string(),
            image: None,
            structured: Some(value),
        }
    }
}

/// What a tool call produced: an output, or a refusal the caller reads.
pub type ToolOutcome = Result<ToolOutput, String>;

/// A tool's work on the state of the set that owns it, for one root: validated arguments in,
/// an output or the refusal in the set's words out.
pub type Handler = Arc<dyn Fn(&Map<String, Value>) -> ToolOutcome + Send + Sync>;

/// The state a tool set keeps for one root, and the refusals its tools return (worded by their
/// `Display`, once, when a call ends).
pub trait ToolSet: Send + Sync + 'static {
    /// A refusal of one of the set's tools.
    type Error: std::fmt::Display;
}

/// One tool of the set `S`: its advertised definition and its work on the set's state.
pub struct Tool<S: ToolSet> {
    /// The advertised definition.
    pub spec: ToolSpec,
    /// The work, given arguments already validated against the schema.
    pub run: Run<S>,
}

/// A tool's work on its set's state.
pub type Run<S> = fn(&S, &Map<String, Value>) -> Result<ToolOutput, <S as ToolSet>::Error>;

/// A tool bound to its set's state for one root: its definition and its handler.
pub type BoundTool = (ToolSpec, Handler);

impl<S: ToolSet> Tool<S> {
    /// The tool bound to `set`, ready for the registry.
    pub fn bind(self, set: &Arc<S>) -> BoundTool {
        let (set, run) = (set.clone(), self.run);
        let handler: Handler =
            Arc::new(move |arguments| run(&set, arguments).map_err(|e| e.to_string()));
        (self.spec, handler)
    }
}

/// A published tool's advertised definition.
#[derive(Debug, Clone)]
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
    /// How invalid arguments are worded; with [`validate::Wording::Model`], arguments spelled
    /// in snake or camel case (`old_string`) are also taken for the schema's kebab-case ones.
    pub wording: validate::Wording,
}

impl ToolSpec {
    /// The arguments under the schema's own names, when the tool takes other spellings
    /// (see [`ToolSpec::wording`]) and some are written in one: `Ok(None)` when none is, and
    /// a refusal when one argument is given twice in two spellings. What the schema is
    /// checked against, by the call and by anyone checking a call from outside.
    ///
    /// # Errors
    /// The refusal's text when one argument is given in two spellings.
    pub fn respelled(
        &self,
        arguments: &Map<String, Value>,
    ) -> Result<Option<Map<String, Value>>, String> {
        match self.wording {
            validate::Wording::Model => validate::respelled(&self.input_schema, arguments),
            validate::Wording::Reference => Ok(None),
        }
    }
}

/// An object input schema: properties in order, the required ones (omitted when none),
/// nothing else. Both sets' schemas are built by it.
pub fn object_schema<K: Into<String>>(
    properties: impl IntoIterator<Item = (K, Value)>,
    required: &[&str],
) -> Value {
    let mut map = Map::new();
    for (name, schema) in properties {
        map.insert(name.into(), schema);
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(map));
    if !required.is_empty() {
        schema.insert("required".into(), Value::from(required.to_vec()));
    }
    schema.insert("additionalProperties".into(), Value::Bool(false));
    Value::Object(schema)
}

/// A published tool bound to the root it serves.
#[derive(Clone)]
pub struct Entry {
    /// The tool.
    pub spec: ToolSpec,
    handler: Handler,
    /// The root its calls run on.
    pub root: Arc<Root>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
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
        let seconds = self.root.limits().max_call_seconds;
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
            self.validated(arguments)
        })
    }

    /// Validates `arguments` against the input schema, then runs the handler.
    fn validated(&self, arguments: &Map<String, Value>) -> ToolOutcome {
        // Reserved arguments are skipped rather than removed from a copy: arguments can be
        // megabytes.
        let refusal = |errors: &str| {
            format!(
                "Input validation error: Invalid arguments for tool {}: {errors}",
                self.spec.name
            )
        };
        let respelled = self.spec.respelled(arguments).map_err(|e| refusal(&e))?;
        let arguments = respelled.as_ref().unwrap_or(arguments);
        let errors = validate::object_violations(
            &self.spec.input_schema,
            arguments,
            self.spec.reserved,
            self.spec.wording,
        );
        if !errors.is_empty() {
            return Err(refusal(&errors.join(", ")));
        }
        (self.handler)(arguments)
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

    /// Publishes `tools` of one root (each set's, in order); `read_only` drops mutating tools.
    /// `fs` says whether they include the model-facing set. Fails with the clashing name when
    /// a tool of that name is already published.
    pub fn add_root(
        &mut self,
        root: &Arc<Root>,
        tools: Vec<BoundTool>,
        fs: bool,
        read_only: bool,
    ) -> Result<(), String> {
        self.fs |= fs;
        for (spec, handler) in tools.into_iter().filter(|(t, _)| t.read_only || !read_only) {
            if self.get(&spec.name).is_some() {
                return Err(spec.name);
            }
            self.entries.push(Entry {
                spec,
                handler,
                root: root.clone(),
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
pub(crate) fn optional_str<'a>(arguments: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    arguments.get(name).and_then(Value::as_str)
}

/// A JSON number that is an integer in `1..=2^53-1`.
pub(crate) fn positive_safe_integer(value: &Value) -> Option<u64> {
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
