//! Revisions: the `sha256-v1` tokens observations and mutations report, and conditional
//! mutation through the reserved `_expected-revisions` argument, as an orchestration layer
//! uses them.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::fs::*;
use support::*;

fn mismatch(arg: &str, expected: &str, found: &str) -> String {
    format!(
        "'{arg}' changed since it was observed (expected {expected}, found {found}); read it again before changing it"
    )
}

fn missing_token(arg: &str) -> String {
    format!(
        "_expected-revisions has no token for '{arg}'; send the token from your last observation, or sha256-v1:absent for a path you expect not to exist"
    )
}

const NOT_AN_OBJECT: &str =
    "_expected-revisions must be an object mapping path arguments to revision tokens";

#[test]
fn the_orchestration_scenario() {
    let tree = Tree::new().file("notes/todo.md", "- buy milk\n");
    let mut server = fs_server(&tree);

    // Observe.
    let read = fs_revisions(&mut server, "fs_read", json!({"path": "notes/todo.md"}));
    let observed = token(&read, "path");
    assert_eq!(observed, file_token("- buy milk\n"));

    // A write conditional on that observation goes through and reports the new revision.
    let (text, written) = fs_call(
        &mut server,
        "fs_write",
        with_expected(
            json!({"path": "notes/todo.md", "content": "- buy milk\n- feed the yak\n"}),
            json!({"path": observed}),
        ),
    );
    assert_eq!(text, "Wrote 26 bytes to 'notes/todo.md'");
    let written = token(&written.expect("revisions"), "path");
    assert_eq!(written, file_token("- buy milk\n- feed the yak\n"));

    // An edit conditional on the write's revision goes through.
    let (text, edited) = fs_call(
        &mut server,
        "fs_edit",
        with_expected(
            json!({"path": "notes/todo.md", "old-string": "milk", "new-string": "oat milk"}),
            json!({"path": written}),
        ),
    );
    assert_eq!(
        text,
        "Replaced 1 occurrence in 'notes/todo.md'; wrote 30 bytes"
    );
    let edited = token(&edited.expect("revisions"), "path");
    let current = "- buy oat milk\n- feed the yak\n";
    assert_eq!(edited, file_token(current));
    assert_eq!(tree.bytes("notes/todo.md"), current.as_bytes());

    // A write still holding the first observation is refused and changes nothing; so is a
    // blind write (a caller that never observed the path): it fails closed.
    for stale in [observed.as_str(), ABSENT] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_write",
                with_expected(
                    json!({"path": "notes/todo.md", "content": "clobbered\n"}),
                    json!({"path": stale}),
                ),
            ),
            mismatch("path", stale, &edited)
        );
        assert_eq!(tree.bytes("notes/todo.md"), current.as_bytes(), "{stale}");
    }
}

#[test]
fn absent_is_the_token_for_creating_a_new_file() {
    let tree = Tree::new().dir("notes");
    let mut server = fs_server(&tree);
    let (text, structured) = fs_call(
        &mut server,
        "fs_write",
        with_expected(
            json!({"path": "notes/new.md", "content": "new\n"}),
            json!({"path": ABSENT}),
        ),
    );
    assert_eq!(text, "Wrote 4 bytes to 'notes/new.md'");
    assert_eq!(
        revision(&structured.expect("revisions"), "path"),
        file_revision("new\n")
    );
}

#[test]
fn a_file_token_for_a_path_that_is_gone_is_refused() {
    let tree = Tree::new().file("a.txt", "a\n");
    let mut server = fs_server(&tree);
    let observed = token(
        &fs_revisions(&mut server, "fs_stat", json!({"path": "a.txt"})),
        "path",
    );
    tree.remove("a.txt");
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            with_expected(
                json!({"path": "a.txt", "content": "b\n"}),
                json!({"path": observed})
            ),
        ),
        mismatch("path", &observed, ABSENT)
    );
    assert!(tree.names("").is_empty());
}

