//! `write_text_file`: atomically replaces one regular file named by a lowercase basename in the root.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};
use support::*;

#[test]
fn a_write_creates_the_file_and_reports_path_bytes_and_hash() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let result = server.call(
        "write_text_file",
        json!({"path": "notes.txt", "content": "héllo\n"}),
    );
    assert_eq!(
        result,
        json!({"path": "notes.txt", "bytes": 7, "content_hash": content_hash("héllo\n")})
    );
    assert_eq!(keys(&result), ["path", "bytes", "content_hash"]);
    assert_eq!(tree.bytes("notes.txt"), "héllo\n".as_bytes());
}

#[test]
fn a_write_replaces_existing_content_entirely() {
    let tree = Tree::new().file("notes.txt", "a much longer old content\n");
    let mut server = Server::serving(&tree);
    server.call(
        "write_text_file",
        json!({"path": "notes.txt", "content": "new"}),
    );
    assert_eq!(tree.bytes("notes.txt"), b"new");
}

#[test]
fn empty_content_leaves_an_empty_file() {
    let tree = Tree::new().file("old.txt", "something");
    let mut server = Server::serving(&tree);
    for path in ["old.txt", "fresh.txt"] {
        let result = server.call("write_text_file", json!({"path": path, "content": ""}));
        assert_eq!(result["bytes"], 0);
        assert_eq!(result["content_hash"], EMPTY_HASH);
        assert_eq!(tree.bytes(path), b"", "{path}");
    }
}

#[test]
fn a_new_file_is_private_and_an_existing_file_keeps_its_mode() {
    let tree = Tree::new()
        .file("shared.txt", "old")
        .file("script.sh", "old");
    tree.chmod("shared.txt", 0o644);
    tree.chmod("script.sh", 0o755);
    let mut server = Server::serving(&tree);
    for path in ["shared.txt", "script.sh", "new.txt"] {
        server.call("write_text_file", json!({"path": path, "content": "new"}));
    }
    assert_eq!(tree.mode("shared.txt"), 0o644);
    assert_eq!(tree.mode("script.sh"), 0o755);
    assert_eq!(tree.mode("new.txt"), 0o600);
}

/// A rewrite that cannot give the file back to its owner (the server runs as another user)
/// once kept set-user-ID and set-group-ID on a file now owned by the server's user: a
/// set-user-ID program the server's user never had. The bits go, as the kernel drops them
/// when an unprivileged process writes a file; the rest of the mode stays.
#[test]
fn a_rewrite_drops_set_user_id_and_set_group_id() {
    let tree = Tree::new().file("tool", "#!/bin/sh\n");
    let Some(mut server) = unprivileged_server(&tree, &["--include", "**"]) else {
        return;
    };
    // Writable by the server's user, in a directory it may add its temporary file to.
    tree.chmod("", 0o777);
    tree.chmod("tool", 0o6777);
    server.call(
        "write_text_file",
        json!({"path": "tool", "content": "#!/bin/sh\necho changed\n"}),
    );
    assert_eq!(tree.bytes("tool"), b"#!/bin/sh\necho changed\n");
    assert_eq!(
        tree.mode("tool"),
        0o777,
        "set-user-ID and set-group-ID dropped, the rest kept"
    );
}

#[test]
fn a_write_leaves_no_temporary_file_behind() {
    let tree = Tree::new().file("a.txt", "a");
    let mut server = Server::serving(&tree);
    server.call("write_text_file", json!({"path": "a.txt", "content": "b"}));
    server.call("write_text_file", json!({"path": "c.txt", "content": "c"}));
    assert_eq!(tree.names(""), ["a.txt", "c.txt"]);
}

#[test]
fn a_hard_link_to_the_target_keeps_the_old_bytes() {
    let tree = Tree::new().file("target.txt", "old bytes").dir("elsewhere");
    std::fs::hard_link(tree.join("target.txt"), tree.join("elsewhere/other.txt"))
        .expect("hard link");
    let mut server = Server::serving(&tree);
    server.call(
        "write_text_file",
        json!({"path": "target.txt", "content": "new bytes"}),
    );
    assert_eq!(tree.bytes("target.txt"), b"new bytes");
    assert_eq!(tree.bytes("elsewhere/other.txt"), b"old bytes");
    let meta = std::fs::metadata(tree.join("target.txt")).expect("stat");
    assert_eq!(meta.nlink(), 1);
}

#[test]
fn the_path_is_echoed_and_the_next_read_sees_the_write() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let written = server.call(
        "write_text_file",
        json!({"path": "a-b_c.d.txt", "content": "line one\nline two\n"}),
    );
    assert_eq!(written["path"], "a-b_c.d.txt");
    let read = server.call("read_text_file", json!({"path": "a-b_c.d.txt"}));
    assert_eq!(read["content_hash"], written["content_hash"]);
}

#[test]
fn the_path_must_be_one_lowercase_basename() {
    let tree = Tree::new().dir("sub");
    let mut server = Server::serving(&tree);
    for path in [
        "sub/dir.txt",
        "../escape.txt",
        "/absolute.txt",
        "Upper.txt",
        ".hidden",
        "..",
        ".",
        "has space.txt",
        "null\u{0}.txt",
        "back\\slash.txt",
        "Bad Name",
        "-dash.txt",
        "_under.txt",
        "tab\t.txt",
        "é.txt",
        &"x".repeat(300),
        &"a".repeat(256),
    ] {
        assert_eq!(
            server.call_error("write_text_file", json!({"path": path, "content": "x"})),
            "path must be one lowercase basename of letters, digits, dots, underscores, or hyphens",
            "{path:?}"
        );
    }
    assert!(
        tree.names("").iter().all(|n| n == "sub"),
        "nothing was written"
    );
}

