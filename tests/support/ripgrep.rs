//! The differential tests' access to ripgrep, the reference for `fs_grep` and `fs_glob`.

use std::process::Command;

/// Whether `rg` runs here. Where it does not, the caller's test is skipped and says so; under
/// `CI=true` a missing `rg` fails instead, since `.ci/run` installs it and a silent skip there
/// would hide the very comparison the test exists for.
pub fn ripgrep_installed() -> bool {
    let installed = Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "rg (ripgrep) is not installed, and CI must run the differential tests"
        );
        eprintln!("skipped: rg (ripgrep) is not installed; .ci/run installs it");
    }
    installed
}