#[test]
fn a_change_made_outside_the_server_is_detected() {
    let tree = Tree::new().file("a.txt", "one\n");
    let mut server = fs_server(&tree);
    let observed = token(
        &fs_revisions(&mut server, "fs_read", json!({"path": "a.txt"})),
        "path",
    );
    // Same size, so only the bytes tell the difference.
    tree.put("a.txt", "two\n");
    assert_eq!(
        fs_error(
            &mut server,
            "fs_edit",
            with_expected(
                json!({"path": "a.txt", "old-string": "two", "new-string": "three"}),
                json!({"path": observed}),
            ),
        ),
        mismatch("path", &observed, &file_token("two\n"))
    );
    assert_eq!(tree.bytes("a.txt"), b"two\n");
}

#[test]
fn every_location_argument_needs_a_token_when_the_reserved_argument_is_present() {
    let tree = Tree::new().file("a.txt", "a\n").dir("d");
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    let a = file_token("a\n");
    let cases: [(&str, Value, Value, &str); 7] = [
        (
            "fs_write",
            json!({"path": "a.txt", "content": "b"}),
            json!({}),
            "path",
        ),
        (
            "fs_edit",
            json!({"path": "a.txt", "old-string": "a", "new-string": "b"}),
            json!({"to": a}),
            "path",
        ),
        ("fs_mkdir", json!({"path": "d2"}), json!({}), "path"),
        ("fs_delete", json!({"path": "a.txt"}), json!({}), "path"),
        (
            "fs_move",
            json!({"from": "a.txt", "to": "b.txt"}),
            json!({"from": a}),
            "to",
        ),
        (
            "fs_move",
            json!({"from": "a.txt", "to": "b.txt"}),
            json!({"to": ABSENT}),
            "from",
        ),
        (
            "fs_move",
            json!({"from": "a.txt", "to": "b.txt"}),
            json!({"path": a}),
            "from",
        ),
    ];
    for (tool, args, expected, arg) in cases {
        assert_eq!(
            fs_error(&mut server, tool, with_expected(args.clone(), expected)),
            missing_token(arg),
            "{tool} {args}"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_malformed_reserved_argument_is_refused() {
    let tree = Tree::new().file("a.txt", "a\n");
    let mut server = fs_server(&tree);
    for expected in [
        json!("sha256-v1:absent"),
        json!(["sha256-v1:absent"]),
        json!({"path": 7}),
        json!({"path": null}),
        json!(null),
    ] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_write",
                with_expected(json!({"path": "a.txt", "content": "b"}), expected.clone()),
            ),
            NOT_AN_OBJECT,
            "{expected}"
        );
    }
    assert_eq!(tree.bytes("a.txt"), b"a\n");
}

#[test]
fn a_move_checks_both_ends() {
    let tree = Tree::new().file("a.txt", "a\n").dir("dest");
    let mut server = fs_server(&tree);
    let from = token(
        &fs_revisions(&mut server, "fs_stat", json!({"path": "a.txt"})),
        "path",
    );
    let (text, structured) = fs_call(
        &mut server,
        "fs_move",
        with_expected(
            json!({"from": "a.txt", "to": "dest/a.txt"}),
            json!({"from": from, "to": ABSENT}),
        ),
    );
    assert_eq!(text, "Moved 'a.txt' to 'dest/a.txt'");
    let structured = structured.expect("revisions");
    assert_eq!(revision_keys(&structured), ["from", "to"]);
    assert_eq!(revision(&structured, "from"), absent_revision());
    assert_eq!(revision(&structured, "to"), file_revision("a\n"));
    assert_eq!(tree.bytes("dest/a.txt"), b"a\n");
}

