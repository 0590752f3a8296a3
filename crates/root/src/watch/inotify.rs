//! The inotify watcher (Linux).

use crate::sys::fd::{AsFd, AsRawFd, OwnedFd};
use std::collections::HashSet;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::sys::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use crate::sys::io::Errno;

use super::{LOCAL_FILESYSTEMS, MAX_WATCHES};

/// What a directory's watch reports: its entries created, deleted, moved, written or changed
/// in attributes, and the directory itself deleted or moved. Never opens, reads or closes
/// without writing, so the server's own reads raise nothing.
fn directory_events() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MODIFY
        | WatchFlags::ATTRIB
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
}

/// What a multiply-linked file's watch reports: writes and attribute changes.
fn file_events() -> WatchFlags {
    WatchFlags::MODIFY | WatchFlags::ATTRIB | WatchFlags::CLOSE_WRITE | WatchFlags::DELETE_SELF
}

/// One inotify instance and the watches it holds.
#[derive(Debug)]
pub struct Watcher {
    fd: Arc<OwnedFd>,
    /// Watch descriptors held (the kernel gives one per inode, however often it is added).
    watches: HashSet<i32>,
    /// Set once the watcher has missed something it cannot recover (a read error).
    broken: bool,
}

impl Watcher {
    /// A new watcher, or `None` when inotify is not available (or the portable fallbacks are
    /// forced for a test run).
    pub fn new() -> Option<Watcher> {
        if crate::platform::portable() {
            return None;
        }
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        Some(Watcher {
            fd: Arc::new(fd),
            watches: HashSet::new(),
            broken: false,
        })
    }

    /// Watches a directory about to be read; `false` when changes in it could go unseen.
    #[cfg(test)]
    fn watch_directory(&mut self, dir: impl AsFd) -> bool {
        let wd = self.adder().and_then(|adder| adder.watch_directory(dir));
        self.record(wd)
    }

    /// Watches `name` in the directory `dir` (a file with several links), not following a
    /// link; `false` when its changes could go unseen.
    #[cfg(test)]
    fn watch_entry(&mut self, dir: impl AsFd, name: &str) -> bool {
        let wd = self.adder().and_then(|adder| adder.watch_entry(dir, name));
        self.record(wd)
    }

    /// A handle that adds watches without holding whatever guards this watcher (adding one
    /// resolves a `/proc` path: the slow part, which threads of one walk can do at once);
    /// `None` once the watcher is broken or full.
    pub fn adder(&self) -> Option<Adder> {
        (!self.broken && self.watches.len() < MAX_WATCHES).then(|| Adder(self.fd.clone()))
    }

    /// Records a watch an [`Adder`] added; `false` (changes could go unseen) for none, or when
    /// the watcher broke or filled up meanwhile.
    pub fn record(&mut self, wd: Option<i32>) -> bool {
        match wd {
            Some(wd) if !self.broken && self.watches.len() < MAX_WATCHES => {
                self.watches.insert(wd);
                true
            }
            _ => false,
        }
    }
}

/// Adds watches to a [`Watcher`]'s inotify instance; the watcher records what it adds.
#[derive(Debug)]
pub struct Adder(Arc<OwnedFd>);

impl Adder {
    /// Watches a directory about to be read; `None` when changes in it could go unseen.
    pub fn watch_directory(&self, dir: impl AsFd) -> Option<i32> {
        self.watch(dir, None, directory_events())
    }

    /// Watches `name` in `dir` (a file with several links), not following a link.
    pub fn watch_entry(&self, dir: impl AsFd, name: &str) -> Option<i32> {
        self.watch(dir, Some(name), file_events() | WatchFlags::DONT_FOLLOW)
    }

