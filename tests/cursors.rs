//! Cursors: the signed format and its test vectors, tampering, scope, staleness per tool, the
//! deterministic mode, and the order in which a handler checks its inputs.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::*;

const KEY_VAR: &str = "FSMCP_TEST_CURSOR_KEY";
const NOT_VALID: &str = "cursor is not valid";
const OTHER_TRAVERSAL: &str = "cursor was issued for a different traversal";
const STALE: &str =
    "the filesystem changed since this cursor was issued; start the traversal again";
const BAD_POSITION: &str = "cursor position is not valid";
const HASH_CEILING: &str = "deterministic cursor hashing exceeds the configured byte ceiling";

fn deterministic(tree: &Tree, extra: &[&str]) -> Server {
    let mut args = vec!["--include", "**", "--cursor-key-env", KEY_VAR];
    args.extend_from_slice(extra);
    Server::start_with_env(tree.path(), &args, &[(KEY_VAR, TEST_KEY)])
}

// ---- format and test vectors ----------------------------------------------------------------

#[test]
fn deterministic_cursors_match_the_published_vectors() {
    let tree = Tree::new().file("a.txt", "a\n").file("b.txt", "b\n");
    let mut server = deterministic(&tree, &[]);
    assert_eq!(
        next_cursor(&mut server, "list_directory", json!({"limit": 1})),
        "eyJ2IjoxLCJzIjoiOGIzNTM3NzE0MTJjZDcxNTNkOTQ4MjBmNDc4YTYzNjc0ZjY0NTA0OTNlNzRkNTI0MmUxZGQxYWI5NDY0YjM2NyIsInQiOiIyOTMyOWRhZmRiM2UxMWM5Yzg0YWIzZmM5NTE2NmNkNDUwN2VjMGZhNmZhZDhmMWIyN2RlYzcwM2VlYmMxZjBmIiwicCI6MX0.w3kCoMqPcD93V_obarB0qE3ZuZTXQhLP9yqrMTRWc88"
    );
    assert_eq!(
        next_cursor(
            &mut server,
            "search_files",
            json!({"query": ".txt", "limit": 1})
        ),
        "eyJ2IjoxLCJzIjoiNDNhNDExZjdlOTM0ZjVkY2U1YTMyMzQ2OTExM2NmNTBiMDcyMjQ2ZTI3OGYyOTNkZmVmYTYxYmFlYWFjZGI1YiIsInQiOiIyZGIzMzJjM2MwNzVjNDU5ODMyYmQ2YzVhMDFjZmE1YmQxZDFmYzNjMmE3ZWJkMWZjMTg2NGMwODYxYmZkNTFmIiwicCI6MX0.sTIkGEOuNobTEtyNOYsrumT7SyrK7Z01IaxHWwkOkLc"
    );
}

#[test]
fn a_deterministic_read_cursor_matches_the_published_vector() {
    let tree = Tree::new().file("big.txt", format!("{}\n", "a".repeat(3000)));
    let mut server = deterministic(&tree, &[]);
    let page = server.call("read_text_file", json!({"path": "big.txt", "limit": 1}));
    assert_eq!(page["items"][0]["text"].as_str().expect("text").len(), 2048);
    assert_eq!(
        page["next_cursor"],
        "eyJ2IjoxLCJzIjoiNDVjZDhiNmMyZWRiYTRmN2JlYmExYTZkYTg3YmRmY2ZhN2Q2Y2MwNmI1Zjk4ZjhkZmEzMDFiM2M5M2JiOGFiOSIsInQiOiI5MTUwNTY5ZWUxY2RiYjBhMWRlOTQxOWNjN2I5ZGUzYmQxZWY2YzVkMzA4MTA1ZjgzYjQwNWIxZTQyMTFiZDQ4IiwicCI6MjA0OH0.uODs0xejbcwzImH-jxH2h_uY46JpKOpjKHzvfU54krM"
    );
}

