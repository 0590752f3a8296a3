//! `fs_read`: whole-file text (exact characters, one leading BOM dropped, line endings kept), numbered windows
//! with a footer, the past-the-end answer, argument refusals, the files it cannot read, the
//! result budget, the revision it reports, and windows counted from the end (a negative
//! offset), held to `tail -n`. Images are `tests/fs_read_images.rs`.

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
fn an_offset_or_limit_that_is_not_an_integer_or_a_limit_below_1_is_refused() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    for name in ["offset", "limit"] {
        for bad in [json!(0), json!(1.5), json!("3"), json!(true), json!(null)] {
            let message = fs_error(
                &mut server,
                "fs_read",
                json!({"path": "log.txt", name: bad}),
            );
            assert!(message.contains(name), "{name}={bad}: {message}");
        }
    }
    let message = fs_error(
        &mut server,
        "fs_read",
        json!({"path": "log.txt", "limit": -1}),
    );
    assert!(message.contains("limit"), "{message}");
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

/// Checks a whole read cut short (its first lines, as they are, then the footer) against the
/// file's lines and returns its footer.
fn check_whole(text: &str, lines: &[String]) -> String {
    let (body, footer) = text.rsplit_once("\n[").expect("a footer");
    let footer = format!("[{footer}");
    let (first, last, total) = continuation(&footer);
    assert_eq!((first, total), (1, lines.len()));
    assert_eq!(body, format!("{}\n", lines[..last].join("\n")));
    footer
}

/// One format per request: a read without offset or limit answers the text as it is, in part
/// with a footer when it does not fit; never numbered lines.
#[test]
fn a_file_larger_than_one_answer_returns_its_first_lines_as_they_are_within_the_budget() {
    let (tree, lines) = big_tree();
    let mut server = fs_server(&tree);
    let result = server.call_result("fs_read", json!({"path": "big.txt"}));
    let size = serde_json::to_string(&result).expect("serialize").len();
    assert!(size <= 48_000, "a result of {size} bytes");
    let text = result["content"][0]["text"].as_str().expect("text");
    let footer = check_whole(text, &lines);
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
    let last = |t: &str| continuation(&check_whole(t, &lines)).1;
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

// ---- the end of a file: negative offsets --------------------------------------------------------

/// Lines as a window shows them: split on `\n` (a `\n` ending the text starts no line), one
/// trailing `\r` removed from each.
fn as_window_lines(bytes: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
        .iter()
        .map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned())
        .collect()
}

/// `tail -n N` of a file under the tree, as window lines.
fn tail(tree: &Tree, path: &str, n: u64) -> Vec<String> {
    let out = std::process::Command::new("tail")
        .args(["-n", &n.to_string()])
        .arg(tree.join(path))
        .output()
        .expect("tail (coreutils) runs");
    assert!(out.status.success(), "tail -n {n} {path}");
    as_window_lines(&out.stdout)
}

/// A window's numbered lines as `(number, text)`, and its footer.
fn numbered(answer: &str) -> (Vec<(i64, String)>, String) {
    let (body, footer) = answer
        .rsplit_once("\n\n")
        .unwrap_or_else(|| panic!("no footer: {answer:?}"));
    let lines = body
        .split('\n')
        .map(|line| {
            let (n, text) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("not numbered: {line:?}"));
            (n.parse().expect("a line number"), text.to_owned())
        })
        .collect();
    (lines, footer.to_owned())
}

fn endings_of_small_files() -> Tree {
    let log: String = log_lines().iter().map(|l| format!("{l}\n")).collect();
    Tree::new()
        .file("lf.txt", "one\ntwo\nthree\n")
        .file("crlf.txt", "one\r\ntwo\r\nthree\r\n")
        .file("open.txt", "one\ntwo\nthree")
        .file("blank.txt", "one\ntwo\n\n")
        .file("blanks.txt", "\n\n\n")
        .file("single.txt", "only line")
        .file("newline.txt", "\n")
        .file("cr.txt", "a\r\nb\nc\r\r\nd")
        .file("log.txt", log)
        .file("empty.txt", "")
        .file("long.txt", "y".repeat(100_000))
}

