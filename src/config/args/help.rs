//! The `--help` text: prose, kept apart from the parser it describes. A test holds the two
//! together (every flag the parser knows is listed, and nothing else).

use crate::config::DEFAULT_PREFIX;
use crate::config::limits::{
    HttpLimits, Limits, MAX_DERIVED_CONNECTIONS, MAX_IMAGE_BYTES, MAX_PAGE_BYTES, MIN_READ_BYTES,
    MIN_RESULT_BYTES, MIN_SCAN_BYTES,
};

/// The `--help` text, without a trailing newline; defaults are taken from [`Limits::default`] so
/// the text cannot drift from the code.
pub fn help_text() -> String {
    let d = Limits::default();
    let HttpLimits {
        header_read_seconds,
        idle_seconds,
        ..
    } = HttpLimits::default();
    let version = crate::SERVER_VERSION;
    format!(
        "\
fsmcp {version} -- filesystem MCP server over stdio or Streamable HTTP

Usage:
  fsmcp --root <dir> --include <glob> [--include <glob>...] [options]
  fsmcp --root <dir> --include <glob> --call <tool> [<json-arguments>]
  fsmcp --config <file> [--protocol <mode>] [--call <tool> [<json-arguments>]] [--describe]

Options:
  --root <dir>                 Serve this directory and nothing outside it. Required.
  --include <glob>             Serve paths matching the glob. Required; repeatable.
  --exclude <glob>             Hide paths matching the glob, even if included. Repeatable.
  --no-default-exclude         Drop the built-in excludes (dependency dirs, .git, .env, keys).
  --max-files <n>              Files one traversal may select. Default {max_files}. The fs
                               tools heed it, --max-directories and --max-entries only when given.
  --max-directories <n>        Directories one traversal may enter. Default {max_directories}.
  --max-depth <n>              Deepest nesting a walk reaches; 0 = root only. Default {max_depth}.
  --max-entries <n>            Directory entries one traversal may read. Default {max_entries}.
  --max-scan-bytes <n>         Bytes one search_text page may scan. Default {max_scan_bytes}.
  --max-file-bytes <n>         Files larger than this are not served. Default {max_file_bytes}.
  --max-read-bytes <n>         Source bytes per read_text_file page. Default {max_read_bytes}.
  --max-result-bytes <n>       Ceiling on one whole tool result. Default {max_result_bytes}.
  --max-write-bytes <n>        Largest content write_text_file accepts. Default {max_write_bytes}.
  --cursor-key-env <name>      Variable with a base64url key (32+ bytes) for restart-proof cursors.
  --max-cursor-hash-bytes <n>  Uncached bytes a deterministic call may hash. Default {max_cursor_hash_bytes}.
  --max-call-seconds <n>       Seconds one call may spend walking and reading. Default {max_call_seconds}.
  --max-image-bytes <n>        Largest image fs_read returns as an image. Default {max_image_bytes}.
  --copy-reserve-bytes <n>     Copies leave a tenth of the disk free, at most n bytes (0: none).
                               Default {copy_reserve_bytes}.
  --tools <set>                Tools to offer: ptc, fs or ptc,fs. Default ptc.
  --prefix <name>              Prefix of the fs tool names ('' for none). Default {DEFAULT_PREFIX}.
  --read-only                  Offer no tool that modifies files.
  --follow-symlinks            Follow links that stay inside the root instead of skipping them.
  --respect-gitignore          Make fs glob, grep, map and symbols skip what .gitignore ignores.
  --protocol <mode>            all (2026-07-28 and 2025-11-25) or 2026-07-28. Default all.
  --call <tool> [<json>]       Make one tool call, print its result and exit. Arguments default {{}}.
  --log-level <level>          Log to stderr at error, warn, info, debug or trace.
  --config <file>              Serve the roots a JSON config file names, instead of the root flags.
  --describe                   Print every tool's name, description and input schema, then exit.
  --http <addr:port>           Serve Streamable HTTP at http://<addr:port>/mcp instead of stdio.
  --auth-token-env <name>      Variable with the bearer token HTTP requests must carry (16+ bytes).
                               Required when --http is not a loopback address.
  --allow-origin <origin>      Browser origin allowed over HTTP (scheme://host[:port]). Repeatable.
  --allow-host <host>          Host header accepted over HTTP besides loopback names. Repeatable.
  --http-header-read-seconds <n>
                               Seconds an HTTP connection has to send headers. Default {header_read_seconds}.
  --http-idle-seconds <n>      Seconds a silent HTTP connection stays open. Default {idle_seconds}.
  --http-max-connections <n>   Most HTTP connections open at once. Default: half the
                               descriptor limit, at most {MAX_DERIVED_CONNECTIONS}.
  --help                       Print this text and exit.
  --version                    Print the version and exit.

Limits outside their range stop start-up: --max-read-bytes {MIN_READ_BYTES} to {MAX_PAGE_BYTES},
--max-result-bytes {MIN_RESULT_BYTES} to {MAX_PAGE_BYTES}, --max-scan-bytes at least {MIN_SCAN_BYTES},
--max-call-seconds 1 to 86400, --max-image-bytes 1 to {MAX_IMAGE_BYTES}.
Paths are relative to the root. MCP messages use stdin and stdout (or HTTP with --http);
diagnostics go to stderr.",
        max_files = d.max_files,
        max_directories = d.max_directories,
        max_depth = d.max_depth,
        max_entries = d.max_entries,
        max_scan_bytes = d.max_scan_bytes,
        max_file_bytes = d.max_file_bytes,
        max_read_bytes = d.max_read_bytes,
        max_result_bytes = d.max_result_bytes,
        max_write_bytes = d.max_write_bytes,
        max_cursor_hash_bytes = d.max_cursor_hash_bytes,
        max_call_seconds = d.max_call_seconds,
        max_image_bytes = d.max_image_bytes,
        copy_reserve_bytes = d.copy_reserve_bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::args::flags::known_flags;

    #[test]
    fn help_text_shape() {
        let text = help_text();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(
                format!(
                    "fsmcp {} -- filesystem MCP server over stdio or Streamable HTTP",
                    crate::SERVER_VERSION
                )
                .as_str()
            )
        );
        assert_eq!(lines.next(), Some(""));
        assert!(text.contains(
            "Usage:\n  fsmcp --root <dir> --include <glob> [--include <glob>...] [options]\n  \
             fsmcp --root <dir> --include <glob> --call <tool> [<json-arguments>]\n"
        ));
        assert!(!text.ends_with('\n'));
        for flag in known_flags() {
            assert!(
                text.lines()
                    .any(|line| line.starts_with(&format!("  {flag} "))),
                "{flag} is not listed"
            );
        }
        for default in [
            "50000",
            "64",
            "1000000",
            "4194304",
            "9007199254740991",
            "16384",
            "5242880",
        ] {
            assert!(text.contains(&format!("Default {default}.")), "{default}");
        }
        assert!(
            text.lines().all(|line| line.len() <= 100),
            "a help line is too long"
        );
    }

    #[test]
    fn the_flag_lists_are_the_help_texts_flags() {
        let help = help_text();
        let listed: Vec<&str> = help
            .split_whitespace()
            .filter(|word| word.starts_with("--") && word.len() > 2)
            .map(|word| word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
            .collect();
        for flag in known_flags() {
            assert!(listed.contains(&flag), "{flag} is not in --help");
        }
        for flag in listed {
            assert!(
                known_flags().any(|known| known == flag),
                "{flag} is not known"
            );
        }
    }
}
