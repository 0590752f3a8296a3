//! A file's bytes copied into a new file with its holes kept as holes, as `cp --sparse=auto`
//! copies them.
//!
//! A sparse file costs the disk only what it holds: a 1 GiB file made by `truncate` takes no
//! block at all. A copy that wrote every zero would turn each such file into a full gibibyte
//! of real disk, so only the source's data extents are copied. Where the system names them
//! (`lseek` with `SEEK_DATA` and `SEEK_HOLE`: Linux, macOS, FreeBSD, illumos) each extent is
//! copied at its own offset, by `copy_file_range` on Linux or by positional reads and writes;
//! where it does not, or where it calls a file that looks sparse (fewer blocks allocated than
//! its size needs) one whole extent, blocks read as all zeros are skipped instead of written.
//! The copy's length is then set with `ftruncate`, so a trailing hole stays a hole. Windows
//! copies every byte (docs/platforms.md).

use crate::sys::fd::{BorrowedFd, OwnedFd};
use crate::sys::fs::Stat;
use crate::sys::io::Errno;

use super::copy::CopyError;
use super::{Identity, ReadFile};

/// Most bytes one `copy_file_range` call moves, so the deadline is checked in between.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const CHUNK: usize = 8 << 20;

/// Bytes one read of the read/write copy takes, checked for zeros a block at a time.
const BUFFER: usize = 256 << 10;

/// The unit of a skipped run of zeros: the block size of the filesystems fsmcp meets most
/// (a partial block of zeros would still be allocated, so skipping less buys nothing).
const ZERO_BLOCK: usize = 4096;

/// The bytes `stat` says its file takes on disk (`st_blocks` counts 512-byte units); on
/// Windows, which reports no allocation here, its size.
#[allow(clippy::unnecessary_cast)] // `st_blocks` and `st_size` differ in type between systems.
pub(crate) fn allocated(stat: &Stat) -> u64 {
    #[cfg(unix)]
    return (stat.st_blocks as u64).saturating_mul(512);
    #[cfg(not(unix))]
    return stat.st_size.max(0) as u64;
}

/// How the copy learns where the source's data lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extents {
    /// `SEEK_DATA` and `SEEK_HOLE` name each data extent.
    Seek,
    /// The whole file is one extent (the system names none).
    Whole,
}

/// How the bytes of one extent move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mover {
    /// `copy_file_range`, in the kernel (Linux, unless the test switch forces the fallbacks).
    Kernel,
    /// Positional reads and writes through a buffer; with `skip_zeros`, blocks of zeros are
    /// left as holes.
    ReadWrite {
        /// Whether blocks of zeros are skipped rather than written.
        skip_zeros: bool,
    },
}

/// Copies every byte of `source` into the empty file `copy`, leaving the source's holes
/// unwritten, and sets the copy's length to the source's. The source must not change
/// meanwhile (its `fstat` must still show the identity it was opened with); the call's
/// deadline and cancellation are checked before every chunk. Returns the bytes of the file
/// (holes included), which is what a reader of the copy sees.
pub(crate) fn copy_file(source: &ReadFile, copy: &OwnedFd) -> Result<u64, CopyError> {
    let (file, identity) = (source.fd(), source.identity());
    let size = identity.size;
    let stat = crate::sys::fs::fstat(file).map_err(|_| CopyError::Changed)?;
    // As `cp --sparse=auto` judges: a file with fewer blocks than its size needs has holes.
    let looks_sparse = cfg!(unix) && allocated(&stat) < size;
    let mut extents = if cfg!(unix) {
        Extents::Seek
    } else {
        Extents::Whole
    };
    let mut mover = if in_kernel_available() {
        Mover::Kernel
    } else {
        Mover::ReadWrite { skip_zeros: false }
    };
    let mut buffer = Vec::new();
    let mut at = 0u64;
    while at < size {
        super::deadline::check()?;
        let Some((start, end)) = next_extent(file, at, size, &mut extents)? else {
            break;
        };
        // A sparse-looking file the system reports as all data: find its holes by reading.
        if looks_sparse && start == 0 && end == size {
            mover = Mover::ReadWrite { skip_zeros: true };
        }
        copy_extent(file, copy, start, end, &mut mover, &mut buffer)?;
        at = end;
    }
    set_length(copy, size)?;
    let after = crate::sys::fs::fstat(file).map(|s| Identity::of(&s));
    if after.ok() != Some(identity) {
        return Err(CopyError::Changed);
    }
    Ok(size)
}

/// Whether extents move by `copy_file_range` in this process.
fn in_kernel_available() -> bool {
    cfg!(any(target_os = "linux", target_os = "android")) && !crate::platform::portable()
}

