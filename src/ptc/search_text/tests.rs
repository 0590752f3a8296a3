//! `search_text`'s block scan checked page for page against the line-by-line scan it
//! replaced, over random trees, terms, budgets and limits.
//!
//! Kept in a file of its own: the reference scan and the generators are longer than the code
//! they check.

#![allow(clippy::disallowed_methods)]

use std::sync::Arc;

use serde_json::{Value, json};

use super::ahead::Verdicts;
use super::file::{FileScan, evidence};
use super::sniff::is_binary;
use super::{Position, READ_BLOCKS, SCAN_BLOCK, Scan};
use crate::config::Limits;
use crate::ptc::{Candidate, Fitter, Ptc, PtcError, Terms, parse_terms};
use crate::root::{FileEntry, ReadFile, RelPath, Root, Selector};

// ---- the line-by-line scan `search_text` used before reads grew past 8 KiB, kept as the
// ---- reference the block scan must reproduce page for page.

struct ReferenceScan<'a> {
    terms: &'a Terms,
    files: &'a [FileEntry],
    limit: u64,
    budget: u64,
    scanned: u64,
    items: Vec<Candidate<Position>>,
}

fn reference_scan(
    ptc: &Ptc,
    scan: &mut ReferenceScan<'_>,
    mut pos: Position,
) -> Result<Option<Position>, PtcError> {
    let count = scan.files.len() as u64;
    loop {
        if pos.file >= count {
            return Ok(None);
        }
        if scan.items.len() as u64 >= scan.limit || scan.scanned >= scan.budget {
            return Ok(Some(pos));
        }
        let entry = &scan.files[pos.file as usize];
        let Some(file) = ptc.open_scanned(entry)? else {
            pos = Position::file_start(pos.file + 1);
            continue;
        };
        let size = file.size();
        if pos.offset > size {
            return Err(PtcError::CursorPosition);
        }
        if pos.offset == 0 && size > 0 {
            let sniff = SCAN_BLOCK.min(size);
            if sniff > scan.budget - scan.scanned && scan.scanned > 0 {
                return Ok(Some(pos));
            }
            let mut bytes = vec![0u8; sniff as usize];
            file.read_exact_at(&mut bytes, 0)?;
            scan.scanned += sniff;
            if is_binary(&bytes, sniff == size) {
                file.ensure_unchanged()?;
                pos = Position::file_start(pos.file + 1);
                continue;
            }
        }
        match reference_scan_file(scan, &file, entry, &mut pos)? {
            FileScan::Done => {
                file.ensure_unchanged()?;
                pos = Position::file_start(pos.file + 1);
            }
            FileScan::Stopped => {
                file.ensure_unchanged()?;
                return Ok((pos.file < count).then_some(pos));
            }
        }
    }
}

fn reference_scan_file(
    scan: &mut ReferenceScan<'_>,
    file: &ReadFile,
    entry: &FileEntry,
    pos: &mut Position,
) -> Result<FileScan, PtcError> {
    let size = file.size();
    let keep = scan.terms.longest().saturating_sub(1) as u64;
    let mut carry = Vec::new();
    if !pos.matched && pos.offset > pos.line_start {
        let replay = keep.min(pos.offset - pos.line_start);
        carry.resize(replay as usize, 0);
        file.read_exact_at(&mut carry, pos.offset - replay)?;
    }
    let mut buf = vec![0u8; SCAN_BLOCK as usize];
    let mut haystack = Vec::with_capacity(SCAN_BLOCK as usize + keep as usize);
    while pos.offset < size {
        let remaining = scan.budget - scan.scanned;
        if remaining == 0 {
            return Ok(FileScan::Stopped);
        }
        let base = pos.offset;
        let want = SCAN_BLOCK.min(size - base).min(remaining) as usize;
        file.read_exact_at(&mut buf[..want], base)?;
        scan.scanned += want as u64;
        let mut segment_start = 0usize;
        loop {
            let newline =
                memchr::memchr(b'\n', &buf[segment_start..want]).map(|i| segment_start + i);
            let segment_end = newline.unwrap_or(want);
            let segment = &buf[segment_start..segment_end];
            if !pos.matched {
                haystack.clear();
                haystack.extend_from_slice(&carry);
                haystack.extend_from_slice(segment);
                if scan.terms.is_match(&haystack) {
                    pos.matched = true;
                    let resume = match newline {
                        Some(n) => Position {
                            offset: base + n as u64 + 1,
                            line_start: base + n as u64 + 1,
                            line: pos.line + 1,
                            matched: false,
                            ..*pos
                        },
                        None => Position {
                            offset: base + want as u64,
                            ..*pos
                        },
                    };
                    let resume = if resume.offset >= size {
                        Position::file_start(pos.file + 1)
                    } else {
                        resume
                    };
                    if let Some(text) = evidence(file, pos.line_start)? {
                        scan.items.push(Candidate {
                            hash_bytes: format!("{}\0{}\0{}\n", entry.path, pos.line, text)
                                .into_bytes(),
                            item: json!({ "path": entry.path, "line": pos.line, "text": text }),
                            resume,
                        });
                        if scan.items.len() as u64 >= scan.limit {
                            *pos = resume;
                            return Ok(FileScan::Stopped);
                        }
                    }
                } else {
                    let from = haystack.len().saturating_sub(keep as usize);
                    carry.clear();
                    carry.extend_from_slice(&haystack[from..]);
                }
            }
            match newline {
                Some(n) => {
                    pos.line += 1;
                    pos.line_start = base + n as u64 + 1;
                    pos.matched = false;
                    carry.clear();
                    segment_start = n + 1;
                    if segment_start == want {
                        break;
                    }
                }
                None => break,
            }
        }
        pos.offset = base + want as u64;
        if scan.scanned >= scan.budget && pos.offset < size {
            return Ok(FileScan::Stopped);
        }
    }
    Ok(FileScan::Done)
}

