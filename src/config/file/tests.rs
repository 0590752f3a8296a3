//! The config file's tests: where each key lands, and the exact words of each refusal, in
//! document order.

use std::path::PathBuf;

use super::*;
use crate::config::Limits;
use crate::config::limits::NamedCeilings;

fn ok(text: &str) -> ServeConfig {
    parse("cfg.json", text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn error(text: &str) -> String {
    match parse("cfg.json", text.as_bytes()) {
        Err(error) => error.to_string(),
        Ok(config) => panic!("{text} gave {config:?}"),
    }
}

#[test]
fn a_minimal_root_takes_the_flag_defaults() {
    let config = ok(r#"{"roots": [{"root": "/srv/a", "include": ["**"]}]}"#);
    assert_eq!(config.identity, ServerIdentity::default());
    assert_eq!(config.source, Source::File("cfg.json".into()));
    assert_eq!(
        config.roots,
        [RootConfig {
            root: PathBuf::from("/srv/a"),
            includes: vec!["**".into()],
            ..RootConfig::default()
        }]
    );
}

#[test]
fn the_http_object() {
    let config = ok(r#"{"roots": [{"root": "a", "include": ["**"]}],
        "http": {"listen": "0.0.0.0:8080", "auth_token_env": "TOKEN",
                 "allow_origins": ["https://app.example.com"], "allow_hosts": ["fs.example.com"]}}"#);
    let http = config.http.expect("http settings");
    assert_eq!(http.listen.to_string(), "0.0.0.0:8080");
    assert_eq!(http.auth_token_env.as_deref(), Some("TOKEN"));
    assert_eq!(http.allow_origins, ["https://app.example.com"]);
    assert_eq!(http.allow_hosts, ["fs.example.com"]);
    let config = ok(r#"{"roots": [{"root": "a", "include": ["**"]}],
        "http": {"listen": "127.0.0.1:1", "header_read_seconds": 3, "idle_seconds": 4,
                 "max_connections": 5}}"#);
    let limits = config.http.expect("http settings").limits;
    assert_eq!(
        (
            limits.header_read_seconds,
            limits.idle_seconds,
            limits.max_connections
        ),
        (3, 4, Some(5))
    );
    let roots = r#""roots": [{"root": "a", "include": ["**"]}]"#;
    for (http, message) in [
        (r#"{}"#, "cfg.json: http: missing key 'listen'"),
        (
            r#"{"listen": "x"}"#,
            "cfg.json: http.listen: must be ADDRESS:PORT, e.g. 127.0.0.1:8080",
        ),
        (
            r#"{"listen": "127.0.0.1:1", "auth_token_env": "1x"}"#,
            "cfg.json: http.auth_token_env: must name an environment variable",
        ),
        (
            r#"{"listen": "127.0.0.1:1", "allow_origins": ["evil"]}"#,
            "cfg.json: http.allow_origins: each must be scheme://host[:port] (http or https) or null",
        ),
        (
            r#"{"listen": "127.0.0.1:1", "port": 1}"#,
            "cfg.json: http: unknown key 'port'",
        ),
        (r#"[]"#, "cfg.json: http: must be an object"),
        (
            r#"{"listen": "127.0.0.1:1", "max_connections": 0}"#,
            "cfg.json: http.max_connections: must be an integer from 1 to 65536",
        ),
        (
            r#"{"listen": "127.0.0.1:1", "idle_seconds": "5"}"#,
            "cfg.json: http.idle_seconds: must be an integer from 1 to 86400",
        ),
    ] {
        assert_eq!(
            error(&format!("{{{roots}, \"http\": {http}}}")),
            message,
            "{http}"
        );
    }
}

#[test]
fn every_key_lands_in_its_field() {
    let config = ok(r#"{
        "name": "workspace", "version": "1.0", "instructions": "",
        "roots": [
            {"root": "notes", "include": ["a/**", "b"], "exclude": ["x"], "default_exclude": false,
             "tools": ["fs", "ptc"], "prefix": "", "read_only": true, "follow_symlinks": true,
             "respect_gitignore": true,
             "cursor_key_env": "KEY",
             "limits": {"max_files": 1, "max_directories": 2, "max_depth": 0, "max_entries": 4,
                        "max_file_bytes": 5, "max_read_bytes": 6, "max_scan_bytes": 16384,
                        "max_result_bytes": 48000, "max_write_bytes": 9, "max_cursor_hash_bytes": 10,
                        "max_image_bytes": 11, "copy_reserve_bytes": 12}},
            {"root": "/abs", "include": ["**"], "tools": ["fs"], "prefix": "docs"}
        ]}"#);
    assert_eq!(
        config.identity,
        ServerIdentity {
            name: "workspace".into(),
            version: "1.0".into(),
            instructions: String::new(),
        }
    );
    assert_eq!(
        config.roots[0],
        RootConfig {
            root: PathBuf::from("notes"),
            includes: vec!["a/**".into(), "b".into()],
            excludes: vec!["x".into()],
            default_excludes: false,
            limits: Limits {
                max_files: 1,
                max_directories: 2,
                max_depth: 0,
                max_entries: 4,
                max_file_bytes: 5,
                max_read_bytes: 6,
                max_scan_bytes: 16384,
                max_result_bytes: 48000,
                max_write_bytes: 9,
                max_cursor_hash_bytes: 10,
                max_call_seconds: 60,
                max_image_bytes: 11,
                copy_reserve_bytes: 12,
                named: NamedCeilings {
                    files: true,
                    directories: true,
                    entries: true,
                },
            },
            cursor_key_env: Some("KEY".into()),
            tools: ToolSelection {
                ptc: true,
                fs: true
            },
            prefix: String::new(),
            read_only: true,
            follow_symlinks: true,
            respect_gitignore: true,
        }
    );
    assert_eq!(config.roots[1].prefix, "docs");
    assert_eq!(
        config.roots[1].tools,
        ToolSelection {
            ptc: false,
            fs: true
        }
    );
}

#[test]
fn a_relative_root_is_joined_to_the_files_directory() {
    let text = br#"{"roots": [{"root": "notes", "include": ["**"]}, {"root": "/abs", "include": ["**"]}]}"#;
    let roots = |path: &str| -> Vec<PathBuf> {
        parse(path, text)
            .expect("valid")
            .roots
            .into_iter()
            .map(|root| root.root)
            .collect()
    };
    assert_eq!(roots("cfg.json"), [PathBuf::from("notes"), "/abs".into()]);
    assert_eq!(
        roots("../etc/cfg.json"),
        [PathBuf::from("../etc/notes"), "/abs".into()]
    );
    assert_eq!(
        roots("/etc/fsmcp/cfg.json"),
        [PathBuf::from("/etc/fsmcp/notes"), "/abs".into()]
    );
}

#[test]
fn errors_name_the_file_and_the_key() {
    let root = r#""root": "a", "include": ["**"]"#;
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "cfg.json: not valid JSON at line 1 column 0"),
        (
            "{\n  \"roots\": [,]\n}".into(),
            "cfg.json: not valid JSON at line 2 column 13",
        ),
        (
            r#"{"roots": []} x"#.into(),
            "cfg.json: not valid JSON at line 1 column 15",
        ),
        ("[]".into(), "cfg.json: must be a JSON object"),
        ("{}".into(), "cfg.json: missing key 'roots'"),
        (r#"{"rootz": 1}"#.into(), "cfg.json: unknown key 'rootz'"),
        (r#"{"a\nb": 1}"#.into(), "cfg.json: unknown key 'a\\nb'"),
        (
            r#"{"roots": [], "roots": []}"#.into(),
            "cfg.json: duplicate key 'roots' at line 1 column 21",
        ),
        (
            r#"{"roots": {}}"#.into(),
            "cfg.json: roots: must be an array of root objects",
        ),
        (
            r#"{"roots": []}"#.into(),
            "cfg.json: roots: at least one root is required",
        ),
        (
            r#"{"roots": [1]}"#.into(),
            "cfg.json: roots[0]: must be an object",
        ),
        (
            r#"{"roots": [{"include": ["**"]}]}"#.into(),
            "cfg.json: roots[0]: missing key 'root'",
        ),
        (
            r#"{"roots": [{"root": ""}]}"#.into(),
            "cfg.json: roots[0].root: must be a non-empty string",
        ),
        (
            r#"{"roots": [{"root": 1}]}"#.into(),
            "cfg.json: roots[0].root: must be a non-empty string",
        ),
        (
            format!(r#"{{"roots": [{{{root}}}, {{"root": "b", "inclde": []}}]}}"#),
            "cfg.json: roots[1]: unknown key 'inclde'",
        ),
        (
            format!(r#"{{"roots": [{{{root}, "include": ["x"]}}]}}"#),
            "cfg.json: duplicate key 'include' at line 1 column 53",
        ),
        (
            r#"{"roots": [{"root": "a", "include": "**"}]}"#.into(),
            "cfg.json: roots[0].include: must be an array of strings",
        ),
        (
            r#"{"roots": [{"root": "a", "exclude": [1]}]}"#.into(),
            "cfg.json: roots[0].exclude: must be an array of strings",
        ),
        (
            r#"{"roots": [{"root": "a", "default_exclude": "no"}]}"#.into(),
            "cfg.json: roots[0].default_exclude: must be true or false",
        ),
        (
            r#"{"roots": [{"root": "a", "read_only": 1}]}"#.into(),
            "cfg.json: roots[0].read_only: must be true or false",
        ),
        (
            r#"{"roots": [{"root": "a", "follow_symlinks": null}]}"#.into(),
            "cfg.json: roots[0].follow_symlinks: must be true or false",
        ),
        (
            r#"{"roots": [{"root": "a", "respect_gitignore": "yes"}]}"#.into(),
            "cfg.json: roots[0].respect_gitignore: must be true or false",
        ),
        (
            r#"{"roots": [{"root": "a", "tools": "ptc"}]}"#.into(),
            r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
        ),
        (
            r#"{"roots": [{"root": "a", "tools": []}]}"#.into(),
            r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
        ),
        (
            r#"{"roots": [{"root": "a", "tools": ["fs", "fs"]}]}"#.into(),
            r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
        ),
        (
            r#"{"roots": [{"root": "a", "tools": ["all"]}]}"#.into(),
            r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
        ),
        (
            r#"{"roots": [{"root": "a", "prefix": "1x"}]}"#.into(),
            "cfg.json: roots[0].prefix: must be empty or a name of letters, digits, underscores or hyphens",
        ),
        (
            r#"{"roots": [{"root": "a", "prefix": null}]}"#.into(),
            "cfg.json: roots[0].prefix: must be empty or a name of letters, digits, underscores or hyphens",
        ),
        (
            r#"{"roots": [{"root": "a", "cursor_key_env": "A-B"}]}"#.into(),
            "cfg.json: roots[0].cursor_key_env: must name an environment variable",
        ),
        (
            r#"{"roots": [{"root": "a", "limits": []}]}"#.into(),
            "cfg.json: roots[0].limits: must be an object",
        ),
        (
            r#"{"roots": [{"root": "a", "limits": {"max_file": 1}}]}"#.into(),
            "cfg.json: roots[0].limits: unknown key 'max_file'",
        ),
        (
            r#"{"name": "", "roots": []}"#.into(),
            "cfg.json: name: must be a non-empty string",
        ),
        (
            r#"{"version": 1, "roots": []}"#.into(),
            "cfg.json: version: must be a non-empty string",
        ),
        (
            r#"{"instructions": null, "roots": []}"#.into(),
            "cfg.json: instructions: must be a string",
        ),
    ];
    for (text, expected) in &cases {
        assert_eq!(error(text), *expected, "{text}");
    }
}

#[test]
fn every_limit_is_checked_against_its_range() {
    let limit = |key: &str, value: &str| {
        format!(r#"{{"roots": [{{"root": "a", "limits": {{"{key}": {value}}}}}]}}"#)
    };
    for spec in super::super::limits::LIMIT_SPECS {
        let message = format!(
            "cfg.json: roots[0].limits.{}: must be an integer from {} to {}",
            spec.key, spec.min, spec.max
        );
        for value in [spec.min, spec.max] {
            let config = ok(&limit(spec.key, &value.to_string()));
            let mut expected = Limits::default();
            *expected.field_for_key(spec.key).expect("a key") = value;
            assert_eq!(config.roots[0].limits, expected);
        }
        let beyond = (spec.max + 1).to_string();
        let below = spec.min.wrapping_sub(1).to_string();
        for value in [
            &beyond,
            &below,
            "-1",
            "1.5",
            "1e3",
            "\"5\"",
            "null",
            "99999999999999999999999",
        ] {
            assert_eq!(
                error(&limit(spec.key, value)),
                message,
                "{} {value}",
                spec.key
            );
        }
    }
    assert_eq!(
        error(&limit("max_read_bytes", "3")),
        "cfg.json: roots[0].limits.max_read_bytes: must be an integer from 4 to 1048576"
    );
}

#[test]
fn the_first_problem_in_document_order_wins() {
    assert_eq!(
        error(r#"{"name": 1, "rootz": 2}"#),
        "cfg.json: name: must be a non-empty string"
    );
    assert_eq!(
        error(r#"{"roots": [{"root": "a", "bogus": 1, "read_only": 3}]}"#),
        "cfg.json: roots[0]: unknown key 'bogus'"
    );
    assert_eq!(
        error(r#"{"roots": [{"root": "a", "read_only": 3}], "bogus": 1}"#),
        "cfg.json: roots[0].read_only: must be true or false"
    );
}
