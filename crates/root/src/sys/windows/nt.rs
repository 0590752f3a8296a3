//! The NT calls behind `fs`: one relative open, information queries and sets, status mapping,
//! and the name rules that keep a component meaning one plain entry.

use std::ffi::c_void;
use std::mem::size_of;

use windows_sys::Wdk::Foundation::OBJECT_ATTRIBUTES;
use windows_sys::Wdk::Storage::FileSystem::{
    FILE_INFORMATION_CLASS, FILE_OPEN, FILE_OPEN_REPARSE_POINT, FILE_SYNCHRONOUS_IO_NONALERT,
    FS_INFORMATION_CLASS, NTCREATEFILE_CREATE_DISPOSITION, NTCREATEFILE_CREATE_OPTIONS,
    NtCreateFile, NtQueryInformationFile, NtQueryVolumeInformationFile, NtSetInformationFile,
};
use windows_sys::Win32::Foundation::{HANDLE, NTSTATUS, OBJ_CASE_INSENSITIVE, UNICODE_STRING};
use windows_sys::Win32::Storage::FileSystem::{
    FILE_ACCESS_RIGHTS, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, SYNCHRONIZE,
};
use windows_sys::Win32::System::IO::IO_STATUS_BLOCK;

use super::fd::{AsFd, OwnedFd};
use super::io::{Errno, Result};

/// A reparse tag whose target is another name (symbolic link, junction, mount point): the
/// kind this root treats as a link. Other tags (cloud placeholders, deduplicated or
/// compressed files) are the file's own storage, but for [`is_special`] ones.
pub(super) fn is_name_surrogate(tag: u32) -> bool {
    tag & 0x2000_0000 != 0
}

/// The tags that make an entry no file at all: an AF_UNIX socket, and the FIFOs and devices
/// WSL records (`IO_REPARSE_TAG_AF_UNIX`, `IO_REPARSE_TAG_LX_FIFO`, `_LX_CHR`, `_LX_BLK`).
pub(super) fn is_special(tag: u32) -> bool {
    matches!(tag, 0x8000_0023..=0x8000_0026)
}

/// Maps an NTSTATUS to the POSIX number the root matches on.
pub(super) fn errno(status: NTSTATUS) -> Errno {
    match status as u32 {
        0xC000_0034 | 0xC000_003A | 0xC000_000F | 0xC000_0056 => Errno::NOENT,
        0xC000_0035 => Errno::EXIST,
        0xC000_0022 | 0xC000_0121 => Errno::ACCESS,
        0xC000_0043 => Errno::BUSY,
        0xC000_0103 => Errno::NOTDIR,
        0xC000_00BA => Errno::ISDIR,
        0xC000_0101 => Errno::NOTEMPTY,
        0xC000_00D4 => Errno::XDEV,
        0xC000_0033 | 0xC000_000D | 0xC000_003B => Errno::INVAL,
        0xC000_00BB | 0xC000_0003 | 0xC000_0002 | 0xC000_0010 => Errno::OPNOTSUPP,
        0x8000_002D | 0xC000_050B | 0xC000_0279 => Errno::LOOP,
        0xC000_007F => Errno::NOSPC,
        0xC000_0106 => Errno::NAMETOOLONG,
        _ => Errno::IO,
    }
}

fn check(status: NTSTATUS) -> Result<()> {
    // Debug builds: `FSMCP_DEBUG_NT=1` traces every failed NT call, for porting work.
    #[cfg(debug_assertions)]
    if status < 0 && std::env::var_os("FSMCP_DEBUG_NT").is_some() {
        let trace = std::backtrace::Backtrace::force_capture();
        eprintln!("NT status {:#x} at {trace}", status as u32);
    }
    if status >= 0 {
        Ok(())
    } else {
        Err(errno(status))
    }
}

/// Whether `name` is one plain entry on Windows: not empty, `.` or `..`, no separator, and
/// none of the spellings `RelPath` refuses there (an alternate data stream, a trailing dot or
/// space, a reserved character or device name). Names reach here from paths already parsed;
/// this is the door's own check, for every caller.
pub(super) fn plain_name(name: &str) -> Result<()> {
    use crate::relpath::{is_device_name, is_windows_alias};
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || is_windows_alias(name)
        || is_device_name(name)
    {
        return Err(Errno::INVAL);
    }
    Ok(())
}