#[test]
fn a_basename_of_255_characters_is_accepted() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let name = format!("9{}", "a".repeat(254));
    let result = server.call("write_text_file", json!({"path": name, "content": "x"}));
    assert_eq!(result["bytes"], 1);
    assert_eq!(tree.bytes(&name), b"x");
}

#[test]
fn content_over_the_write_limit_is_refused_before_touching_the_disk() {
    let tree = Tree::new().dir("adir");
    let mut server = Server::start(tree.path(), &["--include", "**", "--max-write-bytes", "10"]);
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "a.txt", "content": "x".repeat(11)})
        ),
        "content exceeds the 10-byte write limit"
    );
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "a.txt", "content": "é".repeat(6)})
        ),
        "content exceeds the 10-byte write limit"
    );
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "adir", "content": "x".repeat(11)})
        ),
        "content exceeds the 10-byte write limit"
    );
    assert_eq!(tree.names(""), ["adir"]);
    let exact = server.call(
        "write_text_file",
        json!({"path": "a.txt", "content": "é".repeat(5)}),
    );
    assert_eq!(exact["bytes"], 10);
}

#[test]
fn the_default_write_limit_is_65536_bytes() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "a.txt", "content": "x".repeat(65537)})
        ),
        "content exceeds the 65536-byte write limit"
    );
    let exact = server.call(
        "write_text_file",
        json!({"path": "a.txt", "content": "x".repeat(65536)}),
    );
    assert_eq!(exact["bytes"], 65536);
}

#[test]
fn an_excluded_basename_is_refused() {
    let tree = Tree::new();
    let mut server = Server::start(tree.path(), &["--include", "**", "--exclude", "secret.txt"]);
    for path in ["secret.txt", "server.pem", "id_rsa", "cert.p12"] {
        assert_eq!(
            server.call_error("write_text_file", json!({"path": path, "content": "x"})),
            "path matches an --exclude pattern of this root",
            "{path}"
        );
    }
    assert!(tree.names("").is_empty());
}

#[test]
fn an_unselected_basename_is_refused_naming_the_include_set() {
    let tree = Tree::new();
    let mut server = Server::start(tree.path(), &["--include", "*.md"]);
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "notes.txt", "content": "x"})
        ),
        "path matches no --include pattern of this root"
    );
    server.call(
        "write_text_file",
        json!({"path": "notes.md", "content": "x"}),
    );
    assert_eq!(tree.names(""), ["notes.md"]);
}

#[test]
fn an_include_set_that_cannot_reach_the_root_refuses_every_write() {
    let tree = Tree::new();
    let mut server = Server::start(tree.path(), &["--include", "lib/**"]);
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "notes.txt", "content": "x"})
        ),
        "no --include pattern of this root matches a file in the root itself, so no write can be accepted; a write names one basename and lands in the root, so add an --include pattern without a directory prefix, such as '**'"
    );
}

#[test]
fn a_symlink_or_directory_destination_is_refused_and_left_alone() {
    let outside = Tree::new().file("victim.txt", "untouched");
    let tree = Tree::new()
        .symlink("link.txt", outside.join("victim.txt"))
        .dir("folder");
    let mut server = Server::serving(&tree);
    for path in ["link.txt", "folder"] {
        assert_eq!(
            server.call_error("write_text_file", json!({"path": path, "content": "x"})),
            "destination is not a writable regular file",
            "{path}"
        );
    }
    assert_eq!(outside.bytes("victim.txt"), b"untouched");
    assert!(
        std::fs::symlink_metadata(tree.join("link.txt"))
            .expect("link")
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_fifo_destination_is_refused_promptly() {
    let tree = Tree::new().fifo("pipe.txt");
    let mut server = Server::serving(&tree);
    let started = Instant::now();
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "pipe.txt", "content": "x"})
        ),
        "destination is not a writable regular file"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    server.call("write_text_file", json!({"path": "ok.txt", "content": "x"}));
}

// A read-only (0400) destination is not tested: root (which CI runs as) bypasses permission bits,
// and with replacement by rename the outcome depends on the directory's permissions, not the file's.

#[test]
fn content_is_written_byte_for_byte() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let content = "tab\tcr\r\nnul\u{0}bom\u{feff}emoji😀\n";
    let result = server.call(
        "write_text_file",
        json!({"path": "raw.txt", "content": content}),
    );
    assert_eq!(result["bytes"], content.len());
    assert_eq!(tree.bytes("raw.txt"), content.as_bytes());
}

#[test]
fn write_checks_run_in_order_name_size_exclude_include_destination() {
    let tree = Tree::new().dir("adir");
    let mut server = Server::start(
        tree.path(),
        &[
            "--include",
            "*.txt",
            "--include",
            "adir",
            "--max-write-bytes",
            "4",
        ],
    );
    let too_big = "x".repeat(5);
    let cases = [
        (
            "Upper.pem",
            too_big.as_str(),
            "path must be one lowercase basename of letters, digits, dots, underscores, or hyphens",
        ),
        (
            "server.pem",
            too_big.as_str(),
            "content exceeds the 4-byte write limit",
        ),
        (
            "server.pem",
            "x",
            "path matches an --exclude pattern of this root",
        ),
        (
            "notes.md",
            "x",
            "path matches no --include pattern of this root",
        ),
        ("adir", "x", "destination is not a writable regular file"),
    ];
    for (path, content, message) in cases {
        assert_eq!(
            server.call_error("write_text_file", json!({"path": path, "content": content})),
            message,
            "{path}"
        );
    }
}
