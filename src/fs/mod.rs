//! The fs set: the model-facing tools. Answers are text a model reads (line-numbered windows,
//! `path:line:text` grep output, one entry per line), and the observation and mutation tools
//! also return `sha256-v1` revisions that an orchestration layer can send back in the reserved
//! `_expected-revisions` argument to make a mutation conditional.
//!
//! Names are `<prefix>_<base>` (`fs_read` by default; bare names with an empty prefix). An
//! [`Fs`] holds the set's state for one root: the revision memo, the lock that orders its
//! observations and mutations, the code map's cache, and which tools the root publishes (so
//! answers name only those).
//!
//! Each tool is one file (or folder) holding its schema, typed arguments and operation:
//! `read`, `write`, `edit`, `list`, `glob`, `grep/`, `map/`, `symbols`, `stat`, `mkdir`, `move_path`,
//! `copy`, `delete`. What they share: `locate` (a path argument to a location, worded for the model),
//! `answer` (the answer, its budget and notices), `diff` (what `edit` and `write` change, as
//! a unified diff), `revision`, `file_glob`, `shown`,
//! `published` and `error` (the set's wording).

mod after;
mod answer;
mod claims;
mod copy;
mod delete;
mod diff;
mod edit;
mod error;
mod file_glob;
mod glob;
mod grep;
mod list;
mod locate;
pub mod map;
mod mkdir;
mod move_path;
mod published;
mod read;
mod revision;
mod shown;
mod stat;
mod symbols;
mod write;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value, json};

pub use answer::FsAnswer;
pub use error::{FsError, OverLimit};
pub use published::{Published, published_name};
pub use shown::shown_path;

use crate::digest::{DigestCache, Key};
use crate::root::{RelPath, Root};
use crate::tools::{BoundTool, Tool, ToolOutput, ToolSet, ToolSpec};
use claims::{Claim, Claims};

/// The reserved argument carrying expected revisions (never advertised in a schema).
const EXPECTED: &str = "_expected-revisions";

/// Most digests the revision memo keeps per root.
const REVISION_MEMO_ENTRIES: usize = 8192;

/// The fs set's state for one root.
#[derive(Debug)]
pub struct Fs {
    root: Arc<Root>,
    /// Keys the digest of a link's target in its revision.
    key: Key,
    /// Digests behind revision tokens, reused only for settled files.
    memo: Mutex<DigestCache>,
    /// The paths this set's mutations are changing.
    claims: Claims,
    /// Whether the root is served without mutating tools (`stat` then reports nothing
    /// writable).
    read_only: bool,
    /// The tools this root publishes, which answers may point the model to.
    published: Published,
    /// What `map` parsed, per file, while the file stays unchanged.
    map_cache: Mutex<map::TagCache>,
}

impl ToolSet for Fs {
    type Error = FsError;
}

impl Fs {
    /// The set over `root`. `key` keys the digest of a link's target; `published` names the
    /// tools the root publishes.
    pub fn new(root: Arc<Root>, key: Key, read_only: bool, published: Published) -> Fs {
        Fs {
            root,
            key,
            memo: Mutex::new(DigestCache::settled(
                REVISION_MEMO_ENTRIES,
                std::time::Duration::from_secs(2),
            )),
            claims: Claims::default(),
            read_only,
            published,
            map_cache: Mutex::new(map::TagCache::default()),
        }
    }

    /// The fs tools in their published order under `prefix`, bound to this root.
    pub fn tools(self: &Arc<Fs>, prefix: &str) -> Vec<BoundTool> {
        let tools: Vec<Tool<Fs>> = vec![
            read::tool(),
            write::tool(),
            edit::tool(),
            list::tool(),
            glob::tool(),
            grep::tool(),
            map::tool(),
            symbols::tool(),
            stat::tool(),
            mkdir::tool(),
            move_path::tool(),
            copy::tool(),
            delete::tool(),
        ];
        tools
            .into_iter()
            .map(|mut tool| {
                tool.spec.name = published_name(prefix, &tool.spec.name);
                tool.bind(self)
            })
            .collect()
    }

