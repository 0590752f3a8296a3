//! The fs tools on trees of any size, over the real binary: no walk is refused for its size
//! alone, a walk that stops early answers what a whole walk answers cut at the same point
//! (a property over random trees), a ceiling the configuration names ends the answer with the
//! sorted prefix and a notice, and a directory's revision changes with any change below it,
//! a rewrite of a file's bytes alone included.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::json;
use support::fs::*;
use support::*;

/// A random tree: up to 40 files at depths 1 to 4, named from a small alphabet whose names
/// test tree order (`a`, `a.txt`, `a-b`, `B`, `é`), each file with a few lines, some holding
/// `hit`.
fn tree_files() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop::sample::select(vec!["a", "a.txt", "a-b", "B", "é", "z9", "m.rs"]);
    let path = prop::collection::vec(name, 1..=4).prop_map(|names| names.join("/"));
    let body = prop::collection::vec(prop::bool::weighted(0.3), 1..6).prop_map(|hits| {
        hits.iter()
            .enumerate()
            .map(|(n, hit)| {
                if *hit {
                    format!("hit {n}\n")
                } else {
                    format!("miss {n}\n")
                }
            })
            .collect::<String>()
    });
    prop::collection::vec((path, body), 1..40)
}

/// Builds the tree, skipping a path whose parent is already a file (or the reverse).
fn build(files: &[(String, String)]) -> Tree {
    let tree = Tree::new();
    for (path, body) in files {
        let full = tree.join(path);
        let clashes = full
            .ancestors()
            .skip(1)
            .take_while(|p| *p != tree.path())
            .any(|p| p.is_file())
            || full.is_dir();
        if !clashes {
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(&full, body).expect("write");
        }
    }
    tree
}

/// The lines of an answer before its first notice.
fn lines_before_notice(text: &str) -> Vec<String> {
    let body = text.split("\n\n[").next().unwrap_or_default();
    if body.starts_with("No matches for ") {
        return Vec::new();
    }
    body.lines().map(str::to_owned).collect()
}

/// The file-limit notice of an answer that covers the tree up to `last`.
fn file_limit_notice(last: &str, limit: u64, narrow: &str) -> String {
    let files = if limit == 1 { "file" } else { "files" };
    format!(
        "\n\n[stopped early, the answer covers the tree up to '{last}': the walk selected more than {limit} {files} (the file limit); {narrow}, or raise it with --max-files (config key limits.max_files)]"
    )
}

