//! One file into its definitions and references.
//!
//! Tree-sitter languages go through `tree-sitter-tags` with each grammar's vendored tags
//! query, extended where that query falls short by the supplements under `queries/` (C and
//! C++ tag no calls, TypeScript tags only signatures, Rust misses `Type::call()` paths and
//! type uses, Go misses package-level constants, variables and type aliases, Java misses
//! enums, records, annotation types and `static final` constants, PHP misses enums, constants
//! and calls by a plain name). C#, Kotlin and Swift
//! run a query of our own in its place (see [`grammar()`]); Ruby also runs its grammar's
//! locals query, so that a local variable is no reference. Each [`TagsConfiguration`] is
//! built once per process; each thread keeps its own [`TagsContext`]. Raku has no grammar
//! and is read by a line scanner (`super::raku`).

use std::cell::RefCell;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;

use tree_sitter_tags::{TagsConfiguration, TagsContext};

use super::{Definition, FileTags, Language, Place};

mod container;
mod grammar;
mod place;
mod unwrap;

pub use grammar::{grammar, language_of};

/// Longest signature line kept, in bytes; longer lines (minified code) are cut at a
/// character boundary and marked with an ellipsis.
const MAX_TEXT_LEN: usize = 300;

/// Deepest nesting of brackets a file may have to be parsed. The tags query's matching slows
/// with the depth of the unclosed brackets around each node (a megabyte of `{` takes minutes,
/// and the matching cannot be interrupted); real code nests a few dozen deep, and a file
/// nested a thousand deep still maps in about a second.
pub const MAX_NESTING: usize = 1024;

/// Most bytes of tree-sitter's memory one parse may hold (see [`super::memory`]). A megabyte
/// of real code holds a few tens of megabytes; a megabyte of `a<a<…` as C++ holds gigabytes.
pub const MAX_PARSE_BYTES: usize = 256 << 20;

/// Definitions and references of one source file. Never panics; a parse that fails yields
/// what it could (or an empty [`FileTags`]).
#[must_use]
pub fn extract(language: Language, source: &[u8]) -> FileTags {
    extract_until(language, source, None)
}

/// What [`extract_bounded`] made of one file.
#[derive(Debug)]
pub enum Extracted {
    /// The file's definitions and references.
    Tags(FileTags),
    /// Not parsed: its brackets nest deeper than [`MAX_NESTING`].
    TooDeep,
    /// Abandoned: its parse held more than [`MAX_PARSE_BYTES`].
    TooCostly,
    /// Abandoned because `stop` was raised by someone else (the call ended).
    Stopped,
}

/// [`extract`], within bounds: a file nested deeper than [`MAX_NESTING`] is not parsed, a
/// parse is abandoned once it holds more than [`MAX_PARSE_BYTES`], and once `stop` turns
/// non-zero (tree-sitter polls it while it parses and matches).
#[must_use]
pub fn extract_bounded(language: Language, source: &[u8], stop: &AtomicUsize) -> Extracted {
    if language != Language::Raku && nests_deeper(source, MAX_NESTING) {
        return Extracted::TooDeep;
    }
    let tags = super::memory::watch(stop, MAX_PARSE_BYTES, || {
        extract_until(language, source, Some(stop))
    });
    match stop.load(std::sync::atomic::Ordering::Relaxed) {
        0 => Extracted::Tags(tags),
        super::memory::OVER_BUDGET => Extracted::TooCostly,
        _ => Extracted::Stopped,
    }
}

/// Whether brackets (`(`, `[`, `{`, counted in strings and comments too, which only errs on
/// the side of skipping) ever nest deeper than `limit`.
pub(super) fn nests_deeper(source: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    for &byte in source {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// [`extract`], abandoned (yielding what it has) once `cancel` turns non-zero: tree-sitter
/// polls the flag while it parses and matches.
#[must_use]
pub fn extract_until(language: Language, source: &[u8], cancel: Option<&AtomicUsize>) -> FileTags {
    let mut tags = extract_tags(language, source, cancel);
    tags.words = super::uses::words(language, source);
    if !tags.bare.is_empty() {
        let defined = tags.definitions.iter().map(|d| d.name.as_str()).collect();
        tags.credits =
            super::resolve::credits(language, source, &tags.references, &tags.bare, &defined);
    }
    tags
}

/// [`extract_until`] without the vocabulary.
fn extract_tags(language: Language, source: &[u8], cancel: Option<&AtomicUsize>) -> FileTags {
    if language == Language::Raku {
        return catch_unwind(|| super::raku::scan(source)).unwrap_or_default();
    }
    let Some(config) = config(language) else {
        return FileTags::default();
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        CONTEXT.with(|context| match context.try_borrow_mut() {
            Ok(mut context) => tag_with(&mut context, config, language, source, cancel),
            // Re-entered on this thread (cannot happen through this API): use a fresh context.
            Err(_) => tag_with(&mut TagsContext::new(), config, language, source, cancel),
        })
    }));
    match result {
        Ok(tags) => tags,
        Err(_) => {
            // The context may be mid-parse; start the thread over with a clean one.
            let _ = CONTEXT.try_with(|context| {
                if let Ok(mut context) = context.try_borrow_mut() {
                    *context = TagsContext::new();
                }
            });
            FileTags::default()
        }
    }
}

