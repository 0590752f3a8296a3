//! `search_text`: the lines containing any of the terms in the served files under a prefix,
//! with path and line evidence, paged by a scan budget.
//!
//! A page scans files in path order, line by line, reporting each line that contains a term
//! once. It ends when `limit` lines are collected, when `--max-scan-bytes` have been read, or
//! when every file is done; an empty page with a cursor is a progress page. A file whose
//! opening 8 KiB hold a line with both a NUL and invalid UTF-8 is skipped as binary.
//!
//! This file holds the call, its cursor position and the page's walk over the files; `file`
//! scans one file, `sniff` is the binary rule (shared with `ahead`, which judges files on the pool), and `tests` holds
//! the line-by-line reference scan the block scan is checked against.

mod ahead;
mod file;
mod sniff;
#[cfg(test)]
mod tests;
use super::buffer::ReadBuffer;
use super::cursor::{scope_of, state_of};
use super::{
    Candidate, Fitter, Limit, MAX_PAGE_ITEMS, Page, Ptc, PtcError, Terms, limit_of,
    page_properties, paged_output, term_properties, terms_of,
};
use crate::digest::HashBudget;
use crate::root::{FileEntry, ReadFile, RelPath, RootError};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str};
use ahead::Ahead;
pub(super) use ahead::Verdicts;
use file::FileScan;
use serde_json::{Map, Value, json};
pub(super) use sniff::is_binary;
use std::sync::Arc;

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

impl Ptc {
    /// Opens a file a page is about to scan. `None` when it vanished and cursors are not bound
    /// to content: it is skipped, and the next cursor's state check notices. Any other failure
    /// is a change under the page.
    pub(super) fn open_scanned(&self, entry: &FileEntry) -> Result<Option<ReadFile>, PtcError> {
        match self.root.open_entry(entry) {
            Ok(file) => Ok(Some(file)),
            Err(RootError::Changed) => Err(RootError::Changed.into()),
            Err(_) if !self.deterministic => Ok(None),
            Err(_) => Err(RootError::Changed.into()),
        }
    }
}

impl Ptc {
    /// Lines containing any term in the served files at or under `path` (a directory prefix or
    /// one file), paged. The cursor binds every in-scope file's identity (deterministic mode:
    /// its size and digest).
    pub fn search_text(
        &self,
        terms: &Terms,
        path: &str,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, PtcError> {
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
                    .ok_or(PtcError::CursorInvalid)?;
                if p.line_start > p.offset {
                    return Err(PtcError::CursorPosition);
                }
                p
            }
        };
        let verdicts = self.verdicts.get_or(&files, &scope, || {
            Ok::<_, PtcError>(Arc::new(Verdicts::new(files.len())))
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

    fn search_state(&self, files: &[FileEntry]) -> Result<String, PtcError> {
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
    fn scan(&self, scan: &mut Scan<'_>, mut pos: Position) -> Result<Option<Position>, PtcError> {
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
            let Some(file) = self.open_scanned(entry)? else {
                pos = Position::file_start(pos.file + 1);
                continue;
            };
            let size = file.size();
            if pos.offset > size {
                return Err(PtcError::CursorPosition);
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
}

pub(super) fn tool() -> Tool<Ptc> {
    let mut properties = Map::new();
    term_properties(&mut properties);
    properties.insert("path".into(), json!({"type": "string"}));
    page_properties(&mut properties, None);
    super::tool(
        "search_text",
        "Search text",
        "Streaming literal line search. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Empty progress pages may carry next_cursor; follow it until null.",
        object_schema(properties, &[]),
        paged_output(json!({
            "path": {"type": "string"}, "line": {"type": "integer"}, "text": {"type": "string"}
        })),
        true,
        run,
    )
}

fn run(ptc: &Ptc, arguments: &Map<String, Value>) -> Result<ToolOutput, PtcError> {
    let terms = terms_of(arguments)?;
    let path = match arguments.get("path") {
        None => "",
        Some(Value::String(path)) => path,
        Some(_) => return Err(PtcError::PathNotString),
    };
    let page = ptc.search_text(
        &terms,
        path,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}
