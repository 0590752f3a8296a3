//! The release manifests agree with Cargo.toml and with the binary they launch.
//!
//! The version lives in Cargo.toml alone; `server.json` (the MCP registry entry) repeats it
//! exactly in each package, the `Dockerfile` stamps it from a build argument its build stage
//! checks against the binary, and `scripts/release` reads and moves it; this test fails on the
//! first one that drifts. The Dockerfile ships the fixed entry point, default command and labels
//! and admits exactly what it copies. Every command line server.json and `docs/container.md`
//! would have a host run is started here with the built binary on a fresh root (the image's
//! `/workspace` replaced by it) and must initialize and list its tools over stdio, or answer
//! over HTTP for the container's `--http` recipe. No container engine is involved: the image
//! itself is untested, and its recipe is only read. The npm and Python manifests are
//! `tests/package_manifests.rs`'s; the readers and the starting of a command line are
//! `tests/support/recipes.rs`'s.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::process::{Command, Stdio};
use support::http::HttpServer;
use support::recipes::*;
use support::sources::copy_tree;
use support::*;

/// The names the registry entry and the image use.
const REPOSITORY: &str = "https://github.com/fsmcp/fsmcp";
const PYPI_NAME: &str = "fsmcp";
const NPM_LAUNCHER: &str = "fsmcp";
/// The image's entry point and default arguments, as the names everyone uses fix them.
const ENTRYPOINT: [&str; 3] = ["/usr/local/bin/fsmcp", "--root", "/workspace"];
const CMD: [&str; 2] = ["--include", "**"];
/// A bearer token for the container's HTTP recipe (at least 16 bytes).
const TEST_TOKEN: &str = "release-manifest-test-token";

// ---------------------------------------------------------------------------------------------
// server.json
// ---------------------------------------------------------------------------------------------

