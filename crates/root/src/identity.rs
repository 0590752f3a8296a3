//! File identity: what a default-mode cursor binds, and what detects a file replaced mid-call.

use crate::sys::fs::Stat;
use std::fmt;

/// Size, modification and change times (nanoseconds), inode and device of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identity {
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time in nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// Inode number.
    pub ino: u64,
    /// Device number.
    pub dev: u64,
}

impl Identity {
    /// The identity recorded in a `stat` result.
    // `stat` field types differ between platforms; the casts are no-ops only on some.
    #[allow(clippy::unnecessary_cast)]
    pub fn of(stat: &Stat) -> Identity {
        let ns = |secs: i64, nsec: i64| secs as i128 * 1_000_000_000 + nsec as i128;
        Identity {
            size: stat.st_size as u64,
            mtime_ns: ns(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            ctime_ns: ns(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
            ino: stat.st_ino as u64,
            dev: stat.st_dev as u64,
        }
    }

    /// Same physical file (inode and device), whatever its contents.
    pub fn same_file(&self, other: &Identity) -> bool {
        self.ino == other.ino && self.dev == other.dev
    }
}

/// `size:mtimeNs:ctimeNs:ino:dev`, the form cursor state digests are built from.
impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}:{}",
            self.size, self.mtime_ns, self.ctime_ns, self.ino, self.dev
        )
    }
}
