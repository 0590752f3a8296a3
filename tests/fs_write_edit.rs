//! `fs_write` and `fs_edit`: the reference examples byte for byte, what a write replaces and
//! keeps, the uniqueness rules of an edit, and its byte fidelity (BOM, CRLF, text in any
//! Unicode normalization).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::os::unix::fs::MetadataExt;
use support::fs::*;
use support::*;

// ---- write ----------------------------------------------------------------------------------

fn write(server: &mut Server, path: &str, content: &str) -> String {
    fs_text(
        server,
        "fs_write",
        json!({"path": path, "content": content}),
    )
}

#[test]
fn the_reference_write_reports_its_byte_count() {
    let tree = Tree::new().file("notes/todo.md", "- buy milk\n- feed the yak\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        write(&mut server, "notes/todo.md", "- done\n"),
        "Wrote 7 bytes to 'notes/todo.md'"
    );
    assert_eq!(tree.bytes("notes/todo.md"), b"- done\n");
}

#[test]
fn the_byte_count_is_of_utf8_bytes() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    assert_eq!(
        write(&mut server, "caf\u{e9}.txt", "\u{e9}\u{1f600}\n"),
        "Wrote 7 bytes to 'caf\u{e9}.txt'"
    );
    assert_eq!(tree.bytes("caf\u{e9}.txt"), "\u{e9}\u{1f600}\n".as_bytes());
}

#[test]
fn a_write_whose_parent_is_missing_is_refused_and_creates_nothing() {
    let tree = Tree::new().file("notes/todo.md", "x");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "new/todo.md", "content": "x"})
        ),
        "Parent directory of 'new/todo.md' does not exist; create it with the mkdir tool first"
    );
    assert_eq!(tree.names(""), ["notes"]);
}

#[test]
fn a_write_creates_a_new_file_in_an_existing_directory() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server(&tree);
    assert_eq!(
        write(&mut server, "notes/new.md", "fresh\n"),
        "Wrote 6 bytes to 'notes/new.md'"
    );
    assert_eq!(tree.bytes("notes/new.md"), b"fresh\n");
}

#[test]
fn a_write_replaces_all_existing_content() {
    let tree = Tree::new().file("f.txt", "a much longer old content\nwith two lines\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        write(&mut server, "f.txt", "new"),
        "Wrote 3 bytes to 'f.txt'"
    );
    assert_eq!(tree.bytes("f.txt"), b"new");
}

#[test]
fn empty_content_leaves_an_empty_file() {
    let tree = Tree::new().file("f.txt", "something");
    let mut server = fs_server(&tree);
    assert_eq!(write(&mut server, "f.txt", ""), "Wrote 0 bytes to 'f.txt'");
    assert_eq!(tree.bytes("f.txt"), b"");
}

#[test]
fn content_is_written_byte_for_byte() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    let content = "\u{feff}cafe\u{301}\r\nline two\rthree\n\n";
    write(&mut server, "raw.txt", content);
    assert_eq!(tree.bytes("raw.txt"), content.as_bytes());
}

#[test]
fn a_directory_cannot_be_written() {
    let tree = Tree::new().file("notes/todo.md", "x");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "notes", "content": "x"})
        ),
        "'notes' is a directory"
    );
    assert_eq!(tree.names("notes"), ["todo.md"]);
}

#[test]
fn a_fifo_cannot_be_written() {
    let tree = Tree::new().fifo("pipe");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "pipe", "content": "x"})
        ),
        "'pipe' is not a regular file"
    );
}

#[test]
fn an_overwrite_keeps_the_file_mode() {
    let tree = Tree::new().file("run.sh", "old").file("shared.txt", "old");
    tree.chmod("run.sh", 0o750);
    tree.chmod("shared.txt", 0o604);
    let mut server = fs_server(&tree);
    write(&mut server, "run.sh", "#!/bin/sh\n");
    write(&mut server, "shared.txt", "new");
    assert_eq!(tree.mode("run.sh"), 0o750);
    assert_eq!(tree.mode("shared.txt"), 0o604);
}

