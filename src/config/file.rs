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
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::Limits;

    fn ok(text: &str) -> ServeConfig {
        parse("cfg.json", text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(text: &str) -> String {
        match parse("cfg.json", text.as_bytes()) {
            Err(error) => error.to_string(),
            Ok(config) => panic!("{text} gave {config:?}"),
        }
    }

    #[test]
    fn a_minimal_root_takes_the_flag_defaults() {
        let config = ok(r#"{"roots": [{"root": "/srv/a", "include": ["**"]}]}"#);
        assert_eq!(config.identity, ServerIdentity::default());
        assert_eq!(config.source, Source::File("cfg.json".into()));
        assert_eq!(
            config.roots,
            [RootConfig {
                root: PathBuf::from("/srv/a"),
                includes: vec!["**".into()],
                ..RootConfig::default()
            }]
        );
    }

    #[test]
    fn the_http_object() {
        let config = ok(r#"{"roots": [{"root": "a", "include": ["**"]}],
            "http": {"listen": "0.0.0.0:8080", "auth_token_env": "TOKEN",
                     "allow_origins": ["https://app.example.com"], "allow_hosts": ["fs.example.com"]}}"#);
        let http = config.http.expect("http settings");
        assert_eq!(http.listen.to_string(), "0.0.0.0:8080");
        assert_eq!(http.auth_token_env.as_deref(), Some("TOKEN"));
        assert_eq!(http.allow_origins, ["https://app.example.com"]);
        assert_eq!(http.allow_hosts, ["fs.example.com"]);
        let config = ok(r#"{"roots": [{"root": "a", "include": ["**"]}],
            "http": {"listen": "127.0.0.1:1", "header_read_seconds": 3, "idle_seconds": 4,
                     "max_connections": 5}}"#);
        let limits = config.http.expect("http settings").limits;
        assert_eq!(
            (
                limits.header_read_seconds,
                limits.idle_seconds,
                limits.max_connections
            ),
            (3, 4, Some(5))
        );
        let roots = r#""roots": [{"root": "a", "include": ["**"]}]"#;
        for (http, message) in [
            (r#"{}"#, "cfg.json: http: missing key 'listen'"),
            (
                r#"{"listen": "x"}"#,
                "cfg.json: http.listen: must be ADDRESS:PORT, e.g. 127.0.0.1:8080",
            ),
            (
                r#"{"listen": "127.0.0.1:1", "auth_token_env": "1x"}"#,
                "cfg.json: http.auth_token_env: must name an environment variable",
            ),
            (
                r#"{"listen": "127.0.0.1:1", "allow_origins": ["evil"]}"#,
                "cfg.json: http.allow_origins: each must be scheme://host[:port] (http or https) or null",
            ),
            (
                r#"{"listen": "127.0.0.1:1", "port": 1}"#,
                "cfg.json: http: unknown key 'port'",
            ),
            (r#"[]"#, "cfg.json: http: must be an object"),
            (
                r#"{"listen": "127.0.0.1:1", "max_connections": 0}"#,
                "cfg.json: http.max_connections: must be an integer from 1 to 65536",
            ),
            (
                r#"{"listen": "127.0.0.1:1", "idle_seconds": "5"}"#,
                "cfg.json: http.idle_seconds: must be an integer from 1 to 86400",
            ),
        ] {
            assert_eq!(
                error(&format!("{{{roots}, \"http\": {http}}}")),
                message,
                "{http}"
            );
        }
    }

    #[test]
    fn every_key_lands_in_its_field() {
        let config = ok(r#"{
            "name": "workspace", "version": "1.0", "instructions": "",
            "roots": [
                {"root": "notes", "include": ["a/**", "b"], "exclude": ["x"], "default_exclude": false,
                 "tools": ["fs", "ptc"], "prefix": "", "read_only": true, "follow_symlinks": true,
                 "cursor_key_env": "KEY",
                 "limits": {"max_files": 1, "max_directories": 2, "max_depth": 0, "max_entries": 4,
                            "max_file_bytes": 5, "max_read_bytes": 6, "max_scan_bytes": 16384,
                            "max_result_bytes": 48000, "max_write_bytes": 9, "max_cursor_hash_bytes": 10}},
                {"root": "/abs", "include": ["**"], "tools": ["fs"], "prefix": "docs"}
            ]}"#);
        assert_eq!(
            config.identity,
            ServerIdentity {
                name: "workspace".into(),
                version: "1.0".into(),
                instructions: String::new(),
            }
        );
        assert_eq!(
            config.roots[0],
            RootConfig {
                root: PathBuf::from("notes"),
                includes: vec!["a/**".into(), "b".into()],
                excludes: vec!["x".into()],
                default_excludes: false,
                limits: Limits {
                    max_files: 1,
                    max_directories: 2,
                    max_depth: 0,
                    max_entries: 4,
                    max_file_bytes: 5,
                    max_read_bytes: 6,
                    max_scan_bytes: 16384,
                    max_result_bytes: 48000,
                    max_write_bytes: 9,
                    max_cursor_hash_bytes: 10,
                    max_call_seconds: 60,
                },
                cursor_key_env: Some("KEY".into()),
                tools: ToolSelection {
                    ptc: true,
                    fs: true
                },
                prefix: String::new(),
                read_only: true,
                follow_symlinks: true,
            }
        );
        assert_eq!(config.roots[1].prefix, "docs");
        assert_eq!(
            config.roots[1].tools,
            ToolSelection {
                ptc: false,
                fs: true
            }
        );
    }

    #[test]
    fn a_relative_root_is_joined_to_the_files_directory() {
        let text = br#"{"roots": [{"root": "notes", "include": ["**"]}, {"root": "/abs", "include": ["**"]}]}"#;
        let roots = |path: &str| -> Vec<PathBuf> {
            parse(path, text)
                .expect("valid")
                .roots
                .into_iter()
                .map(|root| root.root)
                .collect()
        };
        assert_eq!(roots("cfg.json"), [PathBuf::from("notes"), "/abs".into()]);
        assert_eq!(
            roots("../etc/cfg.json"),
            [PathBuf::from("../etc/notes"), "/abs".into()]
        );
        assert_eq!(
            roots("/etc/fsmcp/cfg.json"),
            [PathBuf::from("/etc/fsmcp/notes"), "/abs".into()]
        );
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let root = r#""root": "a", "include": ["**"]"#;
        let cases: Vec<(String, &str)> = vec![
            ("".into(), "cfg.json: not valid JSON at line 1 column 0"),
            (
                "{\n  \"roots\": [,]\n}".into(),
                "cfg.json: not valid JSON at line 2 column 13",
            ),
            (
                r#"{"roots": []} x"#.into(),
                "cfg.json: not valid JSON at line 1 column 15",
            ),
            ("[]".into(), "cfg.json: must be a JSON object"),
            ("{}".into(), "cfg.json: missing key 'roots'"),
            (r#"{"rootz": 1}"#.into(), "cfg.json: unknown key 'rootz'"),
            (r#"{"a\nb": 1}"#.into(), "cfg.json: unknown key 'a\\nb'"),
            (
                r#"{"roots": [], "roots": []}"#.into(),
                "cfg.json: duplicate key 'roots' at line 1 column 21",
            ),
            (
                r#"{"roots": {}}"#.into(),
                "cfg.json: roots: must be an array of root objects",
            ),
            (
                r#"{"roots": []}"#.into(),
                "cfg.json: roots: at least one root is required",
            ),
            (
                r#"{"roots": [1]}"#.into(),
                "cfg.json: roots[0]: must be an object",
            ),
            (
                r#"{"roots": [{"include": ["**"]}]}"#.into(),
                "cfg.json: roots[0]: missing key 'root'",
            ),
            (
                r#"{"roots": [{"root": ""}]}"#.into(),
                "cfg.json: roots[0].root: must be a non-empty string",
            ),
            (
                r#"{"roots": [{"root": 1}]}"#.into(),
                "cfg.json: roots[0].root: must be a non-empty string",
            ),
            (
                format!(r#"{{"roots": [{{{root}}}, {{"root": "b", "inclde": []}}]}}"#),
                "cfg.json: roots[1]: unknown key 'inclde'",
            ),
            (
                format!(r#"{{"roots": [{{{root}, "include": ["x"]}}]}}"#),
                "cfg.json: duplicate key 'include' at line 1 column 53",
            ),
            (
                r#"{"roots": [{"root": "a", "include": "**"}]}"#.into(),
                "cfg.json: roots[0].include: must be an array of strings",
            ),
            (
                r#"{"roots": [{"root": "a", "exclude": [1]}]}"#.into(),
                "cfg.json: roots[0].exclude: must be an array of strings",
            ),
            (
                r#"{"roots": [{"root": "a", "default_exclude": "no"}]}"#.into(),
                "cfg.json: roots[0].default_exclude: must be true or false",
            ),
            (
                r#"{"roots": [{"root": "a", "read_only": 1}]}"#.into(),
                "cfg.json: roots[0].read_only: must be true or false",
            ),
            (
                r#"{"roots": [{"root": "a", "follow_symlinks": null}]}"#.into(),
                "cfg.json: roots[0].follow_symlinks: must be true or false",
            ),
            (
                r#"{"roots": [{"root": "a", "tools": "ptc"}]}"#.into(),
                r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
            ),
            (
                r#"{"roots": [{"root": "a", "tools": []}]}"#.into(),
                r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
            ),
            (
                r#"{"roots": [{"root": "a", "tools": ["fs", "fs"]}]}"#.into(),
                r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
            ),
            (
                r#"{"roots": [{"root": "a", "tools": ["all"]}]}"#.into(),
                r#"cfg.json: roots[0].tools: must be ["ptc"], ["fs"] or ["ptc", "fs"]"#,
            ),
            (
                r#"{"roots": [{"root": "a", "prefix": "1x"}]}"#.into(),
                "cfg.json: roots[0].prefix: must be empty or a name of letters, digits, underscores or hyphens",
            ),
            (
                r#"{"roots": [{"root": "a", "prefix": null}]}"#.into(),
                "cfg.json: roots[0].prefix: must be empty or a name of letters, digits, underscores or hyphens",
            ),
            (
                r#"{"roots": [{"root": "a", "cursor_key_env": "A-B"}]}"#.into(),
                "cfg.json: roots[0].cursor_key_env: must name an environment variable",
            ),
            (
                r#"{"roots": [{"root": "a", "limits": []}]}"#.into(),
                "cfg.json: roots[0].limits: must be an object",
            ),
            (
                r#"{"roots": [{"root": "a", "limits": {"max_file": 1}}]}"#.into(),
                "cfg.json: roots[0].limits: unknown key 'max_file'",
            ),
            (
                r#"{"name": "", "roots": []}"#.into(),
                "cfg.json: name: must be a non-empty string",
            ),
            (
                r#"{"version": 1, "roots": []}"#.into(),
                "cfg.json: version: must be a non-empty string",
            ),
            (
                r#"{"instructions": null, "roots": []}"#.into(),
                "cfg.json: instructions: must be a string",
            ),
        ];
        for (text, expected) in &cases {
            assert_eq!(error(text), *expected, "{text}");
        }
    }

    #[test]
    fn every_limit_is_checked_against_its_range() {
        let limit = |key: &str, value: &str| {
            format!(r#"{{"roots": [{{"root": "a", "limits": {{"{key}": {value}}}}}]}}"#)
        };
        for spec in super::super::limits::LIMIT_SPECS {
            let message = format!(
                "cfg.json: roots[0].limits.{}: must be an integer from {} to {}",
                spec.key, spec.min, spec.max
            );
            for value in [spec.min, spec.max] {
                let config = ok(&limit(spec.key, &value.to_string()));
                let mut expected = Limits::default();
                *expected.field_for_key(spec.key).expect("a key") = value;
                assert_eq!(config.roots[0].limits, expected);
            }
            let beyond = (spec.max + 1).to_string();
            let below = spec.min.wrapping_sub(1).to_string();
            for value in [
                &beyond,
                &below,
                "-1",
                "1.5",
                "1e3",
                "\"5\"",
                "null",
                "99999999999999999999999",
            ] {
                assert_eq!(
                    error(&limit(spec.key, value)),
                    message,
                    "{} {value}",
                    spec.key
                );
            }
        }
        assert_eq!(
            error(&limit("max_read_bytes", "3")),
            "cfg.json: roots[0].limits.max_read_bytes: must be an integer from 4 to 1048576"
        );
    }

    #[test]
    fn the_first_problem_in_document_order_wins() {
        assert_eq!(
            error(r#"{"name": 1, "rootz": 2}"#),
            "cfg.json: name: must be a non-empty string"
        );
        assert_eq!(
            error(r#"{"roots": [{"root": "a", "bogus": 1, "read_only": 3}]}"#),
            "cfg.json: roots[0]: unknown key 'bogus'"
        );
        assert_eq!(
            error(r#"{"roots": [{"root": "a", "read_only": 3}], "bogus": 1}"#),
            "cfg.json: roots[0].read_only: must be true or false"
        );
    }
}
