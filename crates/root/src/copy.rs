//! Copying inside the root: a file, a symbolic link, or a directory tree a tree check saw.
//!
//! Nothing is ever overwritten and nothing is left half made under the destination's name. A
//! file is written to a temp file beside the destination, synced, and renamed into place with
//! `RENAME_NOREPLACE`; a link is created in one `symlinkat`, which fails on an existing name; a
//! tree is built whole under a reserved temp name beside the destination (each file and
//! directory synced), then renamed into place with `RENAME_NOREPLACE`. A crash can leave
//! only such a temp entry behind, which no tool shows or names. Every source file is opened
//! through the root's one read ([`super::open::open_regular`]: an `lstat` in its directory, one
//! `openat2` of its path from the root's descriptor, an `fstat` that must agree) and must
//! still be the file the check saw; a link is read in its directory, never followed. A change
//! stops the copy and discards what it built.

use crate::sys::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::sys::fs::{AtFlags, FileType, Mode, OFlags};
use crate::sys::io::Errno;

use super::dir::open_dir_at;
use super::location::{SeenEntry, same_inode};
use super::open::{NotOpened, open_regular};
use super::{Identity, Location, Node, ReadFile, RelPath, Root, RootError, SeenTree};

/// The most bytes one copy writes: a copy doubles what it carries on disk, and no argument
/// of its own bounds it.
pub const MAX_COPY_BYTES: u64 = 1 << 30;

/// The free space a copy leaves on a filesystem of `total` bytes: a tenth of it, at most
/// `cap` (`--copy-reserve-bytes`). A copy is refused, before anything is written, when the
/// bytes it would allocate would leave less free than this.
pub fn free_space_reserve(total: u64, cap: u64) -> u64 {
    (total / 10).min(cap)
}

/// Why a copy copied nothing. Paths are below the source (empty for the source itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyError {
    /// Something stands at the destination.
    Exists,
    /// The source changed after it was checked.
    Changed,
    /// A FIFO, socket or device.
    Special(String),
    /// A link whose target would lead outside the root from its new place.
    LinkOutside(String),
    /// A file larger than `--max-file-bytes`.
    FileTooLarge(String),
    /// A file this process may not read.
    Unreadable(String),
    /// The source holds more than [`MAX_COPY_BYTES`] (the bytes it holds).
    TooManyBytes(u64),
    /// The copy would leave less free on the destination's filesystem than
    /// [`free_space_reserve`] keeps.
    NoSpace {
        /// The bytes the copy would allocate: its source's files' allocated bytes.
        needs: u64,
        /// The bytes free on the destination's filesystem for this process.
        free: u64,
        /// The bytes a copy leaves free there.
        keeps: u64,
    },
    /// A limit of the root or the call (walk ceilings, deadline, cancellation).
    Root(RootError),
    /// The filesystem refused (no space, no permission, …).
    Failed,
}

impl CopyError {
    /// The same refusal about the entry `below` the source, when it names no entry yet.
    fn at(self, below: &str) -> CopyError {
        match self {
            CopyError::Unreadable(path) if path.is_empty() => {
                CopyError::Unreadable(below.to_owned())
            }
            other => other,
        }
    }
}

impl From<RootError> for CopyError {
    fn from(error: RootError) -> CopyError {
        CopyError::Root(error)
    }
}

/// What a copy made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    /// Regular files written.
    pub files: u64,
    /// Symbolic links created.
    pub links: u64,
    /// Directories created below the copied one.
    pub directories: u64,
    /// Bytes written.
    pub bytes: u64,
}

