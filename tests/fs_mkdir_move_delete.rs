//! `fs_mkdir`, `fs_move` and `fs_delete`: the reference examples byte for byte, what each
//! refuses, and that a refusal changes nothing.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use After::*;
use Reply::*;
use serde_json::json;
use support::fs::*;
use support::*;

fn notes_tree() -> Tree {
    Tree::new()
        .file("notes/todo.md", "- buy milk\n")
        .file("notes/ideas.md", "the first\n")
        .file("notes/scratch.md", "scribble\n")
        .dir("notes/empty")
        .file("notes/archive/2025/jan.md", "january\n")
        .file("notes/archive/old.md", "old\n")
}

// ---- mkdir ----------------------------------------------------------------------------------

/// A call of `fs_mkdir`.
const MKDIR: Case = Case::of("fs_mkdir");

const MKDIRS: &[Case] = &[
    Case {
        name: "the reference mkdir creates missing parents",
        tree: || Tree::new().file("notes/todo.md", "x"),
        args: || json!({"path": "notes/archive/2026"}),
        reply: Said("Created directory 'notes/archive/2026'"),
        after: &[
            Directory("notes/archive/2026"),
            Names("notes/archive/2026", &[]),
        ],
        ..MKDIR
    },
    Case {
        name: "mkdir creates a deep chain",
        args: || json!({"path": "a/b/c/d"}),
        reply: Said("Created directory 'a/b/c/d'"),
        after: &[Directory("a/b/c/d")],
        ..MKDIR
    },
    Case {
        name: "an existing directory is a no-op and not an error",
        tree: notes_tree,
        args: || json!({"path": "notes/archive"}),
        reply: Said("Directory 'notes/archive' already exists"),
        after: &[Unchanged],
        ..MKDIR
    },
    Case {
        name: "a file in the way is an error",
        tree: notes_tree,
        args: || json!({"path": "notes/todo.md"}),
        reply: Refused("'notes/todo.md' exists and is not a directory"),
        after: &[Bytes("notes/todo.md", b"- buy milk\n"), Unchanged],
        ..MKDIR
    },
    Case {
        name: "a file in the way of a parent is an error",
        tree: notes_tree,
        args: || json!({"path": "notes/todo.md/sub"}),
        reply: Refused("'notes/todo.md' exists and is not a directory"),
        after: &[Bytes("notes/todo.md", b"- buy milk\n"), Unchanged],
        ..MKDIR
    },
    Case {
        name: "mkdir of a path the root does not serve is refused",
        flags: &["--exclude", "**/private"],
        args: || json!({"path": "private"}),
        reply: Refused(
            "'private' is not served by this root; a file written there could not be read back",
        ),
        after: &[Names("", &[])],
        ..MKDIR
    },
];

#[test]
fn mkdirs() {
    run_cases(MKDIRS);
}

#[test]
fn mkdir_reports_the_new_directory_revision() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    let structured = fs_revisions(&mut server, "fs_mkdir", json!({"path": "a/b"}));
    assert_eq!(revision_keys(&structured), ["path"]);
    let (state, token) = revision(&structured, "path");
    assert_eq!(state, "directory");
    assert!(is_directory_token(&token.expect("token")));
}

// ---- move -----------------------------------------------------------------------------------

fn mv(from: &str, to: &str) -> serde_json::Value {
    json!({"from": from, "to": to})
}

/// A call of `fs_move` on [`notes_tree`].
const MOVE: Case = Case {
    tree: notes_tree,
    ..Case::of("fs_move")
};

/// A call of `fs_move` on [`notes_tree`] that must leave it as it was.
const MOVE_REFUSED: Case = Case {
    after: &[Unchanged],
    ..MOVE
};

