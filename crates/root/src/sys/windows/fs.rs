//! Filesystem calls relative to a directory handle, under rustix's names and meanings: a path
//! is `/`-separated and walked one component at a time, each component opened with
//! `FILE_OPEN_REPARSE_POINT`; a link (a name-surrogate reparse point) met on the way is
//! `LOOP`, as `O_NOFOLLOW` makes it on Unix, and is otherwise reported, never followed.

use std::ffi::{CStr, CString, c_void};
use std::mem::{offset_of, size_of};
use std::ops::BitOr;
use std::os::windows::ffi::OsStrExt;
use std::path::Path;

use windows_sys::Wdk::Storage::FileSystem::{
    FILE_BASIC_INFORMATION, FILE_BOTH_DIR_INFORMATION, FILE_CREATE, FILE_DIRECTORY_FILE,
    FILE_DISPOSITION_DELETE, FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE,
    FILE_DISPOSITION_INFORMATION, FILE_DISPOSITION_INFORMATION_EX,
    FILE_DISPOSITION_POSIX_SEMANTICS, FILE_NON_DIRECTORY_FILE, FILE_OPEN, FILE_OPEN_IF,
    FILE_OVERWRITE, FILE_OVERWRITE_IF, FILE_RENAME_INFORMATION, FILE_RENAME_POSIX_SEMANTICS,
    FILE_RENAME_REPLACE_IF_EXISTS, FileAttributeTagInformation, FileBasicInformation,
    FileBothDirectoryInformation, FileDispositionInformation, FileDispositionInformationEx,
    FileNamesInformation, FileRenameInformation, FileRenameInformationEx, NtQueryDirectoryFile,
};
use windows_sys::Wdk::System::SystemServices::{
    FILE_ATTRIBUTE_TAG_INFORMATION, FILE_FS_FULL_SIZE_INFORMATION,
};
use windows_sys::Win32::Foundation::{FILETIME, INVALID_HANDLE_VALUE, UNICODE_STRING};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, CreateFileW, DELETE, FILE_ACCESS_RIGHTS, FILE_ATTRIBUTE_DIRECTORY,
    FILE_ATTRIBUTE_NORMAL, FILE_ATTRIBUTE_READONLY, FILE_ATTRIBUTE_REPARSE_POINT,
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_GENERIC_READ,
    FILE_GENERIC_WRITE, FILE_LIST_DIRECTORY, FILE_READ_ATTRIBUTES, FILE_TRAVERSE, FlushFileBuffers,
    GetFileInformationByHandle, MAXIMUM_REPARSE_DATA_BUFFER_SIZE, OPEN_EXISTING,
};
use windows_sys::Win32::System::IO::{DeviceIoControl, IO_STATUS_BLOCK};
use windows_sys::Win32::System::Ioctl::FSCTL_GET_REPARSE_POINT;
use windows_sys::Win32::System::SystemServices::{
    IO_REPARSE_TAG_MOUNT_POINT, IO_REPARSE_TAG_SYMLINK,
};

pub use super::process::{Gid, Uid};

use super::fd::{AsFd, BorrowedFd, OwnedFd};
use super::io::{Errno, Result};
use super::nt::{self, SHARE_ALL, is_name_surrogate, plain_name};

/// The working directory: a path given with it is absolute (the root's own, at start-up).
pub const CWD: BorrowedFd<'static> = BorrowedFd::cwd();

/// A mode's raw bits.
pub type RawMode = u32;

/// Permission bits (only the owner's write bit means anything here: the read-only attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode(RawMode);

impl Mode {
    /// From raw bits.
    pub const fn from_raw_mode(mode: RawMode) -> Mode {
        Mode(mode)
    }
    /// No bits.
    pub const fn empty() -> Mode {
        Mode(0)
    }
    /// The raw bits.
    pub const fn as_raw_mode(self) -> RawMode {
        self.0
    }
}

macro_rules! flags {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $flag:ident = $value:expr),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name(u32);

        impl $name {
            $($(#[$fdoc])* pub const $flag: $name = $name($value);)*
            /// No flag.
            #[allow(dead_code)] // not every set is built empty
            pub const fn empty() -> $name {
                $name(0)
            }
            /// Both sets.
            pub const fn union(self, other: $name) -> $name {
                $name(self.0 | other.0)
            }
            /// Whether every flag of `other` is set.
            pub const fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }
        }

        impl BitOr for $name {
            type Output = $name;
            fn bitor(self, other: $name) -> $name {
                self.union(other)
            }
        }
    };
}