#[test]
fn a_move_with_a_stale_token_at_either_end_changes_nothing() {
    let tree = Tree::new().file("a.txt", "a\n").file("b.txt", "b\n");
    let before = snapshot(tree.path());
    let mut server = fs_server(&tree);
    let a = file_token("a\n");
    let stale = file_token("old\n");
    let c = file_token("c\n");
    // (the tokens sent, the end that is stale, the token it was sent, what is there)
    for (expected, end, sent, found) in [
        (
            json!({"from": stale, "to": ABSENT}),
            "from",
            &stale,
            a.as_str(),
        ),
        (json!({"from": a, "to": c}), "to", &c, ABSENT),
    ] {
        assert_eq!(
            fs_error(
                &mut server,
                "fs_move",
                with_expected(json!({"from": "a.txt", "to": "c.txt"}), expected),
            ),
            mismatch(end, sent, found),
            "{end}"
        );
    }
    assert_eq!(snapshot(tree.path()), before);
}

#[test]
fn a_conditional_delete_and_mkdir_use_directory_tokens() {
    let tree = Tree::new().file("d/x.txt", "x\n");
    let mut server = fs_server(&tree);
    let dir = token(
        &fs_revisions(&mut server, "fs_list", json!({"path": "d"})),
        "path",
    );
    assert!(is_directory_token(&dir), "{dir}");
    assert_eq!(
        fs_error(
            &mut server,
            "fs_mkdir",
            with_expected(json!({"path": "d"}), json!({"path": ABSENT}))
        ),
        mismatch("path", ABSENT, &dir)
    );
    let (text, structured) = fs_call(
        &mut server,
        "fs_delete",
        with_expected(
            json!({"path": "d", "recursive": true}),
            json!({"path": dir}),
        ),
    );
    assert_eq!(text, "Deleted directory 'd' and everything below it");
    assert_eq!(
        revision(&structured.expect("revisions"), "path"),
        absent_revision()
    );
    let (text, _) = fs_call(
        &mut server,
        "fs_mkdir",
        with_expected(json!({"path": "d"}), json!({"path": ABSENT})),
    );
    assert_eq!(text, "Created directory 'd'");
}

#[test]
fn a_symlink_token_is_keyed_by_the_server_and_confirms_no_guess() {
    let tree = Tree::new()
        .file("real.txt", "x")
        .symlink("link", "real.txt");
    let mut server = fs_server_keyed(&tree);
    let structured = fs_revisions(&mut server, "fs_stat", json!({"path": "link"}));
    assert_eq!(
        revision(&structured, "path"),
        ("symlink".to_owned(), Some(symlink_token("real.txt")))
    );
    // The plain digest of the target, which anyone could compute from a guess, is not it.
    let guessed = format!("sha256-v1:symlink:{}", sha256_hex("real.txt"));
    assert_ne!(token(&structured, "path"), guessed);
    // Nor is the link's length shown: stat says it is a link and nothing of where it points.
    let stat = fs_text(&mut server, "fs_stat", json!({"path": "link"}));
    assert!(
        stat.contains("\nsize: 0\n") && stat.contains("\nsymlink: yes\n"),
        "{stat}"
    );
    let (text, _) = fs_call(
        &mut server,
        "fs_delete",
        with_expected(
            json!({"path": "link"}),
            json!({"path": symlink_token("real.txt")}),
        ),
    );
    assert_eq!(text, "Deleted symbolic link 'link'");
    assert_eq!(tree.bytes("real.txt"), b"x");
}

#[test]
fn calls_without_the_reserved_argument_are_unconditional() {
    let tree = Tree::new().file("a.txt", "a\n");
    let mut server = fs_server(&tree);
    tree.put("a.txt", "changed behind the server's back\n");
    assert_eq!(
        fs_text(
            &mut server,
            "fs_write",
            json!({"path": "a.txt", "content": "b\n"})
        ),
        "Wrote 2 bytes to 'a.txt'"
    );
    assert_eq!(tree.bytes("a.txt"), b"b\n");
}

