//! Budgets: result fitting against the result ceiling (§5.5) and the per-page scan budget of
//! `search_text` (§5.7).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::*;

/// Follows a traversal, checking every page's full result against `ceiling` bytes.
fn fitted_pages(server: &mut Server, tool: &str, args: Value, ceiling: usize) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut args = args;
    loop {
        let result = server.call_result(tool, args.clone());
        let size = serde_json::to_string(&result).expect("serialize").len();
        assert!(
            size <= ceiling,
            "{tool} page of {size} bytes exceeds {ceiling}"
        );
        let page = structured(tool, &args, &result);
        assert_eq!(
            page["content_hash"],
            items_hash(tool, page["items"].as_array().expect("items"))
        );
        let next = page["next_cursor"].clone();
        pages.push(page);
        match next.as_str() {
            Some(cursor) => args["cursor"] = json!(cursor),
            None => return pages,
        }
        assert!(pages.len() < 10_000, "runaway traversal");
    }
}

fn item_counts(pages: &[Value]) -> Vec<usize> {
    pages
        .iter()
        .map(|p| p["items"].as_array().expect("items").len())
        .collect()
}

fn items(pages: &[Value]) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|p| p["items"].as_array().expect("items").clone())
        .collect()
}

#[test]
fn escaped_text_is_fitted_into_the_result_ceiling_without_loss() {
    let content = format!("{}\n", "\u{1}".repeat(40_000));
    let tree = Tree::new().file("ctl.txt", &content);
    let mut server = Server::serving(&tree);
    let pages = fitted_pages(
        &mut server,
        "read_text_file",
        json!({"path": "ctl.txt", "limit": 8}),
        48_000,
    );
    // Each byte costs 13 result bytes: two full 2048-byte chunks never fit in 48000, while the
    // last full chunk and the 1089-byte tail (3137 bytes) do.
    let mut expected = vec![1; 18];
    expected.push(2);
    assert_eq!(item_counts(&pages), expected);
    let text: String = items(&pages)
        .iter()
        .map(|i| i["text"].as_str().expect("text"))
        .collect();
    assert_eq!(text, content);
}

#[test]
fn a_larger_result_ceiling_allows_larger_pages() {
    let content = "a".repeat(600_000);
    let tree = Tree::new().file("big.txt", &content);
    let mut server = Server::start(
        tree.path(),
        &[
            "--include",
            "**",
            "--max-read-bytes",
            "500000",
            "--max-result-bytes",
            "1000000",
        ],
    );
    let pages = fitted_pages(
        &mut server,
        "read_text_file",
        json!({"path": "big.txt"}),
        1_000_000,
    );
    let first: usize = pages[0]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["text"].as_str().expect("text").len())
        .sum();
    assert!(first > 400_000, "first page carried only {first} bytes");
    assert!(first <= 500_000);
    let text: String = items(&pages)
        .iter()
        .map(|i| i["text"].as_str().expect("text"))
        .collect();
    assert_eq!(text, content);
}

#[test]
fn a_listing_too_large_for_one_result_is_split_without_loss() {
    let mut tree = Tree::new();
    let mut names = Vec::new();
    for i in 0..200 {
        let name = format!("{i:03}{}", "n".repeat(200));
        tree = tree.file(&name, "");
        names.push(name);
    }
    let mut server = Server::serving(&tree);
    let pages = fitted_pages(&mut server, "list_directory", json!({}), 48_000);
    assert!(pages.len() > 1);
    assert!(item_counts(&pages).iter().all(|&n| n > 0 && n < 200));
    let listed: Vec<Value> = items(&pages).iter().map(|i| i["name"].clone()).collect();
    assert_eq!(listed, names.iter().map(|n| json!(n)).collect::<Vec<_>>());
}

#[test]
fn search_files_results_are_split_without_loss() {
    let mut tree = Tree::new();
    for i in 0..200 {
        tree = tree.file(&format!("d{i:03}/{}.txt", "p".repeat(200)), "");
    }
    let mut server = Server::serving(&tree);
    let pages = fitted_pages(&mut server, "search_files", json!({"query": "ppp"}), 48_000);
    assert!(pages.len() > 1);
    let found = items(&pages);
    assert_eq!(found.len(), 200);
    assert_eq!(found[199]["path"], format!("d199/{}.txt", "p".repeat(200)));
}

#[test]
fn search_text_results_are_split_without_loss() {
    let content: String = (0..300)
        .map(|i| format!("needle {i:03} {}\n", "x".repeat(1000)))
        .collect();
    let tree = Tree::new().file("long.txt", content);
    let mut server = Server::serving(&tree);
    let pages = fitted_pages(
        &mut server,
        "search_text",
        json!({"query": "needle"}),
        48_000,
    );
    assert!(pages.len() > 1);
    let lines: Vec<u64> = items(&pages)
        .iter()
        .map(|i| i["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(lines, (1..=300).collect::<Vec<u64>>());
}

#[test]
fn a_scan_budget_smaller_than_the_file_gives_empty_progress_pages() {
    let content = format!("{}needle\n", "a".repeat(600_000));
    let tree = Tree::new().file("long.txt", &content);
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--max-scan-bytes", "262144"],
    );
    let first = server.call("search_text", json!({"query": "needle", "limit": 1}));
    assert_eq!(first["items"], json!([]));
    assert_eq!(first["content_hash"], EMPTY_HASH);
    assert!(first["next_cursor"].is_string());
    let found = server.collect("search_text", json!({"query": "needle", "limit": 1}));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["line"], 1);
    assert_eq!(found[0]["text"], "a".repeat(1024));
}

