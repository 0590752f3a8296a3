//! The model-facing tools: answers are text a model reads (line-numbered windows,
//! `path:line:text` grep output, one entry per line), and the observation and mutation tools
//! also return `sha256-v1` revisions that an orchestration layer can send back in the reserved
//! `_expected-revisions` argument to make a mutation conditional.
//!
//! Names are `<prefix>_<base>` (`fs_read` by default; bare names with an empty prefix).

use serde_json::{Map, Value, json};

use super::ToolSpec;
use crate::config::Limits;

/// The tool's published name under `prefix`.
pub fn published_name(prefix: &str, base: &str) -> String {
    if prefix.is_empty() {
        base.to_owned()
    } else {
        format!("{prefix}_{base}")
    }
}

/// The fs tools in their published order.
pub fn tools(_limits: &Limits, prefix: &str) -> Vec<ToolSpec> {
    let specs: Vec<ToolSpec> = Vec::new();
    specs
        .into_iter()
        .map(|mut spec| {
            spec.name = published_name(prefix, &spec.name);
            spec
        })
        .collect()
}

/// An object input schema: properties in order, the required ones (omitted when none),
/// nothing else.
#[allow(dead_code)] // Used by the tool files as they land.
fn object_schema(properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut map = Map::new();
    for (name, schema) in properties {
        map.insert(name.to_owned(), schema);
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(map));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// `structuredContent` of the observation and mutation tools.
#[allow(dead_code)] // Used by the tool files as they land.
fn revisions_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "revisionScheme": {"type": "string"},
            "revisions": {"type": "object"}
        },
        "required": ["revisionScheme", "revisions"]
    })
}
