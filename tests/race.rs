//! Hostile rename races against confinement.
//!
//! A temporary directory holds `outside/` (marker files the server must never read, change,
//! create or remove) and `root/`, served with `--tools ptc,fs --include '**'`, with and without
//! `--follow-symlinks`. An attacker thread swaps, as fast as it can for a bounded time, either
//! the directory `root/d` with a symbolic link to the outside tree, or the files `root/d/f.txt`
//! and `root/top.txt` with links to an outside file, always by atomic renames, or moves the real
//! `root/d` out of the root (to a sibling `away/`) and back. Meanwhile the
//! client pipelines every read and write tool through those paths. Afterwards: no response ever
//! held the marker or a host path, every stdout line was one JSON value answering a call, the
//! outside tree is unchanged (bytes, kinds, modes, inodes, directory times), no temp file was
//! left behind, and the server still answers and exits cleanly.
//!
//! The outcome is deterministic; only the interleaving is not. Each scenario runs for
//! [`HAMMER`]; the counts of calls and swaps are printed (`cargo test -- --nocapture`).

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use rustix::fs::{Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};
use support::attack::call_line;
use support::fs::fs_text;
use support::race::{state_diff, temp_files, tree_state};
use support::*;

/// Text in every outside file and in one outside name; no request ever contains it.
const MARKER: &str = "OUTSIDE-MARKER";
/// How long the attacker and the client run in each scenario.
const HAMMER: Duration = Duration::from_secs(3);
/// The bytes of `root/d/f.txt` as the attacker restores it.
const INSIDE_F: &str = "inside f alpha\n";
/// The marker file beside the place `root/d` is moved to.
const AWAY_SECRET: &str = "OUTSIDE-MARKER away line\n";
/// The bytes of `root/top.txt` as the attacker restores it.
const INSIDE_TOP: &str = "inside top alpha\n";

/// `<tmp>/outside` and `<tmp>/root`.
struct Layout {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    outside: PathBuf,
}

impl Layout {
    fn new() -> Layout {
        let dir = tempfile::tempdir().expect("temporary directory");
        let base = dir.path().to_path_buf();
        for (path, text) in [
            ("outside/secret.txt", "OUTSIDE-MARKER secret line\n"),
            (
                "outside/OUTSIDE-MARKER-name.txt",
                "OUTSIDE-MARKER named line\n",
            ),
            ("outside/f.txt", "OUTSIDE-MARKER f alpha line\n"),
            ("outside/new.txt", "OUTSIDE-MARKER new line\n"),
            ("outside/sub/g.txt", "OUTSIDE-MARKER g line\n"),
            ("outside/sub/deeper/h.txt", "OUTSIDE-MARKER h line\n"),
            ("outside/newdir/keep.txt", "OUTSIDE-MARKER keep line\n"),
            ("root/top.txt", INSIDE_TOP),
            ("root/d/f.txt", INSIDE_F),
            ("root/d/sub/g.txt", "inside g line\n"),
        ] {
            let file = base.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("create parent");
            std::fs::write(file, text).expect("write fixture");
        }
        // A link that stays inside the root (followed with --follow-symlinks) to the raced name.
        std::os::unix::fs::symlink("d", base.join("root/alias")).expect("alias link");
        Layout {
            root: base.join("root"),
            outside: base.join("outside"),
            base,
            _dir: dir,
        }
    }

    fn server(&self, follow: bool) -> Server {
        let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
        args.extend_from_slice(&support::fs::NO_COPY_RESERVE);
        if follow {
            args.push("--follow-symlinks");
        }
        Server::start(&self.root, &args)
    }
}

// ---------------------------------------------------------------------------------------------
// The attacker
// ---------------------------------------------------------------------------------------------

