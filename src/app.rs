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
    Source, ToolSelection,
};
use crate::engine::{Engine, Published};
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
    let mut engines: Vec<Arc<Engine>> = Vec::new();
    let mut warnings = Vec::new();
    for (index, root) in config.roots.iter().enumerate() {
        let engine = open_engine(root, envelope, &env).map_err(|problem| {
            let (key, file_message) = problem.file_form();
            config.root_error(index, Some(key), &problem.flag_form(), &file_message)
        })?;
        let engine = Arc::new(engine);
        if let Err(name) =
            registry.add_root(engine.clone(), root.tools, &root.prefix, root.read_only)
        {
            return Err(clash(
                config, &registry, &engines, index, root, &engine, &name,
            ));
        }
        warnings.extend(
            root_warnings(&registry, &engine)
                .iter()
                .map(|warning| config.root_warning(index, warning)),
        );
        engines.push(engine);
    }
    let server =
        FsmcpServer::new(Arc::new(registry), protocol).with_identity(config.identity.clone());
    Ok(Prepared {
        server,
        warnings,
        http: config.http.clone(),
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

/// Opens one root and its engine: includes, limits, the directory, then the cursor key.
fn open_engine(
    config: &RootConfig,
    envelope_bytes: u64,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Engine, RootProblem> {
    if config.includes.is_empty() {
        return Err(RootProblem::NoInclude);
    }
    let selector = Selector::new(&config.includes, &config.excludes, config.default_excludes);
    let root = Root::open(&config.root, selector, config.limits)
        .map(|root| root.with_follow_symlinks(config.follow_symlinks))
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
    Ok(Engine::new(root, key, envelope_bytes)
        .with_read_only(config.read_only)
        .with_published(Published::new(config.tools, &config.prefix)))
}

/// The error for a tool name root `index` would publish a second time.
fn clash(
    config: &ServeConfig,
    registry: &Registry,
    engines: &[Arc<Engine>],
    index: usize,
    root: &RootConfig,
    engine: &Arc<Engine>,
    name: &str,
) -> ConfigError {
    let Source::File(_) = config.source else {
        return ConfigError::new(format!("two tools are named {name}"));
    };
    let publisher = registry
        .get(name)
        .and_then(|entry| {
            engines
                .iter()
                .position(|engine| Arc::ptr_eq(engine, &entry.engine))
        })
        .map_or_else(|| "another root".to_owned(), |i| format!("roots[{i}]"));
    // Only the fs tools carry the prefix; the ptc tools have fixed names.
    let mut fs_only = Registry::new();
    let fs = ToolSelection {
        ptc: false,
        fs: true,
    };
    let prefixed = fs_only
        .add_root(engine.clone(), fs, &root.prefix, root.read_only)
        .is_ok()
        && fs_only.get(name).is_some();
    let remedy = if prefixed {
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

/// The start-up warnings about one root, in ptc-fs-mcp's words.
fn root_warnings(registry: &Registry, engine: &Arc<Engine>) -> Vec<String> {
    let mut warnings = Vec::new();
    let selector = engine.root().selector();
    let writes_here = registry
        .get("write_text_file")
        .is_some_and(|entry| Arc::ptr_eq(&entry.engine, engine));
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
    warnings
}
