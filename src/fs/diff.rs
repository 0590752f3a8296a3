//! Unified diffs of what `edit` and `write` change, or would change with `dry-run`. The
//! `similar` crate aligns the lines; this module writes them in the format `diff -u` prints,
//! which `patch -p1` and `git apply` read: `--- a/<p>` and `+++ b/<p>` headers (`/dev/null` for
//! a new file), `@@` hunks with three lines of context, and `\ No newline at end of file` after
//! a last line without one. Lines end at `\n` only, as those tools split them (`similar`'s own
//! writer also ends a line at a lone `\r`, which `patch` would not read back).
//!
//! A diff is kept up to a budget, counted as its bytes travel in JSON, and cut at a whole line;
//! the rest is only counted, so a diff's size is known without holding it.

use std::ops::Range;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use similar::{Algorithm, DiffOp, capture_diff_slices_deadline, group_diff_ops};

use super::OverLimit;
use super::answer::{FsAnswer, answer_budget};
use super::revision::{Revision, revisions_value};
use crate::measure::escaped_len;

/// Lines of context around each change, as `diff -u` gives.
const CONTEXT: usize = 3;

/// Lines (both sides together) of a block aligned exactly whatever it holds: the search for
/// the shortest diff costs at most their square, tens of milliseconds.
const EXACT_LINES: usize = 4096;

/// How long the alignment of a larger block may search for the shortest diff; past it,
/// `similar` settles for a longer one that is just as exact, so no pair of texts costs more.
const ALIGN_TIME: Duration = Duration::from_secs(2);

/// Lines (both sides together) of a stretch of a diff listed before it is aligned; a larger
/// one is shown as all its lines removed and added, so memory stays bounded.
const WINDOW_LINES: usize = 1 << 20;

/// Replaced runs an edit's diff places one by one; more are aligned as one block.
const MAX_RUNS: usize = 100_000;

/// Most bytes, as JSON, of the diff returned in `structuredContent`: enough for a host to show
/// a typical edit, small beside the result limit.
pub(super) const STRUCTURED_BYTES: u64 = 4096;

/// The `structuredContent` output schema of a tool that returns a diff: `revisions_schema`
/// with a `diff` string, required when every success carries it.
pub(super) fn with_diff_schema(revisions_schema: Value, required: bool) -> Value {
    let mut schema = revisions_schema;
    schema["properties"]["diff"] = json!({"type": "string"});
    if required && let Some(list) = schema["required"].as_array_mut() {
        list.push(json!("diff"));
    }
    schema
}

/// A diff rendered up to a budget: the lines kept, where each ends, and the whole size.
#[derive(Debug, Default)]
pub(super) struct Diff {
    /// The kept lines, whole.
    text: String,
    /// After each kept line: its end in `text`, and the escaped size of `text` up to there.
    ends: Vec<(usize, u64)>,
    /// Escaped bytes `text` may take.
    budget: u64,
    /// Whether a line did not fit (every later one is only counted).
    full: bool,
    /// Bytes of the whole diff.
    total: u64,
}

impl Diff {
    /// The diff turning `old` into `new` for the file `path` (`old` is `None` for a file that
    /// does not exist yet), keeping at most `budget` escaped bytes. Empty when they are equal.
    pub(super) fn of(path: &str, old: Option<&str>, new: &str, budget: u64) -> Diff {
        if old == Some(new) {
            return Diff {
                budget,
                ..Diff::default()
            };
        }
        let mut diff = Diff::headed(path, old.is_some(), budget);
        if old.is_none() && new.is_empty() {
            diff.push("[no lines: the file is new and empty]\n");
        }
        let old = old.unwrap_or("");
        diff.hunks(old, new, &[middle_block(old.as_bytes(), new.as_bytes())]);
        diff
    }

    /// The diff of an edit of `path`: `new` is `old` with the `replaced`-byte runs starting at
    /// `at` (in order, apart) replaced by `replacement` bytes each. Only the lines each run
    /// touches are aligned, so the diff costs what the edit changed, not the file's size.
    pub(super) fn of_replacements(
        path: &str,
        old: &str,
        new: &str,
        at: impl Iterator<Item = usize>,
        (replaced, replacement): (usize, usize),
        budget: u64,
    ) -> Diff {
        let mut diff = Diff::headed(path, true, budget);
        let blocks = replacement_blocks(old.as_bytes(), at, replaced, replacement)
            .unwrap_or_else(|| vec![middle_block(old.as_bytes(), new.as_bytes())]);
        diff.hunks(old, new, &blocks);
        diff
    }