impl Root {
    /// Copies the file or link at `from` to `to`, which must be absent.
    pub fn copy_entry(&self, from: &Location, to: &Location) -> Result<Copied, CopyError> {
        let (Some(_), Some(to_name)) = (from.name(), to.name()) else {
            return Err(CopyError::Failed);
        };
        let mut copied = Copied::default();
        match from.node() {
            Node::File(info) => {
                self.check_size(info.identity.size, "")?;
                if info.identity.size > MAX_COPY_BYTES {
                    return Err(CopyError::TooManyBytes(info.identity.size));
                }
                let source = self.open_source(from.dir(), from.path(), &info.identity)?;
                let stat = crate::sys::fs::fstat(source.fd()).map_err(|_| CopyError::Changed)?;
                self.leaves_room(to.dir(), super::extents::allocated(&stat))?;
                let (temp_name, temp) =
                    super::mutate::create_temp(to.dir(), 0o600).map_err(|_| CopyError::Failed)?;
                let written = copy_bytes(&source, &temp, info.mode)
                    .and_then(|n| rename_into_place(to.dir(), &temp_name, to_name).map(|()| n));
                match written {
                    Ok(n) => copied.bytes = n,
                    Err(e) => {
                        let _ = crate::sys::fs::unlinkat(
                            to.dir(),
                            temp_name.as_str(),
                            AtFlags::empty(),
                        );
                        return Err(e);
                    }
                }
                copied.files = 1;
            }
            Node::Symlink(_, target) => {
                let parent = to.path().parent().unwrap_or_else(RelPath::root);
                if !self.link_stays_inside(&parent, &target, from.path(), to.path()) {
                    return Err(CopyError::LinkOutside(String::new()));
                }
                make_link(&target, to.dir(), to_name)?;
                copied.links = 1;
            }
            Node::Other(_) => return Err(CopyError::Special(String::new())),
            Node::Absent | Node::Directory(_) => return Err(CopyError::Changed),
        }
        let _ = crate::platform::sync(to.dir());
        Ok(copied)
    }

    /// Copies the directory at `from`, exactly as the tree check `seen` saw it, to `to`, which
    /// must be absent. Everything is checked before anything is written: no FIFO, socket or
    /// device, every link staying inside the root from its new place, every file within
    /// `--max-file-bytes`, the whole within [`MAX_COPY_BYTES`] and the walk ceilings the
    /// configuration named.
    pub fn copy_tree(
        &self,
        from: &Location,
        seen: &SeenTree,
        to: &Location,
    ) -> Result<Copied, CopyError> {
        let to_name = to.name().ok_or(CopyError::Failed)?;
        let allocated = self.plan(from, seen, to)?;
        self.leaves_room(to.dir(), allocated)?;
        // Held open, and so locked against a sweep, until the copy is in place or gone.
        let (temp_name, _held) = make_temp_dir(to.dir())?;
        let built = self.build(from, seen, to.dir(), &temp_name);
        let placed = built
            .and_then(|copied| rename_into_place(to.dir(), &temp_name, to_name).map(|()| copied));
        match placed {
            Ok(copied) => {
                let _ = crate::platform::sync(to.dir());
                Ok(copied)
            }
            Err(e) => {
                discard(to.dir(), &temp_name);
                Err(e)
            }
        }
    }

    /// The refusals a tree copy can know before writing anything; else the bytes its files
    /// take on disk, which the copy will take too.
    fn plan(&self, from: &Location, seen: &SeenTree, to: &Location) -> Result<u64, CopyError> {
        let ceilings = self.limits.named_ceilings();
        let dirs = seen.dirs.len() as u64 - 1;
        let files = seen
            .dirs
            .iter()
            .map(|d| d.entries.len() as u64)
            .sum::<u64>();
        if seen.len() as u64 > ceilings.entries {
            return Err(RootError::EntryLimit.into());
        }
        if dirs > ceilings.directories {
            return Err(RootError::DirectoryLimit.into());
        }
        if files > ceilings.files {
            return Err(RootError::FileLimit.into());
        }
        let below = below_paths(seen);
        let (mut bytes, mut allocated) = (0u64, 0u64);
        for (index, dir) in seen.dirs.iter().enumerate() {
            for entry in &dir.entries {
                let path = join(&below[index], &entry.name);
                match entry.kind {
                    FileType::RegularFile => {
                        self.check_size(entry.identity.size, &path)?;
                        bytes = bytes.saturating_add(entry.identity.size);
                        allocated = allocated.saturating_add(entry.allocated);
                    }
                    FileType::Symlink => {
                        let parent = RelPath::parse(&join(to.path().as_str(), &below[index]))
                            .map_err(|_| CopyError::LinkOutside(path.clone()))?;
                        let target = entry.target.as_deref().unwrap_or_default();
                        if !self.link_stays_inside(&parent, target, from.path(), to.path()) {
                            return Err(CopyError::LinkOutside(path));
                        }
                    }
                    _ => return Err(CopyError::Special(path)),
                }
            }
        }
        if bytes > MAX_COPY_BYTES {
            return Err(CopyError::TooManyBytes(bytes));
        }
        Ok(allocated)
    }

