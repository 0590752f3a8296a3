//! Crash safety: a server killed with SIGKILL in the middle of large writes and edits leaves
//! every target holding exactly one whole version (old or new, never torn, never truncated),
//! and a fresh server on the same root never shows, serves or accepts the temp files a killed
//! write may leave behind.
//!
//! Each round starts a server, streams large `write_text_file` (root level), `fs_write` (root
//! level and nested) and `fs_edit` (nested) calls at it without waiting for answers, and kills it
//! after a pseudo-random number of sent requests plus a pseudo-random delay (fixed seed: the
//! outcome is deterministic, only the timing is random). The files on disk are then checked,
//! and a fresh server is asked, through every listing, search and read tool, about the temp
//! files that are on disk. Counts are printed (`cargo test -- --nocapture`).

// Tests inspect the root with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};
use support::fs::{fs_error, fs_text};
use support::race::{Rng, hold_lock, is_temp_name, temp_files, tree_state};
use support::*;

/// Most rounds one run makes…
const ROUNDS: usize = 30;
/// …within about this long (rounds stop early past it; nothing asserts on speed).
const BUDGET: Duration = Duration::from_secs(30);
/// Largest write accepted, above the largest version.
const MAX_WRITE: &str = "8388608";
/// The text every version's first line carries, once per file.
const HEAD: &str = "HEAD-LINE";
/// The edited token's two states (different lengths, so a torn edit shows).
const TOKEN_ONE: &str = "STATE-TOKEN one";
const TOKEN_TWO: &str = "STATE-TOKEN two-two-two";

/// How a target is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// `write_text_file` (root level only).
    WriteTextFile,
    /// `fs_write`.
    FsWrite,
    /// `fs_edit`, toggling the token.
    FsEdit,
}

/// One file the rounds rewrite, with the only contents it may ever hold.
struct Target {
    path: &'static str,
    op: Op,
    versions: [String; 2],
}

/// Deterministic ASCII text of exactly `size` bytes: a head line naming the file and version,
/// then numbered lines of pseudo-random words, and the edit token (if any) on the last line.
fn text(rng: &mut Rng, path: &str, version: &str, size: usize, token: Option<&str>) -> String {
    const WORDS: [&str; 8] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    let mut out = format!("{HEAD} {path} version {version}\n");
    let tail = token.map(|t| format!("{t}\n")).unwrap_or_default();
    let mut n = 0u64;
    while out.len() + tail.len() < size {
        n += 1;
        out.push_str(&format!("{path} {version} {n:08}"));
        for _ in 0..6 {
            out.push(' ');
            out.push_str(WORDS[rng.below(8) as usize]);
        }
        out.push('\n');
    }
    out.truncate(size - tail.len());
    out.push_str(&tail);
    out
}

fn targets(rng: &mut Rng) -> Vec<Target> {
    let kib = 1024;
    let mib = 1024 * kib;
    let pair = |rng: &mut Rng, path: &'static str, op, a: usize, b: usize| Target {
        path,
        op,
        versions: [text(rng, path, "A", a, None), text(rng, path, "B", b, None)],
    };
    let edited = |rng: &mut Rng, path: &'static str, size: usize| {
        let one = text(rng, path, "E", size, Some(TOKEN_ONE));
        let two = one.replacen(TOKEN_ONE, TOKEN_TWO, 1);
        Target {
            path,
            op: Op::FsEdit,
            versions: [one, two],
        }
    };
    vec![
        pair(rng, "a.txt", Op::WriteTextFile, 256 * kib, 3 * mib),
        pair(rng, "b.txt", Op::WriteTextFile, 4 * mib, 512 * kib + 7),
        pair(rng, "root-fs.txt", Op::FsWrite, mib + 3, 2 * mib),
        pair(rng, "n/x/c.txt", Op::FsWrite, 2 * mib + 11, 300 * kib),
        pair(rng, "n/y/z/e.txt", Op::FsWrite, 400 * kib, 4 * mib - 1),
        edited(rng, "n/x/ed.txt", 2 * mib),
        edited(rng, "n/y/ed2.txt", 3 * mib + 5),
    ]
}