#[test]
fn a_negative_offset_reads_the_last_lines_as_tail_does_numbered_from_the_start() {
    let tree = endings_of_small_files();
    let mut server = fs_server(&tree);
    for path in [
        "lf.txt",
        "crlf.txt",
        "open.txt",
        "blank.txt",
        "blanks.txt",
        "single.txt",
        "newline.txt",
        "cr.txt",
        "log.txt",
    ] {
        let total = as_window_lines(&tree.bytes(path)).len() as u64;
        for back in (1..=total + 2).filter(|n| *n <= 5 || *n + 3 >= total) {
            let answer = read(&mut server, json!({"path": path, "offset": -(back as i64)}));
            let (lines, footer) = numbered(&answer);
            let expected = tail(&tree, path, back);
            let first = total + 1 - expected.len() as u64;
            assert_eq!(
                lines.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
                expected,
                "{path} -{back}"
            );
            let numbers: Vec<i64> = lines.iter().map(|(n, _)| *n).collect();
            assert_eq!(
                numbers,
                (first as i64..=total as i64).collect::<Vec<_>>(),
                "{path} -{back}"
            );
            assert_eq!(footer, format!("[lines {first}-{total} of {total} total]"));
        }
    }
}

#[test]
fn a_negative_offset_with_a_limit_reads_that_many_lines_from_there() {
    let tree = endings_of_small_files();
    let mut server = fs_server(&tree);
    says_each(
        &mut server,
        "fs_read",
        &[
            (
                json!({"path": "log.txt", "offset": -3, "limit": 2}),
                "898\tevent 898\n899\tevent 899\n\n[lines 898-899 of 900 total]",
            ),
            (
                json!({"path": "log.txt", "offset": -2, "limit": 10}),
                "899\tevent 899\n900\tevent 900\n\n[lines 899-900 of 900 total]",
            ),
            (
                json!({"path": "log.txt", "offset": -861, "limit": 3}),
                "40\tconnecting\n41\thandshake ok\n42\tsending 12 frames\n\n[lines 40-42 of 900 total]",
            ),
            // Further back than the first line starts at the first line, as tail -n does.
            (
                json!({"path": "lf.txt", "offset": -50, "limit": 1}),
                "1\tone\n\n[lines 1-1 of 3 total]",
            ),
            (
                json!({"path": "empty.txt", "offset": -1}),
                "'empty.txt' has 0 lines; there is no line -1",
            ),
        ],
    );
    // One line longer than an answer: the part of it any window gives.
    let text = read(&mut server, json!({"path": "long.txt", "offset": -1}));
    assert_long_line_part(&text, 1, 1, 'y', 1, 100_000);
}

/// Checks the first part of a line longer than one answer: `N<TAB>` and the line's bytes
/// from `from` (1-based), all `fill`, then `[line N of T total, bytes A-B of L; continue with
/// offset N and column B+1]`.
fn assert_long_line_part(text: &str, number: u64, total: u64, fill: char, from: usize, len: usize) {
    let (body, footer) = text.rsplit_once("\n\n").expect("a footer");
    let content = body
        .strip_prefix(&format!("{number}\t"))
        .unwrap_or_else(|| panic!("not line {number}: {}", &body[..40.min(body.len())]));
    assert!(content.chars().all(|c| c == fill));
    let to = from - 1 + content.len();
    assert!(content.len() > 40_000, "{}", content.len());
    assert_eq!(
        footer,
        format!(
            "[line {number} of {total} total, bytes {from}-{to} of {len}; continue with offset {number} and column {}]",
            to + 1
        )
    );
}

#[test]
fn offset_zero_names_no_line_in_any_spelling() {
    let tree = log_tree();
    let mut server = fs_server(&tree);
    let zero = "offset 0 names no line; offsets count from 1 (the first line), or from -1 (the last line) backwards";
    for spelling in ["0", "-0", "0.0", "-0.0", "0e3", "-0E-2"] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7000,"method":"tools/call","params":{{"name":"fs_read","arguments":{{"path":"log.txt","offset":{spelling}}},"_meta":{}}}}}"#,
            modern_meta()
        );
        let response = server.raw_line(&line);
        let result = &response["result"];
        assert_eq!(result["isError"], true, "{spelling}: {response}");
        assert_eq!(result["content"][0]["text"], zero, "{spelling}");
    }
    let range = "offset must lie between -9007199254740991 and 9007199254740991";
    for far in [json!(9_007_199_254_740_992u64), json!(-1e300), json!(1e300)] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_read",
                json!({"path": "log.txt", "offset": far})
            ),
            range,
            "{far}"
        );
    }
    // The largest offsets that are counts of lines are read.
    says_each(
        &mut server,
        "fs_read",
        &[
            (
                json!({"path": "log.txt", "offset": 9_007_199_254_740_991u64}),
                "'log.txt' has 900 lines; offset 9007199254740991 is past the end",
            ),
            (
                json!({"path": "log.txt", "offset": -9_007_199_254_740_991i64, "limit": 1}),
                "1\tevent 1\n\n[lines 1-1 of 900 total]",
            ),
        ],
    );
}

