//! The source files a map of a tree would read, for the programs that study the map from
//! outside the server (`benches/map_floor.rs`, `examples/map_tags.rs`).

// They read the tree with std::fs on purpose: they measure the parser and the extraction.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use fsmcp::code_map::{Language, MAX_SOURCE_BYTES, SKIPPED_DIRECTORIES, language_of};

/// Source files below `dir` as the map would read them, with their paths relative to `top`.
pub fn sources(top: &Path, dir: &Path, into: &mut Vec<(String, Language, Vec<u8>)>) {
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