/// The next data extent at or after `at`, cut at `size`: `None` when only a hole is left.
fn next_extent(
    file: BorrowedFd<'_>,
    at: u64,
    size: u64,
    extents: &mut Extents,
) -> Result<Option<(u64, u64)>, CopyError> {
    if *extents == Extents::Whole {
        return Ok(Some((at, size)));
    }
    let start = match seek_data(file, at) {
        Ok(start) if start >= size => return Ok(None),
        Ok(start) => start,
        // Only a hole from here to the end.
        Err(Errno::NXIO) => return Ok(None),
        // The system or filesystem names no extents: the rest is one.
        Err(Errno::INVAL | Errno::OPNOTSUPP | Errno::NOSYS) => {
            *extents = Extents::Whole;
            return Ok(Some((at, size)));
        }
        Err(_) => return Err(CopyError::Changed),
    };
    // Every file ends in a hole (an implicit one at its end, at least).
    let end = seek_hole(file, start)
        .map_err(|_| CopyError::Changed)?
        .min(size);
    if end <= start {
        // The file shrank between the two calls.
        return Err(CopyError::Changed);
    }
    Ok(Some((start, end)))
}

/// `lseek(SEEK_DATA)`: the first data byte at or after `at`.
fn seek_data(file: BorrowedFd<'_>, at: u64) -> Result<u64, Errno> {
    seek_extent(file, at, true)
}

/// `lseek(SEEK_HOLE)`: the first byte of a hole at or after `at` (the file's end if none).
fn seek_hole(file: BorrowedFd<'_>, at: u64) -> Result<u64, Errno> {
    seek_extent(file, at, false)
}

/// `lseek` with `SEEK_DATA` (`data`) or `SEEK_HOLE` from `at`; `EINVAL` where the system has
/// neither.
fn seek_extent(file: BorrowedFd<'_>, at: u64, data: bool) -> Result<u64, Errno> {
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_vendor = "apple",
        target_os = "freebsd",
        target_os = "dragonfly",
        target_os = "illumos",
        target_os = "solaris"
    ))]
    return rustix::fs::seek(
        file,
        if data {
            rustix::fs::SeekFrom::Data(at)
        } else {
            rustix::fs::SeekFrom::Hole(at)
        },
    );
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_vendor = "apple",
        target_os = "freebsd",
        target_os = "dragonfly",
        target_os = "illumos",
        target_os = "solaris"
    )))]
    {
        let _ = (file, at, data);
        Err(Errno::INVAL)
    }
}

/// Copies the bytes `start..end` of `file` to the same offsets of `copy`. The kernel's copy
/// gives way to reads and writes where it cannot copy between these two files.
fn copy_extent(
    file: BorrowedFd<'_>,
    copy: &OwnedFd,
    start: u64,
    end: u64,
    mover: &mut Mover,
    buffer: &mut Vec<u8>,
) -> Result<(), CopyError> {
    let mut at = start;
    while at < end {
        super::deadline::check()?;
        let want = usize::try_from(end - at).unwrap_or(usize::MAX);
        let n = match *mover {
            Mover::Kernel => match copy_in_kernel(file, copy, at, want.min(CHUNK)) {
                Ok(n) => n,
                // Not between these filesystems, or not on this kernel: copy by hand.
                Err(Errno::XDEV | Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
                    *mover = Mover::ReadWrite { skip_zeros: false };
                    continue;
                }
                Err(Errno::INTR) => continue,
                Err(_) => return Err(CopyError::Failed),
            },
            Mover::ReadWrite { skip_zeros } => {
                buffer.resize(BUFFER, 0);
                let take = want.min(BUFFER);
                let n = match crate::sys::io::pread(file, &mut buffer[..take], at) {
                    Ok(n) => n,
                    Err(Errno::INTR) => continue,
                    Err(_) => return Err(CopyError::Changed),
                };
                write_at(copy, &buffer[..n], at, skip_zeros)?;
                n
            }
        };
        if n == 0 {
            // The file ended before the extent did: it shrank.
            return Err(CopyError::Changed);
        }
        at += n as u64;
    }
    Ok(())
}

/// Up to `len` bytes of `file` at `at` to the same offset of `copy`, without passing through
/// user space (`copy_file_range`, Linux); `NOSYS` where the platform takes the read/write copy.
fn copy_in_kernel(
    file: BorrowedFd<'_>,
    copy: &OwnedFd,
    at: u64,
    len: usize,
) -> Result<usize, Errno> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let (mut from, mut to) = (at, at);
        crate::sys::fs::copy_file_range(file, Some(&mut from), copy, Some(&mut to), len)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (file, copy, at, len);
        Err(Errno::NOSYS)
    }
}

