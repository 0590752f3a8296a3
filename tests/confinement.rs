//! Confinement (§7): which path spellings are refused, symlinks never followed, excluded ancestors,
//! names walks cannot represent, and no host path in any answer.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::*;

const NOT_RELATIVE: &str = "path is not a relative path inside the root";
const NOT_SERVED: &str = "path is not served by this root";
const NOT_READABLE: &str = "path is not a readable regular file";
const EXCLUDED: &str = "path matches an --exclude pattern of this root";

fn rejected_paths() -> Vec<String> {
    let mut paths: Vec<String> = [
        "/etc/passwd",
        "/",
        "..",
        "../x",
        "a/../b",
        "src/../src",
        ".hidden/..",
        "./lib",
        "lib/.",
        "./",
        "./.",
        "a\\b",
        "\\",
        "C:/a",
        "c:foo",
        "Z:",
        "a\u{0}b",
        "CON",
        "con",
        "Con.txt",
        "nul.txt",
        "NUL",
        "lib/COM1",
        "com9.log",
        "lpt1",
        "LPT9.log",
        "aux",
        "prn.md",
        "com5/x.txt",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    paths.push("x".repeat(1025));
    paths.push(format!("{}/{}", "a".repeat(600), "b".repeat(600)));
    paths
}

/// The three read tools' argument shapes for one path.
fn path_calls(path: &str) -> [(&'static str, Value); 3] {
    [
        ("list_directory", json!({"path": path})),
        ("search_text", json!({"query": "x", "path": path})),
        ("read_text_file", json!({"path": path})),
    ]
}

#[test]
fn every_escaping_or_ambiguous_spelling_is_refused_by_every_read_tool() {
    let tree = Tree::new()
        .file("lib/a.txt", "x\n")
        .file("src/b.txt", "x\n");
    let mut server = Server::serving(&tree);
    for path in rejected_paths() {
        for (tool, args) in path_calls(&path) {
            assert_eq!(
                server.call_error(tool, args),
                NOT_RELATIVE,
                "{tool} {path:?}"
            );
        }
    }
}

#[test]
fn names_that_merely_resemble_devices_are_served() {
    let names = [
        "console.txt",
        "auxiliary.txt",
        "com10.txt",
        "nul_file.txt",
        "lpt.txt",
        "conx",
    ];
    let mut tree = Tree::new();
    for name in names {
        tree = tree.file(name, "ok\n");
    }
    let mut server = Server::serving(&tree);
    for name in names {
        assert_eq!(server.read(json!({"path": name})), "ok\n", "{name}");
    }
}

#[test]
fn a_path_of_1024_characters_is_still_relative() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let long = "x".repeat(1024);
    assert_eq!(
        server.call("list_directory", json!({"path": long}))["items"],
        json!([])
    );
    assert_eq!(
        server.call_error("read_text_file", json!({"path": long})),
        NOT_READABLE
    );
}

fn linked_tree(outside: &Tree) -> Tree {
    Tree::new()
        .file("real/inner.txt", "needle real\n")
        .file("real/sub/deep.txt", "needle deep\n")
        .symlink("link.txt", outside.join("secret.txt"))
        .symlink("linkdir", outside.path())
        .symlink("alias", "real")
        .symlink("real/sublink", "sub")
        .symlink("real/inner-link.txt", "inner.txt")
}

fn outside() -> Tree {
    Tree::new().file("secret.txt", "needle outside\n")
}

#[test]
fn walks_never_list_search_or_descend_symlinks() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = Server::serving(&tree);
    assert_eq!(server.names(""), ["real"]);
    assert_eq!(server.names("real"), ["inner.txt", "sub"]);
    assert_eq!(server.find("t"), ["real/inner.txt", "real/sub/deep.txt"]);
    let paths: Vec<String> = server
        .grep(json!({"query": "needle"}))
        .into_iter()
        .map(|h| h.0)
        .collect();
    assert_eq!(paths, ["real/inner.txt", "real/sub/deep.txt"]);
}