    /// A diff of `path` holding only its `---` and `+++` lines so far.
    fn headed(path: &str, exists: bool, budget: u64) -> Diff {
        let mut diff = Diff {
            budget,
            ..Diff::default()
        };
        let (from, to) = headers(path, exists);
        diff.push(&format!("--- {from}\n"));
        diff.push(&format!("+++ {to}\n"));
        diff
    }

    /// The `Files … differ` lines `diff` prints for two files it shows no lines of (`binary`:
    /// `Binary files a/<p> and b/<p> differ`), then `notice`.
    pub(super) fn without_lines(path: &str, binary: bool, notice: &str, budget: u64) -> Diff {
        let mut diff = Diff {
            budget,
            ..Diff::default()
        };
        let (from, to) = headers(path, true);
        let kind = if binary { "Binary files" } else { "Files" };
        // The tab after a name with a space ends a header line's name; here it would not.
        let (from, to) = (from.trim_end_matches('\t'), to.trim_end_matches('\t'));
        diff.push(&format!("{kind} {from} and {to} differ\n"));
        diff.push(notice);
        diff
    }

    /// Whether the two sides are equal (there is no hunk to show).
    pub(super) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The diff whole, or cut at a whole line to fit `budget` escaped bytes (at most the budget
    /// it was rendered with), and then the bytes kept and the whole diff's size.
    pub(super) fn within(&self, budget: u64) -> (&str, Option<(u64, u64)>) {
        let fits = self.ends.iter().take_while(|(_, cost)| *cost <= budget);
        let end = fits.last().map_or(0, |(end, _)| *end);
        if end as u64 == self.total {
            (&self.text, None)
        } else {
            (&self.text[..end], Some((end as u64, self.total)))
        }
    }

    /// The diff for `structuredContent`: whole, or cut to [`STRUCTURED_BYTES`] with a last line
    /// saying how much of it is there.
    pub(super) fn structured(&self) -> String {
        // Room for the notice line.
        match self.within(STRUCTURED_BYTES - 64) {
            (whole, None) => whole.to_owned(),
            (kept, Some((shown, total))) => {
                format!("{kept}[diff cut at {shown} of {total} bytes]\n")
            }
        }
    }

    /// What a dry run answers: the diff cut (with a notice saying how much is shown and that
    /// `narrow` or a higher limit shows the rest) to fit `max_result_bytes` beside the diff for
    /// `structuredContent`, which goes under the `diff` key beside `revision`. Nothing changed,
    /// so `revision` is the file's as it is: the real call can send it as
    /// `_expected-revisions` to change exactly what the diff was made from.
    pub(super) fn preview(
        &self,
        revision: Revision,
        max_result_bytes: u64,
        narrow: String,
    ) -> FsAnswer {
        let structured = self.structured();
        let budget = answer_budget(max_result_bytes).saturating_sub(escaped_len(&structured));
        let text = match self.within(budget) {
            (whole, None) => whole.to_owned(),
            (kept, Some((shown, total))) => {
                let over = OverLimit::result_size(
                    format!("the diff stopped at {shown} of {total} bytes"),
                    max_result_bytes,
                    narrow,
                );
                format!("{kept}\n[{over}]")
            }
        };
        let mut revisions = revisions_value(&[("path", revision)]);
        revisions["diff"] = structured.into();
        FsAnswer {
            text,
            revisions: Some(revisions),
        }
    }

    /// Adds one line (with its `\n`): kept while it fits, counted in any case.
    fn push(&mut self, line: &str) {
        self.total += line.len() as u64;
        if self.full {
            return;
        }
        let cost = self.ends.last().map_or(0, |(_, cost)| *cost) + escaped_len(line);
        if cost > self.budget {
            self.full = true;
            return;
        }
        self.text.push_str(line);
        self.ends.push((self.text.len(), cost));
    }

    /// Adds one line of a hunk, marked by `tag` (` `, `-` or `+`).
    fn push_line(&mut self, tag: char, line: &str) {
        let mut shown = String::with_capacity(line.len() + 32);
        shown.push(tag);
        shown.push_str(line);
        if !line.ends_with('\n') {
            shown.push_str("\n\\ No newline at end of file\n");
        }
        self.push(&shown);
    }

    /// Adds the hunks turning `old` into `new`, which differ only in `blocks`.
    fn hunks(&mut self, old: &str, new: &str, blocks: &[Block]) {
        let (mut old_line, mut new_line, mut old_at, mut new_at) = (0, 0, 0, 0);
        for (window, inside) in windows(old.as_bytes(), blocks) {
            old_line += newlines(&old.as_bytes()[old_at..window.old.start]);
            new_line += newlines(&new.as_bytes()[new_at..window.new.start]);
            (old_at, new_at) = (window.old.start, window.new.start);
            let (old_part, new_part) = (&old[window.old.clone()], &new[window.new.clone()]);
            if line_count(old_part) + line_count(new_part) > WINDOW_LINES {
                // Too many lines to hold their list: shown as removed and added, streamed.
                self.replaced(old_part, new_part, old_line, new_line);
                continue;
            }
            let old_lines: Vec<&str> = old_part.split_inclusive('\n').collect();
            let new_lines: Vec<&str> = new_part.split_inclusive('\n').collect();
            let mut ops = Vec::new();
            let (mut at, mut oi, mut ni) = (window.old.start, 0, 0);
            for block in &blocks[inside] {
                // Between blocks the texts are the same whole lines.
                let same = newlines(&old.as_bytes()[at..block.old.start]);
                if same > 0 {
                    ops.push(DiffOp::Equal {
                        old_index: oi,
                        new_index: ni,
                        len: same,
                    });
                }
                (oi, ni) = (oi + same, ni + same);
                let n = line_count(&old[block.old.clone()]);
                let m = line_count(&new[block.new.clone()]);
                ops.extend(
                    align(&old_lines[oi..oi + n], &new_lines[ni..ni + m])
                        .into_iter()
                        .map(|op| shifted(op, oi, ni)),
                );
                (oi, ni, at) = (oi + n, ni + m, block.old.end);
            }
            if oi < old_lines.len() {
                ops.push(DiffOp::Equal {
                    old_index: oi,
                    new_index: ni,
                    len: old_lines.len() - oi,
                });
            }
            for hunk in group_diff_ops(ops, CONTEXT) {
                self.hunk(&hunk, &old_lines, &new_lines, old_line, new_line);
            }
        }
    }

    /// Adds one hunk: its header, then each run of changes as its removed lines and then its
    /// added ones, as `diff -u` orders them. `old_line` and `new_line` number the first lines
    /// of `old_lines` and `new_lines`.
    fn hunk(
        &mut self,
        hunk: &[DiffOp],
        old_lines: &[&str],
        new_lines: &[&str],
        old_line: usize,
        new_line: usize,
    ) {
        let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
            return;
        };
        if hunk.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            return;
        }
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        self.push(&format!(
            "@@ -{} +{} @@\n",
            range(old_line + old_range.start, old_range.len()),
            range(new_line + new_range.start, new_range.len())
        ));
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for op in hunk {
            if let DiffOp::Equal { .. } = op {
                self.changes(&mut removed, &mut added);
                for line in &old_lines[op.old_range()] {
                    self.push_line(' ', line);
                }
            } else {
                removed.extend_from_slice(&old_lines[op.old_range()]);
                added.extend_from_slice(&new_lines[op.new_range()]);
            }
        }
        self.changes(&mut removed, &mut added);
    }

    /// Adds a run of changes, removed lines first, and empties it.
    fn changes(&mut self, removed: &mut Vec<&str>, added: &mut Vec<&str>) {
        for line in removed.drain(..) {
            self.push_line('-', line);
        }
        for line in added.drain(..) {
            self.push_line('+', line);
        }
    }

    /// Adds one hunk replacing every line of `old` by every line of `new`, without listing
    /// them first.
    fn replaced(&mut self, old: &str, new: &str, old_line: usize, new_line: usize) {
        self.push(&format!(
            "@@ -{} +{} @@\n",
            range(old_line, line_count(old)),
            range(new_line, line_count(new))
        ));
        for line in old.split_inclusive('\n') {
            self.push_line('-', line);
        }
        for line in new.split_inclusive('\n') {
            self.push_line('+', line);
        }
    }
}

