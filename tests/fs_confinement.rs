//! Confinement of the fs tools: every location argument refuses the spellings that could leave
//! or alias outside the root, no symbolic link is a door out of it for a reader or a mutator,
//! and no answer names a host path.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::fs::*;
use support::*;

const MARKER: &str = "outside marker\n";

fn outside() -> Tree {
    Tree::new()
        .file("marker.txt", MARKER)
        .file("sub/deep.txt", "outside deep\n")
}

/// A root holding ordinary entries and every kind of link that points out of it.
fn linked_tree(outside: &Tree) -> Tree {
    let outside_name = outside
        .path()
        .file_name()
        .expect("outside name")
        .to_str()
        .expect("utf-8")
        .to_owned();
    Tree::new()
        .file("a.txt", "inside\n")
        .file("d/x.txt", "x\n")
        // A link to a file outside, absolute and relative.
        .symlink("link-file", outside.join("marker.txt"))
        .symlink("rel-link", format!("../{outside_name}/marker.txt"))
        // A link to a directory outside, used as a directory (an ancestor) by most calls.
        .symlink("via", outside.path())
        // Dangling links whose targets would be created outside.
        .symlink("dangling", outside.join("created.txt"))
        .symlink("dangling-dir", outside.join("newdir"))
}

/// Every spelling a location argument refuses.
fn invalid_paths() -> Vec<&'static str> {
    vec![
        "../x",
        "..",
        "/etc/passwd",
        "/",
        "a/../b",
        "./a.txt",
        "a/./b",
        "C:\\x",
        "C:/x",
        "c:foo",
        "\\\\server\\share",
        "a\\b",
        "a\u{0}b",
        "CON",
        "con",
        "nul.txt",
        "d/COM1",
        "lpt9.log",
        "AUX",
    ]
}

/// The refusal of one of [`invalid_paths`]: a path wrong only in its `.` segments is answered
/// with the spelling to use instead.
fn refusal_of(path: &str) -> String {
    if absolute_here(path) {
        return outside_root(path);
    }
    match path {
        "./a.txt" => invalid_path_written_as(path, "a.txt"),
        "a/./b" => invalid_path_written_as(path, "a/b"),
        _ => invalid_path(path),
    }
}

/// Each tool's calls with `path` in one location argument.
fn location_calls(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("fs_read", json!({"path": path})),
        ("fs_write", json!({"path": path, "content": "x"})),
        (
            "fs_edit",
            json!({"path": path, "old-string": "inside", "new-string": "x"}),
        ),
        ("fs_list", json!({"path": path})),
        ("fs_glob", json!({"pattern": "*", "path": path})),
        ("fs_grep", json!({"pattern": "inside", "path": path})),
        ("fs_stat", json!({"path": path})),
        ("fs_mkdir", json!({"path": path})),
        ("fs_move", json!({"from": path, "to": "moved.txt"})),
        ("fs_move", json!({"from": "a.txt", "to": path})),
        ("fs_delete", json!({"path": path, "recursive": true})),
    ]
}

#[test]
fn every_location_argument_refuses_every_escaping_spelling() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let root_before = snapshot(tree.path());
    let outside_before = snapshot(outside.path());
    let mut server = fs_server(&tree);
    for path in invalid_paths() {
        for (tool, args) in location_calls(path) {
            assert_eq!(
                fs_error(&mut server, tool, args.clone()),
                refusal_of(path),
                "{tool} {args}"
            );
        }
    }
    assert_eq!(snapshot(tree.path()), root_before);
    assert_eq!(snapshot(outside.path()), outside_before);
}

