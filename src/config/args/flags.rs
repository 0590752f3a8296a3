//! The flags themselves: which fsmcp knows and whose they are (ptc-fs-mcp's, its own, a root's),
//! the nearest one to a misspelling, and the syntax of each flag's value. The walk in
//! [`super`] decides when each is used; these only name and check.

use super::LOG_LEVELS;
use crate::config::limits::{HTTP_LIMIT_SPECS, LIMIT_SPECS, LimitSpec, MAX_SAFE_INTEGER};
use crate::config::{ConfigError, PREFIX_RULE, ProtocolMode, ToolSelection, is_prefix};

/// The flags that describe a root, which a config file replaces (the `--max-*` flags too).
pub(super) const ROOT_FLAGS: [&str; 10] = [
    "--root",
    "--include",
    "--exclude",
    "--no-default-exclude",
    "--tools",
    "--prefix",
    "--read-only",
    "--follow-symlinks",
    "--respect-gitignore",
    "--cursor-key-env",
];

/// ptc-fs-mcp's flags besides its limit flags (which are every [`LIMIT_SPECS`] flag but
/// `--max-call-seconds`, `--max-image-bytes` and `--copy-reserve-bytes`, fsmcp's own).
const PTC_FLAGS: [&str; 7] = [
    "--root",
    "--include",
    "--exclude",
    "--no-default-exclude",
    "--cursor-key-env",
    "--help",
    "--version",
];

/// The flags only fsmcp has, besides the HTTP limit flags.
const OWN_FLAGS: [&str; 17] = [
    "--tools",
    "--prefix",
    "--read-only",
    "--follow-symlinks",
    "--respect-gitignore",
    "--protocol",
    "--call",
    "--log-level",
    "--config",
    "--describe",
    "--http",
    "--auth-token-env",
    "--allow-origin",
    "--allow-host",
    "--max-call-seconds",
    "--max-image-bytes",
    "--copy-reserve-bytes",
];

/// Whether `token` is a flag ptc-fs-mcp does not have.
pub(super) fn is_own_flag(token: &str) -> bool {
    OWN_FLAGS.contains(&token) || LimitSpec::http_by_flag(token).is_some()
}

/// Every flag fsmcp knows.
pub(super) fn known_flags() -> impl Iterator<Item = &'static str> {
    PTC_FLAGS
        .into_iter()
        .chain(OWN_FLAGS)
        .chain(LIMIT_SPECS.iter().map(|spec| spec.flag))
        .chain(HTTP_LIMIT_SPECS.iter().map(|spec| spec.flag))
}

/// The known flag `token` most likely misspells: the nearest within two edits, once case and
/// `_` for `-` are forgiven.
fn nearest_flag(token: &str) -> Option<&'static str> {
    let spelled = token.to_ascii_lowercase().replace('_', "-");
    known_flags()
        .map(|flag| (crate::spelling::edit_distance(&spelled, flag), flag))
        .filter(|(edits, _)| *edits <= 2)
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, flag)| flag)
}

/// `unknown option <flag>`, ptc-fs-mcp's words; off a ptc-fs-mcp command line (`drop_in` false)
/// followed by the flag it most likely misspells.
pub(super) fn unknown_option(flag: &str, drop_in: bool) -> ConfigError {
    match nearest_flag(flag).filter(|_| !drop_in) {
        Some(near) => ConfigError::new(format!("unknown option {flag}; did you mean {near}?")),
        None => ConfigError::new(format!("unknown option {flag}")),
    }
}

/// A limit's value: decimal digits without a leading zero, at most 2^53 − 1. The limits whose
/// range starts at 0 also take `0`: `--max-depth` (a walk that stays in the root is
/// meaningful) and `--copy-reserve-bytes` (no reserve).
pub(super) fn parse_count(flag: &str, value: &str) -> Result<u64, ConfigError> {
    if value == "0" && LimitSpec::by_flag(flag).is_some_and(|spec| spec.min == 0) {
        return Ok(0);
    }
    let digits = value.as_bytes();
    let well_formed = matches!(digits.first(), Some(b'1'..=b'9'))
        && digits.iter().all(|byte| byte.is_ascii_digit());
    if !well_formed {
        return Err(ConfigError::new(format!(
            "{flag} must be a positive integer"
        )));
    }
    // Only overflow can make a well-formed value fail to parse.
    match value.parse::<u64>() {
        Ok(n) if n <= MAX_SAFE_INTEGER => Ok(n),
        _ => Err(ConfigError::new(format!("{flag} is too large"))),
    }
}

