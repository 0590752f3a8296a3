//! The tree walk taken one entry at a time, in tree order, so a search that has its whole
//! answer stops walking there: nothing is read beyond the next few directories the walk will
//! enter, which are read ahead on the worker pool (`read_ahead`).
//!
//! The walk holds one open directory per level it is inside (at most `--max-depth` + 1), and
//! one per directory read ahead. A walk that runs to its end offers what it found to the
//! root's remembered walks when it is small enough to keep; one that starts where a remembered
//! tree of its scope is kept replays it.

use crate::sys::fd::OwnedFd;
use std::collections::VecDeque;
use std::sync::Arc;

use crate::sys::fs::FileType;

use super::entry::{Budget, Entry, dir_key};
use super::gitignore::{NotApplied, Rules, ignored};
use super::read_ahead::{Listing, Pending, read_listing};
use super::{FileEntry, Marked, Marker, TreeWalk, compare_tree_order};
use crate::dir::{file_type, reopen};
use crate::remember::{Key, Ticket, Walked};
use crate::{Identity, RelPath, Root, RootError};

/// One step of a walk in tree order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A served regular file.
    File(FileEntry),
    /// A directory strictly beneath the scope, entered; its contents follow.
    Directory(String),
    /// A directory strictly beneath the scope not entered because it lies deeper than
    /// `--max-depth`.
    TooDeep(String),
    /// An ignore file the walk did not apply (only on a root that respects `.gitignore`
    /// files): what it would ignore is walked.
    RulesNotApplied(NotApplied),
    /// A directory strictly beneath the scope not entered because it holds one of the walk's
    /// markers ([`Root::in_order_pruned`]).
    Marked(Marked),
}

impl Step {
    /// The step's path relative to the root.
    pub fn path(&self) -> &str {
        match self {
            Step::File(file) => &file.path,
            Step::Directory(path) | Step::TooDeep(path) => path,
            Step::RulesNotApplied(rules) => &rules.path,
            Step::Marked(marked) => &marked.path,
        }
    }
}

/// A walk of one scope in tree order ([`Root::in_order`]): an iterator of [`Step`]s that
/// yields at most one error (a ceiling the configuration named, the call's deadline, or its
/// cancellation) and then ends.
pub struct InOrder<'r> {
    root: &'r Root,
    scope: RelPath,
    /// The rule by which the caller prunes the walk ([`Root::in_order_pruned`]).
    rule: Option<&'static str>,
    /// The files that mark a directory the walk does not enter.
    markers: &'static [Marker],
    /// The walk skips what `.gitignore` files ignore.
    gitignore: bool,
    source: Source<'r>,
    /// Every directory the walk read was watched (a remembered walk's were).
    watched: bool,
}

enum Source<'r> {
    /// A remembered tree of the scope, replayed.
    Kept {
        walked: TreeWalk,
        files: usize,
        directories: usize,
        too_deep: usize,
        marked: usize,
        /// The directory the last step was in or entered, and one the caller left.
        last: Option<String>,
        left: Option<String>,
    },
    /// The directories themselves.
    Live(Box<Live<'r>>),
    /// The walk could not start: its one item.
    Failed(RootError),
    /// Nothing more.
    Ended,
}

struct Live<'r> {
    budget: Budget<'r>,
    /// The directories the walk is inside, outermost first.
    frames: Vec<Frame>,
    ticket: Option<Ticket>,
    /// Every directory read so far was watched.
    vouched: bool,
    /// What the walk found, kept to be remembered when it ends.
    found: Found,
    /// What was found is not the whole tree, or too much to keep: the caller left a directory
    /// early, or the walk passed [`MAX_REMEMBERED`] entries.
    pruned: bool,
    /// Directories are read ahead on the worker pool (not when links are followed: seeing an
    /// entry then resolves paths, which the walk does itself, in order).
    read_ahead: bool,
    /// Directories being read ahead.
    in_flight: usize,
    /// Directories entered so far.
    entered: usize,
    /// The scope, when the walk skips what `.gitignore` files ignore strictly inside it.
    ignore_below: Option<RelPath>,
    /// Ignore files passed over and not yet yielded.
    not_applied: Vec<NotApplied>,
}

