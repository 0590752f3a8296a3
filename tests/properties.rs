//! Property tests (proptest) for the invariants with a one-line statement:
//!
//! * the pages of `read_text_file`, concatenated, are the file, whatever `--max-read-bytes`;
//! * a cursor edited in any one character, truncated or extended is refused as not valid, by
//!   the codec and by the running server alike;
//! * the selector never selects a path an operator exclude matches, and selects nothing
//!   without an include.
//!
//! Case counts are bounded so the whole file runs in seconds; `PROPTEST_CASES` raises them.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::cell::RefCell;

use fsmcp::root::{Glob, Selector};
use fsmcp::{CursorCodec, Key, PtcError};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::{Value, json};
use support::*;

const NOT_VALID: &str = "cursor is not valid";

// ---------------------------------------------------------------------------------------------
// (a) read pages concatenate to the file
// ---------------------------------------------------------------------------------------------

/// One piece of a text file: ASCII runs, lines, multibyte scalars of every width, and runs
/// that end just before a 2048-byte chunk boundary so the next scalar straddles it.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,40}\n?",
        "\\PC{0,12}",
        prop::sample::select(vec![
            "é",
            "€",
            "😀",
            "\u{10FFFF}",
            "\r\n",
            "\n",
            "\u{feff}",
            "\0"
        ])
        .prop_map(str::to_owned),
        (2040usize..=2048, prop::sample::select(vec!["é", "€", "😀"]))
            .prop_map(|(n, c)| format!("{}{c}", "a".repeat(n))),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..12).prop_map(|pieces| pieces.concat())
}

/// A page size: small ones most (many pages), up to the 8 KiB the brief names.
fn page_bytes() -> impl Strategy<Value = u64> {
    prop_oneof![4u64..=64, 64u64..=2049, 2049u64..=8192]
}

