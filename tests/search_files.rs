//! `search_files`: sorted served paths containing a literal substring (or any of several).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::*;

fn tree() -> Tree {
    Tree::new()
        .file("lib/alpha.ex", "")
        .file("lib/beta.ex", "")
        .file("lib/nested/target.txt", "")
        .file("notes.txt", "")
        .file("README.MD", "")
}

#[test]
fn a_query_finds_every_served_path_containing_it_sorted() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    assert_eq!(server.find(".ex"), ["lib/alpha.ex", "lib/beta.ex"]);
    assert_eq!(
        server.find("lib/"),
        ["lib/alpha.ex", "lib/beta.ex", "lib/nested/target.txt"]
    );
    assert_eq!(server.find("target"), ["lib/nested/target.txt"]);
}

#[test]
fn items_are_paths_and_the_hash_covers_them() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    let page = server.call("search_files", json!({"query": ".ex"}));
    assert_eq!(
        page["items"],
        json!([{"path": "lib/alpha.ex"}, {"path": "lib/beta.ex"}])
    );
    assert_eq!(
        page["content_hash"],
        content_hash("lib/alpha.ex\nlib/beta.ex\n")
    );
    assert_eq!(page["next_cursor"], serde_json::Value::Null);
}

#[test]
fn directories_are_never_items() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    assert_eq!(server.find("nested"), ["lib/nested/target.txt"]);
    assert!(server.find("lib").iter().all(|p| p != "lib"));
}

#[test]
fn the_query_is_literal_not_a_pattern() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("abtxt", "")
        .file("x|y.md", "")
        .file("star*.md", "");
    let mut server = Server::serving(&tree);
    assert_eq!(server.find("a.t"), ["a.txt"]);
    assert_eq!(server.find("*"), ["star*.md"]);
    assert_eq!(server.find("x|y"), ["x|y.md"]);
    assert!(server.find(".*").is_empty());
}

#[test]
fn matching_is_case_sensitive_by_default() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    assert!(server.find("readme").is_empty());
    assert_eq!(server.find("README"), ["README.MD"]);
}

#[test]
fn case_insensitive_folds_ascii_letters_only() {
    let tree = Tree::new().file("README.MD", "").file("CAFÉ.txt", "");
    let mut server = Server::serving(&tree);
    let found = |server: &mut Server, query: &str| {
        server.collect(
            "search_files",
            json!({"query": query, "case_insensitive": true}),
        )
    };
    assert_eq!(
        found(&mut server, "readme.md"),
        [json!({"path": "README.MD"})]
    );
    assert_eq!(found(&mut server, "cafÉ"), [json!({"path": "CAFÉ.txt"})]);
    assert!(found(&mut server, "café").is_empty());
}

#[test]
fn any_of_finds_paths_matching_any_term_once_each() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    let items = server.collect(
        "search_files",
        json!({"any_of": ["alpha", "notes", "lib/alpha", "zzz"]}),
    );
    assert_eq!(
        items,
        [
            json!({"path": "lib/alpha.ex"}),
            json!({"path": "notes.txt"})
        ]
    );
}

#[test]
fn paths_sort_as_whole_strings() {
    let tree = Tree::new()
        .file("a/b", "")
        .file("a-b/x", "")
        .file("a.c", "");
    let mut server = Server::serving(&tree);
    assert_eq!(server.find("a"), ["a-b/x", "a.c", "a/b"]);
}

#[test]
fn only_served_regular_files_are_found() {
    let tree = Tree::new()
        .file("lib/keep.txt", "")
        .file("lib/private/secret.txt", "")
        .file("docs/keep.txt", "")
        .file("lib/big.txt", "0123456789")
        .file("real/keep.txt", "")
        .symlink("lib/link.txt", "keep.txt")
        .symlink("lib/linkdir", "../real")
        .fifo("lib/pipe.txt");
    let mut server = Server::start(
        tree.path(),
        &[
            "--include",
            "lib/**",
            "--exclude",
            "lib/private/**",
            "--max-file-bytes",
            "5",
        ],
    );
    assert_eq!(server.find(".txt"), ["lib/keep.txt"]);
}

#[test]
fn a_file_of_exactly_max_file_bytes_is_served() {
    let tree = Tree::new()
        .file("five.txt", "12345")
        .file("six.txt", "123456");
    let mut server = Server::start(tree.path(), &["--include", "**", "--max-file-bytes", "5"]);
    assert_eq!(server.find(".txt"), ["five.txt"]);
}

#[test]
fn limit_pages_the_paths_and_pages_rejoin_to_the_whole() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    let pages = server.pages("search_files", json!({"query": ".", "limit": 2}));
    let sizes: Vec<usize> = pages
        .iter()
        .map(|p| p["items"].as_array().expect("items").len())
        .collect();
    assert_eq!(sizes, [2, 2, 1]);
    for page in &pages {
        assert_eq!(
            page["content_hash"],
            items_hash("search_files", page["items"].as_array().expect("items"))
        );
    }
    let all: Vec<_> = pages
        .iter()
        .flat_map(|p| p["items"].as_array().expect("items").clone())
        .collect();
    assert_eq!(
        json!(all),
        server.call("search_files", json!({"query": "."}))["items"]
    );
}

#[test]
fn the_default_page_is_two_hundred_paths() {
    let mut tree = Tree::new();
    for i in 0..201 {
        tree = tree.file(&format!("d/f{i:03}.txt"), "");
    }
    let mut server = Server::serving(&tree);
    let page = server.call("search_files", json!({"query": "f"}));
    assert_eq!(page["items"].as_array().expect("items").len(), 200);
    assert!(page["next_cursor"].is_string());
    assert_eq!(server.find("f").len(), 201);
}

#[test]
fn no_match_is_an_empty_final_page() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.call("search_files", json!({"query": "nothing-like-this"})),
        json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH})
    );
}

#[test]
fn term_errors() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    refuses_each(&mut server, "search_files", &term_refusals());
}

#[test]
fn a_query_of_exactly_256_bytes_is_accepted() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    for query in ["x".repeat(256), "é".repeat(128)] {
        let page = server.call("search_files", json!({"query": query}));
        assert_eq!(page["items"], json!([]));
    }
}

#[test]
fn a_written_file_is_found_by_the_next_search() {
    let tree = tree();
    let mut server = Server::serving(&tree);
    server.call(
        "write_text_file",
        json!({"path": "fresh.txt", "content": ""}),
    );
    assert_eq!(server.find("fresh"), ["fresh.txt"]);
}

#[test]
fn paths_sort_by_utf16_code_units() {
    let tree = Tree::new()
        .file("d/\u{ff01}.txt", "")
        .file("d/\u{1f600}.txt", "")
        .file("d\u{ff01}/a.txt", "")
        .file("d\u{1f600}/a.txt", "");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.find(".txt"),
        [
            "d/\u{1f600}.txt",
            "d/\u{ff01}.txt",
            "d\u{1f600}/a.txt",
            "d\u{ff01}/a.txt"
        ]
    );
}
