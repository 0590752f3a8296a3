//! `read`: a file's text, whole or as a numbered window.

use serde_json::{Map, Value, json};

use super::{Kind, answer, object_schema, str_arg};
use crate::engine::{Engine, EngineError};
use crate::tools::{ToolOutput, ToolSpec, positive_safe_integer};

pub(super) fn spec() -> ToolSpec {
    super::spec(
        Kind::Observer,
        "read",
        "Read a text file",
        "Reads a UTF-8 text file under the root. Without offset or limit it returns the whole text (exact characters, one leading byte-order mark dropped, line endings kept), which edit can match. With offset (1-based line) and/or limit it returns numbered lines ('N<TAB>text') and a footer '[lines A-B of N total]'; strip the numbers before quoting text to edit. A file too large for one answer comes back as its first window; the footer says which offset continues.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("offset", json!({"type": "integer", "minimum": 1})),
                ("limit", json!({"type": "integer", "minimum": 1})),
            ],
            &["path"],
        ),
        call,
    )
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<ToolOutput, EngineError> {
    let offset = arguments.get("offset").and_then(positive_safe_integer);
    let limit = arguments.get("limit").and_then(positive_safe_integer);
    answer(
        engine,
        engine.read_text(str_arg(arguments, "path"), offset, limit),
        Some(str_arg(arguments, "path")),
        None,
    )
}
