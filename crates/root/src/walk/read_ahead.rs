//! Directories read ahead of an in-order walk on the worker pool: a directory is watched, its
//! names read and sorted, and each name `lstat`ed there, while the walk is still busy with the
//! directories before it. The walk itself decides, in order, what each entry is: it applies
//! the selector, charges the budget and checks the call, so the answer and the limit it meets
//! never depend on scheduling.

use crate::sys::fd::OwnedFd;
use std::sync::mpsc;

use crate::sys::fs::Stat;

use crate::compare_utf16;
use crate::dir::{lstat_at, read_names};
use crate::watch::Adder;

/// One directory read.
pub(super) struct Listing {
    /// The directory, open.
    pub(super) dir: OwnedFd,
    /// Its names (UTF-8, not temp files) in order, each with its `lstat` when `stats` (`None`
    /// for a name that vanished meanwhile).
    pub(super) names: Vec<(String, Option<Stat>)>,
    /// Whether `names` carries each name's `lstat`.
    pub(super) stats: bool,
    /// Entries read, every one counted (what the budget charges).
    pub(super) read: u64,
    /// The watch added before the names were read, if any.
    pub(super) watch: Option<i32>,
}

/// Watches `dir` (when there is a watcher), then reads its names in order and, with `stats`,
/// `lstat`s each one.
pub(super) fn read_listing(dir: OwnedFd, adder: Option<&Adder>, stats: bool) -> Listing {
    let watch = adder.and_then(|adder| adder.watch_directory(&dir));
    let mut read = 0u64;
    let mut names = read_names(&dir, || -> Result<(), std::convert::Infallible> {
        read += 1;
        Ok(())
    })
    .unwrap_or_default();
    names.sort_by(|a, b| compare_utf16(a, b));
    let names = names
        .into_iter()
        .map(|name| {
            let stat = if stats { lstat_at(&dir, &name) } else { None };
            (name, stat)
        })
        .collect();
    Listing {
        dir,
        names,
        stats,
        read,
        watch,
    }
}

/// A directory being read on the worker pool.
pub(super) struct Pending(mpsc::Receiver<Listing>);

impl Pending {
    /// Starts reading `dir` (with each name's `lstat`) on the worker pool, or here when there
    /// is no pool.
    pub(super) fn start(dir: OwnedFd, adder: Option<Adder>) -> Pending {
        let (send, receive) = mpsc::sync_channel(1);
        match crate::workers::pool() {
            Some(pool) => pool.spawn(move || {
                // The walk may have ended meanwhile: nobody waits, and the listing is dropped.
                let _ = send.send(read_listing(dir, adder.as_ref(), true));
            }),
            None => {
                let _ = send.send(read_listing(dir, adder.as_ref(), true));
            }
        }
        Pending(receive)
    }

    /// The listing, once read; `None` if the reading job was lost. A pool thread waiting here
    /// runs the pool's other jobs meanwhile, so walks that wait on each other's reads cannot
    /// hold every thread of the pool.
    pub(super) fn wait(self) -> Option<Listing> {
        loop {
            match self.0.try_recv() {
                Ok(listing) => return Some(listing),
                Err(mpsc::TryRecvError::Disconnected) => return None,
                Err(mpsc::TryRecvError::Empty) => match rayon::yield_now() {
                    Some(rayon::Yield::Executed) => {}
                    Some(rayon::Yield::Idle) => std::thread::yield_now(),
                    // Not a pool thread: the pool's threads will run the job.
                    None => return self.0.recv().ok(),
                },
            }
        }
    }
}
