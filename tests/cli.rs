//! The command line: start-up errors (one stderr line, exit 64), `--help`/`--version`, and the
//! one-shot `--call` mode.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::*;

const KEY_VAR: &str = "FSMCP_CLI_TEST_CURSOR_KEY";
const UNSET_VAR: &str = "FSMCP_CLI_TEST_SURELY_UNSET_VARIABLE";

fn root_of(tree: &Tree) -> String {
    tree.path().to_str().expect("utf-8 root").to_owned()
}

/// `--root <tree> --include ** <extra…>`
fn serving_args<'a>(root: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--root", root, "--include", "**"];
    args.extend_from_slice(extra);
    args
}

/// Where a command line in a table of [`Refusals`] names the test's root: a directory holding
/// `file.txt`, `dir` and `link` (to `dir`). `<root>/missing` does not exist.
const ROOT: &str = "<root>";

/// Command lines the binary refuses at start-up, each with its one line of stderr.
type Refusals = &'static [(&'static [&'static str], &'static str)];

/// Runs each command line (after `prefix`, with [`ROOT`] filled in) and checks that it is
/// refused at start-up with exactly its message.
fn refused_after(prefix: &[&str], lines: Refusals) {
    let tree = Tree::new()
        .file("file.txt", "x")
        .dir("dir")
        .symlink("link", "dir");
    let root = root_of(&tree);
    each_case(
        lines,
        |(args, _)| format!("{args:?}"),
        |(args, message)| {
            let args: Vec<String> = prefix
                .iter()
                .chain(args.iter())
                .map(|arg| arg.replace(ROOT, &root))
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(config_error(&args), *message);
        },
    );
}

/// [`refused_after`] nothing.
fn refused(lines: Refusals) {
    refused_after(&[], lines);
}

/// [`refused_after`] `--root <root> --include '**'`.
fn refused_serving(lines: Refusals) {
    refused_after(&["--root", ROOT, "--include", "**"], lines);
}

#[test]
fn root_and_include_are_required() {
    refused(&[
        (
            &["--root", ROOT],
            "at least one --include pattern is required",
        ),
        (&["--include", "**"], "--root is required"),
        (&[], "--root is required"),
    ]);
}

#[test]
fn the_root_must_be_an_existing_real_directory() {
    refused(&[
        (
            &["--root", "<root>/missing", "--include", "**"],
            "root does not exist",
        ),
        (
            &["--root", "<root>/link", "--include", "**"],
            "root must not be a symbolic link",
        ),
        (
            &["--root", "<root>/file.txt", "--include", "**"],
            "root is not a directory",
        ),
    ]);
}

#[test]
fn a_flag_without_its_value_is_reported_before_an_unknown_flag() {
    refused(&[
        (&["--root"], "missing value for --root"),
        (
            &["--root", ROOT, "--include"],
            "missing value for --include",
        ),
        (
            &["--root", ROOT, "--include", "**", "--max-files"],
            "missing value for --max-files",
        ),
        (
            &["--root", ROOT, "--include", "**", "--bogus"],
            "missing value for --bogus",
        ),
        (
            &["--root", ROOT, "--include", "**", "--cursor-key-env"],
            "missing value for --cursor-key-env",
        ),
    ]);
}

#[test]
fn unknown_flags_and_positionals_are_refused() {
    refused(&[
        (
            &["--bogus", "x", "--root", ROOT, "--include", "**"],
            "unknown option --bogus",
        ),
        (
            &["stray", "x", "--root", ROOT, "--include", "**"],
            "unknown option stray",
        ),
        (
            &["--root", ROOT, "-i", "**", "--include", "**"],
            "unknown option -i",
        ),
    ]);
}

