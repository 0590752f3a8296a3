//! `dry-run` of `fs_edit` and `fs_write`, and the diff every edit returns: a dry run changes
//! nothing (bytes, modification time, inode, no temporary file), refuses exactly what the real
//! call refuses, and answers a unified diff that `patch -p1` and `git apply` turn into exactly
//! the bytes the real call then writes, with the hunks `diff -u` prints, on awkward files (CRLF,
//! BOM, no final newline, NFD text, a long line, a lone CR, odd names).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Stdio};
use support::fs::*;
use support::*;

/// `args` with `dry-run: true`.
fn dry(args: &Value) -> Value {
    let mut args = args.clone();
    args["dry-run"] = json!(true);
    args
}

/// A file's bytes, modification time (seconds, nanoseconds) and inode.
type FileState = (Vec<u8>, i64, i64, u64);

/// What a dry run must leave as it found: the file's bytes, modification time and inode, and
/// the names beside it (no temporary file).
fn on_disk(tree: &Tree, path: &str) -> (Option<FileState>, Vec<String>) {
    let dir = Path::new(path)
        .parent()
        .map_or(String::new(), |p| p.to_string_lossy().into_owned());
    let file = std::fs::symlink_metadata(tree.join(path)).ok().map(|meta| {
        (
            tree.bytes(path),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ino(),
        )
    });
    (file, tree.names(&dir))
}

/// Runs `command` (reading `diff` on stdin) in a fresh directory holding `files`, and returns
/// what `path` holds afterwards. The command must succeed.
fn applied_by(command: &[&str], files: &[(&str, &[u8])], diff: &str, path: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("a scratch directory");
    for (name, bytes) in files {
        let file = dir.path().join(name);
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
        std::fs::write(file, bytes).expect("write a copy");
    }
    let mut child = Command::new(command[0])
        .args(&command[1..])
        .current_dir(dir.path())
        // The user's git configuration (autocrlf, say) must not change what is applied.
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{} must be installed: {e}", command[0]));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(diff.as_bytes())
        .expect("send the diff");
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{command:?} refused the diff:\n{diff}\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read(dir.path().join(path)).expect("the patched file")
}

/// The hunks `diff -u` prints for two versions of a file (its two header lines left out, as
/// they carry the scratch paths and times).
fn diff_u_hunks(old: &[u8], new: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("a scratch directory");
    std::fs::write(dir.path().join("old"), old).expect("write");
    std::fs::write(dir.path().join("new"), new).expect("write");
    let output = Command::new("diff")
        .args(["-u", "old", "new"])
        .current_dir(dir.path())
        .output()
        .expect("diff must be installed");
    assert_eq!(output.status.code(), Some(1), "diff found no difference");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.splitn(3, '\n').nth(2).expect("hunks").to_owned()
}

/// The diff text without its `---` and `+++` lines.
fn hunks(diff: &str) -> &str {
    diff.splitn(3, '\n').nth(2).expect("hunks")
}

/// One change checked against the tools that define a unified diff.
struct Differential {
    name: &'static str,
    /// The file changed, and what it holds before (`None`: it does not exist).
    path: &'static str,
    before: fn() -> Option<Vec<u8>>,
    tool: &'static str,
    args: fn() -> Value,
}

/// A long line, to hold a change in its middle.
fn long_line() -> String {
    format!("{}needle{}\n", "a".repeat(7000), "z".repeat(7000))
}

/// 10,000 numbered lines; those ending in `= 7;` are 7, 1007, 2007 … 9007 (every 1000th), and
/// two of them sit next to each other near the end.
fn deep() -> String {
    (0..10_000)
        .map(|i| match i {
            9_010 => "let v = 7;\n".to_owned(),
            i if i % 1000 == 7 => format!("let v{i} = 7;\n"),
            i => format!("let v{i} = {};\n", i % 7),
        })
        .collect()
}

