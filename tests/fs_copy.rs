//! `fs_copy`: what it copies (bytes, modes, links as links), what it refuses, that a refusal
//! changes nothing, and a tree copied as `cp -r --preserve=mode` copies it.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use After::*;
use Reply::*;
use serde_json::json;
use support::attack::call_line;
use support::fs::*;
use support::*;

fn cp(from: &str, to: &str) -> serde_json::Value {
    json!({"from": from, "to": to})
}

fn notes_tree() -> Tree {
    Tree::new()
        .file("notes/todo.md", "- buy milk\n")
        .file("notes/ideas.md", "the first\n")
        .dir("notes/empty")
        .file("notes/archive/2025/jan.md", "january\n")
        .file("notes/archive/old.md", "old\n")
}

/// A call of `fs_copy` on [`notes_tree`].
const COPY: Case = Case {
    tree: notes_tree,
    ..Case::of("fs_copy")
};

/// A call of `fs_copy` on [`notes_tree`] that must leave it as it was.
const COPY_REFUSED: Case = Case {
    after: &[Unchanged],
    ..COPY
};

const COPY_SUCCESSES: &[Case] = &[
    Case {
        name: "a file is copied beside itself",
        args: || cp("notes/todo.md", "notes/todo-copy.md"),
        reply: Said("Copied file 'notes/todo.md' to 'notes/todo-copy.md'"),
        after: &[
            Bytes("notes/todo.md", b"- buy milk\n"),
            Bytes("notes/todo-copy.md", b"- buy milk\n"),
        ],
        ..COPY
    },
    Case {
        name: "a directory is copied with everything inside it",
        args: || cp("notes/archive", "attic"),
        reply: Said("Copied directory 'notes/archive' to 'attic' (2 files, 12 bytes)"),
        after: &[
            Bytes("attic/2025/jan.md", b"january\n"),
            Bytes("attic/old.md", b"old\n"),
            Bytes("notes/archive/old.md", b"old\n"),
            Names("attic", &["2025", "old.md"]),
            Names("", &["attic", "notes"]),
        ],
        ..COPY
    },
    Case {
        name: "an empty directory is copied",
        args: || cp("notes/empty", "notes/empty2"),
        reply: Said("Copied directory 'notes/empty' to 'notes/empty2' (0 files, 0 bytes)"),
        after: &[Names("notes/empty2", &[]), Directory("notes/empty")],
        ..COPY
    },
    Case {
        name: "a sibling sharing a name prefix is not inside",
        args: || cp("notes", "notes-old"),
        reply: Said("Copied directory 'notes' to 'notes-old' (4 files, 33 bytes)"),
        after: &[
            Bytes("notes-old/todo.md", b"- buy milk\n"),
            Bytes("notes/todo.md", b"- buy milk\n"),
        ],
        ..COPY
    },
    Case {
        name: "a link that stays inside is copied as a link",
        tree: || notes_tree().symlink("notes/archive/latest", "old.md"),
        args: || cp("notes/archive", "attic"),
        reply: Said(
            "Copied directory 'notes/archive' to 'attic' (2 files, 1 symbolic link, 12 bytes)",
        ),
        after: &[Bytes("attic/latest", b"old\n")],
        ..COPY
    },
    Case {
        name: "a link on its own is copied as a link",
        tree: || notes_tree().symlink("notes/latest", "todo.md"),
        args: || cp("notes/latest", "notes/newest"),
        reply: Said("Copied symbolic link 'notes/latest' to 'notes/newest'"),
        after: &[Bytes("notes/newest", b"- buy milk\n")],
        ..COPY
    },
];

/// Copies into an existing directory, as `cp` (and `cp -r`) make them.
const COPY_INTO: &[Case] = &[
    Case {
        name: "a file copied into a directory keeps its name",
        args: || cp("notes/todo.md", "notes/archive"),
        reply: Said("Copied file 'notes/todo.md' to 'notes/archive/todo.md'"),
        after: &[
            Bytes("notes/todo.md", b"- buy milk\n"),
            Bytes("notes/archive/todo.md", b"- buy milk\n"),
        ],
        ..COPY
    },
    Case {
        name: "a directory copied into a directory keeps its name",
        args: || cp("notes/archive", "notes/empty/"),
        reply: Said(
            "Copied directory 'notes/archive' to 'notes/empty/archive' (2 files, 12 bytes)",
        ),
        after: &[
            Bytes("notes/archive/old.md", b"old\n"),
            Bytes("notes/empty/archive/old.md", b"old\n"),
            Bytes("notes/empty/archive/2025/jan.md", b"january\n"),
        ],
        ..COPY
    },
];

#[test]
fn copies_into_a_directory() {
    run_cases(COPY_INTO);
}

