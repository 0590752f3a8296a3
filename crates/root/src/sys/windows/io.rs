//! Errors and byte transfer on handles, under rustix's names.

use std::fmt;

use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_ALREADY_EXISTS, ERROR_BROKEN_PIPE, ERROR_DIR_NOT_EMPTY,
    ERROR_DIRECTORY, ERROR_DISK_FULL, ERROR_FILE_EXISTS, ERROR_FILE_NOT_FOUND, ERROR_HANDLE_EOF,
    ERROR_INVALID_NAME, ERROR_INVALID_PARAMETER, ERROR_NOT_SAME_DEVICE, ERROR_NOT_SUPPORTED,
    ERROR_PATH_NOT_FOUND, ERROR_SHARING_VIOLATION, GetLastError,
};
use windows_sys::Win32::Storage::FileSystem::{ReadFile, WriteFile};
use windows_sys::Win32::System::IO::OVERLAPPED;

use super::fd::AsFd;

/// A POSIX error number, as the rest of the root matches on them; Windows' own codes are
/// mapped once, here and in `nt`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(i32);

/// The result of a call that fails with an [`Errno`].
pub type Result<T> = std::result::Result<T, Errno>;

impl Errno {
    pub const PERM: Errno = Errno(1);
    pub const NOENT: Errno = Errno(2);
    pub const INTR: Errno = Errno(4);
    pub const IO: Errno = Errno(5);
    pub const NXIO: Errno = Errno(6);
    pub const ACCESS: Errno = Errno(13);
    pub const BUSY: Errno = Errno(16);
    pub const EXIST: Errno = Errno(17);
    pub const XDEV: Errno = Errno(18);
    pub const NOTDIR: Errno = Errno(20);
    pub const ISDIR: Errno = Errno(21);
    pub const INVAL: Errno = Errno(22);
    pub const NOSPC: Errno = Errno(28);
    pub const NAMETOOLONG: Errno = Errno(36);
    pub const NOSYS: Errno = Errno(38);
    pub const NOTEMPTY: Errno = Errno(39);
    pub const LOOP: Errno = Errno(40);
    pub const OPNOTSUPP: Errno = Errno(95);

    /// The error a Win32 call left in `GetLastError`.
    pub(crate) fn last() -> Errno {
        // SAFETY: reads the calling thread's last-error value.
        Errno::from_win32(unsafe { GetLastError() })
    }

    /// Maps a Win32 error code.
    pub(crate) fn from_win32(code: u32) -> Errno {
        match code {
            ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND => Errno::NOENT,
            ERROR_ACCESS_DENIED => Errno::ACCESS,
            ERROR_SHARING_VIOLATION => Errno::BUSY,
            ERROR_FILE_EXISTS | ERROR_ALREADY_EXISTS => Errno::EXIST,
            ERROR_DIRECTORY => Errno::NOTDIR,
            ERROR_DIR_NOT_EMPTY => Errno::NOTEMPTY,
            ERROR_NOT_SAME_DEVICE => Errno::XDEV,
            ERROR_INVALID_NAME | ERROR_INVALID_PARAMETER => Errno::INVAL,
            ERROR_NOT_SUPPORTED => Errno::OPNOTSUPP,
            ERROR_DISK_FULL => Errno::NOSPC,
            _ => Errno::IO,
        }
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Errno({})", self.0)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "os error {}", self.0)
    }
}

impl std::error::Error for Errno {}

/// Writes at the handle's position.
pub fn write(fd: impl AsFd, buf: &[u8]) -> Result<usize> {
    transfer(fd, buf.as_ptr().cast_mut(), buf.len(), None, true)
}

/// Reads at `offset`, whatever the handle's position.
pub fn pread(fd: impl AsFd, buf: &mut [u8], offset: u64) -> Result<usize> {
    transfer(fd, buf.as_mut_ptr(), buf.len(), Some(offset), false)
}

/// Writes at `offset`, whatever the handle's position.
pub fn pwrite(fd: impl AsFd, buf: &[u8], offset: u64) -> Result<usize> {
    transfer(fd, buf.as_ptr().cast_mut(), buf.len(), Some(offset), true)
}

/// One `ReadFile` or `WriteFile` of at most 1 GiB (the calls take a 32-bit length).
fn transfer(
    fd: impl AsFd,
    buf: *mut u8,
    len: usize,
    offset: Option<u64>,
    writing: bool,
) -> Result<usize> {
    let len = u32::try_from(len.min(1 << 30)).unwrap_or(1 << 30);
    let mut overlapped: OVERLAPPED = OVERLAPPED::default();
    let at = offset.map(|offset| {
        overlapped.Anonymous.Anonymous.Offset = offset as u32;
        overlapped.Anonymous.Anonymous.OffsetHigh = (offset >> 32) as u32;
        &mut overlapped as *mut OVERLAPPED
    });
    let mut done = 0u32;
    let handle = fd.as_fd().raw();
    // SAFETY: `buf` holds `len` bytes for the call's duration; the handle is open (borrowed);
    // a synchronous handle completes the call before it returns, so `overlapped` outlives it.
    let ok = unsafe {
        if writing {
            WriteFile(
                handle,
                buf,
                len,
                &mut done,
                at.unwrap_or(std::ptr::null_mut()),
            )
        } else {
            ReadFile(
                handle,
                buf,
                len,
                &mut done,
                at.unwrap_or(std::ptr::null_mut()),
            )
        }
    };
    if ok != 0 {
        return Ok(done as usize);
    }
    // SAFETY: reads the calling thread's last-error value.
    match unsafe { GetLastError() } {
        // Reading at or past the end (positional reads say so instead of returning 0).
        ERROR_HANDLE_EOF | ERROR_BROKEN_PIPE if !writing => Ok(0),
        code => Err(Errno::from_win32(code)),
    }
}
