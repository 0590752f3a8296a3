//! `fs_mkdir`, `fs_move` and `fs_delete`: the reference examples byte for byte, what each
//! refuses, and that a refusal changes nothing.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

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

/// Whether anything (a file, a directory or a link) exists at `rel` under the tree's root.
fn exists(tree: &Tree, rel: &str) -> bool {
    std::fs::symlink_metadata(tree.join(rel)).is_ok()
}

// ---- mkdir ----------------------------------------------------------------------------------

#[test]
fn the_reference_mkdir_creates_missing_parents() {
    let tree = Tree::new().file("notes/todo.md", "x");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_mkdir",
            json!({"path": "notes/archive/2026"})
        ),
        "Created directory 'notes/archive/2026'"
    );
    assert!(tree.join("notes/archive/2026").is_dir());
    assert!(tree.names("notes/archive/2026").is_empty());
}

#[test]
fn mkdir_creates_a_deep_chain() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_mkdir", json!({"path": "a/b/c/d"})),
        "Created directory 'a/b/c/d'"
    );
    assert!(tree.join("a/b/c/d").is_dir());
}

#[test]
fn an_existing_directory_is_a_no_op_and_not_an_error() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_mkdir", json!({"path": "notes/archive"})),
        "Directory 'notes/archive' already exists"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_file_in_the_way_is_an_error() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_mkdir", json!({"path": "notes/todo.md"})),
        "'notes/todo.md' exists and is not a directory"
    );
    assert_eq!(tree.bytes("notes/todo.md"), b"- buy milk\n");
}

#[test]
fn a_file_in_the_way_of_a_parent_is_an_error() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    fs_error(
        &mut server,
        "fs_mkdir",
        json!({"path": "notes/todo.md/sub"}),
    );
    assert_eq!(tree.bytes("notes/todo.md"), b"- buy milk\n");
}

#[test]
fn mkdir_of_a_path_the_root_does_not_serve_is_refused() {
    let tree = Tree::new();
    let mut server = fs_server_with(&tree, &["--exclude", "**/private"]);
    assert_eq!(
        fs_error(&mut server, "fs_mkdir", json!({"path": "private"})),
        "'private' is not served by this root; a file written there could not be read back"
    );
    assert!(tree.names("").is_empty());
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

#[test]
fn the_reference_move_renames_a_file() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_move",
            mv("notes/todo.md", "notes/archive/todo.md")
        ),
        "Moved 'notes/todo.md' to 'notes/archive/todo.md'"
    );
    assert!(!exists(&tree, "notes/todo.md"));
    assert_eq!(tree.bytes("notes/archive/todo.md"), b"- buy milk\n");
}

#[test]
fn a_directory_moves_with_everything_inside_it() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_move", mv("notes/archive", "attic")),
        "Moved 'notes/archive' to 'attic'"
    );
    assert!(!exists(&tree, "notes/archive"));
    assert_eq!(tree.bytes("attic/2025/jan.md"), b"january\n");
    assert_eq!(tree.bytes("attic/old.md"), b"old\n");
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_move",
            mv("notes/todo.md", "notes/ideas.md")
        ),
        "'notes/ideas.md' already exists; delete it first if you mean to replace it"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn an_existing_directory_is_never_replaced() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for (from, to) in [
        ("notes/empty", "notes/archive"),
        ("notes/archive/2025", "notes/empty"),
        ("notes/todo.md", "notes/empty"),
    ] {
        assert_eq!(
            fs_error(&mut server, "fs_move", mv(from, to)),
            format!("'{to}' already exists; delete it first if you mean to replace it"),
            "{from} -> {to}"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_missing_parent_is_refused() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_move",
            mv("notes/todo.md", "nowhere/todo.md")
        ),
        "Parent directory of 'nowhere/todo.md' does not exist; create it with the mkdir tool first"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_missing_source_does_not_exist() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("notes/gone.md", "notes/here.md")),
        "'notes/gone.md' does not exist"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn the_root_cannot_be_moved_or_replaced() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for (from, to) in [(".", "elsewhere"), ("notes/todo.md", "."), (".", ".")] {
        assert_eq!(
            fs_error(&mut server, "fs_move", mv(from, to)),
            "The root itself cannot be moved",
            "{from} -> {to}"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_directory_cannot_move_into_itself() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for (from, to) in [
        ("notes", "notes/archive/notes"),
        ("notes/archive", "notes/archive/2025/inner"),
    ] {
        assert_eq!(
            fs_error(&mut server, "fs_move", mv(from, to)),
            format!("'{to}' is inside '{from}'"),
            "{from} -> {to}"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_move_to_a_path_the_root_does_not_serve_is_refused() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_move",
            mv("notes/todo.md", "notes/todo.secret")
        ),
        "'notes/todo.secret' is not served by this root; a file written there could not be read back"
    );
    assert_eq!(snapshot(tree.path()), before);
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

fn delete(server: &mut Server, path: &str) -> String {
    fs_text(server, "fs_delete", json!({"path": path}))
}

#[test]
fn the_reference_delete_of_a_file() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        delete(&mut server, "notes/scratch.md"),
        "Deleted file 'notes/scratch.md'"
    );
    assert!(!exists(&tree, "notes/scratch.md"));
    assert!(exists(&tree, "notes/todo.md"));
}