/// A stretch where two texts differ: byte ranges in each, starting a line in both and ending
/// one (after its `\n`, or at the text's end) in both. Outside their blocks the texts are the
/// same lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block {
    old: Range<usize>,
    new: Range<usize>,
}

/// The blocks where `new` differs from `old` when `new` is `old` with the `replaced`-byte runs
/// starting at `at` (in order, apart) replaced by `replacement` bytes each: the lines each run
/// touches, runs sharing a line in one block. `None` when there are too many runs to list.
fn replacement_blocks(
    old: &[u8],
    at: impl Iterator<Item = usize>,
    replaced: usize,
    replacement: usize,
) -> Option<Vec<Block>> {
    // Where `pos` in `old`, after `k` replaced runs, is in `new`.
    let moved = |k: usize, pos: usize| pos - k * replaced + k * replacement;
    let line_end = |pos: usize| {
        memchr::memchr(b'\n', &old[pos.min(old.len())..]).map_or(old.len(), |i| pos + i + 1)
    };
    let mut blocks: Vec<Block> = Vec::new();
    let mut runs = 0;
    for start in at {
        runs += 1;
        if runs > MAX_RUNS {
            return None;
        }
        // A run that ends inside the current block's last line leaves the block's lines as they
        // are; looking for its line's end again would rescan that line once per run (quadratic
        // on one long line of many matches).
        if let Some(block) = blocks.last_mut()
            && start + replaced < block.old.end
        {
            block.new.end = moved(runs, block.old.end);
            continue;
        }
        let end = line_end(start + replaced);
        match blocks.last_mut() {
            Some(block) if start < block.old.end => {
                block.old.end = end;
                block.new.end = moved(runs, end);
            }
            _ => {
                let first = memchr::memrchr(b'\n', &old[..start]).map_or(0, |i| i + 1);
                blocks.push(Block {
                    old: first..end,
                    new: moved(runs - 1, first)..moved(runs, end),
                });
            }
        }
    }
    Some(blocks)
}