#[test]
fn a_new_file_gets_the_ordinary_mode_less_the_umask() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    write(&mut server, "new.txt", "x");
    assert_eq!(tree.mode("new.txt"), 0o666 & !umask());
}

#[test]
fn a_hard_link_is_replaced_not_written_through() {
    let tree = Tree::new().file("target.txt", "old bytes").dir("elsewhere");
    std::fs::hard_link(tree.join("target.txt"), tree.join("elsewhere/other.txt"))
        .expect("hard link");
    let mut server = fs_server(&tree);
    write(&mut server, "target.txt", "new bytes");
    assert_eq!(tree.bytes("target.txt"), b"new bytes");
    assert_eq!(tree.bytes("elsewhere/other.txt"), b"old bytes");
    let meta = std::fs::metadata(tree.join("target.txt")).expect("stat");
    assert_eq!(meta.nlink(), 1);
}

#[test]
fn a_write_leaves_no_temporary_file_behind() {
    let tree = Tree::new().file("a.txt", "a");
    let mut server = fs_server(&tree);
    write(&mut server, "a.txt", "b");
    write(&mut server, "c.txt", "c");
    assert_eq!(tree.names(""), ["a.txt", "c.txt"]);
}

#[test]
fn a_write_to_a_path_the_root_does_not_serve_is_refused() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "notes/key.secret", "content": "x"})
        ),
        "'notes/key.secret' is not served by this root; a file written there could not be read back"
    );
    assert!(tree.names("notes").is_empty());
}

#[test]
fn a_write_reports_the_revision_of_what_it_wrote() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server(&tree);
    let (text, structured) = fs_call(
        &mut server,
        "fs_write",
        json!({"path": "notes/a.md", "content": "hello\n"}),
    );
    assert_eq!(text, "Wrote 6 bytes to 'notes/a.md'");
    let structured = structured.expect("revisions");
    assert_eq!(revision_keys(&structured), ["path"]);
    assert_eq!(revision(&structured, "path"), file_revision("hello\n"));
}

#[test]
fn write_arguments_are_checked() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "a.txt"}),
        json!({"content": "x"}),
        json!({"path": "a.txt", "content": 5}),
        json!({"path": "a.txt", "content": null}),
        json!({"path": "a.txt", "content": "x", "append": true}),
    ] {
        fs_error(&mut server, "fs_write", args);
    }
    assert!(tree.names("").is_empty());
}

// ---- edit: the reference examples -----------------------------------------------------------

/// The reference examples' `src/app.raku`: six `$port`s, one of them in `my $port = 8080;`.
/// The seed's byte counts describe two different states of this file (412 + 6 × 7 is not 431),
/// so the comment line sizes it: 397 bytes for the first example (which then writes 412), 389
/// for the replace-all (which then writes 431).
const APP: &str = r#"use v6.d;
{comment}

my $host = '0.0.0.0';
my $port = 8080;

sub banner(--> Str) { "listening on $host:$port" }

sub MAIN() {
    say banner();
    my $server = IO::Socket::Async.listen($host, $port);
    note "ready on $port";
    react whenever $server -> $conn {
        $conn.print("hello from $port\n");
        $conn.close;
    }
    # TODO: retry when $port is busy
}
"#;

fn app(comment: &str, size: usize) -> String {
    let text = APP.replace("{comment}", comment);
    assert_eq!(text.len(), size, "fixture size");
    assert_eq!(text.matches("$port").count(), 6, "fixture occurrences");
    text
}

fn edit(server: &mut Server, args: Value) -> String {
    fs_text(server, "fs_edit", args)
}

