//! Budgeted, sorted, descriptor-relative walks: the inventory of served files under a scope
//! (the program-facing tools'), the tree in order one step at a time (`in_order`, the
//! model-facing tools'), the digest of a tree's metadata (`digest`), and the one-level listing
//! whose directories are shown only when they serve something.

mod digest;
mod entry;
mod gitignore;
mod in_order;
mod read_ahead;

pub use gitignore::{
    MAX_COSTLY_IN_FORCE, MAX_FILE_PATTERNS, MAX_IGNORE_BYTES, MAX_PATTERNS_IN_FORCE, NotApplied,
    Unapplied,
};
pub use in_order::{InOrder, Step};

use crate::sys::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::sys::fs::FileType;

use super::dir::{file_type, open_dir_at, open_dir_chain, reopen};
use super::remember::{Key, Walked};
use super::{Identity, RelPath, Root, RootError, compare_utf16};
use entry::{Budget, Entry, dir_key};

/// Levels whose subdirectories a walk hands to the worker pool; deeper ones are walked in order
/// on the thread that reached them, so a deep tree costs stack like a sequential walk does.
const PARALLEL_DEPTH: u64 = 12;

/// What a whole in-order walk found ([`Root::in_order`]), each list in tree order: kept while
/// the watcher vouches for it, and replayed.
#[derive(Debug, Clone)]
pub struct TreeWalk {
    /// The served files.
    pub files: Arc<Vec<FileEntry>>,
    /// The directories entered strictly beneath the scope.
    pub directories: Arc<Vec<String>>,
    /// The directories not entered because they lie deeper than `--max-depth`.
    pub too_deep: Arc<Vec<String>>,
    /// The directories not entered because a marker file says what they hold.
    pub marked: Arc<Vec<Marked>>,
}

/// A file whose presence in a directory says the directory holds no one's source (a cache, a
/// virtualenv), so a walk that names it passes the directory over ([`Root::in_order_pruned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// The file's name.
    pub name: &'static str,
    /// The bytes the file must begin with (empty: any content).
    pub starts_with: &'static [u8],
}

/// A directory a walk passed over for the marker file it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The directory, relative to the root.
    pub path: String,
    /// The name of the marker file found in it.
    pub marker: &'static str,
}

/// One served regular file found by a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Normalized path relative to the root.
    pub path: String,
    /// Identity observed by `lstat` during the walk (its `size` is the file size).
    pub identity: Identity,
}

/// Kind of a listed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A served regular file.
    File,
    /// A directory holding at least one served file at some depth.
    Directory,
    /// A symbolic link whose own path is selected, not followed: only in the model-facing
    /// listing ([`Root::list_with`] with `selected_directories`) of a root that does not follow
    /// links.
    Link,
}

impl EntryKind {
    /// `"file"`, `"directory"` or `"symlink"`, as items and state digests spell them.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Directory => "directory",
            EntryKind::Link => "symlink",
        }
    }
}

/// A one-level listing ([`Root::list_with`]).
#[derive(Debug, Clone)]
pub struct Listed {
    /// The entries listed, by name.
    pub entries: Arc<Vec<ListEntry>>,
    /// What stopped the listing before its end: a ceiling, or the call's deadline or
    /// cancellation. `entries` are those before it.
    pub stopped: Option<RootError>,
}

/// One entry of a one-level listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListEntry {
    /// The entry's name inside the listed directory.
    pub name: String,
    /// File or directory.
    pub kind: EntryKind,
    /// Normalized path relative to the root.
    pub path: String,
}

/// What one recursive walk shares among its threads.
struct Walk<'a> {
    scope: &'a RelPath,
    budget: Budget<'a>,
    /// Subdirectories are walked on the worker pool; otherwise in order on this thread.
    parallel: bool,
    /// Set by the first failure, so the other threads stop early.
    failed: AtomicBool,
    /// Every directory read so far was watched (see [`super::remember`]).
    vouched: AtomicBool,
    /// The calling thread's call (deadline, cancellation, progress), carried to the pool.
    call: super::deadline::Call,
}

impl Walk<'_> {
    /// Runs the walk of one directory unless another thread's walk has failed, and records a
    /// failure, so the other threads stop early.
    fn guard(&self, walk: impl FnOnce() -> Result<Found, RootError>) -> Result<Found, RootError> {
        if self.failed.load(Ordering::Relaxed) {
            return Err(RootError::NotServed); // another thread's failure is the one reported
        }
        let found = walk();
        if found.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        found
    }
}

