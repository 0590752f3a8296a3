//! A pass over raw JSON text, shared by the transports and the config file, that builds nothing:
//! it counts the values a message holds (so a message of millions of tiny values is refused
//! before it is expanded into a tree many times its size) and finds a key an object repeats
//! (which `serde_json` would resolve silently, the last one winning, while a permission layer
//! in front may have judged the first).
//!
//! ```
//! use fsmcp::json::scan;
//!
//! let scan = scan(br#"{"id":1,"params":{"arguments":{"path":"a","path":"b"}}}"#, 100).unwrap();
//! let duplicate = scan.duplicate.unwrap();
//! assert_eq!((duplicate.key.as_str(), duplicate.location.as_str()), ("path", "params.arguments"));
//! assert_eq!(scan.id, Some(serde_json::json!(1)));
//! ```

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Most JSON values (objects, arrays, strings, numbers, literals and keys) one protocol message
/// may hold. No tool's arguments come near it; a tree of this many values costs a few tens of
/// megabytes however short the text that spells it.
pub const MAX_MESSAGE_VALUES: usize = 100_000;

/// What [`scan`] found in one JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// The first key an object repeats, if any.
    pub duplicate: Option<Duplicate>,
    /// The text holds more values than allowed; the scan stopped there.
    pub too_many_values: bool,
    /// The top-level `id`, when the text is an object that has one before any stop (and it is
    /// a scalar).
    pub id: Option<Value>,
    /// Whether the top-level object has an `id` key before any stop, whatever its value: a
    /// request with an id that is not valid is still a request, never a notification.
    pub has_id: bool,
    /// Whether the top-level object repeats its `id` key: an answer can then name no id.
    pub id_repeated: bool,
    /// The top-level `method`, when the text is an object with a string one before any stop.
    pub method: Option<String>,
}

/// A key repeated within one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The repeated key.
    pub key: String,
    /// Where the object is: its keys from the top, dot-separated, array positions as `[n]`;
    /// empty for the top-level object.
    pub location: String,
}

/// Scans `bytes` as one JSON value holding at most `max_values` values. A syntax error (or a
/// nesting deeper than `serde_json`'s limit) is the error; a repeated key or too many values
/// is reported in the [`Scan`]. Memory stays proportional to the keys of the open objects.
pub fn scan(bytes: &[u8], max_values: usize) -> Result<Scan, serde_json::Error> {
    run(bytes, max_values, false)
}

/// Checks that `bytes` is one JSON value in which no object repeats a key. The error is
/// `serde_json`'s, with its line and column: a syntax error, or a data error reading
/// `duplicate key '<key>'` at the repetition.
pub fn check_unique_keys(bytes: &[u8]) -> Result<(), serde_json::Error> {
    run(bytes, usize::MAX, true).map(|_| ())
}

fn run(bytes: &[u8], max_values: usize, strict: bool) -> Result<Scan, serde_json::Error> {
    let mut state = State {
        scan: Scan::default(),
        values: 0,
        max_values,
        strict,
        pending: None,
        reversed: Vec::new(),
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let outcome = Node {
        state: &mut state,
        depth: 0,
        role: Role::Other,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    match outcome {
        Ok(()) => {}
        Err(_) if state.scan.too_many_values => {}
        Err(error) => return Err(error),
    }
    if let Some(duplicate) = &mut state.scan.duplicate {
        duplicate.location = state
            .reversed
            .iter()
            .rev()
            .fold(String::new(), |mut out, seg| {
                if !out.is_empty() && !seg.starts_with('[') {
                    out.push('.');
                }
                out.push_str(seg);
                out
            });
    }
    Ok(state.scan)
}

/// The message [`scan`] stops with when a text holds too many values.
const TOO_MANY: &str = "too many JSON values";

struct State {
    scan: Scan,
    values: usize,
    max_values: usize,
    /// Stop at the first repeated key, with an error where it is.
    strict: bool,
    /// Depth of the object holding the first duplicate while its location is being collected
    /// on the way out: each enclosing container adds its segment once.
    pending: Option<usize>,
    /// The duplicate's location, innermost segment first.
    reversed: Vec<String>,
}

impl State {
    /// After a child at `depth + 1` ends: a container at `depth` adds `segment` to the
    /// location of a duplicate found inside that child.
    fn child_done(&mut self, depth: usize, segment: impl FnOnce() -> String) {
        if self.pending == Some(depth + 1) {
            self.reversed.push(segment());
            self.pending = Some(depth);
        }
    }
}

/// What a value is to the top-level object: its `id`, its `method`, or anything else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Id,
    Method,
    Other,
}

struct Node<'s> {
    state: &'s mut State,
    depth: usize,
    role: Role,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.state.values += 1;
        if self.state.values > self.state.max_values {
            self.state.scan.too_many_values = true;
            return Err(de::Error::custom(TOO_MANY));
        }
        deserializer.deserialize_any(self)
    }
}

