//! `search_text`: literal line search over served files, with line numbers and bounded evidence.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::*;

fn hit(path: &str, line: u64, text: &str) -> (String, u64, String) {
    (path.to_owned(), line, text.to_owned())
}

fn grep_one(content: impl AsRef<[u8]>, args: serde_json::Value) -> Vec<(String, u64, String)> {
    let tree = Tree::new().file("f.txt", content);
    let mut server = Server::serving(&tree);
    server.grep(args)
}

fn needle(content: impl AsRef<[u8]>) -> Vec<(String, u64, String)> {
    grep_one(content, json!({"query": "needle"}))
}

#[test]
fn a_match_reports_path_line_and_text() {
    let tree = Tree::new().file("lib/nested/target.txt", "first\nneedle\nlast\n");
    let mut server = Server::serving(&tree);
    let page = server.call("search_text", json!({"query": "needle"}));
    assert_eq!(
        page["items"],
        json!([{"path": "lib/nested/target.txt", "line": 2, "text": "needle"}])
    );
    assert_eq!(page["next_cursor"], serde_json::Value::Null);
    assert_eq!(
        page["content_hash"],
        content_hash("lib/nested/target.txt\u{0}2\u{0}needle\n")
    );
}

#[test]
fn files_come_in_path_order_and_lines_in_file_order() {
    let tree = Tree::new()
        .file("b.txt", "needle b1\nx\nneedle b3\n")
        .file("a/z.txt", "needle az\n")
        .file("a-b.txt", "needle ab\n");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.grep(json!({"query": "needle"})),
        [
            hit("a-b.txt", 1, "needle ab"),
            hit("a/z.txt", 1, "needle az"),
            hit("b.txt", 1, "needle b1"),
            hit("b.txt", 3, "needle b3"),
        ]
    );
}

#[test]
fn a_line_is_reported_once_however_many_terms_match_it() {
    assert_eq!(
        grep_one(
            "needle needle pin\nneither\npin\n",
            json!({"any_of": ["needle", "pin"]})
        ),
        [hit("f.txt", 1, "needle needle pin"), hit("f.txt", 3, "pin")]
    );
}

#[test]
fn terms_are_literal_bytes() {
    assert_eq!(
        grep_one("a|b\nab\na.b\n", json!({"query": "a|b"})),
        [hit("f.txt", 1, "a|b")]
    );
    assert_eq!(
        grep_one("a|b\nab\na.b\n", json!({"query": "."})),
        [hit("f.txt", 3, "a.b")]
    );
}

#[test]
fn case_insensitive_folds_ascii_only() {
    let content = "NEEDLE\nCAFÉ\ncafé\n";
    assert_eq!(
        grep_one(content, json!({"query": "needle"})),
        Vec::<(String, u64, String)>::new()
    );
    assert_eq!(
        grep_one(
            content,
            json!({"query": "needle", "case_insensitive": true})
        ),
        [hit("f.txt", 1, "NEEDLE")]
    );
    assert_eq!(
        grep_one(content, json!({"query": "cafÉ", "case_insensitive": true})),
        [hit("f.txt", 2, "CAFÉ")]
    );
    assert_eq!(
        grep_one(
            content,
            json!({"any_of": ["NEEDLE", "café"], "case_insensitive": true})
        ),
        [hit("f.txt", 1, "NEEDLE"), hit("f.txt", 3, "café")]
    );
}

#[test]
fn lines_split_on_newline_only_and_count_empty_lines() {
    assert_eq!(
        needle("needle needle needle\n\nneedle"),
        [
            hit("f.txt", 1, "needle needle needle"),
            hit("f.txt", 3, "needle")
        ]
    );
    assert_eq!(
        needle("first\nneedle at the end"),
        [hit("f.txt", 2, "needle at the end")]
    );
    assert_eq!(
        needle("one\rneedle\rthree\n"),
        [hit("f.txt", 1, "one\rneedle\rthree")]
    );
}

#[test]
fn one_trailing_carriage_return_is_dropped_from_evidence() {
    assert_eq!(
        needle("needle\r\nneedle\r\r\n"),
        [hit("f.txt", 1, "needle"), hit("f.txt", 2, "needle\r")]
    );
}

#[test]
fn evidence_is_capped_at_1024_bytes_on_a_scalar_boundary() {
    let line = format!("needle {}", "é".repeat(600));
    let expected = format!("needle {}", "é".repeat(508));
    assert_eq!(expected.len(), 1023);
    assert_eq!(needle(format!("{line}\n")), [hit("f.txt", 1, &expected)]);
}

#[test]
fn a_match_past_the_evidence_cap_is_still_reported() {
    let line = format!("{}needle", "a".repeat(2000));
    assert_eq!(
        needle(format!("{line}\nnext\n")),
        [hit("f.txt", 1, &"a".repeat(1024))]
    );
}

#[test]
fn a_short_line_that_is_not_utf8_is_skipped_alone() {
    assert_eq!(
        needle(b"needle one\nneedle \xff two\nneedle three\n"),
        [
            hit("f.txt", 1, "needle one"),
            hit("f.txt", 3, "needle three")
        ]
    );
}

