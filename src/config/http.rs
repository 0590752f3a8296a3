//! The Streamable HTTP listener's settings: where to listen, the bearer token, and which `Host`
//! and `Origin` values a request may carry. Checked once at start-up, so a server that would be
//! reachable from the network without a token never starts.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::limits::HttpLimits;
use super::{ConfigError, parse_env_name};

/// Shortest bearer token accepted: guessing one must not be practical.
pub const MIN_TOKEN_BYTES: usize = 16;

/// The `Host` names always accepted (any port).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The browser origins always accepted: pages served from this machine, which could reach the
/// server directly anyway. Rebinding attacks come from a foreign origin, and those are refused.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// The HTTP settings as given (`--http`, `--auth-token-env`, `--allow-origin`, `--allow-host`);
/// the token itself is read by [`HttpSettings::resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// Name of the variable holding the bearer token every request must carry.
    pub auth_token_env: Option<String>,
    /// Browser origins allowed to call (`scheme://host[:port]`, or `null`); any other `Origin`
    /// is refused with 403.
    pub allow_origins: Vec<String>,
    /// `Host` values accepted besides the loopback names (for a public bind behind a proxy).
    pub allow_hosts: Vec<String>,
    /// Connection limits (header read time, idle time, most connections).
    pub limits: HttpLimits,
}

/// The HTTP settings ready to serve: the token read, the host list complete.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The bearer token every request must carry, when one is required.
    pub token: Option<String>,
    /// Allowed browser origins: the loopback ones and those listed; a request carrying any
    /// other `Origin` is refused.
    pub allow_origins: Vec<String>,
    /// Allowed `Host` values.
    pub allow_hosts: Vec<String>,
    /// Connection limits (header read time, idle time, most connections).
    pub limits: HttpLimits,
}

impl std::fmt::Debug for HttpConfig {
    /// The token is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("listen", &self.listen)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("allow_origins", &self.allow_origins)
            .field("allow_hosts", &self.allow_hosts)
            .field("limits", &self.limits)
            .finish()
    }
}

impl HttpSettings {
    /// Settings listening on `listen` with no token and no extra origins or hosts.
    pub fn new(listen: SocketAddr) -> HttpSettings {
        HttpSettings {
            listen,
            auth_token_env: None,
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            limits: HttpLimits::default(),
        }
    }

    /// Reads the token through `env` and refuses what would be unsafe to serve: a non-loopback
    /// address without a token, a token variable that is unset or too short.
    pub fn resolve(&self, env: impl Fn(&str) -> Option<String>) -> Result<HttpConfig, ConfigError> {
        let token = match &self.auth_token_env {
            None => None,
            Some(name) => match env(name) {
                Some(token) if token.len() >= MIN_TOKEN_BYTES => Some(token),
                Some(_) => {
                    return Err(ConfigError::new(format!(
                        "--auth-token-env: {name} must hold at least {MIN_TOKEN_BYTES} bytes"
                    )));
                }
                None => {
                    return Err(ConfigError::new(format!(
                        "--auth-token-env: {name} is not set"
                    )));
                }
            },
        };
        if token.is_none() && !self.listen.ip().is_loopback() {
            return Err(ConfigError::new(
                "--http on a non-loopback address needs --auth-token-env",
            ));
        }
        let mut allow_hosts: Vec<String> = LOOPBACK_HOSTS.map(String::from).to_vec();
        allow_hosts.extend(self.allow_hosts.iter().cloned());
        let mut allow_origins: Vec<String> = LOOPBACK_ORIGINS.map(String::from).to_vec();
        allow_origins.extend(self.allow_origins.iter().cloned());
        Ok(HttpConfig {
            listen: self.listen,
            token,
            allow_origins,
            allow_hosts,
            limits: self.limits,
        })
    }
}

/// `--http`: `HOST:PORT` where HOST is an IP address (IPv6 in brackets) or `localhost`.
pub fn parse_listen(value: &str) -> Result<SocketAddr, ConfigError> {
    let problem = || ConfigError::new("--http must be ADDRESS:PORT, e.g. 127.0.0.1:8080");
    if let Ok(address) = value.parse::<SocketAddr>() {
        return Ok(address);
    }
    let (host, port) = value.rsplit_once(':').ok_or_else(problem)?;
    let port: u16 = port.parse().map_err(|_| problem())?;
    match host {
        "localhost" => Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)),
        _ => Err(problem()),
    }
}

