//! The walk's tests: what each command line parses to, which flag wins, and which refusal comes
//! first. The helpers here serve the tests of `flags` too.

use std::path::Path;

use super::*;
use crate::config::limits::{MAX_SAFE_INTEGER, NamedCeilings};
use crate::config::{Limits, ToolSelection};

fn argv(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|token| token.to_string()).collect()
}

fn parse(tokens: &[&str]) -> Result<Invocation, ConfigError> {
    parse_args(&argv(tokens))
}

pub(super) fn run(tokens: &[&str]) -> Options {
    match parse(tokens) {
        Ok(Invocation::Run(options)) => options,
        other => panic!("{tokens:?} gave {other:?}"),
    }
}

pub(super) fn error(tokens: &[&str]) -> String {
    match parse(tokens) {
        Err(err) => err.to_string(),
        other => panic!("{tokens:?} gave {other:?}"),
    }
}

#[test]
fn help_and_version_win_anywhere_before_validation() {
    let cases: &[(&[&str], Invocation)] = &[
        (&["--help"], Invocation::Help),
        (&["--version"], Invocation::Version),
        (&["x", "--help"], Invocation::Help),
        (&["--bogus", "--version"], Invocation::Version),
        (&["--max-files", "0", "--help"], Invocation::Help),
        // As a value it still counts, exactly like ptc-fs-mcp's `argv.includes`.
        (&["--root", "--help"], Invocation::Help),
        (&["--include", "--version"], Invocation::Version),
        // --help outranks --version whatever their order.
        (&["--version", "--help"], Invocation::Help),
        (&["--help", "--version"], Invocation::Help),
    ];
    for (tokens, expected) in cases {
        assert_eq!(parse(tokens).as_ref(), Ok(expected), "{tokens:?}");
    }
}

#[test]
fn config_replaces_the_root_flags() {
    let options = run(&["--config", "cfg.json"]);
    assert_eq!(options.config.as_deref(), Some("cfg.json"));
    assert_eq!(options.root.root, Path::new(""));
    assert!(!options.describe);
    // The server-wide flags combine with it, in any order.
    let options = run(&[
        "--describe",
        "--protocol",
        "2026-07-28",
        "--config",
        "c",
        "--log-level",
        "warn",
        "--call",
        "t",
    ]);
    assert!(options.describe);
    assert_eq!(options.protocol, ProtocolMode::Modern);
    assert_eq!(options.call.map(|c| c.tool).as_deref(), Some("t"));
    // Every root flag is refused next to it, the first one met named.
    let cases: &[&[&str]] = &[
        &["--root", "r"],
        &["--include", "**"],
        &["--exclude", "x"],
        &["--no-default-exclude"],
        &["--tools", "fs"],
        &["--prefix", "p"],
        &["--read-only"],
        &["--follow-symlinks"],
        &["--cursor-key-env", "K"],
        &["--max-files", "5"],
        &["--max-depth", "0"],
        &["--max-cursor-hash-bytes", "9"],
    ];
    for tokens in cases {
        let expected = format!(
            "--config cannot be combined with {}; put it in the config file",
            tokens[0]
        );
        let mut before = argv(tokens);
        before.extend(argv(&["--config", "c", "--read-only"]));
        assert_eq!(parse_args(&before).unwrap_err().to_string(), expected);
        let mut after = argv(&["--config", "c"]);
        after.extend(argv(tokens));
        assert_eq!(parse_args(&after).unwrap_err().to_string(), expected);
    }
    // Syntax errors met while walking still come first.
    assert_eq!(
        error(&["--config", "c", "--max-files", "0"]),
        "--max-files must be a positive integer"
    );
    assert_eq!(error(&["--config"]), "missing value for --config");
    assert_eq!(error(&["--config", ""]), "--config must name a file");
    // --describe is a switch in the flag form too.
    assert!(run(&["--root", "x", "--describe"]).describe);
    assert_eq!(error(&["--describe"]), "--root is required");
}

#[test]
fn defaults() {
    let options = run(&["--root", "."]);
    assert_eq!(
        options,
        Options {
            root: RootConfig {
                root: ".".into(),
                includes: vec![],
                excludes: vec![],
                default_excludes: true,
                limits: Limits::default(),
                cursor_key_env: None,
                tools: ToolSelection {
                    ptc: true,
                    fs: false
                },
                prefix: "fs".into(),
                read_only: false,
                follow_symlinks: false,
                respect_gitignore: false,
            },
            protocol: ProtocolMode::All,
            call: None,
            log_level: None,
            config: None,
            describe: false,
            http: None,
        }
    );
}