    /// Refuses a file larger than the root serves.
    fn check_size(&self, size: u64, path: &str) -> Result<(), CopyError> {
        if size > self.limits.max_file_bytes {
            return Err(CopyError::FileTooLarge(path.to_owned()));
        }
        Ok(())
    }

    /// Builds the copy of `seen` in the new directory `temp_name` of `holder`: depth first,
    /// one source and one copy descriptor per level, each directory's mode set once it is
    /// filled (so a read-only one can still be filled) and synced.
    fn build(
        &self,
        from: &Location,
        seen: &SeenTree,
        holder: BorrowedFd<'_>,
        temp_name: &str,
    ) -> Result<Copied, CopyError> {
        let mut copied = Copied::default();
        let below = below_paths(seen);
        let source = from.open_dir()?;
        if !same_inode(&source, seen.dirs[0].inode) {
            return Err(CopyError::Changed);
        }
        let copy = open_dir_at(holder, temp_name).map_err(|_| CopyError::Failed)?;
        // Each frame: a directory's index, its source and copy, and how many subdirectories
        // are done.
        let mut frames: Vec<(usize, OwnedFd, OwnedFd, usize)> = vec![(0, source, copy, 0)];
        while let Some((index, source, copy, next)) = frames.last_mut() {
            let record = &seen.dirs[*index];
            if *next == 0 {
                for entry in &record.entries {
                    super::deadline::check()?;
                    let below = join(&below[*index], &entry.name);
                    self.copy_seen_entry(source, copy, entry, from.path(), &below, &mut copied)
                        .map_err(|e| e.at(&below))?;
                }
            }
            if let Some(&sub) = record.subdirs.get(*next) {
                *next += 1;
                super::deadline::check()?;
                let child = &seen.dirs[sub];
                let child_source = open_dir_at(&*source, &child.name)
                    .ok()
                    .filter(|fd| same_inode(fd, child.inode))
                    .ok_or(CopyError::Changed)?;
                crate::sys::fs::mkdirat(&*copy, child.name.as_str(), Mode::from_raw_mode(0o700))
                    .map_err(|_| CopyError::Failed)?;
                let child_copy = open_dir_at(&*copy, &child.name).map_err(|_| CopyError::Failed)?;
                copied.directories += 1;
                frames.push((sub, child_source, child_copy, 0));
                continue;
            }
            crate::sys::fs::fchmod(
                &*copy,
                crate::platform::mode(record.mode & crate::mutate::KEPT_BITS),
            )
            .and_then(|()| crate::platform::sync(&*copy))
            .map_err(|_| CopyError::Failed)?;
            frames.pop();
        }
        Ok(copied)
    }

