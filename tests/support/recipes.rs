//! The repository's own recipes as the documentation and packaging tests read them.
//!
//! The files: [`repo_file`] reads one (failing the test when it is missing), [`repo_has`] asks
//! whether it exists, [`toml_string`] reads a plain `key = "value"` of a TOML section and
//! [`cargo_package`] / [`cargo_version`] Cargo.toml's `[package]`, the one place a release's
//! version is written; [`server_json`] and [`package`] the MCP registry entry; [`npm_packages`] and
//! [`npm_manifest`] the npm packages under `packaging/npm`.
//!
//! The command lines: [`shell_words`] splits a line as `sh` would (one list of words a pipeline
//! stage; [`command_words`] for a line that must be one command). [`json_blocks`] gives every
//! `json` block of a page and [`launches`] every host configuration (`command`, `args`, `env`)
//! inside one. [`starts_and_lists`] starts the binary with exactly an argv and an environment,
//! as a host does, and checks that it initializes and lists the tools its `--tools` publishes;
//! [`host_config_starts`] does that for a page's configuration of `/opt/fsmcp/bin/fsmcp`, with
//! a fresh root in place of the page's example roots ([`with_root`]), and [`host_configs_start`]
//! for every one on a page.
//!
//! The image: [`dockerfile`] reads the Dockerfile's instructions, [`runtime_stage`] and
//! [`exec_form`] its shipped stage's ENTRYPOINT and CMD, and [`image_argv`] turns the arguments
//! after the image's name into the argv of the fsmcp the image runs; [`DockerRun`] reads a
//! `docker run … IMAGE ARGS` line and gives that argv with [`DockerRun::argv`].
//!
//! ```ignore
//! let run = DockerRun::parse(&command_words(r#"docker run -i --rm -v "$PWD:/w" ghcr.io/fsmcp/fsmcp"#));
//! starts_and_lists(&run.unwrap().argv(tree.path().to_str().unwrap()), &[], "the README");
//! ```

use super::{LEGACY, Server, TEST_KEY, Tree, fsmcp_command, run_command};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository root.
pub const REPO: &str = env!("CARGO_MANIFEST_DIR");
/// The registry name of the server (the MCP registry's, npm's `mcpName`, the README's line).
pub const SERVER_NAME: &str = "io.github.fsmcp/fsmcp";
/// The container image.
pub const IMAGE: &str = "ghcr.io/fsmcp/fsmcp";
/// Where the image serves from; each command line gets a fresh root in its place.
pub const WORKSPACE: &str = "/workspace";
/// Where the pages' host configurations say the binary is.
pub const BIN_PLACEHOLDER: &str = "/opt/fsmcp/bin/fsmcp";
/// The places the pages' macOS and Windows configurations name the binary by (where
/// `uv tool install` puts it); each stands for the built binary as [`BIN_PLACEHOLDER`] does.
pub const OTHER_BIN_PLACEHOLDERS: [&str; 2] = [
    "/Users/me/.local/bin/fsmcp",
    r"C:\Users\me\.local\bin\fsmcp.exe",
];

// ---------------------------------------------------------------------------------------------
// The repository's files
// ---------------------------------------------------------------------------------------------

/// The repository root as a path.
pub fn repo() -> PathBuf {
    PathBuf::from(REPO)
}

/// The text of a file of the repository.
pub fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// Whether the repository holds `rel`.
pub fn repo_has(rel: &str) -> bool {
    repo().join(rel).exists()
}

/// `key = "value"` in the `[section]` of a TOML file (only the plain one-line form the
/// manifests here use).
pub fn toml_string(text: &str, section: &str, key: &str) -> Option<String> {
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == format!("[{section}]");
            continue;
        }
        if !inside {
            continue;
        }
        if let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return v
                .trim()
                .strip_prefix('"')?
                .strip_suffix('"')
                .map(str::to_owned);
        }
    }
    None
}

/// A string of Cargo.toml's `[package]`.
pub fn cargo_package(key: &str) -> String {
    toml_string(&repo_file("Cargo.toml"), "package", key)
        .unwrap_or_else(|| panic!("Cargo.toml [package] has no {key}"))
}

