//! The map's parse pipeline: the files the cache misses, read in tree order on the calling
//! thread and parsed on the map's own pool, at most [`IN_FLIGHT_BYTES`] ahead, with the
//! call's deadline and cancellation watched while the parses run.
//!
//! Kept apart from the call (walk, rank, render) because its concern is concurrency: who reads,
//! who parses, and how no parse outlives the call.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};

use sha2::{Digest, Sha256};

use super::Language;
use super::cache::{ContentKey, Parsed, TagCache};
use super::symbols::Symbols;
use super::tags::{Extracted, extract_bounded, language_of};
use super::{IN_FLIGHT_BYTES, MAX_SOURCE_BYTES, WATCH_EVERY};
use crate::fs::FsError;
use crate::root::{FileEntry, Root, RootError, check_deadline};

/// The symbols of the files a map read (by index among the candidates), and how it came by
/// them.
pub(super) struct Mapped {
    /// The candidates read, by index, with their symbols.
    pub(super) files: Vec<(usize, Arc<Symbols>)>,
    /// Candidates skipped (no language, too large, not text, unreadable).
    pub(super) skipped: usize,
    /// Files whose symbols came from the cache by path and identity.
    pub(super) cached: usize,
    /// Candidates not parsed because parsing them costs too much (nested too deeply, or
    /// holding too much memory), in tree order; also counted in `skipped`.
    pub(super) unparsed: Vec<usize>,
    /// Candidates in a language this build leaves out, by language (in declaration order);
    /// also counted in `skipped`.
    pub(super) not_built_in: Vec<(Language, usize)>,
}

/// The symbols of every candidate the map can read, by index in tree order, and how many
/// candidates were skipped.
pub(super) fn parse_all(
    root: &Root,
    cache: &mut TagCache,
    candidates: &[FileEntry],
) -> Result<Mapped, FsError> {
    let mut results: Vec<Option<Parsed>> = vec![None; candidates.len()];
    let mut misses = Vec::new();
    let mut cached = 0;
    let mut unparsed = Vec::new();
    let mut not_built_in: Vec<(Language, usize)> = Vec::new();
    for (i, entry) in candidates.iter().enumerate() {
        let Some(language) = language_of(&entry.path) else {
            continue;
        };
        if !language.built_in() {
            match not_built_in.iter_mut().find(|(l, _)| *l == language) {
                Some((_, n)) => *n += 1,
                None => not_built_in.push((language, 1)),
            }
            continue;
        }
        if entry.identity.size > MAX_SOURCE_BYTES {
            continue;
        }
        match cache.get(entry) {
            Some(parsed) => {
                cached += usize::from(parsed.is_some());
                if parsed.is_none() && cache.costly.contains(&entry.path) {
                    unparsed.push(i);
                }
                results[i] = Some(parsed);
            }
            None => misses.push((i, language)),
        }
    }
    if !misses.is_empty() {
        let mut parsing = Parsing {
            root,
            cache,
            candidates,
            results: &mut results,
            waiting: HashMap::new(),
            copies: Vec::new(),
            unparsed: &mut unparsed,
        };
        // The map's own pool: a parse may take seconds, and other calls' walks must not
        // wait behind it.
        match crate::workers::map_pool() {
            Some(pool) => {
                let cancelled = AtomicBool::new(false);
                pool.in_place_scope(|scope| {
                    let outcome = parsing.run(&misses, Some((scope, &cancelled)));
                    // Parses not started yet are skipped; the scope waits for the rest.
                    cancelled.store(outcome.is_err(), Ordering::Relaxed);
                    outcome
                })?;
            }
            None => parsing.run(&misses, None)?,
        }
    }
    let files: Vec<(usize, Arc<Symbols>)> = results
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.flatten().map(|symbols| (i, symbols)))
        .collect();
    unparsed.sort_unstable();
    not_built_in.sort_unstable_by_key(|(language, _)| *language as usize);
    Ok(Mapped {
        skipped: candidates.len() - files.len(),
        files,
        cached,
        unparsed,
        not_built_in,
    })
}

/// Reads a whole candidate; `None` when it cannot be opened or is not what the walk saw.
pub(super) fn read_source(root: &Root, entry: &FileEntry) -> Result<Option<Vec<u8>>, FsError> {
    let Ok(file) = root.open_entry(entry) else {
        return Ok(None);
    };
    match file.read_all() {
        Ok(bytes) => Ok(Some(bytes)),
        Err(stop @ (RootError::Deadline | RootError::Cancelled)) => Err(stop.into()),
        // Shrunk or changed while read: not what the walk saw.
        Err(_) => Ok(None),
    }
}

/// One parse: the candidate, its content key, its size and what the parse made of it.
type Done = (usize, ContentKey, usize, Extracted);

/// The cache misses of one map, read in tree order on the calling thread (so the call's
/// deadline covers every read) and parsed on the pool as they are read; results are interned
/// on the calling thread as they arrive. A file with the same content as one already parsed
/// or being parsed is not parsed again.
struct Parsing<'a> {
    root: &'a Root,
    cache: &'a mut TagCache,
    candidates: &'a [FileEntry],
    results: &'a mut [Option<Parsed>],
    /// Content being parsed → the candidate parsing it.
    waiting: HashMap<ContentKey, usize>,
    /// Candidates with the same content as a parse in progress: (copy, original).
    copies: Vec<(usize, usize)>,
    /// Candidates whose parse cost too much.
    unparsed: &'a mut Vec<usize>,
}

