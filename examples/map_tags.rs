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

use std::io::Write;
use std::path::{Path, PathBuf};

use fsmcp::code_map::{Language, MAX_SOURCE_BYTES, SKIPPED_DIRECTORIES, extract, language_of};
use serde_json::json;

/// Source files below `dir` as the map would read them, with their paths relative to `top`.
fn sources(top: &Path, dir: &Path, into: &mut Vec<(String, Language, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let path = entry.path();
        if kind.is_dir() {
            if !name.starts_with('.')
                && !SKIPPED_DIRECTORIES.contains(&name.as_ref())
                && !path.join("pyvenv.cfg").exists()
            {
                sources(top, &path, into);
            }
        } else if kind.is_file()
            && let Some(language) = language_of(&name)
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_SOURCE_BYTES)
            && let Ok(bytes) = std::fs::read(&path)
            && std::str::from_utf8(&bytes).is_ok()
            && !bytes.contains(&0)
        {
            let relative = path.strip_prefix(top).unwrap_or(&path);
            into.push((relative.to_string_lossy().into_owned(), language, bytes));
        }
    }
}

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
