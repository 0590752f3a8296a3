//! Roots in the running system's own spelling, and the names a system would read as another
//! entry. Run natively on Linux and, by `scripts/cross`, against the other platforms' binaries:
//! a Windows binary (under Wine) gets its root as `Z:\…` with backslashes and a space, and
//! refuses `a.txt:stream`, a trailing dot or space and Windows' forbidden characters, creating
//! nothing; elsewhere those are ordinary names. Device names are refused on every system.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::path::Path;
use support::fs::*;
use support::*;

/// `path` as Windows spells it under Wine, whose drive `Z:` is Linux's `/`.
fn windows_spelling(path: &Path) -> String {
    format!("Z:{}", path.display().to_string().replace('/', "\\"))
}

#[test]
fn a_root_with_a_space_in_the_systems_own_spelling_is_served() {
    let tree = Tree::new().file("my notes/a.txt", "hello\n");
    let root = tree.join("my notes");
    let spellings = if windows_binary() {
        // Backslashes, and forward slashes after the drive: Windows takes both.
        vec![
            windows_spelling(&root),
            format!("Z:{}", root.display()),
            root.display().to_string(),
        ]
    } else {
        vec![root.display().to_string()]
    };
    for spelled in spellings {
        let mut server = Server::start(Path::new(&spelled), &["--tools", "fs", "--include", "**"]);
        assert_eq!(
            fs_text(&mut server, "fs_read", json!({"path": "a.txt"})),
            "hello\n",
            "--root {spelled}"
        );
    }
}

#[test]
fn a_relative_root_is_read_against_the_working_directory() {
    let tree = Tree::new().file("sub dir/a.txt", "hello\n");
    let mut command = fsmcp_command();
    command.current_dir(tree.path()).args([
        "--root",
        "sub dir",
        "--tools",
        "fs",
        "--include",
        "**",
    ]);
    let mut server = Server::start_command(command);
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "a.txt"})),
        "hello\n"
    );
}

#[test]
fn names_windows_reads_as_other_entries_are_refused_there_and_ordinary_elsewhere() {
    let tree = Tree::new().file("a.txt", "main\n");
    let mut server = fs_server(&tree);
    for name in ["a.txt:secret", "x.", "x ", "q*.txt", "p|q"] {
        let args = json!({"path": name, "content": "data\n"});
        if windows_binary() {
            let error = server.call_error("fs_write", args);
            assert!(
                error.starts_with(&format!("Invalid path '{name}'"))
                    && error.contains("on Windows"),
                "{name}: {error}"
            );
            // Nothing made: not the name, and no stream of `a.txt` (Wine would make either as
            // a Linux file of that very name).
            assert!(!tree.join(name).exists(), "{name} was created");
        } else {
            fs_text(&mut server, "fs_write", args);
            assert_eq!(
                std::fs::read_to_string(tree.join(name)).expect("written"),
                "data\n"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(tree.join("a.txt")).expect("a.txt"),
        "main\n"
    );
}

#[test]
fn device_names_are_refused_on_every_system() {
    let tree = Tree::new().file("a.txt", "main\n");
    let mut server = fs_server(&tree);
    for name in ["CON", "nul.txt", "COM1.log", "aux", "dir/LPT1"] {
        for (tool, args) in [
            ("fs_write", json!({"path": name, "content": "x"})),
            ("fs_read", json!({"path": name})),
        ] {
            let error = server.call_error(tool, args);
            assert!(
                error.starts_with(&format!("Invalid path '{name}'")),
                "{tool} {name}: {error}"
            );
        }
        assert!(!tree.join(name).exists(), "{name} was created");
    }
}
