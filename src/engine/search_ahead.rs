//! Files judged on the worker pool ahead of `search_text`'s ordered scan.
//!
//! Most files of a search hold no occurrence of any term. Reading one through to find that out
//! is the bulk of a page, and it needs no order: the pool does it for the next few files, and
//! the ordered scan charges such a file its bytes without reading it again. A file that may
//! hold a term (or that could not be judged) is scanned in order as before, so pages, positions
//! and charges are exactly those of a scan that reads every file itself.

use rayon::prelude::*;

use super::search::{SCAN_BLOCK, is_binary};
use super::{Engine, Terms};
use crate::root::FileEntry;

/// Files judged by the first batch of a page; each later batch doubles, up to [`MAX_BATCH`],
/// so a page that fills after a few files judges few files it never reaches.
const FIRST_BATCH: usize = 4;
/// Most files judged at once.
const MAX_BATCH: usize = 256;
/// Bytes read at a time while judging.
const READ_BYTES: usize = 256 * 1024;

/// The verdicts for a run of files, from `from` on.
pub(super) struct Ahead {
    from: usize,
    /// For each file: `Some(bytes)` when scanning it whole would report nothing and charge
    /// `bytes`; `None` when it must be scanned in order.
    verdicts: Vec<Option<u64>>,
    /// Files the next batch judges; 0 once a batch found no clean file, when judging ahead
    /// only reads twice what the ordered scan reads anyway.
    batch: usize,
}

impl Ahead {
    pub(super) fn new() -> Ahead {
        Ahead {
            from: 0,
            verdicts: Vec::new(),
            batch: FIRST_BATCH,
        }
    }

    /// What scanning `files[index]` whole would charge when it is sure to report nothing;
    /// judges the next batch when `index` is past the last one. A batch stops before the files
    /// whose sizes add up past `room`, the bytes the page may still scan.
    pub(super) fn clean(
        &mut self,
        engine: &Engine,
        terms: &Terms,
        files: &[FileEntry],
        index: usize,
        room: u64,
    ) -> Option<u64> {
        if index < self.from || index >= self.from + self.verdicts.len() {
            if self.batch == 0 {
                return None;
            }
            let mut end = index + 1;
            let mut bytes = files[index].identity.size;
            while end < files.len() && end - index < self.batch {
                bytes = bytes.saturating_add(files[end].identity.size);
                if bytes > room {
                    break;
                }
                end += 1;
            }
            self.from = index;
            let keep = terms.longest().saturating_sub(1);
            let judge = || -> Vec<Option<u64>> {
                files[index..end]
                    .par_iter()
                    .map_init(
                        || vec![0u8; READ_BYTES + keep],
                        |buf, entry| judge(engine, terms, entry, buf, keep),
                    )
                    .collect()
            };
            self.verdicts = match crate::workers::pool() {
                Some(pool) => pool.install(judge),
                None => judge(),
            };
            // Grow while most files judged are clean; stop when none was.
            let clean = self.verdicts.iter().filter(|v| v.is_some()).count();
            self.batch = match clean {
                0 => 0,
                n if 2 * n >= self.verdicts.len() => (self.batch * 2).min(MAX_BATCH),
                _ => self.batch,
            };
        }
        self.verdicts[index - self.from]
    }
}

/// `Some(charge)` when `entry` is a binary file (charged its sniff) or a text file holding no
/// term anywhere (charged its sniff and its size), read unchanged; `None` otherwise.
fn judge(
    engine: &Engine,
    terms: &Terms,
    entry: &FileEntry,
    buf: &mut [u8],
    keep: usize,
) -> Option<u64> {
    let file = engine.root.open_entry(entry).ok()?;
    let size = file.size();
    if size == 0 {
        return Some(0);
    }
    let sniff = SCAN_BLOCK.min(size);
    file.read_exact_at(&mut buf[..sniff as usize], 0).ok()?;
    if is_binary(&buf[..sniff as usize], sniff == size) {
        return file.ensure_unchanged().ok().map(|()| sniff);
    }
    // Terms hold no line break, so no occurrence in the bytes means no matching line. Each
    // read is searched behind the last `keep` bytes of the one before it.
    let mut filled = sniff as usize;
    let mut offset = sniff;
    loop {
        if terms.find(&buf[..filled]).is_some() {
            return None;
        }
        if offset == size {
            break;
        }
        let carry = keep.min(filled);
        buf.copy_within(filled - carry..filled, 0);
        let want = (READ_BYTES as u64).min(size - offset) as usize;
        file.read_exact_at(&mut buf[carry..carry + want], offset)
            .ok()?;
        filled = carry + want;
        offset += want as u64;
    }
    // The ordered scan charges the sniff, then every byte of the file again as it reads it.
    file.ensure_unchanged().ok().map(|()| sniff + size)
}
