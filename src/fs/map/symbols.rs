//! Interned symbols: a file's tags with every name replaced by a small integer.
//!
//! Ranking compares names across thousands of files on every map. Hashing each name string
//! on every call was most of a warm map's time, so names are interned once, when a file is
//! parsed, and a file's references are kept counted per name and sorted by id. The
//! [`Interner`] lives as long as the parse cache whose [`Symbols`] point into it.

use std::collections::HashMap;

use super::uses::{FNV_START, Vocabulary, fnv};
use super::{FileTags, Place};

/// A name's number in its [`Interner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameId(u32);

impl NameId {
    /// The id as an index into per-name arrays.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Names and their ids, both ways, with what a steered map asks of every name prepared
/// when the name is interned: its lower-cased text (searched for a query word in one pass
/// over all names) and the hash of its [`identifier_chars`].
#[derive(Debug, Default)]
pub struct Interner {
    ids: HashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
    /// Every name lower-cased, each followed by a 0 byte.
    folded: Vec<u8>,
    /// Where each name's lower-cased text ends in `folded`.
    folded_ends: Vec<u32>,
    /// Per name, [`key_hash`] of it.
    key_hashes: Vec<u32>,
}

/// The characters of an identifier as a query may write it: lower-cased, without `_` or `-`,
/// so that snake, kebab and camel spellings of the same words agree.
pub fn identifier_chars(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
}

/// A hash of `name`'s [`identifier_chars`]: equal for names a query names alike.
#[must_use]
pub fn key_hash(name: &str) -> u32 {
    hash_chars(identifier_chars(name))
}

/// A hash of a sequence of characters, such as an identifier key already built: FNV-1a of
/// their UTF-8 bytes, as the vocabularies hash words.
pub fn hash_chars(chars: impl Iterator<Item = char>) -> u32 {
    chars.fold(FNV_START, |hash, c| {
        c.encode_utf8(&mut [0; 4]).bytes().fold(hash, fnv)
    })
}

impl Interner {
    /// The id of `name`, added if new.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        // More than 4 billion distinct names cannot come from the bounded cache.
        let id = NameId(u32::try_from(self.names.len()).unwrap_or(u32::MAX));
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        if name.is_ascii() {
            self.folded
                .extend(name.bytes().map(|b| b.to_ascii_lowercase()));
        } else {
            self.folded.extend(name.to_lowercase().bytes());
        }
        // A name holds no 0 byte (an identifier); were one to, it would only split a match.
        self.folded.push(0);
        let end = u32::try_from(self.folded.len()).unwrap_or(u32::MAX);
        self.folded_ends.push(end);
        self.key_hashes.push(key_hash(name));
        id
    }

    /// Marks in `marks` (indexed by name id) every name holding the lower-case `word` in any
    /// case: one search over all names instead of one per name.
    pub fn mark_holding(&self, word: &str, marks: &mut [bool]) {
        if word.is_empty() {
            marks.iter_mut().for_each(|m| *m = true);
            return;
        }
        let mut from = 0;
        for at in memchr::memmem::find_iter(&self.folded, word.as_bytes()) {
            // Hits come in order: the name holding this one starts at or after the last.
            if at < from {
                continue;
            }
            let index = name_at(&self.folded_ends, at);
            if let Some(mark) = marks.get_mut(index) {
                *mark = true;
            }
            from = self
                .folded_ends
                .get(index)
                .map_or(usize::MAX, |&end| end as usize);
        }
    }

    /// Every name whose [`key_hash`] is one of `hashes` (a superset of the names whose
    /// identifier key is one of those hashed).
    pub fn with_key_hash<'a>(&'a self, hashes: &'a [u32]) -> impl Iterator<Item = NameId> + 'a {
        self.key_hashes
            .iter()
            .enumerate()
            .filter(|(_, hash)| hashes.contains(hash))
            .map(|(index, _)| NameId(u32::try_from(index).unwrap_or(u32::MAX)))
    }

    /// The id of `name`, if it is interned.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<NameId> {
        self.ids.get(name).copied()
    }

    /// The name of `id` (empty for an id from another interner).
    #[must_use]
    pub fn name(&self, id: NameId) -> &str {
        self.names.get(id.index()).map_or("", |name| name)
    }

    /// How many names are interned.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// The index of the name whose text in `folded` holds byte `at`, given where each ends.
fn name_at(ends: &[u32], at: usize) -> usize {
    ends.partition_point(|&end| (end as usize) <= at)
}

/// One definition, interned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionLine {
    /// The defined name.
    pub name: NameId,
    /// 1-based line.
    pub line: u32,
    /// The signature line as written.
    pub text: Box<str>,
    /// Where it sits.
    pub place: Place,
    /// The type, trait or module it is a member of.
    pub container: Option<NameId>,
}

/// What one file defines and refers to, with names interned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    /// Definitions, in file order.
    pub definitions: Vec<DefinitionLine>,
    /// The distinct names defined as items (what other files can refer to), sorted.
    pub defined: Vec<NameId>,
    /// Each name referred to with its number of references, sorted by name id: only the
    /// references that may credit another file's definition ([`FileTags::credits`]).
    pub references: Vec<(NameId, u32)>,
    /// Each name referred to with each line referring to it, sorted, one entry per line.
    pub reference_lines: Vec<(NameId, u32)>,
    /// Modules imported by path (Raku), distinct.
    pub imports: Vec<Box<str>>,
    /// The file's vocabulary (see `uses::words`): whether a lookup reads it again.
    pub words: Vocabulary,
}

