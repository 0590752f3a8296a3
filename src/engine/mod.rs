//! The engine: everything a tool needs beyond confinement — pages and result fitting, signed
//! cursors, chunked reads, literal search, digests — built on one [`Root`]. It knows no MCP
//! type: it takes typed arguments and returns a [`Page`] or a write receipt.
//!
//! An [`Engine`] owns the root, the cursor codec (process-affine or deterministic) and the
//! deterministic digest cache. Each operation lives in its own file: `list` (one directory
//! level), `find` (paths containing terms), `read` (UTF-8 chunks), `search` (lines containing
//! terms), `write` (one root-level file).

mod cursor;
mod digest;
mod error;
mod find;
mod list;
mod page;
mod read;
mod search;
mod terms;
mod utf8;
mod write;

use std::sync::Mutex;

use serde_json::Value;

pub use cursor::{CursorCodec, integer_position, scope_of, state_of};
pub use digest::{DigestCache, HashBudget, content_hash, hex, sha256_hex};
pub use error::EngineError;
pub use page::{Candidate, Fitter, Limit, Page, escaped_len};
pub use terms::{Terms, parse_terms};
pub use utf8::valid_prefix;
pub use write::WriteReceipt;

use crate::root::Root;

/// Most items one list or search page may hold.
pub const MAX_PAGE_ITEMS: u64 = 200;

/// One root with its cursor codec and caches.
#[derive(Debug)]
pub struct Engine {
    root: Root,
    codec: CursorCodec,
    deterministic: bool,
    digests: Mutex<DigestCache>,
    fitter: Fitter,
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
            fitter: Fitter {
                max_result_bytes: limits.max_result_bytes,
                envelope_bytes,
            },
            root,
            codec,
            deterministic,
        }
    }

    /// The confined root.
    pub fn root(&self) -> &Root {
        &self.root
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
