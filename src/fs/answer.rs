//! What an fs tool answers, and the budget and notices every walking tool shares.

use super::error::count;
use super::shown::shown_path;
use super::{FsError, OverLimit};
use crate::measure::escaped_len;
use crate::root::limits::Limits;
use crate::root::{
    MAX_COSTLY_IN_FORCE, MAX_FILE_PATTERNS, MAX_IGNORE_BYTES, MAX_PATTERNS_IN_FORCE, NotApplied,
    RootError, Unapplied,
};

/// What a model-facing operation answers: its text, and revisions when it has them.
#[derive(Debug, Clone, PartialEq)]
pub struct FsAnswer {
    /// The text the model reads.
    pub text: String,
    /// `structuredContent` (`revisionScheme` and `revisions`, and `diff` for `edit` and a
    /// `write` dry run), when the tool returns it.
    pub revisions: Option<serde_json::Value>,
}

/// Bytes kept free in the result budget for the envelope and the revisions.
pub(super) const RESULT_HEADROOM: u64 = 2048;

/// Bytes kept free for a stop notice (the longest is under 200 bytes).
const NOTICE_RESERVE: u64 = 256;

/// How many bytes the lines of an answer may take, measured as they travel (JSON-escaped, see
/// [`escaped_len`]): `--max-result-bytes` less the envelope headroom and room for a notice.
pub(super) fn answer_budget(max_result_bytes: u64) -> u64 {
    max_result_bytes.saturating_sub(RESULT_HEADROOM + NOTICE_RESERVE)
}

/// Why an answer ends before everything found was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// `max-results` lines (or files) were shown and more exist.
    MaxResults(u64),
    /// The next line would not have fit the result limit.
    Output,
}

/// An answer's lines within its byte budget, measured as they travel (JSON-escaped, see
/// [`escaped_len`]): each line is appended whole or the answer stops there.
#[derive(Debug, Clone)]
pub(super) struct BudgetedLines {
    /// The lines so far, joined by `\n`.
    pub(super) text: String,
    /// Escaped bytes of `text`.
    used: u64,
    budget: u64,
    /// Why the answer stopped, once it has.
    pub(super) stop: Option<Stop>,
}

impl BudgetedLines {
    /// No lines yet, `budget` escaped bytes for them.
    pub(super) fn new(budget: u64) -> BudgetedLines {
        BudgetedLines {
            text: String::new(),
            used: 0,
            budget,
            stop: None,
        }
    }

    /// Escaped bytes left.
    pub(super) fn room(&self) -> u64 {
        self.budget.saturating_sub(self.used)
    }

    /// Escaped bytes used.
    #[cfg(test)]
    pub(super) fn used(&self) -> u64 {
        self.used
    }

    /// Whether `lines` (each with what goes before it) would all fit as the next lines,
    /// leaving `room` escaped bytes free after them.
    pub(super) fn fit(&self, lines: &[(&str, String)], room: u64) -> bool {
        let cost: u64 = lines
            .iter()
            .enumerate()
            .map(|(i, (before, entry))| line_cost(i == 0 && self.text.is_empty(), before, entry))
            .sum();
        self.used + cost + room <= self.budget
    }

    /// Appends `before` (a separator such as `--\n`, or empty) and `entry` as the next line,
    /// or, when they would not fit, stops the answer with [`Stop::Output`]. Whether it did.
    pub(super) fn push(&mut self, before: &str, entry: &str) -> bool {
        self.push_leaving(before, entry, 0)
    }

    /// [`BudgetedLines::push`], leaving `room` escaped bytes free after the line (for the
    /// position a closing notice would name).
    pub(super) fn push_leaving(&mut self, before: &str, entry: &str, room: u64) -> bool {
        let cost = line_cost(self.text.is_empty(), before, entry);
        if self.used + cost + room > self.budget {
            self.stop = Some(Stop::Output);
            return false;
        }
        self.used += cost;
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(before);
        self.text.push_str(entry);
        true
    }
}

/// Escaped bytes `before` and `entry` take as a line of an answer, with the newline joining
/// it to the line before unless it is the `first` (a newline travels as two bytes, `\n`).
fn line_cost(first: bool, before: &str, entry: &str) -> u64 {
    u64::from(!first) * 2 + escaped_len(before) + escaped_len(entry)
}

/// The answer of a search that found nothing.
pub(super) fn no_matches(pattern: &str, path: &str) -> String {
    format!("No matches for '{pattern}' under '{path}'")
}

/// The notice closing an answer that showed `max_results` of what it `counted` and had more;
/// with `resume`, the `after` that continues it.
pub(super) fn max_results_stopped(max_results: u64, counted: &str, resume: Option<&str>) -> String {
    let advice = super::after::or_continue(resume, "raise max-results to see more");
    format!("\n\n[stopped at {max_results} {counted}; {advice}]")
}

/// The notice closing an answer cut to fit the result limit (`max_result_bytes`) after `kept`
/// bytes of lines; `narrow` says how to get the rest.
pub(super) fn output_stopped(kept: usize, max_result_bytes: u64, narrow: &str) -> String {
    let over = OverLimit::result_size(
        format!("output stopped at {kept} bytes"),
        max_result_bytes,
        narrow.to_owned(),
    );
    format!("\n\n[{over}]")
}

