//! `after`: where the next page of a `list`, `glob` or `grep` answer starts. An answer cut
//! short (by the result limit, `max-results`, a walk's ceiling or the call's deadline) names
//! the last path it covered; given back as `after`, it resumes with what follows that path in
//! tree order, so the pages together hold the whole answer, each entry once. `grep`'s lines
//! resume within a file: `after: "src/lib.rs:120"` takes that file's matches after line 120.
//! Nothing is remembered between calls: a page is the tree as it is when it is asked for.

use std::cmp::Ordering;

use crate::root::compare_tree_order;

use super::{Fs, FsError};

/// The position a continued answer resumes after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct After {
    /// A path from the root.
    path: String,
    /// For `grep`'s lines, the last line of `path` already shown.
    line: Option<u64>,
}

impl Fs {
    /// The `after` argument read: a path as the answers show it (absolute inside the root
    /// too), and with `lines`, optionally `:N` after it. `None` when it is not given.
    pub(super) fn after(&self, given: Option<&str>, lines: bool) -> Result<Option<After>, FsError> {
        let Some(given) = given else {
            return Ok(None);
        };
        let (path, line) = match given.rsplit_once(':') {
            Some((path, line))
                if lines && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) =>
            {
                (path, line.parse().ok())
            }
            _ => (given, None),
        };
        let path = self.parse_path(path)?.path.as_str().to_owned();
        Ok(Some(After { path, line }))
    }
}

impl After {
    /// Whether a walk must enter the directory `dir`: it lies above the position or after it.
    pub(super) fn enters(&self, dir: &str) -> bool {
        dir.is_empty()
            || self
                .path
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
            || compare_tree_order(dir, &self.path) == Ordering::Greater
    }

    /// Whether the next page holds (some of) the file at `path`.
    pub(super) fn keeps(&self, path: &str) -> bool {
        match compare_tree_order(path, &self.path) {
            Ordering::Greater => true,
            Ordering::Equal => self.line.is_some(),
            Ordering::Less => false,
        }
    }

    /// The lines of the file at `path` a previous page showed: its matches up to this line.
    pub(super) fn lines_shown(&self, path: &str) -> u64 {
        if path == self.path {
            self.line.unwrap_or(0)
        } else {
            0
        }
    }
}

/// How a notice tells the caller to continue after `position` (a path, or `path:N` for
/// `grep`'s lines): the argument as it is written in JSON.
pub(super) fn continue_after(position: &str) -> String {
    format!(
        "continue with \"after\": {}",
        serde_json::Value::from(position)
    )
}

/// The position after the whole file `path` in an answer of lines: the path itself, unless
/// it ends in `:` and digits (`logs/run:3`), which `after` would read as a line of another
/// path; that one is followed by the last line there can be.
pub(super) fn past_file(path: &str) -> String {
    match path.rsplit_once(':') {
        Some((_, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{path}:{}", u64::MAX)
        }
        _ => path.to_owned(),
    }
}

/// What naming `position` as a notice's `after` adds to an answer, measured as it travels:
/// an answer keeps this much free for the position of its last entry, so the notice that
/// continues it fits whatever the path (a deep path of CJK names takes kilobytes).
pub(super) fn notice_room(position: &str) -> u64 {
    crate::measure::escaped_len(&serde_json::Value::from(position).to_string())
}

/// What a walk's stop notice naming `path` adds to an answer: the path twice, as the place
/// the answer covers up to and as the position to continue after. A page near its end stops
/// before a path whose walk notice it could not hold.
pub(super) fn walk_notice_room(path: &str) -> u64 {
    2 * notice_room(path)
}

/// A notice's `advice`, led by the `after` that continues the answer when there is a
/// position to continue from.
pub(super) fn or_continue(position: Option<&str>, advice: &str) -> String {
    match position {
        Some(position) => format!("{}, or {advice}", continue_after(position)),
        None => advice.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_reads_as_a_line_is_written_past_its_last_line() {
        assert_eq!(past_file("src/lib.rs"), "src/lib.rs");
        assert_eq!(past_file("logs/run:"), "logs/run:");
        assert_eq!(past_file("logs/run:3"), "logs/run:3:18446744073709551615");
        let at = after("logs/run:3", Some(u64::MAX));
        assert!(at.keeps("logs/run:3") && at.lines_shown("logs/run:3") == u64::MAX);
        assert!(!at.keeps("logs/run"));
    }

    fn after(path: &str, line: Option<u64>) -> After {
        After {
            path: path.to_owned(),
            line,
        }
    }

    #[test]
    fn a_page_resumes_after_its_position_in_tree_order() {
        let at = after("src/io/b.rs", None);
        for dir in ["", "src", "src/io", "src/io/b.rs.d", "src/j", "t"] {
            assert!(at.enters(dir), "{dir}");
        }
        for dir in ["a", "src/a", "src/i", "src/io/a"] {
            assert!(!at.enters(dir), "{dir}");
        }
        assert!(!at.keeps("src/io/b.rs") && !at.keeps("src/io/a.rs") && !at.keeps("a/z"));
        assert!(at.keeps("src/io/c.rs") && at.keeps("src/io.rs") && at.keeps("src/io/b.rs.d/x"));
        let within = after("src/io/b.rs", Some(12));
        assert!(within.keeps("src/io/b.rs"));
        assert_eq!(within.lines_shown("src/io/b.rs"), 12);
        assert_eq!(within.lines_shown("src/io/c.rs"), 0);
    }

    #[test]
    fn the_notice_writes_the_argument_as_json() {
        assert_eq!(
            continue_after("a/b.rs:3"),
            r#"continue with "after": "a/b.rs:3""#
        );
        assert_eq!(continue_after("q\"x"), r#"continue with "after": "q\"x""#);
    }
}
