//! The integration-test harness.
//!
//! A [`Tree`] builds a root in a fresh temporary directory (files, directories, symlinks, FIFOs).
//! A [`Server`] spawns the built `fsmcp` binary on that root and speaks newline-delimited JSON-RPC
//! with it over real stdio: `request` wraps each call in the modern `_meta` envelope, `call`
//! returns a tool's `structuredContent`, `call_error` the text of an `isError` result, and
//! `collect` follows `next_cursor` to the end. Every response is awaited with a timeout, so a hang
//! fails the test instead of blocking it. [`run`] starts the binary once and returns its exit status
//! and output, for start-up and one-shot checks. The cursor helpers (`scope`, `state`, `sign`)
//! rebuild the signed cursor format so tests can forge and inspect cursors. [`each_case`] runs a
//! table of cases and names every case that fails.
//!
//! The binary under test is the one cargo built for the host unless two environment variables
//! say otherwise, so the same suites can run a binary built for another platform through an
//! emulator:
//!
//! * `FSMCP_TEST_BINARY`: the path of the fsmcp binary to test (default: cargo's
//!   `CARGO_BIN_EXE_fsmcp`, [`BIN`]).
//! * `FSMCP_TEST_RUNNER`: a command that runs it, as whitespace-separated words put before the
//!   binary's path (e.g. `qemu-aarch64 -L /usr/aarch64-linux-gnu`); default none. Some tests
//!   start the binary with an empty environment, so the runner's words, not its environment
//!   (`QEMU_LD_PREFIX`), must carry what it needs. With a runner set, every wait is
//!   [`RUNNER_SLOWDOWN`] times longer ([`timeout`]), and the few tests that cannot hold under
//!   an emulator (they trace, measure or signal the server's own process) print a line
//!   starting `skipped:` and return ([`skip_under_runner`]).
//!
//! Every test starts the binary through [`fsmcp_command`] (or [`fsmcp_argv`] behind a wrapper
//! such as `setpriv`), never through [`BIN`] directly.
//!
//! ```ignore
//! let tree = Tree::new().file("lib/a.txt", "alpha\n");
//! let mut server = Server::serving(&tree);
//! assert_eq!(server.collect("search_files", json!({"query": "a.txt"})), [json!({"path": "lib/a.txt"})]);
//! ```

#![allow(dead_code)]

use base64::Engine as _;
use hmac::{KeyInit, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

pub mod attack;
pub mod fs;
pub mod http;
pub mod race;
pub mod recipes;
pub mod ripgrep;
pub mod sources;
pub mod strace;

/// The fsmcp binary cargo built for these tests: the binary under test unless
/// `FSMCP_TEST_BINARY` names another. Start it with [`fsmcp_command`]; [`binary`] is the path
/// of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_fsmcp");
/// The environment variable naming the fsmcp binary to test instead of [`BIN`] (one built for
/// another platform, say).
pub const BINARY_VAR: &str = "FSMCP_TEST_BINARY";
/// The environment variable holding the command that runs the binary under test: words split
/// on whitespace and put before the binary's path, such as `qemu-aarch64 -L
/// /usr/aarch64-linux-gnu`. Unset or blank: the binary runs directly.
pub const RUNNER_VAR: &str = "FSMCP_TEST_RUNNER";
/// How many times longer every wait is when a runner is set (an emulator such as qemu-user
/// runs the binary several times slower than the host would).
pub const RUNNER_SLOWDOWN: u32 = 4;
/// The crate version, which the server announces.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The modern protocol revision.
pub const MODERN: &str = "2026-07-28";
/// The legacy (initialize handshake) protocol revision.
pub const LEGACY: &str = "2025-11-25";
/// How long any single response (or exit) may take on the host before the test fails; see
/// [`timeout`] for the wait in force.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The deterministic cursor key the contract's test vectors use: 32 bytes of 0x07.
pub const TEST_KEY: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc";
/// The content hash of an empty page.
pub const EMPTY_HASH: &str =
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// The four paged read tools.
pub const READ_TOOLS: [&str; 4] = [
    "list_directory",
    "search_files",
    "search_text",
    "read_text_file",
];

// ---------------------------------------------------------------------------------------------
// The binary under test, and the runner it may need
// ---------------------------------------------------------------------------------------------

/// The path of the fsmcp binary under test: `FSMCP_TEST_BINARY` when set and not empty, else
/// [`BIN`], the one cargo built.
pub fn binary() -> PathBuf {
    match std::env::var_os(BINARY_VAR) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from(BIN),
    }
}

