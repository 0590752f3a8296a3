//! Messages that say what to do: an fs refusal caused by a limit names the limit, its value,
//! what to narrow and the flag and config key that raise it, while the ptc tools keep
//! ptc-fs-mcp's exact words for the same limit; the invalid-path message names `.` segments
//! and says how to write the path; a notice names only tools the server publishes, under
//! their published names.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::fs::File;
use support::fs::*;
use support::*;

#[test]
fn refusals_that_point_at_another_tool_use_its_published_name() {
    let tree = Tree::new().file("notes/todo.md", "x\n").file("big.txt", "");
    // Past what edit rewrites (64 MiB), without writing it: a sparse file.
    File::options()
        .write(true)
        .open(tree.join("big.txt"))
        .and_then(|file| file.set_len((64 << 20) + 1))
        .expect("grow big.txt");
    let mut server = Server::start(
        tree.path(),
        &["--tools", "fs", "--include", "**", "--prefix", "mine"],
    );
    assert_eq!(
        fs_error(&mut server, "mine_read", json!({"path": "notes"})),
        "'notes' is a directory; use mine_list to see what it holds"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "mine_edit",
            json!({"path": "big.txt", "old-string": "a", "new-string": "b"})
        ),
        "'big.txt' is larger than mine_edit rewrites (67108864 bytes at most); change it with mine_write or mine_move instead"
    );
}

/// A file whose one line is longer than one answer holds at the default result limit.
fn one_long_line() -> Tree {
    Tree::new().file("wide.txt", format!("{}\n", "w".repeat(60_000)))
}

/// The notice `read` gives for `wide.txt` on a server started with `args`, through `tool`.
fn long_line_notice(tree: &Tree, args: &[&str], tool: &str) -> String {
    let mut all = args.to_vec();
    all.extend(["--include", "**"]);
    let mut server = Server::start(tree.path(), &all);
    fs_text(&mut server, tool, json!({"path": "wide.txt"}))
}

#[test]
fn the_long_line_notice_names_no_ptc_tool_when_none_is_published() {
    let tree = one_long_line();
    let fs_only = long_line_notice(&tree, &["--tools", "fs"], "fs_read");
    assert!(fs_only.starts_with("[line 1 of 1 total "), "{fs_only}");
    assert!(fs_only.contains("with fs_grep"), "{fs_only}");
    assert!(
        !fs_only.contains("ptc") && !fs_only.contains("read_text_file"),
        "{fs_only}"
    );
    let prefixed = long_line_notice(&tree, &["--tools", "fs", "--prefix", "notes"], "notes_read");
    assert!(prefixed.contains("with notes_grep"), "{prefixed}");
    let both = long_line_notice(&tree, &["--tools", "ptc,fs"], "fs_read");
    assert!(both.contains("with read_text_file"), "{both}");
}