#[test]
fn with_an_fsmcp_flag_an_unknown_flag_is_unknown_wherever_it_stands() {
    // `--tools` is fsmcp's own: ptc-fs-mcp would refuse these lines at it, so no answer of its
    // binds them.
    refused_serving(&[
        (
            &["--tools", "fs", "--read_only"],
            "unknown option --read_only; did you mean --read-only?",
        ),
        (
            &["--tools", "fs", "--Follow-Symlinks"],
            "unknown option --Follow-Symlinks; did you mean --follow-symlinks?",
        ),
        (&["--tools", "fs", "--bogus"], "unknown option --bogus"),
        (&["--tools", "fs", "stray"], "unknown option stray"),
        (
            &["--max_files", "5", "--tools", "fs"],
            "unknown option --max_files; did you mean --max-files?",
        ),
        // A known flag without its value still says so.
        (
            &["--tools", "fs", "--include"],
            "missing value for --include",
        ),
        // Without one, ptc-fs-mcp's answers stay exactly its own.
        (&["--read_only"], "missing value for --read_only"),
        (&["--max_files", "5"], "unknown option --max_files"),
    ]);
}

#[test]
fn a_valueless_flag_may_come_last() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let (status, stdout, stderr) = run(&serving_args(&root, &["--no-default-exclude"]));
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!((stdout.as_str(), stderr.as_str()), ("", ""));
}

#[test]
fn every_numeric_flag_takes_a_positive_decimal_integer() {
    let flags = [
        "--max-files",
        "--max-directories",
        "--max-depth",
        "--max-entries",
        "--max-scan-bytes",
        "--max-file-bytes",
        "--max-read-bytes",
        "--max-result-bytes",
        "--max-write-bytes",
        "--max-cursor-hash-bytes",
    ];
    let tree = Tree::new();
    let root = root_of(&tree);
    for flag in flags {
        for value in ["-1", "01", "1.5", "abc", "", "+1", " 1", "1e3", "0x10"] {
            assert_eq!(
                config_error(&serving_args(&root, &[flag, value])),
                format!("{flag} must be a positive integer"),
                "{flag} {value:?}"
            );
        }
        if flag != "--max-depth" {
            assert_eq!(
                config_error(&serving_args(&root, &[flag, "0"])),
                format!("{flag} must be a positive integer"),
                "{flag} 0"
            );
        }
        assert_eq!(
            config_error(&serving_args(&root, &[flag, "9007199254740992"])),
            format!("{flag} is too large"),
            "{flag}"
        );
    }
}

#[test]
fn max_depth_accepts_zero_but_not_a_padded_zero() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let (status, _, stderr) = run(&serving_args(&root, &["--max-depth", "0"]));
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(
        config_error(&serving_args(&root, &["--max-depth", "00"])),
        "--max-depth must be a positive integer"
    );
}

#[test]
fn the_largest_safe_integer_is_accepted() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let (status, _, stderr) = run(&serving_args(&root, &["--max-files", "9007199254740991"]));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn limits_outside_their_ranges_are_not_valid() {
    let tree = Tree::new();
    let root = root_of(&tree);
    for (flag, value) in [
        ("--max-read-bytes", "3"),
        ("--max-read-bytes", "1048577"),
        ("--max-result-bytes", "47999"),
        ("--max-result-bytes", "1048577"),
        ("--max-scan-bytes", "16383"),
        ("--max-scan-bytes", "8192"),
    ] {
        assert_eq!(
            config_error(&serving_args(&root, &[flag, value])),
            "limits are not valid",
            "{flag} {value}"
        );
    }
    for (flag, value) in [
        ("--max-read-bytes", "4"),
        ("--max-read-bytes", "1048576"),
        ("--max-result-bytes", "48000"),
        ("--max-result-bytes", "1048576"),
        ("--max-scan-bytes", "16384"),
    ] {
        let (status, _, stderr) = run(&serving_args(&root, &[flag, value]));
        assert_eq!(status.code(), Some(0), "{flag} {value}: {stderr}");
    }
}

