//! Lines matching a pattern in the served text files below a path, in GNU grep's layout.
//!
//! One [`RegexMatcher`] (ripgrep's `grep-regex`) is compiled per call — the pattern escaped as
//! a literal unless regex mode is asked for — before any file is opened. The files of the
//! scope come from [`Root::tree`] in tree order; each is opened through the root and read by
//! position through a [`TextSource`], which hands the bytes to ripgrep's line [`Searcher`] and
//! skips a binary file (a NUL in the first 8 KiB) as ripgrep does. Text that is not UTF-8
//! (Latin-1, a stray byte) is searched byte-wise like any other, and a reported line shows each
//! invalid byte as U+FFFD. A [`FileSink`] collects one file's matching and context lines.
//! Nothing is spawned and no file is read twice.
//!
//! The answer holds the formatted lines, `path:line:text` for a match and `path-line-text` for
//! context, with `--` between groups that are not adjacent (only when context is asked for),
//! and ends with a notice when it stops early:
//!
//! * after `max-results` matching lines, when at least one more matching line exists (the
//!   search goes on until it finds one, or until the tree is exhausted);
//! * at a whole line, when the next one would not leave room in `--max-result-bytes`.
//!
//! ```no_run
//! # fn demo(engine: &fsmcp::engine::Engine) -> Result<(), fsmcp::engine::EngineError> {
//! use fsmcp::engine::{GrepOutput, GrepQuery};
//! let answer = engine.grep(&GrepQuery {
//!     pattern: "TODO",
//!     path: "src",
//!     regex: false,
//!     case_insensitive: false,
//!     glob: Some("*.rs"),
//!     context: 1,
//!     max_results: 50,
//!     output: GrepOutput::Lines,
//! })?;
//! println!("{}", answer.text);
//! # Ok(())
//! # }
//! ```
//!
//! [`Root::tree`]: crate::root::Root::tree

use std::io;

use rayon::prelude::*;

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::{Input, hybrid};

use super::file_glob::FileGlob;
use super::glob::{
    ScopeKind, answer_budget, no_matches, output_stopped, relative_to, too_deep_notice,
};
use super::page::escaped_len;
use super::shown::shown_path;
use super::{Engine, EngineError, FsAnswer, FsError};
use crate::root::{FileEntry, ReadFile, RelPath, RootError};

/// Most lines of context on each side of a match.
pub const MAX_CONTEXT: usize = 20;
/// Most matching lines one answer may hold.
pub const MAX_RESULTS: u64 = 1000;

/// Size limit of the compiled pattern, and of the lazy DFA's cache while searching.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
const DFA_SIZE_LIMIT: usize = 8 << 20;
/// A NUL byte this close to the start marks a file as binary.
const SNIFF_BYTES: u64 = 8192;
/// Longest line the searcher will hold in memory; a file with a longer line is skipped.
const MAX_LINE_BUFFER: usize = 64 << 20;
/// Longest line text reported in full; of a longer one, a window of at most this many bytes
/// is shown (see [`line_text`]).
pub const MAX_LINE_BYTES: usize = 1024;
/// Bytes of a long matching line shown before its first match, when the match lies too far in
/// for the line's start to show it.
const LEAD_BYTES: usize = 256;
/// Upper bound of what one line adds, as it travels, besides its path and text: two marks, a
/// line number, the joining newline and a possible `--` separator line (each newline escaped
/// as two bytes).
const LINE_OVERHEAD: u64 = 2 + 20 + 2 + 4;

/// One grep request, with the arguments as the caller gave them.
#[derive(Debug, Clone, Copy)]
pub struct GrepQuery<'a> {
    /// Literal text, or a Rust regex when `regex` is set.
    pub pattern: &'a str,
    /// The directory to search below, or one file (relative to the root).
    pub path: &'a str,
    /// Whether `pattern` is a regular expression.
    pub regex: bool,
    /// Whether letters match without regard to case (literal and regex alike).
    pub case_insensitive: bool,
    /// A filter in the glob tool's dialect, matched against each file's path below `path`.
    pub glob: Option<&'a str>,
    /// Lines of context on each side of a match (at most [`MAX_CONTEXT`]).
    pub context: usize,
    /// Most matching lines (or, for [`GrepOutput::Files`] and [`GrepOutput::Count`], files)
    /// to report (1 to [`MAX_RESULTS`]).
    pub max_results: u64,
    /// What the answer lists.
    pub output: GrepOutput,
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