const DIFFERENTIALS: &[Differential] = &[
    Differential {
        name: "several edits in one call, in a CRLF file with a BOM",
        path: "multi.txt",
        before: || {
            Some(
                "\u{feff}alpha\r\nbeta\r\ngamma\r\nbeta\r\ndelta\r\n"
                    .as_bytes()
                    .to_vec(),
            )
        },
        tool: "fs_edit",
        args: || {
            json!({"path": "multi.txt", "edits": [
                {"old-string": "beta", "new-string": "BETA", "replace-all": true},
                {"old-string": "gamma\nBETA", "new-string": "gamma"},
                {"old_string": "delta", "new_string": "omega\nend"},
            ]})
        },
    },
    Differential {
        name: "several edits far apart in 10,000 lines",
        path: "deep.rs",
        before: || Some(deep().into_bytes()),
        tool: "fs_edit",
        args: || {
            json!({"path": "deep.rs", "edits": [
                {"old-string": "let v7 = 7;", "new-string": "let v7 = 70;"},
                {"old-string": "let v9007 = 7;", "new-string": ""},
            ]})
        },
    },
    Differential {
        name: "a CRLF file, quoted with \\n",
        path: "crlf.txt",
        before: || Some(b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "crlf.txt", "old-string": "two\nthree", "new-string": "2\n3\n3.5"}),
    },
    Differential {
        name: "the first line of a file with a BOM",
        path: "bom.txt",
        before: || Some("\u{feff}first\nsecond\nthird\n".as_bytes().to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "bom.txt", "old-string": "first", "new-string": "1st"}),
    },
    Differential {
        name: "the last line of a file without a final newline",
        path: "open.txt",
        before: || Some(b"a\nb\nc\nd\ne\nf".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "open.txt", "old-string": "f", "new-string": "F"}),
    },
    Differential {
        name: "a final newline added",
        path: "open.txt",
        before: || Some(b"a\nb\nc".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "open.txt", "old-string": "c", "new-string": "c\nd\n"}),
    },
    Differential {
        name: "a final newline removed",
        path: "closed.txt",
        before: || Some(b"a\nb\nc\n".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "closed.txt", "old-string": "c\n", "new-string": "c"}),
    },
    Differential {
        name: "NFD text replaced by NFC",
        path: "menu.txt",
        before: || Some("tea\ncafe\u{301} au lait\nna\u{ef}ve\n".as_bytes().to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "menu.txt", "old-string": "cafe\u{301}", "new-string": "caf\u{e9}"}),
    },
    Differential {
        name: "a word in the middle of a 14 KB line",
        path: "long.txt",
        before: || Some(long_line().into_bytes()),
        tool: "fs_edit",
        args: || json!({"path": "long.txt", "old-string": "needle", "new-string": "thread"}),
    },
    Differential {
        name: "a lone CR inside a line",
        path: "cr.txt",
        before: || Some(b"left\rright\nnext\n".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "cr.txt", "old-string": "right", "new-string": "RIGHT"}),
    },
    Differential {
        name: "replace-all far apart gives several hunks",
        path: "many.txt",
        before: || {
            Some(
                b"x\n1\n2\n3\n4\n5\n6\n7\n8\n9\nx\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nx\n"
                    .to_vec(),
            )
        },
        tool: "fs_edit",
        args: || json!({"path": "many.txt", "old-string": "x", "new-string": "y\ny", "replace-all": true}),
    },
    Differential {
        name: "a whole line deleted",
        path: "list.txt",
        before: || Some(b"keep\ndrop\nkeep too\n".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "list.txt", "old-string": "drop\n", "new-string": ""}),
    },
    Differential {
        name: "a name with a space, in a directory",
        path: "docs/odd name.md",
        before: || Some(b"# Title\n\nbody\n".to_vec()),
        tool: "fs_edit",
        args: || json!({"path": "docs/odd name.md", "old-string": "body", "new-string": "text"}),
    },
    Differential {
        name: "runs far apart deep in a long file keep their line numbers",
        path: "deep.txt",
        before: || Some(deep().into_bytes()),
        tool: "fs_edit",
        args: || json!({"path": "deep.txt", "old-string": "= 7;", "new-string": "= seven;\n// was 7", "replace-all": true}),
    },
    Differential {
        name: "a write creating a file",
        path: "notes/new.md",
        before: || None,
        tool: "fs_write",
        args: || json!({"path": "notes/new.md", "content": "fresh\nlines\n"}),
    },
    Differential {
        name: "a write turning CRLF into LF",
        path: "crlf.txt",
        before: || Some(b"one\r\ntwo\r\nthree\r\n".to_vec()),
        tool: "fs_write",
        args: || json!({"path": "crlf.txt", "content": "one\ntwo\nthree\n"}),
    },
    Differential {
        name: "a write changing one line of many",
        path: "conf.ini",
        before: || Some(b"[a]\nx=1\ny=2\nz=3\n[b]\nw=4\nv=5\nu=6\nt=7\n".to_vec()),
        tool: "fs_write",
        args: || json!({"path": "conf.ini", "content": "[a]\nx=1\ny=2\nz=3\n[b]\nw=40\nv=5\nu=6\nt=7"}),
    },
    Differential {
        name: "a write emptying a file",
        path: "gone.txt",
        before: || Some(b"all\nof\nit\n".to_vec()),
        tool: "fs_write",
        args: || json!({"path": "gone.txt", "content": ""}),
    },
];

