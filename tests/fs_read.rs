//! `fs_read`: whole-file text (exact characters, one leading BOM dropped, line endings kept), numbered windows
//! with a footer, the past-the-end answer, argument refusals, the files it cannot read, the
//! result budget, and the revision it reports.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use Reply::*;
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

const READ: Case = Case::of("fs_read");

/// Whole reads: the text exactly, one leading BOM dropped, line endings kept.
const WHOLE_READS: &[Case] = &[
    Case {
        name: "a whole read returns the text exactly",
        tree: || Tree::new().file("notes/todo.md", "- buy milk\n- feed the yak\n"),
        args: || json!({"path": "notes/todo.md"}),
        reply: Said("- buy milk\n- feed the yak\n"),
        ..READ
    },
    Case {
        // A decomposed accent, the Kelvin sign and the Greek question mark: NFC would turn each
        // into something the file does not hold.
        name: "a file reads as its exact characters whatever their normalization",
        tree: cafe_tree,
        args: || json!({"path": "cafe.txt"}),
        reply: Said("cafe\u{301} au lait\n'K', '\u{212A}'\nwhy\u{37E}\n"),
        ..READ
    },
    Case {
        name: "one leading BOM is dropped",
        tree: boms_tree,
        args: || json!({"path": "one.txt"}),
        reply: Said("hello\n"),
        ..READ
    },
    Case {
        name: "only one leading BOM is dropped",
        tree: boms_tree,
        args: || json!({"path": "two.txt"}),
        reply: Said("\u{feff}hello\n"),
        ..READ
    },
    Case {
        name: "a BOM inside the text is kept",
        tree: boms_tree,
        args: || json!({"path": "inner.txt"}),
        reply: Said("a\u{feff}b\n"),
        ..READ
    },
    Case {
        name: "CRLF line endings are kept in a whole read",
        tree: endings_tree,
        args: || json!({"path": "crlf.txt"}),
        reply: Said("one\r\ntwo\r\n"),
        ..READ
    },
    Case {
        name: "mixed line endings are kept in a whole read",
        tree: endings_tree,
        args: || json!({"path": "mixed.txt"}),
        reply: Said("a\r\nb\nc\rd"),
        ..READ
    },
    Case {
        name: "an empty file reads as empty text",
        tree: || Tree::new().file("empty.txt", ""),
        args: || json!({"path": "empty.txt"}),
        reply: Said(""),
        ..READ
    },
    Case {
        name: "a served file beside an excluded one is read",
        tree: || Tree::new().file("a.secret", "hush\n").file("a.txt", "ok\n"),
        flags: &["--exclude", "**/*.secret"],
        args: || json!({"path": "a.txt"}),
        reply: Said("ok\n"),
        ..READ
    },
];

fn cafe_tree() -> Tree {
    Tree::new().file(
        "cafe.txt",
        "cafe\u{301} au lait\n'K', '\u{212A}'\nwhy\u{37E}\n",
    )
}

fn boms_tree() -> Tree {
    Tree::new()
        .file("one.txt", "\u{feff}hello\n")
        .file("two.txt", "\u{feff}\u{feff}hello\n")
        .file("inner.txt", "a\u{feff}b\n")
}

fn endings_tree() -> Tree {
    Tree::new()
        .file("crlf.txt", "one\r\ntwo\r\n")
        .file("mixed.txt", "a\r\nb\nc\rd")
}

#[test]
fn whole_reads() {
    run_cases(WHOLE_READS);
}

#[test]
fn a_whole_read_has_no_numbers_and_no_footer() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    let text = read(&mut server, json!({"path": "log.txt"}));
    assert_eq!(text.as_bytes(), tree.bytes("log.txt"));
}

