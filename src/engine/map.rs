//! `map`: a ranked skeleton of the code below a directory — which files the tree leans on and
//! the definition lines that matter in each (see [`crate::map`] for the ranking and layout).
//!
//! [`Engine::map`] resolves `path` like `grep` does (a directory, or one served file), walks it
//! with [`Root::tree`] (the root's selector applies, links and excluded names are never looked
//! at) and additionally never descends into [`SKIPPED_DIRECTORIES`], any directory whose name
//! starts with `.`, or a Python virtualenv (a directory holding `pyvenv.cfg`) below `path`.
//! It considers at most [`MAX_WALK_FILES`] files in tree order and says so when it stopped.
//!
//! Each file in a language the map reads is opened through [`Root::open_entry`] and read with
//! positional reads; a file over [`MAX_SOURCE_BYTES`], not UTF-8 text (or holding a NUL byte),
//! or unreadable is skipped and counted. Files are read in tree order on the calling thread
//! (so the call's deadline covers every read) and handed to a two-thread pool as they are
//! read, at most [`IN_FLIGHT_BYTES`] ahead of the parses; what the pool finds is interned
//! (see [`crate::map::symbols`]) on the calling thread as it arrives. The pool is the map's
//! own (a parse may take seconds; other calls' walks never wait behind one), and the calling
//! thread, waiting, checks its call every [`WATCH_EVERY`] and stops the parses in flight once
//! it is past its deadline or cancelled. A file nested too deeply, or whose parse holds too
//! much memory, is skipped, remembered as such, and named in the summary (see
//! [`crate::map::tags::extract_bounded`]).
//!
//! **The cache.** What a file yields — its symbols, or that it is not text — is kept per path
//! with the identity the walk saw (size, modification and change times, inode, device), and
//! per content (language and SHA-256 of the bytes), for the life of the engine: an unchanged
//! file is never read twice, and a copy of a file, or a file changed back, is never parsed
//! twice. Each part holds at most [`MAX_CACHED_FILES`] entries and forgets arbitrary ones
//! beyond that; past [`MAX_INTERNED_NAMES`] names the whole cache starts over. The last
//! [`KEPT_RANKINGS`] rankings are kept with the exact files (and steering) they ranked, so a
//! map of an unchanged tree costs its walk and its rendering. One map runs at a time per
//! engine, holding the cache's lock throughout, so two maps never tear it between them.
//!
//! [`Root::tree`]: crate::root::Root::tree
//! [`Root::open_entry`]: crate::root::Root::open_entry

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use super::glob::{ScopeKind, answer_budget};
use super::page::escaped_len;
use super::{Engine, EngineError, FsAnswer, FsError};
use sha2::{Digest, Sha256};

use crate::map::Language;
use crate::map::rank::{MapFile, RankedFile, Steering, rank, split_list};
use crate::map::render::{Tally, render};
use crate::map::symbols::{Interner, Symbols};
use crate::map::tags::{Extracted, extract_bounded, language_of};
use crate::root::{FileEntry, Identity, RelPath, Root, RootError, check_deadline};

