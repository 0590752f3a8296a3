//! `map`: a ranked skeleton of the code below a directory — the files the rest of the tree
//! leans on, each with the signature lines of its most-referenced definitions.

use serde_json::{Map, Value, json};

use super::{Kind, NARROW_PATH, answer, object_schema, path_or_root};
use crate::engine::{Engine, EngineError, MapQuery};
use crate::tools::{ToolOutput, ToolSpec, optional_str, positive_safe_integer};

/// `max-chars` when not given.
const DEFAULT_MAX_CHARS: u64 = 8192;
/// Smallest `max-chars`.
const MIN_MAX_CHARS: u64 = 512;
/// Largest `max-chars`.
const MAX_MAX_CHARS: u64 = 65536;

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Finder,
        "map",
        "Map the code",
        "Shows which source files below path (default the root) the rest of the code depends on, most depended-on first, each as 'path:' and the numbered signature lines of its most-used definitions (no bodies; '⋮' marks skipped lines). query words or focus paths (space- or comma-separated) re-centre the ranking. Call it before reading; read a definition with read's offset.",
        object_schema(
            vec![
                ("path", json!({"type": "string", "default": "."})),
                ("query", json!({"type": "string"})),
                ("focus", json!({"type": "string"})),
                (
                    "max-chars",
                    json!({"type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS, "default": DEFAULT_MAX_CHARS}),
                ),
            ],
            &[],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let max_chars = arguments
        .get("max-chars")
        .and_then(positive_safe_integer)
        .unwrap_or(DEFAULT_MAX_CHARS)
        .clamp(MIN_MAX_CHARS, MAX_MAX_CHARS);
    let query = MapQuery {
        path: path_or_root(arguments, "path"),
        query: optional_str(arguments, "query"),
        focus: optional_str(arguments, "focus"),
        max_chars: usize::try_from(max_chars).unwrap_or(usize::MAX),
    };
    answer(engine, engine.map(&query), None, NARROW_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_and_annotations() {
        let spec = spec();
        let schema = &spec.input_schema;
        assert!(schema.get("required").is_none());
        assert_eq!(schema["properties"]["path"]["default"], ".");
        assert_eq!(
            schema["properties"]["max-chars"],
            json!({"type": "integer", "minimum": 512, "maximum": 65536, "default": 8192})
        );
        assert_eq!(schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert!(spec.description.len() < 450, "{}", spec.description.len());
    }
}
