//! Opening files for reading: never following a link at any component, never blocking on a
//! FIFO or device, and checking what was opened through the descriptor itself.

use crate::sys::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::sys::fs::{FileType, Mode, OFlags};
use crate::sys::io::Errno;

use super::dir::{Beneath, file_type, is_temp_name, lstat_at, open_beneath, open_dir_chain};
use super::{FileEntry, Identity, RelPath, Root, RootError};

/// A regular file opened for reading, with the identity observed when it was opened.
#[derive(Debug)]
pub struct ReadFile {
    fd: OwnedFd,
    identity: Identity,
}

impl ReadFile {
    /// The identity `fstat` reported at open time; its `size` bounds every read.
    pub fn identity(&self) -> Identity {
        self.identity
    }

    /// File size at open time.
    pub fn size(&self) -> u64 {
        self.identity.size
    }

    /// The open descriptor, for a copy that moves the bytes in the kernel.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Reads up to `buf.len()` bytes at `offset`, retrying short reads until the buffer is full
    /// or the file ends. Returns the count read.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize, RootError> {
        super::deadline::check()?;
        let mut done = 0;
        while done < buf.len() {
            match crate::sys::io::pread(&self.fd, &mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(crate::sys::io::Errno::INTR) => continue,
                Err(_) => return Err(RootError::ReadFailed),
            }
        }
        Ok(done)
    }

    /// Reads exactly `buf.len()` bytes at `offset`; a short read means the file shrank.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<(), RootError> {
        if self.read_at(buf, offset)? == buf.len() {
            Ok(())
        } else {
            Err(RootError::ReadFailed)
        }
    }

    /// The whole file: the [`size`](Self::size) bytes `fstat` saw at open time, checked
    /// unchanged once read. A short read (the file shrank) is [`RootError::ReadFailed`], a
    /// change [`RootError::Changed`]. The caller bounds the size first: it is allocated whole.
    pub fn read_all(&self) -> Result<Vec<u8>, RootError> {
        let size = usize::try_from(self.size()).map_err(|_| RootError::TooLarge)?;
        let mut bytes = vec![0u8; size];
        self.read_exact_at(&mut bytes, 0)?;
        self.ensure_unchanged()?;
        Ok(bytes)
    }

    /// Fails with [`RootError::Changed`] if the open file's contents may have moved since it
    /// was opened: its size or modification time. The change time is left out on purpose: an
    /// atomic replace unlinks the old inode, which bumps its change time although not a byte
    /// of what a reader holds has changed.
    pub fn ensure_unchanged(&self) -> Result<(), RootError> {
        let now = crate::sys::fs::fstat(&self.fd).map_err(|_| RootError::Changed)?;
        let now = Identity::of(&now);
        if now.size == self.identity.size && now.mtime_ns == self.identity.mtime_ns {
            Ok(())
        } else {
            Err(RootError::Changed)
        }
    }
}

const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

impl Root {
    /// Opens a client-named file: refused if it or an ancestor is excluded, if its directory
    /// chain holds a link or a missing or non-directory component, if the selector does not
    /// serve it, or if it is not a regular file within `--max-file-bytes`.
    pub fn open_for_read(&self, path: &RelPath) -> Result<ReadFile, RootError> {
        if self.selector.excludes_ancestor(path) {
            return Err(RootError::Excluded);
        }
        let (Some(parent), Some(_)) = (path.parent(), path.file_name()) else {
            return Err(RootError::NotReadable);
        };
        let parent = self
            .resolve(&parent, true)
            .map_err(|_| RootError::NotServed)?;
        let Some(parent_dir) = open_dir_chain(&self.dir, &parent) else {
            return Err(RootError::NotServed);
        };
        if !self.selector.selects(path.as_str()) {
            return Err(RootError::NotServed);
        }
        // With links followed, what the path finally names must be served as well.
        let target = self
            .resolve(path, true)
            .map_err(|_| RootError::NotReadable)?;
        if target != *path
            && (self.selector.excludes_ancestor(&target) || !self.selector.selects(target.as_str()))
        {
            return Err(RootError::NotReadable);
        }
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(RootError::NotReadable);
        };
        if is_temp_name(name) {
            return Err(RootError::NotServed);
        }
        // The directory opened above, unless a followed link changed the path: each path is
        // resolved once.
        let dir = if target == *path {
            parent_dir
        } else {
            open_dir_chain(&self.dir, &parent).ok_or(RootError::NotReadable)?
        };
        let file = open_regular(&self.dir, &dir, &target)?;
        if file.identity.size > self.limits.max_file_bytes {
            return Err(RootError::TooLarge);
        }
        Ok(file)
    }

    /// Opens a file a walk found and checks it is still the file the walk saw: a different
    /// identity is [`RootError::Changed`]; a file that cannot be opened is
    /// [`RootError::NotReadable`].
    pub fn open_entry(&self, entry: &FileEntry) -> Result<ReadFile, RootError> {
        let path = RelPath::from_walk(entry.path.clone()).ok_or(RootError::NotReadable)?;
        let path = self
            .resolve(&path, true)
            .map_err(|_| RootError::NotReadable)?;
        let file = match open_beneath(&self.dir, path.as_str(), READ_FLAGS) {
            Beneath::Opened(fd) => opened_regular(fd)?,
            Beneath::Refused(_) => return Err(RootError::NotReadable),
            Beneath::Unsupported => {
                let parent = path.parent().ok_or(RootError::NotReadable)?;
                let dir = open_dir_chain(&self.dir, &parent).ok_or(RootError::NotReadable)?;
                open_regular(&self.dir, &dir, &path)?
            }
        };
        if file.identity != entry.identity {
            return Err(RootError::Changed);
        }
        Ok(file)
    }
}

