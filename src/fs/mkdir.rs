//! `mkdir`: create a directory and any missing parents.

use serde_json::{Map, Value, json};

use super::answer::FsAnswer;
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, answer, str_arg};
use crate::root::{ChainError, CreateError, Node, RelPath};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "mkdir",
        "Create a directory",
        "Creates a directory under the root, with any missing parents. A directory that already exists is not an error, so retrying is safe; a file in the way is.",
        object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    answer(
        fs,
        fs.make_directory(&at, expected.as_ref()),
        Some(&at.given),
        None,
    )
}

impl Fs {
    /// Creates a directory and any missing parents; an existing directory is not an error.
    pub(super) fn make_directory(
        &self,
        at: &FsPath,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let selector = self.root().selector();
        if !path.is_root() && (selector.excludes_ancestor(path) || !selector.selects(path.as_str()))
        {
            return Err(FsError::DestinationNotServed(given.to_owned()));
        }
        let _claim = self.claim(&[&at.path])?;
        if expected.is_some() {
            let current = match self.root().locate(path) {
                Ok(location) => self.revision(&location, true),
                Err(ChainError::Unserved) => {
                    return Err(FsError::DestinationNotServed(given.to_owned()));
                }
                Err(ChainError::ThroughLink) => Revision::unknown(),
                Err(_) => Revision::of_absent(),
            };
            if let Some(expected) = expected {
                expected.check("path", &current)?;
            }
        }
        let mut created = false;
        let depth = path.depth();
        // Steps from the deepest ancestor that is already a directory: each step resolves its
        // prefix from the root, so stepping from the top would cost depth² component opens
        // where a door walks components (Windows, macOS; 37 s at depth 300 under Wine), and
        // most calls create one directory under an existing parent. What stands below it is
        // judged step by step as before.
        let segments: Vec<&str> = path.segments().collect();
        let existing = (1..=depth)
            .rev()
            .find(|&end| {
                RelPath::parse(&segments[..end].join("/"))
                    .ok()
                    .and_then(|prefix| self.root().locate_target(&prefix).ok())
                    .is_some_and(|target| matches!(target.node(), Node::Directory(_)))
            })
            .unwrap_or(0);
        let mut prefix = RelPath::root();
        for (index, segment) in path.segments().enumerate() {
            prefix = RelPath::parse(&prefix.join(segment)).expect("a segment of a parsed path");
            if index < existing {
                continue;
            }
            let last = index + 1 == depth;
            let through_link = || -> FsError { FsError::ThroughLink(given.to_owned()) };
            let in_the_way = || -> FsError { FsError::ExistsNotDirectory(prefix.to_string()) };
            // What stands at this step, with links followed as the root allows.
            let target = self.root().locate_target(&prefix).map_err(|e| match e {
                ChainError::ThroughLink => through_link(),
                ChainError::Unserved => FsError::DestinationNotServed(given.to_owned()),
                _ => in_the_way(),
            })?;
            match target.node() {
                Node::Directory(_) => continue,
                Node::Absent => {}
                Node::Symlink(..) if !last => return Err(through_link()),
                _ => return Err(in_the_way()),
            }
            match target.create_dir() {
                Ok(made) => created |= made,
                Err(CreateError::InTheWay) => return Err(in_the_way()),
                Err(_) => return Err(FsError::Refused(given.to_owned())),
            }
        }
        let location = self.served_location(at, true)?;
        let text = if created {
            format!("Created directory '{given}'")
        } else {
            format!("Directory '{given}' already exists")
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[(
                "path",
                self.revision(&location, false),
            )])),
        })
    }
}
