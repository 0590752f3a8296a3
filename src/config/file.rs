//! The JSON config file (`--config FILE`): several roots served from one process, plus the
//! server's name, version and instructions.
//!
//! ```json
//! {"name": "workspace", "version": "1.0", "instructions": "…",
//!  "roots": [{"root": "notes", "include": ["**"], "tools": ["fs"], "prefix": "notes",
//!             "read_only": true, "limits": {"max_read_bytes": 4096}}]}
//! ```
//!
//! Every key but `roots`, and each root's `root` and `include`, is optional, with the flag
//! form's defaults. A relative `root` is resolved against the file's directory.
//!
//! This module checks the file's shape and each value's syntax and range, in document order, and
//! reports the first problem as `<file>: <location>: <problem>` (for example
//! `cfg.json: roots[1].limits.max_read_bytes: must be an integer from 4 to 1048576`). Whether a
//! root has an include, exists and has a usable cursor key is decided when it is opened, by the
//! same code as the flag form ([`crate::app`]). The file is the user's own, so its path is printed
//! as typed; no value from it is ever echoed, only its keys.
//!
//! ```
//! use fsmcp::config::file::parse;
//!
//! let config = parse("dir/cfg.json", br#"{"roots": [{"root": "notes", "include": ["**"]}]}"#).unwrap();
//! assert_eq!(config.roots[0].root, std::path::Path::new("dir/notes"));
//! let error = parse("cfg.json", br#"{"roots": [{"root": "a", "inclde": []}]}"#).unwrap_err();
//! assert_eq!(error.to_string(), "cfg.json: roots[0]: unknown key 'inclde'");
//! ```

use std::path::Path;

use serde_json::Value;

use super::http::{HttpSettings, parse_host, parse_listen, parse_origin};
use super::limits::LimitSpec;
use super::{
    ConfigError, ENV_NAME_RULE, PREFIX_RULE, RootConfig, ServeConfig, ServerIdentity, Source,
    ToolSelection, is_env_name, is_prefix,
};

/// Reads and checks the config file at `path` (as typed on the command line).
pub fn load(path: &str) -> Result<ServeConfig, ConfigError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "the operator's own config file, read once before any root exists; it is not a path under a root"
    )]
    let bytes =
        std::fs::read(path).map_err(|_| ConfigError::new(format!("{path}: cannot be read")))?;
    parse(path, &bytes)
}

/// Checks the text of a config file; `path` is how the file is named in messages and the base
/// of relative roots.
pub fn parse(path: &str, bytes: &[u8]) -> Result<ServeConfig, ConfigError> {
    let fail = |location: &str, problem: &str| fail(path, location, problem);
    // In a config file the second `"read_only"` silently winning over the first is a trap.
    let document = match crate::json::check_unique_keys(bytes)
        .and_then(|()| serde_json::from_slice::<Value>(bytes))
    {
        Ok(document) => document,
        // A data error can only be the duplicate-key refusal; its text carries the position.
        Err(error) if error.is_data() => {
            return Err(ConfigError::new(format!("{path}: {error}")));
        }
        Err(error) => {
            return Err(ConfigError::new(format!(
                "{path}: not valid JSON at line {} column {}",
                error.line(),
                error.column()
            )));
        }
    };
    let Value::Object(top) = document else {
        return Err(fail("", "must be a JSON object"));
    };
    let base = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut identity = ServerIdentity::default();
    let mut roots = None;
    let mut http = None;
    for (key, value) in &top {
        match key.as_str() {
            "name" => {
                identity.name = non_empty_string(value).ok_or_else(|| fail(key, NON_EMPTY))?
            }
            "version" => {
                identity.version = non_empty_string(value).ok_or_else(|| fail(key, NON_EMPTY))?;
            }
            "instructions" => {
                identity.instructions = value
                    .as_str()
                    .ok_or_else(|| fail(key, "must be a string"))?
                    .to_owned();
            }
            "roots" => {
                let Value::Array(items) = value else {
                    return Err(fail(key, "must be an array of root objects"));
                };
                if items.is_empty() {
                    return Err(fail(key, "at least one root is required"));
                }
                let parsed = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| root_config(path, base, index, item))
                    .collect::<Result<Vec<_>, _>>()?;
                roots = Some(parsed);
            }
            "http" => http = Some(http_settings(path, value)?),
            _ => return Err(fail("", &unknown_key(key))),
        }
    }
    let Some(roots) = roots else {
        return Err(fail("", "missing key 'roots'"));
    };
    Ok(ServeConfig {
        identity,
        roots,
        source: Source::File(path.to_owned()),
        http,
    })
}