#[test]
fn a_walk_stopped_by_a_ceiling_answers_the_whole_walk_cut_there() {
    let mut runner = TestRunner::new(proptest_config(24));
    runner
        .run(&(tree_files(), 1u64..45), |(files, limit)| {
            let tree = build(&files);
            let mut whole = fs_server(&tree);
            let mut capped = fs_server_with(&tree, &["--max-files", &limit.to_string()]);
            let all =
                lines_before_notice(&fs_text(&mut whole, "fs_glob", json!({"pattern": "**"})));
            let glob = fs_text(&mut capped, "fs_glob", json!({"pattern": "**"}));
            let cut = all.len().min(limit as usize);
            prop_assert_eq!(lines_before_notice(&glob), all[..cut].to_vec());
            if all.len() as u64 > limit {
                let notice =
                    file_limit_notice(&all[cut - 1], limit, "narrow the path or the pattern");
                prop_assert!(glob.ends_with(&notice), "{glob}");
            } else {
                prop_assert!(!glob.contains("[stopped early"), "{glob}");
            }

            // grep over the same ceiling: the lines of the files before the cut, in order.
            let args = json!({"pattern": "hit", "max-results": 1000});
            let every = lines_before_notice(&fs_text(&mut whole, "fs_grep", args.clone()));
            let grep = fs_text(&mut capped, "fs_grep", args);
            let kept: Vec<String> = every
                .iter()
                .filter(|line| {
                    let path = line.split(':').next().unwrap_or_default();
                    all[..cut].iter().any(|p| p == path)
                })
                .cloned()
                .collect();
            prop_assert_eq!(lines_before_notice(&grep), kept);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_search_stopped_at_max_results_answers_the_first_lines_of_the_whole_search() {
    let mut runner = TestRunner::new(proptest_config(24));
    runner
        .run(&(tree_files(), 1u64..12), |(files, max)| {
            let tree = build(&files);
            let mut server = fs_server(&tree);
            let every = lines_before_notice(&fs_text(
                &mut server,
                "fs_grep",
                json!({"pattern": "hit", "max-results": 1000}),
            ));
            let some = fs_text(
                &mut server,
                "fs_grep",
                json!({"pattern": "hit", "max-results": max}),
            );
            let cut = every.len().min(max as usize);
            prop_assert_eq!(lines_before_notice(&some), every[..cut].to_vec());
            let said_more = some.contains("raise max-results to see more]");
            prop_assert_eq!(said_more, every.len() > cut, "{}", some);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn no_fs_walk_is_refused_for_its_size_unless_a_ceiling_is_named() {
    // More files than ptc-fs-mcp's 50,000: the fs tools walk them all by default.
    let tree = Tree::new();
    for d in 0..100 {
        let dir = tree.join(&format!("d{d:02}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..510 {
            std::fs::write(dir.join(format!("f{f:03}.txt")), "").expect("write");
        }
    }
    std::fs::write(tree.join("d99/last.rs"), "fn last() {}\n").expect("write");
    let mut server = fs_server_with(&tree, &["--tools", "ptc,fs"]);
    assert_eq!(
        fs_text(&mut server, "fs_glob", json!({"pattern": "*.rs"})),
        "d99/last.rs"
    );
    assert_eq!(
        fs_text(&mut server, "fs_grep", json!({"pattern": "fn last"})),
        "d99/last.rs:1:fn last() {}"
    );
    let (_, revisions) = fs_call(&mut server, "fs_stat", json!({"path": "."}));
    assert!(
        is_directory_token(&token(&revisions.expect("revisions"), "path")),
        "a directory of 51,001 files has a revision"
    );
    // The program-facing tools keep ptc-fs-mcp's ceiling.
    let error = server.call_error("search_files", json!({"query": "last"}));
    assert_eq!(error, "file limit exceeded");
}

#[test]
fn a_named_ceiling_ends_a_glob_with_the_sorted_prefix_and_a_notice() {
    let tree = Tree::new()
        .file("b/2.txt", "")
        .file("a/1.txt", "")
        .file("a.txt", "")
        .file("c.txt", "");
    let mut server = fs_server_with(&tree, &["--max-files", "2"]);
    assert_eq!(
        fs_text(&mut server, "fs_glob", json!({"pattern": "*.txt"})),
        format!(
            "a/1.txt\na.txt{}",
            file_limit_notice("a.txt", 2, "narrow the path or the pattern")
        )
    );
    let mut server = fs_server_with(&tree, &["--max-directories", "1"]);
    assert_eq!(
        fs_text(&mut server, "fs_glob", json!({"pattern": "*.txt"})),
        "No matches for '*.txt' under '.'\n\n[stopped early, nothing was searched: the walk entered more than 1 directory (the directory limit); narrow the path or the pattern, or raise it with --max-directories (config key limits.max_directories)]"
    );
}

/// A change made to a tree outside the server.
type Change<'a> = Box<dyn Fn() + 'a>;

#[test]
fn a_directory_revision_changes_with_any_change_below_it() {
    let tree = Tree::new()
        .file("top/a/b/c/deep.txt", "0123456789")
        .file("top/other.txt", "x")
        .file("elsewhere.txt", "y");
    let mut server = fs_server(&tree);
    let stat = |server: &mut Server, path: &str| -> String {
        let (_, revisions) = fs_call(server, "fs_stat", json!({"path": path}));
        token(&revisions.expect("revisions"), "path")
    };
    let mut seen = vec![stat(&mut server, "top")];
    // Unchanged, the same token; a change outside the directory leaves it as it was.
    assert_eq!(stat(&mut server, "top"), seen[0]);
    tree.put("elsewhere.txt", "changed");
    assert_eq!(stat(&mut server, "top"), seen[0]);

    let deep = tree.join("top/a/b/c/deep.txt");
    let changes: Vec<(&str, Change)> = vec![
        // The bytes alone: same size, same inode, written in place at once.
        (
            "a same-size rewrite in place",
            Box::new(|| std::fs::write(&deep, "9876543210").expect("write")),
        ),
        (
            "a same-size rewrite with its modification time set back",
            Box::new(|| {
                let before = std::fs::metadata(&deep)
                    .expect("stat")
                    .modified()
                    .expect("mtime");
                std::fs::write(&deep, "abcdefghij").expect("write");
                let file = std::fs::File::options()
                    .write(true)
                    .open(&deep)
                    .expect("open");
                file.set_modified(before).expect("set mtime");
            }),
        ),
        (
            "a new empty directory",
            Box::new(|| tree.put("top/a/new/.keep", "")),
        ),
        ("a file removed", Box::new(|| tree.remove("top/other.txt"))),
        (
            "a file renamed",
            Box::new(|| {
                std::fs::rename(tree.join("top/a/new/.keep"), tree.join("top/a/new/keep"))
                    .expect("rename")
            }),
        ),
    ];
    for (change, make) in &changes {
        make();
        let now = stat(&mut server, "top");
        assert!(
            !seen.contains(&now),
            "{change} left the directory's token as it was"
        );
        seen.push(now);
    }
}

/// The lines a directory's revision hashes, computed here from `std::fs` metadata: tree order
/// (each level's names sorted, a directory's contents right after it; ASCII names, so byte
/// order is the server's UTF-16 order), paths relative to `dir`.
fn revision_lines(dir: &std::path::Path, prefix: &str, out: &mut String) {
    use std::os::unix::fs::MetadataExt;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let rel = format!("{prefix}{name}");
        let meta = std::fs::symlink_metadata(&path).expect("lstat");
        if meta.is_dir() {
            out.push_str(&format!("d {rel}\n"));
            revision_lines(&path, &format!("{rel}/"), out);
        } else if meta.is_file() {
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            out.push_str(&format!(
                "f {rel} {} {} {} {} {}\n",
                meta.dev(),
                meta.ino(),
                meta.size(),
                ns(meta.mtime(), meta.mtime_nsec()),
                ns(meta.ctime(), meta.ctime_nsec())
            ));
        }
    }
}

#[test]
fn a_directory_revision_is_sha256sum_of_its_tree_lines() {
    let tree = Tree::new()
        .file("top/b.txt", "b")
        .file("top/a/x.rs", "fn x() {}\n")
        .file("top/a.txt", "no final newline")
        .file("top/a-b/deep/er/y.txt", "y\r\n")
        .file("top/.hidden/z", "z")
        .dir("top/empty");
    let mut lines = String::new();
    revision_lines(&tree.join("top"), "", &mut lines);
    let mut sha256sum = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) runs");
    use std::io::Write;
    sha256sum
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
        .expect("write");
    let out = sha256sum.wait_with_output().expect("sha256sum output");
    let digest = String::from_utf8(out.stdout).expect("utf-8");
    let digest = digest.split_whitespace().next().expect("a digest");
    let mut server = fs_server(&tree);
    let (_, revisions) = fs_call(&mut server, "fs_stat", json!({"path": "top"}));
    assert_eq!(
        token(&revisions.expect("revisions"), "path"),
        format!("sha256-v1:directory:{digest}"),
        "lines hashed:\n{lines}"
    );
}
