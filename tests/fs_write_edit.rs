//! `fs_write` and `fs_edit`: the reference examples byte for byte, what a write replaces and
//! keeps, the uniqueness rules of an edit, and its byte fidelity (BOM, CRLF, text in any
//! Unicode normalization).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use After::*;
use Reply::*;
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

/// A call of `fs_write`.
const WRITE: Case = Case::of("fs_write");

/// Writes that go through: the text they answer and the bytes (and mode) they leave.
const WRITE_SUCCESSES: &[Case] = &[
    Case {
        name: "the reference write reports its byte count",
        tree: || Tree::new().file("notes/todo.md", "- buy milk\n- feed the yak\n"),
        args: || json!({"path": "notes/todo.md", "content": "- done\n"}),
        reply: Said("Wrote 7 bytes to 'notes/todo.md'"),
        after: &[Bytes("notes/todo.md", b"- done\n")],
        ..WRITE
    },
    Case {
        name: "the byte count is of UTF-8 bytes",
        args: || json!({"path": "caf\u{e9}.txt", "content": "\u{e9}\u{1f600}\n"}),
        reply: Said("Wrote 7 bytes to 'caf\u{e9}.txt'"),
        after: &[Bytes("caf\u{e9}.txt", "\u{e9}\u{1f600}\n".as_bytes())],
        ..WRITE
    },
    Case {
        name: "a write creates a new file in an existing directory",
        tree: || Tree::new().dir("notes"),
        args: || json!({"path": "notes/new.md", "content": "fresh\n"}),
        reply: Said("Wrote 6 bytes to 'notes/new.md'"),
        after: &[Bytes("notes/new.md", b"fresh\n")],
        ..WRITE
    },
    Case {
        name: "a write replaces all existing content",
        tree: || Tree::new().file("f.txt", "a much longer old content\nwith two lines\n"),
        args: || json!({"path": "f.txt", "content": "new"}),
        reply: Said("Wrote 3 bytes to 'f.txt'"),
        after: &[Bytes("f.txt", b"new")],
        ..WRITE
    },
    Case {
        name: "empty content leaves an empty file",
        tree: || Tree::new().file("f.txt", "something"),
        args: || json!({"path": "f.txt", "content": ""}),
        reply: Said("Wrote 0 bytes to 'f.txt'"),
        after: &[Bytes("f.txt", b"")],
        ..WRITE
    },
    Case {
        name: "content is written byte for byte",
        args: || json!({"path": "raw.txt", "content": "\u{feff}cafe\u{301}\r\nline two\rthree\n\n"}),
        reply: Said("Wrote 27 bytes to 'raw.txt'"),
        after: &[Bytes(
            "raw.txt",
            "\u{feff}cafe\u{301}\r\nline two\rthree\n\n".as_bytes(),
        )],
        ..WRITE
    },
    Case {
        name: "an overwrite keeps an executable's mode",
        tree: modes_tree,
        args: || json!({"path": "run.sh", "content": "#!/bin/sh\n"}),
        reply: Said("Wrote 10 bytes to 'run.sh'"),
        after: &[Mode("run.sh", 0o750), Mode("shared.txt", 0o604)],
        ..WRITE
    },
    Case {
        name: "an overwrite keeps a file's mode for others",
        tree: modes_tree,
        args: || json!({"path": "shared.txt", "content": "new"}),
        reply: Said("Wrote 3 bytes to 'shared.txt'"),
        after: &[Mode("run.sh", 0o750), Mode("shared.txt", 0o604)],
        ..WRITE
    },
];

/// Two files with modes other than the ordinary one.
fn modes_tree() -> Tree {
    let tree = Tree::new().file("run.sh", "old").file("shared.txt", "old");
    tree.chmod("run.sh", 0o750);
    tree.chmod("shared.txt", 0o604);
    tree
}

#[test]
fn write_successes() {
    run_cases(WRITE_SUCCESSES);
}