/// The notice closing an answer whose walk stopped at `error` before the scope's end: a
/// ceiling the configuration named, or the call's deadline. Everything in tree order up to
/// `last` (the last path the answer covers, `None` when the walk stopped before any) was
/// searched; `narrow` says how to ask for less, where an argument can. Any other error (a
/// cancelled call) is the call's answer instead.
pub(super) fn walk_stopped(
    error: RootError,
    last: Option<&str>,
    limits: &Limits,
    narrow: Option<&str>,
) -> Result<String, FsError> {
    if !matches!(
        error,
        RootError::FileLimit
            | RootError::DirectoryLimit
            | RootError::EntryLimit
            | RootError::Deadline
    ) {
        return Err(error.into());
    }
    let over = match FsError::Root(error).worded_for(None, limits, narrow) {
        FsError::OverLimit(over) => over,
        other => return Err(other),
    };
    let covered = match last {
        Some(last) => format!(
            "the answer covers the tree up to '{}'",
            shown_path(last, false)
        ),
        None => "nothing was searched".to_owned(),
    };
    Ok(format!("\n\n[stopped early, {covered}: {over}]"))
}

/// The notice closing an answer whose walk passed over directories deeper than the depth
/// limit (`None` when there were none): how many, and where the first one starts.
pub(super) fn too_deep_notice(too_deep: &[String], max_depth: u64) -> Option<String> {
    let shown = shown_short(too_deep.first()?);
    let which = match too_deep.len() {
        1 => format!("'{shown}', a directory"),
        n => format!(
            "'{shown}' and {}",
            count(n as u64 - 1, "more directory", "more directories")
        ),
    };
    // Narrowing cannot help: depth counts from the root, whatever path was given.
    let over = OverLimit::new(
        "max_depth",
        max_depth,
        format!(
            "not searched: {which} deeper than {}",
            count(max_depth, "level", "levels")
        ),
        None,
    );
    Some(format!("\n\n[{over}]"))
}

/// A path as answers show it, cut at 60 bytes (with `…`) so a notice stays short.
pub(super) fn shown_short(path: &str) -> String {
    let mut shown = shown_path(path, false).into_owned();
    if shown.len() > 60 {
        let mut cut = 60;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push('…');
    }
    shown
}

/// The notice closing an answer whose walk did not apply some ignore files (`None` when it
/// applied them all).
pub(super) fn rules_notice(not_applied: &[NotApplied]) -> Option<String> {
    Some(format!("\n\n[{}]", rules_not_applied(not_applied)?))
}

/// What a walk that did not apply some ignore files says of them (`None` when it applied them
/// all): the first, why, how many more, and what to change.
pub(super) fn rules_not_applied(not_applied: &[NotApplied]) -> Option<String> {
    let first = not_applied.first()?;
    let (why, change) = match first.why {
        Unapplied::TooLarge => (
            format!("larger than {MAX_IGNORE_BYTES} bytes, the most one ignore file may be"),
            "shorten or split it",
        ),
        Unapplied::TooManyPatterns => (
            format!("more than {MAX_FILE_PATTERNS} patterns, the most one ignore file may hold"),
            "shorten or split it",
        ),
        Unapplied::TooManyInForce => (
            format!(
                "with the rules of the directories above it, more than \
                 {MAX_PATTERNS_IN_FORCE} patterns would apply at once"
            ),
            "use fewer patterns above it",
        ),
        Unapplied::TooCostly => (
            format!(
                "with the rules of the directories above it, more than {MAX_COSTLY_IN_FORCE} \
                 patterns holding a wildcard other than a leading '**/', a trailing '/**' or \
                 '*.ext' would apply at once"
            ),
            "use fewer such patterns",
        ),
        Unapplied::Link => (
            "a symbolic link, which is never followed".to_owned(),
            "make it a regular file",
        ),
    };
    let more = match not_applied.len() {
        1 => String::new(),
        n => format!(" and {}", count(n as u64 - 1, "more file", "more files")),
    };
    Some(format!(
        "ignore rules not applied, so what they would skip is in this answer: '{}' ({why}){more}; {change}",
        shown_short(&first.path)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(no_matches("*.zzz", "."), "No matches for '*.zzz' under '.'");
        assert_eq!(
            output_stopped(12, 48_000, "narrow it"),
            "\n\n[output stopped at 12 bytes, as one answer holds at most 48000 bytes (the result limit); narrow it, or raise it with --max-result-bytes (config key limits.max_result_bytes)]"
        );
        // At its largest value the limit cannot be raised, so the notice does not say to.
        assert_eq!(
            output_stopped(12, 1_048_576, "narrow it"),
            "\n\n[output stopped at 12 bytes, as one answer holds at most 1048576 bytes (the result limit); narrow it]"
        );
        let deep = ["a/b".to_owned(), "a/c".to_owned()];
        assert_eq!(too_deep_notice(&[], 3), None);
        assert_eq!(
            too_deep_notice(&deep[..1], 1).unwrap(),
            "\n\n[not searched: 'a/b', a directory deeper than 1 level (the depth limit); raise it with --max-depth (config key limits.max_depth)]"
        );
        assert_eq!(
            too_deep_notice(&deep, 1).unwrap(),
            "\n\n[not searched: 'a/b' and 1 more directory deeper than 1 level (the depth limit); raise it with --max-depth (config key limits.max_depth)]"
        );
        assert!(answer_budget(48_000) < 48_000 - RESULT_HEADROOM);
        assert_eq!(answer_budget(10), 0);
    }
}