#[test]
fn a_dry_run_diff_applies_to_what_the_real_call_writes() {
    each_case(
        DIFFERENTIALS,
        |case| case.name.to_owned(),
        |case| {
            let before = (case.before)();
            let before = before.as_deref();
            let mut tree = Tree::new().dir("notes").dir("docs");
            if let Some(bytes) = before {
                tree = tree.file(case.path, bytes);
            }
            let mut server = fs_server(&tree);
            let args = (case.args)();
            let untouched = on_disk(&tree, case.path);
            let (diff, structured) = fs_call(&mut server, case.tool, dry(&args));
            assert_eq!(
                on_disk(&tree, case.path),
                untouched,
                "the dry run changed it"
            );
            let structured = structured.expect("structuredContent");
            let revision = match before {
                Some(bytes) => file_revision(bytes),
                None => absent_revision(),
            };
            assert_eq!(revision_of(&structured), revision, "a dry run's revision");
            let (text, real) = fs_call(&mut server, case.tool, args.clone());
            let written = tree.bytes(case.path);
            if case.tool == "fs_edit" {
                assert!(
                    text.starts_with("Replaced ") || text.starts_with("Applied "),
                    "{text}"
                );
                // The real edit returns the diff the dry run returned.
                assert_eq!(real.expect("structuredContent")["diff"], structured["diff"]);
            }
            // The dry run's structured diff is its text when it fits (the long line does not).
            if structured["diff"] != json!(diff) {
                assert_eq!(case.path, "long.txt");
            }
            let files: Vec<(&str, &[u8])> = before.map(|b| (case.path, b)).into_iter().collect();
            for tool in [
                &["patch", "-p1", "--batch", "--quiet"][..],
                &["git", "apply", "--whitespace=nowarn"][..],
            ] {
                assert!(
                    applied_by(tool, &files, &diff, case.path) == written,
                    "{tool:?} applied the diff to other bytes than {} wrote:\n{diff}",
                    case.tool
                );
            }
            assert_eq!(
                hunks(&diff),
                diff_u_hunks(before.unwrap_or_default(), &written),
                "the hunks diff -u prints"
            );
        },
    );
}

/// The `path` revision of a result's `structuredContent`.
fn revision_of(structured: &Value) -> (String, Option<String>) {
    revision(structured, "path")
}

#[test]
fn the_diff_has_diff_u_headers() {
    let tree = Tree::new().file("a.txt", "one\ntwo\n").dir("d");
    let mut server = fs_server(&tree);
    says_each(
        &mut server,
        "fs_edit",
        &[(
            json!({"path": "a.txt", "old-string": "two", "new-string": "2", "dry-run": true}),
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
        )],
    );
    says_each(
        &mut server,
        "fs_write",
        &[
            (
                json!({"path": "d/n.txt", "content": "x", "dry-run": true}),
                "--- /dev/null\n+++ b/d/n.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
            ),
            (
                json!({"path": "d/e.txt", "content": "", "dry-run": true}),
                "--- /dev/null\n+++ b/d/e.txt\n[no lines: the file is new and empty]\n",
            ),
            (
                json!({"path": "a.txt", "content": "one\ntwo\n", "dry-run": true}),
                "'a.txt' already holds exactly this content; nothing would change",
            ),
            (
                json!({"path": "a.txt", "content": "one\ntwo\n", "dry-run": false}),
                "Wrote 8 bytes to 'a.txt'",
            ),
        ],
    );
    assert_eq!(tree.names(""), ["a.txt", "d"]);
    assert_eq!(tree.names("d"), Vec::<String>::new());
}

