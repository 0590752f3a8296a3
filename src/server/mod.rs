//! The MCP server: [`FsmcpServer`] handles requests on `rmcp`; [`wire`] is fsmcp's wire policy
//! (parse errors, batches, protocol eras, version checks), applied before `rmcp` sees a
//! message; [`stdio`] frames messages as lines on a byte stream; [`http`] serves them on one
//! Streamable HTTP endpoint; [`oneshot`] runs a single call through the stdio path.

mod connections;
mod handler;
pub mod http;
pub mod oneshot;
pub mod sessions;
pub mod stdio;
pub mod wire;

pub use handler::{FsmcpServer, INSTRUCTIONS, server_info_meta};

use crate::config::ProtocolMode;
use stdio::LineTransport;

/// Serves MCP on `transport` until its input ends. An opening that `rmcp` cannot continue
/// (a failed handshake) starts a fresh loop on the same stream rather than ending the process.
pub async fn serve(server: FsmcpServer, transport: LineTransport) {
    loop {
        match rmcp::serve_server(server.clone(), transport.clone()).await {
            Ok(running) => {
                let _ = running.waiting().await;
                return;
            }
            Err(_) if transport.at_eof() => return,
            Err(_) => transport.reset_era(),
        }
    }
}

/// Serves MCP over this process's stdin and stdout.
pub async fn serve_stdio(server: FsmcpServer, mode: ProtocolMode) {
    let transport = LineTransport::new(
        tokio::io::stdin(),
        tokio::io::stdout(),
        mode,
        server.identity(),
    );
    serve(server, transport).await;
}
