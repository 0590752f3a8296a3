//! Named locations for the model-facing tools: a path resolved to the descriptor of the
//! directory that holds it (every ancestor a real directory, never a link) plus its last name.
//! Every look at a [`Location`] and every change through it is relative to that descriptor, so
//! no path string is resolved twice for them. A read is the exception: [`Root::open_located`]
//! looks at the file in that directory, then opens its link-free path by one `openat2` from
//! the root's descriptor, which must reach the file it looked at.

use crate::sys::fd::{AsFd, BorrowedFd, OwnedFd};
use std::rc::Rc;

use crate::sys::fs::{AtFlags, FileType, Mode, Stat};
use crate::sys::io::Errno;

use super::dir::{
    Beneath, file_type, is_temp_name, lstat_at, open_dir_at, open_dir_beneath, reopen,
};
use super::{Identity, ReadFile, RelPath, Root, RootError};

/// Why a path's directory chain does not resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainError {
    /// A component does not exist.
    Missing,
    /// A component is a symbolic link.
    ThroughLink,
    /// A component is not a directory.
    NotDirectory,
    /// A followed link leads where the selector does not serve what the path given names.
    Unserved,
}

/// What a location names, observed without following a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Nothing by that name.
    Absent,
    /// A regular file.
    File(NodeInfo),
    /// A directory.
    Directory(NodeInfo),
    /// A symbolic link (its target text).
    Symlink(NodeInfo, Vec<u8>),
    /// A FIFO, socket or device.
    Other(NodeInfo),
}

/// Metadata of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeInfo {
    /// Identity (size, times, inode, device).
    pub identity: Identity,
    /// Permission bits.
    pub mode: u32,
    /// Whether this process may read it, by its permission bits.
    pub readable: bool,
    /// Whether this process may write it, by its permission bits.
    pub writable: bool,
}

impl NodeInfo {
    fn of(stat: &Stat) -> NodeInfo {
        #[allow(clippy::unnecessary_cast)] // `st_mode` is u16 on some platforms.
        let mode = stat.st_mode as u32;
        let uid = crate::sys::process::geteuid();
        let gid = crate::sys::process::getegid();
        let allowed = |bit: u32| {
            if uid.is_root() {
                return true;
            }
            if stat.st_uid == uid.as_raw() {
                mode & (bit << 6) != 0
            } else if stat.st_gid == gid.as_raw() {
                mode & (bit << 3) != 0
            } else {
                mode & bit != 0
            }
        };
        NodeInfo {
            identity: Identity::of(stat),
            mode: mode & 0o7777,
            readable: allowed(0o4),
            writable: allowed(0o2),
        }
    }
}

/// A path under the root: the directory that holds it and its name (`None` for the root).
#[derive(Debug)]
pub struct Location {
    dir: OwnedFd,
    name: Option<String>,
    path: RelPath,
}

/// Why [`Location::create_dir`] created nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateError {
    /// Something other than a directory stands there.
    InTheWay,
    /// The filesystem refused.
    Failed,
}

/// Why [`Location::remove`] removed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoveError {
    /// The directory holds entries.
    NotEmpty,
    /// The filesystem refused, or the location is the root itself.
    Failed,
}

/// Why a move was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveError {
    /// The source does not exist.
    Missing,
    /// The destination exists.
    Exists,
    /// A directory would move into itself.
    IntoItself,
    /// Source and destination are on different filesystems.
    CrossDevice,
    /// Anything else the kernel refused.
    Failed,
}

