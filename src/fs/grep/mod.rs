//! Lines matching a pattern in the served text files below a path, in GNU grep's layout, or
//! the files holding a match, or their counts.
//!
//! `matcher` compiles the pattern once per call (ripgrep's `grep-regex`, configured as `rg`
//! configures it; the pattern escaped as a literal unless regex mode is asked for) before any
//! file is opened. The files of the scope come from [`Root::in_order`] in tree order, filtered
//! by the `glob` argument, walked no further than the answer needs; a prefilter judges files
//! ahead on the worker pool in growing batches, and `file` searches
//! each candidate through the root with ripgrep's line searcher: a binary file (a NUL in the
//! first 8 KiB) is skipped as ripgrep skips it, other text (Latin-1, a stray byte) is searched
//! byte-wise and shown with U+FFFD for each invalid byte, and a long line is shown around its
//! match. Nothing is spawned.
//!
//! The answer holds the formatted lines, `path:line:text` for a match and `path-line-text` for
//! context, with `--` between groups that are not adjacent (only when context is asked for),
//! and ends with a notice when it stops early:
//!
//! * after `max-results` matching lines, when at least one more matching line exists (the
//!   search goes on until it finds one, or until the tree is exhausted);
//! * at a whole line, when the next one would not leave room in `--max-result-bytes`;
//! * where the walk met a ceiling the configuration named, or the call its deadline: the
//!   answer holds what the files before that point gave, and the notice names the last one.
//!
//! For example, `{"pattern": "TODO", "path": "src", "glob": "*.rs", "context": 1}` answers
//! `src/lib.rs:12:// TODO: …` lines, each with the line before and after it as
//! `src/lib.rs-11-…` context, at most 50 matching lines.
//!
//! [`Root::in_order`]: crate::root::Root::in_order

mod file;
mod matcher;
mod tool;
mod types;

pub(super) use tool::tool;

use rayon::prelude::*;

use file::{
    Context, FileBudget, Found, Line, MAX_LINE_BUFFER, Scanned, count_file, holds_match,
    prefilter_searcher, scan_file, searcher,
};
pub use matcher::Reading;
use matcher::{Checked, compile};
use types::FileType;

use super::after::{After, notice_room, or_continue, past_file, walk_notice_room};
use super::answer::{
    BudgetedLines, Stop, answer_budget, max_results_stopped, no_matches, output_stopped,
    rules_notice, shown_short, too_deep_notice, walk_stopped,
};
use super::file_glob::FileGlob;
use super::locate::ScopeKind;
use super::shown::shown_path;
use super::{Fs, FsAnswer, FsError};
use crate::measure::escaped_len;
use crate::root::{FileEntry, InOrder, NotApplied, ReadFile, RelPath, RootError, Step};

/// Most lines of context on each side of a match.
pub const MAX_CONTEXT: usize = 20;
/// Most matching lines one answer may hold.
pub const MAX_RESULTS: u64 = 1000;
/// Upper bound of what one line adds, as it travels, besides its path and text: two marks, a
/// line number, the joining newline and a possible `--` separator line (each newline escaped
/// as two bytes).
const LINE_OVERHEAD: u64 = 2 + 20 + 2 + 4;

/// One grep request, with the arguments as the caller gave them.
#[derive(Debug, Clone, Copy)]
pub struct GrepQuery<'a> {
    /// Literal text, or a Rust regex when `reading.regex` is set.
    pub pattern: &'a str,
    /// The directory to search below, or one file (relative to the root).
    pub path: &'a str,
    /// How the pattern is read: regex or literal, case, whole word, across lines.
    pub reading: Reading,
    /// A filter in the glob tool's dialect, matched against each file's path from the root.
    pub glob: Option<&'a str>,
    /// One of ripgrep's file types (`rust`, `py`), matched against each file's name.
    pub file_type: Option<&'a str>,
    /// Lines of context before each match (at most [`MAX_CONTEXT`]).
    pub before_context: usize,
    /// Lines of context after each match (at most [`MAX_CONTEXT`]).
    pub after_context: usize,
    /// Most matches (or, for [`GrepOutput::Files`] and [`GrepOutput::Count`], files) to
    /// report (1 to [`MAX_RESULTS`]).
    pub max_results: u64,
    /// What the answer lists.
    pub output: GrepOutput,
    /// Where an earlier page stopped: a path, or `path:N` for lines (see [`super::after`]).
    pub after: Option<&'a str>,
}

