//! Descriptor-relative primitives: opening the root, stepping through directories without
//! following links, reading directory names, and `lstat` relative to a directory.

use crate::sys::fd::{AsFd, OwnedFd};
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sys::fs::{AtFlags, CWD, FileType, Mode, OFlags, Stat};
use crate::sys::io::Errno;

use super::relpath::RelPath;
use crate::OpenError;

pub(crate) use super::relpath::{TEMP_PREFIX, TEMP_SUFFIX, is_reserved as is_temp_name};

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Opens the configured root: lexically absolute against the working directory, the final
/// component never a symbolic link.
pub(crate) fn open_root(path: &Path) -> Result<OwnedFd, OpenError> {
    crate::platform::read_test_switch();
    let absolute = absolutize(path);
    let stat = match crate::sys::fs::statat(CWD, &absolute, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => stat,
        Err(_) => return Err(OpenError::Missing),
    };
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Symlink => return Err(OpenError::Symlink),
        FileType::Directory => {}
        _ => return Err(OpenError::NotDirectory),
    }
    let fd = crate::sys::fs::openat(CWD, &absolute, DIR_FLAGS, Mode::empty())
        .map_err(|_| OpenError::NotDirectory)?;
    let opened = crate::sys::fs::fstat(&fd).map_err(|_| OpenError::Missing)?;
    if opened.st_ino != stat.st_ino || opened.st_dev != stat.st_dev {
        return Err(OpenError::Symlink);
    }
    // Learn now whether the kernel takes `openat2`, so the start-up log names the door used.
    let _ = open_beneath(&fd, ".", DIR_FLAGS);
    Ok(fd)
}

