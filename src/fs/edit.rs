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
    let one_edit = || {
        object_schema(
            vec![
                ("old-string", json!({"type": "string"})),
                ("new-string", json!({"type": "string"})),
                ("replace-all", json!({"type": "boolean", "default": false})),
            ],
            &["old-string", "new-string"],
        )
    };
    let mut tool = super::tool(
        Kind::Mutator,
        "edit",
        "Edit a text file",
        "Replaces old-string with new-string in a UTF-8 file under the root. old-string must occur exactly as in the file (whitespace, indentation and line endings included) and exactly once, unless replace-all is true; zero or several matches are an error that changes nothing. An empty new-string deletes the match. Several edits go in 'edits' instead, applied in order to one file, all or none. Every byte outside the matches is kept. With dry-run nothing changes and the answer is the unified diff the edit would make.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("old-string", json!({"type": "string"})),
                ("new-string", json!({"type": "string"})),
                ("replace-all", json!({"type": "boolean", "default": false})),
                (
                    "edits",
                    json!({"type": "array", "items": one_edit(), "minItems": 1, "maxItems": MAX_EDITS}),
                ),
                ("dry-run", json!({"type": "boolean", "default": false})),
            ],
            &["path"],
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

/// Most edits one call applies.
const MAX_EDITS: usize = 100;

/// One replacement asked for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Replacement<'a> {
    /// The text to find.
    pub old: &'a str,
    /// Its replacement.
    pub new: &'a str,
    /// Every occurrence rather than exactly one.
    pub all: bool,
}

/// One edit's arguments.
fn replacement(edit: &Map<String, Value>) -> Replacement<'_> {
    Replacement {
        old: str_arg(edit, "old-string"),
        new: str_arg(edit, "new-string"),
        all: bool_arg(edit, "replace-all"),
    }
}

/// The replacements of a call: `old-string` and `new-string` (one), or `edits` (several).
fn replacements(arguments: &Map<String, Value>) -> Result<(Vec<Replacement<'_>>, bool), FsError> {
    let has = |key| arguments.contains_key(key);
    match arguments.get("edits").and_then(Value::as_array) {
        Some(_) if has("old-string") || has("new-string") => Err(FsError::EditsAndStrings),
        Some(edits) => Ok((
            edits
                .iter()
                .filter_map(Value::as_object)
                .map(replacement)
                .collect(),
            true,
        )),
        None if has("old-string") && has("new-string") => Ok((vec![replacement(arguments)], false)),
        None => Err(FsError::NoEdit),
    }
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let expected = Expected::read(arguments)?;
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    let edited = replacements(arguments).and_then(|(replacements, listed)| {
        fs.edit_text(
            &at,
            &replacements,
            listed,
            bool_arg(arguments, "dry-run"),
            expected.as_ref(),
        )
    });
    answer(fs, edited, Some(&at.given), None)
}

pub(super) const BOM: &str = "\u{feff}";

/// Largest file `edit` rewrites: it holds the old and the new text in memory at once.
pub const EDIT_MAX_BYTES: u64 = 64 << 20;

