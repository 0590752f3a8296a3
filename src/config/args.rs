//! The command line, parsed once into an [`Invocation`].
//!
//! [`parse_args`] mirrors ptc-fs-mcp's parser token for token, so a command line written for it is
//! accepted, refused and reported identically: `--help`/`--version` short-circuit everything, every
//! flag except the three switches takes the next token as its value whatever it looks like, and a
//! missing value is reported before an unknown flag. The fsmcp-only flags (`--tools`, `--prefix`,
//! `--read-only`, `--follow-symlinks`, `--protocol`, `--call`, `--log-level`, `--config`,
//! `--describe`, …) follow the same rules.
//!
//! On such a command line only the syntax of each value is checked here. Whether the limits fit
//! their ranges and whether an `--include` was given are decided when the root is opened, as
//! ptc-fs-mcp does (one `limits are not valid` for any range). A command line that names one of
//! fsmcp's own flags is one ptc-fs-mcp would refuse anyway, so it gets clearer words: a limit
//! outside its range is refused here, naming its flag and range, and an unknown flag is reported
//! as unknown wherever it stands (a trailing one too), with the nearest flag when one is close.
//!
//! With `--config FILE` the roots come from the file, so every flag that describes a root
//! (`--root`, `--include`, `--max-files` …) is refused next to it; the server-wide flags
//! (`--protocol`, `--log-level`, `--call`, `--describe`) combine with either form.
//!
//! ```
//! use fsmcp::config::{Invocation, parse_args};
//!
//! let argv: Vec<String> = ["--root", "work", "--include", "**", "--max-depth", "0"]
//!     .map(String::from)
//!     .to_vec();
//! let Ok(Invocation::Run(options)) = parse_args(&argv) else { panic!() };
//! assert_eq!(options.root, "work");
//! assert_eq!(options.limits.max_depth, 0);
//! ```

use std::net::SocketAddr;

use super::ConfigError;
use super::http::{HttpSettings, parse_host, parse_listen, parse_origin, parse_token_env};
use super::limits::{
    HTTP_LIMIT_SPECS, HttpLimits, LIMIT_SPECS, LimitSpec, Limits, MAX_DERIVED_CONNECTIONS,
    MAX_PAGE_BYTES, MAX_SAFE_INTEGER, MIN_READ_BYTES, MIN_RESULT_BYTES, MIN_SCAN_BYTES,
};

/// What the process was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "built once at start-up and matched by value; a Box would only add noise"
)]
pub enum Invocation {
    /// Print [`help_text`] to stdout and exit 0.
    Help,
    /// Print the version to stdout and exit 0.
    Version,
    /// Serve (or make one call) with these options.
    Run(Options),
}

/// A syntactically valid command line; ranges and the filesystem are checked later.
///
/// The root fields (`root` … `follow_symlinks`) describe the one root of the flag form; with
/// `--config` they keep their defaults (and `root` is empty), since the file describes the roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The root directory exactly as written (`--root`); resolved when the root is opened.
    pub root: String,
    /// Globs that select what is served (`--include`, repeatable, in order).
    pub includes: Vec<String>,
    /// Globs that hide what the includes selected (`--exclude`, repeatable, in order).
    pub excludes: Vec<String>,
    /// Whether the built-in exclude list applies; `--no-default-exclude` turns it off.
    pub default_excludes: bool,
    /// Every `--max-*` flag over [`Limits::default`]; ranges are not yet checked.
    pub limits: Limits,
    /// Name of the variable holding the deterministic cursor key (`--cursor-key-env`); the value
    /// itself is read later by [`resolve_cursor_key`](super::cursor_key::resolve_cursor_key).
    pub cursor_key_env: Option<String>,
    /// Which tool vocabularies to register (`--tools`).
    pub tools: ToolSelection,
    /// Prefix of the fs tool names (`--prefix`); empty means bare names.
    pub prefix: String,
    /// Register no mutating tool (`--read-only`).
    pub read_only: bool,
    /// Follow symbolic links that stay inside the root (`--follow-symlinks`).
    pub follow_symlinks: bool,
    /// Which MCP protocol generations to accept (`--protocol`).
    pub protocol: ProtocolMode,
    /// Make one tool call instead of serving (`--call`).
    pub call: Option<OneShot>,
    /// Stderr log verbosity (`--log-level`), one of [`LOG_LEVELS`]; `None` when not given.
    pub log_level: Option<String>,
    /// The JSON config file naming the roots (`--config`), exactly as written.
    pub config: Option<String>,
    /// Print the tool catalogue instead of serving (`--describe`).
    pub describe: bool,
    /// Serve Streamable HTTP instead of stdio (`--http` and its companions).
    pub http: Option<HttpSettings>,
}