/// Writes `bytes` at `at` in `copy`; with `skip_zeros`, each [`ZERO_BLOCK`] of zeros (counted
/// from the file's start) is left unwritten, a hole once the length is set.
fn write_at(copy: &OwnedFd, bytes: &[u8], at: u64, skip_zeros: bool) -> Result<(), CopyError> {
    if !skip_zeros {
        return write_all_at(copy, bytes, at);
    }
    // Runs of blocks that hold data are written whole, one write per run.
    let mut run: Option<usize> = None;
    let mut offset = 0usize;
    while offset < bytes.len() {
        // Blocks are aligned to the file, whatever `at` is.
        let file_offset = at + offset as u64;
        let to_boundary = ZERO_BLOCK - (file_offset % ZERO_BLOCK as u64) as usize;
        let block_end = (offset + to_boundary).min(bytes.len());
        let zeros = bytes[offset..block_end].iter().all(|&b| b == 0);
        match (zeros, run) {
            (true, Some(from)) => {
                write_all_at(copy, &bytes[from..offset], at + from as u64)?;
                run = None;
            }
            (false, None) => run = Some(offset),
            _ => {}
        }
        offset = block_end;
    }
    if let Some(from) = run {
        write_all_at(copy, &bytes[from..], at + from as u64)?;
    }
    Ok(())
}

/// Writes all of `bytes` at `at` in `copy`.
fn write_all_at(copy: &OwnedFd, mut bytes: &[u8], mut at: u64) -> Result<(), CopyError> {
    while !bytes.is_empty() {
        match crate::sys::io::pwrite(copy, bytes, at) {
            Ok(0) => return Err(CopyError::Failed),
            Ok(n) => {
                bytes = &bytes[n..];
                at += n as u64;
            }
            Err(Errno::INTR) => continue,
            Err(_) => return Err(CopyError::Failed),
        }
    }
    Ok(())
}

/// Sets the copy's length to `size`: what the extents left unwritten at the end becomes a
/// hole rather than missing bytes. Windows wrote every byte, so the length is already right.
fn set_length(copy: &OwnedFd, size: u64) -> Result<(), CopyError> {
    #[cfg(unix)]
    return crate::sys::fs::ftruncate(copy, size).map_err(|_| CopyError::Failed);
    #[cfg(not(unix))]
    {
        let _ = (copy, size);
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    // The test builds its files with std::fs: it is the world outside the root.
    #![allow(clippy::disallowed_methods)]

    use super::*;
    use std::io::{Seek, SeekFrom, Write};
    use std::os::unix::fs::MetadataExt;

    /// A file of `size` bytes holding `data` at each of `at`, holes elsewhere.
    fn sparse(dir: &std::path::Path, name: &str, size: u64, at: &[u64]) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut file = std::fs::File::create(&path).unwrap();
        file.set_len(size).unwrap();
        for &offset in at {
            file.seek(SeekFrom::Start(offset)).unwrap();
            file.write_all(&[7u8; 8192]).unwrap();
        }
        file.sync_all().unwrap();
        path
    }

    fn open(path: &std::path::Path) -> (ReadFile, OwnedFd) {
        let dir = path.parent().unwrap();
        let selector = crate::Selector::new(&["**".to_owned()], &[], true);
        let root = crate::Root::open(dir, selector, crate::limits::Limits::default()).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let source = root
            .open_for_read(&crate::RelPath::parse(name).unwrap())
            .unwrap();
        let out = std::fs::File::create(dir.join(format!("{name}.copy"))).unwrap();
        (source, OwnedFd::from(out))
    }

    /// Zeros the source holds as written blocks (a file the system reports as one extent, or
    /// a filesystem without `SEEK_DATA`) become holes when the file looks sparse.
    #[test]
    fn written_zeros_of_a_sparse_looking_file_become_holes() {
        let dir = tempfile::tempdir().unwrap();
        let path = sparse(dir.path(), "a.bin", 64 << 20, &[0, 32 << 20]);
        let (source, copy) = open(&path);
        let mut buffer = Vec::new();
        let mut mover = Mover::ReadWrite { skip_zeros: true };
        copy_extent(source.fd(), &copy, 0, 64 << 20, &mut mover, &mut buffer).unwrap();
        set_length(&copy, 64 << 20).unwrap();
        let copied = dir.path().join("a.bin.copy");
        assert_eq!(
            std::fs::read(&copied).unwrap(),
            std::fs::read(&path).unwrap()
        );
        let blocks = std::fs::metadata(&copied).unwrap().blocks();
        // Two 8 KiB runs of data, whatever the filesystem adds for its own bookkeeping.
        assert!(blocks < 1024, "{blocks} blocks for 16 KiB of data");
    }

    #[test]
    fn a_block_of_zeros_between_data_is_skipped_and_data_kept() {
        let dir = tempfile::tempdir().unwrap();
        let copy = OwnedFd::from(std::fs::File::create(dir.path().join("c")).unwrap());
        let mut bytes = vec![0u8; 5 * ZERO_BLOCK + 100];
        bytes[10] = 1;
        bytes[3 * ZERO_BLOCK + 5] = 2;
        bytes[5 * ZERO_BLOCK + 99] = 3;
        // An offset that is not block-aligned: blocks are counted from the file's start.
        write_at(&copy, &bytes, 100, true).unwrap();
        set_length(&copy, 100 + bytes.len() as u64).unwrap();
        let written = std::fs::read(dir.path().join("c")).unwrap();
        assert_eq!(&written[100..], &bytes[..]);
        assert!(written[..100].iter().all(|&b| b == 0));
    }
}