const MOVE_SUCCESSES: &[Case] = &[
    Case {
        name: "the reference move renames a file",
        args: || mv("notes/todo.md", "notes/archive/todo.md"),
        reply: Said("Moved 'notes/todo.md' to 'notes/archive/todo.md'"),
        after: &[
            Absent("notes/todo.md"),
            Bytes("notes/archive/todo.md", b"- buy milk\n"),
        ],
        ..MOVE
    },
    Case {
        name: "a directory moves with everything inside it",
        args: || mv("notes/archive", "attic"),
        reply: Said("Moved 'notes/archive' to 'attic'"),
        after: &[
            Absent("notes/archive"),
            Bytes("attic/2025/jan.md", b"january\n"),
            Bytes("attic/old.md", b"old\n"),
        ],
        ..MOVE
    },
    Case {
        name: "a file moves into an existing directory, as mv moves it",
        args: || mv("notes/todo.md", "notes/empty"),
        reply: Said("Moved 'notes/todo.md' to 'notes/empty/todo.md'"),
        after: &[
            Absent("notes/todo.md"),
            Bytes("notes/empty/todo.md", b"- buy milk\n"),
        ],
        ..MOVE
    },
    Case {
        name: "a trailing '/' says into",
        args: || mv("notes/todo.md", "notes/archive/"),
        reply: Said("Moved 'notes/todo.md' to 'notes/archive/todo.md'"),
        after: &[
            Absent("notes/todo.md"),
            Bytes("notes/archive/todo.md", b"- buy milk\n"),
        ],
        ..MOVE
    },
    Case {
        name: "a directory moves into an existing directory with everything inside",
        args: || mv("notes/archive", "notes/empty"),
        reply: Said("Moved 'notes/archive' to 'notes/empty/archive'"),
        after: &[
            Absent("notes/archive"),
            Bytes("notes/empty/archive/2025/jan.md", b"january\n"),
        ],
        ..MOVE
    },
    Case {
        name: "the root is a directory to move into",
        args: || mv("notes/archive/old.md", "."),
        reply: Said("Moved 'notes/archive/old.md' to 'old.md'"),
        after: &[Absent("notes/archive/old.md"), Bytes("old.md", b"old\n")],
        ..MOVE
    },
    Case {
        name: "a sibling sharing a name prefix is not inside",
        args: || mv("notes", "notes-old"),
        reply: Said("Moved 'notes' to 'notes-old'"),
        after: &[Bytes("notes-old/todo.md", b"- buy milk\n"), Absent("notes")],
        ..MOVE
    },
];

#[test]
fn move_successes() {
    run_cases(MOVE_SUCCESSES);
}

/// Moves that are refused, and leave the root as it was.
const MOVE_REFUSALS: &[Case] = &[
    Case {
        name: "an existing file is never overwritten",
        args: || mv("notes/todo.md", "notes/ideas.md"),
        reply: Refused(
            "'notes/ideas.md' already exists and is never replaced: name a path where nothing is, or a directory to put it into",
        ),
        ..MOVE_REFUSED
    },
    Case {
        name: "an entry of the same name in the directory moved into is never replaced",
        args: || mv("notes/todo.md", "notes/archive/../"),
        reply: Refused(
            "Invalid path 'notes/archive/../': paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names",
        ),
        ..MOVE_REFUSED
    },
    Case {
        name: "into a directory that already holds the name",
        args: || mv("notes/archive/old.md", "notes/archive"),
        reply: Refused(
            "'notes/archive/old.md' is already where it would go: name another destination",
        ),
        ..MOVE_REFUSED
    },
    Case {
        name: "a trailing '/' names a directory that must exist",
        args: || mv("notes/todo.md", "notes/nowhere/"),
        reply: Refused("'notes/nowhere/' does not exist"),
        ..MOVE_REFUSED
    },
    Case {
        name: "a trailing '/' on a file is no directory",
        args: || mv("notes/todo.md", "notes/ideas.md/"),
        reply: Refused(
            "'notes/ideas.md/' names a file, not a directory: write it without the trailing '/'",
        ),
        ..MOVE_REFUSED
    },
    Case {
        name: "a missing parent is refused",
        args: || mv("notes/todo.md", "nowhere/todo.md"),
        reply: Refused(
            "Parent directory of 'nowhere/todo.md' does not exist; create it with the mkdir tool first",
        ),
        ..MOVE_REFUSED
    },
    Case {
        name: "a missing source does not exist",
        args: || mv("notes/gone.md", "notes/here.md"),
        reply: Refused("'notes/gone.md' does not exist"),
        ..MOVE_REFUSED
    },
    Case {
        name: "the root cannot be moved",
        args: || mv(".", "elsewhere"),
        reply: Refused("The root itself cannot be moved"),
        ..MOVE_REFUSED
    },
    Case {
        name: "the root cannot be moved onto itself",
        args: || mv(".", "."),
        reply: Refused("The root itself cannot be moved"),
        ..MOVE_REFUSED
    },
    Case {
        name: "a directory cannot move into itself",
        args: || mv("notes", "notes/archive/notes"),
        reply: Refused("'notes/archive/notes' is inside 'notes'"),
        ..MOVE_REFUSED
    },
    Case {
        name: "a directory cannot move into its own subdirectory",
        args: || mv("notes/archive", "notes/archive/2025/inner"),
        reply: Refused("'notes/archive/2025/inner' is inside 'notes/archive'"),
        ..MOVE_REFUSED
    },
    Case {
        name: "a move to a path the root does not serve is refused",
        flags: &["--exclude", "**/*.secret"],
        args: || mv("notes/todo.md", "notes/todo.secret"),
        reply: Refused(
            "'notes/todo.secret' is not served by this root; a file written there could not be read back",
        ),
        ..MOVE_REFUSED
    },
];