impl Live<'_> {
    /// Records a step in what the walk found, unless it can no longer be remembered.
    fn keep(&mut self, add: impl FnOnce(&mut Found)) {
        if self.pruned {
            return;
        }
        let found = &mut self.found;
        let kept = found.files.len() + found.directories.len() + found.too_deep.len();
        if kept + found.marked.len() >= MAX_REMEMBERED {
            self.pruned = true;
            self.found = Found::default();
            return;
        }
        add(found);
    }
}

#[derive(Default)]
struct Found {
    files: Vec<FileEntry>,
    directories: Vec<String>,
    too_deep: Vec<String>,
    marked: Vec<Marked>,
}

/// Most directories read ahead of the walk at once. A walk starts with [`FIRST_READ_AHEAD`]
/// and reads one more ahead for every two it enters, so a search that stops in its first
/// directories reads few it does not need, and a long walk keeps the pool busy.
const READ_AHEAD: usize = 64;
/// Directories read ahead when a walk starts.
const FIRST_READ_AHEAD: usize = 4;
/// Most entries (files and directories) a walk collects to be remembered: a larger tree is
/// walked afresh each time, so a walk's memory stays flat however large the tree.
const MAX_REMEMBERED: usize = 20_000;

/// One directory the walk is inside, and its entries not yet taken.
struct Frame {
    dir: OwnedFd,
    depth: u64,
    /// (device, inode), to recognise a followed link back into the walk's ancestry.
    key: (u64, u64),
    entries: VecDeque<Next>,
    /// How many of the first `entries` were already considered for reading ahead.
    considered: usize,
    /// The `.gitignore` rules this directory adds, when the walk honours them.
    rules: Option<Rules>,
}

/// An entry not yet taken, and its directory's listing when it is being read ahead.
struct Next {
    entry: Entry,
    read: Option<Pending>,
}

