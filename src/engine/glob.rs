//! `glob`: the files below a directory whose names match a pattern, and the search scope and
//! answer budget it shares with `grep`.
//!
//! [`Engine::glob`] compiles the pattern once ([`FileGlob`]: the glob `rg -g` reads), walks the
//! served tree below the directory with [`Root::tree`] (links are never followed, excluded
//! names never looked at) and keeps, in tree order, the files whose path relative to the
//! directory the pattern keeps.
//!
//! ```no_run
//! # fn demo(engine: &fsmcp::engine::Engine) -> Result<(), fsmcp::engine::EngineError> {
//! let answer = engine.glob("*.md", "notes")?;
//! println!("{}", answer.text); // notes/ideas.md\nnotes/todo.md
//! # Ok(())
//! # }
//! ```
//!
//! [`Root::tree`]: crate::root::Root::tree

use super::error::count;
use super::file_glob::FileGlob;
use super::page::escaped_len;
use super::shown::shown_path;
use super::text::RESULT_HEADROOM;
use super::{Engine, EngineError, FsAnswer, FsError, OverLimit};
use crate::root::{Node, RelPath};

/// Bytes kept free for a stop notice (the longest is under 200 bytes).
const NOTICE_RESERVE: u64 = 256;

/// How many bytes the lines of an answer may take, measured as they travel (JSON-escaped, see
/// [`escaped_len`]): `--max-result-bytes` less the envelope headroom and room for a notice.
pub(super) fn answer_budget(max_result_bytes: u64) -> u64 {
    max_result_bytes.saturating_sub(RESULT_HEADROOM + NOTICE_RESERVE)
}

/// The answer of a search that found nothing.
pub(super) fn no_matches(pattern: &str, path: &str) -> String {
    format!("No matches for '{pattern}' under '{path}'")
}

/// The notice closing an answer cut to fit the result limit (`max_result_bytes`) after `kept`
/// bytes of lines; `narrow` says how to get the rest.
pub(super) fn output_stopped(kept: usize, max_result_bytes: u64, narrow: &str) -> String {
    let over = OverLimit::result_size(
        format!("output stopped at {kept} bytes"),
        max_result_bytes,
        narrow.to_owned(),
    );
    format!("\n\n[{over}]")
}

/// The notice closing an answer whose walk passed over directories deeper than the depth
/// limit (`None` when there were none): how many, and where the first one starts.
pub(super) fn too_deep_notice(too_deep: &[String], max_depth: u64) -> Option<String> {
    let first = too_deep.first()?;
    let mut shown = shown_path(first, false).into_owned();
    if shown.len() > 60 {
        let mut cut = 60;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push('…');
    }
    let which = match too_deep.len() {
        1 => format!("'{shown}', a directory"),
        n => format!(
            "'{shown}' and {}",
            count(n as u64 - 1, "more directory", "more directories")
        ),
    };
    // Narrowing cannot help: depth counts from the root, whatever path was given.
    let over = OverLimit::new(
        "max_depth",
        max_depth,
        format!(
            "not searched: {which} deeper than {}",
            count(max_depth, "level", "levels")
        ),
        None,
    );
    Some(format!("\n\n[{over}]"))
}

/// What a search scope may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScopeKind {
    /// A directory (`glob`).
    Directory,
    /// A directory or a served file (`grep`).
    DirectoryOrFile,
}