#[test]
fn copy_successes() {
    run_cases(COPY_SUCCESSES);
}

/// The refusal of a copy of `notes/archive` holding `entry`.
macro_rules! holds_unserved {
    ($entry:literal) => {
        concat!(
            "Directory 'notes/archive' holds '",
            $entry,
            "', which this root does not serve (here or at the destination) and which is no cache or dependency directory's; copy refuses to carry what it cannot show"
        )
    };
}

/// Copies that are refused, and leave the root as it was.
const COPY_REFUSALS: &[Case] = &[
    Case {
        name: "an existing file is never overwritten",
        args: || cp("notes/todo.md", "notes/ideas.md"),
        reply: Refused(
            "'notes/ideas.md' already exists and is never replaced: name a path where nothing is, or a directory to put it into",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "an entry of the same name in the directory copied into is never replaced",
        args: || cp("notes/archive/old.md", "notes/archive"),
        reply: Refused(
            "'notes/archive/old.md' already exists and is never replaced: name a path where nothing is, or a directory to put it into",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a directory copied into itself, as cp -r a a would",
        args: || cp("notes/archive", "notes/archive"),
        reply: Refused("'notes/archive/archive' is inside 'notes/archive'"),
        ..COPY_REFUSED
    },
    Case {
        name: "a missing parent is refused",
        args: || cp("notes/todo.md", "nowhere/todo.md"),
        reply: Refused(
            "Parent directory of 'nowhere/todo.md' does not exist; create it with the mkdir tool first",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a missing parent of a directory copy is refused",
        args: || cp("notes/archive", "nowhere/archive"),
        reply: Refused(
            "Parent directory of 'nowhere/archive' does not exist; create it with the mkdir tool first",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a missing source does not exist",
        args: || cp("notes/gone.md", "notes/here.md"),
        reply: Refused("'notes/gone.md' does not exist"),
        ..COPY_REFUSED
    },
    Case {
        name: "the root cannot be copied",
        args: || cp(".", "elsewhere"),
        reply: Refused("The root itself cannot be copied or replaced"),
        ..COPY_REFUSED
    },
    Case {
        name: "a directory cannot be copied into itself",
        args: || cp("notes", "notes/archive/notes"),
        reply: Refused("'notes/archive/notes' is inside 'notes'"),
        ..COPY_REFUSED
    },
    Case {
        name: "a directory cannot be copied directly into itself",
        args: || cp("notes/archive", "notes/archive/copy"),
        reply: Refused("'notes/archive/copy' is inside 'notes/archive'"),
        ..COPY_REFUSED
    },
    Case {
        name: "a copy to a path the root does not serve is refused",
        flags: &["--exclude", "**/*.secret"],
        args: || cp("notes/todo.md", "notes/todo.secret"),
        reply: Refused(
            "'notes/todo.secret' is not served by this root; a file written there could not be read back",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a directory copied under an excluded directory is refused",
        flags: &["--exclude", "**/private"],
        tree: || notes_tree().dir("private"),
        args: || cp("notes/archive", "private/archive"),
        reply: Refused(
            "'private/archive' is not served by this root; a file written there could not be read back",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "an unserved file cannot be copied to a served name",
        tree: || notes_tree().file("notes/key.secret", "hush\n"),
        flags: &["--exclude", "**/*.secret"],
        args: || cp("notes/key.secret", "notes/key.txt"),
        reply: Refused("'notes/key.secret' is not served by this root"),
        ..COPY_REFUSED
    },
    Case {
        name: "a tree holding an excluded file is not copied",
        tree: || notes_tree().file("notes/archive/2025/key.secret", "hush\n"),
        flags: &["--exclude", "**/*.secret"],
        args: || cp("notes/archive", "attic"),
        reply: Refused(holds_unserved!("notes/archive/2025/key.secret")),
        ..COPY_REFUSED
    },
    Case {
        name: "a tree holding a default-excluded .env is not copied",
        tree: || notes_tree().file("notes/archive/.env", "TOKEN=1\n"),
        args: || cp("notes/archive", "attic"),
        reply: Refused(holds_unserved!("notes/archive/.env")),
        ..COPY_REFUSED
    },
    Case {
        name: "a tree whose copy would be partly hidden is not copied",
        flags: &["--exclude", "attic/2025/**"],
        args: || cp("notes/archive", "attic"),
        reply: Refused(holds_unserved!("notes/archive/2025/jan.md")),
        ..COPY_REFUSED
    },
    Case {
        name: "a link escaping the root from its new place is not copied",
        // From notes/archive/2025, ../../todo.md is notes/todo.md; from attic/2025 it
        // would be above the root.
        tree: || notes_tree().symlink("notes/archive/2025/up", "../../../notes/todo.md"),
        args: || cp("notes/archive", "attic"),
        reply: Refused(
            "'notes/archive/2025/up' is a symbolic link that would lead outside the root from its new place; copy refuses to create it",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a link on its own escaping the root from its new place is not copied",
        tree: || notes_tree().symlink("notes/archive/up", "../todo.md"),
        args: || cp("notes/archive/up", "up"),
        reply: Refused(
            "'notes/archive/up' is a symbolic link that would lead outside the root from its new place; copy refuses to create it",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a link climbing back out of a name it entered is not copied",
        tree: || notes_tree().symlink("notes/archive/round", "2025/../old.md"),
        args: || cp("notes/archive", "attic"),
        reply: Refused(
            "'notes/archive/round' is a symbolic link that would lead outside the root from its new place; copy refuses to create it",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a file larger than the root serves is not copied",
        flags: &["--max-file-bytes", "4"],
        args: || cp("notes/archive", "attic"),
        reply: Refused(
            "'notes/archive/2025/jan.md' is larger than 4 bytes (the file size limit); raise it with --max-file-bytes (config key limits.max_file_bytes)",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a tree over a named file ceiling is not copied",
        flags: &["--max-files", "1"],
        args: || cp("notes/archive", "attic"),
        reply: Refused(
            "the walk selected more than 1 file (the file limit); copy a smaller directory, or raise it with --max-files (config key limits.max_files)",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "a tree deeper than the depth limit is not copied",
        flags: &["--max-depth", "0"],
        args: || cp("notes/archive", "attic"),
        reply: Refused(
            "the walk reached a directory more than 0 levels deep (the depth limit); copy a smaller directory, or raise it with --max-depth (config key limits.max_depth)",
        ),
        ..COPY_REFUSED
    },
    Case {
        name: "an invalid path is refused",
        args: || cp("notes/../notes/todo.md", "x.md"),
        reply: Refused(
            "Invalid path 'notes/../notes/todo.md': paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names",
        ),
        ..COPY_REFUSED
    },
];

#[test]
fn copy_refusals() {
    run_cases(COPY_REFUSALS);
}

/// A FIFO is never opened (so never waited on) and never copied.
#[test]
fn a_fifo_is_refused_alone_or_in_a_tree() {
    let tree = notes_tree().fifo("notes/archive/2025/pipe");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("notes/archive", "attic")),
        "'notes/archive/2025/pipe' is a FIFO, socket or device; copy copies only files, directories and symbolic links"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "fs_copy",
            cp("notes/archive/2025/pipe", "pipe")
        ),
        "'notes/archive/2025/pipe' is a FIFO, socket or device; copy copies only files, directories and symbolic links"
    );
    assert_eq!(tree.names(""), ["notes"]);
    assert_eq!(tree.names("notes/archive/2025"), ["jan.md", "pipe"]);
}

#[test]
fn a_copied_file_keeps_its_mode_and_gets_a_new_inode() {
    let tree = notes_tree();
    tree.chmod("notes/todo.md", 0o751);
    let mut server = fs_server(&tree);
    fs_text(&mut server, "fs_copy", cp("notes/todo.md", "todo.md"));
    assert_eq!(tree.mode("todo.md"), 0o751);
    let ino = |rel: &str| std::fs::metadata(tree.join(rel)).unwrap().ino();
    assert_ne!(ino("todo.md"), ino("notes/todo.md"));
}

#[test]
fn a_copy_reports_both_revisions() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    let structured = fs_revisions(&mut server, "fs_copy", cp("notes/todo.md", "todo.md"));
    assert_eq!(revision_keys(&structured), ["from", "to"]);
    assert_eq!(revision(&structured, "from"), file_revision("- buy milk\n"));
    assert_eq!(revision(&structured, "to"), file_revision("- buy milk\n"));
    let structured = fs_revisions(&mut server, "fs_copy", cp("notes/archive", "attic"));
    let listed = fs_revisions(&mut server, "fs_list", json!({"path": "attic"}));
    assert_eq!(token(&structured, "to"), token(&listed, "path"));
    assert!(is_directory_token(&token(&structured, "from")));
}

#[test]
fn expected_revisions_condition_the_copy() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    let stale = file_token("an older todo\n");
    let args = with_expected(
        cp("notes/todo.md", "todo.md"),
        json!({"from": stale, "to": ABSENT}),
    );
    assert_eq!(
        fs_error(&mut server, "fs_copy", args),
        format!(
            "'from' changed since it was observed (expected {stale}, found {}); read it again before changing it",
            file_token("- buy milk\n")
        )
    );
    let args = with_expected(
        cp("notes/todo.md", "todo.md"),
        json!({"from": file_token("- buy milk\n")}),
    );
    assert_eq!(
        fs_error(&mut server, "fs_copy", args),
        "_expected-revisions has no token for 'to'; send the token from your last observation, or sha256-v1:absent for a path you expect not to exist"
    );
    assert_eq!(snapshot(tree.path()), before);
    let args = with_expected(
        cp("notes/todo.md", "todo.md"),
        json!({"from": file_token("- buy milk\n"), "to": ABSENT}),
    );
    assert_eq!(
        fs_text(&mut server, "fs_copy", args),
        "Copied file 'notes/todo.md' to 'todo.md'"
    );
    assert_eq!(tree.bytes("todo.md"), b"- buy milk\n");
}

#[test]
fn read_only_does_not_publish_copy() {
    let tree = notes_tree();
    let mut server = fs_server_with(&tree, &["--read-only"]);
    assert!(!listed_names(&mut server).iter().any(|n| n == "fs_copy"));
    let error = Server::error_of(&server.request(
        "tools/call",
        json!({"name": "fs_copy", "arguments": cp("notes/todo.md", "todo.md")}),
    ));
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["message"], "Unknown tool: 'fs_copy'");
    assert!(!exists(&tree, "todo.md"));
}

#[test]
fn a_copy_is_named_by_the_prefix() {
    let tree = notes_tree();
    let mut server = fs_server_with(&tree, &["--prefix", "notes"]);
    assert_eq!(
        fs_text(&mut server, "notes_copy", cp("notes/todo.md", "todo.md")),
        "Copied file 'notes/todo.md' to 'todo.md'"
    );
}

/// A link's target is kept as text and never followed: a link to a file outside the root
/// cannot be copied, and what it points at is untouched.
#[test]
fn a_link_out_of_the_root_is_never_copied_or_followed() {
    let outside = Tree::new().file("keep/precious.txt", "precious\n");
    let tree = notes_tree().symlink("notes/archive/out", outside.join("keep/precious.txt"));
    let before = snapshot(outside.path());
    let mut server = fs_server(&tree);
    let refusal = "'notes/archive/out' is a symbolic link that would lead outside the root from its new place; copy refuses to create it";
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("notes/archive", "attic")),
        refusal
    );
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("notes/archive/out", "out")),
        refusal
    );
    assert_eq!(tree.names(""), ["notes"]);
    assert_eq!(snapshot(outside.path()), before);
}

/// An absolute target under the root's own path stays inside; a link through an existing
/// link that leaves the root does not.
#[test]
fn absolute_and_chained_link_targets_are_judged_where_they_lead() {
    let outside = Tree::new().file("secret.txt", "secret\n");
    let tree = notes_tree();
    let inside = tree.join("notes/todo.md");
    let tree = tree
        .symlink("door", outside.path())
        .symlink("notes/archive/abs", &inside)
        .symlink("notes/archive/through", "../../door/secret.txt");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("notes/archive/abs", "abs")),
        "Copied symbolic link 'notes/archive/abs' to 'abs'"
    );
    assert_eq!(std::fs::read_link(tree.join("abs")).unwrap(), inside);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_copy",
            cp("notes/archive/through", "notes/archive/through2")
        ),
        "'notes/archive/through' is a symbolic link that would lead outside the root from its new place; copy refuses to create it"
    );
    assert!(!exists(&tree, "notes/archive/through2"));
}

