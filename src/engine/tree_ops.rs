//! `list`, `stat`, `mkdir`, `move` and `delete`: observing and reshaping the tree, one
//! descriptor-relative step at a time, never following a link and never overwriting.

use serde_json::{Map, Value};

use super::page::escaped_len;
use super::revision::{Revision, revisions_value};
use super::shown::shown_path;
use super::{Engine, EngineError, FsAnswer, FsError, OverLimit};
use crate::root::{
    ChainError, CreateError, EntryKind, MoveError, Node, RelPath, Removal, RemoveError,
};

/// `YYYY-MM-DDTHH:MM:SSZ` for nanoseconds since the epoch.
pub fn iso8601_utc(nanos: i128) -> String {
    let secs = nanos.div_euclid(1_000_000_000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Engine {
    /// The served entries of a directory, one per line, directories marked with `/`.
    pub fn list_entries(&self, given: &str) -> Result<FsAnswer, EngineError> {
        let path = self.fs_path(given)?;
        let _guard = self.lock();
        let location = self.served_location(given, &path, true)?;
        match location.node() {
            Node::Absent => return Err(FsError::Missing(given.to_owned()).into()),
            Node::Directory(_) => {}
            _ => return Err(FsError::NotDirectory(given.to_owned()).into()),
        }
        let entries = self.root().list_with(&path, true)?;
        let text = if entries.is_empty() {
            "(empty directory)".to_owned()
        } else {
            let budget = self.root().limits().max_result_bytes - super::text::RESULT_HEADROOM;
            let mut shown = Vec::new();
            let mut used = 0;
            for entry in entries.iter() {
                let name = shown_path(&entry.name, false);
                let line = match entry.kind {
                    EntryKind::Directory => format!("{name}/"),
                    EntryKind::File => name.into_owned(),
                };
                used += escaped_len(&line) + 2;
                if used > budget {
                    break;
                }
                shown.push(line);
            }
            let mut text = shown.join("\n");
            if shown.len() < entries.len() {
                let over = OverLimit::result_size(
                    format!("listed {} of {} entries", shown.len(), entries.len()),
                    self.root().limits().max_result_bytes,
                    format!(
                        "find the rest with {} and a narrower pattern",
                        self.published().fs("glob")
                    ),
                );
                text.push_str(&format!("\n\n[{over}]"));
            }
            text
        };
        let revision = self.revision(&location, false);
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }

    /// Seven lines about one path: path, type, size, modified, symlink, readable, writable.
    pub fn stat_path(&self, given: &str) -> Result<FsAnswer, EngineError> {
        let path = self.fs_path(given)?;
        let _guard = self.lock();
        let link = self.served_location(given, &path, false)?;
        let symlink = matches!(link.node(), Node::Symlink(..));
        // A followed link is described by its target, and still reported as a link.
        let location = if symlink && self.root().follows_symlinks() {
            self.served_location(given, &path, true)?
        } else {
            link
        };
        let node = location.node();
        // A link is opaque: its size is its target's length, which says where it points.
        let size = match &node {
            Node::Symlink(..) => 0,
            Node::File(info) | Node::Directory(info) | Node::Other(info) => info.identity.size,
            Node::Absent => 0,
        };
        let (kind, info) = match &node {
            Node::Absent => return Err(FsError::Missing(given.to_owned()).into()),
            Node::File(_) if !self.serves_file(&path, &location) => {
                return Err(FsError::NotServed(given.to_owned()).into());
            }
            Node::File(info) => ("file", info),
            Node::Directory(info) => ("directory", info),
            Node::Symlink(info, _) | Node::Other(info) => ("other", info),
        };
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let text = format!(
            "path: {given}\ntype: {kind}\nsize: {size}\nmodified: {}\nsymlink: {}\nreadable: {}\nwritable: {}",
            iso8601_utc(info.identity.mtime_ns),
            yes_no(symlink),
            yes_no(info.readable),
            yes_no(info.writable && !self.is_read_only()),
        );
        let revision = self.revision(&location, false);
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }

    /// Creates a directory and any missing parents; an existing directory is not an error.
    pub fn make_directory(
        &self,
        given: &str,
        expected: Option<&Map<String, Value>>,
    ) -> Result<FsAnswer, EngineError> {
        let path = self.fs_path(given)?;
        let selector = self.root().selector();
        if !path.is_root()
            && (selector.excludes_ancestor(&path) || !selector.selects(path.as_str()))
        {
            return Err(FsError::DestinationNotServed(given.to_owned()).into());
        }
        let _guard = self.lock();
        if expected.is_some() {
            let current = match self.root().locate(&path) {
                Ok(location) => self.revision(&location, true),
                Err(ChainError::Unserved) => {
                    return Err(FsError::DestinationNotServed(given.to_owned()).into());
                }
                Err(ChainError::ThroughLink) => Revision::unknown(),
                Err(_) => Revision::of_absent(),
            };
            check_one(expected, "path", &current)?;
        }
        let mut created = false;
        let mut prefix = RelPath::root();
        let depth = path.depth();
        for (index, segment) in path.segments().enumerate() {
            prefix = RelPath::parse(&prefix.join(segment)).expect("a segment of a parsed path");
            let last = index + 1 == depth;
            let through_link = || -> EngineError { FsError::ThroughLink(given.to_owned()).into() };
            let in_the_way =
                || -> EngineError { FsError::ExistsNotDirectory(prefix.to_string()).into() };
            // What stands at this step, with links followed as the root allows.
            let target = self.root().locate_target(&prefix).map_err(|e| match e {
                ChainError::ThroughLink => through_link(),
                ChainError::Unserved => FsError::DestinationNotServed(given.to_owned()).into(),
                _ => in_the_way(),
            })?;
            match target.node() {
                Node::Directory(_) => continue,
                Node::Absent => {}
                Node::Symlink(..) if !last => return Err(through_link()),
                _ => return Err(in_the_way()),
            }
            match target.create_dir() {
                Ok(made) => created |= made,
                Err(CreateError::InTheWay) => return Err(in_the_way()),
                Err(_) => return Err(FsError::Refused(given.to_owned()).into()),
            }
        }
        let location = self.served_location(given, &path, true)?;
        let text = if created {
            format!("Created directory '{given}'")
        } else {
            format!("Directory '{given}' already exists")
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[(
                "path",
                self.revision(&location, false),
            )])),
        })
    }

    /// Renames `from` to `to`; never overwrites, never copies, never creates a parent.
    pub fn move_path(
        &self,
        from_given: &str,
        to_given: &str,
        expected: Option<&Map<String, Value>>,
    ) -> Result<FsAnswer, EngineError> {
        let from = self.fs_path(from_given)?;
        let to = self.fs_path(to_given)?;
        if from.is_root() || to.is_root() {
            return Err(FsError::MoveRoot.into());
        }
        if from.contains(to.as_str()) {
            return Err(FsError::MoveIntoItself(from_given.to_owned(), to_given.to_owned()).into());
        }
        let _guard = self.lock();
        let source = self.served_location(from_given, &from, false)?;
        let source_node = source.node();
        match &source_node {
            Node::Absent => return Err(FsError::Missing(from_given.to_owned()).into()),
            Node::Directory(_) => {}
            _ if !self.serves_file(&from, &source) => {
                return Err(FsError::NotServed(from_given.to_owned()).into());
            }
            _ => {}
        }
        let is_dir = matches!(source_node, Node::Directory(_));
        let target = self.destination(to_given, &to, !is_dir)?;
        if !matches!(target.node(), Node::Absent) {
            return Err(FsError::TargetExists(to_given.to_owned()).into());
        }
        if is_dir {
            // A move changes what is served only by the entries it moves: each must be
            // served both where it is and where it would go, or nothing moves.
            let selector = self.root().selector();
            let (from_dir, to_dir) = (source.path().as_str(), target.path().as_str());
            let allowed = |p: &str, is_dir: bool| {
                let moved = format!("{to_dir}{}", &p[from_dir.len()..]);
                selector.serves_entry(p, is_dir) && selector.serves_entry(&moved, is_dir)
            };
            if self.root().check_tree(&source, &allowed)?.is_none() {
                return Err(FsError::MoveUnserved(from_given.to_owned()).into());
            }
        }
        self.check_expected(expected, &[("from", &source), ("to", &target)])?;
        source.rename_to(&target).map_err(|e| -> EngineError {
            match e {
                MoveError::Exists => FsError::TargetExists(to_given.to_owned()).into(),
                MoveError::Missing => FsError::Missing(from_given.to_owned()).into(),
                MoveError::IntoItself => {
                    FsError::MoveIntoItself(from_given.to_owned(), to_given.to_owned()).into()
                }
                MoveError::CrossDevice => {
                    FsError::CrossDevice(from_given.to_owned(), to_given.to_owned()).into()
                }
                MoveError::Failed => FsError::Refused(from_given.to_owned()).into(),
            }
        })?;
        Ok(FsAnswer {
            text: format!("Moved '{from_given}' to '{to_given}'"),
            revisions: Some(revisions_value(&[
                ("from", self.revision(&source, false)),
                ("to", self.revision(&target, false)),
            ])),
        })
    }

    /// Deletes a file, a link, an empty directory, or with `recursive` a whole served tree.
    pub fn delete_path(
        &self,
        given: &str,
        recursive: bool,
        expected: Option<&Map<String, Value>>,
    ) -> Result<FsAnswer, EngineError> {
        let path = self.fs_path(given)?;
        if path.is_root() {
            return Err(FsError::DeleteRoot.into());
        }
        let _guard = self.lock();
        let location = self.served_location(given, &path, false)?;
        let node = location.node();
        match &node {
            Node::Absent => return Err(FsError::Missing(given.to_owned()).into()),
            Node::File(_) | Node::Other(_) if !self.serves_file(&path, &location) => {
                return Err(FsError::NotServed(given.to_owned()).into());
            }
            _ => {}
        }
        self.check_expected(expected, &[("path", &location)])?;
        let refused = |_| -> EngineError { FsError::Refused(given.to_owned()).into() };
        let text = match node {
            Node::Directory(_) => match location.remove(true) {
                Ok(()) => format!("Deleted empty directory '{given}'"),
                Err(RemoveError::NotEmpty) => {
                    if !recursive {
                        return Err(FsError::NotEmpty(given.to_owned()).into());
                    }
                    let selector = self.root().selector();
                    let allowed = |p: &str, is_dir: bool| selector.serves_entry(p, is_dir);
                    let Some(seen) = self.root().check_tree(&location, &allowed)? else {
                        return Err(FsError::DeleteUnserved(given.to_owned()).into());
                    };
                    if self.root().remove_seen(&location, &seen)? != Removal::Complete {
                        return Err(FsError::DeleteRaced(given.to_owned()).into());
                    }
                    format!("Deleted directory '{given}' and everything below it")
                }
                Err(e) => return Err(refused(e)),
            },
            Node::Symlink(..) => {
                location.remove(false).map_err(refused)?;
                format!("Deleted symbolic link '{given}'")
            }
            _ => {
                location.remove(false).map_err(refused)?;
                format!("Deleted file '{given}'")
            }
        };
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", Revision::of_absent())])),
        })
    }
}

/// Compares one computed revision with the expected token for `arg`.
fn check_one(
    expected: Option<&Map<String, Value>>,
    arg: &str,
    current: &Revision,
) -> Result<(), EngineError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let Some(token) = expected.get(arg).and_then(Value::as_str) else {
        return Err(FsError::RevisionMissing(arg.to_owned()).into());
    };
    if current.token.as_deref() == Some(token) {
        Ok(())
    } else {
        Err(super::revision::mismatch(arg, token, current))
    }
}

#[cfg(test)]
mod tests {
    use super::iso8601_utc;

    #[test]
    fn formats_utc_seconds() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(
            iso8601_utc(1_785_356_042 * 1_000_000_000),
            "2026-07-29T20:14:02Z"
        );
        assert_eq!(
            iso8601_utc(951_782_400 * 1_000_000_000 + 5),
            "2000-02-29T00:00:00Z"
        );
    }
}
