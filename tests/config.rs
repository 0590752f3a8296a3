//! The config file (`--config FILE`): several roots in one process, each answering on its own
//! root; the server identity it sets; its errors (one stderr line naming the file and the key,
//! exit 64); relative roots; `--describe` for both forms.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::fs::fs_text;
use support::*;

/// The ptc tools in their published order.
const PTC_TOOLS: [&str; 5] = [
    "list_directory",
    "search_files",
    "search_text",
    "read_text_file",
    "write_text_file",
];
/// The fs base names that modify files.
const FS_MUTATORS: [&str; 6] = ["write", "edit", "mkdir", "move", "copy", "delete"];

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Writes `config` as `cfg.json` in its own temporary directory; returns the directory (keep
/// it alive) and the file's absolute path.
fn config_file(config: &Value) -> (Tree, String) {
    config_text(&serde_json::to_string_pretty(config).expect("serialize"))
}

/// [`config_file`] with the file's exact text.
fn config_text(text: &str) -> (Tree, String) {
    let dir = Tree::new().file("cfg.json", text);
    let path = path_str(&dir.join("cfg.json")).to_owned();
    (dir, path)
}

/// A root object serving everything under `tree` with these extra keys.
fn root(tree: &Tree, extra: Value) -> Value {
    let mut root = json!({"root": path_str(tree.path()), "include": ["**"]});
    for (key, value) in extra.as_object().expect("an object") {
        root[key] = value.clone();
    }
    root
}

/// The error `--config` gives for a file holding `text`, with the file's path replaced by `<file>`.
fn file_error(text: &str) -> String {
    let (_dir, path) = config_text(text);
    let message = config_error(&["--config", &path]);
    assert!(message.starts_with(&format!("{path}: ")), "{message}");
    message.replacen(&path, "<file>", 1)
}

fn serve(config: &Value) -> (Tree, Server) {
    let (dir, path) = config_file(config);
    let server = Server::start_args(&["--config", &path]);
    (dir, server)
}

fn tool_names(server: &mut Server) -> Vec<String> {
    server.result("tools/list", json!({}))["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("name").to_owned())
        .collect()
}

// ---- several roots ------------------------------------------------------------------------------

#[test]
fn a_ptc_root_and_a_read_only_fs_root_answer_each_on_its_own_root() {
    let notes = Tree::new().file("todo.md", "- milk\n");
    let docs = Tree::new().file("guide.md", "# Guide\n");
    let (_dir, mut server) = serve(&json!({"roots": [
        root(&notes, json!({"tools": ["ptc"]})),
        root(&docs, json!({"tools": ["fs"], "prefix": "docs", "read_only": true}))
    ]}));
    let names = tool_names(&mut server);
    assert_eq!(names[..5], PTC_TOOLS, "{names:?}");
    for name in &names[5..] {
        let base = name
            .strip_prefix("docs_")
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            !FS_MUTATORS.contains(&base),
            "read-only root publishes {name}"
        );
    }
    // The ptc tools work on the first root only.
    assert_eq!(server.names("."), ["todo.md"]);
    server.call(
        "write_text_file",
        json!({"path": "new.txt", "content": "written\n"}),
    );
    assert_eq!(notes.bytes("new.txt"), b"written\n");
    assert_eq!(docs.names("."), ["guide.md"]);
    // The fs tools work on the second root only.
    assert_eq!(
        fs_text(&mut server, "docs_read", json!({"path": "guide.md"})),
        "# Guide\n"
    );
    let refused = server.call_result("docs_read", json!({"path": "todo.md"}));
    assert_eq!(refused["isError"], true, "{refused}");
    server.close();
}

#[test]
fn two_fs_roots_publish_under_their_own_prefixes() {
    let notes = Tree::new().file("todo.md", "- milk\n");
    let docs = Tree::new().file("guide.md", "# Guide\n");
    let (_dir, mut server) = serve(&json!({"roots": [
        root(&notes, json!({"tools": ["fs"], "prefix": "notes"})),
        root(&docs, json!({"tools": ["fs"], "prefix": "docs", "read_only": true}))
    ]}));
    let names = tool_names(&mut server);
    let notes_bases: Vec<&str> = names
        .iter()
        .filter_map(|name| name.strip_prefix("notes_"))
        .collect();
    let docs_bases: Vec<&str> = names
        .iter()
        .filter_map(|name| name.strip_prefix("docs_"))
        .collect();
    assert_eq!(
        notes_bases.len() + docs_bases.len(),
        names.len(),
        "{names:?}"
    );
    // Publication order: every tool of the first root before any of the second.
    assert!(
        names[..notes_bases.len()]
            .iter()
            .all(|n| n.starts_with("notes_"))
    );
    let readers: Vec<&str> = notes_bases
        .iter()
        .copied()
        .filter(|base| !FS_MUTATORS.contains(base))
        .collect();
    assert_eq!(
        docs_bases, readers,
        "the read-only root drops exactly the mutators"
    );
    assert!(notes_bases.contains(&"write"), "{names:?}");
    assert_eq!(
        fs_text(&mut server, "notes_read", json!({"path": "todo.md"})),
        "- milk\n"
    );
    assert_eq!(
        fs_text(&mut server, "docs_read", json!({"path": "guide.md"})),
        "# Guide\n"
    );
    let refused = server.call_result("notes_read", json!({"path": "guide.md"}));
    assert_eq!(refused["isError"], true, "{refused}");
    server.close();
}

#[test]
fn each_root_keeps_its_own_limits_and_selection() {
    let one = Tree::new()
        .file("big.txt", "x".repeat(100))
        .file("small.txt", "x")
        .file("skip.log", "log\n");
    let two = Tree::new().file("big.txt", "x".repeat(100));
    let (_dir, mut server) = serve(&json!({"roots": [
        root(&one, json!({"exclude": ["*.log"], "limits": {"max_file_bytes": 10}})),
        root(&two, json!({"tools": ["fs"], "prefix": "two"}))
    ]}));
    assert_eq!(server.names("."), ["small.txt"]);
    assert_eq!(
        fs_text(&mut server, "two_read", json!({"path": "big.txt"})),
        "x".repeat(100)
    );
    server.close();
}

// ---- identity -----------------------------------------------------------------------------------

fn identity_config(tree: &Tree) -> Value {
    json!({
        "name": "workspace",
        "version": "1.2.3",
        "instructions": "Notes live here.",
        "roots": [root(tree, json!({}))]
    })
}

fn workspace_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "workspace", "version": "1.2.3"}})
}

