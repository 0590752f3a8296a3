//! `write`: replace or create a file whose directory exists.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Mutator,
        "write",
        "Write a text file",
        "Writes UTF-8 text to a file under the root, replacing what it held, atomically, and reports the byte count. The parent directory must already exist (create it with mkdir); a directory is never replaced. To change part of an existing file, prefer edit.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("content", json!({"type": "string"})),
            ],
            &["path", "content"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    let content = str_arg(arguments, "content");
    answer(
        engine,
        engine.write_text(str_arg(arguments, "path"), content, expected.as_ref()),
        Some(str_arg(arguments, "path")),
        None,
    )
}
