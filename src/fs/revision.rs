//! `sha256-v1` revisions: what a location holds, as a token a client can send back to make a
//! mutation conditional. Files hash their exact bytes, links their target text, directories a
//! canonical description of the served tree below them: each entry's path, and each file's
//! device, inode, size and times, so a directory's token costs a metadata walk, never a read
//! of everything below it.

use serde_json::{Map, Value, json};

use super::{Fs, FsError};
use crate::digest::{DigestCache, DigestError, sha256_hex};
use crate::root::{Location, Node};

/// The only revision scheme.
pub const SCHEME: &str = "sha256-v1";
/// The token of a path where nothing exists.
pub const ABSENT: &str = "sha256-v1:absent";

/// The revision of one location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// `absent`, `file`, `directory`, `symlink` or `unknown`.
    pub state: &'static str,
    /// The token, absent when the state is `unknown`.
    pub token: Option<String>,
}

impl Revision {
    fn known(state: &'static str, digest: Option<String>) -> Revision {
        let token = match digest {
            Some(d) => format!("{SCHEME}:{state}:{d}"),
            None => ABSENT.to_owned(),
        };
        Revision {
            state,
            token: Some(token),
        }
    }

    /// The revision of a path where nothing exists.
    pub fn of_absent() -> Revision {
        Revision::known("absent", None)
    }

    /// A revision that could not be computed: clients must drop what they cached.
    pub fn unknown() -> Revision {
        Revision {
            state: "unknown",
            token: None,
        }
    }

    /// The revision of a file whose SHA-256 is known.
    pub fn of_digest(digest: String) -> Revision {
        Revision::known("file", Some(digest))
    }

    /// The revision of a file whose exact bytes are known.
    pub fn of_bytes(bytes: &[u8]) -> Revision {
        Revision::known("file", Some(sha256_hex(bytes)))
    }

    fn value(&self) -> Value {
        match &self.token {
            Some(token) => json!({"state": self.state, "token": token}),
            None => json!({"state": self.state}),
        }
    }
}

/// `{"revisionScheme": "sha256-v1", "revisions": {arg: {state, token}}}`.
pub fn revisions_value(revisions: &[(&str, Revision)]) -> Value {
    let mut map = Map::new();
    for (arg, revision) in revisions {
        map.insert((*arg).to_owned(), revision.value());
    }
    json!({"revisionScheme": SCHEME, "revisions": map})
}

/// The reserved `_expected-revisions` argument of a mutation: the token the caller last
/// observed for each of its location arguments, by argument name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Expected(Vec<(String, String)>);

impl Expected {
    /// Reads the argument from a call's arguments: `None` when absent.
    pub(super) fn read(arguments: &Map<String, Value>) -> Result<Option<Expected>, FsError> {
        let Some(value) = arguments.get(super::EXPECTED) else {
            return Ok(None);
        };
        let Value::Object(map) = value else {
            return Err(FsError::RevisionsInvalid);
        };
        map.iter()
            .map(|(arg, token)| match token {
                Value::String(token) if well_formed(token) => Ok((arg.clone(), token.clone())),
                Value::String(_) => Err(FsError::RevisionMalformed(arg.clone())),
                _ => Err(FsError::RevisionsInvalid),
            })
            .collect::<Result<_, _>>()
            .map(|tokens| Some(Expected(tokens)))
    }

    /// Checks the current revision of the location argument `arg` against its expected token.
    pub(super) fn check(&self, arg: &str, current: &Revision) -> Result<(), FsError> {
        let Some((_, token)) = self.0.iter().find(|(name, _)| name == arg) else {
            return Err(FsError::RevisionMissing(arg.to_owned()));
        };
        if current.token.as_deref() == Some(token.as_str()) {
            Ok(())
        } else {
            Err(FsError::RevisionMismatch {
                arg: arg.to_owned(),
                expected: token.clone(),
                actual: current
                    .token
                    .clone()
                    .unwrap_or_else(|| "unknown".to_owned()),
            })
        }
    }
}

/// Whether `token` has the shape of a token this scheme hands out: [`ABSENT`], or the scheme,
/// a state and 64 lower-case hex digits. Anything else is a mistake to name, not a change.
fn well_formed(token: &str) -> bool {
    if token == ABSENT {
        return true;
    }
    let Some(rest) = token
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_prefix(':'))
    else {
        return false;
    };
    let Some((state, digest)) = rest.split_once(':') else {
        return false;
    };
    matches!(state, "file" | "directory" | "symlink")
        && digest.len() == 64
        && digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Fs {
    /// The revision of `location`; `fresh` hashes bytes even when a memo entry exists (the
    /// comparison before a conditional mutation).
    pub fn revision(&self, location: &Location, fresh: bool) -> Revision {
        self.try_revision(location, fresh)
            .unwrap_or_else(|_| Revision::unknown())
    }

    fn try_revision(&self, location: &Location, fresh: bool) -> Result<Revision, FsError> {
        Ok(match location.node() {
            Node::Absent => Revision::known("absent", None),
            Node::File(_) => {
                let file = self.root().open_located(location)?;
                let digest = if fresh {
                    let digest = DigestCache::hash_fresh(&file)?;
                    self.memo().remember(file.identity(), digest.clone());
                    digest
                } else {
                    self.memo()
                        .digest(&file, &mut crate::digest::HashBudget(u64::MAX))
                        .map_err(unbounded)?
                };
                Revision::known("file", Some(digest))
            }
            // Keyed, so a token cannot confirm a guessed target (a host path, say).
            Node::Symlink(_, target) => {
                Revision::known("symlink", Some(self.key.keyed_hex("symlink", &target)))
            }
            // The tree's metadata (see `Root::tree_digest`); docs/fs-tools.md says what it
            // covers and where that rests on the kernel.
            Node::Directory(_) => {
                Revision::known("directory", Some(self.root().tree_digest(location.path())?))
            }
            Node::Other(_) => Revision::unknown(),
        })
    }

    /// Compares every location argument against its expected token, hashing fresh bytes.
    /// Call with the mutation's paths claimed ([`super::claims`]).
    pub(super) fn check_expected(
        &self,
        expected: Option<&Expected>,
        locations: &[(&str, &Location)],
    ) -> Result<(), FsError> {
        let Some(expected) = expected else {
            return Ok(());
        };
        for (arg, location) in locations {
            expected.check(arg, &self.revision(location, true))?;
        }
        Ok(())
    }
}

/// The refusal of a digest taken without a budget, which can only come from the root.
fn unbounded(error: DigestError) -> FsError {
    match error {
        DigestError::Root(error) => FsError::Root(error),
        DigestError::OverBudget => FsError::Root(crate::root::RootError::ReadFailed),
    }
}