impl Root {
    /// Resolves `path` to its holding directory, stepping through each ancestor without
    /// following links. The last component need not exist.
    pub fn locate(&self, path: &RelPath) -> Result<Location, ChainError> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return self.locate_resolved(path);
        };
        let resolved = self.resolve(&parent, true)?;
        let resolved = if resolved == parent {
            path.clone()
        } else {
            RelPath::parse(&resolved.join(name)).map_err(|_| ChainError::Missing)?
        };
        self.check_followed(path, self.locate_resolved(&resolved)?)
    }

    /// Like [`Root::locate`], following a link in the last component too (when links are
    /// followed), so the location names what the link points at.
    pub fn locate_target(&self, path: &RelPath) -> Result<Location, ChainError> {
        let resolved = self.resolve(path, true)?;
        self.check_followed(path, self.locate_resolved(&resolved)?)
    }

    /// A followed link may lead only where the selector serves as much as it serves the path
    /// given: never to or below an excluded name, and, unless it leads to a directory (which
    /// is served wherever it is not excluded), to a selected path whenever the path given is
    /// selected. Otherwise a link inside the selection would read, write or create what the
    /// selection hides.
    fn check_followed(&self, given: &RelPath, location: Location) -> Result<Location, ChainError> {
        let resolved = location.path();
        if resolved == given {
            return Ok(location);
        }
        let selector = &self.selector;
        if selector.excludes_ancestor(resolved)
            || (selector.selects(given.as_str())
                && !selector.selects(resolved.as_str())
                && !matches!(location.node(), Node::Directory(_)))
        {
            return Err(ChainError::Unserved);
        }
        Ok(location)
    }

    /// Opens the regular file at `location` (from this root's [`Root::locate`] or
    /// [`Root::locate_target`]) for reading, never blocking: an `lstat` in the location's
    /// directory, so a FIFO or device is never opened, then one `openat2` of its link-free path
    /// from the root's descriptor, below the root and through no link, which must open the
    /// file the `lstat` saw. Without `openat2`, the name is opened in the location's directory.
    /// Anything else (the root itself, a link, a file replaced mid-open) is
    /// [`RootError::NotReadable`].
    pub fn open_located(&self, location: &Location) -> Result<ReadFile, RootError> {
        if location.is_root() {
            return Err(RootError::NotReadable);
        }
        Ok(super::open::open_regular(
            &self.dir,
            &location.dir,
            &location.path,
        )?)
    }

    fn locate_resolved(&self, path: &RelPath) -> Result<Location, ChainError> {
        let Some(parent) = path.parent() else {
            let dir = reopen(&self.dir).map_err(|_| ChainError::Missing)?;
            return Ok(Location {
                dir,
                name: None,
                path: path.clone(),
            });
        };
        // One `openat2` below the root's descriptor, as every open; the steps only where the
        // kernel lacks it.
        let dir = match open_dir_beneath(&self.dir, &parent) {
            Beneath::Opened(dir) => dir,
            // The steps only name what is wrong (the kernel's errno does not say which component
            // was a link); should they get through, the tree changed under the call.
            Beneath::Refused(_) => {
                return Err(self.step_to(&parent).err().unwrap_or(ChainError::Missing));
            }
            Beneath::Unsupported => self.step_to(&parent)?,
        };
        Ok(Location {
            dir,
            name: path.file_name().map(str::to_owned),
            path: path.clone(),
        })
    }

    /// The directory `parent` below the root by one no-follow `openat` per segment, or what
    /// stopped the walk.
    fn step_to(&self, parent: &RelPath) -> Result<OwnedFd, ChainError> {
        let mut current = reopen(&self.dir).map_err(|_| ChainError::Missing)?;
        for segment in parent.segments() {
            current = match open_dir_at(&current, segment) {
                Ok(next) => next,
                Err(_) => {
                    return Err(match lstat_at(&current, segment).map(|s| file_type(&s)) {
                        None => ChainError::Missing,
                        Some(FileType::Symlink) => ChainError::ThroughLink,
                        Some(_) => ChainError::NotDirectory,
                    });
                }
            };
        }
        Ok(current)
    }
}

impl Location {
    /// The link-free path of this location (the path given, when no link was followed).
    pub fn path(&self) -> &RelPath {
        &self.path
    }