/// Why an answer ends before every matching line was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `max-results` matching lines were shown and more exist.
    MaxResults(u64),
    /// The next line would not have fit the result limit.
    Output,
}

impl Engine {
    /// Searches the served files at or below `query.path` in tree order. The pattern, the
    /// name filter and the path are all checked before any file is opened. Binary files, and
    /// files that cannot be read, are skipped silently.
    pub fn grep(&self, query: &GrepQuery<'_>) -> Result<FsAnswer, EngineError> {
        let matcher = compile(query.pattern, query.regex, query.case_insensitive)?;
        let names = query
            .glob
            .map(|glob| FileGlob::new(glob, "glob"))
            .transpose()?;
        let scope = self.search_scope(query.path, ScopeKind::DirectoryOrFile)?;
        let walked = self.root().tree(&scope)?;
        let files = &walked.files;
        let context = query.context.min(MAX_CONTEXT);
        let max_results = query.max_results.clamp(1, MAX_RESULTS);
        let mut searcher = searcher(context);
        let mut counter = prefilter_searcher();
        let budget = answer_budget(self.root().limits().max_result_bytes);
        let mut answer = Answer::new(budget, context);
        let mut too_long: Vec<&str> = Vec::new();
        let mut too_costly: Vec<&str> = Vec::new();
        let named = |entry: &FileEntry| {
            names
                .as_ref()
                .is_none_or(|glob| glob.keeps(relative_to(&scope, &entry.path)))
        };
        let mut maybe = Prefilter::default();
        for (index, entry) in files.iter().enumerate() {
            // A call past its deadline fails whole rather than answering with what it saw.
            crate::root::check_deadline()?;
            if !named(entry) || !maybe.may_match(self, &matcher, files, index, &named) {
                continue;
            }
            let Some(file) = self.open_searched(entry) else {
                continue;
            };
            let scanned = match query.output {
                GrepOutput::Lines => {
                    let budget = FileBudget {
                        matches: max_results - answer.matches,
                        bytes: answer.room(),
                        per_line: escaped_len(&shown_path(&entry.path, true)) + LINE_OVERHEAD,
                    };
                    scan_file(&mut searcher, &matcher, &file, budget).map(Found::Lines)
                }
                GrepOutput::Files => count_file(&mut counter, &matcher, &file, 1).map(Found::Count),
                GrepOutput::Count => {
                    count_file(&mut counter, &matcher, &file, u64::MAX).map(Found::Count)
                }
            };
            let hits = match scanned {
                Scanned::Hits(Found::Lines(hits)) => hits,
                Scanned::Hits(Found::Count(0)) | Scanned::Skipped => continue,
                Scanned::Hits(Found::Count(count)) => {
                    // One more matching file than max-results is how the answer knows to
                    // say there are more.
                    if answer.matches == max_results {
                        answer.stop = Some(Stop::MaxResults(max_results));
                        break;
                    }
                    let count = (query.output == GrepOutput::Count).then_some(count);
                    answer.push_entry(&entry.path, count);
                    if answer.stop.is_some() {
                        break;
                    }
                    continue;
                }
                Scanned::LineTooLong => {
                    too_long.push(&entry.path);
                    continue;
                }
                Scanned::TooCostly => {
                    too_costly.push(&entry.path);
                    continue;
                }
            };
            answer.push_file(index, &entry.path, &hits.lines);
            if hits.overflow {
                answer.stop = Some(Stop::Output);
            }
            if answer.stop.is_some() {
                break;
            }
            if hits.more {
                answer.stop = Some(Stop::MaxResults(max_results));
                break;
            }
        }
        // The last file's search may have stopped at the deadline: that answer is not whole.
        crate::root::check_deadline()?;
        let mut text = answer.text;
        match answer.stop {
            _ if text.is_empty() => text = no_matches(query.pattern, query.path),
            None => {}
            Some(Stop::MaxResults(n)) => {
                let counted = match query.output {
                    GrepOutput::Lines => "matching lines",
                    GrepOutput::Files | GrepOutput::Count => "files",
                };
                text.push_str(&format!(
                    "\n\n[stopped at {n} {counted}; raise max-results to see more]"
                ));
            }
            Some(Stop::Output) => text.push_str(&output_stopped(
                text.len(),
                "narrow the path or glob, or lower max-results",
            )),
        }
        if !too_long.is_empty() {
            // Unlike a binary file, one that is text but cannot be searched would
            // otherwise be a silent false negative.
            text.push_str(&format!(
                "\n\n[not searched, a line is longer than {} MiB: {}]",
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
        let max_depth = self.root().limits().max_depth;
        text.extend(too_deep_notice(&walked.too_deep, max_depth));
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

/// The one searcher configuration of every grep pass (the prefilter asks for no context): raw
/// bytes, no BOM transcoding, lines ended by `\n` or `\r\n`, a line's buffer bounded.
fn searcher(context: usize) -> Searcher {
    searcher_builder(context).line_number(true).build()
}

fn searcher_builder(context: usize) -> SearcherBuilder {
    let mut builder = SearcherBuilder::new();
    builder
        .line_terminator(LineTerminator::crlf())
        .before_context(context)
        .after_context(context)
        .bom_sniffing(false)
        .binary_detection(BinaryDetection::none())
        .heap_limit(Some(MAX_LINE_BUFFER));
    builder
}

/// The prefilter's searcher: [`searcher`] without context or line numbers, which only a
/// reported line needs.
fn prefilter_searcher() -> Searcher {
    searcher_builder(0).line_number(false).build()
}

/// Files searched ahead, in parallel, for whether they hold a match at all.
const PREFILTER_FILES: usize = 256;

/// Which files ahead of the ordered scan could match: most files of a search usually do not,
/// and finding that out runs on the worker pool, so the ordered scan (with its budgets and
/// context) only visits files that may have something to show. A file the prefilter cannot
/// read or judge counts as one that may match.
#[derive(Default)]
struct Prefilter {
    /// First file index the verdicts cover.
    from: usize,
    verdicts: Vec<bool>,
}

impl Prefilter {
    fn may_match(
        &mut self,
        engine: &Engine,
        matcher: &Checked,
        files: &[FileEntry],
        index: usize,
        named: &(impl Fn(&FileEntry) -> bool + Sync),
    ) -> bool {
        if index < self.from || index >= self.from + self.verdicts.len() {
            self.from = index;
            let ahead = &files[index..(index + PREFILTER_FILES).min(files.len())];
            // Each file is judged under the call, on whichever pool thread takes it: a call
            // past its deadline or cancelled stops its judging within a window of lines.
            let call = crate::root::current_call();
            let judge = || -> Vec<bool> {
                ahead
                    .par_iter()
                    .map_init(prefilter_searcher, |searcher, entry| {
                        call.clone().run(|| {
                            named(entry)
                                && engine
                                    .open_searched(entry)
                                    .is_none_or(|file| holds_match(searcher, matcher, &file))
                        })
                    })
                    .collect()
            };
            self.verdicts = crate::workers::install(judge);
        }
        self.verdicts[index - self.from]
    }
}

/// Whether `file` holds a matching line; `true` when the search fails (the ordered scan then
/// decides what to report).
fn holds_match<F: ReadAt + ?Sized>(searcher: &mut Searcher, matcher: &Checked, file: &F) -> bool {
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
        Err(_) => true,
    }
}

/// Compiles the pattern: escaped as a literal, or as a Rust regex within the size limit, with
/// or without regard to case. Matches never span a line ending, and `$` matches before
/// `\r\n` as before `\n`.
fn compile(pattern: &str, regex: bool, case_insensitive: bool) -> Result<Checked, EngineError> {
    if pattern.is_empty() {
        return Err(FsError::EmptyPattern.into());
    }
    if !regex && pattern.contains(['\n', '\r']) {
        return Err(FsError::PatternMultiline.into());
    }
    // As ripgrep builds its matcher: multi-line mode with `\n` as the line terminator, so `^`
    // and `$` match at each line's start and end (`$` also before `\r\n`) and the searcher can
    // scan whole buffers instead of line by line.
    RegexMatcherBuilder::new()
        .fixed_strings(!regex)
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build(pattern)
        .map(|matcher| {
            let probe = regex.then(|| Probe::new(pattern, case_insensitive));
            Checked(matcher, probe.flatten())
        })
        .map_err(|error| {
            if !regex {
                return FsError::PatternTooLarge("pattern").into();
            }
            // `grep-regex` quotes the pattern as it rewrote it; the regex crate's own message
            // quotes it as given, so prefer that one when it has one.
            let reason = regex::RegexBuilder::new(pattern)
                .case_insensitive(case_insensitive)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .err()
                .map_or_else(|| error.to_string(), |e| e.to_string());
            FsError::InvalidRegex(pattern.to_owned(), one_line(&reason)).into()
        })
}

/// A message laid out over several lines (the regex parser points at the error with a caret
/// line), as one line: every run of white space becomes one space.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bytes a search reads between two checks of the call. A costly pattern (one the lazy DFA
/// gives up on) searches a few bytes per microsecond, so one search of a whole file could run
/// for seconds past the deadline; searched a window of whole lines at a time, it stops soon
/// after it. Large enough that a cheap pattern pays nothing for it.
const CHECK_WINDOW: usize = 16 << 10;

/// Most work (pattern states × bytes) one search of a window may take when the regex engine
/// must simulate the pattern's automaton (about 15 ns each: two seconds at most).
const FALLBACK_WORK: u64 = 1 << 27;

/// What a search error says when a window was too costly to search; [`scan_file`] knows it by
/// this text (the searcher passes on only a matcher error's message).
const TOO_COSTLY: &str = "the pattern is too costly to search this text";

/// The compiled pattern, searching at most [`CHECK_WINDOW`] bytes (and the rest of the line
/// they end in) between two checks of the calling thread's call. Matches never span a line
/// terminator, so a window of whole lines finds what the whole haystack would. A window one
/// search could not finish in bounded time (one long line, for a costly regex) is refused
/// (see [`Probe`]).
#[derive(Debug)]
struct Checked(RegexMatcher, Option<Probe>);

/// The regex's forward lazy DFA, built with the limits the regex engine gives its own (an
/// 8 MiB cache, given up after three clears at under ten bytes a state, quitting where a
/// Unicode word boundary meets a non-ASCII byte). Where it gives up or quits,
/// the engine falls back to simulating the automaton, at a cost per byte that grows with the
/// pattern's states (a 1.6 MB line of `0`/`1` took 25 s for `[01]*1[01]{1000}2`), and one
/// search of one line cannot be interrupted. The probe's own work is bounded by its cache,
/// whatever the text's length.
#[derive(Debug)]
struct Probe {
    /// `None` when the regex engine could not build one either (it then always simulates).
    dfa: Option<hybrid::dfa::DFA>,
    states: u64,
}

impl Probe {
    fn new(pattern: &str, case_insensitive: bool) -> Option<Probe> {
        let nfa = thompson::Compiler::new()
            .syntax(
                syntax::Config::new()
                    .case_insensitive(case_insensitive)
                    .crlf(true)
                    .multi_line(true)
                    .utf8(false),
            )
            .configure(thompson::Config::new().nfa_size_limit(Some(REGEX_SIZE_LIMIT)))
            .build(pattern)
            .ok()?;
        let states = nfa.states().len() as u64;
        let dfa = hybrid::dfa::DFA::builder()
            .configure(
                hybrid::dfa::DFA::config()
                    .cache_capacity(DFA_SIZE_LIMIT)
                    .unicode_word_boundary(true)
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa)
            .ok();
        Some(Probe { dfa, states })
    }

    /// Whether one search of `text` may take more than [`FALLBACK_WORK`].
    fn too_costly(&self, text: &[u8]) -> bool {
        if self.states.saturating_mul(text.len() as u64) <= FALLBACK_WORK {
            return false;
        }
        let Some(dfa) = &self.dfa else {
            return true;
        };
        // Given up, or quit at a byte it cannot handle (a Unicode word boundary before a
        // non-ASCII byte): either way the engine would simulate the automaton. Not stopped at
        // the first match: a search for the leftmost-first match goes on past it.
        let mut cache = dfa.create_cache();
        dfa.try_search_fwd(&mut cache, &Input::new(text)).is_err()
    }
}

impl Checked {
    /// Calls `search` on successive windows of `haystack` from `at`, each ending after a line
    /// terminator (or at the end), until it returns `Some`; the window's end is passed.
    fn windows<T>(
        &self,
        haystack: &[u8],
        at: usize,
        mut search: impl FnMut(usize, usize) -> Option<T>,
    ) -> Result<Option<T>, io::Error> {
        let mut start = at;
        loop {
            crate::root::check_deadline().map_err(|e| io::Error::other(e.to_string()))?;
            let end = match haystack.get(start + CHECK_WINDOW..) {
                Some(rest) if self.0.line_terminator().is_some() => memchr::memchr(b'\n', rest)
                    .map_or(haystack.len(), |i| start + CHECK_WINDOW + i + 1),
                _ => haystack.len(),
            };
            if self
                .1
                .as_ref()
                .is_some_and(|probe| probe.too_costly(&haystack[start..end]))
            {
                return Err(io::Error::other(TOO_COSTLY));
            }
            if let Some(found) = search(start, end) {
                return Ok(Some(found));
            }
            if end >= haystack.len() {
                return Ok(None);
            }
            start = end;
        }
    }
}

impl Matcher for Checked {
    type Captures = <RegexMatcher as Matcher>::Captures;
    type Error = io::Error;

    fn find_at(&self, haystack: &[u8], at: usize) -> io::Result<Option<Match>> {
        self.windows(haystack, at, |start, end| {
            self.0.find_at(&haystack[..end], start).unwrap_or(None)
        })
    }

    fn new_captures(&self) -> io::Result<Self::Captures> {
        self.0
            .new_captures()
            .map_err(|e| io::Error::other(e.to_string()))
    }

    fn capture_count(&self) -> usize {
        self.0.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.0.capture_index(name)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> io::Result<Option<usize>> {
        self.windows(haystack, at, |start, end| {
            self.0
                .shortest_match_at(&haystack[..end], start)
                .unwrap_or(None)
        })
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.0.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.0.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> io::Result<Option<LineMatchKind>> {
        self.windows(haystack, 0, |start, end| {
            let found = self
                .0
                .find_candidate_line(&haystack[start..end])
                .unwrap_or(None);
            found.map(|kind| match kind {
                LineMatchKind::Confirmed(i) => LineMatchKind::Confirmed(start + i),
                LineMatchKind::Candidate(i) => LineMatchKind::Candidate(start + i),
            })
        })
    }
}

/// Positional reads of one file, as the root's [`ReadFile`] offers them.
trait ReadAt {
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

/// The error a [`TextSource`] reports for a binary file; it ends that file's search.
fn binary() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "binary")
}

/// A file's bytes as the searcher reads them: by position, up to the size seen at open time,
/// without a leading UTF-8 byte-order mark, and failing at once for a binary file (a NUL in
/// its first 8 KiB).
struct TextSource<'a, F: ReadAt + ?Sized> {
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
            if start == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
                buf.copy_within(3..read, 0);
                if read == 3 {
                    continue;
                }
                return Ok(read - 3);
            }
            return Ok(read);
        }
    }
}

/// One reported line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    number: u64,
    is_match: bool,
    text: String,
}

