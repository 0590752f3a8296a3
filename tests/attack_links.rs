//! The attack suite's link half: one table of link layouts pointing out of the root (file and
//! directory, absolute and relative, sibling-prefix, chained, dangling, through a symlinked
//! ancestor, lexical-versus-physical `..`) against one table of operations (reads, listings,
//! searches, writes, edits, mkdir, move at both ends, delete), with and without
//! `--follow-symlinks`; and hard links to outside files, which a write replaces and never
//! writes through. Every case checks that no outside marker appears in the response and that
//! nothing outside the root was created, changed or removed.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::os::unix::fs::MetadataExt;
use support::attack::*;

/// The link layouts: (link path under the root, target). Every one leads out of the root, or
/// nowhere.
fn layouts(arena: &Arena) -> Vec<(&'static str, String)> {
    vec![
        // A file outside, absolute and relative; the absolute target's text starts with the
        // root's own path (`…/root-secrets/x` begins with `…/root`).
        ("lf-abs", arena.abs("root-secrets/x")),
        ("lf-rel", "../root-secrets/x".to_owned()),
        ("lf-root2", arena.abs("root2/x")),
        ("lf-abs-dotdot", format!("{}/../root2/x", arena.abs("root"))),
        ("lf-etc", "/etc/passwd".to_owned()),
        ("lf-proc", "/proc/self/root/etc/passwd".to_owned()),
        ("lf-devzero", "/dev/zero".to_owned()),
        ("lf-outfifo", arena.abs("outfifo")),
        // Chains: inside, inside, then out.
        ("lf-chain", "lf-chain2".to_owned()),
        ("lf-chain2", "lf-chain3".to_owned()),
        ("lf-chain3", "../root2/x".to_owned()),
        ("lf-chain-abs", "lf-chain-abs2".to_owned()),
        ("lf-chain-abs2", arena.abs("root-secrets/x")),
        // Dangling leaves whose targets would be created outside.
        ("lf-dangle-abs", arena.abs("root-secrets/new.txt")),
        ("lf-dangle-rel", "../root2/new.txt".to_owned()),
        ("lf-loop", "lf-loop".to_owned()),
        // Lexically inside, physically outside: `a/b/up` is the root, so `up/..` is its parent.
        ("lf-lex", "a/b/up/../root2/x".to_owned()),
        // Directories outside.
        ("ld-abs", arena.abs("root-secrets")),
        ("ld-rel", "../root-secrets".to_owned()),
        ("ld-root2", arena.abs("root2")),
        ("ld-parent", "..".to_owned()),
        ("ld-slash", "/".to_owned()),
        ("ld-chain", "ld-chain2".to_owned()),
        ("ld-chain2", "../root2".to_owned()),
        ("ld-dangle", "../root2/newdir".to_owned()),
        ("ld-lex", "a/b/up/..".to_owned()),
        // A symlinked ancestor deeper down.
        ("a/b/out", "../../../root-secrets".to_owned()),
        ("a/b/out-abs", arena.abs("root2")),
    ]
}

/// The paths each link is attacked through: the link itself and names below it.
fn paths_through(link: &str) -> Vec<String> {
    let mut paths = vec![link.to_owned()];
    for below in [
        "x",
        "new.txt",
        "newdir",
        "sub/deep.txt",
        "etc/passwd",
        "root2/x",
    ] {
        paths.push(format!("{link}/{below}"));
    }
    paths
}

/// The non-destructive operations on one path: reads, listings, searches, writes, edits, mkdir,
/// and a move onto it.
fn operations(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("fs_read", json!({"path": path})),
        ("fs_read", json!({"path": path, "offset": 1, "limit": 3})),
        ("read_text_file", json!({"path": path})),
        ("fs_stat", json!({"path": path})),
        ("fs_list", json!({"path": path})),
        ("list_directory", json!({"path": path})),
        ("fs_glob", json!({"pattern": "*", "path": path})),
        ("fs_grep", json!({"pattern": "secret", "path": path})),
        ("search_text", json!({"query": "secret", "path": path})),
        ("fs_write", json!({"path": path, "content": "OVERWRITTEN"})),
        (
            "write_text_file",
            json!({"path": path, "content": "OVERWRITTEN"}),
        ),
        (
            "fs_edit",
            json!({"path": path, "old-string": "secret", "new-string": "OVERWRITTEN"}),
        ),
        ("fs_mkdir", json!({"path": path})),
        ("fs_move", json!({"from": "victim.txt", "to": path})),
        ("fs_copy", json!({"from": path, "to": "copied"})),
        ("fs_copy", json!({"from": "victim.txt", "to": path})),
    ]
}

/// The operations that would read or write through the path, which must all be refused.
const THROUGH: [&str; 5] = [
    "fs_read",
    "read_text_file",
    "fs_write",
    "write_text_file",
    "fs_edit",
];