flags! {
    /// `open` flags, as on Unix; `RDONLY` is the absence of `WRONLY` and `RDWR`.
    OFlags {
        /// Read only.
        RDONLY = 0,
        /// Write only.
        WRONLY = 1,
        /// Read and write.
        RDWR = 2,
        /// Create when missing.
        CREATE = 0x40,
        /// With `CREATE`: fail when present.
        EXCL = 0x80,
        /// No controlling terminal (nothing to do here).
        NOCTTY = 0x100,
        /// Truncate.
        TRUNC = 0x200,
        /// Never block (nothing here blocks on open).
        NONBLOCK = 0x800,
        /// Must be a directory.
        DIRECTORY = 0x1_0000,
        /// Fail on a link (every open here refuses links).
        NOFOLLOW = 0x2_0000,
        /// Not inherited (handles are created non-inheritable).
        CLOEXEC = 0x8_0000,
    }
}

flags! {
    /// `*at` flags, as on Unix.
    AtFlags {
        /// Do not follow a link at the last component (always so here).
        SYMLINK_NOFOLLOW = 0x100,
        /// `unlinkat` removes a directory.
        REMOVEDIR = 0x200,
    }
}

/// What kind of entry a mode describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// A regular file.
    RegularFile,
    /// A directory.
    Directory,
    /// A link: a symbolic link, junction or mount point.
    Symlink,
    /// Anything else (Windows has no FIFO or device entries in a directory).
    Unknown,
}

const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

impl FileType {
    /// The kind in a mode's type bits.
    pub const fn from_raw_mode(mode: RawMode) -> FileType {
        match mode & S_IFMT {
            S_IFREG => FileType::RegularFile,
            S_IFDIR => FileType::Directory,
            S_IFLNK => FileType::Symlink,
            _ => FileType::Unknown,
        }
    }
}

/// What `stat` reports, in Linux's field names and types. `st_ino` is the file index,
/// `st_dev` the volume serial number, `st_ctime` the change time; the owner is a stand-in
/// ([`super::process::OWNER`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stat {
    pub st_dev: u64,
    pub st_ino: u64,
    pub st_nlink: u64,
    pub st_mode: u32,
    pub st_uid: u32,
    pub st_gid: u32,
    pub st_size: i64,
    pub st_mtime: i64,
    pub st_mtime_nsec: i64,
    pub st_ctime: i64,
    pub st_ctime_nsec: i64,
}

/// What `fstatvfs` reports of a volume, in the fields of rustix's `StatVfs` the root reads.
pub struct StatVfs {
    /// Bytes of one allocation unit.
    pub f_bsize: u64,
    /// Bytes of one allocation unit (Windows has one size for both).
    pub f_frsize: u64,
    /// Allocation units of the volume.
    pub f_blocks: u64,
    /// Allocation units this process may still take (its quota counted).
    pub f_bavail: u64,
}

/// The size of the volume holding `fd` and what is free on it for this process
/// (`FileFsFullSizeInformation`, which needs no access right on the handle).
pub fn fstatvfs(fd: impl AsFd) -> Result<StatVfs> {
    let info: FILE_FS_FULL_SIZE_INFORMATION = nt::query_volume(
        fd,
        windows_sys::Wdk::Storage::FileSystem::FileFsFullSizeInformation,
    )?;
    let units = |n: i64| u64::try_from(n).unwrap_or(0);
    let unit = u64::from(info.SectorsPerAllocationUnit) * u64::from(info.BytesPerSector);
    Ok(StatVfs {
        f_bsize: unit,
        f_frsize: unit,
        f_blocks: units(info.TotalAllocationUnits),
        f_bavail: units(info.CallerAvailableAllocationUnits),
    })
}

/// Seconds and nanoseconds since the Unix epoch of a count of 100 ns since 1601.
fn unix_time(ticks: i64) -> (i64, i64) {
    let since_unix = ticks - 116_444_736_000_000_000;
    (
        since_unix.div_euclid(10_000_000),
        since_unix.rem_euclid(10_000_000) * 100,
    )
}

fn filetime(time: FILETIME) -> i64 {
    ((u64::from(time.dwHighDateTime) << 32) | u64::from(time.dwLowDateTime)) as i64
}

/// `fstat`.
pub fn fstat(fd: impl AsFd) -> Result<Stat> {
    let fd = fd.as_fd();
    let mut info = BY_HANDLE_FILE_INFORMATION::default();
    // SAFETY: `info` is writable; the handle is open (borrowed).
    if unsafe { GetFileInformationByHandle(fd.raw(), &mut info) } == 0 {
        return Err(Errno::last());
    }
    let basic: FILE_BASIC_INFORMATION = nt::query(fd, FileBasicInformation)?;
    let tag = reparse_tag(fd)?;
    let attributes = info.dwFileAttributes;
    let mode = if tag.is_some_and(is_name_surrogate) {
        S_IFLNK | 0o777
    } else if tag.is_some_and(nt::is_special) {
        // A socket, FIFO or device: no type a caller serves.
        0
    } else if attributes & FILE_ATTRIBUTE_DIRECTORY != 0 {
        S_IFDIR | 0o755
    } else if attributes & FILE_ATTRIBUTE_READONLY != 0 {
        S_IFREG | 0o444
    } else {
        S_IFREG | 0o644
    };
    let (st_mtime, st_mtime_nsec) = unix_time(filetime(info.ftLastWriteTime));
    let (st_ctime, st_ctime_nsec) = unix_time(basic.ChangeTime);
    Ok(Stat {
        st_dev: u64::from(info.dwVolumeSerialNumber),
        st_ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        st_nlink: u64::from(info.nNumberOfLinks),
        st_mode: mode,
        st_uid: super::process::OWNER,
        st_gid: super::process::OWNER,
        st_size: ((u64::from(info.nFileSizeHigh) << 32) | u64::from(info.nFileSizeLow)) as i64,
        st_mtime,
        st_mtime_nsec,
        st_ctime,
        st_ctime_nsec,
    })
}

