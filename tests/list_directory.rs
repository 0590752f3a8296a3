//! `list_directory`: one sorted level under a prefix, directories only when they serve something.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::*;

fn entry(name: &str, kind: &str, path: &str) -> serde_json::Value {
    json!({"name": name, "kind": kind, "path": path})
}

#[test]
fn the_root_lists_files_and_directories_with_kind_and_path() {
    let tree = Tree::new()
        .file("notes.txt", "n\n")
        .file("lib/alpha.ex", "a\n");
    let mut server = Server::serving(&tree);
    let page = server.call("list_directory", json!({}));
    assert_eq!(
        page["items"],
        json!([
            entry("lib", "directory", "lib"),
            entry("notes.txt", "file", "notes.txt")
        ])
    );
    assert_eq!(page["next_cursor"], serde_json::Value::Null);
}

#[test]
fn the_content_hash_covers_kind_and_path_of_each_entry() {
    let tree = Tree::new()
        .file("notes.txt", "n\n")
        .file("lib/alpha.ex", "a\n");
    let mut server = Server::serving(&tree);
    let page = server.call("list_directory", json!({}));
    let hash = page["content_hash"].as_str().expect("hash");
    assert_eq!(hash, content_hash("directory\0lib\nfile\0notes.txt\n"));
    assert!(hash.starts_with("sha256:a7eece68") && hash.ends_with("31ec98"));
}

#[test]
fn a_prefix_lists_its_children_with_full_paths() {
    let tree = Tree::new()
        .file("lib/beta.ex", "b")
        .file("lib/alpha.ex", "a")
        .file("lib/nested/deep.ex", "d");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.call("list_directory", json!({"path": "lib"}))["items"],
        json!([
            entry("alpha.ex", "file", "lib/alpha.ex"),
            entry("beta.ex", "file", "lib/beta.ex"),
            entry("nested", "directory", "lib/nested")
        ])
    );
}

#[test]
fn equivalent_spellings_of_a_prefix_list_the_same_level() {
    let tree = Tree::new().file("lib/nested/a.txt", "a").file("b.txt", "b");
    let mut server = Server::serving(&tree);
    let root = server.call("list_directory", json!({}));
    for spelling in ["", "."] {
        assert_eq!(
            server.call("list_directory", json!({"path": spelling})),
            root,
            "{spelling:?}"
        );
    }
    let nested = server.call("list_directory", json!({"path": "lib/nested"}));
    for spelling in ["lib/nested/", "lib//nested", "lib/nested//"] {
        assert_eq!(
            server.call("list_directory", json!({"path": spelling})),
            nested,
            "{spelling:?}"
        );
    }
}

#[test]
fn directories_that_serve_nothing_are_not_listed() {
    let tree = Tree::new()
        .dir("empty")
        .file("only_excluded/node_modules/x.js", "x")
        .file("only_pem/key.pem", "k")
        .file("deeply/nested/real.txt", "r")
        .dir("only_empty_dirs/inner/innermost")
        .symlink("only_links/link.txt", "../kept.txt")
        .file("kept.txt", "k");
    let mut server = Server::serving(&tree);
    assert_eq!(server.names(""), ["deeply", "kept.txt"]);
}

#[test]
fn directories_holding_only_unselected_files_are_not_listed() {
    let tree = Tree::new().file("docs/guide.md", "g").file("lib/a.ts", "a");
    let mut server = Server::start(tree.path(), &["--include", "lib/**"]);
    assert_eq!(server.names(""), ["lib"]);
}

#[test]
fn unselected_excluded_oversized_and_special_files_are_not_listed() {
    let tree = Tree::new()
        .file("a.txt", "small")
        .file("big.txt", "0123456789")
        .file("hidden.log", "h")
        .file("skip.md", "s")
        .symlink("link.txt", "a.txt")
        .fifo("pipe.txt");
    let mut server = Server::start(
        tree.path(),
        &[
            "--include",
            "*.txt",
            "--include",
            "*.log",
            "--exclude",
            "*.log",
            "--max-file-bytes",
            "5",
        ],
    );
    assert_eq!(server.names(""), ["a.txt"]);
}

