//! Signed cursors: `base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))`,
//! where the payload binds the tool and its arguments (scope), a digest of the state the page
//! depends on, and the resume position. A cursor fails rather than tears.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::PtcError;
use crate::digest::{Key, hex, sha256_hex};

/// Longest cursor text accepted.
const MAX_CURSOR_CHARS: usize = 4096;

/// Signs and verifies cursors with one [`Key`].
#[derive(Debug, Clone)]
pub struct CursorCodec {
    key: Key,
}

impl CursorCodec {
    /// A codec signing with `key`: the process's key (cursors valid within this process) or
    /// the operator's (deterministic mode, cursors valid across restarts).
    pub fn new(key: Key) -> CursorCodec {
        CursorCodec { key }
    }

    fn sign(&self, payload: &str) -> String {
        URL_SAFE_NO_PAD.encode(self.key.mac(&[payload.as_bytes()]))
    }

    /// Issues a cursor for `position` under `scope` and `state`.
    pub fn encode(&self, scope: &str, state: &str, position: &Value) -> String {
        let json = format!(r#"{{"v":1,"s":"{scope}","t":"{state}","p":{position}}}"#);
        let payload = URL_SAFE_NO_PAD.encode(json.as_bytes());
        let signature = self.sign(&payload);
        format!("{payload}.{signature}")
    }

    /// Verifies a cursor and returns its position: the signature first, then the scope,
    /// then the state. The position's shape is the caller's to check.
    pub fn decode(&self, cursor: &str, scope: &str, state: &str) -> Result<Value, PtcError> {
        if cursor.is_empty() || cursor.chars().count() > MAX_CURSOR_CHARS {
            return Err(PtcError::CursorInvalid);
        }
        let parts: Vec<&str> = cursor.split('.').collect();
        let [payload, signature] = parts[..] else {
            return Err(PtcError::CursorInvalid);
        };
        let base64url = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        if !base64url(payload) || !base64url(signature) {
            return Err(PtcError::CursorInvalid);
        }
        // Compare the encoded signature text, so a re-spelling of the last character fails.
        if !constant_time_eq(self.sign(payload).as_bytes(), signature.as_bytes()) {
            return Err(PtcError::CursorInvalid);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| PtcError::CursorInvalid)?;
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&bytes) else {
            return Err(PtcError::CursorInvalid);
        };
        let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
        keys.sort_unstable();
        if keys != ["p", "s", "t", "v"] || map["v"].as_f64() != Some(1.0) {
            return Err(PtcError::CursorInvalid);
        }
        if map["s"].as_str() != Some(scope) {
            return Err(PtcError::CursorScope);
        }
        if map["t"].as_str() != Some(state) {
            return Err(PtcError::CursorStale);
        }
        Ok(map["p"].clone())
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The scope digest: hex SHA-256 of `tool NUL compact-JSON(arguments)`.
pub fn scope_of(tool: &str, arguments: &Value) -> String {
    let mut bytes = tool.as_bytes().to_vec();
    bytes.push(0);
    bytes.extend_from_slice(arguments.to_string().as_bytes());
    sha256_hex(&bytes)
}

/// The state digest: hex SHA-256 of every part, each followed by NUL.
pub fn state_of<I, P>(parts: I) -> String
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_ref());
        hasher.update([0u8]);
    }
    hex(&hasher.finalize())
}

/// A non-negative integer position (array index or byte offset), or `None` for any other
/// shape.
pub fn integer_position(position: &Value) -> Option<u64> {
    match position {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec() -> CursorCodec {
        CursorCodec::new(Key::with_bytes(vec![7u8; 32]))
    }

    #[test]
    fn reproduces_the_reference_list_vector() {
        let scope = scope_of("list_directory", &json!({"path": ""}));
        let state = state_of(["file\0a.txt", "file\0b.txt"]);
        assert_eq!(
            codec().encode(&scope, &state, &json!(1)),
            "eyJ2IjoxLCJzIjoiOGIzNTM3NzE0MTJjZDcxNTNkOTQ4MjBmNDc4YTYzNjc0ZjY0NTA0OTNlNzRkNTI0MmUxZGQxYWI5NDY0YjM2NyIsInQiOiIyOTMyOWRhZmRiM2UxMWM5Yzg0YWIzZmM5NTE2NmNkNDUwN2VjMGZhNmZhZDhmMWIyN2RlYzcwM2VlYmMxZjBmIiwicCI6MX0.w3kCoMqPcD93V_obarB0qE3ZuZTXQhLP9yqrMTRWc88"
        );
    }

    #[test]
    fn rejects_tampering_in_order() {
        let c = codec();
        let cursor = c.encode("s", "t", &json!(3));
        assert_eq!(c.decode(&cursor, "s", "t"), Ok(json!(3)));
        assert_eq!(c.decode(&cursor, "x", "t"), Err(PtcError::CursorScope));
        assert_eq!(c.decode(&cursor, "s", "x"), Err(PtcError::CursorStale));
        let mut edited = cursor.clone();
        edited.pop();
        edited.push(if cursor.ends_with('A') { 'B' } else { 'A' });
        assert_eq!(c.decode(&edited, "s", "t"), Err(PtcError::CursorInvalid));
        for bad in ["", "a", "a.b.c", "a=.b", &"a".repeat(5000)] {
            assert_eq!(c.decode(bad, "s", "t"), Err(PtcError::CursorInvalid));
        }
        let other = CursorCodec::new(Key::with_bytes(vec![8u8; 32])).encode("s", "t", &json!(3));
        assert_eq!(c.decode(&other, "s", "t"), Err(PtcError::CursorInvalid));
    }
}