/// What a walk of one subtree found.
#[derive(Default)]
struct Found {
    files: Vec<FileEntry>,
}

impl Found {
    fn append(&mut self, mut other: Found) {
        self.files.append(&mut other.files);
    }
}

/// Tree order: compares path segment by segment (each in UTF-16 order), so a directory's
/// contents follow it directly: `a`, `a/b`, `a.txt`.
pub fn compare_tree_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/')
        .zip(b.split('/'))
        .map(|(x, y)| compare_utf16(x, y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.split('/').count().cmp(&b.split('/').count()))
}

impl Root {
    /// Every served regular file at or beneath `scope`, sorted by path. `scope` may name a
    /// directory or one file; a scope that is missing, excluded, or reached through a link
    /// yields nothing. Symbolic links are never followed or listed. A walk is reused while
    /// the root's watcher vouches that nothing it read has changed.
    pub fn inventory(&self, scope: &RelPath) -> Result<Arc<Vec<FileEntry>>, RootError> {
        let key = Key::Inventory(scope.as_str().to_owned());
        let ticket = match self.remembered.get(&key) {
            Ok(Walked::Files(files)) => return Ok(files),
            Ok(_) => unreachable_walk(),
            Err(ticket) => ticket,
        };
        let (Found { mut files }, vouched) = self.walk_scope(scope)?;
        files.sort_by(|a, b| compare_utf16(&a.path, &b.path));
        let files = Arc::new(files);
        self.remembered
            .offer(key, ticket, vouched, Walked::Files(files.clone()));
        Ok(files)
    }

    /// Whether `files`, an [`Root::inventory`] of `scope`, is kept for the calls that follow
    /// (the watcher vouches for it); work derived from a walk that is not kept is not reused.
    pub fn keeps_inventory(&self, scope: &RelPath, files: &Arc<Vec<FileEntry>>) -> bool {
        self.remembered
            .holds(&Key::Inventory(scope.as_str().to_owned()), files)
    }

    /// Walks `scope` (in no particular order: callers sort) for the program-facing tools; the
    /// flag is `true` when every directory read was watched throughout. Subdirectories are walked in parallel on the worker pool; when that
    /// walk fails on a limit, the walk is repeated in order on this thread so that which limit
    /// is reported never depends on scheduling (a call past its deadline or cancelled fails at
    /// once). The call is taken here, on the calling thread: a pool thread has none.
    fn walk_scope(&self, scope: &RelPath) -> Result<(Found, bool), RootError> {
        let call = super::deadline::current();
        let run = |parallel: bool| {
            let walk = Walk {
                scope,
                budget: Budget::new(self, self.limits.ceilings()),
                parallel,
                failed: AtomicBool::new(false),
                vouched: AtomicBool::new(true),
                call: call.clone(),
            };
            let dir = reopen(&self.dir).map_err(|_| RootError::NotServed)?;
            let found = walk.guard(|| self.walk(&dir, &RelPath::root(), None, 0, &[], &walk))?;
            Ok((found, walk.vouched.load(Ordering::Relaxed)))
        };
        let parallel = crate::workers::pool().is_some();
        match crate::workers::install(|| run(parallel)) {
            Err(stop @ (RootError::Deadline | RootError::Cancelled)) => Err(stop),
            Err(_) if parallel => run(false),
            found => found,
        }
    }