/// Hard-linked files are copied as separate files, as `cp -r` copies them.
#[test]
fn hard_links_are_copied_as_separate_files() {
    let tree = notes_tree();
    std::fs::hard_link(tree.join("notes/todo.md"), tree.join("notes/todo-link.md")).unwrap();
    let mut server = fs_server(&tree);
    fs_text(&mut server, "fs_copy", cp("notes", "copy"));
    let ino = |rel: &str| std::fs::metadata(tree.join(rel)).unwrap().ino();
    assert_ne!(ino("copy/todo.md"), ino("copy/todo-link.md"));
    assert_ne!(ino("copy/todo.md"), ino("notes/todo.md"));
    assert_eq!(tree.bytes("copy/todo-link.md"), b"- buy milk\n");
}

/// No temp entry is left where a copy was made, and none shows in a listing.
#[test]
fn a_copy_leaves_no_temp_entry_behind() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    fs_text(&mut server, "fs_copy", cp("notes/archive", "notes/attic"));
    fs_text(
        &mut server,
        "fs_copy",
        cp("notes/todo.md", "notes/todo2.md"),
    );
    assert_eq!(
        tree.names("notes"),
        [
            "archive", "attic", "empty", "ideas.md", "todo.md", "todo2.md"
        ]
    );
}