#[test]
fn an_absolute_path_inside_the_root_is_its_relative_path() {
    let tree = Tree::new().file("a.txt", "inside\n").file("d/x.txt", "x\n");
    let mut server = fs_server(&tree);
    let host = |relative: &str| tree.join(relative).to_str().expect("utf-8").to_owned();
    let root = tree.path().to_str().expect("utf-8").to_owned();
    // Every reader answers as it does for the relative path, in relative paths.
    for (relative, tool, args) in [
        ("a.txt", "fs_read", json!({})),
        ("a.txt", "fs_stat", json!({})),
        ("d", "fs_list", json!({})),
        ("d", "fs_glob", json!({"pattern": "*"})),
        ("d", "fs_grep", json!({"pattern": "x"})),
    ] {
        let mut relative_args = args.clone();
        relative_args["path"] = json!(relative);
        let mut absolute_args = args.clone();
        absolute_args["path"] = json!(host(relative));
        let expected = fs_text(&mut server, tool, relative_args);
        let answer = fs_text(&mut server, tool, absolute_args.clone());
        assert_eq!(answer, expected, "{tool} {absolute_args}");
        assert!(!answer.contains(&root), "{tool} names the root: {answer}");
    }
    // The root itself, with or without a trailing separator, is `.`.
    for spelling in [root.clone(), format!("{root}/")] {
        assert_eq!(
            fs_text(&mut server, "fs_list", json!({"path": spelling})),
            "a.txt\nd/"
        );
    }
    // Mutators too, and their messages quote the relative path.
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": host("d/new.txt"), "content": "new\n"}),
    );
    assert_eq!(tree.bytes("d/new.txt"), b"new\n");
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": host("d/none.txt")})),
        does_not_exist("d/none.txt")
    );
    // `..` below the root's path is still a `..` segment.
    let climbing = format!("{root}/d/../../x");
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": climbing.clone()})),
        invalid_path(&climbing)
    );
}

#[test]
fn an_absolute_path_elsewhere_is_refused_without_naming_the_root() {
    let outside = outside();
    let tree = Tree::new().file("a.txt", "inside\n").file("d/x.txt", "x\n");
    let root_before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    let root = tree.path().to_str().expect("utf-8").to_owned();
    // The root's path as a prefix of a sibling's name is not the root.
    let sibling = format!("{root}-sibling/a.txt");
    let elsewhere = outside
        .join("marker.txt")
        .to_str()
        .expect("utf-8")
        .to_owned();
    for path in [sibling, elsewhere] {
        for (tool, args) in location_calls(&path) {
            let message = fs_error(&mut server, tool, args.clone());
            assert_eq!(message, outside_root(&path), "{tool} {args}");
            assert!(!message.contains(&format!("{root}/")), "{message}");
        }
    }
    assert_eq!(snapshot(tree.path()), root_before);
}

#[test]
fn a_root_reached_through_a_linked_ancestor_takes_both_spellings() {
    let real = Tree::new().file("r/a.txt", "inside\n");
    let parent = Tree::new().symlink("via", real.path());
    let linked_root = parent.join("via/r");
    let mut server = Server::start(&linked_root, &["--tools", "fs", "--include", "**"]);
    for base in [linked_root.clone(), real.join("r")] {
        let path = base.join("a.txt").to_str().expect("utf-8").to_owned();
        assert_eq!(
            fs_text(&mut server, "fs_read", json!({"path": path})),
            fs_text(&mut server, "fs_read", json!({"path": "a.txt"})),
            "{path}"
        );
    }
}

#[test]
fn a_file_named_with_a_trailing_slash_is_not_read_as_a_directory() {
    let tree = Tree::new().file("src/lib.rs", "fn main() {}\n");
    let mut server = fs_server(&tree);
    for (tool, args) in [
        ("fs_read", json!({"path": "src/lib.rs/"})),
        ("fs_stat", json!({"path": "src/lib.rs/"})),
        ("fs_grep", json!({"pattern": "main", "path": "src/lib.rs/"})),
    ] {
        assert_eq!(
            fs_error(&mut server, tool, args.clone()),
            "'src/lib.rs/' names a file, not a directory: write it without the trailing '/'",
            "{tool} {args}"
        );
    }
    assert!(fs_text(&mut server, "fs_list", json!({"path": "src/"})).contains("lib.rs"));
}

// ---- readers --------------------------------------------------------------------------------

#[test]
fn a_link_to_a_file_outside_is_never_read() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    for path in ["link-file", "rel-link", "dangling"] {
        for args in [
            json!({"path": path}),
            json!({"path": path, "offset": 1, "limit": 5}),
        ] {
            let message = fs_error(&mut server, "fs_read", args.clone());
            assert!(!message.contains("outside marker"), "{args}: {message}");
        }
    }
}

