//! Following symbolic links that stay inside the root (`--follow-symlinks`).
//!
//! A path is resolved to the link-free path it names, as realpath does it: walking its
//! components from the root descriptor, each link's target is spliced in where the link
//! stood, and `..` climbs the real directories walked so far (never above the root), within a
//! hop budget. A link whose target leaves the root, is absolute outside it, or does not
//! read as text is refused. The resolved path is then opened like any other, through no link
//! at any component (one `openat2` below the root, or no-follow steps without it), so a link
//! swapped in after resolution fails the open instead of redirecting it.

use crate::sys::fd::OwnedFd;
use std::collections::VecDeque;

use crate::sys::fs::FileType;

use super::dir::{file_type, lstat_at, open_dir_at, reopen};
use super::location::ChainError;
use super::{RelPath, Root};

/// Most links one resolution may follow (a cycle, in practice).
const MAX_HOPS: usize = 40;

impl Root {
    /// The link-free path `path` names. Without `--follow-symlinks` it is `path` itself.
    /// `follow_last` decides whether a link in the final component is replaced too. Components
    /// that do not exist are kept as they are.
    pub(crate) fn resolve(&self, path: &RelPath, follow_last: bool) -> Result<RelPath, ChainError> {
        if !self.follow_symlinks {
            return Ok(path.clone());
        }
        self.chase(path, follow_last)
    }

    /// The link-free path `path` names, following every link on the way as
    /// [`Root::resolve`] does with `--follow-symlinks`, whether or not this root follows links
    /// (a copy asks where a link it would create leads).
    pub(crate) fn chase(&self, path: &RelPath, follow_last: bool) -> Result<RelPath, ChainError> {
        // As realpath does: `resolved` holds only real directories (each with its descriptor),
        // so a `..` met later climbs where the walk physically is, never lexically across a
        // link. `pending` holds what is still to walk, a link's target spliced in front.
        let mut pending: VecDeque<String> = path.segments().map(str::to_owned).collect();
        let mut resolved: Vec<(String, OwnedFd)> = Vec::new();
        let root = reopen(&self.dir).map_err(|_| ChainError::Missing)?;
        let mut hops = 0;
        while let Some(segment) = pending.pop_front() {
            match segment.as_str() {
                "" | "." => continue,
                ".." => {
                    resolved.pop().ok_or(ChainError::ThroughLink)?;
                    continue;
                }
                _ => {}
            }
            let dir = resolved.last().map_or(&root, |(_, fd)| fd);
            let last = pending.is_empty();
            let Some(stat) = lstat_at(dir, &segment) else {
                // Nothing exists here: keep the rest as written (a path to be created).
                let mut rest: Vec<String> = resolved.into_iter().map(|(name, _)| name).collect();
                rest.push(segment);
                rest.extend(pending);
                return relative(rest);
            };
            match file_type(&stat) {
                FileType::Symlink if !last || follow_last => {
                    hops += 1;
                    if hops > MAX_HOPS {
                        return Err(ChainError::ThroughLink);
                    }
                    let target = crate::sys::fs::readlinkat(dir, segment.as_str(), Vec::new())
                        .map_err(|_| ChainError::ThroughLink)?;
                    let target = String::from_utf8(target.into_bytes())
                        .map_err(|_| ChainError::ThroughLink)?;
                    let spliced = match self.absolute_target(&target)? {
                        Some(from_root) => {
                            resolved.clear();
                            from_root
                        }
                        None => target,
                    };
                    for part in spliced.rsplit('/') {
                        pending.push_front(part.to_owned());
                    }
                }
                FileType::Directory if !last => {
                    let fd = open_dir_at(dir, &segment).map_err(|_| ChainError::Missing)?;
                    resolved.push((segment, fd));
                }
                _ if !last => return Err(ChainError::NotDirectory),
                _ => {
                    let mut names: Vec<String> =
                        resolved.into_iter().map(|(name, _)| name).collect();
                    names.push(segment);
                    return relative(names);
                }
            }
        }
        relative(resolved.into_iter().map(|(name, _)| name).collect())
    }

    /// For an absolute link target: the part below the root's own path (`Some`), or a refusal
    /// when it lies elsewhere. `None` for a relative target.
    pub(crate) fn absolute_target(&self, target: &str) -> Result<Option<String>, ChainError> {
        if !target.starts_with('/') {
            return Ok(None);
        }
        super::dir::below(&self.base, target)
            .map(Some)
            .ok_or(ChainError::ThroughLink)
    }
}

/// Joins resolved names into a path, which must pass the same textual rules as any other.
fn relative(names: Vec<String>) -> Result<RelPath, ChainError> {
    RelPath::parse(&names.join("/")).map_err(|_| ChainError::ThroughLink)
}