#[test]
fn a_deterministic_search_text_cursor_binds_the_documented_scope_and_state() {
    let content = "needle 1\nneedle 2\n";
    let tree = Tree::new()
        .file("lib/a.txt", content)
        .file("other.txt", "x\n");
    let mut server = deterministic(&tree, &[]);

    let cursor = next_cursor(
        &mut server,
        "search_text",
        json!({"any_of": ["needle", "pin"], "path": "lib", "case_insensitive": true, "limit": 1}),
    );
    let payload = payload_of(&cursor);
    assert_eq!(keys(&payload), ["v", "s", "t", "p"]);
    assert_eq!(payload["v"], 1);
    assert_eq!(
        payload["s"],
        scope(
            "search_text",
            &json!({"path": "lib", "terms": ["needle", "pin"], "caseInsensitive": true})
        )
    );
    assert_eq!(
        payload["t"],
        state(&[format!(
            "lib/a.txt\0{}:{}",
            content.len(),
            sha256_hex(content)
        )])
    );
    let mut position = keys(&payload["p"]);
    position.sort();
    assert_eq!(position, ["file", "line", "lineStart", "matched", "offset"]);
}

#[test]
fn a_start_line_read_cursor_binds_start_line_in_its_scope() {
    let content = format!("first\n{}\n", "b".repeat(5000));
    let tree = Tree::new().file("f.txt", &content);
    let mut server = deterministic(&tree, &[]);
    let cursor = next_cursor(
        &mut server,
        "read_text_file",
        json!({"path": "f.txt", "start_line": 2, "limit": 1}),
    );
    let payload = payload_of(&cursor);
    assert_eq!(
        payload["s"],
        scope("read_text_file", &json!({"path": "f.txt", "start_line": 2}))
    );
    assert_eq!(
        payload["t"],
        state(&[format!("{}:{}", content.len(), sha256_hex(&content))])
    );
    assert_eq!(payload["p"], 6 + 2048);
}

#[test]
fn a_cursor_is_a_payload_and_a_43_character_signature() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut server = Server::serving(&tree);
    let cursor = next_cursor(&mut server, "list_directory", json!({"limit": 1}));
    let parts: Vec<&str> = cursor.split('.').collect();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1].len(), 43);
    assert!(
        cursor
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    );
    assert_eq!(payload_of(&cursor)["p"], 1);
}

#[test]
fn deterministic_cursors_resume_in_another_process() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("b.txt", "")
        .file("c.txt", "");
    let mut first = deterministic(&tree, &[]);
    let cursor = next_cursor(&mut first, "list_directory", json!({"limit": 1}));
    drop(first);
    let mut second = deterministic(&tree, &[]);
    let page = second.call("list_directory", json!({"limit": 5, "cursor": cursor}));
    assert_eq!(
        page["items"],
        json!([{"name": "b.txt", "kind": "file", "path": "b.txt"},
               {"name": "c.txt", "kind": "file", "path": "c.txt"}])
    );
}

#[test]
fn default_cursors_do_not_survive_the_process() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut first = Server::serving(&tree);
    let cursor = next_cursor(&mut first, "list_directory", json!({"limit": 1}));
    let mut second = Server::serving(&tree);
    assert_eq!(
        second.call_error("list_directory", json!({"cursor": cursor})),
        NOT_VALID
    );
}

#[test]
fn a_cursor_signed_with_another_key_is_not_valid() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut server = deterministic(&tree, &[]);
    let forged = cursor(
        &[8u8; 32],
        &scope("list_directory", &json!({"path": ""})),
        &state(&["file\0a.txt", "file\0b.txt"]),
        json!(1),
    );
    assert_eq!(
        server.call_error("list_directory", json!({"cursor": forged})),
        NOT_VALID
    );
}

// ---- tampering ------------------------------------------------------------------------------

