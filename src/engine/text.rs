//! `read`: the text of a file, whole or as a numbered window, bounded by the result budget.
//!
//! One streaming pass hashes the bytes (the revision), checks they are UTF-8, counts lines and
//! keeps only what the answer shows, so memory stays bounded whatever the file size.

use std::io::BufRead;

use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::page::escaped_len;
use super::revision::{Revision, revisions_value};
use super::{Engine, EngineError, FsAnswer, FsError};
use crate::root::{ReadFile, RootError};

/// Bytes kept free in the result budget for the envelope and the revisions.
pub(super) const RESULT_HEADROOM: u64 = 2048;

/// `ReadFile` as a sequential reader.
struct Sequential<'a> {
    file: &'a ReadFile,
    offset: u64,
}

impl std::io::Read for Sequential<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf
            .len()
            .min((self.file.size() - self.offset.min(self.file.size())) as usize);
        let n = self
            .file
            .read_at(&mut buf[..want], self.offset)
            .map_err(std::io::Error::other)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// NFC of `text`, borrowing when it already is.
fn nfc(text: &str) -> std::borrow::Cow<'_, str> {
    if is_nfc(text) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.nfc().collect())
    }
}

impl Engine {
    /// Reads `path`: the whole text (NFC, one leading BOM dropped) when neither `offset` nor
    /// `limit` is given, else lines `offset ..` (at most `limit`) numbered, with a footer.
    pub fn read_text(
        &self,
        given: &str,
        offset: Option<u64>,
        limit: Option<u64>,
    ) -> Result<FsAnswer, EngineError> {
        let path = self.fs_path(given)?;
        let _guard = self.lock();
        let location = self.served_file(given, &path, FsError::ReadDirectory)?;
        let file = location.open_file().map_err(|e| match e {
            RootError::NotReadable => FsError::NotRegular(given.to_owned()).into(),
            other => EngineError::from(other),
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
        let mut reader = std::io::BufReader::with_capacity(
            64 * 1024,
            Sequential {
                file: &file,
                offset: 0,
            },
        );
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|_| EngineError::from(RootError::ReadFailed))?;
            if n == 0 {
                break;
            }
            let text =
                std::str::from_utf8(&line).map_err(|_| FsError::NotText(given.to_owned()))?;
            scan.hasher_update(&line);
            scan.take(text);
        }
        file.ensure_unchanged()?;
        let digest = scan.digest();
        self.memo().remember(file.identity(), digest.clone());
        let revision = Revision::of_digest(digest);
        let text = scan.answer(given, whole, first);
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
        super::digest::hex(&sha2::Digest::finalize(self.hasher.clone()))
    }

    /// Takes one raw line (with its line ending, if any).
    fn take(&mut self, raw: &str) {
        self.lines += 1;
        let number = self.lines;
        if let Some(text) = &mut self.whole_text {
            let cost = escaped_len(raw);
            if self.whole_bytes + cost <= self.budget {
                self.whole_bytes += cost;
                text.push_str(raw);
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
            let content = raw.strip_suffix('\n').unwrap_or(raw);
            let content = content.strip_suffix('\r').unwrap_or(content);
            let content = if number == 1 {
                content.strip_prefix('\u{feff}').unwrap_or(content)
            } else {
                content
            };
            let shown = format!("{number}\t{}", nfc(content));
            let cost = escaped_len(&shown) + 1;
            if self.window_bytes + cost + 120 <= self.budget {
                self.window_bytes += cost;
                self.window.push(shown);
            } else {
                self.cut = true;
            }
        }
    }

    fn answer(self, given: &str, whole: bool, first: u64) -> String {
        if whole && let Some(text) = self.whole_text {
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            return nfc(text).into_owned();
        }
        let total = self.lines;
        if !whole && first > total {
            return format!("'{given}' has {total} lines; offset {first} is past the end");
        }
        let start = if whole { 1 } else { first };
        let shown = self.window.len() as u64;
        if shown == 0 {
            return format!(
                "[line {start} of {total} total is longer than one answer holds; read the file with the ptc tools or narrow it down with grep]"
            );
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
