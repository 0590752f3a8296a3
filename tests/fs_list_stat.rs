//! `fs_list` and `fs_stat`: one sorted entry per line with directories marked, what a listing
//! hides, and stat's seven lines.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::fs::*;
use support::*;

/// 2026-07-29T20:14:02Z, the reference example's modification time.
const REFERENCE_MTIME: u64 = 1_785_356_042;

fn notes_tree() -> Tree {
    Tree::new()
        .file("notes/archive/2025.md", "old\n")
        .file("notes/ideas.md", "the first\n")
        .file("notes/todo.md", "- buy milk\n- feed the yak\n")
}

fn list(server: &mut Server, path: &str) -> String {
    fs_text(server, "fs_list", json!({"path": path}))
}

// ---- list -----------------------------------------------------------------------------------

#[test]
fn the_reference_listing_marks_directories_and_sorts() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(list(&mut server, "notes"), "archive/\nideas.md\ntodo.md");
}

#[test]
fn directories_and_files_are_sorted_together() {
    let tree = Tree::new()
        .dir("c")
        .file("b.txt", "")
        .file("a/x.txt", "")
        .file("d.txt", "");
    let mut server = fs_server(&tree);
    assert_eq!(list(&mut server, "."), "a/\nb.txt\nc/\nd.txt");
}

#[test]
fn an_empty_directory_says_so() {
    let tree = Tree::new().dir("notes/empty");
    let mut server = fs_server(&tree);
    assert_eq!(list(&mut server, "notes/empty"), "(empty directory)");
}

#[test]
fn the_path_defaults_to_the_root() {
    let tree = notes_tree().file("top.txt", "x");
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_text(&mut server, "fs_list", json!({})),
        "notes/\ntop.txt"
    );
    assert_eq!(list(&mut server, "."), "notes/\ntop.txt");
}

#[test]
fn excluded_entries_are_not_shown() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("key.secret", "")
        .file(".git/HEAD", "ref\n")
        .file("node_modules/x/index.js", "")
        .file("vault/one.secret", "");
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    assert_eq!(list(&mut server, "."), "a.txt\nvault/");
    assert_eq!(list(&mut server, "vault"), "(empty directory)");
}

#[test]
fn only_what_the_selector_serves_is_shown() {
    let tree = Tree::new()
        .file("docs/guide.md", "")
        .file("src/main.rs", "")
        .file("top.txt", "");
    let mut server = Server::start(tree.path(), &["--tools", "fs", "--include", "docs/**"]);
    assert_eq!(list(&mut server, "."), "docs/");
    assert_eq!(list(&mut server, "docs"), "guide.md");
}

/// Links are listed as links (`@`, as `ls -F` marks them), whatever they lead to, never as
/// their targets; a root that follows links lists what they lead to inside it, and the ptc
/// listing keeps leaving them out.
#[test]
fn symbolic_links_are_shown_as_links() {
    let outside = Tree::new().file("secret.txt", "outside\n");
    let tree = Tree::new()
        .file("real.txt", "x")
        .dir("sub")
        .symlink("alias.txt", "real.txt")
        .symlink("subalias", "sub")
        .symlink("out", outside.path())
        .symlink("dangling", "nowhere");
    let mut server = fs_server(&tree);
    assert_eq!(
        list(&mut server, "."),
        "alias.txt@\ndangling@\nout@\nreal.txt\nsub/\nsubalias@"
    );
    // A link is what read, stat and delete then name.
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "alias.txt"})),
        "'alias.txt' is a symbolic link, which this root does not follow (links are followed only with --follow-symlinks, and only while they stay inside the root)"
    );
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    assert_eq!(
        list(&mut server, "."),
        "alias.txt\nreal.txt\nsub/\nsubalias/"
    );
    let mut server = fs_server_with(&tree, &["--tools", "ptc"]);
    let listed = server
        .call_result("list_directory", json!({"path": ""}))
        .to_string();
    assert!(
        !listed.contains("alias") && !listed.contains("dangling"),
        "{listed}"
    );
}

#[test]
fn a_file_is_not_a_directory() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_list", json!({"path": "notes/todo.md"})),
        "'notes/todo.md' is not a directory"
    );
}

#[test]
fn a_missing_directory_does_not_exist() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_list", json!({"path": "notes/nope"})),
        "'notes/nope' does not exist"
    );
}

#[test]
fn a_listing_reports_the_directory_revision() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    let structured = fs_revisions(&mut server, "fs_list", json!({"path": "notes"}));
    assert_eq!(revision_keys(&structured), ["path"]);
    let (state, token) = revision(&structured, "path");
    assert_eq!(state, "directory");
    let token = token.expect("token");
    assert!(is_directory_token(&token), "{token}");
}

#[test]
fn the_default_path_is_reported_under_the_path_key() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    let structured = fs_revisions(&mut server, "fs_list", json!({}));
    assert_eq!(revision_keys(&structured), ["path"]);
    assert_eq!(revision(&structured, "path").0, "directory");
}

// ---- stat -----------------------------------------------------------------------------------

fn stat(server: &mut Server, path: &str) -> String {
    fs_text(server, "fs_stat", json!({"path": path}))
}

#[test]
fn the_reference_stat_of_a_file_has_seven_lines() {
    let tree = notes_tree();
    set_mtime(&tree.join("notes/todo.md"), REFERENCE_MTIME);
    let mut server = fs_server(&tree);
    assert_eq!(
        stat(&mut server, "notes/todo.md"),
        "path: notes/todo.md\ntype: file\nsize: 26\nmodified: 2026-07-29T20:14:02Z\nsymlink: no\nreadable: yes\nwritable: yes"
    );
}

