//! Remembered walks: the result of a walk, reused while the [`Watcher`] vouches that nothing it
//! read has changed since.
//!
//! A walk asks for a [`Ticket`] first (which drains pending events), tells the watcher about
//! each directory before reading it, and offers its result back with the ticket. The result is
//! kept only if every directory was watched and no event arrived between the ticket and the
//! offer; any later event drops every kept walk. A kept walk is also dropped after
//! [`MAX_AGE`](super::watch::MAX_AGE). Walks that follow symbolic links are never kept (a
//! link's target lies outside what the walk watched).
//!
//! Correctness never rests on the watcher alone: a file a tool goes on to open is still checked
//! against the identity the walk recorded, and a cursor binds that identity.

use crate::sys::fd::AsFd;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::watch::{Adder, MAX_AGE, Watcher};
use super::{FileEntry, ListEntry, TreeWalk};

/// Most walks kept at once.
const MAX_KEPT: usize = 16;
/// Most entries (files, directories, listed names) across the kept walks.
const MAX_KEPT_ENTRIES: usize = 1 << 20;

/// Which walk of which scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// [`Root::inventory`](super::Root::inventory) of a scope.
    Inventory(String),
    /// A whole [`Root::in_order`](super::Root::in_order) walk of a scope, or one its caller
    /// prunes by the fixed rule the label names
    /// ([`Root::in_order_pruned`](super::Root::in_order_pruned)), and whether it skipped what
    /// `.gitignore` files ignore: a walk with them and one without never share an entry.
    Tree(String, Option<&'static str>, bool),
    /// [`Root::list_with`](super::Root::list_with) of a prefix, with or without selected
    /// empty directories.
    List(String, bool),
    /// [`Root::tree_digest`](super::Root::tree_digest) of a scope.
    Digest(String),
}

/// What a walk found.
#[derive(Debug, Clone)]
pub(super) enum Walked {
    /// Served files.
    Files(Arc<Vec<FileEntry>>),
    /// Served files, the directories entered and those too deep to enter.
    Tree(TreeWalk),
    /// One level of a directory.
    List(Arc<Vec<ListEntry>>),
    /// The digest of a tree's metadata.
    Digest(String),
}

impl Walked {
    fn entries(&self) -> usize {
        match self {
            Walked::Files(files) => files.len(),
            Walked::Tree(walked) => walked.files.len() + walked.directories.len(),
            Walked::List(entries) => entries.len(),
            Walked::Digest(_) => 1,
        }
    }
}

/// Taken before a walk: the watcher's generation at its start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ticket {
    generation: u64,
}

#[derive(Debug)]
struct Kept {
    walked: Walked,
    taken: Instant,
}

#[derive(Debug, Default)]
struct Inner {
    watcher: Option<Watcher>,
    /// Bumped whenever the watcher reports a change.
    generation: u64,
    kept: HashMap<Key, Kept>,
    /// Keys, oldest first.
    order: VecDeque<Key>,
    entries: usize,
}

impl Inner {
    /// Drains the watcher; drops everything kept when something changed.
    fn refresh(&mut self) {
        let changed = self.watcher.as_mut().is_none_or(Watcher::changed);
        if changed {
            self.generation += 1;
            self.kept.clear();
            self.order.clear();
            self.entries = 0;
        }
    }

    fn evict_oldest(&mut self) {
        if let Some(key) = self.order.pop_front()
            && let Some(kept) = self.kept.remove(&key)
        {
            self.entries -= kept.walked.entries();
        }
    }
}

/// The walks one root keeps, and the watcher vouching for them.
#[derive(Debug, Default)]
pub(super) struct Remembered {
    inner: Mutex<Inner>,
}

impl Remembered {
    /// Walks kept while a watcher vouches for them; `enabled == false` (or no inotify) keeps
    /// nothing.
    pub(super) fn new(enabled: bool) -> Remembered {
        Remembered {
            inner: Mutex::new(Inner {
                watcher: if enabled { Watcher::new() } else { None },
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The kept walk for `key`, or a ticket to offer a new one with.
    pub(super) fn get(&self, key: &Key) -> Result<Walked, Ticket> {
        let mut inner = self.lock();
        inner.refresh();
        if let Some(kept) = inner.kept.get(key) {
            if kept.taken.elapsed() < MAX_AGE {
                tracing::trace!(?key, "walk reused");
                return Ok(kept.walked.clone());
            }
            if let Some(kept) = inner.kept.remove(key) {
                inner.entries -= kept.walked.entries();
            }
            inner.order.retain(|k| k != key);
        }
        Err(Ticket {
            generation: inner.generation,
        })
    }

    /// Whether `files` is the walk kept for `key`: one a later call will be handed again.
    pub(super) fn holds(&self, key: &Key, files: &Arc<Vec<FileEntry>>) -> bool {
        match self.lock().kept.get(key).map(|kept| &kept.walked) {
            Some(Walked::Files(kept)) => Arc::ptr_eq(kept, files),
            Some(Walked::Tree(walked)) => Arc::ptr_eq(&walked.files, files),
            _ => false,
        }
    }

    /// Watches a directory a walk is about to read; `false` when its changes could go unseen.
    pub(super) fn watch_directory(&self, dir: impl AsFd) -> bool {
        self.watch(|adder| adder.watch_directory(dir))
    }

    /// Watches `name` in `dir`, a file with several links, not following a link.
    pub(super) fn watch_entry(&self, dir: impl AsFd, name: &str) -> bool {
        self.watch(|adder| adder.watch_entry(dir, name))
    }

    /// A handle to add a watch with on another thread (see [`Remembered::record`]); `None`
    /// when nothing can be watched.
    pub(super) fn adder(&self) -> Option<Adder> {
        self.lock().watcher.as_ref().and_then(Watcher::adder)
    }

    /// Records a watch an [`Adder`] added; `false` when none was added.
    pub(super) fn record(&self, wd: Option<i32>) -> bool {
        self.lock().watcher.as_mut().is_some_and(|w| w.record(wd))
    }

    /// Adds a watch outside the lock (so the threads of a walk add theirs at once) and records
    /// it under the lock; `false` when none was added.
    fn watch(&self, add: impl FnOnce(&Adder) -> Option<i32>) -> bool {
        let Some(adder) = self.adder() else {
            return false;
        };
        self.record(add(&adder))
    }

    /// Keeps `walked` if the walk that found it was watched throughout (`vouched`) and nothing
    /// changed since `ticket`.
    pub(super) fn offer(&self, key: Key, ticket: Ticket, vouched: bool, walked: Walked) {
        let mut inner = self.lock();
        inner.refresh();
        let size = walked.entries();
        if !vouched || inner.generation != ticket.generation || size > MAX_KEPT_ENTRIES {
            return;
        }
        if let Some(old) = inner.kept.remove(&key) {
            inner.entries -= old.walked.entries();
            inner.order.retain(|k| *k != key);
        }
        while !inner.order.is_empty()
            && (inner.order.len() >= MAX_KEPT || inner.entries + size > MAX_KEPT_ENTRIES)
        {
            inner.evict_oldest();
        }
        inner.entries += size;
        inner.order.push_back(key.clone());
        inner.kept.insert(
            key,
            Kept {
                walked,
                taken: Instant::now(),
            },
        );
    }
}