    /// The descriptor of the directory holding this location.
    pub(crate) fn dir(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// The name of this location in its directory (`None` for the root).
    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether this is the root itself.
    pub fn is_root(&self) -> bool {
        self.name.is_none()
    }

    /// What the location names now, without following a link. fsmcp's own temp files read as
    /// absent.
    pub fn node(&self) -> Node {
        let stat = match &self.name {
            None => crate::sys::fs::fstat(&self.dir).ok(),
            Some(name) if is_temp_name(name) => None,
            Some(name) => lstat_at(&self.dir, name),
        };
        let Some(stat) = stat else {
            return Node::Absent;
        };
        let info = NodeInfo::of(&stat);
        match file_type(&stat) {
            FileType::RegularFile => Node::File(info),
            FileType::Directory => Node::Directory(info),
            FileType::Symlink => {
                let target = self
                    .name
                    .as_deref()
                    .and_then(|n| crate::sys::fs::readlinkat(&self.dir, n, Vec::new()).ok())
                    .map(|t| t.into_bytes())
                    .unwrap_or_default();
                Node::Symlink(info, target)
            }
            _ => Node::Other(info),
        }
    }

    /// Opens the directory here (the root itself for the root location).
    pub(crate) fn open_dir(&self) -> Result<OwnedFd, RootError> {
        match &self.name {
            None => reopen(&self.dir).map_err(|_| RootError::NotServed),
            Some(name) => open_dir_at(&self.dir, name).map_err(|_| RootError::NotServed),
        }
    }

    /// Atomically replaces or creates the regular file here with `bytes`. `new_mode` is the
    /// mode of a newly created file (`None`: 0666 less the umask).
    pub fn write_file(&self, bytes: &[u8], new_mode: Option<u32>) -> Result<(), RootError> {
        let name = self.name.as_deref().ok_or(RootError::NotWritable)?;
        super::mutate::replace_in(self.dir.as_fd(), name, bytes, new_mode)
    }

    /// Creates the directory here. `Ok(false)` when a directory already exists.
    pub fn create_dir(&self) -> Result<bool, CreateError> {
        let Some(name) = self.name.as_deref() else {
            return Ok(false);
        };
        match crate::sys::fs::mkdirat(&self.dir, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => {
                let _ = crate::platform::sync(&self.dir);
                Ok(true)
            }
            Err(Errno::EXIST) => match lstat_at(&self.dir, name).map(|s| file_type(&s)) {
                Some(FileType::Directory) => Ok(false),
                _ => Err(CreateError::InTheWay),
            },
            Err(_) => Err(CreateError::Failed),
        }
    }

    /// Renames this location to `to` without ever replacing what is there.
    pub fn rename_to(&self, to: &Location) -> Result<(), MoveError> {
        let (Some(from_name), Some(to_name)) = (self.name.as_deref(), to.name.as_deref()) else {
            return Err(MoveError::Failed);
        };
        match crate::platform::rename_no_replace(&self.dir, from_name, &to.dir, to_name) {
            Ok(()) => {
                let _ = crate::platform::sync(&self.dir);
                let _ = crate::platform::sync(&to.dir);
                Ok(())
            }
            Err(Errno::EXIST) | Err(Errno::NOTEMPTY) => Err(MoveError::Exists),
            Err(Errno::NOENT) => Err(MoveError::Missing),
            // Also "flags not supported" on some filesystems; into-itself is checked before.
            Err(Errno::INVAL) => Err(MoveError::IntoItself),
            Err(Errno::XDEV) => Err(MoveError::CrossDevice),
            Err(_) => Err(MoveError::Failed),
        }
    }

    /// Removes a file or link (`directory: false`) or an empty directory (`directory: true`).
    pub fn remove(&self, directory: bool) -> Result<(), RemoveError> {
        let name = self.name.as_deref().ok_or(RemoveError::Failed)?;
        let flags = if directory {
            AtFlags::REMOVEDIR
        } else {
            AtFlags::empty()
        };
        match crate::sys::fs::unlinkat(&self.dir, name, flags) {
            Ok(()) => {
                let _ = crate::platform::sync(&self.dir);
                Ok(())
            }
            Err(Errno::NOTEMPTY) | Err(Errno::EXIST) => Err(RemoveError::NotEmpty),
            Err(_) => Err(RemoveError::Failed),
        }
    }
}

/// Everything a tree check saw below one directory: each directory (the checked one first)
/// with the files, links and other entries directly in it, all by name and inode. A removal
/// removes exactly this and nothing that appeared after it.
#[derive(Debug)]
pub struct SeenTree {
    pub(crate) dirs: Vec<SeenDir>,
}

/// Why [`Root::check_tree`] did not take a tree: what it met first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unseeable {
    /// An entry `allowed` refused: its path from the root.
    Refused(String),
    /// A name no client could spell (not UTF-8, say), in the directory at this path.
    Unspellable(String),
}

