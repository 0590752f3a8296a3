//! `--respect-gitignore` (config key `respect_gitignore`) over the binary: `fs_glob`, `fs_grep`,
//! `fs_map` and `fs_symbols` skip what the tree's `.gitignore` files and `.git/info/exclude` ignore, as
//! ripgrep does (a differential test against `rg --files` and `rg -l` on nested files,
//! negations, directory-only and anchored patterns, and a nested repository); the option is
//! off by default; `fs_read` and `fs_list` still reach an ignored file by its path; an edited
//! `.gitignore` or `exclude` changes the next answer although walks are remembered; a walk
//! that honours the files and one that does not never share a remembered walk; the `ptc` tools
//! are unaffected.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;
use support::fs::{fs_revisions, fs_server, fs_server_with, fs_text};
use support::ripgrep::{rg_paths, ripgrep_installed};
use support::*;

const RESPECT: &str = "--respect-gitignore";

/// The ignore files of [`tree`], by path.
const IGNORE_FILES: &[(&str, &str)] = &[
    (
        ".gitignore",
        "# build output\n*.log\n!keep.log\nbuild/\n/top.txt\nsrc/gen\ndocs/**/*.tmp\n*.o\n!important.o\n!local.cfg\n",
    ),
    ("sub/.gitignore", "!*.log\n*.tmp\n/anchored.txt\nnested/\n"),
    ("sub/deeper/.gitignore", "*.log\n!nested/\n"),
    (".git/info/exclude", "*.cfg\nsecret*\n"),
    ("vendored/.git/info/exclude", "*.skip\n"),
];

/// Every file of [`tree`] but the ignore files; each holds `hit`.
const FILES: &[&str] = &[
    "a.log",
    "keep.log",
    "top.txt",
    "build/b.rs",
    "build/inner/c.rs",
    "other/build",
    "other/top.txt",
    "src/main.rs",
    "src/gen/g.rs",
    "docs/a/b/c.tmp",
    "docs/a/b/c.md",
    "x.o",
    "important.o",
    "app.cfg",
    "local.cfg",
    "secret1",
    "sub/s.log",
    "sub/s.tmp",
    "sub/anchored.txt",
    "sub/more/anchored.txt",
    "sub/nested/n.rs",
    "sub/deeper/d.log",
    "sub/deeper/nested/kept.rs",
    "sub/deeper/e.tmp",
    "sub/secret2",
    "vendored/v.log",
    "vendored/a.skip",
    "vendored/b.rs",
    "vendored/build/kept.rs",
    "vendored/n.cfg",
];

fn tree() -> Tree {
    let tree = FILES
        .iter()
        .fold(Tree::new(), |tree, path| tree.file(path, "hit\n"));
    IGNORE_FILES
        .iter()
        .fold(tree, |tree, (path, text)| tree.file(path, text))
}

/// What `rg` lists (`--files`, or with `-l hit` the files holding `hit`) from `dir`, relative
/// to the root: hidden files too, `.gitignore` files read without a repository
/// (`--no-require-git`, as fsmcp reads them), no global or `.ignore` files, `.git` left out as
/// fsmcp's built-in excludes leave it out.
fn ripgrep(root: &Path, dir: &str, search: &[&str]) -> BTreeSet<String> {
    let mut args = search.to_vec();
    args.extend(["--hidden", "--no-require-git", "--no-ignore-global"]);
    args.extend(["--no-ignore-dot", "--no-config", "-g", "!.git"]);
    rg_paths(root, dir, &args)
}

/// The lines of an answer, or none for `No matches …`.
fn listed(text: &str) -> BTreeSet<String> {
    if text.starts_with("No matches") {
        return BTreeSet::new();
    }
    text.lines().map(str::to_owned).collect()
}

fn glob(server: &mut Server, dir: &str) -> BTreeSet<String> {
    listed(&fs_text(
        server,
        "fs_glob",
        json!({"pattern": "**", "path": dir}),
    ))
}

fn grep_files(server: &mut Server, dir: &str) -> BTreeSet<String> {
    let args = json!({"pattern": "hit", "path": dir, "output": "files", "max-results": 1000});
    listed(&fs_text(server, "fs_grep", args))
}

fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

#[test]
fn glob_and_grep_skip_what_ripgrep_skips() {
    if !ripgrep_installed() {
        return;
    }
    let tree = tree();
    let mut server = fs_server_with(&tree, &[RESPECT]);
    // The scope itself is never judged: `build` is ignored, but named here it is searched.
    let scopes = [".", "sub", "sub/deeper", "src", "build", "vendored", "docs"];
    let mut disagreements = Vec::new();
    for dir in scopes {
        let runs: [(&str, &[&str], BTreeSet<String>); 2] = [
            ("fs_glob", &["--files"], glob(&mut server, dir)),
            ("fs_grep", &["-l", "hit"], grep_files(&mut server, dir)),
        ];
        for (tool, search, actual) in runs {
            let expected = ripgrep(tree.path(), dir, search);
            if expected != actual {
                disagreements.push(format!(
                    "{tool} under {dir}: rg only {:?}, {tool} only {:?}",
                    expected.difference(&actual).collect::<Vec<_>>(),
                    actual.difference(&expected).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The comparison means something only if rules of every kind took effect.
    let everything = glob(&mut server, ".");
    for kept in [
        "keep.log",
        "important.o",
        "local.cfg",
        "other/build",
        "other/top.txt",
        "sub/s.log",
        "sub/more/anchored.txt",
        "sub/deeper/nested/kept.rs",
        "vendored/b.rs",
    ] {
        assert!(everything.contains(kept), "{kept} kept: {everything:?}");
    }
    for skipped in [
        "a.log",
        "top.txt",
        "build/b.rs",
        "src/gen/g.rs",
        "docs/a/b/c.tmp",
        "x.o",
        "app.cfg",
        "secret1",
        "sub/secret2",
        "sub/s.tmp",
        "sub/anchored.txt",
        "sub/nested/n.rs",
        "sub/deeper/d.log",
        "vendored/a.skip",
        // A nested repository is no boundary (rg --no-require-git): the rules above reach in.
        "vendored/v.log",
        "vendored/build/kept.rs",
        "vendored/n.cfg",
    ] {
        assert!(!everything.contains(skipped), "{skipped} skipped");
    }
}

#[test]
fn the_option_is_off_by_default() {
    let tree = tree();
    let mut server = fs_server(&tree);
    let all: BTreeSet<String> = FILES
        .iter()
        .chain(IGNORE_FILES.iter().map(|(path, _)| path))
        .filter(|path| !path.contains(".git/"))
        .map(|path| (*path).to_owned())
        .collect();
    assert_eq!(glob(&mut server, "."), all);
    let holding_hit: BTreeSet<String> = FILES.iter().map(|p| (*p).to_owned()).collect();
    assert_eq!(grep_files(&mut server, "."), holding_hit);
}

#[test]
fn read_and_list_reach_an_ignored_file_by_its_path() {
    let tree = tree();
    let mut server = fs_server_with(&tree, &[RESPECT]);
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "build/b.rs"})),
        "hit\n"
    );
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "a.log"})),
        "hit\n"
    );
    let listing = fs_text(&mut server, "fs_list", json!({"path": "."}));
    for name in ["a.log", "build/", "top.txt", "app.cfg"] {
        assert!(listing.lines().any(|l| l == name), "{name}: {listing}");
    }
    assert_eq!(
        fs_text(&mut server, "fs_list", json!({"path": "build"})),
        "b.rs\ninner/"
    );
    // A grep naming the ignored file searches it.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_grep",
            json!({"pattern": "hit", "path": "a.log"})
        ),
        "a.log:1:hit"
    );
}

#[test]
fn map_skips_ignored_files_unless_one_is_named() {
    let tree = Tree::new()
        .file(".gitignore", "generated/\n*.gen.rs\n")
        .file("src/lib.rs", "pub fn kept_function() {}\n")
        .file("src/table.gen.rs", "pub fn generated_table() {}\n")
        .file("generated/api.rs", "pub fn generated_api() {}\n");
    let mut plain = fs_server(&tree);
    let everything = fs_text(&mut plain, "fs_map", json!({}));
    for shown in ["src/lib.rs:", "src/table.gen.rs:", "generated/api.rs:"] {
        assert!(everything.contains(shown), "{shown}: {everything}");
    }
    let mut server = fs_server_with(&tree, &[RESPECT]);
    let map = fs_text(&mut server, "fs_map", json!({}));
    assert!(map.contains("src/lib.rs:"), "{map}");
    assert!(!map.contains("generated"), "{map}");
    assert!(map.contains("[mapped 1 file "), "{map}");
    let outline = fs_text(&mut server, "fs_map", json!({"path": "generated/api.rs"}));
    assert!(outline.contains("generated_api"), "{outline}");
}

