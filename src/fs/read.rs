//! `read`: the text of a file, whole or as a numbered window, bounded by the result budget; or
//! an image, for models that see.
//!
//! One streaming pass hashes the bytes (the revision), checks they are UTF-8, counts lines and
//! keeps only what the answer shows, so memory stays bounded whatever the file size. A negative
//! offset counts from the end (`tail`): a small file is counted first, so its lines keep their
//! numbers; a larger one is read backwards from its end in blocks and its lines are numbered
//! from the end. An image (`image`) is read whole, up to `--max-image-bytes`.

mod image;
mod several;
mod tail;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use self::image::Format;
use super::answer::{FsAnswer, RESULT_HEADROOM};
use super::edit::BOM;
use super::locate::FsPath;
use super::revision::{Revision, revisions_value};
use super::{Fs, FsError, Kind, OverLimit, Published, answer, str_arg};
use crate::config::limits::MAX_SAFE_INTEGER;
use crate::digest::sha256_hex;
use crate::measure::escaped_len;
use crate::root::{ReadFile, RootError};
use crate::tools::{Image, Tool, ToolOutput, object_schema, positive_safe_integer};

/// Bytes read and hashed at a time.
const BLOCK: usize = 64 * 1024;

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Observer,
        "read",
        "Read a file",
        "Reads a UTF-8 text file under the root. Without offset or limit: the text (exact characters, one leading byte-order mark dropped, line endings kept), which edit can match. With offset (1-based line; negative counts from the end, -50 = the last 50 lines) and/or limit: numbered lines 'N<TAB>text'; strip the numbers before quoting text to edit. A part too large for one answer ends with a footer saying how to continue; column (with offset) reads a long line from a byte. Images come back as images. paths reads several files, each under '==> path <=='.",
        object_schema(
            vec![
                ("path", json!({"type": "string"})),
                (
                    "paths",
                    json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": several::MAX_PATHS}),
                ),
                ("offset", json!({"type": "integer"})),
                ("limit", json!({"type": "integer", "minimum": 1})),
                ("column", json!({"type": "integer", "minimum": 1})),
            ],
            &[],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let offset = Offset::read(arguments.get("offset"))?;
    let mut limit = arguments.get("limit").and_then(positive_safe_integer);
    let column = arguments.get("column").and_then(positive_safe_integer);
    if column.is_some() {
        if !matches!(offset, Some(Offset::Line(_))) {
            return Err(FsError::ColumnWithoutOffset);
        }
        // A column reads on within one line.
        limit = Some(1);
    }
    let offset = offset.map(|offset| match (offset, column) {
        (Offset::Line(line), Some(column)) => Offset::Column(line, column),
        (offset, _) => offset,
    });
    let paths = arguments.get("paths").and_then(Value::as_array);
    match (arguments.get("path"), paths) {
        (Some(_), Some(_)) => return Err(FsError::PathAndPaths),
        (None, None) => return Err(FsError::NoPath),
        (None, Some(paths)) => {
            // The schema admits only a list of 1 to MAX_PATHS strings.
            let paths: Vec<&str> = paths.iter().filter_map(Value::as_str).collect();
            return answer(fs, fs.read_several(&paths, offset, limit), None, None);
        }
        (Some(_), None) => {}
    }
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    let (result, image) = match fs.read_file(&at, offset, limit, fs.read_budget()) {
        Ok((answer, image)) => (Ok(answer), image),
        Err(error) => (Err(error), None),
    };
    let mut output = answer(fs, result, Some(&at.given), None)?;
    output.image = image;
    Ok(output)
}

/// Where a window starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Offset {
    /// At this line (1-based).
    Line(u64),
    /// At this byte (1-based) of this line (1-based): part of one long line.
    Column(u64, u64),
    /// This many lines before the end (1: the last line).
    FromEnd(u64),
}

impl Offset {
    /// The `offset` argument, which the schema has checked is an integer: `0` (and JSON's
    /// `-0`) names no line, and one beyond 2^53 − 1 either way is not a count of lines.
    fn read(value: Option<&Value>) -> Result<Option<Offset>, FsError> {
        let Some(value) = value else {
            return Ok(None);
        };
        let n = match (value.as_i64(), value.as_f64()) {
            (Some(n), _) => n as f64,
            (None, Some(f)) => f,
            (None, None) => return Err(FsError::OffsetRange),
        };
        if n == 0.0 {
            return Err(FsError::OffsetZero);
        }
        if n.abs() > MAX_SAFE_INTEGER as f64 {
            return Err(FsError::OffsetRange);
        }
        Ok(Some(if n > 0.0 {
            Offset::Line(n as u64)
        } else {
            Offset::FromEnd(-n as u64)
        }))
    }
}