#[test]
fn move_refusals() {
    run_cases(MOVE_REFUSALS);
}

#[test]
fn a_move_reports_both_revisions() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    let structured = fs_revisions(&mut server, "fs_move", mv("notes/todo.md", "todo.md"));
    assert_eq!(revision_keys(&structured), ["from", "to"]);
    assert_eq!(revision(&structured, "from"), absent_revision());
    assert_eq!(revision(&structured, "to"), file_revision("- buy milk\n"));
}

// ---- delete ---------------------------------------------------------------------------------

/// [`notes_tree`] with a link to a file and a link to a directory at its top.
fn linked_notes_tree() -> Tree {
    notes_tree()
        .symlink("latest", "notes/todo.md")
        .symlink("shelf", "notes/archive")
}

/// A call of `fs_delete` on [`notes_tree`].
const DELETE: Case = Case {
    tree: notes_tree,
    ..Case::of("fs_delete")
};

/// A call of `fs_delete` on [`notes_tree`] that must leave it as it was.
const DELETE_REFUSED: Case = Case {
    after: &[Unchanged],
    ..DELETE
};

const DELETE_SUCCESSES: &[Case] = &[
    Case {
        name: "the reference delete of a file",
        args: || json!({"path": "notes/scratch.md"}),
        reply: Said("Deleted file 'notes/scratch.md'"),
        after: &[
            Absent("notes/scratch.md"),
            Bytes("notes/todo.md", b"- buy milk\n"),
        ],
        ..DELETE
    },
    Case {
        name: "the reference delete of an empty directory",
        args: || json!({"path": "notes/empty"}),
        reply: Said("Deleted empty directory 'notes/empty'"),
        after: &[Absent("notes/empty")],
        ..DELETE
    },
    Case {
        name: "the reference recursive delete",
        args: || json!({"path": "notes/archive", "recursive": true}),
        reply: Said("Deleted directory 'notes/archive' and everything below it"),
        after: &[
            Absent("notes/archive"),
            Names("notes", &["empty", "ideas.md", "scratch.md", "todo.md"]),
        ],
        ..DELETE
    },
    Case {
        name: "recursive on a file deletes the file",
        args: || json!({"path": "notes/todo.md", "recursive": true}),
        reply: Said("Deleted file 'notes/todo.md'"),
        after: &[Absent("notes/todo.md")],
        ..DELETE
    },
    Case {
        name: "a link to a file is deleted as a link",
        tree: linked_notes_tree,
        args: || json!({"path": "latest"}),
        reply: Said("Deleted symbolic link 'latest'"),
        after: &[Absent("latest"), Bytes("notes/todo.md", b"- buy milk\n")],
        ..DELETE
    },
    Case {
        name: "a link to a directory is deleted as a link, even recursively",
        tree: linked_notes_tree,
        args: || json!({"path": "shelf", "recursive": true}),
        reply: Said("Deleted symbolic link 'shelf'"),
        after: &[Absent("shelf"), Bytes("notes/archive/old.md", b"old\n")],
        ..DELETE
    },
];

