//! Crash-safe mutation: new bytes go to a temp file beside the target, are synced, and are
//! renamed over the target, so a reader sees the old file or the new one, never a torn one.

use crate::sys::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::sys::fs::{AtFlags, FileType, Mode, OFlags};
use crate::sys::io::Errno;

use super::dir::{TEMP_PREFIX, TEMP_SUFFIX, file_type, lstat_at};
use super::{Root, RootError};

/// Mode of a file created by a write; an existing file keeps its own.
const NEW_FILE_MODE: u32 = 0o600;

impl Root {
    /// Replaces (or creates) the regular file `name` directly in the root with `bytes`.
    ///
    /// An existing destination must be a regular file this process may write; it is checked
    /// through a non-blocking, no-follow descriptor, so a FIFO or link is refused, never
    /// opened through. A hard link is replaced, not written through. The new file keeps an
    /// existing file's mode (and, where permitted, owner).
    pub fn replace_file(&self, name: &str, bytes: &[u8]) -> Result<(), RootError> {
        replace_in(self.dir.as_fd(), name, bytes, Some(NEW_FILE_MODE))
    }
}

/// Permission bits a new file keeps of the one it replaces (or copies): read, write and
/// execute for each class, and the sticky bit. Set-user-ID and set-group-ID are dropped, as
/// the kernel drops them when an unprivileged process writes the file and as `cp` does
/// without `--preserve`: a rewrite this server cannot give back to the file's owner would
/// otherwise leave a set-user-ID program owned by the server's user.
pub(crate) const KEPT_BITS: u32 = 0o1777;

/// Atomically replaces or creates `name` in `dir` with `bytes`. A new file gets `new_mode`, or
/// 0666 less the umask when `None`; an existing one keeps its mode (but set-user-ID and
/// set-group-ID, see [`KEPT_BITS`]) and, where permitted, owner.
pub(crate) fn replace_in(
    dir: BorrowedFd<'_>,
    name: &str,
    bytes: &[u8],
    new_mode: Option<u32>,
) -> Result<(), RootError> {
    let existing = match lstat_at(dir, name) {
        None => None,
        Some(seen) => {
            if file_type(&seen) != FileType::RegularFile {
                return Err(RootError::NotWritable);
            }
            let fd = crate::sys::fs::openat(
                dir,
                name,
                OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| write_refusal(e, RootError::NotWritable))?;
            let stat = crate::sys::fs::fstat(&fd).map_err(|_| RootError::NotWritable)?;
            if file_type(&stat) != FileType::RegularFile {
                return Err(RootError::NotWritable);
            }
            Some(stat)
        }
    };
    #[allow(clippy::unnecessary_cast)] // `st_mode` is u16 on some platforms.
    let mode = existing
        .as_ref()
        .map(|s| s.st_mode as u32 & KEPT_BITS)
        .or(new_mode);
    let (temp_name, temp) = create_temp(dir, mode.unwrap_or(0o666))?;
    let committed = write_all(&temp, bytes)
        .and_then(|()| {
            // The umask narrowed the creation mode; restore exactly what was asked for.
            if let Some(mode) = mode {
                crate::sys::fs::fchmod(&temp, crate::platform::mode(mode))
                    .map_err(|_| RootError::WriteFailed)?;
            }
            if let Some(stat) = &existing {
                let _ = crate::sys::fs::fchown(
                    &temp,
                    Some(crate::sys::fs::Uid::from_raw(stat.st_uid)),
                    Some(crate::sys::fs::Gid::from_raw(stat.st_gid)),
                );
            }
            crate::platform::sync(&temp).map_err(|_| RootError::WriteFailed)
        })
        .and_then(|()| {
            // Closed first on Windows, which renames a file only when no other handle of ours
            // holds it; elsewhere kept open, and so locked against a sweep, until renamed.
            if cfg!(windows) {
                drop(temp);
            }
            crate::sys::fs::renameat(dir, &temp_name, dir, name).map_err(|e| match e {
                Errno::ISDIR | Errno::NOTDIR | Errno::NOTEMPTY | Errno::EXIST => {
                    RootError::NotWritable
                }
                // Windows replaces no file another program holds open (the temp file beside
                // it was just made, so the directory's permissions are not what refused).
                Errno::ACCESS if cfg!(windows) => RootError::InUse,
                e => write_refusal(e, RootError::WriteFailed),
            })
        });
    if committed.is_err() {
        let _ = crate::sys::fs::unlinkat(dir, &temp_name, AtFlags::empty());
        return committed;
    }
    // The rename is durable only once the directory itself is synced.
    let _ = crate::platform::sync(dir);
    Ok(())
}

/// What a write the system refused with `errno` answers: [`RootError::InUse`] for a file
/// another Windows program holds, [`RootError::WriteDenied`] for one its permissions keep
/// from this process, else `otherwise`.
fn write_refusal(errno: Errno, otherwise: RootError) -> RootError {
    match errno {
        Errno::BUSY if cfg!(windows) => RootError::InUse,
        Errno::ACCESS | Errno::PERM => RootError::WriteDenied,
        _ => otherwise,
    }
}

/// A fresh random name of the reserved temp form, which no walk shows and no path names.
pub(crate) fn temp_name() -> Result<String, RootError> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|_| RootError::WriteFailed)?;
    let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{TEMP_PREFIX}{suffix}{TEMP_SUFFIX}"))
}

/// Creates a fresh temp file in `dir` under a reserved name no walk shows, holding the
/// builder's lock on it for as long as the descriptor returned is open (so a start-up sweep
/// of another process leaves it alone: [`super::sweep::hold`]). Keep that descriptor open
/// until the file is renamed into place or removed.
pub(crate) fn create_temp(
    dir: impl AsFd + Copy,
    mode: u32,
) -> Result<(String, OwnedFd), RootError> {
    for _ in 0..16 {
        let name = temp_name()?;
        match crate::sys::fs::openat(
            dir,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            crate::platform::mode(mode & 0o777),
        ) {
            Ok(fd) if super::sweep::hold(&fd, dir, &name) => return Ok((name, fd)),
            // A sweep took it for stale in the instant before the lock, and removes it.
            Ok(_) => continue,
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(write_refusal(e, RootError::NotWritable)),
        }
    }
    Err(RootError::WriteFailed)
}

pub(crate) fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> Result<(), RootError> {
    while !bytes.is_empty() {
        match crate::sys::io::write(fd, bytes) {
            Ok(0) => return Err(RootError::WriteFailed),
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) => continue,
            Err(_) => return Err(RootError::WriteFailed),
        }
    }
    Ok(())
}