/// What a grep answer lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrepOutput {
    /// `path:line:text` per matching line, with context lines (`output: "lines"`).
    Lines,
    /// One path per file holding a match (`"files"`, as `rg -l`).
    Files,
    /// `path:N` per file holding a match, N its matching lines (`"count"`, as `rg -c`).
    Count,
}

impl GrepOutput {
    /// The mode an `output` argument names.
    pub fn named(name: &str) -> Option<GrepOutput> {
        match name {
            "lines" => Some(GrepOutput::Lines),
            "files" => Some(GrepOutput::Files),
            "count" => Some(GrepOutput::Count),
            _ => None,
        }
    }
}

impl Fs {
    /// Searches the served files at or below `query.path` in tree order. The pattern, the
    /// name filter and the path are all checked before any file is opened. Binary files, and
    /// files that cannot be read, are skipped silently.
    pub fn grep(&self, query: &GrepQuery<'_>) -> Result<FsAnswer, FsError> {
        let matcher = compile(query.pattern, query.reading)?;
        let names = query
            .glob
            .map(|glob| FileGlob::new(glob, "glob"))
            .transpose()?;
        let file_type = query.file_type.map(FileType::named).transpose()?;
        let after = self.after(query.after, query.output == GrepOutput::Lines)?;
        // An absolute path is answered by its part below the root, like every other path.
        let at = self.parse_path(query.path)?;
        let scope = self.search_scope(&at, ScopeKind::DirectoryOrFile)?;
        let context = Context {
            before: query.before_context.min(MAX_CONTEXT),
            after: query.after_context.min(MAX_CONTEXT),
        };
        let max_results = query.max_results.clamp(1, MAX_RESULTS);
        let multiline = query.reading.multiline;
        let mut searcher = searcher(context, multiline);
        let mut counter = prefilter_searcher(multiline);
        let limits = self.root().limits();
        let budget = answer_budget(limits.max_result_bytes);
        let mut answer = Answer::new(budget, context, multiline);
        let mut too_long: Vec<String> = Vec::new();
        let mut too_costly: Vec<String> = Vec::new();
        let named = |entry: &FileEntry| {
            names
                .as_ref()
                .is_none_or(|glob| glob.keeps(&entry.path, &scope))
                && file_type.as_ref().is_none_or(|t| t.keeps(&entry.path))
                && after.as_ref().is_none_or(|after| after.keeps(&entry.path))
        };
        let mut ahead = Ahead::new(self.root().in_order(&scope), multiline, after.as_ref());
        let mut index = 0usize;
        // The last file searched whole, which a stop notice names.
        let mut searched: Option<String> = None;
        while let Some((entry, may_match)) = ahead.next(self, &matcher, &named) {
            index += 1;
            if !may_match {
                searched = Some(entry.path);
                continue;
            }
            let entry = &entry;
            let Some(file) = self.open_searched(entry) else {
                searched = Some(entry.path.clone());
                continue;
            };
            let scanned = match query.output {
                GrepOutput::Lines => {
                    let budget = FileBudget {
                        matches: max_results - answer.matches,
                        bytes: answer.lines.room(),
                        per_line: escaped_len(&shown_path(&entry.path, true)) + LINE_OVERHEAD,
                        shown: after
                            .as_ref()
                            .map_or(0, |after| after.lines_shown(&entry.path)),
                    };
                    scan_file(&mut searcher, &matcher, &file, budget).map(Found::Lines)
                }
                GrepOutput::Files => count_file(&mut counter, &matcher, &file, 1).map(Found::Count),
                GrepOutput::Count => {
                    count_file(&mut counter, &matcher, &file, u64::MAX).map(Found::Count)
                }
            };
            // A call past its deadline answers with the files searched before it; this one's
            // search may have been cut short, so it is left out.
            if let Err(error) = crate::root::check_deadline() {
                ahead.stopped = Some(error);
                break;
            }
            searched = Some(entry.path.clone());
            // A walk stop's notice would name this file (twice, with its position): a page
            // that could not hold that ends here, as a full one does.
            if answer.resume.is_some()
                && answer.lines.room() < walk_notice_room(&entry.path) + LINE_NUMBER_ROOM
            {
                answer.lines.stop = Some(Stop::Output);
                searched = None;
                break;
            }
            let hits = match scanned {
                Scanned::Hits(Found::Lines(hits)) => hits,
                Scanned::Hits(Found::Count(0)) | Scanned::Skipped => continue,
                Scanned::Hits(Found::Count(count)) => {
                    // One more matching file than max-results is how the answer knows to
                    // say there are more.
                    if answer.matches == max_results {
                        answer.lines.stop = Some(Stop::MaxResults(max_results));
                        break;
                    }
                    let count = (query.output == GrepOutput::Count).then_some(count);
                    answer.push_entry(&entry.path, count);
                    if answer.lines.stop.is_some() {
                        break;
                    }
                    continue;
                }
                Scanned::LineTooLong => {
                    too_long.push(entry.path.clone());
                    continue;
                }
                Scanned::TooCostly => {
                    too_costly.push(entry.path.clone());
                    continue;
                }
            };
            answer.push_file(index, &entry.path, &hits.lines, !hits.overflow);
            if hits.overflow {
                answer.lines.stop = Some(Stop::Output);
            }
            if answer.lines.stop.is_some() {
                break;
            }
            if hits.more {
                answer.lines.stop = Some(Stop::MaxResults(max_results));
                break;
            }
        }
        let mut text = answer.lines.text;
        match answer.lines.stop {
            _ if text.is_empty() => {
                text = no_matches(query.pattern, &at.given);
                text.extend(names.as_ref().and_then(|glob| glob.how_read(&scope)));
            }
            None => {}
            Some(Stop::MaxResults(n)) => {
                let counted = match query.output {
                    GrepOutput::Lines => "matching lines",
                    GrepOutput::Files | GrepOutput::Count => "files",
                };
                text.push_str(&max_results_stopped(n, counted, answer.resume.as_deref()));
            }
            Some(Stop::Output) => {
                let narrow = "narrow the path or glob, lower max-results";
                text.push_str(&output_stopped(
                    text.len(),
                    self.root().limits().max_result_bytes,
                    &or_continue(answer.resume.as_deref(), narrow),
                ));
            }
        }
        if !too_long.is_empty() {
            // Unlike a binary file, one that is text but cannot be searched would
            // otherwise be a silent false negative.
            // A multiline search holds the whole file, a line search one line at a time.
            let held = if multiline {
                "the file is"
            } else {
                "a line is"
            };
            text.push_str(&format!(
                "\n\n[not searched, {held} longer than {} MiB: {}]",
                MAX_LINE_BUFFER >> 20,
                shown_paths(&too_long)
            ));
        }
        if !too_costly.is_empty() {
            text.push_str(&format!(
                "\n\n[not searched, a line is too long for this pattern to search in time: {}; \
                 simplify the pattern (smaller counted repetitions)]",
                shown_paths(&too_costly)
            ));
        }
        if let Some(error) = ahead.stopped {
            let narrow = "narrow the path or glob";
            // A later page walks what lies before its position too, so it gets past the
            // deadline, not a ceiling.
            let position = searched
                .as_deref()
                .filter(|_| error == RootError::Deadline)
                .map(|path| match query.output {
                    GrepOutput::Lines => past_file(path),
                    GrepOutput::Files | GrepOutput::Count => path.to_owned(),
                });
            let narrow = or_continue(position.as_deref(), narrow);
            text.push_str(&walk_stopped(
                error,
                searched.as_deref(),
                limits,
                Some(&narrow),
            )?);
        }
        text.extend(too_deep_notice(&ahead.too_deep, limits.max_depth));
        text.extend(rules_notice(&ahead.not_applied));
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }

    /// Opens a file the walk found. One that changed since the walk is opened afresh (its
    /// current bytes are searched); one that vanished or cannot be read is skipped.
    fn open_searched(&self, entry: &FileEntry) -> Option<ReadFile> {
        match self.root.open_entry(entry) {
            Ok(file) => Some(file),
            Err(RootError::Changed) => RelPath::from_walk(entry.path.clone())
                .and_then(|path| self.root.open_for_read(&path).ok()),
            Err(_) => None,
        }
    }
}

/// Files judged in the first batch ahead of the ordered scan, and in the batch after one that
/// found a file that may match; after a batch without one, the next is twice as large, up to
/// [`MAX_AHEAD`]: an answer found in the first files costs few judgements, a long search for
/// a rare pattern runs in large parallel batches.
const FIRST_AHEAD: usize = 16;
/// Most files judged ahead of the ordered scan at once.
const MAX_AHEAD: usize = 256;

/// The files of the walk, in tree order, each with whether it could hold a match: most files
/// of a search usually do not, and finding that out runs on the worker pool, so the ordered
/// scan (with its budgets and context) only visits files that may have something to show. The
/// next batch is walked while this one is judged. A file the judge cannot read or judge counts
/// as one that may match.
struct Ahead<'w> {
    walk: InOrder<'w>,
    /// Judged files not yet taken, in order.
    judged: std::collections::VecDeque<(FileEntry, bool)>,
    /// Walked files not yet judged, in order.
    walked: Vec<FileEntry>,
    /// Size of the next batch.
    batch: usize,
    /// Directories passed over as too deep, in tree order.
    too_deep: Vec<String>,
    /// The ignore files the walk did not apply.
    not_applied: Vec<NotApplied>,
    /// What stopped the walk or the search before the scope's end, if anything.
    stopped: Option<RootError>,
    /// The walk has no more steps.
    ended: bool,
    /// The search reads each file whole (a pattern that may span lines).
    multiline: bool,
    /// Where the page starts: directories wholly before it are not walked.
    after: Option<&'w After>,
}

