//! Streamable HTTP over a real socket: the built binary with `--http 127.0.0.1:0`, driven by
//! raw HTTP/1.1 requests. Both protocol eras, the header checks, the status codes of the
//! transport, Origin and Host validation, the bearer token, the body limit, and the refusal to
//! serve a public address without a token.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::http::HttpServer;
use support::*;

fn tree() -> Tree {
    Tree::new().file("notes/a.txt", "alpha\nbeta\n")
}

fn serve(tree: &Tree, extra: &[&str]) -> HttpServer {
    let mut args = vec!["--include", "**", "--tools", "ptc,fs"];
    args.extend_from_slice(extra);
    HttpServer::start(tree.path(), &args, &[])
}

fn structured(reply: &support::http::Reply) -> Value {
    let message = reply.message();
    assert!(message.get("error").is_none(), "{message}");
    message["result"]["structuredContent"].clone()
}

#[test]
fn modern_requests_discover_list_read_write_and_search() {
    let tree = tree();
    let server = serve(&tree, &[]);

    let discover = server.modern(1, "server/discover", json!({}), &[]);
    assert_eq!(discover.status, 200);
    assert_eq!(discover.header("content-type"), Some("application/json"));
    let result = &discover.message()["result"];
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert!(discover.header("mcp-session-id").is_none());

    let list = server.modern(2, "tools/list", json!({}), &[]);
    let listed = list.message();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"read_text_file") && names.contains(&"fs_write"),
        "{names:?}"
    );

    let read = server.modern(
        3,
        "tools/call",
        json!({"name": "read_text_file", "arguments": {"path": "notes/a.txt"}}),
        &[],
    );
    assert_eq!(read.status, 200);
    assert_eq!(structured(&read)["items"][0]["text"], "alpha\nbeta\n");

    let write = server.modern(
        4,
        "tools/call",
        json!({"name": "write_text_file", "arguments": {"path": "b.txt", "content": "gamma\n"}}),
        &[],
    );
    assert_eq!(write.status, 200, "{}", write.body);
    assert_eq!(
        std::fs::read_to_string(tree.path().join("b.txt")).unwrap(),
        "gamma\n"
    );

    let search = server.modern(
        5,
        "tools/call",
        json!({"name": "search_text", "arguments": {"query": "gamma"}}),
        &[],
    );
    assert_eq!(
        structured(&search)["items"],
        json!([{"path": "b.txt", "line": 1, "text": "gamma"}])
    );
}

#[test]
fn a_header_that_contradicts_the_body_is_400_header_mismatch() {
    let tree = tree();
    let server = serve(&tree, &[]);
    let params = json!({"name": "read_text_file", "arguments": {"path": "notes/a.txt"}});

    let wrong_method = server.modern(
        1,
        "tools/call",
        params.clone(),
        &[("Mcp-Method", "tools/list")],
    );
    // The duplicate header disagrees with the first; either way the request is refused.
    assert_eq!(wrong_method.status, 400, "{}", wrong_method.body);
    assert_eq!(wrong_method.message()["error"]["code"], -32020);

    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "read_text_file", "arguments": {"path": "notes/a.txt"},
                                 "_meta": modern_meta()}});
    let wrong_name = server.tool_post(&body, "2026-07-28", "write_text_file");
    assert_eq!(wrong_name.status, 400, "{}", wrong_name.body);
    assert_eq!(wrong_name.message()["error"]["code"], -32020);

    let wrong_version = server.tool_post(&body, "2025-11-25", "read_text_file");
    assert_eq!(wrong_version.status, 400, "{}", wrong_version.body);

    // A refused write changes nothing.
    let write = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "write_text_file",
                                  "arguments": {"path": "b.txt", "content": "x"},
                                  "_meta": modern_meta()}});
    let refused = server.tool_post(&write, "2026-07-28", "read_text_file");
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(!tree.path().join("b.txt").exists());
}

