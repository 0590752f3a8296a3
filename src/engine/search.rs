//! Literal line search across the served files under a prefix, paged by a scan budget.
//!
//! A page scans files in path order, line by line, reporting each line that contains a term
//! once. It ends when `limit` lines are collected, when `--max-scan-bytes` have been read, or
//! when every file is done; an empty page with a cursor is a progress page. A file whose
//! opening 8 KiB hold a line with both a NUL and invalid UTF-8 is skipped as binary.

use std::sync::Arc;

use serde_json::{Value, json};

use super::buffer::ReadBuffer;
use super::cursor::{scope_of, state_of};
use super::digest::HashBudget;
use super::search_ahead::{Ahead, Verdicts};
use super::utf8::valid_prefix;
use super::{Candidate, Engine, EngineError, Fitter, Limit, MAX_PAGE_ITEMS, Page, Terms};
use crate::root::{FileEntry, ReadFile, RelPath, RootError};

/// The size of the binary sniff, and of the scan blocks positions are defined on.
pub(super) const SCAN_BLOCK: u64 = 8192;
/// Scan blocks in a file's first read on a page; each further read doubles, up to
/// [`READ_BLOCKS`], so a page that fills early reads little.
const FIRST_READ_BLOCKS: u64 = 2;
/// Most scan blocks per read.
const READ_BLOCKS: u64 = 32;
/// Most bytes of a line returned as evidence.
const MAX_EVIDENCE_BYTES: usize = 1024;

/// Where a search resumes: a file index, a byte offset in it, and the line being scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Position {
    file: u64,
    offset: u64,
    line_start: u64,
    line: u64,
    /// The line at `offset` was already reported (or judged), so it is not matched again.
    matched: bool,
}

impl Position {
    fn file_start(file: u64) -> Position {
        Position {
            file,
            offset: 0,
            line_start: 0,
            line: 1,
            matched: false,
        }
    }

    fn to_value(self) -> Value {
        json!({
            "file": self.file,
            "offset": self.offset,
            "lineStart": self.line_start,
            "line": self.line,
            "matched": self.matched,
        })
    }

    fn from_value(value: &Value) -> Option<Position> {
        let map = value.as_object()?;
        let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
        keys.sort_unstable();
        if keys != ["file", "line", "lineStart", "matched", "offset"] {
            return None;
        }
        let line = map["line"]
            .as_u64()
            .filter(|l| (1..=9_007_199_254_740_991).contains(l))?;
        Some(Position {
            file: map["file"].as_u64()?,
            offset: map["offset"].as_u64()?,
            line_start: map["lineStart"].as_u64()?,
            line,
            matched: map["matched"].as_bool()?,
        })
    }
}

/// Whether the sniffed opening bytes mark a binary file: some line holds a NUL and is not
/// valid UTF-8. The unterminated tail counts only if it holds a NUL; unless it ends the file,
/// a scalar cut by the sniff boundary is tolerated.
pub(super) fn is_binary(sniff: &[u8], whole_file: bool) -> bool {
    // Only lines holding a NUL are judged: go from NUL to NUL.
    let mut from = 0;
    while let Some(nul) = memchr::memchr(0, &sniff[from..]).map(|i| from + i) {
        let start = memchr::memrchr(b'\n', &sniff[from..nul]).map_or(from, |i| from + i + 1);
        match memchr::memchr(b'\n', &sniff[nul..]).map(|i| nul + i) {
            Some(newline) => {
                if std::str::from_utf8(&sniff[start..newline]).is_err() {
                    return true;
                }
                from = newline + 1;
            }
            None if whole_file => return std::str::from_utf8(&sniff[start..]).is_err(),
            None => return valid_prefix(&sniff[start..]).is_none(),
        }
    }
    false
}

/// The evidence for a matched line starting at `line_start`: the whole line if it fits in
/// 1024 bytes and is UTF-8; otherwise its longest valid prefix within 1024 bytes (cut back at
/// most 3 bytes). One trailing `\r` is dropped. `None` means the line is skipped.
fn evidence(file: &ReadFile, line_start: u64) -> Result<Option<String>, RootError> {
    let mut bytes = [0u8; MAX_EVIDENCE_BYTES + 1];
    let read = file.read_at(&mut bytes, line_start)?;
    Ok(evidence_of(&bytes[..read]))
}