// ---- the differential test

/// splitmix64: deterministic, dependency-free.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// One page's outcome, comparable between the two scans.
type Outcome = Result<PageItems, String>;
/// A page's items (item, hash bytes, resume) and where the next page starts.
type PageItems = (Vec<(Value, Vec<u8>, Value)>, Option<Position>);

/// A page's items in the form both scans are compared in.
fn page_items(items: Vec<Candidate<Position>>, end: Option<Position>) -> PageItems {
    let items = items
        .into_iter()
        .map(|c| (c.item, c.hash_bytes, c.resume.to_value()))
        .collect();
    (items, end)
}

fn new_page(
    ptc: &Ptc,
    terms: &Terms,
    files: &[FileEntry],
    limit: u64,
    budget: u64,
    start: Position,
) -> Outcome {
    let verdicts = Arc::new(Verdicts::new(files.len()));
    let mut scan = Scan::new(
        terms,
        files,
        verdicts,
        limit,
        budget,
        Fitter {
            max_result_bytes: u64::MAX,
            envelope_bytes: 0,
        },
    );
    let end = ptc.scan(&mut scan, start).map_err(|e| e.to_string())?;
    Ok(page_items(scan.items, end))
}

fn reference_page(
    ptc: &Ptc,
    terms: &Terms,
    files: &[FileEntry],
    limit: u64,
    budget: u64,
    start: Position,
) -> Outcome {
    let mut scan = ReferenceScan {
        terms,
        files,
        limit,
        budget,
        scanned: 0,
        items: Vec::new(),
    };
    let end = reference_scan(ptc, &mut scan, start).map_err(|e| e.to_string())?;
    Ok(page_items(scan.items, end))
}