#[test]
fn a_prefix_through_a_symlink_is_empty() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = Server::serving(&tree);
    for prefix in ["linkdir", "alias", "alias/sub", "real/sublink"] {
        assert!(server.names(prefix).is_empty(), "list {prefix}");
        assert!(
            server
                .grep(json!({"query": "needle", "path": prefix}))
                .is_empty(),
            "search {prefix}"
        );
    }
}

#[test]
fn a_named_symlink_is_never_followed() {
    let outside = outside();
    let tree = linked_tree(&outside);
    let mut server = Server::serving(&tree);
    let cases = [
        ("link.txt", NOT_READABLE),
        ("real/inner-link.txt", NOT_READABLE),
        ("linkdir/secret.txt", NOT_SERVED),
        ("alias/inner.txt", NOT_SERVED),
        ("alias/sub/deep.txt", NOT_SERVED),
        ("real/sublink/deep.txt", NOT_SERVED),
    ];
    for (path, message) in cases {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            message,
            "{path}"
        );
    }
}

#[test]
fn an_excluded_ancestor_is_refused_before_the_path_is_resolved() {
    let outside = outside();
    let tree = Tree::new()
        .file("private/x.txt", "x")
        .symlink("hidden", outside.path());
    let mut server = Server::start(
        tree.path(),
        &[
            "--include",
            "**",
            "--exclude",
            "private",
            "--exclude",
            "hidden",
        ],
    );
    for path in [
        "private/x.txt",
        "private/missing/x.txt",
        "hidden/secret.txt",
    ] {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            EXCLUDED,
            "{path}"
        );
    }
    assert!(server.names("private").is_empty());
}

#[test]
fn names_a_path_cannot_spell_are_invisible_to_walks() {
    let deep = vec!["d".repeat(200); 6].join("/");
    let tree = Tree::new()
        .file("a\\b.txt", "needle\n")
        .file("c:foo.txt", "needle\n")
        .file("nul.txt", "needle\n")
        .file("sub/CON", "needle\n")
        .file(&format!("{deep}/far.txt"), "needle\n")
        .file("ok.txt", "needle\n");
    let mut server = Server::serving(&tree);
    assert_eq!(server.names(""), ["ok.txt"]);
    assert_eq!(server.find("."), ["ok.txt"]);
    assert_eq!(server.grep(json!({"query": "needle"})).len(), 1);
}

#[test]
fn the_ptc_runner_view_never_shows_the_excluded_secret() {
    let tree = Tree::new()
        .file("lib/readme.txt", "visible\n")
        .file("lib/nested/target.txt", "first\nneedle\nlast\n")
        .file("lib/private/secret.txt", "TOP-SECRET\n");
    let mut server = Server::start(
        tree.path(),
        &["--include", "lib/**", "--exclude", "lib/private/**"],
    );
    let mut answers = Vec::new();
    let list = server.call("list_directory", json!({"path": "lib"}));
    assert!(
        list["items"]
            .as_array()
            .expect("items")
            .contains(&json!({"name": "nested", "kind": "directory", "path": "lib/nested"}))
    );
    answers.push(list);
    let found = server.call("search_files", json!({"query": "target"}));
    assert_eq!(found["items"], json!([{"path": "lib/nested/target.txt"}]));
    answers.push(found);
    let grep = server.call("search_text", json!({"query": "needle"}));
    assert_eq!(
        grep["items"],
        json!([{"path": "lib/nested/target.txt", "line": 2, "text": "needle"}])
    );
    answers.push(grep);
    let read = server.call("read_text_file", json!({"path": "lib/nested/target.txt"}));
    assert_eq!(
        read["items"],
        json!([{"byte_offset": 0, "text": "first\nneedle\nlast\n"}])
    );
    assert_eq!(read["next_cursor"], Value::Null);
    answers.push(read);
    for query in ["SECRET", "secret"] {
        answers.push(server.call("search_text", json!({"query": query})));
        answers.push(server.call("search_files", json!({"query": query})));
    }
    for answer in &answers {
        assert!(!answer.to_string().contains("TOP-SECRET"), "{answer}");
        let hash = answer["content_hash"].as_str().expect("hash");
        assert!(hash.starts_with("sha256:") && hash.len() == 71, "{hash}");
    }
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "lib/private/secret.txt"})),
        EXCLUDED
    );
    assert!(
        server
            .call_error(
                "write_text_file",
                json!({"path": "../escaped.txt", "content": "x"})
            )
            .starts_with("path must be one lowercase basename")
    );
}

