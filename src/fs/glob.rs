//! `glob`: the files below a directory whose names or paths match a pattern, at any depth.
//!
//! [`Fs::glob`] compiles the pattern once ([`FileGlob`]: the glob `rg -g` reads), walks the
//! served tree below the directory in tree order with [`Root::in_order`] (links are never
//! followed, excluded names never looked at) and keeps the files whose path relative to the
//! directory the pattern keeps: `{"pattern": "*.md", "path": "notes"}` answers
//! `notes/ideas.md` and `notes/todo.md`, one per line. The walk stops where the answer is
//! full; a ceiling the configuration named or the call's deadline ends it early with what it
//! found and a notice saying how far it got.
//!
//! [`Root::in_order`]: crate::root::Root::in_order

use serde_json::{Map, Value, json};

use super::after::{notice_room, or_continue, walk_notice_room};
use super::answer::{
    FsAnswer, answer_budget, no_matches, output_stopped, rules_notice, too_deep_notice,
    walk_stopped,
};
use super::file_glob::FileGlob;
use super::locate::ScopeKind;
use super::shown::shown_path;
use super::{Fs, FsError, Kind, NARROW_PATH, answer, path_or_root, str_arg};
use crate::measure::escaped_len;
use crate::root::{RootError, Step};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Finder,
        "glob",
        "Find files by name",
        "Finds files by name below a directory (path, default the root): their paths, one per line, in tree order. Globs as ripgrep's -g reads them: '**' spans directories, {a,b} and [ab] choose, '*' and '?' stay within a segment; without '/' a pattern matches names at any depth, with '/' the path from the root. A cut answer names the after that continues it.",
        object_schema(
            vec![
                ("pattern", json!({"type": "string"})),
                ("path", json!({"type": "string", "default": "."})),
                ("after", json!({"type": "string"})),
            ],
            &["pattern"],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    answer(
        fs,
        fs.glob(
            str_arg(arguments, "pattern"),
            path_or_root(arguments, "path"),
            optional_str(arguments, "after"),
        ),
        None,
        NARROW_PATH,
    )
}

impl Fs {
    /// The served files below the directory `path` that `pattern` keeps (read as `rg -g` reads
    /// it at the root: a pattern without `/` matches names at any depth, one with `/` the path
    /// from the root), in tree order, one per line; with `after`, those that follow that path.
    /// A list too long for `--max-result-bytes` stops at a whole path, with a notice naming
    /// the `after` that continues it.
    pub fn glob(
        &self,
        pattern: &str,
        path: &str,
        after: Option<&str>,
    ) -> Result<FsAnswer, FsError> {
        let glob = FileGlob::new(pattern, "pattern")?;
        let at = self.parse_path(path)?;
        let after = self.after(after, false)?;
        let scope = self.search_scope(&at, ScopeKind::Directory)?;
        let limits = self.root().limits();
        let budget = answer_budget(limits.max_result_bytes);
        let mut text = String::new();
        let mut used = 0u64;
        let mut too_deep = Vec::new();
        let mut not_applied = Vec::new();
        let mut stopped = None;
        let mut last: Option<String> = None;
        let mut shown_last: Option<String> = None;
        // The notice of a page cut for room, continuing after the last path shown.
        let full = |text: &str, shown_last: &Option<String>| {
            output_stopped(
                text.len(),
                limits.max_result_bytes,
                &or_continue(shown_last.as_deref(), "narrow the pattern or the path"),
            )
        };
        let mut walk = self.root().in_order(&scope);
        // The walk goes no further than the answer: it stops at the first path that does not fit.
        while let Some(step) = walk.next() {
            let file = match step {
                Ok(Step::File(file)) => file,
                Ok(Step::TooDeep(dir)) => {
                    too_deep.push(dir);
                    continue;
                }
                Ok(Step::RulesNotApplied(rules)) => {
                    not_applied.push(rules);
                    continue;
                }
                Ok(Step::Directory(dir)) => {
                    // A directory wholly before the page's start is not walked again.
                    if after.as_ref().is_some_and(|after| !after.enters(&dir)) {
                        walk.leave();
                    }
                    continue;
                }
                Ok(Step::Marked(_)) => continue,
                Err(error) => {
                    // A later page walks what lies before its position too, so it gets past
                    // the deadline, not a ceiling.
                    let position = last.as_deref().filter(|_| error == RootError::Deadline);
                    let narrow = or_continue(position, NARROW);
                    stopped = Some(walk_stopped(error, last.as_deref(), limits, Some(&narrow))?);
                    break;
                }
            };
            if after.as_ref().is_some_and(|after| !after.keeps(&file.path)) {
                continue;
            }
            // A walk stop's notice would name this path (twice): a page that could not hold
            // that ends here, as a full one does.
            if shown_last.is_some() && used + walk_notice_room(&file.path) > budget {
                stopped = Some(full(&text, &shown_last));
                break;
            }
            last = Some(file.path.clone());
            if !glob.keeps(&file.path, &scope) {
                continue;
            }
            let shown = shown_path(&file.path, false);
            // A joining newline travels as two bytes (`\n`).
            let cost = escaped_len(&shown) + if text.is_empty() { 0 } else { 2 };
            if used + cost + notice_room(&file.path) > budget {
                stopped = Some(full(&text, &shown_last));
                break;
            }
            used += cost;
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&shown);
            shown_last = Some(file.path.clone());
        }
        if text.is_empty() {
            text = no_matches(pattern, &at.given);
            text.extend(glob.how_read(&scope));
        }
        text.extend(stopped);
        text.extend(too_deep_notice(&too_deep, limits.max_depth));
        text.extend(rules_notice(&not_applied));
        Ok(FsAnswer {
            text,
            revisions: None,
        })
    }
}

/// What a glob stopped by a limit suggests.
const NARROW: &str = "narrow the path or the pattern";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_and_annotations() {
        let spec = tool().spec;
        assert_eq!(spec.input_schema["required"], json!(["pattern"]));
        assert_eq!(spec.input_schema["properties"]["path"]["default"], ".");
        assert_eq!(spec.input_schema["additionalProperties"], false);
        assert!(spec.read_only && spec.hints && spec.output_schema.is_none());
        assert!(spec.description.len() < 400, "{}", spec.description.len());
    }
}