#[test]
fn a_prefix_that_is_not_a_directory_lists_nothing() {
    let tree = Tree::new()
        .file("file.txt", "f")
        .file("real/x.txt", "x")
        .symlink("linked", "real");
    let mut server = Server::serving(&tree);
    for prefix in ["missing", "file.txt", "linked", "missing/deeper"] {
        let page = server.call("list_directory", json!({"path": prefix}));
        assert_eq!(page["items"], json!([]), "{prefix}");
        assert_eq!(page["next_cursor"], serde_json::Value::Null);
        assert_eq!(page["content_hash"], EMPTY_HASH);
    }
}

#[test]
fn an_empty_root_lists_nothing() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let page = server.call("list_directory", json!({}));
    assert_eq!(
        page,
        json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH})
    );
}

#[test]
fn names_sort_by_code_unit_not_by_kind() {
    let tree = Tree::new()
        .file("b.txt", "")
        .file("B.txt", "")
        .file("_x.txt", "")
        .file("a/inner.txt", "")
        .file("a-b.txt", "")
        .file("é.txt", "");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.names(""),
        ["B.txt", "_x.txt", "a", "a-b.txt", "b.txt", "é.txt"]
    );
}

#[test]
fn limit_pages_the_listing_and_pages_rejoin_to_the_whole() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("b.txt", "")
        .file("c.txt", "")
        .file("d/e.txt", "");
    let mut server = Server::serving(&tree);
    let first = server.call("list_directory", json!({"limit": 3}));
    assert_eq!(first["items"].as_array().expect("items").len(), 3);
    assert!(first["next_cursor"].is_string());
    assert_eq!(
        first["content_hash"],
        items_hash("list_directory", first["items"].as_array().expect("items"))
    );
    let pages = server.pages("list_directory", json!({"limit": 1}));
    assert_eq!(pages.len(), 4);
    let all: Vec<_> = pages.iter().map(|p| p["items"][0].clone()).collect();
    assert_eq!(
        json!(all),
        server.call("list_directory", json!({}))["items"]
    );
}

#[test]
fn the_default_page_is_two_hundred_entries_and_larger_limits_are_clamped() {
    let mut tree = Tree::new();
    for i in 0..250 {
        tree = tree.file(&format!("f{i:03}.txt"), "");
    }
    let mut server = Server::serving(&tree);
    for args in [json!({}), json!({"limit": 1_000_000})] {
        let page = server.call("list_directory", args.clone());
        assert_eq!(
            page["items"].as_array().expect("items").len(),
            200,
            "{args}"
        );
        assert!(page["next_cursor"].is_string());
    }
    assert_eq!(server.collect("list_directory", json!({})).len(), 250);
}

#[test]
fn identical_calls_give_identical_results() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("b/c.txt", "")
        .file("d.txt", "");
    let mut server = Server::serving(&tree);
    let once = server.call("list_directory", json!({"limit": 2}));
    let again = server.call("list_directory", json!({"limit": 2}));
    assert_eq!(once, again);
}

#[test]
fn a_write_shows_up_in_the_next_listing() {
    let tree = Tree::new().file("a.txt", "");
    let mut server = Server::serving(&tree);
    server.call("write_text_file", json!({"path": "b.txt", "content": "b"}));
    assert_eq!(server.names(""), ["a.txt", "b.txt"]);
}

#[test]
fn names_sort_by_utf16_code_units() {
    // U+1F600 is a surrogate pair (D83D DE00) and sorts before U+FF01, unlike in UTF-8.
    let tree = Tree::new()
        .file("\u{ff01}.txt", "")
        .file("\u{1f600}.txt", "")
        .file("z.txt", "");
    let mut server = Server::serving(&tree);
    assert_eq!(server.names(""), ["z.txt", "\u{1f600}.txt", "\u{ff01}.txt"]);
}
