//! Files judged on the worker pool ahead of `search_text`'s ordered scan.
//!
//! Most files of a search hold no occurrence of any term. Reading one through to find that out
//! is the bulk of a page, and it needs no order: the pool does it for the next few files, and
//! the ordered scan charges such a file its bytes without reading it again. A file that may
//! hold a term (or that could not be judged) is scanned in order as before, so pages, positions
//! and charges are exactly those of a scan that reads every file itself.
//!
//! The verdicts belong to one walk and one set of terms ([`Verdicts`], kept by the ptc set for
//! as long as the walk is reused), so they outlive a page: when a page ends, the pool goes on
//! judging the files the next page will reach while the client reads the answer and asks
//! again. A verdict stays true while the walk does: any change under the root drops the walk
//! (see `root::remember`), and the next page, which walks again, starts from new verdicts.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rayon::prelude::*;

use super::super::Terms;
use super::super::buffer::ReadBuffer;
use super::{SCAN_BLOCK, is_binary};
use crate::root::{FileEntry, Root};

/// Files judged by the first batch of a page; each later batch doubles, up to [`MAX_BATCH`],
/// so a page that fills after a few files judges few files it never reaches.
const FIRST_BATCH: usize = 4;
/// Most files judged at once.
const MAX_BATCH: usize = 256;
/// Files the judging ahead of the next page hands the pool at once: small, so the page that
/// waits for a verdict waits for a few files, not for the whole run.
const AHEAD_CHUNK: usize = 16;
/// Bytes read at a time while judging.
const READ_BYTES: usize = 256 * 1024;
/// Longest a page waits for the pool's verdict on a file before judging it itself; the wait
/// is ended early by every verdict that lands, so this only bounds a lost wake-up.
const WAIT_SLICE: Duration = Duration::from_millis(5);

/// A verdict not reached yet.
const UNKNOWN: u64 = 0;
/// The file must be scanned in order.
const SCAN: u64 = 1;
/// A clean file is stored as `CLEAN + charge`.
const CLEAN: u64 = 2;

/// What is known of each file of one walk for one search.
pub(in crate::ptc) struct Verdicts {
    /// Per file: [`UNKNOWN`], [`SCAN`], or [`CLEAN`] plus the bytes the ordered scan would
    /// charge for it.
    slots: Vec<AtomicU64>,
    /// The files `[from, to)` the pool is judging ahead of the next page, if any.
    running: Mutex<Option<(usize, usize)>>,
    /// Signalled whenever verdicts land or the judging ahead ends.
    landed: Condvar,
    /// Set once a batch found no clean file: judging then only reads twice what the ordered
    /// scan reads anyway, so it stops for this search.
    off: AtomicBool,
}