/// The tool vocabularies to register; at least one is always set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolSelection {
    /// The ptc-fs-mcp tools under their original names.
    pub ptc: bool,
    /// The fs tools, named with [`Options::prefix`].
    pub fs: bool,
}

impl Default for ToolSelection {
    /// Only the ptc tools, so a ptc-fs-mcp command line behaves the same unchanged.
    fn default() -> Self {
        ToolSelection {
            ptc: true,
            fs: false,
        }
    }
}

/// Which openings the server accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProtocolMode {
    /// Both the stateless 2026-07-28 protocol and the 2025-11-25 `initialize` handshake.
    #[default]
    All,
    /// 2026-07-28 only: a legacy opening is refused, as ptc-fs-mcp refuses it.
    Modern,
}

/// One tool call requested with `--call`, made instead of serving.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneShot {
    /// The tool's name as listed by `tools/list`.
    pub tool: String,
    /// The call's arguments as raw JSON text, not yet parsed; `{}` when omitted.
    pub arguments: String,
}

/// The values `--log-level` accepts, least verbose first.
pub const LOG_LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

/// Default of `--prefix` (and of a config file's `prefix`).
pub const DEFAULT_PREFIX: &str = "fs";

/// The flags that describe a root, which a config file replaces (the `--max-*` flags too).
const ROOT_FLAGS: [&str; 9] = [
    "--root",
    "--include",
    "--exclude",
    "--no-default-exclude",
    "--tools",
    "--prefix",
    "--read-only",
    "--follow-symlinks",
    "--cursor-key-env",
];

/// ptc-fs-mcp's flags besides its limit flags (which are every [`LIMIT_SPECS`] flag but
/// `--max-call-seconds`).
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
const OWN_FLAGS: [&str; 14] = [
    "--tools",
    "--prefix",
    "--read-only",
    "--follow-symlinks",
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
];

/// Whether `token` is a flag ptc-fs-mcp does not have.
fn is_own_flag(token: &str) -> bool {
    OWN_FLAGS.contains(&token) || LimitSpec::http_by_flag(token).is_some()
}

/// Every flag fsmcp knows.
fn known_flags() -> impl Iterator<Item = &'static str> {
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
        .map(|flag| (edit_distance(&spelled, flag), flag))
        .filter(|(edits, _)| *edits <= 2)
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, flag)| flag)
}

/// Levenshtein distance between two strings, counted in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(x != *y))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// `unknown option <flag>`, ptc-fs-mcp's words; off a ptc-fs-mcp command line (`drop_in` false)
/// followed by the flag it most likely misspells.
fn unknown_option(flag: &str, drop_in: bool) -> ConfigError {
    match nearest_flag(flag).filter(|_| !drop_in) {
        Some(near) => ConfigError::new(format!("unknown option {flag}; did you mean {near}?")),
        None => ConfigError::new(format!("unknown option {flag}")),
    }
}

/// Parse `argv` (without the program name) into what the process should do.
///
/// `--help` anywhere wins, then `--version` anywhere, even in a value position, before anything
/// else is validated. Any other outcome is a [`ConfigError`] carrying the exact message to print.
pub fn parse_args(argv: &[String]) -> Result<Invocation, ConfigError> {
    if argv.iter().any(|token| token == "--help") {
        return Ok(Invocation::Help);
    }
    if argv.iter().any(|token| token == "--version") {
        return Ok(Invocation::Version);
    }
    parse_options(argv).map(Invocation::Run)
}

