//! One level of a directory, paged.

use serde_json::{Value, json};

use super::cursor::{integer_position, scope_of, state_of};
use super::{Candidate, Engine, EngineError, Limit, MAX_PAGE_ITEMS, Page};
use crate::root::RelPath;

impl Engine {
    /// The served entries directly under `path` (the root when empty), paged. The cursor binds
    /// the names and kinds of that one level.
    pub fn list_directory(
        &self,
        path: &str,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, EngineError> {
        let prefix = RelPath::parse(path)?;
        let entries = self.root.list(&prefix)?;
        let scope = scope_of("list_directory", &json!({ "path": prefix.as_str() }));
        let state = self.listing_states.get_or(&entries, &scope, || {
            Ok::<_, EngineError>(state_of(
                entries
                    .iter()
                    .map(|e| format!("{}\0{}", e.kind.as_str(), e.path)),
            ))
        })?;
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(EngineError::CursorInvalid)?,
        };
        let candidate = |i: usize| {
            let e = &entries[i];
            Candidate {
                item: json!({ "name": e.name, "kind": e.kind.as_str(), "path": e.path }),
                hash_bytes: format!("{}\0{}\n", e.kind.as_str(), e.path).into_bytes(),
                resume: json!(i + 1),
            }
        };
        self.page_of(entries.len(), candidate, start, limit, &scope, &state)
    }

    /// Pages a sorted list of `n` candidates from index `start`, building only the candidates
    /// the page can hold.
    pub(super) fn page_of(
        &self,
        n: usize,
        candidate: impl Fn(usize) -> Candidate,
        start: u64,
        limit: u64,
        scope: &str,
        state: &str,
    ) -> Result<Page, EngineError> {
        let n = n as u64;
        if start > n {
            return Err(EngineError::CursorPosition);
        }
        let end = (start + limit).min(n);
        let window: Vec<Candidate> = (start..end).map(|i| candidate(i as usize)).collect();
        let end_position: Option<Value> = (end < n).then(|| json!(end));
        self.fitter.fit(
            window,
            &json!(start),
            end_position.as_ref(),
            self.cursor_for(scope, state),
        )
    }
}
