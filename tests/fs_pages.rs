//! Pages of `fs_list`, `fs_glob` and `fs_grep`: an answer cut short names the `after` that
//! continues it, and following those to the end gives every entry exactly once, the union
//! being the whole answer (held to `rg --files` and `rg -n` / `rg -c` where ripgrep defines
//! it). Trees large enough to need several pages of the smallest result limit (48,000 bytes).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::fs::{fs_error, fs_server_with, fs_text};
use support::ripgrep::{rg, ripgrep_installed};
use support::*;

/// 12 directories of 200 files each (names long enough that a glob needs several pages), a
/// flat directory of 2,500 entries, some matching lines in each file, and the awkward names:
/// `a` before `a-b` before `a.txt` in tree order, a name with a colon and digits.
fn paged_tree() -> Tree {
    let mut tree = Tree::new();
    for d in 0..12 {
        for f in 0..200 {
            let body = if f % 3 == 0 {
                format!("first\nneedle {d} {f}\nmiddle\nneedle again\nlast\n")
            } else {
                "nothing here\n".to_owned()
            };
            tree = tree.file(
                &format!("dir-{d:02}/a-rather-long-file-name-number-{f:04}.txt"),
                body,
            );
        }
    }
    for f in 0..2500 {
        tree = tree.file(&format!("flat/entry-with-a-long-name-{f:05}.md"), "x\n");
    }
    tree.file("a/z.txt", "needle in a/z\n")
        .file("a-b.txt", "needle in a-b\n")
        .file("a.txt", "needle in a.txt\n")
        .file("odd:12.txt", "needle\nneedle\n")
}

/// The `after` a cut answer names (`continue with "after": "…"`), if any.
fn next_after(text: &str) -> Option<String> {
    let (_, rest) = text.rsplit_once("continue with \"after\": ")?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
    Some(stream.next()?.expect("the after value is a JSON string"))
}

/// The answer's entry lines, without its closing notice.
fn entries(text: &str) -> Vec<String> {
    let body = match text.find("\n\n[") {
        Some(at) => &text[..at],
        None => text,
    };
    body.lines()
        .filter(|line| !line.is_empty() && *line != "--")
        .map(str::to_owned)
        .collect()
}

/// Every page of `tool` called with `args`, following `after` until an answer names none.
/// Each whole result is measured: none may pass the result limit (48,000 bytes), notice and
/// all.
fn all_pages(server: &mut Server, tool: &str, args: Value) -> Vec<String> {
    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut call = args.clone();
        if let Some(after) = &after {
            call["after"] = json!(after);
        }
        let result = server.call_result(tool, call.clone());
        assert_ne!(result.get("isError"), Some(&json!(true)), "{tool} {call}");
        let size = serde_json::to_string(&result).expect("JSON").len();
        assert!(
            size <= 48_000,
            "{tool}: page {} is {size} bytes",
            pages.len() + 1
        );
        let text = result["content"][0]["text"]
            .as_str()
            .expect("text")
            .to_owned();
        let next = next_after(&text);
        pages.push(text);
        match next {
            Some(next) => {
                assert_ne!(
                    after.as_ref(),
                    Some(&next),
                    "{tool}: a page did not move on"
                );
                after = Some(next);
            }
            None => return pages,
        }
        assert!(pages.len() < 200, "{tool}: more than 200 pages");
    }
}

/// Lines of all pages, each at most once: a line seen on two pages fails.
fn union(pages: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut all = Vec::new();
    for page in pages {
        for line in entries(page) {
            assert!(seen.insert(line.clone()), "{line:?} is on two pages");
            all.push(line);
        }
    }
    all
}

#[test]
fn list_pages_hold_every_entry_once() {
    let tree = paged_tree();
    let mut server = fs_server_with(&tree, &[]);
    let pages = all_pages(&mut server, "fs_list", json!({"path": "flat"}));
    assert!(pages.len() >= 2, "{} pages", pages.len());
    let notice = &pages[0][pages[0].rfind("\n\n[").expect("a notice")..];
    assert!(
        notice.starts_with("\n\n[listed ") && notice.contains(" of 2500 entries"),
        "{notice}"
    );
    let expected: Vec<String> = (0..2500)
        .map(|f| format!("entry-with-a-long-name-{f:05}.md"))
        .collect();
    assert_eq!(union(&pages), expected);
    // After the last entry: nothing follows.
    let text = fs_text(
        &mut server,
        "fs_list",
        json!({"path": "flat", "after": "flat/entry-with-a-long-name-02499.md"}),
    );
    assert_eq!(text, "(no entries after it)");
    // Tree order at the root: a directory's place is its name's.
    let text = fs_text(&mut server, "fs_list", json!({"after": "a"}));
    assert_eq!(entries(&text)[..2], ["a-b.txt", "a.txt"]);
}

