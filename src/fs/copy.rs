//! `copy`: copy a file, a symbolic link or a directory tree within the root, never
//! overwriting.

use serde_json::{Map, Value};

use super::answer::FsAnswer;
use super::error::count;
use super::locate::{Endpoints, FsPath, Transfer, transfer_arguments, transfer_schema};
use super::revision::Expected;
use super::revision::revisions_value;
use super::{Fs, FsError, Kind, OverLimit, answer};
use crate::root::{CopyError, MAX_COPY_BYTES, Node};
use crate::tools::{Tool, ToolOutput};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "copy",
        "Copy a path",
        "Copies a file, a symbolic link or a directory with everything inside to 'to' under the root, keeping permission bits. A 'to' naming an existing directory (or ending in '/') copies into it, keeping the name. Nothing is overwritten: an existing file at 'to' is an error, as is a missing parent directory.",
        transfer_schema(),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let (from, to, expected) = transfer_arguments(fs, arguments)?;
    answer(
        fs,
        fs.copy_path(&from, &to, expected.as_ref()),
        Some(&from.given),
        Some("copy a smaller directory"),
    )
}

impl Fs {
    /// Copies `from` to `to`; never overwrites, never creates a parent, never follows a link.
    pub(super) fn copy_path(
        &self,
        from_at: &FsPath,
        to_at: &FsPath,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (from_given, to_given) = (from_at.given.as_str(), to_at.given.as_str());
        let _claim = self.claim(&[&from_at.path, &to_at.path])?;
        let Endpoints {
            source,
            source_node,
            target,
            seen,
        } = self.transfer_endpoints(from_at, to_at, Transfer::Copy)?;
        let is_dir = seen.is_some();
        self.check_expected(expected, &[("from", &source), ("to", &target)])?;
        let copied = match &seen {
            Some(seen) => self.root().copy_tree(&source, seen, &target),
            None => self.root().copy_entry(&source, &target),
        };
        let copied = copied.map_err(|e| self.copy_refusal(e, from_given, to_given, is_dir))?;
        let text = match source_node {
            Node::Directory(_) => {
                let mut parts = vec![count(copied.files, "file", "files")];
                if copied.links > 0 {
                    parts.push(count(copied.links, "symbolic link", "symbolic links"));
                }
                parts.push(count(copied.bytes, "byte", "bytes"));
                format!(
                    "Copied directory '{from_given}' to '{to_given}' ({})",
                    parts.join(", ")
                )
            }
            Node::Symlink(..) => format!("Copied symbolic link '{from_given}' to '{to_given}'"),
            _ => format!("Copied file '{from_given}' to '{to_given}'"),
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[
                ("from", self.revision(&source, false)),
                ("to", self.revision(&target, false)),
            ])),
        })
    }

    /// A copy's refusal in the model's words; an entry below the source is named by the
    /// source as given and its path below it.
    fn copy_refusal(&self, error: CopyError, from: &str, to: &str, is_dir: bool) -> FsError {
        let named = |below: String| {
            if below.is_empty() {
                from.to_owned()
            } else {
                format!("{from}/{below}")
            }
        };
        match error {
            CopyError::Exists => FsError::TargetExists(to.to_owned()),
            CopyError::Changed => FsError::CopyRaced(from.to_owned()),
            CopyError::Special(below) => FsError::CopySpecial(named(below)),
            CopyError::LinkOutside(below) => FsError::CopyLinkOutside(named(below)),
            CopyError::Unreadable(below) => FsError::CopyUnreadable(named(below)),
            CopyError::FileTooLarge(below) => FsError::OverLimit(OverLimit::file_size(
                named(below),
                self.root().limits().max_file_bytes,
            )),
            CopyError::TooManyBytes(bytes) => FsError::CopyTooLarge {
                path: from.to_owned(),
                bytes,
                max: MAX_COPY_BYTES,
                directory: is_dir,
            },
            CopyError::NoSpace { needs, free, keeps } => FsError::CopyNoSpace {
                path: from.to_owned(),
                needs,
                free,
                keeps,
                cap: self.root().limits().copy_reserve_bytes,
            },
            CopyError::Root(error) => FsError::Root(error),
            CopyError::Failed => FsError::Refused(to.to_owned()),
        }
    }
}