impl std::fmt::Debug for Verdicts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verdicts")
            .field("files", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl Verdicts {
    /// Nothing known yet of `files` files.
    pub(super) fn new(files: usize) -> Verdicts {
        Verdicts {
            slots: (0..files).map(|_| AtomicU64::new(UNKNOWN)).collect(),
            running: Mutex::new(None),
            landed: Condvar::new(),
            off: AtomicBool::new(false),
        }
    }

    /// `None` while unknown; else `Some(Some(charge))` for a clean file and `Some(None)` for
    /// one to scan in order.
    fn get(&self, index: usize) -> Option<Option<u64>> {
        match self.slots.get(index)?.load(Ordering::Acquire) {
            UNKNOWN => None,
            SCAN => Some(None),
            clean => Some(Some(clean - CLEAN)),
        }
    }

    fn set(&self, index: usize, verdict: Option<u64>) {
        let code = verdict.map_or(SCAN, |charge| charge.saturating_add(CLEAN));
        if let Some(slot) = self.slots.get(index) {
            slot.store(code, Ordering::Release);
        }
    }

    fn running(&self) -> MutexGuard<'_, Option<(usize, usize)>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The verdict on `index` once the judging ahead that covers it reaches it; `None` when
    /// no judging ahead covers it (or it ended without a verdict).
    fn wait_for(&self, index: usize) -> Option<Option<u64>> {
        // A pool thread must not wait for work queued behind itself.
        if rayon::current_thread_index().is_some() {
            return None;
        }
        let mut running = self.running();
        loop {
            if let Some(verdict) = self.get(index) {
                return Some(verdict);
            }
            match *running {
                Some((from, to)) if (from..to).contains(&index) => {}
                _ => return None,
            }
            // A call past its deadline or cancelled stops waiting; its own scan then fails.
            if crate::root::check_deadline().is_err() {
                return None;
            }
            running = self
                .landed
                .wait_timeout(running, WAIT_SLICE)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }

    /// Judges, on the pool and without waiting, the unjudged files from `from` whose sizes
    /// add up to `bytes`: what the next page will scan. Does nothing while such judging runs
    /// or once judging is off.
    pub(super) fn judge_ahead(
        self: &Arc<Self>,
        root: Arc<Root>,
        terms: Terms,
        files: Arc<Vec<FileEntry>>,
        from: usize,
        bytes: u64,
    ) {
        if self.off.load(Ordering::Relaxed) {
            return;
        }
        let Some(pool) = crate::workers::pool() else {
            return;
        };
        let mut to = from;
        let mut total = 0u64;
        while to < files.len() && total < bytes {
            total = total.saturating_add(files[to].identity.size);
            to += 1;
        }
        if (from..to).all(|i| self.get(i).is_some()) {
            return;
        }
        {
            let mut running = self.running();
            if running.is_some() {
                return;
            }
            *running = Some((from, to));
        }
        tracing::trace!(from, to, "judging ahead");
        let verdicts = self.clone();
        pool.spawn(move || {
            // Ends the run however the judging ends, so no page waits for it.
            let _ended = RunEnded(&verdicts);
            let keep = terms.longest().saturating_sub(1);
            let mut start = from;
            // A panic here would abort the process from a pool job; a run cut short only
            // leaves files unjudged, which their page judges itself.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                while start < to && !verdicts.off.load(Ordering::Relaxed) {
                    let end = (start + AHEAD_CHUNK).min(to);
                    verdicts.judge_run(&root, &terms, &files, start, end, keep);
                    start = end;
                }
            }));
        });
    }

    /// Judges the unjudged files of `files[from..to]` on the current pool and records the
    /// verdicts; returns how many were judged and how many of those were clean.
    fn judge_run(
        &self,
        root: &Root,
        terms: &Terms,
        files: &[FileEntry],
        from: usize,
        to: usize,
        keep: usize,
    ) -> (usize, usize) {
        let pending: Vec<usize> = (from..to).filter(|&i| self.get(i).is_none()).collect();
        // Each file is judged under this thread's call, on whichever pool thread takes it.
        let call = crate::root::current_call();
        let judged: Vec<(usize, Option<u64>)> = pending
            .par_iter()
            .map(|&i| {
                let mut buf = ReadBuffer::take(READ_BYTES + keep);
                let verdict = call
                    .clone()
                    .run(|| judge(root, terms, &files[i], &mut buf, keep));
                (i, verdict)
            })
            .collect();
        let clean = judged.iter().filter(|(_, v)| v.is_some()).count();
        for &(i, verdict) in &judged {
            self.set(i, verdict);
        }
        // Taking the lock orders these stores before a waiter's next look.
        drop(self.running());
        self.landed.notify_all();
        (judged.len(), clean)
    }
}

/// Marks the judging ahead as ended when dropped, and wakes the pages waiting on it.
struct RunEnded<'a>(&'a Verdicts);

impl Drop for RunEnded<'_> {
    fn drop(&mut self) {
        *self.0.running() = None;
        self.0.landed.notify_all();
    }
}

/// One page's use of the verdicts: how many files its next batch judges.
pub(super) struct Ahead {
    verdicts: Arc<Verdicts>,
    batch: usize,
}

impl Ahead {
    pub(super) fn new(verdicts: Arc<Verdicts>) -> Ahead {
        Ahead {
            verdicts,
            batch: FIRST_BATCH,
        }
    }

    /// What scanning `files[index]` whole would charge when it is sure to report nothing;
    /// judges the next batch when nothing is known of `index` yet. A batch stops before the
    /// files whose sizes add up past `room`, the bytes the page may still scan.
    pub(super) fn clean(
        &mut self,
        root: &Root,
        terms: &Terms,
        files: &[FileEntry],
        index: usize,
        room: u64,
    ) -> Option<u64> {
        let verdicts = &self.verdicts;
        if let Some(verdict) = verdicts.get(index) {
            return verdict;
        }
        if verdicts.off.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(verdict) = verdicts.wait_for(index) {
            return verdict;
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
        let keep = terms.longest().saturating_sub(1);
        let run = || verdicts.judge_run(root, terms, files, index, end, keep);
        let (judged, clean) = crate::workers::install(run);
        // Grow while most files judged are clean; stop when none was.
        self.batch = match clean {
            0 if judged > 0 => {
                verdicts.off.store(true, Ordering::Relaxed);
                0
            }
            n if 2 * n >= judged => (self.batch * 2).min(MAX_BATCH),
            _ => self.batch,
        };
        verdicts.get(index).flatten()
    }
}

/// `Some(charge)` when `entry` is a binary file (charged its sniff) or a text file holding no
/// term anywhere (charged its sniff and its size), read unchanged; `None` otherwise.
fn judge(
    root: &Root,
    terms: &Terms,
    entry: &FileEntry,
    buf: &mut [u8],
    keep: usize,
) -> Option<u64> {
    let file = root.open_entry(entry).ok()?;
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
