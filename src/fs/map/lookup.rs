//! Where one name is defined and which lines refer to it, below a scope: the data behind
//! `symbols`, read from the same walk, parses and cache as a map, so a lookup after a map (or
//! another lookup) of an unchanged tree parses nothing.

use super::parse::{parse_all, read_source};
use super::symbols::NameId;
use super::tags::language_of;
use super::tags::line_text;
use super::uses::{UseKind, uses, word_hash};
use super::{Fs, FsError, Language, Place, mappable};
use crate::root::{FileEntry, NotApplied, RelPath, RootError};

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
    /// Its language.
    pub language: Language,
    /// Its definitions of the name, in line order.
    pub definitions: Vec<FoundDefinition>,
    /// Lines the tags query tags as referring to the name (other than its definition lines),
    /// in order: a Raku file's references, which no grammar finds, and the lines a file
    /// that cannot be parsed again still shows.
    pub references: Vec<u32>,
    /// The file's vocabulary holds the name: [`Fs::uses_in`] reads it for every use.
    pub mentions: bool,
    /// The lines defining the name (whatever its container): no line of use.
    pub defining: Vec<u32>,
}

/// One line using the name: its number, the kinds of its uses (strongest first, distinct) and
/// its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseLine {
    /// 1-based line.
    pub line: u32,
    /// What the line's uses do with the name.
    pub kinds: Vec<UseKind>,
    /// The line as written (see [`super::tags::line_text`]).
    pub text: String,
}

impl Wanted<'_> {
    /// How a line spells the qualified name (`Type::member`, `Type.member`); none for a
    /// plain name.
    #[must_use]
    pub fn spellings(&self) -> Vec<String> {
        self.container
            .map(|c| {
                ["::", "."]
                    .iter()
                    .map(|sep| format!("{c}{sep}{}", self.member))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What a lookup found below its scope.
#[derive(Debug, Default)]
pub struct Lookup {
    /// Files defining or referring to the name, in tree order.
    pub files: Vec<FoundFile>,
    /// Source files read (from the cache or parsed).
    pub read: usize,
    /// The last file the walk found, where a walk that stopped early ends.
    pub last: Option<String>,
    /// The walk stopped at the map's file ceiling ([`super::MAX_WALK_FILES`]).
    pub capped: bool,
    /// The configured ceiling that stopped the walk.
    pub stopped: Option<RootError>,
    /// Directories passed over for lying too deep, in tree order.
    pub too_deep: Vec<String>,
    /// The ignore files the walk did not apply.
    pub not_applied: Vec<NotApplied>,
    /// Directories passed over for a marker file, in tree order.
    pub marked: Vec<crate::root::Marked>,
    /// Files in a language this build leaves out, by language.
    pub not_built_in: Vec<(Language, usize)>,
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
            last: walked.files.last().map(|f| f.path.clone()),
            capped: walked.capped,
            stopped: walked.stopped,
            too_deep: walked.too_deep,
            not_applied: walked.not_applied,
            marked: walked.marked,
            ..Lookup::default()
        };
        let mut cache = self.map_cache();
        cache.bound_names();
        let parsed = parse_all(self.root(), &mut cache, &walked.files)?;
        lookup.read = parsed.files.len();
        lookup.not_built_in = parsed.not_built_in;
        // A name no parse interned is defined nowhere and tagged nowhere; a file may still use
        // it (a builtin's name, a name defined outside the scope).
        let member = cache.names.get(wanted.member);
        let container = wanted.container.map(|c| cache.names.get(c));
        // A member defined out of line spells its container in its own line (C++'s
        // `void Type::member()`).
        let spelled = wanted.spellings();
        // Hashed once: the vocabularies of every file below the scope are asked for it.
        let word = word_hash(wanted.member);
        for (i, symbols) in &parsed.files {
            // A name no parse interned is defined nowhere: no file's definitions are looked at.
            let defined = if member.is_some() {
                &symbols.definitions[..]
            } else {
                &[]
            };
            let definitions: Vec<FoundDefinition> = defined
                .iter()
                .filter(|d| Some(d.name) == member)
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
            let lines: Vec<u32> = match member {
                Some(member) if references => referring_lines(
                    symbols.lines_referring_to(member),
                    &symbols.definitions,
                    member,
                ),
                _ => Vec::new(),
            };
            let mentions = references && symbols.words.holds_hash(word);
            if definitions.is_empty() && lines.is_empty() && !mentions {
                continue;
            }
            // Only for the files kept: telling a path's language costs more than the checks
            // above, and most files hold nothing of the name.
            let entry = &walked.files[*i];
            let Some(language) = language_of(&entry.path) else {
                continue;
            };
            let defining = symbols
                .definitions
                .iter()
                .filter(|d| Some(d.name) == member)
                .map(|d| d.line)
                .collect();
            lookup.files.push(FoundFile {
                entry: entry.clone(),
                language,
                definitions,
                references: lines,
                mentions,
                defining,
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
    if lines.is_empty() {
        return Vec::new();
    }
    let mut defining: Vec<u32> = definitions
        .iter()
        .filter(|d| d.name == name)
        .map(|d| d.line)
        .collect();
    defining.sort_unstable();
    lines
        .iter()
        .map(|&(_, line)| line)
        .filter(|line| defining.binary_search(line).is_err())
        .collect()
}

impl Fs {
    /// Every line of `file` using the name `member`, in order, other than its definition
    /// lines: from its syntax tree (see [`super::uses`]), or, for Raku and a file that cannot
    /// be parsed again, the lines its tags name (as values). `None` when the file cannot be
    /// read as the walk saw it (it changed since). The call's deadline or cancellation ends
    /// the call.
    pub(in crate::fs) fn uses_in(
        &self,
        file: &FoundFile,
        member: &str,
    ) -> Result<Option<Vec<UseLine>>, FsError> {
        let Some(source) = read_source(self.root(), &file.entry)? else {
            return Ok(None);
        };
        let found = match file.language {
            Language::Raku => None,
            language => uses(language, &source, member),
        };
        crate::root::check_deadline()?;
        let found = found.unwrap_or_else(|| {
            file.references
                .iter()
                .map(|&line| super::uses::Use {
                    line,
                    kind: UseKind::Value,
                })
                .collect()
        });
        let mut lines: Vec<UseLine> = Vec::new();
        for found in found {
            if file.defining.contains(&found.line) {
                continue;
            }
            match lines.last_mut() {
                Some(last) if last.line == found.line => {
                    if !last.kinds.contains(&found.kind) {
                        last.kinds.push(found.kind);
                        last.kinds.sort_unstable();
                    }
                }
                _ => lines.push(UseLine {
                    line: found.line,
                    kinds: vec![found.kind],
                    text: String::new(),
                }),
            }
        }
        let mut starts =
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', &source).map(|i| i + 1));
        let (mut start, mut at) = (0, 0u32);
        for line in &mut lines {
            while at < line.line {
                match starts.next() {
                    Some(next) => start = next,
                    None => return Ok(None),
                }
                at += 1;
            }
            line.text = line_text(&source, start);
        }
        Ok(Some(lines))
    }
}