/// The evidence in `bytes`, the file's next `MAX_EVIDENCE_BYTES + 1` bytes from a line start
/// (fewer at its end), or any prefix of them that holds the line's newline.
fn evidence_of(bytes: &[u8]) -> Option<String> {
    let text = match memchr::memchr(b'\n', bytes) {
        Some(end) => std::str::from_utf8(&bytes[..end]).ok(),
        None if bytes.len() <= MAX_EVIDENCE_BYTES => std::str::from_utf8(bytes).ok(),
        None => valid_prefix(&bytes[..MAX_EVIDENCE_BYTES])
            .map(|n| std::str::from_utf8(&bytes[..n]).expect("checked prefix")),
    };
    text.map(|t| t.strip_suffix('\r').unwrap_or(t).to_owned())
}

enum FileScan {
    /// The file was scanned to its end.
    Done,
    /// The page is full (limit or budget); the position says where to resume.
    Stopped,
}

/// One page's scan state.
struct Scan<'a> {
    terms: &'a Terms,
    /// The longest term's length minus one: how many bytes of a line a read carries over so a
    /// term that straddles two reads is found.
    keep: usize,
    files: &'a [FileEntry],
    limit: u64,
    budget: u64,
    scanned: u64,
    items: Vec<Candidate<Position>>,
    /// What the page's results must fit, and the bytes of the items' paths and texts so far:
    /// a page stops once those overflow it, since the items after could not be kept.
    fitter: Fitter,
    text_bytes: u64,
    /// The read buffer: a carried line tail followed by one read.
    buf: ReadBuffer,
    /// Files judged ahead on the worker pool.
    ahead: Ahead,
}

impl<'a> Scan<'a> {
    fn new(
        terms: &'a Terms,
        files: &'a [FileEntry],
        verdicts: Arc<Verdicts>,
        limit: u64,
        budget: u64,
        fitter: Fitter,
    ) -> Scan<'a> {
        let keep = terms.longest().saturating_sub(1);
        Scan {
            terms,
            keep,
            files,
            limit,
            budget,
            scanned: 0,
            items: Vec::new(),
            fitter,
            text_bytes: 0,
            buf: ReadBuffer::take((SCAN_BLOCK * READ_BLOCKS) as usize + keep),
            ahead: Ahead::new(verdicts),
        }
    }

    /// Whether the page holds all the items it can.
    fn full(&self) -> bool {
        self.items.len() as u64 >= self.limit || self.fitter.overflows(self.text_bytes)
    }
}

/// Counts the newlines in `bytes` and finds the offset (in `bytes`) after the last one.
fn newlines(bytes: &[u8]) -> Option<(u64, usize)> {
    let last = memchr::memrchr(b'\n', bytes)?;
    let count = memchr::memchr_iter(b'\n', &bytes[..last]).count() as u64 + 1;
    Some((count, last + 1))
}