/// The left-to-right walk over a command line known to hold no `--help` or `--version`.
fn parse_options(argv: &[String]) -> Result<Options, ConfigError> {
    // A command line of ptc-fs-mcp's flags alone gets its answers exactly (see the module doc).
    let drop_in = !argv.iter().any(|token| is_own_flag(token));
    let mut root = None;
    let mut includes = Vec::new();
    let mut excludes = Vec::new();
    let mut default_excludes = true;
    let mut limits = Limits::default();
    let mut cursor_key_env = None;
    let mut tools = ToolSelection::default();
    let mut prefix = DEFAULT_PREFIX.to_owned();
    let mut read_only = false;
    let mut follow_symlinks = false;
    let mut protocol = ProtocolMode::default();
    let mut call = None;
    let mut log_level = None;
    let mut config = None;
    let mut describe = false;
    let mut http: Option<SocketAddr> = None;
    let mut auth_token_env = None;
    let mut allow_origins = Vec::new();
    let mut allow_hosts = Vec::new();
    let mut http_limits = HttpLimits::default();
    // The first http-only flag given, refused without `--http`.
    let mut first_http_limit: Option<&str> = None;
    // The first root-describing flag, refused if `--config` is given too.
    let mut first_root_flag: Option<&str> = None;

    let mut index = 0;
    while index < argv.len() {
        let flag = argv[index].as_str();
        index += 1;
        if first_root_flag.is_none()
            && (ROOT_FLAGS.contains(&flag) || LimitSpec::by_flag(flag).is_some())
        {
            first_root_flag = Some(flag);
        }

        // Switches first: they take no value, so the arity check must not see them.
        match flag {
            "--no-default-exclude" => {
                default_excludes = false;
                continue;
            }
            "--read-only" => {
                read_only = true;
                continue;
            }
            "--follow-symlinks" => {
                follow_symlinks = true;
                continue;
            }
            "--describe" => {
                describe = true;
                continue;
            }
            _ => {}
        }

        // Arity before identity, as ptc-fs-mcp checks: on its command lines a trailing unknown
        // token reports its missing value.
        let Some(value) = argv.get(index) else {
            if drop_in || known_flags().any(|known| known == flag) {
                return Err(ConfigError::new(format!("missing value for {flag}")));
            }
            return Err(unknown_option(flag, drop_in));
        };
        index += 1;

        match flag {
            "--root" => root = Some(value.clone()),
            "--include" => includes.push(value.clone()),
            "--exclude" => excludes.push(value.clone()),
            "--cursor-key-env" => cursor_key_env = Some(parse_env_name(value)?),
            "--tools" => tools = parse_tools(value)?,
            "--prefix" => prefix = parse_prefix(value)?,
            "--protocol" => protocol = parse_protocol(value)?,
            "--log-level" => log_level = Some(parse_log_level(value)?),
            "--config" => config = Some(parse_config_path(value)?),
            "--http" => http = Some(parse_listen(value)?),
            "--auth-token-env" => auth_token_env = Some(parse_token_env(value)?),
            "--allow-origin" => allow_origins.push(parse_origin(value)?),
            "--allow-host" => allow_hosts.push(parse_host(value)?),
            "--call" => {
                // The JSON is optional, so only a following token that cannot be a flag is taken.
                let arguments = match argv.get(index) {
                    Some(next) if !next.starts_with("--") => {
                        index += 1;
                        next.clone()
                    }
                    _ => "{}".to_owned(),
                };
                call = Some(OneShot {
                    tool: value.clone(),
                    arguments,
                });
            }
            _ => {
                let Some(spec) = LimitSpec::by_flag(flag).or_else(|| LimitSpec::http_by_flag(flag))
                else {
                    return Err(unknown_option(flag, drop_in));
                };
                let count = parse_count(flag, value)?;
                // A drop-in command line has no HTTP limit; its root limits are checked when the
                // root is opened, as ptc-fs-mcp checks them.
                if !drop_in && !spec.accepts(count) {
                    return Err(ConfigError::new(format!("{flag} {}", spec.range_rule())));
                }
                match limits.field_for_flag(flag) {
                    Some(field) => *field = count,
                    None => {
                        http_limits.set(spec, count);
                        first_http_limit.get_or_insert(spec.flag);
                    }
                }
            }
        }
    }

    let http = match http {
        Some(listen) => Some(HttpSettings {
            listen,
            auth_token_env,
            allow_origins,
            allow_hosts,
            limits: http_limits,
        }),
        None if auth_token_env.is_some() => {
            return Err(ConfigError::new("--auth-token-env needs --http"));
        }
        None if !allow_origins.is_empty() => {
            return Err(ConfigError::new("--allow-origin needs --http"));
        }
        None if !allow_hosts.is_empty() => {
            return Err(ConfigError::new("--allow-host needs --http"));
        }
        None if first_http_limit.is_some() => {
            let flag = first_http_limit.unwrap_or_default();
            return Err(ConfigError::new(format!("{flag} needs --http")));
        }
        None => None,
    };
    if http.is_some() && call.is_some() {
        return Err(ConfigError::new("--call cannot be combined with --http"));
    }
    let root = match (&config, root) {
        (Some(_), _) => {
            if let Some(flag) = first_root_flag {
                return Err(ConfigError::new(format!(
                    "--config cannot be combined with {flag}; put it in the config file"
                )));
            }
            String::new()
        }
        (None, Some(root)) => root,
        (None, None) => return Err(ConfigError::new("--root is required")),
    };
    Ok(Options {
        root,
        includes,
        excludes,
        default_excludes,
        limits,
        cursor_key_env,
        tools,
        prefix,
        read_only,
        follow_symlinks,
        protocol,
        call,
        log_level,
        config,
        describe,
        http,
    })
}

