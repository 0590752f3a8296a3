//! Paths containing any of the terms, across the whole root, paged.

use std::sync::Arc;

use serde_json::json;

use super::cursor::{integer_position, scope_of, state_of};
use super::{Candidate, Engine, EngineError, Limit, MAX_PAGE_ITEMS, Page, Terms};
use crate::root::RelPath;

/// The files one query matched in one inventory, and the cursor state they bind.
#[derive(Debug)]
pub struct Found {
    /// Indices into the inventory, in its order.
    matching: Vec<usize>,
    state: String,
}

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
        let (terms_value, folding) = terms.scope_fields();
        let scope = scope_of(
            "search_files",
            &json!({ "terms": terms_value, "caseInsensitive": folding }),
        );
        let found = self.found.get_or(&files, &scope, || {
            let matching: Vec<usize> = (0..files.len())
                .filter(|&i| terms.is_match(files[i].path.as_bytes()))
                .collect();
            let state = state_of(matching.iter().map(|&i| &files[i].path));
            Ok::<_, EngineError>(Arc::new(Found { matching, state }))
        })?;
        let state = &found.state;
        let position = self.decode(cursor, &scope, state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(EngineError::CursorInvalid)?,
        };
        let candidate = |i: usize| {
            let path = &files[found.matching[i]].path;
            Candidate {
                hash_bytes: format!("{path}\n").into_bytes(),
                item: json!({ "path": path }),
                resume: json!(i + 1),
            }
        };
        self.page_of(found.matching.len(), candidate, start, limit, &scope, state)
    }
}
