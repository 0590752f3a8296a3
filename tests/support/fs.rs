//! The `fs` tool set's side of the harness.
//!
//! The `fs` tools answer with one text block a model reads (never the JSON of their structured
//! content), and the observation tools and successful mutators add `sha256-v1` revisions as
//! `structuredContent`. [`fs_server`] starts a server offering only those tools over a whole
//! tree; [`fs_call`] returns a successful call's text and revisions, [`fs_text`] only its text,
//! [`fs_error`] the message of a refusal. The token helpers ([`file_token`], [`symlink_token`],
//! [`ABSENT`]) compute what a revision must say about a path, and [`with_expected`] adds the
//! reserved `_expected-revisions` argument an orchestration layer sends. A table of [`Case`]s
//! (a tree, one call, the text it must answer, what it must leave on disk) runs through
//! [`run_cases`], each case on its own root and server.
//!
//! ```ignore
//! let tree = Tree::new().file("notes/todo.md", "- buy milk\n");
//! let mut server = fs_server(&tree);
//! let (text, revisions) = fs_call(&mut server, "fs_read", json!({"path": "notes/todo.md"}));
//! assert_eq!(revision(&revisions.unwrap(), "path"), file_revision(b"- buy milk\n"));
//! ```

use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::{Server, Tree, each_case, error_text, sha256_hex};

/// The revision scheme every revision carries.
pub const SCHEME: &str = "sha256-v1";
/// The token of a path that does not exist.
pub const ABSENT: &str = "sha256-v1:absent";
/// The fs tools in their published order.
pub const FS_TOOLS: [&str; 13] = [
    "read", "write", "edit", "list", "glob", "grep", "map", "symbols", "stat", "mkdir", "move",
    "copy", "delete",
];
/// The reading tools among [`FS_TOOLS`], in published order.
pub const FS_READERS: [&str; 7] = ["read", "list", "glob", "grep", "map", "symbols", "stat"];
/// The mutating tools.
pub const FS_MUTATORS: [&str; 6] = ["write", "edit", "mkdir", "move", "copy", "delete"];

/// What every fs server here is started with besides its own flags: no free-space reserve
/// for copies, so a copy does not depend on how full the machine's disk is (CI has run with
/// under 1 GiB free, less than the default reserve). A copy still never takes more than is
/// free; the default reserve is tested on a filesystem of known size
/// (`a_copy_leaves_its_filesystem_room`).
pub const NO_COPY_RESERVE: [&str; 2] = ["--copy-reserve-bytes", "0"];

/// Starts a server offering the fs tools over the whole tree.
pub fn fs_server(tree: &Tree) -> Server {
    fs_server_with(tree, &[])
}

/// [`fs_server`] with extra command-line arguments.
pub fn fs_server_with(tree: &Tree, extra: &[&str]) -> Server {
    let mut args = vec!["--tools", "fs", "--include", "**"];
    args.extend_from_slice(&NO_COPY_RESERVE);
    args.extend_from_slice(extra);
    Server::start(tree.path(), &args)
}

/// Starts a server offering the fs tools with exactly `selection` (and any other flags), no
/// `--include '**'` added.
pub fn fs_server_selecting(tree: &Tree, selection: &[&str]) -> Server {
    let mut args = vec!["--tools", "fs"];
    args.extend_from_slice(&NO_COPY_RESERVE);
    args.extend_from_slice(selection);
    Server::start(tree.path(), &args)
}

/// The text block and `structuredContent` of a call that must succeed. Checks the result's
/// shape: not an error, exactly one text block, and revisions (when present) in the
/// `sha256-v1` scheme.
pub fn fs_call(server: &mut Server, tool: &str, args: Value) -> (String, Option<Value>) {
    let result = server.call_result(tool, args.clone());
    assert_ne!(
        result.get("isError"),
        Some(&json!(true)),
        "{tool} {args} failed: {result}"
    );
    let text = single_text(tool, &result);
    let structured = result.get("structuredContent").cloned();
    if let Some(value) = &structured {
        assert_eq!(
            value["revisionScheme"], SCHEME,
            "{tool} {args} revisions: {value}"
        );
        assert!(
            value["revisions"].is_object(),
            "{tool} {args} revisions: {value}"
        );
    }
    (text, structured)
}

