//! The transports under hostile load, over the built binary run with its own resource limits
//! (`prlimit`): stalled HTTP connections against a small descriptor limit, oversized and
//! value-heavy lines on stdio and bodies over HTTP under an address-space limit (peak memory read
//! from `/proc/<pid>/status`), and a key repeated in a call's arguments on both transports.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::http::HttpServer;
use support::*;

const TOKEN: &str = "a-token-of-thirty-two-bytes-1234";

/// Whether `prlimit` can run a program here; a test that needs it says it was skipped.
fn prlimit_works() -> bool {
    let works = Command::new("prlimit")
        .args(["--nofile=256:256", "--", "true"])
        .status()
        .is_ok_and(|status| status.success());
    if !works {
        eprintln!("skipped: prlimit is not available to set the server's limits");
    }
    works
}

/// The binary under `prlimit` with `limits` (e.g. `--as=1073741824`) and `args`.
fn limited(limits: &[&str], args: &[&str]) -> Command {
    let mut command = Command::new("prlimit");
    command.args(limits).arg("--").args(fsmcp_argv()).args(args);
    command
}

/// Peak resident memory of process `pid`, in MiB (`VmHWM`).
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kib / 1024
}

/// This test process's own soft descriptor limit.
fn own_descriptor_limit() -> u64 {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            limits
                .lines()
                .find(|line| line.starts_with("Max open files"))
                .and_then(|line| line.split_whitespace().nth(3))
                .and_then(|soft| soft.parse().ok())
        })
        .unwrap_or(u64::MAX)
}

/// One authenticated modern POST on a fresh connection, waiting up to `wait` for the answer.
fn authorized_post(port: u16, body: &Value, wait: Duration) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(wait)).expect("timeout");
    let body = body.to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: read_text_file\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

fn read_call(id: u64, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "read_text_file", "arguments": {"path": path},
                      "_meta": modern_meta()}})
}

#[test]
fn stalled_connections_do_not_starve_an_authenticated_call() {
    if !prlimit_works() {
        return;
    }
    const STALLED: usize = 300;
    if own_descriptor_limit() < STALLED as u64 + 64 {
        eprintln!("skipped: this process may not open {STALLED} sockets");
        return;
    }
    let tree = Tree::new().file("a.txt", "alpha\n");
    let root = tree.path().to_str().expect("UTF-8 root");
    // Defaults only: the header read timeout and the connection cap derived from 256
    // descriptors are what a deployment gets.
    let mut command = limited(
        &["--nofile=256:256"],
        &[
            "--root",
            root,
            "--include",
            "**",
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "FSMCP_TEST_TOKEN",
        ],
    );
    command.env("FSMCP_TEST_TOKEN", TOKEN);
    let mut server = HttpServer::start_command(command);

    // More connections than the server has descriptors, each stopping inside its headers.
    let stalled: Vec<TcpStream> = (0..STALLED)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
            stream
        })
        .collect();

    let started = Instant::now();
    let reply = authorized_post(server.port, &read_call(1, "a.txt"), Duration::from_secs(90));
    let took = started.elapsed();
    eprintln!("an authenticated call behind {STALLED} stalled connections: answered in {took:?}");
    assert!(
        reply.starts_with("HTTP/1.1 200"),
        "after {took:?}: {reply:?}"
    );
    assert!(reply.contains("alpha"), "{reply}");
    // Three rounds of the 10 s header timeout at most, with room for a slow machine.
    assert!(
        took < Duration::from_secs(60),
        "answered only after {took:?}"
    );
    assert!(server.alive());
    drop(stalled);
    let again = authorized_post(server.port, &read_call(2, "a.txt"), Duration::from_secs(30));
    assert!(again.starts_with("HTTP/1.1 200"), "{again:?}");
}