impl Fs {
    /// Reads `path`: an image when its bytes are one; else the whole text (exactly, but for
    /// one leading BOM dropped) when neither `offset` nor `limit` is given, else a numbered
    /// window of at most `limit` lines with a footer.
    fn read_file(
        &self,
        at: &FsPath,
        offset: Option<Offset>,
        limit: Option<u64>,
        budget: u64,
    ) -> Result<(FsAnswer, Option<Image>), FsError> {
        let given = at.given.as_str();
        let location = self.served_file(at, |path| FsError::ReadDirectory {
            path,
            list: self.published.fs("list"),
        })?;
        let file = self.root().open_located(&location).map_err(|e| match e {
            RootError::NotReadable => FsError::NotRegular(given.to_owned()),
            other => FsError::from(other),
        })?;
        // The first block, enough to tell an image from text (see `image::format_of`).
        let mut head = vec![0u8; BLOCK.min(usize::try_from(file.size()).unwrap_or(BLOCK))];
        let n = file.read_at(&mut head, 0)?;
        if let Some(format) = image::format_of(&head[..n], file.size()) {
            let (answer, image) = self.read_image(given, &file, format)?;
            return Ok((answer, Some(image)));
        }
        let window = |first: u64| Window::of(first, limit);
        let answer = match offset {
            None if limit.is_none() => self.read_lines(given, &file, None, None, budget)?,
            None => self.read_lines(given, &file, Some(window(1)), None, budget)?,
            Some(Offset::Line(first)) => {
                self.read_lines(given, &file, Some(window(first)), None, budget)?
            }
            Some(Offset::Column(first, column)) => {
                let window = Window {
                    // Past what an index holds is past any line's end.
                    column: Some(usize::try_from(column - 1).unwrap_or(usize::MAX)),
                    ..window(first)
                };
                self.read_lines(given, &file, Some(window), None, budget)?
            }
            Some(Offset::FromEnd(back)) => self.read_from_end(given, &file, back, limit, budget)?,
        };
        Ok((answer, None))
    }

    /// The image `file` (`format`), whole, with a line saying what it is, or the refusal of
    /// one larger than `--max-image-bytes` or damaged.
    fn read_image(
        &self,
        given: &str,
        file: &ReadFile,
        format: Format,
    ) -> Result<(FsAnswer, Image), FsError> {
        let size = file.size();
        let max = self.root().limits().max_image_bytes;
        if size > max {
            return Err(FsError::OverLimit(OverLimit::image_size(
                given,
                format.name(),
                size,
                max,
            )));
        }
        // Within the limit, and `size` is what fstat saw: no more is read.
        let bytes = file.read_all()?;
        let (width, height) = format
            .check(&bytes)
            .map_err(|fault| FsError::DamagedImage {
                path: given.to_owned(),
                format: format.name(),
                fault,
            })?;
        let digest = sha256_hex(&bytes);
        self.memo().remember(file.identity(), digest.clone());
        let revision = Revision::of_digest(digest);
        let mime_type = format.mime_type();
        let text = format!("'{given}': {mime_type}, {width}x{height} pixels, {size} bytes");
        let image = Image {
            data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            mime_type,
        };
        Ok((
            FsAnswer {
                text,
                revisions: Some(revisions_value(&[("path", revision)])),
            },
            image,
        ))
    }

