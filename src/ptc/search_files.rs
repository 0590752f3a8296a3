//! `search_files`: the served paths across the whole root containing any of the terms,
//! sorted and paged.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::cursor::{integer_position, scope_of, state_of};
use super::{
    Candidate, Limit, MAX_PAGE_ITEMS, Page, Ptc, PtcError, Terms, limit_of, page_properties,
    paged_output, term_properties, terms_of,
};
use crate::root::RelPath;
use crate::tools::{Tool, ToolOutput, object_schema, optional_str};

pub(super) fn tool() -> Tool<Ptc> {
    let mut properties = Map::new();
    term_properties(&mut properties);
    page_properties(&mut properties, None);
    super::tool(
        "search_files",
        "Search files",
        "Sorted paths containing a literal substring. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Follow next_cursor until null.",
        object_schema(properties, &[]),
        paged_output(json!({"path": {"type": "string"}})),
        true,
        run,
    )
}

fn run(ptc: &Ptc, arguments: &Map<String, Value>) -> Result<ToolOutput, PtcError> {
    let terms = terms_of(arguments)?;
    let page = ptc.search_files(
        &terms,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}

/// The files one query matched in one inventory, and the cursor state they bind.
#[derive(Debug)]
pub struct Found {
    /// Indices into the inventory, in its order.
    matching: Vec<usize>,
    state: String,
}

impl Ptc {
    /// Every served file whose path contains a term, sorted, paged. The cursor binds the
    /// matching path set only, so edits to matched files do not invalidate it.
    pub fn search_files(
        &self,
        terms: &Terms,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, PtcError> {
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
            Ok::<_, PtcError>(Arc::new(Found { matching, state }))
        })?;
        let state = &found.state;
        let position = self.decode(cursor, &scope, state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(PtcError::CursorInvalid)?,
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
