//! Progress and cancellation over real stdio (and one call over real HTTP).
//!
//! A call whose `_meta` carries a `progressToken` gets `notifications/progress` for that token,
//! with strictly growing counts, before its result and never after it. A call cancelled with
//! `notifications/cancelled` gets no response, stops working (its log line says `cancelled`),
//! and a cancelled write leaves the file whole: old bytes or new, no temp file. The time from
//! the cancel to the stop is printed (`cargo test -- --nocapture`), not asserted.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::attack::call_line;
use support::http::HttpServer;
use support::*;

fn tree() -> Tree {
    let mut tree = Tree::new();
    for i in 0..300 {
        tree = tree.file(
            &format!("d{}/f{i}.txt", i % 10),
            format!("line {i}\nneedle {i}\n"),
        );
    }
    tree
}

/// A tools/call line with `progressToken` in its `_meta`.
fn call_with_token(id: u64, tool: &str, args: Value, token: &str) -> String {
    let mut meta = modern_meta();
    meta["progressToken"] = json!(token);
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args, "_meta": meta}})
    .to_string()
}

fn cancel_line(id: u64) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id, "reason": "test", "_meta": modern_meta()}})
    .to_string()
}

fn is_progress(message: &Value, token: &str) -> bool {
    message["method"] == "notifications/progress" && message["params"]["progressToken"] == token
}

#[test]
fn a_call_with_a_progress_token_reports_growing_progress_before_its_result() {
    let tree = tree();
    let mut server = Server::start(tree.path(), &["--include", "**", "--tools", "fs"]);
    server.send_line(&call_with_token(
        7,
        "fs_grep",
        json!({"pattern": "needle"}),
        "grep-1",
    ));
    let mut counts = Vec::new();
    let result = loop {
        let message = server.next_message();
        if is_progress(&message, "grep-1") {
            assert!(message["params"].get("total").is_none());
            counts.push(message["params"]["progress"].as_f64().unwrap());
            continue;
        }
        assert_eq!(message["id"], 7, "unexpected message {message}");
        break message;
    };
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("needle 0"), "{text}");
    assert!(!counts.is_empty(), "no progress before the result");
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
    // Nothing for this call after its result.
    let after = server.next_message_within(Duration::from_millis(300));
    assert!(after.is_none(), "sent after the result: {after:?}");

    // Without a token, no progress at all.
    server.send_line(&call_line(
        &json!(8),
        "fs_grep",
        &json!({"pattern": "needle"}),
    ));
    assert_eq!(server.next_message()["id"], 8);
    server.close();
}

