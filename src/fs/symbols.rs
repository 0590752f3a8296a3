//! `symbols`: where a name is defined below a directory, and which lines refer to it.
//!
//! The answer comes from the code map's tree-sitter tags and cache (see [`super::map`]): the
//! same walk (the map's skipped directories, its file ceiling), the same languages, and no
//! parse of a file the map or an earlier lookup already read unchanged. Definitions come
//! first, then references, each as `path:line: text` in tree order, under a header that
//! counts them. A reference is what the tags query tags as one (a call, a type use, a macro
//! invocation …), never a definition line of the name itself.
//!
//! A qualified name (`Type::member`, `Class.member`, `a::Type::member`) narrows the
//! definitions to members of that type, trait, class or module (for a Rust `impl` block, its
//! implementing type; for a Go method, its receiver's type), and to definitions whose own
//! line spells the qualified name (C++ out of line). Its references are the referring lines
//! that spell it qualified: a call through a value (`x.member()`) cannot be told from another
//! type's member without type information.

use serde_json::{Map, Value, json};

use super::answer::{
    BudgetedLines, Stop, answer_budget, max_results_stopped, output_stopped, rules_notice,
    too_deep_notice, walk_stopped,
};
use super::error::count;
use super::grep::MAX_RESULTS;
use super::locate::{FsPath, ScopeKind};
use super::map::MAX_WALK_FILES;
use super::map::lookup::{FoundFile, Lookup, Wanted};
use super::map::render::{marked_clause, not_built_in_note};
use super::shown::shown_path;
use super::{Fs, FsAnswer, FsError, Kind, NARROW_PATH, answer, path_or_root, str_arg};
use crate::tools::{Tool, ToolOutput, object_schema, positive_safe_integer};
use unicode_normalization::char::is_combining_mark;

/// `max-results` when not given.
const DEFAULT_MAX_RESULTS: u64 = 50;

/// The arguments of one lookup.
#[derive(Debug, Clone, Copy)]
pub struct SymbolsQuery<'a> {
    /// The identifier, possibly qualified.
    pub name: &'a str,
    /// The directory (or file) to search.
    pub path: &'a str,
    /// Whether to list the lines referring to the name.
    pub references: bool,
    /// Most lines of the answer (definitions and references together).
    pub max_results: u64,
}

impl Fs {
    /// Where `query.name` is defined at or below `query.path`, and (with `references`) which
    /// lines refer to it.
    pub fn symbols(&self, query: &SymbolsQuery<'_>) -> Result<FsAnswer, FsError> {
        let wanted = wanted(query.name)?;
        let scope = self.search_scope(&FsPath::parse(query.path)?, ScopeKind::DirectoryOrFile)?;
        let max_results = query.max_results.clamp(1, MAX_RESULTS);
        let lookup = self.look_up(&scope, wanted, query.references)?;
        let limits = self.root().limits();
        let mut lines = Lines {
            lines: BudgetedLines::new(answer_budget(limits.max_result_bytes)),
            shown: 0,
            max_results,
        };

        let definitions: usize = lookup.files.iter().map(|f| f.definitions.len()).sum();
        if definitions > 0 {
            lines.header(&format!(
                "{} of '{}':",
                count(definitions as u64, "definition", "definitions"),
                query.name
            ));
            'files: for file in &lookup.files {
                for definition in &file.definitions {
                    let text = definition.text.trim_start();
                    if !lines.push(&file.entry.path, definition.line, text) {
                        break 'files;
                    }
                }
            }
        }
        if query.references && lines.lines.stop.is_none() {
            self.push_references(&lookup, wanted, query.name, &mut lines)?;
        }

