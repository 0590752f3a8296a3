//! The attack suite's path half: every hostile path spelling against every path-taking argument
//! of both tool sets, hostile glob patterns, special files (FIFO, socket, device) named
//! directly, names no terminal shows honestly, 300-level nesting and 4096-byte paths. Every case
//! checks that no outside marker appears in the response, that nothing outside the root was
//! created, changed or removed, and that the server still answers afterwards.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, Instant};
use support::Server;
use support::attack::*;

/// Every path-taking argument of every tool: (tool, argument, the call with `path` there).
type Builder = fn(&str) -> Value;
const ARGUMENTS: [(&str, &str, Builder); 17] = [
    ("list_directory", "path", |p| json!({"path": p})),
    (
        "search_text",
        "path",
        |p| json!({"query": "secret", "path": p}),
    ),
    ("read_text_file", "path", |p| json!({"path": p})),
    (
        "write_text_file",
        "path",
        |p| json!({"path": p, "content": "OVERWRITTEN"}),
    ),
    ("fs_read", "path", |p| json!({"path": p})),
    (
        "fs_write",
        "path",
        |p| json!({"path": p, "content": "OVERWRITTEN"}),
    ),
    (
        "fs_edit",
        "path",
        |p| json!({"path": p, "old-string": "secret", "new-string": "OVERWRITTEN"}),
    ),
    ("fs_list", "path", |p| json!({"path": p})),
    ("fs_glob", "path", |p| json!({"pattern": "*", "path": p})),
    (
        "fs_grep",
        "path",
        |p| json!({"pattern": "secret", "path": p}),
    ),
    ("fs_stat", "path", |p| json!({"path": p})),
    ("fs_mkdir", "path", |p| json!({"path": p})),
    (
        "fs_move",
        "from",
        |p| json!({"from": p, "to": "moved-away"}),
    ),
    ("fs_move", "to", |p| json!({"from": "victim.txt", "to": p})),
    (
        "fs_copy",
        "from",
        |p| json!({"from": p, "to": "copied-away"}),
    ),
    ("fs_copy", "to", |p| json!({"from": "victim.txt", "to": p})),
    (
        "fs_delete",
        "path",
        |p| json!({"path": p, "recursive": true}),
    ),
];

/// What a hostile path must get.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Refused by every argument, and nothing under the root changes either.
    Refused,
    /// Possibly served (a name the root may legitimately hold): only the invariants apply.
    Any,
    /// An absolute path inside the root: refused by the `ptc` tools (nothing changes), taken
    /// by the fs tools as the path below the root (only the invariants apply).
    FsOnly,
}

