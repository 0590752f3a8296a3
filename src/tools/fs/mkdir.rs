//! `mkdir`: create a directory and any missing parents.

use serde_json::{Map, Value, json};

use super::{EXPECTED, answer, object_schema, revisions_output, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "mkdir".into(),
        title: "Create a directory",
        description: "Creates a directory under the root, with any missing parents. A directory that already exists is not an error, so retrying is safe; a file in the way is.",
        input_schema: object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        output_schema: Some(revisions_output()),
        read_only: false,
        hints: false,
        reserved: &[EXPECTED],
        handler: call,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    Ok(answer(engine.make_directory(
        str_arg(arguments, "path"),
        expected.as_ref(),
    )?))
}
