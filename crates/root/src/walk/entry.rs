//! The step every walk takes into a directory and over each entry in it: the budget charged,
//! the names read in order, and each entry seen, excluded names and links skipped before any
//! `stat`. The walks differ only in what they then do with an entry.

use crate::sys::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys::fs::FileType;

use crate::dir::{file_type, lstat_at, open_dir_at, open_dir_chain, read_names};
use crate::limits::Ceilings;
use crate::{Identity, RelPath, Root, RootError, compare_utf16};

/// Counters charged against the root's limits during one traversal; shared by the threads of
/// a parallel walk.
pub(super) struct Budget<'a> {
    root: &'a Root,
    ceilings: Ceilings,
    pub(super) directories: AtomicU64,
    entries: AtomicU64,
    files: AtomicU64,
}

impl<'a> Budget<'a> {
    /// A budget of `ceilings` (the root's own, or only its named ones: [`Limits::named_ceilings`]).
    ///
    /// [`Limits::named_ceilings`]: crate::limits::Limits::named_ceilings
    pub(super) fn new(root: &'a Root, ceilings: Ceilings) -> Self {
        Budget {
            root,
            ceilings,
            directories: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            files: AtomicU64::new(0),
        }
    }

    pub(super) fn enter(&self, depth: u64) -> Result<(), RootError> {
        if depth > self.root.limits.max_depth {
            return Err(RootError::DepthLimit);
        }
        if self.directories.fetch_add(1, Ordering::Relaxed) >= self.ceilings.directories {
            return Err(RootError::DirectoryLimit);
        }
        Ok(())
    }

    pub(super) fn read(&self, dir: impl AsFd) -> Result<Vec<String>, RootError> {
        crate::deadline::check()?;
        let max = self.ceilings.entries;
        let mut names = read_names(dir, || {
            if self.entries.fetch_add(1, Ordering::Relaxed) >= max {
                Err(RootError::EntryLimit)
            } else {
                Ok(())
            }
        })?;
        names.sort_by(|a, b| compare_utf16(a, b));
        Ok(names)
    }

    /// Charges the `count` entries of one directory read elsewhere (the call's deadline is
    /// checked first, as for a read here).
    pub(super) fn charge_read(&self, count: u64) -> Result<(), RootError> {
        crate::deadline::check()?;
        let read = self.entries.fetch_add(count, Ordering::Relaxed);
        if read.saturating_add(count) > self.ceilings.entries {
            return Err(RootError::EntryLimit);
        }
        Ok(())
    }

    /// Charges one more served file.
    pub(super) fn file(&self) -> Result<(), RootError> {
        if self.files.fetch_add(1, Ordering::Relaxed) >= self.ceilings.files {
            return Err(RootError::FileLimit);
        }
        Ok(())
    }
}

/// An entry as a walk sees it: its own `lstat`, or, for a followed link, the `lstat` of the
/// link-free path it resolves to.
pub(super) struct Seen {
    pub(super) stat: crate::sys::fs::Stat,
    /// The entry's link-free path, where it differs from the path the walk reached it by (a
    /// followed link, or anything below one).
    pub(super) target: Option<RelPath>,
    /// Whether the entry itself is a followed link.
    link: bool,
}

/// One entry of a directory a walk reads, not excluded and seen.
pub(super) struct Entry {
    /// Its name in the directory.
    pub(super) name: String,
    /// Its path as the walk reached it.
    pub(super) child: RelPath,
    pub(super) seen: Seen,
}

/// The entries of one directory in name order. Each is seen only when taken, so a walk that
/// descends into one entry before taking the next makes its system calls in the same order.
pub(super) struct Entries<'s> {
    root: &'s Root,
    dir: &'s OwnedFd,
    path: &'s RelPath,
    real: Option<&'s RelPath>,
    names: std::vec::IntoIter<String>,
}

impl Iterator for Entries<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        let Entries {
            root,
            dir,
            path,
            real,
            names,
        } = self;
        names.find_map(|name| root.entry(dir, path, *real, name))
    }
}

