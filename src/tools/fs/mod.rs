//! The model-facing tools: answers are text a model reads (line-numbered windows,
//! `path:line:text` grep output, one entry per line), and the observation and mutation tools
//! also return `sha256-v1` revisions that an orchestration layer can send back in the reserved
//! `_expected-revisions` argument to make a mutation conditional.
//!
//! Names are `<prefix>_<base>` (`fs_read` by default; bare names with an empty prefix).

mod delete;
mod edit;
mod glob;
mod grep;
mod list;
mod map;
mod mkdir;
mod move_path;
mod read;
mod stat;
mod write;

use serde_json::{Map, Value, json};

use super::{ToolOutput, ToolSpec};
use crate::config::Limits;
pub use crate::engine::published_name;
use crate::engine::{Engine, EngineError, FsAnswer};

/// The reserved argument carrying expected revisions (never advertised in a schema).
const EXPECTED: &str = "_expected-revisions";

/// The fs tools in their published order.
pub fn tools(_limits: &Limits, prefix: &str) -> Vec<ToolSpec> {
    let specs: Vec<ToolSpec> = vec![
        read::spec(),
        write::spec(),
        edit::spec(),
        list::spec(),
        glob::spec(),
        grep::spec(),
        map::spec(),
        stat::spec(),
        mkdir::spec(),
        move_path::spec(),
        delete::spec(),
    ];
    specs
        .into_iter()
        .map(|mut spec| {
            spec.name = published_name(prefix, &spec.name);
            spec
        })
        .collect()
}

/// An object input schema: properties in order, the required ones (omitted when none),
/// nothing else.
fn object_schema(properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut map = Map::new();
    for (name, schema) in properties {
        map.insert(name.to_owned(), schema);
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(map));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// `structuredContent` of the observation and mutation tools.
fn revisions_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "revisionScheme": {"type": "string"},
            "revisions": {"type": "object"}
        },
        "required": ["revisionScheme", "revisions"]
    })
}

/// The kinds of fs tool, which decide annotations, output and reserved arguments.
enum Kind {
    /// Reads and returns revisions (`read`, `list`, `stat`).
    Observer,
    /// Reads and returns text only (`glob`, `grep`).
    Finder,
    /// Changes the tree; accepts `_expected-revisions`; publishes no behaviour hints.
    Mutator,
}

/// A tool of this set: everything but its words, schema and handler follows from its kind.
fn spec(
    kind: Kind,
    name: &str,
    title: &'static str,
    description: &'static str,
    input_schema: Value,
    handler: super::Handler,
) -> ToolSpec {
    let mutator = matches!(kind, Kind::Mutator);
    ToolSpec {
        name: name.to_owned(),
        title,
        description,
        input_schema,
        output_schema: (!matches!(kind, Kind::Finder)).then(revisions_output),
        read_only: !mutator,
        hints: !mutator,
        reserved: if mutator { &[EXPECTED] } else { &[] },
        handler,
    }
}

/// A string argument the schema requires (already validated as present and a string).
fn str_arg<'a>(arguments: &'a Map<String, Value>, name: &str) -> &'a str {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// A location argument that defaults to the root.
fn path_or_root<'a>(arguments: &'a Map<String, Value>, name: &str) -> &'a str {
    arguments.get(name).and_then(Value::as_str).unwrap_or(".")
}

/// A boolean argument, false when absent (the schema has checked its type).
fn bool_arg(arguments: &Map<String, Value>, name: &str) -> bool {
    arguments
        .get(name)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// What the caller of a tool that walks below `path` can narrow when the walk goes over a
/// limit (the pattern and the name filter select among the files walked, so only the path
/// makes the walk smaller).
const NARROW_PATH: Option<&str> = Some("narrow path to a smaller directory");

/// The tool result of an engine answer: its text, with revisions as structured content. A
/// refusal from the root is worded for the model: a limit names its value, `narrow` (what
/// the caller can change, if anything) and how to raise it, and other refusals name the
/// location argument `given`.
fn answer(
    engine: &Engine,
    result: Result<FsAnswer, EngineError>,
    given: Option<&str>,
    narrow: Option<&str>,
) -> Result<ToolOutput, EngineError> {
    match result {
        Ok(answer) => Ok(ToolOutput {
            text: answer.text,
            structured: answer.revisions,
        }),
        Err(error) => Err(error.worded_for(given, engine.root().limits(), narrow)),
    }
}
