//! README.md says nothing the binary does not do. Every fenced block on it is one of:
//!
//! - a `console` transcript: each `$ ` line is run and the lines after it, up to the next `$ `,
//!   are what it must print. `fsmcp …` runs the built binary in a scratch directory shared by
//!   all transcripts in page order (so `demo/` built by one is served by the next), its stdout
//!   then stderr compared exactly; `… | jq FILTER` applies the filter to the printed result here
//!   (paths like `.content[0].text`, `-r` for raw strings), so the shown answer is exactly what
//!   the binary produced; `echo $?` prints the previous command's exit status; `mkdir`,
//!   `printf` and `ln` run under `sh`; `cargo run --release -- ARGS` runs the binary with ARGS at
//!   the repository root and must succeed with a match; `cargo test` must be what `.ci/run` runs;
//!   `uvx fsmcp ARGS`, `npx -y fsmcp ARGS` and `docker run … ghcr.io/fsmcp/fsmcp [ARGS]` must give
//!   the binary (behind the entry point and default command the Dockerfile gives the image)
//!   arguments it accepts; `claude mcp add NAME -- COMMAND…` must start and list its tools as a
//!   host would start it.
//! - a `json` host configuration: every object with a `command` and `args` is started with the
//!   built binary in place of `/opt/fsmcp/bin/fsmcp`, a fresh root in place of each example root,
//!   and no environment but the block's own `env` (a `<placeholder>` value becomes a valid key),
//!   and must initialize and list the tools its flags publish over stdio.
//! - an illustration, visibly marked by a first line `# illustration: why`; at most three.
//!
//! The names the install lines use (`uvx fsmcp`, `npx -y fsmcp`, `ghcr.io/fsmcp/fsmcp`) are the
//! ones the packaging declares (pyproject.toml's project, the npm package with the bin,
//! server.json's image). The manifests themselves are checked by `tests/package_manifests.rs`
//! (npm, pyproject, the README's `mcp-name` line) and `tests/release_manifest.rs` (server.json,
//! the Dockerfile); the readers, the host-configuration starter and the reading of a `docker
//! run` line are `tests/support/recipes.rs`'s, shared with them and `tests/hosts_recipes.rs`.
//!
//! Besides the blocks: every inline `fsmcp …` or `docker run …` command is accepted by the
//! binary; every `--flag` the README names for fsmcp is one `fsmcp --help` lists; every `fs_…`
//! tool it names is published; the tool counts it states are the published counts; every
//! relative link in README.md and docs/*.md points at a file, and at a heading or anchor there;
//! docs/cli.md's flag table lists exactly the flags `fsmcp --help` lists, and its config file
//! example publishes the tools the page says it does; the Rust version the
//! README asks for is the manifest's `rust-version`; the libraries docs/cli.md says the binary
//! links are the ones it links.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::recipes::*;
use support::*;

/// The example roots the README and docs/cli.md use in host recipes.
const ROOT_PLACEHOLDERS: [&str; 2] = ["/home/me/project", "/srv/workspace"];
/// The marker of a block that only illustrates, and how many such blocks the README may have.
const ILLUSTRATION: &str = "# illustration:";
const MAX_ILLUSTRATIONS: usize = 3;

// ---------------------------------------------------------------------------------------------
// Reading markdown
// ---------------------------------------------------------------------------------------------

/// A fenced block: its info string, its lines, the page line it starts on and the indentation
/// of its fence (a block under a list item is indented with it).
struct Block {
    info: String,
    lines: Vec<String>,
    at: usize,
    indent: usize,
}

/// The fenced blocks of a page, and its other lines (numbered) outside them.
fn split_page(text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            Some(mut block) => {
                if trimmed.starts_with("```") {
                    blocks.push(block);
                } else {
                    let indent = (line.len() - trimmed.len()).min(block.indent);
                    block.lines.push(line[indent..].to_owned());
                    open = Some(block);
                }
            }
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_owned(),
                        lines: Vec::new(),
                        at: n + 1,
                        indent: line.len() - trimmed.len(),
                    });
                } else {
                    prose.push((n + 1, line.to_owned()));
                }
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    (blocks, prose)
}

