//! fsmcp embedded in a host process: open a root from a config, serve it on one end of an
//! in-memory pipe with `rmcp`, and talk MCP (2026-07-28, newline-delimited JSON-RPC) on the
//! other: write a file, read it back, and search for it. Exits non-zero if any answer is not
//! what the calls should give.
//!
//! Run with `cargo run --example embed`.

use std::error::Error;

use fsmcp::{ProtocolMode, RootConfig, ServeConfig, ToolSelection};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// The client half of the pipe: requests out, responses in.
struct Client {
    writer: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    next_id: u64,
}

impl Client {
    /// Calls `tool` and returns its result object.
    async fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Box<dyn Error>> {
        self.next_id += 1;
        let request = json!({
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {
                "name": tool,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        self.writer
            .write_all(format!("{request}\n").as_bytes())
            .await?;
        let line = self.lines.next_line().await?.ok_or("the server closed")?;
        let response: Value = serde_json::from_str(&line)?;
        match response.get("result") {
            Some(result) if result["isError"] != json!(true) => Ok(result.clone()),
            _ => Err(format!("{tool} failed: {response}").into()),
        }
    }
}

/// The text of a result's first content block.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let root = RootConfig {
        root: dir.path().to_path_buf(),
        includes: vec!["**".into()],
        tools: ToolSelection {
            ptc: true,
            fs: true,
        },
        ..RootConfig::default()
    };
    let prepared = fsmcp::open(
        &ServeConfig::of_roots(vec![root]),
        ProtocolMode::All,
        |_| None,
    )?;

    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(async move {
        let running = rmcp::serve_server(prepared.server, server_end).await?;
        running.waiting().await?;
        Ok::<(), Box<dyn Error + Send + Sync>>(())
    });
    let (reader, writer) = tokio::io::split(client_end);
    let mut client = Client {
        writer,
        lines: BufReader::new(reader).lines(),
        next_id: 0,
    };

    let wrote = client
        .call(
            "fs_write",
            json!({"path": "hello.txt", "content": "hello from the host\n"}),
        )
        .await?;
    println!("fs_write: {}", text(&wrote));

    let read = client
        .call("read_text_file", json!({"path": "hello.txt"}))
        .await?;
    let items = &read["structuredContent"]["items"];
    println!("read_text_file: {items}");
    if items[0]["text"] != "hello from the host\n" {
        return Err("read_text_file did not return what fs_write wrote".into());
    }

    let found = client
        .call("search_text", json!({"query": "from the host"}))
        .await?;
    let hits = &found["structuredContent"]["items"];
    println!("search_text: {hits}");
    if hits != &json!([{"path": "hello.txt", "line": 1, "text": "hello from the host"}]) {
        return Err("search_text did not find the line".into());
    }

    // Closing the client's end ends the session.
    drop(client);
    server.await?.map_err(|e| e.to_string())?;
    println!("ok");
    Ok(())
}
