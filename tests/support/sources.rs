//! Real source trees for the differential tests: a dependency's source from cargo's registry,
//! and a copy of a tree into a test's root.

// The world outside the server is built with std::fs on purpose.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

/// The `src` directory of a dependency at the version this project's Cargo.lock pins, from
/// cargo's registry; `None` when the registry does not hold it.
pub fn registry_source(krate: &str) -> Option<PathBuf> {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).ok()?;
    let at = lock.find(&format!("name = \"{krate}\"\nversion = \""))?;
    let version = lock[at..].lines().nth(1)?.split('"').nth(1)?;
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .map(|index| index.path().join(format!("{krate}-{version}/src")))
        .find(|p| p.is_dir())
}

/// Copies the file or directory `from` to `to`, directories whole, creating what `to` needs;
/// what is neither a file nor a directory (a link) is left out.
pub fn copy_tree(from: &Path, to: &Path) {
    let kind = std::fs::symlink_metadata(from).expect("stat").file_type();
    if kind.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else if kind.is_file() {
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(from, to).expect("copy");
    }
}
