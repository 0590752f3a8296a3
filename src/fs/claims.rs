//! The paths this set's mutations are changing right now. A mutation claims the paths it
//! names before it looks at them and holds them until it has answered, so its revision check
//! and its change are one step to every other mutation of this set; two mutations wait for
//! each other only when one's path is the other's or lies inside it. Observations (`read`,
//! `list`, `stat`, the searches) claim nothing: each answers from what it read in one pass
//! (a file's text and revision from the same bytes, through one descriptor), and a mutation
//! replaces a file by renaming a new one over it, so a reader sees the old file or the new
//! one, never a mixture.
//!
//! Where one file has several names, paths cannot tell whether two claims meet, so the
//! claim covers the whole root: with `--follow-symlinks` (a link names its target), and on
//! systems whose filesystems fold case (`A.txt` is `a.txt`).

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use super::FsError;
use crate::root::{EXCLUDES_IGNORE_CASE, RelPath};

/// How often a waiting mutation looks at its call's deadline and cancellation.
const RECHECK: Duration = Duration::from_millis(50);

/// The paths claimed on one root, each as often as it is claimed.
#[derive(Debug, Default)]
pub(super) struct Claims {
    held: Mutex<Vec<String>>,
    freed: Condvar,
}

/// Paths claimed by one mutation, released when dropped.
#[derive(Debug)]
pub(super) struct Claim<'c> {
    claims: &'c Claims,
    paths: Vec<String>,
}

impl Claims {
    /// Claims `paths` for one mutation, waiting while another holds one of them, one inside
    /// them, or one they lie inside; `whole_root` claims the root itself instead. The wait
    /// ends at the call's deadline or cancellation, which is then the answer.
    pub(super) fn claim(&self, paths: &[&RelPath], whole_root: bool) -> Result<Claim<'_>, FsError> {
        let paths: Vec<String> = if whole_root || EXCLUDES_IGNORE_CASE {
            vec![String::new()]
        } else {
            paths.iter().map(|path| path.as_str().to_owned()).collect()
        };
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        while held
            .iter()
            .any(|other| paths.iter().any(|path| overlap(path, other)))
        {
            crate::root::check_deadline()?;
            held = self
                .freed
                .wait_timeout(held, RECHECK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        held.extend(paths.iter().cloned());
        Ok(Claim {
            claims: self,
            paths,
        })
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut held = self
            .claims
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for path in &self.paths {
            if let Some(at) = held.iter().position(|other| other == path) {
                held.swap_remove(at);
            }
        }
        drop(held);
        self.claims.freed.notify_all();
    }
}

/// Whether one of the root-relative paths `a` and `b` is the other or lies inside it (`""`
/// is the root).
fn overlap(a: &str, b: &str) -> bool {
    let inside = |inner: &str, outer: &str| {
        outer.is_empty()
            || inner == outer
            || inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    inside(a, b) || inside(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_overlap_when_one_holds_the_other() {
        assert!(overlap("a", "a"));
        assert!(overlap("a/b", "a"));
        assert!(overlap("a", "a/b/c"));
        assert!(overlap("", "x"));
        assert!(!overlap("a", "ab"));
        assert!(!overlap("a/b", "a/c"));
    }

    // Where names fold case, every claim is the whole root.
    #[cfg(not(any(windows, target_vendor = "apple")))]
    #[test]
    fn a_claim_waits_only_for_what_it_meets_and_is_freed_on_drop() {
        let claims = Claims::default();
        let (a, ab, b) = (
            RelPath::parse("a").unwrap(),
            RelPath::parse("a/b").unwrap(),
            RelPath::parse("b").unwrap(),
        );
        let first = claims.claim(&[&a], false).unwrap();
        // Disjoint: taken at once.
        let other = claims.claim(&[&b], false).unwrap();
        // Inside a held path: waits until the deadline, then answers it.
        let refused = crate::root::with_deadline(Duration::from_millis(120), || {
            claims.claim(&[&ab], false).map(|_| ())
        });
        assert!(refused.is_err());
        drop(other);
        drop(first);
        assert!(claims.claim(&[&ab], false).is_ok());
        assert!(claims.held.lock().unwrap().is_empty());
    }
}