    /// The confined root.
    fn root(&self) -> &Root {
        &self.root
    }

    fn memo(&self) -> MutexGuard<'_, DigestCache> {
        self.memo.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Claims `paths` for one mutation (see [`claims`]).
    fn claim(&self, paths: &[&RelPath]) -> Result<Claim<'_>, FsError> {
        self.claims.claim(paths, self.root.follows_symlinks())
    }
}

/// `structuredContent` of the observation and mutation tools.
fn revisions_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "revisionScheme": {"type": "string"},
            "revisions": {"type": "object"}
        },
        "required": ["revisionScheme", "revisions"]
    })
}

/// The kinds of fs tool, which decide annotations, output and reserved arguments.
enum Kind {
    /// Reads and returns revisions (`read`, `list`, `stat`).
    Observer,
    /// Reads and returns text only (`glob`, `grep`).
    Finder,
    /// Changes the tree; accepts `_expected-revisions`; publishes no behaviour hints.
    Mutator,
}

/// A tool of this set: everything but its words, schema and work follows from its kind.
fn tool(
    kind: Kind,
    name: &str,
    title: &'static str,
    description: &'static str,
    input_schema: Value,
    run: fn(&Fs, &Map<String, Value>) -> Result<ToolOutput, FsError>,
) -> Tool<Fs> {
    let mutator = matches!(kind, Kind::Mutator);
    let spec = ToolSpec {
        name: name.to_owned(),
        title,
        description,
        input_schema,
        output_schema: (!matches!(kind, Kind::Finder)).then(revisions_output),
        read_only: !mutator,
        hints: !mutator,
        reserved: if mutator { &[EXPECTED] } else { &[] },
        wording: crate::tools::Wording::Model,
    };
    Tool { spec, run }
}

/// A string argument the schema requires (already validated as present and a string).
fn str_arg<'a>(arguments: &'a Map<String, Value>, name: &str) -> &'a str {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// A location argument that defaults to the root.
fn path_or_root<'a>(arguments: &'a Map<String, Value>, name: &str) -> &'a str {
    arguments.get(name).and_then(Value::as_str).unwrap_or(".")
}

/// A boolean argument, false when absent (the schema has checked its type).
fn bool_arg(arguments: &Map<String, Value>, name: &str) -> bool {
    arguments
        .get(name)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// What the caller of a tool that walks below `path` can narrow when the walk goes over a
/// limit (the pattern and the name filter select among the files walked, so only the path
/// makes the walk smaller).
const NARROW_PATH: Option<&str> = Some("narrow path to a smaller directory");

/// The tool result of an fs answer: its text, with revisions as structured content. A
/// refusal from the root is worded for the model: a limit names its value, `narrow` (what
/// the caller can change, if anything) and how to raise it, and other refusals name the
/// location argument `given`.
fn answer(
    fs: &Fs,
    result: Result<FsAnswer, FsError>,
    given: Option<&str>,
    narrow: Option<&str>,
) -> Result<ToolOutput, FsError> {
    match result {
        Ok(answer) => Ok(ToolOutput {
            text: answer.text,
            image: None,
            structured: answer.revisions,
        }),
        Err(error) => Err(worded(fs, error, given, narrow)),
    }
}

/// A refusal in the model-facing words (see [`FsError::worded_for`]), for the location
/// argument `given` and with `narrow` the advice for a walk over a limit.
fn worded(fs: &Fs, error: FsError, given: Option<&str>, narrow: Option<&str>) -> FsError {
    match error.worded_for(given, fs.root().limits(), narrow) {
        // The root follows links, so the advice to turn following on would mislead.
        FsError::ThroughLink(path) if fs.root().follows_symlinks() => FsError::LinkLeavesRoot(path),
        worded => worded,
    }
}
