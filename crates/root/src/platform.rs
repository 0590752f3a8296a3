//! The platform's doors, named once per process: how a path below a root is opened, how a
//! remembered walk learns of changes, how bytes are copied, how a rename refuses to replace,
//! and how a write is made durable. Each has a fast path where the system offers one and a
//! named fallback; [`Platform::current`] says which are in force, for the start-up log.
//!
//! Debug builds read `FSMCP_TEST_PORTABLE=1` at the first root's opening and take the
//! fallbacks a non-Linux Unix takes (the per-component no-follow walk, no watcher, a plain
//! read/write copy), so the whole suite proves them on Linux too; `FSMCP_TEST_NO_OPENAT2=1`
//! takes only the walk, as a kernel before 5.6 would.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sys::fd::AsFd;
use crate::sys::io::Errno;

/// The doors in force in this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    /// How a path below the root is opened.
    pub door: Door,
    /// How remembered walks learn of changes.
    pub watcher: Watching,
    /// How a copy moves bytes.
    pub copy: Copying,
    /// How a rename refuses to replace an existing name.
    pub no_replace: NoReplace,
    /// What a durable write waits for.
    pub sync: Syncing,
}

/// How a path below the root is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// One `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` from the root's descriptor (Linux
    /// 5.6 and later): the kernel refuses any link and any result outside the root.
    Openat2,
    /// One `openat(O_NOFOLLOW | O_DIRECTORY)` per component from the root's descriptor, each
    /// step holding the last: kernels without `openat2`, macOS and the BSDs.
    NoFollowSteps,
    /// One `NtCreateFile(FILE_OPEN_REPARSE_POINT)` per component relative to the last
    /// directory's handle, a reparse point that names another path refused (Windows).
    HandleSteps,
}

/// How remembered walks learn of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watching {
    /// inotify watches on every directory a walk read (Linux).
    Inotify,
    /// No watcher: every walk reads the tree afresh (correct answers, no reuse).
    None,
}

/// How a copy moves bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copying {
    /// `copy_file_range` in the kernel, falling back to read/write across filesystems.
    CopyFileRange,
    /// `read` and `write` through a buffer.
    ReadWrite,
}

/// How a rename refuses to replace an existing name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoReplace {
    /// `renameat2(RENAME_NOREPLACE)` (Linux).
    Renameat2,
    /// `renameatx_np(RENAME_EXCL)` (macOS).
    RenameatxNp,
    /// A hard link to the new name then an unlink of the old (files), or a check then a
    /// rename (directories): the BSDs, which offer no no-replace rename.
    LinkThenUnlink,
    /// `FileRenameInformationEx` on the source's handle without `REPLACE_IF_EXISTS`
    /// (Windows).
    RenameInformation,
}

/// What a durable write waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syncing {
    /// `fsync`: the data is on the device when it returns.
    Fsync,
    /// `fcntl(F_FULLFSYNC)` (macOS, whose `fsync` stops at the drive's cache), falling back to
    /// `fsync` where the filesystem refuses it.
    FullFsync,
    /// `FlushFileBuffers` (Windows).
    FlushFileBuffers,
}