#[test]
fn a_path_through_a_linked_directory_is_refused_by_readers() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    let mut wrong = Vec::new();
    for (tool, args, path) in [
        (
            "fs_read",
            json!({"path": "via/marker.txt"}),
            "via/marker.txt",
        ),
        (
            "fs_read",
            json!({"path": "via/sub/deep.txt"}),
            "via/sub/deep.txt",
        ),
        ("fs_list", json!({"path": "via/sub"}), "via/sub"),
        (
            "fs_stat",
            json!({"path": "via/marker.txt"}),
            "via/marker.txt",
        ),
    ] {
        let message = fs_error(&mut server, tool, args.clone());
        if message != through_symlink(path) {
            wrong.push(format!("{tool} {args}: {message}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_link_to_a_directory_outside_is_never_listed() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    let message = fs_error(&mut server, "fs_list", json!({"path": "via"}));
    assert!(!message.contains("marker.txt"), "{message}");
    // Links are shown as links, never as what they lead to.
    assert_eq!(
        fs_text(&mut server, "fs_list", json!({})),
        "a.txt\nd/\ndangling@\ndangling-dir@\nlink-file@\nrel-link@\nvia@"
    );
}

#[test]
fn searches_never_reach_outside_through_a_link() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    let found = server.call_result("fs_grep", json!({"pattern": "outside"}));
    assert!(!found.to_string().contains("outside marker"), "{found}");
    assert!(!found.to_string().contains("outside deep"), "{found}");
    let globbed = server.call_result("fs_glob", json!({"pattern": "*.txt"}));
    let text = globbed.to_string();
    assert!(
        !text.contains("marker.txt") && !text.contains("deep.txt"),
        "{text}"
    );
}

// ---- mutators -------------------------------------------------------------------------------

/// Makes one call and checks that the directory outside the root is exactly as it was.
fn outside_untouched(server: &mut Server, outside: &Tree, tool: &str, args: Value) -> Value {
    let before = snapshot(outside.path());
    let result = server.call_result(tool, args.clone());
    assert_eq!(
        snapshot(outside.path()),
        before,
        "{tool} {args} changed the outside: {result}"
    );
    result
}

/// A mutation aimed outside the root through one of [`linked_tree`]'s links.
struct Outward {
    tool: &'static str,
    args: fn() -> Value,
    /// The path it names through the linked directory `via`, which (links not followed) it is
    /// refused for as reached through a symbolic link.
    through: Option<&'static str>,
}

/// Every way a mutator could reach outside: writes, edits, mkdirs, moves and deletes through
/// links to a file, to a directory and to nothing.
const OUTWARD: &[Outward] = &[
    Outward {
        tool: "fs_write",
        args: || json!({"path": "link-file", "content": "pwned\n"}),
        through: None,
    },
    Outward {
        tool: "fs_write",
        args: || json!({"path": "rel-link", "content": "pwned\n"}),
        through: None,
    },
    Outward {
        tool: "fs_write",
        args: || json!({"path": "dangling", "content": "pwned\n"}),
        through: None,
    },
    Outward {
        tool: "fs_write",
        args: || json!({"path": "via/marker.txt", "content": "pwned\n"}),
        through: Some("via/marker.txt"),
    },
    Outward {
        tool: "fs_write",
        args: || json!({"path": "via/new.txt", "content": "pwned\n"}),
        through: Some("via/new.txt"),
    },
    Outward {
        tool: "fs_edit",
        args: || json!({"path": "link-file", "old-string": "outside", "new-string": "pwned"}),
        through: None,
    },
    Outward {
        tool: "fs_edit",
        args: || json!({"path": "rel-link", "old-string": "outside", "new-string": "pwned"}),
        through: None,
    },
    Outward {
        tool: "fs_edit",
        args: || json!({"path": "via/marker.txt", "old-string": "outside", "new-string": "pwned"}),
        through: Some("via/marker.txt"),
    },
    Outward {
        tool: "fs_mkdir",
        args: || json!({"path": "via/newdir"}),
        through: Some("via/newdir"),
    },
    Outward {
        tool: "fs_mkdir",
        args: || json!({"path": "via/sub/newdir"}),
        through: Some("via/sub/newdir"),
    },
    Outward {
        tool: "fs_mkdir",
        args: || json!({"path": "dangling-dir"}),
        through: None,
    },
    Outward {
        tool: "fs_mkdir",
        args: || json!({"path": "dangling-dir/deeper"}),
        through: None,
    },
    Outward {
        tool: "fs_mkdir",
        args: || json!({"path": "link-file"}),
        through: None,
    },
    Outward {
        tool: "fs_move",
        args: || json!({"from": "via/marker.txt", "to": "stolen.txt"}),
        through: Some("via/marker.txt"),
    },
    Outward {
        tool: "fs_move",
        args: || json!({"from": "a.txt", "to": "via/a.txt"}),
        through: Some("via/a.txt"),
    },
    Outward {
        tool: "fs_delete",
        args: || json!({"path": "via/marker.txt"}),
        through: Some("via/marker.txt"),
    },
    Outward {
        tool: "fs_delete",
        args: || json!({"path": "via/sub", "recursive": true}),
        through: Some("via/sub"),
    },
    Outward {
        tool: "fs_delete",
        args: || json!({"path": "via/sub/deep.txt", "recursive": true}),
        through: Some("via/sub/deep.txt"),
    },
    Outward {
        tool: "fs_delete",
        args: || json!({"path": "via", "recursive": true}),
        through: None,
    },
];

/// Makes each [`OUTWARD`] call on a fresh [`linked_tree`] (with `flags`): nothing outside
/// changes or appears, nothing is brought in, and (when `refused_through`) a path through the
/// linked directory is refused as reached through a link.
fn outward_calls(flags: &[&str], refused_through: bool) {
    each_case(
        OUTWARD,
        |case| format!("{} {}", case.tool, (case.args)()),
        |case| {
            let outside = outside();
            let tree = linked_tree(&outside);
            let mut server = fs_server_with(&tree, flags);
            let args = (case.args)();
            let result = outside_untouched(&mut server, &outside, case.tool, args.clone());
            if let (true, Some(path)) = (refused_through, case.through) {
                assert_eq!(error_text(case.tool, &args, &result), through_symlink(path));
            }
            assert_eq!(outside.bytes("marker.txt"), MARKER.as_bytes());
            assert!(!outside.join("newdir").exists());
            assert_eq!(tree.bytes("a.txt"), b"inside\n");
            assert!(!exists(&tree, "stolen.txt"));
        },
    );
}

#[test]
fn mutations_never_change_or_create_anything_outside() {
    outward_calls(&[], true);
}

#[test]
fn following_links_still_never_changes_anything_outside() {
    outward_calls(&["--follow-symlinks"], false);
}

#[test]
fn a_move_of_a_link_moves_the_link_and_never_its_target() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    for (from, to) in [
        ("link-file", "d/renamed-link"),
        ("via", "d/renamed-dir"),
        ("dangling", "d/renamed-dangling"),
    ] {
        outside_untouched(
            &mut server,
            &outside,
            "fs_move",
            json!({"from": from, "to": to}),
        );
    }
    assert_eq!(outside.bytes("marker.txt"), MARKER.as_bytes());
}

#[test]
fn a_move_cannot_bring_an_outside_file_in_or_send_an_inside_file_out() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let root_before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    for (from, to) in [
        ("via/marker.txt", "stolen.txt"),
        ("via/sub", "stolen"),
        ("a.txt", "via/a.txt"),
        ("d", "via/d"),
        ("a.txt", "dangling"),
    ] {
        let result = outside_untouched(
            &mut server,
            &outside,
            "fs_move",
            json!({"from": from, "to": to}),
        );
        assert_eq!(result["isError"], true, "{from} -> {to}: {result}");
    }
    assert_eq!(snapshot(tree.path()), root_before);
}