/// One request of the stream, serialized once without its id: `{"id":N,` is prefixed per send.
fn requests(targets: &[Target]) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for target in targets {
        let calls: Vec<(&str, Value)> = match target.op {
            Op::WriteTextFile | Op::FsWrite => {
                let tool = if target.op == Op::FsWrite {
                    "fs_write"
                } else {
                    "write_text_file"
                };
                target
                    .versions
                    .iter()
                    .map(|v| (tool, json!({"path": target.path, "content": v})))
                    .collect()
            }
            Op::FsEdit => vec![
                (
                    "fs_edit",
                    json!({"path": target.path, "old-string": TOKEN_ONE, "new-string": TOKEN_TWO}),
                ),
                (
                    "fs_edit",
                    json!({"path": target.path, "old-string": TOKEN_TWO, "new-string": TOKEN_ONE}),
                ),
            ],
        };
        for (tool, args) in calls {
            let whole = json!({
                "jsonrpc": "2.0",
                "method": "tools/call",
                "params": {"name": tool, "arguments": args, "_meta": modern_meta()}
            })
            .to_string();
            out.push((whole[1..].to_owned(), tool));
        }
    }
    out
}

fn server_args(root: &Path) -> Vec<String> {
    [
        "--root",
        &root.to_string_lossy(),
        "--tools",
        "ptc,fs",
        "--include",
        "**",
        "--max-write-bytes",
        MAX_WRITE,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// What one killed round did.
#[derive(Default)]
struct Round {
    sent: u64,
    answered: u64,
    succeeded: u64,
    not_json: Vec<String>,
}

/// Starts a server, streams requests at it (starting at `start` in the cycle), and SIGKILLs it
/// once `after` requests were sent and `delay` has passed.
fn killed_round(
    root: &Path,
    lines: &[(String, &'static str)],
    start: usize,
    after: u64,
    delay: Duration,
) -> Round {
    let mut child = fsmcp_command()
        .args(server_args(root))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn fsmcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (sent_tx, sent_rx) = mpsc::channel::<u64>();
    let reader = thread::spawn(move || {
        let mut round = Round::default();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Value>(&line) {
                Ok(message) => {
                    round.answered += 1;
                    if message["result"].is_object()
                        && message["result"].get("isError") != Some(&json!(true))
                    {
                        round.succeeded += 1;
                    }
                }
                Err(_) => round.not_json.push(line.chars().take(200).collect()),
            }
        }
        round
    });
    thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let mut sent = 0u64;
            for k in 0.. {
                let (rest, _) = &lines[(start + k) % lines.len()];
                let prefix = format!("{{\"id\":{},", k + 1);
                let ok = stdin
                    .write_all(prefix.as_bytes())
                    .and_then(|()| stdin.write_all(rest.as_bytes()))
                    .and_then(|()| stdin.write_all(b"\n"))
                    .and_then(|()| stdin.flush());
                if ok.is_err() {
                    break;
                }
                sent += 1;
                if sent_tx.send(sent).is_err() {
                    break;
                }
            }
            sent
        });
        // Kill once `after` requests are on their way, plus the delay.
        let deadline = Instant::now() + timeout();
        loop {
            match sent_rx.recv_timeout(timeout()) {
                Ok(n) if n >= after => break,
                Ok(_) => {}
                Err(_) => panic!("the server took none of {after} requests"),
            }
            assert!(Instant::now() < deadline, "sending {after} requests hung");
        }
        thread::sleep(delay);
        child.kill().expect("SIGKILL the server");
        let status = child.wait().expect("wait for the killed server");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "the server died of SIGKILL, not of its own accord: {status:?}"
        );
        drop(sent_rx);
        let sent = writer.join().expect("writer thread");
        let mut round = reader.join().expect("reader thread");
        round.sent = sent;
        round
    })
}

