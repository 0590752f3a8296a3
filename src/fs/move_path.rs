//! `move`: rename a file or directory within the root, never overwriting.

use serde_json::{Map, Value, json};

use super::answer::FsAnswer;
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::revisions_value;
use super::{Fs, FsError, Kind, answer, str_arg};
use crate::root::{MoveError, Node};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "move",
        "Move or rename",
        "Renames a file or directory, or moves it elsewhere under the root; a directory moves with everything inside. Nothing is overwritten: an existing 'to' is an error, as is a missing parent directory of 'to' (create it with mkdir). A move is a rename and never copies.",
        object_schema(
            vec![
                ("from", json!({"type": "string"})),
                ("to", json!({"type": "string"})),
            ],
            &["from", "to"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let from = FsPath::parse(str_arg(arguments, "from"))?;
    let to = FsPath::parse(str_arg(arguments, "to"))?;
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
        let (from_given, from) = (from_at.given.as_str(), &from_at.path);
        let (to_given, to) = (to_at.given.as_str(), &to_at.path);
        if from.is_root() || to.is_root() {
            return Err(FsError::MoveRoot);
        }
        if from.contains(to.as_str()) {
            return Err(FsError::MoveIntoItself(
                from_given.to_owned(),
                to_given.to_owned(),
            ));
        }
        let _guard = self.lock();
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
        if is_dir {
            // A move changes what is served only by the entries it moves: each must be
            // served both where it is and where it would go, or nothing moves.
            let selector = self.root().selector();
            let (from_dir, to_dir) = (source.path().as_str(), target.path().as_str());
            let allowed = |p: &str, is_dir: bool| {
                let moved = format!("{to_dir}{}", &p[from_dir.len()..]);
                selector.serves_entry(p, is_dir) && selector.serves_entry(&moved, is_dir)
            };
            if self.root().check_tree(&source, &allowed)?.is_none() {
                return Err(FsError::MoveUnserved(from_given.to_owned()));
            }
        }
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
