//! The race and crash tests' side of the harness.
//!
//! [`Rng`] is a fixed-seed generator, so those tests are random in timing only. [`tree_state`]
//! describes every path below a directory (kind, size, content hash, mode, inode, times) without
//! following links, and [`state_diff`] names what changed between two descriptions: a tree outside
//! the root must come out of a run byte-for-byte and inode-for-inode the same. [`tool_line`]
//! frames one `tools/call` request with a caller-chosen id, so a test can pipeline many calls
//! without waiting for each. [`temp_files`] lists fsmcp's leftover temp files on disk, and
//! [`hold_lock`] holds one as a live server building it would.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::sha256_hex;

/// splitmix64: small, fast and the same everywhere.
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Every path below `dir` (and `dir` itself as `.`), described without following links: kind,
/// size, SHA-256 of a file's bytes or a link's target, mode, inode and modification time. A
/// file replaced by an identical copy, or an entry created and removed again, still shows
/// (inode, directory mtime).
pub fn tree_state(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    describe(dir, dir, &mut out);
    out
}

fn describe(base: &Path, path: &Path, out: &mut BTreeMap<String, String>) {
    let rel = match path.strip_prefix(base).expect("below base") {
        p if p.as_os_str().is_empty() => ".".to_owned(),
        p => p.to_string_lossy().into_owned(),
    };
    let meta = std::fs::symlink_metadata(path).expect("lstat");
    let kind = meta.file_type();
    let common = format!(
        "mode={:o} ino={} mtime={}.{:09} size={}",
        meta.mode(),
        meta.ino(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.size()
    );
    if kind.is_symlink() {
        let target = std::fs::read_link(path).expect("readlink");
        out.insert(
            rel,
            format!("link -> {} {common}", target.to_string_lossy()),
        );
    } else if kind.is_dir() {
        out.insert(rel, format!("dir {common}"));
        let mut children: Vec<_> = std::fs::read_dir(path)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        children.sort();
        for child in children {
            describe(base, &child, out);
        }
    } else if kind.is_file() {
        let bytes = std::fs::read(path).expect("read");
        out.insert(rel, format!("file sha256={} {common}", sha256_hex(bytes)));
    } else {
        out.insert(rel, format!("other {common}"));
    }
}

/// What differs between two [`tree_state`]s, one line per path; empty when nothing does.
pub fn state_diff(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut diff = Vec::new();
    for (path, was) in before {
        match after.get(path) {
            None => diff.push(format!("removed {path} (was {was})")),
            Some(now) if now != was => diff.push(format!("changed {path}: {was} => {now}")),
            Some(_) => {}
        }
    }
    for (path, now) in after {
        if !before.contains_key(path) {
            diff.push(format!("created {path} ({now})"));
        }
    }
    diff
}

/// Whether a name is one of fsmcp's temp files (`.fsmcp-<hex>.tmp`).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with(".fsmcp-") && name.ends_with(".tmp")
}

/// Holds an exclusive `flock` on `path` (a file or a directory) until the returned file is
/// dropped, as a live fsmcp holds a temp entry it is building: a server's start-up sweep of
/// stale temp entries then leaves it in place.
pub fn hold_lock(path: &Path) -> std::fs::File {
    let file = std::fs::File::open(path).expect("open to lock");
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).expect("flock");
    file
}

/// The relative paths of every fsmcp temp file below `dir` on disk, sorted.
pub fn temp_files(dir: &Path) -> Vec<String> {
    tree_state(dir)
        .into_keys()
        .filter(|path| is_temp_name(path.rsplit('/').next().unwrap_or(path)))
        .collect()
}
