//! Interned symbols: a file's tags with every name replaced by a small integer.
//!
//! Ranking compares names across thousands of files on every map. Hashing each name string
//! on every call was most of a warm map's time, so names are interned once, when a file is
//! parsed, and a file's references are kept counted per name and sorted by id. The
//! [`Interner`] lives as long as the parse cache whose [`Symbols`] point into it.

use std::collections::HashMap;

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

/// Names and their ids, both ways.
#[derive(Debug, Default)]
pub struct Interner {
    ids: HashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
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
        id
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
    pub words: Box<[u32]>,
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
            words: tags.words.as_slice().into(),
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
}
