//! One file's search: its bytes as the searcher reads them (binary files refused, a BOM
//! dropped), the lines it reports or the matches it counts, and a long line shown around its
//! match.

use std::io;

use grep_matcher::{LineTerminator, Matcher};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};

use super::matcher::{Checked, TOO_COSTLY};
use crate::fs::edit::BOM;
use crate::measure::escaped_len;
use crate::root::{ReadFile, RootError};

/// A NUL byte this close to the start marks a file as binary.
pub(super) const SNIFF_BYTES: u64 = 8192;
/// Longest line the searcher will hold in memory; a file with a longer line is skipped.
pub(super) const MAX_LINE_BUFFER: usize = 64 << 20;
/// Longest line text reported in full; of a longer one, a window of at most this many bytes
/// is shown, around the line's first match when the line's start would not show it.
pub const MAX_LINE_BYTES: usize = 1024;
/// Bytes of a long matching line shown before its first match, when the match lies too far in
/// for the line's start to show it.
pub(super) const LEAD_BYTES: usize = 256;

/// Lines of context a search reports before and after each match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Context {
    pub(super) before: usize,
    pub(super) after: usize,
}

/// The one searcher configuration of every grep pass (the prefilter asks for no context): raw
/// bytes, no BOM transcoding, lines ended by `\n` or `\r\n`, a line's buffer bounded (with
/// `multiline`, the whole file's, which such a search holds at once).
pub(super) fn searcher(context: Context, multiline: bool) -> Searcher {
    searcher_builder(context, multiline)
        .line_number(true)
        .build()
}

pub(super) fn searcher_builder(context: Context, multiline: bool) -> SearcherBuilder {
    let mut builder = SearcherBuilder::new();
    builder
        .line_terminator(LineTerminator::crlf())
        .before_context(context.before)
        .after_context(context.after)
        .multi_line(multiline)
        .bom_sniffing(false)
        .binary_detection(BinaryDetection::none())
        .heap_limit(Some(MAX_LINE_BUFFER));
    builder
}

/// The prefilter's searcher: [`searcher`] without context or line numbers, which only a
/// reported line needs.
pub(super) fn prefilter_searcher(multiline: bool) -> Searcher {
    searcher_builder(Context::default(), multiline)
        .line_number(false)
        .build()
}

/// Whether `file` holds a matching line: `false` for a binary file (skipped, as the ordered
/// scan would skip it), `true` when the search fails otherwise (the ordered scan then decides
/// what to report).
pub(super) fn holds_match<F: ReadAt + ?Sized>(
    searcher: &mut Searcher,
    matcher: &Checked,
    file: &F,
) -> bool {
    struct First(bool);
    impl Sink for First {
        type Error = io::Error;
        fn matched(&mut self, _: &Searcher, _: &SinkMatch<'_>) -> io::Result<bool> {
            self.0 = true;
            Ok(false)
        }
    }
    let mut first = First(false);
    match searcher.search_reader(matcher, TextSource::new(file), &mut first) {
        Ok(()) => first.0,
        Err(error) => !is_binary(&error),
    }
}

/// Positional reads of one file, as the root's [`ReadFile`] offers them.
pub(super) trait ReadAt {
    /// Size when opened; nothing past it is read.
    fn size(&self) -> u64;
    /// Fills `buf` from `offset` as far as the file goes; returns the count read.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize, RootError>;
}

impl ReadAt for ReadFile {
    fn size(&self) -> u64 {
        ReadFile::size(self)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize, RootError> {
        ReadFile::read_at(self, buf, offset)
    }
}

/// What a [`TextSource`] reports for a binary file; it ends that file's search.
#[derive(Debug)]
struct BinaryFile;

impl std::fmt::Display for BinaryFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("binary")
    }
}

impl std::error::Error for BinaryFile {}

/// The error a [`TextSource`] reports for a binary file; it ends that file's search.
pub(super) fn binary() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, BinaryFile)
}

/// Whether a search ended because the file is binary.
fn is_binary(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<BinaryFile>())
}

/// A file's bytes as the searcher reads them: by position, up to the size seen at open time,
/// without a leading UTF-8 byte-order mark, and failing at once for a binary file (a NUL in
/// its first 8 KiB).
pub(super) struct TextSource<'a, F: ReadAt + ?Sized> {
    file: &'a F,
    offset: u64,
    end: u64,
}

