//! Paths containing any of the terms, across the whole root, paged.

use serde_json::json;

use super::cursor::{integer_position, scope_of, state_of};
use super::{Candidate, Engine, EngineError, Limit, MAX_PAGE_ITEMS, Page, Terms};
use crate::root::RelPath;

impl Engine {
    /// Every served file whose path contains a term, sorted, paged. The cursor binds the
    /// matching path set only, so edits to matched files do not invalidate it.
    pub fn search_files(
        &self,
        terms: &Terms,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, EngineError> {
        let files = self.root.inventory(&RelPath::root())?;
        let matching: Vec<&str> = files
            .iter()
            .filter(|f| terms.is_match(f.path.as_bytes()))
            .map(|f| f.path.as_str())
            .collect();
        let state = state_of(&matching);
        let (terms_value, folding) = terms.scope_fields();
        let scope = scope_of(
            "search_files",
            &json!({ "terms": terms_value, "caseInsensitive": folding }),
        );
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(EngineError::CursorInvalid)?,
        };
        let candidates = matching
            .into_iter()
            .enumerate()
            .map(|(i, path)| Candidate {
                hash_bytes: format!("{path}\n").into_bytes(),
                item: json!({ "path": path }),
                resume: json!(i + 1),
            })
            .collect();
        self.page_of(candidates, start, limit, &scope, &state)
    }
}