        let stop = lines.lines.stop;
        let mut text = lines.lines.text;
        if lines.shown == 0 && stop.is_none() {
            text = nothing_found(query, &lookup);
        }
        match stop {
            None => {}
            Some(Stop::MaxResults(n)) => text.push_str(&max_results_stopped(n, "matching lines")),
            Some(Stop::Output) => text.push_str(&output_stopped(
                text.len(),
                limits.max_result_bytes,
                "narrow the path, lower max-results",
            )),
        }
        let last = lookup.last.as_deref();
        if lookup.capped {
            let last = shown_path(last.unwrap_or(query.path), false);
            text.push_str(&format!(
                "\n\n[stopped early, the answer covers the tree up to '{last}': one call reads at most {MAX_WALK_FILES} files; narrow path]"
            ));
        }
        if let Some(error) = lookup.stopped {
            text.push_str(&walk_stopped(error, last, limits, NARROW_PATH)?);
        }
        text.extend(too_deep_notice(&lookup.too_deep, limits.max_depth));
        text.extend(rules_notice(&lookup.not_applied));
        if let Some(marked) = marked_clause(&lookup.marked) {
            text.push_str(&format!("\n\n[{marked}]"));
        }
        if let Some(note) = not_built_in_note(&lookup.not_built_in) {
            text.push_str(&format!("\n\n[{note}]"));
        }
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }

    /// The references section: every referring line for a plain name (counted from the
    /// cache, read from the files shown), or the lines spelling a qualified name (found by
    /// reading each referring file in turn until the answer is full).
    fn push_references(
        &self,
        lookup: &Lookup,
        wanted: Wanted<'_>,
        name: &str,
        lines: &mut Lines,
    ) -> Result<(), FsError> {
        let referring: Vec<&FoundFile> = lookup
            .files
            .iter()
            .filter(|f| !f.references.is_empty())
            .collect();
        if referring.is_empty() {
            return Ok(());
        }
        let spellings = wanted.spellings();
        let header = if spellings.is_empty() {
            let total: usize = referring.iter().map(|f| f.references.len()).sum();
            format!(
                "{} to '{name}' in {}:",
                count(total as u64, "reference", "references"),
                count(referring.len() as u64, "file", "files")
            )
        } else {
            format!(
                "References spelling '{name}' (uses through a value are listed under '{}'):",
                wanted.member
            )
        };
        let mut headed = false;
        for file in &referring {
            let Some(texts) = self.referring_texts(file)? else {
                continue;
            };
            for (line, text) in file.references.iter().zip(texts) {
                if !spellings.is_empty() && !spellings.iter().any(|s| text.contains(s.as_str())) {
                    continue;
                }
                if !headed {
                    lines.header(&header);
                    headed = true;
                }
                if !lines.push(&file.entry.path, *line, text.trim_start()) {
                    return Ok(());
                }
            }
        }
        if !headed && !spellings.is_empty() {
            // Say what the plain name would show, rather than leave the section out unsaid.
            let total: usize = referring.iter().map(|f| f.references.len()).sum();
            lines.header(&format!(
                "No line spells '{name}'; {} to '{}' (through a value, or another type's): look up '{}' to see them",
                count(total as u64, "line refers", "lines refer"),
                wanted.member,
                wanted.member
            ));
        }
        Ok(())
    }
}

/// The answer when nothing defines or refers to the name.
fn nothing_found(query: &SymbolsQuery<'_>, lookup: &Lookup) -> String {
    let what = if query.references {
        "No definition of or reference to"
    } else {
        "No definition of"
    };
    format!(
        "{what} '{}' in the {} under '{}' that the map reads; grep finds it in any text",
        query.name,
        count(lookup.read as u64, "source file", "source files"),
        query.path
    )
}

/// The answer's lines: sections, and `path:line: text` lines within `max-results`.
struct Lines {
    lines: BudgetedLines,
    /// Definition and reference lines shown.
    shown: u64,
    max_results: u64,
}

impl Lines {
    /// Starts a section (after a blank line, unless it is the first).
    fn header(&mut self, header: &str) {
        let before = if self.lines.text.is_empty() { "" } else { "\n" };
        self.lines.push(before, header);
    }

    /// Appends `path:line: text`; false (and the answer stops) when max-results lines are
    /// shown already or it would not fit.
    fn push(&mut self, path: &str, line: u32, text: &str) -> bool {
        if self.shown == self.max_results {
            self.lines.stop = Some(Stop::MaxResults(self.max_results));
            return false;
        }
        let entry = format!("{}:{line}: {text}", shown_path(path, true));
        if !self.lines.push("", &entry) {
            return false;
        }
        self.shown += 1;
        true
    }
}