/// The reparse tag of the entry `fd` opened, or `None` when it is no reparse point.
fn reparse_tag(fd: impl AsFd) -> Result<Option<u32>> {
    let tag: FILE_ATTRIBUTE_TAG_INFORMATION = nt::query(fd, FileAttributeTagInformation)?;
    Ok((tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT != 0).then_some(tag.ReparseTag))
}

/// Whether `fd` opened a link (a name-surrogate reparse point).
fn is_link(fd: impl AsFd) -> Result<bool> {
    Ok(reparse_tag(fd)?.is_some_and(is_name_surrogate))
}

/// A directory handle for the walk: listing, traversal and attributes.
const DIR_ACCESS: FILE_ACCESS_RIGHTS = FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES;

/// Opens every component of `path` but the last, from `dir`, as directories that are not
/// links; returns the last component's directory (`None`: `dir` itself) and its name.
fn parent_of<'p>(dir: BorrowedFd<'_>, path: &'p str) -> Result<(Option<OwnedFd>, &'p str)> {
    let mut parts = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".");
    let Some(mut last) = parts.next() else {
        return Err(Errno::INVAL);
    };
    let mut holder: Option<OwnedFd> = None;
    for part in parts {
        plain_name(last)?;
        let from = holder.as_ref().map_or(dir, AsFd::as_fd);
        no_short_alias(from, last)?;
        let next = nt::create(from, last, DIR_ACCESS, FILE_OPEN, FILE_DIRECTORY_FILE, 0)?;
        if is_link(&next)? {
            return Err(Errno::LOOP);
        }
        holder = Some(next);
        last = part;
    }
    plain_name(last)?;
    no_short_alias(holder.as_ref().map_or(dir, AsFd::as_fd), last)?;
    Ok((holder, last))
}

/// Refuses `name` when it reaches an entry only as that entry's 8.3 short name
/// (`NODE_M~1` for `node_modules`): the selector judges the name given, so an alias would
/// reach what an exclude hides. Only a name with `~` can be one; it is looked up in `dir`
/// (through a handle of its own, since a directory handle keeps its first search pattern)
/// and must come back as the entry's long name.
fn no_short_alias(dir: BorrowedFd<'_>, name: &str) -> Result<()> {
    if !name.contains('~') {
        return Ok(());
    }
    let search = reopen(dir, FILE_LIST_DIRECTORY)?;
    let mut units = nt::wide(name);
    let bytes = u16::try_from(units.len() * 2).map_err(|_| Errno::NAMETOOLONG)?;
    let pattern = UNICODE_STRING {
        Length: bytes,
        MaximumLength: bytes,
        Buffer: units.as_mut_ptr(),
    };
    let mut buffer = vec![0u64; 512];
    let mut status_block = IO_STATUS_BLOCK::default();
    // SAFETY: the buffer holds the bytes passed; a synchronous handle completes the call.
    let status = unsafe {
        NtQueryDirectoryFile(
            search.as_fd().raw(),
            std::ptr::null_mut(),
            None,
            std::ptr::null(),
            &mut status_block,
            buffer.as_mut_ptr().cast(),
            (buffer.len() * 8) as u32,
            FileBothDirectoryInformation,
            true,
            &pattern,
            true,
        )
    };
    match status as u32 {
        // Nothing by that name: the open that follows says so.
        0xC000_000F | 0x8000_0006 | 0xC000_0034 => return Ok(()),
        // The name cannot be checked (a directory that may be traversed but not listed):
        // refuse it rather than let a short name through.
        _ if status < 0 => return Err(Errno::ACCESS),
        _ => {}
    }
    let base = buffer.as_ptr().cast::<u8>();
    let read_u32 = |offset: usize| {
        // SAFETY: the record lies within the bytes the call filled.
        unsafe { std::ptr::read_unaligned(base.add(offset).cast::<u32>()) }
    };
    let length = read_u32(offset_of!(FILE_BOTH_DIR_INFORMATION, FileNameLength)) as usize;
    let at = offset_of!(FILE_BOTH_DIR_INFORMATION, FileName);
    let long: Vec<u16> = (0..length / 2)
        .map(|i| {
            // SAFETY: as above; the name follows the fixed fields.
            unsafe { std::ptr::read_unaligned(base.add(at + 2 * i).cast::<u16>()) }
        })
        .collect();
    let long = String::from_utf16_lossy(&long);
    if long.to_lowercase() == name.to_lowercase() {
        Ok(())
    } else {
        Err(Errno::NOENT)
    }
}