/// Where two byte strings first differ.
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Checks every target holds exactly one of its versions; returns which (0 or 1) per target.
fn check_versions(
    root: &Path,
    targets: &[Target],
    round: usize,
    failures: &mut Vec<String>,
) -> Vec<usize> {
    let mut held = Vec::new();
    for target in targets {
        let bytes = std::fs::read(root.join(target.path)).unwrap_or_default();
        match target.versions.iter().position(|v| v.as_bytes() == bytes) {
            Some(index) => held.push(index),
            None => {
                let detail = target
                    .versions
                    .iter()
                    .map(|v| {
                        format!(
                            "{} bytes, first difference at {}",
                            v.len(),
                            first_difference(v.as_bytes(), &bytes)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" / ");
                failures.push(format!(
                    "round {round}: {} holds {} bytes, neither version ({detail})",
                    target.path,
                    bytes.len()
                ));
                held.push(usize::MAX);
            }
        }
    }
    held
}

/// Every directory of the root holding a target, and the root itself.
fn directories(targets: &[Target]) -> Vec<String> {
    let mut dirs = BTreeSet::from([String::new()]);
    for target in targets {
        let mut path = target.path;
        while let Some((parent, _)) = path.rsplit_once('/') {
            dirs.insert(parent.to_owned());
            path = parent;
        }
    }
    dirs.into_iter().collect()
}

/// Asks a fresh server about the root and records every answer that shows or serves a temp
/// file. Every time: `list_directory` of each directory, `search_files`, `fs_glob`, and `fs_read`,
/// `fs_stat` and `read_text_file` of each temp file in `leftovers` by name. With `full`, also
/// `fs_list` of each directory, `search_text` and `fs_grep` over every file (these hash or scan
/// megabytes, so the caller asks for them when something new was left behind).
struct Probe<'a> {
    server: &'a mut Server,
    round: usize,
    failures: &'a mut Vec<String>,
    calls: u64,
}

impl Probe<'_> {
    fn shows(&mut self, what: String, answer: &str) {
        self.calls += 1;
        if answer.contains(".fsmcp-") {
            self.failures.push(format!(
                "round {}: {what} shows a temp file: {answer}",
                self.round
            ));
        }
    }

    fn check(&mut self, targets: &[Target], leftovers: &[String], full: bool) {
        for dir in directories(targets) {
            let items = self.server.collect("list_directory", json!({"path": dir}));
            self.shows(format!("list_directory {dir:?}"), &json!(items).to_string());
            if full {
                let path = if dir.is_empty() { "." } else { dir.as_str() };
                let text = fs_text(self.server, "fs_list", json!({"path": path}));
                self.shows(format!("fs_list {dir:?}"), &text);
            }
        }
        for query in [".fsmcp", "tmp", ".txt"] {
            let items = self.server.collect("search_files", json!({"query": query}));
            self.shows(format!("search_files {query:?}"), &json!(items).to_string());
        }
        for pattern in ["*", ".fsmcp*", "**/.fsmcp*", "**", "**/*.tmp"] {
            let result = self
                .server
                .call_result("fs_glob", json!({"pattern": pattern}));
            self.shows(format!("fs_glob {pattern:?}"), &result.to_string());
        }
        if full {
            // The head line is in every version and in every temp file a killed write left.
            let found = self.server.grep(json!({"query": HEAD}));
            self.calls += 1;
            let paths: BTreeSet<&str> = found.iter().map(|(path, _, _)| path.as_str()).collect();
            let expected: BTreeSet<&str> = targets.iter().map(|t| t.path).collect();
            if paths != expected {
                self.failures.push(format!(
                    "round {}: search_text {HEAD:?} found {paths:?}, expected {expected:?}",
                    self.round
                ));
            }
            for pattern in [HEAD, "STATE-TOKEN"] {
                let result = self
                    .server
                    .call_result("fs_grep", json!({"pattern": pattern, "max-results": 1000}));
                self.shows(format!("fs_grep {pattern:?}"), &result.to_string());
            }
        }
        for leftover in leftovers {
            for (tool, args) in [
                ("fs_read", json!({"path": leftover})),
                (
                    "fs_read",
                    json!({"path": leftover, "offset": 1, "limit": 1}),
                ),
                ("fs_stat", json!({"path": leftover})),
                ("read_text_file", json!({"path": leftover})),
            ] {
                self.calls += 1;
                let result = self.server.call_result(tool, args.clone());
                if result.get("isError") != Some(&json!(true)) {
                    self.failures.push(format!(
                        "round {}: {tool} {args} served a temp file: {}",
                        self.round,
                        result.to_string().chars().take(300).collect::<String>()
                    ));
                }
            }
        }
    }
}