#[test]
fn transport_status_codes() {
    let tree = tree();
    let server = serve(&tree, &[]);
    let modern = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Accept", "text/event-stream"),
    ];

    let get = server.send("GET", "/mcp", &modern, b"");
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST"));
    assert_eq!(server.send("DELETE", "/mcp", &modern, b"").status, 405);

    let unknown = server.modern(1, "no/such", json!({}), &[]);
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert_eq!(unknown.message()["error"]["code"], -32601);

    assert_eq!(server.send("POST", "/elsewhere", &[], b"{}").status, 404);

    let garbage = server.post(b"{not json", &[("MCP-Protocol-Version", "2026-07-28")]);
    assert!((400..500).contains(&garbage.status), "{garbage:?}");
}

#[test]
fn a_foreign_origin_or_host_is_refused_and_a_listed_origin_is_served() {
    let tree = tree();
    let server = serve(&tree, &["--allow-origin", "http://localhost:6274"]);

    let evil_origin = server.modern(
        1,
        "tools/list",
        json!({}),
        &[("Origin", "http://evil.example.com")],
    );
    assert_eq!(evil_origin.status, 403);

    let rebinding = server.modern(
        2,
        "tools/list",
        json!({}),
        &[
            ("Host", "evil.example.com"),
            ("Origin", "http://evil.example.com"),
        ],
    );
    assert!((400..500).contains(&rebinding.status), "{rebinding:?}");

    let foreign_host = server.modern(3, "tools/list", json!({}), &[("Host", "evil.example.com")]);
    assert!(
        (400..500).contains(&foreign_host.status),
        "{foreign_host:?}"
    );

    let listed = server.modern(
        4,
        "tools/list",
        json!({}),
        &[("Origin", "http://localhost:6274")],
    );
    assert_eq!(listed.status, 200, "{}", listed.body);

    let localhost = server.modern(5, "tools/list", json!({}), &[("Host", "localhost")]);
    assert_eq!(localhost.status, 200, "{}", localhost.body);

    // A page served from this machine could reach the server directly anyway.
    let local_page = server.modern(
        6,
        "tools/list",
        json!({}),
        &[("Host", "localhost"), ("Origin", "http://localhost:5173")],
    );
    assert_eq!(local_page.status, 200, "{}", local_page.body);
}

#[test]
fn with_a_token_every_request_needs_it() {
    let tree = tree();
    let token = "correct-horse-battery-staple-42";
    let server = HttpServer::start(
        tree.path(),
        &["--include", "**", "--auth-token-env", "FSMCP_TEST_TOKEN"],
        &[("FSMCP_TEST_TOKEN", token)],
    );

    let missing = server.modern(1, "tools/list", json!({}), &[]);
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    assert!(!missing.body.contains(token));

    let wrong = server.modern(
        2,
        "tools/list",
        json!({}),
        &[("Authorization", "Bearer correct-horse-battery-staple-43")],
    );
    assert_eq!(wrong.status, 401);
    let basic = server.modern(3, "tools/list", json!({}), &[("Authorization", token)]);
    assert_eq!(basic.status, 401);

    let bearer = format!("Bearer {token}");
    let right = server.modern(4, "tools/list", json!({}), &[("Authorization", &bearer)]);
    assert_eq!(right.status, 200, "{}", right.body);
    assert!(
        right.message()["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
}

#[test]
fn a_public_address_without_a_token_does_not_start() {
    let tree = tree();
    let (status, stdout, stderr) = run(&[
        "--root",
        tree.path().to_str().unwrap(),
        "--include",
        "**",
        "--http",
        "0.0.0.0:0",
    ]);
    assert_eq!(status.code(), Some(64));
    assert_eq!(
        stderr.trim(),
        "--http on a non-loopback address needs --auth-token-env"
    );
    assert!(stdout.is_empty());

    let (status, _, stderr) = run_with_env(
        &[
            "--root",
            tree.path().to_str().unwrap(),
            "--include",
            "**",
            "--http",
            "0.0.0.0:0",
            "--auth-token-env",
            "FSMCP_TEST_TOKEN",
        ],
        &[("FSMCP_TEST_TOKEN", "short-secret")],
    );
    assert_eq!(status.code(), Some(64));
    assert_eq!(
        stderr.trim(),
        "--auth-token-env: FSMCP_TEST_TOKEN must hold at least 16 bytes"
    );

    for (args, message) in [
        (
            vec!["--auth-token-env", "T"],
            "--auth-token-env needs --http",
        ),
        (
            vec!["--http", "example.com:80"],
            "--http must be ADDRESS:PORT, e.g. 127.0.0.1:8080",
        ),
        (
            vec!["--http", "127.0.0.1:0", "--allow-origin", "evil"],
            "--allow-origin must be scheme://host[:port] (http or https) or null",
        ),
    ] {
        let mut argv = vec!["--root", tree.path().to_str().unwrap(), "--include", "**"];
        argv.extend(args);
        let (status, _, stderr) = run(&argv);
        assert_eq!(status.code(), Some(64));
        assert_eq!(stderr.trim(), message);
    }
}

#[test]
fn an_oversized_body_is_413_and_changes_nothing() {
    let tree = tree();
    let server = serve(&tree, &[]);
    let content = "x".repeat(9 << 20);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "write_text_file",
                                 "arguments": {"path": "big.txt", "content": content},
                                 "_meta": modern_meta()}});
    let reply = server.tool_post(&body, "2026-07-28", "write_text_file");
    assert_eq!(reply.status, 413);
    assert!(!tree.path().join("big.txt").exists());
    // Still serving.
    assert_eq!(server.modern(2, "tools/list", json!({}), &[]).status, 200);
}

