//! The command line, parsed once into an [`Invocation`]: the walk over its tokens is here, what
//! each flag is and what its value may be in `flags`, the `--help` text in `help`.
//!
//! [`parse_args`] mirrors ptc-fs-mcp's parser token for token, so a command line written for it is
//! accepted, refused and reported identically: `--help`/`--version` short-circuit everything, every
//! flag except the three switches takes the next token as its value whatever it looks like, and a
//! missing value is reported before an unknown flag. The fsmcp-only flags (`--tools`, `--prefix`,
//! `--read-only`, `--follow-symlinks`, `--respect-gitignore`, `--protocol`, `--call`,
//! `--log-level`, `--config`, `--describe`, …) follow the same rules.
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
//! assert_eq!(options.root.root, std::path::Path::new("work"));
//! assert_eq!(options.root.limits.max_depth, 0);
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;

use super::http::{HttpSettings, parse_host, parse_listen, parse_origin, parse_token_env};
use super::limits::{HttpLimits, LimitSpec};
use super::{ConfigError, ProtocolMode, RootConfig, parse_env_name};
use flags::{
    ROOT_FLAGS, is_own_flag, known_flags, parse_config_path, parse_count, parse_log_level,
    parse_prefix, parse_protocol, parse_tools, unknown_option,
};

mod flags;
mod help;
#[cfg(test)]
mod tests;

pub use help::help_text;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The one root of the flag form, as the root flags describe it: `--root` exactly as
    /// written (resolved when the root is opened), `--include` and `--exclude` in order,
    /// `--no-default-exclude`, every `--max-*` flag over [`Limits::default`](super::Limits)
    /// (ranges not yet checked), `--cursor-key-env` (the key itself is read later by
    /// [`resolve_cursor_key`](super::cursor_key::resolve_cursor_key)), `--tools`, `--prefix`,
    /// `--read-only`, `--follow-symlinks` and `--respect-gitignore`. With `--config` it keeps its defaults and an empty
    /// `root`, since the file describes the roots.
    pub root: RootConfig,
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
    // The root flags fill the flag form's one root; `--root` is kept apart, being required.
    let mut root = RootConfig::default();
    let mut root_dir = None;
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
                root.default_excludes = false;
                continue;
            }
            "--read-only" => {
                root.read_only = true;
                continue;
            }
            "--follow-symlinks" => {
                root.follow_symlinks = true;
                continue;
            }
            "--respect-gitignore" => {
                root.respect_gitignore = true;
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
            "--root" => root_dir = Some(PathBuf::from(value)),
            "--include" => root.includes.push(value.clone()),
            "--exclude" => root.excludes.push(value.clone()),
            "--cursor-key-env" => root.cursor_key_env = Some(parse_env_name(flag, value)?),
            "--tools" => root.tools = parse_tools(value)?,
            "--prefix" => root.prefix = parse_prefix(value)?,
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
                match root.limits.field_for_flag(flag) {
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
    match (&config, root_dir) {
        (Some(_), _) => {
            if let Some(flag) = first_root_flag {
                return Err(ConfigError::new(format!(
                    "--config cannot be combined with {flag}; put it in the config file"
                )));
            }
        }
        (None, Some(dir)) => root.root = dir,
        (None, None) => return Err(ConfigError::new("--root is required")),
    }
    Ok(Options {
        root,
        protocol,
        call,
        log_level,
        config,
        describe,
        http,
    })
}