/// Clients without the token once held every connection slot: kept-alive sockets asking again
/// every 0.4 s were never idle and never evictable, and an authenticated call waited as long as
/// they kept asking. A 401 now closes its connection, so they hold a slot for one request at a
/// time and the authenticated call is next in the accept queue.
#[test]
fn a_client_without_the_token_cannot_hold_a_connection() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let server = HttpServer::start(
        tree.path(),
        &[
            "--include",
            "**",
            "--auth-token-env",
            "FSMCP_TEST_TOKEN",
            "--http-max-connections",
            "2",
        ],
        &[("FSMCP_TEST_TOKEN", TOKEN)],
    );
    let port = server.port;
    // Two keep-alive clients without the token take both slots.
    let mut holders: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("connect"))
        .collect();
    for holder in &mut holders {
        holder
            .set_read_timeout(Some(timeout()))
            .expect("read timeout");
        let ask = format!(
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: keep-alive\r\n\r\n"
        );
        holder.write_all(ask.as_bytes()).expect("send");
        // The whole answer, then the end of the stream: the server closed the connection.
        let mut reply = Vec::new();
        let read = holder.read_to_end(&mut reply);
        let reply = String::from_utf8_lossy(&reply);
        assert!(read.is_ok(), "the connection stayed open after: {reply:?}");
        assert!(reply.starts_with("HTTP/1.1 401"), "{reply:?}");
        assert!(
            reply.to_ascii_lowercase().contains("connection: close"),
            "{reply:?}"
        );
    }
    let reply = authorized_post(port, &read_call(1, "a.txt"), timeout());
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply:?}");
    assert!(reply.contains("alpha"), "{reply}");
}

#[test]
fn a_silent_connection_is_closed_after_the_header_read_timeout() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let server = HttpServer::start(
        tree.path(),
        &["--include", "**", "--http-header-read-seconds", "1"],
        &[],
    );
    let mut silent = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = Instant::now();
    let mut buffer = Vec::new();
    let _ = silent.read_to_end(&mut buffer);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "a silent connection stayed open {:?}",
        started.elapsed()
    );
    assert_eq!(server.modern(1, "tools/list", json!({}), &[]).status, 200);
}