#[test]
fn a_counted_tail_reports_the_whole_file_revision() {
    let tree = log_tree();
    let bytes = tree.bytes("log.txt");
    let mut server = fs_server(&tree);
    let structured = fs_revisions(
        &mut server,
        "fs_read",
        json!({"path": "log.txt", "offset": -5}),
    );
    assert_eq!(revision(&structured, "path"), file_revision(&bytes));
}

/// Lines enough to make a file over 8 MiB, each ending in `ending`.
fn filler(ending: &str) -> String {
    (0..450_000)
        .map(|n| format!("filler line {n:07}{ending}"))
        .collect()
}

/// Four files over 8 MiB that end as the small ones do.
fn endings_of_large_files() -> Tree {
    let lf = filler("\n");
    let tree = Tree::new()
        .file("lf.log", format!("{lf}one\ntwo\nthree\n"))
        .file(
            "crlf.log",
            format!("{}one\r\ntwo\r\nthree\r\n", filler("\r\n")),
        )
        .file("open.log", format!("{lf}one\ntwo\nthree"))
        .file("blank.log", format!("{lf}one\ntwo\n\n"));
    for path in ["lf.log", "crlf.log", "open.log", "blank.log"] {
        assert!(tree.bytes(path).len() > 8 << 20, "{path}");
    }
    tree
}

fn from_the_end(first: u64, last: u64, rest: &str) -> String {
    format!("[lines -{first} to -{last} of a file over 8 MiB, counted from its end; {rest}]")
}

#[test]
fn a_large_file_is_read_from_its_end_numbered_from_the_end_as_tail_reads_it() {
    let tree = endings_of_large_files();
    let mut server = fs_server(&tree);
    for path in ["lf.log", "crlf.log", "open.log", "blank.log"] {
        for back in [1u64, 2, 3, 4, 10] {
            let answer = read(&mut server, json!({"path": path, "offset": -(back as i64)}));
            let (lines, footer) = numbered(&answer);
            assert_eq!(
                lines.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
                tail(&tree, path, back),
                "{path} -{back}"
            );
            let numbers: Vec<i64> = lines.iter().map(|(n, _)| *n).collect();
            assert_eq!(numbers, (-(back as i64)..=-1).collect::<Vec<_>>());
            assert_eq!(
                footer,
                from_the_end(
                    back,
                    1,
                    &format!("earlier lines: offset -{}, limit {back}", 2 * back)
                )
            );
        }
    }
}

#[test]
fn the_earlier_lines_of_a_large_file_follow_its_footer() {
    let tree = endings_of_large_files();
    let mut server = fs_server(&tree);
    says_each(
        &mut server,
        "fs_read",
        &[
            (
                json!({"path": "lf.log", "offset": -4, "limit": 2}),
                "-4\tfiller line 0449999\n-3\tone\n\n[lines -4 to -3 of a file over 8 MiB, counted from its end; earlier lines: offset -6, limit 2]",
            ),
            (
                json!({"path": "lf.log", "offset": -6, "limit": 2}),
                "-6\tfiller line 0449997\n-5\tfiller line 0449998\n\n[lines -6 to -5 of a file over 8 MiB, counted from its end; earlier lines: offset -8, limit 2]",
            ),
            (
                json!({"path": "blank.log", "offset": -1}),
                "-1\t\n\n[lines -1 to -1 of a file over 8 MiB, counted from its end; earlier lines: offset -2, limit 1]",
            ),
        ],
    );
}

