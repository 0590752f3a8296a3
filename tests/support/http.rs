//! The built binary serving Streamable HTTP (`--http 127.0.0.1:0`), and a minimal HTTP/1.1
//! client over a real TCP socket: one request per connection, the whole response read (a
//! chunked body decoded), so a test sees exactly the status, headers and bytes on the wire.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{fsmcp_command, modern_meta};

/// An HTTP endpoint on loopback: an fsmcp instance, or a proxy in front of some.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    /// The port it listens on.
    pub port: u16,
}

/// A running `fsmcp --http`; killed on drop.
pub struct HttpServer {
    child: Child,
    endpoint: Endpoint,
    /// What the instance wrote to stderr after its first line, as it arrives.
    stderr: Arc<Mutex<String>>,
}

impl std::ops::Deref for HttpServer {
    type Target = Endpoint;
    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}

impl HttpServer {
    /// Starts the binary on `root` with `args` plus `--http 127.0.0.1:0` and the extra
    /// environment, and waits for the line naming its port.
    pub fn start(root: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut full = vec!["--root", root.to_str().expect("UTF-8 root")];
        full.extend_from_slice(args);
        full.extend_from_slice(&["--http", "127.0.0.1:0"]);
        HttpServer::start_args(&full, env)
    }

    /// Starts the binary with exactly `args` (which must make it serve HTTP on 127.0.0.1).
    pub fn start_args(args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut command = fsmcp_command();
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        HttpServer::start_command(command)
    }

    /// Starts `command` (which must run the binary serving HTTP on 127.0.0.1, e.g. under
    /// `prlimit`) and waits for the line naming its port.
    pub fn start_command(command: Command) -> HttpServer {
        HttpServer::start_command_on(command, "127.0.0.1")
    }

    /// [`HttpServer::start_command`] for a binary that must say it serves on `host` (such as
    /// `0.0.0.0`, every interface); the client still reaches it on loopback.
    pub fn start_command_on(mut command: Command, host: &str) -> HttpServer {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn fsmcp --http");
        let stderr = child.stderr.take().expect("stderr");
        let mut line = String::new();
        let mut reader = BufReader::new(stderr);
        // Log lines (with --log-level) may come before it; the serving line is fsmcp's own.
        loop {
            line.clear();
            let read = reader.read_line(&mut line).expect("read the serving line");
            if read == 0 || line.starts_with("fsmcp: ") {
                break;
            }
        }
        let collected = Arc::new(Mutex::new(String::new()));
        let sink = collected.clone();
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap_or_else(|e| e.into_inner());
                text.push_str(&line);
                text.push('\n');
            }
        });
        let port = line
            .trim()
            .strip_prefix(&format!("fsmcp: serving http://{host}:"))
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first stderr line: {line:?}"));
        HttpServer {
            child,
            endpoint: Endpoint { port },
            stderr: collected,
        }
    }

    /// Everything the instance wrote to stderr after its serving line, so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The instance's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the instance is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Sends the instance `signal` and waits up to ten seconds for its exit status; `None` (and
    /// the instance killed) when it is still running then.
    pub fn stop(&mut self, signal: i32) -> Option<std::process::ExitStatus> {
        // SAFETY: kill(2) on the pid of a child this harness spawned and has not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some(status);
            }
            if std::time::Instant::now() > deadline {
                self.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the instance at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Endpoint {
    /// Pages of `tool` with `args` (the modern envelope added), following `next_cursor` to the
    /// end; each page's structured content with the reply's headers.
    pub fn traverse(&self, tool: &str, args: Value) -> Vec<(Value, Reply)> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        for id in 1.. {
            let mut arguments = args.clone();
            if let Some(cursor) = &cursor {
                arguments["cursor"] = json!(cursor);
            }
            let reply = self.modern(
                id,
                "tools/call",
                json!({"name": tool, "arguments": arguments}),
                &[],
            );
            assert_eq!(reply.status, 200, "page {id} of {tool}: {reply:?}");
            let message = reply.message();
            let result = &message["result"];
            assert!(
                result["isError"] != json!(true),
                "page {id} of {tool}: {message}"
            );
            let page = result["structuredContent"].clone();
            cursor = page["next_cursor"].as_str().map(str::to_owned);
            pages.push((page, reply));
            if cursor.is_none() {
                break;
            }
        }
        pages
    }

    /// Sends one request; `headers` are added after `Host` (unless they set it) and
    /// `Content-Length`.
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut head = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        stream.write_all(head.as_bytes()).expect("write head");
        // A server may answer (413, 401) before reading the whole body and close.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        Reply::parse(&raw)
    }

    /// A POST of `body` to `/mcp` as a client that takes JSON or an event stream sends it,
    /// with `headers` added.
    pub fn post(&self, body: &[u8], headers: &[(&str, &str)]) -> Reply {
        let mut all = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        self.send("POST", "/mcp", &all, body)
    }

    /// A `tools/call` POST of `body` with the 2026-07-28 headers as given (`version`, `Mcp-Name`
    /// `name`), which may contradict the body.
    pub fn tool_post(&self, body: &Value, version: &str, name: &str) -> Reply {
        self.post(
            body.to_string().as_bytes(),
            &[
                ("MCP-Protocol-Version", version),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", name),
            ],
        )
    }

    /// A modern POST to `/mcp` of `method` with `params` (the envelope added), with the
    /// standard headers (`Mcp-Name` from `params.name` when present) plus `extra`.
    pub fn modern(&self, id: u64, method: &str, params: Value, extra: &[(&str, &str)]) -> Reply {
        let mut params = params;
        params["_meta"] = modern_meta();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let name = params["name"].as_str().map(str::to_owned);
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = &name {
            headers.push(("Mcp-Name", name));
        }
        headers.extend_from_slice(extra);
        self.post(body.to_string().as_bytes(), &headers)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP response.
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: String,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        // Skip interim responses (100 Continue).
        let mut rest = raw;
        loop {
            let split = find(rest, b"\r\n\r\n").unwrap_or(rest.len());
            let head = String::from_utf8_lossy(&rest[..split]).into_owned();
            let body = rest.get(split + 4..).unwrap_or(&[]);
            let status: u16 = head
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("no status line in {head:?}"));
            if status == 100 {
                rest = body;
                continue;
            }
            let headers: Vec<(String, String)> = head
                .lines()
                .skip(1)
                .filter_map(|line| line.split_once(':'))
                .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let chunked = headers
                .iter()
                .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
            let body = if chunked {
                dechunk(body)
            } else {
                body.to_vec()
            };
            return Reply {
                status,
                headers,
                body: String::from_utf8_lossy(&body).into_owned(),
            };
        }
    }

    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body: the body itself, or the last `data:` event of an
    /// event stream that holds a JSON object.
    pub fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str::<Value>(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .next_back()
            .unwrap_or_else(|| panic!("no JSON-RPC message in {:?}", self.body))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = find(body, b"\r\n") {
        let size = std::str::from_utf8(&body[..line_end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
        let rest = &body[line_end + 2..];
        match size {
            Some(size) if size > 0 && rest.len() >= size => {
                out.extend_from_slice(&rest[..size]);
                body = rest[size..].strip_prefix(b"\r\n").unwrap_or(&rest[size..]);
            }
            _ => break,
        }
    }
    out
}
