//! fsmcp's wire policy: what one inbound JSON-RPC line means, and the answer fsmcp gives before
//! `rmcp` dispatches anything. It decides without I/O, so the stdio framing ([`super::stdio`])
//! applies it line by line, the HTTP transport reuses its refusals, and it is fuzzed alone.
//!
//! * a line that is not JSON gets `-32700`, a batch or a malformed envelope `-32600`;
//! * the protocol era is chosen by the opening: `initialize` selects 2025-11-25, a request
//!   carrying the 2026-07-28 `_meta` envelope selects the stateless protocol (`server/discover`
//!   answers without choosing);
//! * every modern request's `_meta` is checked, so a version other than 2026-07-28 is refused
//!   with `-32022` on every request, not only the first;
//! * every modern result carries the server's identity in `_meta` (a tool result is stamped by
//!   the handler, so that it is serialized once; other results by the transport, with
//!   `stamp_result`).
//!
//! Before a line is parsed, a pass that builds nothing refuses a repeated key and a message of
//! more than [`MAX_MESSAGE_VALUES`] values; the parsed message is handed on without a copy (a
//! call's arguments skip `rmcp`'s deserializer).

use std::collections::HashMap;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, JsonRpcMessage, ServerJsonRpcMessage,
};
use serde_json::{Value, json};
use tokio::sync::OwnedSemaphorePermit;

use super::handler::stamp;
use crate::config::ProtocolMode;
use crate::json::{MAX_MESSAGE_VALUES, Scan, scan};

/// The one modern protocol revision fsmcp serves statelessly.
pub const MODERN_VERSION: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The answer to every method fsmcp does not serve, on every transport (ptc-fs-mcp's words).
pub(crate) const METHOD_NOT_FOUND: &str = "Method not found";
const MISSING_ENVELOPE: &str = "Request is missing the required _meta envelope for protocol revision 2026-07-28 (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)";

/// Which protocol era the connection has settled on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Undecided,
    Legacy,
    Modern,
}

/// The wire state the judgements of one connection share.
#[doc(hidden)]
pub struct WireState {
    era: Era,
    /// Accepted requests awaiting their response, by id text.
    in_flight: HashMap<String, Flight>,
}

/// One accepted request awaiting its response.
struct Flight {
    /// The era it was sent in.
    era: Era,
    /// The framing's hold on its line's bytes (see [`super::stdio`]), given back when it is
    /// answered or cancelled.
    _room: Option<OwnedSemaphorePermit>,
}

impl WireState {
    /// A connection that has not chosen an era and has no request in flight.
    #[doc(hidden)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> WireState {
        WireState {
            era: Era::Undecided,
            in_flight: HashMap::new(),
        }
    }

    /// Forgets the era, for a new `rmcp` loop after one ended without serving.
    pub(super) fn reset_era(&mut self) {
        self.era = Era::Undecided;
    }

    /// Keeps `room` until the request `id` is answered; released at once if it is not in flight.
    pub(super) fn hold(&mut self, id: &Value, room: OwnedSemaphorePermit) {
        if let Some(flight) = self.in_flight.get_mut(&id_key(id)) {
            flight._room = Some(room);
        }
    }

    /// Whether the request `id` is in flight in the modern era, so its answer is stamped.
    pub(super) fn is_modern(&self, id: &Value) -> bool {
        self.in_flight
            .get(&id_key(id))
            .is_some_and(|flight| flight.era == Era::Modern)
    }

    /// Forgets the request `id`, now answered.
    pub(super) fn answered(&mut self, id: &Value) {
        self.in_flight.remove(&id_key(id));
    }

    /// Whether no accepted request awaits its answer.
    pub(super) fn idle(&self) -> bool {
        self.in_flight.is_empty()
    }
}

/// What the wire policy decided about one inbound line.
#[doc(hidden)]
#[derive(Debug)]
pub enum Verdict {
    Forward(Box<ClientJsonRpcMessage>),
    Reply(Value),
    Drop,
}