impl Platform {
    /// The doors this process uses (after the first root has been opened, the door reflects
    /// what the kernel accepted).
    pub fn current() -> Platform {
        let portable = portable();
        let door = if cfg!(windows) {
            Door::HandleSteps
        } else if !portable && crate::dir::has_openat2() {
            Door::Openat2
        } else {
            Door::NoFollowSteps
        };
        let linux = cfg!(target_os = "linux") && !portable;
        Platform {
            door,
            watcher: if linux {
                Watching::Inotify
            } else {
                Watching::None
            },
            copy: if linux {
                Copying::CopyFileRange
            } else {
                Copying::ReadWrite
            },
            no_replace: if cfg!(target_os = "linux") {
                NoReplace::Renameat2
            } else if cfg!(windows) {
                NoReplace::RenameInformation
            } else if cfg!(target_vendor = "apple") {
                NoReplace::RenameatxNp
            } else {
                NoReplace::LinkThenUnlink
            },
            sync: if cfg!(target_vendor = "apple") {
                Syncing::FullFsync
            } else if cfg!(windows) {
                Syncing::FlushFileBuffers
            } else {
                Syncing::Fsync
            },
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let door = match self.door {
            Door::Openat2 => "openat2 beneath the root",
            Door::NoFollowSteps => "one no-follow openat per component",
            Door::HandleSteps => "one NtCreateFile per component, reparse points not followed",
        };
        let watcher = match self.watcher {
            Watching::Inotify => "inotify",
            Watching::None => "none (walks are not remembered)",
        };
        let copy = match self.copy {
            Copying::CopyFileRange => "copy_file_range",
            Copying::ReadWrite => "read/write",
        };
        let no_replace = match self.no_replace {
            NoReplace::Renameat2 => "renameat2(RENAME_NOREPLACE)",
            NoReplace::RenameatxNp => "renameatx_np(RENAME_EXCL)",
            NoReplace::LinkThenUnlink => "link then unlink",
            NoReplace::RenameInformation => "FileRenameInformationEx without replace",
        };
        let sync = match self.sync {
            Syncing::Fsync => "fsync",
            Syncing::FullFsync => "F_FULLFSYNC",
            Syncing::FlushFileBuffers => "FlushFileBuffers",
        };
        write!(
            f,
            "door: {door}; watcher: {watcher}; copy: {copy}; no-replace rename: {no_replace}; sync: {sync}"
        )
    }
}

/// Whether this process takes the non-Linux fallbacks on purpose (debug builds, for tests).
pub(crate) fn portable() -> bool {
    PORTABLE.load(Ordering::Relaxed)
}

static PORTABLE: AtomicBool = AtomicBool::new(false);

/// Reads the test switches once, at the first root's opening (debug builds only):
/// `FSMCP_TEST_PORTABLE=1` takes every non-Linux fallback, `FSMCP_TEST_NO_OPENAT2=1` only the
/// per-component walk (a Linux kernel older than `openat2`, which still has inotify).
pub(crate) fn read_test_switch() {
    #[cfg(debug_assertions)]
    {
        let on = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1");
        if on("FSMCP_TEST_PORTABLE") {
            PORTABLE.store(true, Ordering::Relaxed);
        }
        if on("FSMCP_TEST_NO_OPENAT2") {
            crate::dir::refuse_openat2();
        }
    }
}

/// Makes what was written to `fd` durable, as [`Syncing`] says.
pub(crate) fn sync(fd: impl AsFd) -> Result<(), Errno> {
    #[cfg(target_vendor = "apple")]
    if rustix::fs::fcntl_fullfsync(&fd).is_ok() {
        return Ok(());
    }
    crate::sys::fs::fsync(fd)
}

/// What is free for this process on the filesystem holding `dir`, and that filesystem's size,
/// in bytes (`fstatvfs`; `NtQueryVolumeInformationFile` on Windows). `None` where the system
/// does not say, or says the filesystem has no size (some FUSE and pseudo filesystems), so
/// that nothing is refused on a reading that means nothing.
pub(crate) fn free_space(dir: impl AsFd) -> Option<(u64, u64)> {
    let vfs = crate::sys::fs::fstatvfs(dir).ok()?;
    // `f_frsize` counts the blocks; a system that leaves it 0 counts them in `f_bsize`.
    let unit = if vfs.f_frsize > 0 {
        vfs.f_frsize
    } else {
        vfs.f_bsize
    };
    let total = vfs.f_blocks.saturating_mul(unit);
    (total > 0).then(|| (vfs.f_bavail.saturating_mul(unit), total))
}

/// Renames `from` in `from_dir` to `to` in `to_dir` unless `to` exists (`Errno::EXIST`).
pub(crate) fn rename_no_replace(
    from_dir: impl AsFd,
    from: &str,
    to_dir: impl AsFd,
    to: &str,
) -> Result<(), Errno> {
    #[cfg(windows)]
    {
        crate::sys::fs::rename_noreplace(from_dir, from, to_dir, to)
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        rustix::fs::renameat_with(
            from_dir,
            from,
            to_dir,
            to,
            rustix::fs::RenameFlags::NOREPLACE,
        )
    }
    #[cfg(all(
        unix,
        not(any(target_os = "linux", target_os = "android", target_vendor = "apple"))
    ))]
    {
        use rustix::fs::{AtFlags, FileType, Mode};
        let stat = rustix::fs::statat(&from_dir, from, AtFlags::SYMLINK_NOFOLLOW)?;
        if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
            // An empty directory made first claims the name atomically; the rename then
            // replaces only that placeholder (a directory may replace an empty directory).
            rustix::fs::mkdirat(&to_dir, to, Mode::from_raw_mode(0o700))?;
            return rustix::fs::renameat(&from_dir, from, &to_dir, to).inspect_err(|_| {
                let _ = rustix::fs::unlinkat(&to_dir, to, AtFlags::REMOVEDIR);
            });
        }
        match rustix::fs::linkat(&from_dir, from, &to_dir, to, AtFlags::empty()) {
            Ok(()) => rustix::fs::unlinkat(&from_dir, from, AtFlags::empty()).inspect_err(|_| {
                // Undo the second name rather than leave the entry in two places.
                let _ = rustix::fs::unlinkat(&to_dir, to, AtFlags::empty());
            }),
            // A filesystem without hard links: a look then a rename, the one non-atomic case.
            Err(Errno::OPNOTSUPP | Errno::PERM | Errno::MLINK) => {
                if rustix::fs::statat(&to_dir, to, AtFlags::SYMLINK_NOFOLLOW).is_ok() {
                    return Err(Errno::EXIST);
                }
                rustix::fs::renameat(from_dir, from, to_dir, to)
            }
            Err(e) => Err(e),
        }
    }
}

/// Converts a mode read from `stat` into rustix's [`crate::sys::fs::Mode`], whose width differs
/// between systems (16 bits on macOS).
pub(crate) fn mode(bits: u32) -> crate::sys::fs::Mode {
    #[allow(clippy::unnecessary_cast, clippy::cast_possible_truncation)]
    crate::sys::fs::Mode::from_raw_mode((bits & 0o7777) as crate::sys::fs::RawMode)
}
