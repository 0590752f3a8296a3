//! `fs_glob`, and `fs_grep`'s `glob` filter, against ripgrep: for every pattern of a table, on a
//! generated tree (nested `mod.rs` files, hidden files and directories, deep directories,
//! brackets and braces in names, non-ASCII and NFD names, names without an extension), the
//! files listed are exactly those `rg --files --no-ignore --hidden -g PATTERN DIR` lists run at
//! the root, for the root and three subdirectories as `path`: a glob is read from the root
//! whatever `path` is. Skipped, saying so, where `rg` is not installed (`.ci/run` installs it).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;
use support::fs::{fs_server_with, fs_text};
use support::ripgrep::{rg_paths, ripgrep_installed};
use support::*;

/// Every file holds the word the grep side searches for, so a listed file is a matching file.
const FILES: &[&str] = &[
    "Cargo.toml",
    "Makefile",
    "README.md",
    "a.txt",
    "b1.txt",
    "c.txt",
    "ab.txt",
    "x.py",
    "main.rs",
    "mod.rs",
    "notes.MD",
    "archive.tar.gz",
    "[literal].txt",
    "{brace}.txt",
    "café.txt",
    "cafe\u{301}.md",
    "日本.txt",
    ".env.example",
    ".hidden/mod.rs",
    ".hidden/.deeper/x.txt",
    "src/lib.rs",
    "src/main.rs",
    "src/mod.rs",
    "src/util.py",
    "src/a/mod.rs",
    "src/a/b/mod.rs",
    "src/a/b/c/mod.rs",
    "src/a/b/c/leaf.rs",
    "src/d1/x.rs",
    "src/d1/y.txt",
    "src/d1/d2/mod.rs",
    "src/d1/d2/z.rs",
    "src/tests/t_test.go",
    "src/x.c",
    "src/x.h",
    "docs/guide.md",
    "docs/api/index.md",
    "docs/api/mod.rs",
    "d1/top.rs",
    "d1/sub/d1/twice.rs",
    "tests/it.rs",
    "tests/data/d1/f.rs",
    "deep/l1/l2/l3/l4/l5/l6/l7/l8/l9/bottom.txt",
    "deep/l1/l2/l3/l4/l5/l6/l7/l8/l9/bottom.rs",
    "noext",
    "dir.rs/inner.txt",
];

/// Patterns every agent writes, and the corners of the dialect.
const PATTERNS: &[&str] = &[
    "**/*.rs",
    "src/**/*.rs",
    "**/mod.rs",
    "*.{rs,py}",
    "[ab]*.txt",
    "**/d1/**/*.rs",
    "*.rs",
    "mod.rs",
    "src/*.rs",
    "src/**",
    "**",
    "*",
    "?.txt",
    "??.txt",
    "[!a]*.txt",
    "[^a]*.txt",
    "[a-c]*.txt",
    "*.[ch]",
    "*.md",
    "*.MD",
    "**/*.{md,MD}",
    ".*",
    "**/.*",
    ".hidden/*",
    ".hidden/**",
    "src/**/mod.rs",
    "src/*/mod.rs",
    "/a.txt",
    "/src/*.rs",
    "**/d1",
    "d1/**",
    "**/d1/*",
    "{src,docs}/**/*.md",
    "{src,docs}/**",
    "*.tar.gz",
    "*.gz",
    "Makefile",
    "*file*",
    "**/tests/**",
    "src/**/d1/**/*.rs",
    "**/*_test.go",
    "deep/**/*.txt",
    "deep/**/l9/*",
    "\\[literal\\].txt",
    "[[]*",
    "{*.toml,Makefile}",
    "\\{brace\\}.txt",
    "caf*",
    "caf?.txt",
    "日本.txt",
    "*.txt",
    "noext",
    "*.rs/*",
    "dir.rs",
    "src/",
    "!*.rs",
    "!**/d1/**",
    "!d1",
    "x*y",
    "**/a/**/mod.rs",
    "a/**/mod.rs",
    "src/a/*.rs",
    "src/a/**",
    "d1/*.rs",
    "api/*.md",
    "docs/api/*",
    "/docs/*.md",
    "!src/d1/**",
    "!a",
    "!src",
];

/// Directories (below the root) that a second round searches from, as `path`.
const SCOPES: &[&str] = &["src", "src/a", "docs"];

/// The files `rg --files -g PATTERN DIR`, run at the root, lists for `pattern` (paths from
/// the root, the glob read from the root whatever `dir` is).
fn ripgrep(root: &Path, dir: &str, pattern: &str) -> BTreeSet<String> {
    let mut args = vec!["--files", "--no-ignore", "--hidden", "-g", pattern];
    if dir != "." {
        args.push(dir);
    }
    rg_paths(root, ".", &args)
}

/// The files `fs_glob` lists under `dir` for `pattern`.
fn fs_glob(server: &mut Server, dir: &str, pattern: &str) -> BTreeSet<String> {
    let text = fs_text(server, "fs_glob", json!({"pattern": pattern, "path": dir}));
    if text.starts_with("No matches") {
        return BTreeSet::new();
    }
    text.lines().map(str::to_owned).collect()
}

/// The files whose lines `fs_grep` reports under `dir` with `pattern` as its `glob` filter.
fn fs_grep_files(server: &mut Server, dir: &str, pattern: &str) -> BTreeSet<String> {
    let args = json!({"pattern": "hit", "path": dir, "glob": pattern, "max-results": 1000});
    let text = fs_text(server, "fs_grep", args);
    if text.starts_with("No matches") {
        return BTreeSet::new();
    }
    text.lines()
        .map(|line| {
            let (path, _) = line
                .split_once(":1:")
                .unwrap_or_else(|| panic!("{pattern}: not a match line: {line:?}"));
            path.to_owned()
        })
        .collect()
}

fn tree() -> Tree {
    FILES
        .iter()
        .fold(Tree::new(), |tree, path| tree.file(path, "hit\n"))
}

/// Runs every pattern from the root and from each of [`SCOPES`] through `list`, and fails with
/// every disagreement with `rg`.
fn agrees_with_ripgrep(tool: &str, list: fn(&mut Server, &str, &str) -> BTreeSet<String>) {
    if !ripgrep_installed() {
        return;
    }
    let tree = tree();
    let mut server = fs_server_with(&tree, &["--no-default-exclude"]);
    let mut disagreements = Vec::new();
    let mut runs = 0;
    for dir in std::iter::once(&".").chain(SCOPES) {
        for pattern in PATTERNS {
            let expected = ripgrep(tree.path(), dir, pattern);
            let actual = list(&mut server, dir, pattern);
            runs += 1;
            if expected != actual {
                disagreements.push(format!(
                    "{pattern:?} under {dir}: rg only {:?}, {tool} only {:?}",
                    expected.difference(&actual).collect::<Vec<_>>(),
                    actual.difference(&expected).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(PATTERNS.len() >= 40, "the table holds {}", PATTERNS.len());
    assert!(
        disagreements.is_empty(),
        "{} of {runs} runs disagree with rg:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn fs_glob_lists_the_files_ripgrep_lists() {
    agrees_with_ripgrep("fs_glob", fs_glob);
}

#[test]
fn fs_grep_glob_filter_keeps_the_files_ripgrep_keeps() {
    agrees_with_ripgrep("fs_grep", fs_grep_files);
}
