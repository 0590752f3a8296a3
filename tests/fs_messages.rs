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

/// Six files in three directories, a `README.md` among them.
fn six_files() -> Tree {
    Tree::new()
        .file("README.md", "# readme\n")
        .file("a.txt", "alpha\n")
        .file("d/b.txt", "beta\n")
        .file("d/c.txt", "gamma\n")
        .file("d/e/f.txt", "delta\n")
        .file("d/e/g.txt", "epsilon\n")
}

/// A server publishing both sets over `tree` with `limits` added.
fn both_sets(tree: &Tree, limits: &[&str]) -> Server {
    let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
    args.extend_from_slice(limits);
    Server::start(tree.path(), &args)
}

/// The notice closing an fs search whose walk went over a limit: how far the answer goes,
/// then the limit worded as every limit is, with what to narrow.
fn walk_stopped(last: Option<&str>, what: &str, limit: &str, key: &str, narrow: &str) -> String {
    let covered = match last {
        Some(last) => format!("the answer covers the tree up to '{last}'"),
        None => "nothing was searched".to_owned(),
    };
    format!(
        "\n\n[stopped early, {covered}: {what} (the {limit}); {narrow}, or raise it with --{} (config key limits.{key})]",
        key.replace('_', "-")
    )
}

#[test]
fn a_walk_over_the_file_limit_names_the_limit_for_fs_and_keeps_ptc_words() {
    let tree = six_files();
    let mut server = both_sets(&tree, &["--max-files", "3"]);
    let stopped = |narrow| {
        walk_stopped(
            Some("d/b.txt"),
            "the walk selected more than 3 files",
            "file limit",
            "max_files",
            narrow,
        )
    };
    // The searches answer what the first three files gave, and say where they stopped.
    assert_eq!(
        fs_text(&mut server, "fs_glob", json!({"pattern": "*.txt"})),
        format!(
            "a.txt\nd/b.txt{}",
            stopped("narrow the path or the pattern")
        )
    );
    assert_eq!(
        fs_text(&mut server, "fs_grep", json!({"pattern": "a"})),
        format!(
            "README.md:1:# readme\na.txt:1:alpha\nd/b.txt:1:beta{}",
            stopped("narrow the path or glob")
        )
    );
    let map = fs_text(&mut server, "fs_map", json!({}));
    assert!(
        map.contains("; walk stopped at the file limit (--max-files 3)"),
        "{map}"
    );
    // Narrowing the path is what the notice asks for, and it works.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_glob",
            json!({"pattern": "*.txt", "path": "d/e"})
        ),
        "d/e/f.txt\nd/e/g.txt"
    );
    // A listing lists the entries before the limit; it has no path to narrow, so its notice
    // says only how to raise the limit.
    let tree = Tree::new()
        .file("many/1.txt", "")
        .file("many/2.txt", "")
        .file("many/3.txt", "")
        .file("many/4.txt", "");
    let mut server = both_sets(&tree, &["--max-files", "3"]);
    assert_eq!(
        fs_text(&mut server, "fs_list", json!({"path": "many"})),
        "1.txt\n2.txt\n3.txt\n\n[stopped early, the answer covers the tree up to 'many/3.txt': the walk selected more than 3 files (the file limit); raise it with --max-files (config key limits.max_files)]"
    );
    for (tool, args) in [
        ("search_files", json!({"query": "txt"})),
        ("list_directory", json!({"path": "many"})),
    ] {
        assert_eq!(
            server.call_error(tool, args),
            "file limit exceeded",
            "{tool}"
        );
    }
}

#[test]
fn walks_over_the_directory_and_entry_limits_name_them_for_fs_and_keep_ptc_words() {
    let tree = six_files();
    let mut server = both_sets(&tree, &["--max-directories", "2"]);
    // The root and `d` are entered; `d/e` would be the third.
    assert_eq!(
        fs_text(&mut server, "fs_grep", json!({"pattern": "a"})),
        format!(
            "README.md:1:# readme\na.txt:1:alpha\nd/b.txt:1:beta\nd/c.txt:1:gamma{}",
            walk_stopped(
                Some("d/c.txt"),
                "the walk entered more than 2 directories",
                "directory limit",
                "max_directories",
                "narrow the path or glob"
            )
        )
    );
    assert_eq!(
        server.call_error("search_text", json!({"query": "a"})),
        "directory limit exceeded"
    );
    let mut server = both_sets(&tree, &["--max-entries", "3"]);
    // The root's three entries fit; `d`'s three more do not.
    assert_eq!(
        fs_text(&mut server, "fs_glob", json!({"pattern": "*"})),
        format!(
            "README.md\na.txt{}",
            walk_stopped(
                Some("a.txt"),
                "the walk read more than 3 directory entries",
                "entry limit",
                "max_entries",
                "narrow the path or the pattern"
            )
        )
    );
    assert_eq!(
        server.call_error("search_files", json!({"query": "txt"})),
        "directory entry limit exceeded"
    );
}