/// A limit's value: decimal digits without a leading zero, at most 2^53 − 1. `--max-depth` alone
/// also takes `0`, since a walk that stays in the root is meaningful.
fn parse_count(flag: &str, value: &str) -> Result<u64, ConfigError> {
    if flag == "--max-depth" && value == "0" {
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

/// Whether `value` is a portable environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(crate) fn is_env_name(value: &str) -> bool {
    let mut bytes = value.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// `--cursor-key-env`: a portable environment variable name.
fn parse_env_name(value: &str) -> Result<String, ConfigError> {
    if is_env_name(value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--cursor-key-env must name an environment variable",
        ))
    }
}

/// `--tools`: `ptc`, `fs`, or both in either order.
fn parse_tools(value: &str) -> Result<ToolSelection, ConfigError> {
    let names: Vec<&str> = value.split(',').collect();
    ToolSelection::from_names(&names)
        .ok_or_else(|| ConfigError::new("--tools must be ptc, fs, or ptc,fs"))
}

impl ToolSelection {
    /// The selection naming `ptc`, `fs`, or both in either order, each once; `None` otherwise.
    pub fn from_names(names: &[&str]) -> Option<ToolSelection> {
        match names {
            ["ptc"] => Some(ToolSelection {
                ptc: true,
                fs: false,
            }),
            ["fs"] => Some(ToolSelection {
                ptc: false,
                fs: true,
            }),
            ["ptc", "fs"] | ["fs", "ptc"] => Some(ToolSelection {
                ptc: true,
                fs: true,
            }),
            _ => None,
        }
    }
}

/// Whether `value` is a valid fs tool prefix: empty, or a letter followed by at most 31
/// letters, digits, `_` or `-`, so every prefixed tool name stays a short, portable identifier.
pub(crate) fn is_prefix(value: &str) -> bool {
    let bytes = value.as_bytes();
    value.is_empty()
        || (bytes.len() <= 32
            && bytes[0].is_ascii_alphabetic()
            && bytes[1..]
                .iter()
                .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'_' || *byte == b'-'))
}

