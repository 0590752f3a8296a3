//! `write_text_file`: replace one regular file named by a lowercase basename in the root.

use serde_json::{Map, Value, json};

use super::{Ptc, PtcError};
use crate::digest::content_hash;
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Ptc> {
    let mut properties = Map::new();
    properties.insert(
        "path".into(),
        json!({"type": "string", "minLength": 1, "description": "A basename of lowercase letters, digits, dots, underscores, or hyphens."}),
    );
    properties.insert("content".into(), json!({"type": "string"}));
    super::tool(
        "write_text_file",
        "Write text file",
        "Replaces one regular file named by a single lowercase basename in the root. The next read sees it.",
        object_schema(properties, &["path", "content"]),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "bytes": {"type": "integer", "minimum": 0},
                "content_hash": {"type": "string"}
            },
            "required": ["path", "bytes", "content_hash"],
            "additionalProperties": false
        }),
        false,
        run,
    )
}

fn run(ptc: &Ptc, arguments: &Map<String, Value>) -> Result<ToolOutput, PtcError> {
    let path = super::string_path(arguments)?;
    let Some(Value::String(content)) = arguments.get("content") else {
        return Err(PtcError::ContentNotString);
    };
    let receipt = ptc.write_text_file(path, content)?;
    Ok(ToolOutput::structured(json!({
        "path": receipt.path,
        "bytes": receipt.bytes,
        "content_hash": receipt.content_hash
    })))
}

/// What a write reports: the path as given, the bytes written and their hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReceipt {
    /// The path exactly as the caller gave it.
    pub path: String,
    /// UTF-8 length of the content.
    pub bytes: u64,
    /// `sha256:` + hex SHA-256 of the content.
    pub content_hash: String,
}

/// `^[a-z0-9][a-z0-9._-]{0,254}$`: one lowercase basename.
fn is_lowercase_basename(path: &str) -> bool {
    let bytes = path.as_bytes();
    (1..=255).contains(&bytes.len())
        && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
        && bytes.iter().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        })
}

impl Ptc {
    /// Replaces or creates the root-level file `path` with `content`, atomically. The checks
    /// run in a fixed order and all of them before the filesystem is touched.
    pub fn write_text_file(&self, path: &str, content: &str) -> Result<WriteReceipt, PtcError> {
        if !is_lowercase_basename(path) {
            return Err(PtcError::WriteName);
        }
        // A device name (`con`, `nul.txt`) fits the basename rule but is no path a read accepts.
        crate::root::RelPath::parse(path)?;
        let limit = self.root.limits().max_write_bytes;
        if content.len() as u64 > limit {
            return Err(PtcError::ContentTooLarge(limit));
        }
        let selector = self.root.selector();
        if selector.excludes(path) {
            return Err(crate::root::RootError::Excluded.into());
        }
        if !selector.selects(path) {
            return Err(if selector.serves_root_level() {
                PtcError::WriteNotIncluded
            } else {
                PtcError::WriteNoRootLevel
            });
        }
        self.root.replace_file(path, content.as_bytes())?;
        Ok(WriteReceipt {
            path: path.to_owned(),
            bytes: content.len() as u64,
            content_hash: content_hash(content.as_bytes()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_lowercase_basename;

    #[test]
    fn basename_rule() {
        for ok in ["a", "0.txt", "notes.md", "a-b_c.d"] {
            assert!(is_lowercase_basename(ok), "{ok}");
        }
        for bad in [
            "",
            "sub/dir.txt",
            "../escape.txt",
            "/absolute.txt",
            "Upper.txt",
            ".hidden",
            "..",
            "has space.txt",
            "null\0.txt",
            "back\\slash.txt",
            &"x".repeat(300),
            "Bad Name",
            "-x",
        ] {
            assert!(!is_lowercase_basename(bad), "{bad:?}");
        }
        assert!(is_lowercase_basename(&"x".repeat(255)));
    }
}