#[test]
fn deleting_a_link_to_outside_removes_only_the_link() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    for (args, message) in [
        (
            json!({"path": "link-file"}),
            "Deleted symbolic link 'link-file'",
        ),
        (
            json!({"path": "via", "recursive": true}),
            "Deleted symbolic link 'via'",
        ),
        (
            json!({"path": "dangling"}),
            "Deleted symbolic link 'dangling'",
        ),
    ] {
        let result = outside_untouched(&mut server, &outside, "fs_delete", args.clone());
        assert_eq!(result["content"][0]["text"], message, "{args}: {result}");
    }
    assert_eq!(tree.names(""), ["a.txt", "d", "dangling-dir", "rel-link"]);
}

// ---- the server afterwards, and what it says ------------------------------------------------

/// Every call of the file, with the host paths its answers must never contain.
fn every_kind_of_call() -> Vec<(&'static str, Value)> {
    let mut calls = vec![
        ("fs_read", json!({"path": "a.txt"})),
        ("fs_read", json!({"path": "link-file"})),
        ("fs_read", json!({"path": "rel-link"})),
        ("fs_read", json!({"path": "dangling"})),
        ("fs_read", json!({"path": "via/marker.txt"})),
        ("fs_read", json!({"path": "missing.txt"})),
        ("fs_read", json!({"path": "d"})),
        ("fs_list", json!({})),
        ("fs_list", json!({"path": "via"})),
        ("fs_list", json!({"path": "via/sub"})),
        ("fs_list", json!({"path": "a.txt"})),
        ("fs_stat", json!({"path": "link-file"})),
        ("fs_stat", json!({"path": "via"})),
        ("fs_stat", json!({"path": "dangling"})),
        ("fs_stat", json!({"path": "via/marker.txt"})),
        ("fs_glob", json!({"pattern": "*"})),
        ("fs_grep", json!({"pattern": "marker"})),
        ("fs_write", json!({"path": "link-file", "content": "x"})),
        ("fs_write", json!({"path": "via/x.txt", "content": "x"})),
        ("fs_write", json!({"path": "nodir/x.txt", "content": "x"})),
        ("fs_write", json!({"path": "d", "content": "x"})),
        (
            "fs_edit",
            json!({"path": "a.txt", "old-string": "nothing", "new-string": "x"}),
        ),
        ("fs_mkdir", json!({"path": "via/m"})),
        ("fs_mkdir", json!({"path": "dangling-dir"})),
        ("fs_move", json!({"from": "via/marker.txt", "to": "m.txt"})),
        ("fs_move", json!({"from": "a.txt", "to": "via/a.txt"})),
        ("fs_move", json!({"from": "a.txt", "to": "d/x.txt"})),
        ("fs_delete", json!({"path": "via/marker.txt"})),
        ("fs_delete", json!({"path": "d"})),
        ("fs_delete", json!({"path": "."})),
    ];
    for path in invalid_paths() {
        calls.push(("fs_read", json!({"path": path})));
    }
    calls
}