#[test]
fn the_file_names_the_server_in_discover_and_every_modern_result() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (_dir, mut server) = serve(&identity_config(&tree));
    let discover = server.result("server/discover", json!({}));
    assert_eq!(discover["_meta"], workspace_info());
    assert_eq!(discover["instructions"], "Notes live here.");
    let list = server.result("tools/list", json!({}));
    assert_eq!(list["_meta"], workspace_info());
    let call = server.call_result("read_text_file", json!({"path": "a.txt"}));
    assert_eq!(call["_meta"], workspace_info());
    let refused = server.call_result("read_text_file", json!({"path": "missing.txt"}));
    assert_eq!(refused["_meta"], workspace_info());
    server.close();
}

#[test]
fn the_file_names_the_server_in_initialize() {
    let tree = Tree::new();
    let (_dir, mut server) = serve(&identity_config(&tree));
    let response = server.raw_line(
        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "fsmcp-tests", "version": "0"}}})
        .to_string(),
    );
    let result = &response["result"];
    assert_eq!(
        result["serverInfo"],
        json!({"name": "workspace", "version": "1.2.3"}),
        "{response}"
    );
    assert_eq!(result["instructions"], "Notes live here.");
    server.close();
}

#[test]
fn without_identity_keys_the_defaults_are_kept() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (_dir, mut server) = serve(&json!({"roots": [root(&tree, json!({}))]}));
    let discover = server.result("server/discover", json!({}));
    assert_eq!(discover["_meta"], server_info());
    let call = server.call_result("read_text_file", json!({"path": "a.txt"}));
    assert_eq!(call["_meta"], server_info());
    server.close();
}

