//! `map`: a ranked skeleton of the code below a directory — which files the tree leans on and
//! the definition lines that matter in each (the ranking and layout are described below).
//!
//! [`Fs::map`] resolves `path` like `grep` does (a directory, or one served file), walks it
//! in tree order with [`Root::in_order_pruned`] (the root's selector applies, and, on a root
//! that respects them, `.gitignore` files; links and excluded names are never looked at). It
//! skips nothing by name: a directory is passed over only when the tree itself says it holds
//! no one's source, by a marker file ([`MARKERS`]: a tagged cache such as Cargo's `target`,
//! a Python virtualenv), and each one passed over is counted and named in the answer. It
//! considers at most [`MAX_WALK_FILES`] files in tree order, stops walking there, and says so;
//! a ceiling the configuration named stops it the same way.
//!
//! Each file in a language the map reads is opened through [`Root::open_entry`] and read with
//! positional reads; a file over [`MAX_SOURCE_BYTES`], not UTF-8 text (or holding a NUL byte),
//! or unreadable is skipped and counted. Files are read in tree order on the calling thread
//! (so the call's deadline covers every read) and handed to a two-thread pool as they are
//! read, at most [`IN_FLIGHT_BYTES`] ahead of the parses; what the pool finds is interned
//! (see [`symbols`]) on the calling thread as it arrives. The pool is the map's
//! own (a parse may take seconds; other calls' walks never wait behind one), and the calling
//! thread, waiting, checks its call every [`WATCH_EVERY`] and stops the parses in flight once
//! it is past its deadline or cancelled. A file nested too deeply, or whose parse holds too
//! much memory, is skipped, remembered as such, and named in the summary (see
//! [`tags::extract_bounded`]).
//!
//! **The cache.** What a file yields — its symbols, or that it is not text — is kept per path
//! with the identity the walk saw (size, modification and change times, inode, device), and
//! per content (language and SHA-256 of the bytes), for the life of the root's fs set: an unchanged
//! file is never read twice, and a copy of a file, or a file changed back, is never parsed
//! twice. Each part holds at most [`MAX_CACHED_FILES`] entries and forgets arbitrary ones
//! beyond that; past [`MAX_INTERNED_NAMES`] names the whole cache starts over. The last
//! [`KEPT_RANKINGS`] rankings are kept with the exact files (and steering) they ranked, so a
//! map of an unchanged tree costs its walk and its rendering. One map runs at a time per
//! root, holding the cache's lock throughout, so two maps never tear it between them.
//!
//! `tags` reads one file into its definitions and references (tree-sitter tags queries for
//! C, C++, C#, Go, Java, JavaScript, Python, Rust, TypeScript and TSX, and, when built with
//! their `lang-*` features, Kotlin, PHP, Ruby and Swift, whose files are otherwise counted in a
//! note; items in Rust macro bodies included, each definition placed as an item, nested or
//! test-only; `raku`, a heuristic scanner, for Raku); `rank` builds the graph "file A refers
//! to a name file B defines" and ranks files with a personalized PageRank, or, when `path`
//! names one file, lays out its outline; `render` spends the character budget whole files at
//! a time.
//!
//! This file holds the call and its walk; `parse` reads and parses the files the cache
//! misses, `cache` keeps what they yielded.
//!
//! [`Root::in_order_pruned`]: crate::root::Root::in_order_pruned
//! [`Root::open_entry`]: crate::root::Root::open_entry

mod cache;
mod language;
pub mod lookup;
pub mod memory;
mod parse;
mod raku;
pub mod rank;
pub mod render;
mod resolve;
pub mod symbols;
pub mod tags;
pub mod uses;

use super::answer::{answer_budget, rules_not_applied};
use super::locate::ScopeKind;
use super::{Fs, FsAnswer, FsError, Kind, NARROW_PATH, answer, path_or_root};
use crate::measure::escaped_len;
use crate::root::{FileEntry, Marked, Marker, NotApplied, RelPath, Root, RootError, Step};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str, positive_safe_integer};
pub use cache::TagCache;
pub use language::{Definition, FileTags, Language, Place};
use parse::parse_all;
use rank::{MapFile, Steering, split_list, within};
use render::{Tally, render};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;
use symbols::Symbols;

