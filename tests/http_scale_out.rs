//! Scale-out: two fsmcp instances on loopback behind nginx (round robin), sharing a
//! deterministic cursor key. A client follows `search_text`, `search_files` and
//! `read_text_file` cursors through the proxy, so consecutive pages land on different
//! instances; then one instance is killed mid-traversal and the traversal completes on the
//! other. The nginx configuration is the one `docs/deploy.md` shows.
//!
//! Needs `nginx` on the PATH (`.ci/run` installs Debian's `nginx-light`); without it the test
//! fails under `CI=true` and is skipped, saying so, elsewhere.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::http::{Endpoint, HttpServer};
use support::*;

const KEY_VAR: &str = "FSMCP_SCALE_OUT_KEY";

/// nginx in front of `upstreams`, from a config written into `dir`; stopped on drop.
struct Nginx {
    child: Child,
    endpoint: Endpoint,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nginx_available() -> bool {
    Command::new("nginx")
        .arg("-v")
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The site configuration of docs/deploy.md, with the two instances' ports.
fn site(listen: u16, upstreams: &[u16]) -> String {
    let servers: String = upstreams
        .iter()
        .map(|port| format!("        server 127.0.0.1:{port} max_fails=0;\n"))
        .collect();
    format!(
        "    upstream fsmcp {{
{servers}    }}
    server {{
        listen 127.0.0.1:{listen};
        client_max_body_size 8m;
        location = /mcp {{
            proxy_pass http://fsmcp;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header Connection \"\";
            proxy_buffering off;
            proxy_read_timeout 300s;
            # A request is one whole call: safe to send again when an instance is down.
            proxy_next_upstream error timeout non_idempotent;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
"
    )
}

impl Nginx {
    fn start(dir: &Path, upstreams: &[u16]) -> Nginx {
        let port = free_port();
        let user = if rustix::process::geteuid().is_root() {
            "user root;\n"
        } else {
            ""
        };
        let d = dir.display();
        let config = format!(
            "{user}worker_processes 1;
daemon off;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
{}}}
",
            site(port, upstreams)
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config).expect("write nginx.conf");
        let child = Command::new("nginx")
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nginx");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not start: {}",
                std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx {
            child,
            endpoint: Endpoint { port },
        }
    }
}

fn tree() -> Tree {
    let mut tree = Tree::new();
    for i in 0..40 {
        tree = tree.file(
            &format!("src/m{i:02}.txt"),
            format!("line one of {i}\nneedle {i}\nanother needle {i}\n"),
        );
    }
    let big: String = (0..2000)
        .map(|i| format!("row {i:05} of the log\n"))
        .collect();
    tree.file("big.log", big)
}

fn instance(tree: &Tree) -> HttpServer {
    HttpServer::start(
        tree.path(),
        &[
            "--include",
            "**",
            "--cursor-key-env",
            KEY_VAR,
            "--max-read-bytes",
            "4096",
        ],
        &[(KEY_VAR, TEST_KEY)],
    )
}

fn items(pages: &[(Value, support::http::Reply)]) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|(page, _)| page["items"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn upstreams(pages: &[(Value, support::http::Reply)]) -> Vec<String> {
    pages
        .iter()
        .map(|(_, reply)| reply.header("x-upstream").unwrap_or("").to_owned())
        .collect()
}

/// The three traversals, by tool and arguments.
fn traversals() -> [(&'static str, Value); 3] {
    [
        ("search_text", json!({"query": "needle", "limit": 7})),
        ("search_files", json!({"query": "src/m", "limit": 6})),
        ("read_text_file", json!({"path": "big.log"})),
    ]
}

#[test]
fn cursors_resume_on_either_instance_and_survive_losing_one() {
    if !nginx_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "nginx is required under CI (install nginx-light)"
        );
        eprintln!("skipped: nginx is not installed");
        return;
    }
    let tree = tree();
    let mut a = instance(&tree);
    let b = instance(&tree);
    let dir = tempfile::tempdir().expect("nginx dir");
    let nginx = Nginx::start(dir.path(), &[a.port, b.port]);
    let (at_a, at_b) = (
        format!("127.0.0.1:{}", a.port),
        format!("127.0.0.1:{}", b.port),
    );

    for (tool, args) in traversals() {
        let direct = a.traverse(tool, args.clone());
        let proxied = nginx.endpoint.traverse(tool, args.clone());
        assert!(direct.len() >= 3, "{tool}: only {} pages", direct.len());
        assert_eq!(items(&proxied), items(&direct), "{tool} through nginx");
        assert_eq!(proxied.len(), direct.len());
        // Round robin: both instances answered pages of this one traversal.
        let seen = upstreams(&proxied);
        assert!(
            seen.contains(&at_a) && seen.contains(&at_b),
            "{tool}: {seen:?}"
        );
    }

    // One instance dies mid-traversal; nginx sends the next pages to the other, which resumes
    // the cursors the dead one issued.
    let (tool, args) = ("search_text", json!({"query": "needle", "limit": 5}));
    let expected = items(&b.traverse(tool, args.clone()));
    let mut collected = Vec::new();
    let mut cursor: Option<String> = None;
    let mut after_kill = Vec::new();
    for page in 1.. {
        if page == 3 {
            a.kill();
        }
        let mut arguments = args.clone();
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let reply = nginx.endpoint.modern(
            page,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            &[],
        );
        assert_eq!(reply.status, 200, "page {page} after the kill: {reply:?}");
        let message = reply.message();
        let content = &message["result"]["structuredContent"];
        assert!(content.is_object(), "page {page}: {message}");
        collected.extend(content["items"].as_array().cloned().unwrap_or_default());
        if page >= 3 {
            after_kill.push(reply.header("x-upstream").unwrap_or("").to_owned());
        }
        cursor = content["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(collected, expected);
    assert!(after_kill.len() >= 2, "{after_kill:?}");
    // Every page after the kill was answered by the surviving instance.
    assert!(
        after_kill.iter().all(|u| u.ends_with(&at_b)),
        "{after_kill:?}"
    );
}