/// What one text file contributed.
#[derive(Debug, Default)]
struct FileHits {
    lines: Vec<Line>,
    /// A matching line exists beyond the file's quota.
    more: bool,
    /// The lines outgrew the room left in the answer, so the search of this file stopped.
    overflow: bool,
}

/// What the answer still takes from one file.
#[derive(Debug, Clone, Copy)]
struct FileBudget {
    /// Matching lines (0: only look for one more).
    matches: u64,
    /// Bytes the lines may take as they travel, counted generously: escaped text plus
    /// `per_line` for each.
    bytes: u64,
    /// What a line adds besides its text: the path, marks, number and separators.
    per_line: u64,
}

/// What searching one file gave: what it found, nothing to show (binary, unreadable), a line
/// too long to hold in memory, or a line too costly for the pattern.
enum Scanned<T> {
    Hits(T),
    Skipped,
    LineTooLong,
    /// A line the pattern could not search in bounded time (see [`Probe`]).
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

    fn map<U>(self, f: impl FnOnce(T) -> U) -> Scanned<U> {
        match self {
            Scanned::Hits(found) => Scanned::Hits(f(found)),
            Scanned::Skipped => Scanned::Skipped,
            Scanned::LineTooLong => Scanned::LineTooLong,
            Scanned::TooCostly => Scanned::TooCostly,
        }
    }
}

