//! `read` of several files in one call (`paths`): each file's part under a `==> path <==`
//! header, in the order given, with its own revision (`paths[i]` in the structured
//! revisions), all within one answer's budget. Each file gets an even share of what the
//! files before it left, so a short file leaves room for a long one after it. A file that
//! cannot be read says why in its part; the others are still read. Parts that find no room
//! left (long paths, many refusals) are named by index in a closing notice.

use serde_json::{Map, Value, json};

use super::Offset;
use crate::fs::answer::{FsAnswer, shown_short};
use crate::fs::revision::SCHEME;
use crate::fs::shown::shown_path;
use crate::fs::{Fs, FsError, worded};
use crate::measure::escaped_len;
use crate::root::RootError;

/// Most files one call reads.
pub(super) const MAX_PATHS: usize = 50;

/// What one part's revision may take in `structuredContent`: `"paths[49]":` and a file's
/// `{"state":"file","token":"sha256-v1:file:<64 hex digits>"}`, with room to spare.
const REVISION_ROOM: u64 = 128;

/// What the closing notice naming the files not read may take.
const NOTICE_ROOM: u64 = 128;

impl Fs {
    /// The parts of `paths`, each read as `read` reads one file with `offset` and `limit`.
    /// Everything a part adds (its header, its text or refusal, its revision) is held to
    /// what is left of the answer; the parts that find no room are named in a closing notice
    /// instead, so the whole result stays within `--max-result-bytes`.
    pub(super) fn read_several(
        &self,
        paths: &[&str],
        offset: Option<Offset>,
        limit: Option<u64>,
    ) -> Result<FsAnswer, FsError> {
        let mut remaining = self.read_budget().saturating_sub(NOTICE_ROOM);
        let mut text = String::new();
        let mut revisions = Map::new();
        let mut unread = None;
        for (i, given) in paths.iter().enumerate() {
            crate::root::check_deadline().map_err(FsError::from)?;
            let header = format!("==> {} <==\n", shown_path(given, false));
            // The header, the newline and blank line that may close the part, its revision.
            let overhead = escaped_len(&header) + 4 + REVISION_ROOM;
            let share = remaining / (paths.len() - i) as u64;
            let budget = share.saturating_sub(overhead);
            let read = self.parse_path(given).and_then(|at| {
                self.read_file(&at, offset, limit, budget)
                    .map_err(|error| worded(self, error, Some(&at.given), None))
            });
            let (part, revision) = match read {
                Ok((answer, image)) => {
                    let revision = answer
                        .revisions
                        .as_ref()
                        .and_then(|r| r.pointer("/revisions/path"))
                        .cloned();
                    let part = match image {
                        Some(_) => format!("{} (read it alone to see it)", answer.text),
                        None => answer.text,
                    };
                    (part, revision)
                }
                // A call past its deadline or cancelled is the call's answer, not one file's.
                Err(FsError::Root(error @ (RootError::Deadline | RootError::Cancelled))) => {
                    return Err(FsError::Root(error));
                }
                Err(error) => (format!("[not read: {error}]"), None),
            };
            let key = format!("paths[{i}]");
            let revision_cost = revision
                .as_ref()
                .map_or(0, |r| escaped_len(&key) + escaped_len(&r.to_string()) + 4);
            let cost = escaped_len(&header) + escaped_len(&part) + 4 + revision_cost;
            // The first part always shows something, so a call again is never the same dead
            // end: its path cut short, and a word that it is too long to show here.
            let (header, part, revision, cost) = if cost > remaining && text.is_empty() {
                let header = format!("==> {} <==\n", shown_short(given));
                let part = "[not read: too long to show with other files; read it alone]";
                let cost = escaped_len(&header) + escaped_len(part) + 4;
                (header, part.to_owned(), None, cost)
            } else {
                (header, part, revision, cost)
            };
            if cost > remaining {
                unread = Some(i);
                break;
            }
            remaining -= cost;
            if let Some(revision) = revision {
                revisions.insert(key, revision);
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&header);
            text.push_str(&part);
            if !part.ends_with('\n') {
                text.push('\n');
            }
        }
        if let Some(first) = unread {
            let last = paths.len() - 1;
            let which = if first == last {
                format!("paths[{first}] was not read; read it")
            } else {
                format!("paths[{first}] to paths[{last}] were not read; read them")
            };
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("[the answer is full: {which} in another call]"));
        }
        Ok(FsAnswer {
            text,
            revisions: Some(
                json!({"revisionScheme": SCHEME, "revisions": Value::Object(revisions)}),
            ),
        })
    }
}
