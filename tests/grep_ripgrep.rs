//! `fs_grep` against ripgrep: on a generated tree with the awkward cases (LF and CRLF lines, a
//! BOM, NFD text, Latin-1 and a stray invalid byte, a binary file, tabs, Greek and CJK, a
//! missing final newline, hidden files, deep directories),
//! every pattern of a table reports exactly the (path, line) pairs that
//! `rg -n --sort path --no-ignore --hidden --crlf` reports; with `case-insensitive` those of
//! `rg -i`, with `output: "count"` the counts of `rg -c`, with `output: "files"` the files of
//! `rg -l`. Skipped, saying so, where `rg` is not installed (`.ci/run` installs it).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::collections::BTreeSet;

use serde_json::json;
use support::fs::{fs_error, fs_server_with, fs_text};
use support::ripgrep::ripgrep_installed;
use support::*;

/// The tree both sides search.
fn awkward_tree() -> Tree {
    let deep = (0..12)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    Tree::new()
        .file(
            "src/lib.rs",
            "use std::fmt;\nuse std::io;\n\npub fn foo() {}\n\nfn bar(x: u32) -> u32 {\n    x + 1\n}\n",
        )
        .file(
            "src/crlf.rs",
            "use std::fmt;\r\nfn baz() {\r\n    let end = 1;\r\n}\r\n",
        )
        .file("src/bom.rs", "\u{feff}use core::mem;\nfn qux() {}\n")
        .file("src/tail.rs", "fn last() {}\n}")
        .file("src/tabs.txt", "\tindented\tline\nnot indented  \nspaces trailing   \n")
        .file("docs/greek.md", "Καλημέρα κόσμε\nΣίσυφος; end\nλόγος\n")
        .file("docs/cjk.md", "日本語のテキスト\n中文文本 end\n한국어\n")
        .file("docs/nfd.md", "cafe\u{301} au lait\ncafé composed\n")
        .file(".hidden/secret.rs", "fn hidden() {}\nuse std::fmt;\n")
        .file(".dotfile", "end of dotfile\n")
        .file(
            &format!("{deep}/deep.rs"),
            "fn deep() {\n}\nstruct Foo;\nimpl Foo {}\n",
        )
        .file("mixed.txt", "lf line end\ncrlf line end\r\nlast end")
        .file("words.txt", "foobar foo_bar foo-bar FOO Foo\nbar baz\nbarbaz\n123 4567 89\n")
        .file("latin1.csv", b"name;city\nJos\xe9;M\xfcnchen end\nfoo;bar\n")
        .file("stray.txt", {
            let mut bytes = "fn stray() {}\n".repeat(800).into_bytes();
            bytes.extend_from_slice(b"use \xff std;\nend\n");
            bytes
        })
        .file("binary.bin", b"\0\x01use std::fmt;\nfn bin() {}\n")
}

/// Regexes and (with `literal:`) literals, each run on both sides.
const PATTERNS: &[&str] = &[
    "^}$",
    r"\s+$",
    "^use .*;$",
    "(bar|baz)$",
    "end$",
    r"end\z",
    "^fn",
    r"^\s",
    r"\bfoo\b",
    r"\bbar",
    "(?i)foo",
    "(?i)^use",
    r"\d+",
    r"^\d{3}\b",
    "[A-Z][a-z]+",
    r"\p{Greek}+",
    r"\p{Han}",
    r"\p{Hangul}",
    "é",
    "e\u{301}",
    "^$",
    ".",
    "^.{3}$",
    r"\t",
    r"x \+ 1",
    "fn [a-z]+\\(",
    "impl|struct",
    "(?m)^fn.*\\{$",
    "(?x) use \\s std",
    r"[[:upper:]]{2,}",
    "^[^a-z]*$",
    ";$",
    r"\)$",
    "[.;]",
    "end",
    r"\w+ \w+$",
    "^(fn|use|pub)",
    "[^\\x00-\\x7F]",
    "literal:foo",
    "literal:end",
    "literal:.",
    "literal:(x",
    "literal:std::fmt",
    "literal:}",
    "literal: ",
    "literal:Σ",
];

