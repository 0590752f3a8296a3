//! The system calls the root makes, under one set of names on every platform. On Unix they are
//! rustix's own (`fs`, `io`, `process`) and std's descriptors (`fd`); on Windows, [`windows`]
//! gives the same names over NT handles: every open relative to a directory handle, one
//! component at a time, never following a reparse point. The rest of the crate names
//! `crate::sys::…` only, so each door is written once per platform, here.

#[cfg(target_os = "linux")]
pub(crate) use rustix::thread;
#[cfg(unix)]
pub(crate) use rustix::{fs, io, process};
#[cfg(unix)]
pub(crate) use std::os::fd;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::{fd, fs, io, process};