/// `path.resolve` semantics: join with the working directory and fold `.`/`..` lexically
/// (on Windows, std's own reading of drive letters, UNC and `\\?\` prefixes).
#[cfg(windows)]
pub(crate) fn absolutize(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path.resolve` semantics: join with the working directory and fold `.`/`..` lexically.
#[cfg(not(windows))]
pub(crate) fn absolutize(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        use std::path::Component;
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(part) => out.push(part),
            _ => {}
        }
    }
    out
}

/// `path` with every link among its components resolved (`None` when that fails); on
/// Windows without the `\\?\` prefix the system adds.
// The one path-resolving call: the root's own path, once at open, to recognise a spelling of
// it in an absolute argument. Nothing is opened through the result.
#[allow(clippy::disallowed_methods)]
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    #[cfg(windows)]
    if let Some(plain) = real.to_str().and_then(|r| r.strip_prefix(r"\\?\"))
        && !plain.starts_with(r"UNC\")
    {
        return Some(PathBuf::from(plain));
    }
    Some(real)
}

/// The part of `absolute` below `base` (both absolute), components joined by `/`, or `None`
/// when it is not below it. On Windows `\` and `/` are one separator and ASCII letters match
/// in either case.
pub(crate) fn below(base: &Path, absolute: &str) -> Option<String> {
    below_with(base.to_str()?, absolute, cfg!(windows))
}

/// [`below`], with or without Windows' rules.
fn below_with(base: &str, absolute: &str, windows: bool) -> Option<String> {
    let separators = |text: &str| {
        if windows {
            text.replace('\\', "/")
        } else {
            text.to_owned()
        }
    };
    let base = separators(base);
    let absolute = separators(absolute);
    let base = base.trim_end_matches('/');
    let head = absolute.get(..base.len())?;
    let rest = absolute.get(base.len()..)?;
    let matches = if windows {
        head.eq_ignore_ascii_case(base)
    } else {
        head == base
    };
    if !matches || !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    Some(rest.trim_start_matches('/').to_owned())
}

/// Opens the directory `name` inside `parent` without following a link.
pub(crate) fn open_dir_at(parent: impl AsFd, name: &str) -> Result<OwnedFd, Errno> {
    crate::sys::fs::openat(parent, name, DIR_FLAGS, Mode::empty())
}

/// Re-opens the root's own directory so a walk owns an independent read position.
pub(crate) fn reopen(dir: impl AsFd) -> Result<OwnedFd, Errno> {
    crate::sys::fs::openat(dir, ".", DIR_FLAGS, Mode::empty())
}

/// Opens the directory `path` below the root, every segment a real directory (never a link).
/// `None` when a segment is missing, a link, or not a directory. Callers that follow links
/// resolve the path first.
///
/// One `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` does it in the kernel: no link is
/// followed at any component, and the kernel refuses a result that is not below the root when
/// the walk ends, which also defeats a directory renamed out of the root mid-walk. Kernels
/// without `openat2` (before 5.6, or a seccomp filter refusing it) get the same steps from
/// user space: one no-follow `openat` per segment, each holding the descriptor of the last.
pub(crate) fn open_dir_chain(root: impl AsFd, path: &RelPath) -> Option<OwnedFd> {
    match open_dir_beneath(&root, path) {
        Beneath::Opened(fd) => return Some(fd),
        Beneath::Refused(_) => return None,
        Beneath::Unsupported => {}
    }
    let mut current = reopen(&root).ok()?;
    for segment in path.segments() {
        current = open_dir_at(&current, segment).ok()?;
    }
    Some(current)
}

/// The directory `path` below the root by one `openat2` (see [`open_dir_chain`]), or why not.
pub(crate) fn open_dir_beneath(root: impl AsFd, path: &RelPath) -> Beneath {
    let target = if path.is_root() { "." } else { path.as_str() };
    open_beneath(root, target, DIR_FLAGS)
}

/// What [`open_beneath`] did.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) enum Beneath {
    /// Opened below the root, through no link.
    Opened(OwnedFd),
    /// Missing, a link at some component, not below the root, or not openable (the kernel's
    /// reason).
    Refused(Errno),
    /// `openat2` cannot make this open (the kernel lacks it, or refused the call itself, or
    /// kept seeing a rename race): take the user-space steps instead.
    Unsupported,
}

/// `openat2(root, path, flags)` confined below `root`, following no link at any component.
pub(crate) fn open_beneath(root: impl AsFd, path: &str, flags: OFlags) -> Beneath {
    if !has_openat2() {
        return Beneath::Unsupported;
    }
    openat2_beneath(root, path, flags)
}

/// Whether opens below a root go through `openat2` (see [`crate::platform::Door`]).
pub(crate) fn has_openat2() -> bool {
    cfg!(target_os = "linux") && HAS_OPENAT2.load(Ordering::Relaxed) && !crate::platform::portable()
}

#[cfg(target_os = "linux")]
fn openat2_beneath(root: impl AsFd, path: &str, flags: OFlags) -> Beneath {
    use crate::sys::fs::ResolveFlags;
    // Resolution confined below the starting descriptor, never through a link.
    const BENEATH: ResolveFlags = ResolveFlags::BENEATH
        .union(ResolveFlags::NO_SYMLINKS)
        .union(ResolveFlags::NO_MAGICLINKS);
    for _ in 0..OPENAT2_TRIES {
        match crate::sys::fs::openat2(&root, path, flags, Mode::empty(), BENEATH) {
            Ok(fd) => return Beneath::Opened(fd),
            // The kernel saw a rename race it could not rule out: look again, a few times.
            Err(Errno::AGAIN | Errno::INTR) => continue,
            // No `openat2` in this kernel: it will not appear, so every later open walks.
            Err(Errno::NOSYS) => {
                if HAS_OPENAT2.swap(false, Ordering::Relaxed) {
                    tracing::warn!(
                        target: "fsmcp::platform",
                        "this kernel has no openat2; opens below the root take the per-component no-follow walk from now on"
                    );
                }
                return Beneath::Unsupported;
            }
            // The call itself refused (a seccomp filter, flags or a size this kernel does not
            // take): this open walks, and the next one asks the kernel again, so a refusal
            // that passes does not weaken the door for good.
            Err(Errno::PERM | Errno::INVAL | Errno::TOOBIG) => {
                tracing::debug!(target: "fsmcp::platform", "openat2 refused the call; this open walks");
                return Beneath::Unsupported;
            }
            Err(e) => return Beneath::Refused(e),
        }
    }
    // Raced every time: the walk, which holds each directory as it goes, is not fooled by it.
    Beneath::Unsupported
}

/// How often one open asks `openat2` again after a rename race it could not rule out.
#[cfg(target_os = "linux")]
const OPENAT2_TRIES: usize = 8;

/// Only Linux has `openat2`; elsewhere every open takes the per-component steps.
#[cfg(not(target_os = "linux"))]
fn openat2_beneath(_root: impl AsFd, _path: &str, _flags: OFlags) -> Beneath {
    Beneath::Unsupported
}

/// Cleared the first time the kernel answers that it has no `openat2` (`ENOSYS`).
static HAS_OPENAT2: AtomicBool = AtomicBool::new(true);

/// Takes the per-component walk from now on, as on a kernel without `openat2` (a test switch).
#[cfg(debug_assertions)]
pub(crate) fn refuse_openat2() {
    HAS_OPENAT2.store(false, Ordering::Relaxed);
}

/// `lstat` of `name` inside `dir`; any failure reads as "absent".
pub(crate) fn lstat_at(dir: impl AsFd, name: &str) -> Option<Stat> {
    crate::sys::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()
}

/// The kind recorded in a `stat` result.
pub(crate) fn file_type(stat: &Stat) -> FileType {
    FileType::from_raw_mode(stat.st_mode)
}

/// Reads every name in `dir` (not `.`/`..`), calling `charge` once per entry as it is read so
/// an oversized directory fails early. Names that are not UTF-8 are charged but not returned:
/// a client could never name them.
pub(crate) fn read_names<E>(
    dir: impl AsFd,
    mut charge: impl FnMut() -> Result<(), E>,
) -> Result<Vec<String>, E> {
    let mut names = Vec::new();
    // `Dir::read_from` opens its own descriptor, so the caller's position is never shared.
    let Ok(mut reader) = crate::sys::fs::Dir::read_from(dir) else {
        return Ok(names);
    };
    while let Some(entry) = reader.read() {
        let Ok(entry) = entry else { break };
        let name: &CStr = entry.file_name();
        let bytes = name.to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        charge()?;
        if let Ok(text) = std::str::from_utf8(bytes)
            && !is_temp_name(text)
        {
            names.push(text.to_owned());
        }
    }
    Ok(names)
}

/// Every name in `dir` (not `.`/`..`), `None` standing for a name that is not UTF-8. No budget:
/// for operations that must see everything, such as a recursive delete's check.
pub(crate) fn read_all_names(dir: impl AsFd) -> Result<Vec<Option<String>>, Errno> {
    let mut reader = crate::sys::fs::Dir::read_from(dir)?;
    let mut names = Vec::new();
    while let Some(entry) = reader.read() {
        let entry = entry?;
        let bytes = entry.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        names.push(std::str::from_utf8(bytes).ok().map(str::to_owned));
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::below_with;

    #[test]
    fn an_absolute_path_below_the_root_is_its_remainder() {
        let unix = |absolute: &str| below_with("/work/repo", absolute, false);
        assert_eq!(unix("/work/repo/src/a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(unix("/work/repo").as_deref(), Some(""));
        assert_eq!(unix("/work/repo/").as_deref(), Some(""));
        assert_eq!(unix("/work/repo//src/").as_deref(), Some("src/"));
        assert_eq!(
            unix("/work/repo-old/a.rs"),
            None,
            "a sibling sharing the prefix"
        );
        assert_eq!(unix("/work/Repo/a.rs"), None, "case counts on Unix");
        assert_eq!(unix("/work"), None);
        assert_eq!(
            below_with("/", "/etc/x", false).as_deref(),
            Some("etc/x"),
            "a root at / holds every absolute path"
        );
        let windows = |absolute: &str| below_with(r"C:\work\repo", absolute, true);
        assert_eq!(
            windows(r"C:\work\repo\src\a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(
            windows("c:/WORK/repo/src/a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(windows(r"C:\work\repo").as_deref(), Some(""));
        assert_eq!(windows(r"D:\work\repo\a.rs"), None);
        assert_eq!(windows(r"C:\work\repository\a.rs"), None);
    }
}