/// The inline code spans of a line.
fn code_spans(line: &str) -> Vec<String> {
    line.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// The relative link targets of a line (outside code spans).
fn link_targets(line: &str) -> Vec<String> {
    let outside: String = line
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, s)| s)
        .collect::<Vec<_>>()
        .join(" ");
    let mut targets = Vec::new();
    let mut rest = outside.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].trim();
        if !target.contains("://") && !target.starts_with("mailto:") && !target.is_empty() {
            targets.push(target.to_owned());
        }
        rest = &rest[end..];
    }
    targets
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
            _ => None,
        })
        .collect()
}

/// Every anchor a page offers: its headings' slugs (numbered when repeated) and `<a id>`s.
fn anchors(text: &str) -> BTreeSet<String> {
    let (_, prose) = split_page(text);
    let mut found = BTreeSet::new();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for (_, line) in &prose {
        if line.starts_with('#') {
            let base = slug(line.trim_start_matches('#'));
            let n = seen.entry(base.clone()).or_insert(0);
            found.insert(if *n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            });
            *n += 1;
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("<a id=\"") {
            rest = &rest[at + 7..];
            if let Some(end) = rest.find('"') {
                found.insert(rest[..end].to_owned());
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// Reading command lines
// ---------------------------------------------------------------------------------------------

/// The flags `fsmcp --help` lists.
fn help_flags() -> BTreeSet<String> {
    let (status, stdout, _) = run(&["--help"]);
    assert_eq!(status.code(), Some(0));
    let flags: BTreeSet<String> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.starts_with("--"))
        .map(str::to_owned)
        .collect();
    assert!(flags.len() > 20, "--help lists only {flags:?}");
    flags
}

/// The names of every tool fsmcp can publish (both vocabularies, default prefix).
fn all_tools() -> Vec<String> {
    let root = Tree::new();
    let root = root.path().to_str().unwrap();
    let (status, stdout, stderr) = run(&[
        "--root",
        root,
        "--include",
        "**",
        "--tools",
        "ptc,fs",
        "--describe",
    ]);
    assert_eq!(status.code(), Some(0), "{stderr}");
    let tools: Value = serde_json::from_str(&stdout).expect("--describe prints JSON");
    tools
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// Checks that the binary accepts `args` (roots already in place) without serving: exit 0 from
/// `--describe`, run in `cwd`.
fn accepts(args: &[String], cwd: &Path, what: &str) {
    let mut command = fsmcp_command();
    command.args(args).arg("--describe").current_dir(cwd);
    let (status, stdout, stderr) = run_command(command);
    assert_eq!(
        status.code(),
        Some(0),
        "{what}: the binary refuses {args:?}: {stderr}"
    );
    let tools: Value = serde_json::from_str(&stdout).expect("--describe prints JSON");
    assert!(
        tools.as_array().is_some_and(|t| !t.is_empty()),
        "{what}: publishes no tool"
    );
}

// ---------------------------------------------------------------------------------------------
// Console transcripts
// ---------------------------------------------------------------------------------------------

/// Applies a `jq` filter of the form `.`, `.a.b[0].c`, with `-r` or without, as jq prints it.
fn jq(args: &[String], result: &str, at: &str) -> String {
    let (raw, filter) = match args {
        [flag, filter] if flag == "-r" => (true, filter.as_str()),
        [filter] => (false, filter.as_str()),
        _ => panic!("{at}: jq {args:?} is not a filter this test reads"),
    };
    let mut value: Value =
        serde_json::from_str(result).unwrap_or_else(|e| panic!("{at}: not JSON ({e}): {result}"));
    let path = filter
        .strip_prefix('.')
        .unwrap_or_else(|| panic!("{at}: jq filter {filter} is not a path"));
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let (name, indexes) = segment.split_once('[').unwrap_or((segment, ""));
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{at}: jq filter {filter} is not a plain path"
        );
        if !name.is_empty() {
            value = value[name].clone();
        }
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            let i: usize = index
                .trim_end_matches(']')
                .parse()
                .unwrap_or_else(|_| panic!("{at}: jq filter {filter} has an odd index"));
            value = value[i].clone();
        }
    }
    match value {
        Value::String(s) if raw => s,
        other => serde_json::to_string_pretty(&other).unwrap(),
    }
}

/// What the transcripts share: the scratch directory and the last exit status.
struct Session {
    dir: tempfile::TempDir,
    last_status: Option<i32>,
    checked: usize,
}

impl Session {
    /// Runs one `$ ` line of a transcript and checks what it printed against `expected`.
    fn step(&mut self, line: &str, expected: &[String], at: &str) {
        let stages = shell_words(line);
        let words = &stages[0];
        let expected = expected.join("\n");
        let word = |i: usize| words.get(i).map_or("", String::as_str);
        self.checked += 1;
        match word(0) {
            "fsmcp" => self.fsmcp(&stages, &expected, at),
            "echo" if words[1..] == ["$?"] => {
                let status = self
                    .last_status
                    .unwrap_or_else(|| panic!("{at}: echo $? after a pipeline shows jq's status"));
                assert_eq!(expected, status.to_string(), "{at}: exit status");
            }
            "mkdir" | "printf" | "ln" => {
                let (status, stdout, stderr) = run_sh(line, self.dir.path());
                assert!(status.success(), "{at}: {line}: {stderr}");
                assert_eq!(expected, (stdout + &stderr).trim_end(), "{at}: {line}");
                self.last_status = Some(0);
            }
            "cargo" if word(1) == "run" => self.cargo_run(words, &expected, at),
            "cargo" if words[1..] == ["test"] => {
                assert!(expected.is_empty(), "{at}: output shown for cargo test");
                assert!(
                    repo_file(".ci/run")
                        .lines()
                        .any(|l| l.trim() == "cargo test"),
                    "{at}: .ci/run does not run `cargo test`"
                );
            }
            "uvx" | "npx" => {
                let rest = words
                    .iter()
                    .skip(1)
                    .skip_while(|w| w.starts_with('-'))
                    .collect::<Vec<_>>();
                assert_eq!(rest.first().map(|s| s.as_str()), Some("fsmcp"), "{at}");
                let args: Vec<String> = rest[1..].iter().map(|s| s.to_string()).collect();
                assert!(expected.is_empty(), "{at}: output shown for a server");
                accepts(&args, self.dir.path(), at);
            }
            "docker" => docker_run(words, self.dir.path(), at),
            "claude" => {
                assert_eq!(&words[1..3], ["mcp", "add"], "{at}");
                let dashes = words
                    .iter()
                    .position(|w| w == "--")
                    .unwrap_or_else(|| panic!("{at}: no -- before the command"));
                let launch = Launch {
                    command: words[dashes + 1].clone(),
                    args: words[dashes + 2..].to_vec(),
                    env: Vec::new(),
                    at: at.to_owned(),
                };
                host_config_starts(&launch, &ROOT_PLACEHOLDERS);
            }
            other => panic!(
                "{at}: `{other}` is a command this test cannot check; mark the block \
                 `{ILLUSTRATION} …` or check it here"
            ),
        }
    }

    fn fsmcp(&mut self, stages: &[Vec<String>], expected: &str, at: &str) {
        let mut command = fsmcp_command();
        command.args(&stages[0][1..]).current_dir(self.dir.path());
        let (status, stdout, stderr) = run_command(command);
        match stages {
            [_] => {
                let printed = format!("{stdout}{stderr}");
                if expected.is_empty() {
                    assert_eq!(status.code(), Some(0), "{at}: {stderr}");
                } else {
                    assert_eq!(printed.trim_end_matches('\n'), expected, "{at}");
                }
                self.last_status = status.code();
            }
            [_, filter] if filter.first().is_some_and(|w| w == "jq") => {
                // The call ran and printed its result (1: the result is an error).
                assert!(
                    matches!(status.code(), Some(0 | 1)),
                    "{at}: exit {status:?}: {stderr}"
                );
                assert_eq!(jq(&filter[1..], &stdout, at), expected, "{at}");
                self.last_status = None;
            }
            _ => panic!("{at}: a pipeline this test does not read"),
        }
    }

    /// `cargo run --release -- ARGS` at the repository root: the binary with ARGS succeeds.
    fn cargo_run(&mut self, words: &[String], expected: &str, at: &str) {
        assert_eq!(&words[..4], ["cargo", "run", "--release", "--"], "{at}");
        assert!(expected.is_empty(), "{at}: output shown for cargo run");
        let mut command = fsmcp_command();
        command.args(&words[4..]).current_dir(REPO);
        let (status, stdout, stderr) = run_command(command);
        assert_eq!(status.code(), Some(0), "{at}: {stderr}");
        let result: Value = serde_json::from_str(&stdout).expect("a result");
        let items = result["structuredContent"]["items"].as_array();
        assert!(
            items.is_some_and(|i| !i.is_empty()),
            "{at}: the call finds nothing: {stdout}"
        );
        self.last_status = Some(0);
    }
}

/// Runs a setup line under `sh` in `cwd`.
fn run_sh(line: &str, cwd: &Path) -> (std::process::ExitStatus, String, String) {
    let mut command = Command::new("sh");
    command.arg("-c").arg(line).current_dir(cwd);
    run_command(command)
}

/// `docker run … IMAGE [ARGS]`: the binary accepts what the image would run (its entry point
/// and ARGS, or its default command), with a fresh directory as the mounted `/workspace`.
fn docker_run(words: &[String], cwd: &Path, at: &str) {
    let run =
        DockerRun::parse(words).unwrap_or_else(|| panic!("{at}: not a docker run of {IMAGE}"));
    assert_eq!(run.image, IMAGE, "{at}: the README runs the image untagged");
    assert!(
        run.options
            .iter()
            .any(|w| w.ends_with(&format!(":{WORKSPACE}"))),
        "{at}: nothing is mounted at {WORKSPACE}"
    );
    let workspace = Tree::new();
    accepts(&run.argv(workspace.path().to_str().unwrap()), cwd, at);
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

#[test]
fn every_block_of_the_readme_runs_as_shown() {
    let text = repo_file("README.md");
    let (blocks, _) = split_page(&text);
    let mut session = Session {
        dir: tempfile::tempdir().expect("a scratch directory"),
        last_status: None,
        checked: 0,
    };
    let mut illustrations = 0;
    for block in &blocks {
        let at = format!("README.md:{}", block.at);
        if block
            .lines
            .first()
            .is_some_and(|l| l.starts_with(ILLUSTRATION))
        {
            illustrations += 1;
            continue;
        }
        match block.info.as_str() {
            "json" => {}
            "console" => {
                let mut lines = block.lines.iter().enumerate().peekable();
                while let Some((i, line)) = lines.next() {
                    let command = line.strip_prefix("$ ").unwrap_or_else(|| {
                        panic!("{at}: line {i} of a transcript is not a `$ ` command: {line}")
                    });
                    let mut expected = Vec::new();
                    while let Some((_, out)) = lines.next_if(|(_, l)| !l.starts_with("$ ")) {
                        expected.push(out.clone());
                    }
                    session.step(command, &expected, &format!("{at}+{i}"));
                }
            }
            other => panic!(
                "{at}: a `{other}` block; use console or json, or mark it as an illustration"
            ),
        }
    }
    assert!(
        illustrations <= MAX_ILLUSTRATIONS,
        "{illustrations} illustrations"
    );
    assert!(
        session.checked >= 15,
        "only {} commands checked",
        session.checked
    );
    let started = host_configs_start("README.md", &ROOT_PLACEHOLDERS);
    assert!(started >= 2, "only {started} host configurations started");
}

#[test]
fn every_inline_command_flag_and_tool_the_readme_names_is_real() {
    let text = repo_file("README.md");
    let (_, prose) = split_page(&text);
    let flags = help_flags();
    let tools = all_tools();
    let scratch = Tree::new();
    let mut commands = 0;
    for (n, line) in &prose {
        let at = format!("README.md:{n}");
        // Code spans are read line by line, so none may run over a line's end.
        assert!(
            line.matches('`').count() % 2 == 0,
            "{at}: a code span runs over the end of the line"
        );
        // In the comparison table only fsmcp's own column speaks for fsmcp.
        let spans = if line.starts_with('|') {
            let cells: Vec<&str> = line.split('|').collect();
            cells.get(2).map(|c| code_spans(c)).unwrap_or_default()
        } else {
            code_spans(line)
        };
        for span in spans {
            let words = shell_words(&span).remove(0);
            let first = words.first().map_or("", String::as_str);
            if first == "fsmcp" && words.len() > 1 {
                let args = with_root(&words[1..], &ROOT_PLACEHOLDERS, scratch.path());
                accepts(&args, scratch.path(), &at);
                commands += 1;
            } else if first == "docker" {
                docker_run(&words, scratch.path(), &at);
                commands += 1;
            } else if first.starts_with("--") {
                assert!(flags.contains(first), "{at}: fsmcp has no flag {first}");
            } else if first.starts_with("fs_") && words.len() == 1 {
                assert!(tools.iter().any(|t| t == first), "{at}: no tool {first}");
            }
        }
    }
    assert!(commands >= 1, "no inline command found");

    // The counts the introduction states.
    let count = |vocabulary: &str| {
        let names = [
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen", "fourteen", "fifteen",
        ];
        let at = text
            .find(&format!(" {vocabulary}-facing tools"))
            .unwrap_or_else(|| panic!("no count of {vocabulary}-facing tools"));
        let word = text[..at].rsplit([' ', '\n']).next().unwrap();
        names.iter().position(|n| *n == word).unwrap() + 1
    };
    let fs = tools.iter().filter(|t| t.starts_with("fs_")).count();
    assert_eq!(count("program"), tools.len() - fs, "ptc tools");
    assert_eq!(count("model"), fs, "fs tools");

    // The message the troubleshooting section quotes for a tool of the other vocabulary.
    assert!(text.contains("`Tool fs_read not found`"));
    let mut server = Server::start(scratch.path(), &["--include", "**"]);
    let response = server.request(
        "tools/call",
        json!({"name": "fs_read", "arguments": {"path": "a"}}),
    );
    assert_eq!(
        Server::error_of(&response)["message"],
        "Tool fs_read not found"
    );
    server.close();
}

#[test]
fn the_install_lines_use_the_names_the_packaging_declares() {
    let (blocks, _) = split_page(&repo_file("README.md"));
    let commands: Vec<Vec<String>> = blocks
        .iter()
        .filter(|b| b.info == "console")
        .flat_map(|b| &b.lines)
        .filter_map(|l| l.strip_prefix("$ "))
        .map(|l| shell_words(l).remove(0))
        .collect();
    // The package a runner's line names, after the runner's own flags.
    let named = |runner: &str| -> String {
        let words = commands
            .iter()
            .find(|w| w[0] == runner)
            .unwrap_or_else(|| panic!("README.md has no `{runner}` install line"));
        words[1..]
            .iter()
            .find(|w| !w.starts_with('-'))
            .unwrap_or_else(|| panic!("`{runner}` names no package"))
            .clone()
    };
    // `uvx fsmcp` runs the wheel pyproject.toml builds.
    assert_eq!(
        Some(named("uvx")),
        toml_string(&repo_file("pyproject.toml"), "project", "name"),
        "the README's uvx line and pyproject.toml's [project] name"
    );
    // `npx -y fsmcp` runs the npm package that declares the bin.
    let launchers: Vec<Value> = npm_packages()
        .iter()
        .map(|dir| npm_manifest(dir))
        .filter(|m| m.get("bin").is_some())
        .collect();
    assert_eq!(launchers.len(), 1, "npm packages with a bin: {launchers:?}");
    assert_eq!(
        json!(named("npx")),
        launchers[0]["name"],
        "the README's npx line and the npm launcher's name"
    );
    // `docker run … ghcr.io/fsmcp/fsmcp` runs the image server.json publishes.
    let docker = commands
        .iter()
        .find_map(|w| DockerRun::parse(w))
        .expect("README.md has a docker run line");
    let server = server_json();
    let published = package(&server, "oci")["identifier"]
        .as_str()
        .and_then(|i| i.rsplit_once(':'))
        .map(|(image, _)| image.to_owned());
    assert_eq!(
        Some(docker.image),
        published,
        "the README's image and server.json's"
    );
}

#[test]
fn the_toolchain_and_libraries_the_pages_name_are_the_builds() {
    // "Rust 1.90 or later": the README's version is the manifest's rust-version.
    let readme = repo_file("README.md");
    let stated = readme
        .split("With Rust ")
        .nth(1)
        .and_then(|rest| rest.split(" or later").next())
        .expect("the README names the Rust it needs");
    let declared = cargo_package("rust-version");
    assert_eq!(stated, declared, "README and Cargo.toml disagree on Rust");

    // "the C library it links (libc, libm, libgcc_s)": the binary's NEEDED entries, the
    // dynamic loader counted as part of the C library.
    let cli = repo_file("docs/cli.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let named: BTreeSet<String> = cli
        .split("the C library it links (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("docs/cli.md names the libraries the binary links")
        .split(", ")
        .map(str::to_owned)
        .collect();
    // The page describes the host build: cargo's own binary (BIN), not a FSMCP_TEST_BINARY
    // built for another platform, whose C library may be split otherwise (libpthread, libdl).
    let Ok(out) = Command::new("readelf").args(["-d", BIN]).output() else {
        eprintln!("skipped: no readelf to list the libraries the binary links");
        return;
    };
    let linked: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1)?.split(".so").next().map(str::to_owned))
        .filter(|lib| !lib.starts_with("ld-linux"))
        .collect();
    assert_eq!(
        named, linked,
        "docs/cli.md names other libraries than the binary links"
    );
}

#[test]
fn every_host_configuration_in_the_cli_reference_starts() {
    assert!(host_configs_start("docs/cli.md", &ROOT_PLACEHOLDERS) >= 1);
}

#[test]
fn the_config_file_example_publishes_what_the_cli_reference_says() {
    let (blocks, _) = split_page(&repo_file("docs/cli.md"));
    let example = blocks
        .iter()
        .find(|b| b.info == "json" && b.lines.iter().any(|l| l.contains("\"roots\"")))
        .expect("docs/cli.md shows a config file");
    // The page's absolute root becomes a fresh directory; its relative one ("manuals") is looked
    // up next to the file, so it is made there.
    let notes = Tree::new();
    let dir = Tree::new().dir("manuals");
    let text = example
        .lines
        .join("\n")
        .replace("/srv/notes", notes.path().to_str().unwrap());
    let file = dir.join("cfg.json");
    std::fs::write(&file, text).expect("write the config");
    let (status, stdout, stderr) = run(&["--config", file.to_str().unwrap(), "--describe"]);
    assert_eq!(status.code(), Some(0), "{stderr}");
    let tools: Value = serde_json::from_str(&stdout).expect("--describe prints JSON");
    let names: BTreeSet<&str> = tools
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // "the fs tools of /srv/notes as notes_read, notes_write and so on, and the four reading
    // ptc tools over manuals"
    for name in ["notes_read", "notes_write"].into_iter().chain(READ_TOOLS) {
        assert!(names.contains(name), "{name} is not published: {names:?}");
    }
    assert!(!names.contains("write_text_file"), "manuals is read-only");
    let fs = all_tools().iter().filter(|t| t.starts_with("fs_")).count();
    assert_eq!(names.len(), fs + READ_TOOLS.len(), "{names:?}");
}

#[test]
fn the_cli_reference_documents_exactly_the_flags_of_help() {
    let text = repo_file("docs/cli.md");
    let (_, prose) = split_page(&text);
    let documented: BTreeSet<String> = prose
        .iter()
        .filter(|(_, l)| l.starts_with("| `--"))
        .flat_map(|(_, l)| code_spans(l.split('|').nth(1).unwrap()))
        .filter_map(|span| span.split_whitespace().next().map(str::to_owned))
        .filter(|w| w.starts_with("--"))
        .collect();
    let help = help_flags();
    let undocumented: Vec<_> = help.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&help).collect();
    assert!(
        undocumented.is_empty(),
        "--help lists flags docs/cli.md does not: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "docs/cli.md documents flags --help does not list: {unknown:?}"
    );
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let mut pages = vec![PathBuf::from("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_str().expect("a UTF-8 name");
        if name.ends_with(".md") {
            pages.push(Path::new("docs").join(name));
        }
    }
    let mut checked = 0;
    let mut broken = Vec::new();
    for rel in &pages {
        let text = repo_file(rel.to_str().unwrap());
        let (_, prose) = split_page(&text);
        let dir = rel.parent().unwrap_or(Path::new(""));
        for (n, line) in &prose {
            for target in link_targets(line) {
                checked += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let file = if file.is_empty() {
                    rel.clone()
                } else {
                    dir.join(file)
                };
                let full = repo().join(&file);
                if !full.exists() {
                    broken.push(format!("{}:{n}: {target}: no such file", rel.display()));
                    continue;
                }
                if !anchor.is_empty() {
                    let there = anchors(&std::fs::read_to_string(&full).unwrap_or_default());
                    if !there.contains(anchor) {
                        broken.push(format!("{}:{n}: {target}: no such heading", rel.display()));
                    }
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_markdown_readers_read_what_they_claim() {
    assert_eq!(slug(" The `fs` tool set"), "the-fs-tool-set");
    assert_eq!(
        slug(" Start-up and protocol messages"),
        "start-up-and-protocol-messages"
    );
    assert_eq!(
        shell_words(r#"fsmcp --call x '{"a":"b c"}' | jq -r '.content[0].text'"#),
        [
            vec!["fsmcp", "--call", "x", r#"{"a":"b c"}"#],
            vec!["jq", "-r", ".content[0].text"]
        ]
    );
    assert_eq!(
        shell_words(r#"docker run -v "$PWD:/workspace" img"#),
        [vec!["docker", "run", "-v", "$PWD:/workspace", "img"]]
    );
    assert_eq!(
        link_targets("see [a](docs/a.md#b), `[c](d)` and [e](https://x)"),
        ["docs/a.md#b"]
    );
    let result = r#"{"content":[{"text":"hi"}],"structuredContent":{"b":1,"a":[2]}}"#;
    assert_eq!(
        jq(&["-r".into(), ".content[0].text".into()], result, "t"),
        "hi"
    );
    assert_eq!(
        jq(&[".structuredContent".into()], result, "t"),
        "{\n  \"b\": 1,\n  \"a\": [\n    2\n  ]\n}"
    );
}
