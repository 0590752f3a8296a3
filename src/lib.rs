//! fsmcp: a root-confined filesystem server for AI agents, speaking the Model Context Protocol.
//!
//! The crate is layered so that authority flows one way:
//!
//! * [`app`] turns parsed options into a ready server, in the documented validation order.
//! * [`config`] turns a command line (or a JSON config file) into a validated
//!   [`config::ServeConfig`].
//! * [`root`] is the confinement boundary: it holds the root's directory descriptor and is the
//!   only module that touches the filesystem.
//! * [`engine`] builds pages, cursors, reads and searches on top of a [`root::Root`]; it knows no
//!   MCP type.
//! * [`tools`] are thin façades: they parse arguments, call the engine and shape results.
//! * [`server`] speaks MCP (via `rmcp`) over stdio and runs one-shot calls.

pub mod app;
pub mod config;
pub mod engine;
pub mod map;
pub mod root;
pub mod server;
pub mod tools;
mod workers;

/// The server's name as announced in `server/discover` and `initialize`.
pub const SERVER_NAME: &str = "fsmcp";
/// The server's version, the crate version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// What the server tells a client on discovery and initialization; ptc-fs-mcp's wording, kept
/// verbatim because hosts may compare it. A config file's `instructions` replaces it.
pub const SERVER_INSTRUCTIONS: &str = "Read and write files under one confined root. Paths are relative to that root. Reads reflect the filesystem at call time, so a write is visible to the next read. Follow next_cursor until it is null; a cursor is rejected if the data it was issued against changed.";