#[test]
fn symbols_skips_ignored_files_as_map_does() {
    let tree = Tree::new()
        .file(".gitignore", "generated/\n")
        .file("src/lib.rs", "pub fn shared() {}\n")
        .file(
            "generated/api.rs",
            "pub fn shared() {}\nfn user() { shared() }\n",
        );
    let lookup = json!({"name": "shared"});
    let mut plain = fs_server(&tree);
    assert_eq!(
        fs_text(&mut plain, "fs_symbols", lookup.clone()),
        "2 definitions of 'shared':\ngenerated/api.rs:1: pub fn shared() {}\nsrc/lib.rs:1: pub fn shared() {}\n\n1 reference to 'shared' in 1 file:\ngenerated/api.rs:2: [call] fn user() { shared() }"
    );
    let mut server = fs_server_with(&tree, &[RESPECT]);
    assert_eq!(
        fs_text(&mut server, "fs_symbols", lookup),
        "1 definition of 'shared':\nsrc/lib.rs:1: pub fn shared() {}"
    );
    // Named as the path, an ignored directory is searched.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_symbols",
            json!({"name": "shared", "path": "generated", "references": false})
        ),
        "1 definition of 'shared':\ngenerated/api.rs:1: pub fn shared() {}"
    );
}

#[test]
fn an_edited_ignore_file_changes_the_next_answer() {
    let tree = tree();
    let mut server = Server::start(
        tree.path(),
        &[
            "--tools",
            "fs",
            "--include",
            "**",
            RESPECT,
            "--log-level",
            "trace",
        ],
    );
    let first = glob(&mut server, ".");
    // Twice: the second answer comes from the remembered walk, which the edits must drop.
    assert_eq!(glob(&mut server, "."), first);
    assert!(first.contains("keep.log") && !first.contains("a.log"));

    tree.put(".gitignore", "keep.log\n");
    let after_gitignore = glob(&mut server, ".");
    assert!(after_gitignore.contains("a.log"), "{after_gitignore:?}");
    assert!(!after_gitignore.contains("keep.log"), "{after_gitignore:?}");
    assert_eq!(glob(&mut server, "."), after_gitignore);

    // Without its negation, the nested file no longer overrides `nested/` from `sub`.
    assert!(after_gitignore.contains("sub/deeper/nested/kept.rs"));
    tree.put("sub/deeper/.gitignore", "*.log\n");
    let after_nested = glob(&mut server, ".");
    assert!(
        !after_nested.contains("sub/deeper/nested/kept.rs"),
        "{after_nested:?}"
    );

    assert!(!after_nested.contains("app.cfg"));
    tree.put(".git/info/exclude", "secret*\n");
    let after_exclude = glob(&mut server, ".");
    assert!(after_exclude.contains("app.cfg"), "{after_exclude:?}");
    assert!(!after_exclude.contains("secret1"), "{after_exclude:?}");

    // A `.git/info` created after the walk is seen too (its `.git` was watched).
    let fresh = Tree::new().file("a.cfg", "hit\n").dir(".git");
    let mut server_fresh = fs_server_with(&fresh, &[RESPECT]);
    assert_eq!(glob(&mut server_fresh, "."), set(&["a.cfg"]));
    assert_eq!(glob(&mut server_fresh, "."), set(&["a.cfg"]));
    fresh.put(".git/info/exclude", "*.cfg\n");
    assert_eq!(glob(&mut server_fresh, "."), BTreeSet::new());

    let (_, log) = server.close();
    let reused = log.lines().filter(|l| l.contains("walk reused")).count();
    if walks_are_remembered("the unchanged answers come from remembered walks") {
        assert!(reused >= 2, "the walks were remembered: {log}");
    } else {
        assert_eq!(reused, 0, "no walk is reused without a watcher: {log}");
    }
}

