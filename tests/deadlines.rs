//! The call's deadline and cancellation reach the work a call hands to the worker pool, and a
//! long map neither starves other calls nor takes unbounded memory (over real stdio).
//!
//! Each pathological input here once ran for minutes past `--max-call-seconds`, held the
//! shared pool while other calls waited, or aborted the server; the bounds asserted are
//! several times what a fixed server takes, and the times are printed, not asserted.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::attack::call_line;
use support::fs::fs_server_with;
use support::*;

/// Whether a text is the fs tools' deadline refusal: the limit named, with its flag and key.
fn is_deadline(text: &str) -> bool {
    text.starts_with("the call ran past ")
        && text.contains(" (the call time limit); ")
        && text.ends_with("raise it with --max-call-seconds (config key limits.max_call_seconds)")
}

/// Whether `text` is a search answer the deadline cut short: what it found, then the notice
/// naming how far it got and the limit.
fn is_stopped_by_deadline(text: &str) -> bool {
    let Some((_, notice)) = text.rsplit_once("\n\n[stopped early, ") else {
        return false;
    };
    let notice = notice.strip_suffix(']').unwrap_or_default();
    let Some((covered, limit)) = notice.split_once(": ") else {
        return false;
    };
    (covered == "nothing was searched" || covered.starts_with("the answer covers the tree up to '"))
        && is_deadline(limit)
}
/// A pattern whose automaton grows with every `0`/`1` it reads: the lazy DFA gives up and
/// the search falls back to an engine whose cost per byte is the pattern's size.
const CATASTROPHIC: &str = "[01]*1[01]{1000}2";

/// Four files of 1.6 MB of `0`/`1` lines, which the catastrophic pattern never matches.
fn binary_digits() -> Tree {
    let mut tree = Tree::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for f in 0..4 {
        let mut text = String::with_capacity(1_600_000);
        while text.len() < 1_600_000 {
            for _ in 0..2000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(if state & 1 == 0 { '0' } else { '1' });
            }
            text.push('\n');
        }
        tree = tree.file(&format!("d{f}/digits.txt"), text);
    }
    tree
}

/// The response to request `id`, skipping other messages, if it comes within `wait`.
fn response(server: &mut Server, id: u64, wait: Duration) -> Option<Value> {
    let until = Instant::now() + wait;
    loop {
        let left = until.checked_duration_since(Instant::now())?;
        let message = server.next_message_within(left)?;
        if message["id"] == id {
            return Some(message);
        }
    }
}

/// The text of a tool result (error or not).
fn text_of(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
        .to_owned()
}

fn cancel_line(id: u64) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id, "reason": "test", "_meta": modern_meta()}})
    .to_string()
}

#[test]
fn a_catastrophic_regex_stops_at_the_deadline() {
    let tree = binary_digits();
    let mut server = fs_server_with(&tree, &["--max-call-seconds", "2"]);
    let started = Instant::now();
    server.send_line(&call_line(
        &json!(1),
        "fs_grep",
        &json!({"pattern": CATASTROPHIC, "regex": true}),
    ));
    let answer = response(&mut server, 1, Duration::from_secs(20))
        .expect("an answer within 20 s of a call limited to 2 s");
    println!("answered after {:.1} s", started.elapsed().as_secs_f64());
    // The answer holds what was found before the deadline, and says where it stopped.
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    assert!(is_stopped_by_deadline(&text_of(&answer)), "{answer}");
    // The server goes on answering.
    let listed = server.call_result("fs_glob", json!({"pattern": "**/*.txt"}));
    assert!(listed.to_string().contains("d3/digits.txt"), "{listed}");
}

