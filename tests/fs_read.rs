//! `fs_read`: whole-file text (exact characters, one leading BOM dropped, line endings kept), numbered windows
//! with a footer, the past-the-end answer, argument refusals, the files it cannot read, the
//! result budget, and the revision it reports.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::fs::*;
use support::*;

/// A 900-line log whose lines 40 to 42 are the ones the reference example shows.
fn log_lines() -> Vec<String> {
    (1..=900)
        .map(|n| match n {
            40 => "connecting".to_owned(),
            41 => "handshake ok".to_owned(),
            42 => "sending 12 frames".to_owned(),
            n => format!("event {n}"),
        })
        .collect()
}

fn log_tree() -> Tree {
    let mut text = log_lines().join("\n");
    text.push('\n');
    Tree::new().file("log.txt", text)
}

fn read(server: &mut Server, args: serde_json::Value) -> String {
    fs_text(server, "fs_read", args)
}

#[test]
fn a_whole_read_returns_the_text_exactly() {
    let tree = Tree::new().file("notes/todo.md", "- buy milk\n- feed the yak\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "notes/todo.md"})),
        "- buy milk\n- feed the yak\n"
    );
}

#[test]
fn a_whole_read_has_no_numbers_and_no_footer() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    let text = read(&mut server, json!({"path": "log.txt"}));
    assert_eq!(text.as_bytes(), tree.bytes("log.txt"));
}

#[test]
fn a_file_reads_as_its_exact_characters_whatever_their_normalization() {
    // A decomposed accent, the Kelvin sign and the Greek question mark: NFC would turn each
    // into something the file does not hold.
    let text = "cafe\u{301} au lait\n'K', '\u{212A}'\nwhy\u{37E}\n";
    let tree = Tree::new().file("cafe.txt", text);
    let mut server = fs_server(&tree);
    assert_eq!(read(&mut server, json!({"path": "cafe.txt"})), text);
    assert_eq!(
        read(&mut server, json!({"path": "cafe.txt", "offset": 2})),
        "2\t'K', '\u{212A}'\n3\twhy\u{37E}\n\n[lines 2-3 of 3 total]"
    );
}

#[test]
fn exactly_one_leading_bom_is_dropped() {
    let tree = Tree::new()
        .file("one.txt", "\u{feff}hello\n")
        .file("two.txt", "\u{feff}\u{feff}hello\n")
        .file("inner.txt", "a\u{feff}b\n");
    let mut server = fs_server(&tree);
    assert_eq!(read(&mut server, json!({"path": "one.txt"})), "hello\n");
    assert_eq!(
        read(&mut server, json!({"path": "two.txt"})),
        "\u{feff}hello\n"
    );
    assert_eq!(
        read(&mut server, json!({"path": "inner.txt"})),
        "a\u{feff}b\n"
    );
}

#[test]
fn line_endings_are_kept_in_a_whole_read() {
    let tree = Tree::new()
        .file("crlf.txt", "one\r\ntwo\r\n")
        .file("mixed.txt", "a\r\nb\nc\rd");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "crlf.txt"})),
        "one\r\ntwo\r\n"
    );
    assert_eq!(
        read(&mut server, json!({"path": "mixed.txt"})),
        "a\r\nb\nc\rd"
    );
}

#[test]
fn an_empty_file_reads_as_empty_text() {
    let tree = Tree::new().file("empty.txt", "");
    let mut server = fs_server(&tree);
    assert_eq!(read(&mut server, json!({"path": "empty.txt"})), "");
}

#[test]
fn a_window_is_numbered_with_a_footer_as_in_the_reference_example() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        read(
            &mut server,
            json!({"path": "log.txt", "offset": 40, "limit": 3})
        ),
        "40\tconnecting\n41\thandshake ok\n42\tsending 12 frames\n\n[lines 40-42 of 900 total]"
    );
}

#[test]
fn an_offset_alone_reads_to_the_end() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "log.txt", "offset": 898})),
        "898\tevent 898\n899\tevent 899\n900\tevent 900\n\n[lines 898-900 of 900 total]"
    );
}

#[test]
fn a_limit_alone_reads_from_the_first_line() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "log.txt", "limit": 2})),
        "1\tevent 1\n2\tevent 2\n\n[lines 1-2 of 900 total]"
    );
}

#[test]
fn a_limit_beyond_the_end_stops_at_the_last_line() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        read(
            &mut server,
            json!({"path": "log.txt", "offset": 900, "limit": 50})
        ),
        "900\tevent 900\n\n[lines 900-900 of 900 total]"
    );
}

#[test]
fn a_window_of_a_crlf_file_has_no_carriage_returns() {
    let tree = Tree::new().file("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(
            &mut server,
            json!({"path": "crlf.txt", "offset": 2, "limit": 2})
        ),
        "2\ttwo\n3\tthree\n\n[lines 2-3 of 3 total]"
    );
}