#[test]
fn no_answer_or_error_names_a_host_path() {
    let outside = outside();
    let tree = linked_tree(&outside)
        .file("bad.txt", b"\xff\xfe")
        .fifo("pipe.txt")
        .dir("adir");
    let root = tree.path().to_str().expect("utf-8").to_owned();
    let mut server = Server::serving(&tree);
    let long = "y".repeat(1024);
    let calls = [
        ("list_directory", json!({})),
        ("list_directory", json!({"path": "linkdir"})),
        ("search_files", json!({"query": "t"})),
        ("search_text", json!({"query": "needle"})),
        ("read_text_file", json!({"path": "real/inner.txt"})),
        ("read_text_file", json!({"path": "missing.txt"})),
        ("read_text_file", json!({"path": "link.txt"})),
        ("read_text_file", json!({"path": "linkdir/secret.txt"})),
        ("read_text_file", json!({"path": "bad.txt"})),
        ("read_text_file", json!({"path": "pipe.txt"})),
        ("read_text_file", json!({"path": "adir"})),
        ("read_text_file", json!({"path": long})),
        ("read_text_file", json!({"path": format!("{long}/x")})),
        ("read_text_file", json!({"path": root.clone()})),
        ("list_directory", json!({"path": long})),
        (
            "write_text_file",
            json!({"path": "link.txt", "content": "x"}),
        ),
        ("write_text_file", json!({"path": "adir", "content": "x"})),
        (
            "write_text_file",
            json!({"path": "pipe.txt", "content": "x"}),
        ),
        (
            "write_text_file",
            json!({"path": "fine.txt", "content": "x"}),
        ),
        ("list_directory", json!({"cursor": "bogus"})),
    ];
    let outside_root = outside.path().to_str().expect("utf-8").to_owned();
    for (tool, args) in calls {
        let result = server.call_result(tool, args.clone());
        let text = result.to_string();
        for host in [root.as_str(), outside_root.as_str(), "/tmp", "/Users"] {
            assert!(
                !text.contains(host) || args.to_string().contains(host),
                "{tool} {args} leaked {host}: {text}"
            );
        }
        if result.get("isError") == Some(&json!(true)) {
            let message = error_text(tool, &args, &result);
            assert!(message.len() < 1000, "{tool}: long error");
            assert!(!message.contains("    at "), "{tool}: stack trace");
            assert!(!message.contains(&root), "{tool}: {message}");
        }
    }
}

#[test]
fn path_length_is_counted_in_utf16_code_units() {
    let tree = Tree::new();
    let mut server = Server::serving(&tree);
    let accepted = ["\u{e9}".repeat(1024), "\u{1f600}".repeat(512)];
    let refused = [
        "\u{e9}".repeat(1025),
        format!("{}a", "\u{1f600}".repeat(512)),
    ];
    for path in accepted {
        let page = server.call("list_directory", json!({"path": path}));
        assert_eq!(
            page["items"],
            json!([]),
            "{} units",
            path.encode_utf16().count()
        );
    }
    for path in refused {
        assert_eq!(
            server.call_error("list_directory", json!({"path": path})),
            NOT_RELATIVE,
            "{} units",
            path.encode_utf16().count()
        );
    }
}