    /// The whole text of `file` (no `window`) or the lines of `window`, from one pass over it
    /// all, within `budget` escaped bytes. `back` is the negative offset the window answers,
    /// if it answers one.
    fn read_lines(
        &self,
        given: &str,
        file: &ReadFile,
        window: Option<Window>,
        back: Option<u64>,
        budget: u64,
    ) -> Result<FsAnswer, FsError> {
        let whole = window.is_none();
        let Window {
            first,
            last,
            column,
        } = window.unwrap_or(Window {
            first: 1,
            last: u64::MAX,
            column: None,
        });
        let mut scan = Scan::new(budget, whole, first, last, 0);
        scan.column = column;
        feed(given, file, 0, &mut scan, false)?;
        file.ensure_unchanged()?;
        let digest = scan.digest();
        self.memo().remember(file.identity(), digest.clone());
        let revision = Revision::of_digest(digest);
        let max_result_bytes = self.root().limits().max_result_bytes;
        let text = match back {
            Some(back) if scan.lines == 0 => {
                format!("'{given}' has 0 lines; there is no line -{back}")
            }
            _ => scan.answer(given, whole, first, max_result_bytes, &self.published),
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }

    /// What the lines of an answer may take: the result limit less the envelope's headroom.
    fn read_budget(&self) -> u64 {
        self.root()
            .limits()
            .max_result_bytes
            .saturating_sub(RESULT_HEADROOM)
    }
}

/// Lines `first ..= last` (1-based), line `first` from byte `column` (0-based) when given.
#[derive(Debug, Clone, Copy)]
struct Window {
    first: u64,
    last: u64,
    column: Option<usize>,
}

impl Window {
    /// The window of at most `limit` lines (all of them without one) from line `first`.
    fn of(first: u64, limit: Option<u64>) -> Window {
        Window {
            first,
            last: limit
                .map(|l| first.saturating_add(l - 1))
                .unwrap_or(u64::MAX),
            column: None,
        }
    }
}

/// Feeds `file` to `scan` from byte `from`, hashing and checking UTF-8 as it goes: to its end,
/// or, when `early`, until the window is complete (the bytes after it are not looked at).
fn feed(
    given: &str,
    file: &ReadFile,
    from: u64,
    scan: &mut Scan,
    early: bool,
) -> Result<(), FsError> {
    // Lines are cut into pieces of at most one answer's worth; a longer line is still hashed
    // and checked in full, but only one piece is kept: from its start, or from the column
    // asked for on the window's first line.
    let keep = scan.budget as usize + 8;
    let mut line: Vec<u8> = Vec::new();
    let mut truncated = false;
    // Bytes of the current line seen so far, its last byte, and where its kept piece starts.
    let mut seen = 0usize;
    let mut last_byte = 0u8;
    let mut kept_from = scan.keep_from(scan.lines + 1);
    let mut utf8 = Utf8Stream::default();
    let mut block = vec![0u8; BLOCK];
    let mut offset = from;
    // A leading BOM is the file's, not its first line's: it is hashed but never shown or
    // counted, so columns and lengths are the line's as grep (which drops it too) counts them.
    let mut at_start = from == 0;
    let not_text = || FsError::NotText(given.to_owned());
    loop {
        if early && scan.complete() {
            return Ok(());
        }
        let n = file.read_at(&mut block, offset)?;
        if n == 0 {
            break;
        }
        offset += n as u64;
        let bytes = &block[..n];
        scan.hasher_update(bytes);
        utf8.push(bytes).map_err(|_| not_text())?;
        let mut start = if std::mem::take(&mut at_start) && bytes.starts_with(BOM.as_bytes()) {
            BOM.len()
        } else {
            0
        };
        for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(n)) {
            let piece = &bytes[start..end];
            // The part of this piece at or after `from` in its line.
            let skip = kept_from.saturating_sub(seen).min(piece.len());
            seen += piece.len();
            if let Some(&byte) = piece.last() {
                last_byte = byte;
            }
            let mut piece = &piece[skip..];
            // A piece that starts inside a character starts at the next one.
            if kept_from > 0 && line.is_empty() && !piece.is_empty() {
                let inside = piece
                    .iter()
                    .take(3)
                    .take_while(|&&b| b & 0xC0 == 0x80)
                    .count();
                piece = &piece[inside..];
                kept_from += inside;
            }
            let room = keep.saturating_sub(line.len());
            line.extend_from_slice(&piece[..piece.len().min(room)]);
            truncated |= piece.len() > room;
            if end < n {
                // A line's length leaves out the `\r` of a CRLF ending, as shown lines do.
                let len = seen - usize::from(last_byte == b'\r' && seen > 0);
                scan.take(&line_text(&line), true, truncated, kept_from, len);
                line.clear();
                truncated = false;
                seen = 0;
                last_byte = 0;
                kept_from = scan.keep_from(scan.lines + 1);
            }
            start = end + 1;
        }
    }
    utf8.finish().map_err(|_| not_text())?;
    if seen > 0 || truncated {
        scan.take(&line_text(&line), false, truncated, kept_from, seen);
    }
    Ok(())
}

