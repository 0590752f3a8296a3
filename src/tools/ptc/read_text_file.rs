//! `read_text_file`: exact UTF-8 chunks of one file, from its start or a 1-based line.

use serde_json::{Map, Value, json};

use super::{input_schema, page_properties, paged_output};
use crate::config::Limits;
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec, limit_of, optional_str, positive_safe_integer};

pub(super) fn spec(limits: &Limits) -> ToolSpec {
    let mut properties = Map::new();
    properties.insert("path".into(), json!({"type": "string", "minLength": 1}));
    properties.insert(
        "start_line".into(),
        json!({"type": "integer", "minimum": 1}),
    );
    page_properties(&mut properties, Some(limits.max_read_chunks()));
    ToolSpec {
        name: "read_text_file".into(),
        title: "Read text file",
        description: "Bounded exact UTF-8 chunks of live bytes. Concatenate item text and follow next_cursor. Pass start_line to begin at a 1-based line instead of the start of the file; only the bytes actually returned must decode as UTF-8.",
        input_schema: input_schema(properties, &["path"]),
        output_schema: Some(paged_output(json!({
            "byte_offset": {"type": "integer"}, "text": {"type": "string"}
        }))),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let Some(Value::String(path)) = arguments.get("path") else {
        return Err(EngineError::PathNotString);
    };
    let start_line = arguments.get("start_line").map(positive_safe_integer);
    let page = engine.read_text_file(
        path,
        start_line,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}