#[derive(Debug)]
pub(crate) struct SeenDir {
    pub(crate) name: String,
    pub(crate) inode: (u64, u64),
    /// Permission bits, which a copy keeps.
    pub(crate) mode: u32,
    pub(crate) entries: Vec<SeenEntry>,
    pub(crate) subdirs: Vec<usize>,
}

/// One entry a tree check saw that is not a directory.
#[derive(Debug)]
pub(crate) struct SeenEntry {
    pub(crate) name: String,
    pub(crate) inode: (u64, u64),
    /// What a copy needs to keep it and notice a change: kind, identity, mode.
    pub(crate) kind: FileType,
    pub(crate) identity: Identity,
    pub(crate) mode: u32,
    /// The bytes a regular file takes on disk (`st_blocks` × 512), which its copy takes too.
    pub(crate) allocated: u64,
    /// A link's target text, read as the check saw the link.
    pub(crate) target: Option<Vec<u8>>,
}

impl SeenTree {
    /// How many entries the check saw below the directory, directories included.
    pub fn len(&self) -> usize {
        self.dirs.len() - 1 + self.dirs.iter().map(|d| d.entries.len()).sum::<usize>()
    }

    /// Whether the directory held nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a removal of a [`SeenTree`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// Everything is gone, the directory itself too.
    Complete,
    /// Something that was not seen (or was replaced) since the check is still there, with the
    /// directories that hold it; everything else the check saw is gone.
    LeftUnseen,
    /// The call's deadline passed, or it was cancelled ([`RootError::Deadline`] or
    /// [`RootError::Cancelled`] in `cause`), after `removed` of the tree's entries were gone;
    /// the rest is still in place.
    Stopped {
        /// Entries (files, links and directories) removed before the stop.
        removed: u64,
        /// Why it stopped.
        cause: RootError,
    },
}

pub(crate) fn inode_of(stat: &Stat) -> (u64, u64) {
    let identity = Identity::of(stat);
    (identity.dev, identity.ino)
}

/// Whether the descriptor `fd` is still the inode a tree check recorded.
pub(crate) fn same_inode(fd: impl AsFd, inode: (u64, u64)) -> bool {
    crate::sys::fs::fstat(fd).is_ok_and(|stat| inode_of(&stat) == inode)
}

/// The permission bits of a `stat` result.
#[allow(clippy::unnecessary_cast)] // `st_mode` is u16 on some platforms.
fn mode_of(stat: &Stat) -> u32 {
    stat.st_mode as u32 & 0o7777
}

