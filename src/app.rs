//! Start-up: from parsed [`Options`] to a ready [`FsmcpServer`], validating in ptc-fs-mcp's
//! order (includes, limits, root, cursor key) and collecting the start-up warnings.

use std::sync::Arc;

use serde_json::json;

use crate::config::cursor_key::resolve_cursor_key;
use crate::config::{ConfigError, Options};
use crate::engine::Engine;
use crate::root::{Root, Selector};
use crate::server::{FsmcpServer, server_info_meta};
use crate::tools::Registry;

/// A configured server and the warnings to print before serving.
pub struct Prepared {
    /// The server, ready for any transport.
    pub server: FsmcpServer,
    /// One-line warnings (without the `fsmcp: ` prefix).
    pub warnings: Vec<String>,
}

/// Bytes of a tool result's envelope around its structured value and that value's escaped
/// copy: what result fitting adds to a page's own size.
pub fn envelope_bytes() -> u64 {
    let probe = json!({
        "content": [{"type": "text", "text": ""}],
        "structuredContent": null,
        "resultType": "complete",
        "_meta": server_info_meta(),
    });
    (probe.to_string().len() - "null".len()) as u64
}

/// Opens the root and builds the server, reading the cursor key through `env`.
pub fn prepare(
    options: &Options,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Prepared, ConfigError> {
    if options.includes.is_empty() {
        return Err(ConfigError::new(
            "at least one --include pattern is required",
        ));
    }
    if options.follow_symlinks {
        return Err(ConfigError::new(
            "--follow-symlinks is not available yet: links are never followed",
        ));
    }
    let selector = Selector::new(
        &options.includes,
        &options.excludes,
        options.default_excludes,
    );
    let root = Root::open(&options.root, selector, options.limits)?;
    let key = options
        .cursor_key_env
        .as_deref()
        .map(|name| resolve_cursor_key(name, &env))
        .transpose()?;
    let engine = Arc::new(Engine::new(root, key, envelope_bytes()));
    let mut registry = Registry::new();
    registry
        .add_root(
            engine.clone(),
            options.tools,
            &options.prefix,
            options.read_only,
        )
        .map_err(|name| ConfigError::new(format!("two tools are named {name}")))?;
    let mut warnings = Vec::new();
    let selector = engine.root().selector();
    if registry.get("write_text_file").is_some() && !selector.serves_root_level() {
        warnings.push("no --include pattern matches a file in the root itself, so write_text_file will refuse every call. Reads are unaffected. Add an --include glob with no directory prefix, such as '**', if this installation maps the write tool.".to_owned());
    }
    let defeated = selector.includes_defeated_by_defaults();
    if !defeated.is_empty() {
        warnings.push(format!(
            "--include {} matches a built-in exclude, so nothing it names is served. Pass --no-default-exclude to drop the built-in list.",
            defeated.join(", ")
        ));
    }
    Ok(Prepared {
        server: FsmcpServer::new(Arc::new(registry), options.protocol),
        warnings,
    })
}
