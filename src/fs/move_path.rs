//! `move`: rename a file or directory within the root, never overwriting.

use serde_json::{Map, Value};

use super::answer::FsAnswer;
use super::locate::{Endpoints, FsPath, Transfer, transfer_arguments, transfer_schema};
use super::revision::Expected;
use super::revision::revisions_value;
use super::{Fs, FsError, Kind, answer};
use crate::root::MoveError;
use crate::tools::{Tool, ToolOutput};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "move",
        "Move or rename",
        "Renames a file or directory, or moves it elsewhere under the root; a directory moves with everything inside. A 'to' naming an existing directory (or ending in '/') moves 'from' into it, keeping its name. Nothing is overwritten: an existing file at 'to' is an error, as is a missing parent directory (create it with mkdir). A move is a rename and never copies.",
        transfer_schema(),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let (from, to, expected) = transfer_arguments(fs, arguments)?;
    answer(
        fs,
        fs.move_path(&from, &to, expected.as_ref()),
        Some(&from.given),
        None,
    )
}

impl Fs {
    /// Renames `from` to `to`; never overwrites, never copies, never creates a parent.
    pub(super) fn move_path(
        &self,
        from_at: &FsPath,
        to_at: &FsPath,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (from_given, to_given) = (from_at.given.as_str(), to_at.given.as_str());
        let _claim = self.claim(&[&from_at.path, &to_at.path])?;
        let Endpoints { source, target, .. } =
            self.transfer_endpoints(from_at, to_at, Transfer::Move)?;
        self.check_expected(expected, &[("from", &source), ("to", &target)])?;
        source.rename_to(&target).map_err(|e| -> FsError {
            match e {
                MoveError::Exists => FsError::TargetExists(to_given.to_owned()),
                MoveError::Missing => FsError::Missing(from_given.to_owned()),
                MoveError::IntoItself => {
                    FsError::MoveIntoItself(from_given.to_owned(), to_given.to_owned())
                }
                MoveError::CrossDevice => {
                    FsError::CrossDevice(from_given.to_owned(), to_given.to_owned())
                }
                MoveError::Failed => FsError::Refused(from_given.to_owned()),
            }
        })?;
        Ok(FsAnswer {
            text: format!("Moved '{from_given}' to '{to_given}'"),
            revisions: Some(revisions_value(&[
                ("from", self.revision(&source, false)),
                ("to", self.revision(&target, false)),
            ])),
        })
    }
}
