//! `grep`: lines of text files matching a literal or a regex, in GNU grep's layout.

use serde_json::{Map, Value, json};

use super::super::{Fs, FsError, Kind, NARROW_PATH, answer, bool_arg, path_or_root, str_arg};
use super::{GrepOutput, GrepQuery, MAX_CONTEXT, MAX_RESULTS};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str, positive_safe_integer};

/// `max-results` when not given.
const DEFAULT_MAX_RESULTS: u64 = 50;

pub(in crate::fs) fn tool() -> Tool<Fs> {
    super::super::tool(
        Kind::Finder,
        "grep",
        "Search file contents",
        "Searches text files below path (or the one file it names) as ripgrep does, answering 'path:line:text' lines (context lines 'path-line-text'). pattern is literal unless regex is true (Rust syntax). Narrow with glob, read as the glob tool reads it ('src/**/*.rs'). output 'files' lists matching files, 'count' gives path:N. Stops after max-results lines or files; binary files are skipped.",
        object_schema(
            vec![
                ("pattern", json!({"type": "string"})),
                ("path", json!({"type": "string", "default": "."})),
                ("regex", json!({"type": "boolean", "default": false})),
                (
                    "case-insensitive",
                    json!({"type": "boolean", "default": false}),
                ),
                ("glob", json!({"type": "string"})),
                (
                    "context",
                    json!({"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "default": 0}),
                ),
                (
                    "max-results",
                    json!({"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_MAX_RESULTS}),
                ),
                (
                    "output",
                    json!({"type": "string", "enum": ["lines", "files", "count"], "default": "lines"}),
                ),
            ],
            &["pattern"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let context = arguments
        .get("context")
        .and_then(|v| v.as_u64().or_else(|| positive_safe_integer(v)))
        .unwrap_or(0);
    let query = GrepQuery {
        pattern: str_arg(arguments, "pattern"),
        path: path_or_root(arguments, "path"),
        regex: bool_arg(arguments, "regex"),
        case_insensitive: bool_arg(arguments, "case-insensitive"),
        glob: optional_str(arguments, "glob"),
        context: usize::try_from(context).unwrap_or(MAX_CONTEXT),
        max_results: arguments
            .get("max-results")
            .and_then(positive_safe_integer)
            .unwrap_or(DEFAULT_MAX_RESULTS),
        // The schema admits only the three names.
        output: optional_str(arguments, "output")
            .and_then(GrepOutput::named)
            .unwrap_or(GrepOutput::Lines),
    };
    answer(fs, fs.grep(&query), None, NARROW_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_and_annotations() {
        let spec = tool().spec;
        let schema = &spec.input_schema;
        assert_eq!(schema["required"], json!(["pattern"]));
        assert_eq!(
            schema["properties"]["context"],
            json!({"type": "integer", "minimum": 0, "maximum": 20, "default": 0})
        );
        assert_eq!(
            schema["properties"]["max-results"],
            json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50})
        );
        assert_eq!(schema["properties"]["regex"]["default"], false);
        assert!(schema["properties"]["glob"].get("default").is_none());
        assert_eq!(schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert!(spec.description.len() < 400, "{}", spec.description.len());
    }
}