#[test]
fn sigkill_mid_write_leaves_whole_versions_and_no_visible_temp_files() {
    let mut rng = Rng::new(0xF5_C0DE_2026);
    let targets = targets(&mut rng);
    let lines = requests(&targets);
    let tree = Tree::new();
    for target in &targets {
        tree.put(target.path, &target.versions[0]);
    }
    let root = tree.path();
    let mut failures = Vec::new();
    let mut tally = BTreeMap::<&str, u64>::new();
    let mut seen_leftovers = BTreeSet::new();
    let mut changed_rounds = 0;
    let mut previous = vec![0usize; targets.len()];
    let began = Instant::now();
    let mut rounds = 0;
    while rounds < ROUNDS && began.elapsed() < BUDGET {
        rounds += 1;
        let start = rng.below(lines.len() as u64) as usize;
        // Kill once 1–4 requests are sent, after 0–20 ms (even rounds: the write in flight is
        // usually still being parsed) or 0–400 ms (odd rounds: a debug build spends a few
        // hundred milliseconds per 4 MiB call, so this reaches the temp write, fsync and rename).
        let after = 1 + rng.below(4);
        let window = if rounds.is_multiple_of(2) { 21 } else { 401 };
        let delay = Duration::from_millis(rng.below(window));
        let round = killed_round(root, &lines, start, after, delay);
        *tally.entry("sent").or_default() += round.sent;
        *tally.entry("answered").or_default() += round.answered;
        *tally.entry("succeeded").or_default() += round.succeeded;
        for line in &round.not_json {
            failures.push(format!(
                "round {rounds}: a stdout line is not JSON: {line:?}"
            ));
        }

        let held = check_versions(root, &targets, rounds, &mut failures);
        if held != previous {
            changed_rounds += 1;
        }
        previous = held;
        let leftovers = temp_files(root);
        let new: Vec<String> = leftovers
            .iter()
            .filter(|l| !seen_leftovers.contains(*l))
            .cloned()
            .collect();
        if !new.is_empty() {
            *tally.entry("rounds leaving a temp file").or_default() += 1;
        }
        seen_leftovers.extend(new.iter().cloned());

        let mut server = Server::start(
            root,
            &[
                "--tools",
                "ptc,fs",
                "--include",
                "**",
                "--max-write-bytes",
                MAX_WRITE,
            ],
        );
        let last = rounds == ROUNDS || began.elapsed() >= BUDGET;
        let mut probe = Probe {
            server: &mut server,
            round: rounds,
            failures: &mut failures,
            calls: 0,
        };
        probe.check(&targets, &new, !new.is_empty() || last);
        *tally.entry("visibility calls").or_default() += probe.calls;
        server.close();
    }
    let leftovers = temp_files(root);
    eprintln!(
        "crash: {rounds} rounds (SIGKILLs) in {:.1?}; requests {} sent, {} answered, {} succeeded; \
         {changed_rounds} rounds changed some file; {} rounds left new temp files ({} on disk at the end); \
         {} visibility calls",
        began.elapsed(),
        tally.get("sent").unwrap_or(&0),
        tally.get("answered").unwrap_or(&0),
        tally.get("succeeded").unwrap_or(&0),
        tally.get("rounds leaving a temp file").unwrap_or(&0),
        leftovers.len(),
        tally.get("visibility calls").unwrap_or(&0),
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Nothing but the targets and temp files is in the root: no stray or renamed file.
    let files: Vec<String> = tree_state(root)
        .into_iter()
        .filter(|(path, state)| {
            state.starts_with("file") && !is_temp_name(path.rsplit('/').next().unwrap_or(path))
        })
        .map(|(path, _)| path)
        .collect();
    let mut expected: Vec<String> = targets.iter().map(|t| t.path.to_owned()).collect();
    expected.sort();
    assert_eq!(
        files, expected,
        "the files in the root after {rounds} rounds"
    );
}

/// A root holding two temp files as a write leaves them (made here by hand, in the root and
/// nested) beside two real files. Held locked, as a live server building them holds them, so
/// the server under test does not sweep them away at start-up.
fn leftover_tree() -> (Tree, [&'static str; 2], Vec<std::fs::File>) {
    let temps = [
        ".fsmcp-0123456789abcdef.tmp",
        "n/.fsmcp-fedcba9876543210.tmp",
    ];
    let content = format!("{HEAD} leftover temp content\n");
    let tree = Tree::new()
        .file("a.txt", format!("{HEAD} real a\n"))
        .file("n/b.txt", format!("{HEAD} real b\n"))
        .file(temps[0], &content)
        .file(temps[1], &content);
    let held = temps.iter().map(|t| hold_lock(&tree.join(t))).collect();
    (tree, temps, held)
}

/// Leftover temp files are neither shown nor served by any listing, search or read tool.
#[test]
fn leftover_temp_files_are_neither_shown_nor_served() {
    let (tree, [root_temp, nested_temp], _held) = leftover_tree();
    let before = tree_state(tree.path());
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    let mut failures = Vec::new();
    let targets = ["a.txt", "n/b.txt"].map(|path| Target {
        path,
        op: Op::FsWrite,
        versions: [String::new(), String::new()],
    });
    Probe {
        server: &mut server,
        round: 0,
        failures: &mut failures,
        calls: 0,
    }
    .check(
        &targets,
        &[root_temp.to_owned(), nested_temp.to_owned()],
        true,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    server.close();
    assert!(support::race::state_diff(&before, &tree_state(tree.path())).is_empty());
}

/// No mutator accepts a temp name: a leftover is never overwritten, edited, moved or deleted,
/// and nothing is written, moved or created under a name every listing then hides.
#[test]
fn temp_names_are_not_accepted_by_any_mutator() {
    let (tree, [root_temp, nested_temp], _held) = leftover_tree();
    let before = tree_state(tree.path());
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    let mut failures = Vec::new();

    // Every mutator refuses a temp name, whether such a file exists (a leftover) or not (each
    // call below names a fresh one, so no refusal hides behind an earlier call's effect).
    let mut calls = Vec::new();
    for (n, existing) in [root_temp, nested_temp].into_iter().enumerate() {
        let fresh = |tag: &str| {
            let dir = if n == 0 { "" } else { "n/" };
            format!("{dir}.fsmcp-{tag}{n}.tmp")
        };
        calls.extend([
            (
                "fs_write",
                json!({"path": existing, "content": "overwritten\n"}),
            ),
            ("fs_write", json!({"path": fresh("a1"), "content": "new\n"})),
            (
                "fs_edit",
                json!({"path": existing, "old-string": "leftover", "new-string": "edited"}),
            ),
            ("fs_delete", json!({"path": existing})),
            ("fs_move", json!({"from": existing, "to": "moved.txt"})),
            ("fs_move", json!({"from": "a.txt", "to": existing})),
            ("fs_move", json!({"from": "a.txt", "to": fresh("b2")})),
            ("fs_copy", json!({"from": existing, "to": "copied.txt"})),
            ("fs_copy", json!({"from": "a.txt", "to": existing})),
            ("fs_copy", json!({"from": "a.txt", "to": fresh("f6")})),
            ("fs_mkdir", json!({"path": fresh("c3")})),
            ("fs_mkdir", json!({"path": format!("{}/sub", fresh("d4"))})),
        ]);
    }
    calls.extend([
        (
            "write_text_file",
            json!({"path": root_temp, "content": "overwritten\n"}),
        ),
        (
            "write_text_file",
            json!({"path": ".fsmcp-e5.tmp", "content": "new\n"}),
        ),
    ]);
    for (tool, args) in calls {
        let result = server.call_result(tool, args.clone());
        if result.get("isError") != Some(&json!(true)) {
            let said = result["content"][0]["text"]
                .as_str()
                .unwrap_or("?")
                .to_owned();
            failures.push(format!("{tool} {args} was accepted: {said}"));
        }
    }
    let after = tree_state(tree.path());
    let diff = support::race::state_diff(&before, &after);
    // The temp files themselves must be untouched; nothing may appear under a temp name.
    let touched: Vec<&str> = diff
        .iter()
        .filter(|line| line.contains(".fsmcp"))
        .map(|line| line.split([':', '(']).next().unwrap_or(line).trim_end())
        .collect();
    assert!(
        failures.is_empty() && touched.is_empty(),
        "temp names accepted:\n{}\nchanged on disk: {touched:?}",
        failures.join("\n")
    );
    assert_eq!(
        tree.bytes("a.txt"),
        format!("{HEAD} real a\n").as_bytes(),
        "a.txt was moved under a temp name"
    );
    fs_error(&mut server, "fs_read", json!({"path": root_temp}));
    server.close();
}

/// A directory under a temp name (no killed write makes one, but a mutator or another process
/// may) is hidden from every listing and search, so nothing inside it may be served or written
/// either: otherwise it is a namespace the tools read and write but never show.
#[test]
fn temp_named_directories_are_not_a_hidden_namespace() {
    let tree = Tree::new()
        .file("a.txt", "real\n")
        .file("n/.fsmcp-0000000000000000.tmp/f.txt", "hidden\n");
    // As a live server building it holds it, so no start-up sweep takes it away.
    let _held = hold_lock(&tree.join("n/.fsmcp-0000000000000000.tmp"));
    let before = tree_state(tree.path());
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    let inside = "n/.fsmcp-0000000000000000.tmp/f.txt";
    let dir = "n/.fsmcp-0000000000000000.tmp";
    assert_eq!(
        fs_text(&mut server, "fs_list", json!({"path": "n"})),
        "(empty directory)"
    );
    let mut accepted = Vec::new();
    for (tool, args) in [
        ("fs_read", json!({"path": inside})),
        ("read_text_file", json!({"path": inside})),
        ("fs_stat", json!({"path": inside})),
        ("fs_stat", json!({"path": dir})),
        ("fs_list", json!({"path": dir})),
        (
            "fs_write",
            json!({"path": "n/.fsmcp-0000000000000000.tmp/g.txt", "content": "x"}),
        ),
        (
            "fs_edit",
            json!({"path": inside, "old-string": "hidden", "new-string": "edited"}),
        ),
        ("fs_move", json!({"from": inside, "to": "n/out.txt"})),
    ] {
        let result = server.call_result(tool, args.clone());
        if result.get("isError") != Some(&json!(true)) {
            let said = result["content"][0]["text"]
                .as_str()
                .unwrap_or("?")
                .to_owned();
            accepted.push(format!("{tool} {args} was accepted: {said:?}"));
        }
    }
    let diff = support::race::state_diff(&before, &tree_state(tree.path()));
    assert!(
        accepted.is_empty() && diff.is_empty(),
        "a temp-named directory is served:\n{}\nchanged on disk: {diff:?}",
        accepted.join("\n")
    );
    server.close();
}
