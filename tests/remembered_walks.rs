#![allow(clippy::disallowed_methods)]
//! Remembered walks over the real binary: a walk is reused while nothing changes, and every
//! kind of change between two pages — in place, through a hard link from outside the root, to
//! attributes only, by renaming a directory above the files, deep in the tree — is seen by the
//! next page exactly as a fresh walk would see it. A random sequence of changes keeps a
//! long-lived server's answers equal to a fresh server's.

mod support;

use serde_json::{Value, json};
use support::*;

const STALE: &str =
    "the filesystem changed since this cursor was issued; start the traversal again";

fn continued(server: &mut Server, tool: &str, args: &Value, cursor: &str) -> Result<(), String> {
    let result = server.call_result(tool, with_cursor(args, cursor));
    if result.get("isError") == Some(&json!(true)) {
        Err(result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned())
    } else {
        Ok(())
    }
}

fn tree() -> Tree {
    Tree::new()
        .file("lib/a.txt", "needle a\n")
        .file("lib/b.txt", "needle b\n")
        .file("lib/deep/er/c.txt", "needle c\n")
        .file("top.txt", "needle top\n")
}

/// Takes a search_text cursor over `lib`, applies `change`, and returns what the next page says.
fn after_change(tree: &Tree, change: impl FnOnce(&Tree)) -> Result<(), String> {
    let mut server = Server::serving(tree);
    let args = json!({"query": "needle", "path": "lib", "limit": 1});
    // Twice: the second walk is a reused one, so the change must invalidate it.
    next_cursor(&mut server, "search_text", args.clone());
    let cursor = next_cursor(&mut server, "search_text", args.clone());
    change(tree);
    continued(&mut server, "search_text", &args, &cursor)
}

/// A change to a tree, by name.
type Change = Box<dyn Fn(&Tree)>;

#[test]
fn every_kind_of_change_between_pages_is_seen() {
    let outside = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Change)> = vec![
        (
            "in-place write",
            Box::new(|t: &Tree| t.put("lib/b.txt", "needle B\n")),
        ),
        (
            "attributes only",
            Box::new(|t: &Tree| t.chmod("lib/b.txt", 0o600)),
        ),
        (
            "new file deep down",
            Box::new(|t: &Tree| t.put("lib/deep/er/new.txt", "x\n")),
        ),
        (
            "directory renamed away and back",
            Box::new(|t: &Tree| {
                std::fs::rename(t.join("lib/deep"), t.join("lib/gone")).unwrap();
                std::fs::create_dir_all(t.join("lib/deep/er")).unwrap();
                std::fs::write(t.join("lib/deep/er/c.txt"), "needle c\n").unwrap();
            }),
        ),
        (
            "a directory above the scope replaced",
            Box::new(|t: &Tree| {
                std::fs::rename(t.join("lib"), t.join("old")).unwrap();
                std::fs::create_dir_all(t.join("lib/deep/er")).unwrap();
                for name in ["a", "b", "deep/er/c"] {
                    std::fs::copy(
                        t.join(&format!("old/{name}.txt")),
                        t.join(&format!("lib/{name}.txt")),
                    )
                    .unwrap();
                }
            }),
        ),
    ];
    for (what, change) in &cases {
        let tree = tree();
        assert_eq!(after_change(&tree, change), Err(STALE.to_owned()), "{what}");
    }
    // A write through a hard link that lives outside the root.
    let linked = tree();
    let link = outside.path().join("alias");
    std::fs::hard_link(linked.join("lib/a.txt"), &link).unwrap();
    let result = after_change(&linked, |_| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&link)
            .unwrap();
        file.write_all(b"more\n").unwrap();
    });
    assert_eq!(
        result,
        Err(STALE.to_owned()),
        "write through an outside link"
    );
    // Outside the scope, nothing is bound.
    let other = tree();
    assert_eq!(
        after_change(&other, |t| t.put("top.txt", "other\n")),
        Ok(())
    );
}

#[test]
fn a_walk_is_reused_until_something_changes() {
    let tree = tree();
    let mut server = Server::start(tree.path(), &["--include", "**", "--log-level", "trace"]);
    let args = json!({"query": "txt"});
    let first = server.call("search_files", args.clone());
    assert_eq!(server.call("search_files", args.clone()), first);
    tree.put("lib/new.txt", "");
    let after = server.call("search_files", args.clone());
    assert_eq!(after["items"].as_array().unwrap().len(), 5, "{after}");
    let (_, log) = server.close();
    let reused = log.lines().filter(|l| l.contains("walk reused")).count();
    if walks_are_remembered("the second call reuses the walk") {
        assert_eq!(reused, 1, "only the second call reuses a walk: {log}");
    } else {
        assert_eq!(reused, 0, "no walk is reused without a watcher: {log}");
    }
}