/// The words of `FSMCP_TEST_RUNNER`, split on whitespace: the emulator command (and its
/// options) the binary runs under; empty when there is none.
pub fn runner() -> Vec<String> {
    std::env::var(RUNNER_VAR)
        .map(|words| words.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The argv that runs the binary under test: the runner's words, then the binary's path. For
/// a wrapper (`setpriv`, `strace`, `prlimit`) that takes the command to run as its arguments.
pub fn fsmcp_argv() -> Vec<OsString> {
    let mut argv: Vec<OsString> = runner().into_iter().map(OsString::from).collect();
    argv.push(binary().into_os_string());
    argv
}

/// A [`Command`] that runs the binary under test, no arguments yet: `FSMCP_TEST_BINARY` (or
/// [`BIN`]) under the `FSMCP_TEST_RUNNER` words when they are set. Every test starts fsmcp
/// through this (or [`fsmcp_argv`]), so the suites can run a binary built for another platform
/// through an emulator.
pub fn fsmcp_command() -> Command {
    let mut argv = fsmcp_argv().into_iter();
    let mut command = Command::new(argv.next().expect("the argv names a program"));
    command.args(argv);
    command
}

/// Whether the binary runs under a runner (`FSMCP_TEST_RUNNER` has words).
pub fn under_runner() -> bool {
    !runner().is_empty()
}

/// For a test that cannot hold when the binary runs under an emulator (it traces, measures or
/// signals the server's own process, which is then the emulator's): with a runner set, prints
/// `skipped: <why>` and returns true, and the test returns early. Without one, false.
pub fn skip_under_runner(why: &str) -> bool {
    if !under_runner() {
        return false;
    }
    eprintln!(
        "skipped: {why} (under {RUNNER_VAR}={:?})",
        runner().join(" ")
    );
    true
}

/// Whether the binary under test has the debug build's test-only fault hook
/// (`FSMCP_TEST_FAULT`), which a release build leaves out. Asked of the binary once: a `--call`
/// of `fs_list` told to panic fails only where the hook is compiled in. The binary cargo built
/// for these tests in a debug profile must have it.
pub fn fault_hook_compiled() -> bool {
    static COMPILED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *COMPILED.get_or_init(|| {
        let tree = Tree::new().file("a.txt", "alpha\n");
        let root = tree.path().to_str().expect("a UTF-8 temporary path");
        let (status, stdout, _) = run_with_env(
            &[
                "--root",
                root,
                "--include",
                "**",
                "--tools",
                "fs",
                "--call",
                "fs_list",
            ],
            &[("FSMCP_TEST_FAULT", "fs_list:panic")],
        );
        let compiled = status.code() == Some(1) && stdout.contains("internal error");
        assert!(
            compiled || binary() != Path::new(BIN) || !cfg!(debug_assertions),
            "the debug binary cargo built has no fault hook: {status:?} {stdout}"
        );
        compiled
    })
}

/// For a test that injects a fault through `FSMCP_TEST_FAULT`: when the binary under test has
/// no fault hook (a release build given as `FSMCP_TEST_BINARY`), prints `skipped: …` and
/// returns true, and the test returns early.
pub fn skip_without_fault_hook() -> bool {
    if fault_hook_compiled() {
        return false;
    }
    eprintln!(
        "skipped: the binary under test ({}) has no FSMCP_TEST_FAULT hook (a release build)",
        binary().display()
    );
    true
}

/// How long any single response (or exit) may take: [`TIMEOUT`], [`RUNNER_SLOWDOWN`] times
/// longer under a runner.
pub fn timeout() -> Duration {
    if under_runner() {
        TIMEOUT * RUNNER_SLOWDOWN
    } else {
        TIMEOUT
    }
}

// ---------------------------------------------------------------------------------------------
// Tree: a root in a temporary directory
// ---------------------------------------------------------------------------------------------

/// The cursor of the first page `tool` answers `args` with; fails when there is none.
pub fn next_cursor(server: &mut Server, tool: &str, args: Value) -> String {
    let page = server.call(tool, args.clone());
    page["next_cursor"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool} {args} gave no cursor: {page}"))
        .to_owned()
}

/// `args` resuming at `cursor`.
pub fn with_cursor(args: &Value, cursor: &str) -> Value {
    let mut args = args.clone();
    args["cursor"] = json!(cursor);
    args
}

/// Runs `check` on every case of a table, even after one fails, and then fails naming each
/// case that failed (by `name`) with its message.
pub fn each_case<T>(cases: &[T], name: impl Fn(&T) -> String, check: impl Fn(&T)) {
    let mut names = HashSet::new();
    for case in cases {
        assert!(
            names.insert(name(case)),
            "two cases are named {:?}",
            name(case)
        );
    }
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(case)));
            outcome.err().map(|panic| {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(a panic without a message)");
                format!("case {}: {message}", name(case))
            })
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}