impl<'a, F: ReadAt + ?Sized> TextSource<'a, F> {
    fn new(file: &'a F) -> Self {
        TextSource {
            file,
            offset: 0,
            end: file.size(),
        }
    }
}

impl<F: ReadAt + ?Sized> io::Read for TextSource<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.offset >= self.end {
                return Ok(0);
            }
            let want = buf
                .len()
                .min(usize::try_from(self.end - self.offset).unwrap_or(usize::MAX));
            if want == 0 {
                return Ok(0);
            }
            let start = self.offset;
            let read = self
                .file
                .read_at(&mut buf[..want], start)
                .map_err(|e| io::Error::other(e.to_string()))?;
            if read == 0 {
                // The file shrank since it was opened: it ends here.
                self.end = start;
                continue;
            }
            self.offset += read as u64;
            let bytes = &buf[..read];
            if start < SNIFF_BYTES {
                let sniffed = read.min((SNIFF_BYTES - start) as usize);
                if memchr::memchr(0, &bytes[..sniffed]).is_some() {
                    return Err(binary());
                }
            }
            if start == 0 && bytes.starts_with(BOM.as_bytes()) {
                buf.copy_within(BOM.len()..read, 0);
                if read == BOM.len() {
                    continue;
                }
                return Ok(read - BOM.len());
            }
            return Ok(read);
        }
    }
}

/// One reported line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    pub(super) number: u64,
    pub(super) is_match: bool,
    /// The first line of a match: what `max-results` counts (a multiline match shows each of
    /// its lines as a matching line, and counts once).
    pub(super) starts_match: bool,
    pub(super) text: String,
}

/// What one text file contributed.
#[derive(Debug, Default)]
pub(super) struct FileHits {
    pub(super) lines: Vec<Line>,
    /// A matching line exists beyond the file's quota.
    pub(super) more: bool,
    /// The lines outgrew the room left in the answer, so the search of this file stopped.
    pub(super) overflow: bool,
}

/// What the answer still takes from one file.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileBudget {
    /// Matching lines (0: only look for one more).
    pub(super) matches: u64,
    /// Bytes the lines may take as they travel, counted generously: escaped text plus
    /// `per_line` for each.
    pub(super) bytes: u64,
    /// What a line adds besides its text: the path, marks, number and separators.
    pub(super) per_line: u64,
    /// Lines an earlier page showed (`after: "path:N"`): matches starting on them, and
    /// context lines among them, are left out and not counted.
    pub(super) shown: u64,
}

/// What searching one file gave: what it found, nothing to show (binary, unreadable), a line
/// too long to hold in memory, or a line too costly for the pattern.
pub(super) enum Scanned<T> {
    Hits(T),
    Skipped,
    LineTooLong,
    /// A line the pattern could not search in bounded time (see [`Probe`](super::matcher::Probe)).
    TooCostly,
}

impl<T> Scanned<T> {
    /// What one search ended in: the searcher passes on its own and the matcher's errors only
    /// as text.
    fn of(searched: io::Result<T>) -> Scanned<T> {
        match searched {
            Ok(found) => Scanned::Hits(found),
            // The searcher refuses to buffer a line past its heap limit.
            Err(e) if e.to_string().contains("allocation limit") => Scanned::LineTooLong,
            Err(e) if e.to_string().contains(TOO_COSTLY) => Scanned::TooCostly,
            Err(_) => Scanned::Skipped,
        }
    }

    pub(super) fn map<U>(self, f: impl FnOnce(T) -> U) -> Scanned<U> {
        match self {
            Scanned::Hits(found) => Scanned::Hits(f(found)),
            Scanned::Skipped => Scanned::Skipped,
            Scanned::LineTooLong => Scanned::LineTooLong,
            Scanned::TooCostly => Scanned::TooCostly,
        }
    }
}

/// What a file gave, by the answer's [`GrepOutput`](super::GrepOutput).
pub(super) enum Found {
    Lines(FileHits),
    /// Matching lines, counted up to the search's limit.
    Count(u64),
}

pub(super) fn scan_file<F: ReadAt + ?Sized>(
    searcher: &mut Searcher,
    matcher: &Checked,
    file: &F,
    budget: FileBudget,
) -> Scanned<FileHits> {
    let mut sink = FileSink {
        matcher,
        budget,
        matches: 0,
        bytes: 0,
        hits: FileHits::default(),
    };
    let searched = searcher.search_reader(matcher, TextSource::new(file), &mut sink);
    Scanned::of(searched.map(|()| sink.hits))
}

