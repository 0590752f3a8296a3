//! How many bytes text and values take once they travel as JSON, counted without
//! serializing: both tool sets fit their answers to `--max-result-bytes` by these counts.

use serde_json::Value;

/// Bytes of `text` once escaped inside a JSON string (without the quotes). Escaping only ever
/// touches ASCII bytes, so counting bytes is exact and needs no decoding.
pub fn escaped_len(text: &str) -> u64 {
    StringCounts::of(text).escaped()
}

/// What escaping a string as JSON does to it, counted in one pass.
#[derive(Debug, Clone, Copy, Default)]
struct StringCounts {
    bytes: u64,
    /// `"`: escaped as `\"`.
    quotes: u64,
    /// `\`: escaped as `\\`.
    backslashes: u64,
    /// `\b \f \n \r \t`: two-byte escapes.
    short: u64,
    /// Other control bytes: `\u00XX`.
    long: u64,
}

impl StringCounts {
    fn of(text: &str) -> StringCounts {
        // One table lookup and one add per byte: each class counts in its own 16-bit lane of
        // one u64, flushed before a lane can overflow.
        const LANE: [u64; 4] = [1, 1 << 16, 1 << 32, 1 << 48];
        const TABLE: [u64; 256] = {
            let mut table = [0u64; 256];
            let mut b = 0;
            while b < 0x20 {
                table[b] = LANE[3];
                b += 1;
            }
            table[0x08] = LANE[2];
            table[0x0c] = LANE[2];
            table[b'\n' as usize] = LANE[2];
            table[b'\r' as usize] = LANE[2];
            table[b'\t' as usize] = LANE[2];
            table[b'"' as usize] = LANE[0];
            table[b'\\' as usize] = LANE[1];
            table
        };
        let mut counts = StringCounts {
            bytes: text.len() as u64,
            ..StringCounts::default()
        };
        let flush = |counts: &mut StringCounts, lanes: u64| {
            counts.quotes += lanes & 0xffff;
            counts.backslashes += (lanes >> 16) & 0xffff;
            counts.short += (lanes >> 32) & 0xffff;
            counts.long += lanes >> 48;
        };
        // Most 8-byte words of text hold no byte that escaping touches: one test per word
        // skips them, and only the others are counted byte by byte.
        let (words, tail) = text.as_bytes().as_chunks::<8>();
        let mut lanes = 0u64;
        let mut counted = 0usize;
        for word in words {
            if !may_escape(u64::from_le_bytes(*word)) {
                continue;
            }
            lanes += word.iter().map(|&b| TABLE[b as usize]).sum::<u64>();
            counted += word.len();
            if counted > usize::from(u16::MAX) - 8 {
                flush(&mut counts, lanes);
                (lanes, counted) = (0, 0);
            }
        }
        lanes += tail.iter().map(|&b| TABLE[b as usize]).sum::<u64>();
        flush(&mut counts, lanes);
        counts
    }

    /// Length of the escaped text, without quotes.
    fn escaped(self) -> u64 {
        self.bytes + self.quotes + self.backslashes + self.short + 5 * self.long
    }

    /// Backslashes in the escaped text.
    fn escaped_backslashes(self) -> u64 {
        self.quotes + 2 * self.backslashes + self.short + self.long
    }
}

/// Whether any byte of `word` is a control byte, `"` or `\\`: exact for "any", though not for
/// which byte (a borrow may mark a byte above a hit).
fn may_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u64| w.wrapping_sub(ONES * n) & !w & HIGHS;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    (below(word, 0x20) | below(quote, 1) | below(backslash, 1)) != 0
}

/// The compact JSON serialization of `value`: its length, and the length of that
/// serialization once escaped inside a JSON string (without the quotes). Computed without
/// serializing.
pub fn value_sizes(value: &Value) -> (u64, u64) {
    match value {
        Value::Null => (4, 4),
        Value::Bool(true) => (4, 4),
        Value::Bool(false) => (5, 5),
        Value::Number(n) => {
            let len = n.to_string().len() as u64;
            (len, len)
        }
        Value::String(s) => string_sizes(s),
        Value::Array(items) => {
            let commas = items.len().saturating_sub(1) as u64;
            items
                .iter()
                .map(value_sizes)
                .fold((2 + commas, 2 + commas), |(r, e), (ir, ie)| {
                    (r + ir, e + ie)
                })
        }
        Value::Object(map) => {
            let separators = map.len() as u64 + map.len().saturating_sub(1) as u64;
            map.iter()
                .fold((2 + separators, 2 + separators), |(r, e), (key, item)| {
                    let (kr, ke) = string_sizes(key);
                    let (ir, ie) = value_sizes(item);
                    (r + kr + ir, e + ke + ie)
                })
        }
    }
}

/// [`value_sizes`] of a string: `"` + escaped + `"`, and that escaped again (every quote and
/// backslash of it doubles).
pub(crate) fn string_sizes(text: &str) -> (u64, u64) {
    let counts = StringCounts::of(text);
    let raw = 2 + counts.escaped();
    (raw, raw + 2 + counts.quotes + counts.escaped_backslashes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escaping_matches_serialization() {
        for s in ["plain", "q\"b\\", "\u{1}\n\t", "é🙂", "\u{7f}\u{2028}"] {
            let encoded = serde_json::to_string(s).unwrap();
            assert_eq!(escaped_len(s) + 2, encoded.len() as u64, "{s:?}");
        }
    }

    #[test]
    fn word_skipping_counts_what_serialization_escapes() {
        // Every byte class at every offset of a word, among runs long enough to flush lanes.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let alphabet = [
            "a", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", " ", "\u{7f}", "é", "🙂", "~",
        ];
        for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 100, 70_000, 140_001] {
            let mut text = String::new();
            while text.len() < len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let escaped = serde_json::to_string(&text).unwrap();
            assert_eq!(escaped_len(&text), escaped.len() as u64 - 2, "length {len}");
        }
    }

    #[test]
    fn value_sizes_match_serialization() {
        let samples = [
            json!(null),
            json!(true),
            json!([false, 0, -12, 1.5e300, "x"]),
            json!({"byte_offset": 123_456, "text": "line \"one\"\n\ttab \\ \u{1}\u{1f}é🙂\u{7f}"}),
            json!({"a": {"b": [], "c": {}}, "\"k\\": "\r\u{8}\u{c}"}),
            json!([]),
            json!({}),
            // More of one class than a 16-bit lane holds.
            json!("\"\\\n\u{1}".repeat(70_000)),
        ];
        for value in samples {
            let text = value.to_string();
            let escaped = serde_json::to_string(&text).unwrap();
            assert_eq!(
                value_sizes(&value),
                (text.len() as u64, escaped.len() as u64 - 2),
                "{text}"
            );
        }
    }
}