// ---- differential: cp -r --preserve=mode -------------------------------------------------------

/// Every entry below `dir`: its path, kind, permission bits, and bytes or link target.
fn described(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mode = meta.permissions().mode() & 0o7777;
            let what = if meta.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                pending.push(path.clone());
                format!("dir {mode:o}")
            } else {
                format!(
                    "file {mode:o} {}",
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap())
                )
            };
            out.push((rel, what));
        }
    }
    out.sort();
    out
}

#[test]
fn a_tree_is_copied_as_cp_preserving_modes_copies_it() {
    let tree = Tree::new()
        .file("src/run.sh", "#!/bin/sh\necho hi\n")
        .file("src/private.txt", "mine\n")
        .file("src/frozen/ro.txt", "read only\n")
        .file("src/deep/a/b/c/leaf.txt", "leaf\n")
        .file("src/deep/a/bytes.bin", [0u8, 159, 146, 150, 255, 10, 13])
        .file("src/empty.txt", "")
        .dir("src/deep/empty")
        .symlink("src/deep/a/to-leaf", "b/c/leaf.txt")
        .symlink("src/deep/dangling", "a/missing.txt");
    tree.chmod("src/run.sh", 0o755);
    tree.chmod("src/private.txt", 0o600);
    tree.chmod("src/frozen/ro.txt", 0o444);
    tree.chmod("src/deep/a/bytes.bin", 0o640);
    tree.chmod("src/deep/a/b", 0o750);
    tree.chmod("src/deep/empty", 0o1777);
    tree.chmod("src/frozen", 0o555);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("src", "by-fsmcp")),
        "Copied directory 'src' to 'by-fsmcp' (6 files, 2 symbolic links, 45 bytes)"
    );
    let status = Command::new("cp")
        .args(["-r", "--preserve=mode", "src", "by-cp"])
        .current_dir(tree.path())
        .status()
        .expect("run cp");
    assert!(status.success());
    let diff = Command::new("diff")
        .args(["-r", "--no-dereference", "by-fsmcp", "by-cp"])
        .current_dir(tree.path())
        .output()
        .expect("run diff");
    assert!(
        diff.status.success(),
        "diff -r: {}",
        String::from_utf8_lossy(&diff.stdout)
    );
    let ours = described(&tree.join("by-fsmcp"));
    assert_eq!(ours, described(&tree.join("by-cp")));
    assert_eq!(ours, described(&tree.join("src")));
    assert_eq!(ours.len(), 14);
    // Let the temp directory go.
    tree.chmod("src/frozen", 0o755);
    tree.chmod("by-fsmcp/frozen", 0o755);
    tree.chmod("by-cp/frozen", 0o755);
}

