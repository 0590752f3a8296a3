//! Start-up: from parsed [`Options`] to a ready [`FsmcpServer`].
//!
//! Both forms of configuration go through one path. The flag form is a [`ServeConfig`] of one
//! root; a `--config` file gives one or more. Each root is opened in order, validating as
//! ptc-fs-mcp does (includes, limits, root, cursor key), and its tools are added to the
//! one [`Registry`], where a name published twice is refused. Start-up warnings are collected
//! per root.

use std::sync::Arc;

use serde_json::json;

use crate::config::cursor_key::resolve_cursor_key;
use crate::config::{
    ConfigError, HttpSettings, Options, ProtocolMode, RootConfig, ServeConfig, ServerIdentity,
    Source,
};
use crate::digest::Key;
use crate::fs::{Fs, Published};
use crate::ptc::Ptc;
use crate::root::{Root, Selector};
use crate::server::{FsmcpServer, server_info_meta};
use crate::tools::Registry;

/// A configured server and the warnings to print before serving.
pub struct Prepared {
    /// The server, ready for any transport.
    pub server: FsmcpServer,
    /// One-line warnings (without the `fsmcp: ` prefix).
    pub warnings: Vec<String>,
    /// Where to serve Streamable HTTP, from the flags or the config file; `None` for stdio.
    pub http: Option<HttpSettings>,
    /// The roots this server may write, whose stale temp entries a serving server removes.
    writable: Vec<Arc<Root>>,
}

impl Prepared {
    /// Starts, on a thread per root, the removal of what killed writes and copies left under
    /// fsmcp's temp names in each root this server may write (never in a `--read-only` one),
    /// leaving alone what a live process is building (`Root::sweep_stale_temps`). A serving
    /// server calls it once, before it answers; `--call` and `--describe` do not.
    pub fn sweep_stale_temps(&self) {
        for root in &self.writable {
            root.sweep_in_background();
        }
    }
}

/// Bytes of a tool result's envelope around its structured value and that value's escaped
/// copy, under this identity: what result fitting adds to a page's own size.
pub fn envelope_bytes(identity: &ServerIdentity) -> u64 {
    let probe = json!({
        "content": [{"type": "text", "text": ""}],
        "structuredContent": null,
        "resultType": "complete",
        "_meta": server_info_meta(identity),
    });
    (probe.to_string().len() - "null".len()) as u64
}

