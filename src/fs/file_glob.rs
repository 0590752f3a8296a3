//! The `fs` tools' glob: the pattern language of `glob` and of `grep`'s `glob` filter.
//!
//! A pattern means what it means to `rg --files -g PATTERN` run in the search directory, so
//! an agent's habits carry over unchanged: `**` as a whole segment spans zero or more
//! directories, `{a,b}` picks alternatives, `[...]` is a class, `*` and `?` stay inside one
//! segment (`?` is one byte, as in ripgrep), a pattern without `/` matches a name at any
//! depth, one with `/` the path below the search directory (a leading `/` only anchors), and a
//! leading `!` keeps what does not match. The gitignore-style parsing is the `ignore` crate's
//! override matcher, the very one ripgrep's `-g` uses; the one departure is a leading `#`,
//! which ripgrep reads as a comment (matching everything) and which is literal here.

use ignore::overrides::{Override, OverrideBuilder};

use super::FsError;

/// Longest pattern compiled; no glob a person writes comes near it, and a longer one only
/// costs compile time (100,000 stars take half a second to refuse).
const MAX_GLOB_BYTES: usize = 4096;

/// One compiled pattern.
#[derive(Debug)]
pub(super) struct FileGlob {
    matcher: Override,
    /// A `!` pattern also hides everything below a matching directory, as ripgrep prunes it.
    negated: bool,
}

impl FileGlob {
    /// Compiles `pattern`, given as the argument `argument` (named by a refusal).
    pub(super) fn new(pattern: &str, argument: &'static str) -> Result<FileGlob, FsError> {
        // An all-blank line is no glob to the parser, which would then keep every file.
        if pattern.trim().is_empty() {
            return Err(match argument {
                "glob" => FsError::EmptyGlob,
                _ => FsError::EmptyPattern,
            });
        }
        if pattern.len() > MAX_GLOB_BYTES {
            return Err(FsError::PatternTooLarge(argument));
        }
        let escaped;
        let line = if pattern.starts_with('#') {
            escaped = format!("\\{pattern}");
            &escaped
        } else {
            pattern
        };
        let mut builder = OverrideBuilder::new(".");
        let invalid = |error: ignore::Error| FsError::InvalidGlob {
            argument,
            pattern: pattern.to_owned(),
            reason: reason(&error),
        };
        builder.add(line).map_err(invalid)?;
        let matcher = builder.build().map_err(invalid)?;
        Ok(FileGlob {
            matcher,
            negated: line.starts_with('!'),
        })
    }

    /// Whether the file at `relative` (its path below the search directory) is kept.
    pub(super) fn keeps(&self, relative: &str) -> bool {
        if self.matcher.matched(relative, false).is_ignore() {
            return false;
        }
        !self.negated
            || !relative
                .match_indices('/')
                .any(|(at, _)| self.matcher.matched(&relative[..at], true).is_ignore())
    }
}

/// The glob parser's complaint without the pattern it quotes (the refusal quotes it once).
fn reason(error: &ignore::Error) -> String {
    match error {
        ignore::Error::Glob { err, .. } => err.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keeps(pattern: &str, path: &str) -> bool {
        FileGlob::new(pattern, "pattern")
            .expect("compiles")
            .keeps(path)
    }

    #[test]
    fn dialect() {
        for (pattern, path, expected) in [
            ("*.rs", "a.rs", true),
            ("*.rs", "src/deep/a.rs", true),
            ("**/*.rs", "a.rs", true),
            ("src/**/*.rs", "src/lib.rs", true),
            ("src/**/*.rs", "src/a/b/c.rs", true),
            ("src/**/*.rs", "x/src/lib.rs", false),
            ("src/*.rs", "src/a/b.rs", false),
            ("/a.rs", "a.rs", true),
            ("/a.rs", "d/a.rs", false),
            ("*.{rs,py}", "d/x.py", true),
            ("[ab]*.txt", "b1.txt", true),
            ("[ab]*.txt", "c1.txt", false),
            ("a?c", "a/c", false),
            ("!*.rs", "a.md", true),
            ("!*.rs", "a.rs", false),
            ("!d1", "d1/a.md", false),
            ("#x", "#x", true),
            ("#x", "y", false),
            ("src/", "src/a.rs", false),
            ("A.md", "a.md", false),
        ] {
            assert_eq!(keeps(pattern, path), expected, "{pattern} {path}");
        }
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            FileGlob::new(" ", "glob"),
            Err(FsError::EmptyGlob)
        ));
        let Err(FsError::InvalidGlob { reason, .. }) = FileGlob::new("[ab", "pattern") else {
            panic!("an unclosed class is refused");
        };
        assert!(reason.contains("unclosed"), "{reason}");
        assert!(FileGlob::new(&"*".repeat(MAX_GLOB_BYTES), "pattern").is_ok());
        assert!(matches!(
            FileGlob::new(&"*".repeat(MAX_GLOB_BYTES + 1), "glob"),
            Err(FsError::PatternTooLarge("glob"))
        ));
    }
}