#[test]
fn delete_successes() {
    run_cases(DELETE_SUCCESSES);
}

const NOT_EMPTY: &str = "Directory 'notes/archive' is not empty; set recursive to true to delete it and everything below it";

/// The refusal of a recursive delete of `notes/archive` holding `entry`.
macro_rules! holds_unserved {
    ($entry:literal) => {
        concat!(
            "Directory 'notes/archive' holds '",
            $entry,
            "', which this root does not serve and which is no cache or dependency directory's; delete refuses to remove what it cannot show"
        )
    };
}

/// Deletes that are refused, and leave the root as it was.
const DELETE_REFUSALS: &[Case] = &[
    Case {
        name: "a non-empty directory needs recursive",
        args: || json!({"path": "notes/archive"}),
        reply: Refused(NOT_EMPTY),
        ..DELETE_REFUSED
    },
    Case {
        name: "a non-empty directory needs recursive true, not false",
        args: || json!({"path": "notes/archive", "recursive": false}),
        reply: Refused(NOT_EMPTY),
        ..DELETE_REFUSED
    },
    Case {
        name: "the root cannot be deleted",
        args: || json!({"path": "."}),
        reply: Refused("The root itself cannot be deleted"),
        ..DELETE_REFUSED
    },
    Case {
        name: "the root cannot be deleted recursively",
        args: || json!({"path": ".", "recursive": true}),
        reply: Refused("The root itself cannot be deleted"),
        ..DELETE_REFUSED
    },
    Case {
        name: "a tree holding an unserved file is not deleted",
        tree: || notes_tree().file("notes/archive/2025/key.secret", "hush\n"),
        flags: &["--exclude", "**/*.secret"],
        args: || json!({"path": "notes/archive", "recursive": true}),
        reply: Refused(holds_unserved!("notes/archive/2025/key.secret")),
        ..DELETE_REFUSED
    },
    Case {
        name: "a tree holding a repository (.git, default-excluded) is not deleted",
        tree: || notes_tree().file("notes/archive/.git/HEAD", "ref\n"),
        args: || json!({"path": "notes/archive", "recursive": true}),
        reply: Refused(holds_unserved!("notes/archive/.git")),
        ..DELETE_REFUSED
    },
    Case {
        name: "deleting a missing path is an error",
        args: || json!({"path": "notes/gone.md"}),
        reply: Refused("'notes/gone.md' does not exist"),
        ..DELETE_REFUSED
    },
];

#[test]
fn delete_refusals() {
    run_cases(DELETE_REFUSALS);
}

#[test]
fn a_symlink_in_a_deleted_tree_goes_and_its_target_stays() {
    let outside = Tree::new().file("keep/precious.txt", "precious\n");
    let tree = notes_tree()
        .symlink("notes/archive/to-file", outside.join("keep/precious.txt"))
        .symlink("notes/archive/to-dir", outside.join("keep"));
    let before = snapshot(outside.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_delete",
            json!({"path": "notes/archive", "recursive": true})
        ),
        "Deleted directory 'notes/archive' and everything below it"
    );
    assert!(!exists(&tree, "notes/archive"));
    assert_eq!(snapshot(outside.path()), before);
}

#[test]
fn a_delete_reports_the_path_absent() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "notes/todo.md"}),
        json!({"path": "notes/archive", "recursive": true}),
    ] {
        let structured = fs_revisions(&mut server, "fs_delete", args);
        assert_eq!(revision_keys(&structured), ["path"]);
        assert_eq!(revision(&structured, "path"), absent_revision());
    }
}