/// The block between the lines two texts begin and end with alike.
fn middle_block(old: &[u8], new: &[u8]) -> Block {
    let (head, tail) = common_lines(old, new);
    Block {
        old: head..old.len() - tail,
        new: head..new.len() - tail,
    }
}

/// The stretches a diff shows: each block with up to [`CONTEXT`] lines around it, blocks whose
/// context meets merged (as `diff -u` joins hunks at most twice the context apart), each with
/// the range of the blocks it holds.
fn windows(old: &[u8], blocks: &[Block]) -> Vec<(Block, Range<usize>)> {
    let mut windows: Vec<(Block, Range<usize>)> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let floor = i.checked_sub(1).map_or(0, |j| blocks[j].old.end);
        let ceiling = blocks.get(i + 1).map_or(old.len(), |next| next.old.start);
        let before = &old[floor..block.old.start];
        let before = before.len() - lines_back(before, before.len(), CONTEXT);
        let after = lines_forward(&old[block.old.end..ceiling], CONTEXT);
        let window = Block {
            old: block.old.start - before..block.old.end + after,
            new: block.new.start - before..block.new.end + after,
        };
        match windows.last_mut() {
            Some((last, inside)) if last.old.end >= window.old.start => {
                last.old.end = window.old.end;
                last.new.end = window.new.end;
                inside.end = i + 1;
            }
            _ => windows.push((window, i..i + 1)),
        }
    }
    windows
}

/// The line alignment of one block: the shortest diff when the block is small enough for the
/// search to be cheap whatever the lines; past that, as short a diff as [`ALIGN_TIME`] finds.
fn align(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let deadline = (old.len() + new.len() > EXACT_LINES)
        .then(|| Instant::now().checked_add(ALIGN_TIME))
        .flatten();
    capture_diff_slices_deadline(Algorithm::Myers, old, new, deadline)
}

/// `op` with its line indices moved on by `old` and `new`.
fn shifted(op: DiffOp, old: usize, new: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + old,
            new_index: new_index + new,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + old,
            new_index: new_index + new,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
            new_len,
        },
    }
}

/// How many `\n` `text` holds.
fn newlines(text: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', text).count()
}

/// How many lines `text` holds, a last one without `\n` included.
fn line_count(text: &str) -> usize {
    newlines(text.as_bytes()) + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// A hunk header's range: `start,count` for lines from 0-based `start`, as `diff -u` writes
/// it (1-based; `,1` left out; an empty range names the line before it).
fn range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{count}", start + 1),
    }
}