/// A root directory built for one test; removed when dropped.
pub struct Tree {
    dir: tempfile::TempDir,
}

impl Default for Tree {
    fn default() -> Self {
        Self::new()
    }
}

impl Tree {
    /// An empty root.
    pub fn new() -> Tree {
        Tree {
            dir: tempfile::tempdir().expect("create a temporary root"),
        }
    }

    /// Adds a regular file (creating its parent directories).
    pub fn file(self, path: &str, bytes: impl AsRef<[u8]>) -> Tree {
        self.put(path, bytes);
        self
    }

    /// Adds a directory (and its parents).
    pub fn dir(self, path: &str) -> Tree {
        std::fs::create_dir_all(self.join(path)).expect("create directory");
        self
    }

    /// Adds a symbolic link at `path` pointing at `target` (taken literally).
    pub fn symlink(self, path: &str, target: impl AsRef<Path>) -> Tree {
        let link = self.join(path);
        if let Some(parent) = link.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::os::unix::fs::symlink(target, link).expect("create symlink");
        self
    }

    /// Adds a named pipe.
    pub fn fifo(self, path: &str) -> Tree {
        let fifo = self.join(path);
        if let Some(parent) = fifo.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        let status = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo failed");
        self
    }

    /// The root's absolute host path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The host path of a relative path under the root.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes (or replaces in place) a file after the tree was built.
    pub fn put(&self, path: &str, bytes: impl AsRef<[u8]>) {
        let file = self.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(file, bytes).expect("write file");
    }

    /// Removes a file, a symlink or a whole directory.
    pub fn remove(&self, path: &str) {
        let target = self.join(path);
        let meta = std::fs::symlink_metadata(&target).expect("stat before remove");
        if meta.is_dir() {
            std::fs::remove_dir_all(target).expect("remove directory");
        } else {
            std::fs::remove_file(target).expect("remove file");
        }
    }

    /// The bytes of a file under the root.
    pub fn bytes(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.join(path)).expect("read file")
    }

    /// The permission bits of a file under the root.
    pub fn mode(&self, path: &str) -> u32 {
        std::fs::metadata(self.join(path))
            .expect("stat")
            .permissions()
            .mode()
            & 0o7777
    }

    /// Sets the permission bits of a file under the root.
    pub fn chmod(&self, path: &str, mode: u32) {
        std::fs::set_permissions(self.join(path), std::fs::Permissions::from_mode(mode))
            .expect("chmod");
    }

    /// The names directly inside a directory of the tree, sorted.
    pub fn names(&self, path: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.join(path))
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// Whether this process bypasses file permissions (root, CAP_DAC_OVERRIDE): permission-based
/// refusals cannot be observed then, so the tests that rely on them skip themselves.
pub fn permissions_are_bypassed() -> bool {
    let tree = Tree::new().file("probe.txt", "x");
    tree.chmod("probe.txt", 0o000);
    std::fs::File::open(tree.join("probe.txt")).is_ok()
}