/// The table of hostile path strings.
fn hostile_paths(arena: &Arena) -> Vec<(String, Expect)> {
    use Expect::*;
    let mut paths: Vec<(String, Expect)> = [
        // Sibling-prefix roots and parent climbs.
        "../root-secrets/x",
        "../root2/x",
        "../root-secrets",
        "../root2",
        "../root-secrets/sub/deep.txt",
        "..",
        "../",
        "../x",
        "../outside.txt",
        "d/../../root2/x",
        "./../root2/x",
        "d/../..",
        "d/..",
        "x/..",
        // Absolute.
        "/etc/passwd",
        "/etc",
        "/",
        "//etc/passwd",
        "/proc/self/root/etc/passwd",
        // Drive letters.
        "C:\\",
        "C:/",
        "c:x",
        "C:",
        "C:\\Windows\\win.ini",
        "c:/root2/x",
        "c:..\\root2\\x",
        // UNC and device namespaces.
        "\\\\server\\share",
        "\\\\server\\share\\x",
        "\\\\?\\C:\\x",
        "\\\\.\\pipe\\x",
        "//server/share",
        // Backslashes.
        "..\\root2\\x",
        "a\\b",
        "\\etc\\passwd",
        "d\\inner.txt",
        "\\",
        // NUL.
        "x\u{0}",
        "inside.txt\u{0}../root2/x",
        "\u{0}",
        "../root2/x\u{0}.txt",
        // Dot segments.
        "./x",
        "x/.",
        "./.",
        "./",
        "a/./b",
        "d/./inner.txt",
        // Windows device names.
        "CON",
        "con",
        "nul.txt",
        "NUL",
        "COM1",
        "com9.log",
        "LPT9",
        "lpt1.txt",
        "d/AUX",
        "prn.md",
        "lpt9/x",
        "COM0",
        "lpt0.txt",
        "COM¹",
        "lpt³.txt",
        "Com² .log",
        "d/LPT¹/x",
    ]
    .iter()
    .map(|p| (p.to_string(), Refused))
    .collect();
    // The absolute host paths of the siblings and of the root itself.
    for rel in [
        "root-secrets/x",
        "root2/x",
        "root-secrets",
        "root2",
        "outside.txt",
        "root/../root2/x",
    ] {
        paths.push((arena.abs(rel), Refused));
    }
    for rel in ["root/d/inner.txt", "root", "root/"] {
        paths.push((arena.abs(rel), FsOnly));
    }
    // 4096-byte paths.
    paths.push((format!("{}ab", "a/".repeat(2047)), Refused));
    paths.push(("x".repeat(4096), Refused));
    paths.push((format!("{}x", "../".repeat(1365)), Refused));
    paths.push(("é".repeat(2048), Refused));
    paths.push((format!("{}/x", "root2".repeat(819)), Refused));
    // Spellings a root may hold as ordinary names, or that name the root itself.
    for p in [
        ".",
        "",
        "...",
        "d/...",
        "....",
        "d/",
        "nl\nname.txt",
        "\u{202E}txt.exe",
        "root2",
        "root-secrets",
    ] {
        paths.push((p.to_owned(), Any));
    }
    paths.push(("a".repeat(1024), Any));
    paths
}

/// One hostile table run: every path × every argument on one server, checking the invariants
/// after each call; returns the failures.
fn run_table(extra: &[&str]) -> Vec<String> {
    let arena = Arena::new();
    arena.put("root/victim.txt", "victim line\n");
    arena.put("root/nl\nname.txt", "secret inside newline\n");
    let mut outside = arena.outside();
    let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
    args.extend_from_slice(extra);
    let mut server = arena.serve(&args);
    let mut failures = Vec::new();
    let table = hostile_paths(&arena);
    for expect in [Expect::Refused, Expect::FsOnly, Expect::Any] {
        let mut inside = arena.inside_snapshot();
        for (path, _) in table.iter().filter(|(_, e)| *e == expect) {
            for (tool, argument, build) in ARGUMENTS {
                let args = build(path);
                let case = format!("{tool} {argument}={path:?}");
                let response = match call_within(&mut server, tool, args, hang()) {
                    Ok(response) => response,
                    Err(hang) => {
                        failures.push(format!("{case}: HANG: {hang}"));
                        return failures;
                    }
                };
                if let Some(marker) = leaks(&response) {
                    failures.push(format!("{case}: LEAK of {marker}: {response}"));
                }
                let now = arena.outside();
                let changed = outside.diff(&now);
                if !changed.is_empty() {
                    failures.push(format!("{case}: OUTSIDE CHANGED: {changed:?}"));
                    outside = now;
                }
                let refused = expect == Expect::Refused
                    || (expect == Expect::FsOnly && !tool.starts_with("fs_"));
                if expect == Expect::FsOnly && !refused {
                    // Served as the path below the root: what it changed is the next baseline.
                    inside = arena.inside_snapshot();
                }
                if refused {
                    if !is_refusal(&response) {
                        failures.push(format!("{case}: accepted: {}", text_of(&response)));
                    }
                    let now = arena.inside_snapshot();
                    let changed = inside.diff(&now);
                    if !changed.is_empty() {
                        failures.push(format!("{case}: the root changed: {changed:?}"));
                        inside = now;
                    }
                }
            }
        }
    }
    still_answers(&mut server);
    // The root itself survived every spelling of it, and the server still reads it.
    let read = call_raw(&mut server, "fs_read", json!({"path": "inside.txt"}));
    if text_of(&read) != "inside line\n" {
        failures.push(format!("inside.txt after the table: {read}"));
    }
    failures
}

