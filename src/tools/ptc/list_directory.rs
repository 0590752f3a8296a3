//! `list_directory`: sorted entries directly under a relative prefix.

use serde_json::{Map, Value, json};

use super::{input_schema, page_properties, paged_output};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec, limit_of, optional_str};

pub(super) fn spec() -> ToolSpec {
    let mut properties = Map::new();
    properties.insert("path".into(), json!({"type": "string"}));
    page_properties(&mut properties, None);
    ToolSpec {
        name: "list_directory".into(),
        title: "List directory",
        description: "Sorted entries directly under a relative prefix. Follow next_cursor until null.",
        input_schema: input_schema(properties, &[]),
        output_schema: Some(paged_output(json!({
            "name": {"type": "string"}, "kind": {"type": "string"}, "path": {"type": "string"}
        }))),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let path = optional_str(arguments, "path").unwrap_or("");
    let page =
        engine.list_directory(path, optional_str(arguments, "cursor"), limit_of(arguments))?;
    Ok(ToolOutput::structured(page.into_value()))
}
