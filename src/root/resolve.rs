//! Following symbolic links that stay inside the root (`--follow-symlinks`).
//!
//! A path is resolved to the link-free path it names: walking its components from the root
//! descriptor, each link is replaced by its target — joined onto the link's own directory
//! and folded lexically, so `..` can never climb above the root — and the walk starts over,
//! within a hop budget. A link whose target leaves the root, is absolute outside it, or does not
//! read as text is refused. The resolved path is then opened with the same no-follow,
//! component-by-component machinery as any other, so a link swapped in after resolution fails
//! the open instead of redirecting it.

use rustix::fs::FileType;

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
        let mut segments: Vec<String> = path.segments().map(str::to_owned).collect();
        let mut hops = 0;
        'restart: loop {
            let mut dir = reopen(&self.dir).map_err(|_| ChainError::Missing)?;
            for (index, segment) in segments.iter().enumerate() {
                let last = index + 1 == segments.len();
                let Some(stat) = lstat_at(&dir, segment) else {
                    break;
                };
                match file_type(&stat) {
                    FileType::Symlink if !last || follow_last => {
                        hops += 1;
                        if hops > MAX_HOPS {
                            return Err(ChainError::ThroughLink);
                        }
                        let target = rustix::fs::readlinkat(&dir, segment.as_str(), Vec::new())
                            .map_err(|_| ChainError::ThroughLink)?;
                        let target = String::from_utf8(target.into_bytes())
                            .map_err(|_| ChainError::ThroughLink)?;
                        let mut joined = self.target_segments(&target, &segments[..index])?;
                        joined.extend(segments[index + 1..].iter().cloned());
                        segments = fold(joined)?;
                        continue 'restart;
                    }
                    FileType::Directory if !last => {
                        dir = open_dir_at(&dir, segment).map_err(|_| ChainError::Missing)?;
                    }
                    _ if !last => return Err(ChainError::NotDirectory),
                    _ => {}
                }
            }
            let text = segments.join("/");
            return RelPath::parse(&text).map_err(|_| ChainError::ThroughLink);
        }
    }

    /// The segments, from the root, that a link's target names: a relative target joined onto
    /// the link's directory; an absolute one only when it lies under the root's own path.
    fn target_segments(
        &self,
        target: &str,
        link_dir: &[String],
    ) -> Result<Vec<String>, ChainError> {
        let (mut joined, relative) = if target.starts_with('/') {
            let base = self.base.to_string_lossy();
            let rest = target
                .strip_prefix(base.as_ref())
                .filter(|r| r.is_empty() || r.starts_with('/'))
                .ok_or(ChainError::ThroughLink)?;
            (Vec::new(), rest)
        } else {
            (link_dir.to_vec(), target)
        };
        joined.extend(relative.split('/').map(str::to_owned));
        Ok(joined)
    }
}

/// Folds `.` and `..` lexically; `..` above the root is an escape.
fn fold(segments: Vec<String>) -> Result<Vec<String>, ChainError> {
    let mut out: Vec<String> = Vec::new();
    for segment in segments {
        match segment.as_str() {
            "" | "." => {}
            ".." => {
                out.pop().ok_or(ChainError::ThroughLink)?;
            }
            _ => out.push(segment),
        }
    }
    Ok(out)
}
