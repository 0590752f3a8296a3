//! The JSON-RPC line classifier (`server::wire::judge_line`, the wire policy the stdio
//! transport applies before `rmcp` sees a line) on arbitrary bytes.
//!
//! The input is split into lines that one connection judges in order, so the protocol era an
//! opening chooses carries over to the lines after it; a first line `#modern` serves the
//! 2026-07-28 protocol only.
//!
//! Oracles: nothing panics, and every verdict is one of
//! * a reply: a well-formed JSON-RPC error response (`jsonrpc` "2.0", an id that is null, a
//!   string or an integer, and if not null the request's own; an integer code of the policy's
//!   set with a non-empty message), `-32700` with a null id exactly when the line is not JSON;
//! * a forward: a message that serializes back to a JSON-RPC object with the line's method and
//!   id, for a method fsmcp serves (or a notification it honours);
//! * a drop: a blank line, a notification or a response.

#![no_main]
// A harness, like the tests: it stands outside the root (and `fuzz_target!` itself opens a
// debug file by path), so the library's filesystem rule does not apply.
#![allow(clippy::disallowed_methods)]

use std::sync::Mutex;

use fsmcp::config::ProtocolMode;
use fsmcp::server::wire::{Verdict, WireState, judge_line};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const CODES: [i64; 5] = [-32700, -32600, -32601, -32602, -32022];
const FORWARDED: [&str; 7] = [
    "initialize",
    "server/discover",
    "tools/list",
    "tools/call",
    "ping",
    "notifications/cancelled",
    "notifications/initialized",
];

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some()
}

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&b| b == b'\n').peekable();
    let mode = if lines.peek() == Some(&&b"#modern"[..]) {
        lines.next();
        ProtocolMode::Modern
    } else {
        ProtocolMode::All
    };
    let state = Mutex::new(WireState::new());
    for line in lines {
        let parsed = serde_json::from_slice::<Value>(line).ok();
        let blank = line.iter().all(u8::is_ascii_whitespace);
        let line_id = parsed.as_ref().and_then(|m| m.get("id"));
        match judge_line(line, &state, mode) {
            Verdict::Reply(reply) => {
                assert!(!blank, "a blank line was answered");
                let Value::Object(object) = &reply else {
                    panic!("a reply that is not an object: {reply}");
                };
                let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
                keys.sort_unstable();
                assert_eq!(keys, ["error", "id", "jsonrpc"], "{reply}");
                assert_eq!(reply["jsonrpc"], "2.0");
                let id = &reply["id"];
                assert!(id.is_null() || valid_id(id), "bad reply id: {reply}");
                if !id.is_null() {
                    assert_eq!(Some(id), line_id, "the reply answers another id: {reply}");
                }
                let code = reply["error"]["code"].as_i64().expect("an integer code");
                assert!(CODES.contains(&code), "unexpected code: {reply}");
                let message = reply["error"]["message"].as_str().expect("a message");
                assert!(!message.is_empty());
                assert_eq!(code == -32700, parsed.is_none(), "{reply}");
                if parsed.is_none() {
                    assert!(id.is_null());
                }
                let text = reply.to_string();
                assert!(!text.contains('\n'), "a reply must fit one line");
                assert_eq!(
                    serde_json::from_str::<Value>(&text).ok().as_ref(),
                    Some(&reply)
                );
            }
            Verdict::Forward(message) => {
                let value =
                    serde_json::to_value(&*message).expect("a forwarded message serializes");
                let line = parsed.as_ref().expect("only JSON is forwarded");
                assert_eq!(value["jsonrpc"], "2.0", "{value}");
                let method = line["method"]
                    .as_str()
                    .expect("a forwarded line has a method");
                assert!(FORWARDED.contains(&method), "forwarded {method}");
                assert_eq!(value["method"].as_str(), Some(method), "{value}");
                match line_id {
                    Some(id) => {
                        assert!(valid_id(id), "forwarded a request with the id {id}");
                        assert_eq!(value.get("id"), Some(id), "{value}");
                    }
                    None => assert!(method.starts_with("notifications/")),
                }
            }
            Verdict::Drop => {
                if !blank {
                    let object = parsed
                        .as_ref()
                        .and_then(Value::as_object)
                        .expect("only a JSON object is dropped");
                    assert!(
                        !object.contains_key("id")
                            || !object.get("method").is_some_and(Value::is_string),
                        "a request was dropped unanswered"
                    );
                }
            }
        }
    }
});