    /// Walks the directory `dir` reached as `path` (through [`Walk::guard`]); `real` is its
    /// link-free path when a followed link led to it.
    fn walk(
        &self,
        dir: &OwnedFd,
        path: &RelPath,
        real: Option<&RelPath>,
        depth: u64,
        ancestors: &[(u64, u64)],
        walk: &Walk<'_>,
    ) -> Result<Found, RootError> {
        let scope = walk.scope;
        let entries = self.entries(dir, path, real, depth, &walk.budget, || {
            if !self.remembered.watch_directory(dir) {
                walk.vouched.store(false, Ordering::Relaxed);
            }
        })?;
        let mut found = Found::default();
        // Subdirectories left for the pool: opened there, so no level holds a descriptor per
        // subdirectory at once.
        let mut deferred = Vec::new();
        for entry in entries {
            let (child, stat) = (&entry.child, entry.seen.stat);
            match file_type(&stat) {
                FileType::Directory
                    if scope.contains(child.as_str()) || scope.is_below(child.as_str()) =>
                {
                    if ancestors.contains(&dir_key(&stat)) {
                        continue; // a followed link back into its own ancestry
                    }
                    if walk.parallel && depth < PARALLEL_DEPTH {
                        deferred.push(entry);
                    } else {
                        found.append(self.walk_into(dir, &entry, depth, ancestors, walk)?);
                    }
                }
                FileType::RegularFile
                    if scope.contains(child.as_str()) && self.serves_file(&entry) =>
                {
                    walk.budget.file()?;
                    // A write through a link elsewhere names no directory watched here.
                    if stat.st_nlink > 1 && !self.remembered.watch_entry(dir, &entry.name) {
                        walk.vouched.store(false, Ordering::Relaxed);
                    }
                    found.files.push(FileEntry {
                        path: child.as_str().to_owned(),
                        identity: Identity::of(&stat),
                    });
                }
                _ => {}
            }
        }
        let subtrees: Vec<Result<Found, RootError>> = deferred
            .par_iter()
            .map(|entry| {
                walk.call
                    .clone()
                    .run(|| self.walk_into(dir, entry, depth, ancestors, walk))
            })
            .collect();
        for subtree in subtrees {
            found.append(subtree?);
        }
        Ok(found)
    }

    /// Opens the subdirectory `entry` a walk saw in `dir` and walks it.
    fn walk_into(
        &self,
        dir: &OwnedFd,
        entry: &Entry,
        depth: u64,
        ancestors: &[(u64, u64)],
        walk: &Walk<'_>,
    ) -> Result<Found, RootError> {
        let (child, seen) = (&entry.child, &entry.seen);
        // A directory swapped for a link after the lstat fails to open here.
        let Some(sub) = self.open_seen(dir, entry) else {
            return Ok(Found::default());
        };
        let mut found = Found::default();
        let mut below = ancestors.to_vec();
        below.push(dir_key(&seen.stat));
        let real = seen.target.as_ref();
        found.append(walk.guard(|| self.walk(&sub, child, real, depth + 1, &below, walk))?);
        Ok(found)
    }

    /// The served entries directly under `prefix`, sorted by name. A directory is listed only
    /// when it serves a file at some depth; a prefix that is missing, excluded, not a
    /// directory, or reached through a link lists as empty.
    pub fn list(&self, prefix: &RelPath) -> Result<Arc<Vec<ListEntry>>, RootError> {
        let listed = self.list_with(prefix, false)?;
        match listed.stopped {
            Some(error) => Err(error),
            None => Ok(listed.entries),
        }
    }

    /// Like [`Root::list`]; with `selected_directories` (the model-facing tools' listing), a
    /// directory whose own path the selector serves is listed even when it holds no served
    /// file yet (an empty directory made by a model-facing tool stays visible), only a ceiling
    /// the configuration named applies, and a listing that a ceiling or the call stops holds
    /// the entries before that point, with what stopped it.
    pub fn list_with(
        &self,
        prefix: &RelPath,
        selected_directories: bool,
    ) -> Result<Listed, RootError> {
        let key = Key::List(prefix.as_str().to_owned(), selected_directories);
        let ticket = match self.remembered.get(&key) {
            Ok(Walked::List(entries)) => {
                return Ok(Listed {
                    entries,
                    stopped: None,
                });
            }
            Ok(_) => unreachable_walk(),
            Err(ticket) => ticket,
        };
        // The directories leading to the prefix: renaming or replacing one changes the listing.
        // Each is opened from its parent, once, without following a link.
        let mut vouched = self.remembered.watch_directory(&self.dir);
        let mut parent = None;
        for segment in prefix.as_str().split('/').filter(|s| !s.is_empty()) {
            let opened = match &parent {
                None => open_dir_at(&self.dir, segment),
                Some(dir) => open_dir_at(dir, segment),
            };
            match opened {
                Ok(dir) if vouched => {
                    vouched = self.remembered.watch_directory(&dir);
                    parent = Some(dir);
                }
                _ => {
                    vouched = false;
                    break;
                }
            }
        }
        let mut vouched_walk = vouched;
        let (entries, stopped) =
            self.list_uncached(prefix, selected_directories, &mut vouched_walk)?;
        let entries = Arc::new(entries);
        if stopped.is_none() {
            self.remembered
                .offer(key, ticket, vouched_walk, Walked::List(entries.clone()));
        }
        Ok(Listed { entries, stopped })
    }

