//! Pages and result fitting: a page keeps the longest prefix of its candidates whose complete
//! decoded MCP result fits `--max-result-bytes`, and its cursor resumes right after the last
//! item kept, so nothing is lost.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::PtcError;
use crate::digest::hex;
use crate::measure::{escaped_len, value_sizes};

/// The placeholder hash a page is measured with before its real hash is known (same length).
const PLACEHOLDER_HASH: &str =
    "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// One item a page may return. `R` is the tool's position type: it becomes cursor text only
/// for the one item a page ends on.
#[derive(Debug, Clone)]
pub struct Candidate<R = Value> {
    /// The item as it appears in `items`.
    pub item: Value,
    /// The bytes this item contributes to `content_hash`.
    pub hash_bytes: Vec<u8>,
    /// Where the traversal resumes if this is the last item kept.
    pub resume: R,
}

/// A finished page: `items`, `next_cursor` (absent when the traversal is complete) and
/// `content_hash`, in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The items returned.
    pub items: Vec<Value>,
    /// Cursor for the next page, `None` at the end.
    pub next_cursor: Option<String>,
    /// `sha256:` + hex SHA-256 of the items' hash bytes.
    pub content_hash: String,
}

impl Page {
    /// `{"items":…,"next_cursor":…,"content_hash":…}`.
    pub fn into_value(self) -> Value {
        let mut map = Map::new();
        map.insert("items".into(), Value::Array(self.items));
        map.insert(
            "next_cursor".into(),
            self.next_cursor.map_or(Value::Null, Value::String),
        );
        map.insert("content_hash".into(), Value::String(self.content_hash));
        Value::Object(map)
    }
}

/// Measures candidate pages against the result ceiling.
#[derive(Debug, Clone, Copy)]
pub struct Fitter {
    /// `--max-result-bytes`.
    pub max_result_bytes: u64,
    /// Bytes of the result envelope around the structured value, excluding the value itself
    /// and its escaped copy in the text block.
    pub envelope_bytes: u64,
}

impl Fitter {
    /// Whether items whose strings hold `text_bytes` bytes in all are more than a page can
    /// keep: a result carries every string at least twice (in `structuredContent` and in the
    /// text block), so a page may stop gathering items once this holds.
    pub fn overflows(&self, text_bytes: u64) -> bool {
        text_bytes.saturating_mul(2) > self.max_result_bytes
    }

    /// Keeps the longest prefix of `candidates` that fits. `start` is the request's own
    /// position; `end` is the position after the last candidate, or `None` when the last
    /// candidate ends the traversal. `cursor` turns a position into cursor text.
    pub fn fit<R>(
        &self,
        candidates: Vec<Candidate<R>>,
        start: &R,
        end: Option<&R>,
        cursor: impl Fn(&R) -> String,
    ) -> Result<Page, PtcError> {
        let mut raw = vec![0u64; candidates.len() + 1];
        let mut escaped = vec![0u64; candidates.len() + 1];
        for (i, candidate) in candidates.iter().enumerate() {
            let (item_raw, item_escaped) = value_sizes(&candidate.item);
            raw[i + 1] = raw[i] + item_raw;
            escaped[i + 1] = escaped[i] + item_escaped;
        }
        let next_for = |kept: usize| -> Option<String> {
            if kept == candidates.len() {
                end.map(&cursor)
            } else if kept == 0 {
                Some(cursor(start))
            } else {
                Some(cursor(&candidates[kept - 1].resume))
            }
        };
        let size = |kept: usize| -> u64 {
            let next = match next_for(kept) {
                Some(c) => format!("\"{c}\""),
                None => "null".to_owned(),
            };
            let frame = format!(
                r#"{{"items":[],"next_cursor":{next},"content_hash":"{PLACEHOLDER_HASH}"}}"#
            );
            let commas = kept.saturating_sub(1) as u64;
            let value_raw = frame.len() as u64 + raw[kept] + commas;
            let value_escaped = escaped_len(&frame) + escaped[kept] + commas;
            self.envelope_bytes + value_raw + value_escaped
        };
        let n = candidates.len();
        let kept = if size(n) <= self.max_result_bytes {
            n
        } else {
            if size(0) > self.max_result_bytes {
                return Err(PtcError::CeilingTooSmall);
            }
            // Largest k in [0, n) that fits; size grows with k.
            let (mut lo, mut hi) = (0usize, n);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if size(mid) <= self.max_result_bytes {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if lo == 0 && n > 0 {
                return Err(PtcError::ItemTooLarge);
            }
            lo
        };
        let next_cursor = next_for(kept);
        let mut hasher = Sha256::new();
        let mut items = Vec::with_capacity(kept);
        for candidate in candidates.into_iter().take(kept) {
            hasher.update(&candidate.hash_bytes);
            items.push(candidate.item);
        }
        Ok(Page {
            items,
            next_cursor,
            content_hash: format!("sha256:{}", hex(&hasher.finalize())),
        })
    }
}

/// `limit` as the caller gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Absent: the tool's maximum.
    Default,
    /// A safe integer ≥ 1.
    Given(u64),
    /// Present but not a safe positive integer.
    Invalid,
}

impl Limit {
    /// The effective page size: the default, or the given value clamped to `max`.
    pub fn bounded(self, max: u64) -> Result<u64, PtcError> {
        match self {
            Limit::Default => Ok(max),
            Limit::Given(n) => Ok(n.min(max)),
            Limit::Invalid => Err(PtcError::LimitInvalid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn measured_size_is_the_real_size() {
        let fitter = Fitter {
            max_result_bytes: u64::MAX,
            envelope_bytes: 0,
        };
        let candidates: Vec<Candidate> = (0..3)
            .map(|i| Candidate {
                item: json!({"path": format!("f\"{i}\n")}),
                hash_bytes: vec![],
                resume: json!(i + 1),
            })
            .collect();
        let page = fitter
            .fit(candidates, &json!(0), Some(&json!(3)), |p| format!("c{p}"))
            .unwrap();
        let value = page.clone().into_value().to_string();
        let full = value.len() + serde_json::to_string(&value).unwrap().len() - 2;
        // Same lengths as measured (the placeholder hash has the real hash's length).
        let measured = Fitter {
            max_result_bytes: full as u64,
            envelope_bytes: 0,
        };
        let again: Vec<Candidate> = page
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| Candidate {
                item: item.clone(),
                hash_bytes: vec![],
                resume: json!(i + 1),
            })
            .collect();
        let kept = measured
            .fit(again, &json!(0), Some(&json!(3)), |p| format!("c{p}"))
            .unwrap();
        assert_eq!(kept.items.len(), 3);
    }
}
