//! A read opens its target through one door: traced by `strace`, an `fs_read` and a
//! `read_text_file` of a file two directories down name that file in exactly one `openat2`,
//! with `RESOLVE_BENEATH`, from the descriptor the root was opened as, and in no plain
//! `openat`; with `--follow-symlinks` the path opened is the link-free one. Without `openat2`
//! (the user-space steps) both tools still read the file, and the start-up log names the doors
//! in force.
//!
//! Without `strace` (or where it may not trace) the traced tests say they were skipped; under
//! `CI=true` they fail instead, so CI never passes them without looking. Under an emulator
//! (`FSMCP_TEST_RUNNER`) they say so and skip too: strace would trace the emulator's system
//! calls, not the ones the binary asks for.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::collections::HashMap;
use std::process::Command;
use support::strace::{cannot_trace, strace_works};
use support::*;

/// The file's text; the name it is read by is [`NAME`] under `a/b`.
const TEXT: &str = "through one door";
const NAME: &str = "door.txt";
/// The two tools that read a file.
const TOOLS: [&str; 2] = ["fs_read", "read_text_file"];

/// `a/b/door.txt`, and the link `l -> a`.
fn tree() -> Tree {
    Tree::new()
        .file(&format!("a/b/{NAME}"), format!("{TEXT}\n"))
        .symlink("l", "a")
}