#[test]
fn glob_pages_hold_every_file_once_as_ripgrep_lists_them() {
    let tree = paged_tree();
    let mut server = fs_server_with(&tree, &[]);
    let pages = all_pages(&mut server, "fs_glob", json!({"pattern": "*"}));
    assert!(pages.len() >= 5, "{} pages", pages.len());
    let listed = union(&pages);
    assert_eq!(listed.len(), 12 * 200 + 2500 + 4);
    // In tree order across pages.
    let mut sorted = listed.clone();
    sorted.sort_by(|a, b| fsmcp::root::compare_tree_order(a, b));
    assert_eq!(listed, sorted);
    if ripgrep_installed() {
        let output = rg()
            .current_dir(tree.path())
            .args(["--files", "--hidden", "--no-ignore"])
            .output()
            .expect("rg");
        let expected: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(listed.into_iter().collect::<BTreeSet<_>>(), expected);
    }
    // A page from below a path, and one after a path outside the scope's order.
    let pages = all_pages(
        &mut server,
        "fs_glob",
        json!({"pattern": "*.txt", "path": "dir-07", "after": "dir-07/a-rather-long-file-name-number-0150.txt"}),
    );
    assert_eq!(pages.len(), 1);
    assert_eq!(union(&pages).len(), 49);
}

/// `(path, line)` of each matching line `rg -n` reports under `root`.
fn ripgrep_lines(root: &std::path::Path, pattern: &str) -> BTreeSet<(String, u64)> {
    let output = rg()
        .current_dir(root)
        .args(["--no-ignore", "--hidden", "-n", "-e", pattern])
        .output()
        .expect("rg");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let (path, rest) = line.split_once(":needle").map_or_else(
                || panic!("{line}"),
                |(head, _)| head.rsplit_once(':').expect("path:N"),
            );
            let _ = rest;
            (path.to_owned(), rest.parse().expect("line number"))
        })
        .collect()
}

#[test]
fn grep_pages_hold_every_match_once_as_ripgrep_finds_them() {
    if !ripgrep_installed() {
        return;
    }
    let tree = paged_tree();
    let mut server = fs_server_with(&tree, &[]);
    // Pages cut by max-results, within files as well as between them.
    for (max_results, context) in [(25, 0), (50, 1), (1000, 0)] {
        let pages = all_pages(
            &mut server,
            "fs_grep",
            json!({"pattern": "needle", "max-results": max_results, "context": context}),
        );
        let mut found = BTreeSet::new();
        for page in &pages {
            for line in entries(page) {
                // Context lines (`path-N-text`) repeat across pages; matches must not.
                if let Some((head, _)) = line.split_once(":needle") {
                    let (path, number) = head.rsplit_once(':').expect("path:N");
                    let key = (
                        path.trim_matches('"').to_owned(),
                        number.parse().expect("N"),
                    );
                    assert!(found.insert(key), "{line:?} on two pages");
                }
            }
        }
        let expected = ripgrep_lines(tree.path(), "needle");
        assert_eq!(expected.len(), 12 * 67 * 2 + 3 + 2);
        assert_eq!(found, expected, "max-results {max_results}");
        if max_results == 25 {
            assert_eq!(pages.len(), expected.len().div_ceil(25));
        }
    }
    // Files and counts page by file, as rg -l and rg -c list them.
    let pages = all_pages(
        &mut server,
        "fs_grep",
        json!({"pattern": "needle", "output": "count", "max-results": 100}),
    );
    let counts: BTreeSet<String> = union(&pages).into_iter().collect();
    let output = rg()
        .current_dir(tree.path())
        .args(["--no-ignore", "--hidden", "-c", "-e", "needle"])
        .output()
        .expect("rg");
    let expected: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(counts, expected);
    // The notice names the position: the last match shown.
    let text = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "needle", "path": "odd:12.txt", "max-results": 1}),
    );
    assert_eq!(
        text,
        "odd:12.txt:1:needle\n\n[stopped at 1 matching lines; continue with \"after\": \"odd:12.txt:1\", or raise max-results to see more]"
    );
    let text = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "needle", "path": "odd:12.txt", "after": "odd:12.txt:1"}),
    );
    assert_eq!(text, "odd:12.txt:2:needle");
    // A file named as a whole: the page starts at the next one.
    let text = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "needle", "glob": "{a-b.txt,a.txt}", "after": "a-b.txt"}),
    );
    assert_eq!(text, "a.txt:1:needle in a.txt");
}

