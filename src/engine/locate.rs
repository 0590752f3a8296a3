//! Shared steps of the model-facing operations: parsing a location argument, checking the
//! selector serves it, and resolving it to a [`Location`], each failure worded for the model.

use super::{Engine, EngineError, FsError, OverLimit};
use crate::root::{ChainError, Location, Node, RelPath};

/// What a model-facing operation answers: its text, and revisions when it has them.
#[derive(Debug, Clone, PartialEq)]
pub struct FsAnswer {
    /// The text the model reads.
    pub text: String,
    /// `structuredContent` (`revisionScheme` and `revisions`), when the tool returns it.
    pub revisions: Option<serde_json::Value>,
}

impl Engine {
    /// Parses a location argument, naming it as given on failure.
    pub(super) fn fs_path(&self, given: &str) -> Result<RelPath, EngineError> {
        RelPath::parse(given).map_err(|_| FsError::InvalidPath(given.to_owned()).into())
    }

    /// Resolves a path that must already exist (or whose absence is the answer), refusing an
    /// excluded one. With `follow`, a link in the last component leads to its target (when the
    /// root follows links). A path the selector does not serve reads the same whether or not
    /// anything is there, so no answer tells an unserved file from an absent one.
    pub(super) fn served_location(
        &self,
        given: &str,
        path: &RelPath,
        follow: bool,
    ) -> Result<Location, EngineError> {
        let selector = self.root().selector();
        let not_served = || -> EngineError { FsError::NotServed(given.to_owned()).into() };
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
            ChainError::ThroughLink => FsError::ThroughLink(given.to_owned()).into(),
            ChainError::Unserved => not_served(),
            ChainError::Missing | ChainError::NotDirectory if unselected => not_served(),
            ChainError::Missing | ChainError::NotDirectory => {
                FsError::Missing(given.to_owned()).into()
            }
        })?;
        if unselected && location.node() == Node::Absent {
            return Err(not_served());
        }
        Ok(location)
    }

    /// Resolves a destination: its parent must exist, and the selector must serve it.
    pub(super) fn destination(
        &self,
        given: &str,
        path: &RelPath,
        must_be_selected: bool,
    ) -> Result<Location, EngineError> {
        let selector = self.root().selector();
        if selector.excludes_ancestor(path)
            || (must_be_selected && !selector.selects(path.as_str()))
        {
            return Err(FsError::DestinationNotServed(given.to_owned()).into());
        }
        self.root().locate_target(path).map_err(|e| match e {
            ChainError::ThroughLink => FsError::ThroughLink(given.to_owned()).into(),
            ChainError::Unserved => FsError::DestinationNotServed(given.to_owned()).into(),
            ChainError::Missing | ChainError::NotDirectory => {
                FsError::ParentMissing(given.to_owned()).into()
            }
        })
    }

    /// Resolves a path that must name a served regular file within `--max-file-bytes`;
    /// `on_directory` words the refusal when it names a directory instead.
    pub(super) fn served_file(
        &self,
        given: &str,
        path: &RelPath,
        on_directory: impl FnOnce(String) -> FsError,
    ) -> Result<Location, EngineError> {
        let location = self.served_location(given, path, true)?;
        let given = given.to_owned();
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
        Err(refusal.into())
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
}
