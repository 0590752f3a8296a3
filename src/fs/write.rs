//! `write`: replace or create a file whose directory exists.

use serde_json::{Map, Value, json};

use super::answer::FsAnswer;
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, OverLimit, answer, str_arg};
use crate::root::{Location, Node};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Mutator,
        "write",
        "Write a text file",
        "Writes UTF-8 text to a file under the root, replacing what it held, atomically, and reports the byte count. The parent directory must already exist (create it with mkdir); a directory is never replaced. To change part of an existing file, prefer edit.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("content", json!({"type": "string"})),
            ],
            &["path", "content"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = FsPath::parse(str_arg(arguments, "path"))?;
    let content = str_arg(arguments, "content");
    answer(
        fs,
        fs.write_text(&at, content, expected.as_ref()),
        Some(&at.given),
        None,
    )
}

impl Fs {
    /// Writes `content` to `path`, replacing what is there; the parent directory must exist.
    pub(super) fn write_text(
        &self,
        at: &FsPath,
        content: &str,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let limit = self.root().limits().max_write_bytes;
        if content.len() as u64 > limit {
            let published = &self.published;
            return Err(FsError::OverLimit(OverLimit::new(
                "max_write_bytes",
                limit,
                format!("content is {} bytes, more than {limit}", content.len()),
                Some(format!(
                    "write a part with {} and add the rest with {}",
                    published.fs("write"),
                    published.fs("edit")
                )),
            )));
        }
        if path.is_root() {
            return Err(FsError::IsDirectory(given.to_owned()));
        }
        let _guard = self.lock();
        let location = self.destination(at, true)?;
        match location.node() {
            Node::Directory(_) => return Err(FsError::IsDirectory(given.to_owned())),
            Node::Symlink(..) | Node::Other(_) => {
                return Err(FsError::NotRegular(given.to_owned()));
            }
            Node::Absent | Node::File(_) => {}
        }
        self.check_expected(expected, &[("path", &location)])?;
        self.commit(given, &location, content.as_bytes())?;
        Ok(FsAnswer {
            text: format!("Wrote {} bytes to '{given}'", content.len()),
            revisions: Some(revisions_value(&[(
                "path",
                Revision::of_bytes(content.as_bytes()),
            )])),
        })
    }

    /// Atomically replaces the file at `location`, reporting failures in the model's terms.
    pub(super) fn commit(
        &self,
        given: &str,
        location: &Location,
        bytes: &[u8],
    ) -> Result<(), FsError> {
        location
            .write_file(bytes, None)
            .map_err(|_| FsError::Refused(given.to_owned()))
    }
}
