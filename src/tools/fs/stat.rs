//! `stat`: seven lines about one path.

use serde_json::{Map, Value, json};

use super::{answer, object_schema, revisions_output, str_arg};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "stat".into(),
        title: "Describe a path",
        description: "Describes one path under the root in seven lines: path, type (file, directory or other), size in bytes, modified time (ISO 8601, UTC), whether it is a symbolic link, and whether it is readable and writable. Links are described, never followed.",
        input_schema: object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        output_schema: Some(revisions_output()),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    Ok(answer(engine.stat_path(str_arg(arguments, "path"))?))
}
