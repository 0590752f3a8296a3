//! `delete`: remove a file, a link, an empty directory, or a whole tree.

use serde_json::{Map, Value, json};

use super::answer::FsAnswer;
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, answer, bool_arg, str_arg};
use crate::root::{Node, Removal, RemoveError, RootError};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "delete",
        "Delete a path",
        "Deletes a file, a symbolic link (the link, never its target) or an empty directory under the root. With recursive true it deletes a directory and everything below it, with no undo; it refuses when the tree holds anything this root does not serve. The root itself is never deleted.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("recursive", json!({"type": "boolean", "default": false})),
            ],
            &["path"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    let recursive = bool_arg(arguments, "recursive");
    answer(
        fs,
        fs.delete_path(&at, recursive, expected.as_ref()),
        Some(&at.given),
        Some("delete a directory further down first"),
    )
}

impl Fs {
    /// Deletes a file, a link, an empty directory, or with `recursive` a whole served tree.
    pub(super) fn delete_path(
        &self,
        at: &FsPath,
        recursive: bool,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        if path.is_root() {
            return Err(FsError::DeleteRoot);
        }
        let _claim = self.claim(&[&at.path])?;
        let location = self.served_location(at, false)?;
        let node = location.node();
        match &node {
            Node::Absent => return Err(FsError::Missing(given.to_owned())),
            Node::File(_) | Node::Other(_) if !self.serves_file(path, &location) => {
                return Err(FsError::NotServed(given.to_owned()));
            }
            _ => {}
        }
        self.check_expected(expected, &[("path", &location)])?;
        let refused = |_| -> FsError { FsError::Refused(given.to_owned()) };
        let text = match node {
            Node::Directory(_) => match location.remove(true) {
                Ok(()) => format!("Deleted empty directory '{given}'"),
                Err(RemoveError::NotEmpty) => {
                    if !recursive {
                        return Err(FsError::NotEmpty(given.to_owned()));
                    }
                    let selector = self.root().selector();
                    // What it serves, and the caches and dependency directories that go with
                    // the tree holding them.
                    let allowed = |p: &str, is_dir: bool| {
                        selector.serves_entry(p, is_dir) || selector.hidden_rebuilt(p)
                    };
                    let seen = match self.root().check_tree(&location, &allowed)? {
                        Ok(seen) => seen,
                        Err(unseeable) => {
                            let entry = Fs::unseeable_entry(location.path(), given, unseeable);
                            return Err(FsError::DeleteUnserved(given.to_owned(), entry));
                        }
                    };
                    match self.root().remove_seen(&location, &seen)? {
                        Removal::Complete => {}
                        Removal::LeftUnseen => {
                            return Err(FsError::DeleteRaced(given.to_owned()));
                        }
                        Removal::Stopped { removed, cause } => {
                            let why = match cause {
                                RootError::Cancelled => "when the call was cancelled".to_owned(),
                                _ => {
                                    let seconds = self.root().limits().max_call_seconds;
                                    format!(
                                        "at the call's deadline ({seconds} s, --max-call-seconds)"
                                    )
                                }
                            };
                            return Err(FsError::DeleteStopped {
                                path: given.to_owned(),
                                why,
                                removed,
                                total: seen.len() as u64 + 1,
                            });
                        }
                    }
                    format!("Deleted directory '{given}' and everything below it")
                }
                Err(e) => return Err(refused(e)),
            },
            Node::Symlink(..) => {
                location.remove(false).map_err(refused)?;
                format!("Deleted symbolic link '{given}'")
            }
            _ => {
                location.remove(false).map_err(refused)?;
                format!("Deleted file '{given}'")
            }
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", Revision::of_absent())])),
        })
    }
}