/// Writes that are refused: the message, and that nothing was created or changed.
const WRITE_REFUSALS: &[Case] = &[
    Case {
        name: "a write whose parent is missing creates nothing",
        tree: || Tree::new().file("notes/todo.md", "x"),
        args: || json!({"path": "new/todo.md", "content": "x"}),
        reply: Refused(
            "Parent directory of 'new/todo.md' does not exist; create it with the mkdir tool first",
        ),
        after: &[Names("", &["notes"])],
        ..WRITE
    },
    Case {
        name: "a directory cannot be written",
        tree: || Tree::new().file("notes/todo.md", "x"),
        args: || json!({"path": "notes", "content": "x"}),
        reply: Refused("'notes' is a directory"),
        after: &[Names("notes", &["todo.md"])],
        ..WRITE
    },
    Case {
        name: "a FIFO cannot be written",
        tree: || Tree::new().fifo("pipe"),
        args: || json!({"path": "pipe", "content": "x"}),
        reply: Refused("'pipe' is not a regular file"),
        ..WRITE
    },
    Case {
        name: "a write to a path the root does not serve",
        tree: || Tree::new().dir("notes"),
        flags: &["--exclude", "**/*.secret"],
        args: || json!({"path": "notes/key.secret", "content": "x"}),
        reply: Refused(
            "'notes/key.secret' is not served by this root; a file written there could not be read back",
        ),
        after: &[Names("notes", &[])],
        ..WRITE
    },
];