/// A small deterministic generator (no dependency on a random crate's stream stability).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn a_long_lived_server_answers_like_a_fresh_one() {
    let tree = Tree::new().file("d0/f0.txt", "needle\n");
    let mut lasting = Server::serving(&tree);
    let mut rng = Lcg(20261202);
    let dirs = ["d0", "d1", "d0/s", "d1/s/t", "d2"];
    let queries = [
        ("search_files", json!({"query": "f"})),
        ("search_text", json!({"query": "needle"})),
        ("list_directory", json!({"path": "d0"})),
        ("list_directory", json!({"path": ""})),
    ];
    for step in 0..120 {
        let dir = dirs[rng.below(dirs.len() as u64) as usize];
        let name = format!("{dir}/f{}.txt", rng.below(4));
        match rng.below(6) {
            0 | 1 => tree.put(
                &name,
                if rng.below(2) == 0 {
                    "needle\n"
                } else {
                    "hay\n"
                },
            ),
            2 => {
                let _ = std::fs::remove_file(tree.join(&name));
            }
            3 => {
                let other = format!("{}/f{}.txt", dirs[rng.below(5) as usize], rng.below(4));
                if let Some(parent) = tree.join(&other).parent() {
                    std::fs::create_dir_all(parent).unwrap();
                }
                let _ = std::fs::rename(tree.join(&name), tree.join(&other));
            }
            4 => {
                let _ = std::fs::remove_dir_all(tree.join(dir));
            }
            _ => {
                // Only reads: the remembered walk must be reused and still right.
            }
        }
        let (tool, args) = &queries[step % queries.len()];
        let fresh = Server::serving(&tree).collect(tool, args.clone());
        // Asked twice: once possibly walking, once possibly reusing.
        for _ in 0..2 {
            assert_eq!(
                lasting.collect(tool, args.clone()),
                fresh,
                "step {step}: {tool} {args}"
            );
        }
    }
}

/// A page that ends on its scan budget has the pool judge the files the next page will reach.
/// Those verdicts belong to the walk: a file changed after it was judged clean is not skipped
/// on its old verdict, the next page fails like any stale cursor, and a new traversal finds the
/// change.
#[test]
fn files_judged_ahead_of_a_page_do_not_outlive_a_change() {
    let hay = "hay and more hay\n".repeat(120); // ~2 KB per file, no needle
    let mut tree = Tree::new();
    for i in 0..30 {
        tree = tree.file(&format!("lib/f{i:02}.txt"), &hay);
    }
    tree = tree.file("lib/f30.txt", "needle at the end\n");
    let args = json!({"query": "needle"});
    let flags = [
        "--include",
        "**",
        "--max-scan-bytes",
        "16384",
        "--log-level",
        "trace",
    ];

    // Unchanged: pages resume on the verdicts judged ahead and find what a fresh scan finds.
    let mut server = Server::start(tree.path(), &flags);
    let found = server.collect("search_text", args.clone());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["path"], "lib/f30.txt");
    let (_, log) = server.close();
    if walks_are_remembered("pages judge the next page's files ahead") {
        assert!(log.contains("judging ahead"), "no page judged ahead: {log}");
    }

    // Changed after being judged: the next page is stale, and a new traversal sees the change.
    let mut server = Server::start(tree.path(), &flags);
    let cursor = next_cursor(&mut server, "search_text", args.clone());
    std::thread::sleep(std::time::Duration::from_millis(200)); // the judging ahead has run
    tree.put("lib/f09.txt", format!("{hay}needle planted\n"));
    assert_eq!(
        continued(&mut server, "search_text", &args, &cursor),
        Err(STALE.to_owned())
    );
    let found = server.collect("search_text", args.clone());
    let paths: Vec<&str> = found.iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["lib/f09.txt", "lib/f30.txt"]);

    // Walks that follow links are never kept, so nothing is judged for a next page that would
    // walk again; the answer is the same.
    let mut server = Server::start(tree.path(), &[&flags[..], &["--follow-symlinks"]].concat());
    assert_eq!(server.collect("search_text", args.clone()), found);
    let (_, log) = server.close();
    assert!(
        !log.contains("judging ahead"),
        "judged for a walk not kept: {log}"
    );
}