// ---- a path the root does not serve ----------------------------------------------------------

/// [`notes_tree`] with a file [`SECRET`]'s `--exclude '**/*.secret'` hides.
fn secret_notes_tree() -> Tree {
    notes_tree().file("notes/key.secret", "hush\n")
}

const NOT_SERVED: &str = "'notes/key.secret' is not served by this root";

/// A call on [`secret_notes_tree`] hiding `*.secret`, that must leave it as it was.
const SECRET: Case = Case {
    tree: secret_notes_tree,
    flags: &["--exclude", "**/*.secret"],
    after: &[Unchanged],
    ..Case::DEFAULT
};

/// Every tool refuses a path the root does not serve, and changes nothing.
const UNSERVED: &[Case] = &[
    Case {
        name: "delete",
        tool: "fs_delete",
        args: || json!({"path": "notes/key.secret"}),
        reply: Refused(NOT_SERVED),
        ..SECRET
    },
    Case {
        name: "move",
        tool: "fs_move",
        args: || mv("notes/key.secret", "notes/key.txt"),
        reply: Refused(NOT_SERVED),
        ..SECRET
    },
    Case {
        name: "edit",
        tool: "fs_edit",
        args: || json!({"path": "notes/key.secret", "old-string": "hush", "new-string": "x"}),
        reply: Refused(NOT_SERVED),
        ..SECRET
    },
    Case {
        name: "read",
        tool: "fs_read",
        args: || json!({"path": "notes/key.secret"}),
        reply: Refused(NOT_SERVED),
        ..SECRET
    },
    Case {
        name: "stat",
        tool: "fs_stat",
        args: || json!({"path": "notes/key.secret"}),
        reply: Refused(NOT_SERVED),
        ..SECRET
    },
    Case {
        name: "write",
        tool: "fs_write",
        args: || json!({"path": "notes/key.secret", "content": "x"}),
        reply: Refused(
            "'notes/key.secret' is not served by this root; a file written there could not be read back",
        ),
        ..SECRET
    },
];

#[test]
fn a_path_the_root_does_not_serve_cannot_be_moved_edited_or_deleted() {
    run_cases(UNSERVED);
}

// ---- a move never changes what is served but the moved entries ---------------------------------

#[test]
fn a_directory_holding_hidden_files_cannot_be_moved_into_view() {
    let tree = Tree::new()
        .file("lib/a.txt", "a\n")
        .file("lib/private/creds.txt", "CREDS\n")
        .file("other/creds.txt", "OTHER\n");
    let before = snapshot(tree.path());
    let mut server = fs_server_selecting(
        &tree,
        &["--include", "lib/**", "--exclude", "lib/private/**"],
    );
    let refused = |dir: &str, entry: &str| {
        format!(
            "Directory '{dir}' holds '{entry}', which this root does not serve (here or at the destination) and which is no cache or dependency directory's; move refuses to carry what it cannot show"
        )
    };
    // The excluded subtree, renamed out of the exclusion.
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("lib/private", "lib/p2")),
        refused("lib/private", "lib/private/creds.txt")
    );
    // A tree outside every include, moved inside one.
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("other", "lib/other")),
        refused("other", "other/creds.txt")
    );
    assert_eq!(snapshot(tree.path()), before);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "lib/p2/creds.txt"})),
        "'lib/p2/creds.txt' does not exist"
    );
}

#[test]
fn a_served_tree_cannot_be_moved_where_part_of_it_would_be_hidden() {
    let tree = Tree::new()
        .file("lib/sub/a.md", "a\n")
        .file("lib/sub/deep/b.md", "b\n")
        .dir("docs");
    let before = snapshot(tree.path());
    let mut server =
        fs_server_selecting(&tree, &["--include", "lib/**", "--include", "docs/*/*.md"]);
    // docs/sub/a.md would be served, docs/sub/deep/b.md would not.
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("lib/sub", "docs/sub")),
        "Directory 'lib/sub' holds 'lib/sub/deep/b.md', which this root does not serve (here or at the destination) and which is no cache or dependency directory's; move refuses to carry what it cannot show"
    );
    assert_eq!(snapshot(tree.path()), before);
    // A tree served on both sides moves.
    tree.remove("lib/sub/deep/b.md");
    tree.remove("lib/sub/deep");
    assert_eq!(
        fs_text(&mut server, "fs_move", mv("lib/sub", "docs/sub")),
        "Moved 'lib/sub' to 'docs/sub'"
    );
    assert_eq!(tree.bytes("docs/sub/a.md"), b"a\n");
}

