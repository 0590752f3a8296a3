//! The deterministic cursor key: the secret, read from the environment variable that
//! `--cursor-key-env` names, that lets signed cursors survive a restart or move between machines.
//!
//! The key must be written as canonical unpadded base64url and decode to at least 32 bytes. The
//! value is a credential, so no error ever repeats it; the two messages only say which rule failed.
//!
//! ```
//! use fsmcp::config::cursor_key::resolve_cursor_key;
//!
//! let key = resolve_cursor_key("KEY", |_| {
//!     Some("BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc".to_owned())
//! })
//! .unwrap();
//! assert_eq!(key, [7u8; 32]);
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::ConfigError;

/// Fewest key bytes accepted (256 bits), so the key is as strong as the HMAC-SHA-256 tags it signs.
pub const MIN_CURSOR_KEY_BYTES: usize = 32;

/// Resolve the deterministic cursor key named by --cursor-key-env, reading the variable through `lookup`.
///
/// `lookup` is `std::env::var(name).ok()` in production; taking it as a parameter keeps tests off
/// the process environment. The name itself was already validated by the argument parser.
pub fn resolve_cursor_key(
    name: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<u8>, ConfigError> {
    let encoded = lookup(name).unwrap_or_default();
    let in_alphabet = !encoded.is_empty()
        && encoded
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    if !in_alphabet {
        return Err(ConfigError::new(
            "cursor key environment variable is missing, empty, or malformed",
        ));
    }
    // Round-tripping rejects every non-canonical spelling (stray trailing bits, impossible
    // lengths), so one key has exactly one accepted text.
    match URL_SAFE_NO_PAD.decode(&encoded) {
        Ok(key) if key.len() >= MIN_CURSOR_KEY_BYTES && URL_SAFE_NO_PAD.encode(&key) == encoded => {
            Ok(key)
        }
        _ => Err(ConfigError::new(
            "cursor key environment variable is malformed or contains fewer than 32 bytes",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MISSING: &str = "cursor key environment variable is missing, empty, or malformed";
    const SHORT: &str =
        "cursor key environment variable is malformed or contains fewer than 32 bytes";
    const SEVENS: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc";

    fn resolve(value: Option<&str>) -> Result<Vec<u8>, ConfigError> {
        resolve_cursor_key("KEY", |name| {
            assert_eq!(name, "KEY");
            value.map(str::to_owned)
        })
    }

    #[test]
    fn accepts_canonical_keys_of_32_bytes_or_more() {
        assert_eq!(resolve(Some(SEVENS)), Ok(vec![7u8; 32]));
        let long = URL_SAFE_NO_PAD.encode([0xfbu8; 64]);
        assert!(long.contains('-') && long.contains('_'));
        assert_eq!(resolve(Some(&long)), Ok(vec![0xfb; 64]));
        let odd = URL_SAFE_NO_PAD.encode([1u8; 33]);
        assert_eq!(resolve(Some(&odd)), Ok(vec![1; 33]));
    }

    #[test]
    fn rejects_with_the_right_message() {
        let short = URL_SAFE_NO_PAD.encode([7u8; 31]);
        // The last character of SEVENS carries two unused bits; setting them is non-canonical.
        let trailing_bits = format!("{}d", &SEVENS[..SEVENS.len() - 1]);
        // 45 characters: no byte string encodes to a length of 1 modulo 4.
        let impossible_length = format!("{SEVENS}AA");
        let cases: &[(Option<&str>, &str)] = &[
            (None, MISSING),
            (Some(""), MISSING),
            (Some(&format!("{SEVENS}=")), MISSING),
            (Some(" BwcH"), MISSING),
            (Some(&format!("{SEVENS}\n")), MISSING),
            (Some("Bwc+Bwc/"), MISSING),
            (Some("Bwcé"), MISSING),
            (Some(&short), SHORT),
            (Some(&trailing_bits), SHORT),
            (Some(&impossible_length), SHORT),
            (Some("A"), SHORT),
        ];
        for (value, expected) in cases {
            let err = resolve(*value).expect_err("must fail").to_string();
            assert_eq!(err, *expected, "{value:?}");
            if let Some(value) = value.filter(|value| value.len() > 2) {
                assert!(!err.contains(value), "the value leaked");
            }
        }
    }
}
