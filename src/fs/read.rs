//! `read`: the text of a file, whole or as a numbered window, bounded by the result budget.
//!
//! One streaming pass hashes the bytes (the revision), checks they are UTF-8, counts lines and
//! keeps only what the answer shows, so memory stays bounded whatever the file size.

use serde_json::{Map, Value, json};

use super::answer::{FsAnswer, RESULT_HEADROOM};
use super::locate::FsPath;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, OverLimit, Published, answer, str_arg};
use crate::measure::escaped_len;
use crate::root::RootError;
use crate::tools::{Tool, ToolOutput, object_schema, positive_safe_integer};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Observer,
        "read",
        "Read a text file",
        "Reads a UTF-8 text file under the root. Without offset or limit it returns the whole text (exact characters, one leading byte-order mark dropped, line endings kept), which edit can match. With offset (1-based line) and/or limit it returns numbered lines ('N<TAB>text') and a footer '[lines A-B of N total]'; strip the numbers before quoting text to edit. A file too large for one answer comes back as its first window; the footer says which offset continues.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                ("offset", json!({"type": "integer", "minimum": 1})),
                ("limit", json!({"type": "integer", "minimum": 1})),
            ],
            &["path"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let at = FsPath::parse(str_arg(arguments, "path"))?;
    let offset = arguments.get("offset").and_then(positive_safe_integer);
    let limit = arguments.get("limit").and_then(positive_safe_integer);
    answer(fs, fs.read_text(&at, offset, limit), Some(&at.given), None)
}

impl Fs {
    /// Reads `path`: the whole text (exactly, but for one leading BOM dropped) when neither `offset` nor
    /// `limit` is given, else lines `offset ..` (at most `limit`) numbered, with a footer.
    pub(super) fn read_text(
        &self,
        at: &FsPath,
        offset: Option<u64>,
        limit: Option<u64>,
    ) -> Result<FsAnswer, FsError> {
        let given = at.given.as_str();
        let _guard = self.lock();
        let location = self.served_file(at, |path| FsError::ReadDirectory {
            path,
            list: self.published.fs("list"),
        })?;
        let file = self.root().open_located(&location).map_err(|e| match e {
            RootError::NotReadable => FsError::NotRegular(given.to_owned()),
            other => FsError::from(other),
        })?;
        let budget = self
            .root()
            .limits()
            .max_result_bytes
            .saturating_sub(RESULT_HEADROOM);
        let whole = offset.is_none() && limit.is_none();
        let first = offset.unwrap_or(1);
        let last = limit
            .map(|l| first.saturating_add(l - 1))
            .unwrap_or(u64::MAX);
        let mut scan = Scan::new(budget, whole, first, last);
        // Lines are cut into pieces of at most one answer's worth; a longer line is still
        // hashed and checked in full, but only its first piece is kept.
        let keep = budget as usize + 8;
        let mut line: Vec<u8> = Vec::new();
        let mut truncated = false;
        let mut utf8 = Utf8Stream::default();
        let mut block = vec![0u8; 64 * 1024];
        let mut offset = 0u64;
        let not_text = || FsError::NotText(given.to_owned());
        loop {
            let n = file.read_at(&mut block, offset)?;
            if n == 0 {
                break;
            }
            offset += n as u64;
            let bytes = &block[..n];
            scan.hasher_update(bytes);
            utf8.push(bytes).map_err(|_| not_text())?;
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(n)) {
                let piece = &bytes[start..end];
                let room = keep.saturating_sub(line.len());
                line.extend_from_slice(&piece[..piece.len().min(room)]);
                truncated |= piece.len() > room;
                if end < n {
                    scan.take(&line_text(&line), true, truncated);
                    line.clear();
                    truncated = false;
                }
                start = end + 1;
            }
        }
        utf8.finish().map_err(|_| not_text())?;
        if !line.is_empty() || truncated {
            scan.take(&line_text(&line), false, truncated);
        }
        file.ensure_unchanged()?;
        let digest = scan.digest();
        self.memo().remember(file.identity(), digest.clone());
        let revision = Revision::of_digest(digest);
        let max_result_bytes = self.root().limits().max_result_bytes;
        let text = scan.answer(given, whole, first, max_result_bytes, &self.published);
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }
}

/// State of the one pass over a file.
struct Scan {
    budget: u64,
    whole: bool,
    first: u64,
    last: u64,
    hasher: sha2::Sha256,
    lines: u64,
    /// The whole text so far, while it fits the budget, and its escaped size.
    whole_text: Option<String>,
    whole_bytes: u64,
    /// Numbered window lines that fit, and whether the window was cut by the budget.
    window: Vec<String>,
    window_bytes: u64,
    cut: bool,
}