thread_local! {
    static CONTEXT: RefCell<TagsContext> = RefCell::new(TagsContext::new());
}

/// The tags configuration of a tree-sitter language, built on first use; `None` for Raku
/// or if the query does not compile (which the tests rule out).
fn config(language: Language) -> Option<&'static TagsConfiguration> {
    // One slot per language in declaration order, Raku last (its slot stays `None`).
    const LANGUAGES: usize = Language::Raku as usize + 1;
    static CONFIGS: [OnceLock<Option<TagsConfiguration>>; LANGUAGES] =
        [const { OnceLock::new() }; LANGUAGES];
    let cell = CONFIGS.get(language as usize)?;
    cell.get_or_init(|| {
        let grammar = grammar(language)?;
        // Where two patterns tag the same name, the one with the lower index wins: the
        // overrides before the vendored patterns correct them, the supplement after them
        // only fills gaps.
        let query = format!(
            "{}\n{}\n{}",
            grammar.overrides, grammar.vendored_query, grammar.supplement
        );
        match TagsConfiguration::new(grammar.language, &query, grammar.locals_query) {
            Ok(config) => Some(config),
            Err(error) => {
                tracing::warn!(?language, %error, "tags query does not compile");
                None
            }
        }
    })
    .as_ref()
}

/// One tag as a pass yields it, with offsets and rows in the whole file.
struct Tagged {
    /// The name as written.
    name: String,
    /// Byte offset of the name.
    name_start: usize,
    /// Bytes of the whole tagged node (the definition, the call, the macro invocation).
    range: Range<usize>,
    /// 0-based row where the node starts.
    row: usize,
    /// A definition (else a reference).
    definition: bool,
    /// A definition of a function or method, whose body is no place for items.
    function: bool,
    /// A declaration (the `declaration` kind: a C prototype, an `extern`, an include guard).
    declaration: bool,
    /// A scope (the `scope` kind: an anonymous function, an object literal passed to a call):
    /// it places what it holds as nested, and is itself no definition.
    scope: bool,
    /// A Rust `impl` block: no reference, only the members' container.
    impl_block: bool,
    /// Whose members the definitions inside are: a type's, trait's or module's own name, or
    /// the implementing type of an `impl` block.
    members: Option<String>,
    /// Where a definition sits (see [`place`]).
    place: Place,
    /// The type, trait or module a definition is a member of (see [`place`]).
    container: Option<String>,
}

/// Runs the tags pass (over Rust with its item-level macro invocations unwrapped), places each
/// definition, and collects what it found; an error mid-way keeps what came before.
fn tag_with(
    context: &mut TagsContext,
    config: &TagsConfiguration,
    language: Language,
    source: &[u8],
    cancel: Option<&AtomicUsize>,
) -> FileTags {
    let tagged = match language {
        Language::Rust => tag_rust(context, config, source, 0..source.len(), 0, 0, cancel),
        _ => collect(context, config, source, 0, 0, cancel),
    };
    let Some(mut tagged) = tagged else {
        return FileTags::default();
    };
    place::assign(&mut tagged, language, source);
    let mut tags = FileTags::default();
    let mut definitions = Vec::new();
    for tag in tagged {
        // An anonymous item (`const _: () = …;`) is nothing anyone refers to; a scope only
        // placed what it holds.
        if tag.definition && (tag.name == "_" || tag.scope) {
            continue;
        }
        if tag.definition {
            let line = u32::try_from(tag.row.saturating_add(1)).unwrap_or(u32::MAX);
            let text = line_text(source, tag.name_start);
            let place = match tag.place {
                Place::Item if tag.declaration => Place::Declaration,
                place => place,
            };
            let definition = Definition {
                name: tag.name,
                line,
                text,
                place,
                container: tag.container,
            };
            definitions.push((tag.name_start, definition));
        } else if !tag.impl_block {
            let line = u32::try_from(tag.row.saturating_add(1)).unwrap_or(u32::MAX);
            tags.references.push(tag.name);
            tags.reference_lines.push(line);
            tags.bare.push(bare(source, tag.name_start));
        }
    }
    definitions.sort_by_key(|(start, _)| *start);
    tags.definitions = definitions.into_iter().map(|(_, d)| d).collect();
    tags
}