/// One copy writes at most 1 GiB; a sparse file says so without costing the disk.
#[test]
fn a_copy_writes_at_most_one_gibibyte() {
    let tree = Tree::new()
        .file("big/small.txt", "x\n")
        .file("big/huge.bin", "");
    std::fs::File::options()
        .write(true)
        .open(tree.join("big/huge.bin"))
        .unwrap()
        .set_len((1 << 30) - 1)
        .unwrap();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("big", "copy")),
        "Copying 'big' would write 1073741825 bytes, more than one copy writes (1073741824 at most); copy the directories below it one at a time"
    );
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("big/small.txt", "small.txt")),
        "Copied file 'big/small.txt' to 'small.txt'"
    );
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("big/small.txt", "big/huge.bin")),
        "'big/huge.bin' already exists and is never replaced: name a path where nothing is, or a directory to put it into"
    );
    std::fs::File::options()
        .write(true)
        .open(tree.join("big/huge.bin"))
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("big/huge.bin", "huge.bin")),
        "Copying 'big/huge.bin' would write 1073741825 bytes, more than one copy writes (1073741824 at most)"
    );
    assert_eq!(tree.names(""), ["big", "small.txt"]);
}

/// Makes `path` (below `tree`) a file of `size` bytes holding 4 KiB of data at each of
/// `data`, and holes everywhere else.
fn make_sparse(tree: &Tree, path: &str, size: u64, data: &[u64]) {
    use std::io::{Seek, SeekFrom, Write};
    std::fs::create_dir_all(tree.join(path).parent().unwrap()).unwrap();
    let mut file = std::fs::File::create(tree.join(path)).unwrap();
    file.set_len(size).unwrap();
    for &at in data {
        file.seek(SeekFrom::Start(at)).unwrap();
        file.write_all(&[b'd'; 4096]).unwrap();
    }
    file.sync_all().unwrap();
}

/// The 512-byte blocks `path` (below `tree`) takes on disk.
fn blocks(tree: &Tree, path: &str) -> u64 {
    std::fs::metadata(tree.join(path)).unwrap().blocks()
}