#[test]
fn the_reference_delete_of_an_empty_directory() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        delete(&mut server, "notes/empty"),
        "Deleted empty directory 'notes/empty'"
    );
    assert!(!exists(&tree, "notes/empty"));
}

#[test]
fn a_non_empty_directory_needs_recursive() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "notes/archive"}),
        json!({"path": "notes/archive", "recursive": false}),
    ] {
        assert_eq!(
            fs_error(&mut server, "fs_delete", args),
            "Directory 'notes/archive' is not empty; set recursive to true to delete it and everything below it"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn the_reference_recursive_delete() {
    let tree = notes_tree();
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
    assert_eq!(
        tree.names("notes"),
        ["empty", "ideas.md", "scratch.md", "todo.md"]
    );
}

#[test]
fn recursive_on_a_file_deletes_the_file() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_delete",
            json!({"path": "notes/todo.md", "recursive": true})
        ),
        "Deleted file 'notes/todo.md'"
    );
    assert!(!exists(&tree, "notes/todo.md"));
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
fn a_symlink_is_deleted_as_a_link() {
    let tree = notes_tree()
        .symlink("latest", "notes/todo.md")
        .symlink("shelf", "notes/archive");
    let mut server = fs_server(&tree);
    assert_eq!(
        delete(&mut server, "latest"),
        "Deleted symbolic link 'latest'"
    );
    assert_eq!(
        fs_text(
            &mut server,
            "fs_delete",
            json!({"path": "shelf", "recursive": true})
        ),
        "Deleted symbolic link 'shelf'"
    );
    assert!(!exists(&tree, "latest") && !exists(&tree, "shelf"));
    assert_eq!(tree.bytes("notes/todo.md"), b"- buy milk\n");
    assert_eq!(tree.bytes("notes/archive/old.md"), b"old\n");
}

#[test]
fn the_root_cannot_be_deleted() {
    let tree = notes_tree();
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "."}),
        json!({"path": ".", "recursive": true}),
    ] {
        assert_eq!(
            fs_error(&mut server, "fs_delete", args),
            "The root itself cannot be deleted"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_tree_holding_an_unserved_file_is_not_deleted() {
    let tree = notes_tree().file("notes/archive/2025/key.secret", "hush\n");
    let before = snapshot(tree.path());
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_delete",
            json!({"path": "notes/archive", "recursive": true})
        ),
        "Directory 'notes/archive' holds entries this root does not serve; delete refuses to remove what it cannot show"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_tree_holding_a_default_excluded_directory_is_not_deleted() {
    let tree = notes_tree().file("notes/archive/.git/HEAD", "ref\n");
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_delete",
            json!({"path": "notes/archive", "recursive": true})
        ),
        "Directory 'notes/archive' holds entries this root does not serve; delete refuses to remove what it cannot show"
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn deleting_a_missing_path_is_an_error() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_delete", json!({"path": "notes/gone.md"})),
        "'notes/gone.md' does not exist"
    );
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

#[test]
fn a_path_the_root_does_not_serve_cannot_be_moved_edited_or_deleted() {
    let tree = notes_tree().file("notes/key.secret", "hush\n");
    let before = snapshot(tree.path());
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    let not_served = "'notes/key.secret' is not served by this root";
    for (tool, args) in [
        ("fs_delete", json!({"path": "notes/key.secret"})),
        ("fs_move", mv("notes/key.secret", "notes/key.txt")),
        (
            "fs_edit",
            json!({"path": "notes/key.secret", "old-string": "hush", "new-string": "x"}),
        ),
        ("fs_read", json!({"path": "notes/key.secret"})),
        ("fs_stat", json!({"path": "notes/key.secret"})),
    ] {
        assert_eq!(
            fs_error(&mut server, tool, args.clone()),
            not_served,
            "{tool} {args}"
        );
    }
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "notes/key.secret", "content": "x"})
        ),
        format!("{not_served}; a file written there could not be read back")
    );
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_sibling_sharing_a_name_prefix_is_not_inside() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_move", mv("notes", "notes-old")),
        "Moved 'notes' to 'notes-old'"
    );
    assert_eq!(tree.bytes("notes-old/todo.md"), b"- buy milk\n");
    assert!(!exists(&tree, "notes"));
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
    let refused = |dir: &str| {
        format!(
            "Directory '{dir}' holds entries this root does not serve, here or at the destination; move refuses to carry what it cannot show"
        )
    };
    // The excluded subtree, renamed out of the exclusion.
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("lib/private", "lib/p2")),
        refused("lib/private")
    );
    // A tree outside every include, moved inside one.
    assert_eq!(
        fs_error(&mut server, "fs_move", mv("other", "lib/other")),
        refused("other")
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
        "Directory 'lib/sub' holds entries this root does not serve, here or at the destination; move refuses to carry what it cannot show"
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
