//! `list`: the entries of one directory.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, path_or_root};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Observer,
        "list",
        "List a directory",
        "Lists the entries directly inside a directory under the root, sorted, one per line, directories marked with a trailing '/'. An empty directory answers '(empty directory)'. Use glob to find files at any depth.",
        object_schema(
            vec![("path", json!({"type": "string", "default": "."}))],
            &[],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    answer(
        engine,
        engine.list_entries(path_or_root(arguments, "path")),
        Some(path_or_root(arguments, "path")),
        None,
    )
}
