//! Where one name is defined and which lines refer to it, below a scope: the data behind
//! `symbols`, read from the same walk, parses and cache as a map, so a lookup after a map (or
//! another lookup) of an unchanged tree parses nothing.

use super::parse::parse_all;
use super::symbols::NameId;
use super::{Fs, FsError, Place, mappable};
use crate::root::{FileEntry, RelPath};

/// A name to look up: `member`, or `member` of `container` (`Type::member`, `Type.member`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted<'a> {
    /// The defined name itself.
    pub member: &'a str,
    /// The type, class, trait or module it must be a member of.
    pub container: Option<&'a str>,
}

/// One definition found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundDefinition {
    /// 1-based line.
    pub line: u32,
    /// The definition's line as written.
    pub text: Box<str>,
    /// Where it sits.
    pub place: Place,
}

/// What one file holds of the name.
#[derive(Debug)]
pub struct FoundFile {
    /// The file as the walk found it.
    pub entry: FileEntry,
    /// Its definitions of the name, in line order.
    pub definitions: Vec<FoundDefinition>,
    /// Lines referring to the name (other than its definition lines), in order.
    pub references: Vec<u32>,
}

/// What a lookup found below its scope.
#[derive(Debug, Default)]
pub struct Lookup {
    /// Files defining or referring to the name, in tree order.
    pub files: Vec<FoundFile>,
    /// Source files read (from the cache or parsed).
    pub read: usize,
    /// The walk stopped at the map's file ceiling ([`super::MAX_WALK_FILES`]).
    pub capped: bool,
    /// The configured ceiling that stopped the walk, as a notice names it.
    pub limit: Option<String>,
    /// Directories passed over for lying too deep.
    pub too_deep: usize,
}

impl Fs {
    /// The definitions of `wanted` below `scope` and, when `references` is set, the lines
    /// referring to its member name, from the map's walk and cache.
    pub(in crate::fs) fn look_up(
        &self,
        scope: &RelPath,
        wanted: Wanted<'_>,
        references: bool,
    ) -> Result<Lookup, FsError> {
        let walked = mappable(self.root(), scope)?;
        let mut lookup = Lookup {
            capped: walked.capped,
            limit: walked.limit,
            too_deep: walked.too_deep,
            ..Lookup::default()
        };
        let mut cache = self.map_cache();
        cache.bound_names();
        let parsed = parse_all(self.root(), &mut cache, &walked.files)?;
        lookup.read = parsed.files.len();
        let Some(member) = cache.names.get(wanted.member) else {
            return Ok(lookup);
        };
        let container = wanted.container.map(|c| cache.names.get(c));
        // A member defined out of line spells its container in its own line (C++'s
        // `void Type::member()`).
        let spelled: Vec<String> = wanted
            .container
            .map(|c| {
                ["::", "."]
                    .iter()
                    .map(|sep| format!("{c}{sep}{}", wanted.member))
                    .collect()
            })
            .unwrap_or_default();
        for (i, symbols) in &parsed.files {
            let definitions: Vec<FoundDefinition> = symbols
                .definitions
                .iter()
                .filter(|d| d.name == member)
                .filter(|d| match container {
                    None => true,
                    Some(id) => {
                        (id.is_some() && d.container == id)
                            || spelled.iter().any(|s| d.text.contains(s.as_str()))
                    }
                })
                .map(|d| FoundDefinition {
                    line: d.line,
                    text: d.text.clone(),
                    place: d.place,
                })
                .collect();
            let lines: Vec<u32> = if references {
                referring_lines(
                    symbols.lines_referring_to(member),
                    &symbols.definitions,
                    member,
                )
            } else {
                Vec::new()
            };
            if definitions.is_empty() && lines.is_empty() {
                continue;
            }
            lookup.files.push(FoundFile {
                entry: walked.files[*i].clone(),
                definitions,
                references: lines,
            });
        }
        Ok(lookup)
    }
}

/// The lines of `lines` that are not a definition line of `name` in the same file.
fn referring_lines(
    lines: &[(NameId, u32)],
    definitions: &[super::symbols::DefinitionLine],
    name: NameId,
) -> Vec<u32> {
    lines
        .iter()
        .map(|&(_, line)| line)
        .filter(|&line| !definitions.iter().any(|d| d.name == name && d.line == line))
        .collect()
}