#[test]
fn no_answer_names_a_host_path() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let root = tree.path().to_str().expect("utf-8").to_owned();
    let outside_root = outside.path().to_str().expect("utf-8").to_owned();
    let mut server = fs_server(&tree);
    for (tool, args) in every_kind_of_call() {
        let result = server.call_result(tool, args.clone());
        let text = result.to_string();
        for host in [root.as_str(), outside_root.as_str(), "/tmp/"] {
            assert!(!text.contains(host), "{tool} {args} leaked {host}: {text}");
        }
    }
}

#[test]
fn the_server_still_answers_after_every_refusal() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server(&tree);
    for (tool, args) in every_kind_of_call() {
        server.call_result(tool, args);
    }
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "a.txt"})),
        "inside\n"
    );
    assert_eq!(outside.bytes("marker.txt"), MARKER.as_bytes());
    assert_eq!(outside.bytes("sub/deep.txt"), b"outside deep\n");
}

// ---- with --follow-symlinks -----------------------------------------------------------------

#[test]
fn following_links_still_never_reads_outside() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    for (tool, args) in [
        ("fs_read", json!({"path": "link-file"})),
        ("fs_read", json!({"path": "rel-link"})),
        ("fs_read", json!({"path": "via/marker.txt"})),
        ("fs_read", json!({"path": "via/sub/deep.txt"})),
        ("fs_list", json!({"path": "via"})),
        ("fs_list", json!({"path": "via/sub"})),
    ] {
        let message = fs_error(&mut server, tool, args.clone());
        assert!(
            !message.contains("outside marker") && !message.contains("outside deep"),
            "{tool} {args}: {message}"
        );
    }
    let found = server.call_result("fs_grep", json!({"pattern": "outside"}));
    assert!(!found.to_string().contains("outside marker"), "{found}");
}

#[test]
fn following_links_reads_through_a_link_that_stays_inside() {
    let tree = Tree::new()
        .file("real/inner.txt", "inner\n")
        .symlink("alias.txt", "real/inner.txt")
        .symlink("alias", "real");
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "alias.txt"})),
        "inner\n"
    );
    assert_eq!(
        fs_text(&mut server, "fs_read", json!({"path": "alias/inner.txt"})),
        "inner\n"
    );
}

#[test]
fn a_link_cycle_is_refused_without_hanging() {
    let tree = Tree::new()
        .file("a.txt", "inside\n")
        .symlink("loop", "loop")
        .symlink("ping", "pong")
        .symlink("pong", "ping");
    for extra in [&[][..], &["--follow-symlinks"][..]] {
        let mut server = fs_server_with(&tree, extra);
        for (tool, args) in [
            ("fs_read", json!({"path": "loop"})),
            ("fs_read", json!({"path": "ping/x.txt"})),
            ("fs_list", json!({"path": "pong"})),
            ("fs_write", json!({"path": "loop/x.txt", "content": "x"})),
            ("fs_mkdir", json!({"path": "ping/sub"})),
        ] {
            fs_error(&mut server, tool, args);
        }
        assert_eq!(
            fs_text(&mut server, "fs_read", json!({"path": "a.txt"})),
            "inside\n"
        );
    }
}

