//! `move`: rename a file or directory within the root, never overwriting.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, str_arg};
use crate::engine::{Engine, EngineError, expected_revisions};
use crate::tools::{ToolOutput, ToolSpec};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Mutator,
        "move",
        "Move or rename",
        "Renames a file or directory, or moves it elsewhere under the root; a directory moves with everything inside. Nothing is overwritten: an existing 'to' is an error, as is a missing parent directory of 'to' (create it with mkdir). A move is a rename and never copies.",
        object_schema(
            vec![
                ("from", json!({"type": "string"})),
                ("to", json!({"type": "string"})),
            ],
            &["from", "to"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let expected = expected_revisions(arguments)?;
    answer(
        engine,
        engine.move_path(
            str_arg(arguments, "from"),
            str_arg(arguments, "to"),
            expected.as_ref(),
        ),
        Some(str_arg(arguments, "from")),
        None,
    )
}
