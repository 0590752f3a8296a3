//! `symbols`: where a name is defined below a directory, and which lines refer to it.
//!
//! The answer comes from the code map's walk, tags and cache (see [`super::map`]): the same
//! walk (the directories it passes over, its file ceiling), the same languages, and no parse
//! of a file the map or an earlier lookup already read unchanged for its definitions.
//! Definitions come first, as `path:line: text`; then references, as `path:line: [kinds]
//! text`, in tree order, under a header that counts exactly the lines listed. A reference is
//! every use of the name in code, found in the syntax tree of each file whose vocabulary holds
//! the word (see [`super::map::uses`]): imports, calls, types, paths, bases, decorators,
//! values; never a comment, a string, or a line defining the name. Files are read only until
//! the answer is full, and a closing notice says how many lines and files it left out.
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
use super::locate::ScopeKind;
use super::map::MAX_WALK_FILES;
use super::map::lookup::{FoundFile, Lookup, UseLine, Wanted};
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
        let at = self.parse_path(query.path)?;
        let scope = self.search_scope(&at, ScopeKind::DirectoryOrFile)?;
        let max_results = query.max_results.clamp(1, MAX_RESULTS);
        let lookup = self.look_up(&scope, wanted, query.references)?;
        let limits = self.root().limits();
        let mut lines = Lines {
            lines: BudgetedLines::new(answer_budget(limits.max_result_bytes)),
            shown: 0,
            max_results,
            left_out: None,
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
        let left_out = lines.left_out.take();
        let mut text = lines.lines.text;
        text.extend(left_out);
        if lines.shown == 0 && stop.is_none() {
            text = nothing_found(query, &at.given, &lookup);
        }
        match stop {
            None => {}
            Some(Stop::MaxResults(n)) => {
                text.push_str(&max_results_stopped(n, "matching lines", None))
            }
            Some(Stop::Output) => text.push_str(&output_stopped(
                text.len(),
                limits.max_result_bytes,
                "narrow the path, lower max-results",
            )),
        }
        let last = lookup.last.as_deref();
        if lookup.capped {
            let last = shown_path(last.unwrap_or(&at.given), false);
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

    /// The references section: every line using the name in code, each marked with its
    /// kinds (`[import]`, `[call, path]`), under a header counting exactly the lines listed;
    /// for a qualified name, the lines spelling it. Files are read in tree order, and only
    /// until one line more than `max-results` allows is found; what is left out is said.
    fn push_references(
        &self,
        lookup: &Lookup,
        wanted: Wanted<'_>,
        name: &str,
        lines: &mut Lines,
    ) -> Result<(), FsError> {
        let candidates: Vec<&FoundFile> = lookup
            .files
            .iter()
            .filter(|f| f.mentions || !f.references.is_empty())
            .collect();
        let spellings = wanted.spellings();
        let room = usize::try_from(lines.max_results - lines.shown).unwrap_or(usize::MAX);
        let mut gathered: Vec<(&FoundFile, UseLine)> = Vec::new();
        let mut unspelled = 0usize;
        let mut read = 0usize;
        for file in &candidates {
            if gathered.len() > room {
                break;
            }
            read += 1;
            let Some(found) = self.uses_in(file, wanted.member)? else {
                continue;
            };
            for line in found {
                if spellings.is_empty() || spellings.iter().any(|s| line.text.contains(s.as_str()))
                {
                    gathered.push((file, line));
                } else {
                    unspelled += 1;
                }
            }
        }
        let unread = candidates.len() - read;
        if room == 0 {
            // The definitions filled max-results: a use found is left out, and said to be.
            if !gathered.is_empty() {
                lines.lines.stop = Some(Stop::MaxResults(lines.max_results));
            }
            return Ok(());
        }
        if gathered.is_empty() {
            if !spellings.is_empty() && unspelled > 0 {
                // Say what the plain name would show, rather than leave the section out unsaid.
                lines.header(&format!(
                    "No line spells '{name}'; {} to '{}' (through a value, or another type's): look up '{}' to see them",
                    count(unspelled as u64, "line refers", "lines refer"),
                    wanted.member,
                    wanted.member
                ));
            }
            return Ok(());
        }
        let header = |shown: &[(&FoundFile, UseLine)]| {
            if !spellings.is_empty() {
                return format!(
                    "References spelling '{name}' (uses through a value are listed under '{}'):",
                    wanted.member
                );
            }
            let mut files: Vec<&str> = shown.iter().map(|(f, _)| f.entry.path.as_str()).collect();
            files.dedup();
            format!(
                "{} to '{name}' in {}:",
                count(shown.len() as u64, "reference", "references"),
                count(files.len() as u64, "file", "files")
            )
        };
        let entry = |(file, line): &(&FoundFile, UseLine)| {
            let kinds: Vec<&str> = line.kinds.iter().map(|k| k.as_str()).collect();
            format!(
                "{}:{}: [{}] {}",
                shown_path(&file.entry.path, true),
                line.line,
                kinds.join(", "),
                line.text.trim_start()
            )
        };
        // How many lines fit the result limit under the header that counts them: a header
        // counting fewer lines is never longer, so a second trial fits.
        let mut shown = gathered.len().min(room);
        loop {
            let mut trial = lines.lines.clone();
            let before = if trial.text.is_empty() { "" } else { "\n" };
            if !trial.push(before, &header(&gathered[..shown])) {
                lines.lines.stop = Some(Stop::Output);
                return Ok(());
            }
            let fit = gathered[..shown]
                .iter()
                .take_while(|line| trial.push("", &entry(line)))
                .count();
            if fit == shown {
                break;
            }
            shown = fit;
        }
        lines.header(&header(&gathered[..shown]));
        for line in &gathered[..shown] {
            lines.lines.push("", &entry(line));
            lines.shown += 1;
        }
        if shown < gathered.len().min(room) {
            lines.lines.stop = Some(Stop::Output);
        } else if shown < gathered.len() || unread > 0 {
            let rest = &gathered[shown..];
            let mut files: Vec<&str> = rest.iter().map(|(f, _)| f.entry.path.as_str()).collect();
            files.dedup();
            let mut left_out = Vec::new();
            if !rest.is_empty() {
                left_out.push(format!(
                    "{} more {} in {}",
                    rest.len(),
                    if rest.len() == 1 { "line" } else { "lines" },
                    count(files.len() as u64, "file", "files")
                ));
            }
            if unread > 0 {
                left_out.push(format!(
                    "{} holding the word '{}' not read",
                    count(unread as u64, "file", "files"),
                    wanted.member
                ));
            }
            lines.left_out = Some(format!(
                "\n\n[references stopped at max-results ({}): {}; raise max-results or narrow path]",
                lines.max_results,
                left_out.join(", ")
            ));
        }
        Ok(())
    }
}

/// The answer when nothing defines or refers to the name.
fn nothing_found(query: &SymbolsQuery<'_>, path: &str, lookup: &Lookup) -> String {
    let what = if query.references {
        "No definition of or reference to"
    } else {
        "No definition of"
    };
    format!(
        "{what} '{}' in the {} under '{}' that the map reads; grep finds it in any text",
        query.name,
        count(lookup.read as u64, "source file", "source files"),
        path
    )
}

/// The answer's lines: sections, and `path:line: text` lines within `max-results`.
struct Lines {
    lines: BudgetedLines,
    /// Definition and reference lines shown.
    shown: u64,
    max_results: u64,
    /// The notice of the references `max-results` left out.
    left_out: Option<String>,
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
        "Finds where a name is defined below path (default the root) and, unless references is false, every line of code that uses it (imports, calls, types, paths, bases, values; not comments or strings): definitions as 'path:line: text', then uses as 'path:line: [kind] text'. name is one identifier as the code spells it; 'Type::method' or 'Class.method' narrows to members of that type. Stops after max-results lines.",
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