#[test]
fn the_reference_edit_replaces_one_occurrence() {
    let before = app("# Greets every client that asks", 397);
    let tree = Tree::new().file("src/app.raku", &before);
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({
                "path": "src/app.raku",
                "old-string": "my $port = 8080;",
                "new-string": "my $port = %*ENV<PORT> // 8080;"
            })
        ),
        "Replaced 1 occurrence in 'src/app.raku'; wrote 412 bytes"
    );
    let after = before.replace("my $port = 8080;", "my $port = %*ENV<PORT> // 8080;");
    assert_eq!(tree.bytes("src/app.raku"), after.as_bytes());
}

#[test]
fn several_matches_are_refused_with_their_count() {
    let before = app("# Greets every client that asks", 397);
    let tree = Tree::new().file("src/app.raku", &before);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "src/app.raku", "old-string": "$port", "new-string": "$listen-port"})
        ),
        "Found 6 occurrences of 'old-string' in 'src/app.raku'; quote more of the surrounding text to pick one out, or set replace-all to true"
    );
    assert_eq!(tree.bytes("src/app.raku"), before.as_bytes());
}

#[test]
fn replace_all_replaces_every_occurrence() {
    let before = app("# Greets every visitor.", 389);
    let tree = Tree::new().file("src/app.raku", &before);
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({
                "path": "src/app.raku",
                "old-string": "$port",
                "new-string": "$listen-port",
                "replace-all": true
            })
        ),
        "Replaced 6 occurrences in 'src/app.raku'; wrote 431 bytes"
    );
    assert_eq!(
        tree.bytes("src/app.raku"),
        before.replace("$port", "$listen-port").as_bytes()
    );
}

#[test]
fn replace_all_false_is_the_default() {
    let before = app("# Greets every visitor.", 389);
    let tree = Tree::new().file("src/app.raku", &before);
    let mut server = fs_server(&tree);
    let message = fs_error(
        &mut server,
        "fs_edit",
        json!({"path": "src/app.raku", "old-string": "$port", "new-string": "$p", "replace-all": false}),
    );
    assert!(message.starts_with("Found 6 occurrences"), "{message}");
    assert_eq!(tree.bytes("src/app.raku"), before.as_bytes());
}

#[test]
fn replace_all_with_a_single_match_says_one_occurrence() {
    let tree = Tree::new().file("f.txt", "alpha beta\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "f.txt", "old-string": "beta", "new-string": "gamma", "replace-all": true})
        ),
        "Replaced 1 occurrence in 'f.txt'; wrote 12 bytes"
    );
    assert_eq!(tree.bytes("f.txt"), b"alpha gamma\n");
}

// ---- edit: refusals -------------------------------------------------------------------------

#[test]
fn zero_matches_are_refused_and_change_nothing() {
    let tree = Tree::new().file("notes/todo.md", "- buy milk\n");
    let mut server = fs_server(&tree);
    for old in ["- buy bread", "- Buy milk", "-  buy milk"] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_edit",
                json!({"path": "notes/todo.md", "old-string": old, "new-string": "x"})
            ),
            "Found no occurrence of 'old-string' in 'notes/todo.md'; read the file and quote its text exactly",
            "{old:?}"
        );
    }
    // A quote with the other line ending is named as such.
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "notes/todo.md", "old-string": "- buy milk\r\n", "new-string": "x"})
        ),
        "Found no occurrence of 'old-string' in 'notes/todo.md' as written, but the text is there with the other line ending (\\n where you wrote \\r\\n, or the reverse); quote line endings as the file has them"
    );
    assert_eq!(tree.bytes("notes/todo.md"), b"- buy milk\n");
}

#[test]
fn an_empty_old_string_is_refused() {
    let tree = Tree::new().file("f.txt", "abc");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "f.txt", "old-string": "", "new-string": "x"})
        ),
        "'old-string' is empty; quote the text to replace"
    );
    assert_eq!(tree.bytes("f.txt"), b"abc");
}

