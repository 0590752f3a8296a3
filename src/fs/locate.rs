//! Shared steps of the model-facing operations: parsing a location argument, checking the
//! selector serves it, and resolving it to a [`Location`], each failure worded for the model.

use super::{Fs, FsError, OverLimit};
use crate::root::{ChainError, Location, Node, RelPath, SeenTree, Unseeable};

/// A location argument, parsed once when the call's arguments are read: the caller's text,
/// which every message about it quotes, beside the path the root resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FsPath {
    /// The argument as the caller wrote it.
    pub(super) given: String,
    /// The path it names.
    pub(super) path: RelPath,
}

impl Fs {
    /// Parses a location argument, naming it as given on failure. An absolute path is taken
    /// when it lies below the root's own path, and is then known by its part below the root
    /// (every answer speaks relative paths); one elsewhere is refused without a word of where
    /// the root is.
    pub(super) fn parse_path(&self, given: &str) -> Result<FsPath, FsError> {
        if std::path::Path::new(given).is_absolute() || given.starts_with('/') {
            let below = self
                .root()
                .below(given)
                .ok_or_else(|| FsError::OutsideRoot(given.to_owned()))?;
            let relative = if below.is_empty() {
                ".".to_owned()
            } else {
                below
            };
            let path =
                RelPath::parse(&relative).map_err(|_| FsError::InvalidPath(given.to_owned()))?;
            return Ok(FsPath {
                given: relative,
                path,
            });
        }
        let path = RelPath::parse(given).map_err(|_| FsError::InvalidPath(given.to_owned()))?;
        Ok(FsPath {
            given: given.to_owned(),
            path,
        })
    }

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
        // `lib.rs/` names a directory: a file there is not what was asked for.
        if given.ends_with('/')
            && !path.is_root()
            && matches!(location.node(), Node::File(_) | Node::Other(_))
        {
            return Err(FsError::FileWithSlash(given.to_owned()));
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
            Node::Symlink(..) => FsError::UnfollowedLink(given),
            Node::Other(_) => FsError::NotRegular(given),
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

    /// The checks a copy and a move share, in order: neither end is the root, a directory
    /// goes nowhere inside itself (by the text given, then by where followed links lead), the
    /// source is there and served, the destination is served, its parent exists and nothing
    /// stands at it, and a directory's whole tree is served both where it is and where it
    /// would be (a transfer may neither bring a hidden entry into view nor put one where no
    /// tool shows it). Called with both paths claimed. Refusals take `transfer`'s words.
    pub(super) fn transfer_endpoints(
        &self,
        from_at: &FsPath,
        to_at: &FsPath,
        transfer: Transfer,
    ) -> Result<Endpoints, FsError> {
        let (from_given, from) = (from_at.given.as_str(), &from_at.path);
        let (to_given, to) = (to_at.given.as_str(), &to_at.path);
        let into_itself = || FsError::MoveIntoItself(from_given.to_owned(), to_given.to_owned());
        if from.is_root() || to.is_root() {
            return Err(match transfer {
                Transfer::Copy => FsError::CopyRoot,
                Transfer::Move => FsError::MoveRoot,
            });
        }
        // A copy onto its own source is refused below as an existing destination.
        if from == to && transfer == Transfer::Move {
            return Err(FsError::AlreadyThere(from_given.to_owned()));
        }
        if from.contains(to.as_str()) && from != to {
            return Err(into_itself());
        }
        let source = self.served_location(from_at, false)?;
        let source_node = source.node();
        match &source_node {
            Node::Absent => return Err(FsError::Missing(from_given.to_owned())),
            Node::Directory(_) => {}
            _ if !self.serves_file(from, &source) => {
                return Err(FsError::NotServed(from_given.to_owned()));
            }
            _ => {}
        }
        let is_dir = matches!(source_node, Node::Directory(_));
        let target = self.destination(to_at, !is_dir)?;
        if !matches!(target.node(), Node::Absent) {
            return Err(FsError::TargetExists(to_given.to_owned()));
        }
        // A followed link can put the destination inside the source where the text does not.
        if is_dir && source.path().contains(target.path().as_str()) {
            return Err(into_itself());
        }
        let seen = if is_dir {
            let selector = self.root().selector();
            let (from_dir, to_dir) = (source.path().as_str(), target.path().as_str());
            // Served here and there; or a cache or dependency directory's, hidden here and
            // there alike: nothing hidden becomes visible.
            let allowed = |p: &str, is_dir: bool| {
                let there = format!("{to_dir}{}", &p[from_dir.len()..]);
                (selector.serves_entry(p, is_dir) && selector.serves_entry(&there, is_dir))
                    || (selector.hidden_rebuilt(p) && selector.hidden_rebuilt(&there))
            };
            match self.root().check_tree(&source, &allowed)? {
                Ok(seen) => Some(seen),
                Err(unseeable) => {
                    let entry = Fs::unseeable_entry(source.path(), from_given, unseeable);
                    let from = from_given.to_owned();
                    return Err(match transfer {
                        Transfer::Copy => FsError::CopyUnserved(from, entry),
                        Transfer::Move => FsError::MoveUnserved(from, entry),
                    });
                }
            }
        } else {
            None
        };
        Ok(Endpoints {
            source,
            source_node,
            target,
            seen,
        })
    }

    /// How a refusal names what a tree check met: the entry's path as the caller spelled the
    /// tree (`given`, for the tree at `top`), quoted, or the directory holding a name no client
    /// could spell.
    pub(super) fn unseeable_entry(top: &RelPath, given: &str, unseeable: Unseeable) -> String {
        let spelled = |path: &str| {
            let below = path.strip_prefix(top.as_str()).unwrap_or(path);
            let given = given.trim_end_matches('/');
            format!("{given}{below}")
        };
        match unseeable {
            Unseeable::Refused(path) => format!("'{}'", spelled(&path)),
            Unseeable::Unspellable(dir) => format!(
                "a name in '{}' that no path can spell (not UTF-8, or a write's temporary file)",
                spelled(&dir)
            ),
        }
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

/// The tool that copies or moves, whose words a refusal takes where the two differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transfer {
    /// `copy`.
    Copy,
    /// `move`.
    Move,
}

/// Both ends of a copy or move, checked by [`Fs::transfer_endpoints`].
#[derive(Debug)]
pub(super) struct Endpoints {
    /// Where the source is.
    pub(super) source: Location,
    /// What the source was when it was checked.
    pub(super) source_node: Node,
    /// Where it goes (nothing there when checked).
    pub(super) target: Location,
    /// The source's tree as checked, when it is a directory.
    pub(super) seen: Option<SeenTree>,
}

/// What a search scope may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScopeKind {
    /// A directory (`glob`).
    Directory,
    /// A directory or a served file (`grep`).
    DirectoryOrFile,
}

/// The input schema of a tool that carries one location to another (`move`, `copy`).
pub(super) fn transfer_schema() -> serde_json::Value {
    crate::tools::object_schema(
        vec![
            ("from", serde_json::json!({"type": "string"})),
            ("to", serde_json::json!({"type": "string"})),
        ],
        &["from", "to"],
    )
}

/// The arguments of such a tool: both locations, parsed, and `_expected-revisions`.
pub(super) fn transfer_arguments(
    fs: &Fs,
    arguments: &serde_json::Map<String, serde_json::Value>,
) -> Result<(FsPath, FsPath, Option<super::revision::Expected>), FsError> {
    let expected = super::revision::Expected::read(arguments)?;
    let from = fs.parse_path(super::str_arg(arguments, "from"))?;
    let to = fs.parse_path(super::str_arg(arguments, "to"))?;
    let to = fs.destination_inside(&from, to)?;
    Ok((from, to, expected))
}

impl Fs {
    /// `mv`'s and `cp`'s "into" form: a `to` that names a served directory (the root too), or
    /// ends in `/`, means that directory's entry of `from`'s name (`from: src/a.rs, to: lib`
    /// → `lib/a.rs`). A `to` ending in `/` must be such a directory. Anything else is `to`
    /// itself. What the result names is checked afterwards like any destination.
    fn destination_inside(&self, from: &FsPath, to: FsPath) -> Result<FsPath, FsError> {
        let slash = to.given.ends_with('/');
        let directory = match self.served_location(&to, false) {
            Ok(location) => matches!(location.node(), Node::Directory(_)),
            Err(refusal) if slash => return Err(refusal),
            Err(_) => false,
        };
        if !directory {
            return if slash {
                Err(FsError::Missing(to.given))
            } else {
                Ok(to)
            };
        }
        // The root's name is no entry to make: moving the root is refused later as ever.
        let Some(name) = from.path.file_name() else {
            return Ok(to);
        };
        let joined = to.path.join(name);
        let given = if to.path.is_root() {
            joined.clone()
        } else {
            format!("{}/{name}", to.given.trim_end_matches('/'))
        };
        let path = RelPath::parse(&joined).map_err(|_| FsError::InvalidPath(given.clone()))?;
        Ok(FsPath { given, path })
    }
}
