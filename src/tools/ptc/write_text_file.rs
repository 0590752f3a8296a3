//! `write_text_file`: replace one regular file named by a lowercase basename in the root.

use serde_json::{Map, Value, json};

use super::input_schema;
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    let mut properties = Map::new();
    properties.insert(
        "path".into(),
        json!({"type": "string", "minLength": 1, "description": "A basename of lowercase letters, digits, dots, underscores, or hyphens."}),
    );
    properties.insert("content".into(), json!({"type": "string"}));
    ToolSpec {
        name: "write_text_file".into(),
        title: "Write text file",
        description: "Replaces one regular file named by a single lowercase basename in the root. The next read sees it.",
        input_schema: input_schema(properties, &["path", "content"]),
        output_schema: Some(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "bytes": {"type": "integer", "minimum": 0},
                "content_hash": {"type": "string"}
            },
            "required": ["path", "bytes", "content_hash"],
            "additionalProperties": false
        })),
        read_only: false,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let Some(Value::String(path)) = arguments.get("path") else {
        return Err(EngineError::PathNotString);
    };
    let Some(Value::String(content)) = arguments.get("content") else {
        return Err(EngineError::ContentNotString);
    };
    let receipt = engine.write_text_file(path, content)?;
    Ok(ToolOutput::structured(json!({
        "path": receipt.path,
        "bytes": receipt.bytes,
        "content_hash": receipt.content_hash
    })))
}