#[test]
fn server_json_names_the_release_and_its_three_packages() {
    let server = server_json();
    let schema = server["$schema"].as_str().expect("$schema");
    let dated = schema
        .strip_prefix("https://static.modelcontextprotocol.io/schemas/")
        .and_then(|rest| rest.strip_suffix("/server.schema.json"))
        .unwrap_or_else(|| panic!("$schema is not a published registry schema: {schema}"));
    assert!(
        dated.len() == 10 && dated.as_bytes()[4] == b'-' && dated.as_bytes()[7] == b'-',
        "$schema should name a dated schema version, not {dated:?}"
    );
    assert_eq!(server["name"], SERVER_NAME);
    assert_eq!(
        server["repository"],
        json!({"url": REPOSITORY, "source": "github"})
    );
    // The schema's bounds on the description.
    let description = server["description"].as_str().expect("description");
    assert!(
        (1..=100).contains(&description.chars().count()),
        "the registry takes a description of 1 to 100 characters; this one has {}",
        description.chars().count()
    );

    let registries: Vec<&str> = server["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| p["registryType"].as_str().expect("registryType"))
        .collect();
    assert_eq!(registries, ["pypi", "npm", "oci"]);

    let pypi = package(&server, "pypi");
    assert_eq!(pypi["identifier"], PYPI_NAME);
    assert_eq!(pypi["registryBaseUrl"], "https://pypi.org");
    let npm = package(&server, "npm");
    assert_eq!(npm["identifier"], NPM_LAUNCHER);
    assert_eq!(npm["registryBaseUrl"], "https://registry.npmjs.org");
    let oci = package(&server, "oci");
    // An OCI package names the image and carries its version in the reference's tag (checked
    // with the other versions below).
    assert_eq!(
        oci["identifier"]
            .as_str()
            .and_then(|i| i.rsplit_once(':'))
            .map(|(image, _)| image),
        Some(IMAGE),
        "oci identifier"
    );
    assert_eq!(oci["runtimeHint"], "docker");

    for p in server["packages"].as_array().unwrap() {
        let at = p["registryType"].as_str().unwrap();
        assert_eq!(p["transport"], json!({"type": "stdio"}), "{at} transport");
        assert!(
            !p.to_string().contains("\"latest\""),
            "{at}: the registry refuses 'latest' as a version"
        );
        for list in ["packageArguments", "runtimeArguments"] {
            for argument in p[list].as_array().into_iter().flatten() {
                assert_argument_is_described(&format!("{at} {list}"), argument);
            }
        }
    }
}

/// What the schema asks of one argument, and what a host needs to fill it in.
fn assert_argument_is_described(at: &str, argument: &Value) {
    let description = argument["description"].as_str().unwrap_or("");
    assert!(
        !description.is_empty(),
        "{at}: {argument} has no description"
    );
    match argument["type"].as_str() {
        Some("named") => {
            let name = argument["name"].as_str().unwrap_or("");
            assert!(
                name.starts_with('-'),
                "{at}: named argument {name:?} is not a flag"
            );
            assert!(
                !name.contains([' ', '=']),
                "{at}: {name:?} holds more than the flag"
            );
        }
        Some("positional") => assert!(
            argument.get("value").is_some() || argument.get("valueHint").is_some(),
            "{at}: a positional argument needs a value or a valueHint: {argument}"
        ),
        other => panic!("{at}: argument type {other:?} is neither named nor positional"),
    }
    if let Some(default) = argument.get("default")
        && let Some(choices) = argument["choices"].as_array()
    {
        assert!(
            choices.contains(default),
            "{at}: default {default} is not a choice"
        );
    }
}

/// The words a host passes for `arguments` (named ones as two words, `--flag value`), with
/// `root` for every file path the user would be asked for and the given pick for choices.
fn render(arguments: &Value, root: &str, pick: &dyn Fn(&Value) -> Option<String>) -> Vec<String> {
    let mut words = Vec::new();
    for argument in arguments.as_array().into_iter().flatten() {
        let value = if argument["format"] == "filepath" {
            Some(root.to_owned())
        } else {
            pick(argument)
                .or_else(|| argument["value"].as_str().map(str::to_owned))
                .or_else(|| argument["default"].as_str().map(str::to_owned))
        };
        let Some(value) = value else {
            assert!(
                argument["isRequired"] != json!(true),
                "required argument {argument} has no value, default or file path to fill in"
            );
            continue;
        };
        if argument["type"] == "named" {
            words.push(argument["name"].as_str().unwrap().to_owned());
        }
        words.push(value);
    }
    words
}

/// Every command line a package entry of server.json makes: with the defaults, and once per
/// choice of each argument that offers choices.
fn command_lines(arguments: &Value, root: &str) -> Vec<Vec<String>> {
    let mut lines = vec![render(arguments, root, &|_| None)];
    for argument in arguments.as_array().into_iter().flatten() {
        for choice in argument["choices"].as_array().into_iter().flatten() {
            let name = argument["name"].clone();
            let choice = choice.as_str().expect("string choice").to_owned();
            lines.push(render(arguments, root, &move |a: &Value| {
                (a["name"] == name).then(|| choice.clone())
            }));
        }
    }
    lines
}

#[test]
fn every_flag_server_json_passes_starts_the_binary() {
    let server = server_json();
    let tree = Tree::new().file("README.md", "hello\n");
    let root = tree.path().to_str().unwrap();
    let mut started = 0;
    for registry in ["pypi", "npm"] {
        let p = package(&server, registry);
        assert!(
            p.get("runtimeArguments").is_none(),
            "{registry}: runtime arguments go to uvx or npx, not to fsmcp; none are needed"
        );
        for argv in command_lines(&p["packageArguments"], root) {
            assert!(
                argv.contains(&"--root".to_owned()),
                "{registry}: {argv:?} has no --root"
            );
            starts_and_lists(&argv, &[], registry);
            started += 1;
        }
    }
    // The image's entry point supplies --root; the package's arguments replace its CMD.
    let oci = package(&server, "oci");
    for args in command_lines(&oci["packageArguments"], root) {
        starts_and_lists(&image_argv(root, &args), &[], "oci");
        started += 1;
    }
    // Defaults plus the three --tools choices, for each of the three packages.
    assert_eq!(started, 12, "command lines started");
}

#[test]
fn the_oci_entry_mounts_the_directory_where_the_image_serves() {
    let server = server_json();
    let oci = package(&server, "oci");
    let mounts: Vec<&Value> = oci["runtimeArguments"]
        .as_array()
        .expect("oci runtimeArguments")
        .iter()
        .filter(|a| a["name"] == "--mount" || a["name"] == "-v" || a["name"] == "--volume")
        .collect();
    assert_eq!(
        mounts.len(),
        1,
        "one mount of the served directory: {mounts:?}"
    );
    let mount = mounts[0];
    assert_eq!(mount["isRequired"], true);
    let value = mount["value"].as_str().expect("mount value");
    let target = value
        .split(',')
        .find_map(|part| part.strip_prefix("dst="))
        .unwrap_or_else(|| panic!("mount {value:?} names no dst="));
    assert_eq!(
        target, ENTRYPOINT[2],
        "the mount's target is the image's --root"
    );
    // Every {variable} in the value is declared, as a file path the host asks for.
    let source = value
        .split(',')
        .find_map(|part| part.strip_prefix("src="))
        .unwrap_or_else(|| panic!("mount {value:?} names no src="));
    let variable = source
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or_else(|| panic!("the mount's source {source:?} is not a variable"));
    let declared = &mount["variables"][variable];
    assert_eq!(declared["format"], "filepath", "{variable}: {declared}");
    assert_eq!(declared["isRequired"], true, "{variable}: {declared}");
}

// ---------------------------------------------------------------------------------------------
// Dockerfile
// ---------------------------------------------------------------------------------------------

/// `key=value` pairs of LABEL instructions (values double-quoted or bare).
fn labels(stage: &[Instruction]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for instruction in stage.iter().filter(|i| i.keyword == "LABEL") {
        for word in command_words(&instruction.rest) {
            let (key, value) = word
                .split_once('=')
                .unwrap_or_else(|| panic!("LABEL word {word:?} is not key=value"));
            out.push((key.to_owned(), value.to_owned()));
        }
    }
    out
}

#[test]
fn the_dockerfile_ships_the_fixed_entry_point_and_labels() {
    let all = dockerfile();
    let stage = runtime_stage(&all);
    assert_eq!(exec_form(stage, "ENTRYPOINT"), ENTRYPOINT);
    assert_eq!(exec_form(stage, "CMD"), CMD);

    let labels = labels(stage);
    let label = |key: &str| -> String {
        let values: Vec<&String> = labels
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v)
            .collect();
        assert_eq!(values.len(), 1, "label {key} is set {} times", values.len());
        values[0].clone()
    };
    let server = server_json();
    assert_eq!(
        label("io.modelcontextprotocol.server.name"),
        server["name"].as_str().unwrap()
    );
    assert_eq!(label("io.modelcontextprotocol.server.name"), SERVER_NAME);
    assert_eq!(label("org.opencontainers.image.source"), REPOSITORY);
    assert_eq!(label("org.opencontainers.image.licenses"), "MIT");
    // The version label is stamped from a build argument, which the build stage checks
    // against the binary's own --version (so, against Cargo.toml).
    assert_eq!(label("org.opencontainers.image.version"), "${VERSION}");
    assert!(
        stage
            .iter()
            .any(|i| i.keyword == "ARG" && i.rest == "VERSION"),
        "the runtime stage must declare ARG VERSION for its label"
    );
    let build = &all[..all.len() - stage.len()];
    assert!(
        build.iter().any(|i| i.keyword == "RUN"
            && i.rest.contains("fsmcp --version")
            && i.rest.contains("$VERSION")
            && i.rest.contains("exit 1")),
        "the build stage must stop when VERSION is not the built binary's version"
    );
    assert!(
        build
            .iter()
            .any(|i| i.keyword == "RUN" && i.rest.contains("cargo build --release --locked")),
        "the build stage builds the release profile from Cargo.lock"
    );

    // Not root: a user by number other than 0.
    let users: Vec<&Instruction> = stage.iter().filter(|i| i.keyword == "USER").collect();
    assert_eq!(users.len(), 1, "the runtime stage sets its user once");
    let uid = users[0].rest.split(':').next().unwrap();
    assert!(
        uid.parse::<u32>().is_ok_and(|n| n != 0),
        "USER {} should be a non-zero number",
        users[0].rest
    );

    // The pinned toolchain is one Cargo.toml builds with.
    let rust = all
        .iter()
        .find_map(|i| {
            (i.keyword == "ARG")
                .then(|| i.rest.strip_prefix("RUST_VERSION="))
                .flatten()
        })
        .expect("ARG RUST_VERSION=<pinned version>");
    let minimum = cargo_package("rust-version");
    let numbers = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap()).collect() };
    assert_eq!(
        numbers(rust).len(),
        3,
        "pin a full Rust version, not {rust:?}"
    );
    assert!(
        numbers(rust) >= numbers(&minimum),
        "Rust {rust} is older than {minimum}"
    );
}

