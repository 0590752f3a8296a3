//! `search_text` followed page by page must report exactly the lines a plain line-by-line scan
//! finds, whatever the scan budget, the page size, or where page and read boundaries fall:
//! terms straddling 8 KiB reads, lines longer than a read, matches at the first and last byte.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use support::{Server, Tree};

/// A small deterministic generator, so every run builds the same corpus.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Lines of filler with needles placed at random, some lines far longer than a read block.
fn corpus(seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Lcg(seed);
    (0..12)
        .map(|i| {
            let mut bytes = Vec::new();
            for _ in 0..rng.below(40) {
                let len = match rng.below(10) {
                    0 => 8000 + rng.below(12000),
                    1 => 1000 + rng.below(100),
                    _ => rng.below(120),
                };
                let mut line: Vec<u8> = (0..len)
                    .map(|_| b"abcdeneld "[rng.below(10) as usize])
                    .collect();
                if rng.below(3) == 0 && !line.is_empty() {
                    let at = rng.below(line.len() as u64) as usize;
                    let term: &[u8] = if rng.below(2) == 0 {
                        b"needle"
                    } else {
                        b"NEEDLE"
                    };
                    line.splice(at..at, term.iter().copied());
                }
                if rng.below(8) == 0 {
                    line.push(b'\r');
                }
                bytes.extend_from_slice(&line);
                bytes.push(b'\n');
            }
            if rng.below(2) == 0 {
                bytes.extend_from_slice(b"tail needle");
            }
            (format!("d{}/f{i:02}.txt", i % 3), bytes)
        })
        .chain(straddlers())
        .collect()
}

/// Files whose terms straddle every 8 KiB read boundary (and so every page boundary a
/// 16 KiB budget produces), on one long line and on short lines.
fn straddlers() -> Vec<(String, Vec<u8>)> {
    let mut one_line = Vec::new();
    let mut many_lines = Vec::new();
    for block in 1..6u64 {
        let at = (block * 8192 - 3) as usize;
        one_line.resize(at, b'x');
        one_line.extend_from_slice(b"needle");
        many_lines.resize(at - 1, b'y');
        many_lines.push(b'\n');
        many_lines.extend_from_slice(b"needle");
    }
    vec![
        ("e/long.txt".into(), one_line),
        ("e/short.txt".into(), many_lines),
    ]
}

/// What a plain scan reports: each line containing a term once, evidence capped at 1024
/// bytes, one trailing `\r` dropped.
fn expected(files: &[(String, Vec<u8>)], fold: bool) -> Vec<(String, u64, String)> {
    let mut sorted: Vec<_> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut found = Vec::new();
    for (path, bytes) in sorted {
        let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        for (i, line) in lines.iter().enumerate() {
            let haystack = if fold {
                line.to_ascii_lowercase()
            } else {
                line.to_vec()
            };
            if haystack.windows(6).any(|w| w == b"needle") {
                let cut = &line[..line.len().min(1024)];
                let text = String::from_utf8(cut.to_vec()).unwrap();
                let text = text.strip_suffix('\r').unwrap_or(&text).to_owned();
                found.push((path.clone(), i as u64 + 1, text));
            }
        }
    }
    found
}

#[test]
fn paged_search_equals_a_plain_scan() {
    for seed in [1u64, 7, 42] {
        let files = corpus(seed);
        let tree = files
            .iter()
            .fold(Tree::new(), |tree, (path, bytes)| tree.file(path, bytes));
        for (budget, limit) in [("16384", 1), ("16384", 7), ("20000", 200), ("4194304", 3)] {
            let mut server = Server::start(
                tree.path(),
                &["--include", "**", "--max-scan-bytes", budget],
            );
            for fold in [false, true] {
                let got = server
                    .grep(json!({"query": "needle", "limit": limit, "case_insensitive": fold}));
                assert_eq!(
                    got,
                    expected(&files, fold),
                    "seed {seed} budget {budget} limit {limit} fold {fold}"
                );
            }
            let any = server.grep(json!({"any_of": ["zzz", "needle"], "limit": limit}));
            assert_eq!(
                any,
                expected(&files, false),
                "any_of, seed {seed} budget {budget}"
            );
        }
    }
}