#[test]
fn an_old_string_equal_to_the_new_string_is_refused() {
    let tree = Tree::new().file("f.txt", "abc");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "f.txt", "old-string": "b", "new-string": "b"})
        ),
        "'old-string' and 'new-string' are identical; nothing would change"
    );
    assert_eq!(tree.bytes("f.txt"), b"abc");
}

#[test]
fn editing_a_missing_file_is_refused() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "gone.txt", "old-string": "a", "new-string": "b"})
        ),
        "'gone.txt' does not exist"
    );
    assert!(tree.names("").is_empty());
}

#[test]
fn edit_arguments_are_checked() {
    let tree = Tree::new().file("f.txt", "abc");
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "f.txt", "old-string": "a"}),
        json!({"path": "f.txt", "new-string": "a"}),
        json!({"old-string": "a", "new-string": "b"}),
        json!({"path": "f.txt", "old-string": "a", "new-string": 1}),
        json!({"path": "f.txt", "old-string": "a", "new-string": "b", "replace-all": "yes"}),
        json!({"path": "f.txt", "old_string": "a", "new_string": "b"}),
    ] {
        fs_error(&mut server, "fs_edit", args);
    }
    assert_eq!(tree.bytes("f.txt"), b"abc");
}

// ---- edit: byte fidelity --------------------------------------------------------------------

#[test]
fn an_empty_new_string_deletes_the_match() {
    let tree = Tree::new().file("f.txt", "keep this, drop this\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "f.txt", "old-string": ", drop this", "new-string": ""})
        ),
        "Replaced 1 occurrence in 'f.txt'; wrote 10 bytes"
    );
    assert_eq!(tree.bytes("f.txt"), b"keep this\n");
}

#[test]
fn a_leading_bom_is_preserved() {
    let tree = Tree::new().file("bom.txt", "\u{feff}hello world\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "bom.txt", "old-string": "world", "new-string": "there"})
        ),
        "Replaced 1 occurrence in 'bom.txt'; wrote 15 bytes"
    );
    assert_eq!(tree.bytes("bom.txt"), "\u{feff}hello there\n".as_bytes());
}

#[test]
fn the_start_of_a_bom_file_is_editable_without_quoting_the_bom() {
    let tree = Tree::new().file("bom.txt", "\u{feff}first\nsecond\n");
    let mut server = fs_server(&tree);
    edit(
        &mut server,
        json!({"path": "bom.txt", "old-string": "first", "new-string": "1st"}),
    );
    assert_eq!(tree.bytes("bom.txt"), "\u{feff}1st\nsecond\n".as_bytes());
}

#[test]
fn a_crlf_file_keeps_every_other_byte() {
    let before = "one\r\ntwo\r\nthree\r\nfour\nfive\r\n";
    let tree = Tree::new().file("crlf.txt", before);
    let mut server = fs_server(&tree);
    edit(
        &mut server,
        json!({"path": "crlf.txt", "old-string": "three", "new-string": "THREE"}),
    );
    assert_eq!(
        tree.bytes("crlf.txt"),
        b"one\r\ntwo\r\nTHREE\r\nfour\nfive\r\n"
    );
}

#[test]
fn in_a_crlf_file_line_breaks_are_quoted_and_written_as_the_file_has_them() {
    let tree = Tree::new().file("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    let mut server = fs_server(&tree);
    // A model quotes with `\n`; the file's `\r\n` is matched, and `\n` is written as `\r\n`.
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "crlf.txt", "old-string": "one\ntwo", "new-string": "1\n2\nand a half"})
        ),
        "Replaced 1 occurrence in 'crlf.txt'; wrote 25 bytes"
    );
    assert_eq!(tree.bytes("crlf.txt"), b"1\r\n2\r\nand a half\r\nthree\r\n");
    // Quoting `\r\n` itself works as before.
    edit(
        &mut server,
        json!({"path": "crlf.txt", "old-string": "2\r\nand", "new-string": "2\r\nthen"}),
    );
    assert_eq!(
        tree.bytes("crlf.txt"),
        b"1\r\n2\r\nthen a half\r\nthree\r\n"
    );
}

