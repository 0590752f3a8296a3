//! The package manifests agree with each other and with Cargo.toml before anything is built:
//! the npm manifests carry only the placeholder version that `scripts/package` replaces with
//! Cargo.toml's, the launcher depends on (and knows) exactly the platform packages that exist,
//! each platform package's `os`/`cpu` match its name, and the wheel's version is Cargo.toml's.
//! `scripts/package` and `scripts/package-smoke` build and run the real packages (in `.ci/run`).

// Reading the repository's own files is the point here.
#![allow(clippy::disallowed_methods)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PLACEHOLDER: &str = "0.0.0-dev";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(dir: &Path) -> Value {
    let path = dir.join("package.json");
    let text = std::fs::read_to_string(&path).expect("package.json");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The platform package directories under packaging/npm (every one but the launcher).
fn platforms() -> BTreeSet<String> {
    let found: BTreeSet<String> = std::fs::read_dir(repo().join("packaging/npm"))
        .expect("packaging/npm")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .filter(|name| name != "fsmcp")
        .collect();
    assert!(found.contains("linux-x64"), "platform packages: {found:?}");
    found
}

#[test]
fn npm_manifests_carry_only_the_placeholder_version() {
    let npm = repo().join("packaging/npm");
    let launcher = manifest(&npm.join("fsmcp"));
    assert_eq!(launcher["version"], PLACEHOLDER);
    for platform in platforms() {
        assert_eq!(
            manifest(&npm.join(&platform))["version"],
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
    let npm = repo().join("packaging/npm");
    let launcher = manifest(&npm.join("fsmcp"));
    let wanted: BTreeSet<String> = platforms().iter().map(|p| format!("@fsmcp/{p}")).collect();
    let deps: BTreeSet<String> = launcher["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies")
        .keys()
        .cloned()
        .collect();
    assert_eq!(deps, wanted);

    // The launcher's PLATFORMS set decides between "not installed" and "no binary for".
    let script = std::fs::read_to_string(npm.join("fsmcp/bin/fsmcp.js")).expect("fsmcp.js");
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
    let launcher = manifest(&repo().join("packaging/npm/fsmcp"));
    assert_eq!(launcher["name"], "fsmcp");
    assert_eq!(launcher["bin"]["fsmcp"], "bin/fsmcp.js");
    assert_eq!(launcher["mcpName"], "io.github.fsmcp/fsmcp");
    assert!(launcher["engines"]["node"].is_string(), "engines.node");
    let script =
        std::fs::read_to_string(repo().join("packaging/npm/fsmcp/bin/fsmcp.js")).expect("fsmcp.js");
    assert!(
        script.starts_with("#!/usr/bin/env node\n"),
        "the bin needs its shebang"
    );
}

#[test]
fn platform_packages_match_their_names() {
    let npm = repo().join("packaging/npm");
    for platform in platforms() {
        let m = manifest(&npm.join(&platform));
        assert_eq!(m["name"], format!("@fsmcp/{platform}"));
        let (os, cpu) = platform.split_once('-').expect("<platform>-<arch>");
        assert_eq!(m["os"], serde_json::json!([os]), "{platform}");
        assert_eq!(m["cpu"], serde_json::json!([cpu]), "{platform}");
        assert_eq!(m["files"], serde_json::json!(["bin/fsmcp"]), "{platform}");
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
    let text = std::fs::read_to_string(repo().join("pyproject.toml")).expect("pyproject.toml");
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
