//! `read_text_file`: exact UTF-8 chunks of live bytes, paged, optionally from a line.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::*;

fn read_one(content: impl AsRef<[u8]>, args: &[&str]) -> (Tree, Server) {
    let tree = Tree::new().file("f.txt", content);
    let mut flags = vec!["--include", "**"];
    flags.extend_from_slice(args);
    let server = Server::start(tree.path(), &flags);
    (tree, server)
}

fn offsets_and_lengths(items: &[Value]) -> Vec<(u64, usize)> {
    items
        .iter()
        .map(|i| {
            (
                i["byte_offset"].as_u64().expect("offset"),
                i["text"].as_str().expect("text").len(),
            )
        })
        .collect()
}

#[test]
fn a_small_file_is_one_chunk_hashed_like_the_file() {
    let content = "alpha line one\nalpha line two\n";
    let (_tree, mut server) = read_one(content, &[]);
    assert_eq!(
        server.call("read_text_file", json!({"path": "f.txt"})),
        json!({"items": [{"byte_offset": 0, "text": content}], "next_cursor": null,
               "content_hash": content_hash(content)})
    );
}

#[test]
fn an_empty_file_is_an_empty_final_page() {
    let (_tree, mut server) = read_one("", &[]);
    assert_eq!(
        server.call("read_text_file", json!({"path": "f.txt"})),
        json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH})
    );
}

#[test]
fn chunks_hold_at_most_2048_bytes_at_absolute_offsets() {
    let content = format!("{}\n", "a".repeat(3000));
    let (_tree, mut server) = read_one(&content, &[]);
    let page = server.call("read_text_file", json!({"path": "f.txt"}));
    let items = page["items"].as_array().expect("items");
    assert_eq!(offsets_and_lengths(items), [(0, 2048), (2048, 953)]);
    assert_eq!(page["content_hash"], content_hash(&content));
}

#[test]
fn a_default_page_holds_eight_chunks_and_pages_rejoin_to_the_file() {
    let content: String = (0..4000).map(|i| format!("line {i:05}\n")).collect();
    let (_tree, mut server) = read_one(&content, &[]);
    let first = server.call("read_text_file", json!({"path": "f.txt"}));
    let items = first["items"].as_array().expect("items");
    assert_eq!(items.len(), 8);
    assert_eq!(items[7]["byte_offset"], 7 * 2048);
    assert!(first["next_cursor"].is_string());
    assert_eq!(first["content_hash"], items_hash("read_text_file", items));
    assert_eq!(server.read(json!({"path": "f.txt"})), content);
}

#[test]
fn limit_counts_chunks() {
    let content = "x".repeat(5000);
    let (_tree, mut server) = read_one(&content, &[]);
    let pages = server.pages("read_text_file", json!({"path": "f.txt", "limit": 1}));
    let chunks: Vec<Vec<(u64, usize)>> = pages
        .iter()
        .map(|p| offsets_and_lengths(p["items"].as_array().expect("items")))
        .collect();
    assert_eq!(
        chunks,
        [vec![(0, 2048)], vec![(2048, 2048)], vec![(4096, 904)]]
    );
}

#[test]
fn max_read_bytes_bounds_the_source_bytes_of_a_page() {
    for (flag, content, pages) in [
        (
            "4",
            "0123456789",
            vec![vec![(0, 4)], vec![(4, 4)], vec![(8, 2)]],
        ),
        (
            "3000",
            &*"y".repeat(7000),
            vec![
                vec![(0, 2048), (2048, 952)],
                vec![(3000, 2048), (5048, 952)],
                vec![(6000, 1000)],
            ],
        ),
    ] {
        let (_tree, mut server) = read_one(content, &["--max-read-bytes", flag]);
        let got: Vec<Vec<(u64, usize)>> = server
            .pages("read_text_file", json!({"path": "f.txt"}))
            .iter()
            .map(|p| offsets_and_lengths(p["items"].as_array().expect("items")))
            .collect();
        assert_eq!(got, pages, "--max-read-bytes {flag}");
    }
}

