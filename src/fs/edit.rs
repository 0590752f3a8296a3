//! `edit`: replace one exact run of text (or every run, with `replace-all`).

use std::borrow::Cow;

use serde_json::{Map, Value, json};
use unicode_normalization::UnicodeNormalization;

use super::answer::{FsAnswer, answer_budget};
use super::diff::{Diff, STRUCTURED_BYTES, with_diff_schema};
use super::locate::FsPath;
use super::revision::Expected;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, OverLimit, answer, bool_arg, str_arg};
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    let mut tool = super::tool(
        Kind::Mutator,
        "edit",
        "Edit a text file",
        "Replaces old-string with new-string in a UTF-8 file under the root. old-string must occur exactly as in the file (whitespace, indentation and line endings included) and exactly once, unless replace-all is true; zero or several matches are an error that changes nothing. An empty new-string deletes the match. Every byte outside the match is kept. With dry-run nothing changes and the answer is the unified diff the edit would make.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("old-string", json!({"type": "string"})),
                ("new-string", json!({"type": "string"})),
                ("replace-all", json!({"type": "boolean", "default": false})),
                ("dry-run", json!({"type": "boolean", "default": false})),
            ],
            &["path", "old-string", "new-string"],
        ),
        run,
    );
    // Every edit, real or not, returns its diff for a host to show.
    tool.spec.output_schema = tool
        .spec
        .output_schema
        .map(|schema| with_diff_schema(schema, true));
    tool
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    let replace_all = bool_arg(arguments, "replace-all");
    answer(
        fs,
        fs.edit_text(
            &at,
            str_arg(arguments, "old-string"),
            str_arg(arguments, "new-string"),
            replace_all,
            bool_arg(arguments, "dry-run"),
            expected.as_ref(),
        ),
        Some(&at.given),
        None,
    )
}

/// A UTF-8 byte order mark, as text: kept at the head of a file by `edit` and `write`.
pub(super) const BOM: &str = "\u{feff}";

/// Largest file `edit` rewrites: it holds the old and the new text in memory at once.
pub const EDIT_MAX_BYTES: u64 = 64 << 20;