/// Loads the configuration `options` name (the root flags or a `--config` file), opens every
/// root and builds the server, reading cursor keys through `env`.
pub fn prepare(
    options: &Options,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Prepared, ConfigError> {
    let config = ServeConfig::from_options(options)?;
    open(&config, options.protocol, env)
}

/// Opens the roots of `config` in order and publishes their tools on one server accepting the
/// protocol eras `protocol` allows, reading cursor keys through `env`. The library's entry
/// point: the returned [`Prepared::server`] is an `rmcp` server handler, ready for any `rmcp`
/// transport (see `examples/embed.rs`).
pub fn open(
    config: &ServeConfig,
    protocol: ProtocolMode,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Prepared, ConfigError> {
    let envelope = envelope_bytes(&config.identity);
    let mut registry = Registry::new();
    let mut roots: Vec<Arc<Root>> = Vec::new();
    let mut warnings = Vec::new();
    let mut writable = Vec::new();
    for (index, root_config) in config.roots.iter().enumerate() {
        let (root, key) = open_root(root_config, &env).map_err(|problem| {
            let (key, file_message) = problem.file_form();
            config.root_error(index, Some(key), &problem.flag_form(), &file_message)
        })?;
        let root = Arc::new(root);
        if let Err(clashing) = publish(&mut registry, &root, root_config, key, envelope) {
            return Err(clash(config, &registry, &roots, index, &clashing));
        }
        if !root_config.read_only {
            writable.push(root.clone());
        }
        warnings.extend(
            root_warnings(&registry, &root, root_config)
                .iter()
                .map(|warning| config.root_warning(index, warning)),
        );
        roots.push(root);
    }
    // The default instructions speak of the ptc tools' cursors: a server without them says
    // what the fs tools take instead.
    let mut identity = config.identity.clone();
    if identity.instructions == crate::SERVER_INSTRUCTIONS
        && config.roots.iter().all(|r| !r.tools.ptc)
    {
        identity.instructions = crate::FS_INSTRUCTIONS.to_owned();
    }
    let server = FsmcpServer::new(Arc::new(registry), protocol).with_identity(identity);
    Ok(Prepared {
        server,
        warnings,
        http: config.http.clone(),
        writable,
    })
}

/// Why one root could not be opened.
enum RootProblem {
    /// No include pattern was given.
    NoInclude,
    /// The limits, the directory or the cursor key: the message is the same in both forms.
    Other {
        /// The root's key the problem concerns (`limits`, `root`, `cursor_key_env`).
        key: &'static str,
        error: ConfigError,
    },
}

impl RootProblem {
    /// The message of the flag form (ptc-fs-mcp's).
    fn flag_form(&self) -> String {
        match self {
            RootProblem::NoInclude => "at least one --include pattern is required".to_owned(),
            RootProblem::Other { error, .. } => error.to_string(),
        }
    }

    /// The key and message of the file form.
    fn file_form(&self) -> (&'static str, String) {
        match self {
            RootProblem::NoInclude => ("include", "at least one pattern is required".to_owned()),
            RootProblem::Other { key, error } => (key, error.to_string()),
        }
    }
}

/// Opens one root: includes, limits, the directory, then the cursor key (the operator's
/// bytes, when it names one).
fn open_root(
    config: &RootConfig,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<(Root, Option<Vec<u8>>), RootProblem> {
    if config.includes.is_empty() {
        return Err(RootProblem::NoInclude);
    }
    let selector = Selector::new(&config.includes, &config.excludes, config.default_excludes);
    selector
        .compile()
        .map_err(|(key, message)| RootProblem::Other {
            key,
            error: ConfigError::new(message),
        })?;
    let root = Root::open(&config.root, selector, config.limits)
        .map(|root| {
            root.with_follow_symlinks(config.follow_symlinks)
                .with_respect_gitignore(config.respect_gitignore)
        })
        .map_err(|error| {
            let key = match error {
                fsmcp_root::OpenError::InvalidLimits => "limits",
                _ => "root",
            };
            RootProblem::Other {
                key,
                error: error.into(),
            }
        })?;
    let key = config
        .cursor_key_env
        .as_deref()
        .map(|name| resolve_cursor_key(name, env))
        .transpose()
        .map_err(|error| RootProblem::Other {
            key: "cursor_key_env",
            error,
        })?;
    Ok((root, key))
}

/// A tool name a root would publish a second time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    /// The name.
    pub name: String,
    /// Whether it is one of the root's fs tools (only those carry the prefix).
    pub prefixed: bool,
}

/// Publishes on `registry` the tools of each set `config` selects over `root` (its `tools`,
/// `prefix` and `read_only`): the ptc set's, then the fs set's. An operator's `cursor_key`
/// makes cursors deterministic; without one, both sets key their digests with the process's
/// random key. `envelope_bytes` is the result envelope around a ptc page.
pub fn publish(
    registry: &mut Registry,
    root: &Arc<Root>,
    config: &RootConfig,
    cursor_key: Option<Vec<u8>>,
    envelope_bytes: u64,
) -> Result<(), Clash> {
    let deterministic = cursor_key.is_some();
    let key = cursor_key.map_or_else(Key::process, Key::with_bytes);
    let ptc = if config.tools.ptc {
        Arc::new(Ptc::new(
            root.clone(),
            key.clone(),
            deterministic,
            envelope_bytes,
        ))
        .tools()
    } else {
        Vec::new()
    };
    let fs = if config.tools.fs {
        let published = Published::new(config.tools, &config.prefix);
        Arc::new(Fs::new(root.clone(), key, config.read_only, published)).tools(&config.prefix)
    } else {
        Vec::new()
    };
    let prefixed: Vec<String> = fs.iter().map(|(spec, _)| spec.name.clone()).collect();
    let tools = ptc.into_iter().chain(fs).collect();
    registry
        .add_root(root, tools, config.tools.fs, config.read_only)
        .map_err(|name| Clash {
            prefixed: prefixed.contains(&name),
            name,
        })
}

/// The error for a tool name root `index` would publish a second time.
fn clash(
    config: &ServeConfig,
    registry: &Registry,
    roots: &[Arc<Root>],
    index: usize,
    clash: &Clash,
) -> ConfigError {
    let name = &clash.name;
    let Source::File(_) = config.source else {
        return ConfigError::new(format!("two tools are named {name}"));
    };
    let publisher = registry
        .get(name)
        .and_then(|entry| roots.iter().position(|root| Arc::ptr_eq(root, &entry.root)))
        .map_or_else(|| "another root".to_owned(), |i| format!("roots[{i}]"));
    let remedy = if clash.prefixed {
        "give this root another prefix"
    } else {
        "only one root can publish the ptc tools"
    };
    config.root_error(
        index,
        None,
        "",
        &format!("tool name '{name}' is already published by {publisher}; {remedy}"),
    )
}

/// The start-up warnings about one root, in ptc-fs-mcp's words (and fsmcp's for its own
/// options).
fn root_warnings(registry: &Registry, root: &Arc<Root>, config: &RootConfig) -> Vec<String> {
    let mut warnings = Vec::new();
    let selector = root.selector();
    let writes_here = registry
        .get("write_text_file")
        .is_some_and(|entry| Arc::ptr_eq(&entry.root, root));
    if writes_here && !selector.serves_root_level() {
        warnings.push("no --include pattern matches a file in the root itself, so write_text_file will refuse every call. Reads are unaffected. Add an --include glob with no directory prefix, such as '**', if this installation maps the write tool.".to_owned());
    }
    let defeated = selector.includes_defeated_by_defaults();
    if !defeated.is_empty() {
        warnings.push(format!(
            "--include {} matches a built-in exclude, so nothing it names is served. Pass --no-default-exclude to drop the built-in list.",
            defeated.join(", ")
        ));
    }
    // Accepted rather than refused, so adding it never breaks a ptc-only installation; said
    // once, since it changes nothing there.
    if config.respect_gitignore && !config.tools.fs {
        warnings.push("--respect-gitignore narrows only the fs tools' glob, grep, map and symbols, and this root publishes only the ptc tools, so it has no effect. Add --tools ptc,fs to publish them.".to_owned());
    }
    warnings
}