/// What the attacker swaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attack {
    /// `root/d` ⇄ `root/d.link` (a link to `../outside`) with `renameat2(RENAME_EXCHANGE)`:
    /// `d` is always either the real directory or the link, never missing.
    DirExchange,
    /// `root/d` ⇄ `root/d.link` (a link to the absolute outside path) with four plain renames.
    DirRenames,
    /// `root/d/f.txt` and `root/top.txt` alternate between a regular file and a link to
    /// `outside/secret.txt` (relative, absolute, and absolute through the root's own path).
    File,
    /// The real directory `root/d` moved out of the root (to `<tmp>/away/d`) and back by plain
    /// renames, the case `RESOLVE_BENEATH` exists for: a walk that took `d` inside the root
    /// must not go on outside it.
    MoveOut,
    /// Two levels down: `root/d/deep/inner` ⇄ `root/d/deep/inner.link` (a link to the absolute
    /// `outside/newdir`) with `RENAME_EXCHANGE`, while the client builds the tree with
    /// `fs_mkdir`, fills it and deletes it recursively; the attacker rebuilds what is deleted.
    Nested,
}

/// What the attacker did.
#[derive(Debug, Default)]
struct Swaps {
    /// Successful flips of a name between the real thing and a link.
    done: u64,
    /// Renames that failed (the server moved or made something there at that moment).
    failed: u64,
    /// Which mechanism ran (exchange falls back to renames where unsupported).
    how: &'static str,
}

/// The attacker thread: stops (and restores the layout) when dropped or stopped.
struct Attacker {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Swaps>>,
}

impl Attacker {
    fn start(layout: &Layout, attack: Attack) -> Attacker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let root = layout.root.clone();
        let outside = layout.outside.clone();
        let handle = thread::spawn(move || match attack {
            Attack::DirExchange => {
                std::os::unix::fs::symlink("../outside", root.join("d.link")).expect("link");
                exchange_dirs(&root, &flag)
            }
            Attack::DirRenames => {
                std::os::unix::fs::symlink(&outside, root.join("d.link")).expect("link");
                rename_dirs(&root, &flag)
            }
            Attack::MoveOut => move_out(&root, &flag),
            Attack::File => swap_files(&root, &outside, &flag),
            Attack::Nested => exchange_nested(&root, &outside, &flag),
        });
        Attacker {
            stop,
            handle: Some(handle),
        }
    }

    fn stop(mut self) -> Swaps {
        self.stop.store(true, Ordering::SeqCst);
        self.handle
            .take()
            .expect("running")
            .join()
            .expect("attacker thread")
    }
}

