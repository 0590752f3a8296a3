//! Replacing one file named by a lowercase basename in the root.

use super::digest::content_hash;
use super::{Engine, EngineError};

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

impl Engine {
    /// Replaces or creates the root-level file `path` with `content`, atomically. The checks
    /// run in a fixed order and all of them before the filesystem is touched.
    pub fn write_text_file(&self, path: &str, content: &str) -> Result<WriteReceipt, EngineError> {
        if !is_lowercase_basename(path) {
            return Err(EngineError::WriteName);
        }
        // A device name (`con`, `nul.txt`) fits the basename rule but is no path a read accepts.
        crate::root::RelPath::parse(path)?;
        let limit = self.root.limits().max_write_bytes;
        if content.len() as u64 > limit {
            return Err(EngineError::ContentTooLarge(limit));
        }
        let selector = self.root.selector();
        if selector.excludes(path) {
            return Err(crate::root::RootError::Excluded.into());
        }
        if !selector.selects(path) {
            return Err(if selector.serves_root_level() {
                EngineError::WriteNotIncluded
            } else {
                EngineError::WriteNoRootLevel
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