#[test]
fn a_name_that_could_forge_a_header_is_quoted_and_still_applies() {
    let name = "we\nird\"q\u{1}.txt";
    let tree = Tree::new().file(name, "a\nb\n");
    let mut server = fs_server(&tree);
    let args = json!({"path": name, "old-string": "b", "new-string": "c"});
    let diff = fs_text(&mut server, "fs_edit", dry(&args));
    assert_eq!(
        diff,
        "--- \"a/we\\nird\\\"q\\001.txt\"\n+++ \"b/we\\nird\\\"q\\001.txt\"\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    );
    fs_text(&mut server, "fs_edit", args);
    for tool in [
        &["patch", "-p1", "--batch", "--quiet"][..],
        &["git", "apply"][..],
    ] {
        assert_eq!(
            applied_by(tool, &[(name, b"a\nb\n")], &diff, name),
            tree.bytes(name)
        );
    }
}

// ---- refusals ---------------------------------------------------------------------------------

/// A call refused alike with and without `dry-run`.
struct Refusal {
    name: &'static str,
    tree: fn() -> Tree,
    flags: &'static [&'static str],
    tool: &'static str,
    args: fn() -> Value,
    message: &'static str,
}

const REFUSAL: Refusal = Refusal {
    name: "",
    tree: || {
        Tree::new()
            .file("notes/todo.md", "- buy milk\n- buy milk\n")
            .file("bin.dat", b"\xff\xfe\x00\x01text")
    },
    flags: &[],
    tool: "fs_edit",
    args: || json!({}),
    message: "",
};

