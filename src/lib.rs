//! fsmcp: a root-confined filesystem server for AI agents, speaking the Model Context Protocol.
//!
//! The crate is layered so that authority flows one way:
//!
//! * [`app`] turns parsed options into a ready server, in the documented validation order.
//! * [`config`] turns a command line (or a JSON config file) into a validated
//!   [`config::ServeConfig`].
//! * [`root`] is the confinement boundary: it holds the root's directory descriptor and is the
//!   only module that touches the filesystem.
//! * `ptc` and `fs` are the two tool sets, each owning its tools end to end: schemas, typed
//!   arguments, operations on a [`root::Root`], state and wording. They are private; a host
//!   publishes them with [`publish`] into a [`Registry`].
//! * `tools` is what every tool shares: definitions, validation and the registry.
//! * [`server`] speaks MCP (via `rmcp`) over stdio and Streamable HTTP, and runs one-shot calls.
//!
//! # Embedding
//!
//! A host that would rather link fsmcp than spawn it describes its roots, opens them with
//! [`open`] and hands the server to any `rmcp` transport. The checks are the command line's:
//! a root that does not exist, a missing include or a limit out of range is a [`ConfigError`]
//! with a one-line message.
//!
//! ```no_run
//! use fsmcp::{ProtocolMode, RootConfig, ServeConfig, ToolSelection};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let root = RootConfig {
//!     root: "/srv/work".into(),
//!     includes: vec!["**".into()],
//!     tools: ToolSelection { ptc: false, fs: true },
//!     ..RootConfig::default()
//! };
//! let prepared = fsmcp::open(&ServeConfig::of_roots(vec![root]), ProtocolMode::All, |_| None)?;
//! // Any rmcp transport; here, one end of an in-memory pipe.
//! let (server_end, _client_end) = tokio::io::duplex(1 << 16);
//! let running = rmcp::serve_server(prepared.server, server_end).await?;
//! running.waiting().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The path contract is public for hosts that check paths before they send them: [`RelPath`]
//! (every textual rule), [`Selector`] and [`glob_to_regex`] (the include and exclude globs),
//! [`default_excludes`] and [`Limits`] (the defaults). So is the cursor contract: a
//! [`CursorCodec`] signs with a [`Key`], and a cursor binds its tool's arguments
//! ([`scope_of`]) and the state it pages ([`state_of`]). `examples/embed.rs` writes, reads and
//! searches through an in-memory transport.

pub mod app;
pub mod config;
mod digest;
mod fs;
pub mod json;
mod measure;
mod ptc;
/// The confinement boundary, its own crate (`crates/root`): the only code that touches the
/// filesystem.
pub use fsmcp_root as root;
pub mod server;
mod spelling;
mod tools;
use fsmcp_root::workers;

pub use app::{Prepared, open, publish};
pub use digest::Key;
pub use ptc::{CursorCodec, PtcError, scope_of, state_of};
pub use tools::{Registry, violations, wait_for_running_calls};

/// The code map's reading of one file, for measuring it apart from the server
/// (`benches/map_floor.rs`): the languages it reads, the files it skips, and one file's
/// definitions and references.
pub mod code_map {
    pub use crate::fs::map::tags::{extract, grammar, language_of};
    pub use crate::fs::map::{Definition, FileTags, Language, MARKERS, MAX_SOURCE_BYTES};
}
pub use config::{ConfigError, Limits, ProtocolMode, RootConfig, ServeConfig, ToolSelection};
pub use root::{RelPath, Selector, default_excludes, glob_to_regex};
pub use server::FsmcpServer;

/// The server's name as announced in `server/discover` and `initialize`.
pub const SERVER_NAME: &str = "fsmcp";
/// The server's version, the crate version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// What the server tells a client on discovery and initialization; ptc-fs-mcp's wording, kept
/// verbatim because hosts may compare it. A config file's `instructions` replaces it.
pub const SERVER_INSTRUCTIONS: &str = "Read and write files under one confined root. Paths are relative to that root. Reads reflect the filesystem at call time, so a write is visible to the next read. Follow next_cursor until it is null; a cursor is rejected if the data it was issued against changed.";
/// The instructions when no root serves the `ptc` tools (whose cursors
/// [`SERVER_INSTRUCTIONS`] speaks of): what the fs tools take and give instead. A config
/// file's `instructions` replaces it too.
pub const FS_INSTRUCTIONS: &str = "Read and write files under a confined root. Paths are relative to the root; an absolute path inside it is accepted, and answers speak relative paths. Reads reflect the filesystem at call time, so a write is visible to the next read. Observations return revision tokens: send one back in _expected-revisions to make a change conditional on what you saw.";