#[test]
fn a_refusal_at_the_depth_limit_names_it_for_fs_and_keeps_ptc_words() {
    let tree = Tree::new().file("victim/a/b/c/x.txt", "x\n");
    let mut server = both_sets(&tree, &["--max-depth", "2"]);
    assert_eq!(
        fs_error(
            &mut server,
            "fs_delete",
            json!({"path": "victim", "recursive": true})
        ),
        "the walk reached a directory more than 2 levels deep (the depth limit); delete a directory further down first, or raise it with --max-depth (config key limits.max_depth)"
    );
    assert_eq!(
        fs_error(&mut server, "fs_list", json!({"path": "victim/a/b"})),
        "the walk reached a directory more than 2 levels deep (the depth limit); raise it with --max-depth (config key limits.max_depth)"
    );
    assert_eq!(
        server.call_error("list_directory", json!({"path": "victim/a/b"})),
        "directory depth limit exceeded"
    );
    // Nothing was deleted.
    assert_eq!(tree.bytes("victim/a/b/c/x.txt"), b"x\n");
}

#[test]
fn a_file_over_the_size_limit_names_it_for_fs_and_keeps_ptc_words() {
    let tree = Tree::new().file("big.txt", "0123456789abcdef\n");
    let mut server = both_sets(&tree, &["--max-file-bytes", "10"]);
    let refusal = "'big.txt' is larger than 10 bytes (the file size limit); raise it with --max-file-bytes (config key limits.max_file_bytes)";
    for (tool, args) in [
        ("fs_read", json!({"path": "big.txt"})),
        ("fs_grep", json!({"pattern": "0", "path": "big.txt"})),
        (
            "fs_edit",
            json!({"path": "big.txt", "old-string": "0", "new-string": "1"}),
        ),
    ] {
        assert_eq!(fs_error(&mut server, tool, args), refusal, "{tool}");
    }
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "big.txt"})),
        "file exceeds the configured size limit"
    );
}

#[test]
fn content_over_the_write_limit_names_it_for_fs_and_keeps_ptc_words() {
    let tree = Tree::new().file("a.txt", "x\n");
    let mut server = Server::start(
        tree.path(),
        &[
            "--tools",
            "ptc,fs",
            "--include",
            "**",
            "--max-write-bytes",
            "10",
            "--prefix",
            "notes",
        ],
    );
    assert_eq!(
        fs_error(
            &mut server,
            "notes_write",
            json!({"path": "b.txt", "content": "0123456789ab"})
        ),
        "content is 12 bytes, more than 10 (the write limit); write a part with notes_write and add the rest with notes_edit, or raise it with --max-write-bytes (config key limits.max_write_bytes)"
    );
    assert_eq!(
        fs_error(
            &mut server,
            "notes_edit",
            json!({"path": "a.txt", "old-string": "x", "new-string": "x".repeat(21)})
        ),
        "The edit would add 20 bytes to 'a.txt', more than 10 (the write limit); replace fewer occurrences or a shorter text, or raise it with --max-write-bytes (config key limits.max_write_bytes)"
    );
    assert_eq!(
        server.call_error(
            "write_text_file",
            json!({"path": "b.txt", "content": "0123456789ab"})
        ),
        "content exceeds the 10-byte write limit"
    );
}

#[test]
fn a_call_past_its_time_limit_names_the_key_for_fs_and_keeps_ptc_words() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = six_files();
    for (tool, args, refusal) in [
        (
            "fs_read",
            json!({"path": "a.txt"}),
            "the call ran past 1 second (the call time limit); call again with a smaller path or a simpler pattern, or raise it with --max-call-seconds (config key limits.max_call_seconds)",
        ),
        (
            "search_text",
            json!({"query": "a"}),
            "the call ran past its time limit (--max-call-seconds); narrow it to a smaller path, pattern or page and call again",
        ),
    ] {
        let mut server = Server::start_with_env(
            tree.path(),
            &[
                "--tools",
                "ptc,fs",
                "--include",
                "**",
                "--max-call-seconds",
                "1",
            ],
            &[("FSMCP_TEST_FAULT", &format!("{tool}:slow"))],
        );
        assert_eq!(server.call_error(tool, args), refusal, "{tool}");
    }
}