impl Root {
    /// Enters `dir`, reached as `path` at `depth`, for a walk: charges it against
    /// `--max-depth` and `--max-directories`, calls `watch` (a directory is watched before it
    /// is read, so a change after the read raises an event), then reads its names, charging
    /// each against `--max-entries`. `real` is its link-free path when a followed link led to
    /// it.
    pub(super) fn entries<'s>(
        &'s self,
        dir: &'s OwnedFd,
        path: &'s RelPath,
        real: Option<&'s RelPath>,
        depth: u64,
        budget: &Budget<'_>,
        watch: impl FnOnce(),
    ) -> Result<Entries<'s>, RootError> {
        budget.enter(depth)?;
        watch();
        Ok(Entries {
            root: self,
            dir,
            path,
            real,
            names: budget.read(dir)?.into_iter(),
        })
    }

    /// The entry `name` of `dir`, or `None` when a walk skips it: a name no path may hold, an
    /// excluded path (before any `stat`, so an excluded tree costs nothing), or what
    /// [`Root::see`] skips.
    pub(super) fn entry(
        &self,
        dir: &OwnedFd,
        path: &RelPath,
        real: Option<&RelPath>,
        name: String,
    ) -> Option<Entry> {
        let child = RelPath::from_walk(path.join(&name))?;
        if self.selector.excludes(child.as_str()) {
            return None;
        }
        let seen = self.see(dir, &name, &child, real)?;
        Some(Entry { name, child, seen })
    }

    /// The entry `name` of the directory reached as `path`, from the `lstat` taken when the
    /// directory was read ahead (links are not followed on this root); `None` when a walk
    /// skips it, as [`Root::entry`] would.
    pub(super) fn entry_seen(
        &self,
        path: &RelPath,
        name: String,
        stat: Option<crate::sys::fs::Stat>,
    ) -> Option<Entry> {
        let child = RelPath::from_walk(path.join(&name))?;
        if self.selector.excludes(child.as_str()) {
            return None;
        }
        Some(Entry {
            name,
            child,
            seen: Seen {
                stat: stat?,
                target: None,
                link: false,
            },
        })
    }

    /// How a walk sees `name` in `dir`: its own `lstat`, or with links followed, the `lstat`
    /// of the served, link-free path a link resolves to. `None` for what is skipped.
    /// `real` is the link-free path of `dir` when a followed link led to it: what lies below
    /// is then held to the selector under its real path too.
    fn see(
        &self,
        dir: &OwnedFd,
        name: &str,
        child: &RelPath,
        real: Option<&RelPath>,
    ) -> Option<Seen> {
        let stat = lstat_at(dir, name)?;
        if file_type(&stat) != FileType::Symlink || !self.follow_symlinks {
            let target = match real {
                None => None,
                Some(real) => {
                    let target = RelPath::from_walk(real.join(name))?;
                    if self.selector.excludes(target.as_str()) {
                        return None;
                    }
                    Some(target)
                }
            };
            return Some(Seen {
                stat,
                target,
                link: false,
            });
        }
        let target = self.resolve(child, true).ok()?;
        if self.selector.excludes_ancestor(&target) {
            return None;
        }
        let parent = open_dir_chain(&self.dir, &target.parent()?)?;
        let stat = lstat_at(&parent, target.file_name()?)?;
        (file_type(&stat) != FileType::Symlink).then_some(Seen {
            stat,
            target: Some(target),
            link: true,
        })
    }

    /// Opens a directory entry a walk saw, through the link-free path when it was reached by a
    /// link.
    pub(super) fn open_seen(&self, dir: &OwnedFd, entry: &Entry) -> Option<OwnedFd> {
        match &entry.seen.target {
            Some(target) if entry.seen.link => open_dir_chain(&self.dir, target),
            _ => open_dir_at(dir, &entry.name).ok(),
        }
    }

    /// Whether a regular file a walk saw is served: selected (an entry reached through a link
    /// under its link-free path as well as under the walk's) and within `--max-file-bytes`.
    pub(super) fn serves_file(&self, entry: &Entry) -> bool {
        self.selector.selects(entry.child.as_str())
            && entry
                .seen
                .target
                .as_ref()
                .is_none_or(|t| self.selector.selects(t.as_str()))
            && Identity::of(&entry.seen.stat).size <= self.limits.max_file_bytes
    }
}

/// (device, inode) of a directory, to recognise it when a followed link leads back to it.
pub(super) fn dir_key(stat: &crate::sys::fs::Stat) -> (u64, u64) {
    let identity = Identity::of(stat);
    (identity.dev, identity.ino)
}