/// Says that a test (or a part of it) is skipped because `why`; under `CI=true`, where
/// `.ci/run` installs everything a test needs, fails with `why` instead.
pub fn skipped_unless_ci(why: &str) {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
}

/// The user a test drops to when permission bits must hold (`nobody`).
const UNPRIVILEGED: &str = "65534";

/// A server on `tree` that permission bits apply to. Run by an unprivileged user it is the
/// usual server; run as root (as CI runs), the tree is opened to others (0755 directories,
/// 0644 files, except modes the test set to 0) and the binary is started through
/// `setpriv` as `nobody`, so a file the test locked is really locked. `None` where that is
/// impossible (root without `setpriv`), after saying so; under `CI=true` that fails instead.
pub fn unprivileged_server(tree: &Tree, args: &[&str]) -> Option<Server> {
    if !permissions_are_bypassed() {
        return Some(Server::start(tree.path(), args));
    }
    let setpriv = Command::new("setpriv").arg("--version").output();
    if !setpriv.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "running as root without setpriv: this test cannot drop privileges"
        );
        eprintln!("skipped: running as root and setpriv is missing, so permissions cannot hold");
        return None;
    }
    open_to_others(tree.path());
    let mut command = Command::new("setpriv");
    command
        .args([
            &format!("--reuid={UNPRIVILEGED}"),
            &format!("--regid={UNPRIVILEGED}"),
            "--clear-groups",
        ])
        .args(fsmcp_argv())
        .arg("--root")
        .arg(tree.path())
        .args(args);
    Some(Server::start_command(command))
}

/// Makes every directory under `dir` (itself included) 0755 and every file with a non-zero
/// mode 0644, so another user can reach what the test did not lock.
fn open_to_others(dir: &Path) {
    let meta = std::fs::symlink_metadata(dir).expect("lstat");
    if meta.file_type().is_symlink() {
        return;
    }
    if meta.is_dir() {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            open_to_others(&entry.expect("entry").path());
        }
    } else if meta.permissions().mode() & 0o777 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    }
}

// ---------------------------------------------------------------------------------------------
// Server: the binary over stdio
// ---------------------------------------------------------------------------------------------

/// The modern per-request envelope.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fsmcp-tests", "version": "0"}
    })
}

/// The envelope claiming some other protocol version.
pub fn meta_claiming(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// The `_meta` every result carries: the server's identity.
pub fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "fsmcp", "version": VERSION}})
}

/// A running `fsmcp` speaking JSON-RPC over its stdin and stdout.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: u64,
}

impl Server {
    /// Starts `fsmcp --root <root> <args…>`.
    pub fn start(root: &Path, args: &[&str]) -> Server {
        Server::start_with_env(root, args, &[])
    }

    /// Starts the server on a tree with `--include '**'` and nothing else.
    pub fn serving(tree: &Tree) -> Server {
        Server::start(tree.path(), &["--include", "**"])
    }

