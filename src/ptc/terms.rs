//! Search terms: one `query` or up to 16 `any_of` literals, optionally ASCII case-folded,
//! compiled once into a multi-literal automaton.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde_json::{Value, json};

use super::PtcError;

/// Most terms one `any_of` may carry.
pub const MAX_TERMS: usize = 16;
/// Longest term in UTF-8 bytes.
pub const MAX_TERM_BYTES: usize = 256;

/// Validated terms and their matcher.
#[derive(Debug, Clone)]
pub struct Terms {
    terms: Vec<String>,
    case_insensitive: bool,
    /// Leftmost-first: finds the first place any term occurs.
    matcher: AhoCorasick,
    /// Standard semantics (the occurrence that ends first), built on first use and shared by
    /// every copy.
    earliest: std::sync::Arc<std::sync::OnceLock<AhoCorasick>>,
}

fn automaton(terms: &[String], case_insensitive: bool, kind: MatchKind) -> AhoCorasick {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(case_insensitive)
        .match_kind(kind)
        .build(terms)
        .expect("at most 16 short literals always compile")
}

/// Validates `query`/`any_of`/`case_insensitive` as the tools receive them (JSON values).
pub fn parse_terms(
    query: Option<&Value>,
    any_of: Option<&Value>,
    case_insensitive: Option<&Value>,
) -> Result<Terms, PtcError> {
    let terms: Vec<String> = match (query, any_of) {
        (Some(_), Some(_)) => return Err(PtcError::QueryAndAnyOf),
        (Some(Value::String(q)), None) if !q.is_empty() => vec![q.clone()],
        (Some(_), None) | (None, None) => return Err(PtcError::QueryEmpty),
        (None, Some(Value::Array(items))) => {
            if items.is_empty() {
                return Err(PtcError::AnyOfInvalid);
            }
            if items.len() > MAX_TERMS {
                return Err(PtcError::AnyOfTooMany);
            }
            items
                .iter()
                .map(|item| match item {
                    Value::String(s) if !s.is_empty() => Ok(s.clone()),
                    _ => Err(PtcError::QueryEmpty),
                })
                .collect::<Result<_, _>>()?
        }
        (None, Some(_)) => return Err(PtcError::AnyOfInvalid),
    };
    if terms
        .iter()
        .any(|t| t.len() > MAX_TERM_BYTES || t.contains('\n') || t.contains('\r'))
    {
        return Err(PtcError::QueryTooLong);
    }
    let case_insensitive = match case_insensitive {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(PtcError::CaseInsensitiveInvalid),
    };
    Ok(compiled(terms, case_insensitive))
}

/// Most compiled term sets kept for the calls that follow.
const COMPILED_KEPT: usize = 16;

/// The terms with their automata: built once and kept, since every page of a traversal
/// names the same terms again and building the automata cost more than a rare-needle page's
/// scan.
fn compiled(terms: Vec<String>, case_insensitive: bool) -> Terms {
    static KEPT: std::sync::Mutex<std::collections::VecDeque<Terms>> =
        std::sync::Mutex::new(std::collections::VecDeque::new());
    let mut kept = KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(found) = kept
        .iter()
        .find(|t| t.terms == terms && t.case_insensitive == case_insensitive)
    {
        return found.clone();
    }
    let matcher = automaton(&terms, case_insensitive, MatchKind::LeftmostFirst);
    let built = Terms {
        terms,
        case_insensitive,
        matcher,
        earliest: std::sync::Arc::default(),
    };
    if kept.len() >= COMPILED_KEPT {
        kept.pop_front();
    }
    kept.push_back(built.clone());
    built
}

impl Terms {
    /// Whether `haystack` contains any term.
    pub fn is_match(&self, haystack: &[u8]) -> bool {
        self.matcher.is_match(haystack)
    }

    /// The leftmost occurrence of any term in `haystack`, as a byte range.
    pub fn find(&self, haystack: &[u8]) -> Option<std::ops::Range<usize>> {
        self.matcher.find(haystack).map(|m| m.range())
    }

    /// Where the occurrence that ends first in `haystack` ends (which may be after the
    /// leftmost one starts); `None` when no term occurs.
    pub fn first_end(&self, haystack: &[u8]) -> Option<usize> {
        self.earliest
            .get_or_init(|| automaton(&self.terms, self.case_insensitive, MatchKind::Standard))
            .find(haystack)
            .map(|m| m.end())
    }

    /// Length in bytes of the longest term.
    pub fn longest(&self) -> usize {
        self.terms.iter().map(String::len).max().unwrap_or(0)
    }

    /// The scope arguments these terms bind a cursor to.
    pub fn scope_fields(&self) -> (Value, Value) {
        (json!(self.terms), json!(self.case_insensitive))
    }
}