fn dir_token(server: &mut Server, path: &str) -> String {
    let structured = fs_revisions(server, "fs_stat", json!({"path": path}));
    let (state, token) = revision(&structured, "path");
    assert_eq!(state, "directory");
    token.expect("token")
}

#[test]
fn a_directory_token_changes_when_a_descendant_changes() {
    let tree = Tree::new()
        .file("proj/src/deep/a.txt", "one\n")
        .file("proj/readme.md", "r\n");
    let mut server = fs_server(&tree);
    let first = dir_token(&mut server, "proj");
    assert_eq!(
        dir_token(&mut server, "proj"),
        first,
        "stable when nothing changes"
    );
    tree.put("proj/src/deep/a.txt", "two\n");
    let second = dir_token(&mut server, "proj");
    assert_ne!(second, first, "a file's bytes changed");
    tree.put("proj/src/deep/b.txt", "");
    let third = dir_token(&mut server, "proj");
    assert_ne!(third, second, "a file was added");
    tree.remove("proj/src/deep/b.txt");
    tree.put("proj/src/new-empty/.keep", "");
    tree.remove("proj/src/new-empty/.keep");
    let fourth = dir_token(&mut server, "proj");
    assert_ne!(fourth, second, "an empty directory was added");
    assert_ne!(fourth, third);
}

#[test]
fn a_directory_token_changes_when_a_descendant_is_renamed() {
    let tree = Tree::new().file("proj/a.txt", "same\n");
    let mut server = fs_server(&tree);
    let first = dir_token(&mut server, "proj");
    fs_text(
        &mut server,
        "fs_move",
        json!({"from": "proj/a.txt", "to": "proj/b.txt"}),
    );
    assert_ne!(dir_token(&mut server, "proj"), first);
}

#[test]
fn a_directory_token_ignores_what_the_root_does_not_serve() {
    let tree = Tree::new()
        .file("proj/a.txt", "a\n")
        .file("proj/key.secret", "one\n")
        .file("proj/.git/HEAD", "ref: one\n");
    let mut server = fs_server_with(&tree, &["--exclude", "**/*.secret"]);
    let first = dir_token(&mut server, "proj");
    tree.put("proj/key.secret", "a much longer secret\n");
    tree.put("proj/other.secret", "new\n");
    tree.put("proj/.git/HEAD", "ref: two, longer\n");
    assert_eq!(dir_token(&mut server, "proj"), first);
}

#[test]
fn a_directory_and_its_subdirectory_have_different_tokens() {
    let tree = Tree::new().file("one/x/a.txt", "a\n");
    let mut server = fs_server(&tree);
    assert_ne!(
        dir_token(&mut server, "one"),
        dir_token(&mut server, "one/x")
    );
}

#[test]
fn a_mutator_reports_what_the_next_observation_sees() {
    let tree = Tree::new().dir("d");
    let mut server = fs_server(&tree);
    let made = fs_revisions(&mut server, "fs_mkdir", json!({"path": "d/e"}));
    assert_eq!(token(&made, "path"), dir_token(&mut server, "d/e"));
    let written = fs_revisions(
        &mut server,
        "fs_write",
        json!({"path": "d/e/f.txt", "content": "f"}),
    );
    let read = fs_revisions(&mut server, "fs_read", json!({"path": "d/e/f.txt"}));
    assert_eq!(token(&written, "path"), token(&read, "path"));
}

#[test]
fn the_reserved_argument_is_in_no_advertised_schema() {
    let tree = Tree::new();
    let mut server = fs_server(&tree);
    let tools = listed_tools(&mut server);
    assert!(!tools.is_empty());
    for tool in tools {
        let schema = &tool["inputSchema"];
        let properties = schema["properties"].as_object().expect("properties");
        assert!(
            properties.keys().all(|k| !k.starts_with('_')),
            "{}: {schema}",
            tool["name"]
        );
        assert!(
            !tool.to_string().contains("_expected-revisions"),
            "{}",
            tool["name"]
        );
    }
}