    /// The listing, and what stopped it before its end, if anything.
    fn list_uncached(
        &self,
        prefix: &RelPath,
        selected_directories: bool,
        vouched: &mut bool,
    ) -> Result<(Vec<ListEntry>, Option<RootError>), RootError> {
        let depth = prefix.depth() as u64;
        if depth > self.limits.max_depth {
            return Err(RootError::DepthLimit);
        }
        let empty = Ok((Vec::new(), None));
        if self.selector.excludes_ancestor(prefix) {
            return empty;
        }
        let Ok(resolved) = self.resolve(prefix, true) else {
            return empty;
        };
        if self.selector.excludes_ancestor(&resolved) {
            return empty;
        }
        let Some(dir) = open_dir_chain(&self.dir, &resolved) else {
            return empty;
        };
        // The levels above the prefix count as entered, as a walk from the root would have.
        // A listing that shows selected empty directories is the model-facing tools'.
        let ceilings = if selected_directories {
            self.limits.named_ceilings()
        } else {
            self.limits.ceilings()
        };
        let budget = Budget::new(self, ceilings);
        budget.directories.store(depth, Ordering::Relaxed);
        let real = (resolved != *prefix).then_some(&resolved);
        let entries = match self.entries(&dir, prefix, real, depth, &budget, || {
            *vouched = *vouched && self.remembered.watch_directory(&dir);
        }) {
            Ok(entries) => entries,
            Err(stop) => return Ok((Vec::new(), Some(stop))),
        };
        let mut listed = Vec::new();
        for entry in entries {
            let kind = match file_type(&entry.seen.stat) {
                FileType::Directory => {
                    let Some(sub) = self.open_seen(&dir, &entry) else {
                        continue;
                    };
                    let shown = selected_directories && self.selector.selects(entry.child.as_str());
                    let mut ancestors = vec![dir_key(&entry.seen.stat)];
                    if !shown {
                        match self.probe(&sub, &entry, depth + 1, &budget, &mut ancestors, vouched)
                        {
                            Ok(true) => {}
                            Ok(false) => continue,
                            Err(stop) => return Ok((listed, Some(stop))),
                        }
                    }
                    EntryKind::Directory
                }
                FileType::RegularFile if self.serves_file(&entry) => EntryKind::File,
                // A link the model-facing tools can name (read says to follow it, delete
                // removes it) is listed as one rather than left out in silence.
                FileType::Symlink
                    if selected_directories && self.selector.selects(entry.child.as_str()) =>
                {
                    EntryKind::Link
                }
                _ => continue,
            };
            // Every entry listed counts against --max-files, a directory as well as a file.
            if let Err(stop) = budget.file() {
                return Ok((listed, Some(stop)));
            }
            listed.push(ListEntry {
                path: entry.child.as_str().to_owned(),
                name: entry.name,
                kind,
            });
        }
        Ok((listed, None))
    }

    /// Whether `dir` serves any file at any depth. Every entry of a probed directory is read
    /// and charged before any is examined, so the charge never depends on readdir order;
    /// files at one level are checked before descending, and the probe stops at the first hit.
    fn probe(
        &self,
        dir: &OwnedFd,
        probed: &Entry,
        depth: u64,
        budget: &Budget<'_>,
        ancestors: &mut Vec<(u64, u64)>,
        vouched: &mut bool,
    ) -> Result<bool, RootError> {
        let real = probed.seen.target.as_ref();
        let entries = self.entries(dir, &probed.child, real, depth, budget, || {
            *vouched = *vouched && self.remembered.watch_directory(dir);
        })?;
        let mut subdirectories = Vec::new();
        for entry in entries {
            match file_type(&entry.seen.stat) {
                FileType::RegularFile if self.serves_file(&entry) => return Ok(true),
                FileType::Directory => subdirectories.push(entry),
                _ => {}
            }
        }
        for entry in subdirectories {
            let key = dir_key(&entry.seen.stat);
            if ancestors.contains(&key) {
                continue;
            }
            if let Some(sub) = self.open_seen(dir, &entry) {
                ancestors.push(key);
                let found = self.probe(&sub, &entry, depth + 1, budget, ancestors, vouched);
                ancestors.pop();
                if found? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}

/// A kept walk of another kind under a key: keys name their kind, so this cannot happen.
#[cold]
fn unreachable_walk() -> ! {
    unreachable!("a kept walk's key names its kind")
}