#[test]
fn a_walk_with_the_rules_and_one_without_share_nothing() {
    let tree = tree();
    let mut server = fs_server_with(&tree, &[RESPECT]);
    let mut plain = fs_server(&tree);
    // A directory's revision covers every served file, ignored or not, so it walks without the
    // rules; the glob after it must not be handed that walk, nor the revision the glob's.
    let list = json!({"path": "."});
    let revision = fs_revisions(&mut server, "fs_list", list.clone());
    assert!(!glob(&mut server, ".").contains("a.log"));
    assert_eq!(fs_revisions(&mut server, "fs_list", list.clone()), revision);
    assert_eq!(fs_revisions(&mut plain, "fs_list", list.clone()), revision);
    let sub = json!({"path": "sub"});
    assert!(!glob(&mut server, "sub").contains("sub/s.tmp"));
    assert_eq!(
        fs_revisions(&mut server, "fs_stat", sub.clone()),
        fs_revisions(&mut plain, "fs_stat", sub)
    );
    assert!(!glob(&mut server, "sub").contains("sub/s.tmp"));
}

#[test]
fn the_ptc_tools_are_unaffected_and_a_ptc_only_root_is_warned() {
    let tree = tree();
    let root = tree.path().to_str().expect("UTF-8 path");
    let search = ["--call", "search_files", r#"{"query":".log"}"#];
    let (status, stdout, stderr) =
        run(&[&["--root", root, "--include", "**", RESPECT], &search[..]].concat());
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("\"a.log\""), "{stdout}");
    assert_eq!(
        stderr.trim_end(),
        "fsmcp: --respect-gitignore narrows only the fs tools' glob, grep, map and symbols, and this root publishes only the ptc tools, so it has no effect. Add --tools ptc,fs to publish them."
    );
    let (_, plain, _) = run(&[&["--root", root, "--include", "**"], &search[..]].concat());
    assert_eq!(stdout, plain);
    // Published beside the fs tools, the ptc tools still see every file, and nothing is said.
    let (status, stdout, stderr) = run(&[
        &[
            "--root",
            root,
            "--include",
            "**",
            "--tools",
            "ptc,fs",
            RESPECT,
        ],
        &search[..],
    ]
    .concat());
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, plain);
    assert_eq!(stderr, "");
}

#[test]
fn the_config_key_means_what_the_flag_means() {
    let tree = tree();
    let root = tree.path().to_str().expect("UTF-8 path");
    let call = ["--call", "fs_glob", r#"{"pattern":"*.log"}"#];
    for respect in [false, true] {
        let config = json!({"roots": [{"root": root, "include": ["**"], "tools": ["fs"],
                                       "respect_gitignore": respect}]});
        let dir = Tree::new().file("cfg.json", config.to_string());
        let path = dir.join("cfg.json");
        let (status, from_file, stderr) =
            run(&[&["--config", path.to_str().expect("UTF-8")], &call[..]].concat());
        assert_eq!(status.code(), Some(0), "{stderr}");
        let mut flags = vec!["--root", root, "--include", "**", "--tools", "fs"];
        if respect {
            flags.push(RESPECT);
        }
        let (_, from_flags, _) = run(&[&flags[..], &call[..]].concat());
        assert_eq!(from_file, from_flags, "{respect}");
        assert_eq!(from_file.contains("a.log"), !respect, "{from_file}");
        // A root flag, so the file form refuses it beside a config file.
        assert_eq!(
            config_error(&["--config", path.to_str().expect("UTF-8"), RESPECT]),
            "--config cannot be combined with --respect-gitignore; put it in the config file"
        );
    }
    assert_eq!(
        config_error(&["--root", root, "--tools", "fs", "--respect_gitignore"]),
        "unknown option --respect_gitignore; did you mean --respect-gitignore?"
    );
    assert_eq!(
        config_error(&["--respect-gitignore", "--tools", "fs"]),
        "--root is required"
    );
}

#[test]
fn nothing_above_the_root_and_no_link_or_oversized_file_is_read() {
    // The served root is a part of a repository: the rules above it lie outside the root.
    let outer = Tree::new()
        .dir(".git")
        .file(".gitignore", "*.log\n")
        .file("inner/a.log", "hit\n")
        .file("inner/b.txt", "hit\n");
    let mut server = Server::start(
        &outer.join("inner"),
        &["--tools", "fs", "--include", "**", RESPECT],
    );
    assert_eq!(glob(&mut server, "."), set(&["a.log", "b.txt"]));

    // A `.gitignore` that is a link is not followed; one over 256 KiB is not read.
    let linked = Tree::new()
        .file("rules.txt", "*.log\n")
        .symlink(".gitignore", "rules.txt")
        .file("a.log", "hit\n")
        .file(
            "big/.gitignore",
            format!("*.log\n#{}\n", "x".repeat(1 << 20)),
        )
        .file("big/b.log", "hit\n")
        .file(
            "small/.gitignore",
            format!("*.log\n#{}\n", "x".repeat(1000)),
        )
        .file("small/c.log", "hit\n");
    let mut server = fs_server_with(&linked, &[RESPECT]);
    let files = glob(&mut server, ".");
    assert!(
        files.contains("a.log") && files.contains("big/b.log"),
        "{files:?}"
    );
    assert!(!files.contains("small/c.log"), "{files:?}");
}

/// `n` patterns of the costliest shape to compile and match (`**/dN/**/*.rs`), every other
/// one negated, numbered from `from`.
fn costly_rules(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| match i % 2 {
            0 => format!("**/d{i}/**/*.rs\n"),
            _ => format!("!**/d{i}/**/*.rs\n"),
        })
        .collect()
}