/// The text of a call that must succeed.
pub fn fs_text(server: &mut Server, tool: &str, args: Value) -> String {
    fs_call(server, tool, args).0
}

/// The revisions (`structuredContent`) of a call that must succeed and carry them.
pub fn fs_revisions(server: &mut Server, tool: &str, args: Value) -> Value {
    let (_, structured) = fs_call(server, tool, args.clone());
    structured.unwrap_or_else(|| panic!("{tool} {args} returned no structuredContent"))
}

/// Checks that each call of `tool` succeeds with exactly its text; a failure names the call.
pub fn says_each(server: &mut Server, tool: &str, cases: &[(Value, &str)]) {
    for (args, text) in cases {
        assert_eq!(fs_text(server, tool, args.clone()), *text, "{tool} {args}");
    }
}

/// The message of a call that must fail: `isError`, one text block, no `structuredContent`.
pub fn fs_error(server: &mut Server, tool: &str, args: Value) -> String {
    let result = server.call_result(tool, args.clone());
    error_text(tool, &args, &result)
}

fn single_text(tool: &str, result: &Value) -> String {
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "{tool}: one content block: {result}");
    assert_eq!(content[0]["type"], "text", "{tool}: a text block: {result}");
    content[0]["text"].as_str().expect("text").to_owned()
}

/// `(state, token)` of one argument's revision; the token is `None` when absent.
pub fn revision(structured: &Value, arg: &str) -> (String, Option<String>) {
    let entry = &structured["revisions"][arg];
    assert!(entry.is_object(), "no revision for '{arg}' in {structured}");
    (
        entry["state"]
            .as_str()
            .unwrap_or_else(|| panic!("state of '{arg}' in {structured}"))
            .to_owned(),
        entry
            .get("token")
            .and_then(Value::as_str)
            .map(str::to_owned),
    )
}

/// The token of one argument's revision, which must be present.
pub fn token(structured: &Value, arg: &str) -> String {
    revision(structured, arg)
        .1
        .unwrap_or_else(|| panic!("no token for '{arg}' in {structured}"))
}

/// The revision keys (argument names), sorted.
pub fn revision_keys(structured: &Value) -> Vec<String> {
    let mut keys: Vec<String> = structured["revisions"]
        .as_object()
        .expect("revisions object")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// `sha256-v1:file:<hex>` of some bytes.
pub fn file_token(bytes: impl AsRef<[u8]>) -> String {
    format!("{SCHEME}:file:{}", sha256_hex(bytes))
}

/// The full revision of a file holding these bytes.
pub fn file_revision(bytes: impl AsRef<[u8]>) -> (String, Option<String>) {
    ("file".to_owned(), Some(file_token(bytes)))
}

/// The revision of a path that does not exist.
pub fn absent_revision() -> (String, Option<String>) {
    ("absent".to_owned(), Some(ABSENT.to_owned()))
}

/// The variable [`fs_server_keyed`] hands the test cursor key in.
pub const KEY_ENV: &str = "FSMCP_TEST_CURSOR_KEY";

/// [`fs_server`] signing with the test cursor key, so keyed digests (link revisions) are known.
pub fn fs_server_keyed(tree: &Tree) -> Server {
    Server::start_with_env(
        tree.path(),
        &[
            "--tools",
            "fs",
            "--include",
            "**",
            "--cursor-key-env",
            KEY_ENV,
            NO_COPY_RESERVE[0],
            NO_COPY_RESERVE[1],
        ],
        &[(KEY_ENV, super::TEST_KEY)],
    )
}

/// `sha256-v1:symlink:<hex>` of a link's target text on a [`fs_server_keyed`]: HMAC-SHA256
/// under the test key of `symlink`, a NUL and the target, so no token confirms a guess.
pub fn symlink_token(target: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&super::test_key()).expect("key");
    mac.update(b"symlink\0");
    mac.update(target.as_bytes());
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{SCHEME}:symlink:{hex}")
}