/// Patterns that may match across lines, run with `rg -U` and `multiline: true`.
const MULTILINE_PATTERNS: &[&str] = &[
    r"\{\n\}",
    r"\{\r?\n",
    r";\r?\n(fn|use)",
    r"\n\n",
    r"u32\) -> u32 \{\n\s+x \+ 1\n\}",
    r"(?s)use.*?fn",
    r"end\n",
    r"end$",
    r"^$\n^pub",
    r"x \+ 1$",
    r"[^\n]*\n[^\n]*end$",
    r"fmt;\r\nfn",
    r"\bfoo\b",
    r"(?m)^fn.*\{\n.*$",
    r"Σίσυφος; end\nλόγος",
    r"\n\z",
    r"use \xff",
    "literal:{\n}",
    "literal:;\nfn",
    "literal:\n",
];

/// How a pattern is run on both sides.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Matching lines (`rg -n`, `fs_grep` by default).
    Lines,
    /// Matching lines, ignoring case (`rg -n -i`, `case-insensitive: true`).
    CaseInsensitive,
    /// Matching lines where the match stands as a whole word (`rg -n -w`, `whole-word: true`).
    WholeWord,
    /// Every line of every match, matches spanning lines (`rg -n -U`, `multiline: true`).
    Multiline,
    /// Matches per file, matches spanning lines (`rg -c -U`, `output: "count"` and
    /// `multiline: true`).
    MultilineCount,
    /// Matching lines per file (`rg -c`, `output: "count"`).
    Count,
    /// Files holding a match (`rg -l`, `output: "files"`), each paired with 0.
    Files,
}

impl Mode {
    /// The rg flags and the fs_grep arguments of the mode.
    fn arguments(self) -> (&'static [&'static str], serde_json::Value) {
        match self {
            Mode::Lines => (&["-n"], json!({})),
            Mode::CaseInsensitive => (&["-n", "-i"], json!({"case-insensitive": true})),
            Mode::WholeWord => (&["-n", "-w"], json!({"whole-word": true})),
            Mode::Multiline => (&["-n", "-U"], json!({"multiline": true})),
            Mode::MultilineCount => (&["-c", "-U"], json!({"multiline": true, "output": "count"})),
            Mode::Count => (&["-c"], json!({"output": "count"})),
            Mode::Files => (&["-l"], json!({"output": "files"})),
        }
    }
}

/// `(path, line)` pairs `rg` reports for `pattern` in `root` (or `(path, count)`, or
/// `(path, 0)`, by `mode`).
fn ripgrep(root: &std::path::Path, pattern: &str, mode: Mode) -> BTreeSet<(String, u64)> {
    let mut command = support::ripgrep::rg();
    command
        .current_dir(root)
        .args(["--sort", "path", "--no-ignore", "--hidden", "--crlf"]);
    command.args(mode.arguments().0);
    match pattern.strip_prefix("literal:") {
        Some(literal) => command.args(["-F", "-e", literal]),
        None => command.args(["-e", pattern]),
    };
    let output = command.output().expect("run rg");
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "rg {pattern}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| pair(line, pattern, mode))
        .collect()
}

/// `path:N…` as `(path, N)`; a bare path as `(path, 0)` in [`Mode::Files`].
fn pair(line: &str, pattern: &str, mode: Mode) -> (String, u64) {
    if let Mode::Files = mode {
        return (line.to_owned(), 0);
    }
    let mut parts = line.splitn(3, ':');
    let path = parts.next().expect("path").to_owned();
    let number = parts
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{pattern}: not a result line: {line:?}"));
    (path, number)
}

/// What `fs_grep` reports for `pattern`, paired as [`ripgrep`] pairs it.
fn fs_grep(server: &mut Server, pattern: &str, mode: Mode) -> BTreeSet<(String, u64)> {
    let mut args = match pattern.strip_prefix("literal:") {
        Some(literal) => json!({"pattern": literal, "max-results": 1000}),
        None => json!({"pattern": pattern, "regex": true, "max-results": 1000}),
    };
    for (name, value) in mode.arguments().1.as_object().expect("arguments") {
        args[name] = value.clone();
    }
    let text = fs_text(server, "fs_grep", args);
    if text.starts_with("No matches") {
        return BTreeSet::new();
    }
    text.lines().map(|line| pair(line, pattern, mode)).collect()
}