/// State of the one pass over a file.
struct Scan {
    budget: u64,
    whole: bool,
    first: u64,
    last: u64,
    /// Where line `first` of a window starts to be shown (a 0-based byte; `column` less one).
    column: Option<usize>,
    hasher: sha2::Sha256,
    lines: u64,
    /// The whole text so far, as long as whole lines fit the budget, its escaped size, the
    /// lines it holds, and whether a line did not fit.
    whole_text: String,
    whole_bytes: u64,
    whole_lines: u64,
    whole_cut: bool,
    /// Length and lines of the whole text at the last line after which a footer still fits.
    whole_safe: (usize, u64),
    /// Numbered window lines that fit, and whether the window was cut by the budget.
    window: Vec<String>,
    window_bytes: u64,
    cut: bool,
    /// The part of one line shown when the line is longer than an answer, or from a column.
    piece: Option<Piece>,
    /// The byte length of line `first` of a window, once seen.
    first_len: Option<usize>,
    /// What is added to a line's count to number it: 0, or a negative shift that numbers
    /// lines from the end.
    shift: i64,
}

/// Part of one line: bytes `from..to` of its `len` (0-based, `to` exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    number: u64,
    from: usize,
    to: usize,
    len: usize,
}

/// What a footer needs beside the lines: room kept for it in every budget.
const FOOTER_ROOM: u64 = 200;

impl Scan {
    fn new(budget: u64, whole: bool, first: u64, last: u64, shift: i64) -> Scan {
        Scan {
            budget,
            whole,
            first,
            last,
            column: None,
            shift,
            hasher: <sha2::Sha256 as sha2::Digest>::new(),
            lines: 0,
            whole_text: String::new(),
            whole_bytes: 0,
            whole_lines: 0,
            whole_cut: false,
            whole_safe: (0, 0),
            window: Vec::new(),
            window_bytes: 0,
            cut: false,
            piece: None,
            first_len: None,
        }
    }

    /// Whether a window read has all it will show (its last line, or cut by the budget).
    fn complete(&self) -> bool {
        !self.whole && (self.cut || self.lines >= self.last)
    }

    /// The byte of line `number` its kept piece starts at.
    fn keep_from(&self, number: u64) -> usize {
        match self.column {
            Some(column) if !self.whole && number == self.first => column,
            _ => 0,
        }
    }

    fn hasher_update(&mut self, bytes: &[u8]) {
        sha2::Digest::update(&mut self.hasher, bytes);
    }

    fn digest(&self) -> String {
        crate::digest::hex(&sha2::Digest::finalize(self.hasher.clone()))
    }

    /// Takes one line: the content kept (without `\n`, from byte `from` of the line), whether
    /// a `\n` ended it, whether the content was cut to one answer's worth, and the line's
    /// whole length in bytes.
    fn take(&mut self, content: &str, newline: bool, truncated: bool, from: usize, len: usize) {
        self.lines += 1;
        let number = self.lines;
        if self.whole {
            self.take_whole(content, newline, truncated, len);
            return;
        }
        if number == self.first {
            self.first_len = Some(len);
        }
        if number < self.first || number > self.last || self.cut {
            return;
        }
        // A line's `\r` before its `\n` is not shown (nor counted in `len`).
        let content = if truncated {
            content
        } else {
            content.strip_suffix('\r').unwrap_or(content)
        };
        let label = number as i64 + self.shift;
        let shown = format!("{label}\t{content}");
        // The joining newline travels escaped, as two bytes.
        let cost = escaped_len(&shown) + 2;
        if !truncated && self.window_bytes + cost + FOOTER_ROOM <= self.budget {
            self.window_bytes += cost;
            self.window.push(shown);
            if from > 0 {
                let to = from + content.len();
                self.piece = Some(Piece {
                    number,
                    from,
                    to,
                    len,
                });
            }
            return;
        }
        self.cut = true;
        // A first line too long for any answer (or the rest of it from a column) is shown in
        // part, with where the part lies; counted from the end, it is named instead.
        if self.window.is_empty() && self.shift == 0 {
            let room = self
                .budget
                .saturating_sub(FOOTER_ROOM + escaped_len(&format!("{label}\t")));
            let part = fitting(content, room);
            self.window.push(format!("{label}\t{part}"));
            let to = from + part.len();
            self.piece = Some(Piece {
                number,
                from,
                to,
                len,
            });
        }
    }