/// Whether two files below `tree` hold the same bytes, read a mebibyte at a time.
fn same_bytes(tree: &Tree, a: &str, b: &str) -> bool {
    use std::io::Read;
    let (mut a, mut b) = (
        std::fs::File::open(tree.join(a)).unwrap(),
        std::fs::File::open(tree.join(b)).unwrap(),
    );
    let (mut x, mut y) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = a.read(&mut x).unwrap();
        let m = b.read(&mut y[..n.max(1)]).unwrap();
        if n != m || x[..n] != y[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

/// A sparse file's copy is sparse too: it takes about the blocks its source takes, not its
/// size in zeros (before, each copy of a 1 GiB file holding 8 KiB took 1 GiB of disk). Holes
/// in the middle and at the end stay holes, alone and in a tree, on both copy paths (run
/// this with `FSMCP_TEST_PORTABLE=1` for the read/write one).
#[test]
fn a_sparse_file_is_copied_with_its_holes() {
    if windows_binary() {
        eprintln!("skipped: Windows copies every byte of a sparse file (docs/platforms.md)");
        return;
    }
    let tree = Tree::new().dir("disk");
    // Data at the start and in the middle, and together the most one copy writes; the small
    // one with a hole between two blocks and another at its end.
    make_sparse(
        &tree,
        "disk/huge.img",
        (1 << 30) - (16 << 20),
        &[0, 512 << 20],
    );
    make_sparse(&tree, "disk/small.img", 16 << 20, &[0, 8 << 20]);
    let source = blocks(&tree, "disk/huge.img") + blocks(&tree, "disk/small.img");
    if source * 512 >= 1 << 30 {
        eprintln!("skipped: the temporary directory's filesystem makes no sparse files");
        return;
    }
    let mut server = fs_server(&tree);
    let started = std::time::Instant::now();
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("disk", "copy")),
        "Copied directory 'disk' to 'copy' (2 files, 1073741824 bytes)"
    );
    let took = started.elapsed();
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("disk/small.img", "small.img")),
        "Copied file 'disk/small.img' to 'small.img'"
    );
    let copied = blocks(&tree, "copy/huge.img") + blocks(&tree, "copy/small.img");
    let alone = blocks(&tree, "small.img");
    println!(
        "source {source} blocks, tree copy {copied} blocks in {took:?}, file copy {alone} blocks \
         (source {})",
        blocks(&tree, "disk/small.img")
    );
    // The filesystem may round an extent up, never to more than a few blocks per extent.
    let slack = 4 * 2 * (64 << 10) / 512;
    assert!(
        copied <= source + slack,
        "{copied} blocks copied, {source} in the source"
    );
    assert!(
        alone <= blocks(&tree, "disk/small.img") + slack,
        "{alone} blocks"
    );
    for (a, b) in [
        ("disk/huge.img", "copy/huge.img"),
        ("disk/small.img", "copy/small.img"),
        ("disk/small.img", "small.img"),
    ] {
        assert_eq!(
            std::fs::metadata(tree.join(a)).unwrap().len(),
            std::fs::metadata(tree.join(b)).unwrap().len()
        );
        assert!(same_bytes(&tree, a, b), "'{b}' differs from '{a}'");
    }
}

/// A tmpfs of a few mebibytes mounted on a fresh directory, unmounted when dropped: a
/// filesystem small enough to fill.
struct Tmpfs {
    tree: Tree,
}

impl Tmpfs {
    /// Mounts one of `mib` MiB; `None`, after printing why the caller is skipped, where this
    /// process may not mount (not root, or a sandbox that refuses `mount`).
    fn mount(mib: u64) -> Option<Tmpfs> {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: mounting a small tmpfs to fill takes root");
            return None;
        }
        let tree = Tree::new();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(tree.path())
            .output();
        match out {
            Ok(out) if out.status.success() => Some(Tmpfs { tree }),
            Ok(out) => {
                eprintln!(
                    "skipped: mount refused a tmpfs: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount command: {e}");
                None
            }
        }
    }

    /// What is free on it and its size, in bytes, as `statvfs` tells the server.
    fn space(&self) -> (u64, u64) {
        let vfs = rustix::fs::statvfs(self.tree.path()).unwrap();
        (vfs.f_bavail * vfs.f_frsize, vfs.f_blocks * vfs.f_frsize)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a server still holding it (a test that failed before dropping its server)
        // must not leave the mount behind.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.tree.path())
            .status();
    }
}

/// An fs server on `tree` whose copies keep `--copy-reserve-bytes` `cap` (the default
/// without one), unlike the harness's, which keep none.
fn reserving(tree: &Tree, cap: Option<u64>) -> Server {
    let cap = cap.map(|cap| cap.to_string());
    let mut args = vec!["--tools", "fs", "--include", "**"];
    if let Some(cap) = &cap {
        args.extend(["--copy-reserve-bytes", cap]);
    }
    Server::start(tree.path(), &args)
}