impl<'w> Ahead<'w> {
    fn new(walk: InOrder<'w>, multiline: bool, after: Option<&'w After>) -> Self {
        Ahead {
            walk,
            judged: Default::default(),
            walked: Vec::new(),
            batch: FIRST_AHEAD,
            too_deep: Vec::new(),
            not_applied: Vec::new(),
            stopped: None,
            ended: false,
            multiline,
            after,
        }
    }

    /// The next file of the walk that `named` keeps, and whether it may match.
    fn next(
        &mut self,
        fs: &Fs,
        matcher: &Checked,
        named: &(impl Fn(&FileEntry) -> bool + Sync),
    ) -> Option<(FileEntry, bool)> {
        if self.judged.is_empty() {
            if self.walked.len() < self.batch {
                let more = self.pull(named, self.batch - self.walked.len());
                self.walked.extend(more);
            }
            if self.walked.is_empty() {
                return None;
            }
            let take = self.walked.len().min(self.batch);
            let batch: Vec<FileEntry> = self.walked.drain(..take).collect();
            // Each file is judged under the call, on whichever pool thread takes it: a call
            // past its deadline or cancelled stops its judging within a window of lines.
            let call = crate::root::current_call();
            let multiline = self.multiline;
            let judge = |batch: &[FileEntry]| -> Vec<bool> {
                batch
                    .par_iter()
                    .map_init(
                        || prefilter_searcher(multiline),
                        |searcher, entry| {
                            call.clone().run(|| {
                                fs.open_searched(entry)
                                    .is_none_or(|file| holds_match(searcher, matcher, &file))
                            })
                        },
                    )
                    .collect()
            };
            // The next batch is walked meanwhile, as large as it may grow.
            let ahead = (self.batch * 2)
                .min(MAX_AHEAD)
                .saturating_sub(self.walked.len());
            let (verdicts, next) = crate::workers::install(|| {
                rayon::join(
                    || judge(&batch),
                    || call.clone().run(|| self.pull(named, ahead)),
                )
            });
            self.walked.extend(next);
            // Matches near: small batches, so an answer about to fill judges few files more
            // than it shows. None: larger ones, for throughput.
            self.batch = if verdicts.contains(&true) {
                FIRST_AHEAD
            } else {
                (self.batch * 2).min(MAX_AHEAD)
            };
            self.judged = batch.into_iter().zip(verdicts).collect();
        }
        self.judged.pop_front()
    }