/// `--auth-token-env`: a portable environment variable name.
pub fn parse_token_env(value: &str) -> Result<String, ConfigError> {
    parse_env_name("--auth-token-env", value)
}

/// `--allow-origin`: `null`, or `http://` or `https://` followed by a host and optional port.
pub fn parse_origin(value: &str) -> Result<String, ConfigError> {
    let rest = value
        .strip_prefix("http://")
        .or_else(|| value.strip_prefix("https://"));
    let well_formed = value == "null"
        || rest.is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]*".contains(&b))
        });
    if well_formed {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--allow-origin must be scheme://host[:port] (http or https) or null",
        ))
    }
}

/// A `Host` value parsed strictly: a name (letters, digits, `-` and `.`) or an IPv6 literal in
/// brackets, then optionally `:` and 1 to 5 digits no greater than 65535, and nothing else (no
/// user information, no path, no space). The host comes back lower-case, IPv6 unbracketed and
/// in canonical form.
pub fn parse_authority(value: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (address, after) = rest.split_once(']')?;
        let address: Ipv6Addr = address.parse().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (address.to_string(), port)
    } else {
        let (host, port) = match value.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (value, None),
        };
        let well_formed = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        if !well_formed {
            return None;
        }
        (host.to_ascii_lowercase(), port)
    };
    let port = match port {
        None => None,
        Some(digits) => {
            if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            Some(digits.parse::<u16>().ok()?)
        }
    };
    Some((host, port))
}

/// An `--allow-host` entry as [`parse_authority`] reads a `Host` value, except that a bare
/// IPv6 address (`::1`) is one host, not a host and a port.
pub fn parse_host_entry(value: &str) -> Option<(String, Option<u16>)> {
    match value.parse::<Ipv6Addr>() {
        Ok(address) => Some((address.to_string(), None)),
        Err(_) => parse_authority(value),
    }
}

/// `--allow-host`: a host name or address, with an optional port; what a `Host` header may
/// carry ([`parse_host_entry`]), so that every entry can match one.
pub fn parse_host(value: &str) -> Result<String, ConfigError> {
    if parse_host_entry(value).is_some() {
        Ok(value.to_owned())
    } else {
        Err(ConfigError::new(
            "--allow-host must be a host name or address",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(parse_listen("127.0.0.1:8080").unwrap().port(), 8080);
        assert!(parse_listen("[::1]:0").unwrap().ip().is_loopback());
        assert!(parse_listen("localhost:9").unwrap().ip().is_loopback());
        for bad in ["", "8080", "example.com:80", "127.0.0.1", "127.0.0.1:99999"] {
            assert!(parse_listen(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_public_bind_needs_a_token() {
        let settings = HttpSettings::new("0.0.0.0:8080".parse().unwrap());
        let error = settings.resolve(|_| None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--http on a non-loopback address needs --auth-token-env"
        );
        let settings = HttpSettings {
            auth_token_env: Some("T".into()),
            ..settings
        };
        assert!(settings.resolve(|_| Some("short".into())).is_err());
        assert!(settings.resolve(|_| None).is_err());
        let config = settings.resolve(|_| Some("x".repeat(32))).unwrap();
        assert_eq!(config.token.as_deref(), Some("x".repeat(32).as_str()));
        assert!(!format!("{config:?}").contains("xxxx"));
    }

    #[test]
    fn origins_and_hosts() {
        assert!(parse_origin("http://localhost:6274").is_ok());
        assert!(parse_origin("https://app.example.com").is_ok());
        assert!(parse_origin("null").is_ok());
        for bad in ["localhost", "ftp://x", "http://", "http://a b"] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
        assert!(parse_host("fs.example.com:443").is_ok());
        assert!(parse_host("a/b").is_err());
        for good in ["::1", "[::1]:8080", "127.0.0.1", "Fs.Example.com"] {
            assert!(parse_host(good).is_ok(), "{good}");
        }
        for bad in ["a:b", "a:1:2", "x@localhost", "a:70000", "[::1", ""] {
            assert!(parse_host(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_authority("LocalHost:080"),
            Some(("localhost".into(), Some(80)))
        );
        assert_eq!(parse_authority("[0:0::1]"), Some(("::1".into(), None)));
        assert_eq!(parse_authority("localhost:000080"), None);
    }
}