impl Root {
    /// The served tree at or beneath `scope` in tree order (each directory's names sorted, its
    /// contents right after it), one step at a time: nothing is read beyond the last step taken. Symbolic links are never
    /// followed or listed unless the root follows them. Only a ceiling the configuration
    /// named stops the walk ([`crate::limits::Limits::named_ceilings`]), or the call's
    /// deadline or cancellation; the error is the walk's last item. On a root that respects
    /// `.gitignore` files ([`Root::with_respect_gitignore`]), what they ignore strictly inside
    /// `scope` is skipped too: an ignored directory is not entered.
    pub fn in_order(&self, scope: &RelPath) -> InOrder<'_> {
        self.in_order_as(scope, None, &[], self.respect_gitignore)
    }

    /// [`Root::in_order`] for a caller that calls [`InOrder::leave`] by a fixed rule, named by
    /// `rule`, that depends only on the steps the walk yields (a directory's name, a file it
    /// holds), and that passes over every directory strictly beneath `scope` holding one of
    /// `markers` (a regular file of that name, not excluded, beginning with its bytes),
    /// yielding it as [`Step::Marked`]. The rule fixes the markers: one rule, one list. Such a
    /// walk is remembered and replayed as any whole walk is, under its rule: the replay yields
    /// the steps the pruned walk yielded (nothing below a directory left or marked), and the
    /// watch covers every directory it read, so what the rule sees cannot change unseen.
    pub fn in_order_pruned(
        &self,
        scope: &RelPath,
        rule: &'static str,
        markers: &'static [Marker],
    ) -> InOrder<'_> {
        self.in_order_as(scope, Some(rule), markers, self.respect_gitignore)
    }

    /// The walk of [`Root::in_order`] pruned by `rule` and `markers`, skipping what
    /// `.gitignore` files ignore when `gitignore`, whatever the root's own setting.
    pub(super) fn in_order_as(
        &self,
        scope: &RelPath,
        rule: Option<&'static str>,
        markers: &'static [Marker],
        gitignore: bool,
    ) -> InOrder<'_> {
        let key = Key::Tree(scope.as_str().to_owned(), rule, gitignore);
        let source = match self.remembered.get(&key) {
            Ok(Walked::Tree(walked)) => Source::Kept {
                walked,
                files: 0,
                directories: 0,
                too_deep: 0,
                marked: 0,
                last: None,
                left: None,
            },
            Ok(_) => unreachable!("a kept walk's key names its kind"),
            Err(ticket) => Source::Live(Box::new(Live {
                budget: Budget::new(self, self.limits.named_ceilings()),
                frames: Vec::new(),
                ticket: Some(ticket),
                vouched: true,
                found: Found::default(),
                pruned: false,
                read_ahead: !self.follow_symlinks && crate::workers::pool().is_some(),
                in_flight: 0,
                entered: 0,
                ignore_below: gitignore.then(|| scope.clone()),
                not_applied: Vec::new(),
            })),
        };
        let mut walk = InOrder {
            root: self,
            scope: scope.clone(),
            rule,
            markers,
            gitignore,
            source,
            watched: true,
        };
        if let Source::Live(live) = &mut walk.source
            && let Err(error) = walk.root.start(scope, live)
        {
            walk.source = Source::Failed(error);
        }
        walk
    }

    /// Enters the root's own directory: the first frame of a live walk.
    fn start(&self, scope: &RelPath, live: &mut Live<'_>) -> Result<(), RootError> {
        let dir = reopen(&self.dir).map_err(|_| RootError::NotServed)?;
        let stat = crate::sys::fs::fstat(&dir).map_err(|_| RootError::NotServed)?;
        let listing = self.read_here(live, dir);
        let frame = self.enter(live, listing, RelPath::root(), None, 0, dir_key(&stat))?;
        live.frames.push(frame);
        self.read_ahead(scope, live);
        Ok(())
    }

    /// Reads a directory on this thread.
    fn read_here(&self, live: &Live<'_>, dir: OwnedFd) -> Listing {
        read_listing(dir, self.remembered.adder().as_ref(), live.read_ahead)
    }

    /// Charges the directory `listing` read (reached as `path` at `depth`) and makes it the
    /// walk's next frame: its watch recorded, its entries seen.
    fn enter(
        &self,
        live: &mut Live<'_>,
        listing: Listing,
        path: RelPath,
        real: Option<RelPath>,
        depth: u64,
        key: (u64, u64),
    ) -> Result<Frame, RootError> {
        live.budget.enter(depth)?;
        live.entered += 1;
        // Watched before it was read, so a change after the read raises an event.
        if !self.remembered.record(listing.watch) {
            live.vouched = false;
        }
        live.budget.charge_read(listing.read)?;
        let Listing {
            dir, names, stats, ..
        } = listing;
        let rules = live.ignore_below.is_some().then(|| {
            let names: Vec<&str> = names.iter().map(|(name, _)| name.as_str()).collect();
            let in_force = live
                .frames
                .iter()
                .filter_map(|frame| frame.rules.as_ref())
                .map(Rules::in_force)
                .sum();
            Rules::read(
                &self.remembered,
                &dir,
                path.as_str(),
                &names,
                in_force,
                &mut live.not_applied,
                &mut live.vouched,
            )
        });
        if !live.not_applied.is_empty() {
            // The notices belong to this call's answer: a replay could not give them.
            live.pruned = true;
            live.found = Found::default();
        }
        if rules.is_some() {
            // A rules file whose read the deadline or a cancellation stopped counts as absent;
            // the walk stops here rather than show what it would have hidden.
            crate::deadline::check()?;
        }
        let mut entries = VecDeque::with_capacity(names.len());
        for (name, stat) in names {
            let entry = if stats {
                self.entry_seen(&path, name, stat)
            } else {
                self.entry(&dir, &path, real.as_ref(), name)
            };
            let Some(entry) = entry else { continue };
            if let (Some(scope), Some(rules)) = (&live.ignore_below, &rules) {
                // Matching grows with the patterns in force: each entry is a step.
                crate::deadline::check()?;
                if is_ignored(scope, &entry, rules, &live.frames) {
                    continue;
                }
            }
            entries.push_back(Next { entry, read: None });
        }
        Ok(Frame {
            dir,
            depth,
            key,
            entries,
            considered: 0,
            rules,
        })
    }

    /// Starts reading the next directories the walk will enter, in the order it will enter
    /// them (the innermost directory's first), until [`READ_AHEAD`] are being read.
    fn read_ahead(&self, scope: &RelPath, live: &mut Live<'_>) {
        if !live.read_ahead {
            return;
        }
        let window = (FIRST_READ_AHEAD + live.entered / 2).min(READ_AHEAD);
        for frame in live.frames.iter_mut().rev() {
            while live.in_flight < window && frame.considered < frame.entries.len() {
                let next = &mut frame.entries[frame.considered];
                frame.considered += 1;
                let child = next.entry.child.as_str();
                if file_type(&next.entry.seen.stat) != FileType::Directory
                    || frame.depth + 1 > self.limits.max_depth
                    || !(scope.contains(child) || scope.is_below(child))
                {
                    continue;
                }
                if let Some(sub) = self.open_seen(&frame.dir, &next.entry) {
                    next.read = Some(Pending::start(sub, self.remembered.adder()));
                    live.in_flight += 1;
                }
            }
            if live.in_flight >= window {
                return;
            }
        }
    }

    /// The marker of `markers` that `listing` (the directory reached as `path`) holds, if any:
    /// a regular file of that name, not excluded, opened without following a link and
    /// beginning with the marker's bytes. Looking costs a scan of the names, and a read of at
    /// most 64 bytes only where a marker's name is present.
    fn marker_in(
        &self,
        listing: &Listing,
        path: &RelPath,
        markers: &'static [Marker],
    ) -> Option<&'static str> {
        let marker = markers.iter().find(|marker| {
            listing.names.iter().any(|(name, _)| name == marker.name)
                && RelPath::from_walk(path.join(marker.name))
                    .is_some_and(|child| !self.selector.excludes(child.as_str()))
        })?;
        let file = crate::open::open_regular_in(&listing.dir, marker.name).ok()?;
        let mut head = [0u8; 64];
        let wanted = marker.starts_with.len().min(head.len());
        let mut got = 0;
        while got < wanted {
            match file.read_at(&mut head[got..wanted], got as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        (head[..got] == marker.starts_with[..wanted]).then_some(marker.name)
    }

    /// The next step of a live walk, `None` at its end.
    fn step(
        &self,
        scope: &RelPath,
        markers: &'static [Marker],
        live: &mut Live<'_>,
    ) -> Result<Option<Step>, RootError> {
        loop {
            if !live.not_applied.is_empty() {
                return Ok(Some(Step::RulesNotApplied(live.not_applied.remove(0))));
            }
            let Some(frame) = live.frames.last_mut() else {
                return Ok(None);
            };
            let Some(Next { entry, read }) = frame.entries.pop_front() else {
                live.frames.pop();
                continue;
            };
            frame.considered = frame.considered.saturating_sub(1);
            if read.is_some() {
                live.in_flight -= 1;
            }
            // Only the directories on the way to the scope and what lies in it are looked at.
            let child = entry.child.as_str();
            let (inside, above) = (scope.contains(child), scope.is_below(child));
            if !inside && !above {
                continue;
            }
            let depth = frame.depth;
            let stat = entry.seen.stat;
            match file_type(&stat) {
                FileType::Directory => {
                    let key = dir_key(&stat);
                    if live.frames.iter().any(|f| f.key == key) {
                        continue; // a followed link back into its own ancestry
                    }
                    let child = child.to_owned();
                    // Passed over and named, so one deep directory cannot deny every search.
                    if depth + 1 > self.limits.max_depth {
                        live.keep(|found| found.too_deep.push(child.clone()));
                        return Ok(Some(Step::TooDeep(child)));
                    }
                    let listing = match read {
                        Some(pending) => pending.wait(),
                        // A directory swapped for a link after the lstat fails to open here.
                        None => {
                            let frame = live.frames.last().expect("the frame read from");
                            self.open_seen(&frame.dir, &entry)
                                .map(|sub| self.read_here(live, sub))
                        }
                    };
                    let Some(listing) = listing else {
                        continue;
                    };
                    let shown = inside && entry.child != *scope;
                    if shown
                        && !markers.is_empty()
                        && let Some(marker) = self.marker_in(&listing, &entry.child, markers)
                    {
                        // Watched and charged as any directory read, so the replay holds only
                        // while the marker does.
                        if !self.remembered.record(listing.watch) {
                            live.vouched = false;
                        }
                        live.budget.charge_read(listing.read)?;
                        let marked = Marked {
                            path: child,
                            marker,
                        };
                        live.keep(|found| found.marked.push(marked.clone()));
                        return Ok(Some(Step::Marked(marked)));
                    }
                    let real = entry.seen.target.clone();
                    let entered = self.enter(live, listing, entry.child, real, depth + 1, key)?;
                    live.frames.push(entered);
                    self.read_ahead(scope, live);
                    if shown {
                        live.keep(|found| found.directories.push(child.clone()));
                        return Ok(Some(Step::Directory(child)));
                    }
                }
                FileType::RegularFile if inside && self.serves_file(&entry) => {
                    live.budget.file()?;
                    let frame = live.frames.last().expect("the frame read from");
                    // A write through a link elsewhere names no directory watched here.
                    if stat.st_nlink > 1 && !self.remembered.watch_entry(&frame.dir, &entry.name) {
                        live.vouched = false;
                    }
                    let file = FileEntry {
                        path: child.to_owned(),
                        identity: Identity::of(&stat),
                    };
                    live.keep(|found| found.files.push(file.clone()));
                    return Ok(Some(Step::File(file)));
                }
                _ => {}
            }
        }
    }
}