    /// Walks on to the next `count` files `named` keeps; ends the walk at its error.
    fn pull(
        &mut self,
        named: &(impl Fn(&FileEntry) -> bool + Sync),
        count: usize,
    ) -> Vec<FileEntry> {
        let mut batch = Vec::new();
        while !self.ended && batch.len() < count {
            match self.walk.next() {
                Some(Ok(Step::File(file))) if named(&file) => batch.push(file),
                Some(Ok(Step::Directory(dir)))
                    if self.after.is_some_and(|after| !after.enters(&dir)) =>
                {
                    self.walk.leave();
                }
                Some(Ok(Step::TooDeep(dir))) => self.too_deep.push(dir),
                Some(Ok(Step::RulesNotApplied(rules))) => self.not_applied.push(rules),
                Some(Ok(_)) => {}
                Some(Err(error)) => {
                    self.stopped = Some(error);
                    self.ended = true;
                }
                None => self.ended = true,
            }
        }
        batch
    }
}

/// The answer being built: whole lines only, within a budget of escaped bytes.
#[derive(Debug)]
struct Answer {
    lines: BudgetedLines,
    separators: bool,
    /// File index and line number of the last line added.
    last: Option<(usize, u64)>,
    matches: u64,
    /// Where a next page would start: the last match shown, as `path:N` (or the last file,
    /// for files and counts).
    resume: Option<String>,
    /// Whether a match may span lines (`multiline`).
    multiline: bool,
}

impl Answer {
    fn new(budget: u64, context: Context, multiline: bool) -> Answer {
        Answer {
            lines: BudgetedLines::new(budget),
            separators: context != Context::default(),
            last: None,
            matches: 0,
            resume: None,
            multiline,
        }
    }

    /// Appends one file of a files or count answer: its path, and `:N` when `count` is given;
    /// stops instead when it would not fit. The count follows the line's last `:`, so no path
    /// needs quoting for the marks a `path:line:text` line could be misread by.
    fn push_entry(&mut self, path: &str, count: Option<u64>) {
        let shown = shown_path(path, false);
        let entry = match count {
            Some(count) => format!("{shown}:{count}"),
            None => shown.into_owned(),
        };
        if self.lines.push_leaving("", &entry, notice_room(path)) {
            self.matches += 1;
            self.resume = Some(path.to_owned());
        }
    }