#[test]
fn a_tail_larger_than_one_answer_says_where_to_continue() {
    let tree = endings_of_large_files();
    let mut server = fs_server(&tree);
    let mut back = 5000u64;
    let mut read_lines = Vec::new();
    // Each window fits the result limit and continues where the last one stopped.
    while read_lines.len() < 5000 {
        let result = server.call_result(
            "fs_read",
            json!({"path": "lf.log", "offset": -(back as i64)}),
        );
        let size = serde_json::to_string(&result).expect("serialize").len();
        assert!(size <= 48_000, "a result of {size} bytes");
        let answer = result["content"][0]["text"].as_str().expect("text");
        let (lines, footer) = numbered(answer);
        let end = back - lines.len() as u64 + 1;
        assert_eq!(lines[0].0, -(back as i64));
        if end > 1 {
            assert_eq!(
                footer,
                from_the_end(
                    back,
                    end,
                    &format!(
                        "the window is larger than one answer: continue with offset -{}",
                        end - 1
                    )
                )
            );
        }
        read_lines.extend(lines.into_iter().map(|(_, t)| t));
        back = end - 1;
    }
    assert_eq!(read_lines, tail(&tree, "lf.log", 5000));
}

#[test]
fn a_large_file_whose_start_the_tail_reaches_is_counted() {
    let long = "x".repeat(9 << 20);
    let tree = Tree::new()
        .file("one.log", &long)
        .file("two.log", format!("{long}\nshort\n"));
    let mut server = fs_server(&tree);
    // Counted from its start, a line longer than an answer is shown in part.
    let text = read(&mut server, json!({"path": "one.log", "offset": -1}));
    assert_long_line_part(&text, 1, 1, 'x', 1, 9 << 20);
    let text = read(&mut server, json!({"path": "two.log", "offset": -2}));
    assert_long_line_part(&text, 1, 2, 'x', 1, 9 << 20);
    says_each(
        &mut server,
        "fs_read",
        &[(
            json!({"path": "two.log", "offset": -1}),
            "-1\tshort\n\n[lines -1 to -1 of a file over 8 MiB, counted from its end; earlier lines: offset -2, limit 1]",
        )],
    );
}

#[test]
fn a_tail_of_a_large_file_checks_only_the_bytes_it_reads() {
    let lf = filler("\n");
    let tree = Tree::new()
        .file(
            "bad-end.log",
            [lf.as_bytes(), b"caf\xe9\n".as_slice()].concat(),
        )
        .file(
            "bad-start.log",
            [b"\xff\n".as_slice(), lf.as_bytes(), b"end\n"].concat(),
        );
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_read",
            json!({"path": "bad-end.log", "offset": -1})
        ),
        "'bad-end.log' is not UTF-8 text"
    );
    assert_eq!(
        read(&mut server, json!({"path": "bad-start.log", "offset": -1})),
        "-1\tend\n\n[lines -1 to -1 of a file over 8 MiB, counted from its end; earlier lines: offset -2, limit 1]"
    );
    // Read whole, it is not text.
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "bad-start.log"})),
        "'bad-start.log' is not UTF-8 text"
    );
}

#[test]
fn a_tail_of_a_large_file_reports_the_revision_only_when_already_known() {
    let text = format!("{}last\n", filler("\n"));
    let tree = Tree::new().file("big.log", &text);
    let created = Instant::now();
    let mut server = fs_server(&tree);
    let tail_args = json!({"path": "big.log", "offset": -1});
    // Hashing would read the whole file, so a first tail does not know it.
    let structured = fs_revisions(&mut server, "fs_read", tail_args.clone());
    assert_eq!(revision(&structured, "path"), ("unknown".to_owned(), None));
    // A read from the start hashes it; once the file has settled, the tail reuses that.
    let structured = fs_revisions(
        &mut server,
        "fs_read",
        json!({"path": "big.log", "limit": 1}),
    );
    assert_eq!(revision(&structured, "path"), file_revision(&text));
    std::thread::sleep(Duration::from_millis(2300).saturating_sub(created.elapsed()));
    let structured = fs_revisions(&mut server, "fs_read", tail_args);
    assert_eq!(revision(&structured, "path"), file_revision(&text));
}

/// A file whose permissions keep the server out was once refused as "not a regular file",
/// which sent an agent looking for a link or a FIFO. The answer now says what it is.
#[test]
fn a_file_the_server_may_not_read_is_named_as_such() {
    let tree = Tree::new().file("locked.txt", "secret\n");
    tree.chmod("locked.txt", 0o000);
    // Root bypasses permission bits: as root, the server runs as an unprivileged user.
    let Some(mut server) = unprivileged_server(&tree, &["--tools", "fs,ptc", "--include", "**"])
    else {
        return;
    };
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "locked.txt"})),
        "'locked.txt' is a file this server may not read: its permissions (mode or owner) deny it; change them, or read another file"
    );
    // The program-facing tool keeps the wording of the tool it stands in for.
    let refused = server.call_result("read_text_file", json!({"path": "locked.txt"}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"], "path is not a readable regular file",
        "{refused}"
    );
}