/// The arguments of one `--call` of `tool` reading `path`.
fn call_args(tree: &Tree, tool: &str, path: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "--root".to_owned(),
        tree.path()
            .to_str()
            .expect("a UTF-8 temporary path")
            .to_owned(),
        "--include".to_owned(),
        "**".to_owned(),
        "--tools".to_owned(),
        "ptc,fs".to_owned(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args.extend([
        "--call".to_owned(),
        tool.to_owned(),
        json!({ "path": path }).to_string(),
    ]);
    args
}

/// Fails unless the call succeeded and answered with the file's text.
fn assert_read(tool: &str, (status, stdout, stderr): &(std::process::ExitStatus, String, String)) {
    assert!(
        status.success() && stdout.contains(TEXT),
        "{tool} did not read the file ({status}):\n{stdout}\n{stderr}"
    );
}

/// One traced `openat` or `openat2`.
#[derive(Debug)]
struct Open {
    syscall: String,
    /// The first argument as strace prints it: a number, or `AT_FDCWD`.
    dirfd: String,
    path: String,
    result: i64,
    line: String,
}

/// The text of a C string as strace prints it, from its opening quote.
fn quoted(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    None
}

/// The call on one whole line (`PID name(args) = result`), if it is an open.
fn parse(line: &str) -> Option<Open> {
    let call = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let (syscall, args) = call.split_once('(')?;
    if syscall != "openat" && syscall != "openat2" {
        return None;
    }
    let (dirfd, rest) = args.split_once(", ")?;
    let result = call
        .rsplit_once(") = ")?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(Open {
        syscall: syscall.to_owned(),
        dirfd: dirfd.to_owned(),
        path: quoted(rest)?,
        result,
        line: line.to_owned(),
    })
}

/// Every open in a `strace -f` log, a call that another thread interrupted
/// (`<unfinished ...>`, then `<... name resumed>`) joined back into one line.
fn opens(log: &str) -> Vec<Open> {
    let mut unfinished: HashMap<String, String> = HashMap::new();
    let mut opens = Vec::new();
    for line in log.lines() {
        let pid: String = line.chars().take_while(char::is_ascii_digit).collect();
        if let Some(start) = line.strip_suffix(" <unfinished ...>") {
            unfinished.insert(pid, start.to_owned());
            continue;
        }
        let whole = match line.split_once(" resumed>") {
            Some((_, rest)) if line.contains("<... ") => match unfinished.remove(&pid) {
                Some(start) => format!("{start}{rest}"),
                None => continue,
            },
            _ => line.to_owned(),
        };
        opens.extend(parse(&whole));
    }
    opens
}

/// The opens of one `--call` of `tool` reading `path`, traced by strace, openat2 allowed.
fn traced(tree: &Tree, tool: &str, path: &str, extra: &[&str]) -> Vec<Open> {
    traced_call(tree, tool, path, extra, None).0
}

/// [`traced`], with strace answering the first `openat2` with `refused` (an errno name) when
/// given, and the server's stderr beside the opens.
fn traced_call(
    tree: &Tree,
    tool: &str,
    path: &str,
    extra: &[&str],
    refused: Option<&str>,
) -> (Vec<Open>, String) {
    let logs = tempfile::tempdir().expect("a directory for the trace");
    let log = logs.path().join("trace");
    let mut command = Command::new("strace");
    command.args(["-f", "-s", "4096", "-e", "trace=openat2,openat"]);
    if let Some(errno) = refused {
        command
            .arg("-e")
            .arg(format!("inject=openat2:error={errno}:when=1"));
    }
    command
        .arg("-o")
        .arg(&log)
        .args(fsmcp_argv())
        .args(call_args(tree, tool, path, extra))
        .env_remove("FSMCP_TEST_NO_OPENAT2")
        .env_remove("FSMCP_TEST_PORTABLE");
    let run = run_command(command);
    assert_read(tool, &run);
    let opens = opens(&std::fs::read_to_string(&log).expect("read the trace"));
    (opens, run.2)
}

/// One `--call` of `fs_read` of `a/b/door.txt` (logging at info) under strace, the first
/// `openat2` answered with `errno` by strace itself: the `openat2` calls (in order), the other
/// opens, and the server's stderr.
fn traced_refusing_openat2(errno: &str) -> (Vec<Open>, Vec<Open>, String) {
    let (opens, stderr) = traced_call(
        &tree(),
        "fs_read",
        &format!("a/b/{NAME}"),
        &["--log-level", "info"],
        Some(errno),
    );
    let (by_openat2, others) = opens.into_iter().partition(|o| o.syscall == "openat2");
    (by_openat2, others, stderr)
}

/// An `openat2` the kernel refuses for the call itself (`EPERM` from a seccomp filter, say)
/// once took the walk for every later open of the process, silently. Now only that open
/// walks: the next ones ask `openat2` again, and the file is still opened by it.
#[test]
fn a_refused_openat2_weakens_only_that_open() {
    if !strace_works("the one-openat2 reads are proven") {
        return;
    }
    let (by_openat2, _, _) = traced_refusing_openat2("EPERM");
    let lines: Vec<&str> = by_openat2.iter().map(|o| o.line.as_str()).collect();
    assert!(
        by_openat2.first().is_some_and(|o| o.line.contains("EPERM")),
        "the first openat2 is refused: {lines:#?}"
    );
    assert!(
        by_openat2
            .iter()
            .any(|o| o.path == format!("a/b/{NAME}") && o.result >= 0),
        "a later open asks openat2 again and opens the file by it: {lines:#?}"
    );
}

/// A kernel without `openat2` (`ENOSYS`) has none for good: every later open walks, and the
/// log says so before the start-up line that names the door.
#[test]
fn a_kernel_without_openat2_walks_from_then_on_and_says_so() {
    if !strace_works("the one-openat2 reads are proven") {
        return;
    }
    let (by_openat2, others, stderr) = traced_refusing_openat2("ENOSYS");
    let lines: Vec<&str> = by_openat2.iter().map(|o| o.line.as_str()).collect();
    assert_eq!(lines.len(), 1, "only the first open asks: {lines:#?}");
    assert!(
        others
            .iter()
            .any(|o| o.syscall == "openat" && o.path == NAME && o.result >= 0),
        "the file is opened by the walk"
    );
    let warned = stderr
        .lines()
        .position(|l| l.contains("WARN") && l.contains("this kernel has no openat2"));
    let door = stderr
        .lines()
        .position(|l| l.contains("door: one no-follow openat per component"));
    assert!(
        warned.is_some() && door.is_some() && warned < door,
        "a warning, then the door named: {stderr}"
    );
}

/// The opens that concern this test: the root's, and any naming something below it.
fn shown(opens: &[Open], root: &str) -> String {
    opens
        .iter()
        .filter(|o| o.path.starts_with(root) || !o.path.starts_with('/'))
        .map(|o| o.line.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Traces both tools reading `path` and checks each opened `expected` (the link-free path) by
/// exactly one `openat2` with `RESOLVE_BENEATH` from the root's descriptor, and by no `openat`.
/// Returns early, after saying so, when this kernel refuses `openat2`.
fn assert_one_openat2(path: &str, expected: &str, extra: &[&str]) {
    let tree = tree();
    let root = tree.path().to_str().expect("a UTF-8 temporary path");
    for tool in TOOLS {
        let opens = traced(&tree, tool, path, extra);
        let trace = shown(&opens, root);
        if opens.iter().any(|o| {
            o.syscall == "openat2" && (o.line.contains("ENOSYS") || o.line.contains("EPERM"))
        }) {
            cannot_trace(
                &format!("this kernel refuses openat2:\n{trace}"),
                "the one-openat2 reads are proven",
            );
            return;
        }
        let root_fds: Vec<String> = opens
            .iter()
            .filter(|o| o.syscall == "openat" && o.dirfd == "AT_FDCWD" && o.path == root)
            .filter(|o| o.result >= 0)
            .map(|o| o.result.to_string())
            .collect();
        assert!(
            !root_fds.is_empty(),
            "{tool}: the root {root} was never opened:\n{trace}"
        );
        let named: Vec<&Open> = opens.iter().filter(|o| o.path.contains(NAME)).collect();
        let by_openat2: Vec<&&Open> = named.iter().filter(|o| o.syscall == "openat2").collect();
        assert_eq!(
            by_openat2.len(),
            1,
            "{tool} {path}: {NAME} in one openat2, not {}:\n{trace}",
            by_openat2.len()
        );
        let door = by_openat2[0];
        assert!(
            door.line.contains("RESOLVE_BENEATH")
                && root_fds.contains(&door.dirfd)
                && door.path == expected
                && door.result >= 0,
            "{tool} {path}: {NAME} must be opened as {expected} from the root's descriptor \
             ({}) with RESOLVE_BENEATH:\n{trace}",
            root_fds.join(", ")
        );
        assert!(
            named.iter().all(|o| o.syscall != "openat"),
            "{tool} {path}: {NAME} was also opened by a plain openat:\n{trace}"
        );
    }
}

#[test]
fn both_reads_open_the_file_by_one_openat2_from_the_roots_descriptor() {
    if !strace_works("the one-openat2 reads are proven") {
        return;
    }
    let path = format!("a/b/{NAME}");
    assert_one_openat2(&path, &path, &[]);
}

#[test]
fn a_followed_link_opens_the_link_free_path_by_one_openat2() {
    if !strace_works("the one-openat2 reads are proven") {
        return;
    }
    let expected = format!("a/b/{NAME}");
    assert_one_openat2(&format!("l/b/{NAME}"), &expected, &["--follow-symlinks"]);
}

#[test]
fn without_openat2_both_reads_still_return_the_text() {
    let tree = tree();
    let path = format!("a/b/{NAME}");
    for tool in TOOLS {
        for (given, extra) in [
            (path.as_str(), &[][..]),
            (&format!("l/b/{NAME}"), &["--follow-symlinks"]),
        ] {
            let args = call_args(&tree, tool, given, extra);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_read(tool, &run_with_env(&args, &[("FSMCP_TEST_PORTABLE", "1")]));
        }
    }
}

/// The doors in force are named once in the log at start-up: openat2 where the kernel takes
/// it, the per-component steps (and the other fallbacks a non-Linux Unix takes) when forced.
#[test]
fn the_start_up_log_names_the_doors_in_force() {
    let tree = tree();
    let args = call_args(&tree, "fs_read", &format!("a/b/{NAME}"), &[]);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--log-level", "info"]);
    // Only debug builds read the switch; a binary built elsewhere is checked as it is.
    if binary() == std::path::Path::new(BIN) {
        let (status, out, err) = run_with_env(&args, &[("FSMCP_TEST_PORTABLE", "1")]);
        assert!(status.success(), "{err}");
        assert!(out.contains(TEXT), "{out}");
        let named: Vec<&str> = err.lines().filter(|l| l.contains("door: ")).collect();
        assert_eq!(named.len(), 1, "one line names the doors: {err}");
        assert!(
            named[0].contains(
                "door: one no-follow openat per component; watcher: none (walks are not \
                 remembered); copy: read/write; no-replace rename: renameat2(RENAME_NOREPLACE); \
                 sync: fsync"
            ),
            "{}",
            named[0]
        );
    } else {
        eprintln!("skipped: the forced fallbacks (FSMCP_TEST_PORTABLE is read by debug builds)");
    }
    let mut command = fsmcp_command();
    command
        .args(&args)
        .env_remove("FSMCP_TEST_NO_OPENAT2")
        .env_remove("FSMCP_TEST_PORTABLE");
    let (status, _, err) = run_command(command);
    assert!(status.success(), "{err}");
    let named: Vec<&str> = err.lines().filter(|l| l.contains("door: ")).collect();
    assert_eq!(named.len(), 1, "one line names the doors: {err}");
    // The kernel decides between the two doors; the rest is Linux's.
    assert!(
        named[0].contains("door: openat2 beneath the root; ")
            || named[0].contains("door: one no-follow openat per component; "),
        "{}",
        named[0]
    );
    assert!(
        named[0].contains("watcher: inotify; copy: copy_file_range; "),
        "{}",
        named[0]
    );
}

#[test]
fn the_trace_parser_joins_a_call_another_thread_interrupted() {
    let log = "\
7 openat(AT_FDCWD, \"/r\", O_RDONLY|O_DIRECTORY) = 3
9 openat2(3, \"a/b/door.txt\", {flags=O_RDONLY, resolve=RESOLVE_BENEATH}, 24 <unfinished ...>
8 openat(AT_FDCWD, \"/x \\\"y\\\"\", O_RDONLY) = -1 ENOENT (No such file or directory)
9 <... openat2 resumed>) = 12
+++ exited with 0 +++
";
    let opens = opens(log);
    let seen: Vec<(&str, &str, &str, i64)> = opens
        .iter()
        .map(|o| {
            (
                o.syscall.as_str(),
                o.dirfd.as_str(),
                o.path.as_str(),
                o.result,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("openat", "AT_FDCWD", "/r", 3),
            ("openat", "AT_FDCWD", "/x \"y\"", -1),
            ("openat2", "3", "a/b/door.txt", 12),
        ]
    );
    assert!(opens[2].line.contains("RESOLVE_BENEATH"));
}
