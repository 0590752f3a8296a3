//! Configuration: the command line (`args`), the JSON config file (`file`), limits (`limits`)
//! and the deterministic cursor key (`cursor_key`), validated once at start-up into plain values.
//!
//! Both forms end as one [`ServeConfig`]: the server's identity and one [`RootConfig`] per
//! served root. The flag form is a config of one root with the default identity. What a root's
//! values may be (a [`ToolSelection`], a prefix, a variable name) is defined here, once, for
//! both forms.
//!
//! Every start-up failure is a [`ConfigError`] whose `Display` is the one line printed to stderr
//! before exiting with status 64.

pub mod args;
pub mod cursor_key;
pub mod file;
pub mod http;
/// The root's limits, their flags, config keys and ranges (they live with the root, which
/// enforces them).
pub use fsmcp_root::limits;

use std::path::PathBuf;

pub use args::{Invocation, OneShot, Options, help_text, parse_args};
pub use http::{HttpConfig, HttpSettings};
pub use limits::Limits;

/// A start-up failure: its message is printed verbatim as one stderr line, then the process exits
/// with status 64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl ConfigError {
    /// A configuration error with this exact message.
    pub fn new(message: impl Into<String>) -> Self {
        ConfigError(message.into())
    }
}

impl From<fsmcp_root::OpenError> for ConfigError {
    fn from(error: fsmcp_root::OpenError) -> Self {
        ConfigError(error.to_string())
    }
}

/// Exit status for a configuration error (EX_USAGE).
pub const EXIT_CONFIG: i32 = 64;

/// How the server names and introduces itself in `server/discover`, `initialize` and the
/// `serverInfo` stamped on every modern result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    /// `serverInfo.name`; `fsmcp` unless a config file says otherwise.
    pub name: String,
    /// `serverInfo.version`; the crate version unless a config file says otherwise.
    pub version: String,
    /// The instructions given to clients; ptc-fs-mcp's text unless a config file says otherwise.
    pub instructions: String,
}

impl Default for ServerIdentity {
    fn default() -> Self {
        ServerIdentity {
            name: crate::SERVER_NAME.to_owned(),
            version: crate::SERVER_VERSION.to_owned(),
            instructions: crate::SERVER_INSTRUCTIONS.to_owned(),
        }
    }
}

/// One served root as configured: syntactically valid, not yet opened. Whether an include was
/// given, whether the limits fit their ranges and whether the directory exists are decided when
/// the root is opened, in the same order for both forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootConfig {
    /// The directory; a relative path is resolved against the working directory when opened
    /// (a config file's relative roots are already joined to the file's directory).
    pub root: PathBuf,
    /// Globs that select what is served, in order.
    pub includes: Vec<String>,
    /// Globs that hide what the includes selected, in order.
    pub excludes: Vec<String>,
    /// Whether the built-in exclude list applies.
    pub default_excludes: bool,
    /// The root's limits.
    pub limits: Limits,
    /// Name of the variable holding the deterministic cursor key.
    pub cursor_key_env: Option<String>,
    /// Which tool vocabularies this root publishes.
    pub tools: ToolSelection,
    /// Prefix of this root's fs tool names; empty means bare names.
    pub prefix: String,
    /// Publish no mutating tool for this root.
    pub read_only: bool,
    /// Follow symbolic links that stay inside the root.
    pub follow_symlinks: bool,
    /// The fs searches (`glob`, `grep`, `map`) skip what the tree's `.gitignore` files and
    /// `.git/info/exclude` ignore.
    pub respect_gitignore: bool,
}

impl Default for RootConfig {
    /// The flag form's defaults, with no root and no include.
    fn default() -> Self {
        RootConfig {
            root: PathBuf::new(),
            includes: Vec::new(),
            excludes: Vec::new(),
            default_excludes: true,
            limits: Limits::default(),
            cursor_key_env: None,
            tools: ToolSelection::default(),
            prefix: DEFAULT_PREFIX.to_owned(),
            read_only: false,
            follow_symlinks: false,
            respect_gitignore: false,
        }
    }
}