const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "edits of which one quotes nothing: none is applied",
        args: || {
            json!({"path": "notes/todo.md", "edits": [
                {"old-string": "milk", "new-string": "tea", "replace-all": true},
                {"old-string": "bread", "new-string": "x"},
            ]})
        },
        message: "edits/1: Found no occurrence of 'old-string' in 'notes/todo.md'; read the file and quote its text exactly (no edit was applied)",
        ..REFUSAL
    },
    Refusal {
        name: "edits of which one quotes what an earlier one replaced",
        args: || {
            json!({"path": "notes/todo.md", "edits": [
                {"old-string": "- buy milk\n- buy milk", "new-string": "- buy tea"},
                {"old-string": "milk", "new-string": "x"},
            ]})
        },
        message: "edits/1: Found no occurrence of 'old-string' in 'notes/todo.md'; read the file and quote its text exactly (no edit was applied)",
        ..REFUSAL
    },
    Refusal {
        name: "edits beside old-string",
        args: || {
            json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "tea", "edits": [
                {"old-string": "milk", "new-string": "tea"},
            ]})
        },
        message: "give old-string and new-string (one edit) or edits (several), not both",
        ..REFUSAL
    },
    Refusal {
        name: "no edit at all",
        args: || json!({"path": "notes/todo.md"}),
        message: "give old-string and new-string (one edit), or edits: a list of them (several)",
        ..REFUSAL
    },
    Refusal {
        name: "edit of a file that is not UTF-8",
        args: || json!({"path": "bin.dat", "old-string": "text", "new-string": "TEXT"}),
        message: "'bin.dat' is not UTF-8 text",
        ..REFUSAL
    },
    Refusal {
        name: "edit quoting nothing in the file",
        args: || json!({"path": "notes/todo.md", "old-string": "bread", "new-string": "x"}),
        message: "Found no occurrence of 'old-string' in 'notes/todo.md'; read the file and quote its text exactly",
        ..REFUSAL
    },
    Refusal {
        name: "edit quoting two places",
        args: || json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "tea"}),
        message: "Found 2 occurrences of 'old-string' in 'notes/todo.md'; quote more of the surrounding text to pick one out, or set replace-all to true",
        ..REFUSAL
    },
    Refusal {
        name: "edit changing nothing",
        args: || json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "milk"}),
        message: "'old-string' and 'new-string' are identical; nothing would change",
        ..REFUSAL
    },
    Refusal {
        name: "edit of a missing file",
        args: || json!({"path": "notes/none.md", "old-string": "a", "new-string": "b"}),
        message: "'notes/none.md' does not exist",
        ..REFUSAL
    },
    Refusal {
        name: "edit of a directory",
        args: || json!({"path": "notes", "old-string": "a", "new-string": "b"}),
        message: "'notes' is a directory",
        ..REFUSAL
    },
    Refusal {
        name: "edit growing a file past the write limit",
        flags: &["--max-write-bytes", "8"],
        args: || json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "oat milk and honey", "replace-all": true}),
        message: "The edit would add 28 bytes to 'notes/todo.md', more than 8 (the write limit); replace fewer occurrences or a shorter text, or raise it with --max-write-bytes (config key limits.max_write_bytes)",
        ..REFUSAL
    },
    Refusal {
        name: "edit of a file past the file size limit",
        flags: &["--max-file-bytes", "8"],
        args: || json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "tea"}),
        message: "'notes/todo.md' is larger than 8 bytes (the file size limit); raise it with --max-file-bytes (config key limits.max_file_bytes)",
        ..REFUSAL
    },
    Refusal {
        name: "edit of a file changed since it was observed",
        args: || {
            with_expected(
                json!({"path": "notes/todo.md", "old-string": "- buy milk\n- buy", "new-string": "-"}),
                json!({"path": ABSENT}),
            )
        },
        message: "'path' changed since it was observed (expected sha256-v1:absent, found {token}); read it again before changing it",
        ..REFUSAL
    },
    Refusal {
        name: "edit with expected revisions lacking its path",
        args: || {
            with_expected(
                json!({"path": "notes/todo.md", "old-string": "- buy milk\n- buy", "new-string": "-"}),
                json!({}),
            )
        },
        message: "_expected-revisions has no token for 'path'; send the token from your last observation, or sha256-v1:absent for a path you expect not to exist",
        ..REFUSAL
    },
    Refusal {
        name: "write whose parent is missing",
        tool: "fs_write",
        args: || json!({"path": "new/todo.md", "content": "x"}),
        message: "Parent directory of 'new/todo.md' does not exist; create it with the mkdir tool first",
        ..REFUSAL
    },
    Refusal {
        name: "write onto a directory",
        tool: "fs_write",
        args: || json!({"path": "notes", "content": "x"}),
        message: "'notes' is a directory",
        ..REFUSAL
    },
    Refusal {
        name: "write past the write limit",
        tool: "fs_write",
        flags: &["--max-write-bytes", "4"],
        args: || json!({"path": "notes/todo.md", "content": "hello"}),
        message: "content is 5 bytes, more than 4 (the write limit); write a part with fs_write and add the rest with fs_edit, or raise it with --max-write-bytes (config key limits.max_write_bytes)",
        ..REFUSAL
    },
    Refusal {
        name: "write where the root serves nothing",
        tool: "fs_write",
        flags: &["--exclude", "**/*.secret"],
        args: || json!({"path": "notes/key.secret", "content": "x"}),
        message: "'notes/key.secret' is not served by this root; a file written there could not be read back",
        ..REFUSAL
    },
    Refusal {
        name: "write to an invalid path",
        tool: "fs_write",
        args: || json!({"path": "../x.txt", "content": "x"}),
        message: "Invalid path '../x.txt': paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names",
        ..REFUSAL
    },
    Refusal {
        name: "write expected not to exist",
        tool: "fs_write",
        args: || {
            with_expected(
                json!({"path": "bin.dat", "content": "x"}),
                json!({"path": ABSENT}),
            )
        },
        message: "'path' changed since it was observed (expected sha256-v1:absent, found {token}); read it again before changing it",
        ..REFUSAL
    },
];

#[test]
fn a_dry_run_refuses_what_the_real_call_refuses_and_changes_nothing() {
    each_case(
        REFUSALS,
        |case| case.name.to_owned(),
        |case| {
            let args = (case.args)();
            for args in [dry(&args), args.clone()] {
                let tree = (case.tree)();
                let before = snapshot(tree.path());
                let mut server = fs_server_with(&tree, case.flags);
                let message = fs_error(&mut server, case.tool, args.clone());
                // A mismatch names the file's current token, known only once the tree is built.
                let current = args["path"]
                    .as_str()
                    .filter(|path| tree.join(path).is_file())
                    .map(|path| file_token(tree.bytes(path)));
                let expected = case
                    .message
                    .replace("{token}", current.as_deref().unwrap_or("-"));
                assert_eq!(message, expected, "{args}");
                assert_eq!(snapshot(tree.path()), before, "{args} changed the root");
            }
        },
    );
}