/// The files by which a tree says a directory holds no one's source, so the map and the
/// lookup pass it over (strictly below `path`, and counted): the Cache Directory Tagging
/// convention's `CACHEDIR.TAG` with its signature (Cargo's `target`, and many tools' caches),
/// and a Python virtualenv's `pyvenv.cfg`. Names alone (`build`, `vendor`, `dist`) say nothing:
/// they are source directories in many trees.
pub static MARKERS: [Marker; 2] = [
    Marker {
        name: "CACHEDIR.TAG",
        starts_with: b"Signature: 8a477f597d28d172789f06886806bc55",
    },
    Marker {
        name: "pyvenv.cfg",
        starts_with: b"",
    },
];
/// Most files one map walk considers.
pub const MAX_WALK_FILES: usize = 5000;
/// Largest file the map reads.
pub const MAX_SOURCE_BYTES: u64 = 1 << 20;
/// Most files the parse cache remembers.
pub const MAX_CACHED_FILES: usize = 20_000;
/// Interned names beyond which the cache starts over (a bound on its memory).
pub const MAX_INTERNED_NAMES: usize = 4 << 20;
/// Rankings remembered (for different steering or trees).
pub const KEPT_RANKINGS: usize = 4;
/// Most source bytes read and not yet parsed: reading waits for parses beyond this.
pub const IN_FLIGHT_BYTES: usize = 32 << 20;
/// How often the calling thread, waiting for parses, checks its call: once the call is past
/// its deadline or cancelled, the parses in flight are stopped.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// The arguments of one map.
#[derive(Debug, Clone, Copy)]
pub struct MapQuery<'a> {
    /// The directory (or file) to map.
    pub path: &'a str,
    /// Space- or comma-separated words re-centring the map.
    pub query: Option<&'a str>,
    /// Space- or comma-separated paths re-centring the map.
    pub focus: Option<&'a str>,
    /// Most characters of the answer.
    pub max_chars: usize,
}

impl Fs {
    /// A ranked skeleton of the code below `query.path`, within `query.max_chars` characters
    /// and the root's result limit.
    pub fn map(&self, query: &MapQuery<'_>) -> Result<FsAnswer, FsError> {
        let scope = self.search_scope(&self.parse_path(query.path)?, ScopeKind::DirectoryOrFile)?;
        let focus = split_list(query.focus.unwrap_or_default())
            .map(|item| self.parse_path(item).map(|at| at.path.as_str().to_owned()))
            .collect::<Result<Vec<_>, _>>()?;

        let walked = mappable(self.root(), &scope)?;
        let candidates = walked.files;
        let (focus, unfocused) = resolve_focus(&scope, focus, &candidates);
        let steering = Steering::new(query.query, focus);

        // One map at a time per root: the cache and its interner stay consistent.
        let mut cache = self.map_cache();
        cache.bound_names();
        let parses_before = cache.parses;
        let parsed = parse_all(self.root(), &mut cache, &candidates)?;
        let mapped: Vec<MapFile<'_>> = parsed
            .files
            .iter()
            .map(|(i, symbols)| MapFile {
                path: &candidates[*i].path,
                symbols,
            })
            .collect();
        let symbols: Vec<Arc<Symbols>> = parsed.files.iter().map(|(_, s)| s.clone()).collect();
        // `path` naming one file asks for its outline.
        let outline = matches!(&*candidates, [only] if only.path == scope.as_str());
        let ranked = match &*mapped {
            [file] if outline => Arc::new(rank::Ranking {
                files: vec![cache.outline(file, &steering)],
                tests_left_out: 0,
            }),
            _ => cache.ranked(&mapped, &symbols, &steering),
        };
        // Operators (and the tests) see what the cache saved.
        tracing::debug!(
            files = mapped.len(),
            skipped = parsed.skipped,
            cached = parsed.cached,
            parsed = cache.parses - parses_before,
            "map"
        );
        drop(cache);
        let tally = Tally {
            outline: outline && mapped.len() == 1,
            mapped: mapped.len(),
            skipped: parsed.skipped,
            walk_stopped_at: walked.capped.then_some(MAX_WALK_FILES),
            unfocused,
            walk_limit: walked
                .stopped
                .map(|error| limit_named(error, self.root().limits())),
            too_deep: walked.too_deep.len(),
            rules_not_applied: rules_not_applied(&walked.not_applied),
            marked: walked.marked,
            unparsed: parsed
                .unparsed
                .iter()
                .map(|&i| candidates[i].path.clone())
                .collect(),
            not_built_in: parsed.not_built_in,
            tests_left_out: ranked.tests_left_out,
        };
        let byte_budget = answer_budget(self.root().limits().max_result_bytes);
        // A text of more than 4 bytes per allowed character, or more bytes than the result
        // may hold, cannot fit.
        let cap = query
            .max_chars
            .saturating_mul(4)
            .min(usize::try_from(byte_budget).unwrap_or(usize::MAX));
        let text = render(&ranked.files, &tally, cap, |text| {
            text.chars().count() <= query.max_chars && escaped_len(text) <= byte_budget
        });
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }

    /// How many files maps on this root have parsed (cache misses), for tests.
    #[cfg(test)]
    pub fn map_parses(&self) -> u64 {
        self.map_cache().parses
    }

    fn map_cache(&self) -> std::sync::MutexGuard<'_, TagCache> {
        self.map_cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The focus paths as the ranking takes them: each relative to the root when a mapped file
/// lies at or below it there, else relative to `scope` when one lies below that; and those
/// that name no mapped file either way, as given, for the summary.
fn resolve_focus(
    scope: &RelPath,
    focus: Vec<String>,
    files: &[FileEntry],
) -> (Vec<String>, Vec<String>) {
    let names_a_file = |focus: &str| files.iter().any(|file| within(&file.path, focus));
    let (mut resolved, mut unfocused) = (Vec::new(), Vec::new());
    for item in focus {
        let below_scope = if item.is_empty() {
            scope.as_str().to_owned()
        } else {
            scope.join(&item)
        };
        if names_a_file(&item) {
            resolved.push(item);
        } else if names_a_file(&below_scope) {
            resolved.push(below_scope);
        } else {
            unfocused.push(item);
        }
    }
    (resolved, unfocused)
}

/// What the map's walk found.
struct Mappable {
    /// The files the map considers, in tree order.
    files: Vec<FileEntry>,
    /// The walk stopped at [`MAX_WALK_FILES`].
    capped: bool,
    /// The configured ceiling that stopped the walk.
    stopped: Option<RootError>,
    /// Directories passed over for lying too deep.
    too_deep: Vec<String>,
    /// The ignore files the walk did not apply.
    not_applied: Vec<NotApplied>,
    /// The directories passed over for a marker file, in tree order.
    marked: Vec<Marked>,
}

/// Walks `scope` in tree order for the files the map considers, entering no directory
/// strictly below `scope` that a marker file ([`MARKERS`]) says holds no one's source, and
/// stopping after [`MAX_WALK_FILES`]. A ceiling the configuration named ends the walk early
/// (the map ranks what it found and says so); the deadline or a cancellation ends the call.
fn mappable(root: &Root, scope: &RelPath) -> Result<Mappable, FsError> {
    // The same markers prune every map's walk, so an unchanged tree's walk is replayed.
    let walk = root.in_order_pruned(scope, "map", &MARKERS);
    let mut found = Mappable {
        files: Vec::new(),
        capped: false,
        stopped: None,
        too_deep: Vec::new(),
        not_applied: Vec::new(),
        marked: Vec::new(),
    };
    for step in walk {
        match step {
            Ok(Step::Directory(_)) => {}
            Ok(Step::Marked(marked)) => found.marked.push(marked),
            Ok(Step::TooDeep(dir)) => found.too_deep.push(dir),
            Ok(Step::RulesNotApplied(rules)) => found.not_applied.push(rules),
            Ok(Step::File(file)) => {
                if found.files.len() == MAX_WALK_FILES {
                    found.capped = true;
                    break;
                }
                found.files.push(file);
            }
            Err(
                error @ (RootError::FileLimit | RootError::DirectoryLimit | RootError::EntryLimit),
            ) => {
                found.stopped = Some(error);
                break;
            }
            Err(error) => return Err(error.into()),
        }
    }
    Ok(found)
}

/// How a map's summary names the ceiling that stopped its walk: `the file limit (--max-files 9)`.
fn limit_named(error: RootError, limits: &crate::root::limits::Limits) -> String {
    let (key, value) = match error {
        RootError::FileLimit => ("max_files", limits.max_files),
        RootError::DirectoryLimit => ("max_directories", limits.max_directories),
        _ => ("max_entries", limits.max_entries),
    };
    let spec = crate::root::limits::LimitSpec::by_key(key).expect("a limit's key");
    format!("the {} ({} {value})", spec.name, spec.flag)
}

/// `max-chars` when not given.
const DEFAULT_MAX_CHARS: u64 = 8192;
/// Smallest `max-chars`.
const MIN_MAX_CHARS: u64 = 512;
/// Largest `max-chars`.
const MAX_MAX_CHARS: u64 = 65536;

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Finder,
        "map",
        "Map the code",
        "Shows which source files below path (default the root) the rest of the code depends on, most depended-on first, each as 'path:' and the numbered signature lines of its most-used definitions (no bodies; '⋮' marks skipped lines). query words or focus paths (space- or comma-separated) re-centre the ranking. Call it before reading; read a definition with read's offset.",
        object_schema(
            vec![
                ("path", json!({"type": "string", "default": "."})),
                ("query", json!({"type": "string"})),
                ("focus", json!({"type": "string"})),
                (
                    "max-chars",
                    json!({"type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS, "default": DEFAULT_MAX_CHARS}),
                ),
            ],
            &[],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let max_chars = arguments
        .get("max-chars")
        .and_then(positive_safe_integer)
        .unwrap_or(DEFAULT_MAX_CHARS)
        .clamp(MIN_MAX_CHARS, MAX_MAX_CHARS);
    let query = MapQuery {
        path: path_or_root(arguments, "path"),
        query: optional_str(arguments, "query"),
        focus: optional_str(arguments, "focus"),
        max_chars: usize::try_from(max_chars).unwrap_or(usize::MAX),
    };
    answer(fs, fs.map(&query), None, NARROW_PATH)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // the test builds its tree with std::fs

    use super::*;
    use crate::config::Limits;
    use crate::root::Identity;
    use crate::root::{Root, Selector};

    /// A walked file at `path` with an all-zero identity.
    pub(super) fn entry(path: &str) -> FileEntry {
        FileEntry {
            path: path.to_owned(),
            identity: Identity {
                size: 0,
                mtime_ns: 0,
                ctime_ns: 0,
                ino: 0,
                dev: 0,
            },
        }
    }

    #[test]
    fn only_marked_directories_below_the_scope_are_passed_over() {
        let tag = "Signature: 8a477f597d28d172789f06886806bc55\n# a cache\n";
        let files = [
            ("a.py", "x"),
            ("src/.hidden/x.py", "x"),
            ("src/target/CACHEDIR.TAG", tag),
            ("src/target/t.rs", "x"),
            ("env/pyvenv.cfg", "home = /usr/bin\n"),
            ("env/lib/x.py", "x"),
            ("fake/CACHEDIR.TAG", "not the signature"),
            ("fake/f.rs", "x"),
            ("src/main.rs", "x"),
            ("vendor/v.go", "x"),
            ("build/b.js", "x"),
        ];
        let dir = tempfile::tempdir().expect("temp dir");
        for (file, text) in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let selector = Selector::new(&["**".to_owned()], &[], false);
        let root = Root::open(dir.path(), selector, Limits::default()).expect("root");
        let kept = |scope: &str| -> (Vec<String>, Vec<(String, &str)>) {
            let scope = RelPath::parse(scope).unwrap();
            let found = mappable(&root, &scope).expect("walks");
            let marked = found.marked.into_iter().map(|m| (m.path, m.marker));
            (
                found.files.into_iter().map(|f| f.path).collect(),
                marked.collect(),
            )
        };
        // Twice: the second walk is the first one replayed.
        for _ in 0..2 {
            let (files, marked) = kept(".");
            assert_eq!(
                files,
                [
                    "a.py",
                    "build/b.js",
                    "fake/CACHEDIR.TAG",
                    "fake/f.rs",
                    "src/.hidden/x.py",
                    "src/main.rs",
                    "vendor/v.go"
                ]
            );
            assert_eq!(
                marked,
                [
                    ("env".to_owned(), "pyvenv.cfg"),
                    ("src/target".to_owned(), "CACHEDIR.TAG")
                ]
            );
        }
        // Named as the scope, a marked directory is mapped; only what lies below is judged.
        let (files, marked) = kept("env");
        assert_eq!(files, ["env/lib/x.py", "env/pyvenv.cfg"]);
        assert!(marked.is_empty());
    }

    fn fs_over(dir: &std::path::Path) -> Fs {
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir, selector, Limits::default()).expect("root");
        let published = crate::fs::Published::default();
        Fs::new(
            Arc::new(root),
            crate::digest::Key::process(),
            false,
            published,
        )
    }

    /// A map of the whole tree with the default budget.
    const WHOLE_TREE: MapQuery<'static> = MapQuery {
        path: ".",
        query: None,
        focus: None,
        max_chars: 8192,
    };

    #[test]
    fn unchanged_files_are_parsed_once() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| std::fs::write(dir.path().join(name), text).unwrap();
        write("hub.py", b"def frobnicate(value):\n    pass\n");
        write(
            "cli.py",
            b"from hub import frobnicate\n\ndef main(argv):\n    frobnicate(argv)\n",
        );
        write("lib.rs", b"pub fn helper() {}\n");
        write("notes.txt", b"not code\n");
        write("blob.py", b"def \xff(x):\n");
        let fs = fs_over(dir.path());
        let query = WHOLE_TREE;
        let first = fs.map(&query).unwrap().text;
        assert!(first.starts_with("hub.py:\n"), "{first}");
        assert_eq!(
            fs.map_parses(),
            3,
            "the three source files, not the binary one"
        );
        // A second map of the unchanged tree parses nothing and answers the same.
        assert_eq!(fs.map(&query).unwrap().text, first);
        assert_eq!(fs.map_parses(), 3);
        // Editing one file re-parses exactly that file.
        write(
            "cli.py",
            b"from lib import helper\n\ndef main(args):\n    helper()\n    helper()\n",
        );
        let after = fs.map(&query).unwrap().text;
        assert_eq!(fs.map_parses(), 4);
        assert!(after.starts_with("lib.rs:\n"), "{after}");
        // A map of a part of the tree reuses what the whole map parsed.
        let part = MapQuery {
            path: "hub.py",
            ..query
        };
        fs.map(&part).unwrap();
        assert_eq!(fs.map_parses(), 4);
    }

