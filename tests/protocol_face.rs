//! One protocol face: the same requests, sent over stdio and over Streamable HTTP to servers on
//! one root, get the same JSON-RPC messages back, ids included. Only what belongs to a
//! transport differs: HTTP's status codes, headers and session id. Both eras are driven: the
//! modern one (every request carries the 2026-07-28 `_meta` envelope, and every result the
//! server's identity) and the legacy one (an `initialize` handshake, no stamp).

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::http::HttpServer;
use support::*;

const ARGS: [&str; 4] = ["--include", "**", "--tools", "ptc,fs"];

fn tree() -> Tree {
    Tree::new().file("notes/a.txt", "alpha\nbeta\n")
}

/// Requests both eras send once open: answers, refusals and unknown methods.
fn requests() -> Vec<(&'static str, Value)> {
    vec![
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "fs_read", "arguments": {"path": "notes/a.txt"}}),
        ),
        (
            "tools/call",
            json!({"name": "read_text_file", "arguments": {"path": "notes/a.txt"}}),
        ),
        (
            "tools/call",
            json!({"name": "fs_read", "arguments": {"path": "missing.txt"}}),
        ),
        (
            "tools/call",
            json!({"name": "search_text", "arguments": {"query": "beta"}}),
        ),
        (
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        ),
        ("foo/bar", json!({})),
        ("resources/list", json!({})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("ping", json!({})),
    ]
}

/// A message as compact JSON text: answers are compared as text, so key order counts too
/// (`Value`'s equality ignores it).
fn text(message: &Value) -> String {
    message.to_string()
}

/// The requests whose answers differ between the two transports, each shown with both answers.
fn differences(pairs: &[(String, Value, Value)]) -> String {
    pairs
        .iter()
        .filter(|(_, stdio, http)| text(stdio) != text(http))
        .map(|(request, stdio, http)| format!("{request}\n  stdio: {stdio}\n  http:  {http}\n"))
        .collect()
}

#[test]
fn modern_requests_get_the_same_answers_over_stdio_and_http() {
    let tree = tree();
    let mut stdio = Server::start(tree.path(), &ARGS);
    let http = HttpServer::start(tree.path(), &ARGS, &[]);
    let mut sent = vec![("server/discover", json!({}))];
    sent.extend(requests());

    let mut pairs = Vec::new();
    for (id, (method, params)) in (1u64..).zip(sent) {
        let over_stdio = stdio.request(method, params.clone());
        assert_eq!(over_stdio["id"], id, "{over_stdio}");
        let over_http = http.modern(id, method, params.clone(), &[]).message();
        pairs.push((format!("{method} {params}"), over_stdio, over_http));
    }
    assert_eq!(differences(&pairs), "");
    // The comparison means something only if stdio stamps and names unknown methods.
    let stamped = |method: &str| {
        pairs
            .iter()
            .filter(|(request, _, _)| request.starts_with(method))
            .all(|(_, stdio, _)| {
                stdio.get("error").is_some() || stdio["result"]["_meta"] == server_info()
            })
    };
    assert!(stamped("tools/call") && stamped("tools/list"));
    let unknown = pairs.iter().find(|(r, _, _)| r.starts_with("foo/bar"));
    assert_eq!(
        unknown.map(|(_, stdio, _)| stdio["error"].clone()),
        Some(json!({"code": -32601, "message": "Method not found"}))
    );
}

#[test]
fn legacy_requests_get_the_same_answers_over_stdio_and_http() {
    let tree = tree();
    let mut stdio = Server::start(tree.path(), &ARGS);
    let http = HttpServer::start(tree.path(), &ARGS, &[]);
    let content = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];

    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "fsmcp-tests", "version": "0"}}})
    .to_string();
    let opened_stdio = stdio.raw_line(&initialize);
    let opened = http.send("POST", "/mcp", &content, initialize.as_bytes());
    let session = opened
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let mut pairs = vec![("initialize".to_owned(), opened_stdio, opened.message())];

    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    stdio.send_line(initialized);
    let mut headers = content.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    headers.push(("MCP-Protocol-Version", LEGACY));
    http.send("POST", "/mcp", &headers, initialized.as_bytes());

    for (id, (method, params)) in (1u64..).zip(requests()) {
        let over_stdio = stdio.request_bare(method, Some(params.clone()));
        assert_eq!(over_stdio["id"], id, "{over_stdio}");
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let over_http = http
            .send("POST", "/mcp", &headers, body.to_string().as_bytes())
            .message();
        pairs.push((format!("{method} {params}"), over_stdio, over_http));
    }
    assert_eq!(differences(&pairs), "");
}