/// Opens the regular file at `path` for reading; `parent` is the descriptor of the directory
/// that holds it, reached through no link.
///
/// An `lstat` of the name in `parent` comes first, so a FIFO or device is refused without
/// being opened at all. The open itself is one `openat2` of the whole path from the root's
/// descriptor, non-blocking, with `RESOLVE_BENEATH` and following no link at any component:
/// the kernel refuses anything that is not below the root when the walk ends, so a directory
/// moved out of the root after `parent` was opened cannot lend its contents. Its `fstat` must
/// show a regular file with the identity the `lstat` saw. Kernels without `openat2` take the
/// user-space step instead: a no-follow `openat` of the name in `parent`.
///
/// This is the one opener of a regular file found by name: a read of a path argument, of a
/// located file, and of every file a copy reads.
pub(crate) fn open_regular(
    root: impl AsFd + Copy,
    parent: impl AsFd + Copy,
    path: &RelPath,
) -> Result<ReadFile, NotOpened> {
    let name = path.file_name().ok_or(NotOpened::Refused)?;
    // A concurrent atomic replace can land between the `lstat` and the open; the file that is
    // there then is just as regular, so look again a few times before calling it a change.
    for _ in 0..3 {
        let seen = lstat_at(parent, name).ok_or(NotOpened::Refused)?;
        if file_type(&seen) != FileType::RegularFile {
            return Err(NotOpened::Refused);
        }
        let file = match open_beneath(root, path.as_str(), READ_FLAGS) {
            Beneath::Opened(fd) => opened_regular(fd).map_err(|_| NotOpened::Refused)?,
            Beneath::Refused(e) => return Err(NotOpened::from(e)),
            Beneath::Unsupported => open_regular_in(parent, name)?,
        };
        if file.identity.same_file(&Identity::of(&seen)) {
            return Ok(file);
        }
    }
    Err(NotOpened::Refused)
}

/// Why [`open_regular`] opened nothing: [`RootError::Denied`] for a file the system keeps from
/// this process, else [`RootError::NotReadable`]; a copy names a file it may not read apart
/// from one that changed under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotOpened {
    /// The kernel refused this process the open by permissions (`EACCES`, `EPERM`).
    Denied,
    /// Gone, replaced, not a regular file, or refused for another reason.
    Refused,
    /// Another program holds it open without sharing it (Windows).
    InUse,
}

impl From<Errno> for NotOpened {
    fn from(errno: Errno) -> NotOpened {
        match errno {
            Errno::ACCESS | Errno::PERM => NotOpened::Denied,
            Errno::BUSY if cfg!(windows) => NotOpened::InUse,
            _ => NotOpened::Refused,
        }
    }
}

impl From<NotOpened> for RootError {
    fn from(not: NotOpened) -> RootError {
        match not {
            NotOpened::InUse => RootError::InUse,
            NotOpened::Denied => RootError::Denied,
            NotOpened::Refused => RootError::NotReadable,
        }
    }
}

/// Opens the regular file `name` in `dir` for reading, following no link and never blocking
/// on a FIFO or device; its `fstat` must show a regular file. It is confined as far as `dir`
/// is, so `dir` must have been reached through no link: [`open_regular`] takes this step only
/// on kernels without `openat2`, and a walk reads the ignore files of a directory it holds
/// with it (`walk::gitignore`), so they are that directory's even if it was renamed.
pub(crate) fn open_regular_in(dir: impl AsFd, name: &str) -> Result<ReadFile, NotOpened> {
    let fd =
        crate::sys::fs::openat(dir, name, READ_FLAGS, Mode::empty()).map_err(NotOpened::from)?;
    opened_regular(fd).map_err(|_| NotOpened::Refused)
}

/// The regular file behind a descriptor just opened, or [`RootError::NotReadable`].
fn opened_regular(fd: OwnedFd) -> Result<ReadFile, RootError> {
    let stat = crate::sys::fs::fstat(&fd).map_err(|_| RootError::NotReadable)?;
    if file_type(&stat) != FileType::RegularFile {
        return Err(RootError::NotReadable);
    }
    Ok(ReadFile {
        fd,
        identity: Identity::of(&stat),
    })
}