/// Windows: numbered lines and a footer, carriage returns that end lines dropped.
const WINDOWS: &[Case] = &[
    Case {
        name: "a window is numbered with a footer as in the reference example",
        tree: log_tree,
        args: || json!({"path": "log.txt", "offset": 40, "limit": 3}),
        reply: Said(
            "40\tconnecting\n41\thandshake ok\n42\tsending 12 frames\n\n[lines 40-42 of 900 total]",
        ),
        ..READ
    },
    Case {
        name: "an offset alone reads to the end",
        tree: log_tree,
        args: || json!({"path": "log.txt", "offset": 898}),
        reply: Said(
            "898\tevent 898\n899\tevent 899\n900\tevent 900\n\n[lines 898-900 of 900 total]",
        ),
        ..READ
    },
    Case {
        name: "a limit alone reads from the first line",
        tree: log_tree,
        args: || json!({"path": "log.txt", "limit": 2}),
        reply: Said("1\tevent 1\n2\tevent 2\n\n[lines 1-2 of 900 total]"),
        ..READ
    },
    Case {
        name: "a limit beyond the end stops at the last line",
        tree: log_tree,
        args: || json!({"path": "log.txt", "offset": 900, "limit": 50}),
        reply: Said("900\tevent 900\n\n[lines 900-900 of 900 total]"),
        ..READ
    },
    Case {
        name: "a window of a CRLF file has no carriage returns",
        tree: || Tree::new().file("crlf.txt", "one\r\ntwo\r\nthree\r\n"),
        args: || json!({"path": "crlf.txt", "offset": 2, "limit": 2}),
        reply: Said("2\ttwo\n3\tthree\n\n[lines 2-3 of 3 total]"),
        ..READ
    },
    Case {
        name: "a window removes only one trailing carriage return per line",
        tree: || Tree::new().file("cr.txt", "a\rb\nc\r\r\nd"),
        args: || json!({"path": "cr.txt", "offset": 1}),
        reply: Said("1\ta\rb\n2\tc\r\n3\td\n\n[lines 1-3 of 3 total]"),
        ..READ
    },
    Case {
        name: "a window keeps the characters whatever their normalization",
        tree: cafe_tree,
        args: || json!({"path": "cafe.txt", "offset": 2}),
        reply: Said("2\t'K', '\u{212A}'\n3\twhy\u{37E}\n\n[lines 2-3 of 3 total]"),
        ..READ
    },
    Case {
        name: "a window keeps the characters and drops the BOM",
        tree: || Tree::new().file("u.txt", "\u{feff}cafe\u{301}\nsecond\n"),
        args: || json!({"path": "u.txt", "limit": 5}),
        reply: Said("1\tcafe\u{301}\n2\tsecond\n\n[lines 1-2 of 2 total]"),
        ..READ
    },
    Case {
        name: "a last line without a newline is still a line",
        tree: || Tree::new().file("f.txt", "a\nb"),
        args: || json!({"path": "f.txt", "offset": 2}),
        reply: Said("2\tb\n\n[lines 2-2 of 2 total]"),
        ..READ
    },
];

#[test]
fn windows() {
    run_cases(WINDOWS);
}

/// An offset past the last line is an answer (not an error) that says how many lines there are.
const PAST_THE_END: &[Case] = &[
    Case {
        name: "an offset far past the end",
        tree: log_tree,
        args: || json!({"path": "log.txt", "offset": 5000}),
        reply: Said("'log.txt' has 900 lines; offset 5000 is past the end"),
        ..READ
    },
    Case {
        name: "an offset just past the end, with a limit",
        tree: log_tree,
        args: || json!({"path": "log.txt", "offset": 901, "limit": 1}),
        reply: Said("'log.txt' has 900 lines; offset 901 is past the end"),
        ..READ
    },
    Case {
        name: "an offset past a last line without a newline",
        tree: || Tree::new().file("f.txt", "a\nb"),
        args: || json!({"path": "f.txt", "offset": 3}),
        reply: Said("'f.txt' has 2 lines; offset 3 is past the end"),
        ..READ
    },
    Case {
        name: "an empty file has no lines",
        tree: || Tree::new().file("empty.txt", ""),
        args: || json!({"path": "empty.txt", "offset": 1}),
        reply: Said("'empty.txt' has 0 lines; offset 1 is past the end"),
        ..READ
    },
];

#[test]
fn reads_past_the_end() {
    run_cases(PAST_THE_END);
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

/// Files `fs_read` cannot read.
const READ_REFUSALS: &[Case] = &[
    Case {
        name: "a missing file is an error",
        tree: || Tree::new().dir("notes"),
        args: || json!({"path": "notes/gone.md"}),
        reply: Refused("'notes/gone.md' does not exist"),
        ..READ
    },
    Case {
        name: "a directory is an error pointing at list",
        tree: || Tree::new().file("notes/todo.md", "x"),
        args: || json!({"path": "notes"}),
        reply: Refused("'notes' is a directory; use fs_list to see what it holds"),
        ..READ
    },
    Case {
        name: "Latin-1 text is not UTF-8",
        tree: not_utf8_tree,
        args: || json!({"path": "latin1.txt"}),
        reply: Refused("'latin1.txt' is not UTF-8 text"),
        ..READ
    },
    Case {
        name: "binary bytes are not UTF-8",
        tree: not_utf8_tree,
        args: || json!({"path": "bin.dat"}),
        reply: Refused("'bin.dat' is not UTF-8 text"),
        ..READ
    },
    Case {
        name: "an excluded file is not served",
        tree: || Tree::new().file("a.secret", "hush\n").file("a.txt", "ok\n"),
        flags: &["--exclude", "**/*.secret"],
        args: || json!({"path": "a.secret"}),
        reply: Refused("'a.secret' is not served by this root"),
        ..READ
    },
];

fn not_utf8_tree() -> Tree {
    Tree::new()
        .file("latin1.txt", b"caf\xe9\n")
        .file("bin.dat", b"\xff\xfe\x00\x01")
}

#[test]
fn read_refusals() {
    run_cases(READ_REFUSALS);
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