/// The text of a path argument (every name here is UTF-8, as `RelPath` made it).
fn text(path: &impl AsRef<Path>) -> Result<&str> {
    path.as_ref().to_str().ok_or(Errno::INVAL)
}

/// Whether `path` names the directory itself.
fn is_self(path: &str) -> bool {
    path.split('/').all(|part| part.is_empty() || part == ".")
}

/// `openat`: `path` below `dir`, no link followed at any component.
pub fn openat(
    dir: impl AsFd,
    path: impl AsRef<Path>,
    flags: OFlags,
    _mode: Mode,
) -> Result<OwnedFd> {
    let dir = dir.as_fd();
    if dir.is_cwd() {
        return open_absolute(path.as_ref(), flags);
    }
    let path = text(&path)?;
    let directory = flags.contains(OFlags::DIRECTORY);
    let writing = flags.contains(OFlags::WRONLY) || flags.contains(OFlags::RDWR);
    let access = if directory {
        DIR_ACCESS
    } else if flags.contains(OFlags::RDWR) {
        FILE_GENERIC_READ | FILE_GENERIC_WRITE
    } else if writing {
        FILE_GENERIC_WRITE | FILE_READ_ATTRIBUTES
    } else {
        FILE_GENERIC_READ
    };
    if is_self(path) {
        return reopen(dir, access);
    }
    let (parent, name) = parent_of(dir, path)?;
    let from = parent.as_ref().map_or(dir, AsFd::as_fd);
    let create = flags.contains(OFlags::CREATE);
    let disposition = match (
        create,
        flags.contains(OFlags::EXCL),
        flags.contains(OFlags::TRUNC),
    ) {
        (true, true, _) => FILE_CREATE,
        (true, false, true) => FILE_OVERWRITE_IF,
        (true, false, false) => FILE_OPEN_IF,
        (false, _, true) => FILE_OVERWRITE,
        (false, _, false) => FILE_OPEN,
    };
    let options = if directory {
        FILE_DIRECTORY_FILE
    } else if writing {
        FILE_NON_DIRECTORY_FILE
    } else {
        0
    };
    let fd = nt::create(
        from,
        name,
        access,
        disposition,
        options,
        FILE_ATTRIBUTE_NORMAL,
    )?;
    match reparse_tag(&fd)? {
        Some(tag) if is_name_surrogate(tag) => Err(Errno::LOOP),
        // A file whose data a filter supplies (cloud placeholder, deduplicated file): read
        // through the filter, from the same file.
        Some(tag) if !directory && !nt::is_special(tag) => {
            let through = nt::reopen_through_filter(&fd, access)?;
            let (was, is) = (fstat(&fd)?, fstat(&through)?);
            if (was.st_dev, was.st_ino) != (is.st_dev, is.st_ino) {
                return Err(Errno::LOOP);
            }
            Ok(through)
        }
        _ => Ok(fd),
    }
}

/// A second handle on `dir` itself, with its own position (an empty name relative to it).
fn reopen(dir: BorrowedFd<'_>, access: FILE_ACCESS_RIGHTS) -> Result<OwnedFd> {
    nt::create(dir, "", access, FILE_OPEN, 0, 0)
}

/// The root's own path at start-up: `CreateFileW`, not following a symbolic link at the last
/// component. A junction or mount point there is followed once: the root is the directory it
/// leads to, and everything after is relative to that handle.
fn open_absolute(path: &Path, flags: OFlags) -> Result<OwnedFd> {
    let access = if flags.contains(OFlags::DIRECTORY) {
        DIR_ACCESS
    } else {
        FILE_READ_ATTRIBUTES
    };
    let fd = create_file(path, access, FILE_FLAG_OPEN_REPARSE_POINT)?;
    match reparse_tag(&fd)? {
        Some(IO_REPARSE_TAG_MOUNT_POINT) => create_file(path, access, 0),
        Some(tag) if is_name_surrogate(tag) => Err(Errno::LOOP),
        _ => Ok(fd),
    }
}