#[test]
fn a_client_that_stops_reading_is_disconnected_after_the_idle_limit() {
    let tree = Tree::new().file("big.txt", "b".repeat(1 << 20));
    let server = HttpServer::start(
        tree.path(),
        &[
            "--include",
            "**",
            "--max-read-bytes",
            "1048576",
            "--max-result-bytes",
            "1048576",
            "--http-idle-seconds",
            "1",
        ],
        &[],
    );
    // Forty pipelined reads of about 2 MiB of answer each, none of them read: the socket's
    // buffers fill, the server's writes stall, and no byte moves.
    let body = read_call(1, "big.txt").to_string();
    let one = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: read_text_file\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    const REQUESTS: usize = 40;
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    for _ in 0..REQUESTS {
        if stream.write_all(one.as_bytes()).is_err() {
            break;
        }
    }
    std::thread::sleep(Duration::from_secs(6));
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    let mut received = Vec::new();
    let _ = stream.read_to_end(&mut received);
    let answers = received
        .windows(12)
        .filter(|w| w == b"HTTP/1.1 200")
        .count();
    assert!(
        answers < REQUESTS,
        "all {answers} answers were still delivered to a client that stopped reading"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(server.modern(2, "tools/list", json!({}), &[]).status, 200);
}

/// The stdio server under a 2 GiB address-space limit, once it has answered a first request,
/// and its peak memory (MiB) then.
fn limited_stdio(tree: &Tree) -> (Server, u64) {
    let root = tree.path().to_str().expect("UTF-8 root");
    let mut server = Server::start_command(limited(
        &["--as=2147483648"],
        &["--root", root, "--include", "**"],
    ));
    assert!(
        server
            .request("tools/list", json!({}))
            .get("result")
            .is_some()
    );
    let before = peak_mib(server.pid());
    (server, before)
}

#[test]
fn a_line_over_the_cap_is_refused_as_it_is_read_and_the_next_is_answered() {
    if !prlimit_works() {
        return;
    }
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (mut server, before) = limited_stdio(&tree);
    // 200 MiB with no newline, then the newline, then a normal request.
    let chunk = vec![b'x'; 1 << 20];
    let stdin = server.stdin_mut();
    for _ in 0..200 {
        stdin.write_all(&chunk).expect("stream the long line");
    }
    stdin.write_all(b"\n").expect("newline");
    stdin.flush().expect("flush");
    let refusal = server.next_message();
    assert_eq!(refusal["error"]["code"], -32700, "{refusal}");
    assert_eq!(refusal["error"]["message"], "Parse error");
    assert_eq!(server.read(json!({"path": "a.txt"})), "alpha\n");
    let peak = peak_mib(server.pid());
    eprintln!("200 MiB line: VmHWM {before} MiB before, {peak} MiB after");
    // Never more than the 64 MiB cap held, plus the server's own.
    assert!(peak < before + 100, "VmHWM {peak} MiB (was {before} MiB)");
    assert!(server.alive());
}

#[test]
fn a_large_line_under_the_cap_is_answered_within_bounded_memory() {
    if !prlimit_works() {
        return;
    }
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (mut server, before) = limited_stdio(&tree);

    // 48 MiB of tiny values: a tree of them would take gigabytes.
    let values = "0,".repeat(24 << 20);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"many","method":"tools/call","params":{{"name":"read_text_file","arguments":{{"path":"a.txt","x":[{values}0]}},"_meta":{}}}}}"#,
        modern_meta()
    );
    drop(values);
    let started = Instant::now();
    let refusal = server.raw_line(&line);
    assert_eq!(refusal["id"], "many", "{refusal}");
    assert_eq!(refusal["error"]["code"], -32600, "{refusal}");
    assert_eq!(
        refusal["error"]["message"],
        "Invalid Request: a message may hold at most 100000 JSON values"
    );
    let many = peak_mib(server.pid());

    // 48 MiB in one string: parsed, validated and refused by the tool's own limit.
    let content = "y".repeat(48 << 20);
    let size = content.len() as u64 >> 20;
    let reply = server.call_result(
        "write_text_file",
        json!({"path": "big.txt", "content": content}),
    );
    drop(content);
    assert_eq!(reply["isError"], true, "{reply}");
    assert!(!tree.path().join("big.txt").exists());
    // Later requests are answered, promptly.
    assert_eq!(server.read(json!({"path": "a.txt"})), "alpha\n");
    let took = started.elapsed();
    let peak = peak_mib(server.pid());
    eprintln!(
        "48 MiB lines: VmHWM {before} MiB before, {many} MiB after the value-heavy line, \
         {peak} MiB after the string line ({took:?})"
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(many < before + 100, "value-heavy line: VmHWM {many} MiB");
    assert!(peak < before + 8 * size, "string line: VmHWM {peak} MiB");
    assert!(server.alive());
}

