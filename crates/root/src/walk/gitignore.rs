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
//! What rules may cost is bounded, since an agent can write them: a file is applied only when
//! it is at most [`MAX_IGNORE_BYTES`] and holds at most [`MAX_FILE_PATTERNS`] patterns, and
//! only while the directories a walk is inside hold at most [`MAX_PATTERNS_IN_FORCE`] between
//! them, of which at most [`MAX_COSTLY_IN_FORCE`] are costly ([`costly`]): compiling grows
//! with the patterns, and matching with the costly ones (past about 3,000 of them, the
//! matcher's memory grows with their square: 4,000 `*xN*y*` patterns took 8 GB).
//! A file not applied is named to the caller ([`NotApplied`]), never silently dropped. Rules
//! live only as long as the walk is inside their directory: nothing is cached across calls.
//!
//! [`Root::with_respect_gitignore`]: crate::Root::with_respect_gitignore

use crate::sys::fd::OwnedFd;

use crate::sys::fs::FileType;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::dir::{file_type, lstat_at, open_dir_at};
use crate::open::open_regular_in;
use crate::remember::Remembered;

/// Largest ignore file applied.
pub const MAX_IGNORE_BYTES: u64 = 256 << 10;
/// Most patterns one ignore file may hold and be applied: about 0.1 s to compile and 50 MB
/// at the costliest shape (`**/d/**/*.rs`, measured with the `ignore` crate 0.4.35).
pub const MAX_FILE_PATTERNS: usize = 4_096;
/// Most patterns in force at once, summed over the directories a walk is inside: what one
/// entry is matched against, and what one walk holds compiled.
pub const MAX_PATTERNS_IN_FORCE: usize = 8_192;

/// Most costly patterns in force at once (those that keep a wildcard once a leading `**/`, a
/// trailing `/**` and a `*.ext` are taken off): measured at this bound, matching one
/// path took at most 0.1 ms and the matcher at most 15 MB (the `ignore` crate 0.4.35).
pub const MAX_COSTLY_IN_FORCE: usize = 1_024;

/// An ignore file a walk did not apply ([`crate::Step::RulesNotApplied`]): what it would
/// ignore is walked as if it were absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotApplied {
    /// The file's path relative to the root (`sub/.gitignore`, `sub/.git/info/exclude`).
    pub path: String,
    /// Why.
    pub why: Unapplied,
}

/// Why an ignore file was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unapplied {
    /// It is larger than [`MAX_IGNORE_BYTES`].
    TooLarge,
    /// It holds more than [`MAX_FILE_PATTERNS`] patterns.
    TooManyPatterns,
    /// With the rules of the directories above it, more than [`MAX_PATTERNS_IN_FORCE`]
    /// patterns would be in force.
    TooManyInForce,
    /// With the rules of the directories above it, more than [`MAX_COSTLY_IN_FORCE`] costly
    /// patterns would be in force.
    TooCostly,
    /// It is a symbolic link, which is never followed.
    Link,
}

/// The rules one directory of a walk contributes.
pub(super) struct Rules {
    /// The directory's path relative to the root (`""` for the root): its patterns are
    /// relative to it.
    dir: String,
    /// Its `.gitignore`.
    gitignore: Option<Gitignore>,
    /// `.git/info/exclude`, when the directory holds `.git`.
    exclude: Option<Gitignore>,
    /// How many patterns the two hold.
    patterns: usize,
    /// How many of those are costly.
    costly: usize,
}

impl Rules {
    /// The rules of the directory `dir` (reached as `path`, holding `names`), when
    /// `in_force` patterns are in force above it. A file not applied is added to
    /// `not_applied`. `watched` is cleared when a file they come from could change without
    /// the walk's watch seeing it.
    pub(super) fn read(
        remembered: &Remembered,
        dir: &OwnedFd,
        path: &str,
        names: &[&str],
        in_force: InForce,
        not_applied: &mut Vec<NotApplied>,
        watched: &mut bool,
    ) -> Rules {
        let mut reader = Reader {
            remembered,
            dir: path,
            in_force,
            not_applied,
            watched,
        };
        let gitignore = names
            .contains(&".gitignore")
            .then(|| reader.compile(dir, ".gitignore", ".gitignore"))
            .flatten();
        let exclude = names
            .contains(&".git")
            .then(|| reader.exclude(dir))
            .flatten();
        Rules {
            dir: path.to_owned(),
            patterns: reader.in_force.patterns - in_force.patterns,
            costly: reader.in_force.costly - in_force.costly,
            gitignore,
            exclude,
        }
    }

    /// What this directory puts in force.
    pub(super) fn in_force(&self) -> InForce {
        InForce {
            patterns: self.patterns,
            costly: self.costly,
        }
    }
}

/// Patterns in force, summed over directories.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct InForce {
    /// Every pattern.
    pub(super) patterns: usize,
    /// The costly ones ([`costly`]).
    pub(super) costly: usize,
}

impl std::iter::Sum for InForce {
    fn sum<I: Iterator<Item = InForce>>(iter: I) -> InForce {
        iter.fold(InForce::default(), |sum, more| InForce {
            patterns: sum.patterns + more.patterns,
            costly: sum.costly + more.costly,
        })
    }
}