#[test]
fn http_flags() {
    let options = run(&[
        "--root",
        ".",
        "--http",
        "127.0.0.1:8080",
        "--auth-token-env",
        "TOKEN",
        "--allow-origin",
        "http://localhost:6274",
        "--allow-host",
        "fs.example.com",
    ]);
    let http = options.http.expect("http settings");
    assert_eq!(http.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(http.auth_token_env.as_deref(), Some("TOKEN"));
    assert_eq!(http.allow_origins, ["http://localhost:6274"]);
    assert_eq!(http.allow_hosts, ["fs.example.com"]);
    assert_eq!(
        error(&["--root", ".", "--allow-host", "a"]),
        "--allow-host needs --http"
    );
    assert_eq!(http.limits, HttpLimits::default());
    let limited = run(&[
        "--root",
        ".",
        "--http",
        "127.0.0.1:1",
        "--http-header-read-seconds",
        "3",
        "--http-idle-seconds",
        "4",
        "--http-max-connections",
        "5",
    ]);
    let limits = limited.http.expect("http settings").limits;
    assert_eq!(
        (
            limits.header_read_seconds,
            limits.idle_seconds,
            limits.max_connections
        ),
        (3, 4, Some(5))
    );
    assert_eq!(
        error(&["--root", ".", "--http-idle-seconds", "4"]),
        "--http-idle-seconds needs --http"
    );
    assert_eq!(
        error(&[
            "--root",
            ".",
            "--http",
            "127.0.0.1:1",
            "--http-max-connections",
            "0"
        ]),
        "--http-max-connections must be a positive integer"
    );
    assert_eq!(
        error(&[
            "--root",
            ".",
            "--http",
            "127.0.0.1:1",
            "--http-header-read-seconds",
            "3601"
        ]),
        "--http-header-read-seconds must be an integer from 1 to 3600"
    );
    assert_eq!(
        error(&["--root", ".", "--http", "127.0.0.1:1", "--call", "x"]),
        "--call cannot be combined with --http"
    );
    // Server-wide: combines with a config file.
    assert!(
        run(&["--config", "c.json", "--http", "127.0.0.1:1"])
            .http
            .is_some()
    );
}

#[test]
fn every_flag_lands_in_its_field() {
    let options = run(&[
        "--root",
        "/srv",
        "--include",
        "lib/**",
        "--exclude",
        "lib/private/**",
        "--include",
        "**",
        "--no-default-exclude",
        "--read-only",
        "--follow-symlinks",
        "--respect-gitignore",
        "--max-files",
        "1",
        "--max-directories",
        "2",
        "--max-depth",
        "3",
        "--max-entries",
        "4",
        "--max-scan-bytes",
        "16389",
        "--max-file-bytes",
        "6",
        "--max-read-bytes",
        "7",
        "--max-result-bytes",
        "48008",
        "--max-write-bytes",
        "9",
        "--max-cursor-hash-bytes",
        "9007199254740991",
        "--max-image-bytes",
        "12",
        "--copy-reserve-bytes",
        "0",
        "--cursor-key-env",
        "_KEY_1",
        "--tools",
        "fs,ptc",
        "--prefix",
        "",
        "--protocol",
        "2026-07-28",
        "--log-level",
        "debug",
        "--call",
        "read_text_file",
        r#"{"path":"a"}"#,
    ]);
    assert_eq!(options.root.root, Path::new("/srv"));
    assert_eq!(options.root.includes, ["lib/**", "**"]);
    assert_eq!(options.root.excludes, ["lib/private/**"]);
    assert!(!options.root.default_excludes);
    assert!(options.root.read_only);
    assert!(options.root.follow_symlinks);
    assert!(options.root.respect_gitignore);
    // With fsmcp's own flags given, ranges are checked here: these limits are in range.
    assert_eq!(
        options.root.limits,
        Limits {
            max_files: 1,
            max_directories: 2,
            max_depth: 3,
            max_entries: 4,
            max_scan_bytes: 16389,
            max_file_bytes: 6,
            max_read_bytes: 7,
            max_result_bytes: 48008,
            max_write_bytes: 9,
            max_cursor_hash_bytes: MAX_SAFE_INTEGER,
            max_call_seconds: 60,
            max_image_bytes: 12,
            copy_reserve_bytes: 0,
            named: NamedCeilings {
                files: true,
                directories: true,
                entries: true,
            },
        }
    );
    assert!(options.root.limits.is_valid());
    assert_eq!(options.root.cursor_key_env.as_deref(), Some("_KEY_1"));
    assert_eq!(
        options.root.tools,
        ToolSelection {
            ptc: true,
            fs: true
        }
    );
    assert_eq!(options.root.prefix, "");
    assert_eq!(options.protocol, ProtocolMode::Modern);
    assert_eq!(options.log_level.as_deref(), Some("debug"));
    assert_eq!(
        options.call,
        Some(OneShot {
            tool: "read_text_file".into(),
            arguments: r#"{"path":"a"}"#.into()
        })
    );
}

#[test]
fn values_are_taken_whatever_they_look_like() {
    let options = run(&[
        "--root",
        "--include",
        "--include",
        "--root",
        "--exclude",
        "-x",
    ]);
    assert_eq!(options.root.root, Path::new("--include"));
    assert_eq!(options.root.includes, ["--root"]);
    assert_eq!(options.root.excludes, ["-x"]);
    // A switch in value position is a value, not a switch.
    let options = run(&["--root", "--read-only"]);
    assert_eq!(options.root.root, Path::new("--read-only"));
    assert!(!options.root.read_only);
}

#[test]
fn ptc_flags_alone_leave_ranges_to_the_root_and_keep_arity_first() {
    let options = run(&[
        "--root",
        "r",
        "--max-read-bytes",
        "3",
        "--max-scan-bytes",
        "5",
    ]);
    assert_eq!(
        (
            options.root.limits.max_read_bytes,
            options.root.limits.max_scan_bytes
        ),
        (3, 5)
    );
    assert!(!options.root.limits.is_valid());
    assert_eq!(
        error(&["--root", "r", "--read_only"]),
        "missing value for --read_only"
    );
    assert_eq!(
        error(&["--root", "r", "--read_only", "x"]),
        "unknown option --read_only"
    );
}

#[test]
fn switches_take_no_value() {
    let options = run(&["--read-only", "--root", "x", "--no-default-exclude"]);
    assert!(options.root.read_only);
    assert!(!options.root.default_excludes);
    // `x` stands where a flag would, and is none (ptc-fs-mcp, which has no such switch, is
    // not the reference here).
    assert_eq!(error(&["--follow-symlinks", "x"]), "unknown option x");
}

#[test]
fn the_last_single_value_wins() {
    let options = run(&[
        "--root",
        "a",
        "--root",
        "b",
        "--max-files",
        "5",
        "--max-files",
        "7",
        "--tools",
        "fs",
        "--tools",
        "ptc",
        "--prefix",
        "x",
        "--prefix",
        "y",
        "--cursor-key-env",
        "A",
        "--cursor-key-env",
        "B",
    ]);
    assert_eq!(options.root.root, Path::new("b"));
    assert_eq!(options.root.limits.max_files, 7);
    assert_eq!(
        options.root.tools,
        ToolSelection {
            ptc: true,
            fs: false
        }
    );
    assert_eq!(options.root.prefix, "y");
    assert_eq!(options.root.cursor_key_env.as_deref(), Some("B"));
}

#[test]
fn call_takes_optional_json() {
    let cases: &[(&[&str], &str, &str, &[&str])] = &[
        (&["--call", "t"], "t", "{}", &[]),
        (&["--call", "t", "[1]"], "t", "[1]", &[]),
        (&["--call", "t", "--include", "**"], "t", "{}", &["**"]),
        (
            &["--call", "t", "{}", "--include", "**"],
            "t",
            "{}",
            &["**"],
        ),
        (&["--call", "t", "-x"], "t", "-x", &[]),
        (&["--call", "t", ""], "t", "", &[]),
        (&["--call", "--root", "x"], "--root", "x", &[]),
    ];
    for (tokens, tool, arguments, includes) in cases {
        let mut full = argv(&["--root", "r"]);
        full.extend(argv(tokens));
        let Ok(Invocation::Run(options)) = parse_args(&full) else {
            panic!("{tokens:?}");
        };
        let call = options.call.expect("a call");
        assert_eq!(
            (call.tool.as_str(), call.arguments.as_str()),
            (*tool, *arguments)
        );
        assert_eq!(options.root.includes, *includes, "{tokens:?}");
    }
    // With no JSON, the token after the tool is parsed as a flag again.
    assert_eq!(
        error(&["--root", "r", "--call", "t", "--bogus"]),
        "unknown option --bogus"
    );
}
