//! `stat`: seven lines about one path.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, str_arg};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Observer,
        "stat",
        "Describe a path",
        "Describes one path under the root in seven lines: path, type (file, directory or other), size in bytes, modified time (ISO 8601, UTC), whether it is a symbolic link, and whether it is readable and writable. Links are described, never followed.",
        object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    answer(
        engine,
        engine.stat_path(str_arg(arguments, "path")),
        Some(str_arg(arguments, "path")),
        None,
    )
}
