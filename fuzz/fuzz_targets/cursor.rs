//! Cursor decoding. Arbitrary text never panics the decoder and is never accepted unless it is
//! exactly a cursor this codec issued; a genuine cursor edited in one byte, truncated or
//! extended is always refused.
//!
//! The input's first byte picks what to do: with 0..=3 the rest is decoded as it is (under the
//! scope and state of the contract's reference `list_directory` vector, so the committed test
//! vectors decode); otherwise byte 1 picks one of a few genuine cursors, bytes 2–3 a position
//! and byte 4 a replacement, and the cursor is edited there.

#![no_main]
// A harness, like the tests: it stands outside the root (and `fuzz_target!` itself opens a
// debug file by path), so the library's filesystem rule does not apply.
#![allow(clippy::disallowed_methods)]

use std::sync::OnceLock;

use fsmcp::{CursorCodec, Key, PtcError, scope_of, state_of};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

struct Fixture {
    codec: CursorCodec,
    scope: String,
    state: String,
    genuine: Vec<(String, Value)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // The contract's test key: 32 bytes of 0x07.
        let codec = CursorCodec::new(Key::with_bytes(vec![7u8; 32]));
        let scope = scope_of("list_directory", &json!({"path": ""}));
        let state = state_of(["file\0a.txt", "file\0b.txt"]);
        let genuine = [
            json!(0),
            json!(1),
            json!(2048),
            json!(9007199254740991u64),
            json!({"file": 3, "offset": 70, "lineStart": 64, "line": 5, "matched": true}),
        ]
        .into_iter()
        .map(|p| (codec.encode(&scope, &state, &p), p))
        .collect();
        Fixture {
            codec,
            scope,
            state,
            genuine,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let decode = |cursor: &str| f.codec.decode(cursor, &f.scope, &f.state);
    let Some((&op, rest)) = data.split_first() else {
        return;
    };
    if op < 4 {
        let text = String::from_utf8_lossy(rest);
        if let Ok(position) = decode(&text) {
            assert_eq!(
                f.codec.encode(&f.scope, &f.state, &position),
                text,
                "accepted a cursor this codec did not issue"
            );
        }
        // Under another scope or state a cursor is never accepted.
        assert!(f.codec.decode(&text, "other", &f.state).is_err());
        assert!(f.codec.decode(&text, &f.scope, "other").is_err());
        return;
    }
    let [pick, hi, lo, byte, tail @ ..] = rest else {
        return;
    };
    let (cursor, position) = &f.genuine[usize::from(*pick) % f.genuine.len()];
    assert_eq!(decode(cursor).as_ref(), Ok(position));
    assert_eq!(
        f.codec.decode(cursor, "other", &f.state),
        Err(PtcError::CursorScope)
    );
    let at = (usize::from(*hi) << 8 | usize::from(*lo)) % cursor.len();
    let mut edited = cursor.as_bytes().to_vec();
    match op % 4 {
        0 => {
            if edited[at] == *byte {
                return;
            }
            edited[at] = *byte;
        }
        1 => edited.truncate(at),
        2 => {
            let insert: &[u8] = if tail.is_empty() {
                std::slice::from_ref(byte)
            } else {
                tail
            };
            edited.splice(at..at, insert.iter().copied());
        }
        _ => {
            // Swap two different characters.
            let other = usize::from(*byte) % cursor.len();
            if edited[at] == edited[other] {
                return;
            }
            edited.swap(at, other);
        }
    }
    let edited = String::from_utf8_lossy(&edited);
    assert_eq!(
        decode(&edited),
        Err(PtcError::CursorInvalid),
        "an edited cursor was not refused as invalid: {edited:?}"
    );
});