fn create_file(path: &Path, access: FILE_ACCESS_RIGHTS, flags: u32) -> Result<OwnedFd> {
    let wide: Vec<u16> = path.as_os_str().encode_wide().chain([0]).collect();
    // SAFETY: `wide` is NUL-terminated; no security attributes or template.
    let handle = unsafe {
        CreateFileW(
            wide.as_ptr(),
            access,
            SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            FILE_FLAG_BACKUP_SEMANTICS | flags,
            std::ptr::null_mut(),
        )
    };
    if handle == INVALID_HANDLE_VALUE {
        return Err(Errno::last());
    }
    // SAFETY: a valid handle, now ours.
    Ok(unsafe { OwnedFd::from_raw(handle) })
}

/// `lstat` of `path` below `dir` (a link is reported as itself; `_flags` may only say so).
pub fn statat(dir: impl AsFd, path: impl AsRef<Path>, _flags: AtFlags) -> Result<Stat> {
    let dir = dir.as_fd();
    if dir.is_cwd() {
        return fstat(
            open_absolute(path.as_ref(), OFlags::DIRECTORY).or_else(|_| {
                create_file(
                    path.as_ref(),
                    FILE_READ_ATTRIBUTES,
                    FILE_FLAG_OPEN_REPARSE_POINT,
                )
            })?,
        );
    }
    let path = text(&path)?;
    if is_self(path) {
        return fstat(dir);
    }
    let (parent, name) = parent_of(dir, path)?;
    let from = parent.as_ref().map_or(dir, AsFd::as_fd);
    fstat(nt::create(
        from,
        name,
        FILE_READ_ATTRIBUTES,
        FILE_OPEN,
        0,
        0,
    )?)
}

/// `fsync`: `FlushFileBuffers`. A directory handle opened for reading cannot be flushed, and
/// needs none: NTFS journals a directory's entries itself, so a directory counts as synced.
pub fn fsync(fd: impl AsFd) -> Result<()> {
    let fd = fd.as_fd();
    // SAFETY: the handle is open (borrowed).
    if unsafe { FlushFileBuffers(fd.raw()) } != 0 {
        return Ok(());
    }
    let error = Errno::last();
    let basic: FILE_BASIC_INFORMATION = nt::query(fd, FileBasicInformation)?;
    if basic.FileAttributes & FILE_ATTRIBUTE_DIRECTORY != 0 {
        return Ok(());
    }
    Err(error)
}

/// `unlinkat`: removes the entry itself (a link, never its target) by its handle, with POSIX
/// semantics (the name goes at once, even while another program holds the file open).
pub fn unlinkat(dir: impl AsFd, path: impl AsRef<Path>, flags: AtFlags) -> Result<()> {
    let dir = dir.as_fd();
    let (parent, name) = parent_of(dir, text(&path)?)?;
    let from = parent.as_ref().map_or(dir, AsFd::as_fd);
    let fd = nt::create(from, name, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN, 0, 0)?;
    let stat = fstat(&fd)?;
    let removedir = flags.contains(AtFlags::REMOVEDIR);
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory if !removedir => return Err(Errno::ISDIR),
        FileType::Directory => {}
        _ if removedir => return Err(Errno::NOTDIR),
        _ => {}
    }
    let posix = FILE_DISPOSITION_INFORMATION_EX {
        Flags: FILE_DISPOSITION_DELETE
            | FILE_DISPOSITION_POSIX_SEMANTICS
            | FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE,
    };
    // SAFETY: a whole FILE_DISPOSITION_INFORMATION_EX.
    let done = unsafe {
        nt::set(
            &fd,
            FileDispositionInformationEx,
            (&posix as *const FILE_DISPOSITION_INFORMATION_EX).cast(),
            size_of::<FILE_DISPOSITION_INFORMATION_EX>(),
        )
    };
    match done {
        // Older systems and some filesystems have only the plain form.
        Err(Errno::OPNOTSUPP | Errno::INVAL) => {
            let plain = FILE_DISPOSITION_INFORMATION { DeleteFile: true };
            // SAFETY: a whole FILE_DISPOSITION_INFORMATION.
            unsafe {
                nt::set(
                    &fd,
                    FileDispositionInformation,
                    (&plain as *const FILE_DISPOSITION_INFORMATION).cast(),
                    size_of::<FILE_DISPOSITION_INFORMATION>(),
                )
            }
        }
        other => other,
    }
}

/// `mkdirat`.
pub fn mkdirat(dir: impl AsFd, path: impl AsRef<Path>, _mode: Mode) -> Result<()> {
    let dir = dir.as_fd();
    let (parent, name) = parent_of(dir, text(&path)?)?;
    let from = parent.as_ref().map_or(dir, AsFd::as_fd);
    nt::create(
        from,
        name,
        DIR_ACCESS,
        FILE_CREATE,
        FILE_DIRECTORY_FILE,
        FILE_ATTRIBUTE_NORMAL,
    )
    .map(drop)
}