/// What a file gave, by the answer's [`GrepOutput`].
enum Found {
    Lines(FileHits),
    /// Matching lines, counted up to the search's limit.
    Count(u64),
}

fn scan_file<F: ReadAt + ?Sized>(
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

/// The matching lines of `file`, counted up to `limit`.
fn count_file<F: ReadAt + ?Sized>(
    searcher: &mut Searcher,
    matcher: &Checked,
    file: &F,
    limit: u64,
) -> Scanned<u64> {
    struct Counter {
        count: u64,
        limit: u64,
    }
    impl Sink for Counter {
        type Error = io::Error;
        fn matched(&mut self, _: &Searcher, _: &SinkMatch<'_>) -> io::Result<bool> {
            self.count += 1;
            Ok(self.count < self.limit)
        }
    }
    let mut counter = Counter { count: 0, limit };
    let searched = searcher.search_reader(matcher, TextSource::new(file), &mut counter);
    Scanned::of(searched.map(|()| counter.count))
}

/// Collects one file's lines for [`scan_file`].
struct FileSink<'m> {
    /// Finds where a long matching line's first match sits.
    matcher: &'m Checked,
    budget: FileBudget,
    matches: u64,
    bytes: u64,
    hits: FileHits,
}

impl FileSink<'_> {
    fn push(
        &mut self,
        number: Option<u64>,
        first_match: Option<usize>,
        bytes: &[u8],
    ) -> io::Result<bool> {
        let is_match = first_match.is_some();
        let text = line_text(bytes, first_match);
        self.bytes += escaped_len(&text) + self.budget.per_line;
        self.hits.lines.push(Line {
            number: number.unwrap_or(0),
            is_match,
            text,
        });
        if self.bytes > self.budget.bytes {
            self.hits.overflow = true;
            return Ok(false);
        }
        Ok(true)
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        if self.matches >= self.budget.matches {
            self.hits.more = true;
            return Ok(false);
        }
        self.matches += 1;
        let bytes = found.bytes();
        // Only a line too long to show whole needs to know where its match is.
        let at = if bytes.len() > MAX_LINE_BYTES {
            self.matcher.find(bytes)?.map_or(0, |m| m.start())
        } else {
            0
        };
        self.push(found.line_number(), Some(at), bytes)
    }

    fn context(&mut self, _: &Searcher, line: &SinkContext<'_>) -> io::Result<bool> {
        // Past the quota only the trailing context of the last match shown is wanted; the
        // leading context of a match that will not be shown is not.
        if self.matches >= self.budget.matches && *line.kind() != SinkContextKind::After {
            return Ok(true);
        }
        self.push(line.line_number(), None, line.bytes())
    }
}

