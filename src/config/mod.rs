//! Configuration: the command line (`args`), limits (`limits`) and the deterministic cursor key
//! (`cursor_key`), validated once at start-up into plain values.
//!
//! Every start-up failure is a [`ConfigError`] whose `Display` is the one line printed to stderr
//! before exiting with status 64.

pub mod args;
pub mod cursor_key;
pub mod limits;

pub use args::{Invocation, OneShot, Options, ProtocolMode, ToolSelection, help_text, parse_args};
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

/// Exit status for a configuration error (EX_USAGE).
pub const EXIT_CONFIG: i32 = 64;
