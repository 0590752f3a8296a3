//! Newline-delimited JSON-RPC over a byte stream (stdio, or an in-memory pipe for one-shot
//! calls): the framing. Each line read is judged by the wire policy ([`super::wire`]) before
//! `rmcp` sees it; this module only reads, writes and bounds lines, and at end of input answers
//! the requests already accepted before the stream closes.
//!
//! Memory is bounded per line and in total: a line is read with its cap enforced while reading
//! (past [`MAX_LINE_BYTES`] it is answered at once and the rest discarded up to its newline),
//! and the lines over [`FREE_LINE_BYTES`] in flight share [`IN_FLIGHT_LINE_BYTES`], held until
//! their answer is written.
//!
//! Only protocol messages are ever written to the output.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify, Semaphore, mpsc};

use super::server_info_meta;
use super::wire::{Verdict, WireState, error_reply, judge_line, stamp_result};
use crate::config::{ProtocolMode, ServerIdentity};

/// Longest line accepted, newline included; a longer one is answered as a parse error and
/// discarded.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Bytes of the lines over [`FREE_LINE_BYTES`] that may be in flight (read and not yet
/// answered) at once: one line of the largest size, or several smaller ones. A large line
/// waits for room before it is parsed; reading stops meanwhile.
pub const IN_FLIGHT_LINE_BYTES: usize = MAX_LINE_BYTES;
/// Lines up to this size are never held back, so a cancellation or a small call always gets
/// through while large calls fill [`IN_FLIGHT_LINE_BYTES`].
pub const FREE_LINE_BYTES: usize = 64 << 10;

type Reader = Pin<Box<dyn AsyncRead + Send>>;
type Writer = Pin<Box<dyn AsyncWrite + Send>>;

struct Shared {
    /// Messages the reader task accepted, in arrival order.
    accepted: Mutex<mpsc::Receiver<ClientJsonRpcMessage>>,
    writer: Mutex<Writer>,
    /// The wire policy's view of this connection: its era and the requests in flight.
    state: std::sync::Mutex<WireState>,
    drained: Notify,
    /// Room for the bytes of large lines in flight ([`IN_FLIGHT_LINE_BYTES`]).
    room: Arc<Semaphore>,
    eof: AtomicBool,
    mode: ProtocolMode,
    /// The server's `_meta` identity, stamped on every modern result.
    server_info: Value,
}

/// A JSON-RPC line transport for `rmcp`. Clones share one stream.
#[derive(Clone)]
pub struct LineTransport {
    shared: Arc<Shared>,
}

/// How reading one line ended.
enum Read {
    /// A line (its newline included, if any) is in the buffer.
    Line,
    /// The line passed [`MAX_LINE_BYTES`]; the rest of it, up to its newline, will be skipped.
    TooLong,
    /// The input ended.
    End,
}

/// Reads the next line into `line` (cleared first), enforcing [`MAX_LINE_BYTES`] as it reads:
/// an over-long line is reported as soon as it passes the cap, its bytes are released, and
/// `discarding` makes the following calls skip to its newline without keeping anything.
async fn read_line(
    reader: &mut BufReader<Reader>,
    line: &mut Vec<u8>,
    discarding: &mut bool,
) -> Read {
    line.clear();
    loop {
        let buffer = match reader.fill_buf().await {
            Ok(buffer) => buffer,
            Err(_) => return Read::End,
        };
        if buffer.is_empty() {
            // A last line without a newline is still a line.
            return if line.is_empty() || *discarding {
                Read::End
            } else {
                Read::Line
            };
        }
        let (taken, complete) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        if *discarding {
            reader.consume(taken);
            if complete {
                *discarding = false;
            }
            continue;
        }
        if line.len() + taken > MAX_LINE_BYTES {
            reader.consume(taken);
            *line = Vec::new();
            *discarding = !complete;
            return Read::TooLong;
        }
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        if complete {
            return Read::Line;
        }
    }
}

impl LineTransport {
    /// A transport reading requests from `reader` and writing responses to `writer`. Must be
    /// called inside a Tokio runtime: a task reads and judges lines from then on, so a line is
    /// never lost when `rmcp` abandons a pending `receive`. Modern results are stamped with
    /// `identity`'s name and version.
    pub fn new(
        reader: impl AsyncRead + Send + 'static,
        writer: impl AsyncWrite + Send + 'static,
        mode: ProtocolMode,
        identity: &ServerIdentity,
    ) -> LineTransport {
        let (sender, accepted) = mpsc::channel(64);
        let transport = LineTransport {
            shared: Arc::new(Shared {
                accepted: Mutex::new(accepted),
                writer: Mutex::new(Box::pin(writer)),
                state: std::sync::Mutex::new(WireState::new()),
                drained: Notify::new(),
                room: Arc::new(Semaphore::new(IN_FLIGHT_LINE_BYTES)),
                eof: AtomicBool::new(false),
                mode,
                server_info: server_info_meta(identity),
            }),
        };
        let reading = transport.clone();
        let reader: Reader = Box::pin(reader);
        tokio::spawn(async move { reading.read_lines(BufReader::new(reader), sender).await });
        transport
    }

