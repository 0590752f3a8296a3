//! `read` of several files in one call (`paths`): each file's part under a `==> path <==`
//! header, in the order given, with its own revision (`paths[i]` in the structured
//! revisions), all within one answer's budget. Each file gets an even share of what the
//! files before it left, so a short file leaves room for a long one after it. A file that
//! cannot be read says why in its part; the others are still read.

use serde_json::{Map, Value, json};

use super::Offset;
use crate::fs::answer::FsAnswer;
use crate::fs::revision::SCHEME;
use crate::fs::shown::shown_path;
use crate::fs::{Fs, FsError, worded};
use crate::measure::escaped_len;
use crate::root::RootError;

/// Most files one call reads.
pub(super) const MAX_PATHS: usize = 50;

impl Fs {
    /// The parts of `paths`, each read as `read` reads one file with `offset` and `limit`.
    pub(super) fn read_several(
        &self,
        paths: &[&str],
        offset: Option<Offset>,
        limit: Option<u64>,
    ) -> Result<FsAnswer, FsError> {
        let mut remaining = self.read_budget();
        let mut text = String::new();
        let mut revisions = Map::new();
        for (i, given) in paths.iter().enumerate() {
            crate::root::check_deadline().map_err(FsError::from)?;
            let header = format!("==> {} <==\n", shown_path(given, false));
            // The header, and the newline and blank line that may close the part.
            let overhead = escaped_len(&header) + 4;
            let share = remaining / (paths.len() - i) as u64;
            let budget = share.saturating_sub(overhead);
            let read = self.parse_path(given).and_then(|at| {
                self.read_file(&at, offset, limit, budget)
                    .map_err(|error| worded(self, error, Some(&at.given), None))
            });
            let part = match read {
                Ok((answer, image)) => {
                    if let Some(revision) = answer
                        .revisions
                        .as_ref()
                        .and_then(|r| r.pointer("/revisions/path"))
                    {
                        revisions.insert(format!("paths[{i}]"), revision.clone());
                    }
                    match image {
                        Some(_) => format!("{} (read it alone to see it)", answer.text),
                        None => answer.text,
                    }
                }
                // A call past its deadline or cancelled is the call's answer, not one file's.
                Err(FsError::Root(error @ (RootError::Deadline | RootError::Cancelled))) => {
                    return Err(FsError::Root(error));
                }
                Err(error) => format!("[not read: {error}]"),
            };
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&header);
            text.push_str(&part);
            if !part.ends_with('\n') {
                text.push('\n');
            }
            remaining = remaining.saturating_sub(escaped_len(&header) + escaped_len(&part) + 4);
        }
        Ok(FsAnswer {
            text,
            revisions: Some(
                json!({"revisionScheme": SCHEME, "revisions": Value::Object(revisions)}),
            ),
        })
    }
}