impl Engine {
    /// Lines containing any term in the served files at or under `path` (a directory prefix or
    /// one file), paged. The cursor binds every in-scope file's identity (deterministic mode:
    /// its size and digest).
    pub fn search_text(
        &self,
        terms: &Terms,
        path: &str,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, EngineError> {
        let prefix = RelPath::parse(path)?;
        let files = self.root.inventory(&prefix)?;
        let (terms_value, folding) = terms.scope_fields();
        let scope = scope_of(
            "search_text",
            &json!({ "path": prefix.as_str(), "terms": terms_value, "caseInsensitive": folding }),
        );
        // The state binds every file in scope: derived once per walk, not once per page.
        let state = self
            .scan_states
            .get_or(&files, prefix.as_str(), || self.search_state(&files))?;
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(MAX_PAGE_ITEMS)?;
        let start = match &position {
            None => Position::file_start(0),
            Some(p) => {
                let p = Position::from_value(p)
                    .filter(|p| p.file < files.len() as u64)
                    .ok_or(EngineError::CursorInvalid)?;
                if p.line_start > p.offset {
                    return Err(EngineError::CursorPosition);
                }
                p
            }
        };
        let verdicts = self.verdicts.get_or(&files, &scope, || {
            Ok::<_, EngineError>(Arc::new(Verdicts::new(files.len())))
        })?;
        let budget = self.root.limits().max_scan_bytes;
        let mut scan = Scan::new(terms, &files, verdicts.clone(), limit, budget, self.fitter);
        let end = self.scan(&mut scan, start)?;
        // The files the next page will reach are judged while this one travels, when the
        // next page will be handed the same walk (and so these verdicts).
        if let Some(next) = end
            && self.root.keeps_inventory(&prefix, &files)
        {
            let from = next.file as usize + usize::from(next.offset > 0);
            verdicts.judge_ahead(
                self.root.clone(),
                terms.clone(),
                files.clone(),
                from,
                budget,
            );
        }
        let cursor = self.cursor_for(&scope, &state);
        self.fitter
            .fit(scan.items, &start, end.as_ref(), |p| cursor(&p.to_value()))
    }

    fn search_state(&self, files: &[FileEntry]) -> Result<String, EngineError> {
        if !self.deterministic {
            return Ok(state_of(
                files.iter().map(|f| format!("{}\0{}", f.path, f.identity)),
            ));
        }
        let mut budget = HashBudget(self.root.limits().max_cursor_hash_bytes);
        let mut digests = self.digests.lock().expect("digest cache lock");
        let mut parts = Vec::with_capacity(files.len());
        for entry in files {
            let file = self
                .root
                .open_entry(entry)
                .map_err(|_| RootError::Changed)?;
            let digest = digests.digest(&file, &mut budget)?;
            parts.push(format!("{}\0{}:{}", entry.path, file.size(), digest));
        }
        Ok(state_of(parts))
    }

    /// Scans from `pos`; returns where the next page starts, or `None` when all files are done.
    fn scan(
        &self,
        scan: &mut Scan<'_>,
        mut pos: Position,
    ) -> Result<Option<Position>, EngineError> {
        let count = scan.files.len() as u64;
        loop {
            if pos.file >= count {
                return Ok(None);
            }
            if scan.full() || scan.scanned >= scan.budget {
                return Ok(Some(pos));
            }
            if pos.offset == 0 {
                // A file the pool found holds no term is charged what scanning it would read.
                let room = scan.budget - scan.scanned;
                if let Some(charge) =
                    scan.ahead
                        .clean(&self.root, scan.terms, scan.files, pos.file as usize, room)
                    && charge <= room
                {
                    scan.scanned += charge;
                    pos = Position::file_start(pos.file + 1);
                    continue;
                }
            }
            let entry = &scan.files[pos.file as usize];
            let file = match self.root.open_entry(entry) {
                Ok(file) => file,
                Err(RootError::Changed) => return Err(RootError::Changed.into()),
                // A file that vanished is skipped; the next cursor's state check will notice.
                Err(_) if !self.deterministic => {
                    pos = Position::file_start(pos.file + 1);
                    continue;
                }
                Err(_) => return Err(RootError::Changed.into()),
            };
            let size = file.size();
            if pos.offset > size {
                return Err(EngineError::CursorPosition);
            }
            // The sniffed bytes, already in the read buffer (and charged).
            let mut sniffed = 0;
            if pos.offset == 0 && size > 0 {
                let sniff = SCAN_BLOCK.min(size);
                // Classify a file only with a full sniff, so the answer never depends on where
                // a page boundary fell.
                if sniff > scan.budget - scan.scanned && scan.scanned > 0 {
                    return Ok(Some(pos));
                }
                let bytes = &mut scan.buf[..sniff as usize];
                file.read_exact_at(bytes, 0)?;
                scan.scanned += sniff;
                if is_binary(bytes, sniff == size) {
                    file.ensure_unchanged()?;
                    pos = Position::file_start(pos.file + 1);
                    continue;
                }
                sniffed = sniff as usize;
            }
            match self.scan_file(scan, &file, entry, &mut pos, sniffed)? {
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

    /// Scans one file from `pos` to its end, to the page's item limit or to its budget;
    /// `buf` starts with the file's first `sniffed` bytes.
    ///
    /// Every byte read is charged. Positions are defined on a grid of 8 KiB scan blocks
    /// counted from `pos.offset`, whatever the size of the reads: a matched line that goes on
    /// past the block in which its first occurrence of a term ends resumes at that block's
    /// end (`matched`), as it did when the scan read one block at a time. A page that stops
    /// on the budget stops where the budget ran out.
    fn scan_file(
        &self,
        scan: &mut Scan<'_>,
        file: &ReadFile,
        entry: &FileEntry,
        pos: &mut Position,
        sniffed: usize,
    ) -> Result<FileScan, EngineError> {
        let size = file.size();
        let terms = scan.terms;
        let keep = scan.keep;
        let grid = pos.offset;
        // The end of the scan block holding byte `at`, within a read ending at `end`.
        let block_end = |at: u64, end: u64| {
            (grid + (at.saturating_sub(grid) / SCAN_BLOCK + 1) * SCAN_BLOCK).min(end)
        };
        // `buf[..carry]` is the tail of the current line just before `pos.offset`: resuming
        // inside a line, its last bytes are replayed so a term straddling the page boundary
        // is still found.
        let mut carry = 0usize;
        if !pos.matched && pos.offset > pos.line_start {
            carry = (keep as u64).min(pos.offset - pos.line_start) as usize;
            file.read_exact_at(&mut scan.buf[..carry], pos.offset - carry as u64)?;
        }
        let mut blocks = FIRST_READ_BLOCKS;
        while pos.offset < size {
            let remaining = scan.budget - scan.scanned;
            if remaining == 0 {
                return Ok(FileScan::Stopped);
            }
            let base = pos.offset;
            let want = (SCAN_BLOCK * blocks).min(size - base).min(remaining) as usize;
            blocks = (blocks * 2).min(READ_BLOCKS);
            // The first read of a file from its start reuses the sniffed bytes (`buf` holds
            // them, and `carry` is 0); each byte is still charged as read.
            let have = if base == 0 { sniffed.min(want) } else { 0 };
            file.read_exact_at(
                &mut scan.buf[carry + have..carry + want],
                base + have as u64,
            )?;
            scan.scanned += want as u64;
            let end = base + want as u64;
            // `hay[i]` is the byte at offset `origin + i`.
            let origin = base - carry as u64;
            let hay = &scan.buf[..carry + want];
            // Lines before `hay[at..]` are accounted for in `pos`.
            let mut at = carry;
            loop {
                if pos.matched {
                    // The rest of a reported line is not searched.
                    let Some(newline) = memchr::memchr(b'\n', &hay[at..]).map(|i| at + i) else {
                        break;
                    };
                    pos.line += 1;
                    pos.line_start = origin + newline as u64 + 1;
                    pos.matched = false;
                    at = newline + 1;
                    if at == hay.len() {
                        break;
                    }
                }
                // The current line's bytes in `hay` start here (the carry, at the first line).
                let from = if at == carry { 0 } else { at };
                let Some(found) = terms.find(&hay[from..]) else {
                    if let Some((lines, after)) = newlines(&hay[at..]) {
                        pos.line += lines;
                        pos.line_start = origin + (at + after) as u64;
                    }
                    break;
                };
                let (start, stop) = (from + found.start, from + found.end);
                if start > at
                    && let Some((lines, after)) = newlines(&hay[at..start])
                {
                    pos.line += lines;
                    pos.line_start = origin + (at + after) as u64;
                }
                pos.matched = true;
                let newline = memchr::memchr(b'\n', &hay[stop..]).map(|i| stop + i);
                // The scan block in which the line first matched: the leftmost occurrence
                // may end after another one does.
                let line_from = (pos.line_start.max(origin) - origin) as usize;
                let first_end = if block_end(origin + line_from as u64, end)
                    == block_end(origin + stop as u64 - 1, end)
                {
                    stop
                } else {
                    line_from
                        + terms
                            .first_end(&hay[line_from..stop])
                            .expect("the line holds an occurrence")
                };
                let matched_until = block_end(origin + first_end as u64 - 1, end);
                let resume = match newline {
                    Some(n) if origin + (n as u64) < matched_until => Position {
                        offset: origin + n as u64 + 1,
                        line_start: origin + n as u64 + 1,
                        line: pos.line + 1,
                        matched: false,
                        ..*pos
                    },
                    _ => Position {
                        offset: matched_until,
                        ..*pos
                    },
                };
                let resume = if resume.offset >= size {
                    Position::file_start(pos.file + 1)
                } else {
                    resume
                };
                // The evidence from the bytes at hand when they hold it, else from the file.
                let text = match pos.line_start.checked_sub(origin) {
                    Some(line) => {
                        let line = line as usize;
                        let window = (MAX_EVIDENCE_BYTES as u64 + 1).min(size - pos.line_start);
                        if hay.len() - line >= window as usize {
                            evidence_of(&hay[line..line + window as usize])
                        } else if let Some(n) = newline {
                            evidence_of(&hay[line..=n])
                        } else {
                            evidence(file, pos.line_start)?
                        }
                    }
                    None => evidence(file, pos.line_start)?,
                };
                if let Some(text) = text {
                    scan.text_bytes += (entry.path.len() + text.len()) as u64;
                    scan.items.push(Candidate {
                        hash_bytes: format!("{}\0{}\0{}\n", entry.path, pos.line, text)
                            .into_bytes(),
                        item: json!({ "path": entry.path, "line": pos.line, "text": text }),
                        resume,
                    });
                    if scan.full() {
                        *pos = resume;
                        return Ok(FileScan::Stopped);
                    }
                }
                at = stop;
            }
            // Keep the current line's last bytes for a term that straddles the next read.
            carry = 0;
            if !pos.matched {
                let line_from = (pos.line_start.max(origin) - origin) as usize;
                let filled = hay.len();
                let len = keep.min(filled - line_from);
                scan.buf.copy_within(filled - len..filled, 0);
                carry = len;
            }
            pos.offset = end;
            if scan.scanned >= scan.budget && pos.offset < size {
                return Ok(FileScan::Stopped);
            }
        }
        Ok(FileScan::Done)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]

    use super::*;
    use crate::config::Limits;
    use crate::engine::parse_terms;
    use crate::root::{Root, Selector};

    #[test]
    fn binary_sniff_follows_the_reference_table() {
        let mut big = vec![0x00, 0xff, 0xfe, 0x00];
        big.extend(std::iter::repeat_n(0xc0, 8188));
        assert!(is_binary(&big, false));
        let mut nl = vec![0x00, 0xff, 0xfe, 0x00, 0x0a];
        nl.extend(std::iter::repeat_n(0xc0, 8187));
        assert!(is_binary(&nl, false));
        assert!(is_binary(b"text\0\xff", true));
        assert!(!is_binary(
            b"first line\nsecond\0line has a nul\nneedle here\n",
            true
        ));
        assert!(!is_binary(b"needle up top\n\xff\xfe\n", true));
        assert!(!is_binary(b"needle here\n\0\n\xff\n", true));
        assert!(!is_binary(&[0xc0; 8192], false));
    }

    // ---- the line-by-line scan this file used before reads grew past 8 KiB, kept as the
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
        engine: &Engine,
        scan: &mut ReferenceScan<'_>,
        mut pos: Position,
    ) -> Result<Option<Position>, EngineError> {
        let count = scan.files.len() as u64;
        loop {
            if pos.file >= count {
                return Ok(None);
            }
            if scan.items.len() as u64 >= scan.limit || scan.scanned >= scan.budget {
                return Ok(Some(pos));
            }
            let entry = &scan.files[pos.file as usize];
            let file = match engine.root.open_entry(entry) {
                Ok(file) => file,
                Err(RootError::Changed) => return Err(RootError::Changed.into()),
                Err(_) if !engine.deterministic => {
                    pos = Position::file_start(pos.file + 1);
                    continue;
                }
                Err(_) => return Err(RootError::Changed.into()),
            };
            let size = file.size();
            if pos.offset > size {
                return Err(EngineError::CursorPosition);
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
    ) -> Result<FileScan, EngineError> {
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

    /// The line-by-line binary sniff `is_binary` replaced.
    fn reference_is_binary(sniff: &[u8], whole_file: bool) -> bool {
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', sniff) {
            let line = &sniff[start..newline];
            if memchr::memchr(0, line).is_some() && std::str::from_utf8(line).is_err() {
                return true;
            }
            start = newline + 1;
        }
        let tail = &sniff[start..];
        if memchr::memchr(0, tail).is_none() {
            return false;
        }
        if whole_file {
            std::str::from_utf8(tail).is_err()
        } else {
            valid_prefix(tail).is_none()
        }
    }

    #[test]
    fn binary_sniff_equals_the_line_by_line_sniff() {
        let mut rng = Rng(7);
        const BYTES: &[u8] = b"\0\n\n\xff\xc3\xa9\xe2\x82\xacab\r";
        for _ in 0..200_000 {
            let len = rng.below(40) as usize;
            let sniff: Vec<u8> = (0..len).map(|_| *rng.pick(BYTES)).collect();
            for whole in [false, true] {
                assert_eq!(
                    is_binary(&sniff, whole),
                    reference_is_binary(&sniff, whole),
                    "{sniff:?} {whole}"
                );
            }
        }
    }

    // ---- the differential test

    /// splitmix64: deterministic, dependency-free.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len() as u64) as usize]
        }
    }

    /// One page's outcome, comparable between the two scans.
    type Outcome = Result<PageItems, String>;
    /// A page's items (item, hash bytes, resume) and where the next page starts.
    type PageItems = (Vec<(Value, Vec<u8>, Value)>, Option<Position>);

    fn new_page(
        engine: &Engine,
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
        let end = engine.scan(&mut scan, start).map_err(|e| e.to_string())?;
        let items = scan.items.into_iter();
        Ok((
            items
                .map(|c| (c.item, c.hash_bytes, c.resume.to_value()))
                .collect(),
            end,
        ))
    }

    fn reference_page(
        engine: &Engine,
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
        let end = reference_scan(engine, &mut scan, start).map_err(|e| e.to_string())?;
        let items = scan.items.into_iter();
        Ok((
            items
                .map(|c| (c.item, c.hash_bytes, c.resume.to_value()))
                .collect(),
            end,
        ))
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
                    "needle", "hay", "stack", "aaaa", "nnn", "xyz", "qq", "zz", "\u{e9}x", "lll",
                    "dd", "ww ", " y", "NEED", "EDLE", "hel",
                ]),
                false,
                b(&["needle", "stack", "NEEDLE"]),
            ),
        ]
    }

    fn test_engine(dir: &std::path::Path) -> Engine {
        let selector = Selector::new(&["**".to_owned()], &[], true);
        let root = Root::open(dir, selector, Limits::default()).expect("root");
        Engine::new(root, None, 0)
    }

    /// Compares one page of both scans; returns the new scan's page.
    #[allow(clippy::too_many_arguments)]
    fn compare(
        engine: &Engine,
        terms: &Terms,
        files: &[FileEntry],
        limit: u64,
        budget: u64,
        from: Position,
        context: &str,
    ) -> PageItems {
        let new = new_page(engine, terms, files, limit, budget, from);
        let old = reference_page(engine, terms, files, limit, budget, from);
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
            let engine = test_engine(dir.path());
            let files = engine.root.inventory(&RelPath::root()).unwrap();
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
                    let (page, end) =
                        compare(&engine, &terms, &files, limit, budget, pos, &context);
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
        let engine = test_engine(dir.path());
        let files = engine.root.inventory(&RelPath::root()).unwrap();
        let terms = parse_terms(
            None,
            Some(&json!(["needlework", "dlew"])),
            Some(&json!(false)),
        )
        .unwrap();
        let (items, end) =
            new_page(&engine, &terms, &files, 1, 1 << 20, Position::file_start(0)).unwrap();
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
        let (items, end) = new_page(&engine, &terms, &files, 5, 1 << 20, expected).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].0["line"], 2);
        assert_eq!(end, None);
    }
}