#[test]
fn a_scan_budget_larger_than_the_file_answers_in_one_page() {
    let content = format!("{}needle\n", "a".repeat(600_000));
    let tree = Tree::new().file("long.txt", &content);
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--max-scan-bytes", "1000000"],
    );
    let page = server.call("search_text", json!({"query": "needle", "limit": 1}));
    assert_eq!(page["items"].as_array().expect("items").len(), 1);
    assert_eq!(page["next_cursor"], Value::Null);
}

#[test]
fn the_scan_budget_spans_files() {
    let mut tree = Tree::new();
    for i in 0..5 {
        tree = tree.file(&format!("f{i}.txt"), "z".repeat(10_000));
    }
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--max-scan-bytes", "16384"],
    );
    let first = server.call("search_text", json!({"query": "needle"}));
    assert_eq!(first["items"], json!([]));
    assert!(first["next_cursor"].is_string());
    assert!(
        server
            .collect("search_text", json!({"query": "needle"}))
            .is_empty()
    );

    let mut small = Tree::new();
    for i in 0..10 {
        small = small.file(&format!("f{i}.txt"), "z".repeat(100));
    }
    let mut server = Server::start(
        small.path(),
        &["--include", "**", "--max-scan-bytes", "16384"],
    );
    assert_eq!(
        server.call("search_text", json!({"query": "needle"}))["next_cursor"],
        Value::Null
    );
}

#[test]
fn binary_classification_does_not_depend_on_page_boundaries() {
    let filler = "x".repeat(9000);
    // b.bin is binary: a NUL and a byte that is not UTF-8 share its first line, and it is larger
    // than the 8 KiB sniff, which a 16 KiB page cannot afford after scanning a.txt.
    let mut binary = b"\x00\xff\nneedle bin\n".to_vec();
    binary.extend(filler.as_bytes());
    let tree = Tree::new()
        .file("a.txt", "z".repeat(6000))
        .file("b.bin", binary)
        .file("c.txt", format!("needle text\n{filler}\n"));
    let mut results = Vec::new();
    for budget in ["16384", "4194304"] {
        let mut server = Server::start(
            tree.path(),
            &["--include", "**", "--max-scan-bytes", budget],
        );
        results.push(server.grep(json!({"query": "needle"})));
    }
    assert_eq!(
        results[0],
        [("c.txt".to_owned(), 1, "needle text".to_owned())]
    );
    assert_eq!(results[0], results[1]);
}

#[test]
fn the_default_scan_budget_is_4_mib_per_page() {
    let beyond = format!("{}needle\n", "a".repeat(4_194_304 + 8192));
    let within = format!("{}needle\n", "a".repeat(4_000_000));
    for (content, one_page) in [(beyond, false), (within, true)] {
        let tree = Tree::new().file("long.txt", &content);
        let mut server = Server::serving(&tree);
        let page = server.call("search_text", json!({"query": "needle"}));
        assert_eq!(
            page["next_cursor"].is_null(),
            one_page,
            "{} bytes",
            content.len()
        );
        assert_eq!(
            page["items"].as_array().expect("items").len(),
            usize::from(one_page)
        );
        assert_eq!(server.grep(json!({"query": "needle"})).len(), 1);
    }
}

#[test]
fn sniffed_bytes_are_charged_again_when_scanned() {
    // a.txt: 8192 sniffed + 8192 scanned reach the 16384 budget, so b.txt waits for page two.
    let tree = Tree::new()
        .file("a.txt", "z".repeat(9000))
        .file("b.txt", "needle\n");
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--max-scan-bytes", "16384"],
    );
    let first = server.call("search_text", json!({"query": "needle"}));
    assert_eq!(first["items"], json!([]));
    assert!(first["next_cursor"].is_string());
    assert_eq!(server.grep(json!({"query": "needle"})).len(), 1);
}

#[test]
fn a_page_that_cannot_afford_the_next_sniff_ends_before_it() {
    // a.txt costs 10000 of 16384; b.txt's 8192-byte sniff does not fit in the rest.
    let tree = Tree::new()
        .file("a.txt", "z".repeat(5000))
        .file("b.txt", format!("needle\n{}\n", "y".repeat(9000)));
    let mut server = Server::start(
        tree.path(),
        &["--include", "**", "--max-scan-bytes", "16384"],
    );
    let first = server.call("search_text", json!({"query": "needle"}));
    assert_eq!(first["items"], json!([]));
    assert!(first["next_cursor"].is_string());
    let second = server.call(
        "search_text",
        json!({"query": "needle", "cursor": first["next_cursor"]}),
    );
    assert_eq!(
        second["items"],
        json!([{"path": "b.txt", "line": 1, "text": "needle"}])
    );
}