#[test]
fn with_an_fsmcp_flag_a_limit_outside_its_range_names_its_flag_and_range() {
    refused_serving(&[
        (
            &["--tools", "ptc,fs", "--max-read-bytes", "3"],
            "--max-read-bytes must be an integer from 4 to 1048576",
        ),
        (
            &["--max-result-bytes", "1048577", "--tools", "fs"],
            "--max-result-bytes must be an integer from 48000 to 1048576",
        ),
        (
            &["--read-only", "--max-scan-bytes", "16383"],
            "--max-scan-bytes must be an integer from 16384 to 9007199254740991",
        ),
        (
            &["--max-call-seconds", "86401"],
            "--max-call-seconds must be an integer from 1 to 86400",
        ),
        (
            &["--max-image-bytes", "33554433"],
            "--max-image-bytes must be an integer from 1 to 33554432",
        ),
        (
            &["--tools", "fs", "--max-image-bytes", "0"],
            "--max-image-bytes must be a positive integer",
        ),
        // The first one given is named.
        (
            &["--max-read-bytes", "3", "--max-call-seconds", "86401"],
            "--max-read-bytes must be an integer from 4 to 1048576",
        ),
    ]);
    // Found while the arguments are read: before the missing include and root are noticed.
    refused(&[(
        &[
            "--root",
            "<root>/missing",
            "--max-read-bytes",
            "3",
            "--tools",
            "fs",
        ],
        "--max-read-bytes must be an integer from 4 to 1048576",
    )]);
}

#[test]
fn the_cursor_key_variable_must_be_named_validly() {
    let tree = Tree::new();
    let root = root_of(&tree);
    for name in ["1BAD", "A-B", "has space", "$X"] {
        assert_eq!(
            config_error(&serving_args(&root, &["--cursor-key-env", name])),
            "--cursor-key-env must name an environment variable",
            "{name:?}"
        );
    }
}

#[test]
fn the_cursor_key_must_be_present_and_base64url() {
    let tree = Tree::new();
    let root = root_of(&tree);
    assert_eq!(
        config_error(&serving_args(&root, &["--cursor-key-env", UNSET_VAR])),
        "cursor key environment variable is missing, empty, or malformed"
    );
    for value in ["", "has space", &format!("{TEST_KEY}="), "abc+def/ghi"] {
        let stderr = config_error_with_env(
            &serving_args(&root, &["--cursor-key-env", KEY_VAR]),
            &[(KEY_VAR, value)],
        );
        assert_eq!(
            stderr, "cursor key environment variable is missing, empty, or malformed",
            "{value:?}"
        );
    }
}

#[test]
fn the_cursor_key_must_be_canonical_and_at_least_32_bytes() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let short = b64url([7u8; 31]);
    let non_canonical = format!("{}d", &TEST_KEY[..TEST_KEY.len() - 1]);
    for value in [short.as_str(), non_canonical.as_str(), "A"] {
        let stderr = config_error_with_env(
            &serving_args(&root, &["--cursor-key-env", KEY_VAR]),
            &[(KEY_VAR, value)],
        );
        assert_eq!(
            stderr, "cursor key environment variable is malformed or contains fewer than 32 bytes",
            "{value:?}"
        );
        assert!(!stderr.contains(value));
    }
}

#[test]
fn a_valid_cursor_key_starts_the_server() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let long_key = b64url([9u8; 64]);
    for key in [TEST_KEY, long_key.as_str()] {
        let (status, stdout, stderr) = run_with_env(
            &serving_args(&root, &["--cursor-key-env", KEY_VAR]),
            &[(KEY_VAR, key)],
        );
        assert_eq!(status.code(), Some(0), "{stderr}");
        assert!(!stdout.contains(key) && !stderr.contains(key));
    }
}

#[test]
fn checks_run_in_order_arguments_limits_root_key() {
    refused(&[
        (
            &[
                "--root",
                "<root>/missing",
                "--include",
                "**",
                "--bogus",
                "x",
            ],
            "unknown option --bogus",
        ),
        (
            &["--root", "<root>/missing", "--max-files", "0"],
            "--max-files must be a positive integer",
        ),
        (
            &[
                "--root",
                "<root>/missing",
                "--include",
                "**",
                "--max-read-bytes",
                "3",
            ],
            "limits are not valid",
        ),
        (
            &[
                "--root",
                "<root>/missing",
                "--include",
                "**",
                "--cursor-key-env",
                UNSET_VAR,
            ],
            "root does not exist",
        ),
        (
            &[
                "--root",
                ROOT,
                "--include",
                "**",
                "--max-read-bytes",
                "3",
                "--cursor-key-env",
                UNSET_VAR,
            ],
            "limits are not valid",
        ),
    ]);
}

