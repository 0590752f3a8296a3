//! `write`: replace or create a file whose directory exists.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::answer::{FsAnswer, answer_budget};
use super::diff::{Diff, with_diff_schema};
use super::edit::{BOM, EDIT_MAX_BYTES};
use super::error::count;
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, OverLimit, Published, answer, bool_arg, str_arg};
use crate::root::{Location, Node, RootError};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    let mut tool = super::tool(
        Kind::Mutator,
        "write",
        "Write a text file",
        "Writes UTF-8 text to a file under the root, replacing what it held, atomically, and reports the byte count. The parent directory must already exist (create it with mkdir); a directory is never replaced. To change part of an existing file, prefer edit. With dry-run nothing changes and the answer is the unified diff the write would make.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("content", json!({"type": "string"})),
                ("dry-run", json!({"type": "boolean", "default": false})),
            ],
            &["path", "content"],
        ),
        run,
    );
    // Only a dry run returns a diff: a real write never reads what it replaces.
    tool.spec.output_schema = tool
        .spec
        .output_schema
        .map(|schema| with_diff_schema(schema, false));
    tool
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    let content = str_arg(arguments, "content");
    answer(
        fs,
        fs.write_text(
            &at,
            content,
            bool_arg(arguments, "dry-run"),
            expected.as_ref(),
        ),
        Some(&at.given),
        None,
    )
}

impl Fs {
    /// Writes `content` to `path`, replacing what is there; the parent directory must exist.
    /// With `dry_run` it makes every check and changes nothing, answering the diff it would
    /// make.
    pub(super) fn write_text(
        &self,
        at: &FsPath,
        content: &str,
        dry_run: bool,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let limit = self.root().limits().max_write_bytes;
        if content.len() as u64 > limit {
            return Err(FsError::OverLimit(OverLimit::new(
                "max_write_bytes",
                limit,
                format!("content is {} bytes, more than {limit}", content.len()),
                Some(in_parts(&self.published)),
            )));
        }
        if path.is_root() {
            return Err(FsError::IsDirectory(given.to_owned()));
        }
        let _claim = self.claim(&[path])?;
        let location = self.destination(at, true)?;
        match location.node() {
            Node::Directory(_) => return Err(FsError::IsDirectory(given.to_owned())),
            Node::Symlink(..) => return Err(FsError::UnfollowedLink(given.to_owned())),
            Node::Other(_) => return Err(FsError::NotRegular(given.to_owned())),
            Node::Absent | Node::File(_) => {}
        }
        self.check_expected(expected, &[("path", &location)])?;
        let kept_bom = !content.starts_with(BOM) && self.starts_with_bom(&location);
        let content = if kept_bom {
            Cow::Owned(format!("{BOM}{content}"))
        } else {
            Cow::Borrowed(content)
        };
        if dry_run {
            return self.preview_write(at, &location, &content);
        }
        self.commit(given, &location, content.as_bytes())?;
        Ok(FsAnswer {
            text: format!(
                "Wrote {} bytes to '{given}'{}",
                content.len(),
                if kept_bom {
                    " (its leading BOM kept)"
                } else {
                    ""
                }
            ),
            revisions: Some(revisions_value(&[(
                "path",
                Revision::of_bytes(content.as_bytes()),
            )])),
        })
    }

    /// Whether the file at `location` starts with a UTF-8 BOM, which `read` leaves out of the
    /// text it shows: a write of that text keeps it, so a read-modify-write changes only what
    /// the caller changed. A file that cannot be read has none to keep.
    fn starts_with_bom(&self, location: &Location) -> bool {
        if !matches!(location.node(), Node::File(info) if info.identity.size >= 3) {
            return false;
        }
        let Ok(file) = self.root().open_located(location) else {
            return false;
        };
        let mut head = [0u8; 3];
        file.read_exact_at(&mut head, 0).is_ok() && head == *BOM.as_bytes()
    }

    /// What writing `content` over `location` would change, changing nothing: the diff from
    /// what the file holds (from `/dev/null` when there is none), or, for a file whose lines
    /// cannot be shown, `diff`'s `Files … differ` line and why. The revision is the file's as
    /// it is.
    fn preview_write(
        &self,
        at: &FsPath,
        location: &Location,
        content: &str,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), at.path.as_str());
        let limits = self.root().limits();
        let budget = answer_budget(limits.max_result_bytes);
        let replaces = |size: u64| {
            format!(
                "; the write would replace its {} with {}",
                count(size, "byte", "bytes"),
                count(content.len() as u64, "byte", "bytes")
            )
        };
        let unshown = |binary: bool, why: String| {
            Diff::without_lines(path, binary, &format!("[no line diff: {why}]\n"), budget)
        };
        let (diff, revision) = match location.node() {
            Node::File(info) => {
                let size = info.identity.size;
                let file = if size > limits.max_file_bytes || size > EDIT_MAX_BYTES {
                    None
                } else {
                    Some(self.root().open_located(location)?)
                };
                match file {
                    // Past what the root serves or `edit` rewrites, the file is not held in
                    // memory to diff.
                    None => {
                        let why = if size > limits.max_file_bytes {
                            let over =
                                OverLimit::file_size(given.to_owned(), limits.max_file_bytes);
                            format!("{over}{}", replaces(size))
                        } else {
                            format!(
                                "'{given}' is larger than {} (the most a diff reads){}",
                                count(EDIT_MAX_BYTES, "byte", "bytes"),
                                replaces(size)
                            )
                        };
                        (unshown(false, why), self.revision(location, false))
                    }
                    Some(file) => {
                        let bytes = file.read_all()?;
                        let revision = Revision::of_bytes(&bytes);
                        let diff = match std::str::from_utf8(&bytes) {
                            Ok(old) => Diff::of(path, Some(old), content, budget),
                            Err(_) => unshown(
                                true,
                                format!("'{given}' is not UTF-8 text{}", replaces(size)),
                            ),
                        };
                        (diff, revision)
                    }
                }
            }
            // `write_text` refused every other kind of node before this.
            _ => (Diff::of(path, None, content, budget), Revision::of_absent()),
        };
        if diff.is_empty() {
            return Ok(FsAnswer {
                text: format!("'{given}' already holds exactly this content; nothing would change"),
                revisions: Some(revisions_value(&[("path", revision)])),
            });
        }
        let narrow = in_parts(&self.published);
        Ok(diff.preview(revision, limits.max_result_bytes, narrow))
    }

    /// Atomically replaces the file at `location`, reporting failures in the model's terms.
    pub(super) fn commit(
        &self,
        given: &str,
        location: &Location,
        bytes: &[u8],
    ) -> Result<(), FsError> {
        location.write_file(bytes, None).map_err(|e| match e {
            RootError::WriteDenied => FsError::WriteDenied(given.to_owned()),
            _ => FsError::Refused(given.to_owned()),
        })
    }
}

/// How to send a content too large for one write or one dry run's answer, in the `published`
/// names of the tools.
fn in_parts(published: &Published) -> String {
    format!(
        "write a part with {} and add the rest with {}",
        published.fs("write"),
        published.fs("edit")
    )
}