impl Fs {
    /// Applies `replacements` to `path` in order, each to the text the ones before it left,
    /// all or none (each one exact run of text, every run with its `all`). `listed` says they
    /// came as `edits`: a refusal then names the edit. With `dry_run` it makes every check and
    /// changes nothing, answering the diff it would make.
    pub(super) fn edit_text(
        &self,
        at: &FsPath,
        replacements: &[Replacement<'_>],
        listed: bool,
        dry_run: bool,
        expected: Option<&Expected>,
    ) -> Result<FsAnswer, FsError> {
        let given = at.given.as_str();
        let in_edit = |index: usize, error: FsError| {
            if listed {
                FsError::InEdit(index, Box::new(error))
            } else {
                error
            }
        };
        for (index, replacement) in replacements.iter().enumerate() {
            if replacement.old.is_empty() {
                return Err(in_edit(index, FsError::EmptyOldString));
            }
            if replacement.old == replacement.new {
                return Err(in_edit(index, FsError::IdenticalStrings));
            }
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
        let limit = self.root().limits().max_write_bytes;
        let mut current = Cow::Borrowed(body);
        let mut grown = 0u64;
        let mut total = 0usize;
        // The runs of a single edit, for a diff that shows exactly them.
        let mut runs = Vec::new();
        let mut lengths = (0, 0);
        for (index, replacement) in replacements.iter().enumerate() {
            let (old, new) = if crlf {
                (in_crlf(replacement.old), in_crlf(replacement.new))
            } else {
                (
                    Cow::Borrowed(replacement.old),
                    Cow::Borrowed(replacement.new),
                )
            };
            let (old, new) = (old.as_ref(), new.as_ref());
            if old == new {
                return Err(in_edit(index, FsError::IdenticalStrings));
            }
            let count = current.matches(old).count();
            if count == 0 {
                let read = self.published.fs("read");
                return Err(in_edit(index, no_occurrence(given, &current, old, &read)));
            }
            if count > 1 && !replacement.all {
                return Err(in_edit(
                    index,
                    FsError::ManyOccurrences(count, given.to_owned()),
                ));
            }
            // The result's size is known before it is built: the edits together may grow the
            // file by no more than a write may send, so a short `new-string` repeated cannot
            // exhaust memory.
            grown = grown.saturating_add(
                (new.len() as u64)
                    .saturating_sub(old.len() as u64)
                    .saturating_mul(count as u64),
            );
            if grown > limit {
                return Err(FsError::OverLimit(OverLimit::new(
                    "max_write_bytes",
                    limit,
                    format!("The edit would add {grown} bytes to '{given}', more than {limit}"),
                    Some("replace fewer occurrences or a shorter text".to_owned()),
                )));
            }
            if replacements.len() == 1 {
                // Where the replaced runs start in the whole text, as `replace` and `replacen`
                // find them.
                runs = current
                    .match_indices(old)
                    .take(if replacement.all { usize::MAX } else { 1 })
                    .map(|(i, _)| i + bom.len())
                    .collect();
                lengths = (old.len(), new.len());
            }
            current = Cow::Owned(if replacement.all {
                current.replace(old, new)
            } else {
                current.replacen(old, new, 1)
            });
            total += count;
            crate::root::check_deadline()?;
        }
        let output = format!("{bom}{current}");
        let max_result_bytes = self.root().limits().max_result_bytes;
        let path = at.path.as_str();
        let diff_of = |budget: u64| {
            if replacements.len() == 1 {
                Diff::of_replacements(path, &text, &output, runs.iter().copied(), lengths, budget)
            } else {
                Diff::of(path, Some(&text), &output, budget)
            }
        };
        if dry_run {
            let diff = diff_of(answer_budget(max_result_bytes));
            let narrow = "replace fewer occurrences or a shorter text".to_owned();
            let revision = Revision::of_bytes(text.as_bytes());
            return Ok(diff.preview(revision, max_result_bytes, narrow));
        }
        let diff = diff_of(STRUCTURED_BYTES);
        // A call past its deadline (or cancelled) changes nothing: its caller has given up.
        crate::root::check_deadline()?;
        self.commit(given, &location, output.as_bytes())?;
        let occurrences = if total == 1 {
            "occurrence"
        } else {
            "occurrences"
        };
        let mut revisions = revisions_value(&[("path", Revision::of_bytes(output.as_bytes()))]);
        revisions["diff"] = diff.structured().into();
        let text = if listed {
            format!(
                "Applied {} in '{given}' ({total} {occurrences} replaced); wrote {} bytes",
                count_edits(replacements.len()),
                output.len()
            )
        } else {
            format!(
                "Replaced {total} {occurrences} in '{given}'; wrote {} bytes",
                output.len()
            )
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions),
        })
    }
}

/// `1 edit`, `3 edits`.
fn count_edits(n: usize) -> String {
    if n == 1 {
        "1 edit".to_owned()
    } else {
        format!("{n} edits")
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