    /// Whether a link with `target` in the directory `parent` (its new place) leads only
    /// inside the root, as the kernel would resolve it once the copy of `from` stands at
    /// `to`. The target is taken from `parent` segment by segment: `..` may climb only the
    /// real directories it starts in (a `..` after a name the target entered could climb
    /// out of a link, so it is refused), an absolute target must lie under the root's own
    /// path, and the path reached is then chased through every link on the way, each of
    /// which must stay inside too. A path inside the copy is looked at where its source is,
    /// and may pass through no link there but its last component (a copied link, checked on
    /// its own).
    fn link_stays_inside(
        &self,
        parent: &RelPath,
        target: &[u8],
        from: &RelPath,
        to: &RelPath,
    ) -> bool {
        let Ok(target) = std::str::from_utf8(target) else {
            return false;
        };
        if target.is_empty() {
            return false;
        }
        let (mut reached, rest): (Vec<&str>, String) = match self.absolute_target(target) {
            Ok(Some(below_root)) => (Vec::new(), below_root),
            Ok(None) => (parent.segments().collect(), target.to_owned()),
            Err(_) => return false,
        };
        let mut entered = false;
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." if entered => return false,
                ".." => {
                    if reached.pop().is_none() {
                        return false;
                    }
                }
                name => {
                    reached.push(name);
                    entered = true;
                }
            }
        }
        let reached = reached.join("/");
        if reached.is_empty() {
            return true;
        }
        if to.contains(&reached) {
            let mapped = format!("{}{}", from.as_str(), &reached[to.as_str().len()..]);
            return RelPath::parse(&mapped)
                .ok()
                .is_some_and(|path| self.chase(&path, false).is_ok_and(|p| p == path));
        }
        RelPath::parse(&reached)
            .ok()
            .is_some_and(|path| self.chase(&path, true).is_ok())
    }
}

/// Each checked directory's path below the source (empty for the source itself).
fn below_paths(seen: &SeenTree) -> Vec<String> {
    let mut below: Vec<String> = vec![String::new(); seen.dirs.len()];
    // A subdirectory's index always follows its parent's.
    for (index, dir) in seen.dirs.iter().enumerate() {
        for &sub in &dir.subdirs {
            below[sub] = join(&below[index], &seen.dirs[sub].name);
        }
    }
    below
}

/// `dir/name`, or `name` for the top.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

impl Root {
    /// Copies one file or link of a checked tree from `source` (the directory at `below`'s
    /// parent) into `copy` under its name; `below` is its path below the copied directory
    /// `from`.
    fn copy_seen_entry(
        &self,
        source: &OwnedFd,
        copy: &OwnedFd,
        entry: &SeenEntry,
        from: &RelPath,
        below: &str,
        copied: &mut Copied,
    ) -> Result<(), CopyError> {
        let name = entry.name.as_str();
        if entry.kind == FileType::Symlink {
            let target = crate::sys::fs::readlinkat(source, name, Vec::new())
                .map_err(|_| CopyError::Changed)?
                .into_bytes();
            if Some(&target) != entry.target.as_ref() {
                return Err(CopyError::Changed);
            }
            make_link(&target, copy.as_fd(), name)?;
            copied.links += 1;
            return Ok(());
        }
        // The tree check refused any name a client could not spell, so the path parses.
        let path = RelPath::from_walk(from.join(below)).ok_or(CopyError::Changed)?;
        let file = self.open_source(source.as_fd(), &path, &entry.identity)?;
        let made = crate::sys::fs::openat(
            copy,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|_| CopyError::Failed)?;
        copied.bytes += copy_bytes(&file, &made, entry.mode)?;
        copied.files += 1;
        Ok(())
    }

    /// Opens the regular file at `path` (its link-free path; `dir` holds it) through the
    /// root's one read, so a directory moved out of the root lends nothing; it must still be
    /// exactly the file a look at it saw (`seen`).
    fn open_source(
        &self,
        dir: BorrowedFd<'_>,
        path: &RelPath,
        seen: &Identity,
    ) -> Result<ReadFile, CopyError> {
        let file = open_regular(&self.dir, dir, path).map_err(|e| match e {
            // Held open elsewhere without sharing (Windows): as unreadable as a denied file.
            NotOpened::Denied | NotOpened::InUse => CopyError::Unreadable(String::new()),
            NotOpened::Refused => CopyError::Changed,
        })?;
        if file.identity() != *seen {
            return Err(CopyError::Changed);
        }
        Ok(file)
    }
}