#[test]
fn a_cancelled_call_stops_and_sends_nothing_more() {
    if skip_without_fault_hook() {
        return;
    }
    let tree = tree();
    let mut server = Server::start_with_env(
        tree.path(),
        &["--include", "**", "--tools", "fs", "--log-level", "debug"],
        &[("FSMCP_TEST_FAULT", "fs_glob:spin")],
    );
    let sent_at = Instant::now();
    server.send_line(&call_with_token(
        11,
        "fs_glob",
        json!({"pattern": "*"}),
        "spin-1",
    ));
    // The spinning call reports progress; cancel it once it has.
    let first = server.next_message();
    assert!(is_progress(&first, "spin-1"), "{first}");
    let cancelled_at = Instant::now();
    server.send_line(&cancel_line(11));
    // Progress already in flight may still arrive; then nothing, and never a response.
    let mut last_progress = cancelled_at;
    while let Some(message) = server.next_message_within(Duration::from_millis(500)) {
        assert!(
            is_progress(&message, "spin-1"),
            "after the cancel: {message}"
        );
        last_progress = Instant::now();
    }
    println!(
        "last progress {:.1} ms after the cancel was written",
        last_progress.duration_since(cancelled_at).as_secs_f64() * 1000.0
    );
    // The server goes on serving.
    let listed = server.result("tools/list", json!({}));
    assert!(listed["tools"].as_array().is_some_and(|t| !t.is_empty()));
    let (_, stderr) = server.close();
    let line = stderr
        .lines()
        .find(|l| l.contains("tool=\"fs_glob\"") || l.contains("tool=fs_glob"))
        .unwrap_or_else(|| panic!("no log line for the call: {stderr}"));
    assert!(
        line.contains("outcome=\"cancelled\"") || line.contains("outcome=cancelled"),
        "{line}"
    );
    // How long the call ran past the cancel (its own log line times the call).
    let duration_ms: f64 = line
        .split("duration_ms=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .expect("duration_ms in the log line");
    let cancel_after_ms = cancelled_at.duration_since(sent_at).as_secs_f64() * 1000.0;
    println!(
        "cancelled call stopped {:.0} ms after the cancel was written (ran {duration_ms} ms)",
        duration_ms - cancel_after_ms
    );
}

#[test]
fn a_cancelled_write_leaves_the_file_whole() {
    let tree = Tree::new().file("notes.txt", "old\n");
    let big = "new line\n".repeat(100_000);
    for round in 0..5 {
        let mut server = Server::start(
            tree.path(),
            &[
                "--include",
                "**",
                "--tools",
                "fs",
                "--max-write-bytes",
                "2000000",
            ],
        );
        let line = json!({"jsonrpc": "2.0", "id": 21, "method": "tools/call",
                          "params": {"name": "fs_write",
                                     "arguments": {"path": "notes.txt", "content": big},
                                     "_meta": modern_meta()}})
        .to_string();
        server.send_line(&line);
        if round % 2 == 1 {
            std::thread::sleep(Duration::from_millis(2));
        }
        server.send_line(&cancel_line(21));
        // Whether or not the write got in first, the next call sees a whole file.
        let read = server.call_result("fs_read", json!({"path": "notes.txt"}));
        let text = read["content"][0]["text"].as_str().unwrap().to_owned();
        server.close();
        let bytes = String::from_utf8(tree.bytes("notes.txt")).unwrap();
        assert!(
            bytes == "old\n" || bytes == big,
            "round {round}: torn file of {} bytes",
            bytes.len()
        );
        // The read ran before or after the write, never inside it.
        assert!(
            ["old\n", "1\told\n", "new line\n", "1\tnew line\n"]
                .iter()
                .any(|start| text.starts_with(start)),
            "round {round}: {}",
            &text[..text.len().min(200)]
        );
        let names = tree.names("");
        assert_eq!(names, ["notes.txt"], "round {round}: {names:?}");
    }
}

#[test]
fn progress_streams_over_http_before_the_result() {
    let tree = tree();
    let server = HttpServer::start(tree.path(), &["--include", "**", "--tools", "fs"], &[]);
    let mut meta = modern_meta();
    meta["progressToken"] = json!("http-1");
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "fs_grep", "arguments": {"pattern": "needle"}, "_meta": meta}});
    let reply = server.tool_post(&body, "2026-07-28", "fs_grep");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.header("content-type"),
        Some("text/event-stream"),
        "{reply:?}"
    );
    let events: Vec<Value> = reply
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    let result_at = events
        .iter()
        .position(|e| e["id"] == 3)
        .expect("the result");
    assert_eq!(
        result_at,
        events.len() - 1,
        "the result ends the stream: {events:?}"
    );
    assert!(
        events[..result_at].iter().any(|e| is_progress(e, "http-1")),
        "{events:?}"
    );
}