/// A copy must leave its filesystem room: one that would take more than is free, or leave
/// less free than a tenth of the filesystem (at most 1 GiB), is refused before anything is
/// written, naming what it needs; a copy that fits is made, and holes cost nothing. Before,
/// each copy took what it liked until the disk was full (a 1 GiB sparse file became 1 GiB
/// of disk per call). `--copy-reserve-bytes` sets the most a copy leaves free: with 0 a copy
/// may take what is free, never more.
#[test]
fn a_copy_leaves_its_filesystem_room() {
    if windows_binary() {
        eprintln!("skipped: a tmpfs cannot be mounted for a Windows binary under Wine");
        return;
    }
    let Some(disk) = Tmpfs::mount(64) else {
        return;
    };
    let tree = &disk.tree;
    tree.put("d/big.bin", vec![b'b'; 30 << 20]);
    tree.put("d/more.bin", vec![b'm'; 10 << 20]);
    tree.put("small.txt", "small\n");
    make_sparse(tree, "holes/disk.img", 256 << 20, &[0, 128 << 20]);
    // The default reserve: this harness's fs servers drop it (NO_COPY_RESERVE).
    let mut server = reserving(tree, None);
    let (_, total) = disk.space();
    let keeps = (total / 10).min(1 << 30);
    let refusal = |from: &str, needs: u64, free: u64, reserve: &str| {
        let lower = match reserve {
            "" => "",
            _ => {
                ", or lower the reserve with --copy-reserve-bytes (config key \
                 limits.copy_reserve_bytes)"
            }
        };
        format!(
            "Copying '{from}' would take {needs} bytes of disk where {free} are free{reserve}; \
             free space on the destination's filesystem first, or copy something smaller{lower}"
        )
    };
    let reserve = |keeps: u64, cap: &str| {
        format!(
            ", leaving less than the {keeps} bytes copies keep free (a tenth of the filesystem, \
             at most {cap})"
        )
    };
    let default = reserve(keeps, "1 GiB");
    let on_disk = |path: &str| blocks(tree, path) * 512;

    // Fits, leaving more than the reserve: made.
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("d/more.bin", "more.bin")),
        "Copied file 'd/more.bin' to 'more.bin'"
    );
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("small.txt", "small2.txt")),
        "Copied file 'small.txt' to 'small2.txt'"
    );
    // 256 MiB of file length on a filesystem of 64 MiB: its holes take nothing.
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("holes", "holes2")),
        "Copied directory 'holes' to 'holes2' (1 file, 268435456 bytes)"
    );
    let before = snapshot(tree.path());
    let (free, _) = disk.space();
    println!("{free} bytes free of {total}, {keeps} kept");
    // Does not fit at all, as a file and as a tree.
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("d/big.bin", "big.bin")),
        refusal("d/big.bin", on_disk("d/big.bin"), free, &default)
    );
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("d", "d2")),
        refusal(
            "d",
            on_disk("d/big.bin") + on_disk("d/more.bin"),
            free,
            &default
        )
    );
    // Would fit, but would leave less than the reserve.
    assert!(on_disk("d/more.bin") < free && on_disk("d/more.bin") + keeps > free);
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("d/more.bin", "more2.bin")),
        refusal("d/more.bin", on_disk("d/more.bin"), free, &default)
    );
    assert_eq!(
        snapshot(tree.path()),
        before,
        "a refused copy changed the disk"
    );
    drop(server);

    // A reserve of a few blocks, named in bytes; still more than this copy leaves.
    let small = free - on_disk("d/more.bin") + 4096;
    let mut server = reserving(tree, Some(small));
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("d/more.bin", "more2.bin")),
        refusal(
            "d/more.bin",
            on_disk("d/more.bin"),
            free,
            &reserve(small, &format!("{small} bytes"))
        )
    );
    drop(server);

    // No reserve: what fits is made, what does not is still refused.
    let mut server = reserving(tree, Some(0));
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("d/big.bin", "big.bin")),
        refusal("d/big.bin", on_disk("d/big.bin"), free, "")
    );
    assert_eq!(
        snapshot(tree.path()),
        before,
        "a refused copy changed the disk"
    );
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("d/more.bin", "more2.bin")),
        "Copied file 'd/more.bin' to 'more2.bin'"
    );
    assert!(same_bytes(tree, "d/more.bin", "more2.bin"));
    assert!(!tree.names("").iter().any(|n| n.starts_with(".fsmcp-")));
    drop(server);
}

