//! `grep`: lines of text files matching a literal or a regex, in GNU grep's layout.

use serde_json::{Map, Value, json};

use super::super::{Fs, FsError, Kind, NARROW_PATH, answer, bool_arg, path_or_root, str_arg};
use super::{GrepOutput, GrepQuery, MAX_CONTEXT, MAX_RESULTS, Reading};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str, positive_safe_integer};

/// `max-results` when not given.
const DEFAULT_MAX_RESULTS: u64 = 50;

pub(in crate::fs) fn tool() -> Tool<Fs> {
    super::super::tool(
        Kind::Finder,
        "grep",
        "Search file contents",
        "Searches text files below path (or the one file it names) as ripgrep does: 'path:line:text' lines, context 'path-line-text'. pattern is literal unless regex (Rust syntax); whole-word is rg -w, multiline rg -U. Filter by glob (as the glob tool reads it) or type (rg -t: rust, py, ts). context sets before- and after-context. output 'files' lists files, 'count' path:N. A cut answer names the after that continues it; binary files are skipped.",
        object_schema(
            vec![
                ("pattern", json!({"type": "string"})),
                ("path", json!({"type": "string", "default": "."})),
                ("regex", json!({"type": "boolean", "default": false})),
                (
                    "case-insensitive",
                    json!({"type": "boolean", "default": false}),
                ),
                ("whole-word", json!({"type": "boolean", "default": false})),
                ("multiline", json!({"type": "boolean", "default": false})),
                ("glob", json!({"type": "string"})),
                ("type", json!({"type": "string"})),
                ("context", context_schema()),
                ("before-context", context_schema()),
                ("after-context", context_schema()),
                (
                    "max-results",
                    json!({"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_MAX_RESULTS}),
                ),
                (
                    "output",
                    json!({"type": "string", "enum": ["lines", "files", "count"], "default": "lines"}),
                ),
                ("after", json!({"type": "string"})),
            ],
            &["pattern"],
        ),
        run,
    )
}

/// Lines of context on one side or both, as `rg -B`, `-A` and `-C` take them.
fn context_schema() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT})
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let lines = |name: &str| {
        arguments
            .get(name)
            .and_then(|v| v.as_u64().or_else(|| positive_safe_integer(v)))
            .map(|n| usize::try_from(n).unwrap_or(MAX_CONTEXT))
    };
    // As rg takes -C with -A or -B: the side given on its own wins over context.
    let context = lines("context").unwrap_or(0);
    let query = GrepQuery {
        pattern: str_arg(arguments, "pattern"),
        path: path_or_root(arguments, "path"),
        reading: Reading {
            regex: bool_arg(arguments, "regex"),
            case_insensitive: bool_arg(arguments, "case-insensitive"),
            word: bool_arg(arguments, "whole-word"),
            multiline: bool_arg(arguments, "multiline"),
        },
        glob: optional_str(arguments, "glob"),
        file_type: optional_str(arguments, "type"),
        before_context: lines("before-context").unwrap_or(context),
        after_context: lines("after-context").unwrap_or(context),
        max_results: arguments
            .get("max-results")
            .and_then(positive_safe_integer)
            .unwrap_or(DEFAULT_MAX_RESULTS),
        // The schema admits only the three names.
        output: optional_str(arguments, "output")
            .and_then(GrepOutput::named)
            .unwrap_or(GrepOutput::Lines),
        after: optional_str(arguments, "after"),
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
            json!({"type": "integer", "minimum": 0, "maximum": 20})
        );
        assert_eq!(
            schema["properties"]["max-results"],
            json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50})
        );
        assert_eq!(schema["properties"]["regex"]["default"], false);
        assert!(schema["properties"]["glob"].get("default").is_none());
        assert_eq!(schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert_eq!(
            schema["properties"]["before-context"],
            schema["properties"]["context"]
        );
        assert!(spec.description.len() < 520, "{}", spec.description.len());
    }
}