/// Without `--follow-symlinks` a link is opaque; a tool that needs a file says so and names
/// the flag, as the searches do.
#[test]
fn a_link_named_where_a_file_is_needed_names_the_flag() {
    let tree = Tree::new()
        .file("a.txt", "inside\n")
        .symlink("link.txt", "a.txt");
    let mut server = fs_server(&tree);
    let message = "'link.txt' is a symbolic link, which this root does not follow (links are followed only with --follow-symlinks, and only while they stay inside the root)";
    for (tool, args) in [
        ("fs_read", json!({"path": "link.txt"})),
        (
            "fs_edit",
            json!({"path": "link.txt", "old-string": "inside", "new-string": "x"}),
        ),
        ("fs_write", json!({"path": "link.txt", "content": "x"})),
    ] {
        assert_eq!(fs_error(&mut server, tool, args.clone()), message, "{args}");
    }
    assert_eq!(tree.bytes("a.txt"), b"inside\n");
    let mut following = fs_server_with(&tree, &["--follow-symlinks"]);
    assert_eq!(
        fs_text(&mut following, "fs_read", json!({"path": "link.txt"})),
        "inside\n"
    );
}

/// The sha256 `sha256sum` gives for the file at `path` in `tree`, as a revision token.
fn sha256sum_token(tree: &Tree, path: &str) -> String {
    let output = std::process::Command::new("sha256sum")
        .arg(tree.path().join(path))
        .output()
        .expect("run sha256sum");
    assert!(output.status.success(), "sha256sum {path}");
    let hex = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .expect("a digest")
        .to_owned();
    format!("sha256-v1:file:{hex}")
}

#[test]
fn several_files_are_read_in_one_call_each_with_its_revision() {
    let tree = Tree::new()
        .file("crlf.txt", "one\r\ntwo\r\n")
        .file("bom.md", "\u{feff}# title\nbody\n")
        .file("tail.rs", "fn last() {}")
        .file("nfd.txt", "cafe\u{301}\n")
        .dir("dir");
    let mut server = fs_server(&tree);
    let paths = ["crlf.txt", "bom.md", "tail.rs", "nfd.txt"];
    let (text, revisions) = fs_call(&mut server, "fs_read", json!({"paths": paths}));
    let revisions = revisions.expect("revisions");
    // Each part is the file's text as a read of it alone answers it, under its header.
    let mut expected = String::new();
    for (i, path) in paths.iter().enumerate() {
        let (alone, own) = fs_call(&mut server, "fs_read", json!({"path": path}));
        if i > 0 {
            expected.push('\n');
        }
        expected.push_str(&format!("==> {path} <==\n{alone}"));
        if !alone.ends_with('\n') {
            expected.push('\n');
        }
        let token = &revisions["revisions"][format!("paths[{i}]")]["token"];
        assert_eq!(
            token,
            &own.expect("revisions")["revisions"]["path"]["token"]
        );
        assert_eq!(token, &json!(sha256sum_token(&tree, path)), "{path}");
    }
    assert_eq!(text, expected);
    // offset and limit apply to each file.
    let text = read(
        &mut server,
        json!({"paths": ["crlf.txt", "bom.md"], "offset": 2}),
    );
    assert_eq!(
        text,
        "==> crlf.txt <==\n2\ttwo\n\n[lines 2-2 of 2 total]\n\n==> bom.md <==\n2\tbody\n\n[lines 2-2 of 2 total]\n"
    );
    // A file that cannot be read says why in its part; the others are read.
    let (text, revisions) = fs_call(
        &mut server,
        "fs_read",
        json!({"paths": ["nope.txt", "dir", "tail.rs", "/elsewhere/x"]}),
    );
    assert_eq!(
        text,
        "==> nope.txt <==\n[not read: 'nope.txt' does not exist]\n\n==> dir <==\n[not read: 'dir' is a directory; use fs_list to see what it holds]\n\n==> tail.rs <==\nfn last() {}\n\n==> /elsewhere/x <==\n[not read: '/elsewhere/x' is outside this root: give a path relative to the root (as listings show them), or an absolute path inside it]\n"
    );
    let revisions = revisions.expect("revisions")["revisions"].clone();
    assert_eq!(revisions.as_object().expect("map").len(), 1, "{revisions}");
    assert_eq!(
        revisions["paths[2]"]["token"],
        json!(sha256sum_token(&tree, "tail.rs"))
    );
    // One of path and paths.
    assert_eq!(
        fs_error(
            &mut server,
            "fs_read",
            json!({"path": "tail.rs", "paths": ["tail.rs"]})
        ),
        "give path (one file) or paths (several), not both"
    );
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({})),
        "give path, the file to read (or paths, several files)"
    );
}

