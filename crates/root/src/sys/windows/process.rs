//! The process facts the root asks for, as Windows has them: no descriptor limit worth
//! naming (handles are bounded by memory), and no Unix owner (a file's owner and the
//! process's are the same stand-in, so a mode's owner bits are the ones that count).

/// What `getrlimit` is asked about.
#[derive(Debug, Clone, Copy)]
pub enum Resource {
    /// Open descriptors (handles).
    Nofile,
}

/// A limit: `None` for none.
#[derive(Debug, Clone, Copy)]
pub struct Rlimit {
    /// The soft limit.
    pub current: Option<u64>,
}

/// Handles are limited by memory, not by a count the process can read.
pub fn getrlimit(_resource: Resource) -> Rlimit {
    Rlimit { current: None }
}

/// The owner every file reads as (see [`super::fs::Stat`]).
pub const OWNER: u32 = 1;

/// A user id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uid(u32);

impl Uid {
    /// From a raw id.
    pub fn from_raw(raw: u32) -> Uid {
        Uid(raw)
    }
    /// The raw id.
    pub fn as_raw(self) -> u32 {
        self.0
    }
    /// Never: Windows has no all-powerful uid; access is the ACLs' to refuse.
    pub fn is_root(self) -> bool {
        false
    }
}

/// A group id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gid(u32);

impl Gid {
    /// From a raw id.
    pub fn from_raw(raw: u32) -> Gid {
        Gid(raw)
    }
    /// The raw id.
    pub fn as_raw(self) -> u32 {
        self.0
    }
}

/// The stand-in owner.
pub fn geteuid() -> Uid {
    Uid(OWNER)
}

/// The stand-in group.
pub fn getegid() -> Gid {
    Gid(OWNER)
}