#[test]
fn read_pages_concatenate_to_the_file() {
    let mut runner = TestRunner::new(proptest_config(40));
    runner
        .run(&(text(), page_bytes()), |(content, max_read)| {
            // Keep the number of pages (round trips) bounded for the smallest pages.
            let content: String = {
                let budget = (max_read as usize * 400).max(64);
                let mut end = content.len().min(budget);
                while !content.is_char_boundary(end) {
                    end -= 1;
                }
                content[..end].to_owned()
            };
            let tree = Tree::new().file("f.txt", &content);
            let max = max_read.to_string();
            let mut server =
                Server::start(tree.path(), &["--include", "**", "--max-read-bytes", &max]);
            let items = server.collect("read_text_file", json!({"path": "f.txt"}));
            let mut offset = 0u64;
            let mut joined = String::new();
            for item in &items {
                let text = item["text"].as_str().expect("text");
                prop_assert_eq!(item["byte_offset"].as_u64(), Some(offset), "{}", item);
                prop_assert!(!text.is_empty(), "an empty chunk: {}", item);
                prop_assert!(text.len() <= 2048, "a chunk over 2048 bytes");
                offset += text.len() as u64;
                joined.push_str(text);
            }
            prop_assert_eq!(joined.len(), content.len());
            prop_assert!(joined == content, "the pages are not the file");
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// (b) an edited cursor is refused
// ---------------------------------------------------------------------------------------------

/// One edit of a cursor's text.
#[derive(Debug, Clone)]
enum Edit {
    /// The character at this index (modulo the length) becomes this one, if it differs.
    Replace(usize, char),
    /// Only the first `n` (modulo the length) characters are kept.
    Truncate(usize),
    /// This text is inserted at this index (modulo the length + 1).
    Insert(usize, String),
    /// Two characters trade places, if they differ.
    Swap(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let likely = prop_oneof![
        3 => prop::sample::select(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".chars().collect::<Vec<_>>()
        ),
        1 => prop::sample::select(vec!['.', '=', '+', '/', ' ', '\n', 'é']),
        1 => any::<char>(),
    ];
    prop_oneof![
        4 => (any::<usize>(), likely).prop_map(|(i, c)| Edit::Replace(i, c)),
        1 => any::<usize>().prop_map(Edit::Truncate),
        1 => (any::<usize>(), "[A-Za-z0-9_.=-]{1,4}").prop_map(|(i, s)| Edit::Insert(i, s)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
    ]
}

/// The edited text, or `None` when the edit would leave it unchanged.
fn apply(cursor: &str, edit: &Edit) -> Option<String> {
    let mut chars: Vec<char> = cursor.chars().collect();
    match edit {
        Edit::Replace(i, c) => {
            let i = i % chars.len();
            if chars[i] == *c {
                return None;
            }
            chars[i] = *c;
        }
        Edit::Truncate(n) => chars.truncate(n % chars.len()),
        Edit::Insert(i, s) => {
            let i = i % (chars.len() + 1);
            chars.splice(i..i, s.chars());
        }
        Edit::Swap(i, j) => {
            let (i, j) = (i % chars.len(), j % chars.len());
            if chars[i] == chars[j] {
                return None;
            }
            chars.swap(i, j);
        }
    }
    Some(chars.into_iter().collect())
}

fn position() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..=9_007_199_254_740_991).prop_map(|n| json!(n)),
        (0u64..100, 0u64..1 << 40, 1u64..1 << 20, any::<bool>()).prop_map(|(f, o, l, m)| json!({
            "file": f, "offset": o, "lineStart": o / 2, "line": l, "matched": m
        })),
    ]
}

#[test]
fn the_codec_refuses_every_edited_cursor() {
    let mut runner = TestRunner::new(proptest_config(256));
    runner
        .run(
            &(
                prop::collection::vec(any::<u8>(), 32..=64),
                "[0-9a-f]{64}",
                "[0-9a-f]{64}",
                position(),
                edit(),
            ),
            |(key, scope, state, position, edit)| {
                let codec = CursorCodec::new(Key::with_bytes(key));
                let cursor = codec.encode(&scope, &state, &position);
                prop_assert_eq!(codec.decode(&cursor, &scope, &state), Ok(position));
                if let Some(edited) = apply(&cursor, &edit) {
                    prop_assert_eq!(
                        codec.decode(&edited, &scope, &state),
                        Err(PtcError::CursorInvalid),
                        "{:?} accepted: {}",
                        edit,
                        edited
                    );
                }
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn the_server_refuses_every_edited_cursor() {
    let big = "0123456789abcdef\n".repeat(300);
    let tree = Tree::new()
        .file("a.txt", "alpha\nbeta\n")
        .file("b.txt", "alpha again\n")
        .file("lib/c.txt", "gamma alpha\n")
        .file("big.txt", &big);
    let server = RefCell::new(Server::start(
        tree.path(),
        &["--include", "**", "--max-read-bytes", "64"],
    ));
    // One genuine cursor of each paged tool, with the arguments that continue it.
    let issued: Vec<(&str, Value, String)> = [
        ("list_directory", json!({"limit": 1})),
        ("search_files", json!({"query": ".txt", "limit": 1})),
        ("search_text", json!({"query": "alpha", "limit": 1})),
        ("read_text_file", json!({"path": "big.txt"})),
    ]
    .into_iter()
    .map(|(tool, args)| {
        let page = server.borrow_mut().call(tool, args.clone());
        let cursor = page["next_cursor"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool} gave no cursor: {page}"))
            .to_owned();
        (tool, args, cursor)
    })
    .collect();
    let mut runner = TestRunner::new(proptest_config(96));
    runner
        .run(&(0..issued.len(), edit()), |(which, edit)| {
            let (tool, args, cursor) = &issued[which];
            let Some(edited) = apply(cursor, &edit) else {
                return Ok(());
            };
            let mut args = args.clone();
            args["cursor"] = json!(edited);
            let result = server.borrow_mut().call_result(tool, args.clone());
            if result.get("isError") != Some(&json!(true)) {
                return Err(TestCaseError::fail(format!(
                    "{tool} accepted the edited cursor {edited:?} ({edit:?}): {result}"
                )));
            }
            let message = error_text(tool, &args, &result);
            prop_assert_eq!(message, NOT_VALID, "{} {:?}", tool, edit);
            Ok(())
        })
        .unwrap();
    // The genuine cursors still work: the refusals were about the edits.
    for (tool, args, cursor) in &issued {
        let mut args = args.clone();
        args["cursor"] = json!(cursor);
        server.borrow_mut().call(tool, args);
    }
}

// ---------------------------------------------------------------------------------------------
// (c) the selector never selects what an exclude names
// ---------------------------------------------------------------------------------------------

/// A glob over a small alphabet, so globs and paths meet often.
fn glob() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "b",
            "ab",
            ".",
            "/",
            "*",
            "**",
            "**/",
            "?",
            "é",
            "[a]",
            ".env",
            "node_modules",
        ]),
        1..6,
    )
    .prop_map(|parts| parts.concat())
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "b",
            "ab",
            "ba.b",
            ".a",
            "é",
            "[a]",
            ".env",
            ".ENV",
            "node_modules",
        ]),
        1..5,
    )
    .prop_map(|segments| segments.join("/"))
}

#[test]
fn the_selector_never_selects_what_an_exclude_names() {
    let mut runner = TestRunner::new(proptest_config(256));
    runner
        .run(
            &(
                prop::collection::vec(glob(), 0..4),
                prop::collection::vec(glob(), 0..4),
                any::<bool>(),
                prop::collection::vec(path(), 1..12),
            ),
            |(includes, excludes, defaults, paths)| {
                let selector = Selector::new(&includes, &excludes, defaults);
                // One more exclude only ever narrows.
                let narrower = excludes.split_last().map(|(_, rest)| rest.to_vec());
                let wider = narrower.map(|rest| Selector::new(&includes, &rest, defaults));
                for path in &paths {
                    let selected = selector.selects(path);
                    if includes.is_empty() {
                        prop_assert!(!selected, "{} selected with no include", path);
                    }
                    for exclude in &excludes {
                        if Glob::new(exclude, false).is_match(path) {
                            prop_assert!(
                                !selected,
                                "{} selected though {} excludes it",
                                path,
                                exclude
                            );
                        }
                    }
                    if selected {
                        prop_assert!(!selector.excludes(path));
                        prop_assert!(includes.iter().any(|g| Glob::new(g, false).is_match(path)));
                        if let Some(wider) = &wider {
                            prop_assert!(wider.selects(path), "an exclude added {}", path);
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}