/// Copies every byte of `source` into `copy`, its holes kept as holes
/// ([`super::extents::copy_file`]), gives it `mode`'s kept bits and syncs it. The source must
/// not change meanwhile. Returns the bytes copied (holes included).
fn copy_bytes(source: &ReadFile, copy: &OwnedFd, mode: u32) -> Result<u64, CopyError> {
    let done = super::extents::copy_file(source, copy)?;
    crate::sys::fs::fchmod(copy, crate::platform::mode(mode & crate::mutate::KEPT_BITS))
        .and_then(|()| crate::platform::sync(copy))
        .map_err(|_| CopyError::Failed)?;
    Ok(done)
}

impl Root {
    /// Refuses a copy that would take `needs` bytes of the filesystem holding `dir` and leave
    /// less free there than [`free_space_reserve`]. Where the system gives no reading, nothing
    /// is refused (the copy then stops at a full disk like any write, and removes what it
    /// built).
    fn leaves_room(&self, dir: BorrowedFd<'_>, needs: u64) -> Result<(), CopyError> {
        let Some((free, total)) = crate::platform::free_space(dir) else {
            return Ok(());
        };
        let keeps = free_space_reserve(total, self.limits().copy_reserve_bytes);
        if needs.saturating_add(keeps) > free {
            return Err(CopyError::NoSpace { needs, free, keeps });
        }
        Ok(())
    }
}

/// Creates the link `name` in `dir` with `target`; an existing name is never replaced.
fn make_link(target: &[u8], dir: BorrowedFd<'_>, name: &str) -> Result<(), CopyError> {
    let target = std::str::from_utf8(target).map_err(|_| CopyError::Changed)?;
    match crate::sys::fs::symlinkat(target, dir, name) {
        Ok(()) => Ok(()),
        Err(Errno::EXIST) => Err(CopyError::Exists),
        Err(_) => Err(CopyError::Failed),
    }
}

/// Renames the finished `temp_name` to `name` in `dir`, never replacing what is there.
fn rename_into_place(dir: BorrowedFd<'_>, temp_name: &str, name: &str) -> Result<(), CopyError> {
    match crate::platform::rename_no_replace(dir, temp_name, dir, name) {
        Ok(()) => Ok(()),
        Err(Errno::EXIST | Errno::NOTEMPTY) => Err(CopyError::Exists),
        Err(_) => Err(CopyError::Failed),
    }
}

/// Creates a fresh directory in `dir` under a reserved name no walk shows, open to this
/// process only while it is filled, and a descriptor of it holding the builder's lock
/// ([`super::sweep::hold`]): keep it open until the copy is renamed into place or discarded.
fn make_temp_dir(dir: BorrowedFd<'_>) -> Result<(String, OwnedFd), CopyError> {
    for _ in 0..16 {
        let name = super::mutate::temp_name().map_err(|_| CopyError::Failed)?;
        match crate::sys::fs::mkdirat(dir, name.as_str(), Mode::from_raw_mode(0o700)) {
            Ok(()) => {}
            Err(Errno::EXIST) => continue,
            Err(_) => return Err(CopyError::Failed),
        }
        let fd = open_dir_at(dir, &name).map_err(|_| CopyError::Failed)?;
        if super::sweep::hold(&fd, dir, &name) {
            return Ok((name, fd));
        }
        // A sweep took it for stale in the instant before the lock, and removes it.
    }
    Err(CopyError::Failed)
}

/// Removes the unfinished copy `name` in `holder` and everything in it. Only ever called on a
/// temp directory this copy made.
fn discard(holder: BorrowedFd<'_>, name: &str) {
    super::sweep::remove_tree(holder, name, &mut super::sweep::Budget::unbounded());
}

#[cfg(test)]
mod tests {
    // The test builds its tree with std::fs: it is the world outside the root.
    #![allow(clippy::disallowed_methods)]