#[test]
fn dry_run_must_be_a_boolean() {
    let tree = Tree::new().file("a.txt", "a\n");
    let mut server = fs_server(&tree);
    for (tool, args) in [
        (
            "fs_edit",
            json!({"path": "a.txt", "old-string": "a", "new-string": "b", "dry-run": "yes"}),
        ),
        (
            "fs_write",
            json!({"path": "a.txt", "content": "b", "dry-run": 1}),
        ),
    ] {
        let message = fs_error(&mut server, tool, args);
        assert!(message.contains("dry-run"), "{tool}: {message}");
    }
    assert_eq!(tree.bytes("a.txt"), b"a\n");
}

// ---- files whose lines a write's dry run does not show ----------------------------------------

#[test]
fn a_write_over_a_binary_file_says_binary_files_differ() {
    let bytes = b"\x89PNG\r\n\x1a\n\x00\xff";
    let tree = Tree::new().file("logo.png", bytes);
    let mut server = fs_server(&tree);
    let untouched = on_disk(&tree, "logo.png");
    let (text, structured) = fs_call(
        &mut server,
        "fs_write",
        json!({"path": "logo.png", "content": "text\n", "dry-run": true}),
    );
    assert_eq!(
        text,
        "Binary files a/logo.png and b/logo.png differ\n[no line diff: 'logo.png' is not UTF-8 text; the write would replace its 10 bytes with 5 bytes]\n"
    );
    let structured = structured.expect("structuredContent");
    assert_eq!(structured["diff"], json!(text));
    assert_eq!(revision_of(&structured), file_revision(bytes));
    assert_eq!(on_disk(&tree, "logo.png"), untouched);
}

#[test]
fn a_write_over_a_file_past_the_size_limit_shows_no_lines() {
    let tree = Tree::new().file("big.log", "0123456789\n".repeat(10));
    let mut server = fs_server_with(&tree, &["--max-file-bytes", "64"]);
    let untouched = on_disk(&tree, "big.log");
    assert_eq!(
        fs_text(
            &mut server,
            "fs_write",
            json!({"path": "big.log", "content": "", "dry-run": true})
        ),
        "Files a/big.log and b/big.log differ\n[no line diff: 'big.log' is larger than 64 bytes (the file size limit); raise it with --max-file-bytes (config key limits.max_file_bytes); the write would replace its 110 bytes with 0 bytes]\n"
    );
    assert_eq!(on_disk(&tree, "big.log"), untouched);
}

// ---- sizes --------------------------------------------------------------------------------------

/// A file of 3000 numbered lines, each holding an `x`.
fn numbered() -> String {
    (1..=3000).map(|i| format!("line {i}: x\n")).collect()
}

