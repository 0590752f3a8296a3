//! The `.gitignore` rules an in-order walk honours on a root opened with
//! [`Root::with_respect_gitignore`]: each directory's `.gitignore`, and `.git/info/exclude` in
//! a directory holding `.git`, read through the directory's own descriptor as the walk enters
//! it and compiled once by the `ignore` crate's `gitignore` matcher (ripgrep's). An entry is
//! judged as ripgrep judges it: the innermost directory whose `.gitignore` has a verdict on it
//! decides (so a deeper file overrides, and `!negation` re-includes), then the innermost
//! `exclude`. As with `rg --no-require-git`, a nested repository (a directory holding `.git`)
//! is no boundary: the rules above it reach into it. Nothing above the root is read: a root
//! inside a repository sees the rules at or below itself only.
//!
//! [`Root::with_respect_gitignore`]: crate::Root::with_respect_gitignore

use crate::sys::fd::OwnedFd;

use crate::sys::fs::FileType;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::dir::{file_type, lstat_at, open_dir_at};
use crate::open::open_regular_in;
use crate::remember::Remembered;

/// Largest ignore file read; a larger one is passed over (it could only hide more).
const MAX_IGNORE_BYTES: u64 = 1 << 20;

/// The rules one directory of a walk contributes.
pub(super) struct Rules {
    /// The directory's path relative to the root (`""` for the root): its patterns are
    /// relative to it.
    dir: String,
    /// Its `.gitignore`.
    gitignore: Option<Gitignore>,
    /// `.git/info/exclude`, when the directory holds `.git`.
    exclude: Option<Gitignore>,
}

impl Rules {
    /// The rules of the directory `dir` (reached as `path`, holding `names`). `watched` is
    /// cleared when a file they come from could change without the walk's watch seeing it.
    pub(super) fn read(
        remembered: &Remembered,
        dir: &OwnedFd,
        path: &str,
        names: &[&str],
        watched: &mut bool,
    ) -> Rules {
        let gitignore = names
            .contains(&".gitignore")
            .then(|| compile(remembered, dir, ".gitignore", watched))
            .flatten();
        let exclude = names
            .contains(&".git")
            .then(|| exclude(remembered, dir, watched))
            .flatten();
        Rules {
            dir: path.to_owned(),
            gitignore,
            exclude,
        }
    }
}

/// Whether the entry `path` of the innermost directory (a directory when `is_dir`) is ignored
/// by `rules`, the rules of the directories it lies in, innermost first.
pub(super) fn ignored<'a>(
    rules: impl Iterator<Item = &'a Rules>,
    path: &str,
    is_dir: bool,
) -> bool {
    let (mut by_gitignore, mut by_exclude) = (Match::None, Match::None);
    for rules in rules {
        let relative = match rules.dir.as_str() {
            "" => path,
            dir => path
                .strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .unwrap_or(path),
        };
        if by_gitignore.is_none()
            && let Some(matcher) = &rules.gitignore
        {
            by_gitignore = matcher.matched(relative, is_dir);
        }
        if by_exclude.is_none()
            && let Some(matcher) = &rules.exclude
        {
            by_exclude = matcher.matched(relative, is_dir);
        }
    }
    // A `.gitignore` verdict, ignore or whitelist, outranks `exclude`, as in ripgrep.
    match by_gitignore {
        Match::None => by_exclude.is_ignore(),
        verdict => verdict.is_ignore(),
    }
}

/// `.git/info/exclude` below `dir`. The directory holding the file is
/// watched (`.git` itself when `info` is missing), since the walk never reads `.git` and so
/// would not otherwise see an edit.
fn exclude(remembered: &Remembered, dir: &OwnedFd, watched: &mut bool) -> Option<Gitignore> {
    let git = open_dir_at(dir, ".git").ok()?;
    let Ok(info) = open_dir_at(&git, "info") else {
        *watched &= remembered.watch_directory(&git);
        return None;
    };
    *watched &= remembered.watch_directory(&info);
    compile(remembered, &info, "exclude", watched)
}

/// The file `name` in `dir` compiled as gitignore patterns; `None` when it
/// is not a readable regular file of at most [`MAX_IGNORE_BYTES`] or holds no pattern. A line
/// the matcher cannot compile is skipped, as ripgrep skips it.
fn compile(
    remembered: &Remembered,
    dir: &OwnedFd,
    name: &str,
    watched: &mut bool,
) -> Option<Gitignore> {
    let bytes = read_small(dir, name, remembered, watched)?;
    // Paths reach the matcher relative to their directory already, so it strips nothing.
    let mut builder = GitignoreBuilder::new(".");
    let text = String::from_utf8_lossy(&bytes);
    for (n, line) in text.lines().enumerate() {
        // Git drops a byte-order mark before the first pattern.
        let line = if n == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|matcher| !matcher.is_empty())
}

/// The bytes of the regular file `name` in `dir`, opened without following a link or
/// blocking; `None` for anything else or a file over [`MAX_IGNORE_BYTES`]. A file with several
/// links is watched itself, since a write through another link names no watched directory.
fn read_small(
    dir: &OwnedFd,
    name: &str,
    remembered: &Remembered,
    watched: &mut bool,
) -> Option<Vec<u8>> {
    let seen = lstat_at(dir, name)?;
    if file_type(&seen) != FileType::RegularFile {
        return None;
    }
    if seen.st_nlink > 1 {
        *watched &= remembered.watch_entry(dir, name);
    }
    // Opened through the descriptor the walk holds, not by a path from the root as
    // `open_regular` opens: the rules must be those of the directory whose entries they
    // judge, even one renamed since the walk entered it.
    let file = open_regular_in(dir, name).ok()?;
    if file.size() > MAX_IGNORE_BYTES {
        return None;
    }
    file.read_all().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(dir: &str, gitignore: &[&str]) -> Rules {
        let mut builder = GitignoreBuilder::new(".");
        for line in gitignore {
            builder.add_line(None, line).unwrap();
        }
        Rules {
            dir: dir.to_owned(),
            gitignore: Some(builder.build().unwrap()),
            exclude: None,
        }
    }

    #[test]
    fn the_innermost_verdict_wins_and_a_nested_repository_stops_nothing() {
        let top = rules("", &["*.log", "/only-top"]);
        let sub = rules("sub", &["!keep.log"]);
        let nested = rules("sub/repo", &[]);
        let judge = |stack: &[&Rules], path: &str| ignored(stack.iter().copied(), path, false);
        assert!(judge(&[&top], "a.log"));
        assert!(judge(&[&top], "only-top"));
        assert!(!judge(&[&sub, &top], "sub/keep.log"));
        assert!(judge(&[&sub, &top], "sub/other.log"));
        // Anchored to its own directory: `/only-top` says nothing about `sub/only-top`.
        assert!(!judge(&[&sub, &top], "sub/only-top"));
        assert!(judge(&[&nested, &sub, &top], "sub/repo/x.log"));
    }
}
