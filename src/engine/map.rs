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
//! or unreadable is skipped and counted. Files are read on the calling thread (so the call's
//! deadline covers every read) in batches, and each batch is parsed in parallel on a two-thread
//! pool. What a file yields — its tags, or that it is not text — is cached per path with the
//! identity the walk saw (size, modification and change times, inode, device) for the life of
//! the engine, so an unchanged file is never read or parsed twice; the cache holds at most
//! [`MAX_CACHED_FILES`] files and forgets arbitrary entries beyond that.
//!
//! [`Root::tree`]: crate::root::Root::tree
//! [`Root::open_entry`]: crate::root::Root::open_entry

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::glob::{ScopeKind, answer_budget};
use super::page::escaped_len;
use super::{Engine, EngineError, FsAnswer, FsError};
use crate::map::rank::{MapFile, Steering, rank, split_list};
use crate::map::render::{Tally, render};
use crate::map::tags::{extract, language_of};
use crate::map::{FileTags, Language};
use crate::root::{FileEntry, Identity, RelPath, check_deadline};

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
/// Threads parsing in parallel.
const PARSE_THREADS: usize = 2;
/// A batch is parsed once it holds this many files …
const BATCH_FILES: usize = 256;
/// … or this many bytes.
const BATCH_BYTES: usize = 16 << 20;

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

/// What reading one file yielded: its tags, or `None` when it is not text.
type Parsed = Option<Arc<FileTags>>;

/// The tags of the files a map read (by index among the candidates), and how many it skipped.
type Mapped = (Vec<(usize, Arc<FileTags>)>, usize);

/// Parse results per path, valid while the file keeps the identity they were read with.
#[derive(Debug, Default)]
pub struct TagCache {
    entries: HashMap<String, (Identity, Parsed)>,
    parses: u64,
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
        }
        self.entries
            .insert(entry.path.clone(), (entry.identity, parsed));
    }
}

/// The pool parsing batches (`None` if it could not be built: parsing then runs inline).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(PARSE_THREADS)
            .thread_name(|i| format!("fsmcp-map-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Files read but not yet parsed.
#[derive(Default)]
struct Batch {
    files: Vec<(usize, Language, Vec<u8>)>,
    bytes: usize,
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

        let (files, _) = self.root().tree(&scope)?;
        let mut candidates = mappable(&scope, files);
        let walk_stopped_at = (candidates.len() > MAX_WALK_FILES).then_some(MAX_WALK_FILES);
        candidates.truncate(MAX_WALK_FILES);

        let (parsed, skipped) = self.parse_all(&candidates)?;
        let mapped: Vec<MapFile<'_>> = parsed
            .iter()
            .map(|(i, tags)| MapFile {
                path: &candidates[*i].path,
                tags,
            })
            .collect();
        let ranked = rank(&mapped, &steering);
        let tally = Tally {
            mapped: mapped.len(),
            skipped,
            walk_stopped_at,
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

    /// The tags of every candidate the map can read, by index in tree order, and how many
    /// candidates were skipped.
    fn parse_all(&self, candidates: &[FileEntry]) -> Result<Mapped, EngineError> {
        let mut results: Vec<Option<Parsed>> = vec![None; candidates.len()];
        let mut batch = Batch::default();
        for (i, entry) in candidates.iter().enumerate() {
            let Some(language) = language_of(&entry.path) else {
                continue;
            };
            if entry.identity.size > MAX_SOURCE_BYTES {
                continue;
            }
            if let Some(parsed) = self.map_cache().get(entry) {
                results[i] = Some(parsed);
                continue;
            }
            let Some(bytes) = self.read_source(entry)? else {
                continue; // unreadable, or changed since the walk
            };
            if std::str::from_utf8(&bytes).is_err() || bytes.contains(&0) {
                self.map_cache().insert(entry, None);
                results[i] = Some(None);
                continue;
            }
            batch.bytes += bytes.len();
            batch.files.push((i, language, bytes));
            if batch.files.len() >= BATCH_FILES || batch.bytes >= BATCH_BYTES {
                self.parse_batch(std::mem::take(&mut batch), candidates, &mut results)?;
            }
        }
        self.parse_batch(batch, candidates, &mut results)?;
        let mapped: Vec<(usize, Arc<FileTags>)> = results
            .into_iter()
            .enumerate()
            .filter_map(|(i, r)| r.flatten().map(|tags| (i, tags)))
            .collect();
        let skipped = candidates.len() - mapped.len();
        Ok((mapped, skipped))
    }

    /// Reads a whole candidate; `None` when it cannot be opened or is not what the walk saw.
    fn read_source(&self, entry: &FileEntry) -> Result<Option<Vec<u8>>, EngineError> {
        let Ok(file) = self.root().open_entry(entry) else {
            return Ok(None);
        };
        let size = usize::try_from(file.size()).unwrap_or(usize::MAX);
        let mut bytes = vec![0; size];
        match file.read_at(&mut bytes, 0) {
            Ok(n) if n == size => Ok(Some(bytes)),
            Ok(_) => Ok(None),
            Err(crate::root::RootError::Deadline) => Err(crate::root::RootError::Deadline.into()),
            Err(_) => Ok(None),
        }
    }

    /// Parses one batch in parallel and records the results.
    fn parse_batch(
        &self,
        batch: Batch,
        candidates: &[FileEntry],
        results: &mut [Option<Parsed>],
    ) -> Result<(), EngineError> {
        if batch.files.is_empty() {
            return Ok(());
        }
        let parse = || -> Vec<(usize, FileTags)> {
            batch
                .files
                .par_iter()
                .map(|(i, language, bytes)| (*i, extract(*language, bytes)))
                .collect()
        };
        let parsed = match pool() {
            Some(pool) => pool.install(parse),
            None => parse(),
        };
        let mut cache = self.map_cache();
        cache.parses += parsed.len() as u64;
        for (i, tags) in parsed {
            let tags = Some(Arc::new(tags));
            cache.insert(&candidates[i], tags.clone());
            results[i] = Some(tags);
        }
        drop(cache);
        check_deadline()?;
        Ok(())
    }
}

/// The walked files the map considers: none below a skipped directory (relative to `scope`).
fn mappable(scope: &RelPath, files: Vec<FileEntry>) -> Vec<FileEntry> {
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
        .into_iter()
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
        let kept: Vec<String> = mappable(&RelPath::root(), files)
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(
            kept,
            ["a.py", "src/build.rs", "src/main.rs", ".eslintrc.js"]
        );
        // Asked for explicitly, a skipped directory is mapped; only what lies below is judged.
        let scope = RelPath::parse("vendor").unwrap();
        let kept = mappable(
            &scope,
            vec![entry("vendor/v.go"), entry("vendor/dist/x.js")],
        );
        assert_eq!(kept.len(), 1);
    }

    fn engine(dir: &std::path::Path) -> Engine {
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir, selector, Limits::default()).expect("root");
        Engine::new(root, None, 0)
    }

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
        let query = MapQuery {
            path: ".",
            query: None,
            focus: None,
            max_chars: 8192,
        };
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