/// Random text: lines of random length over a small alphabet (so short terms occur by
/// chance), some CRLF, some long, some with multi-byte characters or invalid UTF-8.
fn random_text(rng: &mut Rng, size: usize, long_lines: bool, crlf: bool) -> Vec<u8> {
    const ALPHABET: &[&[u8]] = &[
        b"a",
        b"e",
        b"h",
        b"l",
        b"d",
        b"n",
        b" ",
        b"w",
        b"x",
        b"y",
        b"\t",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"E",
        b"N",
        b"\r",
    ];
    let mut out = Vec::with_capacity(size + 64);
    while out.len() < size {
        let len = match rng.below(20) {
            0 if long_lines => 8000 + rng.below(300_000) as usize,
            1 if long_lines => 900 + rng.below(9000) as usize,
            2 => 0,
            _ => rng.below(120) as usize,
        };
        let end = out.len() + len;
        while out.len() < end.min(size) {
            let piece: &&[u8] = rng.pick(ALPHABET);
            out.extend_from_slice(piece);
        }
        if rng.below(200) == 0 {
            out.push(0xff);
        }
        if crlf {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
    out.truncate(size);
    out
}

/// Overwrites `bytes` with `needle` at random places and across scan-block and read
/// boundaries (every possible straddle of a few of them).
fn plant(rng: &mut Rng, bytes: &mut [u8], needles: &[Vec<u8>]) {
    let size = bytes.len();
    let mut put = |at: usize, needle: &[u8]| {
        if at + needle.len() <= size {
            bytes[at..at + needle.len()].copy_from_slice(needle);
        }
    };
    for _ in 0..rng.below(12) {
        let needle = rng.pick(needles).clone();
        put(rng.below(size as u64 + 1) as usize, &needle);
    }
    let read = (SCAN_BLOCK * READ_BLOCKS) as usize;
    for boundary in [8192, 16384, 24576, read, read + 8192, 2 * read, 65536] {
        if rng.below(2) == 0 {
            let needle = rng.pick(needles).clone();
            let back = rng.below(needle.len() as u64 + 1) as usize;
            put(boundary.saturating_sub(back), &needle);
        }
    }
}

fn random_file(rng: &mut Rng, needles: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(12) {
        0 => Vec::new(),
        1 => {
            // Binary by the sniff.
            let mut bytes = {
                let size = 100 + rng.below(20_000) as usize;
                let long = false;
                random_text(rng, size, long, false)
            };
            let at = rng.below(bytes.len().min(8000) as u64) as usize;
            bytes.splice(at..at, *b"\0\xff\xfe");
            plant(rng, &mut bytes, needles);
            bytes
        }
        2 => {
            // Binary only after the sniff: still searched.
            let mut bytes = {
                let size = 9000 + rng.below(40_000) as usize;
                let long = false;
                random_text(rng, size, long, false)
            };
            bytes[8500] = 0;
            bytes[8501] = 0xff;
            plant(rng, &mut bytes, needles);
            bytes
        }
        3 => {
            // Sizes at the block and read edges.
            let size = *rng.pick(&[1, 8191, 8192, 8193, 16384, 262_143, 262_144, 262_145]);
            let mut bytes = {
                let long = rng.below(2) == 0;
                random_text(rng, size, long, false)
            };
            plant(rng, &mut bytes, needles);
            bytes
        }
        4 => {
            // One long line, no newline at all.
            let size = 1 + rng.below(600_000) as usize;
            let mut bytes: Vec<u8> = (0..size).map(|i| b"ahel"[i % 4]).collect();
            plant(rng, &mut bytes, needles);
            bytes
        }
        5 => {
            let mut bytes = {
                let size = rng.below(40_000) as usize;
                let long = false;
                random_text(rng, size, long, true)
            };
            plant(rng, &mut bytes, needles);
            bytes
        }
        6 | 7 => {
            let mut bytes = {
                let size = rng.below(700_000) as usize;
                let long = true;
                random_text(rng, size, long, false)
            };
            plant(rng, &mut bytes, needles);
            bytes
        }
        _ => {
            let mut bytes = {
                let size = rng.below(30_000) as usize;
                let long = false;
                random_text(rng, size, long, false)
            };
            plant(rng, &mut bytes, needles);
            bytes
        }
    }
}

/// Term sets: (terms, case-insensitive, planted variants).
fn term_sets() -> Vec<(Vec<String>, bool, Vec<Vec<u8>>)> {
    let s = |v: &[&str]| v.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    let b = |v: &[&str]| v.iter().map(|t| t.as_bytes().to_vec()).collect::<Vec<_>>();
    let long = format!("{}needle", "w".repeat(250));
    vec![
        (s(&["needle"]), false, b(&["needle", "NeEdLe"])),
        (s(&["NEEDLE"]), true, b(&["needle", "NeEdLe", "NEEDLE"])),
        (s(&["e"]), false, b(&["e"])),
        (s(&["ha"]), false, b(&["ha"])),
        (s(&["ah", "ahel"]), true, b(&["AHEL", "ah"])),
        // The leftmost occurrence ends after a later one: the block of the first end counts.
        (
            s(&["needlework", "dlew"]),
            false,
            b(&["needlework", "dlew"]),
        ),
        (
            s(&["xneedlex", "eed", "needlexy"]),
            true,
            b(&["XNEEDLEXY", "eed"]),
        ),
        (vec![long.clone()], false, vec![long.clone().into_bytes()]),
        (
            vec![long.clone(), "wwn".to_owned()],
            false,
            vec![long.into_bytes()],
        ),
        (
            s(&["\u{e9}\u{20ac}", "y\t"]),
            true,
            b(&["\u{e9}\u{20ac}", "Y\t"]),
        ),
        (
            s(&[
                "needle", "hay", "stack", "aaaa", "nnn", "xyz", "qq", "zz", "\u{e9}x", "lll", "dd",
                "ww ", " y", "NEED", "EDLE", "hel",
            ]),
            false,
            b(&["needle", "stack", "NEEDLE"]),
        ),
    ]
}

fn test_ptc(dir: &std::path::Path) -> Ptc {
    let selector = Selector::new(&["**".to_owned()], &[], true);
    let root = Root::open(dir, selector, Limits::default()).expect("root");
    Ptc::new(Arc::new(root), crate::digest::Key::process(), false, 0)
}

/// Compares one page of both scans; returns the new scan's page.
#[allow(clippy::too_many_arguments)]
fn compare(
    ptc: &Ptc,
    terms: &Terms,
    files: &[FileEntry],
    limit: u64,
    budget: u64,
    from: Position,
    context: &str,
) -> PageItems {
    let new = new_page(ptc, terms, files, limit, budget, from);
    let old = reference_page(ptc, terms, files, limit, budget, from);
    assert_eq!(
        new, old,
        "{context}, budget {budget}, limit {limit}, from {from:?}"
    );
    new.unwrap_or_default()
}

#[test]
fn block_scan_equals_line_scan() {
    // An unoptimized build runs this about forty times slower; fewer trees keep the
    // default suite quick there. The variable sets any number.
    let default_trees = if cfg!(debug_assertions) { 1 } else { 40 };
    let trees: u64 = std::env::var("FSMCP_SEARCH_DIFF_TREES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_trees);
    let budgets = [
        8192, 8193, 9000, 16_384, 16_385, 24_575, 40_000, 65_536, 262_143, 262_144, 262_145,
        270_337, 1_000_000, 4_194_304,
    ];
    let limits = [1, 2, 3, 7, 50, 200];
    let (mut pages, mut items, mut chains) = (0u64, 0u64, 0u64);
    let sets = term_sets();
    for tree in 0..trees {
        let mut rng = Rng(0x5eed_0000 + tree);
        let (patterns, folding, needles) = rng.pick(&sets).clone();
        let dir = tempfile::tempdir().unwrap();
        for i in 0..1 + rng.below(10) {
            let bytes = random_file(&mut rng, &needles);
            std::fs::write(dir.path().join(format!("f{i:02}.txt")), bytes).unwrap();
        }
        let ptc = test_ptc(dir.path());
        let files = ptc.root.inventory(&RelPath::root()).unwrap();
        let terms = if patterns.len() == 1 && rng.below(2) == 0 {
            parse_terms(Some(&json!(patterns[0])), None, Some(&json!(folding)))
        } else {
            parse_terms(None, Some(&json!(patterns)), Some(&json!(folding)))
        }
        .unwrap();
        let context = format!("tree {tree}, terms {patterns:?}, folding {folding}");
        // Chains from the start (the extremes, then random combinations), each followed
        // for at most `cap` pages; every position met seeds short chains afterwards.
        let mut combos = vec![(4_194_304, 200, 5000), (8192, 200, 5000), (16_384, 1, 300)];
        for _ in 0..16 {
            combos.push((*rng.pick(&budgets), *rng.pick(&limits), 150));
        }
        let mut seen = Vec::new();
        let mut follow = |budget, limit, mut pos, cap, seen: &mut Vec<Position>| {
            chains += 1;
            for _ in 0..cap {
                let (page, end) = compare(&ptc, &terms, &files, limit, budget, pos, &context);
                pages += 1;
                items += page.len() as u64;
                // Pages cut short by result fitting resume at an item's position.
                seen.extend(
                    page.iter()
                        .take(page.len().saturating_sub(1))
                        .map(|item| Position::from_value(&item.2).unwrap()),
                );
                match end {
                    Some(next) => {
                        seen.push(next);
                        pos = next;
                    }
                    None => break,
                }
            }
        };
        for (budget, limit, cap) in combos {
            follow(budget, limit, Position::file_start(0), cap, &mut seen);
        }
        for _ in 0..40 {
            if seen.is_empty() {
                break;
            }
            let from = *rng.pick(&seen);
            let (budget, limit) = (*rng.pick(&budgets), *rng.pick(&limits));
            follow(budget, limit, from, 4, &mut Vec::new());
        }
    }
    eprintln!(
        "differential: {trees} trees, {chains} chains, {pages} pages, {items} items: identical"
    );
    assert!(items > 0);
}

#[test]
fn a_line_matched_in_one_block_resumes_at_that_block_end() {
    // "dlew" ends in the first 8 KiB block, "needlework" in the second; the line goes on.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vec![b'a'; 20_000];
    bytes[8184..8194].copy_from_slice(b"needlework");
    bytes.extend_from_slice(b"\nneedlework\n");
    std::fs::write(dir.path().join("f.txt"), &bytes).unwrap();
    let ptc = test_ptc(dir.path());
    let files = ptc.root.inventory(&RelPath::root()).unwrap();
    let terms = parse_terms(
        None,
        Some(&json!(["needlework", "dlew"])),
        Some(&json!(false)),
    )
    .unwrap();
    let (items, end) = new_page(&ptc, &terms, &files, 1, 1 << 20, Position::file_start(0)).unwrap();
    assert_eq!(items.len(), 1);
    let expected = Position {
        file: 0,
        offset: 8192,
        line_start: 0,
        line: 1,
        matched: true,
    };
    assert_eq!(end, Some(expected));
    assert_eq!(items[0].2, expected.to_value());
    let (items, end) = new_page(&ptc, &terms, &files, 5, 1 << 20, expected).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].0["line"], 2);
    assert_eq!(end, None);
}
