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
use support::fs::{fs_server_with, fs_text};
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

/// How a pattern is run on both sides.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Matching lines (`rg -n`, `fs_grep` by default).
    Lines,
    /// Matching lines, ignoring case (`rg -n -i`, `case-insensitive: true`).
    CaseInsensitive,
    /// Matching lines per file (`rg -c`, `output: "count"`).
    Count,
    /// Files holding a match (`rg -l`, `output: "files"`), each paired with 0.
    Files,
}

/// `(path, line)` pairs `rg` reports for `pattern` in `root` (or `(path, count)`, or
/// `(path, 0)`, by `mode`).
fn ripgrep(root: &std::path::Path, pattern: &str, mode: Mode) -> BTreeSet<(String, u64)> {
    let mut command = support::ripgrep::rg();
    command
        .current_dir(root)
        .args(["--sort", "path", "--no-ignore", "--hidden", "--crlf"]);
    command.arg(match mode {
        Mode::Lines => "-n",
        Mode::CaseInsensitive => "-ni",
        Mode::Count => "-c",
        Mode::Files => "-l",
    });
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
    match mode {
        Mode::Lines => {}
        Mode::CaseInsensitive => args["case-insensitive"] = json!(true),
        Mode::Count => args["output"] = json!("count"),
        Mode::Files => args["output"] = json!("files"),
    }
    let text = fs_text(server, "fs_grep", args);
    if text.starts_with("No matches") {
        return BTreeSet::new();
    }
    text.lines().map(|line| pair(line, pattern, mode)).collect()
}

/// Runs every pattern of the table in `mode` on both sides, and fails with every disagreement.
fn agrees_with_ripgrep(mode: Mode) {
    if !ripgrep_installed() {
        return;
    }
    let tree = awkward_tree();
    let mut server = fs_server_with(&tree, &["--no-default-exclude"]);
    let mut disagreements = Vec::new();
    for pattern in PATTERNS {
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
        PATTERNS.len() >= 40,
        "the table holds {} patterns",
        PATTERNS.len()
    );
    assert!(
        disagreements.is_empty(),
        "{mode:?}: {} of {} patterns disagree with rg:\n{}",
        disagreements.len(),
        PATTERNS.len(),
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