fn arena_with_links() -> Arena {
    let arena = Arena::new();
    arena.put("root/victim.txt", "victim line\n");
    std::fs::create_dir_all(arena.inside("a/b")).expect("mkdir a/b");
    arena.symlink("root/a/b/up", "../..");
    arena.fifo("outfifo");
    for (link, target) in layouts(&arena) {
        arena.symlink(&format!("root/{link}"), target);
    }
    // Controls: links that stay inside, followed only with --follow-symlinks.
    arena.symlink("root/ok-file", "inside.txt");
    arena.symlink("root/ok-dir", "d");
    arena
}

/// Runs every layout × operation on one server; returns the failures.
fn run_links(follow: bool) -> Vec<String> {
    let arena = arena_with_links();
    let mut outside = arena.outside();
    let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
    if follow {
        args.push("--follow-symlinks");
    }
    let mut server = arena.serve(&args);
    let mut failures = Vec::new();
    let mut check = |server: &mut support::Server,
                     tool: &str,
                     args: Value,
                     must_refuse: bool,
                     failures: &mut Vec<String>|
     -> Option<Value> {
        let case = format!("{tool} {args}");
        let response = match call_within(server, tool, args, hang()) {
            Ok(response) => response,
            Err(hang) => {
                failures.push(format!("HANG: {hang}"));
                return None;
            }
        };
        if let Some(marker) = leaks(&response) {
            failures.push(format!("{case}: LEAK of {marker}: {}", text_of(&response)));
        }
        let now = arena.outside();
        let changed = outside.diff(&now);
        if !changed.is_empty() {
            failures.push(format!("{case}: OUTSIDE CHANGED: {changed:?}"));
            outside = now;
        }
        if must_refuse && !is_refusal(&response) {
            failures.push(format!("{case}: accepted: {}", text_of(&response)));
        }
        Some(response)
    };
    let links: Vec<&str> = layouts(&arena).iter().map(|(l, _)| *l).collect();
    // Phase 1: everything that leaves the link in place.
    for link in &links {
        for path in paths_through(link) {
            for (tool, args) in operations(&path) {
                let refuse = THROUGH.contains(&tool);
                if check(&mut server, tool, args, refuse, &mut failures).is_none() {
                    return failures;
                }
            }
        }
    }
    // Phase 2: move each path away (the deepest first), then delete what is left; moving or
    // deleting a link acts on the link, never on its target.
    for (n, link) in links.iter().enumerate() {
        for (m, path) in paths_through(link).iter().enumerate().rev() {
            let to = format!("moved-{n}-{m}");
            let moved = check(
                &mut server,
                "fs_move",
                json!({"from": path, "to": to}),
                false,
                &mut failures,
            );
            let Some(moved) = moved else {
                return failures;
            };
            let target = if is_refusal(&moved) { path } else { &to };
            for recursive in [false, true] {
                let args = json!({"path": target, "recursive": recursive});
                if check(&mut server, "fs_delete", args, false, &mut failures).is_none() {
                    return failures;
                }
            }
        }
    }
    // The controls prove the mode: inside links are followed exactly when asked.
    let read = call_raw(&mut server, "fs_read", json!({"path": "ok-file"}));
    let listed = call_raw(&mut server, "fs_list", json!({"path": "ok-dir"}));
    let expected = if follow {
        ("inside line\n", "inner.txt")
    } else {
        ("", "")
    };
    if follow == is_refusal(&read) || (follow && text_of(&read) != expected.0) {
        failures.push(format!("control read, follow={follow}: {read}"));
    }
    if follow == is_refusal(&listed) || (follow && text_of(&listed) != expected.1) {
        failures.push(format!("control list, follow={follow}: {listed}"));
    }
    // Whole-root walks never enter an outside link either.
    for (tool, args) in [
        ("fs_grep", json!({"pattern": "secret"})),
        ("fs_glob", json!({"pattern": "*"})),
        ("search_text", json!({"query": "secret"})),
        ("search_files", json!({"query": "x"})),
    ] {
        if check(&mut server, tool, args, false, &mut failures).is_none() {
            return failures;
        }
    }
    still_answers(&mut server);
    failures
}

