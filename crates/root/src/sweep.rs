//! Stale temp entries: what a killed write or copy left, found and removed at start-up.
//!
//! Writes and copies build under reserved names (`.fsmcp-<hex>.tmp`) that no tool shows or
//! names, so what a killed server left behind stays on disk unseen: hundreds of megabytes of
//! an unfinished copy, and a directory that a recursive delete, move or copy then refuses as
//! holding what it cannot show. Another fsmcp may serve the same root at the same time, so an
//! entry is removed only when no live process is building it. On Unix the builder holds an
//! advisory `flock(LOCK_EX)` on its temp file or directory from the moment it makes it until
//! it is renamed into place or removed ([`hold`]); the sweep opens each candidate without
//! following a link and takes the lock without waiting: if it gets it, nobody is building the
//! entry, and it is removed (a directory with everything in it) while the lock is held. The
//! builder checks, once it holds its lock, that the name still names what it made, so a sweep
//! that took the lock first cannot leave it building an orphan. Windows has no lock on a
//! directory handle, so there an entry is stale once untouched for [`WINDOWS_STALE_AFTER`].
//!
//! The sweep walks the root as every door does (one no-follow open per directory, relative to
//! the directory above), skips excluded directories (no write lands there), enters no link,
//! and stops after [`SWEEP_MAX_ENTRIES`] directory entries or [`SWEEP_MAX_TIME`]; the next
//! start-up takes up what it left.

use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::sys::fd::{AsFd, BorrowedFd, OwnedFd};
use crate::sys::fs::{AtFlags, FileType, Mode, OFlags};

use super::Root;
use super::dir::{TEMP_PREFIX, TEMP_SUFFIX, file_type, lstat_at, open_dir_at, reopen};
use super::location::inode_of;

/// Most directory entries one sweep reads (the entries of removed temp directories
/// included) before it stops.
pub const SWEEP_MAX_ENTRIES: u64 = 200_000;

/// How long after start-up the sweep begins: a server that answers one call and exits (a
/// host's probe, a script, `scripts/bench`) never shares the machine with it. Measured on the
/// medium corpus, a sweep beside each call slowed the walking tools by 8 % to 45 %.
pub const SWEEP_DELAY: Duration = Duration::from_secs(2);

/// Longest one sweep runs before it stops.
pub const SWEEP_MAX_TIME: Duration = Duration::from_secs(30);

/// On Windows, which has no advisory lock on a directory, how long a temp entry must have
/// gone unmodified before a sweep takes it for stale: twice the longest call deadline
/// (`--max-call-seconds` is at most a day), so no live call can still be building it.
pub const WINDOWS_STALE_AFTER: Duration = Duration::from_secs(2 * 86_400);

/// What a sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    /// Stale temp entries removed (a directory counts once, with what it held).
    pub removed: u64,
    /// Temp entries a live process is building, left in place.
    pub held: u64,
    /// Stale temp entries that could not be removed whole (a permission, a budget spent
    /// midway), left for the next start-up.
    pub left: u64,
    /// Whether the whole root was looked at (false: a bound stopped the sweep).
    pub complete: bool,
}

/// A sweep's bounds: entries it may still read, and when it must stop.
pub(crate) struct Budget {
    entries: u64,
    until: Option<Instant>,
}

impl Budget {
    /// No bound: for removing a temp directory this process itself made.
    pub(crate) fn unbounded() -> Budget {
        Budget {
            entries: u64::MAX,
            until: None,
        }
    }

    fn new(entries: u64, time: Duration) -> Budget {
        Budget {
            entries,
            until: Instant::now().checked_add(time),
        }
    }

    /// Spends one entry; false once the budget is gone.
    fn spend(&mut self) -> bool {
        if self.entries == 0 || self.until.is_some_and(|until| Instant::now() >= until) {
            self.entries = 0;
            return false;
        }
        self.entries -= 1;
        true
    }

    fn spent(&self) -> bool {
        self.entries == 0
    }
}