    /// Appends one file's lines, with `--` before a line that does not follow the previous
    /// one; stops at the first line that would not fit. A match's lines (several, for a
    /// multiline match) go in together or not at all, so a page never ends inside a match
    /// that the next page, starting after the match's first line, would skip; only a match
    /// too long for any answer is shown in part. `complete` is false when the file's search
    /// stopped for room, so its last match may be cut: in a multiline search that match is
    /// left to the next page, once this page has a match to continue after.
    fn push_file(&mut self, index: usize, path: &str, lines: &[Line], complete: bool) {
        let shown = shown_path(path, true);
        let mut at = 0;
        while at < lines.len() {
            // One match's lines, or one context line.
            let end = if lines[at].starts_match {
                at + 1
                    + lines[at + 1..]
                        .iter()
                        .take_while(|l| l.is_match && !l.starts_match)
                        .count()
            } else {
                at + 1
            };
            let last_match = lines[at].starts_match && !lines[end..].iter().any(|l| l.starts_match);
            if last_match && !complete && self.multiline && self.resume.is_some() {
                self.lines.stop = Some(Stop::Output);
                return;
            }
            let group = &lines[at..end];
            let resume = match group[0].starts_match {
                true => Some(format!("{path}:{}", group[0].number)),
                false => self.resume.clone(),
            };
            let room = resume.as_deref().map_or(0, notice_room);
            // Each line with what goes before it: `--` where it does not follow the last.
            let entries: Vec<(&str, String)> = group
                .iter()
                .scan(self.last, |last, line| {
                    let separate = self.separators
                        && last.is_some_and(|(file, number)| {
                            file != index || line.number != number + 1
                        });
                    *last = Some((index, line.number));
                    let mark = if line.is_match { ':' } else { '-' };
                    Some((
                        if separate { "--\n" } else { "" },
                        format!("{shown}{mark}{}{mark}{}", line.number, line.text),
                    ))
                })
                .collect();
            // The whole group must fit, unless no match is shown yet (a match longer than
            // an answer is then shown as far as it fits, so the page has a position).
            if self.resume.is_some() && !self.lines.fit(&entries, room) {
                self.lines.stop = Some(Stop::Output);
                return;
            }
            for ((before, entry), line) in entries.iter().zip(group) {
                if !self.lines.push_leaving(before, entry, room) {
                    return;
                }
                self.last = Some((index, line.number));
                if line.starts_match {
                    self.matches += 1;
                    self.resume.clone_from(&resume);
                }
            }
            at = end;
        }
    }
}

/// Paths for a notice: the first as a text answer shows it (cut at 60 bytes), and how many
/// more, so a notice stays short however many files it speaks of.
fn shown_paths(paths: &[String]) -> String {
    let first = paths.first().map(|p| shown_short(p)).unwrap_or_default();
    match paths.len() {
        0 | 1 => first,
        n => format!("{first} and {} more", n - 1),
    }
}

/// What a `path:N` position's line number may add to a notice.
const LINE_NUMBER_ROOM: u64 = 21;

#[cfg(test)]
mod tests {
    use super::file::*;
    use super::matcher::*;
    use super::*;
    use crate::root::RootError;
    use grep_searcher::Searcher;

    /// The lines a search of one file gives, or `None` when the file is skipped.
    pub(super) fn scan_hits<F: ReadAt + ?Sized>(
        searcher: &mut Searcher,
        matcher: &Checked,
        file: &F,
        budget: FileBudget,
    ) -> Option<FileHits> {
        match scan_file(searcher, matcher, file, budget) {
            Scanned::Hits(hits) => Some(hits),
            Scanned::Skipped | Scanned::LineTooLong | Scanned::TooCostly => None,
        }
    }

    impl ReadAt for [u8] {
        fn size(&self) -> u64 {
            self.len() as u64
        }

        fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize, RootError> {
            let rest = self.get(offset as usize..).unwrap_or_default();
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        }
    }

    /// A file's budget of `matches` lines and unbounded bytes.
    pub(super) fn budget(matches: u64) -> FileBudget {
        FileBudget {
            matches,
            bytes: u64::MAX,
            per_line: LINE_OVERHEAD,
            shown: 0,
        }
    }

    /// `n` lines of context on each side.
    pub(super) fn around(n: usize) -> Context {
        Context {
            before: n,
            after: n,
        }
    }

    /// The formatted answer for one in-memory file named `f`.
    pub(super) fn grep(
        bytes: &[u8],
        pattern: &str,
        regex: bool,
        context: usize,
        quota: u64,
    ) -> String {
        let reading = Reading {
            regex,
            ..Reading::default()
        };
        grep_read(bytes, pattern, reading, around(context), quota)
    }

    /// The formatted answer for one in-memory file named `f`, the pattern read by `reading`.
    pub(super) fn grep_read(
        bytes: &[u8],
        pattern: &str,
        reading: Reading,
        context: Context,
        quota: u64,
    ) -> String {
        let matcher = compile(pattern, reading).expect("compiles");
        let mut searcher = searcher(context, reading.multiline);
        let hits = scan_hits(&mut searcher, &matcher, bytes, budget(quota)).expect("text");
        let mut answer = Answer::new(u64::MAX, context, false);
        answer.push_file(0, "f", &hits.lines, true);
        answer.lines.text
    }

