//! Rendering: ranked files as path + definition lines, within a budget, and the summary line.
//!
//! Each file prints as `path:` followed by its chosen definition lines in line order, each as
//! two spaces, the 1-based line number right-aligned to the widest number in the whole map,
//! `: ` and the signature text (cut at [`MAX_TEXT_CHARS`] characters with a trailing `…`).
//! A line holding only `⋮` separates two printed lines that are not adjacent in the file.
//! Files are separated by a blank line, and the summary line comes last, after a blank line:
//!
//! `[mapped N files (M skipped: unsupported/binary/too-large), D definitions; ranked by references]`
//!
//! N counts the files read and parsed, M the files skipped (no supported language, over 1 MB,
//! not UTF-8 text, unreadable), D the definition lines printed. When something was left out,
//! clauses follow `ranked by references`, in this order and only when they apply:
//! `; walk stopped after 5000 files`, `; not parsed, nested too deeply or too costly: a.js, b.cpp`
//! (at most three names, then `and N more`; these files also count among the skipped),
//! `; no grammar in this build for 2 Ruby files (cargo feature lang-ruby)` (files of a language
//! the build leaves out, also counted among the skipped),
//! `; 45 test files not listed: the query and focus reach none of them` (a steered map's test
//! files that no query word, named identifier or focused code reaches), and
//! `; left out by max-chars: K files, E definitions`
//! (K whole files dropped from the bottom of the ranking, E definitions trimmed from the
//! files still printed; a zero part is not written).
//!
//! **The budget** is spent whole files at a time. First the longest prefix of the ranking
//! that fits with one definition per file is found; files below it are dropped as blocks.
//! Then, within those files, definitions are given back heaviest first (across all files, ties
//! to the higher-ranked file) as long as the whole answer still fits — so when the map does not
//! fit, the least-referenced definitions go first. Both searches are binary searches over the
//! exact rendered answer, whose size only shrinks as lines are removed.

use super::Language;
use super::rank::{RankedFile, Shown};

/// Longest signature text printed, in characters.
pub const MAX_TEXT_CHARS: usize = 200;

/// Files named in the summary's `not parsed` clause; the rest are counted.
pub const UNPARSED_NAMED: usize = 3;

/// What the summary line reports besides the printed lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// The map is one file's outline (its definitions in line order), not a ranking.
    pub outline: bool,
    /// Files read and parsed.
    pub mapped: usize,
    /// Files skipped: unsupported, binary, too large or unreadable.
    pub skipped: usize,
    /// The walk's file cap, when it stopped the walk.
    pub walk_stopped_at: Option<usize>,
    /// The configured ceiling that stopped the walk (`the file limit, --max-files 1000`).
    pub walk_limit: Option<String>,
    /// Focus paths, as given, that name no mapped file (relative to the root or to `path`).
    pub unfocused: Vec<String>,
    /// Directories the walk passed over for lying deeper than the depth limit.
    pub too_deep: usize,
    /// What the walk says of the ignore files it did not apply.
    pub rules_not_applied: Option<String>,
    /// Directories passed over for a marker file (a tagged cache, a virtualenv), in tree order.
    pub marked: Vec<crate::root::Marked>,
    /// Files not parsed because parsing them costs too much (nested too deeply, or holding
    /// too much memory), in tree order; also counted in `skipped`.
    pub unparsed: Vec<String>,
    /// Files in a language this build leaves out, by language; also counted in `skipped`.
    pub not_built_in: Vec<(Language, usize)>,
    /// Test files a steered map did not list: its query and focus reach none of them.
    pub tests_left_out: usize,
}

/// Renders `ranked` (best first) so that `fits` accepts the whole answer, dropping the
/// least-referenced definitions first and then whole files from the bottom. The summary line
/// is always present, even when nothing else fits. An answer longer than `cap` bytes is known
/// not to fit without asking `fits` (and without being built whole).
pub fn render(
    ranked: &[RankedFile],
    tally: &Tally,
    cap: usize,
    fits: impl Fn(&str) -> bool,
) -> String {
    let fits = |text: Option<String>| text.is_some_and(|t| fits(&t));
    // How many files fit with one definition each (a prefix of the ranking).
    let files = largest(ranked.len(), |f| {
        fits(layout(ranked, f, &vec![1; f], tally, cap))
    });
    let kept = &ranked[..files];
    // The definitions beyond each file's first, in the order they are given back.
    let mut extra: Vec<(usize, usize, f64)> = kept
        .iter()
        .enumerate()
        .flat_map(|(f, file)| {
            file.definitions
                .iter()
                .enumerate()
                .skip(1)
                .map(move |(k, d)| (f, k, d.weight))
        })
        .collect();
    extra.sort_by(|x, y| {
        y.2.total_cmp(&x.2)
            .then_with(|| x.0.cmp(&y.0))
            .then_with(|| x.1.cmp(&y.1))
    });
    let counts = |given: usize| {
        let mut counts = vec![1; files];
        for &(f, _, _) in &extra[..given] {
            counts[f] += 1;
        }
        counts
    };
    let given = largest(extra.len(), |g| {
        fits(layout(ranked, files, &counts(g), tally, cap))
    });
    layout(ranked, files, &counts(given), tally, usize::MAX).unwrap_or_default()
}