/// Whether `name` is one fsmcp itself gives its temp entries: the reserved prefix, lowercase
/// hexadecimal digits, the reserved suffix. A name that only looks reserved
/// (`.fsmcp-notes.tmp`) is not fsmcp's and is never removed.
pub(crate) fn is_own_temp_name(name: &str) -> bool {
    name.strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
        .is_some_and(|hex| {
            !hex.is_empty()
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// Takes the builder's lock on the temp entry `fd` just made as `name` in `dir`, and checks
/// that the name still names it. False when a sweep holds it (it took the entry for stale in
/// the instant between its making and this lock) or has removed it: the caller makes another.
/// Windows has no such lock (see [`WINDOWS_STALE_AFTER`]), so there this is always true.
pub(crate) fn hold(fd: &OwnedFd, dir: impl AsFd, name: &str) -> bool {
    #[cfg(unix)]
    {
        use rustix::fs::FlockOperation;
        match rustix::fs::flock(fd, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            // A filesystem without locks (some network ones): a sweep cannot lock there
            // either, so it takes nothing for stale.
            Err(rustix::io::Errno::NOLCK | rustix::io::Errno::OPNOTSUPP) => {}
            Err(_) => return false,
        }
    }
    let Ok(made) = crate::sys::fs::fstat(fd) else {
        return false;
    };
    lstat_at(dir, name).is_some_and(|now| inode_of(&now) == inode_of(&made))
}

/// Whether the temp entry `fd` (whose `stat` is `stat`) is built by nobody: on Unix, whether
/// its lock can be taken now (and it is then held until `fd` is closed); on Windows, whether
/// it has gone unmodified for [`WINDOWS_STALE_AFTER`].
fn is_stale(fd: &OwnedFd, stat: &crate::sys::fs::Stat) -> bool {
    #[cfg(unix)]
    {
        let _ = stat;
        rustix::fs::flock(fd, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok()
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        let modified =
            std::time::UNIX_EPOCH + Duration::from_secs(u64::try_from(stat.st_mtime).unwrap_or(0));
        std::time::SystemTime::now()
            .duration_since(modified)
            .is_ok_and(|age| age >= WINDOWS_STALE_AFTER)
    }
}

/// What became of one temp entry.
enum Fate {
    Removed,
    Held,
    Left,
    /// Not fsmcp's to remove (a link, a FIFO, a name reused meanwhile), or gone already.
    Ignored,
}

impl Root {
    /// Removes the stale temp entries below the root (module docs): bounded, following no
    /// link, entering no excluded directory, never leaving the root. Runs outside any call.
    pub fn sweep_stale_temps(&self) -> Swept {
        let mut budget = Budget::new(SWEEP_MAX_ENTRIES, SWEEP_MAX_TIME);
        let mut swept = Swept::default();
        let Ok(top) = reopen(&self.dir) else {
            return swept;
        };
        // Directories still to read: the descriptor of the one holding each (`None` for the
        // root), its name there, its path below the root and its depth. A directory is
        // opened when it is read, so the descriptors alive are those of the levels above.
        let mut pending: Vec<(Option<Rc<OwnedFd>>, String, String, u64)> =
            vec![(None, String::new(), String::new(), 0)];
        let top = Rc::new(top);
        while let Some((parent, name, path, depth)) = pending.pop() {
            let dir = match parent {
                None => top.clone(),
                Some(parent) => match open_dir_at(&*parent, &name) {
                    Ok(fd) => Rc::new(fd),
                    Err(_) => continue,
                },
            };
            let Ok(mut reader) = crate::sys::fs::Dir::read_from(&*dir) else {
                continue;
            };
            while let Some(entry) = reader.read() {
                let Ok(entry) = entry else { break };
                let bytes = entry.file_name().to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                if !budget.spend() {
                    return swept;
                }
                // A name no client could spell holds nothing a tool wrote.
                let Ok(child) = std::str::from_utf8(bytes) else {
                    continue;
                };
                if is_own_temp_name(child) {
                    match sweep_one(dir.as_fd(), child, &mut budget) {
                        Fate::Removed => swept.removed += 1,
                        Fate::Held => swept.held += 1,
                        Fate::Left => swept.left += 1,
                        Fate::Ignored => {}
                    }
                    if budget.spent() {
                        return swept;
                    }
                    continue;
                }
                let is_dir =
                    lstat_at(&*dir, child).is_some_and(|s| file_type(&s) == FileType::Directory);
                let below = if path.is_empty() {
                    child.to_owned()
                } else {
                    format!("{path}/{child}")
                };
                if is_dir && depth < self.limits.max_depth && !self.selector.excludes(&below) {
                    pending.push((Some(dir.clone()), child.to_owned(), below, depth + 1));
                }
            }
        }
        swept.complete = true;
        swept
    }

    /// Sweeps the root on a thread of its own (named `fsmcp-sweep`), [`SWEEP_DELAY`] after it
    /// is called, so start-up does not wait for it and a one-call server never meets it, and
    /// logs what it removed at info level (target `fsmcp::sweep`).
    pub fn sweep_in_background(self: &std::sync::Arc<Root>) {
        let root = self.clone();
        let spawned = std::thread::Builder::new()
            .name("fsmcp-sweep".to_owned())
            .spawn(move || {
                std::thread::sleep(SWEEP_DELAY);
                yield_to_calls();
                let started = Instant::now();
                let swept = root.sweep_stale_temps();
                tracing::info!(
                    target: "fsmcp::sweep",
                    "stale temp entries: {} removed, {} held by a live process, {} left; {} in {:?}",
                    swept.removed,
                    swept.held,
                    swept.left,
                    if swept.complete { "whole root looked at" } else { "stopped at its bound" },
                    started.elapsed(),
                );
            });
        if spawned.is_err() {
            tracing::warn!(target: "fsmcp::sweep", "no thread for the stale temp sweep");
        }
    }
}

/// Lowers the calling thread to the least scheduling priority (nice 19) where the kernel keeps
/// one per thread (Linux), so the sweep takes only the CPU time that calls leave over: a
/// one-shot server's call runs as fast beside it as without it. Elsewhere the sweep runs at
/// the process's priority.
fn yield_to_calls() {
    #[cfg(target_os = "linux")]
    {
        let me = crate::sys::thread::gettid();
        let _ = crate::sys::process::setpriority_process(Some(me), 19);
    }
}

/// Removes the temp entry `name` in `dir` if nobody is building it, holding its lock while
/// it goes.
fn sweep_one(dir: BorrowedFd<'_>, name: &str, budget: &mut Budget) -> Fate {
    let Some(seen) = lstat_at(dir, name) else {
        return Fate::Ignored;
    };
    let kind = file_type(&seen);
    let opened = match kind {
        FileType::Directory => open_dir_at(dir, name),
        FileType::RegularFile => crate::sys::fs::openat(
            dir,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ),
        // fsmcp makes only files and directories under these names.
        _ => return Fate::Ignored,
    };
    let Ok(fd) = opened else {
        return Fate::Left;
    };
    let Ok(stat) = crate::sys::fs::fstat(&fd) else {
        return Fate::Left;
    };
    if inode_of(&stat) != inode_of(&seen) {
        return Fate::Ignored;
    }
    if !is_stale(&fd, &stat) {
        return Fate::Held;
    }
    // Locked now: the name must still be the entry locked, or it is someone else's.
    if lstat_at(dir, name).is_none_or(|now| inode_of(&now) != inode_of(&stat)) {
        return Fate::Ignored;
    }
    let removed = match kind {
        FileType::Directory => remove_tree(dir, name, budget),
        _ => crate::sys::fs::unlinkat(dir, name, AtFlags::empty()).is_ok(),
    };
    // The lock goes with the descriptor, once the entry is gone.
    drop(fd);
    if removed { Fate::Removed } else { Fate::Left }
}

/// Removes the directory `name` in `holder` and everything in it, deepest first and without
/// recursion, following no link (a link inside is unlinked as itself). Every entry read
/// spends `budget`; true when the directory is gone.
pub(crate) fn remove_tree(holder: BorrowedFd<'_>, name: &str, budget: &mut Budget) -> bool {
    // Each frame: a directory, its name in the one above, and its subdirectories not yet
    // removed. Files and links go as a directory is entered.
    let enter = |fd: OwnedFd, name: String, budget: &mut Budget| {
        // A finished subdirectory may carry a read-only mode.
        let _ = crate::sys::fs::fchmod(&fd, Mode::from_raw_mode(0o700));
        let mut subdirs = Vec::new();
        if let Ok(mut reader) = crate::sys::fs::Dir::read_from(&fd) {
            while let Some(Ok(entry)) = reader.read() {
                let bytes = entry.file_name().to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                if !budget.spend() {
                    break;
                }
                // Every name this crate makes is UTF-8, and sys names the rest by bytes
                // nowhere: a name that is not stays, and so does its directory.
                let Ok(child) = std::str::from_utf8(bytes) else {
                    continue;
                };
                match lstat_at(&fd, child).map(|s| file_type(&s)) {
                    Some(FileType::Directory) => subdirs.push(child.to_owned()),
                    _ => {
                        let _ = crate::sys::fs::unlinkat(&fd, child, AtFlags::empty());
                    }
                }
            }
        }
        (fd, name, subdirs)
    };
    let Ok(top) = open_dir_at(holder, name) else {
        return false;
    };
    let mut frames = vec![enter(top, name.to_owned(), budget)];
    while let Some((fd, _, subdirs)) = frames.last_mut() {
        if budget.spent() {
            return false;
        }
        if let Some(sub) = subdirs.pop() {
            if let Ok(child) = open_dir_at(&*fd, &sub) {
                let frame = enter(child, sub, budget);
                frames.push(frame);
            }
            continue;
        }
        let Some((_, name, _)) = frames.pop() else {
            break;
        };
        let above = frames.last().map_or(holder, |(fd, _, _)| fd.as_fd());
        let _ = crate::sys::fs::unlinkat(above, name.as_str(), AtFlags::REMOVEDIR);
    }
    let _ = crate::platform::sync(holder);
    lstat_at(holder, name).is_none()
}

#[cfg(all(test, unix))]
mod tests {
    // The test builds its tree with std::fs: it is the world outside the root.
    #![allow(clippy::disallowed_methods)]

    use super::*;

    #[test]
    fn only_names_fsmcp_gives_are_its_own() {
        for name in [".fsmcp-0123abcd.tmp", ".fsmcp-00000000deadbeef.tmp"] {
            assert!(is_own_temp_name(name), "{name}");
        }
        for name in [
            ".fsmcp-.tmp",
            ".fsmcp-notes.tmp",
            ".fsmcp-DEADBEEF.tmp",
            ".fsmcp-0123.tmp.bak",
            "fsmcp-0123.tmp",
            ".fsmcp-01/23.tmp",
        ] {
            assert!(!is_own_temp_name(name), "{name}");
        }
    }

    /// A spent budget leaves a stale directory in place (and counted as left); a sweep with
    /// its full budget then removes every stale entry and keeps the held one.
    #[test]
    fn a_spent_budget_leaves_the_rest_for_the_next_sweep() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..4 {
            let temp = dir.path().join(format!(".fsmcp-{n:016x}.tmp"));
            std::fs::create_dir_all(temp.join("a/b")).unwrap();
            std::fs::write(temp.join("a/b/f"), "x").unwrap();
        }
        let held = dir.path().join(".fsmcp-00000000000000ff.tmp");
        std::fs::write(&held, "being written").unwrap();
        let lock = std::fs::File::open(&held).unwrap();
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
        let selector = crate::Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir.path(), selector, crate::limits::Limits::default()).unwrap();
        let mut budget = Budget::new(3, SWEEP_MAX_TIME);
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        // Three entries: not even the first temp directory's contents are all read.
        let first = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .find(|n| n != ".fsmcp-00000000000000ff.tmp")
            .unwrap();
        let fd = crate::dir::reopen(&root.dir).unwrap();
        assert!(matches!(
            sweep_one(fd.as_fd(), &first, &mut budget),
            Fate::Left
        ));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), names);
        let swept = root.sweep_stale_temps();
        assert_eq!(
            swept,
            Swept {
                removed: 4,
                held: 1,
                left: 0,
                complete: true
            }
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