fn inside_links() -> Tree {
    Tree::new()
        .file("real/inner.txt", "inner\n")
        .file("real/key.secret", "hush\n")
        .symlink("alias.txt", "real/inner.txt")
        .symlink("alias", "real")
        .symlink("pub.txt", "real/key.secret")
}

#[test]
fn following_links_writes_through_an_inside_link_to_its_target() {
    let tree = inside_links();
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "alias.txt", "content": "rewritten\n"}),
    );
    assert_eq!(tree.bytes("real/inner.txt"), b"rewritten\n");
    let link = std::fs::symlink_metadata(tree.join("alias.txt")).expect("lstat");
    assert!(link.file_type().is_symlink(), "the link is still a link");
}

#[test]
fn following_links_move_and_delete_act_on_the_link_itself() {
    let tree = inside_links();
    let mut server = fs_server_with(&tree, &["--follow-symlinks"]);
    assert_eq!(
        fs_text(
            &mut server,
            "fs_move",
            json!({"from": "alias.txt", "to": "renamed.txt"})
        ),
        "Moved 'alias.txt' to 'renamed.txt'"
    );
    let moved = std::fs::symlink_metadata(tree.join("renamed.txt")).expect("lstat");
    assert!(moved.file_type().is_symlink());
    assert_eq!(
        fs_text(
            &mut server,
            "fs_delete",
            json!({"path": "alias", "recursive": true})
        ),
        "Deleted symbolic link 'alias'"
    );
    assert_eq!(tree.bytes("real/inner.txt"), b"inner\n");
    assert_eq!(tree.names("real"), ["inner.txt", "key.secret"]);
}

#[test]
fn following_links_never_reaches_a_target_the_root_does_not_serve() {
    let tree = inside_links();
    let mut server = fs_server_with(&tree, &["--follow-symlinks", "--exclude", "**/*.secret"]);
    let message = fs_error(&mut server, "fs_read", json!({"path": "pub.txt"}));
    assert!(!message.contains("hush"), "{message}");
    fs_error(
        &mut server,
        "fs_write",
        json!({"path": "pub.txt", "content": "overwritten\n"}),
    );
    fs_error(
        &mut server,
        "fs_edit",
        json!({"path": "pub.txt", "old-string": "hush", "new-string": "x"}),
    );
    let found = server.call_result("fs_grep", json!({"pattern": "hush"}));
    assert!(!found.to_string().contains(":1:hush"), "{found}");
    assert_eq!(tree.bytes("real/key.secret"), b"hush\n");
}

// ---- an unserved path reads as one that is not there -------------------------------------------

#[test]
fn an_unserved_file_and_an_absent_one_get_the_same_answer() {
    let tree = Tree::new()
        .file("lib/a.txt", "a\n")
        .file("other/secret.txt", "hush\n")
        .file("lib/key.pem", "k\n");
    let before = snapshot(tree.path());
    let mut server = fs_server_selecting(&tree, &["--include", "lib/**", "--exclude", "**/*.pem"]);
    // Present and unselected, absent and unselected, absent below a missing directory, below a
    // file, and present and excluded, absent and excluded.
    let pairs = [
        ("other/secret.txt", "other/nothing.txt"),
        ("other/secret.txt", "gone/nothing.txt"),
        ("other/secret.txt", "other/secret.txt/x"),
        ("lib/key.pem", "lib/none.pem"),
    ];
    for (present, absent) in pairs {
        for (tool, extra) in [
            ("fs_read", json!({})),
            ("fs_stat", json!({})),
            ("fs_delete", json!({})),
            ("fs_edit", json!({"old-string": "hush", "new-string": "x"})),
            ("fs_move", json!({})),
        ] {
            let args = |path: &str| {
                let mut args = extra.clone();
                if tool == "fs_move" {
                    args["from"] = json!(path);
                    args["to"] = json!("lib/moved.txt");
                } else {
                    args["path"] = json!(path);
                }
                args
            };
            let seen = fs_error(&mut server, tool, args(present)).replace(present, "P");
            let unseen = fs_error(&mut server, tool, args(absent)).replace(absent, "P");
            assert_eq!(seen, unseen, "{tool}: {present} vs {absent}");
            assert_eq!(seen, "'P' is not served by this root", "{tool}");
        }
    }
    // A served path still says plainly that nothing is there.
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "lib/none.txt"})),
        "'lib/none.txt' does not exist"
    );
    assert_eq!(snapshot(tree.path()), before);
}