#[test]
fn a_file_that_mixes_line_endings_is_matched_exactly_and_says_so() {
    let before = "one\r\ntwo\nthree\r\n";
    let tree = Tree::new().file("mixed.txt", before);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "mixed.txt", "old-string": "one\ntwo", "new-string": "x"})
        ),
        "Found no occurrence of 'old-string' in 'mixed.txt' as written, but the text is there with the other line ending (\\n where you wrote \\r\\n, or the reverse); quote line endings as the file has them"
    );
    assert_eq!(tree.bytes("mixed.txt"), before.as_bytes());
    edit(
        &mut server,
        json!({"path": "mixed.txt", "old-string": "one\r\ntwo\n", "new-string": "1\r\n2\n"}),
    );
    assert_eq!(tree.bytes("mixed.txt"), b"1\r\n2\nthree\r\n");
}

#[test]
fn a_file_in_any_normalization_is_edited_exactly() {
    let before = "cafe\u{301} and tea\n'K', '\u{212A}'\n";
    let tree = Tree::new().file("menu.txt", before);
    let mut server = fs_server(&tree);
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "menu.txt", "old-string": "tea", "new-string": "coffee"})
        ),
        format!(
            "Replaced 1 occurrence in 'menu.txt'; wrote {} bytes",
            before.len() + 3
        )
    );
    let after = before.replace("tea", "coffee");
    assert_eq!(tree.bytes("menu.txt"), after.as_bytes());
    // The Kelvin sign is matched as itself, never as a K.
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "menu.txt", "old-string": "'\u{212A}'", "new-string": "'kelvin'"})
        ),
        format!(
            "Replaced 1 occurrence in 'menu.txt'; wrote {} bytes",
            after.len() + 3
        )
    );
    assert!(
        String::from_utf8(tree.bytes("menu.txt"))
            .unwrap()
            .contains("'K', 'kelvin'")
    );
}

#[test]
fn an_old_string_in_another_normalization_form_is_named_as_such() {
    let before = "cafe\u{301} au lait\n";
    let tree = Tree::new().file("menu.txt", before);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "menu.txt", "old-string": "caf\u{e9}", "new-string": "tea"})
        ),
        "Found no occurrence of 'old-string' in 'menu.txt' as written, but the text is there with its accented characters composed differently (another Unicode normalization form); quote the file's text exactly as fs_read returns it"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "menu.txt", "old-string": "tea", "new-string": "coffee"})
        ),
        "Found no occurrence of 'old-string' in 'menu.txt'; read the file and quote its text exactly"
    );
    assert_eq!(tree.bytes("menu.txt"), before.as_bytes());
    // Quoted as read returns it, the same text is found.
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "menu.txt", "old-string": "cafe\u{301}", "new-string": "tea"})
        ),
        "Replaced 1 occurrence in 'menu.txt'; wrote 12 bytes"
    );
}

#[test]
fn an_edit_keeps_the_file_mode() {
    let tree = Tree::new().file("run.sh", "echo one\n");
    tree.chmod("run.sh", 0o751);
    let mut server = fs_server(&tree);
    edit(
        &mut server,
        json!({"path": "run.sh", "old-string": "one", "new-string": "two"}),
    );
    assert_eq!(tree.bytes("run.sh"), b"echo two\n");
    assert_eq!(tree.mode("run.sh"), 0o751);
}

#[test]
fn an_edit_reports_the_revision_of_the_new_bytes() {
    let tree = Tree::new().file("f.txt", "\u{feff}a\r\nb\r\n");
    let mut server = fs_server(&tree);
    let structured = fs_revisions(
        &mut server,
        "fs_edit",
        json!({"path": "f.txt", "old-string": "b", "new-string": "c"}),
    );
    assert_eq!(revision_keys(&structured), ["path"]);
    assert_eq!(
        revision(&structured, "path"),
        file_revision("\u{feff}a\r\nc\r\n")
    );
}

