//! Unified diffs of what `edit` and `write` change, or would change with `dry-run`. The
//! `similar` crate aligns the lines; this module writes them in the format `diff -u` prints,
//! which `patch -p1` and `git apply` read: `--- a/<p>` and `+++ b/<p>` headers (`/dev/null` for
//! a new file), `@@` hunks with three lines of context, and `\ No newline at end of file` after
//! a last line without one. Lines end at `\n` only, as those tools split them (`similar`'s own
//! writer also ends a line at a lone `\r`, which `patch` would not read back).
//!
//! A diff is kept up to a budget, counted as its bytes travel in JSON, and cut at a whole line;
//! the rest is only counted, so a diff's size is known without holding it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use similar::{Algorithm, DiffOp, capture_diff_slices_deadline, group_diff_ops};

use super::OverLimit;
use super::answer::answer_budget;
use crate::measure::escaped_len;

/// Lines of context around each change, as `diff -u` gives.
const CONTEXT: usize = 3;

/// How long the line alignment may search for the shortest diff; past it, `similar` settles
/// for a longer one that is just as exact, so a pathological pair of files costs no more.
const ALIGN_TIME: Duration = Duration::from_millis(500);

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
        let mut diff = Diff {
            budget,
            ..Diff::default()
        };
        if old == Some(new) {
            return diff;
        }
        let (from, to) = headers(path, old.is_some());
        diff.push(&format!("--- {from}\n"));
        diff.push(&format!("+++ {to}\n"));
        diff.hunks(old.unwrap_or(""), new);
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

    /// What a dry run answers: its text, the diff cut (with a notice saying how much is shown
    /// and that `narrow` or a higher limit shows the rest) to fit `max_result_bytes` beside
    /// the diff for `structuredContent`, which is the second value.
    pub(super) fn preview(&self, max_result_bytes: u64, narrow: String) -> (String, String) {
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
        (text, structured)
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

    /// Adds the hunks turning `old` into `new`. Only the lines between the common leading and
    /// trailing lines (and their context) are split and aligned, so the cost of an edit's diff
    /// follows the size of its change, not of its file.
    fn hunks(&mut self, old: &str, new: &str) {
        let (head, tail) = common_lines(old.as_bytes(), new.as_bytes());
        let start = lines_back(old.as_bytes(), head, CONTEXT);
        let after = lines_forward(&old.as_bytes()[old.len() - tail..], CONTEXT);
        let before = memchr::memchr_iter(b'\n', &old.as_bytes()[..start]).count();
        let old_lines: Vec<&str> = old[start..old.len() - tail + after]
            .split_inclusive('\n')
            .collect();
        let new_lines: Vec<&str> = new[start..new.len() - tail + after]
            .split_inclusive('\n')
            .collect();
        let ops = capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Instant::now().checked_add(ALIGN_TIME),
        );
        for hunk in group_diff_ops(ops, CONTEXT) {
            let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
                continue;
            };
            if hunk.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
                continue;
            }
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            self.push(&format!(
                "@@ -{} +{} @@\n",
                range(before + old_range.start, old_range.len()),
                range(before + new_range.start, new_range.len())
            ));
            for op in &hunk {
                let (tag, old_at, new_at) = match *op {
                    DiffOp::Equal { .. } => (' ', op.old_range(), 0..0),
                    _ => ('-', op.old_range(), op.new_range()),
                };
                for line in &old_lines[old_at] {
                    self.push_line(tag, line);
                }
                for line in &new_lines[new_at] {
                    self.push_line('+', line);
                }
            }
        }
    }
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