/// `n` patterns cheap to compile (`*.eN`), numbered from `from`: the bounds count patterns,
/// whatever they cost (the test binary is a debug build, where costly ones compile slowly).
fn cheap_rules(from: usize, n: usize) -> String {
    (from..from + n).map(|i| format!("*.e{i}\n")).collect()
}

/// The notice naming `path` as not applied, for `why`.
fn not_applied(path: &str, why: &str) -> String {
    format!(
        "[ignore rules not applied, so what they would skip is in this answer: '{path}' ({why})"
    )
}

#[test]
fn an_ignore_file_over_its_bounds_is_named_and_not_applied() {
    // The finding's file: about 1 MiB of 57,000 costly patterns. Unbounded, compiling it took
    // 11 s and 1.1 GB on every call, past a 1 s deadline.
    let huge = Tree::new()
        .file(".gitignore", format!("*.log\n{}", costly_rules(0, 57_000)))
        .file("a.log", "hit\n")
        .file("src/d2/x/y.rs", "hit\n");
    let mut server = fs_server_with(&huge, &[RESPECT, "--max-call-seconds", "1"]);
    let why = not_applied(
        ".gitignore",
        "larger than 262144 bytes, the most one ignore file may be",
    );
    // Twice: the second call is not a replay that forgets the notice.
    for _ in 0..2 {
        let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
        assert!(
            text.starts_with(".gitignore\na.log\nsrc/d2/x/y.rs\n\n"),
            "{text}"
        );
        assert!(text.ends_with("; shorten or split it]"), "{text}");
        assert!(text.contains(&why), "{text}");
    }
    let grep = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "hit", "output": "files"}),
    );
    assert!(
        grep.starts_with("a.log\nsrc/d2/x/y.rs\n\n") && grep.contains(&why),
        "{grep}"
    );

    // Under the size bound, but more patterns than one file may hold.
    let many = Tree::new()
        .file(
            "p/.gitignore",
            format!(
                "*.log\n# a comment is no pattern\n\n{}",
                cheap_rules(0, 4_096)
            ),
        )
        .file("p/c.log", "hit\n")
        .file("q/.gitignore", "*.log\n")
        .file("q/d.log", "hit\n");
    let mut server = fs_server_with(&many, &[RESPECT]);
    let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
    assert!(
        text.starts_with("p/.gitignore\np/c.log\nq/.gitignore\n\n"),
        "{text}"
    );
    let why = "more than 4096 patterns, the most one ignore file may hold";
    assert!(text.contains(&not_applied("p/.gitignore", why)), "{text}");
    let map = fs_text(&mut server, "fs_map", json!({}));
    assert!(
        map.contains(
            "; ignore rules not applied, so what they would skip is in this answer: 'p/.gitignore'"
        ),
        "{map}"
    );
    // At the bound itself, the file applies.
    let at_bound = Tree::new()
        .file("p/.gitignore", format!("*.log\n{}", cheap_rules(0, 4_095)))
        .file("p/c.log", "hit\n")
        .file("p/kept.txt", "hit\n");
    let mut server = fs_server_with(&at_bound, &[RESPECT]);
    let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
    assert_eq!(text, "p/.gitignore\np/kept.txt");
}