#[test]
fn a_read_then_an_edit_of_its_text_round_trips() {
    let tree = Tree::new().file("notes/todo.md", "- buy milk\r\n- feed the yak\r\n");
    let mut server = fs_server(&tree);
    let text = fs_text(&mut server, "fs_read", json!({"path": "notes/todo.md"}));
    let line = text.split_inclusive("\r\n").nth(1).expect("second line");
    edit(
        &mut server,
        json!({"path": "notes/todo.md", "old-string": line, "new-string": "- feed the yak twice\r\n"}),
    );
    assert_eq!(
        tree.bytes("notes/todo.md"),
        b"- buy milk\r\n- feed the yak twice\r\n"
    );
}

// ---- an edit's size ---------------------------------------------------------------------------

/// Caps the server's address space, so an edit that tried to build its result in memory would
/// abort the server instead of taking the machine's memory.
fn cap_address_space(server: &Server, bytes: u64) {
    let pid = rustix::process::Pid::from_raw(server.pid() as i32).expect("a child pid");
    let limit = rustix::process::Rlimit {
        current: Some(bytes),
        maximum: Some(bytes),
    };
    rustix::process::prlimit(Some(pid), rustix::process::Resource::As, limit)
        .expect("set the server's address-space limit");
}

#[test]
fn a_replace_all_may_grow_a_file_by_no_more_than_the_write_limit() {
    let before = "a".repeat(64 << 10);
    let tree = Tree::new().file("big.txt", &before);
    let mut server = fs_server(&tree);
    cap_address_space(&server, 1 << 30);
    // 65,536 matches of "a" by 1,000 bytes would be 65.5 MB; by 100 KB, 6.5 GB.
    for (new, grown) in [
        ("x".repeat(1_000), 65_536u64 * 999),
        ("y".repeat(100_000), 65_536 * 99_999),
    ] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_edit",
                json!({"path": "big.txt", "old-string": "a", "new-string": new, "replace-all": true})
            ),
            format!(
                "The edit would add {grown} bytes to 'big.txt', more than 65536 (the write limit); replace fewer occurrences or a shorter text, or raise it with --max-write-bytes (config key limits.max_write_bytes)"
            )
        );
    }
    // One replacement larger than a write may send is refused the same way.
    let tree_small = "needle\n";
    tree.put("small.txt", tree_small);
    let message = fs_error(
        &mut server,
        "fs_edit",
        json!({"path": "small.txt", "old-string": "needle", "new-string": "z".repeat(70_000)}),
    );
    assert!(
        message.starts_with("The edit would add 69994 bytes"),
        "{message}"
    );
    assert_eq!(tree.bytes("big.txt"), before.as_bytes());
    assert_eq!(tree.bytes("small.txt"), tree_small.as_bytes());
    // The server is alive, and an edit within the limit still goes through.
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "small.txt", "old-string": "needle", "new-string": "pin"})
        ),
        "Replaced 1 occurrence in 'small.txt'; wrote 4 bytes"
    );
}

#[test]
fn a_file_larger_than_the_write_limit_stays_editable() {
    let before = format!("{}\nfn main() {{}}\n", "// filler\n".repeat(20_000));
    let tree = Tree::new().file("src/main.rs", &before);
    let mut server = fs_server(&tree);
    let expected = before.replace("fn main() {}", "fn main() { run(); }");
    assert_eq!(
        edit(
            &mut server,
            json!({"path": "src/main.rs", "old-string": "fn main() {}", "new-string": "fn main() { run(); }"})
        ),
        format!(
            "Replaced 1 occurrence in 'src/main.rs'; wrote {} bytes",
            expected.len()
        )
    );
    assert_eq!(tree.bytes("src/main.rs"), expected.as_bytes());
}
