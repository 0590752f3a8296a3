//! The map's cache: what each file yielded, by path and identity and by content, and the
//! last rankings with the files they ranked.
//!
//! Kept apart from the call and its parse pipeline so that what is remembered, and how it is
//! bounded, reads in one place (the rules are in [`super`]'s documentation).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::Language;
use super::rank::{MapFile, RankedFile, Ranking, Steering, rank};
use super::symbols::{Interner, Symbols};
use super::{KEPT_RANKINGS, MAX_CACHED_FILES, MAX_INTERNED_NAMES};
use crate::root::{FileEntry, Identity};

/// What reading one file yielded: its symbols, or `None` when it is not text.
pub(super) type Parsed = Option<Arc<Symbols>>;

/// A file's content as the parse cache knows it: its language and the SHA-256 of its bytes.
pub(super) type ContentKey = (Language, [u8; 32]);

/// Parse results per path, valid while the file keeps the identity they were read with, and
/// per content, so that a copy of a file (or a file changed back) is not parsed again.
#[derive(Debug, Default)]
pub struct TagCache {
    entries: HashMap<String, (Identity, Parsed)>,
    /// Paths among `entries` (with no symbols) whose parse cost too much.
    pub(super) costly: HashSet<String>,
    /// Symbols by content, so a copy is not parsed again.
    pub(super) by_content: HashMap<ContentKey, Arc<Symbols>>,
    /// The names every cached symbol refers to.
    pub(super) names: Interner,
    /// Files parsed (cache misses) over the fs set's life.
    pub(super) parses: u64,
    /// The latest rankings, newest last.
    rankings: Vec<Kept>,
}

/// A ranking kept for the same files and steering: a warm map of an unchanged tree does not
/// rank again.
#[derive(Debug)]
struct Kept {
    files: Vec<(String, Arc<Symbols>)>,
    steering: Steering,
    ranked: Arc<Ranking>,
}

impl Kept {
    fn is_for(&self, files: &[MapFile<'_>], symbols: &[Arc<Symbols>], steering: &Steering) -> bool {
        self.steering == *steering
            && self.files.len() == files.len()
            && self
                .files
                .iter()
                .zip(files.iter().zip(symbols))
                .all(|((path, kept), (file, now))| path == file.path && Arc::ptr_eq(kept, now))
    }
}

impl TagCache {
    pub(super) fn get(&self, entry: &FileEntry) -> Option<Parsed> {
        self.entries
            .get(&entry.path)
            .filter(|(identity, _)| *identity == entry.identity)
            .map(|(_, parsed)| parsed.clone())
    }

    pub(super) fn insert(&mut self, entry: &FileEntry, parsed: Parsed) {
        if self.entries.len() >= MAX_CACHED_FILES
            && !self.entries.contains_key(&entry.path)
            && let Some(victim) = self.entries.keys().next().cloned()
        {
            self.entries.remove(&victim);
            self.costly.remove(&victim);
        }
        self.costly.remove(&entry.path);
        self.entries
            .insert(entry.path.clone(), (entry.identity, parsed));
    }

    /// Remembers that parsing `entry` as the walk saw it costs too much.
    pub(super) fn insert_costly(&mut self, entry: &FileEntry) {
        self.insert(entry, None);
        self.costly.insert(entry.path.clone());
    }

    pub(super) fn remember_content(&mut self, key: ContentKey, symbols: Arc<Symbols>) {
        if self.by_content.len() >= MAX_CACHED_FILES
            && let Some(victim) = self.by_content.keys().next().copied()
        {
            self.by_content.remove(&victim);
        }
        self.by_content.insert(key, symbols);
    }

    /// The outline of one file (see [`super::rank::outline`]).
    pub(super) fn outline(&self, file: &MapFile<'_>, steering: &Steering) -> RankedFile {
        super::rank::outline(file, steering, &self.names)
    }

    /// The ranking of `files` (whose symbols are `symbols`), computed or remembered.
    pub(super) fn ranked(
        &mut self,
        files: &[MapFile<'_>],
        symbols: &[Arc<Symbols>],
        steering: &Steering,
    ) -> Arc<Ranking> {
        if let Some(at) = self
            .rankings
            .iter()
            .position(|r| r.is_for(files, symbols, steering))
        {
            let ranking = self.rankings.remove(at);
            let ranked = ranking.ranked.clone();
            self.rankings.push(ranking);
            return ranked;
        }
        let ranked = Arc::new(rank(files, steering, &self.names));
        if self.rankings.len() >= KEPT_RANKINGS {
            self.rankings.remove(0);
        }
        self.rankings.push(Kept {
            files: files
                .iter()
                .zip(symbols)
                .map(|(file, symbols)| (file.path.to_owned(), symbols.clone()))
                .collect(),
            steering: steering.clone(),
            ranked: ranked.clone(),
        });
        ranked
    }

    /// Starts over when the interner has outgrown what the bounded cache can refer to. Only
    /// between maps: every cached symbol points into the interner.
    pub(super) fn bound_names(&mut self) {
        if self.names.len() > MAX_INTERNED_NAMES {
            *self = TagCache {
                parses: self.parses,
                ..TagCache::default()
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::map::tests::entry;

    #[test]
    fn the_cache_is_bounded() {
        let mut cache = TagCache::default();
        for i in 0..MAX_CACHED_FILES + 10 {
            cache.insert(&entry(&format!("f{i}.py")), None);
        }
        assert_eq!(cache.entries.len(), MAX_CACHED_FILES);
        // A changed identity misses.
        let mut changed = entry(&format!("f{}.py", MAX_CACHED_FILES + 9));
        assert!(cache.get(&changed).is_some());
        changed.identity.size = 1;
        assert!(cache.get(&changed).is_none());
    }
}
