//! What the map's tags extraction yields for each source file below a directory: one JSON
//! line per file the map would read (the map's languages, at most `MAX_SOURCE_BYTES`, UTF-8
//! without NUL, skipped directories left out), in sorted path order, with the lines of the
//! definitions `fsmcp::code_map::extract` finds. `scripts/map-eval` reads it to tell a file
//! the extraction finds nothing in from one the ranking leaves out.
//!
//! `cargo run --release --example map_tags -- TREE`

// The example reads the tree with std::fs on purpose: it inspects the extraction, not the
// server.
#![allow(clippy::disallowed_methods)]

#[path = "../benches/common/sources.rs"]
mod sources;

use std::io::Write;
use std::path::PathBuf;

use fsmcp::code_map::extract;
use serde_json::json;
use sources::sources;

fn main() {
    let Some(tree) = std::env::args().nth(1) else {
        eprintln!("usage: cargo run --release --example map_tags -- TREE");
        std::process::exit(2);
    };
    let top = PathBuf::from(&tree);
    let mut files = Vec::new();
    sources(&top, &top, &mut files);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (path, language, bytes) in files {
        let tags = extract(language, &bytes);
        let definitions: Vec<_> = tags
            .definitions
            .iter()
            .map(|d| json!([d.name, d.line]))
            .collect();
        let line = json!({ "path": path, "definitions": definitions });
        if writeln!(out, "{line}").is_err() {
            std::process::exit(1);
        }
    }
}