#[test]
fn no_chunk_splits_a_scalar() {
    for content in [
        format!("{}é{}", "a".repeat(2047), "b".repeat(10)),
        format!("{}😀{}", "a".repeat(2046), "b".repeat(10)),
        format!("{}€{}", "a".repeat(2047), "b".repeat(3000)),
    ] {
        let (_tree, mut server) = read_one(&content, &[]);
        let items = server.collect("read_text_file", json!({"path": "f.txt", "limit": 1}));
        let text: String = items
            .iter()
            .map(|i| i["text"].as_str().expect("text"))
            .collect();
        assert_eq!(text, content);
        assert!(!text.contains('\u{fffd}'));
    }
}

#[test]
fn a_leading_bom_is_kept() {
    let (_tree, mut server) = read_one("\u{feff}hello\n", &[]);
    assert_eq!(server.read(json!({"path": "f.txt"})), "\u{feff}hello\n");
}

#[test]
fn invalid_utf8_is_refused() {
    for content in [
        b"\xff\xfeabc".to_vec(),
        b"abc\xc3".to_vec(),
        b"ok\n\xe2\x82".to_vec(),
    ] {
        let (_tree, mut server) = read_one(&content, &[]);
        assert_eq!(
            server.call_error("read_text_file", json!({"path": "f.txt"})),
            "file is not valid UTF-8",
            "{content:?}"
        );
    }
}

#[test]
fn an_invalid_chunk_after_valid_ones_ends_the_page_and_fails_the_next() {
    let mut content = "a".repeat(5000).into_bytes();
    content.push(0xff);
    content.extend("b".repeat(3000).into_bytes());
    let (_tree, mut server) = read_one(&content, &[]);
    let first = server.call("read_text_file", json!({"path": "f.txt"}));
    assert_eq!(
        offsets_and_lengths(first["items"].as_array().expect("items")),
        [(0, 2048), (2048, 2048)]
    );
    let cursor = first["next_cursor"].as_str().expect("cursor").to_owned();
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "f.txt", "cursor": cursor})),
        "file is not valid UTF-8"
    );
}

#[test]
fn start_line_begins_at_that_line_with_absolute_offsets() {
    let (_tree, mut server) = read_one("one\ntwo\nthree\n", &[]);
    let page = server.call("read_text_file", json!({"path": "f.txt", "start_line": 2}));
    assert_eq!(
        page["items"],
        json!([{"byte_offset": 4, "text": "two\nthree\n"}])
    );
    assert_eq!(page["content_hash"], content_hash("two\nthree\n"));
    assert_eq!(
        server.read(json!({"path": "f.txt", "start_line": 1})),
        "one\ntwo\nthree\n"
    );
}

#[test]
fn start_line_past_the_last_line_is_an_empty_final_page() {
    for (content, line) in [("one\ntwo\n", 3), ("one\ntwo\n", 50), ("one\ntwo", 3)] {
        let (_tree, mut server) = read_one(content, &[]);
        assert_eq!(
            server.call(
                "read_text_file",
                json!({"path": "f.txt", "start_line": line})
            ),
            json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH}),
            "{content:?} from line {line}"
        );
    }
}

#[test]
fn start_line_counts_newlines_only() {
    let (_tree, mut server) = read_one("a\rb\rc\r", &[]);
    assert_eq!(
        server.call("read_text_file", json!({"path": "f.txt", "start_line": 2}))["items"],
        json!([])
    );
}

#[test]
fn bytes_before_start_line_are_never_decoded() {
    let (_tree, mut server) = read_one(b"\xff\xfe\nfine\n", &[]);
    assert_eq!(
        server.read(json!({"path": "f.txt", "start_line": 2})),
        "fine\n"
    );
}

#[test]
fn start_line_pages_continue_from_the_cursor() {
    let content: String = (1..=3000).map(|i| format!("{i:07}\n")).collect();
    let (_tree, mut server) = read_one(&content, &[]);
    let from = content.find("0001001\n").expect("line 1001");
    assert_eq!(
        server.read(json!({"path": "f.txt", "start_line": 1001, "limit": 1})),
        content[from..]
    );
}