#[test]
fn a_costly_regex_over_one_long_line_is_refused_in_bounded_time() {
    // One line of 1.6 MB cannot be searched in windows, and one search of it cannot be
    // interrupted: it took minutes.
    let digits = binary_digits();
    let line: String = digits
        .bytes("d0/digits.txt")
        .iter()
        .map(|&b| if b == b'\n' { '0' } else { char::from(b) })
        .collect();
    let tree = Tree::new()
        .file("long.txt", line)
        .file("short.txt", "0101\n");
    let mut server = fs_server_with(&tree, &["--max-call-seconds", "60"]);
    let started = Instant::now();
    server.send_line(&call_line(
        &json!(1),
        "fs_grep",
        &json!({"pattern": "[01]*1[01]{1000}2|0101", "regex": true}),
    ));
    let answer = response(&mut server, 1, Duration::from_secs(40)).expect("an answer within 40 s");
    println!("answered after {:.1} s", started.elapsed().as_secs_f64());
    let text = text_of(&answer);
    assert!(text.starts_with("short.txt:1:0101"), "{text}");
    assert!(
        text.ends_with(
            "[not searched, a line is too long for this pattern to search in time: long.txt; \
             simplify the pattern (smaller counted repetitions)]"
        ),
        "{text}"
    );
}

#[test]
fn a_cancelled_grep_frees_the_pool() {
    let tree = binary_digits();
    let mut server = Server::start(tree.path(), &["--include", "**", "--tools", "fs"]);
    let mut meta = modern_meta();
    meta["progressToken"] = json!("grep");
    server.send_line(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "fs_grep", "_meta": meta,
                           "arguments": {"pattern": CATASTROPHIC, "regex": true}}})
        .to_string(),
    );
    // Cancel once the grep reports progress: it is searching.
    let first = server.next_message();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    server.send_line(&cancel_line(1));
    let cancelled_at = Instant::now();
    // A call that walks on the pool answers promptly (a new file: the grep's walk is not
    // reused).
    tree.put("d0/new.txt", "new\n");
    server.send_line(&call_line(
        &json!(2),
        "fs_glob",
        &json!({"pattern": "d*/*.txt"}),
    ));
    let answer = response(&mut server, 2, Duration::from_secs(15))
        .expect("the next call answers within 15 s of the cancel");
    println!(
        "the next call answered {:.1} s after the cancel",
        cancelled_at.elapsed().as_secs_f64()
    );
    assert!(text_of(&answer).contains("d0/digits.txt"), "{answer}");
}

#[test]
fn a_cold_walk_of_many_directories_stops_at_the_deadline() {
    let tree = Tree::new();
    // Wide and deep: 200 top directories, each a chain of 300 levels (60,000 in all).
    for top in 0..200 {
        let mut path = tree.join(&format!("t{top}"));
        for level in 0..300 {
            path.push(format!("l{level}"));
        }
        std::fs::create_dir_all(&path).expect("create the chain");
    }
    let mut server = fs_server_with(
        &tree,
        &[
            "--max-call-seconds",
            "1",
            "--max-depth",
            "400",
            "--max-directories",
            "1000000",
        ],
    );
    let started = Instant::now();
    server.send_line(&call_line(
        &json!(1),
        "fs_glob",
        &json!({"pattern": "**/nothing.txt"}),
    ));
    let answer = response(&mut server, 1, Duration::from_secs(20))
        .expect("an answer within 20 s of a call limited to 1 s");
    println!("answered after {:.1} s", started.elapsed().as_secs_f64());
    let text = text_of(&answer);
    assert!(
        text.starts_with("No matches for '**/nothing.txt' under '.'"),
        "{answer}"
    );
    assert!(is_stopped_by_deadline(&text), "{answer}");
}

