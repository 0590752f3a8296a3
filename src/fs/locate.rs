//! Shared steps of the model-facing operations: parsing a location argument, checking the
//! selector serves it, and resolving it to a [`Location`], each failure worded for the model.

use super::{Fs, FsError, OverLimit};
use crate::root::{ChainError, Location, Node, RelPath};

/// A location argument, parsed once when the call's arguments are read: the caller's text,
/// which every message about it quotes, beside the path the root resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FsPath {
    /// The argument as the caller wrote it.
    pub(super) given: String,
    /// The path it names.
    pub(super) path: RelPath,
}

impl FsPath {
    /// Parses a location argument, naming it as given on failure.
    pub(super) fn parse(given: &str) -> Result<FsPath, FsError> {
        let path = RelPath::parse(given).map_err(|_| FsError::InvalidPath(given.to_owned()))?;
        Ok(FsPath {
            given: given.to_owned(),
            path,
        })
    }
}

impl Fs {
    /// Resolves a path that must already exist (or whose absence is the answer), refusing an
    /// excluded one. With `follow`, a link in the last component leads to its target (when the
    /// root follows links). A path the selector does not serve reads the same whether or not
    /// anything is there, so no answer tells an unserved file from an absent one.
    pub(super) fn served_location(&self, at: &FsPath, follow: bool) -> Result<Location, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let selector = self.root().selector();
        let not_served = || -> FsError { FsError::NotServed(given.to_owned()) };
        if selector.excludes_ancestor(path) {
            return Err(not_served());
        }
        let located = if follow {
            self.root().locate_target(path)
        } else {
            self.root().locate(path)
        };
        let unselected = !path.is_root() && !selector.selects(path.as_str());
        let location = located.map_err(|e| match e {
            ChainError::ThroughLink => FsError::ThroughLink(given.to_owned()),
            ChainError::Unserved => not_served(),
            ChainError::Missing | ChainError::NotDirectory if unselected => not_served(),
            ChainError::Missing | ChainError::NotDirectory => FsError::Missing(given.to_owned()),
        })?;
        if unselected && location.node() == Node::Absent {
            return Err(not_served());
        }
        Ok(location)
    }

    /// Resolves a destination: its parent must exist, and the selector must serve it.
    pub(super) fn destination(
        &self,
        at: &FsPath,
        must_be_selected: bool,
    ) -> Result<Location, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let selector = self.root().selector();
        if selector.excludes_ancestor(path)
            || (must_be_selected && !selector.selects(path.as_str()))
        {
            return Err(FsError::DestinationNotServed(given.to_owned()));
        }
        self.root().locate_target(path).map_err(|e| match e {
            ChainError::ThroughLink => FsError::ThroughLink(given.to_owned()),
            ChainError::Unserved => FsError::DestinationNotServed(given.to_owned()),
            ChainError::Missing | ChainError::NotDirectory => {
                FsError::ParentMissing(given.to_owned())
            }
        })
    }

    /// Resolves a path that must name a served regular file within `--max-file-bytes`;
    /// `on_directory` words the refusal when it names a directory instead.
    pub(super) fn served_file(
        &self,
        at: &FsPath,
        on_directory: impl FnOnce(String) -> FsError,
    ) -> Result<Location, FsError> {
        let location = self.served_location(at, true)?;
        let (given, path) = (at.given.clone(), &at.path);
        let refusal = match location.node() {
            Node::File(_) if !self.serves_file(path, &location) => FsError::NotServed(given),
            Node::File(info) if info.identity.size > self.root().limits().max_file_bytes => {
                self.too_large(given)
            }
            Node::File(_) => return Ok(location),
            Node::Absent => FsError::Missing(given),
            Node::Directory(_) => on_directory(given),
            Node::Symlink(..) | Node::Other(_) => FsError::NotRegular(given),
        };
        Err(refusal)
    }

    /// The refusal of the file `given`, larger than `--max-file-bytes`.
    pub(super) fn too_large(&self, given: String) -> FsError {
        FsError::OverLimit(OverLimit::file_size(
            given,
            self.root().limits().max_file_bytes,
        ))
    }

    /// Whether the selector serves the file at `path`, and the file a followed link led to.
    pub(super) fn serves_file(&self, path: &RelPath, location: &Location) -> bool {
        let selector = self.root().selector();
        selector.selects(path.as_str()) && selector.selects(location.path().as_str())
    }

    /// Resolves the `path` argument of a search into the scope to walk, checking in order the
    /// textual rules, the selector (an excluded path is never looked at), each ancestor (a
    /// real directory, not a link), then what the path itself is. A file is a scope only for
    /// [`ScopeKind::DirectoryOrFile`], and only when the root serves it.
    pub(super) fn search_scope(&self, at: &FsPath, kind: ScopeKind) -> Result<RelPath, FsError> {
        let (given, path) = (at.given.as_str(), at.path.clone());
        let location = self.served_location(at, true)?;
        let refusal = match location.node() {
            Node::Directory(_) => return Ok(path),
            Node::File(info) if kind == ScopeKind::DirectoryOrFile => {
                if !self.serves_file(&path, &location) {
                    FsError::NotServed
                } else if info.identity.size > self.root().limits().max_file_bytes {
                    return Err(self.too_large(given.to_owned()));
                } else {
                    return Ok(path);
                }
            }
            Node::Absent => FsError::Missing,
            Node::Symlink(..) => FsError::ThroughLink,
            Node::File(_) | Node::Other(_) if kind == ScopeKind::Directory => FsError::NotDirectory,
            Node::File(_) | Node::Other(_) => FsError::NotRegular,
        };
        Err(refusal(given.to_owned()))
    }
}

/// What a search scope may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScopeKind {
    /// A directory (`glob`).
    Directory,
    /// A directory or a served file (`grep`).
    DirectoryOrFile,
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
}
