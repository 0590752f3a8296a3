//! `search_text`: lines containing any of the terms, with path and line evidence.

use serde_json::{Map, Value, json};

use super::{input_schema, page_properties, paged_output, term_properties, terms_of};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec, limit_of, optional_str};

pub(super) fn spec() -> ToolSpec {
    let mut properties = Map::new();
    term_properties(&mut properties);
    properties.insert("path".into(), json!({"type": "string"}));
    page_properties(&mut properties, None);
    ToolSpec {
        name: "search_text".into(),
        title: "Search text",
        description: "Streaming literal line search. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Empty progress pages may carry next_cursor; follow it until null.",
        input_schema: input_schema(properties, &[]),
        output_schema: Some(paged_output(json!({
            "path": {"type": "string"}, "line": {"type": "integer"}, "text": {"type": "string"}
        }))),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let terms = terms_of(arguments)?;
    let path = match arguments.get("path") {
        None => "",
        Some(Value::String(path)) => path,
        Some(_) => return Err(EngineError::PathNotString),
    };
    let page = engine.search_text(
        &terms,
        path,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}