/// The server's peak resident memory in KiB, from `/proc` (`None` where it cannot be read).
fn peak_rss_kib(server: &Server) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_map_of_deeply_nested_files_answers_and_names_them() {
    let tree = Tree::new()
        .file("a.js", "{".repeat(1 << 20))
        .file("b.py", "(".repeat(1 << 20))
        .file("ok.py", "def frobnicate(value):\n    return value\n");
    let mut server = fs_server_with(&tree, &["--max-call-seconds", "2"]);
    let started = Instant::now();
    server.send_line(&call_line(&json!(1), "fs_map", &json!({})));
    let answer = response(&mut server, 1, Duration::from_secs(20))
        .expect("an answer within 20 s of a call limited to 2 s");
    println!("answered after {:.1} s", started.elapsed().as_secs_f64());
    let text = text_of(&answer);
    assert_ne!(answer["result"]["isError"], true, "{text}");
    assert!(text.contains("ok.py:"), "{text}");
    assert!(
        text.contains("; not parsed, nested too deeply or too costly: a.js, b.py"),
        "{text}"
    );
    // Remembered: the second map names them again without parsing.
    let again = server.call_result("fs_map", json!({}));
    assert!(again.to_string().contains("a.js, b.py"), "{again}");
}

#[test]
fn a_costly_map_is_bounded_in_memory_and_starves_no_other_call() {
    // C++ error recovery on `a<a<…` held about 3 GB per megabyte; two such files in
    // parallel took a server without the budget past this limit, and it aborted.
    const ADDRESS_SPACE: u64 = 2 << 30;
    let tree = Tree::new()
        .file("x.cpp", "a<".repeat(1 << 19))
        // Not a copy of x.cpp (a copy waits for its original's parse): two parses at once.
        .file("y.cpp", "b<".repeat(1 << 19))
        .file("ok.py", "def frobnicate(value):\n    return value\n");
    let mut server = Server::start_limited(
        tree.path(),
        &["--include", "**", "--tools", "fs"],
        ADDRESS_SPACE,
    );
    let started = Instant::now();
    server.send_line(&call_line(&json!(1), "fs_map", &json!({})));
    // While the map parses, a call that walks and greps on the shared pool (a new file: no
    // walk to reuse) answers, before the map.
    std::thread::sleep(Duration::from_millis(500));
    tree.put("later.txt", "needle\n");
    let asked = Instant::now();
    server.send_line(&call_line(
        &json!(2),
        "fs_grep",
        &json!({"pattern": "needle"}),
    ));
    let mut map = None;
    let grep = loop {
        let message = server
            .next_message_within(Duration::from_secs(30))
            .expect("an answer within 30 s");
        match message["id"].as_u64() {
            Some(1) => map = Some(message),
            Some(2) => break message,
            _ => {}
        }
    };
    println!(
        "the grep answered {:.2} s after it was sent",
        asked.elapsed().as_secs_f64()
    );
    assert!(text_of(&grep).contains("later.txt:1:needle"), "{grep}");
    assert!(map.is_none(), "the map answered first: {map:?}");
    let map =
        response(&mut server, 1, Duration::from_secs(120)).expect("the map answers within 120 s");
    println!(
        "the map answered after {:.1} s; peak RSS {:?} KiB",
        started.elapsed().as_secs_f64(),
        peak_rss_kib(&server)
    );
    let text = text_of(&map);
    assert!(
        text.contains("; not parsed, nested too deeply or too costly: x.cpp, y.cpp"),
        "{text}"
    );
    assert!(text.contains("ok.py:"), "{text}");
}

#[test]
fn a_parse_stops_at_the_deadline() {
    // One parse of this file runs for seconds before it reaches the memory budget.
    let tree = Tree::new().file("x.cpp", "a<".repeat(1 << 19));
    let mut server = Server::start_limited(
        tree.path(),
        &[
            "--include",
            "**",
            "--tools",
            "fs",
            "--max-call-seconds",
            "1",
        ],
        2 << 30,
    );
    let started = Instant::now();
    server.send_line(&call_line(&json!(1), "fs_map", &json!({})));
    let answer = response(&mut server, 1, Duration::from_secs(15))
        .expect("an answer within 15 s of a call limited to 1 s");
    println!("answered after {:.1} s", started.elapsed().as_secs_f64());
    assert!(is_deadline(&text_of(&answer)), "{answer}");
    // The server goes on answering.
    let listed = server.call_result("fs_glob", json!({"pattern": "*.cpp"}));
    assert!(listed.to_string().contains("x.cpp"), "{listed}");
}