impl Parsing<'_> {
    fn run<'s>(
        &mut self,
        misses: &[(usize, Language)],
        pool: Option<(&rayon::Scope<'s>, &'s AtomicBool)>,
    ) -> Result<(), FsError> {
        let (sender, receiver) = mpsc::channel::<Done>();
        let mut flags = InFlight::default();
        let mut in_flight = 0usize;
        for &(i, language) in misses {
            let entry = &self.candidates[i];
            let Some(bytes) = read_source(self.root, entry)? else {
                continue; // unreadable, or changed since the walk
            };
            if std::str::from_utf8(&bytes).is_err() || bytes.contains(&0) {
                self.cache.insert(entry, None);
                self.results[i] = Some(None);
                continue;
            }
            let key: ContentKey = (language, Sha256::digest(&bytes).into());
            if let Some(symbols) = self.cache.by_content.get(&key).cloned() {
                self.cache.insert(entry, Some(symbols.clone()));
                self.results[i] = Some(Some(symbols));
                continue;
            }
            if let Some(&first) = self.waiting.get(&key) {
                self.copies.push((i, first));
                continue;
            }
            self.waiting.insert(key, i);
            let Some((scope, cancelled)) = pool else {
                // Without a pool the call is checked once the parse is recorded.
                let extracted = extract_bounded(language, &bytes, &AtomicUsize::new(0));
                self.record((i, key, bytes.len(), extracted))?;
                continue;
            };
            while in_flight > IN_FLIGHT_BYTES {
                let done = next_done(&receiver, &mut flags)?;
                in_flight -= done.2;
                self.record(done)?;
            }
            in_flight += bytes.len();
            let flag = Arc::new(AtomicUsize::new(0));
            flags.0.insert(i, flag.clone());
            let sender = sender.clone();
            scope.spawn(move |_| {
                // Always answers, so the reader never waits for a parse that will not come.
                let extracted = if cancelled.load(Ordering::Relaxed) {
                    Extracted::Stopped
                } else {
                    extract_bounded(language, &bytes, &flag)
                };
                let _ = sender.send((i, key, bytes.len(), extracted));
            });
        }
        while !flags.0.is_empty() {
            let done = next_done(&receiver, &mut flags)?;
            self.record(done)?;
        }
        for (copy, first) in std::mem::take(&mut self.copies) {
            if self.unparsed.contains(&first) {
                self.cache.insert_costly(&self.candidates[copy]);
                self.unparsed.push(copy);
                self.results[copy] = Some(None);
                continue;
            }
            let parsed = self.results[first].clone().flatten();
            self.cache.insert(&self.candidates[copy], parsed.clone());
            self.results[copy] = Some(parsed);
        }
        Ok(())
    }

    /// Interns and caches one parse. A call past its deadline or cancelled stops here, before
    /// caching: its last parses may have been cut short.
    fn record(&mut self, (i, key, _, extracted): Done) -> Result<(), FsError> {
        check_deadline()?;
        let tags = match extracted {
            Extracted::Tags(tags) => tags,
            Extracted::TooDeep | Extracted::TooCostly => {
                self.cache.insert_costly(&self.candidates[i]);
                self.unparsed.push(i);
                self.results[i] = Some(None);
                return Ok(());
            }
            // Only an ended call stops a parse, and it fails before this; nothing is kept.
            Extracted::Stopped => {
                self.results[i] = Some(None);
                return Ok(());
            }
        };
        let symbols = Arc::new(Symbols::new(&tags, &mut self.cache.names));
        self.cache.parses += 1;
        self.cache
            .insert(&self.candidates[i], Some(symbols.clone()));
        self.cache.remember_content(key, symbols.clone());
        self.results[i] = Some(Some(symbols));
        Ok(())
    }
}

/// The stop flags of the parses spawned and not yet recorded, by candidate. A pool thread has
/// no call to check, so the calling thread stops them: all that are left are raised when this
/// is dropped, so however the map ends (its deadline, a cancellation, a failed read), no parse
/// it leaves runs on.
#[derive(Default)]
struct InFlight(HashMap<usize, Arc<AtomicUsize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        for flag in self.0.values() {
            flag.store(1, Ordering::Relaxed);
        }
    }
}

/// The next parse to finish, its flag forgotten. While waiting, the call is checked every
/// [`WATCH_EVERY`]; once it is past its deadline or cancelled, the call fails (and dropping
/// `flags` stops the parses in flight).
fn next_done(receiver: &mpsc::Receiver<Done>, flags: &mut InFlight) -> Result<Done, FsError> {
    loop {
        match receiver.recv_timeout(WATCH_EVERY) {
            Ok(done) => {
                flags.0.remove(&done.0);
                return Ok(done);
            }
            Err(RecvTimeoutError::Timeout) => check_deadline()?,
            // The caller holds a sender, so this cannot happen; ending the call is safe.
            Err(RecvTimeoutError::Disconnected) => return Err(RootError::Cancelled.into()),
        }
    }
}
