//! Load on one stdio connection: many requests in flight at once (sent without waiting, mixed
//! reads, searches, writes to distinct files and edits), each answered exactly once and
//! correctly whatever order the answers come in; and readers racing writers on one file, where
//! every read sees one whole version, never a mix or a truncation.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::attack::*;
use support::{Server, Tree, content_hash};

/// What one response must be.
enum Expect {
    /// An fs tool's text, exactly.
    Text(String),
    /// `read_text_file`'s one page: exactly this text, and no next page.
    Page(String),
    /// `write_text_file`'s result for this path and size.
    Written(String, usize),
    /// `search_text`'s items: exactly these (path, line, text).
    Found(Vec<(String, u64, String)>),
    /// A refusal whose text contains this.
    Refused(String),
}

fn check(response: &Value, expect: &Expect) -> Result<(), String> {
    let structured = &response["result"]["structuredContent"];
    let ok = match expect {
        Expect::Text(text) => !is_refusal(response) && text_of(response) == *text,
        Expect::Page(text) => {
            !is_refusal(response)
                && structured["items"].as_array().map(Vec::len) == Some(1)
                && structured["items"][0]["text"] == json!(text)
                && structured["next_cursor"].is_null()
                && structured["content_hash"] == json!(content_hash(text))
        }
        Expect::Written(path, bytes) => {
            !is_refusal(response)
                && structured["path"] == json!(path)
                && structured["bytes"] == json!(bytes)
        }
        Expect::Found(items) => {
            let got: Vec<(String, u64, String)> = structured["items"]
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .map(|i| {
                            (
                                i["path"].as_str().unwrap_or_default().to_owned(),
                                i["line"].as_u64().unwrap_or_default(),
                                i["text"].as_str().unwrap_or_default().to_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            !is_refusal(response) && got == *items && structured["next_cursor"].is_null()
        }
        Expect::Refused(part) => is_refusal(response) && text_of(response).contains(part),
    };
    if ok { Ok(()) } else { Err(text_of(response)) }
}

#[test]
fn well_over_64_requests_in_flight_are_each_answered_once_and_correctly() {
    let mut tree = Tree::new();
    for i in 0..32 {
        tree = tree.file(&format!("r/{i:02}.txt"), format!("read me {i:02}\n"));
    }
    for i in 0..16 {
        tree = tree.file(
            &format!("e/{i:02}.txt"),
            format!("keep\nedit me {i:02}\nkeep\n"),
        );
        tree = tree.file(&format!("s/{i:02}.txt"), format!("hay\nneedle-{i:02}-x\n"));
    }
    tree = tree.dir("w");
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    let mut calls: Vec<(Value, &str, Value, Expect)> = Vec::new();
    // Integer and string ids, interleaved, so an answer filed under the wrong id shows.
    let mut n = 0u64;
    let mut id = || {
        n += 1;
        if n.is_multiple_of(2) {
            json!(1_000_000 + n)
        } else {
            json!(format!("load-{n}"))
        }
    };
    for i in 0..32 {
        let path = format!("r/{i:02}.txt");
        let text = format!("read me {i:02}\n");
        calls.push((
            id(),
            "fs_read",
            json!({"path": path}),
            Expect::Text(text.clone()),
        ));
        if i < 16 {
            calls.push((
                id(),
                "read_text_file",
                json!({"path": path}),
                Expect::Page(text),
            ));
        }
    }
    for i in 0..16 {
        let path = format!("w/{i:02}.txt");
        let content = format!("written {i:02} {}\n", "w".repeat(i * 100));
        calls.push((
            id(),
            "fs_write",
            json!({"path": path, "content": content}),
            Expect::Text(format!("Wrote {} bytes to '{path}'", content.len())),
        ));
        let path = format!("e/{i:02}.txt");
        calls.push((
            id(),
            "fs_edit",
            json!({"path": path, "old-string": format!("edit me {i:02}"), "new-string": format!("edited {i:02}")}),
            Expect::Text(format!(
                "Replaced 1 occurrence in '{path}'; wrote {} bytes",
                format!("keep\nedited {i:02}\nkeep\n").len()
            )),
        ));
        let needle = format!("needle-{i:02}-x");
        calls.push((
            id(),
            "search_text",
            json!({"query": needle, "path": "s"}),
            Expect::Found(vec![(format!("s/{i:02}.txt"), 2, needle.clone())]),
        ));
        calls.push((
            id(),
            "fs_grep",
            json!({"pattern": needle}),
            Expect::Text(format!("s/{i:02}.txt:2:{needle}")),
        ));
    }
    for i in 0..8 {
        let path = format!("p{i}.txt");
        let content = format!("ptc {i}\n").repeat(i + 1);
        let bytes = content.len();
        calls.push((
            id(),
            "write_text_file",
            json!({"path": path, "content": content}),
            Expect::Written(path, bytes),
        ));
        calls.push((
            id(),
            "fs_read",
            json!({"path": format!("missing-{i}.txt")}),
            Expect::Refused(format!("'missing-{i}.txt' does not exist")),
        ));
        calls.push((
            id(),
            "fs_grep",
            json!({"pattern": "(", "regex": true}),
            Expect::Refused("Invalid regex pattern".to_owned()),
        ));
    }
    for _ in 0..4 {
        calls.push((
            id(),
            "fs_list",
            json!({"path": "r"}),
            Expect::Text(
                (0..32)
                    .map(|i| format!("{i:02}.txt"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ));
        calls.push((
            id(),
            "fs_glob",
            json!({"pattern": "*.txt", "path": "s"}),
            Expect::Text(
                (0..16)
                    .map(|i| format!("s/{i:02}.txt"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ));
    }
    assert!(calls.len() >= 128, "{} calls", calls.len());
    let lines: Vec<(Value, &str, Value)> = calls
        .iter()
        .map(|(id, tool, args, _)| (id.clone(), *tool, args.clone()))
        .collect();
    send_all(&mut server, &lines);
    let ids: Vec<Value> = calls.iter().map(|(id, ..)| id.clone()).collect();
    let responses = collect_responses(&mut server, &ids, hang());
    let mut wrong = Vec::new();
    for (id, tool, args, expect) in &calls {
        let response = &responses[&id_key(id)];
        assert_eq!(response["id"], *id);
        if let Err(got) = check(response, expect) {
            wrong.push(format!("{id} {tool} {args}: {got}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // No duplicate answer is still on its way: the next message answers the next request.
    still_answers(&mut server);
    // The mutations landed.
    for i in 0..16 {
        assert_eq!(
            tree.bytes(&format!("e/{i:02}.txt")),
            format!("keep\nedited {i:02}\nkeep\n").as_bytes()
        );
        assert_eq!(
            tree.bytes(&format!("w/{i:02}.txt")),
            format!("written {i:02} {}\n", "w".repeat(i * 100)).as_bytes()
        );
    }
    for i in 0..8 {
        assert_eq!(
            tree.bytes(&format!("p{i}.txt")),
            format!("ptc {i}\n").repeat(i + 1).as_bytes()
        );
    }
}

/// What the readers of one race saw.
#[derive(Default)]
struct Race {
    /// Reads that returned exactly A, or exactly B.
    whole: [usize; 2],
    /// Reads that returned anything else: a mix, a truncation, a second page.
    torn: Vec<String>,
    /// Reads and writes refused outright.
    refused: Vec<String>,
}

/// Three waves of 60 writes alternating two versions of `race.txt` (through `fs_write` and
/// `write_text_file`), each interleaved with two `fs_read`s and one `read_text_file`, all in
/// flight at once.
fn race(a: &str, b: &str) -> Race {
    let tree = Tree::new().file("race.txt", a);
    let mut server = Server::start(tree.path(), &["--tools", "ptc,fs", "--include", "**"]);
    let mut race = Race::default();
    for wave in 0..3 {
        let mut calls: Vec<(Value, &str, Value)> = Vec::new();
        for i in 0..60 {
            let content = if i % 2 == 0 { b } else { a };
            let tool = if i % 3 == 0 {
                "write_text_file"
            } else {
                "fs_write"
            };
            calls.push((
                fresh_id(),
                tool,
                json!({"path": "race.txt", "content": content}),
            ));
            calls.push((fresh_id(), "fs_read", json!({"path": "race.txt"})));
            calls.push((fresh_id(), "read_text_file", json!({"path": "race.txt"})));
            calls.push((fresh_id(), "fs_read", json!({"path": "race.txt"})));
        }
        send_all(&mut server, &calls);
        let ids: Vec<Value> = calls.iter().map(|(id, ..)| id.clone()).collect();
        let responses = collect_responses(&mut server, &ids, hang());
        for (id, tool, _) in &calls {
            let response = &responses[&id_key(id)];
            if is_refusal(response) {
                race.refused
                    .push(format!("wave {wave} {tool}: {}", text_of(response)));
                continue;
            }
            let text: String = match *tool {
                "fs_read" => text_of(response),
                "read_text_file" => {
                    let page = &response["result"]["structuredContent"];
                    if !page["next_cursor"].is_null() {
                        race.torn
                            .push(format!("wave {wave} {tool}: a second page: {page}"));
                    }
                    page["items"]
                        .as_array()
                        .map(|items| {
                            items
                                .iter()
                                .map(|i| i["text"].as_str().unwrap_or_default())
                                .collect()
                        })
                        .unwrap_or_default()
                }
                _ => continue,
            };
            if text == a {
                race.whole[0] += 1;
            } else if text == b {
                race.whole[1] += 1;
            } else {
                race.torn.push(format!(
                    "wave {wave} {tool}: neither version ({} bytes, starts {:?}, ends {:?})",
                    text.len(),
                    &text[..text.len().min(40)],
                    &text[text.len().saturating_sub(40)..]
                ));
            }
        }
    }
    let last = tree.bytes("race.txt");
    assert!(
        last == a.as_bytes() || last == b.as_bytes(),
        "the file ends whole"
    );
    assert_eq!(
        tree.names(""),
        ["race.txt"],
        "no temporary file is left behind"
    );
    still_answers(&mut server);
    race
}

/// Two versions of different lengths and line counts: a mix or a truncation matches neither.
fn versions() -> (String, String) {
    (
        format!("{}\n", "A".repeat(63)).repeat(100),
        format!("{}\n", "b".repeat(99)).repeat(120),
    )
}

#[test]
fn readers_racing_writers_on_one_file_never_see_a_mix_or_a_truncation() {
    let (a, b) = versions();
    let race = race(&a, &b);
    assert!(race.torn.is_empty(), "{:#?}", race.torn);
    assert!(
        race.whole[0] + race.whole[1] > 0,
        "no read succeeded: {:#?}",
        race.refused
    );
}

#[test]
fn readers_racing_writers_on_one_file_are_never_refused() {
    // "A reader sees the old bytes or the new bytes" (docs/cli.md, Confinement): a write renames a
    // new file over the name, which a reader must not report as a failure.
    let (a, b) = versions();
    let race = race(&a, &b);
    assert!(race.refused.is_empty(), "{:#?}", race.refused);
    assert_eq!(race.whole[0] + race.whole[1], 3 * 60 * 3);
}
