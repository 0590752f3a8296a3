//! The digest of a served tree's metadata: what a directory's revision is made of, taken from
//! one in-order walk without holding the tree, and remembered while the watcher vouches for it.

use sha2::{Digest, Sha256};

use super::Step;
use crate::remember::{Key, Walked};
use crate::{RelPath, Root, RootError};

impl Root {
    /// SHA-256 (lowercase hex) of the served tree strictly beneath the directory `scope`: one
    /// line per entry in tree order, paths relative to `scope`, `d <path>\n` for a directory
    /// and `f <path> <device> <inode> <size> <mtime ns> <ctime ns>\n` for a file. No file is
    /// read. A tree with a directory deeper than `--max-depth` has no digest
    /// ([`RootError::DepthLimit`]), since a change there would go unseen; a ceiling the
    /// configuration named, the deadline or a cancellation fails it too.
    pub fn tree_digest(&self, scope: &RelPath) -> Result<String, RootError> {
        let key = Key::Digest(scope.as_str().to_owned());
        let ticket = match self.remembered.get(&key) {
            Ok(Walked::Digest(digest)) => return Ok(digest),
            Ok(_) => unreachable!("a kept walk's key names its kind"),
            Err(ticket) => ticket,
        };
        let relative = |path: &str| -> String {
            if scope.is_root() {
                path.to_owned()
            } else {
                path.get(scope.as_str().len() + 1..)
                    .unwrap_or_default()
                    .to_owned()
            }
        };
        let mut hasher = Sha256::new();
        // A revision covers the whole served tree, ignored files too.
        let mut walk = self.in_order_as(scope, None, &[], false);
        for step in walk.by_ref() {
            let line = match step? {
                Step::Directory(path) => format!("d {}\n", relative(&path)),
                Step::File(file) => {
                    let id = file.identity;
                    format!(
                        "f {} {} {} {} {} {}\n",
                        relative(&file.path),
                        id.dev,
                        id.ino,
                        id.size,
                        id.mtime_ns,
                        id.ctime_ns
                    )
                }
                Step::TooDeep(_) => return Err(RootError::DepthLimit),
                // This walk reads no ignore rules and names no markers.
                Step::RulesNotApplied(_) | Step::Marked(_) => continue,
            };
            hasher.update(line.as_bytes());
        }
        let digest: String = hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        self.remembered
            .offer(key, ticket, walk.watched(), Walked::Digest(digest.clone()));
        Ok(digest)
    }
}