#[test]
fn the_build_context_admits_exactly_what_the_dockerfile_copies() {
    let ignore = repo_file(".dockerignore");
    let rules: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(
        rules.first(),
        Some(&"*"),
        ".dockerignore starts by excluding everything"
    );
    let admitted: Vec<&str> = rules.iter().filter_map(|r| r.strip_prefix('!')).collect();
    let mut copied: Vec<String> = Vec::new();
    for instruction in dockerfile().iter().filter(|i| i.keyword == "COPY") {
        let words = command_words(&instruction.rest);
        if words.iter().any(|w| w.starts_with("--from=")) {
            continue;
        }
        let sources: Vec<&String> = words.iter().filter(|w| !w.starts_with("--")).collect();
        for source in &sources[..sources.len() - 1] {
            assert!(
                repo_has(source),
                "COPY {source}: no such file in the repository"
            );
            copied.push(source.to_string());
        }
    }
    copied.sort_unstable();
    let mut admitted_sorted: Vec<String> = admitted.iter().map(|a| a.to_string()).collect();
    admitted_sorted.sort_unstable();
    assert_eq!(
        copied, admitted_sorted,
        "COPY sources and .dockerignore's exceptions"
    );
    // What the manifest declares must be in the context, or cargo refuses it.
    for declared in ["src", "crates", "benches", "examples", "Cargo.lock"] {
        assert!(
            admitted.contains(&declared),
            "{declared} is not in the build context"
        );
    }
}