/// However many parts a several-file read has, and whatever they say, the whole result
/// (headers, refusals, revisions) stays within `--max-result-bytes`; parts that find no room
/// are named by index, and every path is either shown or named. Before, only the files' text
/// was held to the budget: fifty long paths that do not exist answered about 100 KB, and
/// fifty small files passed the limit by their revisions.
#[test]
fn several_files_never_pass_the_result_limit() {
    let mut tree = Tree::new();
    let body = "x".repeat(1_000) + "\n";
    for n in 0..50 {
        tree = tree.file(&format!("f{n:02}.txt"), &body);
    }
    let mut server = fs_server(&tree);
    let long = |n: usize| format!("{}/{}/missing-{n:02}.txt", "d".repeat(250), "e".repeat(250));
    let small: Vec<String> = (0..50).map(|n| format!("f{n:02}.txt")).collect();
    let missing: Vec<String> = (0..50).map(long).collect();
    let mixed: Vec<String> = (0..50)
        .map(|n| {
            if n % 2 == 0 {
                small[n].clone()
            } else {
                long(n)
            }
        })
        .collect();
    for (name, paths) in [("small", &small), ("missing", &missing), ("mixed", &mixed)] {
        let result = server.call_result("fs_read", json!({ "paths": paths }));
        let size = serde_json::to_string(&result).unwrap().len();
        assert!(size <= 48_000, "{name}: the result is {size} bytes");
        assert_ne!(result.get("isError"), Some(&json!(true)), "{name}");
        let text = result["content"][0]["text"].as_str().expect("text");
        let revisions = result["structuredContent"]["revisions"]
            .as_object()
            .expect("revisions");
        // Every path is shown, or named in the closing notice with all after it.
        let shown = (0..50)
            .take_while(|&i| text.contains(&format!("==> {} <==\n", paths[i])))
            .count();
        if shown < 50 {
            let notice = if shown == 49 {
                "[the answer is full: paths[49] was not read; read it in another call]".to_owned()
            } else {
                format!(
                    "[the answer is full: paths[{shown}] to paths[49] were not read; read them in \
                     another call]"
                )
            };
            assert!(
                text.ends_with(&notice),
                "{name}: {}",
                &text[text.len() - 200..]
            );
            assert!(shown > 10, "{name}: only {shown} parts");
        }
        for (i, path) in paths.iter().enumerate().take(shown) {
            let has_revision = revisions.contains_key(&format!("paths[{i}]"));
            assert_eq!(has_revision, path.starts_with('f'), "{name}: paths[{i}]");
        }
        assert_eq!(
            revisions.len(),
            (0..shown).filter(|&i| paths[i].starts_with('f')).count()
        );
        println!("{name}: {shown} of 50 parts, {size} bytes");
    }
    // A first part too long to show with others is named short, and the others are read:
    // calling again is never the same dead end.
    let huge = "x".repeat(30_000) + "/..";
    let text = read(&mut server, json!({"paths": [huge, "f00.txt"]}));
    assert_eq!(
        text,
        format!(
            "==> {}… <==\n[not read: too long to show with other files; read it alone]\n\n\
             ==> f00.txt <==\n{body}",
            "x".repeat(60)
        )
    );
}