/// The tool vocabularies to register; at least one is always set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolSelection {
    /// The ptc-fs-mcp tools under their original names.
    pub ptc: bool,
    /// The fs tools, named with [`RootConfig::prefix`].
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

/// Default of `--prefix` (and of a config file's `prefix`).
pub const DEFAULT_PREFIX: &str = "fs";

/// What a prefix must be, worded after the flag or the config key that gave it.
pub(crate) const PREFIX_RULE: &str =
    "must be empty or a name of letters, digits, underscores or hyphens";

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

/// What a variable name must be, worded after the flag or the config key that gave it.
pub(crate) const ENV_NAME_RULE: &str = "must name an environment variable";

/// Whether `value` is a portable environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(crate) fn is_env_name(value: &str) -> bool {
    let mut bytes = value.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// `value` if it is a portable environment variable name (see [`is_env_name`]), else the
/// error `<flag> must name an environment variable`.
pub(crate) fn parse_env_name(flag: &str, value: &str) -> Result<String, ConfigError> {
    if is_env_name(value) {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(format!("{flag} {ENV_NAME_RULE}")))
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

/// Where a configuration came from, which decides how its errors and warnings are located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The root flags: messages are ptc-fs-mcp's, unprefixed.
    Flags,
    /// A config file, by the path as the user typed it: messages name the file and the key.
    File(String),
}

/// Everything one server serves: its identity and its roots, in publication order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeConfig {
    /// The server's name, version and instructions.
    pub identity: ServerIdentity,
    /// The roots, at least one.
    pub roots: Vec<RootConfig>,
    /// The flags or the file.
    pub source: Source,
    /// Streamable HTTP instead of stdio: the flags' `--http`, or the file's `http` object.
    pub http: Option<HttpSettings>,
}

impl ServeConfig {
    /// A configuration of `roots` under the default identity, for a host embedding fsmcp; a
    /// problem with a root is reported as a config file's would be, the file named `config`
    /// (`config: roots[0].root: root does not exist`).
    pub fn of_roots(roots: Vec<RootConfig>) -> ServeConfig {
        ServeConfig {
            identity: ServerIdentity::default(),
            roots,
            source: Source::File("config".to_owned()),
            http: None,
        }
    }

    /// The configuration `options` describe: its `--config` file, loaded and checked, or else
    /// the one root of the flags with the default identity.
    pub fn from_options(options: &Options) -> Result<ServeConfig, ConfigError> {
        match &options.config {
            Some(path) => {
                let mut config = file::load(path)?;
                if let Some(flags) = &options.http {
                    if config.http.is_some() {
                        return Err(ConfigError::new(format!(
                            "--http cannot be combined with {path}'s http; use one"
                        )));
                    }
                    config.http = Some(flags.clone());
                }
                Ok(config)
            }
            None => Ok(ServeConfig {
                identity: ServerIdentity::default(),
                roots: vec![options.root.clone()],
                source: Source::Flags,
                http: options.http.clone(),
            }),
        }
    }

    /// An error about root `index`: `flag_message` as is for the flag form; for a file,
    /// `<file>: roots[i].<key>: <file_message>` (`roots[i]: …` when no key is given).
    pub fn root_error(
        &self,
        index: usize,
        key: Option<&str>,
        flag_message: &str,
        file_message: &str,
    ) -> ConfigError {
        match &self.source {
            Source::Flags => ConfigError::new(flag_message),
            Source::File(path) => {
                let location = match key {
                    Some(key) => format!("roots[{index}].{key}"),
                    None => format!("roots[{index}]"),
                };
                ConfigError::new(format!("{path}: {location}: {file_message}"))
            }
        }
    }

    /// A warning about root `index`: as is for the flag form, `roots[i]: …` for a file.
    pub fn root_warning(&self, index: usize, warning: &str) -> String {
        match self.source {
            Source::Flags => warning.to_owned(),
            Source::File(_) => format!("roots[{index}]: {warning}"),
        }
    }
}
