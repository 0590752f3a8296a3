//! The package manifests agree with each other and with Cargo.toml before anything is built:
//! the npm manifests carry only the placeholder version that `scripts/package` replaces with
//! Cargo.toml's, the launcher depends on (and knows) exactly the platform packages that exist,
//! names its `bin` and the registry server (`mcpName`), each platform package's `os`/`cpu`
//! match its name, the wheel's version is Cargo.toml's (dynamic, with `bindings = "bin"` and the
//! name `fsmcp`), and README.md, the wheel's description, carries the MCP registry's
//! `mcp-name` line that proves the PyPI project belongs to this server. This file is the one
//! home of these checks; the README's and the release manifests' tests read the same files
//! through `tests/support/recipes.rs`. `scripts/package` and `scripts/package-smoke` build and
//! run the real packages (in `.ci/run`).

// Reading the repository's own files is the point here.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::collections::BTreeSet;
use support::recipes::{SERVER_NAME, npm_manifest, npm_packages, repo_file};

const PLACEHOLDER: &str = "0.0.0-dev";

/// The platform package directories under packaging/npm (every one but the launcher).
fn platforms() -> BTreeSet<String> {
    let mut found = npm_packages();
    found.remove("fsmcp");
    // The platforms the release promises (README.md's table): a package for each.
    for promised in [
        "darwin-arm64",
        "darwin-x64",
        "linux-arm64",
        "linux-x64",
        "win32-x64",
    ] {
        assert!(found.contains(promised), "platform packages: {found:?}");
    }
    found
}

#[test]
fn npm_manifests_carry_only_the_placeholder_version() {
    let launcher = npm_manifest("fsmcp");
    assert_eq!(launcher["version"], PLACEHOLDER);
    for platform in platforms() {
        assert_eq!(
            npm_manifest(&platform)["version"],
            PLACEHOLDER,
            "{platform}"
        );
    }
    let deps = launcher["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    for (name, version) in deps {
        assert_eq!(version, PLACEHOLDER, "launcher's dependency on {name}");
    }
}

#[test]
fn launcher_depends_on_every_platform_package_and_knows_it() {
    let launcher = npm_manifest("fsmcp");
    let wanted: BTreeSet<String> = platforms().iter().map(|p| format!("@fsmcp/{p}")).collect();
    let deps: BTreeSet<String> = launcher["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies")
        .keys()
        .cloned()
        .collect();
    assert_eq!(deps, wanted);

    // The launcher's PLATFORMS set decides between "not installed" and "no binary for".
    let script = repo_file("packaging/npm/fsmcp/bin/fsmcp.js");
    let line = script
        .lines()
        .find(|l| l.starts_with("const PLATFORMS = new Set(["))
        .expect("a PLATFORMS line in fsmcp.js");
    let known: BTreeSet<String> = line
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert_eq!(known, platforms());
}

#[test]
fn launcher_manifest_names_its_bin_and_the_registry_server() {
    let launcher = npm_manifest("fsmcp");
    assert_eq!(launcher["name"], "fsmcp");
    assert_eq!(launcher["bin"]["fsmcp"], "bin/fsmcp.js");
    assert_eq!(launcher["mcpName"], SERVER_NAME);
    assert!(launcher["engines"]["node"].is_string(), "engines.node");
    let script = repo_file("packaging/npm/fsmcp/bin/fsmcp.js");
    assert!(
        script.starts_with("#!/usr/bin/env node\n"),
        "the bin needs its shebang"
    );
}

#[test]
fn platform_packages_match_their_names() {
    for platform in platforms() {
        let m = npm_manifest(&platform);
        assert_eq!(m["name"], format!("@fsmcp/{platform}"));
        let (os, cpu) = platform.split_once('-').expect("<platform>-<arch>");
        assert_eq!(m["os"], json!([os]), "{platform}");
        assert_eq!(m["cpu"], json!([cpu]), "{platform}");
        // Windows runs only files named .exe; the launcher asks for that name there.
        let binary = if os == "win32" { "fsmcp.exe" } else { "fsmcp" };
        assert_eq!(m["files"], json!([format!("bin/{binary}")]), "{platform}");
        // The launcher resolves `<package>/package.json`, which an exports map would hide.
        assert!(
            m.get("exports").is_none(),
            "{platform} must not declare exports"
        );
        assert!(
            m.get("bin").is_none(),
            "{platform}: only the launcher declares a bin"
        );
    }
}

#[test]
fn the_wheel_takes_its_version_from_cargo() {
    let text = repo_file("pyproject.toml");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for wanted in [
        "name = \"fsmcp\"",
        "dynamic = [\"version\"]",
        "bindings = \"bin\"",
        "build-backend = \"maturin\"",
        "readme = \"README.md\"",
    ] {
        assert!(lines.contains(&wanted), "pyproject.toml lacks `{wanted}`");
    }
    assert!(
        !lines.iter().any(|l| l.starts_with("version =")),
        "pyproject.toml must not state a version; maturin takes Cargo.toml's"
    );
}

#[test]
fn the_readme_carries_the_registrys_pypi_ownership_line() {
    // README.md is the wheel's description (`readme = "README.md"`, checked above); the MCP
    // registry reads this line on PyPI to prove the project belongs to the server.
    let line = format!("<!-- mcp-name: {SERVER_NAME} -->");
    assert!(
        repo_file("README.md").lines().any(|l| l.trim() == line),
        "README.md (the PyPI description) lacks the registry's ownership line {line}"
    );
}
