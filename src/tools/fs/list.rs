//! `list`: the entries of one directory.

use serde_json::{Map, Value, json};

use super::{answer, object_schema, path_or_root, revisions_output};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "list".into(),
        title: "List a directory",
        description: "Lists the entries directly inside a directory under the root, sorted, one per line, directories marked with a trailing '/'. An empty directory answers '(empty directory)'. Use glob to find files at any depth.",
        input_schema: object_schema(
            vec![("path", json!({"type": "string", "default": "."}))],
            &[],
        ),
        output_schema: Some(revisions_output()),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    Ok(answer(
        engine.list_entries(path_or_root(arguments, "path"))?,
    ))
}
