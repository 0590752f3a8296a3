//! The engine: everything a tool needs beyond confinement — pages and result fitting, signed
//! cursors, chunked reads, literal search, digests — built on one [`Root`]. It knows no MCP
//! type: it takes typed arguments and returns a [`Page`] or a write receipt.
//!
//! An [`Engine`] owns the root, the cursor codec (process-affine or deterministic) and the
//! deterministic digest cache. Each operation lives in its own file: `list` (one directory
//! level), `find` (paths containing terms), `read` (UTF-8 chunks), `search` (lines containing
//! terms), `write` (one root-level file).

mod buffer;
mod cursor;
mod digest;
mod edit;
mod error;
mod file_glob;
mod find;
mod glob;
mod grep;
mod list;
mod locate;
mod map;
mod memo;
mod page;
mod published;
mod read;
mod revision;
mod search;
mod search_ahead;
mod shown;
mod terms;
mod text;
mod tree_ops;
mod utf8;
mod write;

use std::sync::{Arc, Mutex};

use serde_json::Value;

pub use cursor::{CursorCodec, integer_position, scope_of, state_of};
pub use digest::{DigestCache, HashBudget, content_hash, hex, sha256_hex};
pub use error::{EngineError, FsError, OverLimit};
pub use grep::{GrepOutput, GrepQuery, MAX_CONTEXT, MAX_LINE_BYTES, MAX_RESULTS};
pub use locate::FsAnswer;
pub use map::{MAX_SOURCE_BYTES, MapQuery, SKIPPED_DIRECTORIES};
pub use page::{Candidate, Fitter, Limit, Page, escaped_len};
pub use published::{Published, published_name};
pub use revision::{ABSENT, Revision, SCHEME, expected_revisions, revisions_value};
pub use shown::shown_path;
pub use terms::{Terms, parse_terms};
pub use utf8::valid_prefix;
pub use write::WriteReceipt;

use crate::root::Root;

/// Most digests the revision memo keeps per root.
const REVISION_MEMO_ENTRIES: usize = 8192;

/// Most items one list or search page may hold.
pub const MAX_PAGE_ITEMS: u64 = 200;

/// One root with its cursor codec and caches.
#[derive(Debug)]
pub struct Engine {
    /// Shared with the judging that runs ahead of a search's next page.
    root: Arc<Root>,
    codec: CursorCodec,
    deterministic: bool,
    digests: Mutex<DigestCache>,
    /// Digests behind revision tokens, reused only for settled files.
    memo: Mutex<DigestCache>,
    /// Serializes observations and mutations of the model-facing tools on this root.
    mutation: Mutex<()>,
    read_only: bool,
    /// The tools this root publishes, which answers may point the model to.
    published: Published,
    fitter: Fitter,
    /// What `map` parsed, per file, while the file stays unchanged.
    map_cache: Mutex<map::TagCache>,
    /// A listing's cursor state, per reused listing.
    listing_states: memo::Memo<String>,
    /// The paths `search_files` matched and their cursor state, per reused inventory.
    found: memo::Memo<Arc<find::Found>>,
    /// The cursor state of `search_text` over a scope, per reused inventory.
    scan_states: memo::Memo<String>,
    /// What `search_text` judged of each file, per reused inventory and search.
    verdicts: memo::Memo<Arc<search_ahead::Verdicts>>,
}

impl Engine {
    /// An engine over `root`. With `cursor_key`, cursors are deterministic: signed with that
    /// key and bound to content digests, so they resume across processes. `envelope_bytes` is
    /// the size of the result envelope around a page (see [`Fitter`]).
    pub fn new(root: Root, cursor_key: Option<Vec<u8>>, envelope_bytes: u64) -> Engine {
        let deterministic = cursor_key.is_some();
        let codec = cursor_key.map_or_else(CursorCodec::process, CursorCodec::with_key);
        let limits = *root.limits();
        Engine {
            digests: Mutex::new(DigestCache::new(limits.max_files as usize)),
            memo: Mutex::new(DigestCache::settled(
                REVISION_MEMO_ENTRIES,
                std::time::Duration::from_secs(2),
            )),
            mutation: Mutex::new(()),
            read_only: false,
            published: Published::default(),
            map_cache: Mutex::new(map::TagCache::default()),
            listing_states: memo::Memo::default(),
            found: memo::Memo::default(),
            scan_states: memo::Memo::default(),
            verdicts: memo::Memo::default(),
            fitter: Fitter {
                max_result_bytes: limits.max_result_bytes,
                envelope_bytes,
            },
            root: Arc::new(root),
            codec,
            deterministic,
        }
    }

    /// The confined root.
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// Marks the root as served without mutating tools (`stat` then reports nothing writable).
    pub fn with_read_only(mut self, read_only: bool) -> Engine {
        self.read_only = read_only;
        self
    }

    /// Whether the root is served without mutating tools.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Records which tools this root publishes, so answers name only those (by default the fs
    /// set under its default prefix).
    pub fn with_published(mut self, published: Published) -> Engine {
        self.published = published;
        self
    }

    /// The tools this root publishes.
    pub fn published(&self) -> &Published {
        &self.published
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, DigestCache> {
        self.memo
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Holds this root's mutation lock for one observation or mutation.
    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.mutation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn cursor_for<'a>(&'a self, scope: &'a str, state: &'a str) -> impl Fn(&Value) -> String + 'a {
        move |position| self.codec.encode(scope, state, position)
    }

    fn decode(
        &self,
        cursor: Option<&str>,
        scope: &str,
        state: &str,
    ) -> Result<Option<Value>, EngineError> {
        cursor
            .map(|c| self.codec.decode(c, scope, state))
            .transpose()
    }
}