impl Scan {
    fn new(budget: u64, whole: bool, first: u64, last: u64) -> Scan {
        Scan {
            budget,
            whole,
            first,
            last,
            hasher: <sha2::Sha256 as sha2::Digest>::new(),
            lines: 0,
            whole_text: whole.then(String::new),
            whole_bytes: 0,
            window: Vec::new(),
            window_bytes: 0,
            cut: false,
        }
    }

    fn hasher_update(&mut self, bytes: &[u8]) {
        sha2::Digest::update(&mut self.hasher, bytes);
    }

    fn digest(&self) -> String {
        crate::digest::hex(&sha2::Digest::finalize(self.hasher.clone()))
    }

    /// Takes one line: its content (without `\n`), whether a `\n` ended it, and whether its
    /// content was cut to one answer's worth.
    fn take(&mut self, content: &str, newline: bool, truncated: bool) {
        self.lines += 1;
        let number = self.lines;
        if let Some(text) = &mut self.whole_text {
            let cost = escaped_len(content) + u64::from(newline) * 2;
            if !truncated && self.whole_bytes + cost <= self.budget {
                self.whole_bytes += cost;
                text.push_str(content);
                if newline {
                    text.push('\n');
                }
            } else {
                self.whole_text = None;
            }
        }
        // A whole read that overflows falls back to the first window, so collect it too.
        let in_window = if self.whole {
            true
        } else {
            number >= self.first && number <= self.last
        };
        if in_window && !self.cut {
            let content = content.strip_suffix('\r').unwrap_or(content);
            let content = if number == 1 {
                content.strip_prefix('\u{feff}').unwrap_or(content)
            } else {
                content
            };
            let shown = format!("{number}\t{content}");
            let cost = escaped_len(&shown) + 1;
            if !truncated && self.window_bytes + cost + 120 <= self.budget {
                self.window_bytes += cost;
                self.window.push(shown);
            } else {
                self.cut = true;
            }
        }
    }

    /// The answer's text; a line too long for any window names `max_result_bytes` and the
    /// `published` tools that reach it another way.
    fn answer(
        self,
        given: &str,
        whole: bool,
        first: u64,
        max_result_bytes: u64,
        published: &Published,
    ) -> String {
        if whole && let Some(text) = self.whole_text {
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            return text.to_owned();
        }
        let total = self.lines;
        if !whole && first > total {
            return format!("'{given}' has {total} lines; offset {first} is past the end");
        }
        let start = if whole { 1 } else { first };
        let shown = self.window.len() as u64;
        if shown == 0 {
            // Only tools this root publishes: with the ptc set, read_text_file reads a long
            // line in pieces.
            let grep = format!("find what you need in it with {}", published.fs("grep"));
            let instead = if published.ptc() {
                format!("read it in pieces with read_text_file or {grep}")
            } else {
                grep
            };
            let over = OverLimit::result_size(
                format!("line {start} of {total} total does not fit"),
                max_result_bytes,
                instead,
            );
            return format!("[{over}]");
        }
        let end = start + shown - 1;
        let footer = if self.cut {
            format!(
                "[lines {start}-{end} of {total} total; the file is larger than one answer: continue with offset {}]",
                end + 1
            )
        } else {
            format!("[lines {start}-{end} of {total} total]")
        };
        format!("{}\n\n{footer}", self.window.join("\n"))
    }
}

/// A kept line as text: a piece cut inside a scalar loses the partial scalar.
fn line_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(e) => String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
    }
}

/// UTF-8 validation of a byte stream fed in blocks, carrying a scalar split between blocks.
#[derive(Default)]
struct Utf8Stream {
    carry: Vec<u8>,
}

impl Utf8Stream {
    fn push(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let mut joined;
        let data = if self.carry.is_empty() {
            bytes
        } else {
            joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(bytes);
            &joined[..]
        };
        match std::str::from_utf8(data) {
            Ok(_) => Ok(()),
            // An incomplete scalar at the end may complete in the next block.
            Err(e) if e.error_len().is_none() => {
                self.carry = data[e.valid_up_to()..].to_vec();
                Ok(())
            }
            Err(_) => Err(()),
        }
    }

    fn finish(self) -> Result<(), ()> {
        if self.carry.is_empty() {
            Ok(())
        } else {
            Err(())
        }
    }
}