/// `renameat`: replaces what `new` names (a file; a directory only when empty, as on Unix).
pub fn renameat(
    old_dir: impl AsFd,
    old: impl AsRef<Path>,
    new_dir: impl AsFd,
    new: impl AsRef<Path>,
) -> Result<()> {
    rename((old_dir.as_fd(), &old), (new_dir.as_fd(), &new), true)
}

/// A rename that fails with `EXIST` when `new` exists (`FileRenameInformation` with
/// `ReplaceIfExists` false: one call, no window).
pub fn rename_noreplace(
    old_dir: impl AsFd,
    old: impl AsRef<Path>,
    new_dir: impl AsFd,
    new: impl AsRef<Path>,
) -> Result<()> {
    rename((old_dir.as_fd(), &old), (new_dir.as_fd(), &new), false)
}

fn rename(
    (old_dir, old): (BorrowedFd<'_>, &impl AsRef<Path>),
    (new_dir, new): (BorrowedFd<'_>, &impl AsRef<Path>),
    replace: bool,
) -> Result<()> {
    let (old, new) = (text(old)?, text(new)?);
    let (old_parent, old_name) = parent_of(old_dir, old)?;
    let from = old_parent.as_ref().map_or(old_dir, AsFd::as_fd);
    let fd = nt::create(
        from,
        old_name,
        DELETE | FILE_READ_ATTRIBUTES,
        FILE_OPEN,
        0,
        0,
    )?;
    let (new_parent, new_name) = parent_of(new_dir, new)?;
    let to = new_parent.as_ref().map_or(new_dir, AsFd::as_fd);
    let units = nt::wide(new_name);
    let name_at = offset_of!(FILE_RENAME_INFORMATION, FileName);
    let len = (name_at + units.len() * 2).max(size_of::<FILE_RENAME_INFORMATION>());
    // u64s keep the buffer aligned for the structure's handle field.
    let mut buffer = vec![0u64; len.div_ceil(8)];
    let base = buffer.as_mut_ptr().cast::<u8>();
    let set_with = |class, flags: u32| {
        // SAFETY: `buffer` holds `len` bytes: the header, then the name's units.
        unsafe {
            let info = base.cast::<FILE_RENAME_INFORMATION>();
            (*info).Anonymous.Flags = flags;
            (*info).RootDirectory = to.raw();
            (*info).FileNameLength = (units.len() * 2) as u32;
            std::ptr::copy_nonoverlapping(
                units.as_ptr(),
                base.add(name_at).cast::<u16>(),
                units.len(),
            );
            nt::set(&fd, class, base.cast::<c_void>().cast_const(), len)
        }
    };
    let posix = FILE_RENAME_POSIX_SEMANTICS
        | if replace {
            FILE_RENAME_REPLACE_IF_EXISTS
        } else {
            0
        };
    match set_with(FileRenameInformationEx, posix) {
        // Older systems and some filesystems have only the plain form, whose first field is
        // the one-byte `ReplaceIfExists`.
        Err(Errno::OPNOTSUPP | Errno::INVAL) => set_with(FileRenameInformation, u32::from(replace)),
        other => other,
    }
}

/// `readlinkat`: the target a link names, `/`-separated when relative; `INVAL` for anything
/// that is not a link.
pub fn readlinkat(dir: impl AsFd, path: impl AsRef<Path>, _reuse: Vec<u8>) -> Result<CString> {
    let dir = dir.as_fd();
    let (parent, name) = parent_of(dir, text(&path)?)?;
    let from = parent.as_ref().map_or(dir, AsFd::as_fd);
    let fd = nt::create(from, name, FILE_READ_ATTRIBUTES, FILE_OPEN, 0, 0)?;
    if !is_link(&fd)? {
        return Err(Errno::INVAL);
    }
    let mut buffer = vec![0u8; MAXIMUM_REPARSE_DATA_BUFFER_SIZE as usize];
    let mut returned = 0u32;
    // SAFETY: the output buffer holds the size passed; no input, no overlapped I/O.
    let ok = unsafe {
        DeviceIoControl(
            fd.as_fd().raw(),
            FSCTL_GET_REPARSE_POINT,
            std::ptr::null(),
            0,
            buffer.as_mut_ptr().cast(),
            buffer.len() as u32,
            &mut returned,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(Errno::last());
    }
    let target = link_target(&buffer[..returned as usize]).ok_or(Errno::INVAL)?;
    CString::new(target).map_err(|_| Errno::INVAL)
}

/// The target in a `REPARSE_DATA_BUFFER` of a symbolic link or junction: its substitute name,
/// the one Windows follows (the print name when that is empty), `/`-separated when the link is
/// relative. An absolute target keeps Windows' spelling (`\??\C:\…`), which no root-relative
/// path matches, so it is judged as leading outside.
fn link_target(data: &[u8]) -> Option<String> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(data.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?));
    let tag = u32_at(0)?;
    let (paths, relative) = match tag {
        IO_REPARSE_TAG_SYMLINK => (20, u32_at(16)? & 1 != 0),
        IO_REPARSE_TAG_MOUNT_POINT => (16, false),
        _ => return None,
    };
    let name = |offset: usize, length: usize| -> Option<String> {
        let bytes = data.get(paths + offset..paths + offset + length)?;
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        String::from_utf16(&units).ok()
    };
    // The substitute name is what Windows follows; the print name is only shown to people.
    let substitute = name(usize::from(u16_at(8)?), usize::from(u16_at(10)?))?;
    let print = name(usize::from(u16_at(12)?), usize::from(u16_at(14)?))?;
    let target = if substitute.is_empty() {
        print
    } else {
        substitute
    };
    Some(if relative {
        target.replace('\\', "/")
    } else {
        target
    })
}

/// Links cannot be made without a privilege most users lack (or developer mode), and making
/// one by path would leave the handle-relative door: a copy of a link fails here.
pub fn symlinkat(_target: &str, _dir: impl AsFd, _path: impl AsRef<Path>) -> Result<()> {
    Err(Errno::PERM)
}

/// `fchmod`: sets or clears the read-only attribute by the owner's write bit (directories keep
/// theirs: Windows gives it another meaning there).
pub fn fchmod(fd: impl AsFd, mode: Mode) -> Result<()> {
    let fd = fd.as_fd();
    let basic: FILE_BASIC_INFORMATION = nt::query(fd, FileBasicInformation)?;
    let attributes = basic.FileAttributes;
    let read_only = mode.as_raw_mode() & 0o200 == 0;
    if attributes & FILE_ATTRIBUTE_DIRECTORY != 0
        || (attributes & FILE_ATTRIBUTE_READONLY != 0) == read_only
    {
        return Ok(());
    }
    let mut wanted = if read_only {
        attributes | FILE_ATTRIBUTE_READONLY
    } else {
        attributes & !FILE_ATTRIBUTE_READONLY
    };
    if wanted == 0 {
        wanted = FILE_ATTRIBUTE_NORMAL;
    }
    // Zero times leave them as they are.
    let change = FILE_BASIC_INFORMATION {
        FileAttributes: wanted,
        ..FILE_BASIC_INFORMATION::default()
    };
    // SAFETY: a whole FILE_BASIC_INFORMATION.
    unsafe {
        nt::set(
            fd,
            FileBasicInformation,
            (&change as *const FILE_BASIC_INFORMATION).cast(),
            size_of::<FILE_BASIC_INFORMATION>(),
        )
    }
}

/// Owners are not Unix ids here: nothing to carry over.
pub fn fchown(_fd: impl AsFd, _owner: Option<Uid>, _group: Option<Gid>) -> Result<()> {
    Ok(())
}

/// A directory's names, read through a handle of its own (`NtQueryDirectoryFile`).
pub struct Dir {
    fd: OwnedFd,
    buffer: Vec<u64>,
    /// Byte offset of the next entry in `buffer`, `None` when it is used up.
    next: Option<usize>,
    restart: bool,
    done: bool,
}

/// One name from a [`Dir`]: UTF-8, or (a name Windows holds as unpaired UTF-16) a byte that
/// is not, so callers pass it over as they pass over a non-UTF-8 name on Unix.
pub struct DirEntry {
    name: CString,
}

impl DirEntry {
    /// The entry's name.
    pub fn file_name(&self) -> &CStr {
        &self.name
    }
}

impl Dir {
    /// Reads the directory `fd` holds, from the start, through a new handle.
    pub fn read_from(fd: impl AsFd) -> Result<Dir> {
        Ok(Dir {
            fd: reopen(fd.as_fd(), DIR_ACCESS)?,
            buffer: vec![0u64; 8192],
            next: None,
            restart: true,
            done: false,
        })
    }

    /// The next name, `None` at the end.
    pub fn read(&mut self) -> Option<Result<DirEntry>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(at) = self.next {
                return Some(Ok(self.take(at)));
            }
            if let Err(e) = self.fill() {
                self.done = true;
                return Some(Err(e));
            }
        }
    }

    /// Reads the next batch of `FILE_NAMES_INFORMATION` records.
    fn fill(&mut self) -> Result<()> {
        let mut status_block = IO_STATUS_BLOCK::default();
        let bytes = (self.buffer.len() * 8) as u32;
        // SAFETY: the buffer holds `bytes` writable bytes; a synchronous handle completes the
        // call before it returns.
        let status = unsafe {
            NtQueryDirectoryFile(
                self.fd.as_fd().raw(),
                std::ptr::null_mut(),
                None,
                std::ptr::null(),
                &mut status_block,
                self.buffer.as_mut_ptr().cast(),
                bytes,
                FileNamesInformation,
                false,
                std::ptr::null(),
                self.restart,
            )
        };
        self.restart = false;
        // STATUS_NO_MORE_FILES, or STATUS_NO_SUCH_FILE for a directory with no entry at all.
        if status as u32 == 0x8000_0006 || status as u32 == 0xC000_000F {
            self.done = true;
            return Ok(());
        }
        nt::status(status)?;
        self.next = Some(0);
        Ok(())
    }

    /// The record at byte `at` of the buffer; moves `next` past it.
    fn take(&mut self, at: usize) -> DirEntry {
        let base = self.buffer.as_ptr().cast::<u8>();
        let read_u32 = |offset: usize| {
            // SAFETY: records lie within the bytes the call filled; reads are unaligned-safe.
            unsafe { std::ptr::read_unaligned(base.add(at + offset).cast::<u32>()) }
        };
        let next_offset = read_u32(0) as usize;
        let name_bytes = read_u32(8) as usize;
        let units: Vec<u16> = (0..name_bytes / 2)
            .map(|i| {
                // SAFETY: as above; the name follows the three 32-bit fields.
                unsafe { std::ptr::read_unaligned(base.add(at + 12 + 2 * i).cast::<u16>()) }
            })
            .collect();
        self.next = (next_offset != 0).then_some(at + next_offset);
        let name = String::from_utf16(&units)
            .ok()
            .and_then(|text| CString::new(text).ok())
            .unwrap_or_else(|| CString::new(vec![0xFF]).unwrap_or_default());
        DirEntry { name }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `REPARSE_DATA_BUFFER` for `tag` holding `substitute` and `print`, with `flags` for a
    /// symbolic link.
    fn reparse(tag: u32, substitute: &str, print: &str, flags: Option<u32>) -> Vec<u8> {
        let (sub, prn): (Vec<u16>, Vec<u16>) = (nt::wide(substitute), nt::wide(print));
        let mut names: Vec<u8> = Vec::new();
        for unit in sub.iter().chain(&prn) {
            names.extend(unit.to_le_bytes());
        }
        let mut data = tag.to_le_bytes().to_vec();
        let header = if flags.is_some() { 12 } else { 8 };
        data.extend(((header + names.len()) as u16).to_le_bytes());
        data.extend([0, 0]);
        data.extend(0u16.to_le_bytes());
        data.extend(((sub.len() * 2) as u16).to_le_bytes());
        data.extend(((sub.len() * 2) as u16).to_le_bytes());
        data.extend(((prn.len() * 2) as u16).to_le_bytes());
        if let Some(flags) = flags {
            data.extend(flags.to_le_bytes());
        }
        data.extend(names);
        data
    }

    #[test]
    fn link_targets_read_as_their_print_names_relative_ones_with_slashes() {
        let relative = reparse(IO_REPARSE_TAG_SYMLINK, r"..\x\y", r"..\x\y", Some(1));
        assert_eq!(link_target(&relative).as_deref(), Some("../x/y"));
        // What Windows follows, not what it shows.
        let disguised = reparse(IO_REPARSE_TAG_SYMLINK, r"..\..\out", "docs/a.md", Some(1));
        assert_eq!(link_target(&disguised).as_deref(), Some("../../out"));
        let unnamed = reparse(IO_REPARSE_TAG_SYMLINK, "", r"x\y", Some(1));
        assert_eq!(link_target(&unnamed).as_deref(), Some("x/y"));
        let absolute = reparse(IO_REPARSE_TAG_SYMLINK, r"\??\C:\w", r"C:\w", Some(0));
        assert_eq!(link_target(&absolute).as_deref(), Some(r"\??\C:\w"));
        let junction = reparse(IO_REPARSE_TAG_MOUNT_POINT, r"\??\D:\data", "", None);
        assert_eq!(link_target(&junction).as_deref(), Some(r"\??\D:\data"));
        // Not a link, or cut short: nothing.
        assert_eq!(link_target(&reparse(0x8000_0017, "a", "a", None)), None);
        assert_eq!(link_target(&relative[..10]), None);
        assert!(nt::is_special(0x8000_0023) && !nt::is_special(0x9000_001A));
    }

    #[test]
    fn a_component_is_one_plain_entry() {
        for name in ["a.txt", ".env", "x y", "NODE_M~1"] {
            assert!(plain_name(name).is_ok(), "{name}");
        }
        for name in [
            "", ".", "..", "a/b", r"a\b", "a:s", "x.", "x ", "CON", "nul.txt", "a|b",
        ] {
            assert_eq!(plain_name(name), Err(Errno::INVAL), "{name}");
        }
    }

    #[test]
    fn ticks_since_1601_become_unix_seconds_and_nanoseconds() {
        assert_eq!(unix_time(116_444_736_000_000_000), (0, 0));
        assert_eq!(unix_time(116_444_736_000_000_001), (0, 100));
        assert_eq!(unix_time(116_444_735_999_999_999), (-1, 999_999_900));
    }
}