fn respell_last_character(cursor: &str) -> String {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let last = cursor.chars().last().expect("non-empty");
    let index = ALPHABET.find(last).expect("base64url");
    // 43 characters carry 258 bits for a 256-bit MAC: the low two bits of the last are padding.
    let respelled = (index & !3) | ((index + 1) & 3);
    format!(
        "{}{}",
        &cursor[..cursor.len() - 1],
        &ALPHABET[respelled..=respelled]
    )
}

#[test]
fn any_edit_of_a_cursor_makes_it_not_valid() {
    let tree = Tree::new()
        .file("a.txt", "")
        .file("b.txt", "")
        .file("c.txt", "");
    let mut server = Server::serving(&tree);
    let good = next_cursor(&mut server, "list_directory", json!({"limit": 1}));
    let (payload, signature) = good.split_once('.').expect("two parts");
    let flip = |s: &str, at: usize| -> String {
        let mut chars: Vec<char> = s.chars().collect();
        chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
        chars.into_iter().collect()
    };
    let cases = [
        String::new(),
        "x".repeat(5000),
        payload.to_owned(),
        format!("{good}.extra"),
        format!("{good}x"),
        format!(".{signature}"),
        format!("{payload}."),
        format!("{}.{signature}", flip(payload, 5)),
        format!("{payload}.{}", flip(signature, 0)),
        format!("{payload}!.{signature}"),
        format!("{payload}={}", &signature[1..]),
        respell_last_character(&good),
    ];
    for bad in cases {
        assert_ne!(bad, good);
        assert_eq!(
            server.call_error("list_directory", json!({"cursor": bad})),
            NOT_VALID,
            "{bad}"
        );
    }
    let page = server.call("list_directory", json!({"cursor": good}));
    assert_eq!(page["items"][0]["name"], "b.txt");
}

#[test]
fn a_signed_payload_must_have_exactly_the_documented_shape() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut server = deterministic(&tree, &[]);
    let key = test_key();
    let s = scope("list_directory", &json!({"path": ""}));
    let t = state(&["file\0a.txt", "file\0b.txt"]);
    let cases = [
        sign(&key, "not json"),
        sign(&key, &json!({"v": 2, "s": s, "t": t, "p": 1}).to_string()),
        sign(&key, &json!({"v": 1, "s": s, "t": t}).to_string()),
        sign(
            &key,
            &json!({"v": 1, "s": s, "t": t, "p": 1, "x": 0}).to_string(),
        ),
        sign(&key, &json!([1, s, t, 1]).to_string()),
        cursor(&key, &s, &t, json!("1")),
        cursor(&key, &s, &t, json!(-1)),
        cursor(&key, &s, &t, json!(0.5)),
        cursor(&key, &s, &t, json!({"offset": 1})),
    ];
    for bad in cases {
        assert_eq!(
            server.call_error("list_directory", json!({"cursor": bad})),
            NOT_VALID,
            "{bad}"
        );
    }
    let good = cursor(&key, &s, &t, json!(1));
    assert_eq!(
        server.call("list_directory", json!({"cursor": good}))["items"][0]["name"],
        "b.txt"
    );
}

#[test]
fn scope_is_checked_before_state_and_state_before_position_shape() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut server = deterministic(&tree, &[]);
    let key = test_key();
    let right_scope = scope("list_directory", &json!({"path": ""}));
    let wrong_scope = scope("list_directory", &json!({"path": "elsewhere"}));
    let wrong_state = state(&["file\0a.txt"]);
    let error = |server: &mut Server, cursor: String| {
        server.call_error("list_directory", json!({"cursor": cursor}))
    };
    assert_eq!(
        error(
            &mut server,
            cursor(&key, &wrong_scope, &wrong_state, json!("x"))
        ),
        OTHER_TRAVERSAL
    );
    assert_eq!(
        error(
            &mut server,
            cursor(&key, &right_scope, &wrong_state, json!("x"))
        ),
        STALE
    );
}