impl Node<'_> {
    fn scalar(self, value: impl FnOnce() -> Value) {
        match self.role {
            Role::Id => self.state.scan.id = Some(value()),
            Role::Method => {
                if let Value::String(method) = value() {
                    self.state.scan.method = Some(method);
                }
            }
            Role::Other => {}
        }
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        self.scalar(|| Value::Bool(value));
        Ok(())
    }

    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        self.scalar(|| Value::from(value));
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        self.scalar(|| Value::from(value));
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        self.scalar(|| Value::from(value));
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        // Only an id or a method is kept, and only when it is short: the id is echoed in a reply.
        if self.role != Role::Other && value.len() <= 1024 {
            self.scalar(|| Value::String(value.to_owned()));
        }
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar(|| Value::Null);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.depth;
        let mut index = 0usize;
        loop {
            let child = Node {
                state: &mut *self.state,
                depth: depth + 1,
                role: Role::Other,
            };
            if seq.next_element_seed(child)?.is_none() {
                return Ok(());
            }
            self.state.child_done(depth, || format!("[{index}]"));
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let depth = self.depth;
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            // A key counts as a value: an object of a million empty keys is as large as any.
            self.state.values += 1;
            if self.state.values > self.state.max_values {
                self.state.scan.too_many_values = true;
                return Err(de::Error::custom(TOO_MANY));
            }
            let role = match (depth, key.as_str()) {
                (0, "id") => {
                    self.state.scan.id_repeated |= self.state.scan.has_id;
                    self.state.scan.has_id = true;
                    Role::Id
                }
                (0, "method") => Role::Method,
                _ => Role::Other,
            };
            let repeated = keys.contains(&key);
            if repeated && self.state.strict {
                return Err(de::Error::custom(format!(
                    "duplicate key '{}'",
                    key.escape_debug()
                )));
            }
            if repeated && self.state.scan.duplicate.is_none() {
                self.state.scan.duplicate = Some(Duplicate {
                    key: key.clone(),
                    location: String::new(),
                });
                self.state.pending = Some(depth);
            }
            let child = Node {
                state: &mut *self.state,
                depth: depth + 1,
                role,
            };
            map.next_value_seed(child)?;
            self.state.child_done(depth, || key.clone());
            if !repeated {
                keys.insert(key);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(text: &str) -> Option<(String, String)> {
        scan(text.as_bytes(), 1000)
            .unwrap()
            .duplicate
            .map(|d| (d.key, d.location))
    }

    #[test]
    fn finds_the_first_repeated_key_and_where_it_is() {
        assert_eq!(duplicate(r#"{"a":1,"b":{"c":[1,{"d":2}]}}"#), None);
        assert_eq!(
            duplicate(r#"{"a":1,"a":2}"#),
            Some(("a".into(), String::new()))
        );
        assert_eq!(
            duplicate(r#"{"p":{"args":{"x":[{"k":1,"k":2}],"y":1}},"z":{"q":1,"q":2}}"#),
            Some(("k".into(), "p.args.x[0]".into()))
        );
        // The same key in sibling objects is no repetition.
        assert_eq!(duplicate(r#"[{"a":1},{"a":2}]"#), None);
        // Escapes are compared decoded.
        assert_eq!(
            duplicate(r#"{"path":1,"p\u0061th":2}"#),
            Some(("path".into(), String::new()))
        );
    }

    #[test]
    fn captures_id_and_method_after_a_duplicate() {
        let found = scan(
            br#"{"method":"tools/call","params":{"a":1,"a":2},"id":"x"}"#,
            100,
        )
        .unwrap();
        assert_eq!(found.id, Some(Value::from("x")));
        assert_eq!(found.method.as_deref(), Some("tools/call"));
        assert!(found.duplicate.is_some() && !found.too_many_values);
    }

    #[test]
    fn strict_checking_names_the_key_and_its_position() {
        assert!(check_unique_keys(br#"{"a":[{"b":1}],"c":{"b":2}}"#).is_ok());
        let error = check_unique_keys(b"{\"a\": 1,\n \"a\": 2}").unwrap_err();
        assert!(error.is_data());
        assert_eq!(error.to_string(), "duplicate key 'a' at line 2 column 4");
        assert!(check_unique_keys(b"{\"a\": ").unwrap_err().is_eof());
    }

    #[test]
    fn stops_at_too_many_values() {
        let text = format!("[{}0]", "0,".repeat(2000));
        let found = scan(text.as_bytes(), 1000).unwrap();
        assert!(found.too_many_values);
        assert!(!scan(text.as_bytes(), 5000).unwrap().too_many_values);
        assert!(scan(b"{\"a\":", 1000).is_err());
        assert!(scan(b"{} x", 1000).is_err());
    }
}