#[test]
fn an_after_outside_the_root_is_refused() {
    let tree = Tree::new().file("a.txt", "x\n");
    let mut server = fs_server_with(&tree, &[]);
    for (tool, mut args) in [
        ("fs_list", json!({})),
        ("fs_glob", json!({"pattern": "x"})),
        ("fs_grep", json!({"pattern": "x"})),
    ] {
        args["after"] = json!("/definitely/not/here");
        let message = fs_error(&mut server, tool, args);
        assert!(
            message.contains("is outside this root"),
            "{tool}: {message}"
        );
    }
}

/// A cut answer keeps room for the `after` its notice names, however long the path: deep
/// paths of CJK names (about 3 KB each) page within the result limit, every entry once.
/// Before, the notice was added after the lines had taken the budget, and a page could pass
/// the limit by the length of its last path.
#[test]
fn pages_of_long_paths_stay_within_the_result_limit() {
    let name = |n: usize| format!("{n:02}{}", "語".repeat(80));
    let deep: String = (0..11).map(name).collect::<Vec<_>>().join("/");
    let mut tree = Tree::new();
    for f in 0..250 {
        tree = tree.file(&format!("{deep}/{f:03}{}.txt", "文".repeat(66)), "x\n");
    }
    let mut server = fs_server_with(&tree, &[]);
    let files: Vec<String> = (0..250)
        .map(|f| format!("{deep}/{f:03}{}.txt", "文".repeat(66)))
        .collect();
    let pages = all_pages(&mut server, "fs_glob", json!({"pattern": "**"}));
    assert!(pages.len() > 10, "{} pages", pages.len());
    assert_eq!(union(&pages), files);
    let pages = all_pages(&mut server, "fs_grep", json!({"pattern": "x"}));
    let lines: Vec<String> = files.iter().map(|f| format!("{f}:1:x")).collect();
    assert_eq!(union(&pages), lines);
    let pages = all_pages(&mut server, "fs_list", json!({"path": deep}));
    assert!(pages.len() >= 2, "{} pages", pages.len());
    let names: Vec<String> = (0..250)
        .map(|f| format!("{f:03}{}.txt", "文".repeat(66)))
        .collect();
    assert_eq!(union(&pages), names);
}

/// The path and line number of a `path:N:text` line.
fn path_and_line(line: &str) -> (String, u64) {
    let (path, rest) = line.split_once(':').expect("path:N:text");
    let (number, _) = rest.split_once(':').expect("N:text");
    (path.to_owned(), number.parse().expect("N"))
}

/// A multiline match goes onto a page whole: the next page starts after the match's first
/// line, so a page ending inside a match would lose its other lines. Pages cut by the result
/// limit hold every line `rg -U -n` prints, each once.
#[test]
fn a_page_never_ends_inside_a_multiline_match() {
    if !ripgrep_installed() {
        return;
    }
    let filler = "f".repeat(900);
    let mut tree = Tree::new();
    for n in 0..40 {
        let body: String = (0..6)
            .map(|m| format!("begin {n} {m} {filler}\nmid {filler}\nend {filler}\nother\n"))
            .collect();
        tree = tree.file(&format!("m{n:02}.txt"), body);
    }
    let mut server = fs_server_with(&tree, &[]);
    let pattern = r"begin[^\n]*\nmid[^\n]*\nend";
    let pages = all_pages(
        &mut server,
        "fs_grep",
        json!({"pattern": pattern, "regex": true, "multiline": true, "max-results": 1000}),
    );
    assert!(pages.len() > 5, "{} pages", pages.len());
    let found: Vec<(String, u64)> = union(&pages).iter().map(|l| path_and_line(l)).collect();
    let output = rg()
        .current_dir(tree.path())
        .args([
            "--no-ignore",
            "--hidden",
            "-U",
            "-n",
            "--sort",
            "path",
            "-e",
            pattern,
        ])
        .output()
        .expect("rg");
    let expected: Vec<(String, u64)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(path_and_line)
        .collect();
    assert_eq!(expected.len(), 40 * 6 * 3);
    assert_eq!(found, expected);
}

