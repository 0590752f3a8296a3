//! The hostile side of the harness: an [`Arena`] (a served `root` beside sibling directories
//! whose names share its prefix, each holding leak markers), a [`Snapshot`] of everything outside
//! the root (path, kind, size, mtime, content hash) to prove nothing there was created, changed
//! or removed, leak detection on raw responses, pipelined calls collected by id in any order, and
//! the server process's descriptor count and peak memory from `/proc`.
//!
//! ```ignore
//! let arena = Arena::new();
//! let before = arena.outside();
//! let mut server = arena.serve(&["--tools", "ptc,fs"]);
//! let response = call_within(&mut server, "fs_read", json!({"path": "../root2/x"}), HANG);
//! assert_eq!(leaks(&response), None);
//! assert_eq!(before.diff(&arena.outside()), Vec::<String>::new());
//! ```

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{Server, modern_meta, sha256_hex};

/// Text that only files outside the root hold, in their bytes or in their names. No request a
/// test sends contains it, so seeing it in a response means something outside was read or listed.
pub const MARKER: &str = "ZQLEAK";
/// The start of `/etc/passwd` on every Linux system: an escape to the host's files.
pub const PASSWD_MARKER: &str = "root:x:0:0";
/// How long a call that must never hang may take before it counts as hanging.
pub const HANG: Duration = Duration::from_secs(10);

/// [`HANG`], stretched as every response wait is under an emulator ([`super::timeout`]).
pub fn hang() -> Duration {
    HANG * (super::timeout().as_secs() / super::TIMEOUT.as_secs()).max(1) as u32
}
/// Host files outside every arena whose state is snapshotted too.
pub const HOST_FILES: [&str; 1] = ["/etc/passwd"];

/// A temporary directory holding the served `root` and, beside it, `root-secrets` and `root2`
/// (sibling-prefix names) plus loose files, every one of them holding [`MARKER`].
pub struct Arena {
    dir: tempfile::TempDir,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// A fresh arena: `root/` holds `inside.txt` and `d/inner.txt`; the siblings hold `x`, a
    /// marker-named file and `sub/deep.txt`.
    pub fn new() -> Arena {
        let arena = Arena {
            dir: tempfile::tempdir().expect("create an arena"),
        };
        arena.put("root/inside.txt", "inside line\n");
        arena.put("root/d/inner.txt", "inner line\n");
        for sibling in ["root-secrets", "root2"] {
            arena.put(
                &format!("{sibling}/x"),
                format!("secret line {MARKER}-{sibling}-x\n"),
            );
            arena.put(
                &format!("{sibling}/{MARKER}-name.txt"),
                format!("secret line {MARKER}-{sibling}-named\n"),
            );
            arena.put(
                &format!("{sibling}/sub/deep.txt"),
                format!("secret line {MARKER}-{sibling}-deep\n"),
            );
        }
        arena.put("outside.txt", format!("secret line {MARKER}-loose\n"));
        arena
    }

    /// The arena's own directory (the root's parent).
    pub fn parent(&self) -> &Path {
        self.dir.path()
    }

    /// The served root's host path.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    /// A host path relative to the arena (`root/…` is inside the root, anything else outside).
    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The host path of a path under the root.
    pub fn inside(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// The absolute host path of `rel` as a string.
    pub fn abs(&self, rel: &str) -> String {
        self.join(rel).to_str().expect("UTF-8 temp path").to_owned()
    }

    /// Writes a file relative to the arena, creating its parents.
    pub fn put(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
        std::fs::write(path, bytes).expect("write arena file");
    }

    /// Adds a symbolic link relative to the arena, creating its parents.
    pub fn symlink(&self, rel: &str, target: impl AsRef<Path>) {
        let path = self.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create parent");
        std::os::unix::fs::symlink(target, path).expect("create symlink");
    }

    /// Adds a named pipe relative to the arena.
    pub fn fifo(&self, rel: &str) {
        let status = std::process::Command::new("mkfifo")
            .arg(self.join(rel))
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo {rel}");
    }

    /// Starts `fsmcp --root <root> <args…>`.
    pub fn serve(&self, args: &[&str]) -> Server {
        Server::start(&self.root(), args)
    }

    /// Everything outside the root: the arena minus `root/`, plus [`HOST_FILES`].
    pub fn outside(&self) -> Snapshot {
        let mut snapshot = Snapshot::default();
        snapshot.add(self.parent(), "<arena>");
        walk(self.parent(), "<arena>", Some("root"), &mut snapshot);
        for file in HOST_FILES {
            snapshot.add(Path::new(file), file);
        }
        snapshot
    }

    /// Everything under the root (not the root directory's own entry).
    pub fn inside_snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::default();
        walk(&self.root(), "", None, &mut snapshot);
        snapshot
    }
}

/// Path → description (kind, size, mtime, content hash or link target) of a set of entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot(pub BTreeMap<String, String>);

impl Snapshot {
    fn add(&mut self, path: &Path, name: &str) {
        let description = match std::fs::symlink_metadata(path) {
            Err(e) => format!("missing ({})", e.kind()),
            Ok(meta) => {
                let kind = meta.file_type();
                let mtime = format!("{}.{:09}", meta.mtime(), meta.mtime_nsec());
                let what = if kind.is_symlink() {
                    format!(
                        "link -> {}",
                        std::fs::read_link(path).expect("read_link").display()
                    )
                } else if kind.is_dir() {
                    "dir".to_owned()
                } else if kind.is_file() {
                    format!(
                        "file sha256 {}",
                        sha256_hex(std::fs::read(path).expect("read"))
                    )
                } else {
                    format!("special mode {:o} rdev {}", meta.mode(), meta.rdev())
                };
                format!("{what} size {} mtime {mtime}", meta.len())
            }
        };
        self.0.insert(name.to_owned(), description);
    }