impl Drop for Attacker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn open_dir(path: &Path) -> OwnedFd {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .expect("open the root directory")
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn exchange_dirs(root: &Path, stop: &AtomicBool) -> Swaps {
    let dir = open_dir(root);
    let mut swaps = Swaps {
        how: "renameat2(RENAME_EXCHANGE)",
        ..Swaps::default()
    };
    while !stop.load(Ordering::Relaxed) {
        match rustix::fs::renameat_with(&dir, "d", &dir, "d.link", RenameFlags::EXCHANGE) {
            Ok(()) => swaps.done += 1,
            Err(Errno::INVAL) if swaps.done == 0 => {
                // The filesystem cannot exchange; plain renames race the same names.
                let mut fallback = rename_dirs(root, stop);
                fallback.how = "rename (RENAME_EXCHANGE unsupported)";
                return fallback;
            }
            Err(_) => swaps.failed += 1,
        }
    }
    // Leave the real directory at `d`.
    while is_link(&root.join("d")) {
        rustix::fs::renameat_with(&dir, "d", &dir, "d.link", RenameFlags::EXCHANGE)
            .expect("restore d");
    }
    swaps
}

fn exchange_nested(root: &Path, outside: &Path, stop: &AtomicBool) -> Swaps {
    let dir = open_dir(root);
    let target = outside.join("newdir");
    let mut swaps = Swaps {
        how: "renameat2(RENAME_EXCHANGE), rebuilding what the client deleted",
        ..Swaps::default()
    };
    while !stop.load(Ordering::Relaxed) {
        match rustix::fs::renameat_with(
            &dir,
            "d/deep/inner",
            &dir,
            "d/deep/inner.link",
            RenameFlags::EXCHANGE,
        ) {
            Ok(()) => swaps.done += 1,
            Err(_) => {
                swaps.failed += 1;
                // The client deleted or moved a piece: put back whichever is missing.
                let _ = std::fs::create_dir_all(root.join("d/deep"));
                let inner = root.join("d/deep/inner");
                let link = root.join("d/deep/inner.link");
                if std::fs::symlink_metadata(&inner).is_err() {
                    let _ = std::fs::create_dir(&inner);
                }
                if std::fs::symlink_metadata(&link).is_err() {
                    let _ = std::os::unix::fs::symlink(&target, &link);
                }
            }
        }
    }
    swaps
}

fn rename_dirs(root: &Path, stop: &AtomicBool) -> Swaps {
    let (d, link, spare) = (root.join("d"), root.join("d.link"), root.join("d.tmp"));
    let mut swaps = Swaps {
        how: "rename",
        ..Swaps::default()
    };
    while !stop.load(Ordering::Relaxed) {
        // d → d.tmp; d.link → d (d is now the link); d → d.link; d.tmp → d (real again).
        for (step, (from, to)) in [(&d, &spare), (&link, &d), (&d, &link), (&spare, &d)]
            .into_iter()
            .enumerate()
        {
            loop {
                match std::fs::rename(from, to) {
                    Ok(()) => {
                        if step % 2 == 1 {
                            swaps.done += 1;
                        }
                        break;
                    }
                    // While `d` is missing, `fs_mkdir d/…` (which creates missing parents)
                    // may create a fresh `d`: move it aside, inside the root, and go on.
                    Err(_) if to == &d && !is_link(&d) && d.is_dir() => {
                        swaps.failed += 1;
                        std::fs::rename(&d, root.join(format!("d.made-{}", swaps.failed)))
                            .expect("move a directory the server made out of the way");
                    }
                    Err(e) => panic!("attacker rename {from:?} → {to:?} failed: {e}"),
                }
            }
        }
    }
    swaps
}

fn move_out(root: &Path, stop: &AtomicBool) -> Swaps {
    let away = root.parent().expect("a parent").join("away");
    std::fs::create_dir_all(&away).expect("away directory");
    // A neighbour a walk that went on outside the root could reach from `d` by `..`.
    std::fs::write(away.join("secret.txt"), AWAY_SECRET).expect("away marker");
    let (d, gone) = (root.join("d"), away.join("d"));
    let mut swaps = Swaps {
        how: "rename out of the root and back",
        ..Swaps::default()
    };
    let back = |swaps: &mut Swaps| loop {
        match std::fs::rename(&gone, &d) {
            Ok(()) => return,
            // While `d` was away, `fs_mkdir d/…` (which creates missing parents) may have made
            // a fresh `d`: move it aside, inside the root, and go on.
            Err(_) => {
                swaps.failed += 1;
                std::fs::rename(&d, root.join(format!("d.made-{}", swaps.failed)))
                    .expect("move a directory the server made out of the way");
            }
        }
    };
    while !stop.load(Ordering::Relaxed) {
        match std::fs::rename(&d, &gone) {
            Ok(()) => swaps.done += 1,
            // The client moved or deleted `d` itself for a moment.
            Err(_) => {
                swaps.failed += 1;
                continue;
            }
        }
        back(&mut swaps);
    }
    swaps
}

fn swap_files(root: &Path, outside: &Path, stop: &AtomicBool) -> Swaps {
    let secret = outside.join("secret.txt");
    let through_root = root.join("../outside/secret.txt");
    // (target, spare link name, spare file name, restored bytes, link targets)
    let targets = [
        (
            root.join("d/f.txt"),
            root.join("d/atk-link"),
            root.join("d/atk-file"),
            INSIDE_F,
            [
                PathBuf::from("../../outside/secret.txt"),
                secret.clone(),
                through_root.clone(),
            ],
        ),
        (
            root.join("top.txt"),
            root.join("atk-link"),
            root.join("atk-file"),
            INSIDE_TOP,
            [
                PathBuf::from("../outside/secret.txt"),
                secret.clone(),
                through_root.clone(),
            ],
        ),
    ];
    let mut swaps = Swaps {
        how: "rename over (link, then file)",
        ..Swaps::default()
    };
    let mut round = 0usize;
    while !stop.load(Ordering::Relaxed) {
        for (target, spare_link, spare_file, bytes, links) in &targets {
            let _ = std::fs::remove_file(spare_link);
            std::os::unix::fs::symlink(&links[round % links.len()], spare_link)
                .expect("attacker symlink");
            match std::fs::rename(spare_link, target) {
                Ok(()) => swaps.done += 1,
                Err(_) => swaps.failed += 1,
            }
            std::fs::write(spare_file, bytes).expect("attacker file");
            match std::fs::rename(spare_file, target) {
                Ok(()) => swaps.done += 1,
                Err(_) => swaps.failed += 1,
            }
        }
        round += 1;
    }
    swaps
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/// One pipelined burst of calls through the raced paths; `i` alternates the toggling mutations.
fn burst(attack: Attack, i: u64) -> Vec<(&'static str, Value)> {
    let even = i.is_multiple_of(2);
    let (old, new) = if even {
        ("alpha", "beta")
    } else {
        ("beta", "alpha")
    };
    match attack {
        Attack::DirExchange | Attack::DirRenames | Attack::MoveOut => {
            let (from, to) = if even {
                ("d/f.txt", "d/f2.txt")
            } else {
                ("d/f2.txt", "d/f.txt")
            };
            vec![
                ("read_text_file", json!({"path": "d/f.txt"})),
                ("read_text_file", json!({"path": "d/sub/g.txt"})),
                (
                    "search_text",
                    json!({"query": "e", "case_insensitive": true, "path": "d"}),
                ),
                ("search_text", json!({"query": "line"})),
                ("list_directory", json!({"path": "d"})),
                ("list_directory", json!({"path": "d/sub"})),
                ("search_files", json!({"query": "txt"})),
                ("fs_read", json!({"path": "d/f.txt"})),
                ("fs_read", json!({"path": "d/sub/g.txt"})),
                ("fs_list", json!({"path": "d"})),
                ("fs_list", json!({"path": "d/sub"})),
                ("fs_grep", json!({"pattern": "e", "path": "d"})),
                ("fs_grep", json!({"pattern": "line"})),
                ("fs_glob", json!({"pattern": "**", "path": "d"})),
                ("fs_glob", json!({"pattern": "d/**"})),
                ("fs_stat", json!({"path": "d/f.txt"})),
                ("fs_stat", json!({"path": "d/sub"})),
                (
                    "fs_write",
                    json!({"path": "d/new.txt", "content": "inside new\n"}),
                ),
                (
                    "fs_write",
                    json!({"path": "d/sub/new.txt", "content": "inside sub new\n"}),
                ),
                (
                    "fs_edit",
                    json!({"path": "d/f.txt", "old-string": old, "new-string": new}),
                ),
                ("fs_mkdir", json!({"path": "d/newdir/inner"})),
                ("fs_move", json!({"from": from, "to": to})),
                ("fs_delete", json!({"path": "d/new.txt"})),
                ("fs_delete", json!({"path": "d/sub/new.txt"})),
                ("fs_delete", json!({"path": "d/newdir", "recursive": true})),
                (
                    "write_text_file",
                    json!({"path": "top.txt", "content": format!("inside top {i}\n")}),
                ),
                // Moves across the raced directory, both ways.
                (
                    "fs_move",
                    json!({"from": "top.txt", "to": "d/top-moved.txt"}),
                ),
                (
                    "fs_move",
                    json!({"from": "d/top-moved.txt", "to": "top.txt"}),
                ),
                (
                    "fs_move",
                    json!({"from": "d/sub/g.txt", "to": "g-moved.txt"}),
                ),
                (
                    "fs_move",
                    json!({"from": "g-moved.txt", "to": "d/sub/g.txt"}),
                ),
                // Copies of and out of the raced directory, removed again.
                ("fs_copy", json!({"from": "d", "to": "d-copy"})),
                ("fs_delete", json!({"path": "d-copy", "recursive": true})),
                (
                    "fs_copy",
                    json!({"from": "d/sub/g.txt", "to": "g-copy.txt"}),
                ),
                ("fs_delete", json!({"path": "g-copy.txt"})),
                // Through a link that stays inside the root to the raced directory.
                ("fs_read", json!({"path": "alias/f.txt"})),
                ("read_text_file", json!({"path": "alias/sub/g.txt"})),
                ("fs_list", json!({"path": "alias"})),
                ("search_text", json!({"query": "line", "path": "alias"})),
                (
                    "fs_write",
                    json!({"path": "alias/new.txt", "content": "inside alias\n"}),
                ),
                ("fs_delete", json!({"path": "alias/new.txt"})),
            ]
        }
        Attack::Nested => vec![
            ("fs_mkdir", json!({"path": "d/deep/inner/x"})),
            (
                "fs_write",
                json!({"path": "d/deep/inner/f.txt", "content": "inside deep alpha\n"}),
            ),
            (
                "fs_write",
                json!({"path": "d/deep/inner/x/g.txt", "content": "inside deeper\n"}),
            ),
            ("fs_read", json!({"path": "d/deep/inner/f.txt"})),
            ("fs_read", json!({"path": "d/deep/inner.link/keep.txt"})),
            ("read_text_file", json!({"path": "d/deep/inner/f.txt"})),
            ("fs_list", json!({"path": "d/deep/inner"})),
            ("list_directory", json!({"path": "d/deep/inner"})),
            ("fs_glob", json!({"pattern": "**", "path": "d/deep"})),
            ("fs_grep", json!({"pattern": "e", "path": "d/deep"})),
            (
                "search_text",
                json!({"query": "e", "case_insensitive": true, "path": "d/deep"}),
            ),
            ("search_files", json!({"query": "deep"})),
            ("fs_stat", json!({"path": "d/deep/inner"})),
            (
                "fs_edit",
                json!({"path": "d/deep/inner/f.txt", "old-string": old, "new-string": new}),
            ),
            (
                "fs_move",
                json!({"from": "d/deep/inner/f.txt", "to": "d/deep/moved.txt"}),
            ),
            (
                "fs_delete",
                json!({"path": "d/deep/inner/x", "recursive": true}),
            ),
            ("fs_delete", json!({"path": "d/deep/inner/f.txt"})),
            ("fs_delete", json!({"path": "d/deep/moved.txt"})),
            ("fs_delete", json!({"path": "d/deep", "recursive": true})),
            (
                "write_text_file",
                json!({"path": "top.txt", "content": INSIDE_TOP}),
            ),
        ],
        Attack::File => vec![
            ("read_text_file", json!({"path": "d/f.txt"})),
            ("read_text_file", json!({"path": "d/f2.txt"})),
            ("read_text_file", json!({"path": "top.txt"})),
            (
                "search_text",
                json!({"query": "e", "case_insensitive": true}),
            ),
            ("search_text", json!({"query": "line", "path": "d"})),
            ("list_directory", json!({"path": "d"})),
            ("list_directory", json!({"path": ""})),
            ("search_files", json!({"query": "txt"})),
            ("fs_read", json!({"path": "d/f.txt"})),
            ("fs_read", json!({"path": "d/f2.txt"})),
            ("fs_read", json!({"path": "top.txt"})),
            (
                "fs_read",
                json!({"path": "d/f.txt", "offset": 1, "limit": 1}),
            ),
            ("fs_list", json!({"path": "d"})),
            ("fs_grep", json!({"pattern": "e"})),
            (
                "fs_grep",
                json!({"pattern": "line", "path": "d", "context": 2}),
            ),
            ("fs_glob", json!({"pattern": "**"})),
            ("fs_stat", json!({"path": "d/f.txt"})),
            ("fs_stat", json!({"path": "top.txt"})),
            ("fs_write", json!({"path": "d/f.txt", "content": INSIDE_F})),
            (
                "fs_write",
                json!({"path": "top.txt", "content": INSIDE_TOP}),
            ),
            (
                "fs_edit",
                json!({"path": "d/f.txt", "old-string": old, "new-string": new}),
            ),
            (
                "fs_edit",
                json!({"path": "top.txt", "old-string": old, "new-string": new}),
            ),
            ("fs_move", json!({"from": "d/f.txt", "to": "d/f2.txt"})),
            ("fs_delete", json!({"path": "d/f2.txt"})),
            ("fs_mkdir", json!({"path": "d/newdir"})),
            ("fs_delete", json!({"path": "d/newdir"})),
            (
                "write_text_file",
                json!({"path": "top.txt", "content": INSIDE_TOP}),
            ),
        ],
    }
}

/// What the client saw.
#[derive(Default)]
struct Tally {
    /// Per tool: (calls answered with a result, of which `isError`).
    calls: BTreeMap<&'static str, (u64, u64)>,
    /// Responses holding the marker.
    leaks: Vec<String>,
    /// Responses naming a host path.
    host_paths: Vec<String>,
    /// JSON-RPC errors or malformed responses.
    protocol: Vec<String>,
    /// Distinct refusal texts per tool (for the report).
    refusals: BTreeMap<&'static str, std::collections::BTreeSet<String>>,
    bursts: u64,
}

impl Tally {
    fn total(&self) -> u64 {
        self.calls.values().map(|(n, _)| n).sum()
    }

    fn summary(&self) -> String {
        self.calls
            .iter()
            .map(|(tool, (n, errors))| format!("{tool} {n} ({errors} refused)"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Pipelines bursts of calls until `until`, reading every response of a burst before the next.
fn hammer(server: &mut Server, layout: &Layout, attack: Attack, until: Instant) -> Tally {
    let host = layout.base.to_string_lossy().into_owned();
    let mut tally = Tally::default();
    let mut id = 1_000_000u64;
    while Instant::now() < until {
        let mut pending = BTreeMap::new();
        for (tool, args) in burst(attack, tally.bursts) {
            id += 1;
            server.send_line(&call_line(&json!(id), tool, &args));
            pending.insert(id, (tool, args));
        }
        while !pending.is_empty() {
            let message = server.next_message();
            let Some(answered) = message.get("id").and_then(Value::as_u64) else {
                if message.get("method").is_none() {
                    tally
                        .protocol
                        .push(format!("message without id: {message}"));
                }
                continue;
            };
            let Some((tool, args)) = pending.remove(&answered) else {
                tally
                    .protocol
                    .push(format!("response to no pending call: {message}"));
                continue;
            };
            let text = message.to_string();
            if text.contains(MARKER) {
                tally.leaks.push(format!("{tool} {args} → {text}"));
            }
            if text.contains(&host) {
                tally.host_paths.push(format!("{tool} {args} → {text}"));
            }
            let Some(result) = message.get("result") else {
                tally.protocol.push(format!("{tool} {args} → {text}"));
                continue;
            };
            let entry = tally.calls.entry(tool).or_default();
            entry.0 += 1;
            if result.get("isError") == Some(&json!(true)) {
                entry.1 += 1;
                let said = result["content"][0]["text"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned();
                tally.refusals.entry(tool).or_default().insert(said);
            }
        }
        tally.bursts += 1;
    }
    tally
}

fn first<T: std::fmt::Display>(list: &[T]) -> String {
    list.iter()
        .take(5)
        .map(|s| format!("\n  {s}"))
        .collect::<String>()
}

/// One scenario: attacker and client for [`HAMMER`], then every check.
fn scenario(name: &str, attack: Attack, follow: bool) {
    let layout = Layout::new();
    let before = tree_state(&layout.outside);
    let mut server = layout.server(follow);
    // The server is up and serving before the race starts.
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "d/f.txt"})),
        INSIDE_F
    );

    let attacker = Attacker::start(&layout, attack);
    let tally = hammer(&mut server, &layout, attack, Instant::now() + HAMMER);
    let swaps = attacker.stop();

    eprintln!(
        "race {name}: {} swaps by {} ({} attacker renames failed); {} calls in {} bursts: {}",
        swaps.done,
        swaps.how,
        swaps.failed,
        tally.total(),
        tally.bursts,
        tally.summary()
    );

    if std::env::var_os("RACE_REFUSALS").is_some() {
        for (tool, texts) in &tally.refusals {
            for text in texts {
                eprintln!("  {name} {tool} refused: {text}");
            }
        }
    }

    if attack == Attack::MoveOut {
        // `d` is back, and beside where it went nothing was read into view, changed or left.
        let away = layout.base.join("away");
        let mut names: Vec<String> = std::fs::read_dir(&away)
            .expect("away directory")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["secret.txt"],
            "{name}: what is left beside the moved directory"
        );
        assert_eq!(
            std::fs::read_to_string(away.join("secret.txt")).expect("away marker"),
            AWAY_SECRET,
            "{name}: the marker beside the moved directory"
        );
    }
    let after = tree_state(&layout.outside);
    let diff = state_diff(&before, &after);
    assert!(
        diff.is_empty(),
        "{name}: the outside tree changed:{}",
        first(&diff)
    );
    assert!(
        tally.leaks.is_empty(),
        "{name}: {} responses held the outside marker:{}",
        tally.leaks.len(),
        first(&tally.leaks)
    );
    assert!(
        tally.host_paths.is_empty(),
        "{name}: {} responses named a host path:{}",
        tally.host_paths.len(),
        first(&tally.host_paths)
    );
    assert!(
        tally.protocol.is_empty(),
        "{name}: {} protocol-level failures:{}",
        tally.protocol.len(),
        first(&tally.protocol)
    );
    assert!(swaps.done > 0, "{name}: the attacker never swapped");
    assert!(tally.total() > 0, "{name}: no call was answered");
    let leftovers = temp_files(&layout.base);
    assert!(
        leftovers.is_empty(),
        "{name}: temp files left behind without a crash: {leftovers:?}"
    );

    // Still answering, and answering correctly, once the race is over (the last burst may have
    // left `g.txt` moved out of the raced directory).
    if layout.root.join("g-moved.txt").exists() {
        fs_text(
            &mut server,
            "fs_move",
            json!({"from": "g-moved.txt", "to": "d/sub/g.txt"}),
        );
    }
    let tools = server.result("tools/list", json!({}))["tools"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(
        tools >= 15,
        "{name}: tools/list after the race lists {tools}"
    );
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "d/sub/g.txt"})),
        "inside g line\n",
        "{name}: reading after the race"
    );
    assert_eq!(
        server.read(json!({"path": "d/sub/g.txt"})),
        "inside g line\n",
        "{name}: read_text_file after the race"
    );
    server.close();
    assert!(
        state_diff(&before, &tree_state(&layout.outside)).is_empty(),
        "{name}: the outside tree changed after the race"
    );
}