#[test]
fn reading_past_the_end_is_an_answer() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "log.txt", "offset": 5000})),
        "'log.txt' has 900 lines; offset 5000 is past the end"
    );
    assert_eq!(
        read(
            &mut server,
            json!({"path": "log.txt", "offset": 901, "limit": 1})
        ),
        "'log.txt' has 900 lines; offset 901 is past the end"
    );
}

#[test]
fn an_offset_or_limit_that_is_not_a_positive_integer_is_refused() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    for name in ["offset", "limit"] {
        for bad in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!("3"),
            json!(true),
            json!(null),
        ] {
            let message = fs_error(
                &mut server,
                "fs_read",
                json!({"path": "log.txt", name: bad}),
            );
            assert!(message.contains(name), "{name}={bad}: {message}");
        }
    }
}

#[test]
fn a_missing_or_non_string_path_is_refused() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    for args in [json!({}), json!({"path": 7}), json!({"path": null})] {
        let message = fs_error(&mut server, "fs_read", args.clone());
        assert!(message.contains("path"), "{args}: {message}");
    }
}

#[test]
fn an_unknown_argument_is_refused() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    fs_error(
        &mut server,
        "fs_read",
        json!({"path": "log.txt", "encoding": "latin1"}),
    );
}

#[test]
fn a_missing_file_is_an_error() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "notes/gone.md"})),
        "'notes/gone.md' does not exist"
    );
}

#[test]
fn a_directory_is_an_error_pointing_at_list() {
    let tree = Tree::new().file("notes/todo.md", "x");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "notes"})),
        "'notes' is a directory; use fs_list to see what it holds"
    );
}

#[test]
fn bytes_that_are_not_utf8_are_an_error() {
    let tree = Tree::new()
        .file("latin1.txt", b"caf\xe9\n")
        .file("bin.dat", b"\xff\xfe\x00\x01");
    let mut server = fs_server(&tree);
    for path in ["latin1.txt", "bin.dat"] {
        assert_eq!(
            fs_error(&mut server, "fs_read", json!({"path": path})),
            format!("'{path}' is not UTF-8 text")
        );
    }
}

#[test]
fn a_fifo_is_refused_at_once() {
    let tree = Tree::new().fifo("pipe").file("after.txt", "still here\n");
    let mut server = fs_server(&tree);
    let started = Instant::now();
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "pipe"})),
        "'pipe' is not a regular file"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        read(&mut server, json!({"path": "after.txt"})),
        "still here\n"
    );
}

/// `[lines 1-B of N total; the file is larger than one answer: continue with offset B+1]`,
/// parsed into `(first, last, total)` after checking the wording.
fn continuation(footer: &str) -> (usize, usize, usize) {
    let inner = footer
        .strip_prefix("[lines ")
        .and_then(|f| f.strip_suffix(']'))
        .unwrap_or_else(|| panic!("not a footer: {footer:?}"));
    let (range, rest) = inner.split_once(" of ").expect("of");
    let (total, next) = rest
        .split_once(" total; the file is larger than one answer: continue with offset ")
        .unwrap_or_else(|| panic!("not a continuation footer: {footer:?}"));
    let (first, last) = range.split_once('-').expect("range");
    let (first, last): (usize, usize) = (first.parse().unwrap(), last.parse().unwrap());
    assert_eq!(next.parse::<usize>().unwrap(), last + 1, "{footer}");
    (first, last, total.parse().unwrap())
}

/// A 200 KB text file of numbered lines.
fn big_tree() -> (Tree, Vec<String>) {
    let lines: Vec<String> = (1..=4000)
        .map(|n| format!("line {n:05} {}", "abcdefghij".repeat(4)))
        .collect();
    let mut text = lines.join("\n");
    text.push('\n');
    assert!(text.len() > 200_000, "{}", text.len());
    (Tree::new().file("big.txt", text), lines)
}

/// Checks a numbered window against the file's lines and returns its footer.
fn check_window(text: &str, lines: &[String]) -> String {
    let (body, footer) = text
        .rsplit_once("\n\n")
        .expect("a blank line before the footer");
    let (first, last, total) = continuation(footer);
    assert_eq!(total, lines.len());
    assert!(last < total, "the window stops before the end: {footer}");
    let expected: Vec<String> = (first..=last)
        .map(|n| format!("{n}\t{}", lines[n - 1]))
        .collect();
    assert_eq!(body, expected.join("\n"));
    footer.to_owned()
}

#[test]
fn a_file_larger_than_one_answer_returns_its_first_window_within_the_budget() {
    let (tree, lines) = big_tree();
    let mut server = fs_server(&tree);
    let result = server.call_result("fs_read", json!({"path": "big.txt"}));
    let size = serde_json::to_string(&result).expect("serialize").len();
    assert!(size <= 48_000, "a result of {size} bytes");
    let text = result["content"][0]["text"].as_str().expect("text");
    let footer = check_window(text, &lines);
    let (first, last, _) = continuation(&footer);
    assert_eq!(first, 1);
    assert!(last > 100, "a useful window: {footer}");
}