#[test]
fn write_refusals() {
    run_cases(WRITE_REFUSALS);
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

/// A call of `fs_edit`.
const EDIT: Case = Case::of("fs_edit");

/// Edits that go through: the text they answer and the bytes (BOM, line endings, Unicode
/// normalization) and mode they leave.
const EDIT_SUCCESSES: &[Case] = &[
    Case {
        name: "replace-all with a single match says one occurrence",
        tree: || Tree::new().file("f.txt", "alpha beta\n"),
        args: || json!({"path": "f.txt", "old-string": "beta", "new-string": "gamma", "replace-all": true}),
        reply: Said("Replaced 1 occurrence in 'f.txt'; wrote 12 bytes"),
        after: &[Bytes("f.txt", b"alpha gamma\n")],
        ..EDIT
    },
    Case {
        name: "an empty new-string deletes the match",
        tree: || Tree::new().file("f.txt", "keep this, drop this\n"),
        args: || json!({"path": "f.txt", "old-string": ", drop this", "new-string": ""}),
        reply: Said("Replaced 1 occurrence in 'f.txt'; wrote 10 bytes"),
        after: &[Bytes("f.txt", b"keep this\n")],
        ..EDIT
    },
    Case {
        name: "a leading BOM is preserved",
        tree: || Tree::new().file("bom.txt", "\u{feff}hello world\n"),
        args: || json!({"path": "bom.txt", "old-string": "world", "new-string": "there"}),
        reply: Said("Replaced 1 occurrence in 'bom.txt'; wrote 15 bytes"),
        after: &[Bytes("bom.txt", "\u{feff}hello there\n".as_bytes())],
        ..EDIT
    },
    Case {
        name: "the start of a BOM file is editable without quoting the BOM",
        tree: || Tree::new().file("bom.txt", "\u{feff}first\nsecond\n"),
        args: || json!({"path": "bom.txt", "old-string": "first", "new-string": "1st"}),
        reply: Said("Replaced 1 occurrence in 'bom.txt'; wrote 14 bytes"),
        after: &[Bytes("bom.txt", "\u{feff}1st\nsecond\n".as_bytes())],
        ..EDIT
    },
    Case {
        name: "a CRLF file keeps every other byte",
        tree: || Tree::new().file("crlf.txt", "one\r\ntwo\r\nthree\r\nfour\nfive\r\n"),
        args: || json!({"path": "crlf.txt", "old-string": "three", "new-string": "THREE"}),
        reply: Said("Replaced 1 occurrence in 'crlf.txt'; wrote 28 bytes"),
        after: &[Bytes("crlf.txt", b"one\r\ntwo\r\nTHREE\r\nfour\nfive\r\n")],
        ..EDIT
    },
    Case {
        // A model quotes with `\n`; the file's `\r\n` is matched, and `\n` is written as `\r\n`.
        name: "in a CRLF file line breaks are quoted and written as the file has them",
        tree: || Tree::new().file("crlf.txt", "one\r\ntwo\r\nthree\r\n"),
        args: || json!({"path": "crlf.txt", "old-string": "one\ntwo", "new-string": "1\n2\nand a half"}),
        reply: Said("Replaced 1 occurrence in 'crlf.txt'; wrote 25 bytes"),
        after: &[Bytes("crlf.txt", b"1\r\n2\r\nand a half\r\nthree\r\n")],
        ..EDIT
    },
    Case {
        name: "in a CRLF file quoting CRLF itself works as before",
        tree: || Tree::new().file("crlf.txt", "1\r\n2\r\nand a half\r\nthree\r\n"),
        args: || json!({"path": "crlf.txt", "old-string": "2\r\nand", "new-string": "2\r\nthen"}),
        reply: Said("Replaced 1 occurrence in 'crlf.txt'; wrote 26 bytes"),
        after: &[Bytes("crlf.txt", b"1\r\n2\r\nthen a half\r\nthree\r\n")],
        ..EDIT
    },
    Case {
        name: "a file that mixes line endings is matched exactly",
        tree: || Tree::new().file("mixed.txt", "one\r\ntwo\nthree\r\n"),
        args: || json!({"path": "mixed.txt", "old-string": "one\r\ntwo\n", "new-string": "1\r\n2\n"}),
        reply: Said("Replaced 1 occurrence in 'mixed.txt'; wrote 12 bytes"),
        after: &[Bytes("mixed.txt", b"1\r\n2\nthree\r\n")],
        ..EDIT
    },
    Case {
        name: "a file in any normalization is edited exactly",
        tree: || Tree::new().file("menu.txt", "cafe\u{301} and tea\n'K', '\u{212A}'\n"),
        args: || json!({"path": "menu.txt", "old-string": "tea", "new-string": "coffee"}),
        reply: Said("Replaced 1 occurrence in 'menu.txt'; wrote 29 bytes"),
        after: &[Bytes(
            "menu.txt",
            "cafe\u{301} and coffee\n'K', '\u{212A}'\n".as_bytes(),
        )],
        ..EDIT
    },
    Case {
        name: "the Kelvin sign is matched as itself, never as a K",
        tree: || Tree::new().file("menu.txt", "cafe\u{301} and coffee\n'K', '\u{212A}'\n"),
        args: || json!({"path": "menu.txt", "old-string": "'\u{212A}'", "new-string": "'kelvin'"}),
        reply: Said("Replaced 1 occurrence in 'menu.txt'; wrote 32 bytes"),
        after: &[Bytes(
            "menu.txt",
            "cafe\u{301} and coffee\n'K', 'kelvin'\n".as_bytes(),
        )],
        ..EDIT
    },
    Case {
        name: "an old-string quoted as read returns it is found",
        tree: || Tree::new().file("menu.txt", "cafe\u{301} au lait\n"),
        args: || json!({"path": "menu.txt", "old-string": "cafe\u{301}", "new-string": "tea"}),
        reply: Said("Replaced 1 occurrence in 'menu.txt'; wrote 12 bytes"),
        after: &[Bytes("menu.txt", b"tea au lait\n")],
        ..EDIT
    },
    Case {
        name: "an edit keeps the file mode",
        tree: || {
            let tree = Tree::new().file("run.sh", "echo one\n");
            tree.chmod("run.sh", 0o751);
            tree
        },
        args: || json!({"path": "run.sh", "old-string": "one", "new-string": "two"}),
        reply: Said("Replaced 1 occurrence in 'run.sh'; wrote 9 bytes"),
        after: &[Bytes("run.sh", b"echo two\n"), Mode("run.sh", 0o751)],
        ..EDIT
    },
];

#[test]
fn edit_successes() {
    run_cases(EDIT_SUCCESSES);
}

/// An edit of `notes/todo.md` (`- buy milk`) quoting text it does not hold.
const NOT_IN_TODO: Case = Case {
    tree: || Tree::new().file("notes/todo.md", "- buy milk\n"),
    reply: Refused(
        "Found no occurrence of 'old-string' in 'notes/todo.md'; read the file and quote its text exactly",
    ),
    after: &[Bytes("notes/todo.md", b"- buy milk\n")],
    ..EDIT
};

/// Edits that are refused: the message, and that the file is as it was.
const EDIT_REFUSALS: &[Case] = &[
    Case {
        name: "several matches are refused with their count",
        tree: || Tree::new().file("src/app.raku", app("# Greets every client that asks", 397)),
        args: || json!({"path": "src/app.raku", "old-string": "$port", "new-string": "$listen-port"}),
        reply: Refused(
            "Found 6 occurrences of 'old-string' in 'src/app.raku'; quote more of the surrounding text to pick one out, or set replace-all to true",
        ),
        after: &[Unchanged],
        ..EDIT
    },
    Case {
        name: "replace-all false is the default",
        tree: || Tree::new().file("src/app.raku", app("# Greets every visitor.", 389)),
        args: || json!({"path": "src/app.raku", "old-string": "$port", "new-string": "$p", "replace-all": false}),
        reply: Refused(
            "Found 6 occurrences of 'old-string' in 'src/app.raku'; quote more of the surrounding text to pick one out, or set replace-all to true",
        ),
        after: &[Unchanged],
        ..EDIT
    },
    Case {
        name: "zero matches: another word",
        args: || json!({"path": "notes/todo.md", "old-string": "- buy bread", "new-string": "x"}),
        ..NOT_IN_TODO
    },
    Case {
        name: "zero matches: another case",
        args: || json!({"path": "notes/todo.md", "old-string": "- Buy milk", "new-string": "x"}),
        ..NOT_IN_TODO
    },
    Case {
        name: "zero matches: other spacing",
        args: || json!({"path": "notes/todo.md", "old-string": "-  buy milk", "new-string": "x"}),
        ..NOT_IN_TODO
    },
    Case {
        name: "a quote with the other line ending is named as such",
        args: || json!({"path": "notes/todo.md", "old-string": "- buy milk\r\n", "new-string": "x"}),
        reply: Refused(
            "Found no occurrence of 'old-string' in 'notes/todo.md' as written, but the text is there with the other line ending (\\n where you wrote \\r\\n, or the reverse); quote line endings as the file has them",
        ),
        ..NOT_IN_TODO
    },
    Case {
        name: "a file that mixes line endings says so",
        tree: || Tree::new().file("mixed.txt", "one\r\ntwo\nthree\r\n"),
        args: || json!({"path": "mixed.txt", "old-string": "one\ntwo", "new-string": "x"}),
        reply: Refused(
            "Found no occurrence of 'old-string' in 'mixed.txt' as written, but the text is there with the other line ending (\\n where you wrote \\r\\n, or the reverse); quote line endings as the file has them",
        ),
        after: &[Bytes("mixed.txt", b"one\r\ntwo\nthree\r\n")],
        ..EDIT
    },
    Case {
        name: "an old-string in another normalization form is named as such",
        tree: || Tree::new().file("menu.txt", "cafe\u{301} au lait\n"),
        args: || json!({"path": "menu.txt", "old-string": "caf\u{e9}", "new-string": "tea"}),
        reply: Refused(
            "Found no occurrence of 'old-string' in 'menu.txt' as written, but the text is there with its accented characters composed differently (another Unicode normalization form); quote the file's text exactly as fs_read returns it",
        ),
        after: &[Bytes("menu.txt", "cafe\u{301} au lait\n".as_bytes())],
        ..EDIT
    },
    Case {
        name: "text in no normalization form is not there",
        tree: || Tree::new().file("menu.txt", "cafe\u{301} au lait\n"),
        args: || json!({"path": "menu.txt", "old-string": "tea", "new-string": "coffee"}),
        reply: Refused(
            "Found no occurrence of 'old-string' in 'menu.txt'; read the file and quote its text exactly",
        ),
        after: &[Bytes("menu.txt", "cafe\u{301} au lait\n".as_bytes())],
        ..EDIT
    },
    Case {
        name: "an empty old-string",
        tree: || Tree::new().file("f.txt", "abc"),
        args: || json!({"path": "f.txt", "old-string": "", "new-string": "x"}),
        reply: Refused("'old-string' is empty; quote the text to replace"),
        after: &[Bytes("f.txt", b"abc")],
        ..EDIT
    },
    Case {
        name: "an old-string equal to the new-string",
        tree: || Tree::new().file("f.txt", "abc"),
        args: || json!({"path": "f.txt", "old-string": "b", "new-string": "b"}),
        reply: Refused("'old-string' and 'new-string' are identical; nothing would change"),
        after: &[Bytes("f.txt", b"abc")],
        ..EDIT
    },
    Case {
        name: "editing a missing file",
        args: || json!({"path": "gone.txt", "old-string": "a", "new-string": "b"}),
        reply: Refused("'gone.txt' does not exist"),
        after: &[Names("", &[])],
        ..EDIT
    },
];

#[test]
fn edit_refusals() {
    run_cases(EDIT_REFUSALS);
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
        // Another tool's spelling is taken, but one argument twice is refused.
        json!({"path": "f.txt", "old_string": "a", "old-string": "a", "new-string": "b"}),
        json!({"path": "f.txt", "edits": []}),
        json!({"path": "f.txt", "edits": [{"old-string": "a"}]}),
        json!({"path": "f.txt", "edits": [{"old-string": "a", "new-string": "b", "x": 1}]}),
    ] {
        fs_error(&mut server, "fs_edit", args);
    }
    assert_eq!(tree.bytes("f.txt"), b"abc");
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

/// One long line of many matches costs one pass, not one pass per match: 16 MiB of `x` in a
/// single line, every `xx` made `x` (8,388,608 runs), dry and then for real. Each run used to
/// rescan the rest of the line for the dry-run diff's hunks, a quadratic that took minutes
/// here and held the root meanwhile; the harness's wait for an answer bounds both calls.
#[test]
fn replace_all_on_one_long_line_is_linear() {
    let before = "x".repeat(16 << 20);
    let tree = Tree::new()
        .file("one-line.min.js", &before)
        .file("small.txt", "hi\n");
    let mut server = fs_server(&tree);
    let args = |dry: bool| {
        json!({"path": "one-line.min.js", "old-string": "xx", "new-string": "x",
               "replace-all": true, "dry-run": dry})
    };
    let preview = fs_text(&mut server, "fs_edit", args(true));
    assert!(
        preview.starts_with("--- a/one-line.min.js\n+++ b/one-line.min.js\n@@ -1 +1 @@\n"),
        "{}",
        &preview[..200.min(preview.len())]
    );
    assert_eq!(
        tree.bytes("one-line.min.js").len(),
        16 << 20,
        "a dry run changes nothing"
    );
    assert_eq!(
        edit(&mut server, args(false)),
        "Replaced 8388608 occurrences in 'one-line.min.js'; wrote 8388608 bytes"
    );
    assert_eq!(
        tree.bytes("one-line.min.js"),
        "x".repeat(8 << 20).as_bytes()
    );
    // The root is free again at once.
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "small.txt"})),
        "hi\n"
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