#[test]
fn a_position_past_the_end_is_not_valid() {
    let content = "needle 1\nneedle 2\n";
    let tree = Tree::new().file("a.txt", content).file("b.txt", "");
    let mut server = deterministic(&tree, &[]);
    let key = test_key();
    let list = (
        scope("list_directory", &json!({"path": ""})),
        state(&["file\0a.txt", "file\0b.txt"]),
    );
    let find = (
        scope(
            "search_files",
            &json!({"terms": [".txt"], "caseInsensitive": false}),
        ),
        state(&["a.txt", "b.txt"]),
    );
    let read = (
        scope("read_text_file", &json!({"path": "a.txt"})),
        state(&[format!("{}:{}", content.len(), sha256_hex(content))]),
    );
    let search = (
        scope(
            "search_text",
            &json!({"path": "", "terms": ["needle"], "caseInsensitive": false}),
        ),
        state(&[
            format!("a.txt\0{}:{}", content.len(), sha256_hex(content)),
            format!("b.txt\0{}:{}", 0, sha256_hex("")),
        ]),
    );
    let past_end = json!({"file": 0, "offset": content.len() + 1, "lineStart": 0, "line": 1, "matched": false});
    let cases = [
        ("list_directory", json!({}), &list, json!(3)),
        ("search_files", json!({"query": ".txt"}), &find, json!(3)),
        (
            "read_text_file",
            json!({"path": "a.txt"}),
            &read,
            json!(content.len() + 1),
        ),
        ("search_text", json!({"query": "needle"}), &search, past_end),
    ];
    for (tool, args, (s, t), position) in cases {
        let forged = cursor(&key, s, t, position);
        assert_eq!(
            server.call_error(tool, with_cursor(&args, &forged)),
            BAD_POSITION,
            "{tool}"
        );
    }
    // A position exactly at the end is a valid, empty final page.
    let at_end = cursor(&key, &list.0, &list.1, json!(2));
    assert_eq!(
        server.call("list_directory", json!({"cursor": at_end})),
        json!({"items": [], "next_cursor": null, "content_hash": EMPTY_HASH})
    );
}

#[test]
fn a_search_position_of_the_wrong_shape_is_not_valid() {
    let content = "needle 1\nneedle 2\n";
    let tree = Tree::new().file("a.txt", content);
    let mut server = deterministic(&tree, &[]);
    let s = scope(
        "search_text",
        &json!({"path": "", "terms": ["needle"], "caseInsensitive": false}),
    );
    let t = state(&[format!("a.txt\0{}:{}", content.len(), sha256_hex(content))]);
    let good = json!({"file": 0, "offset": 9, "lineStart": 9, "line": 2, "matched": false});
    let mut cases = vec![
        json!(0),
        json!({"file": 0, "offset": 9, "lineStart": 9, "line": 2}),
    ];
    for (key, value) in [
        ("file", json!(1)),
        ("line", json!(0)),
        ("matched", json!("no")),
        ("offset", json!(-1)),
        ("extra", json!(1)),
    ] {
        let mut position = good.clone();
        position[key] = value;
        cases.push(position);
    }
    for position in cases {
        assert_eq!(
            server.call_error(
                "search_text",
                json!({"query": "needle", "cursor": cursor(&test_key(), &s, &t, position.clone())})
            ),
            NOT_VALID,
            "{position}"
        );
    }
}

// ---- scope ----------------------------------------------------------------------------------

fn scope_tree() -> Tree {
    Tree::new()
        .file("lib/a.txt", "needle a1\nneedle a2\nneedle a3\n")
        .file("lib/b.txt", "needle b\n")
        .file("lib/sub/c.txt", "needle c\n")
        .file("top.txt", format!("first\n{}\n", "x".repeat(6000)))
        .file("top2.txt", format!("first\n{}\n", "y".repeat(6000)))
}

