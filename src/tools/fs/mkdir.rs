//! `mkdir`: create a directory and any missing parents.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Mutator,
        "mkdir",
        "Create a directory",
        "Creates a directory under the root, with any missing parents. A directory that already exists is not an error, so retrying is safe; a file in the way is.",
        object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    answer(
        engine,
        engine.make_directory(str_arg(arguments, "path"), expected.as_ref()),
        Some(str_arg(arguments, "path")),
        None,
    )
}