#[test]
fn concurrent_large_bodies_share_a_bounded_room() {
    if !prlimit_works() {
        return;
    }
    let tree = Tree::new().file("a.txt", "alpha\n");
    let root = tree.path().to_str().expect("UTF-8 root");
    let mut server = HttpServer::start_command(limited(
        &["--as=2147483648"],
        &["--root", root, "--include", "**", "--http", "127.0.0.1:0"],
    ));
    assert_eq!(server.modern(1, "tools/list", json!({}), &[]).status, 200);
    let before = peak_mib(server.pid());
    let port = server.port;
    // Six bodies just under 8 MiB at once: three of tiny values, three of one string.
    let threads: Vec<_> = (0..6u64)
        .map(|n| {
            std::thread::spawn(move || {
                let filler = if n % 2 == 0 {
                    format!("[{}0]", "0,".repeat((8 << 20) / 2 - 4096))
                } else {
                    format!("\"{}\"", "z".repeat((8 << 20) - 8192))
                };
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"write_text_file","arguments":{{"path":"b{n}.txt","content":{filler}}},"_meta":{}}}}}"#,
                    modern_meta()
                );
                let endpoint = support::http::Endpoint { port };
                endpoint.post(
                    body.as_bytes(),
                    &[
                        ("MCP-Protocol-Version", "2026-07-28"),
                        ("Mcp-Method", "tools/call"),
                        ("Mcp-Name", "write_text_file"),
                    ],
                )
            })
        })
        .collect();
    for (n, thread) in threads.into_iter().enumerate() {
        let reply = thread.join().expect("client thread");
        if n % 2 == 0 {
            assert_eq!(reply.status, 400, "{reply:?}");
            assert_eq!(reply.message()["error"]["code"], -32600);
        } else {
            assert_eq!(reply.status, 200, "{reply:?}");
            assert_eq!(reply.message()["result"]["isError"], true, "{reply:?}");
        }
    }
    let peak = peak_mib(server.pid());
    eprintln!("six 8 MiB bodies at once: VmHWM {before} MiB before, {peak} MiB after");
    assert!(peak < before + 400, "VmHWM {peak} MiB");
    assert!(server.alive());
    assert_eq!(server.modern(2, "tools/list", json!({}), &[]).status, 200);
}

#[test]
fn a_key_repeated_in_arguments_is_refused_on_stdio_naming_it() {
    let tree = Tree::new()
        .file("a.txt", "alpha\n")
        .file("secret.txt", "hidden\n");
    let mut server = Server::serving(&tree);
    assert!(
        server
            .request("tools/list", json!({}))
            .get("result")
            .is_some()
    );
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"read_text_file","arguments":{{"path":"a.txt","path":"secret.txt"}},"_meta":{}}}}}"#,
        modern_meta()
    );
    let reply = server.raw_line(&line);
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "Invalid tools/call request: duplicate key 'path' in params.arguments; send each key once"
    );
    assert!(!reply.to_string().contains("hidden"));
    // A tool's own errors keep their words, and the server goes on.
    assert_eq!(server.read(json!({"path": "a.txt"})), "alpha\n");
    let nested = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"read_text_file","name":"write_text_file","arguments":{{"path":"a.txt"}},"_meta":{}}}}}"#,
        modern_meta()
    );
    let reply = server.raw_line(&nested);
    assert_eq!(
        reply["error"]["message"],
        "Invalid tools/call request: duplicate key 'name' in params; send each key once"
    );
    // A request whose id is not a valid one is still a request: it is answered (with a null
    // id), never dropped as a notification would be.
    let reply =
        server.raw_line(r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":{},"method":"tools/list"}"#);
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "Invalid Request: duplicate key 'jsonrpc'; send each key once"
    );
    // An id given twice names no request, even when another key repeats first.
    let reply =
        server.raw_line(r#"{"jsonrpc":"2.0","id":"a","x":1,"x":2,"id":"b","method":"tools/list"}"#);
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "Invalid Request: duplicate key 'x'; send each key once"
    );
}

#[test]
fn a_key_repeated_in_arguments_is_refused_over_http() {
    let tree = Tree::new()
        .file("a.txt", "alpha\n")
        .file("secret.txt", "hidden\n");
    let server = HttpServer::start(tree.path(), &["--include", "**"], &[]);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"read_text_file","arguments":{{"path":"a.txt","path":"secret.txt"}},"_meta":{}}}}}"#,
        modern_meta()
    );
    let reply = server.post(
        body.as_bytes(),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "read_text_file"),
        ],
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    let message = reply.message();
    assert_eq!(message["id"], 7, "{message}");
    assert_eq!(message["error"]["code"], -32602, "{message}");
    assert_eq!(
        message["error"]["message"],
        "Invalid tools/call request: duplicate key 'path' in params.arguments; send each key once"
    );
    assert!(!reply.body.contains("hidden"));
}
