//! The `fs` tools' glob: the pattern language of `glob` and of `grep`'s `glob` filter.
//!
//! A pattern means what it means to `rg --files -g PATTERN DIR` run at the root, so
//! an agent's habits carry over unchanged: `**` as a whole segment spans zero or more
//! directories, `{a,b}` picks alternatives, `[...]` is a class, `*` and `?` stay inside one
//! segment (`?` is one byte, as in ripgrep), a pattern without `/` matches a name at any
//! depth, one with `/` the path from the root (a leading `/` only anchors) whatever directory
//! the call searches, as `rg -g` run at the root reads it, and a leading `!` keeps what does
//! not match. The gitignore-style parsing is the `ignore` crate's
//! override matcher, the very one ripgrep's `-g` uses; the one departure is a leading `#`,
//! which ripgrep reads as a comment (matching everything) and which is literal here.

use ignore::overrides::{Override, OverrideBuilder};

use crate::root::RelPath;

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
    /// The pattern as given, quoted by [`FileGlob::how_read`].
    pattern: String,
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
            pattern: pattern.to_owned(),
        })
    }

    /// Whether the file at `path` (from the root), found by a call searching `scope`, is kept.
    /// A `!` pattern prunes the directories below `scope` it matches, never `scope` or what
    /// holds it: ripgrep judges what it walks into, not the path it was given.
    pub(super) fn keeps(&self, path: &str, scope: &RelPath) -> bool {
        if self.matcher.matched(path, false).is_ignore() {
            return false;
        }
        let below = if scope.is_root() {
            0
        } else {
            scope.as_str().len()
        };
        !self.negated
            || !path
                .match_indices('/')
                .filter(|(at, _)| *at > below)
                .any(|(at, _)| self.matcher.matched(&path[..at], true).is_ignore())
    }

    /// What closes a no-match answer for a pattern naming a path (a `/` before its last
    /// character): that it was matched from the root, and the spellings that reach below
    /// `scope` or any depth. `None` for a name pattern or a `!` one, which no reading explains.
    pub(super) fn how_read(&self, scope: &RelPath) -> Option<String> {
        let pattern = self.pattern.as_str();
        if self.negated || !pattern.trim_end_matches('/').contains('/') {
            return None;
        }
        let unanchored = pattern.trim_start_matches('/');
        let mut ways = Vec::new();
        let below = format!("{}/", scope.as_str());
        if !scope.is_root() && !unanchored.starts_with(&below) && !unanchored.starts_with("**") {
            ways.push(format!(
                "'{below}{unanchored}' to match below '{}'",
                scope.as_str()
            ));
        }
        if !unanchored.starts_with("**/") {
            ways.push(format!("'**/{unanchored}' to match at any depth"));
        }
        let write = match ways.is_empty() {
            true => String::new(),
            false => format!("; write {}", ways.join(", or ")),
        };
        Some(format!(
            "\n\n[the glob '{pattern}' holds a '/', so it is matched against each path from the \
             root, as rg -g reads it{write}]"
        ))
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
            .keeps(path, &RelPath::root())
    }

    #[test]
    fn a_negated_pattern_prunes_below_the_scope_only() {
        let glob = FileGlob::new("!src", "glob").expect("compiles");
        let src = RelPath::parse("src").expect("a path");
        assert!(glob.keeps("src/a/y.rs", &src));
        assert!(!glob.keeps("src/a/y.rs", &RelPath::root()));
        let glob = FileGlob::new("!a", "glob").expect("compiles");
        assert!(!glob.keeps("src/a/y.rs", &src));
        assert!(glob.keeps("src/z.rs", &src));
    }

    #[test]
    fn a_path_pattern_says_how_it_was_read() {
        let src = RelPath::parse("src").expect("a path");
        let how = |pattern: &str, scope: &RelPath| {
            FileGlob::new(pattern, "glob")
                .expect("compiles")
                .how_read(scope)
        };
        assert_eq!(how("*.rs", &src), None);
        assert_eq!(how("src/", &src), None);
        assert_eq!(how("!fs/*.rs", &src), None);
        let told = how("fs/*.rs", &src).expect("a path pattern is explained");
        assert!(
            told.contains("'src/fs/*.rs' to match below 'src'"),
            "{told}"
        );
        assert!(
            told.contains("'**/fs/*.rs' to match at any depth"),
            "{told}"
        );
        let told = how("/fs/*.rs", &RelPath::root()).expect("explained");
        assert!(!told.contains("below"), "{told}");
        assert!(told.contains("'**/fs/*.rs'"), "{told}");
        let told = how("**/fs/*.rs", &src).expect("explained");
        assert!(!told.contains("write"), "{told}");
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