/// Whether the gitignore pattern `line` is costly to match: it keeps a wildcard once the
/// shapes the matcher answers by lookup are taken off (a leading `!` or `/`, a trailing `/`,
/// leading `**/`, a trailing `/**`, a `*.ext` with a plain extension). A backslash counts as
/// a wildcard, so an escaped pattern is counted as costly rather than missed.
pub(super) fn costly(line: &str) -> bool {
    let mut pattern = line.trim();
    pattern = pattern.strip_prefix('!').unwrap_or(pattern);
    pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    while let Some(rest) = pattern.strip_prefix("**/") {
        pattern = rest;
    }
    pattern = pattern.strip_suffix("/**").unwrap_or(pattern);
    if let Some(extension) = pattern.strip_prefix("*.")
        && !extension.contains('/')
    {
        pattern = extension;
    }
    pattern.contains(['*', '?', '[', '\\'])
}

/// What reading one directory's rules needs, and what it tells.
struct Reader<'a> {
    remembered: &'a Remembered,
    /// The directory's path relative to the root.
    dir: &'a str,
    /// Patterns in force, those read here so far included.
    in_force: InForce,
    not_applied: &'a mut Vec<NotApplied>,
    watched: &'a mut bool,
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

impl Reader<'_> {
    /// `.git/info/exclude` below `dir`. The directory holding the file is
    /// watched (`.git` itself when `info` is missing), since the walk never reads `.git` and
    /// so would not otherwise see an edit.
    fn exclude(&mut self, dir: &OwnedFd) -> Option<Gitignore> {
        let git = open_dir_at(dir, ".git").ok()?;
        let Ok(info) = open_dir_at(&git, "info") else {
            *self.watched &= self.remembered.watch_directory(&git);
            return None;
        };
        *self.watched &= self.remembered.watch_directory(&info);
        self.compile(&info, "exclude", ".git/info/exclude")
    }

    /// The file `name` in `dir` (`shown` below the directory, for a notice) compiled as
    /// gitignore patterns; `None` when it is absent, not a regular file, unreadable, holds no
    /// pattern, or is over a bound (then also named in `not_applied`). A line the matcher
    /// cannot compile is skipped, as ripgrep skips it.
    fn compile(&mut self, dir: &OwnedFd, name: &str, shown: &str) -> Option<Gitignore> {
        let bytes = match self.read_small(dir, name) {
            Ok(bytes) => bytes?,
            Err(why) => return self.refuse(shown, why),
        };
        let text = String::from_utf8_lossy(&bytes);
        // Blank lines and comments are no patterns; the rest may be, so they are counted
        // before anything is compiled.
        let mut adds = InForce::default();
        for line in text.lines() {
            let line = line.trim_start_matches('\u{feff}').trim();
            if !line.is_empty() && !line.starts_with('#') {
                adds.patterns += 1;
                adds.costly += usize::from(costly(line));
            }
        }
        if adds.patterns > MAX_FILE_PATTERNS {
            return self.refuse(shown, Unapplied::TooManyPatterns);
        }
        if self.in_force.patterns + adds.patterns > MAX_PATTERNS_IN_FORCE {
            return self.refuse(shown, Unapplied::TooManyInForce);
        }
        if self.in_force.costly + adds.costly > MAX_COSTLY_IN_FORCE {
            return self.refuse(shown, Unapplied::TooCostly);
        }
        // Paths reach the matcher relative to their directory already, so it strips nothing.
        let mut builder = GitignoreBuilder::new(".");
        for (n, line) in text.lines().enumerate() {
            // Git drops a byte-order mark before the first pattern.
            let line = if n == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            let _ = builder.add_line(None, line);
        }
        let matcher = builder.build().ok().filter(|matcher| !matcher.is_empty())?;
        self.in_force = [self.in_force, adds].into_iter().sum();
        Some(matcher)
    }

    /// Names the file `shown` as not applied, for `why`.
    fn refuse(&mut self, shown: &str, why: Unapplied) -> Option<Gitignore> {
        let path = match self.dir {
            "" => shown.to_owned(),
            dir => format!("{dir}/{shown}"),
        };
        self.not_applied.push(NotApplied { path, why });
        None
    }

    /// The bytes of the regular file `name` in `dir`, opened without following a link or
    /// blocking; `Ok(None)` for a missing, special or unreadable file, `Err` for a link or a
    /// file over [`MAX_IGNORE_BYTES`]. A file with several links is watched itself, since a
    /// write through another link names no watched directory.
    fn read_small(&mut self, dir: &OwnedFd, name: &str) -> Result<Option<Vec<u8>>, Unapplied> {
        let Some(seen) = lstat_at(dir, name) else {
            return Ok(None);
        };
        match file_type(&seen) {
            FileType::RegularFile => {}
            FileType::Symlink => return Err(Unapplied::Link),
            _ => return Ok(None),
        }
        if seen.st_nlink > 1 {
            *self.watched &= self.remembered.watch_entry(dir, name);
        }
        // Opened through the descriptor the walk holds, not by a path from the root as
        // `open_regular` opens: the rules must be those of the directory whose entries they
        // judge, even one renamed since the walk entered it.
        let Ok(file) = open_regular_in(dir, name) else {
            return Ok(None);
        };
        if file.size() > MAX_IGNORE_BYTES {
            return Err(Unapplied::TooLarge);
        }
        Ok(file.read_all().ok())
    }
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
            patterns: gitignore.len(),
            costly: gitignore.iter().filter(|line| costly(line)).count(),
        }
    }

    #[test]
    fn costly_patterns_are_those_the_matcher_cannot_look_up() {
        for cheap in [
            "*.rs",
            "!*.log",
            "build/",
            "/top.txt",
            "**/node_modules",
            "dist/**",
            "a/b",
        ] {
            assert!(!costly(cheap), "{cheap}");
        }
        for dear in [
            "**/d1/**/*.rs",
            "*x*y*",
            "src/*.c",
            "a?c",
            "[ab]c",
            "*.r[s]",
            "\\#x",
        ] {
            assert!(costly(dear), "{dear}");
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