/// A line as reported: without its `\n` and one `\r` before it, each byte that is not UTF-8
/// shown as U+FFFD. A line longer than [`MAX_LINE_BYTES`] is shown as a window of that many
/// bytes, from its start, or, for a matching line whose first match (at byte `first_match`)
/// lies further in, from [`LEAD_BYTES`] before the match (earlier near the line's end), so the
/// match is always visible. A
/// window is marked `…` where the line goes on and followed by where it sits in the line:
/// ` [bytes A-B of N; match at byte M]` (1-based, `; match …` for a matching line).
fn line_text(bytes: &[u8], first_match: Option<usize>) -> String {
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
fn continues(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// `at`, or the start of the next character when `at` falls inside one (an invalid run is
/// passed over at most three bytes, the most a character continues for).
fn char_start(line: &[u8], mut at: usize) -> usize {
    for _ in 0..3 {
        if at < line.len() && continues(line[at]) {
            at += 1;
        }
    }
    at
}

/// `end`, or the start of the character it falls inside, never before `start`.
fn char_end(line: &[u8], start: usize, mut end: usize) -> usize {
    for _ in 0..3 {
        if end > start && end < line.len() && continues(line[end]) {
            end -= 1;
        }
    }
    end
}

/// The answer being built: whole lines only, within a budget of escaped bytes.
#[derive(Debug)]
struct Answer {
    text: String,
    /// Escaped bytes of `text`.
    used: u64,
    budget: u64,
    separators: bool,
    /// File index and line number of the last line added.
    last: Option<(usize, u64)>,
    matches: u64,
    stop: Option<Stop>,
}

impl Answer {
    fn new(budget: u64, context: usize) -> Answer {
        Answer {
            text: String::new(),
            used: 0,
            budget,
            separators: context > 0,
            last: None,
            matches: 0,
            stop: None,
        }
    }

    /// Escaped bytes left for lines.
    fn room(&self) -> u64 {
        self.budget.saturating_sub(self.used)
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
        // A joining newline travels as two bytes (`\n`).
        let cost = if self.text.is_empty() { 0 } else { 2 } + escaped_len(&entry);
        if self.used + cost > self.budget {
            self.stop = Some(Stop::Output);
            return;
        }
        self.used += cost;
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(&entry);
        self.matches += 1;
    }

    /// Appends one file's lines, with `--` before a line that does not follow the previous
    /// one; stops at the first line that would not fit.
    fn push_file(&mut self, index: usize, path: &str, lines: &[Line]) {
        for line in lines {
            let separate = self.separators
                && self
                    .last
                    .is_some_and(|(file, number)| file != index || line.number != number + 1);
            let mark = if line.is_match { ':' } else { '-' };
            let path = shown_path(path, true);
            let entry = format!("{path}{mark}{}{mark}{}", line.number, line.text);
            // Each newline travels as two bytes (`\n`).
            let joined = if self.text.is_empty() { 0 } else { 2 } + if separate { 4 } else { 0 };
            let cost = joined + escaped_len(&entry);
            if self.used + cost > self.budget {
                self.stop = Some(Stop::Output);
                return;
            }
            self.used += cost;
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            if separate {
                self.text.push_str("--\n");
            }
            self.text.push_str(&entry);
            self.last = Some((index, line.number));
            self.matches += u64::from(line.is_match);
        }
    }
}

/// Paths for a notice, each as a text answer shows it, joined by commas.
fn shown_paths(paths: &[&str]) -> String {
    let shown: Vec<_> = paths.iter().map(|path| shown_path(path, false)).collect();
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines a search of one file gives, or `None` when the file is skipped.
    fn scan_hits<F: ReadAt + ?Sized>(
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

    fn budget(matches: u64) -> FileBudget {
        FileBudget {
            matches,
            bytes: u64::MAX,
            per_line: LINE_OVERHEAD,
        }
    }

    /// The formatted answer for one in-memory file named `f`.
    fn grep(bytes: &[u8], pattern: &str, regex: bool, context: usize, quota: u64) -> String {
        let matcher = compile(pattern, regex, false).expect("compiles");
        let hits = scan_hits(&mut searcher(context), &matcher, bytes, budget(quota)).expect("text");
        let mut answer = Answer::new(u64::MAX, context);
        answer.push_file(0, "f", &hits.lines);
        answer.text
    }

    fn scan(bytes: &[u8], pattern: &str) -> Option<FileHits> {
        let matcher = compile(pattern, false, false).expect("compiles");
        scan_hits(&mut searcher(0), &matcher, bytes, budget(50))
    }

    #[test]
    fn literal_by_default() {
        let file = b"a.b\naxb\n(a.b)\n";
        assert_eq!(grep(file, "a.b", false, 0, 50), "f:1:a.b\nf:3:(a.b)");
        assert_eq!(
            grep(file, "a.b", true, 0, 50),
            "f:1:a.b\nf:2:axb\nf:3:(a.b)"
        );
        assert_eq!(grep(file, "^a", true, 0, 50), "f:1:a.b\nf:2:axb");
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
        let mut answer = Answer::new(u64::MAX, 1);
        let line = |number, is_match| Line {
            number,
            is_match,
            text: "t".into(),
        };
        answer.push_file(0, "a", &[line(1, true), line(2, false)]);
        answer.push_file(1, "b", &[line(3, false), line(4, true)]);
        assert_eq!(answer.text, "a:1:t\na-2-t\n--\nb-3-t\nb:4:t");
        assert_eq!(answer.matches, 2);
    }

    #[test]
    fn quota_keeps_trailing_context_and_looks_for_one_more() {
        let file = b"x1\nc\nx2\nc\nc\nc\nx3\n";
        let matcher = compile("x", false, false).unwrap();
        let hits = scan_hits(&mut searcher(1), &matcher, &file[..], budget(1)).unwrap();
        assert!(hits.more);
        let texts: Vec<_> = hits.lines.iter().map(|l| l.text.as_str()).collect();
        // The second match ends the search; it and its leading context are not shown.
        assert_eq!(texts, ["x1", "c"]);
        let hits = scan_hits(&mut searcher(2), &matcher, &file[..], budget(2)).unwrap();
        assert!(hits.more);
        let numbers: Vec<_> = hits.lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        // Quota 0 only looks.
        let hits = scan_hits(&mut searcher(2), &matcher, &file[..], budget(0)).unwrap();
        assert!(hits.more && hits.lines.is_empty());
        let hits = scan_hits(&mut searcher(0), &matcher, &file[..], budget(3)).unwrap();
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
    fn windows_find_what_the_whole_haystack_holds() {
        // Matches in the first window, in a line across the boundary of the next, and after.
        let mut file = "a\n".repeat(CHECK_WINDOW);
        file.push_str(&"b".repeat(CHECK_WINDOW));
        file.push_str(" needle\nlast needle\n");
        let lines = CHECK_WINDOW + 1;
        assert_eq!(
            grep(file.as_bytes(), "needle", false, 0, 50),
            format!(
                "f:{lines}:…{} needle [bytes {}-{} of {}; match at byte {}]\nf:{}:last needle",
                "b".repeat(MAX_LINE_BYTES - 7),
                CHECK_WINDOW + 7 - MAX_LINE_BYTES + 1,
                CHECK_WINDOW + 7,
                CHECK_WINDOW + 7,
                CHECK_WINDOW + 2,
                lines + 1
            )
        );
        assert_eq!(grep(file.as_bytes(), "^a", true, 0, 1), "f:1:a");
        assert_eq!(
            grep(file.as_bytes(), "^last", true, 0, 50),
            format!("f:{}:last needle", lines + 1)
        );
    }

    #[test]
    fn the_probe_refuses_only_what_the_lazy_dfa_gives_up_on() {
        // Few states: never probed.
        let small = Probe::new("[01]*1[01]{20}2", false).expect("builds");
        assert!(!small.too_costly(&[b'0'; 1 << 20]));
        // Many states over a long line the lazy DFA handles: searched.
        let wide = Probe::new(r"\w{50}x", false).expect("builds");
        assert!(wide.states.saturating_mul(1 << 21) > FALLBACK_WORK);
        assert!(!wide.too_costly(&[b'a'; 1 << 21]));
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

    #[test]
    fn answer_stops_at_a_whole_line() {
        let line = |number| Line {
            number,
            is_match: true,
            text: "0123456789".into(),
        };
        // "p:1:0123456789" is 14 bytes; two lines and an escaped newline are 30.
        let mut answer = Answer::new(30, 0);
        answer.push_file(0, "p", &[line(1), line(2), line(3)]);
        assert_eq!(answer.text, "p:1:0123456789\np:2:0123456789");
        assert_eq!(answer.stop, Some(Stop::Output));
        assert_eq!(answer.used, 30);
        assert_eq!(answer.matches, 2);
    }

    #[test]
    fn overflow_stops_the_file() {
        let matcher = compile("x", false, false).unwrap();
        let file = "x\n".repeat(1000);
        let hits = scan_hits(
            &mut searcher(0),
            &matcher,
            file.as_bytes(),
            FileBudget {
                matches: 1000,
                bytes: 10 * LINE_OVERHEAD,
                per_line: LINE_OVERHEAD,
            },
        )
        .unwrap();
        assert!(hits.overflow);
        assert!(hits.lines.len() < 20);
    }

    #[test]
    fn patterns_are_checked() {
        assert_eq!(
            compile("", false, false).unwrap_err(),
            FsError::EmptyPattern.into()
        );
        assert_eq!(
            compile("a\nb", false, false).unwrap_err(),
            FsError::PatternMultiline.into()
        );
        let EngineError::Fs(FsError::InvalidRegex(pattern, reason)) =
            compile("a(b", true, false).unwrap_err()
        else {
            panic!("an invalid regex");
        };
        assert_eq!(pattern, "a(b");
        assert!(!reason.contains('\n'), "{reason}");
        assert!(reason.contains("unclosed group"), "{reason}");
        assert!(matches!(
            compile("a{1000}{1000}", true, false).unwrap_err(),
            EngineError::Fs(FsError::InvalidRegex(..))
        ));
        assert!(compile("(", false, false).is_ok());
        assert!(compile(&"x".repeat(10_000), false, false).is_ok());
        assert_eq!(
            compile(&"x".repeat(100_000), false, false).unwrap_err(),
            FsError::PatternTooLarge("pattern").into()
        );
    }
}