// ---- a recursive delete removes what it checked, and nothing else -----------------------------

/// Builds a chain of `depth` nested directories named `d` inside `top` (deeper than a path
/// string can name, so one descriptor-relative step at a time).
fn build_chain(top: &std::path::Path, depth: usize) {
    use rustix::fs::{Mode, OFlags};
    std::fs::create_dir(top).unwrap();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
    let mut dir = rustix::fs::open(top, flags, Mode::empty()).unwrap();
    for _ in 1..depth {
        rustix::fs::mkdirat(&dir, "d", Mode::from_raw_mode(0o755)).unwrap();
        dir = rustix::fs::openat(&dir, "d", flags, Mode::empty()).unwrap();
    }
}

/// The number of directories in the chain at `top` (1 for a lone directory).
fn chain_depth(top: &std::path::Path) -> usize {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
    let mut dir = rustix::fs::open(top, flags, Mode::empty()).unwrap();
    let mut depth = 1;
    while let Ok(next) = rustix::fs::openat(&dir, "d", flags, Mode::empty()) {
        dir = next;
        depth += 1;
    }
    depth
}

/// Removes a chain of any depth with a few calls per level and no recursion: the grandchild
/// is lifted beside the child, the emptied child removed, and the grandchild takes its name.
fn remove_chain(top: &std::path::Path) {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
    let dir = rustix::fs::open(top, flags, Mode::empty()).unwrap();
    while rustix::fs::renameat(&dir, "d/d", &dir, "lifted").is_ok() {
        rustix::fs::unlinkat(&dir, "d", AtFlags::REMOVEDIR).unwrap();
        rustix::fs::renameat(&dir, "lifted", &dir, "d").unwrap();
    }
    let _ = rustix::fs::unlinkat(&dir, "d", AtFlags::REMOVEDIR);
    std::fs::remove_dir(top).unwrap();
}

#[test]
fn a_deep_chain_renamed_into_a_tree_being_deleted_is_left_whole() {
    const DEPTH: usize = 16_000;
    let tree = Tree::new();
    let outside = tempfile::tempdir().unwrap();
    let parked = outside.path().join("chain");
    build_chain(&parked, DEPTH);
    let inside = tree.join("victim/deep");
    let mut server = fs_server(&tree);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let racer = {
        let (stop, parked, inside) = (stop.clone(), parked.clone(), inside.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if std::fs::rename(&parked, &inside).is_ok() {
                    let _ = std::fs::rename(&inside, &parked);
                }
            }
        })
    };
    let mut answers = std::collections::BTreeMap::<String, usize>::new();
    for round in 0..60 {
        // Enough files that the check takes a while after reading the top directory.
        for i in 0..40 {
            tree.put(&format!("victim/sub{}/f{i}.txt", round % 3), "x\n");
        }
        let result = server.call_result("fs_delete", json!({"path": "victim", "recursive": true}));
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        *answers.entry(text).or_default() += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    racer.join().unwrap();
    // Whatever the timing, the server answered every call and is still up.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_write",
            json!({"path": "alive.txt", "content": "yes"})
        ),
        "Wrote 3 bytes to 'alive.txt'"
    );
    for text in answers.keys() {
        assert!(
            [
                "Deleted directory 'victim' and everything below it",
                "Deleted empty directory 'victim'",
                "'victim' does not exist",
                "the walk reached a directory more than 64 levels deep (the depth limit); delete a directory further down first, or raise it with --max-depth (config key limits.max_depth)",
                "'victim' changed while it was being deleted: what the check saw is gone, and what appeared since is left in place; list it and delete again",
                "'victim' changed while it was being read; call again",
            ]
            .contains(&text.as_str()),
            "unexpected answer {text:?} in {answers:?}"
        );
    }
    eprintln!("answers: {answers:?}");
    // The chain the checks never saw whole is whole, wherever the racer left it.
    let chain = if parked.exists() { parked } else { inside };
    let depth = chain_depth(&chain);
    remove_chain(&chain);
    assert_eq!(depth, DEPTH, "answers: {answers:?}");
}