#[test]
fn the_image_default_command_serves_its_workspace() {
    let tree = Tree::new().file("README.md", "hello\n");
    let root = tree.path().to_str().unwrap();
    starts_and_lists(&image_argv(root, &[]), &[], "ENTRYPOINT + CMD");
    // `docker run --rm IMAGE --version`, the first-build check docs/container.md gives.
    let version = image_argv(root, &["--version".to_owned()]);
    let version: Vec<&str> = version.iter().map(String::as_str).collect();
    let (status, stdout, stderr) = run(&version);
    assert!(status.success(), "{version:?}: {status} {stderr}");
    assert_eq!(stdout.trim(), cargo_version(), "{version:?}");
}

// ---------------------------------------------------------------------------------------------
// docs/container.md
// ---------------------------------------------------------------------------------------------

/// Every `docker run` of the image in `docs/container.md`: console lines (continuations
/// joined) and the `command`/`args` of each JSON host configuration whose command is `docker`.
fn docker_runs() -> Vec<DockerRun> {
    let page = repo_file("docs/container.md");
    let mut runs = Vec::new();
    for block in page.split("```console").skip(1) {
        let body = block.split("```").next().unwrap().replace("\\\n", " ");
        runs.extend(
            body.lines()
                .filter_map(|line| DockerRun::parse(&command_words(line))),
        );
    }
    for (at, value) in json_blocks("docs/container.md") {
        for launch in launches(&value, &at) {
            if launch.command == "docker" {
                let words: Vec<String> = [launch.command].into_iter().chain(launch.args).collect();
                runs.extend(DockerRun::parse(&words));
            }
        }
    }
    runs
}