/// `--prefix`: see [`is_prefix`].
fn parse_prefix(value: &str) -> Result<String, ConfigError> {
    if is_prefix(value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--prefix must be empty or a name of letters, digits, underscores or hyphens",
        ))
    }
}

/// `--config`: any non-empty path; whether it can be read is decided when it is loaded.
fn parse_config_path(value: &str) -> Result<String, ConfigError> {
    if value.is_empty() {
        Err(ConfigError::new("--config must name a file"))
    } else {
        Ok(value.to_owned())
    }
}

/// `--protocol`: `all` or `2026-07-28`.
fn parse_protocol(value: &str) -> Result<ProtocolMode, ConfigError> {
    match value {
        "all" => Ok(ProtocolMode::All),
        "2026-07-28" => Ok(ProtocolMode::Modern),
        _ => Err(ConfigError::new("--protocol must be all or 2026-07-28")),
    }
}

/// `--log-level`: one of [`LOG_LEVELS`], lower case.
fn parse_log_level(value: &str) -> Result<String, ConfigError> {
    if LOG_LEVELS.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--log-level must be one of error, warn, info, debug, trace",
        ))
    }
}

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
  --max-files <n>              Files one traversal may select. Default {max_files}.
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
  --tools <set>                Tools to offer: ptc, fs or ptc,fs. Default ptc.
  --prefix <name>              Prefix of the fs tool names ('' for none). Default {DEFAULT_PREFIX}.
  --read-only                  Offer no tool that modifies files.
  --follow-symlinks            Follow links that stay inside the root instead of skipping them.
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
--max-call-seconds 1 to 86400.
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
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(tokens: &[&str]) -> Vec<String> {
        tokens.iter().map(|token| token.to_string()).collect()
    }

    fn parse(tokens: &[&str]) -> Result<Invocation, ConfigError> {
        parse_args(&argv(tokens))
    }

    fn run(tokens: &[&str]) -> Options {
        match parse(tokens) {
            Ok(Invocation::Run(options)) => options,
            other => panic!("{tokens:?} gave {other:?}"),
        }
    }

    fn error(tokens: &[&str]) -> String {
        match parse(tokens) {
            Err(err) => err.to_string(),
            other => panic!("{tokens:?} gave {other:?}"),
        }
    }

    #[test]
    fn help_and_version_win_anywhere_before_validation() {
        let cases: &[(&[&str], Invocation)] = &[
            (&["--help"], Invocation::Help),
            (&["--version"], Invocation::Version),
            (&["x", "--help"], Invocation::Help),
            (&["--bogus", "--version"], Invocation::Version),
            (&["--max-files", "0", "--help"], Invocation::Help),
            // As a value it still counts, exactly like ptc-fs-mcp's `argv.includes`.
            (&["--root", "--help"], Invocation::Help),
            (&["--include", "--version"], Invocation::Version),
            // --help outranks --version whatever their order.
            (&["--version", "--help"], Invocation::Help),
            (&["--help", "--version"], Invocation::Help),
        ];
        for (tokens, expected) in cases {
            assert_eq!(parse(tokens).as_ref(), Ok(expected), "{tokens:?}");
        }
    }

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
            assert_eq!(run(&["--root", "x", "--prefix", good]).prefix, good);
        }
        for wrong in ["1fs", "_fs", "-fs", "f s", "fs.", "fś", too_long.as_str()] {
            assert_eq!(error(&["--root", "x", "--prefix", wrong]), bad, "{wrong:?}");
        }
    }

    #[test]
    fn config_replaces_the_root_flags() {
        let options = run(&["--config", "cfg.json"]);
        assert_eq!(options.config.as_deref(), Some("cfg.json"));
        assert_eq!(options.root, "");
        assert!(!options.describe);
        // The server-wide flags combine with it, in any order.
        let options = run(&[
            "--describe",
            "--protocol",
            "2026-07-28",
            "--config",
            "c",
            "--log-level",
            "warn",
            "--call",
            "t",
        ]);
        assert!(options.describe);
        assert_eq!(options.protocol, ProtocolMode::Modern);
        assert_eq!(options.call.map(|c| c.tool).as_deref(), Some("t"));
        // Every root flag is refused next to it, the first one met named.
        let cases: &[&[&str]] = &[
            &["--root", "r"],
            &["--include", "**"],
            &["--exclude", "x"],
            &["--no-default-exclude"],
            &["--tools", "fs"],
            &["--prefix", "p"],
            &["--read-only"],
            &["--follow-symlinks"],
            &["--cursor-key-env", "K"],
            &["--max-files", "5"],
            &["--max-depth", "0"],
            &["--max-cursor-hash-bytes", "9"],
        ];
        for tokens in cases {
            let expected = format!(
                "--config cannot be combined with {}; put it in the config file",
                tokens[0]
            );
            let mut before = argv(tokens);
            before.extend(argv(&["--config", "c", "--read-only"]));
            assert_eq!(parse_args(&before).unwrap_err().to_string(), expected);
            let mut after = argv(&["--config", "c"]);
            after.extend(argv(tokens));
            assert_eq!(parse_args(&after).unwrap_err().to_string(), expected);
        }
        // Syntax errors met while walking still come first.
        assert_eq!(
            error(&["--config", "c", "--max-files", "0"]),
            "--max-files must be a positive integer"
        );
        assert_eq!(error(&["--config"]), "missing value for --config");
        assert_eq!(error(&["--config", ""]), "--config must name a file");
        // --describe is a switch in the flag form too.
        assert!(run(&["--root", "x", "--describe"]).describe);
        assert_eq!(error(&["--describe"]), "--root is required");
    }

    #[test]
    fn defaults() {
        let options = run(&["--root", "."]);
        assert_eq!(
            options,
            Options {
                root: ".".into(),
                includes: vec![],
                excludes: vec![],
                default_excludes: true,
                limits: Limits::default(),
                cursor_key_env: None,
                tools: ToolSelection {
                    ptc: true,
                    fs: false
                },
                prefix: "fs".into(),
                read_only: false,
                follow_symlinks: false,
                protocol: ProtocolMode::All,
                call: None,
                log_level: None,
                config: None,
                describe: false,
                http: None,
            }
        );
    }

    #[test]
    fn http_flags() {
        let options = run(&[
            "--root",
            ".",
            "--http",
            "127.0.0.1:8080",
            "--auth-token-env",
            "TOKEN",
            "--allow-origin",
            "http://localhost:6274",
            "--allow-host",
            "fs.example.com",
        ]);
        let http = options.http.expect("http settings");
        assert_eq!(http.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(http.auth_token_env.as_deref(), Some("TOKEN"));
        assert_eq!(http.allow_origins, ["http://localhost:6274"]);
        assert_eq!(http.allow_hosts, ["fs.example.com"]);
        assert_eq!(
            error(&["--root", ".", "--allow-host", "a"]),
            "--allow-host needs --http"
        );
        assert_eq!(http.limits, HttpLimits::default());
        let limited = run(&[
            "--root",
            ".",
            "--http",
            "127.0.0.1:1",
            "--http-header-read-seconds",
            "3",
            "--http-idle-seconds",
            "4",
            "--http-max-connections",
            "5",
        ]);
        let limits = limited.http.expect("http settings").limits;
        assert_eq!(
            (
                limits.header_read_seconds,
                limits.idle_seconds,
                limits.max_connections
            ),
            (3, 4, Some(5))
        );
        assert_eq!(
            error(&["--root", ".", "--http-idle-seconds", "4"]),
            "--http-idle-seconds needs --http"
        );
        assert_eq!(
            error(&[
                "--root",
                ".",
                "--http",
                "127.0.0.1:1",
                "--http-max-connections",
                "0"
            ]),
            "--http-max-connections must be a positive integer"
        );
        assert_eq!(
            error(&[
                "--root",
                ".",
                "--http",
                "127.0.0.1:1",
                "--http-header-read-seconds",
                "3601"
            ]),
            "--http-header-read-seconds must be an integer from 1 to 3600"
        );
        assert_eq!(
            error(&["--root", ".", "--http", "127.0.0.1:1", "--call", "x"]),
            "--call cannot be combined with --http"
        );
        // Server-wide: combines with a config file.
        assert!(
            run(&["--config", "c.json", "--http", "127.0.0.1:1"])
                .http
                .is_some()
        );
    }

    #[test]
    fn every_flag_lands_in_its_field() {
        let options = run(&[
            "--root",
            "/srv",
            "--include",
            "lib/**",
            "--exclude",
            "lib/private/**",
            "--include",
            "**",
            "--no-default-exclude",
            "--read-only",
            "--follow-symlinks",
            "--max-files",
            "1",
            "--max-directories",
            "2",
            "--max-depth",
            "3",
            "--max-entries",
            "4",
            "--max-scan-bytes",
            "16389",
            "--max-file-bytes",
            "6",
            "--max-read-bytes",
            "7",
            "--max-result-bytes",
            "48008",
            "--max-write-bytes",
            "9",
            "--max-cursor-hash-bytes",
            "9007199254740991",
            "--cursor-key-env",
            "_KEY_1",
            "--tools",
            "fs,ptc",
            "--prefix",
            "",
            "--protocol",
            "2026-07-28",
            "--log-level",
            "debug",
            "--call",
            "read_text_file",
            r#"{"path":"a"}"#,
        ]);
        assert_eq!(options.root, "/srv");
        assert_eq!(options.includes, ["lib/**", "**"]);
        assert_eq!(options.excludes, ["lib/private/**"]);
        assert!(!options.default_excludes);
        assert!(options.read_only);
        assert!(options.follow_symlinks);
        // With fsmcp's own flags given, ranges are checked here: these limits are in range.
        assert_eq!(
            options.limits,
            Limits {
                max_files: 1,
                max_directories: 2,
                max_depth: 3,
                max_entries: 4,
                max_scan_bytes: 16389,
                max_file_bytes: 6,
                max_read_bytes: 7,
                max_result_bytes: 48008,
                max_write_bytes: 9,
                max_cursor_hash_bytes: MAX_SAFE_INTEGER,
                max_call_seconds: 60,
            }
        );
        assert!(options.limits.is_valid());
        assert_eq!(options.cursor_key_env.as_deref(), Some("_KEY_1"));
        assert_eq!(
            options.tools,
            ToolSelection {
                ptc: true,
                fs: true
            }
        );
        assert_eq!(options.prefix, "");
        assert_eq!(options.protocol, ProtocolMode::Modern);
        assert_eq!(options.log_level.as_deref(), Some("debug"));
        assert_eq!(
            options.call,
            Some(OneShot {
                tool: "read_text_file".into(),
                arguments: r#"{"path":"a"}"#.into()
            })
        );
    }

    #[test]
    fn values_are_taken_whatever_they_look_like() {
        let options = run(&[
            "--root",
            "--include",
            "--include",
            "--root",
            "--exclude",
            "-x",
        ]);
        assert_eq!(options.root, "--include");
        assert_eq!(options.includes, ["--root"]);
        assert_eq!(options.excludes, ["-x"]);
        // A switch in value position is a value, not a switch.
        let options = run(&["--root", "--read-only"]);
        assert_eq!(options.root, "--read-only");
        assert!(!options.read_only);
    }

    #[test]
    fn ptc_flags_alone_leave_ranges_to_the_root_and_keep_arity_first() {
        let options = run(&[
            "--root",
            "r",
            "--max-read-bytes",
            "3",
            "--max-scan-bytes",
            "5",
        ]);
        assert_eq!(
            (options.limits.max_read_bytes, options.limits.max_scan_bytes),
            (3, 5)
        );
        assert!(!options.limits.is_valid());
        assert_eq!(
            error(&["--root", "r", "--read_only"]),
            "missing value for --read_only"
        );
        assert_eq!(
            error(&["--root", "r", "--read_only", "x"]),
            "unknown option --read_only"
        );
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

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("--read-only", "--read-only"), 0);
        assert_eq!(edit_distance("ü", "u"), 1);
    }

    #[test]
    fn switches_take_no_value() {
        let options = run(&["--read-only", "--root", "x", "--no-default-exclude"]);
        assert!(options.read_only);
        assert!(!options.default_excludes);
        // `x` stands where a flag would, and is none (ptc-fs-mcp, which has no such switch, is
        // not the reference here).
        assert_eq!(error(&["--follow-symlinks", "x"]), "unknown option x");
    }

    #[test]
    fn the_last_single_value_wins() {
        let options = run(&[
            "--root",
            "a",
            "--root",
            "b",
            "--max-files",
            "5",
            "--max-files",
            "7",
            "--tools",
            "fs",
            "--tools",
            "ptc",
            "--prefix",
            "x",
            "--prefix",
            "y",
            "--cursor-key-env",
            "A",
            "--cursor-key-env",
            "B",
        ]);
        assert_eq!(options.root, "b");
        assert_eq!(options.limits.max_files, 7);
        assert_eq!(
            options.tools,
            ToolSelection {
                ptc: true,
                fs: false
            }
        );
        assert_eq!(options.prefix, "y");
        assert_eq!(options.cursor_key_env.as_deref(), Some("B"));
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
        assert_eq!(options.limits.max_depth, 0);
        assert_eq!(options.limits.max_files, MAX_SAFE_INTEGER);
        // Out-of-range but well-formed limits pass the parser.
        let options = run(&["--root", "x", "--max-read-bytes", "3"]);
        assert_eq!(options.limits.max_read_bytes, 3);
    }

    #[test]
    fn call_takes_optional_json() {
        let cases: &[(&[&str], &str, &str, &[&str])] = &[
            (&["--call", "t"], "t", "{}", &[]),
            (&["--call", "t", "[1]"], "t", "[1]", &[]),
            (&["--call", "t", "--include", "**"], "t", "{}", &["**"]),
            (
                &["--call", "t", "{}", "--include", "**"],
                "t",
                "{}",
                &["**"],
            ),
            (&["--call", "t", "-x"], "t", "-x", &[]),
            (&["--call", "t", ""], "t", "", &[]),
            (&["--call", "--root", "x"], "--root", "x", &[]),
        ];
        for (tokens, tool, arguments, includes) in cases {
            let mut full = argv(&["--root", "r"]);
            full.extend(argv(tokens));
            let Ok(Invocation::Run(options)) = parse_args(&full) else {
                panic!("{tokens:?}");
            };
            let call = options.call.expect("a call");
            assert_eq!(
                (call.tool.as_str(), call.arguments.as_str()),
                (*tool, *arguments)
            );
            assert_eq!(options.includes, *includes, "{tokens:?}");
        }
        // With no JSON, the token after the tool is parsed as a flag again.
        assert_eq!(
            error(&["--root", "r", "--call", "t", "--bogus"]),
            "unknown option --bogus"
        );
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
                run(&["--root", "x", "--tools", value]).tools,
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
        for flag in [
            "--root",
            "--include",
            "--exclude",
            "--no-default-exclude",
            "--max-files",
            "--max-directories",
            "--max-depth",
            "--max-entries",
            "--max-scan-bytes",
            "--max-file-bytes",
            "--max-read-bytes",
            "--max-result-bytes",
            "--max-write-bytes",
            "--cursor-key-env",
            "--max-cursor-hash-bytes",
            "--tools",
            "--prefix",
            "--read-only",
            "--follow-symlinks",
            "--protocol",
            "--call",
            "--log-level",
            "--help",
            "--version",
        ] {
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
        ] {
            assert!(text.contains(&format!("Default {default}.")), "{default}");
        }
        assert!(
            text.lines().all(|line| line.len() <= 100),
            "a help line is too long"
        );
    }
}