/// A write the permissions refuse was once answered "not a regular file", which sent an agent
/// looking for a link or a FIFO. The answer now says what it is, and changes nothing.
#[test]
fn a_write_the_permissions_refuse_is_named_as_such() {
    let tree = Tree::new().file("locked.txt", "kept\n");
    tree.chmod("locked.txt", 0o444);
    // Root bypasses permission bits: as root, the server runs as an unprivileged user.
    let Some(mut server) = unprivileged_server(&tree, &["--tools", "fs,ptc", "--include", "**"])
    else {
        return;
    };
    let denied = "'locked.txt' may not be changed by this server: the permissions (mode or owner) of it or of its directory deny it; change them, or write elsewhere";
    let write = json!({"path": "locked.txt", "content": "new\n"});
    assert_eq!(fs_error(&mut server, "fs_write", write), denied);
    let edit = json!({"path": "locked.txt", "old-string": "kept", "new-string": "new"});
    assert_eq!(fs_error(&mut server, "fs_edit", edit), denied);
    assert_eq!(
        std::fs::read_to_string(tree.join("locked.txt")).unwrap(),
        "kept\n"
    );
    // The program-facing tool keeps the wording of the tool it stands in for.
    let refused = server.call_result(
        "write_text_file",
        json!({"path": "locked.txt", "content": "new\n"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"], "destination is not a writable regular file",
        "{refused}"
    );
}

/// Agents trained on other hosts' tools write `old_string`, `replace_all`, `max_results`: the
/// fs tools take those spellings for their own, and name a misspelt argument with the nearest
/// valid one; the `ptc` tools keep the reference toolkit's words.
#[test]
fn arguments_in_other_tools_spellings_are_taken_and_misspellings_named() {
    let tree = Tree::new().file("a.txt", "one two one\n");
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    fs_text(
        &mut server,
        "fs_edit",
        json!({"path": "a.txt", "old_string": "one", "new_string": "1", "replace_all": true}),
    );
    assert_eq!(tree.bytes("a.txt"), b"1 two 1\n");
    assert!(
        fs_text(
            &mut server,
            "fs_grep",
            json!({"pattern": "two", "maxResults": 1})
        )
        .starts_with("a.txt:1:")
    );
    for (tool, args, message) in [
        (
            "fs_edit",
            json!({"path": "a.txt", "old_str": "1", "new-string": "x"}),
            "'old_str' is not an argument of this tool; did you mean 'old-string'?",
        ),
        (
            "fs_edit",
            json!({"path": "a.txt", "old_string": "1", "old-string": "1", "new-string": "x"}),
            "'old_string' and 'old-string' are one argument, 'old-string': give it once",
        ),
        (
            "fs_read",
            json!({"path": "a.txt", "lines": 3}),
            "'lines' is not an argument of this tool; its arguments are 'path', 'paths', 'offset', 'limit', 'column'",
        ),
    ] {
        assert_eq!(
            fs_error(&mut server, tool, args.clone()),
            schema_error(tool, message),
            "{args}"
        );
        assert_eq!(tree.bytes("a.txt"), b"1 two 1\n", "{args} changed nothing");
    }
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "a.txt", "old_string": 1})),
        schema_error("read_text_file", "data must NOT have additional properties")
    );
}