#[test]
fn several_files_share_one_answer_budget() {
    // Ten files of 10 KB: more than one answer holds. Each is shown, each cut to its share,
    // and a short file first leaves its unused share to the ones after it.
    let mut tree = Tree::new().file("a-short.txt", "short\n");
    let body: String = (1..=1000).map(|n| format!("line {n:04}\n")).collect();
    for n in 0..10 {
        tree = tree.file(&format!("big-{n}.txt"), &body);
    }
    let mut server = fs_server(&tree);
    let mut paths = vec!["a-short.txt".to_owned()];
    paths.extend((0..10).map(|n| format!("big-{n}.txt")));
    let text = read(&mut server, json!({"paths": paths}));
    assert!(
        serde_json::to_string(&text).unwrap().len() <= 48_000,
        "{} bytes",
        text.len()
    );
    assert!(
        text.starts_with("==> a-short.txt <==\nshort\n\n==> big-0.txt <==\nline 0001\nline 0002\n")
    );
    let mut shown = Vec::new();
    for n in 0..10 {
        let header = format!("==> big-{n}.txt <==\n");
        let at = text
            .find(&header)
            .unwrap_or_else(|| panic!("no part for big-{n}"));
        let part = &text[at + header.len()..];
        let footer = part
            .find("\n\n[lines 1-")
            .map(|i| &part[i + 2..])
            .expect("a cut part has a footer");
        let footer = &footer[..footer.find(']').expect("footer end") + 1];
        let last: u64 = footer["[lines 1-".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("last line shown");
        assert_eq!(
            footer,
            format!(
                "[lines 1-{last} of 1000 total; the file is larger than one answer: continue with offset {}]",
                last + 1
            )
        );
        // The part is the file's first lines, as they are.
        let body: String = (1..=last).map(|n| format!("line {n:04}\n")).collect();
        assert!(part.starts_with(&body), "big-{n}");
        shown.push(last);
    }
    // Every big file gets a fair share: none is starved.
    let least = *shown.iter().min().expect("ten parts");
    let most = *shown.iter().max().expect("ten parts");
    assert!(
        least >= 350 && most - least <= 40,
        "lines shown per file: {shown:?}"
    );
}
/// Follows the footers of line 1 of `path` from the part a whole read showed (`first`, the
/// line's bytes 1 to `first.len()`), reading on by `column` until the line's `len` bytes are
/// all shown; each footer must name exactly the bytes its part holds. The line rebuilt, and
/// how many parts it took.
fn follow_columns(
    server: &mut Server,
    path: &str,
    first: &str,
    len: usize,
    total: u64,
) -> (String, usize) {
    let mut joined = first.to_owned();
    let mut column = first.len() + 1;
    let mut parts = 1;
    loop {
        let text = read(server, json!({"path": path, "offset": 1, "column": column}));
        let (body, footer) = text.rsplit_once("\n\n").expect("a footer");
        let part = body.strip_prefix("1\t").expect("line 1");
        joined.push_str(part);
        parts += 1;
        let to = column - 1 + part.len();
        let place = format!("[line 1 of {total} total, bytes {column}-{to} of {len}");
        assert!(footer.starts_with(&place), "{footer} vs {place}");
        match footer.strip_suffix(&format!("; continue with offset 1 and column {}]", to + 1)) {
            Some(_) => column = to + 1,
            None => {
                assert_eq!(footer, format!("{place}; the next line is offset 2]"));
                return (joined, parts);
            }
        }
        assert!(parts < 20, "too many parts");
    }
}

/// A long first line after a BOM, or ended by CRLF, is read in parts as any other: the BOM
/// is the file's, not the line's, and the `\r` is not the line's either, so the bytes and
/// columns the footers name are the line's own (grep's `match at byte` counts them so), and
/// following them gives the line back byte for byte. Before, a BOM shifted every part by
/// three bytes, and a CRLF line that just fit one answer named a column past its end.
#[test]
fn a_long_line_after_a_bom_or_before_a_crlf_is_read_in_exact_parts() {
    let line: String = "const a=\"é€\";".repeat(20_000);
    // Fits one answer (45,952 bytes) with its CRLF, but leaves no room for a footer.
    let snug = "a".repeat(45_752);
    let tree = Tree::new()
        .file("bom.js", format!("\u{feff}{line}\nnext\n"))
        .file("crlf.js", format!("{line}\r\nnext\r\n"))
        .file("snug.txt", format!("{snug}\r\n{}\r\n", "b".repeat(300)));
    let mut server = fs_server(&tree);
    for (path, line) in [("bom.js", &line), ("crlf.js", &line), ("snug.txt", &snug)] {
        let text = read(&mut server, json!({"path": path}));
        let (first, footer) = text.rsplit_once("\n\n").expect("a footer");
        assert!(
            line.starts_with(first),
            "{path}: the first part is the line's start"
        );
        let place = format!(
            "[line 1 of 2 total, bytes 1-{} of {}",
            first.len(),
            line.len()
        );
        if first.len() == line.len() {
            // The whole line fit, its `\r` not counted.
            assert_eq!(
                footer,
                format!("{place}; the next line is offset 2]"),
                "{path}"
            );
            continue;
        }
        assert_eq!(
            footer,
            format!(
                "{place}; continue with offset 1 and column {}]",
                first.len() + 1
            ),
            "{path}"
        );
        let (joined, parts) = follow_columns(&mut server, path, first, line.len(), 2);
        assert_eq!(&joined, line, "{path}: {parts} parts");
        // A window from the line's start names the same bytes as the whole read.
        let text = read(&mut server, json!({"path": path, "offset": 1}));
        let (body, footer) = text.rsplit_once("\n\n").expect("a footer");
        let part = body.strip_prefix("1\t").expect("line 1");
        assert!(line.starts_with(part), "{path}");
        assert!(
            footer.starts_with(&format!(
                "[line 1 of 2 total, bytes 1-{} of {}; continue with offset 1 and column {}]",
                part.len(),
                line.len(),
                part.len() + 1
            )),
            "{path}: {footer}"
        );
    }
    // grep counts the same bytes: its match in the BOM file is where read's column finds it.
    let text = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "a=\"é€\";const a=\"é€\";$", "regex": true, "path": "bom.js"}),
    );
    let at: usize = text
        .rsplit_once("match at byte ")
        .and_then(|(_, rest)| rest.trim_end_matches(']').parse().ok())
        .unwrap_or_else(|| panic!("no match position in {text}"));
    let text = read(
        &mut server,
        json!({"path": "bom.js", "offset": 1, "column": at}),
    );
    assert!(
        text.starts_with("1\ta=\"é€\";const a=\"é€\";\n\n"),
        "{text}"
    );
}