/// A JSON-RPC error response; the framing also answers an over-long line with it.
pub(super) fn error_reply(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Whether `id` is a JSON-RPC id fsmcp answers to: a string or an integer.
fn is_valid_id(id: Option<&Value>) -> bool {
    matches!(id, Some(Value::String(_))) || id.and_then(Value::as_i64).is_some()
}

/// The answer to a message the scan refuses: a repeated key (a permission layer in front may
/// have judged the other occurrence) or too many values. `None` lets the message through.
fn scan_refusal(scanned: &Scan) -> Option<Verdict> {
    if !scanned.too_many_values
        && scanned.duplicate.is_some()
        && scanned.method.is_some()
        && !scanned.has_id
    {
        // A notification gets no answer.
        return Some(Verdict::Drop);
    }
    let (code, text, id) = refusal(scanned)?;
    Some(Verdict::Reply(error_reply(&id, code, &text, None)))
}

/// The JSON-RPC error (code, message, id to answer) for a message the scan refuses, `None`
/// when it passes. Shared with the HTTP transport.
pub(crate) fn refusal(scanned: &Scan) -> Option<(i64, String, Value)> {
    // An id that is itself repeated is ambiguous: the answer names none.
    let id = scanned
        .id
        .as_ref()
        .filter(|id| !scanned.id_repeated && is_valid_id(Some(id)))
        .cloned()
        .unwrap_or(Value::Null);
    if scanned.too_many_values {
        let text =
            format!("Invalid Request: a message may hold at most {MAX_MESSAGE_VALUES} JSON values");
        return Some((-32600, text, id));
    }
    let duplicate = scanned.duplicate.as_ref()?;
    let (code, text) = duplicate_reply(
        &duplicate.key,
        &duplicate.location,
        scanned.method.as_deref(),
    );
    Some((code, text, id))
}

/// The JSON-RPC error for a key repeated in one object of a request: `-32602` naming the
/// request when it is in `params`, `-32600` elsewhere. Shared with the HTTP transport.
fn duplicate_reply(key: &str, location: &str, method: Option<&str>) -> (i64, String) {
    let mut shown: String = key.chars().take(64).collect::<String>();
    if shown.len() < key.len() {
        shown.push('…');
    }
    let shown = shown.escape_debug();
    match method {
        Some(method) if location == "params" || location.starts_with("params.") => (
            -32602,
            format!(
                "Invalid {method} request: duplicate key '{shown}' in {location}; send each key once"
            ),
        ),
        _ if location.is_empty() => (
            -32600,
            format!("Invalid Request: duplicate key '{shown}'; send each key once"),
        ),
        _ => (
            -32600,
            format!("Invalid Request: duplicate key '{shown}' in {location}; send each key once"),
        ),
    }
}

/// Judges one inbound line under the wire policy, as the transport's reader does: no I/O, only
/// the connection's era and requests in flight in `state` change. A blank line is dropped.
/// Public for fuzzing and property tests.
#[doc(hidden)]
pub fn judge_line(line: &[u8], state: &std::sync::Mutex<WireState>, mode: ProtocolMode) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    // One pass that builds nothing comes first: what it refuses is never expanded.
    let Ok(scanned) = scan(line, MAX_MESSAGE_VALUES) else {
        return Verdict::Reply(error_reply(&Value::Null, -32700, "Parse error", None));
    };
    if let Some(verdict) = scan_refusal(&scanned) {
        return verdict;
    }
    let Ok(message) = serde_json::from_slice::<Value>(line) else {
        return Verdict::Reply(error_reply(&Value::Null, -32700, "Parse error", None));
    };
    let Value::Object(object) = &message else {
        let text = if message.is_array() {
            "Invalid Request: batches are not supported"
        } else {
            "Invalid Request"
        };
        return Verdict::Reply(error_reply(&Value::Null, -32600, text, None));
    };
    let id = object.get("id").cloned();
    let valid_id = is_valid_id(id.as_ref());
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        if object.contains_key("result") || object.contains_key("error") {
            // A response to a request fsmcp never sends.
            return Verdict::Drop;
        }
        let id = if valid_id {
            id.unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        return Verdict::Reply(error_reply(&id, -32600, "Invalid Request", None));
    };
    let method = method.to_owned();
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return match id {
            None => Verdict::Drop,
            Some(id) => Verdict::Reply(error_reply(
                if valid_id { &id } else { &Value::Null },
                -32600,
                "Invalid Request: jsonrpc must be \"2.0\"",
                None,
            )),
        };
    }
    match id {
        None => judge_notification(state, &method, message),
        Some(id) if !valid_id => Verdict::Reply(error_reply(
            &Value::Null,
            -32600,
            &format!("Invalid Request: the id {id} is not a string or an integer"),
            None,
        )),
        Some(id) => judge_request(state, mode, &method, &id, message),
    }
}