#[test]
fn outside_links_are_never_a_door_without_following() {
    let failures = run_links(false);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn outside_links_are_never_a_door_when_following() {
    let failures = run_links(true);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn walks_skip_outside_links_before_any_mutation() {
    // The whole-root walks on a pristine tree (phase 2 above runs them after the links moved).
    for follow in [false, true] {
        let arena = arena_with_links();
        let outside = arena.outside();
        let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
        if follow {
            args.push("--follow-symlinks");
        }
        let mut server = arena.serve(&args);
        for (tool, args) in [
            ("fs_grep", json!({"pattern": "secret", "context": 5})),
            ("fs_grep", json!({"pattern": "root", "regex": true})),
            ("fs_glob", json!({"pattern": "*"})),
            ("fs_glob", json!({"pattern": "*", "path": "a"})),
            ("fs_list", json!({})),
            ("list_directory", json!({})),
            ("list_directory", json!({"path": "a/b"})),
            ("search_text", json!({"query": "secret"})),
            ("search_files", json!({"query": "x"})),
            ("search_files", json!({"query": "deep"})),
        ] {
            let response = call_raw(&mut server, tool, args.clone());
            assert_eq!(
                leaks(&response),
                None,
                "follow={follow} {tool} {args}: {response}"
            );
        }
        assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
        still_answers(&mut server);
    }
}

#[test]
fn a_write_replaces_a_hard_link_and_never_writes_through_it() {
    for follow in [false, true] {
        let arena = Arena::new();
        let tools = [
            ("fs_write", json!({"content": "NEW BYTES\n"})),
            ("write_text_file", json!({"content": "NEW BYTES\n"})),
            (
                "fs_edit",
                json!({"old-string": "original", "new-string": "NEW BYTES"}),
            ),
        ];
        for (n, _) in tools.iter().enumerate() {
            let target = format!("hard-target-{n}");
            arena.put(&target, "hard original\n");
            std::fs::hard_link(arena.join(&target), arena.inside(&format!("hard{n}")))
                .expect("hard link");
        }
        arena.put("hard-target-d", "hard original\n");
        std::fs::hard_link(arena.join("hard-target-d"), arena.inside("hardd")).expect("link");
        let outside = arena.outside();
        let mut args = vec!["--tools", "ptc,fs", "--include", "**"];
        if follow {
            args.push("--follow-symlinks");
        }
        let mut server = arena.serve(&args);
        for (n, (tool, extra)) in tools.iter().enumerate() {
            let name = format!("hard{n}");
            let mut args = extra.clone();
            args["path"] = json!(name);
            let response = call_raw(&mut server, tool, args.clone());
            assert!(!is_refusal(&response), "{tool} {args}: {response}");
            let inside = arena.inside(&name);
            assert!(
                std::fs::read_to_string(&inside)
                    .expect("read")
                    .contains("NEW BYTES"),
                "{tool}: the root's name holds the new bytes"
            );
            assert_eq!(
                std::fs::metadata(&inside).expect("stat").nlink(),
                1,
                "{tool}: the link was replaced by a new file"
            );
        }
        // Moving and deleting a hard link act on the root's name only.
        call_raw(
            &mut server,
            "fs_move",
            json!({"from": "hardd", "to": "harde"}),
        );
        call_raw(&mut server, "fs_delete", json!({"path": "harde"}));
        assert!(!arena.inside("harde").exists() && !arena.inside("hardd").exists());
        assert_eq!(
            outside.diff(&arena.outside()),
            Vec::<String>::new(),
            "follow={follow}"
        );
        for n in 0..tools.len() {
            assert_eq!(
                std::fs::read_to_string(arena.join(&format!("hard-target-{n}"))).expect("read"),
                "hard original\n",
                "the outside file keeps its bytes"
            );
        }
        still_answers(&mut server);
    }
}

#[test]
fn a_dot_dot_after_a_followed_link_climbs_from_the_links_target() {
    // `a/b/up` points at the root itself, so `a/b/up/..` is the root's parent, as the kernel
    // resolves it; a lexical `up/..` cancellation would instead land on `a/b`, a different
    // place inside the root. Either resolution must not show what `a/b` holds under the link's
    // name: the kernel's reading leaves the root, which is refused.
    let arena = Arena::new();
    arena.put("root/a/b/twin.txt", "LEXICAL TWIN\n");
    arena.symlink("root/a/b/up", "../..");
    arena.symlink("root/lex", "a/b/up/..");
    let outside = arena.outside();
    let mut server = arena.serve(&["--tools", "ptc,fs", "--include", "**", "--follow-symlinks"]);
    let mut failures = Vec::new();
    for (tool, args) in [
        ("fs_read", json!({"path": "lex/twin.txt"})),
        ("read_text_file", json!({"path": "lex/twin.txt"})),
        ("fs_list", json!({"path": "lex"})),
        ("fs_write", json!({"path": "lex/new.txt", "content": "x"})),
    ] {
        let response = call_raw(&mut server, tool, args.clone());
        if !is_refusal(&response) {
            failures.push(format!("{tool} {args}: {}", text_of(&response)));
        }
        assert_eq!(leaks(&response), None);
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(outside.diff(&arena.outside()), Vec::<String>::new());
}
