//! File names matching a pattern below a directory, and the search scope the `fs` readers share.
//!
//! [`Engine::glob`] compiles the pattern once ([`Glob::within_segments`]: `*` and `?` never
//! cross a `/`), walks the served tree below the directory with [`Root::tree`] (links are never
//! followed, excluded names never statted) and keeps the files whose name — or, for a pattern
//! holding a `/`, whose path relative to the directory — matches. [`Engine::search_scope`]
//! turns a client's `path` into the [`RelPath`] to walk, with the `fs` tools' path errors.
//!
//! ```no_run
//! # fn demo(engine: &fsmcp::engine::Engine) -> Result<(), fsmcp::engine::EngineError> {
//! let found = engine.glob("*.md", ".")?;
//! for path in &found.paths {
//!     println!("{path}");
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`Root::tree`]: crate::root::Root::tree

use super::{Engine, EngineError, FsError};
use crate::root::{ChainError, Glob, Node, RelPath};

/// Bytes of a result kept free for the envelope around the answer text.
const ENVELOPE_HEADROOM: u64 = 1024;
/// Bytes kept free for a stop notice (the longest is under 100 bytes).
const NOTICE_RESERVE: u64 = 128;

/// Longest answer text, in UTF-8 bytes, that lines may fill before a stop notice is added:
/// `--max-result-bytes` less the envelope headroom and room for the notice.
pub(super) fn answer_budget(max_result_bytes: u64) -> usize {
    max_result_bytes.saturating_sub(ENVELOPE_HEADROOM + NOTICE_RESERVE) as usize
}

/// What a search scope must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScopeKind {
    /// A directory (`glob`).
    Directory,
    /// A directory or a served file (`grep`).
    DirectoryOrFile,
}

/// The files a glob matched, in tree order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobMatches {
    /// Matching paths relative to the root.
    pub paths: Vec<String>,
    /// When the answer was cut to fit `--max-result-bytes`: the bytes of the paths kept,
    /// joined by `\n`.
    pub stopped_at: Option<usize>,
}

impl Engine {
    /// The served files below the directory `path` whose name matches `pattern` (or, when the
    /// pattern holds a `/`, whose path relative to that directory does), in tree order. The
    /// list stops at a whole path once the paths joined by `\n` would leave no room in
    /// `--max-result-bytes` for a notice.
    pub fn glob(&self, pattern: &str, path: &str) -> Result<GlobMatches, EngineError> {
        if pattern.is_empty() {
            return Err(FsError::EmptyPattern.into());
        }
        let glob = Glob::within_segments(pattern).ok_or(FsError::PatternTooLarge("pattern"))?;
        let scope = self.search_scope(path, ScopeKind::Directory)?;
        let (files, _) = self.root.tree(&scope)?;
        let by_path = pattern.contains('/');
        let budget = answer_budget(self.root.limits().max_result_bytes);
        let mut found = GlobMatches {
            paths: Vec::new(),
            stopped_at: None,
        };
        let mut used = 0usize;
        for file in files {
            let relative = relative_to(&scope, &file.path);
            let subject = if by_path {
                relative
            } else {
                relative.rsplit('/').next().unwrap_or(relative)
            };
            if !glob.is_match(subject) {
                continue;
            }
            let added = file.path.len() + usize::from(!found.paths.is_empty());
            if used + added > budget {
                found.stopped_at = Some(used);
                break;
            }
            used += added;
            found.paths.push(file.path);
        }
        Ok(found)
    }

    /// Resolves the `path` argument of a search into the scope to walk. Checked in order: the
    /// textual rules, the selector (an excluded path is never looked at), each ancestor (a
    /// real directory, not a link), then what the path itself is. A file is a scope only for
    /// `ScopeKind::DirectoryOrFile`, and only when the root serves it.
    pub(super) fn search_scope(&self, path: &str, kind: ScopeKind) -> Result<RelPath, EngineError> {
        let invalid = || FsError::InvalidPath(path.to_owned());
        let scope = RelPath::parse(path).map_err(|_| invalid())?;
        let selector = self.root.selector();
        if selector.excludes_ancestor(&scope) {
            return Err(FsError::NotServed(path.to_owned()).into());
        }
        let location = self.root.locate(&scope).map_err(|e| match e {
            ChainError::ThroughLink => FsError::ThroughLink(path.to_owned()),
            ChainError::Missing | ChainError::NotDirectory => FsError::Missing(path.to_owned()),
        })?;
        match location.node() {
            Node::Directory(_) => Ok(scope),
            Node::File(info) if kind == ScopeKind::DirectoryOrFile => {
                if !selector.selects(scope.as_str()) {
                    Err(FsError::NotServed(path.to_owned()).into())
                } else if info.identity.size > self.root.limits().max_file_bytes {
                    Err(FsError::TooLarge(path.to_owned()).into())
                } else {
                    Ok(scope)
                }
            }
            Node::Absent => Err(FsError::Missing(path.to_owned()).into()),
            Node::Symlink(..) => Err(FsError::ThroughLink(path.to_owned()).into()),
            Node::File(_) | Node::Other(_) if kind == ScopeKind::Directory => {
                Err(FsError::NotDirectory(path.to_owned()).into())
            }
            Node::File(_) | Node::Other(_) => Err(FsError::NotRegular(path.to_owned()).into()),
        }
    }
}

/// `path` relative to the directory `scope` (which contains it).
fn relative_to<'a>(scope: &RelPath, path: &'a str) -> &'a str {
    if scope.is_root() {
        path
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
    fn budget_leaves_room_for_the_envelope_and_a_notice() {
        assert_eq!(answer_budget(48_000), 48_000 - 1024 - 128);
        assert_eq!(answer_budget(10), 0);
    }
}
