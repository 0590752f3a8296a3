//! `stat`: seven lines about one path.

use serde_json::{Map, Value, json};

use super::answer::FsAnswer;
use super::locate::FsPath;
use super::revision::revisions_value;
use super::{Fs, FsError, Kind, answer, str_arg};
use crate::root::Node;
use crate::tools::{Tool, ToolOutput, object_schema};

pub(super) fn tool() -> Tool<Fs> {
    super::tool(
        Kind::Observer,
        "stat",
        "Describe a path",
        "Describes one path under the root in seven lines: path, type (file, directory or other), size in bytes, modified time (ISO 8601, UTC), whether it is a symbolic link, and whether it is readable and writable. Links are described, never followed.",
        object_schema(vec![("path", json!({"type": "string"}))], &["path"]),
        run,
    )
}

fn run(fs: &Fs, arguments: &Map<String, Value>) -> Result<ToolOutput, FsError> {
    let at = fs.parse_path(str_arg(arguments, "path"))?;
    answer(fs, fs.stat_path(&at), Some(&at.given), None)
}

impl Fs {
    /// Seven lines about one path: path, type, size, modified, symlink, readable, writable.
    pub(super) fn stat_path(&self, at: &FsPath) -> Result<FsAnswer, FsError> {
        let (given, path) = (at.given.as_str(), &at.path);
        let link = self.served_location(at, false)?;
        let symlink = matches!(link.node(), Node::Symlink(..));
        // A followed link is described by its target, and still reported as a link.
        let location = if symlink && self.root().follows_symlinks() {
            self.served_location(at, true)?
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
            Node::Absent => return Err(FsError::Missing(given.to_owned())),
            Node::File(_) if !self.serves_file(path, &location) => {
                return Err(FsError::NotServed(given.to_owned()));
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
            yes_no(info.writable && !self.read_only),
        );
        let revision = self.revision(&location, false);
        Ok(FsAnswer {
            text,
            revisions: Some(revisions_value(&[("path", revision)])),
        })
    }
}

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