/// `read` shows a file's text without its leading BOM; writing that text back keeps the BOM,
/// so a read-modify-write changes only the bytes the agent changed, and its dry run shows
/// only those.
#[test]
fn a_read_modify_write_round_trip_keeps_a_leading_bom() {
    let bom_crlf = "\u{feff}first\r\nsecond\r\n";
    let tree = Tree::new()
        .file("bom.txt", bom_crlf)
        .file("plain.txt", "plain\n")
        .file("only-bom.txt", "\u{feff}");
    let mut server = fs_server(&tree);
    let text = fs_text(&mut server, "fs_read", json!({"path": "bom.txt"}));
    assert_eq!(text, "first\r\nsecond\r\n");
    // Written back unchanged: nothing to change, byte for byte.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_write",
            json!({"path": "bom.txt", "content": text, "dry-run": true})
        ),
        "'bom.txt' already holds exactly this content; nothing would change"
    );
    assert_eq!(
        write(&mut server, "bom.txt", &text),
        format!(
            "Wrote {} bytes to 'bom.txt' (its leading BOM kept)",
            bom_crlf.len()
        )
    );
    assert_eq!(tree.bytes("bom.txt"), bom_crlf.as_bytes());
    // Changed: only the changed line differs from the original.
    let changed = text.replace("second", "2nd");
    write(&mut server, "bom.txt", &changed);
    assert_eq!(tree.bytes("bom.txt"), "\u{feff}first\r\n2nd\r\n".as_bytes());
    // Content that brings its own BOM is written as it is; a file without one gets none.
    write(&mut server, "bom.txt", "\u{feff}own\n");
    assert_eq!(tree.bytes("bom.txt"), "\u{feff}own\n".as_bytes());
    assert_eq!(
        write(&mut server, "plain.txt", "still plain\n"),
        "Wrote 12 bytes to 'plain.txt'"
    );
    assert_eq!(tree.bytes("plain.txt"), b"still plain\n");
    write(&mut server, "only-bom.txt", "now text\n");
    assert_eq!(tree.bytes("only-bom.txt"), "\u{feff}now text\n".as_bytes());
    write(&mut server, "new.txt", "fresh\n");
    assert_eq!(tree.bytes("new.txt"), b"fresh\n");
}

