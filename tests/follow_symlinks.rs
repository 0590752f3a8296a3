//! `--follow-symlinks`: a link whose target stays inside the root is followed, for both tool
//! sets; a link that leaves the root, names an excluded target, or loops is never followed,
//! and nothing outside the root is read or changed.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::{Server, Tree};

/// A root beside an outside directory, holding links of every kind.
fn tree() -> Tree {
    let tree = Tree::new()
        .file("outside/secret.txt", "OUTSIDE-MARKER\n")
        .file("root/d/sub/f.txt", "inner\n")
        .file("root/.env", "ENV-MARKER\n")
        .symlink("root/in.txt", "d/sub/f.txt")
        .symlink("root/out.txt", "../outside/secret.txt")
        .symlink("root/dl", "d")
        .symlink("root/d/up", "..")
        .symlink("root/d/outdir", "../../outside")
        .symlink("root/env.txt", ".env")
        .symlink("root/loop", "loop");
    let absolute = tree.join("root/d/sub/f.txt");
    std::os::unix::fs::symlink(absolute, tree.join("root/abs.txt")).unwrap();
    tree
}

fn start(tree: &Tree, tools: &str) -> Server {
    Server::start(
        &tree.join("root"),
        &["--include", "**", "--follow-symlinks", "--tools", tools],
    )
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn links_inside_the_root_are_followed_by_the_ptc_tools() {
    let tree = tree();
    let mut server = start(&tree, "ptc");
    let found = server.find("f.txt");
    assert_eq!(found, ["d/sub/f.txt", "dl/sub/f.txt"]);
    let read = server.call("read_text_file", json!({"path": "in.txt"}));
    assert_eq!(read["items"][0]["text"], "inner\n");
    let read = server.call("read_text_file", json!({"path": "abs.txt"}));
    assert_eq!(read["items"][0]["text"], "inner\n");
    let read = server.call("read_text_file", json!({"path": "d/up/dl/sub/f.txt"}));
    assert_eq!(read["items"][0]["text"], "inner\n");
}

#[test]
fn links_that_leave_the_root_or_reach_excluded_files_are_refused() {
    let tree = tree();
    let mut server = start(&tree, "ptc");
    for path in ["out.txt", "d/outdir/secret.txt", "env.txt", "loop"] {
        let error = server.call_error("read_text_file", json!({"path": path}));
        assert!(!error.contains("MARKER"), "{path}: {error}");
    }
    let everything = server.collect("search_text", json!({"query": "MARKER"}));
    assert_eq!(everything, Vec::<Value>::new());
    let listing = server.collect("list_directory", json!({}));
    let names: Vec<&str> = listing
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["abs.txt", "d", "dl", "in.txt"]);
}

#[test]
fn a_link_back_into_its_own_ancestry_does_not_loop() {
    let tree = tree();
    let mut server = start(&tree, "ptc");
    let files = server.collect("search_files", json!({"query": "/"}));
    assert!(files.len() < 10, "{files:?}");
    let deep = server.collect("list_directory", json!({"path": "d"}));
    assert!(!deep.is_empty());
}