/// The UTF-16 form of `text`.
pub(super) fn wide(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Every share mode: the server never locks another program out of a file it reads.
pub(super) const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// `NtCreateFile(name)` relative to `dir` (a handle; an empty name reopens `dir` itself),
/// never following a reparse point at the name.
pub(super) fn create(
    dir: impl AsFd,
    name: &str,
    access: FILE_ACCESS_RIGHTS,
    disposition: NTCREATEFILE_CREATE_DISPOSITION,
    options: NTCREATEFILE_CREATE_OPTIONS,
    attributes: u32,
) -> Result<OwnedFd> {
    let options = options | FILE_OPEN_REPARSE_POINT;
    // Names compare as the filesystem compares them (case-insensitively on NTFS).
    nt_create(
        dir,
        name,
        OBJ_CASE_INSENSITIVE,
        access,
        disposition,
        options,
        attributes,
    )
}

/// A second handle on the very file `fd` holds (an empty name relative to it), opened *without*
/// `FILE_OPEN_REPARSE_POINT`, so the filter that owns a non-link reparse point (a cloud
/// placeholder, a deduplicated file) supplies its data. No name is parsed, so nothing else can
/// be reached; the caller checks it is the same file.
pub(super) fn reopen_through_filter(fd: impl AsFd, access: FILE_ACCESS_RIGHTS) -> Result<OwnedFd> {
    nt_create(fd, "", 0, access, FILE_OPEN, 0, 0)
}

/// The one `NtCreateFile`: `name` relative to the handle `dir`, synchronous, shared with every
/// other program.
fn nt_create(
    dir: impl AsFd,
    name: &str,
    object_attributes: u32,
    access: FILE_ACCESS_RIGHTS,
    disposition: NTCREATEFILE_CREATE_DISPOSITION,
    options: NTCREATEFILE_CREATE_OPTIONS,
    attributes: u32,
) -> Result<OwnedFd> {
    let mut units = wide(name);
    let bytes = u16::try_from(units.len() * 2).map_err(|_| Errno::NAMETOOLONG)?;
    let object_name = UNICODE_STRING {
        Length: bytes,
        MaximumLength: bytes,
        Buffer: units.as_mut_ptr(),
    };
    let attrs = OBJECT_ATTRIBUTES {
        Length: size_of::<OBJECT_ATTRIBUTES>() as u32,
        RootDirectory: dir.as_fd().raw(),
        ObjectName: &object_name,
        Attributes: object_attributes,
        SecurityDescriptor: std::ptr::null(),
        SecurityQualityOfService: std::ptr::null(),
    };
    let mut handle: HANDLE = std::ptr::null_mut();
    let mut status_block = IO_STATUS_BLOCK::default();
    // SAFETY: every pointer is valid for the call; `handle` receives an owned handle on success.
    let status = unsafe {
        NtCreateFile(
            &mut handle,
            access | SYNCHRONIZE,
            &attrs,
            &mut status_block,
            std::ptr::null(),
            attributes,
            SHARE_ALL,
            disposition,
            options | FILE_SYNCHRONOUS_IO_NONALERT,
            std::ptr::null(),
            0,
        )
    };
    check(status)?;
    // SAFETY: the call succeeded, so `handle` is open and ours.
    Ok(unsafe { OwnedFd::from_raw(handle) })
}

/// `NtQueryInformationFile` into a `T`.
pub(super) fn query<T: Default>(fd: impl AsFd, class: FILE_INFORMATION_CLASS) -> Result<T> {
    // SAFETY: the buffer is a writable `T` of the size passed (`query_into`).
    query_into(|status_block, info, len| unsafe {
        NtQueryInformationFile(fd.as_fd().raw(), status_block, info, len, class)
    })
}

/// `NtQueryVolumeInformationFile` into a `T`: what the volume holding `fd` reports.
pub(super) fn query_volume<T: Default>(fd: impl AsFd, class: FS_INFORMATION_CLASS) -> Result<T> {
    // SAFETY: the buffer is a writable `T` of the size passed (`query_into`).
    query_into(|status_block, info, len| unsafe {
        NtQueryVolumeInformationFile(fd.as_fd().raw(), status_block, info, len, class)
    })
}

/// A `T` filled by `call`, which is handed a status block, a writable `T` as bytes and its
/// size.
fn query_into<T: Default>(
    call: impl FnOnce(&mut IO_STATUS_BLOCK, *mut c_void, u32) -> NTSTATUS,
) -> Result<T> {
    let mut info = T::default();
    let mut status_block = IO_STATUS_BLOCK::default();
    let status = call(
        &mut status_block,
        (&mut info as *mut T).cast::<c_void>(),
        size_of::<T>() as u32,
    );
    check(status).map(|()| info)
}

/// `NtSetInformationFile` with `len` bytes at `info`.
///
/// # Safety
/// `info` points to `len` readable bytes laid out as `class` requires.
pub(super) unsafe fn set(
    fd: impl AsFd,
    class: FILE_INFORMATION_CLASS,
    info: *const c_void,
    len: usize,
) -> Result<()> {
    let mut status_block = IO_STATUS_BLOCK::default();
    // SAFETY: as the caller promises.
    let status = unsafe {
        NtSetInformationFile(
            fd.as_fd().raw(),
            &mut status_block,
            info,
            u32::try_from(len).map_err(|_| Errno::NAMETOOLONG)?,
            class,
        )
    };
    check(status)
}

/// The raw result of an NT call that fills a caller's buffer, for directory reads.
pub(super) fn status(status: NTSTATUS) -> Result<()> {
    check(status)
}
