//! One tool call, in process, through the same transport and handler as a stdio session: the
//! request is written to an in-memory pipe as a client would send it, and the response read
//! back. Handy for people and shell scripts, and proof that the wire path is the only path.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::stdio::LineTransport;
use super::wire::MODERN_VERSION;
use super::{FsmcpServer, serve};
use crate::config::ProtocolMode;

/// How a one-shot call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The tool answered; `is_error` tells whether it refused.
    Result {
        /// The complete `tools/call` result object.
        result: Value,
        /// The result's `isError`.
        is_error: bool,
    },
    /// The request itself was refused (unknown tool, bad arguments shape).
    ProtocolError(String),
}

/// Calls `tool` with `arguments` (JSON text of an object) on `server`.
pub async fn call(
    server: FsmcpServer,
    mode: ProtocolMode,
    tool: &str,
    arguments: &str,
) -> Result<CallOutcome, String> {
    // A repeated key is refused here as on the wire: re-serialized, only its last value would
    // reach the server.
    let arguments: Value = match crate::json::check_unique_keys(arguments.as_bytes())
        .and_then(|()| serde_json::from_str(arguments))
    {
        Ok(arguments) => arguments,
        Err(error) if error.is_data() => {
            return Err(format!("--call arguments: {error}; send each key once"));
        }
        Err(_) => return Err("--call arguments are not valid JSON".to_owned()),
    };
    if !arguments.is_object() {
        return Err("--call arguments must be a JSON object".to_owned());
    }
    let (client, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let transport = LineTransport::new(server_read, server_write, mode, server.identity());
    let serving = tokio::spawn(serve(server, transport));
    let (client_read, mut client_write) = tokio::io::split(client);
    let request = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "fsmcp --call", "version": crate::SERVER_VERSION}
            }
        }
    });
    let mut line = request.to_string();
    line.push('\n');
    client_write
        .write_all(line.as_bytes())
        .await
        .map_err(|_| "the server closed its input".to_owned())?;
    client_write
        .shutdown()
        .await
        .map_err(|_| "the server closed its input".to_owned())?;
    let mut lines = BufReader::new(client_read).lines();
    let outcome = loop {
        let Ok(Some(text)) = lines.next_line().await else {
            break Err("the server ended without answering".to_owned());
        };
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if message.get("id") != Some(&json!(1)) {
            continue;
        }
        if let Some(result) = message.get("result") {
            let is_error = result.get("isError") == Some(&Value::Bool(true));
            break Ok(CallOutcome::Result {
                result: result.clone(),
                is_error,
            });
        }
        let text = message
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("the request was refused");
        break Ok(CallOutcome::ProtocolError(text.to_owned()));
    };
    drop(lines);
    let _ = serving.await;
    outcome
}