    use super::*;
    use crate::Selector;
    use crate::limits::Limits;

    /// A root with no copy reserve, so these tests do not depend on how full the machine's
    /// disk is.
    fn root_over(dir: &std::path::Path) -> Root {
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let limits = Limits {
            copy_reserve_bytes: 0,
            ..Limits::default()
        };
        Root::open(dir, selector, limits).unwrap()
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/sub")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("src/sub/b.txt"), "b\n").unwrap();
        dir
    }

    fn locate(root: &Root, path: &str) -> Location {
        root.locate(&RelPath::parse(path).unwrap()).unwrap()
    }

    #[test]
    fn a_destination_appearing_after_the_check_is_never_replaced() {
        let dir = tree();
        let root = root_over(dir.path());
        let (from, to) = (locate(&root, "src"), locate(&root, "dst"));
        let seen = root.check_tree(&from, &|_, _| true).unwrap().unwrap();
        std::fs::create_dir(dir.path().join("dst")).unwrap();
        assert_eq!(root.copy_tree(&from, &seen, &to), Err(CopyError::Exists));
        // The unfinished copy is gone, and what appeared is as it was.
        assert_eq!(names(dir.path()), ["dst", "src"]);
        assert!(names(&dir.path().join("dst")).is_empty());

        let (from, to) = (locate(&root, "src/a.txt"), locate(&root, "b.txt"));
        std::fs::write(dir.path().join("b.txt"), "mine\n").unwrap();
        assert_eq!(root.copy_entry(&from, &to), Err(CopyError::Exists));
        assert_eq!(names(dir.path()), ["b.txt", "dst", "src"]);
        assert_eq!(std::fs::read(dir.path().join("b.txt")).unwrap(), b"mine\n");
    }

    #[test]
    fn a_source_changed_after_the_check_copies_nothing() {
        let dir = tree();
        let root = root_over(dir.path());
        let (from, to) = (locate(&root, "src"), locate(&root, "dst"));
        let seen = root.check_tree(&from, &|_, _| true).unwrap().unwrap();
        std::fs::remove_file(dir.path().join("src/sub/b.txt")).unwrap();
        std::fs::write(dir.path().join("src/sub/b.txt"), "new\n").unwrap();
        assert_eq!(root.copy_tree(&from, &seen, &to), Err(CopyError::Changed));
        assert_eq!(names(dir.path()), ["src"]);
    }

    #[test]
    fn a_source_directory_moved_out_of_the_root_lends_nothing() {
        let dir = tree();
        let outside = tempfile::tempdir().unwrap();
        let root = root_over(dir.path());
        // The user-space steps open the name in the directory held, wherever it went since.
        if matches!(
            crate::dir::open_beneath(&root.dir, "src", OFlags::RDONLY | OFlags::CLOEXEC),
            crate::dir::Beneath::Unsupported
        ) {
            return;
        }
        let (from, to) = (locate(&root, "src/a.txt"), locate(&root, "b.txt"));
        std::fs::rename(dir.path().join("src"), outside.path().join("src")).unwrap();
        // The descriptor of the moved directory still reaches the file; the root's read does not.
        assert!(matches!(from.node(), Node::File(_)));
        assert_eq!(root.copy_entry(&from, &to), Err(CopyError::Changed));
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn a_finished_copy_counts_what_it_made() {
        let dir = tree();
        let root = root_over(dir.path());
        let (from, to) = (locate(&root, "src"), locate(&root, "dst"));
        let seen = root.check_tree(&from, &|_, _| true).unwrap().unwrap();
        let copied = root.copy_tree(&from, &seen, &to).unwrap();
        assert_eq!(
            copied,
            Copied {
                files: 2,
                links: 0,
                directories: 1,
                bytes: 4
            }
        );
        assert_eq!(names(dir.path()), ["dst", "src"]);
        assert_eq!(
            std::fs::read(dir.path().join("dst/sub/b.txt")).unwrap(),
            b"b\n"
        );
    }
}