/// The names the two header lines give `path`: `a/<p>` and `b/<p>` (`/dev/null` for a file
/// that does not exist yet). A name holding a control character, `"` or `\` is quoted and
/// escaped as git quotes it (`patch` reads that form too; a raw line break would end the
/// header), and one holding a space is followed by a tab, as git writes it, so `patch` reads
/// the name whole.
fn headers(path: &str, exists: bool) -> (String, String) {
    let name = |side: &str| {
        let name = format!("{side}/{path}");
        if name.contains(|c: char| c.is_control() || c == '"' || c == '\\') {
            let mut quoted = String::from("\"");
            for c in name.chars() {
                match c {
                    '"' => quoted.push_str("\\\""),
                    '\\' => quoted.push_str("\\\\"),
                    '\t' => quoted.push_str("\\t"),
                    '\n' => quoted.push_str("\\n"),
                    '\r' => quoted.push_str("\\r"),
                    c if c.is_control() => {
                        let mut bytes = [0u8; 4];
                        for byte in c.encode_utf8(&mut bytes).bytes() {
                            quoted.push_str(&format!("\\{byte:03o}"));
                        }
                    }
                    c => quoted.push(c),
                }
            }
            quoted.push('"');
            quoted
        } else if name.contains(' ') {
            format!("{name}\t")
        } else {
            name
        }
    };
    let from = if exists {
        name("a")
    } else {
        "/dev/null".to_owned()
    };
    (from, name("b"))
}

/// Bytes of the whole lines `old` and `new` begin with, and of the whole lines they end with
/// (not overlapping those), that they share.
fn common_lines(old: &[u8], new: &[u8]) -> (usize, usize) {
    let head = common_len(
        old.iter(),
        new.iter(),
        old.chunks(4096).zip(new.chunks(4096)),
    );
    let head = old[..head]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let (old_rest, new_rest) = (&old[head..], &new[head..]);
    let tail = common_len(
        old_rest.iter().rev(),
        new_rest.iter().rev(),
        old_rest.rchunks(4096).zip(new_rest.rchunks(4096)),
    );
    // The shared end must start a line in both texts: unless it already does, it starts after
    // its first line break.
    let starts_line = |text: &[u8]| {
        let at = text.len() - tail;
        at == 0 || text[at - 1] == b'\n'
    };
    let tail = if starts_line(old_rest) && starts_line(new_rest) {
        tail
    } else {
        let end = &old_rest[old_rest.len() - tail..];
        memchr::memchr(b'\n', end).map_or(0, |i| tail - i - 1)
    };
    (head, tail)
}

/// How many items two byte sequences share from their start: whole chunks compared at once,
/// then the first chunk that differs byte by byte.
fn common_len<'a>(
    a: impl Iterator<Item = &'a u8>,
    b: impl Iterator<Item = &'a u8>,
    mut chunks: impl Iterator<Item = (&'a [u8], &'a [u8])>,
) -> usize {
    let mut whole = 0;
    for (x, y) in chunks.by_ref() {
        if x != y {
            break;
        }
        whole += x.len();
    }
    whole
        + a.skip(whole)
            .zip(b.skip(whole))
            .take_while(|(x, y)| x == y)
            .count()
}

/// Where the line `count` lines before the line starting at `at` starts (the text's start at
/// most).
fn lines_back(text: &[u8], at: usize, count: usize) -> usize {
    let mut start = at;
    for _ in 0..count {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &text[..start - 1]).map_or(0, |i| i + 1);
    }
    start
}

