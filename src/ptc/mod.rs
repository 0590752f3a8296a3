//! The ptc set: the five program-facing tools of ptc-fs-mcp, with its names, titles,
//! descriptions, schemas, annotations, results and error strings, so an existing host can swap
//! the command and change nothing else.
//!
//! Every result is a page: items, a `content_hash` over what they say, and a signed cursor
//! (`cursor`) that resumes the traversal or fails when what it was bound to changed. A [`Ptc`]
//! holds the set's state for one root: the cursor codec, the digest cache of deterministic
//! mode, and what each paged tool derived from the walk it last reused.
//!
//! Each tool is one file holding its schema, typed arguments and operation
//! (`list_directory`, `search_files`, `search_text`, `read_text_file`, `write_text_file`); the
//! rest is what they share: `page` (fitting a page to the result limit), `cursor`, `terms`
//! (the literal search terms), `memo`, `utf8`, `buffer` and `error` (the exact strings).

mod buffer;
mod cursor;
mod error;
mod list_directory;
mod memo;
mod page;
mod read_text_file;
mod search_files;
mod search_text;
mod terms;
mod utf8;
mod write_text_file;

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

pub use cursor::{CursorCodec, scope_of, state_of};
pub use error::PtcError;
pub use page::{Candidate, Fitter, Limit, Page};
pub use terms::{Terms, parse_terms};

use crate::digest::{DigestCache, Key};
use crate::root::Root;
use crate::tools::{BoundTool, Run, Tool, ToolSet, ToolSpec, positive_safe_integer};

/// Most items one list or search page may hold.
pub const MAX_PAGE_ITEMS: u64 = 200;

/// The ptc set's state for one root.
#[derive(Debug)]
pub struct Ptc {
    /// Shared with the judging that runs ahead of a search's next page.
    root: Arc<Root>,
    codec: CursorCodec,
    /// Whether cursors are bound to content digests and resume across processes.
    deterministic: bool,
    digests: Mutex<DigestCache>,
    fitter: Fitter,
    /// A listing's cursor state, per reused listing.
    listing_states: memo::Memo<String>,
    /// The paths `search_files` matched and their cursor state, per reused inventory.
    found: memo::Memo<Arc<search_files::Found>>,
    /// The cursor state of `search_text` over a scope, per reused inventory.
    scan_states: memo::Memo<String>,
    /// What `search_text` judged of each file, per reused inventory and search.
    verdicts: memo::Memo<Arc<search_text::Verdicts>>,
}

impl ToolSet for Ptc {
    type Error = PtcError;
}

impl Ptc {
    /// The set over `root`, signing cursors with `key`. `deterministic` binds cursors to
    /// content digests (the operator gave the key), so they resume across processes;
    /// `envelope_bytes` is the size of the result envelope around a page (see [`Fitter`]).
    pub fn new(root: Arc<Root>, key: Key, deterministic: bool, envelope_bytes: u64) -> Ptc {
        let limits = *root.limits();
        Ptc {
            digests: Mutex::new(DigestCache::new(limits.max_files as usize)),
            fitter: Fitter {
                max_result_bytes: limits.max_result_bytes,
                envelope_bytes,
            },
            listing_states: memo::Memo::default(),
            found: memo::Memo::default(),
            scan_states: memo::Memo::default(),
            verdicts: memo::Memo::default(),
            codec: CursorCodec::new(key),
            deterministic,
            root,
        }
    }

    /// The ptc tools in their published order, bound to this root.
    pub fn tools(self: &Arc<Ptc>) -> Vec<BoundTool> {
        let limits = *self.root.limits();
        let tools: Vec<Tool<Ptc>> = vec![
            list_directory::tool(),
            search_files::tool(),
            search_text::tool(),
            read_text_file::tool(&limits),
            write_text_file::tool(),
        ];
        tools.into_iter().map(|tool| tool.bind(self)).collect()
    }

    fn cursor_for<'a>(&'a self, scope: &'a str, state: &'a str) -> impl Fn(&Value) -> String + 'a {
        move |position| self.codec.encode(scope, state, position)
    }

    fn decode(
        &self,
        cursor: Option<&str>,
        scope: &str,
        state: &str,
    ) -> Result<Option<Value>, PtcError> {
        cursor
            .map(|c| self.codec.decode(c, scope, state))
            .transpose()
    }
}

/// A ptc tool: each publishes its behaviour hints and reserves no argument.
fn tool(
    name: &str,
    title: &'static str,
    description: &'static str,
    input_schema: Value,
    output_schema: Value,
    read_only: bool,
    run: Run<Ptc>,
) -> Tool<Ptc> {
    let spec = ToolSpec {
        name: name.to_owned(),
        title,
        description,
        input_schema,
        output_schema: Some(output_schema),
        read_only,
        hints: true,
        reserved: &[],
        wording: crate::tools::Wording::Reference,
    };
    Tool { spec, run }
}

/// A `path` argument that must be a string (the schema has checked its presence).
fn string_path(arguments: &Map<String, Value>) -> Result<&str, PtcError> {
    match arguments.get("path") {
        Some(Value::String(path)) => Ok(path),
        _ => Err(PtcError::PathNotString),
    }
}

/// Output schema of the four paged tools, around one item's properties. `next_cursor` is left
/// to `additionalProperties` because the schema subset clients accept has no nullable type.
fn paged_output(item_properties: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "content_hash": {"type": "string"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": item_properties, "additionalProperties": false}
            }
        },
        "required": ["content_hash", "items"],
        "additionalProperties": true
    })
}

/// The `query`, `any_of` and `case_insensitive` properties shared by both searches.
fn term_properties(properties: &mut Map<String, Value>) {
    properties.insert("query".into(), json!({"type": "string", "minLength": 1}));
    properties.insert(
        "any_of".into(),
        json!({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 16}),
    );
    properties.insert("case_insensitive".into(), json!({"type": "boolean"}));
}

/// `cursor` and `limit` (minimum 1, optional maximum), shared by the paged tools.
fn page_properties(properties: &mut Map<String, Value>, max_limit: Option<u64>) {
    properties.insert("cursor".into(), json!({"type": "string"}));
    let mut limit = json!({"type": "integer", "minimum": 1});
    if let Some(max) = max_limit {
        limit["maximum"] = json!(max);
    }
    properties.insert("limit".into(), limit);
}

/// The validated terms of `query`/`any_of`/`case_insensitive`.
fn terms_of(arguments: &Map<String, Value>) -> Result<Terms, PtcError> {
    parse_terms(
        arguments.get("query"),
        arguments.get("any_of"),
        arguments.get("case_insensitive"),
    )
}

/// `limit` as given: a safe positive integer, absent, or invalid.
fn limit_of(arguments: &Map<String, Value>) -> Limit {
    match arguments.get("limit") {
        None => Limit::Default,
        Some(value) => match positive_safe_integer(value) {
            Some(n) => Limit::Given(n),
            None => Limit::Invalid,
        },
    }
}