impl Iterator for InOrder<'_> {
    type Item = Result<Step, RootError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.source {
            Source::Kept {
                walked,
                files,
                directories,
                too_deep,
                marked,
                last,
                left,
            } => {
                let step = loop {
                    let step = replay(walked, files, directories, too_deep, marked);
                    let Some(step) = step else { break None };
                    let inside = |dir: &str| {
                        step.path()
                            .strip_prefix(dir)
                            .is_some_and(|rest| rest.starts_with('/'))
                    };
                    if left.as_deref().is_some_and(inside) {
                        continue;
                    }
                    break Some(step);
                };
                match &step {
                    Some(Step::Directory(dir)) => *last = Some(dir.clone()),
                    Some(Step::File(file)) => {
                        *last = file.path.rsplit_once('/').map(|(dir, _)| dir.to_owned());
                    }
                    Some(Step::TooDeep(_) | Step::RulesNotApplied(_) | Step::Marked(_)) => {}
                    None => self.source = Source::Ended,
                }
                step.map(Ok)
            }
            Source::Live(live) => match self.root.step(&self.scope, self.markers, live) {
                Ok(Some(step)) => Some(Ok(step)),
                Ok(None) => {
                    self.watched = live.vouched;
                    self.remember();
                    self.source = Source::Ended;
                    None
                }
                Err(error) => {
                    self.watched = false;
                    self.source = Source::Ended;
                    Some(Err(error))
                }
            },
            Source::Failed(error) => {
                let error = *error;
                self.source = Source::Ended;
                Some(Err(error))
            }
            Source::Ended => None,
        }
    }
}