#[test]
fn start_line_must_be_found_within_the_scan_budget() {
    let just_inside = format!("{}\nsecond\n", "a".repeat(16383));
    let (_tree, mut server) = read_one(&just_inside, &["--max-scan-bytes", "16384"]);
    let page = server.call("read_text_file", json!({"path": "f.txt", "start_line": 2}));
    assert_eq!(page["items"][0]["byte_offset"], 16384);
    assert_eq!(page["items"][0]["text"], "second\n");

    let just_outside = format!("{}\nsecond\n", "a".repeat(16384));
    let (_tree, mut server) = read_one(&just_outside, &["--max-scan-bytes", "16384"]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "f.txt", "start_line": 2})),
        "start_line is further into the file than one page may scan"
    );
}

#[test]
fn the_root_is_not_a_file() {
    let (_tree, mut server) = read_one("x", &[]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "."})),
        "path must name a file"
    );
}

#[test]
fn what_cannot_be_opened_as_a_regular_file_is_refused() {
    let tree = Tree::new()
        .file("dir/inner.txt", "x")
        .file("real.txt", "x")
        .symlink("link.txt", "real.txt");
    let mut server = Server::serving(&tree);
    for path in ["missing.txt", "dir", "link.txt", "dir/missing.txt"] {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            "path is not a readable regular file",
            "{path}"
        );
    }
}

#[test]
fn a_fifo_is_refused_promptly() {
    let tree = Tree::new()
        .fifo("pipe.txt")
        .file("after.txt", "still here\n");
    let mut server = Server::serving(&tree);
    let started = Instant::now();
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "pipe.txt"})),
        "path is not a readable regular file"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(server.read(json!({"path": "after.txt"})), "still here\n");
}

#[test]
fn an_unreadable_file_is_refused() {
    let tree = Tree::new().file("locked.txt", "x");
    tree.chmod("locked.txt", 0o000);
    // Root bypasses permission bits: as root, the server runs as an unprivileged user.
    let Some(mut server) = unprivileged_server(&tree, &["--include", "**"]) else {
        return;
    };
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "locked.txt"})),
        "path is not a readable regular file"
    );
}

#[test]
fn a_file_over_max_file_bytes_is_refused() {
    let tree = Tree::new()
        .file("big.txt", "0123456789")
        .file("ok.txt", "01234");
    let mut server = Server::start(tree.path(), &["--include", "**", "--max-file-bytes", "5"]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "big.txt"})),
        "file exceeds the configured size limit"
    );
    assert_eq!(server.read(json!({"path": "ok.txt"})), "01234");
}

#[test]
fn unselected_and_unresolvable_paths_are_not_served() {
    let tree = Tree::new()
        .file("lib/a.txt", "a")
        .file("docs/b.txt", "b")
        .file("lib/file.txt", "f");
    let mut server = Server::start(tree.path(), &["--include", "lib/**"]);
    for path in ["docs/b.txt", "lib/missing/a.txt", "lib/file.txt/x.txt"] {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            "path is not served by this root",
            "{path}"
        );
    }
}

#[test]
fn an_excluded_path_is_refused_as_excluded() {
    let tree = Tree::new()
        .file("lib/secret.txt", "s")
        .file("lib/ok.txt", "o");
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--exclude", "lib/secret.txt"],
    );
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "lib/secret.txt"})),
        "path matches an --exclude pattern of this root"
    );
}

#[test]
fn a_write_is_seen_by_the_next_read() {
    let (_tree, mut server) = read_one("old\n", &[]);
    server.call(
        "write_text_file",
        json!({"path": "f.txt", "content": "new text\n"}),
    );
    assert_eq!(server.read(json!({"path": "f.txt"})), "new text\n");
}

#[test]
fn normalised_spellings_name_the_same_file() {
    let tree = Tree::new().file("lib/a.txt", "a\n");
    let mut server = Server::serving(&tree);
    for path in ["lib/a.txt", "lib//a.txt"] {
        assert_eq!(server.read(json!({"path": path})), "a\n", "{path}");
    }
}

#[test]
fn a_limit_above_the_chunk_maximum_is_refused_by_the_schema() {
    let (_tree, mut server) = read_one("x", &["--max-read-bytes", "3000"]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "f.txt", "limit": 3})),
        schema_error("read_text_file", "data/limit must be <= 2")
    );
    assert_eq!(server.read(json!({"path": "f.txt", "limit": 2})), "x");
}