#[test]
fn the_continuation_offset_reads_the_next_window() {
    let (tree, lines) = big_tree();
    let mut server = fs_server(&tree);
    let text = read(&mut server, json!({"path": "big.txt"}));
    let (_, last, _) = continuation(text.rsplit_once("\n\n").expect("footer").1);
    let result = server.call_result("fs_read", json!({"path": "big.txt", "offset": last + 1}));
    let size = serde_json::to_string(&result).expect("serialize").len();
    assert!(size <= 48_000, "a result of {size} bytes");
    let next = result["content"][0]["text"].as_str().expect("text");
    let footer = check_window(next, &lines);
    assert_eq!(continuation(&footer).0, last + 1);
}

#[test]
fn a_smaller_result_budget_gives_a_smaller_window() {
    let (tree, lines) = big_tree();
    let mut server = fs_server_with(&tree, &["--max-result-bytes", "60000"]);
    let wide = read(&mut server, json!({"path": "big.txt"}));
    let mut server = fs_server(&tree);
    let narrow = read(&mut server, json!({"path": "big.txt"}));
    let last = |t: &str| continuation(&check_window(t, &lines)).1;
    assert!(
        last(&wide) > last(&narrow),
        "{} vs {}",
        last(&wide),
        last(&narrow)
    );
}

#[test]
fn a_read_reports_the_file_revision_of_the_exact_bytes() {
    let bytes = "\u{feff}cafe\u{301}\r\n".as_bytes();
    let tree = Tree::new().file("f.txt", bytes);
    let mut server = fs_server(&tree);
    let (_, structured) = fs_call(&mut server, "fs_read", json!({"path": "f.txt"}));
    let structured = structured.expect("revisions");
    assert_eq!(revision_keys(&structured), ["path"]);
    assert_eq!(revision(&structured, "path"), file_revision(bytes));
}

#[test]
fn a_window_and_a_past_the_end_answer_report_the_whole_file_revision() {
    let tree = log_tree();
    let bytes = tree.bytes("log.txt");
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "log.txt", "offset": 40, "limit": 3}),
        json!({"path": "log.txt", "offset": 5000}),
    ] {
        let structured = fs_revisions(&mut server, "fs_read", args);
        assert_eq!(revision(&structured, "path"), file_revision(&bytes));
    }
}

#[test]
fn the_revision_follows_a_change_made_outside() {
    let tree = Tree::new().file("f.txt", "one\n");
    let mut server = fs_server(&tree);
    let before = fs_revisions(&mut server, "fs_read", json!({"path": "f.txt"}));
    tree.put("f.txt", "two\n");
    let after = fs_revisions(&mut server, "fs_read", json!({"path": "f.txt"}));
    assert_eq!(token(&before, "path"), file_token("one\n"));
    assert_eq!(token(&after, "path"), file_token("two\n"));
}

#[test]
fn a_failed_read_carries_no_revisions() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server(&tree);
    // fs_error checks that an error result has no structuredContent.
    fs_error(&mut server, "fs_read", json!({"path": "notes"}));
    fs_error(&mut server, "fs_read", json!({"path": "missing"}));
}

#[test]
fn an_excluded_file_is_not_served() {
    let tree = Tree::new().file("a.secret", "hush\n").file("a.txt", "ok\n");
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "a.secret"})),
        "'a.secret' is not served by this root"
    );
    assert_eq!(read(&mut server, json!({"path": "a.txt"})), "ok\n");
}

#[test]
fn a_window_removes_only_one_trailing_carriage_return_per_line() {
    let tree = Tree::new().file("cr.txt", "a\rb\nc\r\r\nd");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "cr.txt", "offset": 1})),
        "1\ta\rb\n2\tc\r\n3\td\n\n[lines 1-3 of 3 total]"
    );
}

#[test]
fn a_window_keeps_the_characters_and_drops_the_bom() {
    let tree = Tree::new().file("u.txt", "\u{feff}cafe\u{301}\nsecond\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "u.txt", "limit": 5})),
        "1\tcafe\u{301}\n2\tsecond\n\n[lines 1-2 of 2 total]"
    );
}

#[test]
fn a_last_line_without_a_newline_is_still_a_line() {
    let tree = Tree::new().file("f.txt", "a\nb");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "f.txt", "offset": 2})),
        "2\tb\n\n[lines 2-2 of 2 total]"
    );
    assert_eq!(
        read(&mut server, json!({"path": "f.txt", "offset": 3})),
        "'f.txt' has 2 lines; offset 3 is past the end"
    );
}

#[test]
fn an_empty_file_has_no_lines() {
    let tree = Tree::new().file("empty.txt", "");
    let mut server = fs_server(&tree);
    assert_eq!(
        read(&mut server, json!({"path": "empty.txt", "offset": 1})),
        "'empty.txt' has 0 lines; offset 1 is past the end"
    );
}