/// Directory names the map never descends into (besides dot-directories and virtualenvs).
pub const SKIPPED_DIRECTORIES: [&str; 8] = [
    "node_modules",
    "target",
    "build",
    "dist",
    "vendor",
    "__pycache__",
    "venv",
    "site-packages",
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

/// What reading one file yielded: its symbols, or `None` when it is not text.
type Parsed = Option<Arc<Symbols>>;

/// The symbols of the files a map read (by index among the candidates), and how it came by
/// them.
struct Mapped {
    files: Vec<(usize, Arc<Symbols>)>,
    /// Candidates skipped (no language, too large, not text, unreadable).
    skipped: usize,
    /// Files whose symbols came from the cache by path and identity.
    cached: usize,
    /// Candidates not parsed because parsing them costs too much (nested too deeply, or
    /// holding too much memory), in tree order; also counted in `skipped`.
    unparsed: Vec<usize>,
}

/// A file's content as the parse cache knows it: its language and the SHA-256 of its bytes.
type ContentKey = (Language, [u8; 32]);

/// Parse results per path, valid while the file keeps the identity they were read with, and
/// per content, so that a copy of a file (or a file changed back) is not parsed again.
#[derive(Debug, Default)]
pub struct TagCache {
    entries: HashMap<String, (Identity, Parsed)>,
    /// Paths among `entries` (with no symbols) whose parse cost too much.
    costly: HashSet<String>,
    by_content: HashMap<ContentKey, Arc<Symbols>>,
    names: Interner,
    parses: u64,
    /// The latest rankings, newest last.
    rankings: Vec<Ranking>,
}

/// A ranking kept for the same files and steering: a warm map of an unchanged tree does not
/// rank again.
#[derive(Debug)]
struct Ranking {
    files: Vec<(String, Arc<Symbols>)>,
    steering: Steering,
    ranked: Arc<Vec<RankedFile>>,
}

impl Ranking {
    fn is_for(&self, files: &[MapFile<'_>], symbols: &[Arc<Symbols>], steering: &Steering) -> bool {
        self.steering == *steering
            && self.files.len() == files.len()
            && self
                .files
                .iter()
                .zip(files.iter().zip(symbols))
                .all(|((path, kept), (file, now))| path == file.path && Arc::ptr_eq(kept, now))
    }
}

impl TagCache {
    fn get(&self, entry: &FileEntry) -> Option<Parsed> {
        self.entries
            .get(&entry.path)
            .filter(|(identity, _)| *identity == entry.identity)
            .map(|(_, parsed)| parsed.clone())
    }

    fn insert(&mut self, entry: &FileEntry, parsed: Parsed) {
        if self.entries.len() >= MAX_CACHED_FILES
            && !self.entries.contains_key(&entry.path)
            && let Some(victim) = self.entries.keys().next().cloned()
        {
            self.entries.remove(&victim);
            self.costly.remove(&victim);
        }
        self.costly.remove(&entry.path);
        self.entries
            .insert(entry.path.clone(), (entry.identity, parsed));
    }

    /// Remembers that parsing `entry` as the walk saw it costs too much.
    fn insert_costly(&mut self, entry: &FileEntry) {
        self.insert(entry, None);
        self.costly.insert(entry.path.clone());
    }

    fn remember_content(&mut self, key: ContentKey, symbols: Arc<Symbols>) {
        if self.by_content.len() >= MAX_CACHED_FILES
            && let Some(victim) = self.by_content.keys().next().copied()
        {
            self.by_content.remove(&victim);
        }
        self.by_content.insert(key, symbols);
    }

    /// The ranking of `files` (whose symbols are `symbols`), computed or remembered.
    fn ranked(
        &mut self,
        files: &[MapFile<'_>],
        symbols: &[Arc<Symbols>],
        steering: &Steering,
    ) -> Arc<Vec<RankedFile>> {
        if let Some(at) = self
            .rankings
            .iter()
            .position(|r| r.is_for(files, symbols, steering))
        {
            let ranking = self.rankings.remove(at);
            let ranked = ranking.ranked.clone();
            self.rankings.push(ranking);
            return ranked;
        }
        let ranked = Arc::new(rank(files, steering, &self.names));
        if self.rankings.len() >= KEPT_RANKINGS {
            self.rankings.remove(0);
        }
        self.rankings.push(Ranking {
            files: files
                .iter()
                .zip(symbols)
                .map(|(file, symbols)| (file.path.to_owned(), symbols.clone()))
                .collect(),
            steering: steering.clone(),
            ranked: ranked.clone(),
        });
        ranked
    }

    /// Starts over when the interner has outgrown what the bounded cache can refer to. Only
    /// between maps: every cached symbol points into the interner.
    fn bound_names(&mut self) {
        if self.names.len() > MAX_INTERNED_NAMES {
            *self = TagCache {
                parses: self.parses,
                ..TagCache::default()
            };
        }
    }
}

impl Engine {
    /// A ranked skeleton of the code below `query.path`, within `query.max_chars` characters
    /// and the root's result limit.
    pub fn map(&self, query: &MapQuery<'_>) -> Result<FsAnswer, EngineError> {
        let scope = self.search_scope(query.path, ScopeKind::DirectoryOrFile)?;
        let focus = split_list(query.focus.unwrap_or_default())
            .map(|item| {
                RelPath::parse(item)
                    .map(|p| p.as_str().to_owned())
                    .map_err(|_| EngineError::from(FsError::InvalidPath(item.to_owned())))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let steering = Steering::new(query.query, focus);

        let walked = self.root().tree(&scope)?;
        let mut candidates = mappable(&scope, &walked.files);
        let walk_stopped_at = (candidates.len() > MAX_WALK_FILES).then_some(MAX_WALK_FILES);
        candidates.truncate(MAX_WALK_FILES);

        // One map at a time per engine: the cache and its interner stay consistent.
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
        let ranked = cache.ranked(&mapped, &symbols, &steering);
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
            mapped: mapped.len(),
            skipped: parsed.skipped,
            walk_stopped_at,
            too_deep: walked.too_deep.len(),
            unparsed: parsed
                .unparsed
                .iter()
                .map(|&i| candidates[i].path.clone())
                .collect(),
        };
        let byte_budget = answer_budget(self.root().limits().max_result_bytes);
        // A text of more than 4 bytes per allowed character, or more bytes than the result
        // may hold, cannot fit.
        let cap = query
            .max_chars
            .saturating_mul(4)
            .min(usize::try_from(byte_budget).unwrap_or(usize::MAX));
        let text = render(&ranked, &tally, cap, |text| {
            text.chars().count() <= query.max_chars && escaped_len(text) <= byte_budget
        });
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }

    /// How many files maps on this engine have parsed (cache misses), for tests.
    pub fn map_parses(&self) -> u64 {
        self.map_cache().parses
    }

    fn map_cache(&self) -> std::sync::MutexGuard<'_, TagCache> {
        self.map_cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The symbols of every candidate the map can read, by index in tree order, and how many
/// candidates were skipped.
fn parse_all(
    root: &Root,
    cache: &mut TagCache,
    candidates: &[FileEntry],
) -> Result<Mapped, EngineError> {
    let mut results: Vec<Option<Parsed>> = vec![None; candidates.len()];
    let mut misses = Vec::new();
    let mut cached = 0;
    let mut unparsed = Vec::new();
    for (i, entry) in candidates.iter().enumerate() {
        let Some(language) = language_of(&entry.path) else {
            continue;
        };
        if entry.identity.size > MAX_SOURCE_BYTES {
            continue;
        }
        match cache.get(entry) {
            Some(parsed) => {
                cached += usize::from(parsed.is_some());
                if parsed.is_none() && cache.costly.contains(&entry.path) {
                    unparsed.push(i);
                }
                results[i] = Some(parsed);
            }
            None => misses.push((i, language)),
        }
    }
    if !misses.is_empty() {
        let mut parsing = Parsing {
            root,
            cache,
            candidates,
            results: &mut results,
            waiting: HashMap::new(),
            copies: Vec::new(),
            unparsed: &mut unparsed,
        };
        // The map's own pool: a parse may take seconds, and other calls' walks must not
        // wait behind it.
        match crate::workers::map_pool() {
            Some(pool) => {
                let cancelled = AtomicBool::new(false);
                pool.in_place_scope(|scope| {
                    let outcome = parsing.run(&misses, Some((scope, &cancelled)));
                    // Parses not started yet are skipped; the scope waits for the rest.
                    cancelled.store(outcome.is_err(), Ordering::Relaxed);
                    outcome
                })?;
            }
            None => parsing.run(&misses, None)?,
        }
    }
    let files: Vec<(usize, Arc<Symbols>)> = results
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.flatten().map(|symbols| (i, symbols)))
        .collect();
    unparsed.sort_unstable();
    Ok(Mapped {
        skipped: candidates.len() - files.len(),
        files,
        cached,
        unparsed,
    })
}

/// Reads a whole candidate; `None` when it cannot be opened or is not what the walk saw.
fn read_source(root: &Root, entry: &FileEntry) -> Result<Option<Vec<u8>>, EngineError> {
    let Ok(file) = root.open_entry(entry) else {
        return Ok(None);
    };
    let size = usize::try_from(file.size()).unwrap_or(usize::MAX);
    let mut bytes = vec![0; size];
    match file.read_at(&mut bytes, 0) {
        Ok(n) if n == size => Ok(Some(bytes)),
        Ok(_) => Ok(None),
        Err(stop @ (RootError::Deadline | RootError::Cancelled)) => Err(stop.into()),
        Err(_) => Ok(None),
    }
}

/// One parse: the candidate, its content key, its size and what the parse made of it.
type Done = (usize, ContentKey, usize, Extracted);

/// The cache misses of one map, read in tree order on the calling thread (so the call's
/// deadline covers every read) and parsed on the pool as they are read; results are interned
/// on the calling thread as they arrive. A file with the same content as one already parsed
/// or being parsed is not parsed again.
struct Parsing<'a> {
    root: &'a Root,
    cache: &'a mut TagCache,
    candidates: &'a [FileEntry],
    results: &'a mut [Option<Parsed>],
    /// Content being parsed → the candidate parsing it.
    waiting: HashMap<ContentKey, usize>,
    /// Candidates with the same content as a parse in progress: (copy, original).
    copies: Vec<(usize, usize)>,
    /// Candidates whose parse cost too much.
    unparsed: &'a mut Vec<usize>,
}

impl Parsing<'_> {
    fn run<'s>(
        &mut self,
        misses: &[(usize, Language)],
        pool: Option<(&rayon::Scope<'s>, &'s AtomicBool)>,
    ) -> Result<(), EngineError> {
        let (sender, receiver) = mpsc::channel::<Done>();
        let mut flags = InFlight::default();
        let mut in_flight = 0usize;
        for &(i, language) in misses {
            let entry = &self.candidates[i];
            let Some(bytes) = read_source(self.root, entry)? else {
                continue; // unreadable, or changed since the walk
            };
            if std::str::from_utf8(&bytes).is_err() || bytes.contains(&0) {
                self.cache.insert(entry, None);
                self.results[i] = Some(None);
                continue;
            }
            let key: ContentKey = (language, Sha256::digest(&bytes).into());
            if let Some(symbols) = self.cache.by_content.get(&key).cloned() {
                self.cache.insert(entry, Some(symbols.clone()));
                self.results[i] = Some(Some(symbols));
                continue;
            }
            if let Some(&first) = self.waiting.get(&key) {
                self.copies.push((i, first));
                continue;
            }
            self.waiting.insert(key, i);
            let Some((scope, cancelled)) = pool else {
                // Without a pool the call is checked once the parse is recorded.
                let extracted = extract_bounded(language, &bytes, &AtomicUsize::new(0));
                self.record((i, key, bytes.len(), extracted))?;
                continue;
            };
            while in_flight > IN_FLIGHT_BYTES {
                let done = next_done(&receiver, &mut flags)?;
                in_flight -= done.2;
                self.record(done)?;
            }
            in_flight += bytes.len();
            let flag = Arc::new(AtomicUsize::new(0));
            flags.0.insert(i, flag.clone());
            let sender = sender.clone();
            scope.spawn(move |_| {
                // Always answers, so the reader never waits for a parse that will not come.
                let extracted = if cancelled.load(Ordering::Relaxed) {
                    Extracted::Stopped
                } else {
                    extract_bounded(language, &bytes, &flag)
                };
                let _ = sender.send((i, key, bytes.len(), extracted));
            });
        }
        while !flags.0.is_empty() {
            let done = next_done(&receiver, &mut flags)?;
            self.record(done)?;
        }
        for (copy, first) in std::mem::take(&mut self.copies) {
            if self.unparsed.contains(&first) {
                self.cache.insert_costly(&self.candidates[copy]);
                self.unparsed.push(copy);
                self.results[copy] = Some(None);
                continue;
            }
            let parsed = self.results[first].clone().flatten();
            self.cache.insert(&self.candidates[copy], parsed.clone());
            self.results[copy] = Some(parsed);
        }
        Ok(())
    }

    /// Interns and caches one parse. A call past its deadline or cancelled stops here, before
    /// caching: its last parses may have been cut short.
    fn record(&mut self, (i, key, _, extracted): Done) -> Result<(), EngineError> {
        check_deadline()?;
        let tags = match extracted {
            Extracted::Tags(tags) => tags,
            Extracted::TooDeep | Extracted::TooCostly => {
                self.cache.insert_costly(&self.candidates[i]);
                self.unparsed.push(i);
                self.results[i] = Some(None);
                return Ok(());
            }
            // Only an ended call stops a parse, and it fails before this; nothing is kept.
            Extracted::Stopped => {
                self.results[i] = Some(None);
                return Ok(());
            }
        };
        let symbols = Arc::new(Symbols::new(&tags, &mut self.cache.names));
        self.cache.parses += 1;
        self.cache
            .insert(&self.candidates[i], Some(symbols.clone()));
        self.cache.remember_content(key, symbols.clone());
        self.results[i] = Some(Some(symbols));
        Ok(())
    }
}

/// The stop flags of the parses spawned and not yet recorded, by candidate. A pool thread has
/// no call to check, so the calling thread stops them: all that are left are raised when this
/// is dropped, so however the map ends (its deadline, a cancellation, a failed read), no parse
/// it leaves runs on.
#[derive(Default)]
struct InFlight(HashMap<usize, Arc<AtomicUsize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        for flag in self.0.values() {
            flag.store(1, Ordering::Relaxed);
        }
    }
}