#[test]
fn an_invalid_byte_past_the_evidence_cap_does_not_drop_the_line() {
    let mut content = format!("needle{}", "a".repeat(1100)).into_bytes();
    content.extend_from_slice(b"\xff\n");
    let expected = format!("needle{}", "a".repeat(1018));
    assert_eq!(needle(content), [hit("f.txt", 1, &expected)]);
}

#[test]
fn a_leading_bom_is_kept_in_evidence() {
    assert_eq!(
        needle("\u{feff}needle first\nneedle second\n"),
        [
            hit("f.txt", 1, "\u{feff}needle first"),
            hit("f.txt", 2, "needle second")
        ]
    );
}

#[test]
fn a_match_across_the_read_buffer_boundary_is_found() {
    assert_eq!(
        needle(format!("{}needle\n", "a".repeat(8190))),
        [hit("f.txt", 1, &"a".repeat(1024))]
    );
}

#[test]
fn a_match_split_across_pages_is_found_exactly_once() {
    let content = format!(
        "{}needle{}\nneedle again\n",
        "a".repeat(8189),
        "b".repeat(30000)
    );
    let folded = content.to_uppercase();
    for (content, args) in [
        (content, json!({"query": "needle"})),
        (folded, json!({"query": "needle", "case_insensitive": true})),
    ] {
        let tree = Tree::new().file("f.txt", &content);
        let mut server = Server::start(
            tree.path(),
            &["--include", "**", "--max-scan-bytes", "16384"],
        );
        let lines: Vec<u64> = server.grep(args).iter().map(|h| h.1).collect();
        assert_eq!(lines, [1, 2]);
    }
}

#[test]
fn binary_files_are_recognised_by_a_nul_on_an_invalid_line_in_the_first_8_kib() {
    fn with(head: &[u8], filler: &[u8], tail: &[u8]) -> Vec<u8> {
        [head, filler, tail].concat()
    }
    let c0 = |n: usize| vec![0xc0u8; n];
    let cases: Vec<(&str, Vec<u8>, Vec<u64>)> = vec![
        (
            "nul and invalid bytes on the first line",
            with(b"\x00\xff\xfe\x00", &c0(200_000), b"\nneedle\n"),
            vec![],
        ),
        (
            "nul and invalid bytes, then invalid lines",
            with(b"\x00\xff\xfe\x00\n", &c0(50_000), b"\nneedle\n"),
            vec![],
        ),
        (
            "nul and invalid byte in an unterminated tail at end of file",
            b"needle first\ntext\x00\xff".to_vec(),
            vec![],
        ),
        (
            "a nul on a valid line is text",
            b"first line\nsecond\x00line has a nul\nneedle here\n".to_vec(),
            vec![3],
        ),
        (
            "an invalid line without a nul is text",
            b"needle up top\n\xff\xfe\n".to_vec(),
            vec![1],
        ),
        (
            "nul and invalid byte on different lines is text",
            b"needle here\n\x00\n\xff\n".to_vec(),
            vec![1],
        ),
        (
            "a scalar clipped by the sniff boundary in a nul tail is tolerated",
            {
                let mut bytes = b"needle\n\x00".to_vec();
                bytes.extend(std::iter::repeat_n(b'a', 8192 - bytes.len() - 1));
                bytes.extend("é".as_bytes());
                bytes.extend(b"more\n");
                bytes
            },
            vec![1],
        ),
        (
            "a genuinely invalid byte in a nul tail is binary",
            with(b"needle\n\x00\xff", &[b'a'; 10_000], b"\n"),
            vec![],
        ),
        (
            "nul past the sniff on an invalid line: that line is dropped anyway",
            with(&c0(20_000), b"\x00", b"needle\n"),
            vec![],
        ),
    ];
    for (what, content, lines) in cases {
        let found: Vec<u64> = needle(content).iter().map(|h| h.1).collect();
        assert_eq!(found, lines, "{what}");
    }
}

#[test]
fn a_binary_file_does_not_hide_its_neighbours() {
    let tree = Tree::new()
        .file("a.txt", "needle a\n")
        .file("b.bin", b"\x00\xff\nneedle b\n")
        .file("c.txt", "needle c\n");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.grep(json!({"query": "needle"})),
        [hit("a.txt", 1, "needle a"), hit("c.txt", 1, "needle c")]
    );
}

#[test]
fn path_scopes_the_search_to_a_prefix_or_one_file() {
    let tree = Tree::new()
        .file("lib/a.txt", "needle la\n")
        .file("lib/sub/b.txt", "needle lb\n")
        .file("libx/c.txt", "needle x\n")
        .file("top.txt", "needle top\n");
    let mut server = Server::serving(&tree);
    let paths = |server: &mut Server, path: &str| -> Vec<String> {
        server
            .grep(json!({"query": "needle", "path": path}))
            .into_iter()
            .map(|h| h.0)
            .collect()
    };
    assert_eq!(paths(&mut server, "lib"), ["lib/a.txt", "lib/sub/b.txt"]);
    assert_eq!(paths(&mut server, "lib/"), ["lib/a.txt", "lib/sub/b.txt"]);
    assert_eq!(paths(&mut server, "lib/sub/b.txt"), ["lib/sub/b.txt"]);
    assert_eq!(paths(&mut server, "").len(), 4);
    assert_eq!(paths(&mut server, ".").len(), 4);
    assert!(paths(&mut server, "missing").is_empty());
}

