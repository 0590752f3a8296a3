//! Named locations for the model-facing tools: a path resolved to the descriptor of the
//! directory that holds it (every ancestor a real directory, never a link) plus its last name.
//! Every operation on a [`Location`] is relative to that descriptor, so no path string is ever
//! resolved twice.

use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, Stat};
use rustix::io::Errno;

use super::dir::{file_type, is_temp_name, lstat_at, open_dir_at, reopen};
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
        let uid = rustix::process::geteuid();
        let gid = rustix::process::getegid();
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
        // A followed link may not lead into what the selector hides.
        if resolved != parent && self.selector.excludes_ancestor(&resolved) {
            return Err(ChainError::ThroughLink);
        }
        let path = RelPath::parse(&resolved.join(name)).map_err(|_| ChainError::Missing)?;
        self.locate_resolved(&path)
    }

    /// Like [`Root::locate`], following a link in the last component too (when links are
    /// followed), so the location names what the link points at. A target the selector
    /// excludes is refused like a link that leaves the root.
    pub fn locate_target(&self, path: &RelPath) -> Result<Location, ChainError> {
        let resolved = self.resolve(path, true)?;
        if resolved != *path && self.selector.excludes_ancestor(&resolved) {
            return Err(ChainError::ThroughLink);
        }
        self.locate_resolved(&resolved)
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
        Ok(Location {
            dir: current,
            name: path.file_name().map(str::to_owned),
            path: path.clone(),
        })
    }
}

impl Location {
    /// The link-free path of this location (the path given, when no link was followed).
    pub fn path(&self) -> &RelPath {
        &self.path
    }

    /// Whether this is the root itself.
    pub fn is_root(&self) -> bool {
        self.name.is_none()
    }

    /// What the location names now, without following a link. fsmcp's own temp files read as
    /// absent.
    pub fn node(&self) -> Node {
        let stat = match &self.name {
            None => rustix::fs::fstat(&self.dir).ok(),
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
                    .and_then(|n| rustix::fs::readlinkat(&self.dir, n, Vec::new()).ok())
                    .map(|t| t.into_bytes())
                    .unwrap_or_default();
                Node::Symlink(info, target)
            }
            _ => Node::Other(info),
        }
    }

    /// Opens the regular file here for reading (no link followed, never blocking).
    pub fn open_file(&self) -> Result<ReadFile, RootError> {
        let name = self.name.as_deref().ok_or(RootError::NotReadable)?;
        super::open::open_regular(&self.dir, name)
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
    pub fn create_dir(&self) -> Result<bool, Errno> {
        let Some(name) = self.name.as_deref() else {
            return Ok(false);
        };
        match rustix::fs::mkdirat(&self.dir, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => {
                let _ = rustix::fs::fsync(&self.dir);
                Ok(true)
            }
            Err(Errno::EXIST) => match lstat_at(&self.dir, name).map(|s| file_type(&s)) {
                Some(FileType::Directory) => Ok(false),
                _ => Err(Errno::EXIST),
            },
            Err(e) => Err(e),
        }
    }

    /// Renames this location to `to` without ever replacing what is there.
    pub fn rename_to(&self, to: &Location) -> Result<(), MoveError> {
        let (Some(from_name), Some(to_name)) = (self.name.as_deref(), to.name.as_deref()) else {
            return Err(MoveError::Failed);
        };
        match rustix::fs::renameat_with(
            &self.dir,
            from_name,
            &to.dir,
            to_name,
            RenameFlags::NOREPLACE,
        ) {
            Ok(()) => {
                let _ = rustix::fs::fsync(&self.dir);
                let _ = rustix::fs::fsync(&to.dir);
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
    pub fn remove(&self, directory: bool) -> Result<(), Errno> {
        let name = self.name.as_deref().ok_or(Errno::BUSY)?;
        let flags = if directory {
            AtFlags::REMOVEDIR
        } else {
            AtFlags::empty()
        };
        rustix::fs::unlinkat(&self.dir, name, flags)?;
        let _ = rustix::fs::fsync(&self.dir);
        Ok(())
    }
}

impl Root {
    /// Removes the directory at `location` and everything below it, descending only through
    /// real directories (links are unlinked as links). `allowed(path, is_directory)` must
    /// accept every entry first: nothing is removed unless the whole tree may be.
    pub fn remove_tree(
        &self,
        location: &Location,
        allowed: &dyn Fn(&str, bool) -> bool,
    ) -> Result<bool, RootError> {
        let dir = location.open_dir()?;
        if !self.tree_allowed(&dir, location.path(), allowed, 0)? {
            return Ok(false);
        }
        remove_contents(&dir).map_err(|_| RootError::WriteFailed)?;
        location.remove(true).map_err(|_| RootError::WriteFailed)?;
        Ok(true)
    }

    fn tree_allowed(
        &self,
        dir: &OwnedFd,
        path: &RelPath,
        allowed: &dyn Fn(&str, bool) -> bool,
        depth: u64,
    ) -> Result<bool, RootError> {
        if depth > self.limits.max_depth {
            return Err(RootError::DepthLimit);
        }
        super::deadline::check()?;
        let names = super::dir::read_all_names(dir).map_err(|_| RootError::NotServed)?;
        for name in names {
            // A name no client could spell is not served, so the tree may not go.
            let Some(child) = name.and_then(|n| RelPath::from_walk(path.join(&n))) else {
                return Ok(false);
            };
            let name = child.file_name().unwrap_or_default().to_owned();
            let Some(stat) = lstat_at(dir, &name) else {
                continue;
            };
            let is_dir = file_type(&stat) == FileType::Directory;
            if !allowed(child.as_str(), is_dir) {
                return Ok(false);
            }
            if is_dir {
                let sub = open_dir_at(dir, &name).map_err(|_| RootError::NotServed)?;
                if !self.tree_allowed(&sub, &child, allowed, depth + 1)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

/// Unlinks everything inside `dir`, depth first, never following a link.
fn remove_contents(dir: &OwnedFd) -> Result<(), Errno> {
    for name in super::dir::read_all_names(dir)?.into_iter().flatten() {
        match rustix::fs::unlinkat(dir, name.as_str(), AtFlags::empty()) {
            Ok(()) => {}
            Err(Errno::ISDIR) | Err(Errno::PERM) => {
                let sub = rustix::fs::openat(
                    dir,
                    name.as_str(),
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                remove_contents(&sub)?;
                rustix::fs::unlinkat(dir, name.as_str(), AtFlags::REMOVEDIR)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