#[test]
fn an_unknown_protocol_mode_is_a_configuration_error() {
    let tree = Tree::new();
    let root = root_of(&tree);
    config_error(&serving_args(&root, &["--protocol", "1999-01-01"]));
}

#[test]
fn help_wins_anywhere_and_exits_zero() {
    let tree = Tree::new();
    let missing = tree.join("missing");
    let missing = missing.to_str().expect("utf-8");
    for args in [
        vec!["--help"],
        vec!["--bogus", "x", "--help"],
        vec!["--root", missing, "--max-files", "0", "--help"],
        vec!["--help", "--root"],
    ] {
        let (status, stdout, stderr) = run(&args);
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        let usage = stdout.find("Usage:").expect("a Usage: section");
        assert!(
            stdout[usage + "Usage:".len()..]
                .trim_start()
                .starts_with("fsmcp"),
            "{stdout}"
        );
    }
}

#[test]
fn version_prints_the_crate_version_and_exits_zero() {
    for args in [
        vec!["--version"],
        vec!["--root", "/nonexistent", "--version"],
    ] {
        let (status, stdout, _) = run(&args);
        assert_eq!(status.code(), Some(0), "{args:?}");
        assert_eq!(stdout, format!("{VERSION}\n"));
    }
}

#[test]
fn a_relative_root_is_resolved_against_the_working_directory() {
    let tree = Tree::new().file("sub/a.txt", "a\n");
    for root in [".", "./", "sub/..", "sub"] {
        let (status, stdout, stderr) = run_in(
            tree.path(),
            &[
                "--root",
                root,
                "--include",
                "**",
                "--call",
                "search_files",
                r#"{"query":"a.txt"}"#,
            ],
        );
        assert_eq!(status.code(), Some(0), "{root}: {stderr}");
        let result: Value = serde_json::from_str(&stdout).expect("one JSON result");
        let expected = if root == "sub" { "a.txt" } else { "sub/a.txt" };
        assert_eq!(
            result["structuredContent"]["items"],
            json!([{"path": expected}]),
            "{root}"
        );
    }
}

// ---- one-shot --call ------------------------------------------------------------------------

fn one_shot(tree: &Tree, tool: &str, args: &str) -> (i32, Value, String) {
    let root = root_of(tree);
    let (status, stdout, stderr) = run(&["--root", &root, "--include", "**", "--call", tool, args]);
    let result = serde_json::from_str(stdout.trim_end()).unwrap_or_else(|e| {
        panic!("--call {tool} printed no JSON result ({e}): {stdout:?}, stderr {stderr:?}")
    });
    (status.code().expect("exit code"), result, stderr)
}

#[test]
fn call_prints_the_tool_result_and_exits_zero() {
    let tree = Tree::new()
        .file("lib/a.txt", "alpha\n")
        .file("b.txt", "b\n");
    let (code, result, stderr) = one_shot(&tree, "list_directory", "{}");
    assert_eq!(code, 0, "{stderr}");
    let page = structured("list_directory", &json!({}), &result);
    assert_eq!(
        page["items"],
        json!([{"name": "b.txt", "kind": "file", "path": "b.txt"},
               {"name": "lib", "kind": "directory", "path": "lib"}])
    );
    assert_eq!(page["next_cursor"], Value::Null);
}

#[test]
fn call_reads_and_writes_like_tools_call() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (code, result, _) = one_shot(&tree, "read_text_file", r#"{"path":"a.txt"}"#);
    assert_eq!(code, 0);
    assert_eq!(
        structured("read_text_file", &json!({}), &result)["items"],
        json!([{"byte_offset": 0, "text": "alpha\n"}])
    );
    let (code, result, _) = one_shot(
        &tree,
        "write_text_file",
        r#"{"path":"new.txt","content":"fresh\n"}"#,
    );
    assert_eq!(code, 0);
    assert_eq!(
        structured("write_text_file", &json!({}), &result),
        json!({"path": "new.txt", "bytes": 6, "content_hash": content_hash("fresh\n")})
    );
    assert_eq!(tree.bytes("new.txt"), b"fresh\n");
}