impl Symbols {
    /// Interns `tags` into `names`.
    pub fn new(tags: &FileTags, names: &mut Interner) -> Symbols {
        let definitions: Vec<DefinitionLine> = tags
            .definitions
            .iter()
            .map(|d| DefinitionLine {
                name: names.intern(&d.name),
                line: d.line,
                text: d.text.as_str().into(),
                place: d.place,
                container: d.container.as_deref().map(|c| names.intern(c)),
            })
            .collect();
        let mut defined: Vec<NameId> = definitions
            .iter()
            .filter(|d| d.place == Place::Item)
            .map(|d| d.name)
            .collect();
        defined.sort_unstable();
        defined.dedup();
        let all: Vec<NameId> = tags.references.iter().map(|r| names.intern(r)).collect();
        let mut reference_lines: Vec<(NameId, u32)> = all
            .iter()
            .copied()
            .zip(tags.reference_lines.iter().copied())
            .collect();
        // Only the references that may mean another file's definition are counted.
        let mut ids: Vec<NameId> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| tags.credits.get(*i).copied().unwrap_or(true))
            .map(|(_, &id)| id)
            .collect();
        reference_lines.sort_unstable();
        reference_lines.dedup();
        ids.sort_unstable();
        let mut references: Vec<(NameId, u32)> = Vec::new();
        for id in ids {
            match references.last_mut() {
                Some((last, count)) if *last == id => *count = count.saturating_add(1),
                _ => references.push((id, 1)),
            }
        }
        let mut imports: Vec<Box<str>> = tags.imports.iter().map(|m| m.as_str().into()).collect();
        imports.sort_unstable();
        imports.dedup();
        Symbols {
            definitions,
            defined,
            references,
            reference_lines,
            imports,
            words: Vocabulary::new(&tags.words),
        }
    }

    /// The lines referring to `name`, in order.
    #[must_use]
    pub fn lines_referring_to(&self, name: NameId) -> &[(NameId, u32)] {
        let start = self.reference_lines.partition_point(|&(id, _)| id < name);
        let end = self.reference_lines.partition_point(|&(id, _)| id <= name);
        &self.reference_lines[start..end]
    }

    /// How often this file refers to `name`.
    #[must_use]
    pub fn references_to(&self, name: NameId) -> u32 {
        self.references
            .binary_search_by_key(&name, |&(id, _)| id)
            .map_or(0, |at| self.references[at].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::map::Definition;

    #[test]
    fn references_are_counted_per_name_and_definitions_kept_in_order() {
        let tags = FileTags {
            definitions: vec![
                Definition {
                    name: "b".into(),
                    line: 1,
                    text: "fn b()".into(),
                    place: Place::Item,
                    container: None,
                },
                Definition {
                    name: "a".into(),
                    line: 2,
                    text: "fn a()".into(),
                    place: Place::Item,
                    container: None,
                },
                Definition {
                    name: "b".into(),
                    line: 3,
                    text: "fn b(x)".into(),
                    place: Place::Item,
                    container: None,
                },
            ],
            references: ["x", "a", "x", "x"].map(String::from).to_vec(),
            reference_lines: vec![4, 4, 5, 4],
            imports: ["M", "M"].map(String::from).to_vec(),
            ..FileTags::default()
        };
        let mut names = Interner::default();
        let symbols = Symbols::new(&tags, &mut names);
        assert_eq!(
            symbols
                .definitions
                .iter()
                .map(|d| (names.name(d.name), d.line))
                .collect::<Vec<_>>(),
            [("b", 1), ("a", 2), ("b", 3)]
        );
        let (a, b, x) = (names.intern("a"), names.intern("b"), names.intern("x"));
        assert_eq!(
            symbols.defined,
            [b, a],
            "sorted by id: b was interned first"
        );
        assert_eq!(symbols.references_to(x), 3);
        assert_eq!(
            symbols.lines_referring_to(x),
            [(x, 4), (x, 5)],
            "one entry per line"
        );
        assert_eq!(symbols.lines_referring_to(a), [(a, 4)]);
        assert!(symbols.lines_referring_to(b).is_empty());
        assert_eq!(symbols.references_to(a), 1);
        assert_eq!(symbols.references_to(b), 0);
        assert_eq!(symbols.imports.len(), 1);
        assert_eq!(names.len(), 3);
    }

    #[test]
    fn names_holding_a_word_are_marked_in_one_search_whatever_their_case() {
        let mut names = Interner::default();
        for name in [
            "parse_rfc3339",
            "HTTPRedirect",
            "Straße",
            "redirect",
            "x",
            "ParseArgs",
        ] {
            names.intern(name);
        }
        let holding = |word: &str| {
            let mut marks = vec![false; names.len()];
            names.mark_holding(word, &mut marks);
            (0..names.len())
                .filter(|&i| marks[i])
                .map(|i| names.name(NameId(i as u32)))
                .collect::<Vec<_>>()
        };
        assert_eq!(holding("redirect"), ["HTTPRedirect", "redirect"]);
        assert_eq!(holding("parse"), ["parse_rfc3339", "ParseArgs"]);
        assert_eq!(holding("straße"), ["Straße"]);
        assert_eq!(holding("3339"), ["parse_rfc3339"]);
        assert!(holding("tx").is_empty(), "no match spans two names");
        assert_eq!(holding("").len(), names.len());
    }

    #[test]
    fn names_spelled_alike_share_a_key_hash() {
        let mut names = Interner::default();
        let ids = ["parse_args", "ParseArgs", "parse-args", "parse_arg"].map(|n| names.intern(n));
        let wanted = [hash_chars("parseargs".chars())];
        assert_eq!(
            names.with_key_hash(&wanted).collect::<Vec<_>>(),
            ids[..3],
            "the three spellings of one identifier, not its neighbour"
        );
    }
}
