//! `list`: the entries of one directory.

use serde_json::{Map, Value, json};

use super::after::{notice_room, or_continue};
use super::answer::{FsAnswer, answer_budget, walk_stopped};
use super::locate::FsPath;
use super::revision::revisions_value;
use super::shown::shown_path;
use super::{Fs, FsError, Kind, OverLimit, answer, path_or_root};
use crate::measure::escaped_len;
use crate::root::{EntryKind, Node};
use crate::tools::{Tool, ToolOutput, object_schema, optional_str};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Observer,
        "list",
        "List a directory",
        "Lists the entries directly inside a directory under the root, sorted, one per line, directories marked with a trailing '/', symbolic links with '@'; a cut answer says which after continues it. An empty directory answers '(empty directory)'. Use glob to find files at any depth.",
        object_schema(
            vec![
                ("path", json!({"type": "string", "default": "."})),
                ("after", json!({"type": "string"})),
            ],
            &[],
        ),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let at = fs.parse_path(path_or_root(arguments, "path"))?;
    let after = optional_str(arguments, "after");
    answer(fs, fs.list_entries(&at, after), Some(&at.given), None)
}

impl Fs {
    /// The served entries of a directory, one per line, directories marked with `/`; with
    /// `after` (a path an earlier page ended at), those that follow it.
    pub(super) fn list_entries(
        &self,
        at: &FsPath,
        after: Option<&str>,
    ) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let after = self.after(after, false)?;
        let location = self.served_location(at, true)?;
        match location.node() {
            Node::Absent => return Err(FsError::Missing(given.to_owned())),
            Node::Directory(_) => {}
            _ => return Err(FsError::NotDirectory(given.to_owned())),
        }
        let listed = self.root().list_with(path, true)?;
        let entries: Vec<_> = listed
            .entries
            .iter()
            .filter(|entry| after.as_ref().is_none_or(|after| after.keeps(&entry.path)))
            .collect();
        let mut text = if entries.is_empty() && listed.stopped.is_none() {
            match after {
                Some(_) => "(no entries after it)".to_owned(),
                None => "(empty directory)".to_owned(),
            }
        } else {
            let budget = answer_budget(self.root().limits().max_result_bytes);
            let mut shown = Vec::new();
            let mut used = 0;
            for entry in &entries {
                let name = shown_path(&entry.name, false);
                let line = match entry.kind {
                    EntryKind::Directory => format!("{name}/"),
                    EntryKind::File => name.into_owned(),
                    EntryKind::Link => format!("{name}@"),
                };
                used += escaped_len(&line) + 2;
                if used + notice_room(&entry.path) > budget {
                    break;
                }
                shown.push(line);
            }
            let mut text = shown.join("\n");
            if shown.len() < entries.len() {
                let which = if after.is_some() { "the " } else { "" };
                let rest = if after.is_some() { " after it" } else { "" };
                let over = OverLimit::result_size(
                    format!(
                        "listed {} of {which}{} entries{rest}",
                        shown.len(),
                        entries.len()
                    ),
                    self.root().limits().max_result_bytes,
                    or_continue(
                        shown
                            .len()
                            .checked_sub(1)
                            .map(|last| entries[last].path.as_str()),
                        &format!(
                            "find files with {} and a narrower pattern",
                            self.published.fs("glob")
                        ),
                    ),
                );
                text.push_str(&format!("\n\n[{over}]"));
            }
            text
        };
        if let Some(stop) = listed.stopped {
            // A listing has no argument to narrow: the notice says only how to raise the limit.
            let last = listed.entries.last().map(|entry| entry.path.as_str());
            text.push_str(&walk_stopped(stop, last, self.root().limits(), None)?);
            text = text.trim_start_matches('\n').to_owned();
        }
        let revision = self.revision(&location, false);
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }
}