#[test]
fn hostile_paths_in_every_argument_never_escape() {
    let failures = run_table(&[]);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn hostile_paths_in_every_argument_never_escape_when_following_links() {
    let failures = run_table(&["--follow-symlinks"]);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn hostile_patterns_and_queries_never_widen_the_scope() {
    let arena = Arena::new();
    let outside = arena.outside();
    let mut server = arena.serve(&["--tools", "ptc,fs", "--include", "**", "--follow-symlinks"]);
    let patterns = [
        "../*",
        "../root-secrets/*",
        "../root2/*",
        "../../*",
        "/etc/*",
        "/etc/passwd",
        "*/../../*",
        "**/../*",
        "..",
        "root-secrets/*",
        "*",
        "**",
        "\\..\\*",
    ];
    let mut calls: Vec<(&str, Value)> = Vec::new();
    for pattern in patterns {
        calls.push(("fs_glob", json!({"pattern": pattern})));
        calls.push(("fs_glob", json!({"pattern": pattern, "path": "d"})));
        calls.push((
            "fs_grep",
            json!({"pattern": "secret", "glob": pattern, "context": 3}),
        ));
        calls.push((
            "fs_grep",
            json!({"pattern": "secret|passwd|root", "regex": true, "glob": pattern}),
        ));
    }
    for query in ["secret", "x", "root2", "root-secrets", "..", "/", "passwd"] {
        calls.push(("search_files", json!({"query": query})));
        calls.push(("search_text", json!({"query": query})));
        calls.push((
            "search_text",
            json!({"query": query, "any_of": ["..", "/etc", "root"]}),
        ));
        calls.push(("fs_grep", json!({"pattern": query})));
    }
    let mut failures = Vec::new();
    for (tool, args) in calls {
        let response = call_raw(&mut server, tool, args.clone());
        if let Some(marker) = leaks(&response) {
            failures.push(format!("{tool} {args}: LEAK of {marker}: {response}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
    // The scope is real: an inside match is found.
    let found = call_raw(&mut server, "fs_grep", json!({"pattern": "inside line"}));
    assert_eq!(text_of(&found), "inside.txt:1:inside line");
    still_answers(&mut server);
}

// ---- special files ------------------------------------------------------------------------------

/// Creates a character device node with `mknod`; `false` when this process may not (not root,
/// or no CAP_MKNOD in a container), and the device cases are then skipped.
fn mknod(path: &std::path::Path, major: u32, minor: u32) -> bool {
    std::process::Command::new("mknod")
        .arg(path)
        .arg("c")
        .arg(major.to_string())
        .arg(minor.to_string())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Every operation naming one special file directly.
fn special_calls(name: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("fs_read", json!({"path": name})),
        ("fs_read", json!({"path": name, "offset": 1, "limit": 2})),
        ("read_text_file", json!({"path": name})),
        ("read_text_file", json!({"path": name, "start_line": 2})),
        ("fs_stat", json!({"path": name})),
        ("fs_list", json!({"path": name})),
        ("list_directory", json!({"path": name})),
        ("fs_glob", json!({"pattern": "*", "path": name})),
        ("fs_grep", json!({"pattern": "x", "path": name})),
        ("search_text", json!({"query": "x", "path": name})),
        ("fs_write", json!({"path": name, "content": "written"})),
        (
            "write_text_file",
            json!({"path": name, "content": "written"}),
        ),
        (
            "fs_edit",
            json!({"path": name, "old-string": "x", "new-string": "y"}),
        ),
        ("fs_mkdir", json!({"path": name})),
        ("fs_mkdir", json!({"path": format!("{name}/sub")})),
        ("fs_move", json!({"from": "victim.txt", "to": name})),
        ("fs_copy", json!({"from": name, "to": "special-copy"})),
        ("fs_copy", json!({"from": "victim.txt", "to": name})),
    ]
}

/// The operations that would read or write a special file's contents, which must be refused.
const CONTENT_TOOLS: [&str; 6] = [
    "fs_copy",
    "fs_read",
    "read_text_file",
    "fs_write",
    "write_text_file",
    "fs_edit",
];

#[test]
fn fifos_sockets_and_devices_are_refused_promptly() {
    let arena = Arena::new();
    arena.put("root/victim.txt", "victim line\n");
    arena.fifo("root/fifo");
    arena.fifo("root/held");
    // A reader holds `held` open, so a writer would not block on it: anything written through
    // it would be readable here.
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags_nonblock()
        .open(arena.inside("held"))
        .expect("open the held FIFO");
    let _socket =
        std::os::unix::net::UnixListener::bind(arena.inside("sock")).expect("bind a socket");
    let mut names = vec!["fifo", "held", "sock"];
    // Device nodes need root (CI runs as root); elsewhere these cases are skipped.
    if mknod(&arena.inside("zero"), 1, 5) && mknod(&arena.inside("null"), 1, 3) {
        mknod(&arena.inside("urandom"), 1, 9);
        names.extend(["zero", "null", "urandom"]);
    } else {
        eprintln!("mknod is not permitted here: the device-node cases are skipped");
    }
    let outside = arena.outside();
    let mut server = arena.serve(&["--tools", "ptc,fs", "--include", "**"]);
    let mut failures = Vec::new();
    let prompt = Duration::from_secs(5);
    'names: for name in &names {
        let kind = std::fs::symlink_metadata(arena.inside(name))
            .expect("stat")
            .file_type();
        for (tool, args) in special_calls(name) {
            let started = Instant::now();
            let response = match call_within(&mut server, tool, args.clone(), prompt) {
                Ok(response) => response,
                Err(hang) => {
                    failures.push(format!("HANG: {hang}"));
                    break 'names;
                }
            };
            let took = started.elapsed();
            if let Some(marker) = leaks(&response) {
                failures.push(format!("{tool} {args}: LEAK of {marker}"));
            }
            if CONTENT_TOOLS.contains(&tool) && !is_refusal(&response) {
                failures.push(format!(
                    "{tool} {args} was not refused (after {took:?}): {}",
                    text_of(&response)
                ));
            }
            let now = std::fs::symlink_metadata(arena.inside(name))
                .map(|m| m.file_type())
                .ok();
            if now != Some(kind) {
                failures.push(format!("{tool} {args} replaced {name}: now {now:?}"));
            }
        }
    }
    // Walks over the whole root skip them without waiting on any.
    for (tool, args) in [
        ("fs_grep", json!({"pattern": "x"})),
        ("fs_glob", json!({"pattern": "*"})),
        ("fs_list", json!({})),
        ("search_text", json!({"query": "x"})),
        ("search_files", json!({"query": "e"})),
        ("list_directory", json!({})),
    ] {
        if let Err(hang) = call_within(&mut server, tool, args, prompt) {
            failures.push(format!("HANG: {hang}"));
        }
    }
    // Nothing was written into the FIFO a reader holds.
    let mut buffer = [0u8; 64];
    match std::io::Read::read(&mut &held, &mut buffer) {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => failures.push(format!("the held FIFO received data: {other:?} {buffer:?}")),
    }
    // Deleting one acts on the node itself.
    for name in &names {
        let response = call_raw(&mut server, "fs_delete", json!({"path": name}));
        if leaks(&response).is_some() {
            failures.push(format!("fs_delete {name}: {response}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(arena.inside("victim.txt"))
            .ok()
            .as_deref(),
        Some("victim line\n"),
        "no move replaced a special file"
    );
    still_answers(&mut server);
}

/// `OpenOptions` with `O_NONBLOCK`, so opening and reading the held FIFO never blocks the test.
trait NonBlocking {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

impl NonBlocking for std::fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
    }
}

// ---- names ----------------------------------------------------------------------------------------

#[test]
fn names_with_newlines_overrides_and_invalid_utf8_never_confuse_a_walk() {
    let arena = Arena::new();
    arena.put("root/nl\nroot2/x:1:secret.txt", "newline name\n");
    arena.put("root/rlo-\u{202E}txt.exe", "override name\n");
    // A file and a directory whose names are not UTF-8: no client can name them, so walks skip
    // them and nothing may show a lossy spelling that would alias another name.
    let bad_file = arena.root().join(OsStr::from_bytes(b"bad-\xff.txt"));
    std::fs::write(&bad_file, "INVALIDNAME content\n").expect("write");
    let bad_dir = arena.inside("holder").join(OsStr::from_bytes(b"dir-\xfe"));
    std::fs::create_dir_all(&bad_dir).expect("mkdir");
    std::fs::write(bad_dir.join("f.txt"), "INVALIDNAME nested\n").expect("write");
    arena.put("root/holder/ok.txt", "ok\n");
    let outside = arena.outside();
    let mut server = arena.serve(&["--tools", "ptc,fs", "--include", "**"]);
    let mut failures = Vec::new();
    let walks = [
        ("fs_list", json!({})),
        ("fs_list", json!({"path": "holder"})),
        ("list_directory", json!({})),
        ("list_directory", json!({"path": "holder"})),
        ("fs_glob", json!({"pattern": "*"})),
        ("fs_grep", json!({"pattern": "name"})),
        ("fs_grep", json!({"pattern": "INVALIDNAME"})),
        ("search_text", json!({"query": "name"})),
        ("search_text", json!({"query": "INVALIDNAME"})),
        ("search_files", json!({"query": "bad"})),
        ("search_files", json!({"query": "dir-"})),
        ("fs_stat", json!({"path": "bad-\u{FFFD}.txt"})),
        ("fs_read", json!({"path": "bad-\u{FFFD}.txt"})),
        ("fs_read", json!({"path": "bad-\\xff.txt"})),
    ];
    for (tool, args) in walks {
        let response = call_raw(&mut server, tool, args.clone());
        let text = response.to_string();
        // The call's own pattern echoed back is fine; the unnameable files' content is not, and
        // neither is a lossy spelling of their names the call did not send.
        for forbidden in ["INVALIDNAME content", "INVALIDNAME nested"] {
            if text.contains(forbidden) {
                failures.push(format!("{tool} {args} shows {forbidden:?}: {text}"));
            }
        }
        if text.contains('\u{FFFD}') && !args.to_string().contains('\u{FFFD}') {
            failures.push(format!("{tool} {args} shows a lossy name: {text}"));
        }
        if let Some(marker) = leaks(&response) {
            failures.push(format!("{tool} {args}: LEAK of {marker}"));
        }
    }
    // The odd but valid names are served exactly.
    for (path, content) in [
        ("nl\nroot2/x:1:secret.txt", "newline name\n"),
        ("rlo-\u{202E}txt.exe", "override name\n"),
    ] {
        let read = call_raw(&mut server, "fs_read", json!({"path": path}));
        if text_of(&read) != content {
            failures.push(format!("fs_read {path:?}: {read}"));
        }
        let written = call_raw(
            &mut server,
            "fs_write",
            json!({"path": format!("{path}.new"), "content": "w"}),
        );
        if is_refusal(&written) {
            failures.push(format!("fs_write {path:?}.new: {written}"));
        }
    }
    // A recursive delete of a tree holding an unnameable entry refuses and keeps it.
    let deleted = call_raw(
        &mut server,
        "fs_delete",
        json!({"path": "holder", "recursive": true}),
    );
    if !is_refusal(&deleted) {
        failures.push(format!("fs_delete holder: {}", text_of(&deleted)));
    }
    if !bad_dir.join("f.txt").exists() || !bad_file.exists() {
        failures.push("an entry with an invalid UTF-8 name was removed".to_owned());
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
    still_answers(&mut server);
}

// ---- depth ----------------------------------------------------------------------------------------

#[test]
fn three_hundred_levels_of_nesting_are_served_and_never_crash() {
    let arena = Arena::new();
    let chain = "a/".repeat(300);
    let dir = format!("deep/{chain}");
    arena.put(&format!("root/{dir}leaf.txt"), "deep leaf\n");
    let leaf = format!("{dir}leaf.txt");
    let outside = arena.outside();
    let mut failures = Vec::new();
    // Under the default --max-depth (64) a walk that deep is refused, and a refused recursive
    // delete removes nothing (no half-deleted tree).
    let mut server = arena.serve(&["--tools", "ptc,fs", "--include", "**"]);
    let deleted = call_raw(
        &mut server,
        "fs_delete",
        json!({"path": "deep", "recursive": true}),
    );
    if is_refusal(&deleted) && !arena.inside(&leaf).exists() {
        failures.push(format!(
            "a refused recursive delete ({}) removed part of the tree",
            text_of(&deleted)
        ));
    }
    if !arena.inside(&leaf).exists() {
        arena.put(&format!("root/{leaf}"), "deep leaf\n");
    }
    still_answers(&mut server);
    // With the limit raised, every operation works at depth 300.
    let mut server = arena.serve(&[
        "--tools",
        "ptc,fs",
        "--include",
        "**",
        "--max-depth",
        "1000",
    ]);
    // The leaf's path is 613 bytes: a valid path, read and written like any other.
    let read = call_raw(&mut server, "fs_read", json!({"path": leaf}));
    if text_of(&read) != "deep leaf\n" {
        failures.push(format!("fs_read leaf: {read}"));
    }
    let read = call_raw(&mut server, "read_text_file", json!({"path": leaf}));
    if read["result"]["structuredContent"]["items"][0]["text"] != "deep leaf\n" {
        failures.push(format!("read_text_file leaf: {read}"));
    }
    for (tool, args) in [
        ("fs_write", json!({"path": leaf, "content": "rewritten\n"})),
        ("fs_mkdir", json!({"path": format!("{dir}b")})),
        (
            "fs_edit",
            json!({"path": leaf, "old-string": "rewritten", "new-string": "edited"}),
        ),
        ("fs_stat", json!({"path": leaf})),
        ("fs_list", json!({"path": dir})),
        ("list_directory", json!({"path": dir.trim_end_matches('/')})),
    ] {
        let response = call_raw(&mut server, tool, args.clone());
        if is_refusal(&response) {
            failures.push(format!("{tool} at depth 300: {}", text_of(&response)));
        }
    }
    if std::fs::read_to_string(arena.inside(&leaf)).ok().as_deref() != Some("edited\n") {
        failures.push("the leaf was not rewritten and edited".to_owned());
    }
    // Walks over it answer (the depth limit cuts them short), never crash.
    for (tool, args) in [
        ("fs_grep", json!({"pattern": "edited"})),
        ("fs_glob", json!({"pattern": "leaf.txt"})),
        ("search_text", json!({"query": "edited"})),
        ("search_files", json!({"query": "leaf"})),
        ("fs_stat", json!({"path": "deep"})),
    ] {
        let response = call_raw(&mut server, tool, args);
        assert!(response.get("result").is_some() || response.get("error").is_some());
    }
    // Moved and deleted as a whole.
    let moved = call_raw(
        &mut server,
        "fs_move",
        json!({"from": "deep", "to": "deep2"}),
    );
    if is_refusal(&moved) {
        failures.push(format!("fs_move deep: {}", text_of(&moved)));
    }
    let deleted = call_raw(
        &mut server,
        "fs_delete",
        json!({"path": "deep2", "recursive": true}),
    );
    if is_refusal(&deleted) {
        failures.push(format!("fs_delete deep2: {}", text_of(&deleted)));
    }
    if arena.inside("deep2").exists() || arena.inside("deep").exists() {
        failures.push("the 300-level tree is still there".to_owned());
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
    still_answers(&mut server);
}

#[test]
fn a_server_keeps_answering_after_every_attack_on_one_connection() {
    // One connection sees the hostile table, a hostile line and a huge path in a row, and is
    // still usable: earlier refusals leave no state behind.
    let arena = Arena::new();
    let mut server: Server = arena.serve(&["--tools", "ptc,fs", "--include", "**"]);
    for (path, _) in hostile_paths(&arena).iter().take(20) {
        call_raw(&mut server, "fs_read", json!({"path": path}));
    }
    server.send_line("{\"jsonrpc\":\"2.0\",\"id\":\"junk\",\"method\":\"tools/call\",\"params\":");
    let junk = server.next_message();
    assert!(junk.get("error").is_some(), "{junk}");
    let huge = "a/".repeat(100_000);
    let response = call_raw(&mut server, "fs_read", json!({"path": huge}));
    assert!(is_refusal(&response), "a 200 KB path is refused");
    let read = call_raw(&mut server, "fs_read", json!({"path": "inside.txt"}));
    assert_eq!(text_of(&read), "inside line\n");
}