    /// Takes one line of a whole read: appended while whole lines fit; a first line too long
    /// for the answer is kept in part.
    fn take_whole(&mut self, content: &str, newline: bool, truncated: bool, len: usize) {
        if self.whole_cut {
            return;
        }
        let cost = escaped_len(content) + u64::from(newline) * 2;
        if !truncated && self.whole_bytes + cost <= self.budget {
            self.whole_bytes += cost;
            self.whole_lines += 1;
            self.whole_text.push_str(content);
            if newline {
                self.whole_text.push('\n');
            }
            // The last place the text may be cut and still leave room for a footer.
            if self.whole_bytes + FOOTER_ROOM <= self.budget {
                self.whole_safe = (self.whole_text.len(), self.whole_lines);
            }
            return;
        }
        self.whole_cut = true;
        // A footer follows, so the text ends where it leaves room for one.
        let (safe_len, safe_lines) = self.whole_safe;
        if safe_lines > 0 {
            self.whole_text.truncate(safe_len);
            self.whole_lines = safe_lines;
            return;
        }
        // Not even the first line leaves room for one: a part of the first line.
        // Its CRLF's `\r` is neither shown nor counted, as in every other part.
        let (first_line, len) = if self.whole_lines == 0 {
            let content = if newline && !truncated {
                content.strip_suffix('\r').unwrap_or(content)
            } else {
                content
            };
            (content.to_owned(), len)
        } else {
            let line = self.whole_text.split('\n').next().unwrap_or_default();
            let line = line.strip_suffix('\r').unwrap_or(line).to_owned();
            let len = line.len();
            (line, len)
        };
        let part = fitting(&first_line, self.budget.saturating_sub(FOOTER_ROOM));
        self.whole_text = part.to_owned();
        self.whole_lines = 0;
        self.piece = Some(Piece {
            number: 1,
            from: 0,
            to: part.len(),
            len,
        });
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
        let total = self.lines;
        if whole {
            let text = self.whole_text;
            if !self.whole_cut {
                return text;
            }
            if let Some(piece) = self.piece {
                return format!("{text}\n\n{}", piece.footer(total));
            }
            let shown = self.whole_lines;
            return format!(
                "{text}\n[lines 1-{shown} of {total} total; the file is larger than one answer: continue with offset {}]",
                shown + 1
            );
        }
        if first > total {
            return format!("'{given}' has {total} lines; offset {first} is past the end");
        }
        if let (Some(column), Some(len)) = (self.column, self.first_len)
            && column >= len.max(1)
        {
            return format!(
                "'{given}' line {first} has {len} bytes; column {} is past its end",
                column + 1
            );
        }
        let shown = self.window.len() as u64;
        if shown == 0 {
            let what = format!("line {first} of {total} total does not fit");
            return too_long(what, max_result_bytes, published);
        }
        let footer = match self.piece {
            Some(piece) => piece.footer(total),
            None => {
                let end = first + shown - 1;
                if self.cut {
                    format!(
                        "[lines {first}-{end} of {total} total; the file is larger than one answer: continue with offset {}]",
                        end + 1
                    )
                } else {
                    format!("[lines {first}-{end} of {total} total]")
                }
            }
        };
        format!("{}\n\n{footer}", self.window.join("\n"))
    }
}

impl Piece {
    /// Where the part lies in its line, and how to read on: `[line N of T total, bytes A-B of
    /// L; continue with offset N and column B+1]` (1-based, inclusive).
    fn footer(self, total: u64) -> String {
        let Piece {
            number,
            from,
            to,
            len,
        } = self;
        let place = format!(
            "line {number} of {total} total, bytes {}-{to} of {len}",
            from + 1
        );
        if to < len {
            format!(
                "[{place}; continue with offset {number} and column {}]",
                to + 1
            )
        } else if number < total {
            format!("[{place}; the next line is offset {}]", number + 1)
        } else {
            format!("[{place}]")
        }
    }
}

/// The longest start of `text` whose escaped length is at most `room`, cut at a character.
fn fitting(text: &str, room: u64) -> &str {
    let mut used = 0u64;
    for (at, c) in text.char_indices() {
        let mut buf = [0u8; 4];
        used += escaped_len(c.encode_utf8(&mut buf));
        if used > room {
            return &text[..at];
        }
    }
    text
}

/// The notice of a window whose first line (`what`) does not fit one answer, naming the
/// result limit and the `published` tools that reach it another way.
fn too_long(what: String, max_result_bytes: u64, published: &Published) -> String {
    // Only tools this root publishes: with the ptc set, read_text_file reads a long line in
    // pieces.
    let grep = format!("find what you need in it with {}", published.fs("grep"));
    let instead = if published.ptc() {
        format!("read it in pieces with read_text_file or {grep}")
    } else {
        grep
    };
    let over = OverLimit::result_size(what, max_result_bytes, instead);
    format!("[{over}]")
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