    fn watch(&self, dir: impl AsFd, name: Option<&str>, events: WatchFlags) -> Option<i32> {
        let dir = dir.as_fd();
        // `f_type`'s integer type differs between platforms.
        #[allow(clippy::unnecessary_cast)]
        let local = crate::sys::fs::fstatfs(dir)
            .is_ok_and(|fs| LOCAL_FILESYSTEMS.contains(&(fs.f_type as i64)));
        if !local {
            return None;
        }
        // The descriptor's own name: nothing above it is resolved again.
        let mut path = format!("/proc/self/fd/{}", dir.as_raw_fd());
        if let Some(name) = name {
            path.push('/');
            path.push_str(name);
        }
        inotify::add_watch(&self.0, path.as_str(), events).ok()
    }
}

impl Watcher {
    /// Reads every pending event; `true` when anything changed (or may have) since the last
    /// call. Never blocks.
    pub fn changed(&mut self) -> bool {
        if self.broken {
            return true;
        }
        let mut buffer = [MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(&self.fd, &mut buffer);
        let mut changed = false;
        loop {
            match reader.next() {
                Ok(event) => {
                    if event.events().contains(ReadFlags::IGNORED) {
                        self.watches.remove(&event.wd());
                    }
                    changed = true;
                }
                Err(Errno::AGAIN) => return changed,
                Err(Errno::INTR) => {}
                Err(_) => {
                    self.broken = true;
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // the test changes its tree with std::fs

    use super::*;

    fn open_dir(path: &std::path::Path) -> OwnedFd {
        crate::sys::fs::open(
            path,
            crate::sys::fs::OFlags::RDONLY
                | crate::sys::fs::OFlags::DIRECTORY
                | crate::sys::fs::OFlags::CLOEXEC,
            crate::sys::fs::Mode::empty(),
        )
        .unwrap()
    }

    #[test]
    fn changes_in_a_watched_directory_are_seen_and_reads_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let Some(mut watcher) = Watcher::new() else {
            return; // no inotify here: nothing to test
        };
        std::fs::write(tmp.path().join("a.txt"), b"one").unwrap();
        let dir = open_dir(tmp.path());
        if !watcher.watch_directory(&dir) {
            return; // a filesystem the watcher declines (the tests' temp dir is local here)
        }
        assert!(!watcher.changed());
        // Reading raises nothing.
        assert_eq!(std::fs::read(tmp.path().join("a.txt")).unwrap(), b"one");
        let _ = std::fs::read_dir(tmp.path()).unwrap().count();
        assert!(!watcher.changed());
        // Writing, creating, renaming and deleting each raise something.
        std::fs::write(tmp.path().join("a.txt"), b"two").unwrap();
        assert!(watcher.changed());
        assert!(!watcher.changed(), "drained");
        std::fs::write(tmp.path().join("b.txt"), b"new").unwrap();
        assert!(watcher.changed());
        std::fs::rename(tmp.path().join("b.txt"), tmp.path().join("c.txt")).unwrap();
        assert!(watcher.changed());
        std::fs::remove_file(tmp.path().join("c.txt")).unwrap();
        assert!(watcher.changed());
        // Many events at once drain in one call.
        for i in 0..2000 {
            std::fs::write(tmp.path().join(format!("n{i}")), b"x").unwrap();
        }
        assert!(watcher.changed());
        assert!(!watcher.changed());
    }

    #[test]
    fn a_write_through_another_link_is_seen_on_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let Some(mut watcher) = Watcher::new() else {
            return;
        };
        std::fs::create_dir(tmp.path().join("served")).unwrap();
        std::fs::write(tmp.path().join("served/f"), b"one").unwrap();
        std::fs::hard_link(tmp.path().join("served/f"), tmp.path().join("elsewhere")).unwrap();
        let dir = open_dir(&tmp.path().join("served"));
        if !watcher.watch_directory(&dir) || !watcher.watch_entry(&dir, "f") {
            return;
        }
        assert!(!watcher.changed());
        std::fs::write(tmp.path().join("elsewhere"), b"two").unwrap();
        assert!(watcher.changed());
    }
}