/// The name to look up, checked: one identifier, or a member qualified by its container
/// (`Type::member`, `Class.member`; only the container's last segment counts).
fn wanted(name: &str) -> Result<Wanted<'_>, FsError> {
    if name.is_empty() {
        return Err(FsError::EmptyName);
    }
    let (container, member) = match name.rsplit_once("::") {
        Some((container, member)) => (Some(container), member),
        None => match name.rsplit_once('.') {
            Some((container, member)) => (Some(container), member),
            None => (None, name),
        },
    };
    let container = container.map(|c| {
        c.rsplit("::")
            .next()
            .and_then(|c| c.rsplit('.').next())
            .unwrap_or(c)
    });
    let valid = identifier(member) && container.is_none_or(identifier);
    if !valid {
        return Err(FsError::NotIdentifier(name.to_owned()));
    }
    Ok(Wanted { member, container })
}

/// Whether `name` is one identifier as the map's languages spell them: letters, digits, `_`
/// and `$` (JavaScript), a leading `@` or `$` (Ruby's instance variables, PHP's variables),
/// a trailing `?`, `!` or `=` (Ruby's methods), and inner `-` (Raku); letters may carry
/// combining marks (a decomposed accent).
fn identifier(name: &str) -> bool {
    let body = name.trim_start_matches(['@', '$']);
    let body = body.strip_suffix(['?', '!', '=']).unwrap_or(body);
    !body.is_empty()
        && !body.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && !body.ends_with('-')
        && body
            .chars()
            .all(|c| c.is_alphanumeric() || is_combining_mark(c) || matches!(c, '_' | '$' | '-'))
}

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Finder,
        "symbols",
        "Find definitions and uses",
        "Finds where a name is defined below path (default the root) and, unless references is false, the lines that use it: 'path:line: text', definitions first, from the same parse as map. name is one identifier as the code spells it; 'Type::method' or 'Class.method' narrows to members of that type. Stops after max-results lines.",
        object_schema(
            vec![
                ("name", json!({"type": "string"})),
                ("path", json!({"type": "string", "default": "."})),
                ("references", json!({"type": "boolean", "default": true})),
                (
                    "max-results",
                    json!({"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_MAX_RESULTS}),
                ),
            ],
            &["name"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let query = SymbolsQuery {
        name: str_arg(arguments, "name"),
        path: path_or_root(arguments, "path"),
        references: arguments
            .get("references")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        max_results: arguments
            .get("max-results")
            .and_then(positive_safe_integer)
            .unwrap_or(DEFAULT_MAX_RESULTS),
    };
    answer(fs, fs.symbols(&query), None, NARROW_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_qualified_names() {
        fn ok(name: &str) -> Result<(Option<&str>, &str), FsError> {
            wanted(name).map(|w| (w.container, w.member))
        }
        assert_eq!(ok("parse_args"), Ok((None, "parse_args")));
        assert_eq!(ok("Config::new"), Ok((Some("Config"), "new")));
        assert_eq!(ok("crate::cfg::Config::new"), Ok((Some("Config"), "new")));
        assert_eq!(ok("Dog.bark"), Ok((Some("Dog"), "bark")));
        assert_eq!(ok("empty?"), Ok((None, "empty?")));
        assert_eq!(ok("@name"), Ok((None, "@name")));
        assert_eq!(ok("$scope"), Ok((None, "$scope")));
        assert_eq!(ok("is-prime"), Ok((None, "is-prime")));
        assert_eq!(ok("名前"), Ok((None, "名前")));
        assert_eq!(wanted(""), Err(FsError::EmptyName));
        for bad in [
            "a b", "fn foo", "foo()", "::new", "Type::", "a.b.", "-x", "x-", "1st", "a*", "?",
        ] {
            assert_eq!(
                wanted(bad),
                Err(FsError::NotIdentifier(bad.to_owned())),
                "{bad}"
            );
        }
    }
}