#[test]
fn a_failing_call_prints_the_error_result_and_exits_non_zero() {
    let tree = Tree::new();
    let (code, result, _) = one_shot(&tree, "read_text_file", r#"{"path":"missing.txt"}"#);
    assert_ne!(code, 0);
    assert_eq!(
        error_text("read_text_file", &json!({}), &result),
        "path is not a readable regular file"
    );
}

#[test]
fn calling_an_unknown_tool_exits_non_zero() {
    let tree = Tree::new();
    let root = root_of(&tree);
    let (status, _, _) = run(&[
        "--root",
        &root,
        "--include",
        "**",
        "--call",
        "delete_everything",
        "{}",
    ]);
    assert_ne!(status.code(), Some(0));
}

#[test]
fn call_refuses_arguments_that_repeat_a_key() {
    let tree = Tree::new().file("a.txt", "alpha\n").file("b.txt", "beta\n");
    let root = root_of(&tree);
    let (status, stdout, stderr) = run(&[
        "--root",
        &root,
        "--include",
        "**",
        "--call",
        "read_text_file",
        r#"{"path":"a.txt","path":"b.txt"}"#,
    ]);
    assert_ne!(status.code(), Some(0));
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains(
            "--call arguments: duplicate key 'path' at line 1 column 22; send each key once"
        ),
        "{stderr}"
    );
}

/// Runs the binary with its stdout (and, with `stderr_too`, its stderr) a pipe whose reader is
/// already gone, as `fsmcp … | true` does.
fn run_into_closed_pipe(args: &[&str], stderr_too: bool) -> (std::process::ExitStatus, String) {
    use std::process::Stdio;
    let mut command = fsmcp_command();
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    command.stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn fsmcp");
    // Close the read ends before the child writes: every write then fails with EPIPE.
    drop(child.stdout.take());
    let stderr = if stderr_too {
        drop(child.stderr.take());
        String::new()
    } else {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut text).unwrap();
        text
    };
    (child.wait().expect("wait"), stderr)
}

#[test]
fn a_reader_that_goes_away_ends_fsmcp_quietly() {
    let tree = Tree::new().file("big.txt", "line\n".repeat(20_000));
    let root = root_of(&tree);
    let mut found = serving_args(&root, &["--tools", "fs", "--call", "fs_read"]);
    let mut missing = found.clone();
    found.push(r#"{"path":"big.txt"}"#);
    missing.push(r#"{"path":"none.txt"}"#);
    for (args, code) in [
        (vec!["--help"], 0),
        (vec!["--version"], 0),
        (found, 0),
        (missing, 1),
    ] {
        let (status, stderr) = run_into_closed_pipe(&args, false);
        assert_eq!(status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("internal error"), "{args:?}: {stderr}");
        let (status, _) = run_into_closed_pipe(&args, true);
        assert_eq!(status.code(), Some(code), "{args:?} with stderr closed too");
    }
}

/// Globs too many to compile together once passed start-up and failed every call afterwards
/// ("internal error"); they are refused when the root opens, naming the option.
#[test]
fn globs_too_many_to_compile_are_refused_at_start_up() {
    let tree = Tree::new().file("a.txt", "a\n");
    let root = root_of(&tree);
    let excludes: Vec<String> = (0..20_000).map(|i| format!("**/d{i}/**/*.rs")).collect();
    let mut args = serving_args(&root, &["--tools", "fs"]);
    for exclude in &excludes {
        args.extend(["--exclude", exclude.as_str()]);
    }
    args.extend(["--call", "fs_read", r#"{"path":"a.txt"}"#]);
    assert_eq!(
        config_error(&args),
        "the 20000 --exclude patterns are too many or too large to compile together (more than 64 MiB); use fewer or simpler ones"
    );
    // A few thousand are fine.
    let mut args = serving_args(&root, &["--tools", "fs"]);
    for exclude in &excludes[..2_000] {
        args.extend(["--exclude", exclude.as_str()]);
    }
    args.extend(["--call", "fs_read", r#"{"path":"a.txt"}"#]);
    let (status, stdout, stderr) = run(&args);
    assert!(
        status.success() && stdout.contains("a\\n"),
        "{stdout}{stderr}"
    );
}