/// Whether the name at `at` stands bare: not after a path or member separator (`.`, `::`,
/// `->`, `?.`), so it is not `x.name`, `Type::name` or `crate::name`.
fn bare(source: &[u8], at: usize) -> bool {
    let before = source[..at.min(source.len())].trim_ascii_end();
    !(before.ends_with(b".") || before.ends_with(b"::") || before.ends_with(b"->"))
}

/// The kinds of definition whose members are named through them (`Type::member`,
/// `Class.member`).
const CONTAINER_KINDS: [&str; 6] = ["class", "interface", "module", "struct", "enum", "trait"];

/// Most macro invocations a Rust item may sit within and still be read as an item.
const MAX_MACRO_DEPTH: usize = 4;

/// The tags of `part` of a Rust file that starts on row `rows`, `depth` macro bodies deep:
/// parsed with the bodies of its item-level macro invocations blanked, then each body parsed
/// on its own the same way (see `unwrap`).
fn tag_rust(
    context: &mut TagsContext,
    config: &TagsConfiguration,
    source: &[u8],
    part: Range<usize>,
    rows: usize,
    depth: usize,
    cancel: Option<&AtomicUsize>,
) -> Option<Vec<Tagged>> {
    let text = &source[part.clone()];
    let bodies = if depth < MAX_MACRO_DEPTH {
        unwrap::item_macro_bodies(text, depth > 0)
    } else {
        Vec::new()
    };
    let blanked;
    let parsed = if bodies.is_empty() {
        text
    } else {
        let mut copy = text.to_vec();
        for body in &bodies {
            for byte in &mut copy[body.clone()] {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
        }
        blanked = copy;
        &blanked
    };
    let mut tagged = collect(context, config, parsed, part.start, rows, cancel)?;
    let (mut counted, mut row) = (0, rows);
    for body in bodies {
        row += text[counted..body.start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = body.start;
        let whole = part.start + body.start..part.start + body.end;
        tagged.extend(tag_rust(
            context,
            config,
            source,
            whole,
            row,
            depth + 1,
            cancel,
        )?);
    }
    Some(tagged)
}

/// One tags pass over `source`, a part of a file that starts `offset` bytes and `rows` rows
/// into it: the tags it yields, placed in the whole file (the parser recovers from syntax
/// errors, and tags no name inside one). `None` if the pass could not start.
fn collect(
    context: &mut TagsContext,
    config: &TagsConfiguration,
    source: &[u8],
    offset: usize,
    rows: usize,
    cancel: Option<&AtomicUsize>,
) -> Option<Vec<Tagged>> {
    let (iter, _syntax_error) = context.generate_tags(config, source, cancel).ok()?;
    let mut tagged = Vec::new();
    for tag in iter {
        let Ok(tag) = tag else { break };
        // Tags captured as `@ignore` carry a sentinel range and no position.
        if tag.range.start == usize::MAX {
            continue;
        }
        let Some(name_bytes) = source.get(tag.name_range.clone()) else {
            continue;
        };
        let name = String::from_utf8_lossy(name_bytes).trim().to_string();
        if name.is_empty() {
            continue;
        }
        let kind = config.syntax_type_name(tag.syntax_type_id);
        let impl_block = !tag.is_definition && kind == "impl";
        let members = if impl_block {
            source
                .get(tag.range.clone())
                .and_then(container::implementing_type)
        } else if tag.is_definition && CONTAINER_KINDS.contains(&kind) {
            Some(name.clone())
        } else {
            None
        };
        tagged.push(Tagged {
            name,
            name_start: offset + tag.name_range.start,
            range: offset + tag.range.start..offset + tag.range.end,
            row: rows + tag.span.start.row,
            definition: tag.is_definition,
            function: tag.is_definition && matches!(kind, "function" | "method" | "scope"),
            declaration: tag.is_definition && kind == "declaration",
            scope: tag.is_definition && kind == "scope",
            impl_block,
            members,
            place: Place::Item,
            container: None,
        });
    }
    Some(tagged)
}

/// The source line holding byte `at`, without its line ending or trailing whitespace.
pub(crate) fn line_text(source: &[u8], at: usize) -> String {
    let at = at.min(source.len());
    let start = line_start(source, at);
    let end = source[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |i| at + i);
    let text = String::from_utf8_lossy(&source[start..end]);
    // A byte-order mark is no part of the first line's text.
    clip(text.trim_start_matches('\u{feff}').trim_end())
}

/// The offset where the line holding byte `at` (at most `source.len()`) starts.
fn line_start(source: &[u8], at: usize) -> usize {
    source[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// `text` cut to [`MAX_TEXT_LEN`] bytes at a character boundary, with a mark if cut.
pub(crate) fn clip(text: &str) -> String {
    if text.len() <= MAX_TEXT_LEN {
        return text.to_string();
    }
    let mut end = MAX_TEXT_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", text[..end].trim_end())
}

#[cfg(test)]
pub(super) mod tests;
