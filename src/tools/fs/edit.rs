//! `edit`: replace one exact run of text (or every run, with `replace-all`).

use serde_json::{Map, Value, json};

use super::{Kind, answer, bool_arg, object_schema, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Mutator,
        "edit",
        "Edit a text file",
        "Replaces old-string with new-string in a UTF-8 file under the root. old-string must occur exactly as in the file (whitespace, indentation and line endings included) and exactly once, unless replace-all is true; zero or several matches are an error that changes nothing. An empty new-string deletes the match. Every byte outside the match is kept.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("old-string", json!({"type": "string"})),
                ("new-string", json!({"type": "string"})),
                ("replace-all", json!({"type": "boolean", "default": false})),
            ],
            &["path", "old-string", "new-string"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    let replace_all = bool_arg(arguments, "replace-all");
    answer(
        engine,
        engine.edit_text(
            str_arg(arguments, "path"),
            str_arg(arguments, "old-string"),
            str_arg(arguments, "new-string"),
            replace_all,
            expected.as_ref(),
        ),
        Some(str_arg(arguments, "path")),
        None,
    )
}