#[test]
fn a_cursor_only_continues_its_own_traversal() {
    let cases = [
        (
            "list_directory",
            json!({"path": "lib", "limit": 1}),
            "list_directory",
            json!({"path": ""}),
        ),
        (
            "list_directory",
            json!({"limit": 1}),
            "search_files",
            json!({"query": "lib"}),
        ),
        (
            "search_files",
            json!({"query": "txt", "limit": 1}),
            "search_files",
            json!({"query": "lib"}),
        ),
        (
            "search_files",
            json!({"query": "txt", "limit": 1}),
            "search_files",
            json!({"query": "txt", "case_insensitive": true}),
        ),
        (
            "search_files",
            json!({"any_of": ["txt", "lib"], "limit": 1}),
            "search_files",
            json!({"any_of": ["lib", "txt"]}),
        ),
        (
            "search_text",
            json!({"query": "needle", "limit": 1}),
            "search_text",
            json!({"query": "needle", "path": "lib"}),
        ),
        (
            "search_text",
            json!({"query": "needle", "limit": 1}),
            "search_text",
            json!({"any_of": ["needle", "a"]}),
        ),
        (
            "search_text",
            json!({"query": "needle", "limit": 1}),
            "search_files",
            json!({"query": "needle"}),
        ),
        (
            "read_text_file",
            json!({"path": "top.txt", "limit": 1}),
            "read_text_file",
            json!({"path": "top2.txt"}),
        ),
        (
            "read_text_file",
            json!({"path": "top.txt", "start_line": 2, "limit": 1}),
            "read_text_file",
            json!({"path": "top.txt", "start_line": 1}),
        ),
        (
            "read_text_file",
            json!({"path": "top.txt", "start_line": 1, "limit": 1}),
            "read_text_file",
            json!({"path": "top.txt"}),
        ),
    ];
    let tree = scope_tree();
    let mut server = Server::serving(&tree);
    for (tool, args, other_tool, other_args) in cases {
        let cursor = next_cursor(&mut server, tool, args.clone());
        assert_eq!(
            server.call_error(other_tool, with_cursor(&other_args, &cursor)),
            OTHER_TRAVERSAL,
            "{tool} {args} → {other_tool} {other_args}"
        );
    }
}

#[test]
fn equivalent_arguments_share_a_traversal() {
    let cases = [
        (
            "list_directory",
            json!({"path": "lib", "limit": 1}),
            json!({"path": "lib/"}),
        ),
        (
            "list_directory",
            json!({"path": "", "limit": 1}),
            json!({"path": "."}),
        ),
        (
            "search_files",
            json!({"query": "txt", "limit": 1}),
            json!({"any_of": ["txt"], "limit": 3}),
        ),
        (
            "search_files",
            json!({"query": "txt", "limit": 1}),
            json!({"query": "txt", "case_insensitive": false}),
        ),
        (
            "search_text",
            json!({"query": "needle", "path": "lib", "limit": 1}),
            json!({"any_of": ["needle"], "path": "lib//"}),
        ),
        (
            "read_text_file",
            json!({"path": "top.txt", "limit": 1}),
            json!({"path": "top.txt", "limit": 8}),
        ),
    ];
    let tree = scope_tree();
    let mut server = Server::serving(&tree);
    for (tool, args, other_args) in cases {
        let cursor = next_cursor(&mut server, tool, args.clone());
        server.call(tool, with_cursor(&other_args, &cursor));
    }
}

// ---- staleness (§4.1) -----------------------------------------------------------------------

/// Takes a cursor, changes the tree, then continues: `true` if the cursor still works.
fn survives(
    tree: &Tree,
    server: &mut Server,
    tool: &str,
    args: Value,
    change: impl FnOnce(&Tree),
) -> bool {
    let cursor = next_cursor(server, tool, args.clone());
    change(tree);
    let result = server.call_result(tool, with_cursor(&args, &cursor));
    if result.get("isError") == Some(&json!(true)) {
        assert_eq!(error_text(tool, &args, &result), STALE);
        false
    } else {
        true
    }
}