/// Bytes of the first `count` lines of `text` (all of it when it has fewer).
fn lines_forward(text: &[u8], count: usize) -> usize {
    let mut end = 0;
    for _ in 0..count {
        if end == text.len() {
            break;
        }
        end = memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |i| end + i + 1);
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(old: Option<&str>, new: &str) -> String {
        let diff = Diff::of("f.txt", old, new, u64::MAX);
        let (text, cut) = diff.within(u64::MAX);
        assert_eq!(cut, None);
        text.to_owned()
    }

    #[test]
    fn a_change_in_the_middle_has_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            whole(Some(old), new),
            "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn a_last_line_without_a_newline_is_marked() {
        assert_eq!(
            whole(Some("a\nb"), "a\nc"),
            "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
        assert_eq!(
            whole(Some("a"), "a\n"),
            "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"
        );
    }

    #[test]
    fn a_new_file_and_an_emptied_one() {
        assert_eq!(
            whole(None, "x\ny\n"),
            "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
        );
        assert_eq!(
            whole(Some("x\n"), ""),
            "--- a/f.txt\n+++ b/f.txt\n@@ -1 +0,0 @@\n-x\n"
        );
        assert!(Diff::of("f.txt", Some("same"), "same", u64::MAX).is_empty());
    }

    #[test]
    fn a_lone_carriage_return_does_not_end_a_line() {
        assert_eq!(
            whole(Some("a\rb\n"), "a\rc\n"),
            "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\rb\n+a\rc\n"
        );
    }

    #[test]
    fn shared_ends_are_whole_lines() {
        assert_eq!(common_lines(b"ab\ncd\n", b"ab\nxd\n"), (3, 0));
        assert_eq!(common_lines(b"x\nabc", b"y\nabc"), (0, 3));
        assert_eq!(common_lines(b"a\nb\n", b"a\nb\nb\n"), (4, 0));
        assert_eq!(common_lines(b"k\nb\n", b"k\nx\nb\n"), (2, 2));
        assert_eq!(common_lines(b"", b"x"), (0, 0));
    }

    #[test]
    fn an_edit_aligns_only_the_lines_its_runs_touch() {
        let old = "a x\nb\nc x x\nd\n";
        let blocks = replacement_blocks(old.as_bytes(), [2, 8, 10].into_iter(), 1, 3);
        assert_eq!(
            blocks,
            Some(vec![
                Block {
                    old: 0..4,
                    new: 0..6
                },
                Block {
                    old: 6..12,
                    new: 8..18
                },
            ])
        );
        let new = "a yyy\nb\nc yyy yyy\nd\n";
        let diff = Diff::of_replacements("f.txt", old, new, [2, 8, 10].into_iter(), (1, 3), 4096);
        assert_eq!(
            diff.within(4096).0,
            "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-a x\n+a yyy\n b\n-c x x\n+c yyy yyy\n d\n"
        );
        assert_eq!(whole(Some(old), new), diff.within(4096).0);
    }

    #[test]
    fn a_run_of_changes_lists_removed_lines_before_added_ones() {
        let old = "1 x\n2 x\n3 x\n";
        let new = "1 y\n2 y\n3 y\n";
        let diff = Diff::of_replacements("f.txt", old, new, [2, 6, 10].into_iter(), (1, 1), 4096);
        assert_eq!(
            diff.within(4096).0,
            "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-1 x\n-2 x\n-3 x\n+1 y\n+2 y\n+3 y\n"
        );
    }

    #[test]
    fn too_many_runs_or_lines_fall_back_to_one_block_shown_whole() {
        let old = "a\n".repeat(MAX_RUNS + 1);
        let runs = (0..=MAX_RUNS).map(|i| 2 * i);
        assert_eq!(replacement_blocks(old.as_bytes(), runs, 1, 1), None);
        let mut diff = Diff {
            budget: u64::MAX,
            ..Diff::default()
        };
        diff.replaced("x\ny", "z\n", 4, 4);
        assert_eq!(
            diff.within(u64::MAX).0,
            "@@ -5,2 +5 @@\n-x\n-y\n\\ No newline at end of file\n+z\n"
        );
    }

    #[test]
    fn odd_names_are_quoted_as_git_quotes_them() {
        assert_eq!(headers("a b.txt", true).0, "a/a b.txt\t");
        assert_eq!(
            headers("x\n+++ b/evil\u{1}\"", false),
            (
                "/dev/null".to_owned(),
                "\"b/x\\n+++ b/evil\\001\\\"\"".to_owned()
            )
        );
    }

    #[test]
    fn a_diff_is_cut_at_a_whole_line_and_counted_whole() {
        let new: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let diff = Diff::of("f.txt", None, &new, 100);
        let (kept, cut) = diff.within(100);
        assert!(kept.ends_with('\n') && kept.len() <= 100, "{kept:?}");
        let whole = whole(None, &new);
        assert_eq!(cut, Some((kept.len() as u64, whole.len() as u64)));
        assert!(whole.starts_with(kept));
        let structured = Diff::of("f.txt", None, &new, u64::MAX).structured();
        assert_eq!(structured, whole);
    }
}