#[test]
fn a_one_shot_call_carries_the_configured_identity() {
    let tree = Tree::new().file("a.txt", "alpha\n");
    let (_dir, path) = config_file(&identity_config(&tree));
    let (status, stdout, stderr) = run(&[
        "--config",
        &path,
        "--call",
        "read_text_file",
        r#"{"path":"a.txt"}"#,
    ]);
    assert_eq!(status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(result["_meta"], workspace_info());
}

#[test]
fn a_long_server_name_is_counted_in_the_result_ceiling() {
    let name = "n".repeat(6000);
    let tree = Tree::new().file("big.txt", format!("{}\n", "word ".repeat(40_000)));
    let (_dir, mut server) = serve(&json!({
        "name": name,
        "roots": [root(&tree, json!({"limits": {"max_read_bytes": 1048576}}))]
    }));
    let mut args = json!({"path": "big.txt"});
    let mut text = String::new();
    loop {
        let result = server.call_result("read_text_file", args.clone());
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            json!(name)
        );
        let size = serde_json::to_string(&result).expect("serialize").len();
        assert!(size <= 48_000, "a page of {size} bytes exceeds the ceiling");
        let page = structured("read_text_file", &args, &result);
        for item in page["items"].as_array().expect("items") {
            text.push_str(item["text"].as_str().expect("text"));
        }
        match page["next_cursor"].as_str() {
            Some(cursor) => args["cursor"] = json!(cursor),
            None => break,
        }
    }
    assert_eq!(text.as_bytes(), tree.bytes("big.txt"));
    server.close();
}

// ---- errors -------------------------------------------------------------------------------------

