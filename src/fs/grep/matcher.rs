//! The compiled pattern: ripgrep's matcher, configured as `rg` configures it, searched a
//! window of lines at a time so a call's deadline and cancellation are seen, and refusing a
//! line only an exponential simulation could search.

use std::io;

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::{Input, hybrid};

use crate::fs::FsError;

/// Size limit of the compiled pattern, and of the lazy DFA's cache while searching.
pub(super) const REGEX_SIZE_LIMIT: usize = 1 << 20;
pub(super) const DFA_SIZE_LIMIT: usize = 8 << 20;

/// How a pattern is read: the switches of a grep call that shape the matcher.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading {
    /// A Rust regex rather than a literal.
    pub regex: bool,
    /// Letters match without regard to case.
    pub case_insensitive: bool,
    /// A match must stand as a whole word (`rg -w`).
    pub word: bool,
    /// A match may span lines (`rg -U`): no line terminator is set, so `\n` matches one.
    pub multiline: bool,
}

/// Compiles the pattern: escaped as a literal, or as a Rust regex within the size limit, with
/// or without regard to case, as a whole word or not. Without `multiline`, matches never span
/// a line ending; either way `$` matches before `\r\n` as before `\n`.
pub(super) fn compile(pattern: &str, reading: Reading) -> Result<Checked, FsError> {
    let Reading {
        regex,
        case_insensitive,
        word,
        multiline,
    } = reading;
    if pattern.is_empty() {
        return Err(FsError::EmptyPattern);
    }
    if !regex && !multiline && pattern.contains(['\n', '\r']) {
        return Err(FsError::PatternMultiline);
    }
    // As ripgrep builds its matcher: multi-line mode with `\n` as the line terminator, so `^`
    // and `$` match at each line's start and end (`$` also before `\r\n`) and the searcher can
    // scan whole buffers instead of line by line. With `multiline`, as `rg -U` builds it: no
    // line terminator, so a match may cross one.
    let mut builder = RegexMatcherBuilder::new();
    builder
        .fixed_strings(!regex)
        .case_insensitive(case_insensitive)
        .word(word)
        .multi_line(true)
        .line_terminator(Some(b'\n'))
        // Also sets `\r\n` as the line terminator, which multiline takes away again.
        .crlf(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT);
    if multiline {
        builder.line_terminator(None);
    }
    builder
        .build(pattern)
        .map(|matcher| {
            let probe = regex.then(|| Probe::new(pattern, case_insensitive));
            Checked(matcher, probe.flatten())
        })
        .map_err(|error| {
            if !regex {
                return FsError::PatternTooLarge("pattern");
            }
            // `grep-regex` quotes the pattern as it rewrote it; the regex crate's own message
            // quotes it as given, so prefer that one when it has one.
            let reason = regex::RegexBuilder::new(pattern)
                .case_insensitive(case_insensitive)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .err()
                .map_or_else(|| error.to_string(), |e| e.to_string());
            FsError::InvalidRegex(pattern.to_owned(), one_line(&reason))
        })
}

/// A message laid out over several lines (the regex parser points at the error with a caret
/// line), as one line: every run of white space becomes one space.
pub(super) fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bytes a search reads between two checks of the call. A costly pattern (one the lazy DFA
/// gives up on) searches a few bytes per microsecond, so one search of a whole file could run
/// for seconds past the deadline; searched a window of whole lines at a time, it stops soon
/// after it. Large enough that a cheap pattern pays nothing for it.
pub(super) const CHECK_WINDOW: usize = 16 << 10;

/// Most work (pattern states × bytes) one search of a window may take when the regex engine
/// must simulate the pattern's automaton (about 15 ns each: two seconds at most).
pub(super) const FALLBACK_WORK: u64 = 1 << 27;

/// What a search error says when a window was too costly to search; [`scan_file`](super::file::scan_file) knows it by
/// this text (the searcher passes on only a matcher error's message).
pub(super) const TOO_COSTLY: &str = "the pattern is too costly to search this text";

/// The compiled pattern, searching at most [`CHECK_WINDOW`] bytes (and the rest of the line
/// they end in) between two checks of the calling thread's call. Matches never span a line
/// terminator, so a window of whole lines finds what the whole haystack would. A window one
/// search could not finish in bounded time (one long line, for a costly regex) is refused
/// (see [`Probe`]).
#[derive(Debug)]
pub(super) struct Checked(RegexMatcher, Option<Probe>);

/// The regex's forward lazy DFA, built with the limits the regex engine gives its own (an
/// 8 MiB cache, given up after three clears at under ten bytes a state, quitting where a
/// Unicode word boundary meets a non-ASCII byte). Where it gives up or quits,
/// the engine falls back to simulating the automaton, at a cost per byte that grows with the
/// pattern's states (a 1.6 MB line of `0`/`1` took 25 s for `[01]*1[01]{1000}2`), and one
/// search of one line cannot be interrupted. The probe's own work is bounded by its cache,
/// whatever the text's length.
#[derive(Debug)]
pub(super) struct Probe {
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

thread_local! {
    /// The haystack (address and length) a search without a line terminator last probed
    /// whole from its start and found cheap.
    static PROBED: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Whether the window `start..end` need not be probed: a multiline search (no line
/// terminator, so one window is the rest of the file) asks again from each match's end, and
/// probing the rest each time would cost the file's length per match. Its first search, from
/// the start, is probed, and that verdict stands for the rest of the same buffer: a new file's
/// search starts at 0 again.
fn probed_whole(haystack: &[u8], start: usize, end: usize) -> bool {
    if end != haystack.len() {
        return false;
    }
    let key = (haystack.as_ptr() as usize, haystack.len());
    if start == 0 {
        PROBED.with(|probed| probed.set(key));
        return false;
    }
    PROBED.with(std::cell::Cell::get) == key
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
            if self.1.as_ref().is_some_and(|probe| {
                !probed_whole(haystack, start, end) && probe.too_costly(&haystack[start..end])
            }) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::grep::file::MAX_LINE_BYTES;
    use crate::fs::grep::tests::grep;

    const REGEX: Reading = Reading {
        regex: true,
        case_insensitive: false,
        word: false,
        multiline: false,
    };

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
    fn patterns_are_checked() {
        assert_eq!(
            compile("", Reading::default()).unwrap_err(),
            FsError::EmptyPattern
        );
        assert_eq!(
            compile("a\nb", Reading::default()).unwrap_err(),
            FsError::PatternMultiline
        );
        let FsError::InvalidRegex(pattern, reason) = compile("a(b", REGEX).unwrap_err() else {
            panic!("an invalid regex");
        };
        assert_eq!(pattern, "a(b");
        assert!(!reason.contains('\n'), "{reason}");
        assert!(reason.contains("unclosed group"), "{reason}");
        assert!(matches!(
            compile("a{1000}{1000}", REGEX).unwrap_err(),
            FsError::InvalidRegex(..)
        ));
        assert!(compile("(", Reading::default()).is_ok());
        assert!(compile(&"x".repeat(10_000), Reading::default()).is_ok());
        assert_eq!(
            compile(&"x".repeat(100_000), Reading::default()).unwrap_err(),
            FsError::PatternTooLarge("pattern")
        );
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
}