    #[test]
    fn before_and_after_context_apart() {
        let file = b"1\n2\n3 x\n4\n5\n6\n7\n8\n9 x\n10\n";
        let lines = Reading::default();
        let context = |before, after| Context { before, after };
        assert_eq!(
            grep_read(file, "x", lines, context(2, 0), 50),
            "f-1-1\nf-2-2\nf:3:3 x\n--\nf-7-7\nf-8-8\nf:9:9 x"
        );
        assert_eq!(
            grep_read(file, "x", lines, context(0, 1), 50),
            "f:3:3 x\nf-4-4\n--\nf:9:9 x\nf-10-10"
        );
    }

    #[test]
    fn whole_words_and_matches_across_lines() {
        let file = b"foo foobar\nbar_foo\n(foo)\nfn a(\n  x,\n)\n";
        let word = Reading {
            word: true,
            ..Reading::default()
        };
        assert_eq!(
            grep_read(file, "foo", word, Context::default(), 50),
            "f:1:foo foobar\nf:3:(foo)"
        );
        let multiline = Reading {
            regex: true,
            multiline: true,
            ..Reading::default()
        };
        // Every line of a match is a matching line; the match counts once against the quota.
        assert_eq!(
            grep_read(file, r"\(\n.*\n\)", multiline, Context::default(), 1),
            "f:4:fn a(\nf:5:  x,\nf:6:)"
        );
        assert_eq!(
            grep_read(file, r"\(\n.*\n\)", multiline, around(1), 1),
            "f-3-(foo)\nf:4:fn a(\nf:5:  x,\nf:6:)"
        );
        let literal = Reading {
            multiline: true,
            ..Reading::default()
        };
        assert_eq!(
            grep_read(file, "bar\nbar_", literal, Context::default(), 50),
            "f:1:foo foobar\nf:2:bar_foo"
        );
    }

    #[test]
    fn context_groups_and_separators() {
        let file = b"1\n2 x\n3\n4\n5\n6\n7 x\n8 x\n9\n";
        assert_eq!(
            grep(file, "x", false, 1, 50),
            "f-1-1\nf:2:2 x\nf-3-3\n--\nf-6-6\nf:7:7 x\nf:8:8 x\nf-9-9"
        );
        // Groups that touch are one group.
        assert_eq!(
            grep(file, "x", false, 2, 50),
            "f-1-1\nf:2:2 x\nf-3-3\nf-4-4\nf-5-5\nf-6-6\nf:7:7 x\nf:8:8 x\nf-9-9"
        );
        // No separators without context.
        assert_eq!(grep(file, "x", false, 0, 50), "f:2:2 x\nf:7:7 x\nf:8:8 x");
    }

    #[test]
    fn separators_between_files() {
        let mut answer = Answer::new(u64::MAX, around(1), false);
        let line = |number, is_match| Line {
            number,
            is_match,
            starts_match: is_match,
            text: "t".into(),
        };
        answer.push_file(0, "a", &[line(1, true), line(2, false)], true);
        answer.push_file(1, "b", &[line(3, false), line(4, true)], true);
        assert_eq!(answer.lines.text, "a:1:t\na-2-t\n--\nb-3-t\nb:4:t");
        assert_eq!(answer.matches, 2);
    }

    #[test]
    fn answer_stops_at_a_whole_line() {
        let line = |number| Line {
            number,
            is_match: true,
            starts_match: true,
            text: "0123456789".into(),
        };
        // "p:1:0123456789" is 14 bytes; two lines and an escaped newline are 30, and the
        // answer keeps room for the notice's `after` of the second, "p:2".
        let mut answer = Answer::new(30 + notice_room("p:2"), Context::default(), false);
        answer.push_file(0, "p", &[line(1), line(2), line(3)], true);
        assert_eq!(answer.lines.text, "p:1:0123456789\np:2:0123456789");
        assert_eq!(answer.lines.stop, Some(Stop::Output));
        assert_eq!(answer.lines.used(), 30);
        assert_eq!(answer.matches, 2);
    }
}