#[test]
fn unknown_keys_are_refused_where_they_stand() {
    let tree = Tree::new();
    let root = path_str(tree.path()).to_owned();
    let cases = [
        (json!({"rootz": []}), "<file>: unknown key 'rootz'"),
        (
            json!({"roots": [{"root": root, "inclde": ["**"]}]}),
            "<file>: roots[0]: unknown key 'inclde'",
        ),
        (
            json!({"roots": [{"root": root, "include": ["**"], "limits": {"max_file": 1}}]}),
            "<file>: roots[0].limits: unknown key 'max_file'",
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(file_error(&config.to_string()), expected, "{config}");
    }
}

#[test]
fn bad_values_name_their_key() {
    let tree = Tree::new();
    let root = path_str(tree.path()).to_owned();
    let good = json!({"root": root, "include": ["**"]});
    let with = |key: &str, value: Value| {
        let mut bad = good.clone();
        bad[key] = value;
        json!({"roots": [good.clone(), bad]})
    };
    let cases = [
        (
            with("limits", json!({"max_read_bytes": 3})),
            "<file>: roots[1].limits.max_read_bytes: must be an integer from 4 to 1048576",
        ),
        (
            with("limits", json!({"max_files": 0})),
            "<file>: roots[1].limits.max_files: must be an integer from 1 to 9007199254740991",
        ),
        (
            with("limits", json!({"max_result_bytes": "48000"})),
            "<file>: roots[1].limits.max_result_bytes: must be an integer from 48000 to 1048576",
        ),
        (
            with("limits", json!({"max_image_bytes": 33554433})),
            "<file>: roots[1].limits.max_image_bytes: must be an integer from 1 to 33554432",
        ),
        (
            with("include", json!([])),
            "<file>: roots[1].include: at least one pattern is required",
        ),
        (
            with("include", json!("**")),
            "<file>: roots[1].include: must be an array of strings",
        ),
        (
            with("tools", json!(["ptc", "all"])),
            r#"<file>: roots[1].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
        ),
        (
            with("prefix", json!("no spaces")),
            "<file>: roots[1].prefix: must be empty or a name of letters, digits, underscores or hyphens",
        ),
        (
            with("read_only", json!("yes")),
            "<file>: roots[1].read_only: must be true or false",
        ),
        (
            with("cursor_key_env", json!("1BAD")),
            "<file>: roots[1].cursor_key_env: must name an environment variable",
        ),
        (
            with("root", json!("")),
            "<file>: roots[1].root: must be a non-empty string",
        ),
        (
            json!({"roots": []}),
            "<file>: roots: at least one root is required",
        ),
        (
            json!({"roots": [good, 7]}),
            "<file>: roots[1]: must be an object",
        ),
        (
            json!({"name": "", "roots": []}),
            "<file>: name: must be a non-empty string",
        ),
        (
            json!({"version": 2, "roots": []}),
            "<file>: version: must be a non-empty string",
        ),
        (
            json!({"instructions": [], "roots": []}),
            "<file>: instructions: must be a string",
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(file_error(&config.to_string()), expected, "{config}");
    }
}

#[test]
fn a_missing_include_is_the_empty_include() {
    let tree = Tree::new();
    let config = json!({"roots": [{"root": path_str(tree.path())}]});
    assert_eq!(
        file_error(&config.to_string()),
        "<file>: roots[0].include: at least one pattern is required"
    );
    assert_eq!(
        file_error(r#"{"roots": [{"include": ["**"]}]}"#),
        "<file>: roots[0]: missing key 'root'"
    );
    assert_eq!(file_error("{}"), "<file>: missing key 'roots'");
}

#[test]
fn root_errors_reuse_the_flag_forms_sentences() {
    let tree = Tree::new()
        .file("file.txt", "x")
        .dir("dir")
        .symlink("link", "dir");
    for (name, message) in [
        ("missing", "root does not exist"),
        ("link", "root must not be a symbolic link"),
        ("file.txt", "root is not a directory"),
    ] {
        let config = json!({"roots": [
            {"root": path_str(&tree.join("dir")), "include": ["**"]},
            {"root": path_str(&tree.join(name)), "include": ["**"], "prefix": "x"}
        ]});
        assert_eq!(
            file_error(&config.to_string()),
            format!("<file>: roots[1].root: {message}"),
            "{name}"
        );
    }
}

#[test]
fn cursor_key_errors_name_the_root() {
    let tree = Tree::new();
    let var = "FSMCP_CONFIG_TEST_KEY";
    let (_dir, path) = config_file(&json!({"roots": [
        root(&tree, json!({"cursor_key_env": var}))
    ]}));
    assert_eq!(
        config_error_with_env(&["--config", &path], &[(var, "short")]),
        format!(
            "{path}: roots[0].cursor_key_env: cursor key environment variable is malformed or contains fewer than 32 bytes"
        )
    );
    assert_eq!(
        config_error_with_env(&["--config", &path], &[(var, "")]),
        format!(
            "{path}: roots[0].cursor_key_env: cursor key environment variable is missing, empty, or malformed"
        )
    );
    let (status, _, stderr) = run_with_env(&["--config", &path], &[(var, TEST_KEY)]);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn follow_symlinks_means_what_the_flag_means() {
    let tree = Tree::new()
        .file("a.txt", "alpha\n")
        .symlink("alias.txt", "a.txt");
    let root_dir = path_str(tree.path());
    let call = ["--call", "read_text_file", r#"{"path":"alias.txt"}"#];
    for follow in [false, true] {
        let mut flag_args = vec!["--root", root_dir, "--include", "**"];
        if follow {
            flag_args.push("--follow-symlinks");
        }
        flag_args.extend_from_slice(&call);
        let (flag_status, flag_stdout, flag_stderr) = run(&flag_args);
        let (_dir, path) =
            config_file(&json!({"roots": [root(&tree, json!({"follow_symlinks": follow}))]}));
        let mut file_args = vec!["--config", path.as_str()];
        file_args.extend_from_slice(&call);
        let (status, stdout, stderr) = run(&file_args);
        assert_eq!(status.code(), flag_status.code(), "{follow}: {stderr}");
        assert_eq!(stdout, flag_stdout, "{follow}");
        if flag_status.code() == Some(64) {
            // Link following refused at start-up: the file names the key instead of the flag.
            assert!(
                flag_stderr.starts_with("--follow-symlinks "),
                "{flag_stderr}"
            );
            assert!(
                stderr.starts_with(&format!("{path}: roots[0].follow_symlinks: ")),
                "{stderr}"
            );
        }
    }
}

#[test]
fn a_tool_name_published_twice_is_refused() {
    let one = Tree::new();
    let two = Tree::new();
    let config = json!({"roots": [
        root(&one, json!({"tools": ["ptc"]})),
        root(&two, json!({"tools": ["ptc"], "read_only": true}))
    ]});
    assert_eq!(
        file_error(&config.to_string()),
        "<file>: roots[1]: tool name 'list_directory' is already published by roots[0]; only one root can publish the ptc tools"
    );
    // Two fs roots under one prefix clash on their first fs tool.
    let config = json!({"roots": [
        root(&one, json!({"tools": ["fs"], "prefix": "docs"})),
        root(&two, json!({"tools": ["ptc"]})),
        root(&two, json!({"tools": ["fs"], "prefix": "docs"}))
    ]});
    let (_dir, path) = config_text(&config.to_string());
    let fs_tools = describe(&[
        "--root",
        path_str(one.path()),
        "--include",
        "**",
        "--tools",
        "fs",
        "--prefix",
        "docs",
    ]);
    assert_eq!(fs_tools[0]["name"], "docs_read");
    assert_eq!(
        config_error(&["--config", &path]),
        format!(
            "{path}: roots[2]: tool name 'docs_read' is already published by roots[0]; give this root another prefix"
        )
    );
}

#[test]
fn json_syntax_errors_give_the_position() {
    assert_eq!(
        file_error("{\n  \"roots\": [\n    {\"root\": \"a\",}\n  ]\n}\n"),
        "<file>: not valid JSON at line 3 column 18"
    );
    assert_eq!(file_error(""), "<file>: not valid JSON at line 1 column 0");
    assert_eq!(
        file_error(r#"{"roots": [], "roots": []}"#),
        "<file>: duplicate key 'roots' at line 1 column 21"
    );
    assert_eq!(file_error("[1]"), "<file>: must be a JSON object");
}

#[test]
fn an_unreadable_file_is_named_as_typed() {
    let dir = Tree::new().dir("sub");
    let missing = path_str(&dir.join("missing.json")).to_owned();
    assert_eq!(
        config_error(&["--config", &missing]),
        format!("{missing}: cannot be read")
    );
    let directory = path_str(&dir.join("sub")).to_owned();
    assert_eq!(
        config_error(&["--config", &directory]),
        format!("{directory}: cannot be read")
    );
    let (status, _, stderr) = run_in(dir.path(), &["--config", "sub/../nope.json"]);
    assert_eq!(status.code(), Some(64));
    assert_eq!(stderr, "sub/../nope.json: cannot be read\n");
}

#[test]
fn the_root_flags_cannot_join_a_config_file() {
    let tree = Tree::new();
    let (_dir, path) = config_file(&json!({"roots": [root(&tree, json!({}))]}));
    let root_dir = path_str(tree.path());
    for extra in [
        &["--root", root_dir][..],
        &["--include", "**"],
        &["--exclude", "x"],
        &["--no-default-exclude"],
        &["--tools", "fs"],
        &["--prefix", "p"],
        &["--read-only"],
        &["--follow-symlinks"],
        &["--cursor-key-env", "K"],
        &["--max-files", "5"],
        &["--max-result-bytes", "50000"],
    ] {
        let mut args = vec!["--config", path.as_str()];
        args.extend_from_slice(extra);
        assert_eq!(
            config_error(&args),
            format!(
                "--config cannot be combined with {}; put it in the config file",
                extra[0]
            )
        );
    }
    // The server-wide flags combine with it.
    let (status, _, stderr) = run(&[
        "--protocol",
        MODERN,
        "--config",
        &path,
        "--log-level",
        "error",
    ]);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

// ---- relative roots and warnings ----------------------------------------------------------------

#[test]
fn a_relative_root_is_resolved_against_the_files_directory() {
    let work = Tree::new()
        .file(
            "conf/cfg.json",
            r#"{"roots": [{"root": "data", "include": ["**"]}]}"#,
        )
        .file("conf/data/right.txt", "right\n")
        .file("data/wrong.txt", "wrong\n");
    let (status, stdout, stderr) = run_in(
        work.path(),
        &["--config", "conf/cfg.json", "--call", "list_directory"],
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(result["structuredContent"]["items"][0]["path"], "right.txt");
    assert_eq!(
        result["structuredContent"]["items"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    // Also from elsewhere, through an absolute path to the file.
    let elsewhere = Tree::new();
    let config = path_str(&work.join("conf/cfg.json")).to_owned();
    let (status, stdout, _) = run_in(
        elsewhere.path(),
        &["--config", &config, "--call", "list_directory"],
    );
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("right.txt") && !stdout.contains("wrong.txt"));
}

#[test]
fn warnings_name_the_root_they_concern() {
    let one = Tree::new();
    let two = Tree::new();
    let (_dir, path) = config_file(&json!({"roots": [
        {"root": path_str(one.path()), "include": ["lib/**"]},
        {"root": path_str(two.path()), "include": ["**", ".env"], "tools": ["fs"], "prefix": "b"}
    ]}));
    let mut server = Server::start_args(&["--config", &path]);
    server.result("tools/list", json!({}));
    let (_, stderr) = server.close();
    assert_eq!(
        stderr,
        "fsmcp: roots[0]: no --include pattern matches a file in the root itself, so write_text_file will refuse every call. Reads are unaffected. Add an --include glob with no directory prefix, such as '**', if this installation maps the write tool.\n\
         fsmcp: roots[1]: --include .env matches a built-in exclude, so nothing it names is served. Pass --no-default-exclude to drop the built-in list.\n"
    );
}

// ---- --describe ---------------------------------------------------------------------------------

/// Runs `--describe` and returns the parsed catalogue, checking it exits 0 with a quiet stderr.
fn describe(args: &[&str]) -> Vec<Value> {
    let mut args = args.to_vec();
    args.push("--describe");
    let (status, stdout, stderr) = run(&args);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert!(stdout.starts_with("[\n"), "pretty-printed: {stdout}");
    serde_json::from_str::<Value>(&stdout)
        .expect("JSON")
        .as_array()
        .expect("an array")
        .clone()
}

/// What `tools/list` says about each tool, cut to the fields `--describe` prints.
fn listed(server: &mut Server) -> Vec<Value> {
    server.result("tools/list", json!({}))["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| {
            let mut entry = serde_json::Map::new();
            for key in ["name", "title", "description", "inputSchema"] {
                if let Some(value) = tool.get(key) {
                    entry.insert(key.to_owned(), value.clone());
                }
            }
            Value::Object(entry)
        })
        .collect()
}

#[test]
fn describe_prints_the_flag_forms_catalogue() {
    let tree = Tree::new();
    let root_dir = path_str(tree.path());
    let catalogue = describe(&["--root", root_dir, "--include", "**"]);
    let names: Vec<&str> = catalogue
        .iter()
        .map(|tool| tool["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, PTC_TOOLS);
    for tool in &catalogue {
        assert_eq!(keys(tool), ["name", "title", "description", "inputSchema"]);
        assert_eq!(tool["inputSchema"]["type"], "object");
    }
    let mut server = Server::serving(&tree);
    assert_eq!(catalogue, listed(&mut server));
    server.close();
    let read_only = describe(&["--root", root_dir, "--include", "**", "--read-only"]);
    assert_eq!(read_only[..], catalogue[..4]);
}

#[test]
fn describe_prints_the_file_forms_catalogue() {
    let one = Tree::new();
    let two = Tree::new();
    let config = json!({"roots": [
        root(&one, json!({"tools": ["ptc"], "read_only": true})),
        root(&two, json!({"tools": ["fs"], "prefix": "two"}))
    ]});
    let (_dir, path) = config_file(&config);
    let catalogue = describe(&["--config", &path]);
    let names: Vec<&str> = catalogue
        .iter()
        .map(|tool| tool["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names[..4], PTC_TOOLS[..4]);
    assert!(
        names[4..].iter().all(|name| name.starts_with("two_")),
        "{names:?}"
    );
    let mut server = Server::start_args(&["--config", &path]);
    assert_eq!(catalogue, listed(&mut server));
    server.close();
}

#[test]
fn describe_serves_nothing() {
    let tree = Tree::new();
    let (_dir, path) = config_file(&json!({"roots": [root(&tree, json!({}))]}));
    // stdin stays open: the process must leave on its own, without reading a request.
    let mut server = Server::start_args(&["--config", &path, "--describe"]);
    let (status, stderr) = server.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn describe_refuses_a_bad_configuration_like_serving() {
    let (_dir, path) = config_text(r#"{"roots": [{"root": "a", "inclde": []}]}"#);
    assert_eq!(
        config_error(&["--config", &path, "--describe"]),
        format!("{path}: roots[0]: unknown key 'inclde'")
    );
    assert_eq!(
        config_error(&["--root", "/nonexistent-fsmcp-root", "--describe"]),
        "at least one --include pattern is required"
    );
}
