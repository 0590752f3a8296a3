//! The source files a map of a tree would read, for the programs that study the map from
//! outside the server (`benches/map_floor.rs`, `examples/map_tags.rs`).

// They read the tree with std::fs on purpose: they measure the parser and the extraction.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use fsmcp::Selector;
use fsmcp::code_map::{Language, MARKERS, MAX_SOURCE_BYTES, language_of};

/// Source files below `dir` as the map would read them on a root with the default selector,
/// with their paths relative to `top`.
pub fn sources(top: &Path, dir: &Path, into: &mut Vec<(String, Language, Vec<u8>)>) {
    let selector = Selector::new(&["**".to_owned()], &[], true);
    walk(&selector, top, dir, into);
}

/// [`sources`] below `dir`, judging each path by `selector` and each directory by the map's
/// markers.
fn walk(selector: &Selector, top: &Path, dir: &Path, into: &mut Vec<(String, Language, Vec<u8>)>) {
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
        let relative = path.strip_prefix(top).unwrap_or(&path).to_string_lossy();
        if selector.excludes(&relative) {
            continue;
        }
        if kind.is_dir() {
            let marked = MARKERS.iter().any(|marker| {
                std::fs::read(path.join(marker.name))
                    .is_ok_and(|bytes| bytes.starts_with(marker.starts_with))
            });
            if !marked {
                walk(selector, top, &path, into);
            }
        } else if kind.is_file()
            && let Some(language) = language_of(&name)
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_SOURCE_BYTES)
            && let Ok(bytes) = std::fs::read(&path)
            && std::str::from_utf8(&bytes).is_ok()
            && !bytes.contains(&0)
        {
            into.push((relative.into_owned(), language, bytes));
        }
    }
}