#[test]
fn the_fs_tools_follow_inside_links_and_refuse_outside_ones() {
    let tree = tree();
    let mut server = start(&tree, "fs");
    assert_eq!(
        text(&server.call_result("fs_read", json!({"path": "in.txt"}))),
        "inner\n"
    );
    for path in ["out.txt", "d/outdir/secret.txt", "env.txt"] {
        let result = server.call_result("fs_read", json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}");
        assert!(!text(&result).contains("MARKER"));
    }
    // Following is on, so the refusal says why this link is not followed rather than
    // advising the flag.
    for path in ["out.txt", "d/outdir/secret.txt", "loop"] {
        let result = server.call_result("fs_read", json!({"path": path}));
        assert_eq!(
            text(&result),
            format!(
                "'{path}' is reached through a symbolic link that leads outside the root (or round a loop of links); links are followed only while they stay inside the root"
            )
        );
    }
    // Writing through an outside link or into an outside directory changes nothing outside.
    for (path, content) in [("out.txt", "x"), ("d/outdir/new.txt", "x")] {
        let result = server.call_result("fs_write", json!({"path": path, "content": content}));
        assert_eq!(result["isError"], true, "{path}");
    }
    assert_eq!(
        std::fs::read_to_string(tree.join("outside/secret.txt")).unwrap(),
        "OUTSIDE-MARKER\n"
    );
    assert!(!tree.join("outside/new.txt").exists());
    // Deleting a link removes the link, never its target.
    let result = server.call_result("fs_delete", json!({"path": "out.txt"}));
    assert_eq!(text(&result), "Deleted symbolic link 'out.txt'");
    assert!(tree.join("outside/secret.txt").exists());
    // A write through an inside link lands on its target.
    let result = server.call_result("fs_write", json!({"path": "in.txt", "content": "new\n"}));
    assert_eq!(text(&result), "Wrote 4 bytes to 'in.txt'");
    assert_eq!(
        std::fs::read_to_string(tree.join("root/d/sub/f.txt")).unwrap(),
        "new\n"
    );
    assert!(
        std::fs::symlink_metadata(tree.join("root/in.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn without_the_flag_no_link_is_followed() {
    let tree = tree();
    let mut server = Server::start(&tree.join("root"), &["--include", "**"]);
    assert_eq!(server.find("f.txt"), ["d/sub/f.txt"]);
    let error = server.call_error("read_text_file", json!({"path": "in.txt"}));
    assert_eq!(error, "path is not a readable regular file");
}

#[test]
fn a_followed_link_never_leads_into_an_excluded_directory() {
    let tree = Tree::new()
        .file("root/.git/config", "GIT-MARKER\n")
        .file("root/.git/hooks/pre-commit", "HOOK-MARKER\n")
        .file("root/a.txt", "a\n")
        .symlink("root/g", ".git");
    let mut server = start(&tree, "fs");
    let attempts = [
        ("fs_read", json!({"path": "g/config"})),
        ("fs_write", json!({"path": "g/config", "content": "x"})),
        ("fs_write", json!({"path": "g/new", "content": "x"})),
        ("fs_delete", json!({"path": "g/config"})),
        ("fs_move", json!({"from": "g/config", "to": "stolen.txt"})),
        ("fs_move", json!({"from": "a.txt", "to": "g/a.txt"})),
        ("fs_mkdir", json!({"path": "g/hooks/new"})),
        ("fs_delete", json!({"path": "g/hooks", "recursive": true})),
        ("fs_move", json!({"from": "g/hooks", "to": "hooks"})),
        ("fs_list", json!({"path": "g"})),
    ];
    for (tool, args) in attempts {
        let result = server.call_result(tool, args.clone());
        assert_eq!(result["isError"], true, "{tool} {args}");
        assert!(!text(&result).contains("MARKER"), "{tool} {args}");
    }
    assert_eq!(
        std::fs::read_to_string(tree.join("root/.git/config")).unwrap(),
        "GIT-MARKER\n"
    );
    assert_eq!(
        std::fs::read_dir(tree.join("root/.git")).unwrap().count(),
        2
    );
    assert_eq!(
        std::fs::read_to_string(tree.join("root/.git/hooks/pre-commit")).unwrap(),
        "HOOK-MARKER\n"
    );
    assert!(tree.join("root/a.txt").exists());
}

/// `--include 'src/**'` with links inside the selection to a file and a directory it does
/// not select.
fn half_selected() -> (Tree, Server) {
    let tree = Tree::new()
        .file("src/main.rs", "fn main() {}\n")
        .file("secret/s.txt", "SECRET-MARKER\n")
        .symlink("src/l", "../secret/s.txt")
        .symlink("src/dl", "../secret")
        .symlink("src/ok", "main.rs");
    let server = Server::start(
        tree.path(),
        &["--include", "src/**", "--follow-symlinks", "--tools", "fs"],
    );
    (tree, server)
}

#[test]
fn a_followed_link_is_held_to_its_targets_selection_for_writes_as_for_reads() {
    let (tree, mut server) = half_selected();
    let before = support::race::tree_state(tree.path());
    let unserved = |path: &str| format!("'{path}' is not served by this root");
    let no_write = |path: &str| {
        format!("'{path}' is not served by this root; a file written there could not be read back")
    };
    let secret_digest = support::sha256_hex("SECRET-MARKER\n");
    for (tool, args, expected) in [
        ("fs_read", json!({"path": "src/l"}), unserved("src/l")),
        (
            "fs_read",
            json!({"path": "src/dl/s.txt"}),
            unserved("src/dl/s.txt"),
        ),
        (
            "fs_stat",
            json!({"path": "src/dl/s.txt"}),
            unserved("src/dl/s.txt"),
        ),
        (
            "fs_write",
            json!({"path": "src/l", "content": "x"}),
            no_write("src/l"),
        ),
        (
            "fs_write",
            json!({"path": "src/dl/new.txt", "content": "x"}),
            no_write("src/dl/new.txt"),
        ),
        (
            "fs_mkdir",
            json!({"path": "src/dl/x"}),
            no_write("src/dl/x"),
        ),
        (
            "fs_edit",
            json!({"path": "src/l", "old-string": "SECRET", "new-string": "x"}),
            unserved("src/l"),
        ),
        // A conditional write is refused before any revision is compared, so the message
        // carries nothing about the unserved file.
        (
            "fs_write",
            json!({"path": "src/l", "content": "x", "_expected-revisions": {"path": "sha256-v1:absent"}}),
            no_write("src/l"),
        ),
        (
            "fs_mkdir",
            json!({"path": "src/dl/y", "_expected-revisions": {"path": "sha256-v1:absent"}}),
            no_write("src/dl/y"),
        ),
    ] {
        let result = server.call_result(tool, args.clone());
        assert_eq!(result["isError"], true, "{tool} {args}: {result}");
        let message = text(&result);
        assert_eq!(message, expected, "{tool} {args}");
        assert!(!message.contains(&secret_digest), "{message}");
    }
    assert_eq!(
        support::race::tree_state(tree.path()),
        before,
        "nothing changed"
    );
    // Nor does a walk or a listing through the links find the unselected file.
    for (tool, args) in [
        ("fs_grep", json!({"pattern": "SECRET-MARKER"})),
        ("fs_glob", json!({"pattern": "*.txt"})),
    ] {
        let result = server.call_result(tool, args);
        assert!(text(&result).starts_with("No matches"), "{tool}: {result}");
    }
    let listed = server.call_result("fs_list", json!({"path": "src/dl"}));
    assert_eq!(text(&listed), "(empty directory)");
    // A link that stays inside the selection still works both ways.
    let read = server.call_result("fs_read", json!({"path": "src/ok"}));
    assert_eq!(text(&read), "fn main() {}\n");
    let wrote = server.call_result(
        "fs_write",
        json!({"path": "src/ok", "content": "fn main() { }\n"}),
    );
    assert_ne!(wrote["isError"], true, "{wrote}");
    assert_eq!(tree.bytes("src/main.rs"), b"fn main() { }\n");
}