/// The matching lines of `file`, counted up to `limit`; with `each_match` (a multiline
/// search, whose searcher reports adjacent matches as one), the matches, as `rg -c -U`
/// counts them.
pub(super) fn count_file<F: ReadAt + ?Sized>(
    searcher: &mut Searcher,
    matcher: &Checked,
    file: &F,
    limit: u64,
) -> Scanned<u64> {
    struct Counter<'m> {
        count: u64,
        limit: u64,
        each_match: Option<&'m Checked>,
    }
    impl Sink for Counter<'_> {
        type Error = io::Error;
        fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
            self.count += match self.each_match {
                Some(matcher) => {
                    matches_in(matcher, found.buffer(), found.bytes_range_in_buffer())?
                }
                None => 1,
            };
            Ok(self.count < self.limit)
        }
    }
    let each_match = (searcher.multi_line_with_matcher(matcher) && limit > 1).then_some(matcher);
    let mut counter = Counter {
        count: 0,
        limit,
        each_match,
    };
    let searched = searcher.search_reader(matcher, TextSource::new(file), &mut counter);
    Scanned::of(searched.map(|()| counter.count))
}

/// The matches that start in `range` of `buffer`, found in the whole buffer so anchors and
/// look-arounds see what the search saw; an empty match moves the search one byte on.
fn matches_in(matcher: &Checked, buffer: &[u8], range: std::ops::Range<usize>) -> io::Result<u64> {
    let mut count = 0;
    let mut at = range.start;
    while at <= range.end {
        match matcher.find_at(buffer, at)? {
            Some(found) if found.start() < range.end => {
                count += 1;
                at = if found.is_empty() {
                    found.end() + 1
                } else {
                    found.end()
                };
            }
            _ => break,
        }
    }
    Ok(count.max(1))
}

/// Collects one file's lines for [`scan_file`].
pub(super) struct FileSink<'m> {
    /// Finds where a long matching line's first match sits.
    matcher: &'m Checked,
    budget: FileBudget,
    matches: u64,
    bytes: u64,
    hits: FileHits,
}

impl FileSink<'_> {
    /// Adds one line: a match's first line (`first_match` its match's byte), a later line of a
    /// multiline match (`continued`) or a context line; `false` once the room is spent.
    fn push(
        &mut self,
        number: Option<u64>,
        first_match: Option<usize>,
        continued: bool,
        bytes: &[u8],
    ) -> bool {
        let starts_match = first_match.is_some();
        let text = line_text(bytes, first_match.or(continued.then_some(0)));
        self.bytes += escaped_len(&text) + self.budget.per_line;
        self.hits.lines.push(Line {
            number: number.unwrap_or(0),
            is_match: starts_match || continued,
            starts_match,
            text,
        });
        if self.bytes > self.budget.bytes {
            self.hits.overflow = true;
            return false;
        }
        true
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        if found.line_number().is_some_and(|n| n <= self.budget.shown) {
            return Ok(true);
        }
        if self.matches >= self.budget.matches {
            self.hits.more = true;
            return Ok(false);
        }
        self.matches += 1;
        let bytes = found.bytes();
        // A multiline match spans several lines; each is shown, numbered, as `rg -U` shows it.
        let mut lines = bytes.split_inclusive(|&b| b == b'\n');
        let first = lines.next().unwrap_or_default();
        // Only a line too long to show whole needs to know where its match is.
        let at = if first.len() > MAX_LINE_BYTES {
            self.matcher
                .find(bytes)?
                .map_or(0, |m| m.start().min(first.len()))
        } else {
            0
        };
        let number = found.line_number();
        if !self.push(number, Some(at), false, first) {
            return Ok(false);
        }
        for (i, line) in (1u64..).zip(lines) {
            if !self.push(number.map(|n| n + i), None, true, line) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, line: &SinkContext<'_>) -> io::Result<bool> {
        // Past the quota only the trailing context of the last match shown is wanted; the
        // leading context of a match that will not be shown is not.
        if self.matches >= self.budget.matches && *line.kind() != SinkContextKind::After {
            return Ok(true);
        }
        if line.line_number().is_some_and(|n| n <= self.budget.shown) {
            return Ok(true);
        }
        Ok(self.push(line.line_number(), None, false, line.bytes()))
    }
}

