//! `search_files`: sorted served paths containing any of the terms.

use serde_json::{Map, Value, json};

use super::{input_schema, page_properties, paged_output, term_properties, terms_of};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec, limit_of, optional_str};

pub(super) fn spec() -> ToolSpec {
    let mut properties = Map::new();
    term_properties(&mut properties);
    page_properties(&mut properties, None);
    ToolSpec {
        name: "search_files".into(),
        title: "Search files",
        description: "Sorted paths containing a literal substring. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Follow next_cursor until null.",
        input_schema: input_schema(properties, &[]),
        output_schema: Some(paged_output(json!({"path": {"type": "string"}}))),
        read_only: true,
        hints: true,
        reserved: &[],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let terms = terms_of(arguments)?;
    let page = engine.search_files(
        &terms,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}
