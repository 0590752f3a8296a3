//! The scan of one file on a `search_text` page: block reads on the 8 KiB grid that positions
//! are defined on, terms found across read boundaries, and each matched line's evidence.
//!
//! Kept apart from the page's walk over the files (in [`super`]) because this is where the
//! byte-exact resume rules live, which the differential test in `tests` pins down.

use serde_json::json;

use super::{FIRST_READ_BLOCKS, MAX_EVIDENCE_BYTES, Position, READ_BLOCKS, SCAN_BLOCK, Scan};
use crate::ptc::utf8::valid_prefix;
use crate::ptc::{Candidate, Ptc, PtcError};
use crate::root::{FileEntry, ReadFile, RootError};

/// How the scan of one file ended.
pub(super) enum FileScan {
    /// The file was scanned to its end.
    Done,
    /// The page is full (limit or budget); the position says where to resume.
    Stopped,
}

/// Counts the newlines in `bytes` and finds the offset (in `bytes`) after the last one.
fn newlines(bytes: &[u8]) -> Option<(u64, usize)> {
    let last = memchr::memrchr(b'\n', bytes)?;
    let count = memchr::memchr_iter(b'\n', &bytes[..last]).count() as u64 + 1;
    Some((count, last + 1))
}

/// The evidence for a matched line starting at `line_start`: the whole line if it fits in
/// 1024 bytes and is UTF-8; otherwise its longest valid prefix within 1024 bytes (cut back at
/// most 3 bytes). One trailing `\r` is dropped. `None` means the line is skipped.
pub(super) fn evidence(file: &ReadFile, line_start: u64) -> Result<Option<String>, RootError> {
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

impl Ptc {
    /// Scans one file from `pos` to its end, to the page's item limit or to its budget;
    /// `buf` starts with the file's first `sniffed` bytes.
    ///
    /// Every byte read is charged. Positions are defined on a grid of 8 KiB scan blocks
    /// counted from `pos.offset`, whatever the size of the reads: a matched line that goes on
    /// past the block in which its first occurrence of a term ends resumes at that block's
    /// end (`matched`), as it did when the scan read one block at a time. A page that stops
    /// on the budget stops where the budget ran out.
    pub(super) fn scan_file(
        &self,
        scan: &mut Scan<'_>,
        file: &ReadFile,
        entry: &FileEntry,
        pos: &mut Position,
        sniffed: usize,
    ) -> Result<FileScan, PtcError> {
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
