//! `read_text_file`: exact UTF-8 chunks of one file, paged by byte offset, from its start or
//! from a 1-based line.

use serde_json::{Map, Value, json};

use super::cursor::{integer_position, scope_of, state_of};
use super::utf8::valid_prefix;
use super::{Candidate, Limit, Page, Ptc, PtcError, limit_of, page_properties, paged_output};
use crate::config::Limits;
use crate::config::limits::READ_CHUNK_BYTES;
use crate::digest::HashBudget;
use crate::root::{ReadFile, RelPath};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str, positive_safe_integer};

pub(super) fn tool(limits: &Limits) -> Tool<Ptc> {
    let mut properties = Map::new();
    properties.insert("path".into(), json!({"type": "string", "minLength": 1}));
    properties.insert(
        "start_line".into(),
        json!({"type": "integer", "minimum": 1}),
    );
    page_properties(&mut properties, Some(limits.max_read_chunks()));
    super::tool(
        "read_text_file",
        "Read text file",
        "Bounded exact UTF-8 chunks of live bytes. Concatenate item text and follow next_cursor. Pass start_line to begin at a 1-based line instead of the start of the file; only the bytes actually returned must decode as UTF-8.",
        object_schema(properties, &["path"]),
        paged_output(json!({
            "byte_offset": {"type": "integer"}, "text": {"type": "string"}
        })),
        true,
        run,
    )
}

fn run(ptc: &Ptc, arguments: &Map<String, Value>) -> Result<ToolOutput, PtcError> {
    let path = super::string_path(arguments)?;
    let start_line = arguments.get("start_line").map(positive_safe_integer);
    let page = ptc.read_text_file(
        path,
        start_line,
        optional_str(arguments, "cursor"),
        limit_of(arguments),
    )?;
    Ok(ToolOutput::structured(page.into_value()))
}

/// Bytes read per step while counting lines to find `start_line`.
const LINE_SCAN_BLOCK: u64 = 8192;

impl Ptc {
    /// Reads `path` in chunks of at most 2048 bytes that never split a scalar. Without a
    /// cursor the page starts at byte 0, or at the first byte of `start_line`. The cursor binds
    /// the file's identity (deterministic mode: its size and digest). `start_line` is `None`
    /// when absent and `Some(None)` when given but not a safe positive integer.
    pub fn read_text_file(
        &self,
        path: &str,
        start_line: Option<Option<u64>>,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Page, PtcError> {
        let path = RelPath::parse(path)?;
        if path.is_root() {
            return Err(PtcError::PathNotFile);
        }
        let start_line = start_line
            .map(|line| line.ok_or(PtcError::StartLineInvalid))
            .transpose()?;
        let file = self.root.open_for_read(&path)?;
        let state = if self.deterministic {
            let mut budget = HashBudget(self.root.limits().max_cursor_hash_bytes);
            let digest = self
                .digests
                .lock()
                .expect("digest cache lock")
                .digest(&file, &mut budget)?;
            state_of([format!("{}:{}", file.size(), digest)])
        } else {
            state_of([file.identity().to_string()])
        };
        let scope_args = match start_line {
            Some(line) => json!({ "path": path.as_str(), "start_line": line }),
            None => json!({ "path": path.as_str() }),
        };
        let scope = scope_of("read_text_file", &scope_args);
        let position = self.decode(cursor, &scope, &state)?;
        let limit = limit.bounded(self.root.limits().max_read_chunks())?;
        let start = match &position {
            Some(p) => {
                let offset = integer_position(p).ok_or(PtcError::CursorInvalid)?;
                if offset > file.size() {
                    return Err(PtcError::CursorPosition);
                }
                offset
            }
            None => match start_line {
                Some(line) => self.byte_of_line(&file, line)?,
                None => 0,
            },
        };
        let (candidates, end) = self.read_chunks(&file, start, limit)?;
        file.ensure_unchanged()?;
        let end_position: Option<Value> = (end < file.size()).then(|| json!(end));
        self.fitter.fit(
            candidates,
            &json!(start),
            end_position.as_ref(),
            self.cursor_for(&scope, &state),
        )
    }

    fn read_chunks(
        &self,
        file: &ReadFile,
        start: u64,
        limit: u64,
    ) -> Result<(Vec<Candidate>, u64), PtcError> {
        let size = file.size();
        let budget = self.root.limits().max_read_bytes;
        let mut position = start;
        let mut chunks = Vec::new();
        let mut buf = vec![0u8; READ_CHUNK_BYTES as usize];
        // Once the chunks read already overflow the page, reading on would only be measured
        // and dropped.
        let mut text_bytes = 0u64;
        while position < size && position - start < budget && (chunks.len() as u64) < limit {
            let want = READ_CHUNK_BYTES
                .min(size - position)
                .min(budget - (position - start)) as usize;
            file.read_exact_at(&mut buf[..want], position)?;
            let last = position + want as u64 == size;
            let kept = match valid_prefix(&buf[..want]) {
                Some(n) if !last || n == want => n,
                // A page that already holds text ends before the undecodable chunk; the next
                // page reports it.
                None if !chunks.is_empty() && !last => break,
                _ => return Err(PtcError::NotUtf8),
            };
            let text = std::str::from_utf8(&buf[..kept]).expect("checked prefix");
            chunks.push(Candidate {
                item: json!({ "byte_offset": position, "text": text }),
                hash_bytes: buf[..kept].to_vec(),
                resume: json!(position + kept as u64),
            });
            position += kept as u64;
            text_bytes += kept as u64;
            if self.fitter.overflows(text_bytes) {
                break;
            }
        }
        Ok((chunks, position))
    }

    /// Offset just after the `(line-1)`-th newline, counting from byte 0 within the scan
    /// budget; the file size when the file has fewer lines.
    fn byte_of_line(&self, file: &ReadFile, line: u64) -> Result<u64, PtcError> {
        let wanted = line - 1;
        if wanted == 0 {
            return Ok(0);
        }
        let size = file.size();
        let budget = self.root.limits().max_scan_bytes;
        let mut seen = 0u64;
        let mut position = 0u64;
        let mut buf = vec![0u8; LINE_SCAN_BLOCK as usize];
        loop {
            if position >= size {
                return Ok(size);
            }
            if position >= budget {
                return Err(PtcError::StartLineTooFar);
            }
            let want = LINE_SCAN_BLOCK.min(size - position).min(budget - position) as usize;
            file.read_exact_at(&mut buf[..want], position)?;
            for index in memchr::memchr_iter(b'\n', &buf[..want]) {
                seen += 1;
                if seen == wanted {
                    return Ok(position + index as u64 + 1);
                }
            }
            position += want as u64;
        }
    }
}