impl InOrder<'_> {
    /// Whether every directory the walk read was watched, so what it found may be remembered
    /// ([`crate::remember`]); meaningful once the walk has ended.
    pub(super) fn watched(&self) -> bool {
        self.watched
    }

    /// Walks no further into the innermost directory the walk is in: after a
    /// [`Step::Directory`], the directory just entered; after a [`Step::File`], that file's
    /// directory. The walk goes on with what follows it. Such a walk is not remembered, unless
    /// it was started by [`Root::in_order_pruned`].
    pub fn leave(&mut self) {
        match &mut self.source {
            Source::Live(live) => {
                // The scope's own directory and those above it are never left.
                if live.frames.len() > 1 + self.scope.depth()
                    && let Some(frame) = live.frames.pop()
                {
                    live.in_flight -= frame.entries.iter().filter(|n| n.read.is_some()).count();
                    if self.rule.is_none() {
                        live.pruned = true;
                        live.found = Found::default();
                    }
                }
            }
            Source::Kept { last, left, .. } => {
                let scope = &self.scope;
                if let Some(dir) = last.take()
                    && scope.contains(&dir)
                    && dir != scope.as_str()
                {
                    *left = Some(dir);
                }
            }
            Source::Failed(_) | Source::Ended => {}
        }
    }

    /// Offers a live walk that reached its end to the remembered walks.
    fn remember(&mut self) {
        let Source::Live(live) = &mut self.source else {
            return;
        };
        if live.pruned {
            return;
        }
        let Some(ticket) = live.ticket.take() else {
            return;
        };
        let found = std::mem::take(&mut live.found);
        let walked = TreeWalk {
            files: Arc::new(found.files),
            directories: Arc::new(found.directories),
            too_deep: Arc::new(found.too_deep),
            marked: Arc::new(found.marked),
        };
        let key = Key::Tree(self.scope.as_str().to_owned(), self.rule, self.gitignore);
        self.root
            .remembered
            .offer(key, ticket, live.vouched, Walked::Tree(walked));
    }
}