#[test]
fn closing_the_http_stream_cancels_the_call() {
    use std::io::{Read, Write};
    if skip_without_fault_hook() {
        return;
    }
    let tree = tree();
    let server = HttpServer::start_args(
        &[
            "--root",
            tree.path().to_str().unwrap(),
            "--include",
            "**",
            "--tools",
            "fs",
            "--log-level",
            "debug",
            "--http",
            "127.0.0.1:0",
        ],
        &[("FSMCP_TEST_FAULT", "fs_glob:spin")],
    );
    let mut meta = modern_meta();
    meta["progressToken"] = json!("http-spin");
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                      "params": {"name": "fs_glob", "arguments": {"pattern": "*"}, "_meta": meta}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: fs_glob\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // Read until the first progress event arrives: the call is working.
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
        let n = stream
            .read(&mut buf)
            .expect("the stream stays open while the call works");
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    drop(stream);
    // The call's log line says it was cancelled (the spin would otherwise run for 60 s).
    let deadline = Instant::now() + Duration::from_secs(10);
    let line = loop {
        let stderr = server.stderr();
        if let Some(line) = stderr
            .lines()
            .find(|l| l.contains("fs_glob") && l.contains("outcome"))
        {
            break line.to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "the call went on after its stream closed: {stderr}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(line.contains("cancelled"), "{line}");
}

#[test]
fn the_call_log_names_the_call_and_never_its_contents_or_secrets() {
    let tree = Tree::new().file("secret-notes.txt", "TOP-SECRET-CONTENT\n");
    let key = TEST_KEY;
    let mut server = Server::start_with_env(
        tree.path(),
        &[
            "--include",
            "**",
            "--tools",
            "ptc,fs",
            "--log-level",
            "trace",
            "--cursor-key-env",
            "FSMCP_LOG_TEST_KEY",
        ],
        &[("FSMCP_LOG_TEST_KEY", key)],
    );
    let read = server.call_result("fs_read", json!({"path": "secret-notes.txt"}));
    assert!(
        read["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("TOP-SECRET-CONTENT")
    );
    let page = server.call("search_text", json!({"query": "TOP-SECRET"}));
    assert_eq!(page["items"].as_array().map(Vec::len), Some(1));
    let (_, stderr) = server.close();
    let calls: Vec<&str> = stderr.lines().filter(|l| l.contains("outcome=")).collect();
    assert_eq!(calls.len(), 2, "one line per call: {stderr}");
    assert!(
        calls[0].contains("fs_read") && calls[0].contains("outcome=\"ok\"")
            || calls[0].contains("outcome=ok"),
        "{}",
        calls[0]
    );
    assert!(
        calls
            .iter()
            .all(|l| l.contains("duration_ms=") && l.contains("bytes=")),
        "{calls:?}"
    );
    for secret in ["TOP-SECRET-CONTENT", key, tree.path().to_str().unwrap()] {
        assert!(
            !stderr.contains(secret),
            "the log holds {secret:?}: {stderr}"
        );
    }
}

/// Rust sources that reference each other, big enough that mapping them takes a while.
fn source_tree() -> Tree {
    let mut tree = Tree::new();
    for i in 0..120 {
        let mut text = String::new();
        for j in 0..60 {
            text.push_str(&format!(
                "pub struct Item{i}x{j} {{ value: u32 }}\n\
                 impl Item{i}x{j} {{\n    pub fn make() -> Self {{ helper_{}(); Self {{ value: {j} }} }}\n}}\n\
                 pub fn helper_{i}_{j}() -> u32 {{ let a = {j}; a * 2 }}\n",
                (i + 1) % 120
            ));
        }
        tree = tree.file(&format!("src/m{i}.rs"), text);
    }
    tree
}

#[test]
fn a_cancelled_map_stops_and_leaves_the_cache_sound() {
    let tree = source_tree();
    let args = ["--include", "**", "--tools", "fs", "--log-level", "debug"];
    let mut server = Server::start(tree.path(), &args);
    let sent_at = Instant::now();
    server.send_line(&call_with_token(31, "fs_map", json!({}), "map-1"));
    let first = server.next_message();
    let cancelled = is_progress(&first, "map-1");
    if cancelled {
        let cancelled_at = Instant::now();
        server.send_line(&cancel_line(31));
        while let Some(message) = server.next_message_within(Duration::from_millis(500)) {
            assert!(
                is_progress(&message, "map-1"),
                "after the cancel: {message}"
            );
        }
        println!(
            "fs_map cancelled {:.0} ms after it was sent",
            cancelled_at.duration_since(sent_at).as_secs_f64() * 1000.0
        );
    } else {
        // The map finished before it could be cancelled: nothing to prove about cancelling.
        assert_eq!(first["id"], 31, "{first}");
    }
    // Whatever the cancel cut short, the next map is the one a fresh server draws.
    let after = server.call_result("fs_map", json!({}))["content"][0]["text"].clone();
    let (_, stderr) = server.close();
    let outcomes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("fs_map") && l.contains("outcome="))
        .collect();
    assert_eq!(outcomes.len(), 2, "{stderr}");
    assert_eq!(
        outcomes[0].contains("cancelled"),
        cancelled,
        "{}",
        outcomes[0]
    );
    println!("first map: {}", outcomes[0]);
    let mut fresh = Server::start(tree.path(), &args);
    let expected = fresh.call_result("fs_map", json!({}))["content"][0]["text"].clone();
    fresh.close();
    assert_eq!(after, expected);
}