/// `fs_move` and `fs_copy` into an existing directory against `mv` and `cp -R` run on a copy
/// of the same tree: the same entries end where the same bytes, and where the tools refuse
/// (`to` ending in `/` where no directory is) both refuse.
#[test]
fn moves_and_copies_into_a_directory_agree_with_mv_and_cp() {
    if cfg!(windows)
        || std::process::Command::new("mv")
            .arg("--version")
            .output()
            .is_err()
    {
        eprintln!("skipped: no mv and cp on this system");
        return;
    }
    let cases: &[(&str, &str, &str)] = &[
        ("fs_move", "notes/todo.md", "notes/empty"),
        ("fs_move", "notes/todo.md", "notes/empty/"),
        ("fs_move", "notes/archive", "notes/empty"),
        ("fs_move", "notes/archive/2025", "."),
        ("fs_move", "notes/todo.md", "notes/nowhere/"),
        ("fs_copy", "notes/todo.md", "notes/archive"),
        ("fs_copy", "notes/archive", "notes/empty/"),
        ("fs_copy", "notes/scratch.md", "."),
        ("fs_copy", "notes/todo.md", "notes/nowhere/"),
    ];
    for &(tool, from, to) in cases {
        let ours = notes_tree();
        let theirs = notes_tree();
        let mut server = fs_server(&ours);
        let answer = server.call_result(tool, json!({"from": from, "to": to}));
        let refused = answer.get("isError") == Some(&json!(true));
        let (program, flags): (&str, &[&str]) = if tool == "fs_move" {
            ("mv", &[])
        } else {
            ("cp", &["-R"])
        };
        let status = std::process::Command::new(program)
            .args(flags)
            .arg(from)
            .arg(to)
            .current_dir(theirs.path())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("runs");
        assert_eq!(refused, !status.success(), "{tool} {from} {to}: {answer}");
        assert_eq!(
            snapshot(ours.path()),
            snapshot(theirs.path()),
            "{tool} {from} {to}"
        );
    }
}

/// A Python package with what tools leave in it: byte code, a test cache, installed
/// JavaScript dependencies, all hidden by the built-in excludes.
fn package_tree() -> Tree {
    Tree::new()
        .file("pkg/__init__.py", "")
        .file("pkg/mod.py", "def f():\n    return 1\n")
        .file(
            "pkg/__pycache__/mod.cpython-311.pyc",
            b"\xa7\r\r\n\0\0\0\0bytecode",
        )
        .file("pkg/.pytest_cache/v/cache/lastfailed", "{}\n")
        .file(
            "pkg/web/node_modules/left-pad/index.js",
            "module.exports = 1;\n",
        )
        .file("pkg/web/app.js", "require('left-pad');\n")
        .dir("lib")
}

