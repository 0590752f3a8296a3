//! `delete`: remove a file, a link, an empty directory, or a whole tree.

use serde_json::{Map, Value, json};

use super::{Kind, answer, bool_arg, object_schema, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Mutator,
        "delete",
        "Delete a path",
        "Deletes a file, a symbolic link (the link, never its target) or an empty directory under the root. With recursive true it deletes a directory and everything below it, with no undo; it refuses when the tree holds anything this root does not serve. The root itself is never deleted.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("recursive", json!({"type": "boolean", "default": false})),
            ],
            &["path"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    let recursive = bool_arg(arguments, "recursive");
    answer(
        engine,
        engine.delete_path(str_arg(arguments, "path"), recursive, expected.as_ref()),
        Some(str_arg(arguments, "path")),
        Some("delete a directory further down first"),
    )
}