fn judge_notification(
    state: &std::sync::Mutex<WireState>,
    method: &str,
    message: Value,
) -> Verdict {
    let mut state = state.lock().expect("wire state");
    // Until a loop has chosen an era, rmcp would end on a notification; nothing is lost by
    // dropping one, since no request can be cancelled yet.
    if state.era == Era::Undecided {
        return Verdict::Drop;
    }
    match method {
        "notifications/cancelled" => {
            if let Some(id) = message.pointer("/params/requestId") {
                // Only the reader task waits for the drain, after its last line, and it
                // checks `in_flight` itself: no wake-up is owed here.
                state.in_flight.remove(&id_key(id));
            }
        }
        "notifications/initialized" if state.era == Era::Legacy => {}
        _ => return Verdict::Drop,
    }
    drop(state);
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(parsed) => Verdict::Forward(Box::new(parsed)),
        Err(_) => Verdict::Drop,
    }
}

fn judge_request(
    state: &std::sync::Mutex<WireState>,
    mode: ProtocolMode,
    method: &str,
    id: &Value,
    mut message: Value,
) -> Verdict {
    let meta = message.pointer("/params/_meta");
    let claim = meta.and_then(|m| m.get(VERSION_KEY));
    let mut state = state.lock().expect("wire state");
    let unsupported = |requested: Option<&Value>| {
        let mut data = json!({"supported": [MODERN_VERSION]});
        let message = match requested {
            Some(Value::String(v)) => {
                data["requested"] = json!(v);
                format!("Unsupported protocol version: {v}")
            }
            Some(other) => {
                data["requested"] = json!(other.to_string());
                format!("Unsupported protocol version: {other}")
            }
            None => "Unsupported protocol version: the request did not name a protocol version"
                .to_owned(),
        };
        Verdict::Reply(error_reply(id, -32022, &message, Some(data)))
    };
    let era_of_request;
    if method == "initialize" {
        if mode == ProtocolMode::Modern || state.era == Era::Modern {
            let enveloped = claim.and_then(Value::as_str) == Some(MODERN_VERSION)
                && envelope_problem(meta.expect("a claim lives in _meta"), false).is_none();
            // A modern request for a method the modern protocol removed.
            if enveloped {
                return Verdict::Reply(error_reply(id, -32601, METHOD_NOT_FOUND, None));
            }
            let requested = message.pointer("/params/protocolVersion");
            return unsupported(requested);
        }
        era_of_request = Era::Legacy;
    } else if let Some(claim) = claim {
        if state.era == Era::Legacy {
            return Verdict::Reply(error_reply(
                id,
                -32600,
                "Invalid Request: this connection opened with initialize, so requests carry no per-request _meta protocol version",
                None,
            ));
        }
        if claim.as_str() != Some(MODERN_VERSION) {
            return unsupported(Some(claim));
        }
        let opening = state.era == Era::Undecided;
        if let Some(problem) = envelope_problem(meta.expect("a claim lives in _meta"), opening) {
            return Verdict::Reply(error_reply(
                id,
                -32602,
                &format!("Invalid _meta envelope for protocol revision 2026-07-28: {problem}"),
                None,
            ));
        }
        if method == "ping" {
            return Verdict::Reply(error_reply(id, -32601, METHOD_NOT_FOUND, None));
        }
        era_of_request = Era::Modern;
    } else {
        match state.era {
            Era::Legacy => era_of_request = Era::Legacy,
            Era::Modern => {
                return Verdict::Reply(error_reply(id, -32602, MISSING_ENVELOPE, None));
            }
            Era::Undecided if mode == ProtocolMode::Modern => return unsupported(None),
            // rmcp answers a ping before the handshake.
            Era::Undecided if method == "ping" => era_of_request = Era::Undecided,
            Era::Undecided => {
                return Verdict::Reply(error_reply(id, -32602, MISSING_ENVELOPE, None));
            }
        }
    }
    // Only the methods fsmcp serves reach rmcp; everything else is one uniform answer.
    if !matches!(
        method,
        "initialize" | "server/discover" | "tools/list" | "tools/call" | "ping"
    ) {
        return Verdict::Reply(error_reply(id, -32601, METHOD_NOT_FOUND, None));
    }
    if let Some(problem) = params_problem(method, &message) {
        return Verdict::Reply(error_reply(
            id,
            -32602,
            &format!("Invalid {method} request: {problem}"),
            None,
        ));
    }
    // A call's arguments (the one part that may be large) skip rmcp's deserializer, which
    // would copy them through its buffered form, and are put back as they were parsed.
    let arguments = match message.pointer_mut("/params/arguments") {
        Some(arguments) if method == "tools/call" => Some(arguments.take()),
        _ => None,
    };
    let parsed = match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(mut parsed) => {
            if let (Some(Value::Object(arguments)), JsonRpcMessage::Request(request)) =
                (arguments, &mut parsed)
                && let ClientRequest::CallToolRequest(call) = &mut request.request
            {
                call.params.arguments = Some(arguments);
            }
            parsed
        }
        Err(_) => {
            return Verdict::Reply(error_reply(
                id,
                -32602,
                &format!("Invalid params for {method}"),
                None,
            ));
        }
    };
    if state.era == Era::Undecided && method != "server/discover" && method != "ping" {
        state.era = era_of_request;
    }
    state.in_flight.insert(
        id_key(id),
        Flight {
            era: era_of_request,
            _room: None,
        },
    );
    Verdict::Forward(Box::new(parsed))
}

