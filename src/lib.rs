//! fsmcp: a root-confined filesystem server for AI agents, speaking the Model Context Protocol.
//!
//! The crate is layered so that authority flows one way:
//!
//! * [`app`] turns parsed options into a ready server, in the documented validation order.
//! * [`config`] turns a command line into a validated [`config::Config`].
//! * [`root`] is the confinement boundary: it holds the root's directory descriptor and is the
//!   only module that touches the filesystem.
//! * [`engine`] builds pages, cursors, reads and searches on top of a [`root::Root`]; it knows no
//!   MCP type.
//! * [`tools`] are thin façades: they parse arguments, call the engine and shape results.
//! * [`server`] speaks MCP (via `rmcp`) over stdio and runs one-shot calls.

pub mod app;
pub mod config;
pub mod engine;
pub mod root;
pub mod server;
pub mod tools;

/// The server's name as announced in `server/discover` and `initialize`.
pub const SERVER_NAME: &str = "fsmcp";
/// The server's version, the crate version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