#[test]
fn directory_exchanged_with_relative_link() {
    scenario("dir-exchange", Attack::DirExchange, false);
}

#[test]
fn directory_exchanged_with_relative_link_following_links() {
    scenario("dir-exchange --follow-symlinks", Attack::DirExchange, true);
}

#[test]
fn directory_renamed_to_absolute_link() {
    scenario("dir-renames", Attack::DirRenames, false);
}

#[test]
fn directory_renamed_to_absolute_link_following_links() {
    scenario("dir-renames --follow-symlinks", Attack::DirRenames, true);
}

#[test]
fn directory_moved_out_of_the_root_and_back() {
    scenario("move-out", Attack::MoveOut, false);
}

#[test]
fn directory_moved_out_of_the_root_and_back_following_links() {
    scenario("move-out --follow-symlinks", Attack::MoveOut, true);
}

#[test]
fn nested_directory_exchanged_during_recursive_work() {
    scenario("nested-exchange", Attack::Nested, false);
}

#[test]
fn nested_directory_exchanged_during_recursive_work_following_links() {
    scenario("nested-exchange --follow-symlinks", Attack::Nested, true);
}

#[test]
fn file_swapped_with_link_to_outside_file() {
    scenario("file-swap", Attack::File, false);
}

#[test]
fn file_swapped_with_link_to_outside_file_following_links() {
    scenario("file-swap --follow-symlinks", Attack::File, true);
}