impl Engine {
    /// The served files below the directory `path` that `pattern` keeps (read as `rg -g` reads
    /// it: a pattern without `/` matches names at any depth, one with `/` the path below
    /// `path`), in tree order, one per line. A list too long for `--max-result-bytes` stops at a whole path, with a notice.
    pub fn glob(&self, pattern: &str, path: &str) -> Result<FsAnswer, EngineError> {
        let glob = FileGlob::new(pattern, "pattern")?;
        let scope = self.search_scope(path, ScopeKind::Directory)?;
        let walked = self.root().tree(&scope)?;
        let files = &walked.files;
        let budget = answer_budget(self.root().limits().max_result_bytes);
        let mut text = String::new();
        let mut used = 0u64;
        for file in files.iter() {
            if !glob.keeps(relative_to(&scope, &file.path)) {
                continue;
            }
            let shown = shown_path(&file.path, false);
            // A joining newline travels as two bytes (`\n`).
            let cost = escaped_len(&shown) + if text.is_empty() { 0 } else { 2 };
            if used + cost > budget {
                text.push_str(&output_stopped(
                    text.len(),
                    self.root().limits().max_result_bytes,
                    "narrow the pattern or the path",
                ));
                break;
            }
            used += cost;
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&shown);
        }
        if text.is_empty() {
            text = no_matches(pattern, path);
        }
        let max_depth = self.root().limits().max_depth;
        text.extend(too_deep_notice(&walked.too_deep, max_depth));
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }

    /// Resolves the `path` argument of a search into the scope to walk, checking in order the
    /// textual rules, the selector (an excluded path is never looked at), each ancestor (a
    /// real directory, not a link), then what the path itself is. A file is a scope only for
    /// [`ScopeKind::DirectoryOrFile`], and only when the root serves it.
    pub(super) fn search_scope(
        &self,
        given: &str,
        kind: ScopeKind,
    ) -> Result<RelPath, EngineError> {
        let path = self.fs_path(given)?;
        let location = self.served_location(given, &path, true)?;
        let refusal = match location.node() {
            Node::Directory(_) => return Ok(path),
            Node::File(info) if kind == ScopeKind::DirectoryOrFile => {
                if !self.serves_file(&path, &location) {
                    FsError::NotServed
                } else if info.identity.size > self.root().limits().max_file_bytes {
                    return Err(self.too_large(given.to_owned()).into());
                } else {
                    return Ok(path);
                }
            }
            Node::Absent => FsError::Missing,
            Node::Symlink(..) => FsError::ThroughLink,
            Node::File(_) | Node::Other(_) if kind == ScopeKind::Directory => FsError::NotDirectory,
            Node::File(_) | Node::Other(_) => FsError::NotRegular,
        };
        Err(refusal(given.to_owned()).into())
    }
}

/// `path` relative to the directory `scope` that contains it.
/// `path`, a file at or below `scope`, relative to `scope`; a scope that is the file itself
/// leaves its name.
pub(super) fn relative_to<'a>(scope: &RelPath, path: &'a str) -> &'a str {
    if scope.is_root() {
        path
    } else if path == scope.as_str() {
        path.rsplit('/').next().unwrap_or(path)
    } else {
        path.get(scope.as_str().len() + 1..).unwrap_or(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative_to(&RelPath::root(), "a/b.md"), "a/b.md");
        let notes = RelPath::parse("notes").unwrap();
        assert_eq!(relative_to(&notes, "notes/a/b.md"), "a/b.md");
    }

    #[test]
    fn messages() {
        assert_eq!(no_matches("*.zzz", "."), "No matches for '*.zzz' under '.'");
        assert_eq!(
            output_stopped(12, 48_000, "narrow it"),
            "\n\n[output stopped at 12 bytes, as one answer holds at most 48000 bytes (the result limit); narrow it, or raise it with --max-result-bytes (config key limits.max_result_bytes)]"
        );
        // At its largest value the limit cannot be raised, so the notice does not say to.
        assert_eq!(
            output_stopped(12, 1_048_576, "narrow it"),
            "\n\n[output stopped at 12 bytes, as one answer holds at most 1048576 bytes (the result limit); narrow it]"
        );
        let deep = ["a/b".to_owned(), "a/c".to_owned()];
        assert_eq!(too_deep_notice(&[], 3), None);
        assert_eq!(
            too_deep_notice(&deep[..1], 1).unwrap(),
            "\n\n[not searched: 'a/b', a directory deeper than 1 level (the depth limit); raise it with --max-depth (config key limits.max_depth)]"
        );
        assert_eq!(
            too_deep_notice(&deep, 1).unwrap(),
            "\n\n[not searched: 'a/b' and 1 more directory deeper than 1 level (the depth limit); raise it with --max-depth (config key limits.max_depth)]"
        );
        assert!(answer_budget(48_000) < 48_000 - RESULT_HEADROOM);
        assert_eq!(answer_budget(10), 0);
    }
}