    /// Starts `fsmcp --root <root> <args…>` with extra environment variables.
    pub fn start_with_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = fsmcp_command();
        command.arg("--root").arg(root).args(args);
        Server::spawn(command, env)
    }

    /// Starts `fsmcp --root <root> <args…>` with its address space limited to `bytes`
    /// (`RLIMIT_AS`), so a test of memory use cannot take the machine's memory.
    pub fn start_limited(root: &Path, args: &[&str], bytes: u64) -> Server {
        use std::os::unix::process::CommandExt;
        let mut command = fsmcp_command();
        command.arg("--root").arg(root).args(args);
        let limit = rustix::process::Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        // SAFETY: between fork and exec the closure makes one system call and allocates
        // nothing.
        unsafe {
            command.pre_exec(move || {
                rustix::process::setrlimit(rustix::process::Resource::As, limit)
                    .map_err(std::io::Error::from)
            });
        }
        Server::spawn(command, &[])
    }

    /// Starts the binary with exactly these arguments (no `--root` added).
    pub fn start_args(args: &[&str]) -> Server {
        let mut command = fsmcp_command();
        command.args(args);
        Server::spawn(command, &[])
    }

    /// Starts the binary with exactly `args` and no environment at all, as a host that passes
    /// none spawns it.
    pub fn start_hermetic(args: &[&str]) -> Server {
        let mut command = fsmcp_command();
        command.args(args).env_clear();
        Server::spawn(command, &[])
    }

    /// Starts `command` (which must run the binary serving stdio, e.g. under `prlimit`).
    pub fn start_command(command: Command) -> Server {
        Server::spawn(command, &[])
    }

    fn spawn(mut command: Command, env: &[(&str, &str)]) -> Server {
        command
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn fsmcp");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = BufReader::new(stderr).read_to_string(&mut text);
            text
        });
        Server {
            stdin: child.stdin.take(),
            child,
            stdout: rx,
            stderr: Some(stderr),
            next_id: 0,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's stdin, to stream bytes that are not one line.
    pub fn stdin_mut(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin is open")
    }

    /// Whether the server is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Writes one line (a newline is appended) without waiting for anything.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .expect("write to the server's stdin");
    }

    /// The next stdout line, which must be one JSON value; fails after [`timeout`].
    pub fn next_message(&mut self) -> Value {
        let wait = timeout();
        self.next_message_within(wait)
            .unwrap_or_else(|| panic!("no message from the server within {wait:?}"))
    }

    /// The next stdout line if one arrives within `wait`.
    pub fn next_message_within(&mut self, wait: Duration) -> Option<Value> {
        match self.stdout.recv_timeout(wait) {
            Ok(line) => {
                Some(serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("stdout line is not one JSON value ({e}): {line:?}")
                }))
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server closed stdout while a message was expected")
            }
        }
    }

    /// Sends a raw line and returns the next message.
    pub fn raw_line(&mut self, line: &str) -> Value {
        self.send_line(line);
        self.next_message()
    }

    /// Sends a request exactly as given (with a fresh integer id) and returns its response.
    pub fn request_bare(&mut self, method: &str, params: Option<Value>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send_line(&message.to_string());
        loop {
            let response = self.next_message();
            if response.get("id") == Some(&json!(id)) {
                assert_eq!(response["jsonrpc"], "2.0", "response: {response}");
                return response;
            }
            assert!(
                response.get("id").is_none() && response.get("method").is_some(),
                "unexpected message while awaiting response {id}: {response}"
            );
        }
    }

    /// Sends a request in the modern envelope (added unless `params` already has `_meta`) and
    /// returns the whole response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let mut params = if params.is_null() { json!({}) } else { params };
        if params.get("_meta").is_none() {
            params["_meta"] = modern_meta();
        }
        self.request_bare(method, Some(params))
    }

    /// The result of a modern request that must succeed.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(
            response.get("error").is_none(),
            "error response: {response}"
        );
        response["result"].clone()
    }

    /// The error object of a response that must fail.
    pub fn error_of(response: &Value) -> Value {
        assert!(
            response.get("result").is_none(),
            "expected an error, got {response}"
        );
        response["error"].clone()
    }

    /// The whole `tools/call` result (which must not be a JSON-RPC error).
    pub fn call_result(&mut self, tool: &str, args: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            response.get("error").is_none(),
            "{tool} gave a JSON-RPC error: {response}"
        );
        response["result"].clone()
    }

    /// A successful call's `structuredContent`, checked against its text block.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let result = self.call_result(tool, args.clone());
        structured(tool, &args, &result)
    }

    /// A failing call's error text, checked to be a well-formed `isError` result.
    pub fn call_error(&mut self, tool: &str, args: Value) -> String {
        let result = self.call_result(tool, args.clone());
        error_text(tool, &args, &result)
    }

    /// Every page of a paged traversal, following `next_cursor` until it is null.
    pub fn pages(&mut self, tool: &str, args: Value) -> Vec<Value> {
        let mut pages = Vec::new();
        let mut seen = HashSet::new();
        let mut args = args;
        loop {
            let page = self.call(tool, args.clone());
            let next = page["next_cursor"].clone();
            pages.push(page);
            match next {
                Value::Null => return pages,
                Value::String(cursor) => {
                    assert!(seen.insert(cursor.clone()), "{tool} repeated a cursor");
                    args["cursor"] = json!(cursor);
                }
                other => panic!("next_cursor is neither a string nor null: {other}"),
            }
        }
    }

    /// Every item of a paged traversal.
    pub fn collect(&mut self, tool: &str, args: Value) -> Vec<Value> {
        self.pages(tool, args)
            .into_iter()
            .flat_map(|page| page["items"].as_array().expect("items").clone())
            .collect()
    }

    /// The paths `search_files` finds for a query.
    pub fn find(&mut self, query: &str) -> Vec<String> {
        self.collect("search_files", json!({"query": query}))
            .iter()
            .map(|item| item["path"].as_str().expect("path").to_owned())
            .collect()
    }

    /// The `(line, text)` pairs `search_text` reports for a query, with their paths.
    pub fn grep(&mut self, args: Value) -> Vec<(String, u64, String)> {
        self.collect("search_text", args)
            .iter()
            .map(|item| {
                (
                    item["path"].as_str().expect("path").to_owned(),
                    item["line"].as_u64().expect("line"),
                    item["text"].as_str().expect("text").to_owned(),
                )
            })
            .collect()
    }

    /// The whole text `read_text_file` returns for some arguments, pages concatenated.
    pub fn read(&mut self, args: Value) -> String {
        self.collect("read_text_file", args)
            .iter()
            .map(|item| item["text"].as_str().expect("text").to_owned())
            .collect()
    }

    /// The names `list_directory` gives for a prefix.
    pub fn names(&mut self, path: &str) -> Vec<String> {
        self.collect("list_directory", json!({"path": path}))
            .iter()
            .map(|item| item["name"].as_str().expect("name").to_owned())
            .collect()
    }

    /// Sends a signal to the server (`kill -<signal> <pid>`).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Waits for the process to exit (without closing stdin) and returns its status and stderr.
    pub fn wait(&mut self) -> (ExitStatus, String) {
        let status = wait_with_timeout(&mut self.child);
        let stderr = self
            .stderr
            .take()
            .map(|h| h.join().expect("stderr reader"))
            .unwrap_or_default();
        (status, stderr)
    }

    /// Closes stdin, waits for the exit, asserts status 0, and returns the status and stderr.
    pub fn close(mut self) -> (ExitStatus, String) {
        self.stdin.take();
        let (status, stderr) = self.wait();
        assert_eq!(
            status.code(),
            Some(0),
            "exit status {status:?}, stderr: {stderr}"
        );
        (status, stderr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The refusals of a search term, which `search_files` and `search_text` share: the arguments,
/// and the message.
pub fn term_refusals() -> Vec<(Value, &'static str)> {
    const ONE_LINE: &str = "query must be one line of at most 256 UTF-8 bytes";
    vec![
        (json!({}), "query must be a non-empty string"),
        (
            json!({"query": "a", "any_of": ["b"]}),
            "pass either query or any_of, not both",
        ),
        (json!({"query": "x".repeat(257)}), ONE_LINE),
        (json!({"query": "\u{e9}".repeat(129)}), ONE_LINE),
        (json!({"query": "two\nlines"}), ONE_LINE),
        (json!({"query": "carriage\rreturn"}), ONE_LINE),
        (json!({"query": "a\r"}), ONE_LINE),
        (json!({"any_of": ["fine", "x".repeat(257)]}), ONE_LINE),
        (json!({"any_of": ["fine", "bad\n"]}), ONE_LINE),
        (json!({"any_of": ["ok", "two\nlines"]}), ONE_LINE),
    ]
}

/// Checks that `server` refuses each call of `tool` (an `isError` result) with exactly its
/// message.
pub fn refuses_each(server: &mut Server, tool: &str, cases: &[(Value, &str)]) {
    for (args, message) in cases {
        assert_eq!(
            server.call_error(tool, args.clone()),
            *message,
            "{tool} {args}"
        );
    }
}

/// Checks a successful tool result and returns its `structuredContent`: not an error, one text
/// block holding exactly the compact JSON of `structuredContent`, and the paged key order.
pub fn structured(tool: &str, args: &Value, result: &Value) -> Value {
    assert_ne!(
        result.get("isError"),
        Some(&json!(true)),
        "{tool} {args} failed: {result}"
    );
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text", "a text block: {result}");
    let value = result["structuredContent"].clone();
    assert_eq!(
        content[0]["text"].as_str().expect("text"),
        serde_json::to_string(&value).expect("serialize"),
        "the text block is the compact JSON of structuredContent"
    );
    if READ_TOOLS.contains(&tool) {
        assert_eq!(
            keys(&value),
            ["items", "next_cursor", "content_hash"],
            "paged result keys: {value}"
        );
    }
    value
}

/// Checks a failed tool result and returns its message.
pub fn error_text(tool: &str, args: &Value, result: &Value) -> String {
    assert_eq!(
        result.get("isError"),
        Some(&json!(true)),
        "{tool} {args} was expected to fail: {result}"
    );
    assert!(
        result.get("structuredContent").is_none(),
        "an error result carries no structuredContent: {result}"
    );
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().expect("text").to_owned()
}

/// The keys of a JSON object, in order.
pub fn keys(value: &Value) -> Vec<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

/// The JSON-RPC error text of a call refused by the schema.
pub fn schema_error(tool: &str, errors: &str) -> String {
    format!("Input validation error: Invalid arguments for tool {tool}: {errors}")
}

fn wait_with_timeout(child: &mut Child) -> ExitStatus {
    let wait = timeout();
    let deadline = Instant::now() + wait;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not exit within {wait:?}");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

// ---------------------------------------------------------------------------------------------
// run: one process, its status and output
// ---------------------------------------------------------------------------------------------

/// Runs the binary with these arguments and an empty stdin; returns (status, stdout, stderr).
pub fn run(args: &[&str]) -> (ExitStatus, String, String) {
    run_with_env(args, &[])
}

/// Runs the binary and asserts a configuration error: exit 64, nothing on stdout, one stderr
/// line, which it returns.
pub fn config_error(args: &[&str]) -> String {
    config_error_with_env(args, &[])
}

/// [`config_error`] with extra environment variables.
pub fn config_error_with_env(args: &[&str], env: &[(&str, &str)]) -> String {
    let (status, stdout, stderr) = run_with_env(args, env);
    assert_eq!(status.code(), Some(64), "{args:?}: stderr {stderr:?}");
    assert_eq!(stdout, "", "{args:?}");
    assert!(
        stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
        "{args:?}: not one line: {stderr:?}"
    );
    stderr.trim_end_matches('\n').to_owned()
}

/// [`run`] with extra environment variables.
pub fn run_with_env(args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String, String) {
    let mut command = fsmcp_command();
    command.args(args).envs(env.iter().copied());
    run_command(command)
}

/// [`run`] from another working directory.
pub fn run_in(cwd: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    let mut command = fsmcp_command();
    command.args(args).current_dir(cwd);
    run_command(command)
}

/// [`run`] with any command: the binary under a wrapper (such as `strace`), say.
pub fn run_command(mut command: Command) -> (ExitStatus, String, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fsmcp");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let status = wait_with_timeout(&mut child);
    (
        status,
        out.join().expect("stdout reader"),
        err.join().expect("stderr reader"),
    )
}

// ---------------------------------------------------------------------------------------------
// Hashes and cursors
// ---------------------------------------------------------------------------------------------

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    Sha256::digest(bytes.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `sha256:<hex>` of some bytes.
pub fn content_hash(bytes: impl AsRef<[u8]>) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// The `content_hash` a page of these items must carry (contract §2.6).
pub fn items_hash(tool: &str, items: &[Value]) -> String {
    let s = |v: &Value| v.as_str().expect("string").to_owned();
    let bytes: String = items
        .iter()
        .map(|item| match tool {
            "list_directory" => format!("{}\0{}\n", s(&item["kind"]), s(&item["path"])),
            "search_files" => format!("{}\n", s(&item["path"])),
            "search_text" => format!(
                "{}\0{}\0{}\n",
                s(&item["path"]),
                item["line"],
                s(&item["text"])
            ),
            "read_text_file" => s(&item["text"]),
            other => panic!("no items for {other}"),
        })
        .collect();
    content_hash(bytes)
}

/// Unpadded base64url.
pub fn b64url(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The 32-byte test key.
pub fn test_key() -> Vec<u8> {
    vec![7u8; 32]
}

/// A cursor's scope: `hex(sha256(tool + "\0" + compact JSON of the scope arguments))`.
pub fn scope(tool: &str, args: &Value) -> String {
    sha256_hex(format!("{tool}\0{args}"))
}

/// A cursor's state: `hex(sha256(part1 + "\0" + part2 + "\0" + …))`.
pub fn state<S: AsRef<str>>(parts: &[S]) -> String {
    let joined: String = parts.iter().map(|p| format!("{}\0", p.as_ref())).collect();
    sha256_hex(joined)
}

/// Signs a payload text: `base64url(payload) + "." + base64url(HMAC-SHA256(key, base64url(payload)))`.
pub fn sign(key: &[u8], payload: &str) -> String {
    let encoded = b64url(payload);
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("hmac key");
    mac.update(encoded.as_bytes());
    format!("{encoded}.{}", b64url(mac.finalize().into_bytes()))
}

/// A well-formed cursor `{"v":1,"s":…,"t":…,"p":…}` signed with `key`.
pub fn cursor(key: &[u8], scope: &str, state: &str, position: Value) -> String {
    sign(
        key,
        &json!({"v": 1, "s": scope, "t": state, "p": position}).to_string(),
    )
}

/// The decoded payload of a cursor.
pub fn payload_of(cursor: &str) -> Value {
    let (payload, _) = cursor.split_once('.').expect("two parts");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url payload");
    serde_json::from_slice(&bytes).expect("JSON payload")
}

/// A bounded proptest configuration: `cases` unless `PROPTEST_CASES` says otherwise, and no
/// regression files written into the source tree.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// Whether the server under test takes the fallbacks a non-Linux Unix takes
/// (`FSMCP_TEST_PORTABLE=1`, `.ci/run`'s second pass): the per-component walk and no watcher,
/// so walks are never remembered.
pub fn portable() -> bool {
    std::env::var_os("FSMCP_TEST_PORTABLE").is_some_and(|v| v == "1")
}

/// Whether a check of remembered walks (reuse, judging ahead) applies to this run; where no
/// watcher runs (the forced fallbacks, or a Windows binary) it does not, and the check is
/// reported as skipped, naming `what`.
pub fn walks_are_remembered(what: &str) -> bool {
    if portable() || windows_binary() {
        eprintln!("skipped: {what}: no watcher here, so walks are not remembered");
        return false;
    }
    true
}

/// Whether the binary under test is a Windows build (run under Wine).
pub fn windows_binary() -> bool {
    binary().extension().is_some_and(|e| e == "exe")
}