/// Caches and dependency directories travel with a move or copy and go with a recursive
/// delete, exactly as `mv`, `cp -R` and `rm -r` run on a copy of the tree leave it; they stay
/// hidden where they land.
#[test]
fn caches_travel_with_a_move_or_copy_and_go_with_a_delete_as_mv_cp_and_rm_do() {
    if cfg!(windows)
        || std::process::Command::new("mv")
            .arg("--version")
            .output()
            .is_err()
    {
        eprintln!("skipped: no mv, cp and rm on this system");
        return;
    }
    let cases: &[(&str, serde_json::Value, &str, &[&str])] = &[
        ("fs_move", mv("pkg", "lib/pkg"), "mv", &["pkg", "lib/pkg"]),
        ("fs_move", mv("pkg", "lib/"), "mv", &["pkg", "lib/"]),
        ("fs_copy", mv("pkg", "pkg2"), "cp", &["-R", "pkg", "pkg2"]),
        (
            "fs_delete",
            json!({"path": "pkg", "recursive": true}),
            "rm",
            &["-r", "pkg"],
        ),
        (
            "fs_delete",
            json!({"path": "pkg/web", "recursive": true}),
            "rm",
            &["-r", "pkg/web"],
        ),
    ];
    for (tool, args, program, program_args) in cases {
        let ours = package_tree();
        let theirs = package_tree();
        let mut server = fs_server(&ours);
        let text = fs_text(&mut server, tool, args.clone());
        let status = std::process::Command::new(program)
            .args(*program_args)
            .current_dir(theirs.path())
            .status()
            .expect("runs");
        assert!(status.success(), "{program} {program_args:?}");
        assert_eq!(
            snapshot(ours.path()),
            snapshot(theirs.path()),
            "{tool} {args}: {text}"
        );
        // Nothing hidden became visible.
        let listed = fs_text(&mut server, "fs_glob", json!({"pattern": "**"}));
        for hidden in ["__pycache__", ".pytest_cache", "node_modules"] {
            assert!(!listed.contains(hidden), "{tool} {args}: {listed}");
        }
    }
    let ours = package_tree();
    let mut server = fs_server(&ours);
    fs_text(&mut server, "fs_move", mv("pkg", "lib/pkg"));
    assert_eq!(
        fs_error(
            &mut server,
            "fs_read",
            json!({"path": "lib/pkg/__pycache__/mod.cpython-311.pyc"})
        ),
        "'lib/pkg/__pycache__/mod.cpython-311.pyc' is not served by this root"
    );
}

/// A secret in a cache, a cache the operator excluded, and a repository keep the refusal,
/// which names the entry; nothing moves.
#[test]
fn secrets_excluded_caches_and_repositories_do_not_travel() {
    let refusal = |tool: &str, dir: &str, entry: &str| {
        let (verb, what, place) = match tool {
            "fs_delete" => ("delete", "remove", ""),
            "fs_move" => ("move", "carry", " (here or at the destination)"),
            _ => ("copy", "carry", " (here or at the destination)"),
        };
        format!(
            "Directory '{dir}' holds '{entry}', which this root does not serve{place} and which is no cache or dependency directory's; {verb} refuses to {what} what it cannot show"
        )
    };
    let cases: &[(Tree, &[&str], &str)] = &[
        (
            package_tree().file("pkg/__pycache__/.env", "TOKEN=1\n"),
            &[],
            "pkg/__pycache__/.env",
        ),
        (
            package_tree().file("pkg/web/node_modules/x/key.pem", "KEY\n"),
            &[],
            "pkg/web/node_modules/x/key.pem",
        ),
        (
            package_tree(),
            &["--exclude", "**/node_modules"],
            "pkg/web/node_modules",
        ),
        (
            package_tree().file("pkg/.git/HEAD", "ref: main\n"),
            &[],
            "pkg/.git",
        ),
        // A dependency's own repository, inside a directory that would travel.
        (
            package_tree().file("pkg/web/node_modules/dep/.git/HEAD", "ref: main\n"),
            &[],
            "pkg/web/node_modules/dep/.git",
        ),
    ];
    for (tree, flags, entry) in cases {
        let before = snapshot(tree.path());
        let mut server = fs_server_with(tree, flags);
        for (tool, args) in [
            ("fs_move", mv("pkg", "lib/pkg")),
            ("fs_copy", mv("pkg", "pkg2")),
            ("fs_delete", json!({"path": "pkg", "recursive": true})),
        ] {
            assert_eq!(
                fs_error(&mut server, tool, args),
                refusal(tool, "pkg", entry),
                "{flags:?}"
            );
        }
        assert_eq!(snapshot(tree.path()), before);
    }
}