fn staleness_case(
    tool: &str,
    args: Value,
    change: impl FnOnce(&Tree),
    deterministic_mode: bool,
) -> bool {
    let tree = Tree::new()
        .file("lib/a.txt", "needle a1\nneedle a2\n")
        .file("lib/b.txt", "needle b\n")
        .file("lib/sub/deep.txt", "deep\n")
        .file("other/o.txt", "needle o\n")
        .file("big.txt", "z".repeat(5000));
    let mut server = if deterministic_mode {
        deterministic(&tree, &[])
    } else {
        Server::serving(&tree)
    };
    survives(&tree, &mut server, tool, args, change)
}

fn replace_with_same_bytes(tree: &Tree, path: &str) {
    let bytes = tree.bytes(path);
    tree.remove(path);
    tree.put(path, bytes);
}

#[test]
fn a_listing_cursor_binds_the_entries_of_its_level_only() {
    let args = json!({"path": "lib", "limit": 1});
    let list = |change: fn(&Tree)| staleness_case("list_directory", args.clone(), change, false);
    assert!(!list(|t| t.put("lib/c.txt", "new")), "entry added");
    assert!(!list(|t| t.remove("lib/b.txt")), "entry removed");
    assert!(
        !list(|t| {
            t.remove("lib/b.txt");
            t.put("lib/b.txt/inner.txt", "now a directory");
        }),
        "kind changed"
    );
    assert!(list(|t| t.put("lib/sub/deeper.txt", "x")), "deeper change");
    assert!(
        list(|t| t.put("lib/b.txt", "edited content")),
        "content edit"
    );
}

#[test]
fn a_search_files_cursor_binds_the_matching_paths_only() {
    let args = json!({"query": "lib/", "limit": 1});
    let find = |change: fn(&Tree)| staleness_case("search_files", args.clone(), change, false);
    assert!(!find(|t| t.put("lib/new.txt", "")), "match added");
    assert!(!find(|t| t.remove("lib/b.txt")), "match removed");
    assert!(
        find(|t| t.put("lib/a.txt", "edited, longer content")),
        "content edit"
    );
    assert!(
        find(|t| t.put("other/new.txt", "")),
        "non-matching path added"
    );
}

#[test]
fn a_search_text_cursor_binds_every_file_in_scope() {
    let args = json!({"query": "needle", "path": "lib", "limit": 1});
    let grep = |change: fn(&Tree)| staleness_case("search_text", args.clone(), change, false);
    assert!(
        !grep(|t| t.put("lib/b.txt", "needle b, edited\n")),
        "in-scope edit"
    );
    assert!(
        !grep(|t| t.put("lib/sub/new.txt", "no match here\n")),
        "in-scope file added"
    );
    assert!(
        !grep(|t| t.remove("lib/sub/deep.txt")),
        "in-scope file removed"
    );
    assert!(
        !grep(|t| replace_with_same_bytes(t, "lib/b.txt")),
        "replaced by a new inode"
    );
    assert!(
        grep(|t| t.put("other/o.txt", "needle o, edited\n")),
        "outside the prefix"
    );
}

#[test]
fn a_read_cursor_binds_that_file_only() {
    let args = json!({"path": "big.txt", "limit": 1});
    let read = |change: fn(&Tree)| staleness_case("read_text_file", args.clone(), change, false);
    assert!(!read(|t| t.put("big.txt", "z".repeat(6000))), "file edited");
    assert!(
        !read(|t| replace_with_same_bytes(t, "big.txt")),
        "replaced by a new inode"
    );
    assert!(
        read(|t| t.put("lib/a.txt", "other file edited")),
        "other file"
    );
}

