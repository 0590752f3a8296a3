//! `read` from the end of a file: a negative offset. A file up to [`COUNTED_TAIL_BYTES`] is
//! counted first, so its lines keep their numbers and the window is read as any other; a
//! larger one is read backwards from its end in blocks ([`tail_start`]) to where line `-back`
//! begins, then forwards from there, and its lines are numbered from the end.

use super::{BLOCK, Scan, Window, feed, too_long};
use crate::digest::HashBudget;
use crate::fs::answer::FsAnswer;
use crate::fs::revision::{Revision, revisions_value};
use crate::fs::{Fs, FsError, Published};
use crate::root::ReadFile;

/// The largest file whose lines a negative offset counts from the start (so they keep their
/// numbers, and the answer its revision); a larger file is read from its end only.
const COUNTED_TAIL_BYTES: u64 = 8 << 20;

impl Fs {
    /// Lines `-back ..` of `file` (at most `limit`). A large file is read from its end only;
    /// a small one is counted, so its lines keep their numbers, and so is a large one whose
    /// start the scan back reached.
    pub(super) fn read_from_end(
        &self,
        given: &str,
        file: &ReadFile,
        back: u64,
        limit: Option<u64>,
        budget: u64,
    ) -> Result<FsAnswer, FsError> {
        let tail = if file.size() > COUNTED_TAIL_BYTES {
            tail_start(file, back)?
        } else {
            TailStart::Lines(count_lines(file)?)
        };
        match tail {
            TailStart::At(start) => self.read_far_tail(given, file, start, back, limit, budget),
            TailStart::Lines(total) => {
                let first = total.saturating_sub(back - 1).max(1);
                let window = Some(Window::of(first, limit));
                self.read_lines(given, file, window, Some(back), budget)
            }
        }
    }

    /// Lines `-back ..` (at most `limit`) of a file too large to count, read forward from
    /// `start`, where line `-back` begins, and numbered from the end. The revision is the
    /// memo's, when it holds one for this file, else unknown: hashing would read it whole.
    fn read_far_tail(
        &self,
        given: &str,
        file: &ReadFile,
        start: u64,
        back: u64,
        limit: Option<u64>,
        budget: u64,
    ) -> Result<FsAnswer, FsError> {
        let last = limit.unwrap_or(back).min(back);
        let shift = -(back as i64) - 1;
        let mut scan = Scan::new(budget, false, 1, last, shift);
        feed(given, file, start, &mut scan, true)?;
        file.ensure_unchanged()?;
        let revision = match self.memo().digest(file, &mut HashBudget(0)) {
            Ok(digest) => Revision::of_digest(digest),
            Err(_) => Revision::unknown(),
        };
        let max_result_bytes = self.root().limits().max_result_bytes;
        Ok(FsAnswer {
            text: scan.answer_from_end(back, max_result_bytes, &self.published),
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }
}

/// Lines in `file`, counted as `read` counts them: one per `\n`, and a last one that has none.
fn count_lines(file: &ReadFile) -> Result<u64, FsError> {
    let mut block = vec![0u8; BLOCK];
    let (mut offset, mut lines, mut last) = (0u64, 0u64, b'\n');
    loop {
        let n = file.read_at(&mut block, offset)?;
        if n == 0 {
            break;
        }
        offset += n as u64;
        lines += memchr::memchr_iter(b'\n', &block[..n]).count() as u64;
        last = block[n - 1];
    }
    Ok(lines + u64::from(last != b'\n'))
}

/// Where the scan back from a file's end found line `-back` to begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TailStart {
    /// At this byte, after the `\n` ending the line before it.
    At(u64),
    /// Nowhere: the file has this many lines, fewer than `back` (the scan read it all).
    Lines(u64),
}

/// Scans `file` backwards from its end in blocks for the start of line `-back`, reading no
/// further back than that (a `\n` ending the file ends its last line, and starts none).
fn tail_start(file: &ReadFile, back: u64) -> Result<TailStart, FsError> {
    let size = file.size();
    let mut block = vec![0u8; BLOCK];
    let mut end = size;
    if size > 0 {
        file.read_exact_at(&mut block[..1], size - 1)?;
        if block[0] == b'\n' {
            end -= 1;
        }
    }
    let mut seen = 0u64;
    while end > 0 {
        let from = end.saturating_sub(BLOCK as u64);
        let bytes = &mut block[..(end - from) as usize];
        file.read_exact_at(bytes, from)?;
        for at in memchr::memrchr_iter(b'\n', bytes) {
            seen += 1;
            if seen == back {
                return Ok(TailStart::At(from + at as u64 + 1));
            }
        }
        end = from;
    }
    Ok(TailStart::Lines(seen + u64::from(size > 0)))
}

impl Scan {
    /// The answer of a window read from the end of a file too large to count, starting at line
    /// `-back`: its lines numbered from the end, and a footer saying how to go on (the lines
    /// before it, or the rest of a window cut by the budget).
    fn answer_from_end(self, back: u64, max_result_bytes: u64, published: &Published) -> String {
        let shown = self.window.len() as u64;
        if shown == 0 {
            return too_long(
                format!("line -{back} does not fit"),
                max_result_bytes,
                published,
            );
        }
        let end = back - shown + 1;
        let lines = format!(
            "lines -{back} to -{end} of a file over {} MiB, counted from its end",
            COUNTED_TAIL_BYTES >> 20
        );
        // A cut window stopped before its last line, so line -(end - 1) exists.
        let footer = if self.cut {
            format!(
                "[{lines}; the window is larger than one answer: continue with offset -{}]",
                end - 1
            )
        } else {
            format!(
                "[{lines}; earlier lines: offset -{}, limit {shown}]",
                back + shown
            )
        };
        format!("{}\n\n{footer}", self.window.join("\n"))
    }
}
