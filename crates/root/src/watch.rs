//! A change watcher that lets a root reuse a walk until something under it changes: inotify on
//! Linux; elsewhere none, so every walk reads the tree afresh.
//!
//! A walk that stats every entry is what a page of a large tree used to cost. The [`Watcher`]
//! is told about every directory a walk reads (before it reads it) and about every file with
//! more than one link (a write through another link names no watched directory). Any event on
//! any of them — a change of contents, attributes, names, or an overflowed queue — means every
//! remembered walk is dropped. The watcher can only vouch for what the kernel reports, so it
//! declines (and the walk is simply not remembered) when it cannot see a change:
//!
//! * a filesystem whose changes may come from elsewhere (anything but the local filesystems in
//!   [`LOCAL_FILESYSTEMS`]: no NFS, SMB, FUSE or 9P);
//! * more than [`MAX_WATCHES`] watches, or the kernel's own watch limit;
//! * no `/proc` (a directory is watched through its descriptor's `/proc/self/fd` name, so no
//!   path is ever re-resolved).
//!
//! A write through a shared memory mapping produces no event at all; remembered walks are also
//! dropped after [`MAX_AGE`] so such a change is seen within that time.

use std::time::Duration;

#[cfg(target_os = "linux")]
mod inotify;
#[cfg(target_os = "linux")]
pub use inotify::{Adder, Watcher};

#[cfg(not(target_os = "linux"))]
mod none;
#[cfg(not(target_os = "linux"))]
pub use none::{Adder, Watcher};

/// Most watches one root adds; beyond this, walks are not remembered.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const MAX_WATCHES: usize = 65_536;
/// Longest a remembered walk is reused, even without an event.
pub const MAX_AGE: Duration = Duration::from_secs(5);

/// Filesystem magic numbers (`statfs.f_type`) whose changes all go through this kernel: ext2-4,
/// XFS, Btrfs, tmpfs, F2FS, ZFS, bcachefs and overlayfs (changes made through the overlay).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const LOCAL_FILESYSTEMS: [i64; 8] = [
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x0102_1994,
    0xF2F5_2010,
    0x2FC1_2FC1,
    0xCA45_1A4E,
    0x794C_7630,
];