#[test]
fn only_served_files_are_searched() {
    let tree = Tree::new()
        .file("lib/ok.txt", "needle ok\n")
        .file("lib/private/secret.txt", "needle secret\n")
        .file("docs/guide.txt", "needle docs\n")
        .file("lib/big.txt", "needle big but too large\n")
        .file("lib/.env", "needle env\n")
        .file("real/r.txt", "needle real\n")
        .symlink("lib/link.txt", "ok.txt")
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
            "20",
        ],
    );
    assert_eq!(
        server.grep(json!({"query": "needle"})),
        [hit("lib/ok.txt", 1, "needle ok")]
    );
}

#[test]
fn limit_pages_the_matches() {
    let tree = Tree::new().file("f.txt", "needle 1\nneedle 2\nneedle 3\n");
    let mut server = Server::serving(&tree);
    let first = server.call("search_text", json!({"query": "needle", "limit": 2}));
    assert_eq!(first["items"].as_array().expect("items").len(), 2);
    assert!(first["next_cursor"].is_string());
    let pages = server.pages("search_text", json!({"query": "needle", "limit": 2}));
    let lines: Vec<Vec<u64>> = pages
        .iter()
        .map(|p| {
            p["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|i| i["line"].as_u64().expect("line"))
                .collect()
        })
        .collect();
    assert_eq!(lines, [vec![1, 2], vec![3]]);
    for page in &pages {
        assert_eq!(
            page["content_hash"],
            items_hash("search_text", page["items"].as_array().expect("items"))
        );
    }
}

#[test]
fn the_default_page_is_two_hundred_matches() {
    let content: String = (1..=250).map(|i| format!("needle {i}\n")).collect();
    let tree = Tree::new().file("f.txt", content);
    let mut server = Server::serving(&tree);
    for args in [
        json!({"query": "needle"}),
        json!({"query": "needle", "limit": 1_000_000}),
    ] {
        let page = server.call("search_text", args);
        assert_eq!(page["items"].as_array().expect("items").len(), 200);
        assert!(page["next_cursor"].is_string());
    }
    assert_eq!(server.grep(json!({"query": "needle"})).len(), 250);
}

#[test]
fn identical_calls_give_identical_results() {
    let tree = Tree::new().file("f.txt", "needle 1\nneedle 2\n");
    let mut server = Server::serving(&tree);
    let args = json!({"query": "needle", "limit": 1});
    assert_eq!(
        server.call("search_text", args.clone()),
        server.call("search_text", args)
    );
}

#[test]
fn nothing_found_is_an_empty_final_page() {
    let tree = Tree::new().file("f.txt", "hay\n").file("empty.txt", "");
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.call("search_text", json!({"query": "needle"})),
        json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH})
    );
}

#[test]
fn term_errors() {
    let tree = Tree::new().file("f.txt", "x\n");
    let mut server = Server::serving(&tree);
    refuses_each(&mut server, "search_text", &term_refusals());
    refuses_each(
        &mut server,
        "search_text",
        &[(json!({"path": "lib"}), "query must be a non-empty string")],
    );
}

#[test]
fn a_written_file_is_searched_by_the_next_call() {
    let tree = Tree::new().file("f.txt", "hay\n");
    let mut server = Server::serving(&tree);
    server.call(
        "write_text_file",
        json!({"path": "f.txt", "content": "hay\nneedle\n"}),
    );
    assert_eq!(
        server.grep(json!({"query": "needle"})),
        [hit("f.txt", 2, "needle")]
    );
}

#[test]
fn files_are_searched_in_utf16_path_order() {
    let tree = Tree::new()
        .file("\u{ff01}.txt", "needle\n")
        .file("\u{1f600}.txt", "needle\n");
    let mut server = Server::serving(&tree);
    let paths: Vec<String> = server
        .grep(json!({"query": "needle"}))
        .into_iter()
        .map(|h| h.0)
        .collect();
    assert_eq!(paths, ["\u{1f600}.txt", "\u{ff01}.txt"]);
}

#[test]
fn a_path_naming_an_unserved_file_searches_nothing() {
    let tree = Tree::new()
        .file(".env", "needle\n")
        .file("notes.md", "needle\n")
        .file("ok.txt", "needle\n");
    let mut server = Server::start(tree.path(), &["--include", "*.txt", "--include", ".env"]);
    for path in [".env", "notes.md"] {
        assert!(
            server
                .grep(json!({"query": "needle", "path": path}))
                .is_empty(),
            "{path}"
        );
    }
    assert_eq!(
        server
            .grep(json!({"query": "needle", "path": "ok.txt"}))
            .len(),
        1
    );
}