impl Root {
    /// Looks at every entry below the directory at `location`, depth first, never following
    /// a link: `allowed(path, is_directory)` must accept each one. `Ok(Err(_))` names the
    /// first one refused, or the directory holding a name no client could spell. Iterative,
    /// holding one descriptor per level, and bounded by `--max-depth`.
    pub fn check_tree(
        &self,
        location: &Location,
        allowed: &dyn Fn(&str, bool) -> bool,
    ) -> Result<Result<SeenTree, Unseeable>, RootError> {
        let top = Rc::new(location.open_dir()?);
        let top_stat = crate::sys::fs::fstat(&*top).map_err(|_| RootError::NotServed)?;
        let mut dirs = vec![SeenDir {
            name: String::new(),
            inode: inode_of(&top_stat),
            mode: mode_of(&top_stat),
            entries: Vec::new(),
            subdirs: Vec::new(),
        }];
        // Directories found and not yet read: their index, path, depth, and the descriptor of
        // the directory holding them (`None` for the top). A directory is opened only when
        // it is read, so the descriptors alive are those of the levels above, one per level.
        let mut pending: Vec<(usize, RelPath, u64, Option<Rc<OwnedFd>>)> =
            vec![(0, location.path().clone(), 0, None)];
        while let Some((index, path, depth, parent)) = pending.pop() {
            if depth > self.limits.max_depth {
                return Err(RootError::DepthLimit);
            }
            super::deadline::check()?;
            let dir = match parent {
                None => top.clone(),
                Some(parent) => {
                    let record = &dirs[index];
                    let fd = open_dir_at(&*parent, &record.name)
                        .ok()
                        .filter(|fd| same_inode(fd, record.inode))
                        .ok_or(RootError::Changed)?;
                    Rc::new(fd)
                }
            };
            let names = super::dir::read_all_names(&*dir).map_err(|_| RootError::NotServed)?;
            for name in names {
                // One directory may hold hundreds of thousands of entries (a `node_modules`).
                super::deadline::check()?;
                // A name no client could spell is not served, so the tree may not go.
                let Some(child) = name.and_then(|n| RelPath::from_walk(path.join(&n))) else {
                    return Ok(Err(Unseeable::Unspellable(path.as_str().to_owned())));
                };
                let name = child.file_name().unwrap_or_default().to_owned();
                let Some(stat) = lstat_at(&*dir, &name) else {
                    continue;
                };
                let is_dir = file_type(&stat) == FileType::Directory;
                if !allowed(child.as_str(), is_dir) {
                    return Ok(Err(Unseeable::Refused(child.as_str().to_owned())));
                }
                if !is_dir {
                    let kind = file_type(&stat);
                    let target = (kind == FileType::Symlink)
                        .then(|| crate::sys::fs::readlinkat(&*dir, name.as_str(), Vec::new()).ok())
                        .flatten()
                        .map(|t| t.into_bytes());
                    dirs[index].entries.push(SeenEntry {
                        inode: inode_of(&stat),
                        kind,
                        identity: Identity::of(&stat),
                        mode: mode_of(&stat),
                        allocated: crate::extents::allocated(&stat),
                        target,
                        name,
                    });
                    continue;
                }
                let sub_index = dirs.len();
                dirs.push(SeenDir {
                    name,
                    inode: inode_of(&stat),
                    mode: mode_of(&stat),
                    entries: Vec::new(),
                    subdirs: Vec::new(),
                });
                dirs[index].subdirs.push(sub_index);
                pending.push((sub_index, child, depth + 1, Some(dir.clone())));
            }
        }
        Ok(Ok(SeenTree { dirs }))
    }

    /// Removes what `seen` recorded below `location`, then the directory itself, deepest
    /// first and without recursion. An entry is removed only while it is still the inode the
    /// check saw; a directory replaced since is not entered, and whatever appeared since is
    /// left where it is (with the directories that hold it). The call's deadline and
    /// cancellation are checked before each entry: a stopped removal leaves the rest in place
    /// and says how much it removed. Only the top directory's parent is synced, once: the
    /// directories below are gone, so making their changes durable would buy nothing.
    pub fn remove_seen(&self, location: &Location, seen: &SeenTree) -> Result<Removal, RootError> {
        let top = location.open_dir()?;
        if !same_inode(&top, seen.dirs[0].inode) {
            return Ok(Removal::LeftUnseen);
        }
        let mut complete = true;
        let mut removed = 0u64;
        let stopped = |removed, cause| Ok(Removal::Stopped { removed, cause });
        // Each frame: a directory's index, its descriptor, and how many subdirectories are done.
        let mut frames: Vec<(usize, OwnedFd, usize)> = vec![(0, top, 0)];
        while let Some((index, dir, next)) = frames.last_mut() {
            let record = &seen.dirs[*index];
            if *next == 0 {
                for SeenEntry { name, inode, .. } in &record.entries {
                    if let Err(cause) = crate::deadline::check() {
                        return stopped(removed, cause);
                    }
                    let still_seen = lstat_at(&*dir, name).is_some_and(|s| inode_of(&s) == *inode);
                    if still_seen
                        && crate::sys::fs::unlinkat(&*dir, name.as_str(), AtFlags::empty()).is_ok()
                    {
                        removed += 1;
                    } else {
                        complete = false;
                    }
                }
            }
            if let Err(cause) = crate::deadline::check() {
                return stopped(removed, cause);
            }
            if let Some(&sub) = record.subdirs.get(*next) {
                *next += 1;
                let child = &seen.dirs[sub];
                match open_dir_at(&*dir, &child.name) {
                    Ok(fd) if same_inode(&fd, child.inode) => frames.push((sub, fd, 0)),
                    _ => complete = false,
                }
                continue;
            }
            frames.pop();
            let gone = match frames.last() {
                Some((_, parent, _)) => {
                    crate::sys::fs::unlinkat(parent, record.name.as_str(), AtFlags::REMOVEDIR)
                        .is_ok()
                }
                None => location.remove(true).is_ok(),
            };
            removed += u64::from(gone);
            complete &= gone;
        }
        Ok(if complete {
            Removal::Complete
        } else {
            Removal::LeftUnseen
        })
    }
}