/// A copy past the call's deadline is refused whole, and leaves nothing behind.
#[test]
fn a_copy_past_its_deadline_copies_nothing() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = Server::start_with_env(
        tree.path(),
        &[
            "--tools",
            "fs",
            "--include",
            "**",
            "--max-call-seconds",
            "1",
            NO_COPY_RESERVE[0],
            NO_COPY_RESERVE[1],
        ],
        &[("FSMCP_TEST_FAULT", "fs_copy:slow")],
    );
    for args in [cp("notes/todo.md", "todo.md"), cp("notes/archive", "attic")] {
        assert_eq!(
            fs_error(&mut server, "fs_copy", args),
            "the call ran past 1 second (the call time limit); call again with a smaller path or a simpler pattern, or raise it with --max-call-seconds (config key limits.max_call_seconds)"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
    assert_eq!(tree.names(""), ["notes"]);
}

/// With `--follow-symlinks`, a destination reached through a link is judged where it leads:
/// a directory is not copied into itself by way of a link to it.
#[test]
fn a_link_to_the_source_does_not_carry_a_copy_into_itself() {
    let tree = notes_tree().symlink("shelf", "notes/archive");
    let before = snapshot(tree.path());
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("notes/archive", "shelf/inner")),
        "'shelf/inner' is inside 'notes/archive'"
    );
    assert_eq!(snapshot(tree.path()), before);
    // The link itself is copied as a link, not as the directory it leads to.
    assert_eq!(
        fs_text(&mut server, "fs_copy", cp("shelf", "shelf2")),
        "Copied symbolic link 'shelf' to 'shelf2'"
    );
    assert!(
        std::fs::symlink_metadata(tree.join("shelf2"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// A file the server may not read stops the copy before anything is in place (skipped where
/// permissions cannot hold).
#[test]
fn an_unreadable_file_copies_nothing() {
    let tree = notes_tree()
        .file("notes/archive/locked.txt", "locked\n")
        .dir("out");
    tree.chmod("notes/archive/locked.txt", 0o000);
    let Some(mut server) = unprivileged_server(
        &tree,
        &[
            "--tools",
            "fs",
            "--include",
            "**",
            "--copy-reserve-bytes",
            "0",
        ],
    ) else {
        return;
    };
    // The destination is writable by whoever the server runs as.
    tree.chmod("out", 0o777);
    let refusal = "'notes/archive/locked.txt' cannot be read by this server (its permissions), so nothing was copied";
    assert_eq!(
        fs_error(&mut server, "fs_copy", cp("notes/archive", "out/attic")),
        refusal
    );
    assert_eq!(
        fs_error(
            &mut server,
            "fs_copy",
            cp("notes/archive/locked.txt", "out/x")
        ),
        refusal
    );
    assert!(tree.names("out").is_empty());
}

/// A server killed in the middle of copying a tree leaves the destination absent or whole.
/// What a kill may leave is a temp directory beside it, which no tool shows, and a copy to
/// the same name works afterwards.
#[test]
fn a_copy_killed_midway_leaves_the_destination_absent_or_whole() {
    let chunk = vec![b'x'; 256 << 10];
    let mut tree = Tree::new();
    for n in 0..120 {
        tree = tree.file(&format!("src/d{}/f{n}.bin", n % 6), &chunk);
    }
    let (mut absent, mut whole) = (Vec::new(), 0);
    // From before the call is read to well after a whole copy (about 0.6 s in a debug build).
    for (round, delay) in [0, 30, 100, 200, 400, 3000].into_iter().enumerate() {
        let dst = format!("dst{round}");
        let mut server = fs_server(&tree);
        server.send_line(&call_line(&json!(1), "fs_copy", &cp("src", &dst)));
        std::thread::sleep(Duration::from_millis(delay));
        server.signal("KILL");
        server.wait();
        if exists(&tree, &dst) {
            let diff = Command::new("diff")
                .args(["-r", "src", &dst])
                .current_dir(tree.path())
                .status()
                .expect("run diff");
            assert!(diff.success(), "round {round}: '{dst}' is not a whole copy");
            whole += 1;
        } else {
            absent.push(dst);
        }
    }
    let temps = tree
        .names("")
        .iter()
        .filter(|n| n.starts_with(".fsmcp-"))
        .count();
    println!(
        "{} absent, {whole} whole, {temps} temp directories left",
        absent.len()
    );
    let mut server = fs_server(&tree);
    let listed = fs_text(&mut server, "fs_list", json!({"path": "."}));
    assert!(listed.lines().any(|l| l == "src/"), "{listed}");
    assert!(
        listed.lines().all(|l| l == "src/" || l.starts_with("dst")),
        "{listed}"
    );
    let globbed = fs_text(&mut server, "fs_glob", json!({"pattern": "**/f0.bin"}));
    assert!(!globbed.contains(".fsmcp-"), "{globbed}");
    for dst in absent {
        let started = std::time::Instant::now();
        assert_eq!(
            fs_text(&mut server, "fs_copy", cp("src", &dst)),
            format!("Copied directory 'src' to '{dst}' (120 files, 31457280 bytes)")
        );
        println!("a whole copy took {:?}", started.elapsed());
    }
}