/// Several edits in one call, as hosts' multi-edit tools send them: applied in order to one
/// file, each with its own replace-all, all or none, in another tool's spelling too.
#[test]
fn several_edits_apply_in_order_all_or_none() {
    let tree = Tree::new().file("lib.rs", "fn old() {}\nfn caller() { old(); old(); }\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_edit",
            json!({"path": "lib.rs", "edits": [
                {"old_string": "old", "new_string": "new", "replace_all": true},
                {"old-string": "fn caller()", "new-string": "pub fn caller()"},
            ]})
        ),
        "Applied 2 edits in 'lib.rs' (4 occurrences replaced); wrote 46 bytes"
    );
    assert_eq!(
        tree.bytes("lib.rs"),
        b"fn new() {}\npub fn caller() { new(); new(); }\n"
    );
    // The second edit fails: the first is not applied either.
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            json!({"path": "lib.rs", "edits": [
                {"old-string": "new", "new-string": "newer", "replace-all": true},
                {"old-string": "new()", "new-string": "x"},
            ]})
        ),
        "edits/1: Found no occurrence of 'old-string' in 'lib.rs'; read the file and quote its text exactly (no edit was applied)"
    );
    assert_eq!(
        tree.bytes("lib.rs"),
        b"fn new() {}\npub fn caller() { new(); new(); }\n"
    );
}
