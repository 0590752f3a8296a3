//! How fast can any map of a tree be cold? Times tree-sitter alone over the files a map
//! reads (bare parses, then parses with the tags pass the map runs), on one thread and on
//! two, with copies of a file counted once as the map counts them. The map's cold time
//! cannot beat the bare parse on the machine's cores.
//!
//! `cargo bench --bench map_floor -- TREE` (or `scripts/bench-map --floor`).

// The bench reads the tree with std::fs on purpose: it measures the parser, not the server.
#![allow(clippy::disallowed_methods)]

#[path = "common/sources.rs"]
mod sources;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use fsmcp::code_map::{Language, extract, grammar};
use rayon::prelude::*;
use sources::sources;

fn parse(language: Language, source: &[u8]) {
    if let Some(grammar) = grammar(language) {
        let mut parser = tree_sitter::Parser::new();
        if parser.set_language(&grammar.language).is_ok() {
            std::hint::black_box(parser.parse(source, None));
        }
    }
}

fn main() {
    let Some(tree) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench --bench map_floor -- TREE");
        std::process::exit(2);
    };
    let mut found = Vec::new();
    let top = PathBuf::from(&tree);
    sources(&top, &top, &mut found);
    let mut files: Vec<(Language, Vec<u8>)> = found
        .into_iter()
        .map(|(_, language, bytes)| (language, bytes))
        .collect();
    let mut seen = HashSet::new();
    files.retain(|(language, bytes)| seen.insert((*language, bytes.clone())));
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!(
        "{} distinct source files, {:.1} MB",
        files.len(),
        bytes as f64 / 1e6
    );
    for threads in [1, 2] {
        let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() else {
            continue;
        };
        for (what, tags) in [("parse alone", false), ("parse and tags", true)] {
            let started = Instant::now();
            pool.install(|| {
                files.par_iter().for_each(|(language, source)| {
                    if tags {
                        std::hint::black_box(extract(*language, source));
                    } else {
                        parse(*language, source);
                    }
                });
            });
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{threads} thread(s), {what:<14} {:7.0} ms  {:5.1} MB/s",
                seconds * 1000.0,
                bytes as f64 / seconds / 1e6
            );
        }
    }
}