/// A line as reported: without its `\n` and one `\r` before it, each byte that is not UTF-8
/// shown as U+FFFD. A line longer than [`MAX_LINE_BYTES`] is shown as a window of that many
/// bytes, from its start, or, for a matching line whose first match (at byte `first_match`)
/// lies further in, from [`LEAD_BYTES`] before the match (earlier near the line's end), so the
/// match is always visible. A
/// window is marked `…` where the line goes on and followed by where it sits in the line:
/// ` [bytes A-B of N; match at byte M]` (1-based, `; match …` for a matching line).
pub(super) fn line_text(bytes: &[u8], first_match: Option<usize>) -> String {
    let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(line).into_owned();
    }
    let start = match first_match {
        // Near the line's end, the window still shows as much as it may.
        Some(at) if at > MAX_LINE_BYTES - LEAD_BYTES => {
            char_start(line, (at - LEAD_BYTES).min(line.len() - MAX_LINE_BYTES))
        }
        _ => 0,
    };
    let end = char_end(line, start, (start + MAX_LINE_BYTES).min(line.len()));
    let mut text = String::with_capacity(MAX_LINE_BYTES + 80);
    if start > 0 {
        text.push('…');
    }
    text.push_str(&String::from_utf8_lossy(&line[start..end]));
    if end < line.len() {
        text.push('…');
    }
    text.push_str(&format!(" [bytes {}-{end} of {}", start + 1, line.len()));
    if let Some(at) = first_match {
        text.push_str(&format!("; match at byte {}", at + 1));
    }
    text.push(']');
    text
}