/// Runs every pattern of the table in `mode` on both sides, and fails with every disagreement.
fn agrees_with_ripgrep(mode: Mode) {
    agrees_on(PATTERNS, mode);
}

/// Runs every pattern of `patterns` in `mode` on both sides, and fails with every
/// disagreement.
fn agrees_on(patterns: &[&str], mode: Mode) {
    if !ripgrep_installed() {
        return;
    }
    let tree = awkward_tree();
    let mut server = fs_server_with(&tree, &["--no-default-exclude"]);
    let mut disagreements = Vec::new();
    for pattern in patterns {
        let expected = ripgrep(tree.path(), pattern, mode);
        let actual = fs_grep(&mut server, pattern, mode);
        if expected != actual {
            disagreements.push(format!(
                "{pattern:?}: rg only {:?}, fs_grep only {:?}",
                expected.difference(&actual).collect::<Vec<_>>(),
                actual.difference(&expected).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        patterns.len() >= 20,
        "the table holds {} patterns",
        patterns.len()
    );
    assert!(
        disagreements.is_empty(),
        "{mode:?}: {} of {} patterns disagree with rg:\n{}",
        disagreements.len(),
        patterns.len(),
        disagreements.join("\n")
    );
}

#[test]
fn fs_grep_reports_the_lines_ripgrep_reports() {
    agrees_with_ripgrep(Mode::Lines);
}

#[test]
fn fs_grep_ignores_case_as_ripgrep_does() {
    agrees_with_ripgrep(Mode::CaseInsensitive);
}

#[test]
fn fs_grep_counts_as_ripgrep_counts() {
    agrees_with_ripgrep(Mode::Count);
}

#[test]
fn fs_grep_lists_the_files_ripgrep_lists() {
    agrees_with_ripgrep(Mode::Files);
}

#[test]
fn fs_grep_matches_whole_words_as_ripgrep_does() {
    agrees_with_ripgrep(Mode::WholeWord);
}

#[test]
fn fs_grep_matches_across_lines_as_ripgrep_does() {
    agrees_on(MULTILINE_PATTERNS, Mode::Multiline);
}

#[test]
fn fs_grep_counts_matches_across_lines_as_ripgrep_does() {
    agrees_on(MULTILINE_PATTERNS, Mode::MultilineCount);
}

/// Every line `rg` prints with context, as `(path, line, mark, text)`: `:` for a matching
/// line, `-` for context; separators left out. The text as fs_grep shows it: without the
/// line's `\r`, each invalid byte as U+FFFD.
fn context_lines(output: &[u8]) -> Vec<(String, u64, char, String)> {
    String::from_utf8_lossy(output)
        .lines()
        .filter(|line| *line != "--")
        .map(|line| {
            // `path:N:text` or `path-N-text`; no path of the tree holds ':' or a '-digit-'.
            let at = line
                .char_indices()
                .find(|&(i, c)| {
                    (c == ':' || c == '-')
                        && line[i + 1..].split_once(c).is_some_and(|(n, _)| {
                            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                        })
                })
                .map(|(i, _)| i)
                .unwrap_or_else(|| panic!("not a result line: {line:?}"));
            let mark = line[at..].chars().next().expect("mark");
            let (number, text) = line[at + 1..].split_once(mark).expect("number");
            (
                line[..at].to_owned(),
                number.parse().expect("number"),
                mark,
                text.strip_suffix('\r').unwrap_or(text).to_owned(),
            )
        })
        .collect()
}

#[test]
fn fs_grep_shows_context_before_and_after_as_ripgrep_does() {
    if !ripgrep_installed() {
        return;
    }
    let tree = awkward_tree();
    let mut server = fs_server_with(&tree, &["--no-default-exclude"]);
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for pattern in [
        "end",
        "^fn",
        r"\bfoo\b",
        "use",
        r"\p{Greek}+",
        "^}$",
        "impl|struct",
    ] {
        for (before, after) in [(0, 1), (2, 0), (1, 3), (3, 1), (0, 20), (20, 0), (2, 2)] {
            let output = support::ripgrep::rg()
                .current_dir(tree.path())
                .args(["--sort", "path", "--no-ignore", "--hidden", "--crlf", "-n"])
                .args(["-B", &before.to_string(), "-A", &after.to_string()])
                .args(["-e", pattern])
                .output()
                .expect("run rg");
            let expected = context_lines(&output.stdout);
            let text = fs_text(
                &mut server,
                "fs_grep",
                json!({"pattern": pattern, "regex": true, "max-results": 1000,
                       "before-context": before, "after-context": after}),
            );
            let mut actual = context_lines(text.as_bytes());
            let mut expected = expected;
            // Both list files in path order; within a file, lines in order.
            actual.sort();
            expected.sort();
            compared += expected.len();
            if actual != expected {
                disagreements.push(format!(
                    "{pattern:?} -B{before} -A{after}: rg {expected:?}\nfs_grep {actual:?}"
                ));
            }
        }
    }
    assert!(compared > 300, "only {compared} lines compared");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n\n"));
    // `context` gives both sides; a side given on its own wins over it, as -A and -B win
    // over -C.
    let both = json!({"pattern": "fn bar", "context": 1});
    let text = fs_text(&mut server, "fs_grep", both);
    assert_eq!(
        text,
        "src/lib.rs-5-\nsrc/lib.rs:6:fn bar(x: u32) -> u32 {\nsrc/lib.rs-7-    x + 1"
    );
    let after_only = json!({"pattern": "fn bar", "context": 1, "before-context": 0});
    let text = fs_text(&mut server, "fs_grep", after_only);
    assert_eq!(
        text,
        "src/lib.rs:6:fn bar(x: u32) -> u32 {\nsrc/lib.rs-7-    x + 1"
    );
}

#[test]
fn fs_grep_filters_by_ripgreps_file_types() {
    if !ripgrep_installed() {
        return;
    }
    let tree = awkward_tree()
        .file("build.sh", "echo end\n")
        .file("app/main.py", "print('end')\n")
        .file("app/types.pyi", "end: int\n")
        .file("web/app.tsx", "const end = 1;\n")
        .file("Cargo.lock", "# end\n")
        .file("conf.toml", "end = true\n");
    let mut server = fs_server_with(&tree, &["--no-default-exclude"]);
    for file_type in [
        "rust", "md", "markdown", "txt", "csv", "py", "ts", "sh", "toml", "go",
    ] {
        let output = support::ripgrep::rg()
            .current_dir(tree.path())
            .args(["--sort", "path", "--no-ignore", "--hidden", "-l"])
            .args(["-t", file_type, "-e", "."])
            .output()
            .expect("run rg");
        let expected: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        let text = fs_text(
            &mut server,
            "fs_grep",
            json!({"pattern": ".", "regex": true, "type": file_type, "output": "files", "max-results": 1000}),
        );
        let actual: BTreeSet<String> = if text.starts_with("No matches") {
            BTreeSet::new()
        } else {
            text.lines().map(str::to_owned).collect()
        };
        assert_eq!(actual, expected, "type {file_type}");
        assert!(
            file_type == "go" || !expected.is_empty(),
            "type {file_type} found nothing"
        );
    }
    // With a glob, both filters hold.
    let text = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "fn", "type": "rust", "glob": "src/**", "output": "files"}),
    );
    let files: Vec<&str> = text.lines().collect();
    assert_eq!(
        files,
        ["src/bom.rs", "src/crlf.rs", "src/lib.rs", "src/tail.rs"]
    );
    // An unknown type is refused with the nearest names.
    let refusal = fs_error(
        &mut server,
        "fs_grep",
        json!({"pattern": "fn", "type": "pyhton"}),
    );
    assert_eq!(
        refusal,
        "Unknown file type 'pyhton'; did you mean 'python'? The names are ripgrep's (rg --type-list)"
    );
}
