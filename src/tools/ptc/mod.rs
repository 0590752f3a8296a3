//! The five program-facing tools of ptc-fs-mcp, with its names, titles, descriptions, schemas
//! and annotations, so an existing host can swap the command and change nothing else.

mod list_directory;
mod read_text_file;
mod search_files;
mod search_text;
mod write_text_file;

use serde_json::{Map, Value, json};

use super::ToolSpec;
use crate::config::Limits;
use crate::engine::{EngineError, Terms, parse_terms};

/// The ptc tools in their published order.
pub fn tools(limits: &Limits) -> Vec<ToolSpec> {
    vec![
        list_directory::spec(),
        search_files::spec(),
        search_text::spec(),
        read_text_file::spec(limits),
        write_text_file::spec(),
    ]
}

/// Output schema of the four paged tools, around one item's properties. `next_cursor` is left
/// to `additionalProperties` because the schema subset clients accept has no nullable type.
fn paged_output(item_properties: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "content_hash": {"type": "string"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": item_properties, "additionalProperties": false}
            }
        },
        "required": ["content_hash", "items"],
        "additionalProperties": true
    })
}

/// The `query`, `any_of` and `case_insensitive` properties shared by both searches.
fn term_properties(properties: &mut Map<String, Value>) {
    properties.insert("query".into(), json!({"type": "string", "minLength": 1}));
    properties.insert(
        "any_of".into(),
        json!({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 16}),
    );
    properties.insert("case_insensitive".into(), json!({"type": "boolean"}));
}

/// An object input schema with these properties, no extras, and `required` when non-empty.
fn input_schema(properties: Map<String, Value>, required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// `cursor` and `limit` (minimum 1, optional maximum), shared by the paged tools.
fn page_properties(properties: &mut Map<String, Value>, max_limit: Option<u64>) {
    properties.insert("cursor".into(), json!({"type": "string"}));
    let mut limit = json!({"type": "integer", "minimum": 1});
    if let Some(max) = max_limit {
        limit["maximum"] = json!(max);
    }
    properties.insert("limit".into(), limit);
}

/// The validated terms of `query`/`any_of`/`case_insensitive`.
fn terms_of(arguments: &Map<String, Value>) -> Result<Terms, EngineError> {
    parse_terms(
        arguments.get("query"),
        arguments.get("any_of"),
        arguments.get("case_insensitive"),
    )
}