/// Whether a token is a directory token of the right shape.
pub fn is_directory_token(token: &str) -> bool {
    token
        .strip_prefix("sha256-v1:directory:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `args` with the reserved `_expected-revisions` argument added.
pub fn with_expected(args: Value, expected: Value) -> Value {
    let mut args = args;
    args["_expected-revisions"] = expected;
    args
}

/// The refusal of a path that breaks the textual rules.
pub fn invalid_path(path: &str) -> String {
    format!(
        "Invalid path '{path}': paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names"
    )
}

/// The refusal of an absolute path that does not lie inside the root.
pub fn outside_root(path: &str) -> String {
    format!(
        "'{path}' is outside this root: give a path relative to the root (as listings show them), or an absolute path inside it"
    )
}

/// Whether the binary under test reads `path` as absolute: `/x` on every system, and on a
/// Windows build (run under Wine) a drive path (`C:\x`, `C:/x`) or a UNC one (`\\s\x`).
pub fn absolute_here(path: &str) -> bool {
    if path.starts_with('/') {
        return true;
    }
    if !super::windows_binary() {
        return false;
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    drive || path.starts_with(r"\\")
}

/// The refusal of a path wrong only in its `.` segments, which proposes `instead`.
pub fn invalid_path_written_as(path: &str, instead: &str) -> String {
    format!("{}; write it as '{instead}'", invalid_path(path))
}

/// The refusal of a path that does not exist.
pub fn does_not_exist(path: &str) -> String {
    format!("'{path}' does not exist")
}

/// The refusal of a path reached through a symbolic link.
pub fn through_symlink(path: &str) -> String {
    format!(
        "'{path}' is reached through a symbolic link this root does not follow (links are followed only with --follow-symlinks, and only while they stay inside the root)"
    )
}

/// Every tool `tools/list` publishes.
pub fn listed_tools(server: &mut Server) -> Vec<Value> {
    server.result("tools/list", json!({}))["tools"]
        .as_array()
        .expect("tools array")
        .clone()
}

/// The names `tools/list` publishes, in order.
pub fn listed_names(server: &mut Server) -> Vec<String> {
    listed_tools(server)
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The published tool of that name.
pub fn listed_tool(server: &mut Server, name: &str) -> Value {
    listed_tools(server)
        .into_iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not published"))
}

/// Sets the modification time of a file or directory to `secs` after the epoch.
pub fn set_mtime(path: &Path, secs: u64) {
    let file = std::fs::File::open(path).expect("open to set mtime");
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .expect("set mtime");
}

/// The process umask, from `/proc/self/status`.
pub fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .expect("Umask line");
    u32::from_str_radix(line.trim(), 8).expect("octal umask")
}

/// A snapshot of a directory outside the root: every path below it with its bytes (files),
/// link target (links) or nothing (directories), sorted.
pub fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    collect(dir, dir, &mut entries);
    entries.sort();
    entries
}

fn collect(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        let rel = path
            .strip_prefix(base)
            .expect("below base")
            .to_string_lossy()
            .into_owned();
        let kind = entry.file_type().expect("file type");
        if kind.is_symlink() {
            let target = std::fs::read_link(&path).expect("read_link");
            out.push((rel, format!("link -> {}", target.display())));
        } else if kind.is_dir() {
            out.push((rel.clone(), "dir".to_owned()));
            collect(base, &path, out);
        } else {
            let bytes = std::fs::read(&path).expect("read");
            out.push((rel, format!("file {}", String::from_utf8_lossy(&bytes))));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tables of cases: one call on a fresh root each
// ---------------------------------------------------------------------------------------------

/// One call of an fs tool on a fresh root, with what it must answer and leave on disk.
pub struct Case {
    /// What the case shows; a failure names it.
    pub name: &'static str,
    /// Builds the root (a fresh temporary directory each run).
    pub tree: fn() -> Tree,
    /// Flags added to [`fs_server_with`]'s.
    pub flags: &'static [&'static str],
    /// The tool called, e.g. `fs_edit`.
    pub tool: &'static str,
    /// Its arguments.
    pub args: fn() -> Value,
    /// The text the call must answer.
    pub reply: Reply,
    /// What must hold on disk afterwards.
    pub after: &'static [After],
}

impl Case {
    /// The defaults a case's `..Case::DEFAULT` fills in: an empty root, no extra flags, nothing
    /// checked on disk. Its `name`, `tool`, `args` and `reply` are always given (a case without
    /// them fails).
    pub const DEFAULT: Case = Case {
        name: "",
        tree: Tree::new,
        flags: &[],
        tool: "",
        args: || json!({}),
        reply: Reply::Missing,
        after: &[],
    };

    /// The [`Case::DEFAULT`]s with a call of `tool`, to complete a table's cases from.
    pub const fn of(tool: &'static str) -> Case {
        Case {
            tool,
            ..Case::DEFAULT
        }
    }
}

/// What a call must answer.
#[derive(Debug)]
pub enum Reply {
    /// Success, with exactly this text.
    Said(&'static str),
    /// Refusal (`isError`), with exactly this message.
    Refused(&'static str),
    /// None given ([`Case::DEFAULT`]'s): the case fails, so no case checks nothing.
    Missing,
}

/// Something that must hold under the root after the call.
#[derive(Debug)]
pub enum After {
    /// The file holds exactly these bytes.
    Bytes(&'static str, &'static [u8]),
    /// The directory holds exactly these names (sorted).
    Names(&'static str, &'static [&'static str]),
    /// The file has these permission bits.
    Mode(&'static str, u32),
    /// Nothing (no file, directory or link) is at the path.
    Absent(&'static str),
    /// A directory is at the path.
    Directory(&'static str),
    /// Every path under the root is as the tree built it (not for a tree holding a FIFO).
    Unchanged,
}

impl Case {
    fn run(&self) {
        assert!(
            !self.name.is_empty() && !self.tool.is_empty(),
            "a case without a name or a tool"
        );
        let tree = (self.tree)();
        let before = self
            .after
            .iter()
            .any(|a| matches!(a, After::Unchanged))
            .then(|| snapshot(tree.path()));
        let mut server = fs_server_with(&tree, self.flags);
        let args = (self.args)();
        match self.reply {
            Reply::Said(text) => {
                assert_eq!(
                    fs_text(&mut server, self.tool, args.clone()),
                    text,
                    "{args}"
                )
            }
            Reply::Refused(message) => assert_eq!(
                fs_error(&mut server, self.tool, args.clone()),
                message,
                "{args}"
            ),
            Reply::Missing => panic!("the case says nothing about the reply to {args}"),
        }
        for after in self.after {
            match *after {
                After::Bytes(path, bytes) => {
                    let found = tree.bytes(path);
                    assert!(
                        found == bytes,
                        "'{path}' holds {:?}, not {:?}",
                        String::from_utf8_lossy(&found),
                        String::from_utf8_lossy(bytes)
                    )
                }
                After::Names(dir, names) => {
                    assert_eq!(tree.names(dir), names, "the names in '{dir}'")
                }
                After::Mode(path, mode) => {
                    assert_eq!(tree.mode(path), mode, "the mode of '{path}'")
                }
                After::Absent(path) => assert!(!exists(&tree, path), "'{path}' is still there"),
                After::Directory(path) => {
                    assert!(tree.join(path).is_dir(), "'{path}' is not a directory")
                }
                After::Unchanged => {
                    assert_eq!(Some(snapshot(tree.path())), before, "the root changed")
                }
            }
        }
    }
}

/// Runs every case (each on its own root and server) and fails naming each case that failed.
pub fn run_cases(cases: &[Case]) {
    each_case(
        cases,
        |case| format!("{:?} ({} {:?})", case.name, case.tool, case.reply),
        Case::run,
    );
}

/// Whether anything (a file, a directory or a link) exists at `rel` under the tree's root.
pub fn exists(tree: &Tree, rel: &str) -> bool {
    std::fs::symlink_metadata(tree.join(rel)).is_ok()
}