/// Short paths then long ones (about 3 KB each, CJK names 11 levels deep), the long ones
/// matching `*.txt` but for the first five (`.md`): a tree where a page can end anywhere
/// near its limit just before a long path.
fn short_then_long_tree() -> (Tree, String) {
    let deep: String = (0..11)
        .map(|n| format!("{n:02}{}", "語".repeat(80)))
        .collect::<Vec<_>>()
        .join("/");
    let deep = format!("b/{deep}");
    let mut tree = Tree::new();
    for n in 0..3600 {
        tree = tree.file(&format!("a/{n:05}.txt"), "x\n");
    }
    for f in 0..25 {
        let ext = if f < 5 { "md" } else { "txt" };
        tree = tree.file(&format!("{deep}/{f:03}{}.{ext}", "文".repeat(66)), "x\n");
    }
    (tree, deep)
}

/// Whatever the page's start, a page that ends just before a long path keeps room for the
/// notice naming it: pages starting at every fourth short path (so the long path falls at
/// every place near the end of the answer) each stay within the result limit, for `glob`,
/// for `grep`, and for a `glob` stopped by `--max-files` just past a long path it walked
/// without showing.
#[test]
fn a_page_ending_at_a_long_path_stays_within_the_limit_wherever_it_starts() {
    let (tree, _) = short_then_long_tree();
    let mut server = fs_server_with(&tree, &[]);
    let mut ceiling = fs_server_with(&tree, &["--max-files", "3603"]);
    // Where the long path falls near the end of the answer: a short path's line takes 13
    // bytes in a glob, 17 in a grep (`a/NNNNN.txt:1:x`), and the answer about 45,700.
    let mut largest = 0;
    for (with_ceiling, tool, starts) in [
        (false, "fs_glob", 280..600),
        (true, "fs_glob", 60..600),
        (false, "fs_grep", 1060..1300),
    ] {
        for k in starts.step_by(4) {
            let at = format!("a/{k:05}.txt");
            let args = match tool {
                "fs_grep" => json!({"pattern": "x", "after": format!("{at}:1")}),
                _ if with_ceiling => json!({"pattern": "**/*.txt", "after": at}),
                _ => json!({"pattern": "**", "after": at}),
            };
            let server = if with_ceiling {
                &mut ceiling
            } else {
                &mut server
            };
            let result = server.call_result(tool, args.clone());
            assert_ne!(result.get("isError"), Some(&json!(true)), "{tool} {args}");
            let size = serde_json::to_string(&result).expect("JSON").len();
            assert!(size <= 48_000, "{tool} {args}: {size} bytes");
            largest = largest.max(size);
        }
    }
    // The sweep reached pages near the limit.
    assert!(largest > 46_000, "the largest page was {largest} bytes");
}

/// A multiline match longer than a page, after context lines: the page shows the match in
/// part and names a position, so the pages still reach what follows (before, context lines
/// counted as something shown, the match was held back, and the page named no position).
#[test]
fn a_match_longer_than_a_page_after_context_still_leads_on() {
    let long: String = (0..100).map(|_| "x".repeat(1000) + "\n").collect();
    let tree = Tree::new()
        .file("f1.txt", format!("ctx\nbegin\n{long}end\n"))
        .file("f2.txt", "begin\nend\n");
    let mut server = fs_server_with(&tree, &[]);
    let pages = all_pages(
        &mut server,
        "fs_grep",
        json!({"pattern": r"begin[\s\S]*?end", "regex": true, "multiline": true, "context": 1}),
    );
    assert!(pages.len() >= 2, "{} pages", pages.len());
    assert!(pages[0].starts_with("f1.txt-1-ctx\nf1.txt:2:begin\nf1.txt:3:xxx"));
    let lines = union(&pages);
    assert!(
        lines.ends_with(&["f2.txt:1:begin".to_owned(), "f2.txt:2:end".to_owned()]),
        "{:?}",
        &lines[lines.len().saturating_sub(3)..]
    );
}