/// The largest `k` in `0..=max` for which `ok(k)` holds, given `ok` holds up to some point
/// and fails after it (`0` when it never holds).
fn largest(max: usize, ok: impl Fn(usize) -> bool) -> usize {
    if ok(max) {
        return max;
    }
    let (mut lo, mut hi) = (0, max); // ok(lo) assumed or lo == 0; !ok(hi)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// The answer printing the first `files` of `ranked`, file `f` with its `counts[f]` heaviest
/// definitions; `None` once it grows past `cap` bytes.
fn layout(
    ranked: &[RankedFile],
    files: usize,
    counts: &[usize],
    tally: &Tally,
    cap: usize,
) -> Option<String> {
    let chosen: Vec<Vec<&Shown>> = ranked[..files]
        .iter()
        .zip(counts)
        .map(|(file, &count)| {
            let mut shown: Vec<&Shown> = file.definitions.iter().take(count).collect();
            shown.sort_by_key(|d| d.line);
            shown
        })
        .collect();
    let width = chosen
        .iter()
        .flatten()
        .map(|d| d.line.to_string().len())
        .max()
        .unwrap_or(1);
    let mut text = String::new();
    let mut printed = 0;
    for (file, shown) in ranked.iter().zip(&chosen) {
        text.push_str(&crate::fs::shown_path(&file.path, false));
        text.push_str(":\n");
        let mut previous: Option<u32> = None;
        for d in shown {
            if previous.is_some_and(|p| d.line > p + 1) {
                text.push_str("⋮\n");
            }
            text.push_str(&format!("  {:>width$}: {}\n", d.line, clip(&d.text)));
            previous = Some(d.line);
        }
        text.push('\n');
        printed += shown.len();
        if text.len() > cap {
            return None;
        }
    }
    let total: usize = ranked[..files].iter().map(|f| f.definitions.len()).sum();
    text.push_str(&summary(
        tally,
        printed,
        ranked.len() - files,
        total - printed,
    ));
    Some(text)
}

/// A signature's text as printed: trailing whitespace dropped, long lines cut with `…`.
fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.trim_end();
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// `n` followed by `one` or `many`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `no grammar in this build for 2 Ruby files, 1 Swift file (cargo features lang-ruby,
/// lang-swift)`, or `None` when every file's language is built in; the map and symbols say it
/// alike.
pub fn not_built_in_note(counts: &[(Language, usize)]) -> Option<String> {
    if counts.is_empty() {
        return None;
    }
    let files: Vec<String> = counts
        .iter()
        .map(|(language, n)| {
            let name = language.name();
            count(*n, &format!("{name} file"), &format!("{name} files"))
        })
        .collect();
    let features: Vec<&str> = counts.iter().filter_map(|(l, _)| l.feature()).collect();
    Some(format!(
        "no grammar in this build for {} (cargo feature{} {})",
        files.join(", "),
        if features.len() == 1 { "" } else { "s" },
        features.join(", ")
    ))
}

/// What an answer says of the directories its walk passed over for a marker file, naming the
/// first [`UNPARSED_NAMED`] and how to include one: `passed over 2 directories their marker
/// files name as caches or virtualenvs: 'env' (pyvenv.cfg), 'target' (CACHEDIR.TAG); give one
/// as path to include it`. `None` when there were none.
pub fn marked_clause(marked: &[crate::root::Marked]) -> Option<String> {
    let first = marked.first()?;
    let named: Vec<String> = marked
        .iter()
        .take(UNPARSED_NAMED)
        .map(|m| format!("'{}' ({})", crate::fs::shown_path(&m.path, false), m.marker))
        .collect();
    let more = match marked.len() - named.len() {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    let (count, holds) = match marked.len() {
        1 => (
            "1 directory".to_owned(),
            "its marker file names as a cache or virtualenv",
        ),
        n => (
            format!("{n} directories"),
            "their marker files name as caches or virtualenvs",
        ),
    };
    Some(format!(
        "passed over {count} {holds}: {}{more}; give {} as path to include it",
        named.join(", "),
        if marked.len() == 1 {
            format!("'{}'", crate::fs::shown_path(&first.path, false))
        } else {
            "one".to_owned()
        }
    ))
}

/// The summary line.
pub fn summary(
    tally: &Tally,
    definitions: usize,
    files_left_out: usize,
    definitions_left_out: usize,
) -> String {
    let mut line = format!(
        "[mapped {} ({} skipped: unsupported/binary/too-large), {}; {}",
        count(tally.mapped, "file", "files"),
        tally.skipped,
        count(definitions, "definition", "definitions"),
        if tally.outline {
            "the file's outline"
        } else {
            "ranked by references"
        },
    );
    if let Some(cap) = tally.walk_stopped_at {
        line.push_str(&format!("; walk stopped after {cap} files"));
    }
    if let Some(limit) = &tally.walk_limit {
        line.push_str(&format!("; walk stopped at {limit}"));
    }
    if !tally.unfocused.is_empty() {
        let shown: Vec<_> = tally
            .unfocused
            .iter()
            .map(|path| format!("'{}'", crate::fs::shown_path(path, false)))
            .collect();
        line.push_str(&format!(
            "; focus names no mapped file: {}",
            shown.join(", ")
        ));
    }
    if tally.too_deep > 0 {
        line.push_str(&format!(
            "; {} deeper than the depth limit not walked",
            count(tally.too_deep, "directory", "directories")
        ));
    }
    if let Some(rules) = &tally.rules_not_applied {
        line.push_str(&format!("; {rules}"));
    }
    if let Some(marked) = marked_clause(&tally.marked) {
        line.push_str("; ");
        line.push_str(&marked);
    }
    if !tally.unparsed.is_empty() {
        line.push_str("; not parsed, nested too deeply or too costly: ");
        let named = &tally.unparsed[..tally.unparsed.len().min(UNPARSED_NAMED)];
        let shown: Vec<_> = named
            .iter()
            .map(|path| crate::fs::shown_path(path, false))
            .collect();
        line.push_str(&shown.join(", "));
        let more = tally.unparsed.len() - named.len();
        if more > 0 {
            line.push_str(&format!(" and {more} more"));
        }
    }
    if let Some(note) = not_built_in_note(&tally.not_built_in) {
        line.push_str("; ");
        line.push_str(&note);
    }
    if tally.tests_left_out > 0 {
        line.push_str(&format!(
            "; {} not listed: the query and focus reach none of them",
            count(tally.tests_left_out, "test file", "test files")
        ));
    }
    let mut parts = Vec::new();
    if files_left_out > 0 {
        parts.push(count(files_left_out, "file", "files"));
    }
    if definitions_left_out > 0 {
        parts.push(count(definitions_left_out, "definition", "definitions"));
    }
    if !parts.is_empty() {
        line.push_str("; left out by max-chars: ");
        line.push_str(&parts.join(", "));
    }
    line.push(']');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(line: u32, text: &str, weight: f64) -> Shown {
        Shown {
            line,
            text: text.to_owned(),
            weight,
        }
    }

    fn file(path: &str, definitions: Vec<Shown>) -> RankedFile {
        RankedFile {
            path: path.to_owned(),
            score: 0.0,
            definitions,
        }
    }

    fn example() -> Vec<RankedFile> {
        vec![
            file(
                "src/hub.py",
                vec![
                    shown(12, "def frobnicate(value):", 3.0),
                    shown(48, "class Dispatcher:", 2.0),
                ],
            ),
            file("src/cli.py", vec![shown(7, "def main(argv):", 0.0)]),
        ]
    }

    fn tally() -> Tally {
        Tally {
            mapped: 2,
            skipped: 1,
            ..Tally::default()
        }
    }

    #[test]
    fn the_reference_layout() {
        assert_eq!(
            render(&example(), &tally(), usize::MAX, |_| true),
            "src/hub.py:\n  12: def frobnicate(value):\n⋮\n  48: class Dispatcher:\n\nsrc/cli.py:\n   7: def main(argv):\n\n[mapped 2 files (1 skipped: unsupported/binary/too-large), 3 definitions; ranked by references]"
        );
    }

    #[test]
    fn gaps_only_between_non_adjacent_lines() {
        let ranked = vec![file(
            "a.rs",
            vec![
                shown(3, "fn c()", 1.0),
                shown(1, "fn a()", 1.0),
                shown(2, "fn b()", 1.0),
                shown(9, "fn d()", 1.0),
            ],
        )];
        let tally = Tally {
            mapped: 1,
            ..Tally::default()
        };
        assert_eq!(
            render(&ranked, &tally, usize::MAX, |_| true),
            "a.rs:\n  1: fn a()\n  2: fn b()\n  3: fn c()\n⋮\n  9: fn d()\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 4 definitions; ranked by references]"
        );
    }

    /// The example with a long second definition, worth more than the summary's clause.
    fn long_example() -> Vec<RankedFile> {
        let mut ranked = example();
        ranked[0].definitions[1].text =
            "class Dispatcher(BaseDispatcher, metaclass=Registry):".to_owned();
        ranked
    }

    fn within(limit: usize) -> impl Fn(&str) -> bool {
        move |text: &str| text.chars().count() <= limit
    }

    #[test]
    fn least_referenced_definitions_go_first() {
        let ranked = long_example();
        let whole = render(&ranked, &tally(), usize::MAX, |_| true);
        let trimmed = "src/hub.py:\n  12: def frobnicate(value):\n\nsrc/cli.py:\n   7: def main(argv):\n\n[mapped 2 files (1 skipped: unsupported/binary/too-large), 2 definitions; ranked by references; left out by max-chars: 1 definition]";
        assert!(trimmed.chars().count() < whole.chars().count());
        assert_eq!(
            render(
                &ranked,
                &tally(),
                usize::MAX,
                within(trimmed.chars().count())
            ),
            trimmed
        );
        assert_eq!(
            render(&ranked, &tally(), usize::MAX, within(whole.chars().count())),
            whole
        );
    }

    #[test]
    fn a_file_that_does_not_fit_goes_as_a_block() {
        let ranked = long_example();
        let two = "src/hub.py:\n  12: def frobnicate(value):\n\nsrc/cli.py:\n   7: def main(argv):\n\n[mapped 2 files (1 skipped: unsupported/binary/too-large), 2 definitions; ranked by references; left out by max-chars: 1 definition]";
        assert_eq!(
            render(
                &ranked,
                &tally(),
                usize::MAX,
                within(two.chars().count() - 1)
            ),
            "src/hub.py:\n  12: def frobnicate(value):\n\n[mapped 2 files (1 skipped: unsupported/binary/too-large), 1 definition; ranked by references; left out by max-chars: 1 file, 1 definition]"
        );
        // Room for the hub whole but not for the second file: the hub gets its lines back.
        let hub = "src/hub.py:\n  12: def frobnicate(value):\n⋮\n  48: class Dispatcher:\n\n[mapped 2 files (1 skipped: unsupported/binary/too-large), 2 definitions; ranked by references; left out by max-chars: 1 file]";
        assert_eq!(
            render(
                &example(),
                &tally(),
                usize::MAX,
                within(hub.chars().count())
            ),
            hub
        );
        // Nothing fits: the summary alone.
        assert_eq!(
            render(&ranked, &tally(), usize::MAX, |t| t.len() <= 10),
            "[mapped 2 files (1 skipped: unsupported/binary/too-large), 0 definitions; ranked by references; left out by max-chars: 2 files]"
        );
    }

    #[test]
    fn trimming_is_across_files_by_weight() {
        let long = |name: &str| format!("fn {name}(first: Argument, second: Argument) -> Outcome");
        let ranked = vec![
            file(
                "a.rs",
                vec![shown(1, &long("a1"), 5.0), shown(5, &long("a2"), 1.0)],
            ),
            file(
                "b.rs",
                vec![shown(1, &long("b1"), 0.0), shown(5, &long("b2"), 4.0)],
            ),
        ];
        let tally = Tally {
            mapped: 2,
            ..Tally::default()
        };
        let whole = render(&ranked, &tally, usize::MAX, |_| true);
        let text = render(
            &ranked,
            &tally,
            usize::MAX,
            within(whole.chars().count() - 1),
        );
        assert!(text.contains("b2(") && !text.contains("a2("), "{text}");
        assert!(
            text.contains("left out by max-chars: 1 definition]"),
            "{text}"
        );
    }

    #[test]
    fn past_the_cap_nothing_fits() {
        assert_eq!(
            render(&example(), &tally(), 10, |_| true),
            "[mapped 2 files (1 skipped: unsupported/binary/too-large), 0 definitions; ranked by references; left out by max-chars: 2 files]"
        );
        let whole = render(&example(), &tally(), usize::MAX, |_| true);
        assert_eq!(render(&example(), &tally(), whole.len(), |_| true), whole);
    }

    #[test]
    fn long_signatures_are_cut_visibly() {
        let long = "x".repeat(300);
        let ranked = vec![file("a.py", vec![shown(1, &long, 0.0)])];
        let text = render(&ranked, &Tally::default(), usize::MAX, |_| true);
        let line = text.lines().nth(1).unwrap();
        assert_eq!(line, format!("  1: {}…", "x".repeat(MAX_TEXT_CHARS)));
    }

    #[test]
    fn marked_directories_are_counted_and_named() {
        let marked = |paths: &[&str]| -> Vec<crate::root::Marked> {
            paths
                .iter()
                .map(|path| crate::root::Marked {
                    path: (*path).to_owned(),
                    marker: "CACHEDIR.TAG",
                })
                .collect()
        };
        assert_eq!(marked_clause(&[]), None);
        assert_eq!(
            marked_clause(&marked(&["target"])).as_deref(),
            Some(
                "passed over 1 directory its marker file names as a cache or virtualenv: \
                 'target' (CACHEDIR.TAG); give 'target' as path to include it"
            )
        );
        assert_eq!(
            marked_clause(&marked(&["a", "b", "c", "d"])).as_deref(),
            Some(
                "passed over 4 directories their marker files name as caches or virtualenvs: \
                 'a' (CACHEDIR.TAG), 'b' (CACHEDIR.TAG), 'c' (CACHEDIR.TAG) and 1 more; give one \
                 as path to include it"
            )
        );
    }

    #[test]
    fn summary_clauses() {
        let tally = Tally {
            outline: false,
            mapped: 1,
            skipped: 0,
            walk_stopped_at: Some(5000),
            walk_limit: None,
            unfocused: Vec::new(),
            too_deep: 2,
            rules_not_applied: None,
            marked: Vec::new(),
            unparsed: Vec::new(),
            not_built_in: Vec::new(),
            tests_left_out: 0,
        };
        assert_eq!(
            summary(&tally, 1, 3, 0),
            "[mapped 1 file (0 skipped: unsupported/binary/too-large), 1 definition; ranked by references; walk stopped after 5000 files; 2 directories deeper than the depth limit not walked; left out by max-chars: 3 files]"
        );
        assert_eq!(
            summary(&Tally::default(), 0, 0, 0),
            "[mapped 0 files (0 skipped: unsupported/binary/too-large), 0 definitions; ranked by references]"
        );
        let outline = Tally {
            outline: true,
            mapped: 1,
            ..Tally::default()
        };
        assert_eq!(
            summary(&outline, 4, 0, 2),
            "[mapped 1 file (0 skipped: unsupported/binary/too-large), 4 definitions; the file's outline; left out by max-chars: 2 definitions]"
        );
        let left_out = Tally {
            not_built_in: vec![(Language::Ruby, 2), (Language::Swift, 1)],
            ..Tally::default()
        };
        assert_eq!(
            summary(&left_out, 0, 0, 0),
            "[mapped 0 files (0 skipped: unsupported/binary/too-large), 0 definitions; ranked by references; no grammar in this build for 2 Ruby files, 1 Swift file (cargo features lang-ruby, lang-swift)]"
        );
        let unparsed = |n: usize| Tally {
            skipped: n,
            unparsed: (0..n).map(|i| format!("f{i}.js")).collect(),
            ..Tally::default()
        };
        assert_eq!(
            summary(&unparsed(2), 0, 0, 0),
            "[mapped 0 files (2 skipped: unsupported/binary/too-large), 0 definitions; ranked by references; not parsed, nested too deeply or too costly: f0.js, f1.js]"
        );
        assert!(
            summary(&unparsed(5), 0, 0, 0).ends_with("too costly: f0.js, f1.js, f2.js and 2 more]")
        );
    }

    #[test]
    fn largest_finds_the_boundary() {
        for boundary in 0..10 {
            assert_eq!(largest(9, |k| k <= boundary), boundary.min(9));
        }
        assert_eq!(largest(0, |_| false), 0);
    }
}
