//! Literal line search across the served files under a prefix, paged by a scan budget.
//!
//! A page scans files in path order, line by line, reporting each line that contains a term
//! once. It ends when `limit` lines are collected, when `--max-scan-bytes` have been read, or
//! when every file is done; an empty page with a cursor is a progress page. A file whose
//! opening 8 KiB hold a line with both a NUL and invalid UTF-8 is skipped as binary.

use serde_json::{Value, json};

use super::cursor::{scope_of, state_of};
use super::digest::HashBudget;
use super::utf8::valid_prefix;
use super::{Candidate, Engine, EngineError, Limit, MAX_PAGE_ITEMS, Page, Terms};
use crate::root::{FileEntry, ReadFile, RelPath, RootError};

/// Bytes per read while scanning, and the size of the binary sniff.
const SCAN_BLOCK: u64 = 8192;
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
fn is_binary(sniff: &[u8], whole_file: bool) -> bool {
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

/// The evidence for a matched line starting at `line_start`: the whole line if it fits in
/// 1024 bytes and is UTF-8; otherwise its longest valid prefix within 1024 bytes (cut back at
/// most 3 bytes). One trailing `\r` is dropped. `None` means the line is skipped.
fn evidence(file: &ReadFile, line_start: u64) -> Result<Option<String>, RootError> {
    let mut bytes = [0u8; MAX_EVIDENCE_BYTES + 1];
    let read = file.read_at(&mut bytes, line_start)?;
    let text = match memchr::memchr(b'\n', &bytes[..read]) {
        Some(end) => std::str::from_utf8(&bytes[..end]).ok(),
        None if read <= MAX_EVIDENCE_BYTES => std::str::from_utf8(&bytes[..read]).ok(),
        None => valid_prefix(&bytes[..MAX_EVIDENCE_BYTES])
            .map(|n| std::str::from_utf8(&bytes[..n]).expect("checked prefix")),
    };
    Ok(text.map(|t| t.strip_suffix('\r').unwrap_or(t).to_owned()))
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
    files: &'a [FileEntry],
    limit: u64,
    budget: u64,
    scanned: u64,
    items: Vec<Candidate>,
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
        let state = self.search_state(&files)?;
        let (terms_value, folding) = terms.scope_fields();
        let scope = scope_of(
            "search_text",
            &json!({ "path": prefix.as_str(), "terms": terms_value, "caseInsensitive": folding }),
        );
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
        let mut scan = Scan {
            terms,
            files: &files,
            limit,
            budget: self.root.limits().max_scan_bytes,
            scanned: 0,
            items: Vec::new(),
        };
        let end = self.scan(&mut scan, start)?;
        self.fitter.fit(
            scan.items,
            &start.to_value(),
            end.map(Position::to_value).as_ref(),
            self.cursor_for(&scope, &state),
        )
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
            if scan.items.len() as u64 >= scan.limit || scan.scanned >= scan.budget {
                return Ok(Some(pos));
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
            if pos.offset == 0 && size > 0 {
                let sniff = SCAN_BLOCK.min(size);
                // Classify a file only with a full sniff, so the answer never depends on where
                // a page boundary fell.
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
            match self.scan_file(scan, &file, entry, &mut pos)? {
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

    fn scan_file(
        &self,
        scan: &mut Scan<'_>,
        file: &ReadFile,
        entry: &FileEntry,
        pos: &mut Position,
    ) -> Result<FileScan, EngineError> {
        let size = file.size();
        let keep = scan.terms.longest().saturating_sub(1) as u64;
        // Resuming inside a line: replay its last bytes so a term straddling the page
        // boundary is still found.
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
                                resume: resume.to_value(),
                            });
                            if scan.items.len() as u64 >= scan.limit {
                                *pos = resume;
                                return Ok(FileScan::Stopped);
                            }
                        }
                    } else {
                        // Keep the line's last bytes for a term that straddles the next read.
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