#[test]
fn a_legacy_client_initializes_a_session_and_calls_tools_in_it() {
    let tree = tree();
    let server = serve(&tree, &[]);
    let json_headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let init = server.send(
        "POST",
        "/mcp",
        &json_headers,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "1"}}})
        .to_string()
        .as_bytes(),
    );
    assert_eq!(init.status, 200, "{}", init.body);
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let result = &init.message()["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "fsmcp");

    let mut headers = json_headers.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    headers.push(("MCP-Protocol-Version", "2025-11-25"));
    let initialized = server.send(
        "POST",
        "/mcp",
        &headers,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(initialized.status, 202, "{}", initialized.body);

    let read = server.send(
        "POST",
        "/mcp",
        &headers,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "fs_read", "arguments": {"path": "notes/a.txt"}}})
        .to_string()
        .as_bytes(),
    );
    assert_eq!(read.status, 200, "{}", read.body);
    let message = read.message();
    assert_eq!(message["id"], 2);
    assert!(message["result"].get("resultType").is_none(), "{message}");
    let text = message["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("alpha"), "{text}");

    // A request naming no live session is refused.
    let mut stale = json_headers.to_vec();
    stale.push(("Mcp-Session-Id", "no-such-session"));
    stale.push(("MCP-Protocol-Version", "2025-11-25"));
    let refused = server.send(
        "POST",
        "/mcp",
        &stale,
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
    );
    assert!((400..500).contains(&refused.status), "{refused:?}");
}

#[test]
fn a_config_file_can_serve_http() {
    let tree = tree();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fsmcp.json");
    std::fs::write(
        &config,
        json!({
            "roots": [{"root": tree.path(), "include": ["**"], "tools": ["fs"]}],
            "http": {"listen": "127.0.0.1:0", "allow_origins": ["https://app.example.com"]},
        })
        .to_string(),
    )
    .unwrap();
    let server = HttpServer::start_args(&["--config", config.to_str().unwrap()], &[]);
    let read = server.modern(
        1,
        "tools/call",
        json!({"name": "fs_read", "arguments": {"path": "notes/a.txt"}}),
        &[("Origin", "https://app.example.com")],
    );
    assert_eq!(read.status, 200, "{}", read.body);
    let text = read.message()["result"]["content"][0]["text"].clone();
    assert!(text.as_str().unwrap().contains("alpha"), "{text}");
    let foreign = server.modern(
        2,
        "tools/list",
        json!({}),
        &[("Origin", "https://other.example.com")],
    );
    assert_eq!(foreign.status, 403);

    // The flag and the file cannot both say where to listen.
    let (status, _, stderr) = run(&[
        "--config",
        config.to_str().unwrap(),
        "--http",
        "127.0.0.1:0",
    ]);
    assert_eq!(status.code(), Some(64));
    assert!(
        stderr.contains("--http cannot be combined with"),
        "{stderr}"
    );
}