impl Fs {
    /// Replaces one exact run of text in `path` (every run with `replace_all`). With `dry_run`
    /// it makes every check and changes nothing, answering the diff it would make.
    pub(super) fn edit_text(
        &self,
        at: &FsPath,
        old: &str,
        new: &str,
        replace_all: bool,
        dry_run: bool,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let given = at.given.as_str();
        if old.is_empty() {
            return Err(FsError::EmptyOldString);
        }
        if old == new {
            return Err(FsError::IdenticalStrings);
        }
        let _claim = self.claim(&[&at.path])?;
        let location = self.served_file(at, FsError::IsDirectory)?;
        self.check_expected(expected, &[("path", &location)])?;
        let file = self.root().open_located(&location)?;
        if file.size() > EDIT_MAX_BYTES {
            let published = &self.published;
            return Err(FsError::TooLargeToEdit {
                path: given.to_owned(),
                max: EDIT_MAX_BYTES,
                edit: published.fs("edit"),
                write: published.fs("write"),
                moved: published.fs("move"),
            });
        }
        let bytes = file.read_all()?;
        // Closed before the write: Windows replaces a file only when no handle of ours holds it.
        drop(file);
        let text = String::from_utf8(bytes).map_err(|_| FsError::NotText(given.to_owned()))?;
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(body) => (BOM, body),
            None => ("", text.as_str()),
        };
        // Models quote lines with `\n`: in a file whose every line ends in `\r\n`, both strings
        // are taken in that file's line ending. A file that mixes them is matched exactly.
        let crlf = all_crlf(body);
        let (old, new) = if crlf {
            (in_crlf(old), in_crlf(new))
        } else {
            (Cow::Borrowed(old), Cow::Borrowed(new))
        };
        let (old, new) = (old.as_ref(), new.as_ref());
        if old == new {
            return Err(FsError::IdenticalStrings);
        }
        let count = body.matches(old).count();
        if count == 0 {
            return Err(no_occurrence(given, body, old, &self.published.fs("read")));
        }
        if count > 1 && !replace_all {
            return Err(FsError::ManyOccurrences(count, given.to_owned()));
        }
        // The result's size is known before it is built: an edit may grow the file by no more
        // than a write may send, so a short `new-string` repeated cannot exhaust memory.
        let grown = (new.len() as u64)
            .saturating_sub(old.len() as u64)
            .saturating_mul(count as u64);
        let limit = self.root().limits().max_write_bytes;
        if grown > limit {
            return Err(FsError::OverLimit(OverLimit::new(
                "max_write_bytes",
                limit,
                format!("The edit would add {grown} bytes to '{given}', more than {limit}"),
                Some("replace fewer occurrences or a shorter text".to_owned()),
            )));
        }
        let replaced = if replace_all {
            body.replace(old, new)
        } else {
            body.replacen(old, new, 1)
        };
        let output = format!("{bom}{replaced}");
        let max_result_bytes = self.root().limits().max_result_bytes;
        let path = at.path.as_str();
        // Where the replaced runs start in the whole text, as `replace` and `replacen` find them.
        let runs = body
            .match_indices(old)
            .take(if replace_all { usize::MAX } else { 1 })
            .map(|(i, _)| i + bom.len());
        let lengths = (old.len(), new.len());
        if dry_run {
            let budget = answer_budget(max_result_bytes);
            let diff = Diff::of_replacements(path, &text, &output, runs, lengths, budget);
            let narrow = "replace fewer occurrences or a shorter text".to_owned();
            let revision = Revision::of_bytes(text.as_bytes());
            return Ok(diff.preview(revision, max_result_bytes, narrow));
        }
        let diff = Diff::of_replacements(path, &text, &output, runs, lengths, STRUCTURED_BYTES);
        // A call past its deadline (or cancelled) changes nothing: its caller has given up.
        crate::root::check_deadline()?;
        self.commit(given, &location, output.as_bytes())?;
        let noun = if count == 1 {
            "occurrence"
        } else {
            "occurrences"
        };
        let mut revisions = revisions_value(&[("path", Revision::of_bytes(output.as_bytes()))]);
        revisions["diff"] = diff.structured().into();
        Ok(FsAnswer {
            text: format!(
                "Replaced {count} {noun} in '{given}'; wrote {} bytes",
                output.len()
            ),
            revisions: Some(revisions),
        })
    }
}

/// Whether `body` has line breaks and every one of them is `\r\n`.
fn all_crlf(body: &str) -> bool {
    let bytes = body.as_bytes();
    let mut breaks = memchr::memchr_iter(b'\n', bytes).peekable();
    breaks.peek().is_some() && breaks.all(|i| i > 0 && bytes[i - 1] == b'\r')
}

/// `text` with every line break written `\r\n` (a `\r\n` already there stays one).
fn in_crlf(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\n', "\r\n"))
}

/// The refusal for an `old-string` found nowhere in `body`: it says so plainly, unless the
/// text is there with other line endings (in a file that mixes them, where matching is exact)
/// or with its characters composed differently (a model's quote is often in another Unicode
/// normalization form than the file), which it then names, pointing at `read` (the published
/// name of the tool that shows the file's text exactly).
fn no_occurrence(given: &str, body: &str, old: &str, read: &str) -> FsError {
    let other_ending = if old.contains("\r\n") {
        old.replace("\r\n", "\n")
    } else {
        old.replace('\n', "\r\n")
    };
    if other_ending != old && body.contains(&other_ending) {
        return FsError::OtherLineEnding(given.to_owned());
    }
    let composed = |text: &str| text.nfc().collect::<String>();
    if composed(body).contains(&composed(old)) {
        FsError::OtherNormalization {
            path: given.to_owned(),
            read: read.to_owned(),
        }
    } else {
        FsError::NoOccurrence(given.to_owned())
    }
}