    /// The differences from `before` to `self`, one line each: created, removed or changed.
    pub fn diff(&self, after: &Snapshot) -> Vec<String> {
        let mut out = Vec::new();
        for (path, was) in &self.0 {
            match after.0.get(path) {
                None => out.push(format!("removed {path:?} (was {was})")),
                Some(now) if now != was => out.push(format!("changed {path:?}: {was} => {now}")),
                Some(_) => {}
            }
        }
        for (path, now) in &after.0 {
            if !self.0.contains_key(path) {
                out.push(format!("created {path:?} ({now})"));
            }
        }
        out
    }
}

fn walk(dir: &Path, prefix: &str, skip: Option<&str>, out: &mut Snapshot) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if skip.is_some_and(|s| name.as_encoded_bytes() == s.as_bytes()) {
            continue;
        }
        let rel = format!("{prefix}/{}", name.to_string_lossy().escape_debug());
        let path = entry.path();
        out.add(&path, &rel);
        if entry.file_type().expect("file type").is_dir() {
            walk(&path, &rel, None, out);
        }
    }
}

/// Which marker a response shows, if any.
pub fn leaks(response: &Value) -> Option<&'static str> {
    let text = response.to_string();
    [MARKER, PASSWD_MARKER]
        .into_iter()
        .find(|marker| text.contains(marker))
}

/// Whether a response refuses: a JSON-RPC error, or a tool result with `isError: true`.
pub fn is_refusal(response: &Value) -> bool {
    response.get("error").is_some() || response["result"]["isError"] == json!(true)
}

/// The text of a tool response: its first content block, or the JSON-RPC error message.
pub fn text_of(response: &Value) -> String {
    if let Some(message) = response["error"]["message"].as_str() {
        return format!("JSON-RPC error: {message}");
    }
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The whole `tools/call` line for one call with this id, in the modern envelope.
pub fn call_line(id: &Value, tool: &str, args: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": modern_meta()}
    })
    .to_string()
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A string id no other request of this process uses (the harness's own ids are integers).
pub fn fresh_id() -> Value {
    json!(format!(
        "attack-{}",
        NEXT_ID.fetch_add(1, Ordering::Relaxed)
    ))
}

/// One call's whole response (result or JSON-RPC error), or `Err` when nothing answered it
/// within `wait` (a hang).
pub fn call_within(
    server: &mut Server,
    tool: &str,
    args: Value,
    wait: Duration,
) -> Result<Value, String> {
    let id = fresh_id();
    server.send_line(&call_line(&id, tool, &args));
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(message) = server.next_message_within(left) else {
            return Err(format!("{tool} {args} was not answered within {wait:?}"));
        };
        if message.get("id") == Some(&id) {
            return Ok(message);
        }
        assert!(
            message.get("id").is_none(),
            "a response to another request arrived while awaiting {id}: {message}"
        );
    }
}

/// [`call_within`] with [`hang`], panicking on a hang.
pub fn call_raw(server: &mut Server, tool: &str, args: Value) -> Value {
    call_within(server, tool, args, hang()).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes every call without waiting for any answer.
pub fn send_all(server: &mut Server, calls: &[(Value, &str, Value)]) {
    for (id, tool, args) in calls {
        server.send_line(&call_line(id, tool, args));
    }
}

/// The key a response is filed under: the compact JSON of its id.
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Reads responses until every id in `ids` is answered, in whatever order they arrive, and
/// returns them by [`id_key`]. Panics on a response to an unknown id, on a second response to
/// one id, or when nothing arrives for `wait`.
pub fn collect_responses(
    server: &mut Server,
    ids: &[Value],
    wait: Duration,
) -> BTreeMap<String, Value> {
    let expected: HashSet<String> = ids.iter().map(id_key).collect();
    assert_eq!(expected.len(), ids.len(), "ids must be distinct");
    let mut answered = BTreeMap::new();
    while answered.len() < expected.len() {
        let message = server.next_message_within(wait).unwrap_or_else(|| {
            panic!(
                "{} of {} responses arrived; nothing more within {wait:?}",
                answered.len(),
                expected.len()
            )
        });
        let Some(id) = message.get("id") else {
            assert!(message.get("method").is_some(), "stray message: {message}");
            continue;
        };
        let key = id_key(id);
        assert!(
            expected.contains(&key),
            "a response to an id never sent: {message}"
        );
        assert!(
            !answered.contains_key(&key),
            "a second response to {key}: {message}"
        );
        answered.insert(key, message);
    }
    answered
}

/// Asserts the server still answers: `tools/list` succeeds and publishes tools.
pub fn still_answers(server: &mut Server) {
    let tools = server.result("tools/list", json!({}));
    assert!(
        tools["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "tools/list after the attack: {tools}"
    );
}

// ---------------------------------------------------------------------------------------------
// The server process, from /proc
// ---------------------------------------------------------------------------------------------

/// The number of open descriptors of a process.
pub fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("read /proc/<pid>/fd")
        .count()
}

/// What each open descriptor of a process refers to, for failure messages.
pub fn fd_targets(pid: u32) -> Vec<String> {
    let mut targets: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("read /proc/<pid>/fd")
        .filter_map(Result::ok)
        .map(|e| {
            let target = std::fs::read_link(e.path())
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".to_owned());
            format!("{} -> {target}", e.file_name().to_string_lossy())
        })
        .collect();
    targets.sort();
    targets
}

/// A `kB` field of `/proc/<pid>/status` (`VmHWM`, `VmRSS`, …), in KiB.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// The peak resident set of a process so far, in MiB.
pub fn peak_rss_mib(pid: u32) -> u64 {
    status_kib(pid, "VmHWM") / 1024
}
