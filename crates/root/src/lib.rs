//! The confinement boundary, as its own crate: the only crate of fsmcp that depends on
//! `rustix`'s filesystem API, so the compiler keeps every filesystem call in here. A [`Root`]
//! holds a pinned directory descriptor, a [`Selector`] and the walk [`Limits`], and touches the
//! filesystem only relative to that descriptor, never following a symbolic link at any
//! component. The worker pools ([`workers`]) live here too: walks run on them, under the
//! calling thread's [`Call`].
//!
//! * [`RelPath`] parses client text into a path that cannot leave the root.
//! * [`Selector`] answers which paths the root serves.
//! * [`Root::inventory`] and [`Root::list`] are budgeted, sorted walks.
//! * [`Root::open_for_read`] (a path) and [`Root::open_located`] (a [`Location`]) open without
//!   following or blocking, by one `openat2` from the root's descriptor, and return a
//!   [`ReadFile`].
//! * [`Root::replace_file`] commits a write atomically (temp file, fsync, rename).
//! * [`Root::copy_entry`] and [`Root::copy_tree`] copy without overwriting, each new entry
//!   synced and put in place by one no-replace rename.
//!
//! ```no_run
//! use fsmcp_root::limits::Limits;
//! use fsmcp_root::{RelPath, Root, Selector};
//! let selector = Selector::new(&["**".to_string()], &[], true);
//! let root = Root::open(".", selector, Limits::default()).unwrap();
//! let files = root.inventory(&RelPath::root()).unwrap();
//! println!("{} files served", files.len());
//! ```

mod copy;
mod deadline;
mod dir;
mod error;
mod extents;
mod identity;
pub mod limits;
mod location;
mod mutate;
mod open;
pub mod platform;
mod relpath;
mod remember;
mod resolve;
mod select;
mod sweep;
mod sys;
mod walk;
mod watch;
pub mod workers;

use crate::sys::fd::OwnedFd;
use std::path::Path;

pub use copy::{Copied, CopyError, MAX_COPY_BYTES, free_space_reserve};
pub use deadline::{
    Call, Progress, check as check_deadline, current as current_call, with_deadline,
};
pub use error::RootError;
pub use identity::Identity;
pub use location::{
    ChainError, CreateError, Location, MoveError, Node, NodeInfo, Removal, RemoveError, SeenTree,
    Unseeable,
};
pub use open::ReadFile;
pub use platform::Platform;
pub use relpath::{MAX_PATH_UNITS, PathError, RelPath, compare_utf16};
pub use select::{EXCLUDES_IGNORE_CASE, Glob, Selector, default_excludes, glob_to_regex};
pub use sweep::{SWEEP_DELAY, SWEEP_MAX_ENTRIES, SWEEP_MAX_TIME, Swept, WINDOWS_STALE_AFTER};
pub use walk::{
    EntryKind, FileEntry, InOrder, ListEntry, Listed, MAX_COSTLY_IN_FORCE, MAX_FILE_PATTERNS,
    MAX_IGNORE_BYTES, MAX_PATTERNS_IN_FORCE, Marked, Marker, NotApplied, Step, TreeWalk, Unapplied,
    compare_tree_order,
};

use limits::Limits;

/// Why a root could not be opened; each `Display` is the line a user reads at start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// The limits given are outside their ranges.
    #[error("limits are not valid")]
    InvalidLimits,
    /// Nothing exists at the root's path.
    #[error("root does not exist")]
    Missing,
    /// The root's path is a symbolic link.
    #[error("root must not be a symbolic link")]
    Symlink,
    /// The root's path is not a directory.
    #[error("root is not a directory")]
    NotDirectory,
}

/// How many descriptors this process may hold open (its soft `RLIMIT_NOFILE`; `None` for no
/// limit): the HTTP server sizes its connection cap by it, leaving room for the files calls open.
pub fn descriptor_limit() -> Option<u64> {
    crate::sys::process::getrlimit(crate::sys::process::Resource::Nofile).current
}

/// One served directory: the capability every filesystem access goes through.
#[derive(Debug)]
pub struct Root {
    dir: OwnedFd,
    selector: Selector,
    limits: Limits,
    /// Follow links whose targets stay inside the root (`--follow-symlinks`).
    follow_symlinks: bool,
    /// In-order walks skip what `.gitignore` files ignore (`--respect-gitignore`).
    respect_gitignore: bool,
    /// The root's absolute path as opened: only to recognise absolute link targets under it.
    base: std::path::PathBuf,
    /// The same path with its ancestors' links resolved, when that differs (macOS's `/tmp`
    /// is `/private/tmp`): a host may hand either spelling.
    real_base: Option<std::path::PathBuf>,
    /// Walks kept while a change watcher vouches for them.
    remembered: remember::Remembered,
}

impl Root {
    /// Validates the limits, then pins `path` (resolved against the working directory) as a
    /// root. The root itself must be a real directory, not a symbolic link.
    pub fn open(
        path: impl AsRef<Path>,
        selector: Selector,
        limits: Limits,
    ) -> Result<Root, OpenError> {
        if !limits.is_valid() {
            return Err(OpenError::InvalidLimits);
        }
        let dir = dir::open_root(path.as_ref())?;
        let base = dir::absolutize(path.as_ref());
        let real_base = dir::real_path(&base).filter(|real| *real != base);
        Ok(Root {
            dir,
            selector,
            limits,
            follow_symlinks: false,
            respect_gitignore: false,
            base,
            real_base,
            remembered: remember::Remembered::new(true),
        })
    }

    /// Follows symbolic links whose targets stay inside the root, instead of skipping them.
    pub fn with_follow_symlinks(mut self, follow: bool) -> Root {
        self.follow_symlinks = follow;
        // A followed link's target lies outside what a walk watches: keep no walks.
        self.remembered = remember::Remembered::new(!follow);
        self
    }

    /// Makes [`Root::in_order`] and [`Root::in_order_pruned`] skip what the tree's `.gitignore`
    /// files and `.git/info/exclude` ignore (the searches' walks); the inventory, listings,
    /// digests and opens by path are unchanged. It only narrows what the selector serves.
    pub fn with_respect_gitignore(mut self, respect: bool) -> Root {
        self.respect_gitignore = respect;
        self
    }

    /// Whether in-order walks skip what `.gitignore` files ignore.
    pub fn respects_gitignore(&self) -> bool {
        self.respect_gitignore
    }

    /// Whether links inside the root are followed.
    pub fn follows_symlinks(&self) -> bool {
        self.follow_symlinks
    }

    /// The part of an absolute host path below the root's own path (`""` for the root itself),
    /// with `/` between its components; `None` when `absolute` is not absolute or lies
    /// elsewhere. The root's path is matched as opened or with its ancestors' links resolved;
    /// on Windows without regard to case or to `\\` against `/`. Only text is compared: what
    /// the remainder names is resolved from the root's descriptor like any relative path.
    pub fn below(&self, absolute: &str) -> Option<String> {
        if !std::path::Path::new(absolute).is_absolute() {
            return None;
        }
        std::iter::once(&self.base)
            .chain(self.real_base.as_ref())
            .find_map(|base| dir::below(base, absolute))
    }

    /// The selector this root serves through.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// The limits this root enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}