/// Whether `byte` continues a UTF-8 sequence rather than starting one.
pub(super) fn continues(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// `at`, or the start of the next character when `at` falls inside one (an invalid run is
/// passed over at most three bytes, the most a character continues for).
pub(super) fn char_start(line: &[u8], mut at: usize) -> usize {
    for _ in 0..3 {
        if at < line.len() && continues(line[at]) {
            at += 1;
        }
    }
    at
}

/// `end`, or the start of the character it falls inside, never before `start`.
pub(super) fn char_end(line: &[u8], start: usize, mut end: usize) -> usize {
    for _ in 0..3 {
        if end > start && end < line.len() && continues(line[end]) {
            end -= 1;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::grep::LINE_OVERHEAD;
    use crate::fs::grep::Reading;
    use crate::fs::grep::matcher::compile;
    use crate::fs::grep::tests::{around, budget, grep, scan_hits};

    #[test]
    fn long_lines_are_shortened_at_a_character_boundary() {
        let long = format!("{}é{}\n", "a".repeat(1023), "b".repeat(2000));
        let text = line_text(long.as_bytes(), None);
        assert_eq!(
            text,
            format!("{}… [bytes 1-1023 of 3025]", "a".repeat(1023))
        );
        let exact = "c".repeat(1024);
        assert_eq!(line_text(exact.as_bytes(), Some(3)), exact);
        assert_eq!(line_text(b"x\r\r\n", None), "x\r");
    }

    #[test]
    fn a_long_line_shows_its_match() {
        let long = format!("{}needle{}", "a".repeat(4994), "b".repeat(2000));
        let text = line_text(long.as_bytes(), Some(4994));
        let window = format!("…{}needle{}…", "a".repeat(256), "b".repeat(762));
        assert_eq!(
            text,
            format!("{window} [bytes 4739-5762 of 7000; match at byte 4995]")
        );
        // A match near the start is shown from the line's start.
        let early = format!("{}needle{}", "a".repeat(700), "b".repeat(700));
        assert_eq!(
            line_text(early.as_bytes(), Some(700)),
            format!(
                "{}needle{}… [bytes 1-1024 of 1406; match at byte 701]",
                "a".repeat(700),
                "b".repeat(318)
            )
        );
        // A window starts and ends on character boundaries, and says so in bytes.
        let greek = "λ".repeat(3000) + "needle";
        let text = line_text(greek.as_bytes(), Some(6000));
        assert!(text.starts_with("…λλ") && text.contains("needle"), "{text}");
        assert!(
            text.ends_with("[bytes 4983-6006 of 6006; match at byte 6001]"),
            "{text}"
        );
        // Invalid bytes are shown as U+FFFD in the window too.
        let mut stray = vec![b'x'; 3000];
        stray[2900] = 0xFF;
        stray.extend_from_slice(b"needle");
        let text = line_text(&stray, Some(3000));
        assert!(
            text.contains("\u{FFFD}") && text.contains("needle"),
            "{text}"
        );
    }
    fn scan(bytes: &[u8], pattern: &str) -> Option<FileHits> {
        let matcher = compile(pattern, Reading::default()).expect("compiles");
        scan_hits(&mut searcher(around(0), false), &matcher, bytes, budget(50))
    }

    #[test]
    fn quota_keeps_trailing_context_and_looks_for_one_more() {
        let file = b"x1\nc\nx2\nc\nc\nc\nx3\n";
        let matcher = compile("x", Reading::default()).unwrap();
        let hits = scan_hits(
            &mut searcher(around(1), false),
            &matcher,
            &file[..],
            budget(1),
        )
        .unwrap();
        assert!(hits.more);
        let texts: Vec<_> = hits.lines.iter().map(|l| l.text.as_str()).collect();
        // The second match ends the search; it and its leading context are not shown.
        assert_eq!(texts, ["x1", "c"]);
        let hits = scan_hits(
            &mut searcher(around(2), false),
            &matcher,
            &file[..],
            budget(2),
        )
        .unwrap();
        assert!(hits.more);
        let numbers: Vec<_> = hits.lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        // Quota 0 only looks.
        let hits = scan_hits(
            &mut searcher(around(2), false),
            &matcher,
            &file[..],
            budget(0),
        )
        .unwrap();
        assert!(hits.more && hits.lines.is_empty());
        let hits = scan_hits(
            &mut searcher(around(0), false),
            &matcher,
            &file[..],
            budget(3),
        )
        .unwrap();
        assert!(!hits.more);
        assert_eq!(hits.lines.len(), 3);
    }

    #[test]
    fn binary_files_are_skipped_and_other_bytes_searched() {
        assert!(scan(b"needle\0\n", "needle").is_none());
        let mut late_nul = vec![b'a'; 9000];
        late_nul.extend_from_slice(b"\nneedle\0\n");
        assert_eq!(scan(&late_nul, "needle").unwrap().lines.len(), 1);
        // Bytes that are not UTF-8 are searched, and shown as U+FFFD.
        let latin1 = b"caf\xe9 needle\n";
        let hits = scan(latin1, "needle").unwrap();
        assert_eq!(hits.lines[0].text, "caf\u{fffd} needle");
        let mut late_bad = b"needle\n".to_vec();
        late_bad.extend(std::iter::repeat_n(b'a', 200_000));
        late_bad.extend_from_slice(b"\n\xff\n");
        assert_eq!(scan(&late_bad, "needle").unwrap().lines.len(), 1);
        // A scalar cut at the end of the file.
        assert_eq!(scan(b"needle \xe2\x82", "needle").unwrap().lines.len(), 1);
        // Across a read boundary, a scalar is whole.
        let mut file = vec![b'a'; 65530];
        file.extend_from_slice("\nxxxx€ needle\n".as_bytes());
        let hits = scan(&file, "needle").unwrap();
        assert_eq!(hits.lines[0].text, "xxxx€ needle");
    }

    #[test]
    fn line_endings_and_bom() {
        assert_eq!(
            grep(b"\xEF\xBB\xBFneedle\r\nx\r\nneedle", "needle", false, 1, 50),
            "f:1:needle\nf-2-x\nf:3:needle"
        );
        assert_eq!(
            grep(b"\xEF\xBB\xBFneedle", "^needle$", true, 0, 50),
            "f:1:needle"
        );
        assert_eq!(
            grep(b"a needle\r\n", "needle$", true, 0, 50),
            "f:1:a needle"
        );
    }

    #[test]
    fn overflow_stops_the_file() {
        let matcher = compile("x", Reading::default()).unwrap();
        let file = "x\n".repeat(1000);
        let hits = scan_hits(
            &mut searcher(around(0), false),
            &matcher,
            file.as_bytes(),
            FileBudget {
                matches: 1000,
                bytes: 10 * LINE_OVERHEAD,
                per_line: LINE_OVERHEAD,
                shown: 0,
            },
        )
        .unwrap();
        assert!(hits.overflow);
        assert!(hits.lines.len() < 20);
    }
}
