//! `glob`: files whose names or paths match a glob, at any depth below a directory.

use serde_json::{Map, Value, json};

use super::{Kind, NARROW_PATH, answer, object_schema, path_or_root, str_arg};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Finder,
        "glob",
        "Find files by name",
        "Finds files by name below a directory (path, default the root) and lists their paths, one per line, in tree order. Globs as ripgrep's -g reads them: '**' spans directories, {a,b} and [ab] choose, '*' and '?' stay within a segment; without '/' a pattern matches names at any depth, with '/' the path below path. Matches names only: use grep to search contents.",
        object_schema(
            vec![
                ("pattern", json!({"type": "string"})),
                ("path", json!({"type": "string", "default": "."})),
            ],
            &["pattern"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    answer(
        engine,
        engine.glob(
            str_arg(arguments, "pattern"),
            path_or_root(arguments, "path"),
        ),
        None,
        NARROW_PATH,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_and_annotations() {
        let spec = spec();
        assert_eq!(spec.input_schema["required"], json!(["pattern"]));
        assert_eq!(spec.input_schema["properties"]["path"]["default"], ".");
        assert_eq!(spec.input_schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert!(spec.description.len() < 400, "{}", spec.description.len());
    }
}