#[test]
fn a_misspelt_reserved_argument_is_refused_as_unknown() {
    let tree = Tree::new().file("a.txt", "a\n");
    let mut server = fs_server(&tree);
    fs_error(
        &mut server,
        "fs_write",
        json!({"path": "a.txt", "content": "b", "_expected": {"path": ABSENT}}),
    );
    assert_eq!(tree.bytes("a.txt"), b"a\n");
}

#[test]
fn searches_carry_no_revisions() {
    let tree = Tree::new().file("notes/todo.md", "- feed the yak\n");
    let mut server = fs_server(&tree);
    for (tool, args) in [
        ("fs_glob", json!({"pattern": "*.md"})),
        ("fs_grep", json!({"pattern": "yak"})),
        ("fs_glob", json!({"pattern": "*.zzz"})),
    ] {
        let (text, structured) = fs_call(&mut server, tool, args.clone());
        assert!(
            text.contains("todo.md") || text.starts_with("No matches"),
            "{text}"
        );
        assert_eq!(structured, None, "{tool} {args}");
    }
}

#[test]
fn a_same_size_change_with_a_restored_mtime_is_still_seen() {
    let tree = Tree::new().file("proj/a.txt", "one\n");
    set_mtime(&tree.join("proj/a.txt"), 1_700_000_000);
    // Old enough on both timestamps for the digest memo to keep what it computes.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let mut server = fs_server(&tree);
    let file = token(
        &fs_revisions(&mut server, "fs_stat", json!({"path": "proj/a.txt"})),
        "path",
    );
    let dir = dir_token(&mut server, "proj");
    assert_eq!(file, file_token("one\n"));
    tree.put("proj/a.txt", "two\n");
    set_mtime(&tree.join("proj/a.txt"), 1_700_000_000);
    let read = fs_revisions(&mut server, "fs_read", json!({"path": "proj/a.txt"}));
    assert_eq!(token(&read, "path"), file_token("two\n"));
    assert_ne!(dir_token(&mut server, "proj"), dir);
}

#[test]
fn a_string_that_is_no_token_is_named_as_such_and_changes_nothing() {
    let tree = Tree::new().file("a.txt", "one\n");
    let mut server = fs_server(&tree);
    let good = file_token("one\n");
    let not_a_token = |arg: &str| {
        format!(
            "_expected-revisions' value for '{arg}' is not a revision token: send a token exactly as read, list or stat returned it (sha256-v1:file:<64 hex digits>, sha256-v1:directory:…, sha256-v1:symlink:…), or sha256-v1:absent"
        )
    };
    for token in [
        "",
        "latest",
        "sha256-v1",
        "sha256-v1:file",
        "sha256-v1:file:",
        "sha256-v1:file:abc",
        "sha256-v1:folder:0000000000000000000000000000000000000000000000000000000000000000",
        &good.to_uppercase(),
        &format!("{good}0"),
        "sha256-v2:absent",
    ] {
        let args =
            json!({"path": "a.txt", "content": "two\n", "_expected-revisions": {"path": token}});
        assert_eq!(
            fs_error(&mut server, "fs_write", args),
            not_a_token("path"),
            "{token:?}"
        );
        assert_eq!(tree.bytes("a.txt"), b"one\n");
    }
    // A token of the right shape that does not match is a change, as before.
    let stale = file_token("zero\n");
    assert_eq!(
        fs_error(
            &mut server,
            "fs_write",
            json!({"path": "a.txt", "content": "two\n", "_expected-revisions": {"path": stale.clone()}})
        ),
        mismatch("path", &stale, &good)
    );
    // And the one observed still works.
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "a.txt", "content": "two\n", "_expected-revisions": {"path": good}}),
    );
    assert_eq!(tree.bytes("a.txt"), b"two\n");
}
