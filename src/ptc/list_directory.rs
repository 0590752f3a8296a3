//! `list_directory`: the served entries directly under a relative prefix, sorted and paged.

use serde_json::{Map, Value, json};

use super::cursor::{integer_position, scope_of, state_of};
use super::{
    Candidate, Limit, MAX_PAGE_ITEMS, Page, Ptc, PtcError, limit_of, page_properties, paged_output,
};
use crate::root::RelPath;
use crate::tools::{Tool, ToolOutput, object_schema, optional_str};

pub(super) fn tool() -> Tool<Ptc> {
    let mut properties = Map::new();
    properties.insert("path".into(), json!({"type": "string"}));
    page_properties(&mut properties, None);
    super::tool(
        "list_directory",
        "List directory",
        "Sorted entries directly under a relative prefix. Follow next_cursor until null.",
        object_schema(properties, &[]),
        paged_output(json!({
            "name": {"type": "string"}, "kind": {"type": "string"}, "path": {"type": "string"}
        })),
        true,
        run,
    )
}

fn run(ptc: &Ptc, arguments: &Map<String, Value>) -> Result<ToolOutput, PtcError> {
    let path = optional_str(arguments, "path").unwrap_or("");
    let page = ptc.list_directory(path, optional_str(arguments, "cursor"), limit_of(arguments))?;
    Ok(ToolOutput::structured(page.into_value()))
}

impl Ptc {
    /// The served entries directly under `path` (the root when empty), paged. The cursor binds
    /// the names and kinds of that one level.
    pub fn list_directory(
        &self,
        path: &str,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, PtcError> {
        let prefix = RelPath::parse(path)?;
        let entries = self.root.list(&prefix)?;
        let scope = scope_of("list_directory", &json!({ "path": prefix.as_str() }));
        let state = self.listing_states.get_or(&entries, &scope, || {
            Ok::<_, PtcError>(state_of(
                entries
                    .iter()
                    .map(|e| format!("{}\0{}", e.kind.as_str(), e.path)),
            ))
        })?;
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => 0,
            Some(p) => integer_position(p).ok_or(PtcError::CursorInvalid)?,
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
    ) -> Result<Page, PtcError> {
        let n = n as u64;
        if start > n {
            return Err(PtcError::CursorPosition);
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