/// The `http` object: `listen` (required), `auth_token_env`, `allow_origins`, `allow_hosts`,
/// and the connection limits (`header_read_seconds`, `idle_seconds`, `max_connections`).
fn http_settings(path: &str, value: &Value) -> Result<HttpSettings, ConfigError> {
    let fail = |key: &str, problem: &str| fail(path, &format!("http.{key}"), problem);
    let Value::Object(map) = value else {
        return Err(self::fail(path, "http", "must be an object"));
    };
    let listen = map
        .get("listen")
        .ok_or_else(|| self::fail(path, "http", "missing key 'listen'"))?;
    let listen = listen
        .as_str()
        .and_then(|text| parse_listen(text).ok())
        .ok_or_else(|| fail("listen", "must be ADDRESS:PORT, e.g. 127.0.0.1:8080"))?;
    let mut settings = HttpSettings::new(listen);
    for (key, value) in map {
        match key.as_str() {
            "listen" => {}
            "auth_token_env" => {
                let name = value.as_str().filter(|name| is_env_name(name));
                settings.auth_token_env =
                    Some(name.ok_or_else(|| fail(key, ENV_NAME_RULE))?.to_owned());
            }
            "allow_origins" => {
                let items = strings(value).ok_or_else(|| fail(key, STRINGS))?;
                for item in items {
                    settings
                        .allow_origins
                        .push(parse_origin(&item).map_err(|_| {
                            fail(
                                key,
                                "each must be scheme://host[:port] (http or https) or null",
                            )
                        })?);
                }
            }
            "allow_hosts" => {
                let items = strings(value).ok_or_else(|| fail(key, STRINGS))?;
                for item in items {
                    settings.allow_hosts.push(
                        parse_host(&item)
                            .map_err(|_| fail(key, "each must be a host name or address"))?,
                    );
                }
            }
            _ => match LimitSpec::http_by_key(key) {
                Some(spec) => {
                    let count = value
                        .as_u64()
                        .filter(|count| spec.accepts(*count))
                        .ok_or_else(|| fail(key, &spec.range_rule()))?;
                    settings.limits.set(spec, count);
                }
                None => return Err(self::fail(path, "http", &unknown_key(key))),
            },
        }
    }
    Ok(settings)
}

const NON_EMPTY: &str = "must be a non-empty string";
const BOOLEAN: &str = "must be true or false";
const STRINGS: &str = "must be an array of strings";

/// `<file>: <location>: <problem>`, or `<file>: <problem>` at the top level.
fn fail(path: &str, location: &str, problem: &str) -> ConfigError {
    if location.is_empty() {
        ConfigError::new(format!("{path}: {problem}"))
    } else {
        ConfigError::new(format!("{path}: {location}: {problem}"))
    }
}

/// `unknown key '<key>'`, the key escaped so the message stays one line.
fn unknown_key(key: &str) -> String {
    format!("unknown key '{}'", key.escape_debug())
}

/// One element of `roots`.
fn root_config(
    path: &str,
    base: &Path,
    index: usize,
    item: &Value,
) -> Result<RootConfig, ConfigError> {
    let here = format!("roots[{index}]");
    let fail = |key: &str, problem: &str| {
        if key.is_empty() {
            fail(path, &here, problem)
        } else {
            fail(path, &format!("{here}.{key}"), problem)
        }
    };
    let Value::Object(object) = item else {
        return Err(fail("", "must be an object"));
    };
    let mut config = RootConfig::default();
    let mut root = None;
    for (key, value) in object {
        match key.as_str() {
            "root" => {
                let dir = non_empty_string(value).ok_or_else(|| fail(key, NON_EMPTY))?;
                root = Some(base.join(dir));
            }
            "include" => config.includes = strings(value).ok_or_else(|| fail(key, STRINGS))?,
            "exclude" => config.excludes = strings(value).ok_or_else(|| fail(key, STRINGS))?,
            "default_exclude" => {
                config.default_excludes = value.as_bool().ok_or_else(|| fail(key, BOOLEAN))?;
            }
            "tools" => {
                config.tools = strings(value)
                    .and_then(|names| {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        ToolSelection::from_names(&names)
                    })
                    .ok_or_else(|| fail(key, r#"must be ["ptc"], ["fs"] or ["ptc", "fs"]"#))?;
            }
            "prefix" => {
                config.prefix = value
                    .as_str()
                    .filter(|prefix| is_prefix(prefix))
                    .ok_or_else(|| fail(key, PREFIX_RULE))?
                    .to_owned();
            }
            "read_only" => config.read_only = value.as_bool().ok_or_else(|| fail(key, BOOLEAN))?,
            "follow_symlinks" => {
                config.follow_symlinks = value.as_bool().ok_or_else(|| fail(key, BOOLEAN))?;
            }
            "respect_gitignore" => {
                config.respect_gitignore = value.as_bool().ok_or_else(|| fail(key, BOOLEAN))?;
            }
            "cursor_key_env" => {
                let name = value
                    .as_str()
                    .filter(|name| is_env_name(name))
                    .ok_or_else(|| fail(key, ENV_NAME_RULE))?;
                config.cursor_key_env = Some(name.to_owned());
            }
            "limits" => {
                let Value::Object(limits) = value else {
                    return Err(fail(key, "must be an object"));
                };
                for (name, value) in limits {
                    let Some(spec) = LimitSpec::by_key(name) else {
                        return Err(fail(key, &unknown_key(name)));
                    };
                    let n = value
                        .as_u64()
                        .filter(|n| spec.accepts(*n))
                        .ok_or_else(|| fail(&format!("{key}.{name}"), &spec.range_rule()))?;
                    *config
                        .limits
                        .field_for_key(name)
                        .expect("a LimitSpec key names a field") = n;
                }
            }
            _ => return Err(fail("", &unknown_key(key))),
        }
    }
    let Some(root) = root else {
        return Err(fail("", "missing key 'root'"));
    };
    config.root = root;
    Ok(config)
}

/// A string with at least one character.
fn non_empty_string(value: &Value) -> Option<String> {
    value
        .as_str()
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

/// An array of strings.
fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests;