/// The next parse to finish, its flag forgotten. While waiting, the call is checked every
/// [`WATCH_EVERY`]; once it is past its deadline or cancelled, the call fails (and dropping
/// `flags` stops the parses in flight).
fn next_done(receiver: &mpsc::Receiver<Done>, flags: &mut InFlight) -> Result<Done, EngineError> {
    loop {
        match receiver.recv_timeout(WATCH_EVERY) {
            Ok(done) => {
                flags.0.remove(&done.0);
                return Ok(done);
            }
            Err(RecvTimeoutError::Timeout) => check_deadline()?,
            // The caller holds a sender, so this cannot happen; ending the call is safe.
            Err(RecvTimeoutError::Disconnected) => return Err(RootError::Cancelled.into()),
        }
    }
}

/// The walked files the map considers: none below a skipped directory (relative to `scope`).
fn mappable(scope: &RelPath, files: &[FileEntry]) -> Vec<FileEntry> {
    let below = |path: &str| -> String {
        if scope.is_root() {
            path.to_owned()
        } else {
            path.get(scope.as_str().len() + 1..)
                .unwrap_or_default()
                .to_owned()
        }
    };
    // Virtualenvs, by their marker file.
    let virtualenvs: HashSet<String> = files
        .iter()
        .filter_map(|f| {
            below(&f.path)
                .strip_suffix("/pyvenv.cfg")
                .map(str::to_owned)
        })
        .collect();
    files
        .iter()
        .filter(|f| {
            let relative = below(&f.path);
            let mut directory = String::new();
            let mut segments: Vec<&str> = relative.split('/').collect();
            segments.pop(); // the file's own name
            segments.into_iter().all(|segment| {
                if !directory.is_empty() {
                    directory.push('/');
                }
                directory.push_str(segment);
                !(segment.starts_with('.')
                    || SKIPPED_DIRECTORIES.contains(&segment)
                    || virtualenvs.contains(&directory))
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // the test builds its tree with std::fs

    use super::*;
    use crate::config::Limits;
    use crate::root::{Root, Selector};

    fn entry(path: &str) -> FileEntry {
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
    fn skipped_directories_below_the_scope() {
        let files = [
            "a.py",
            ".git/x.py",
            "src/.hidden/x.py",
            "node_modules/m/i.js",
            "src/target/t.rs",
            "env/pyvenv.cfg",
            "env/lib/x.py",
            "src/build.rs",
            "src/__pycache__/a.py",
            "vendor/v.go",
            "dist/d.js",
            "build/b.js",
            "src/main.rs",
            ".eslintrc.js",
        ]
        .map(entry)
        .to_vec();
        let kept: Vec<String> = mappable(&RelPath::root(), &files)
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(
            kept,
            ["a.py", "src/build.rs", "src/main.rs", ".eslintrc.js"]
        );
        // Asked for explicitly, a skipped directory is mapped; only what lies below is judged.
        let scope = RelPath::parse("vendor").unwrap();
        let kept = mappable(&scope, &[entry("vendor/v.go"), entry("vendor/dist/x.js")]);
        assert_eq!(kept.len(), 1);
    }

    fn engine(dir: &std::path::Path) -> Engine {
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir, selector, Limits::default()).expect("root");
        Engine::new(root, None, 0)
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
        write("cli.py", b"def main(argv):\n    frobnicate(argv)\n");
        write("lib.rs", b"pub fn helper() {}\n");
        write("notes.txt", b"not code\n");
        write("blob.py", b"def \xff(x):\n");
        let engine = engine(dir.path());
        let query = WHOLE_TREE;
        let first = engine.map(&query).unwrap().text;
        assert!(first.starts_with("hub.py:\n"), "{first}");
        assert_eq!(
            engine.map_parses(),
            3,
            "the three source files, not the binary one"
        );
        // A second map of the unchanged tree parses nothing and answers the same.
        assert_eq!(engine.map(&query).unwrap().text, first);
        assert_eq!(engine.map_parses(), 3);
        // Editing one file re-parses exactly that file.
        write("cli.py", b"def main(args):\n    helper()\n    helper()\n");
        let after = engine.map(&query).unwrap().text;
        assert_eq!(engine.map_parses(), 4);
        assert!(after.starts_with("lib.rs:\n"), "{after}");
        // A map of a part of the tree reuses what the whole map parsed.
        let part = MapQuery {
            path: "hub.py",
            ..query
        };
        engine.map(&part).unwrap();
        assert_eq!(engine.map_parses(), 4);
    }

    #[test]
    fn a_copy_is_not_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| std::fs::write(dir.path().join(name), text).unwrap();
        let source = b"def shared(x):\n    return x\n";
        write("a.py", source);
        write("b.py", source);
        write("c.rs", source); // same bytes, another language: parsed on its own
        let engine = engine(dir.path());
        let query = WHOLE_TREE;
        let text = engine.map(&query).unwrap().text;
        assert_eq!(engine.map_parses(), 2, "{text}");
        assert!(text.contains("a.py:") && text.contains("b.py:"), "{text}");
        // A new copy, and a file changed back to what it was, parse nothing.
        write("d.py", source);
        write("a.py", b"def other():\n    pass\n");
        engine.map(&query).unwrap();
        assert_eq!(engine.map_parses(), 3);
        write("a.py", source);
        engine.map(&query).unwrap();
        assert_eq!(engine.map_parses(), 3);
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut cache = TagCache::default();
        for i in 0..MAX_CACHED_FILES + 10 {
            cache.insert(&entry(&format!("f{i}.py")), None);
        }
        assert_eq!(cache.entries.len(), MAX_CACHED_FILES);
        // A changed identity misses.
        let mut changed = entry(&format!("f{}.py", MAX_CACHED_FILES + 9));
        assert!(cache.get(&changed).is_some());
        changed.identity.size = 1;
        assert!(cache.get(&changed).is_none());
    }
}