#[test]
fn a_path_with_dot_segments_is_refused_with_the_path_to_write_instead() {
    let tree = six_files();
    let mut server = both_sets(&tree, &[]);
    let rules = "paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names";
    for (path, instead) in [
        ("./README.md", Some("README.md")),
        ("d/./e/f.txt", Some("d/e/f.txt")),
        ("./", Some(".")),
        ("./../README.md", None),
        ("../README.md", None),
    ] {
        let hint = instead
            .map(|p| format!("; write it as '{p}'"))
            .unwrap_or_default();
        assert_eq!(
            fs_error(&mut server, "fs_read", json!({"path": path})),
            format!("Invalid path '{path}': {rules}{hint}"),
            "{path}"
        );
    }
    // The path the message proposes is served.
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "README.md"})),
        "# readme\n"
    );
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "./README.md"})),
        "path is not a relative path inside the root"
    );
}

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

/// A file over 8 MiB (read from its end, not counted) whose last line is `width` bytes: the
/// one place a line too long for an answer is still named rather than shown in part.
fn one_long_line(width: usize) -> Tree {
    let mut text = "x\n".repeat(4_500_000);
    text.push_str(&"w".repeat(width));
    text.push('\n');
    Tree::new().file("wide.txt", text)
}

/// The notice `read` gives for the last line of `wide.txt` on a server started with `args`,
/// through `tool`.
fn long_line_notice(tree: &Tree, args: &[&str], tool: &str) -> String {
    let mut all = args.to_vec();
    all.extend(["--include", "**"]);
    let mut server = Server::start(tree.path(), &all);
    fs_text(&mut server, tool, json!({"path": "wide.txt", "offset": -1}))
}

#[test]
fn the_long_line_notice_names_the_result_limit_and_only_published_tools() {
    let tree = one_long_line(60_000);
    let notice = |instead: &str| {
        format!(
            "[line -1 does not fit, as one answer holds at most 48000 bytes (the result limit); {instead}, or raise it with --max-result-bytes (config key limits.max_result_bytes)]"
        )
    };
    for (args, tool, instead) in [
        (
            &["--tools", "fs"][..],
            "fs_read",
            "find what you need in it with fs_grep",
        ),
        (
            &["--tools", "fs", "--prefix", "notes"],
            "notes_read",
            "find what you need in it with notes_grep",
        ),
        (
            &["--tools", "fs", "--prefix", ""],
            "read",
            "find what you need in it with grep",
        ),
        (
            &["--tools", "ptc,fs"],
            "fs_read",
            "read it in pieces with read_text_file or find what you need in it with fs_grep",
        ),
    ] {
        assert_eq!(
            long_line_notice(&tree, args, tool),
            notice(instead),
            "{args:?}"
        );
    }
    // At its largest value the limit is not offered to be raised.
    let wider = one_long_line(1_100_000);
    assert_eq!(
        long_line_notice(
            &wider,
            &["--tools", "fs", "--max-result-bytes", "1048576"],
            "fs_read"
        ),
        "[line -1 does not fit, as one answer holds at most 1048576 bytes (the result limit); find what you need in it with fs_grep]"
    );
}

#[test]
fn a_listing_cut_by_the_result_limit_names_it_and_a_published_tool() {
    let mut tree = Tree::new();
    for n in 0..1500 {
        tree = tree.file(&format!("many/entry-{n:05}-with-a-longer-name.txt"), "");
    }
    let mut server = Server::start(
        tree.path(),
        &["--tools", "fs", "--include", "**", "--prefix", "mine"],
    );
    let text = fs_text(&mut server, "mine_list", json!({"path": "many"}));
    let (kept, notice) = text.split_once("\n\n").expect("a notice");
    let shown = kept.split('\n').count();
    assert_eq!(
        notice,
        format!(
            "[listed {shown} of 1500 entries, as one answer holds at most 48000 bytes (the result limit); continue with \"after\": \"many/entry-{:05}-with-a-longer-name.txt\", or find files with mine_glob and a narrower pattern, or raise it with --max-result-bytes (config key limits.max_result_bytes)]",
            shown - 1
        )
    );
}
