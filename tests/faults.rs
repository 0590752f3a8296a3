//! Faults stay inside the call that hit them: a panic in one tool call is that call's
//! `isError` result and the server goes on answering; a call past `--max-call-seconds` is
//! refused as a whole. Uses the debug build's test-only fault hook (`FSMCP_TEST_FAULT`); given a
//! release binary to test (`FSMCP_TEST_BINARY`), the tests that need it say they were skipped.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::{Server, Tree, skip_without_fault_hook};

fn tree() -> Tree {
    Tree::new()
        .file("a.txt", "alpha\n")
        .file("d/b.txt", "beta\n")
}

#[test]
fn a_panic_in_one_call_is_that_calls_error_and_the_server_survives() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = tree();
    let mut server = Server::start_with_env(
        tree.path(),
        &["--tools", "ptc,fs", "--include", "**"],
        &[("FSMCP_TEST_FAULT", "fs_list:panic")],
    );
    for _ in 0..3 {
        let result = server.call_result("fs_list", json!({}));
        assert_eq!(result["isError"], true);
        assert_eq!(result["content"][0]["text"], "internal error");
        assert!(result.get("structuredContent").is_none());
    }
    let read = server.call_result("fs_read", json!({"path": "a.txt"}));
    assert_eq!(read["content"][0]["text"], "alpha\n");
    let page = server.call("list_directory", json!({}));
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    let (status, stderr) = server.close();
    assert!(status.success());
    // One line per fault, naming no host path and carrying no stack trace.
    assert!(!stderr.contains(tree.path().to_str().unwrap()));
    assert!(!stderr.contains("stack backtrace"));
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("internal error"))
            .count(),
        3
    );
}

/// A server over `tree` whose `tool` sleeps 1.5 s before working, under a 1 s call limit.
fn slowed(tree: &Tree, tool: &str) -> Server {
    Server::start_with_env(
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
    )
}

const PAST_ONE_SECOND: &str = "the call ran past 1 second (the call time limit); call again with a smaller path or a simpler pattern, or raise it with --max-call-seconds (config key limits.max_call_seconds)";

#[test]
fn a_call_past_its_deadline_is_refused_whole() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = tree();
    let mut server = slowed(&tree, "fs_read");
    let result = server.call_result("fs_read", json!({"path": "a.txt"}));
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], PAST_ONE_SECOND);
    let fine = server.call_result("fs_glob", json!({"pattern": "*.txt"}));
    assert_eq!(fine["content"][0]["text"], "a.txt\nd/b.txt");
}

#[test]
fn a_search_past_its_deadline_answers_what_it_searched() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = tree();
    let mut server = slowed(&tree, "fs_grep");
    let result = server.call_result("fs_grep", json!({"pattern": "a"}));
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        format!(
            "No matches for 'a' under '.'\n\n[stopped early, nothing was searched: {PAST_ONE_SECOND}]"
        )
    );
}

#[test]
fn the_call_limit_is_validated_like_every_limit() {
    let tree = tree();
    for bad in ["0", "86401"] {
        let root = tree.path().to_str().unwrap();
        let (status, _, stderr) =
            support::run(&["--root", root, "--include", "**", "--max-call-seconds", bad]);
        assert_eq!(status.code(), Some(64), "{bad}");
        assert_eq!(stderr.lines().count(), 1, "{bad}: {stderr}");
    }
}
