//! One caller never stalls another, over the binary: an observation answers while a heavy
//! mutation runs, a mutation waits only for one that changes the same path, and a recursive
//! delete stops at its deadline once it has started removing.
//!
//! `strace` makes the heavy call heavy without a large tree: each `unlinkat` is held back
//! 20 ms (`inject=unlinkat:delay_exit`), so removing 300 directories takes six seconds.
//! Without `strace` the tests say they were skipped; under `CI=true` they fail instead.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::process::Command;
use support::attack::call_line;
use support::strace::strace_works;
use support::*;

/// What the tests prove, for the message that says they could not.
const PROVES: &str = "a heavy delete is proven to stall no other call";

/// A root holding `big/` with `dirs` empty directories, and a small file beside it.
fn tree(dirs: usize) -> Tree {
    (0..dirs)
        .fold(Tree::new(), |tree, i| tree.dir(&format!("big/d{i:03}")))
        .file("small.txt", "one\ntwo\n")
}

/// The binary under strace, every `unlinkat` delayed 20 ms, serving `root` with `args`.
fn slowed(root: &std::path::Path, args: &[&str]) -> Command {
    let mut command = Command::new("strace");
    command
        .args(["-f", "-o", "/dev/null", "-e", "trace=unlinkat"])
        .args(["-e", "inject=unlinkat:delay_exit=20000"])
        .args(fsmcp_argv())
        .arg("--root")
        .arg(root)
        .args(["--include", "**", "--tools", "fs"])
        .args(args);
    command
}

#[test]
fn a_recursive_delete_stops_at_its_deadline_once_removing() {
    if !strace_works(PROVES) {
        return;
    }
    let tree = tree(300);
    let mut command = slowed(tree.path(), &["--max-call-seconds", "1"]);
    command.args(["--call", "fs_delete", r#"{"path":"big","recursive":true}"#]);
    let (_, stdout, stderr) = run_command(command);
    let answer: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}\n{stderr}"));
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    let removed: u64 = text
        .strip_prefix("Stopped deleting 'big' at the call's deadline (1 s, --max-call-seconds)")
        .and_then(|rest| rest.split("after removing ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a stopped delete: {answer}"));
    assert!(
        text.contains(&format!("after removing {removed} of its 301 entries")),
        "{text}"
    );
    assert_eq!(answer["isError"], true, "{answer}");
    // Unbounded, the removal ran on to the end past the deadline: all 301 went.
    let left = std::fs::read_dir(tree.join("big"))
        .expect("big is still there")
        .count() as u64;
    assert!(removed > 0 && left > 0, "removed {removed}, left {left}");
    assert_eq!(left + removed, 300, "{text}");
}

#[test]
fn an_observation_never_waits_for_a_mutation_and_a_mutation_only_for_its_paths() {
    if !strace_works(PROVES) {
        return;
    }
    let tree = tree(300);
    let mut server = Server::start_command(slowed(tree.path(), &[]));
    let mut meta = modern_meta();
    meta["progressToken"] = json!("delete");
    server.send_line(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "fs_delete", "arguments": {"path": "big", "recursive": true}, "_meta": meta}})
        .to_string(),
    );
    // The delete is under way once it reports progress.
    let first = server.next_message();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    let others = [
        (2, "fs_read", json!({"path": "small.txt"})),
        (3, "fs_stat", json!({"path": "."})),
        (4, "fs_list", json!({"path": "."})),
        (5, "fs_grep", json!({"pattern": "two"})),
        (
            6,
            "fs_write",
            json!({"path": "other.txt", "content": "x\n"}),
        ),
        (
            7,
            "fs_write",
            json!({"path": "big/new.txt", "content": "x\n"}),
        ),
    ];
    for (id, tool, args) in &others {
        server.send_line(&call_line(&json!(id), tool, args));
    }
    let mut order = Vec::new();
    let mut inside = Value::Null;
    while order.len() < 7 {
        let message = server.next_message();
        if let Some(id) = message["id"].as_u64() {
            order.push(id);
            if id == 7 {
                inside = message;
            }
        }
    }
    let at = |id: u64| order.iter().position(|&seen| seen == id).unwrap();
    for id in 2..=6 {
        assert!(at(id) < at(1), "call {id} waited for the delete: {order:?}");
    }
    // Inside the path being deleted: it waits, then finds no parent there. (Its answer may
    // still be written before the delete's: the claim ends before the delete's answer goes
    // out, so the order of the two answers proves nothing; what the write found does.)
    assert_eq!(
        inside["result"]["content"][0]["text"],
        "Parent directory of 'big/new.txt' does not exist; create it with the mkdir tool first",
        "{inside}"
    );
    assert!(!tree.join("big").exists());
    assert_eq!(
        std::fs::read_to_string(tree.join("other.txt")).unwrap(),
        "x\n"
    );
}