#[cfg(test)]
mod tests {
    // The test builds its tree with std::fs: it is the world outside the root.
    #![allow(clippy::disallowed_methods)]

    use super::*;
    use crate::Selector;
    use crate::deadline::Call;
    use crate::limits::Limits;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// A root over a fresh directory holding `tree/` with `dirs` directories of two files.
    fn tree(dirs: usize) -> (tempfile::TempDir, Root, Location) {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..dirs {
            let sub = dir.path().join(format!("tree/d{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join("a.txt"), "a\n").unwrap();
            std::fs::write(sub.join("b.txt"), "b\n").unwrap();
        }
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir.path(), selector, Limits::default()).unwrap();
        let location = root.locate(&RelPath::parse("tree").unwrap()).unwrap();
        (dir, root, location)
    }

    fn entries(dir: &std::path::Path) -> usize {
        walk_count(&dir.join("tree"))
    }

    fn walk_count(path: &std::path::Path) -> usize {
        match std::fs::read_dir(path) {
            Ok(read) => 1 + read.map(|e| walk_count(&e.unwrap().path())).sum::<usize>(),
            Err(_) if path.exists() => 1,
            Err(_) => 0,
        }
    }

    #[test]
    fn a_removal_past_its_deadline_stops_and_leaves_the_rest() {
        let (dir, root, location) = tree(20);
        let seen = root.check_tree(&location, &|_, _| true).unwrap().unwrap();
        assert_eq!(entries(dir.path()), 61);
        let removal =
            Call::within(Duration::ZERO).run(|| root.remove_seen(&location, &seen).unwrap());
        assert_eq!(
            removal,
            Removal::Stopped {
                removed: 0,
                cause: RootError::Deadline
            }
        );
        assert_eq!(
            entries(dir.path()),
            61,
            "nothing is removed past the deadline"
        );
    }

    #[test]
    fn a_cancelled_removal_stops_and_leaves_the_rest() {
        let (dir, root, location) = tree(20);
        let seen = root.check_tree(&location, &|_, _| true).unwrap().unwrap();
        let flag = Arc::new(AtomicUsize::new(1));
        let call = Call::within(Duration::from_secs(60)).cancelled_by(flag);
        let removal = call.run(|| root.remove_seen(&location, &seen).unwrap());
        assert_eq!(
            removal,
            Removal::Stopped {
                removed: 0,
                cause: RootError::Cancelled
            }
        );
        assert_eq!(entries(dir.path()), 61);
    }

    #[test]
    fn a_removal_in_time_removes_everything_it_saw() {
        let (dir, root, location) = tree(20);
        let seen = root.check_tree(&location, &|_, _| true).unwrap().unwrap();
        let removal = Call::within(Duration::from_secs(60))
            .run(|| root.remove_seen(&location, &seen).unwrap());
        assert_eq!(removal, Removal::Complete);
        assert_eq!(entries(dir.path()), 0);
    }
}