/// `--tools`: `ptc`, `fs`, or both in either order.
pub(super) fn parse_tools(value: &str) -> Result<ToolSelection, ConfigError> {
    let names: Vec<&str> = value.split(',').collect();
    ToolSelection::from_names(&names)
        .ok_or_else(|| ConfigError::new("--tools must be ptc, fs, or ptc,fs"))
}

/// `--prefix`: see [`is_prefix`].
pub(super) fn parse_prefix(value: &str) -> Result<String, ConfigError> {
    if is_prefix(value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(format!("--prefix {PREFIX_RULE}")))
    }
}

/// `--config`: any non-empty path; whether it can be read is decided when it is loaded.
pub(super) fn parse_config_path(value: &str) -> Result<String, ConfigError> {
    if value.is_empty() {
        Err(ConfigError::new("--config must name a file"))
    } else {
        Ok(value.to_owned())
    }
}

/// `--protocol`: `all` or `2026-07-28`.
pub(super) fn parse_protocol(value: &str) -> Result<ProtocolMode, ConfigError> {
    match value {
        "all" => Ok(ProtocolMode::All),
        "2026-07-28" => Ok(ProtocolMode::Modern),
        _ => Err(ConfigError::new("--protocol must be all or 2026-07-28")),
    }
}

/// `--log-level`: one of [`LOG_LEVELS`], lower case.
pub(super) fn parse_log_level(value: &str) -> Result<String, ConfigError> {
    if LOG_LEVELS.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--log-level must be one of error, warn, info, debug, trace",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::args::tests::{error, run};

    #[test]
    fn short_help_is_not_special() {
        assert_eq!(error(&["-h"]), "missing value for -h");
        assert_eq!(error(&["-h", "x"]), "unknown option -h");
    }

    #[test]
    fn errors_carry_exact_messages_in_validation_order() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "--root is required"),
            (&["--include", "**"], "--root is required"),
            (&["--root"], "missing value for --root"),
            (&["--root", "x", "--include"], "missing value for --include"),
            // Arity is checked before the flag is recognised.
            (&["--root", "x", "--bogus"], "missing value for --bogus"),
            (&["--root", "x", "stray"], "missing value for stray"),
            (&["--bogus", "v"], "unknown option --bogus"),
            (&["foo", "bar"], "unknown option foo"),
            (&["--root", "x", "-x", "1"], "unknown option -x"),
            // The first error met while walking wins over --root is required.
            (
                &["--max-files", "0"],
                "--max-files must be a positive integer",
            ),
            (
                &["--bogus", "v", "--max-files", "0"],
                "unknown option --bogus",
            ),
            (
                &["--max-files", "01"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", ""],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", "-1"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", "+1"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", "1.0"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", "1e3"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", " 1"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-files", "١"],
                "--max-files must be a positive integer",
            ),
            (
                &["--max-depth", "00"],
                "--max-depth must be a positive integer",
            ),
            (
                &["--max-depth", "-0"],
                "--max-depth must be a positive integer",
            ),
            (
                &["--max-files", "9007199254740992"],
                "--max-files is too large",
            ),
            (
                &["--max-file-bytes", "99999999999999999999999"],
                "--max-file-bytes is too large",
            ),
            (
                &["--max-depth", "9007199254740992"],
                "--max-depth is too large",
            ),
            (
                &["--cursor-key-env", "1KEY"],
                "--cursor-key-env must name an environment variable",
            ),
            (
                &["--cursor-key-env", ""],
                "--cursor-key-env must name an environment variable",
            ),
            (
                &["--cursor-key-env", "A-B"],
                "--cursor-key-env must name an environment variable",
            ),
            (
                &["--cursor-key-env", "KÉY"],
                "--cursor-key-env must name an environment variable",
            ),
            (&["--tools", "all"], "--tools must be ptc, fs, or ptc,fs"),
            (&["--tools", "ptc,"], "--tools must be ptc, fs, or ptc,fs"),
            (&["--tools", "PTC"], "--tools must be ptc, fs, or ptc,fs"),
            (&["--tools", ""], "--tools must be ptc, fs, or ptc,fs"),
            (
                &["--protocol", "2025-11-25"],
                "--protocol must be all or 2026-07-28",
            ),
            (
                &["--protocol", "ALL"],
                "--protocol must be all or 2026-07-28",
            ),
            (
                &["--log-level", "verbose"],
                "--log-level must be one of error, warn, info, debug, trace",
            ),
            (
                &["--log-level", "INFO"],
                "--log-level must be one of error, warn, info, debug, trace",
            ),
            (&["--call"], "missing value for --call"),
            (&["--root", "x", "--call"], "missing value for --call"),
        ];
        for (tokens, expected) in cases {
            assert_eq!(error(tokens), *expected, "{tokens:?}");
        }
    }

    #[test]
    fn prefix_accepts_empty_or_a_short_name() {
        let bad = "--prefix must be empty or a name of letters, digits, underscores or hyphens";
        let max = format!("a{}", "b".repeat(31));
        let too_long = format!("a{}", "b".repeat(32));
        for good in ["", "fs", "F", "my_fs-2", max.as_str()] {
            assert_eq!(run(&["--root", "x", "--prefix", good]).root.prefix, good);
        }
        for wrong in ["1fs", "_fs", "-fs", "f s", "fs.", "fś", too_long.as_str()] {
            assert_eq!(error(&["--root", "x", "--prefix", wrong]), bad, "{wrong:?}");
        }
    }

    #[test]
    fn own_flags_bring_ranges_and_unknown_flags_forward() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--root", "r", "--tools", "fs", "--max-read-bytes", "3"],
                "--max-read-bytes must be an integer from 4 to 1048576",
            ),
            (
                &["--max-call-seconds", "86401"],
                "--max-call-seconds must be an integer from 1 to 86400",
            ),
            (
                &["--root", "r", "--describe", "--read_only"],
                "unknown option --read_only; did you mean --read-only?",
            ),
            (&["--describe", "--root"], "missing value for --root"),
            (
                &["--describe", "--ROOT", "r"],
                "unknown option --ROOT; did you mean --root?",
            ),
            (
                &["--describe", "--http-idle-second", "5"],
                "unknown option --http-idle-second; did you mean --http-idle-seconds?",
            ),
            (&["--describe", "--bogus", "x"], "unknown option --bogus"),
        ];
        for (tokens, message) in cases {
            assert_eq!(error(tokens), *message, "{tokens:?}");
        }
    }

    #[test]
    fn numbers_at_the_edges() {
        let options = run(&[
            "--root",
            "x",
            "--max-depth",
            "0",
            "--max-files",
            "9007199254740991",
        ]);
        assert_eq!(options.root.limits.max_depth, 0);
        assert_eq!(options.root.limits.max_files, MAX_SAFE_INTEGER);
        // Out-of-range but well-formed limits pass the parser.
        let options = run(&["--root", "x", "--max-read-bytes", "3"]);
        assert_eq!(options.root.limits.max_read_bytes, 3);
    }

    #[test]
    fn tools_and_protocol_values() {
        let cases = [
            ("ptc", true, false),
            ("fs", false, true),
            ("ptc,fs", true, true),
            ("fs,ptc", true, true),
        ];
        for (value, ptc, fs) in cases {
            assert_eq!(
                run(&["--root", "x", "--tools", value]).root.tools,
                ToolSelection { ptc, fs }
            );
        }
        assert_eq!(
            run(&["--root", "x", "--protocol", "all"]).protocol,
            ProtocolMode::All
        );
        for level in LOG_LEVELS {
            assert_eq!(
                run(&["--root", "x", "--log-level", level])
                    .log_level
                    .as_deref(),
                Some(level)
            );
        }
    }
}