/// Words a `-32601` answer as the stdio wire policy words it (`rmcp`, which answers the
/// methods it does not serve on HTTP, names the method instead); whether it was one.
pub(crate) fn word_method_not_found(message: &mut ServerJsonRpcMessage) -> bool {
    match message {
        ServerJsonRpcMessage::Error(error) if error.error.code == ErrorCode::METHOD_NOT_FOUND => {
            error.error.message = METHOD_NOT_FOUND.into();
            true
        }
        _ => false,
    }
}

/// Stamps `info` (see [`server_info_meta`]) on a serialized message's `result`, if it has one:
/// the outbound step of both transports for results other than tool results.
pub(crate) fn stamp_result(message: &mut Value, info: &Value) {
    if let Some(Value::Object(result)) = message.get_mut("result")
        && let Value::Object(meta) = result.entry("_meta").or_insert_with(|| json!({}))
    {
        stamp(meta, info);
    }
}

/// The first problem with a modern `_meta` envelope, if any, worded as ptc-fs-mcp words it:
/// naming the key while the connection is still opening, the bare problem afterwards.
fn envelope_problem(meta: &Value, opening: bool) -> Option<String> {
    let received = |value: Option<&Value>| match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Array(_)) => "array",
        Some(Value::String(_)) => "string",
        Some(Value::Number(_)) => "number",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Object(_)) => "object",
    };
    let (key, problem) = match (meta.get(CAPABILITIES_KEY), meta.get(CLIENT_INFO_KEY)) {
        (Some(Value::Object(_)), None) => return None,
        (Some(Value::Object(_)), Some(Value::Object(info)))
            if info.get("name").is_some_and(Value::is_string)
                && info.get("version").is_some_and(Value::is_string) =>
        {
            return None;
        }
        (Some(Value::Object(_)), Some(info)) => (
            CLIENT_INFO_KEY,
            format!(
                "Invalid input: expected an object with string name and version, received {}",
                received(Some(info))
            ),
        ),
        (other, _) => (
            CAPABILITIES_KEY,
            format!(
                "Invalid input: expected object, received {}",
                received(other)
            ),
        ),
    };
    Some(if opening {
        format!("{key}: {problem}")
    } else {
        problem
    })
}

/// The first problem with the parameters of a method fsmcp serves, beyond the envelope.
fn params_problem(method: &str, message: &Value) -> Option<&'static str> {
    let params = message.get("params");
    match method {
        "tools/call" => {
            let Some(Value::Object(params)) = params else {
                return Some("params must be an object");
            };
            if !params.get("name").is_some_and(Value::is_string) {
                return Some("name must be a string");
            }
            match params.get("arguments") {
                None | Some(Value::Object(_)) => None,
                Some(_) => Some("arguments must be an object"),
            }
        }
        "initialize" => {
            let Some(Value::Object(params)) = params else {
                return Some("params must be an object");
            };
            if !params.get("protocolVersion").is_some_and(Value::is_string) {
                Some("protocolVersion must be a string")
            } else if !params.get("capabilities").is_some_and(Value::is_object) {
                Some("capabilities must be an object")
            } else if !params.get("clientInfo").is_some_and(Value::is_object) {
                Some("clientInfo must be an object")
            } else {
                None
            }
        }
        _ => match params {
            None | Some(Value::Object(_)) => None,
            Some(_) => Some("params must be an object"),
        },
    }
}