#[test]
fn rules_in_force_at_once_are_bounded_along_a_chain() {
    // Each file alone is within its bound; the third would put 9,000 patterns in force.
    let tree = Tree::new()
        .file("a/.gitignore", format!("*.tmp\n{}", cheap_rules(0, 2_999)))
        .file(
            "a/b/.gitignore",
            format!("*.bak\n{}", cheap_rules(3_000, 2_999)),
        )
        .file(
            "a/b/c/.gitignore",
            format!("*.log\n{}", cheap_rules(6_000, 2_999)),
        )
        .file("a/b/c/x.log", "hit\n")
        .file("a/b/c/y.tmp", "hit\n")
        .file("a/b/c/z.bak", "hit\n")
        // A sibling's rules are not in force in the chain: this one applies.
        .file(
            "a/e/.gitignore",
            format!("*.log\n{}", cheap_rules(0, 2_999)),
        )
        .file("a/e/w.log", "hit\n");
    let mut server = fs_server_with(&tree, &[RESPECT]);
    let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
    let why =
        "with the rules of the directories above it, more than 8192 patterns would apply at once";
    let files = [
        "a/.gitignore",
        "a/b/.gitignore",
        "a/b/c/.gitignore",
        "a/b/c/x.log",
        "a/e/.gitignore",
    ];
    assert!(
        text.starts_with(&format!("{}\n\n", files.join("\n"))),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "{}; use fewer patterns above it]",
            not_applied("a/b/c/.gitignore", why)
        )),
        "{text}"
    );
}

#[test]
fn costly_rules_in_force_at_once_are_bounded() {
    // Patterns with a wildcard inside cost the matcher most: past about 3,000 `*xN*y*` its
    // memory grew with their square (8 GB at 4,000). Two files of 600 each pass the bound of
    // 1,024; cheap patterns beside them count only toward the bound of all patterns.
    let wild =
        |from: usize| -> String { (from..from + 600).map(|i| format!("*x{i}*y*\n")).collect() };
    let tree = Tree::new()
        .file(
            "a/.gitignore",
            format!("*.tmp\n{}{}", wild(0), cheap_rules(0, 3_000)),
        )
        .file("a/b/.gitignore", format!("*.log\n{}", wild(600)))
        .file("a/b/x.log", "hit\n")
        .file("a/b/y.tmp", "hit\n");
    let mut server = fs_server_with(&tree, &[RESPECT]);
    let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
    assert!(
        text.starts_with("a/.gitignore\na/b/.gitignore\na/b/x.log\n\n"),
        "{text}"
    );
    let why = "with the rules of the directories above it, more than 1024 patterns holding a wildcard other than a leading '**/', a trailing '/**' or '*.ext' would apply at once";
    assert!(
        text.ends_with(&format!(
            "{}; use fewer such patterns]",
            not_applied("a/b/.gitignore", why)
        )),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn an_ignore_file_that_is_a_link_is_named() {
    let tree = Tree::new()
        .file("rules.txt", "*.log\n")
        .symlink(".gitignore", "rules.txt")
        .file("a.log", "hit\n")
        .file("b/.gitignore", "*.log\n")
        .symlink("b/.git", "../elsewhere")
        .file("b/c.log", "hit\n");
    let mut server = fs_server_with(&tree, &[RESPECT]);
    let text = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
    assert_eq!(
        text,
        format!(
            "a.log\nb/.gitignore\nrules.txt\n\n{}; make it a regular file]",
            not_applied(".gitignore", "a symbolic link, which is never followed")
        )
    );
}