    #[test]
    fn a_copy_is_not_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| std::fs::write(dir.path().join(name), text).unwrap();
        let source = b"def shared(x):\n    return x\n";
        write("a.py", source);
        write("b.py", source);
        write("c.rs", source); // same bytes, another language: parsed on its own
        let fs = fs_over(dir.path());
        let query = WHOLE_TREE;
        let text = fs.map(&query).unwrap().text;
        assert_eq!(fs.map_parses(), 2, "{text}");
        assert!(text.contains("a.py:") && text.contains("b.py:"), "{text}");
        // A new copy, and a file changed back to what it was, parse nothing.
        write("d.py", source);
        write("a.py", b"def other():\n    pass\n");
        fs.map(&query).unwrap();
        assert_eq!(fs.map_parses(), 3);
        write("a.py", source);
        fs.map(&query).unwrap();
        assert_eq!(fs.map_parses(), 3);
    }

    #[test]
    fn schema_and_annotations() {
        let spec = tool().spec;
        let schema = &spec.input_schema;
        assert!(schema.get("required").is_none());
        assert_eq!(schema["properties"]["path"]["default"], ".");
        assert_eq!(
            schema["properties"]["max-chars"],
            json!({"type": "integer", "minimum": 512, "maximum": 65536, "default": 8192})
        );
        assert_eq!(schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert!(spec.description.len() < 450, "{}", spec.description.len());
    }
}