#[test]
fn deterministic_cursors_bind_bytes_not_inodes() {
    let read = json!({"path": "big.txt", "limit": 1});
    let grep = json!({"query": "needle", "path": "lib", "limit": 1});
    let case = |tool: &str, args: &Value, change: fn(&Tree)| {
        staleness_case(tool, args.clone(), change, true)
    };
    assert!(case("read_text_file", &read, |t| replace_with_same_bytes(
        t, "big.txt"
    )));
    assert!(!case("read_text_file", &read, |t| {
        let mut bytes = t.bytes("big.txt");
        bytes[4000] = b'y';
        t.put("big.txt", bytes);
    }));
    assert!(case("search_text", &grep, |t| replace_with_same_bytes(
        t,
        "lib/b.txt"
    )));
    assert!(!case("search_text", &grep, |t| t.put("lib/b.txt", "needle B\n")));
}

#[test]
fn a_stale_traversal_can_start_again() {
    let tree = Tree::new().file("a.txt", "").file("b.txt", "");
    let mut server = Server::serving(&tree);
    let cursor = next_cursor(&mut server, "list_directory", json!({"limit": 1}));
    tree.put("c.txt", "");
    assert_eq!(
        server.call_error("list_directory", json!({"cursor": cursor})),
        STALE
    );
    assert_eq!(
        server.collect("list_directory", json!({"limit": 1})).len(),
        3
    );
}

// ---- deterministic hashing ceiling -----------------------------------------------------------

#[test]
fn deterministic_hashing_is_bounded_per_call() {
    let tree = Tree::new()
        .file("ten.txt", "0123456789")
        .file("eleven.txt", "0123456789A");
    let mut server = deterministic(&tree, &["--max-cursor-hash-bytes", "10"]);
    assert_eq!(server.read(json!({"path": "ten.txt"})), "0123456789");
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "eleven.txt"})),
        HASH_CEILING
    );
    assert_eq!(
        server.call_error("search_text", json!({"query": "0"})),
        HASH_CEILING
    );
}

#[test]
fn digests_cached_by_earlier_calls_do_not_count_again() {
    let tree = Tree::new()
        .file("a.txt", "needle\n")
        .file("b.txt", "needle\n");
    let mut server = deterministic(&tree, &["--max-cursor-hash-bytes", "10"]);
    assert_eq!(
        server.call_error("search_text", json!({"query": "needle"})),
        HASH_CEILING
    );
    server.call("read_text_file", json!({"path": "a.txt"}));
    server.call("read_text_file", json!({"path": "b.txt"}));
    assert_eq!(server.grep(json!({"query": "needle"})).len(), 2);
}

// ---- order of checks (§4.2) -----------------------------------------------------------------

#[test]
fn arguments_are_checked_before_the_cursor() {
    let cases = [
        (
            "search_text",
            json!({"query": "x".repeat(300), "path": "../up"}),
            "query must be one line of at most 256 UTF-8 bytes",
        ),
        (
            "search_files",
            json!({"query": "a", "any_of": ["b"]}),
            "pass either query or any_of, not both",
        ),
        (
            "search_text",
            json!({"query": "needle", "path": "../up"}),
            "path is not a relative path inside the root",
        ),
        (
            "list_directory",
            json!({"path": "/etc"}),
            "path is not a relative path inside the root",
        ),
        (
            "read_text_file",
            json!({"path": "../up", "start_line": 1e20}),
            "path is not a relative path inside the root",
        ),
        (
            "read_text_file",
            json!({"path": "."}),
            "path must name a file",
        ),
        (
            "read_text_file",
            json!({"path": "missing.txt"}),
            "path is not a readable regular file",
        ),
        ("list_directory", json!({"limit": 1e20}), NOT_VALID),
    ];
    let tree = scope_tree();
    let mut server = Server::serving(&tree);
    for (tool, args, message) in cases {
        assert_eq!(
            server.call_error(tool, with_cursor(&args, "bogus.cursor")),
            message,
            "{tool} {args}"
        );
    }
}

#[test]
fn the_default_hashing_ceiling_is_16_mib() {
    let tree = Tree::new().file("huge.txt", vec![b'h'; 16_777_217]);
    let mut server = deterministic(&tree, &[]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "huge.txt"})),
        HASH_CEILING
    );
}