/// Cargo.toml's `version`: the one place a release's version is written.
pub fn cargo_version() -> String {
    cargo_package("version")
}

/// `server.json`, the MCP registry entry.
pub fn server_json() -> Value {
    serde_json::from_str(&repo_file("server.json"))
        .unwrap_or_else(|e| panic!("server.json is not JSON: {e}"))
}

/// The one package of `server` published to `registry` (`pypi`, `npm`, `oci`).
pub fn package<'a>(server: &'a Value, registry: &str) -> &'a Value {
    let found: Vec<&Value> = server["packages"]
        .as_array()
        .expect("server.json packages is an array")
        .iter()
        .filter(|p| p["registryType"] == registry)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "server.json lists {registry} {} times",
        found.len()
    );
    found[0]
}

/// The package directories under `packaging/npm`.
pub fn npm_packages() -> BTreeSet<String> {
    std::fs::read_dir(repo().join("packaging/npm"))
        .expect("packaging/npm")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect()
}

/// `packaging/npm/<dir>/package.json`.
pub fn npm_manifest(dir: &str) -> Value {
    let rel = format!("packaging/npm/{dir}/package.json");
    serde_json::from_str(&repo_file(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Command lines and host configurations
// ---------------------------------------------------------------------------------------------

/// A shell line split into the words of each pipeline stage, as `sh` would split them (single
/// and double quotes, backslashes); `$` is left as written, as no checked line expands anything.
pub fn shell_words(line: &str) -> Vec<Vec<String>> {
    let mut stages = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let mut closed = true;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                closed = false;
                for c in chars.by_ref() {
                    if c == '\'' {
                        closed = true;
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                closed = false;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\\' => match chars.next() {
                            Some(n @ ('"' | '\\' | '$' | '`')) => word.push(n),
                            Some(n) => {
                                word.push('\\');
                                word.push(n);
                            }
                            None => {}
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            '|' => {
                if in_word {
                    stages.last_mut().unwrap().push(std::mem::take(&mut word));
                    in_word = false;
                }
                stages.push(Vec::new());
            }
            c if c.is_whitespace() => {
                if in_word {
                    stages.last_mut().unwrap().push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    assert!(closed, "unbalanced quote in {line:?}");
    if in_word {
        stages.last_mut().unwrap().push(word);
    }
    stages
}

/// The words of a line that must be one command (no pipeline).
pub fn command_words(line: &str) -> Vec<String> {
    let mut stages = shell_words(line);
    assert_eq!(stages.len(), 1, "{line:?} is a pipeline, not one command");
    stages.remove(0)
}

/// Every ```` ```json ```` block of a page of the repository, parsed, with where it starts
/// (`page:line`).
pub fn json_blocks(rel: &str) -> Vec<(String, Value)> {
    let text = repo_file(rel);
    let mut blocks = Vec::new();
    // The open block: whether it is JSON, the line of its fence, and its lines so far.
    let mut open: Option<(bool, usize, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (open.take(), fence) {
            (None, Some(info)) => open = Some((info.trim() == "json", n + 1, Vec::new())),
            (None, None) => {}
            (Some((json, at, body)), Some(_)) => {
                if json {
                    let value = serde_json::from_str(&body.join("\n"))
                        .unwrap_or_else(|e| panic!("{rel}:{at}: JSON does not parse: {e}"));
                    blocks.push((format!("{rel}:{at}"), value));
                }
            }
            (Some((json, at, mut body)), None) => {
                body.push(line);
                open = Some((json, at, body));
            }
        }
    }
    assert!(open.is_none(), "{rel}: a fenced block is never closed");
    blocks
}

/// A host's way to start a server: its command, arguments and environment, and where it was.
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub at: String,
}

/// Every object in `value` (found at `at`) with a string `command`, which must have an array
/// of string `args`; its `env` too.
pub fn launches(value: &Value, at: &str) -> Vec<Launch> {
    let mut out = Vec::new();
    walk_launches(value, at, &mut out);
    out
}

fn walk_launches(value: &Value, at: &str, out: &mut Vec<Launch>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(command)) = map.get("command") {
                let args = map["args"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{at}: command {command} has no args array"))
                    .iter()
                    .map(|a| a.as_str().expect("string args").to_owned())
                    .collect();
                let env = map
                    .get("env")
                    .and_then(Value::as_object)
                    .map(|env| {
                        env.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().expect("string env").to_owned()))
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(Launch {
                    command: command.clone(),
                    args,
                    env,
                    at: at.to_owned(),
                });
            }
            for (key, inner) in map {
                walk_launches(inner, &format!("{at}.{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                walk_launches(inner, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Starts the binary with exactly `argv` and `env` (no other environment, as a host spawns it)
/// and fails unless it answers `initialize` (the handshake a host sends) and lists tools: at
/// least one, and `fs_read` / `read_text_file` when its `--tools` publishes the fs / ptc set.
pub fn starts_and_lists(argv: &[String], env: &[(String, String)], at: &str) {
    let hermetic = |extra: &[&str]| {
        let mut command = fsmcp_command();
        command
            .args(argv)
            .args(extra)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)));
        command
    };
    // A command line fsmcp refuses exits before the handshake; --describe shows why.
    let (status, _, stderr) = run_command(hermetic(&["--describe"]));
    assert!(status.success(), "{at}: {argv:?} does not start: {stderr}");
    let mut server = Server::start_command(hermetic(&[]));
    let init = server.request_bare(
        "initialize",
        Some(json!({
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "recipes", "version": "0"}
        })),
    );
    assert_eq!(
        init["result"]["serverInfo"]["name"], "fsmcp",
        "{at}: {argv:?} did not initialize: {init}"
    );
    server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let listed = server.request_bare("tools/list", Some(json!({})));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(!names.is_empty(), "{at}: {argv:?} lists no tools: {listed}");
    let tools = argv
        .iter()
        .position(|a| a == "--tools")
        .map_or("ptc", |i| argv[i + 1].as_str());
    if tools.split(',').any(|t| t == "fs") {
        assert!(names.contains(&"fs_read"), "{at}: no fs_read in {names:?}");
    }
    if tools.split(',').any(|t| t == "ptc") {
        assert!(
            names.contains(&"read_text_file"),
            "{at}: no read_text_file in {names:?}"
        );
    }
    server.close();
}

/// `args` with each of the page's example `roots` replaced by `root`.
pub fn with_root(args: &[String], roots: &[&str], root: &Path) -> Vec<String> {
    args.iter()
        .map(|a| {
            if roots.contains(&a.as_str()) {
                root.to_str().unwrap().to_owned()
            } else {
                a.clone()
            }
        })
        .collect()
}

/// Starts a page's host configuration as the host would: the built binary in place of
/// [`BIN_PLACEHOLDER`], a fresh directory in place of each example root (no other absolute
/// path), and the configuration's `env` and nothing else (a `<placeholder>` value becomes a valid
/// key); see [`starts_and_lists`].
pub fn host_config_starts(launch: &Launch, roots: &[&str]) {
    let at = &launch.at;
    assert!(
        launch.command == BIN_PLACEHOLDER
            || OTHER_BIN_PLACEHOLDERS.contains(&launch.command.as_str()),
        "{at}: the binary is not named by a placeholder path: {}",
        launch.command
    );
    let tree = Tree::new().file("README.md", "hello\n");
    let args = with_root(&launch.args, roots, tree.path());
    for a in &args {
        assert!(
            !a.starts_with('/') || a.starts_with(tree.path().to_str().unwrap()),
            "{at}: {a} is not one of the example roots {roots:?}"
        );
    }
    let env: Vec<(String, String)> = launch
        .env
        .iter()
        .map(|(k, v)| {
            // A placeholder stands for a real key.
            let v = if v.starts_with('<') { TEST_KEY } else { v };
            (k.clone(), v.to_owned())
        })
        .collect();
    starts_and_lists(&args, &env, at);
}

/// Starts every host configuration in the `json` blocks of a page ([`host_config_starts`]);
/// returns how many were started.
pub fn host_configs_start(rel: &str, roots: &[&str]) -> usize {
    let mut started = 0;
    for (at, value) in json_blocks(rel) {
        for launch in launches(&value, &at) {
            host_config_starts(&launch, roots);
            started += 1;
        }
    }
    started
}

// ---------------------------------------------------------------------------------------------
// The image
// ---------------------------------------------------------------------------------------------

/// One Dockerfile instruction: its keyword (upper case) and the rest, continuations joined.
pub struct Instruction {
    pub keyword: String,
    pub rest: String,
}

/// The Dockerfile's instructions, in order.
pub fn dockerfile() -> Vec<Instruction> {
    let mut instructions = Vec::new();
    let mut pending = String::new();
    for line in repo_file("Dockerfile").lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (pending.is_empty() && trimmed.is_empty()) {
            continue;
        }
        if let Some(head) = trimmed.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(trimmed);
        let (keyword, rest) = pending.split_once(' ').unwrap_or((&pending, ""));
        instructions.push(Instruction {
            keyword: keyword.to_ascii_uppercase(),
            rest: rest.trim().to_owned(),
        });
        pending.clear();
    }
    assert!(
        pending.is_empty(),
        "the Dockerfile ends inside a continued line"
    );
    instructions
}

/// The instructions of the last stage (the image that ships).
pub fn runtime_stage(all: &[Instruction]) -> &[Instruction] {
    let last = all
        .iter()
        .rposition(|i| i.keyword == "FROM")
        .expect("a FROM");
    &all[last..]
}

/// The JSON (exec) form of an ENTRYPOINT or CMD of the shipped stage.
pub fn exec_form(stage: &[Instruction], keyword: &str) -> Vec<String> {
    let found: Vec<&Instruction> = stage.iter().filter(|i| i.keyword == keyword).collect();
    assert_eq!(
        found.len(),
        1,
        "the runtime stage has {} {keyword}",
        found.len()
    );
    serde_json::from_str(&found[0].rest)
        .unwrap_or_else(|e| panic!("{keyword} is not in exec (JSON) form: {e}"))
}

/// The fsmcp argv the image runs when `docker run` gives it `args`: the entry point's arguments
/// after the binary (with [`WORKSPACE`] replaced by `root`), then `args`, or the image's CMD
/// when there are none.
pub fn image_argv(root: &str, args: &[String]) -> Vec<String> {
    let all = dockerfile();
    let stage = runtime_stage(&all);
    let mut argv: Vec<String> = exec_form(stage, "ENTRYPOINT")
        .into_iter()
        .skip(1)
        .map(|a| if a == WORKSPACE { root.to_owned() } else { a })
        .collect();
    if args.is_empty() {
        argv.extend(exec_form(stage, "CMD"));
    } else {
        argv.extend(args.iter().cloned());
    }
    argv
}

/// One `docker run … ghcr.io/fsmcp/fsmcp[:tag] ARGS`: the docker options, the variables it
/// passes with `-e NAME`, the image as written and the words after it.
pub struct DockerRun {
    pub line: String,
    pub options: Vec<String>,
    pub env: Vec<String>,
    pub image: String,
    pub args: Vec<String>,
}

impl DockerRun {
    /// The `docker run` of [`IMAGE`] these words are, if they are one.
    pub fn parse(words: &[String]) -> Option<DockerRun> {
        if words.len() < 2 || words[0] != "docker" || words[1] != "run" {
            return None;
        }
        let at = words
            .iter()
            .position(|w| w == IMAGE || w.starts_with(&format!("{IMAGE}:")))?;
        let options = words[2..at].to_vec();
        let mut env = Vec::new();
        for pair in options.windows(2) {
            if pair[0] == "-e" || pair[0] == "--env" {
                env.push(pair[1].clone());
            }
        }
        Some(DockerRun {
            line: words.join(" "),
            options,
            env,
            image: words[at].clone(),
            args: words[at + 1..].to_vec(),
        })
    }

    /// The fsmcp argv the image runs for this line, with `root` mounted as [`WORKSPACE`].
    pub fn argv(&self, root: &str) -> Vec<String> {
        image_argv(root, &self.args)
    }
}