    /// Reads, judges and answers or forwards every line; at end of input, waits until every
    /// accepted request is answered, then closes the channel.
    async fn read_lines(
        &self,
        mut reader: BufReader<Reader>,
        sender: mpsc::Sender<ClientJsonRpcMessage>,
    ) {
        let mut line = Vec::new();
        let mut discarding = false;
        loop {
            match read_line(&mut reader, &mut line, &mut discarding).await {
                Read::End => break,
                Read::TooLong => {
                    let reply = error_reply(&Value::Null, -32700, "Parse error", None);
                    LineTransport::write_line(&self.shared, &reply).await;
                    continue;
                }
                Read::Line => {}
            }
            let room = if line.len() > FREE_LINE_BYTES {
                // Never more than the whole room: a line is at most MAX_LINE_BYTES.
                let bytes = line.len().min(IN_FLIGHT_LINE_BYTES) as u32;
                match self.shared.room.clone().acquire_many_owned(bytes).await {
                    Ok(permit) => Some(permit),
                    Err(_) => break,
                }
            } else {
                None
            };
            let verdict = judge_line(&line, &self.shared.state, self.shared.mode);
            // A large line's buffer is given back rather than kept for the next line.
            if line.capacity() > FREE_LINE_BYTES {
                line = Vec::new();
            } else {
                line.clear();
            }
            match verdict {
                Verdict::Forward(message) => {
                    if let (Some(room), JsonRpcMessage::Request(request)) = (room, &*message)
                        && let Ok(id) = serde_json::to_value(&request.id)
                    {
                        self.shared
                            .state
                            .lock()
                            .expect("wire state")
                            .hold(&id, room);
                    }
                    if sender.send(*message).await.is_err() {
                        break;
                    }
                }
                Verdict::Reply(reply) => LineTransport::write_line(&self.shared, &reply).await,
                Verdict::Drop => {}
            }
        }
        self.wait_drained().await;
        self.shared.eof.store(true, Ordering::SeqCst);
    }

    /// Whether the input has ended.
    pub fn at_eof(&self) -> bool {
        self.shared.eof.load(Ordering::SeqCst)
    }

    /// Forgets the era, for a new `rmcp` loop after one ended without serving.
    pub fn reset_era(&self) {
        self.shared.state.lock().expect("wire state").reset_era();
    }

    async fn write_line(shared: &Shared, value: &Value) {
        LineTransport::write_bytes(shared, value.to_string().into_bytes()).await;
    }

    /// Writes one serialized message and its newline.
    async fn write_bytes(shared: &Shared, mut line: Vec<u8>) {
        line.push(b'\n');
        let mut writer = shared.writer.lock().await;
        // A closed output leaves nothing to tell; the input side ends the loop.
        let _ = writer.write_all(&line).await;
        let _ = writer.flush().await;
    }

    async fn wait_drained(&self) {
        loop {
            let notified = self.shared.drained.notified();
            if self.shared.state.lock().expect("wire state").idle() {
                return;
            }
            notified.await;
        }
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let shared = self.shared.clone();
        async move {
            let id = match &item {
                ServerJsonRpcMessage::Response(r) => {
                    Some(serde_json::to_value(&r.id).unwrap_or_default())
                }
                ServerJsonRpcMessage::Error(e) => {
                    e.id.as_ref()
                        .map(|id| serde_json::to_value(id).unwrap_or_default())
                }
                _ => None,
            };
            let modern = id
                .as_ref()
                .is_some_and(|id| shared.state.lock().expect("wire state").is_modern(id));
            // A tool result (a page can be megabytes) was stamped by the handler and is
            // serialized once; other messages are small and stamped here as JSON.
            let tool_result = matches!(
                &item,
                ServerJsonRpcMessage::Response(response)
                    if matches!(response.result, ServerResult::CallToolResult(_))
            );
            let line = if tool_result {
                serde_json::to_vec(&item).map_err(std::io::Error::other)?
            } else {
                let mut value = serde_json::to_value(&item).map_err(std::io::Error::other)?;
                if modern {
                    stamp_result(&mut value, &shared.server_info);
                }
                serde_json::to_vec(&value).map_err(std::io::Error::other)?
            };
            LineTransport::write_bytes(&shared, line).await;
            if let Some(id) = id {
                shared.state.lock().expect("wire state").answered(&id);
                shared.drained.notify_waiters();
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // Cancel-safe: a message stays in the channel until a receive completes.
        self.shared.accepted.lock().await.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