/// Whether `entry`, in the directory whose rules are `rules` (the innermost), inside `frames`,
/// is skipped as ignored. Only what lies strictly inside `scope` is judged: the directories on
/// the way to it and the scope itself were named by the caller, as a path given to ripgrep is
/// searched even when ignored.
fn is_ignored(scope: &RelPath, entry: &Entry, rules: &Rules, frames: &[Frame]) -> bool {
    let child = entry.child.as_str();
    if !scope.contains(child) || child == scope.as_str() {
        return false;
    }
    let is_dir = file_type(&entry.seen.stat) == FileType::Directory;
    let outer = frames.iter().rev().filter_map(|frame| frame.rules.as_ref());
    ignored(std::iter::once(rules).chain(outer), child, is_dir)
}

/// The next step of a remembered tree: the least, in tree order, of its next file, directory
/// and too-deep directory.
fn replay(
    walked: &TreeWalk,
    files: &mut usize,
    directories: &mut usize,
    too_deep: &mut usize,
    marked: &mut usize,
) -> Option<Step> {
    let candidates = [
        walked.files.get(*files).map(|f| f.path.as_str()),
        walked.directories.get(*directories).map(String::as_str),
        walked.too_deep.get(*too_deep).map(String::as_str),
        walked.marked.get(*marked).map(|m| m.path.as_str()),
    ];
    let (least, _) = candidates
        .iter()
        .enumerate()
        .filter_map(|(n, path)| path.map(|p| (n, p)))
        .min_by(|a, b| compare_tree_order(a.1, b.1))?;
    Some(match least {
        0 => {
            *files += 1;
            Step::File(walked.files[*files - 1].clone())
        }
        1 => {
            *directories += 1;
            Step::Directory(walked.directories[*directories - 1].clone())
        }
        2 => {
            *too_deep += 1;
            Step::TooDeep(walked.too_deep[*too_deep - 1].clone())
        }
        _ => {
            *marked += 1;
            Step::Marked(walked.marked[*marked - 1].clone())
        }
    })
}