#[test]
fn a_directory_stats_as_a_directory() {
    let tree = notes_tree();
    set_mtime(&tree.join("notes/archive"), REFERENCE_MTIME + 61);
    let mut server = fs_server(&tree);
    let text = stat(&mut server, "notes/archive");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(lines[0], "path: notes/archive");
    assert_eq!(lines[1], "type: directory");
    let size = lines[2].strip_prefix("size: ").expect("size line");
    assert!(
        !size.is_empty() && size.bytes().all(|b| b.is_ascii_digit()),
        "{text}"
    );
    assert_eq!(
        lines[3..],
        [
            "modified: 2026-07-29T20:15:03Z",
            "symlink: no",
            "readable: yes",
            "writable: yes"
        ]
    );
}

#[test]
fn modified_is_utc_to_the_second() {
    let tree = Tree::new().file("old.txt", "x");
    set_mtime(&tree.join("old.txt"), 0);
    let mut server = fs_server(&tree);
    let text = stat(&mut server, "old.txt");
    assert_eq!(
        text.lines().nth(3),
        Some("modified: 1970-01-01T00:00:00Z"),
        "{text}"
    );
}

#[test]
fn a_fresh_file_is_stamped_with_the_current_utc_time() {
    let tree = Tree::new().file("new.txt", "abc");
    let mut server = fs_server(&tree);
    let text = stat(&mut server, "new.txt");
    let modified = text
        .lines()
        .nth(3)
        .and_then(|l| l.strip_prefix("modified: "))
        .expect("modified line");
    // YYYY-MM-DDTHH:MM:SSZ
    let shape: String = modified
        .chars()
        .map(|c| if c.is_ascii_digit() { 'd' } else { c })
        .collect();
    assert_eq!(shape, "dddd-dd-ddTdd:dd:ddZ", "{modified}");
    assert!(modified >= "2026-", "{modified}");
    assert_eq!(text.lines().nth(2), Some("size: 3"));
}

#[test]
fn a_read_only_root_is_never_writable() {
    let tree = notes_tree();
    tree.chmod("notes/todo.md", 0o666);
    let mut server = fs_server_with(&tree, &["--read-only"]);
    for path in ["notes/todo.md", "notes"] {
        let text = stat(&mut server, path);
        assert_eq!(text.lines().last(), Some("writable: no"), "{path}: {text}");
    }
}

#[test]
fn a_symbolic_link_is_reported_as_one() {
    let tree = notes_tree().symlink("notes/latest.md", "todo.md");
    let mut server = fs_server_keyed(&tree);
    let text = stat(&mut server, "notes/latest.md");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(lines[0], "path: notes/latest.md");
    assert_eq!(lines[4], "symlink: yes");
}

#[test]
fn a_fifo_is_of_type_other() {
    let tree = Tree::new().fifo("pipe");
    let mut server = fs_server(&tree);
    let text = stat(&mut server, "pipe");
    assert_eq!(text.lines().nth(1), Some("type: other"), "{text}");
    assert_eq!(text.lines().nth(4), Some("symlink: no"), "{text}");
}

#[test]
fn an_unreadable_file_is_reported_unreadable() {
    let tree = Tree::new().file("locked.txt", "x");
    tree.chmod("locked.txt", 0o000);
    // Root bypasses permission bits: as root, the server runs as an unprivileged user.
    let Some(mut server) = unprivileged_server(&tree, &["--tools", "fs", "--include", "**"]) else {
        return;
    };
    let text = stat(&mut server, "locked.txt");
    assert_eq!(text.lines().nth(5), Some("readable: no"), "{text}");
    assert_eq!(text.lines().nth(6), Some("writable: no"), "{text}");
}

#[test]
fn stat_of_a_missing_path_does_not_exist() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_stat", json!({"path": "notes/gone.md"})),
        "'notes/gone.md' does not exist"
    );
}

#[test]
fn stat_reports_file_directory_and_symlink_revisions() {
    let tree = notes_tree().symlink("notes/latest.md", "todo.md");
    let mut server = fs_server_keyed(&tree);
    let file = fs_revisions(&mut server, "fs_stat", json!({"path": "notes/todo.md"}));
    assert_eq!(revision_keys(&file), ["path"]);
    assert_eq!(
        revision(&file, "path"),
        file_revision("- buy milk\n- feed the yak\n")
    );
    let dir = fs_revisions(&mut server, "fs_stat", json!({"path": "notes"}));
    let (state, token) = revision(&dir, "path");
    assert_eq!(state, "directory");
    assert!(is_directory_token(&token.expect("token")));
    let link = fs_revisions(&mut server, "fs_stat", json!({"path": "notes/latest.md"}));
    assert_eq!(
        revision(&link, "path"),
        ("symlink".to_owned(), Some(symlink_token("todo.md")))
    );
}

#[test]
fn stat_and_list_agree_on_a_directory_revision() {
    let tree = notes_tree();
    let mut server = fs_server(&tree);
    let listed = fs_revisions(&mut server, "fs_list", json!({"path": "notes"}));
    let stated = fs_revisions(&mut server, "fs_stat", json!({"path": "notes"}));
    assert_eq!(token(&listed, "path"), token(&stated, "path"));
}

#[test]
fn an_excluded_directory_is_not_shown() {
    let tree = notes_tree();
    let mut server = fs_server_with(&tree, &["--exclude", "notes/archive"]);
    assert_eq!(list(&mut server, "notes"), "ideas.md\ntodo.md");
    assert_eq!(
        fs_error(&mut server, "fs_list", json!({"path": "notes/archive"})),
        "'notes/archive' is not served by this root"
    );
}