#[test]
fn a_large_diff_is_cut_at_a_line_and_says_how_large_it_is() {
    let tree = Tree::new().file("n.txt", numbered());
    let args = json!({"path": "n.txt", "old-string": "x", "new-string": "y", "replace-all": true});
    // With the largest result limit the dry run shows the whole diff.
    let mut roomy = fs_server_with(&tree, &["--max-result-bytes", "1048576"]);
    let whole = fs_text(&mut roomy, "fs_edit", dry(&args));
    assert!(
        whole.ends_with("+line 3000: y\n"),
        "{}",
        &whole[whole.len() - 40..]
    );
    roomy.close();

    let mut server = fs_server(&tree);
    let result = server.call_result("fs_edit", dry(&args));
    assert!(
        serde_json::to_string(&result).expect("JSON").len() <= 48_000,
        "the answer overflows the result limit"
    );
    let (text, structured) = fs_call(&mut server, "fs_edit", dry(&args));
    // The notice follows a blank line.
    let (kept, notice) = text.rsplit_once("\n[").expect("a notice");
    assert!(
        whole.starts_with(kept) && kept.len() > 30_000,
        "{}",
        kept.len()
    );
    assert_eq!(
        notice,
        format!(
            "the diff stopped at {} of {} bytes, as one answer holds at most 48000 bytes (the result limit); replace fewer occurrences or a shorter text, or raise it with --max-result-bytes (config key limits.max_result_bytes)]",
            kept.len(),
            whole.len()
        )
    );
    let check_structured = |diff: &str| {
        let (kept, last) = diff.trim_end().rsplit_once('\n').expect("lines");
        let kept = format!("{kept}\n");
        assert!(whole.starts_with(&kept), "a prefix of the diff");
        assert_eq!(
            last,
            format!("[diff cut at {} of {} bytes]", kept.len(), whole.len())
        );
        assert!(diff.len() <= 4096, "{}", diff.len());
    };
    check_structured(
        structured.expect("structuredContent")["diff"]
            .as_str()
            .expect("diff"),
    );
    // The real edit carries the same cut diff, and its text is as before.
    let (text, structured) = fs_call(&mut server, "fs_edit", args);
    assert_eq!(
        text,
        format!(
            "Replaced 3000 occurrences in 'n.txt'; wrote {} bytes",
            numbered().len()
        )
    );
    check_structured(
        structured.expect("structuredContent")["diff"]
            .as_str()
            .expect("diff"),
    );
    assert_eq!(tree.bytes("n.txt"), numbered().replace('x', "y").as_bytes());
}

#[test]
fn a_cut_write_diff_names_the_tools_as_published() {
    let tree = Tree::new();
    let mut server = fs_server_with(&tree, &["--prefix", "", "--max-write-bytes", "1048576"]);
    let text = fs_text(
        &mut server,
        "write",
        json!({"path": "n.txt", "content": numbered().repeat(2), "dry-run": true}),
    );
    assert!(
        text.ends_with("(the result limit); write a part with write and add the rest with edit, or raise it with --max-result-bytes (config key limits.max_result_bytes)]"),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(tree.names("").is_empty());
}

// ---- revisions ------------------------------------------------------------------------------------

#[test]
fn a_dry_runs_revision_makes_the_real_call_change_what_it_showed() {
    let tree = Tree::new().file("a.txt", "one\n");
    let mut server = fs_server(&tree);
    let edit = json!({"path": "a.txt", "old-string": "one", "new-string": "two"});
    let seen = token(&fs_revisions(&mut server, "fs_edit", dry(&edit)), "path");
    assert_eq!(seen, file_token("one\n"));
    let done = fs_revisions(
        &mut server,
        "fs_edit",
        with_expected(edit.clone(), json!({"path": seen})),
    );
    assert_eq!(revision_of(&done), file_revision("two\n"));
    // The token the dry run saw is stale now: the same call is refused and changes nothing.
    let message = fs_error(
        &mut server,
        "fs_edit",
        with_expected(
            json!({"path": "a.txt", "old-string": "two", "new-string": "three"}),
            json!({"path": seen}),
        ),
    );
    assert!(
        message.starts_with("'path' changed since it was observed"),
        "{message}"
    );
    let write = json!({"path": "b.txt", "content": "new\n"});
    let seen = token(&fs_revisions(&mut server, "fs_write", dry(&write)), "path");
    assert_eq!(seen, ABSENT);
    fs_text(
        &mut server,
        "fs_write",
        with_expected(write, json!({"path": seen})),
    );
    assert_eq!(tree.bytes("a.txt"), b"two\n");
    assert_eq!(tree.bytes("b.txt"), b"new\n");
}

#[test]
fn edit_promises_a_diff_and_write_may_return_one() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    let edit = listed_tool(&mut server, "fs_edit")["outputSchema"].clone();
    assert_eq!(edit["properties"]["diff"], json!({"type": "string"}));
    assert_eq!(
        edit["required"],
        json!(["revisionScheme", "revisions", "diff"])
    );
    let write = listed_tool(&mut server, "fs_write")["outputSchema"].clone();
    assert_eq!(write["properties"]["diff"], json!({"type": "string"}));
    assert_eq!(write["required"], json!(["revisionScheme", "revisions"]));
    // A real write returns no diff: it never reads what it replaces.
    let (_, structured) = fs_call(
        &mut server,
        "fs_write",
        json!({"path": "a", "content": "x"}),
    );
    assert!(structured.expect("structuredContent").get("diff").is_none());
}
