//! Whether `strace` can trace the binary here: the tests that count or slow its system calls
//! with it say they were skipped where it cannot, and fail under `CI=true`, so CI never passes
//! them without looking.

use std::process::Command;

use super::skip_under_runner;

/// Says why a traced test cannot run here and returns `false`; under `CI=true`, fails,
/// naming what the test proves (`proves`).
pub fn cannot_trace(problem: &str, proves: &str) -> bool {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{problem}: install strace (apt-get install strace) where ptrace is permitted, so {proves}"
    );
    eprintln!("skipped: {problem}");
    false
}

/// Whether `strace` is installed and may trace a child here, and what it traces is the
/// binary's own system calls (not an emulator's, under `FSMCP_TEST_RUNNER`).
pub fn strace_works(proves: &str) -> bool {
    if skip_under_runner(
        "strace would see the emulator's system calls (which it makes on the binary's behalf \
         or answers itself), not the binary's",
    ) {
        return false;
    }
    match Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .output()
    {
        Err(error) => cannot_trace(&format!("strace is missing ({error})"), proves),
        Ok(out) if !out.status.success() => cannot_trace(
            &format!(
                "strace cannot trace here ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            proves,
        ),
        Ok(_) => true,
    }
}