/// A line longer than any answer is read in parts by following `column`: the parts joined are
/// the line's exact text, each cut at a character, and grep's `match at byte M` is a column.
#[test]
fn a_long_line_is_read_in_parts_by_column() {
    // Minified code: one 300 KB line of mixed one-, two- and three-byte characters.
    let unit = "var x=1;é€;";
    let line: String = unit.repeat(300_000 / unit.len());
    let tree = Tree::new()
        .file("min.js", format!("{line}\nnext line\n"))
        .file("crlf.txt", "short\r\nlast\r\n");
    let mut server = fs_server(&tree);
    // The whole read shows the line's first part, as it is (no number).
    let text = read(&mut server, json!({"path": "min.js"}));
    let (first, footer) = text.rsplit_once("\n\n").expect("a footer");
    assert!(
        line.starts_with(first) && first.len() > 40_000,
        "{}",
        first.len()
    );
    assert_eq!(
        footer,
        format!(
            "[line 1 of 2 total, bytes 1-{} of {}; continue with offset 1 and column {}]",
            first.len(),
            line.len(),
            first.len() + 1
        )
    );
    // Following the footers gives the line back, byte for byte.
    let (joined, parts) = follow_columns(&mut server, "min.js", first, line.len(), 2);
    assert_eq!(joined, line);
    assert!(parts >= 6, "{parts} parts");
    // A column inside a character starts at the next one.
    let inside = unit.find('é').expect("é") + 2;
    let text = read(
        &mut server,
        json!({"path": "min.js", "offset": 1, "column": inside}),
    );
    assert!(text.starts_with("1\t€;var x=1;"), "{}", &text[..20]);
    assert!(
        text.contains(&format!("bytes {}-", inside + 1)),
        "{}",
        &text[text.len() - 120..]
    );
    // A short line from a column: the rest of it, without its \r.
    assert_eq!(
        read(
            &mut server,
            json!({"path": "crlf.txt", "offset": 1, "column": 3})
        ),
        "1\tort\n\n[line 1 of 2 total, bytes 3-5 of 5; the next line is offset 2]"
    );
    assert_eq!(
        read(
            &mut server,
            json!({"path": "crlf.txt", "offset": 2, "column": 10})
        ),
        "'crlf.txt' line 2 has 4 bytes; column 10 is past its end"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "fs_read",
            json!({"path": "crlf.txt", "column": 2})
        ),
        "column needs offset, the number of the line it lies in (counted from 1)"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "fs_read",
            json!({"path": "crlf.txt", "offset": -1, "column": 2})
        ),
        "column needs offset, the number of the line it lies in (counted from 1)"
    );
    // grep's window of a long line names the match's byte; read goes there.
    let found = fs_text(
        &mut server,
        "fs_grep",
        json!({"pattern": "var x=1;é€;var", "glob": "min.js"}),
    );
    assert!(
        found.contains("match at byte 1]"),
        "{}",
        &found[found.len() - 80..]
    );
}
