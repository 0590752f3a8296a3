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
        let parts: Vec<String> = entries
            .iter()
            .map(|e| format!("{}\0{}", e.kind.as_str(), e.path))
            .collect();
        let state = state_of(&parts);
        let scope = scope_of("list_directory", &json!({ "path": prefix.as_str() }));
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(EngineError::CursorInvalid)?,
        };
        let candidates = entries.iter().enumerate().map(|(i, e)| Candidate {
            item: json!({ "name": e.name, "kind": e.kind.as_str(), "path": e.path }),
            hash_bytes: format!("{}\0{}\n", e.kind.as_str(), e.path).into_bytes(),
            resume: json!(i + 1),
        });
        self.page_of(candidates.collect(), start, limit, &scope, &state)
    }

    /// Pages an already-materialized, sorted candidate list from index `start`.
    pub(super) fn page_of(
        &self,
        all: Vec<Candidate>,
        start: u64,
        limit: u64,
        scope: &str,
        state: &str,
    ) -> Result<Page, EngineError> {
        let n = all.len() as u64;
        if start > n {
            return Err(EngineError::CursorPosition);
        }
        let end = (start + limit).min(n);
        let window: Vec<Candidate> = all
            .into_iter()
            .skip(start as usize)
            .take((end - start) as usize)
            .collect();
        let end_position: Option<Value> = (end < n).then(|| json!(end));
        self.fitter.fit(
            window,
            &json!(start),
            end_position.as_ref(),
            self.cursor_for(scope, state),
        )
    }
}