#[test]
fn a_request_that_never_finishes_sending_gets_408() {
    use std::io::{Read, Write};
    let tree = tree();
    let server = serve(&tree, &["--max-call-seconds", "1"]);
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    // Promise a body and never send it.
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\nContent-Length: 100\r\n\r\n{{"
    )
    .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    // Other clients were served meanwhile and still are.
    assert_eq!(server.modern(1, "tools/list", json!({}), &[]).status, 200);
}

#[test]
fn a_host_header_is_parsed_strictly() {
    let tree = tree();
    let server = serve(&tree, &["--allow-host", "fs.example.com:8443"]);
    let with_host = |id: u64, host: &str| {
        server
            .modern(id, "tools/list", json!({}), &[("Host", host)])
            .status
    };
    // User information, a port that is not a number or out of range, a path, a bare IPv6
    // address, a second colon: malformed, 400.
    for (id, host) in [
        "evil.com@localhost",
        "localhost:abc",
        "localhost:",
        "localhost:65536",
        "localhost:000080",
        "localhost/x",
        "::1",
        "[::1",
        "[::1]x",
        "127.0.0.1:80:80",
        "local_host",
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(with_host(id as u64, host), 400, "Host: {host}");
    }
    // Well formed but not allowed: 403. An entry with a port allows only that port.
    for host in [
        "evil.com",
        "127.0.0.2",
        "[::2]",
        "fs.example.com",
        "fs.example.com:443",
    ] {
        assert_eq!(with_host(50, host), 403, "Host: {host}");
    }
    // The loopback names with or without a port, any case, and the listed entry.
    for host in [
        "localhost",
        "LocalHost:8080",
        "127.0.0.1:0",
        "[::1]",
        "[::1]:65535",
        "fs.example.com:8443",
    ] {
        assert_eq!(with_host(60, host), 200, "Host: {host}");
    }
    // Two Host headers are one too many.
    let twice = server.modern(
        70,
        "tools/list",
        json!({}),
        &[("Host", "localhost"), ("Host", "evil.com")],
    );
    assert_eq!(twice.status, 400, "{twice:?}");
}

/// A legacy `initialize` through `server`, and the session id it answers with.
fn legacy_session(server: &HttpServer, id: u64) -> String {
    let init = server.send(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "1"}}})
        .to_string()
        .as_bytes(),
    );
    assert_eq!(init.status, 200, "initialize {id}: {}", init.body);
    init.header("mcp-session-id")
        .expect("a session id")
        .to_owned()
}

/// The HTTP status of `tools/list` in legacy session `session`.
fn list_in(server: &HttpServer, session: &str) -> u16 {
    server
        .send(
            "POST",
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#,
        )
        .status
}

/// 256 `initialize` calls once took every legacy session for five minutes, and every later
/// `initialize` got HTTP 500. At the cap the session used longest ago is closed instead: the
/// newcomer gets in, a session in use stays, and the closed one is told so.
#[test]
fn a_flood_of_initialize_calls_cannot_lock_out_a_new_client() {
    const CAP: usize = 256;
    let tree = tree();
    let server = serve(&tree, &[]);
    let kept = legacy_session(&server, 1);
    let flood: Vec<String> = (2..=CAP as u64)
        .map(|id| legacy_session(&server, id))
        .collect();
    // The first session is used again, so the flood's first one is now the least recent.
    assert_eq!(list_in(&server, &kept), 200);
    for round in 0..3 {
        let newcomer = legacy_session(&server, 1000 + round);
        assert_eq!(list_in(&server, &newcomer), 200, "round {round}");
        assert_eq!(
            list_in(&server, &kept),
            200,
            "round {round}: the session in use"
        );
        let evicted = &flood[round as usize];
        assert_eq!(
            list_in(&server, evicted),
            404,
            "round {round}: the oldest is closed"
        );
    }
    // A client of the current protocol needs no session at all.
    assert_eq!(server.modern(5, "tools/list", json!({}), &[]).status, 200);
}