#[test]
fn every_docker_run_in_the_container_page_starts_the_binary() {
    let runs = docker_runs();
    assert!(
        runs.len() >= 4,
        "found only {} docker run lines",
        runs.len()
    );
    let mut http = 0;
    for run in &runs {
        assert!(
            run.options.contains(&"--rm".to_owned()),
            "{}: add --rm",
            run.line
        );
        let tree = Tree::new().file("README.md", "hello\n");
        let root = tree.path().to_str().unwrap();
        let argv = run.argv(root);
        if run.args.iter().any(|a| a == "--http") {
            http += 1;
            assert_http_recipe_serves(run, argv);
        } else {
            let has = |flags: &[&str]| run.options.iter().any(|o| flags.contains(&o.as_str()));
            assert!(
                has(&["-i", "--interactive"]) && !has(&["-t", "-it", "-ti", "--tty"]),
                "{}: stdio needs -i (stdin kept open) and no TTY",
                run.line
            );
            starts_and_lists(&argv, &[], &run.line);
        }
    }
    assert!(http >= 1, "the page shows no --http recipe");
}

/// Runs an `--http` recipe on an OS-chosen port (the container's port is docker's to map), with
/// each `-e` variable set to a test token, and checks what the page promises: the server listens
/// on every interface, refuses a request without the token, and answers one with it sent as a
/// host-side client sends it (to a published loopback port); SIGTERM (`docker stop`) ends it.
fn assert_http_recipe_serves(run: &DockerRun, mut argv: Vec<String>) {
    let at = argv.iter().position(|a| a == "--http").unwrap();
    let address = argv[at + 1].clone();
    let (host, _) = address.rsplit_once(':').expect("--http ADDR:PORT");
    assert_eq!(
        host, "0.0.0.0",
        "{}: inside a container, listen on every interface",
        run.line
    );
    argv[at + 1] = "0.0.0.0:0".to_owned();
    let mut command = fsmcp_command();
    command.args(&argv).env_clear();
    for name in &run.env {
        command.env(name, TEST_TOKEN);
    }
    let mut server = HttpServer::start_command_on(command, "0.0.0.0");
    let bearer = format!("Bearer {TEST_TOKEN}");
    let host = [("Host", "localhost:8080")];
    let refused = server.modern(1, "tools/list", json!({}), &host);
    let answered = server.modern(
        2,
        "tools/list",
        json!({}),
        &[host[0], ("Authorization", bearer.as_str())],
    );
    // docker stop sends SIGTERM to the entry point, which is fsmcp itself.
    let status = server.stop(libc::SIGTERM);
    assert_eq!(
        refused.status, 401,
        "{}: without the token: {refused:?}",
        run.line
    );
    assert_eq!(
        answered.status, 200,
        "{}: with the token: {answered:?}",
        run.line
    );
    let tools = answered.message()["result"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(tools > 0, "{}: lists no tools: {}", run.line, answered.body);
    let status = status.unwrap_or_else(|| panic!("{}: SIGTERM did not stop it in 10 s", run.line));
    assert!(status.success(), "{}: stopped with {status}", run.line);
}

/// Every version server.json names is Cargo.toml's: its own, the pypi and npm packages', and the
/// OCI reference's tag (and its `version`, if it has one).
#[test]
fn server_json_takes_cargos_version_for_every_package() {
    let version = cargo_version();
    let server = server_json();
    assert_eq!(server["version"], json!(version), "server.json version");
    for p in server["packages"].as_array().expect("packages") {
        let stamped = match p["registryType"].as_str() {
            Some("oci") => p["identifier"]
                .as_str()
                .and_then(|i| i.rsplit_once(':'))
                .map(|(_, t)| t),
            _ => p["version"].as_str(),
        };
        assert_eq!(
            stamped,
            Some(version.as_str()),
            "server.json {}",
            p["registryType"]
        );
    }
    let oci = package(&server, "oci");
    assert!(
        oci.get("version").is_none_or(|v| v == &json!(version)),
        "oci version {} is not {version}",
        oci["version"]
    );
}

// ---------------------------------------------------------------------------------------------
// scripts/release
// ---------------------------------------------------------------------------------------------

/// Runs `scripts/release ARGS` in `dir`; (exit code, stdout, stderr).
fn release_script(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new("bash")
        .arg(dir.join("scripts/release"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run scripts/release");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_release_script_reads_and_checks_cargos_version() {
    let repo = repo();
    let version = cargo_version();
    let (code, stdout, stderr) = release_script(&repo, &["version"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("{version}\n"));
    let (code, _, stderr) = release_script(&repo, &["check-tag", &format!("v{version}")]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, _, stderr) = release_script(&repo, &["check-tag", &version]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains(&format!("expected 'v{version}'")),
        "{stderr}"
    );
}

/// `set-version` moves every copy of the version together (Cargo.toml, Cargo.lock's entry,
/// server.json's four) and nothing else; a malformed version changes nothing. Run on a copy of
/// the workspace, so the repository is never touched.
#[test]
fn set_version_moves_every_copy_and_refuses_a_malformed_version() {
    let repo = repo();
    let copy = tempfile::tempdir().expect("temp dir");
    for path in [
        "Cargo.toml",
        "Cargo.lock",
        "server.json",
        "scripts/release",
        "src",
        "crates",
        "benches",
        "examples",
    ] {
        copy_tree(&repo.join(path), &copy.path().join(path));
    }
    let read = |path: &str| std::fs::read_to_string(copy.path().join(path)).expect(path);
    let before = [read("Cargo.toml"), read("Cargo.lock"), read("server.json")];
    for bad in ["1.2", "v1.2.3", "1.2.3-rc.1", "01.2.3", "1.2.3 ", ""] {
        let (code, _, stderr) = release_script(copy.path(), &["set-version", bad]);
        assert_eq!(code, Some(1), "{bad:?}: {stderr}");
        assert!(
            stderr.contains("is not a version like 1.2.3"),
            "{bad:?}: {stderr}"
        );
        let after = [read("Cargo.toml"), read("Cargo.lock"), read("server.json")];
        assert!(after == before, "{bad:?} changed a file");
    }

    let (code, stdout, stderr) = release_script(copy.path(), &["set-version", "9.8.7"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let old = cargo_version();
    // Cargo.toml and Cargo.lock: exactly the one line each.
    let was = format!("version = \"{old}\"");
    for (file, text) in [("Cargo.toml", &before[0]), ("Cargo.lock", &before[1])] {
        let now = read(file);
        let changed: Vec<(&str, &str)> = text
            .lines()
            .zip(now.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(changed, [(was.as_str(), "version = \"9.8.7\"")], "{file}");
        assert_eq!(text.lines().count(), now.lines().count(), "{file}");
    }
    // server.json: the versions and the image tag, nothing else.
    let mut expected: Value = serde_json::from_str(&before[2]).unwrap();
    expected["version"] = json!("9.8.7");
    for p in expected["packages"].as_array_mut().unwrap() {
        if p["registryType"] == "oci" {
            p["identifier"] = json!(format!("{IMAGE}:9.8.7"));
        } else {
            p["version"] = json!("9.8.7");
        }
    }
    let moved: Value = serde_json::from_str(&read("server.json")).unwrap();
    assert_eq!(moved, expected);
    // The repository's own server.json is written the way the script writes it, so a version
    // bump is a four-line diff.
    assert_eq!(
        before[2],
        format!(
            "{}\n",
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(&before[2]).unwrap())
                .unwrap()
        ),
        "server.json is not in the script's layout (two-space JSON); run set-version {old}"
    );
}
