//! The refusals of the fs tools. Each `Display` is the exact sentence a model reads, naming
//! the argument as the caller gave it. A refusal from the root travels as
//! [`FsError::Root`] until the tool boundary, where [`FsError::worded_for`] words it for the
//! model; every message about a limit is an [`OverLimit`].

use std::fmt;

use crate::config::Limits;
use crate::config::limits::LimitSpec;
use crate::root::{RelPath, RootError};

/// Refusals of the model-facing tools. Each names the argument as the caller gave it, so the
/// model sees which of its values to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    /// A refusal from the root, still in its own words until [`FsError::worded_for`] words it
    /// for the model (at the tool boundary, where the location argument is known).
    #[error(transparent)]
    Root(#[from] RootError),
    /// A path breaking the textual rules; one wrong only in its `.` segments is followed by the
    /// path to write instead.
    #[error(
        "Invalid path '{0}': paths are relative to the root, without '.' or '..' segments, drive letters, backslashes or device names{hint}",
        hint = written_as(.0)
    )]
    InvalidPath(String),
    /// An absolute path that does not lie below the root's own path.
    #[error(
        "'{0}' is outside this root: give a path relative to the root (as listings show them), or an absolute path inside it"
    )]
    OutsideRoot(String),
    /// A `read` given both `path` and `paths`.
    #[error("give path (one file) or paths (several), not both")]
    PathAndPaths,
    /// A `read` given neither `path` nor `paths`.
    #[error("give path, the file to read (or paths, several files)")]
    NoPath,
    /// A path written with a trailing `/` that names a file.
    #[error("'{0}' names a file, not a directory: write it without the trailing '/'")]
    FileWithSlash(String),
    /// A path the selector does not serve.
    #[error("'{0}' is not served by this root")]
    NotServed(String),
    /// A destination the selector would not serve.
    #[error("'{0}' is not served by this root; a file written there could not be read back")]
    DestinationNotServed(String),
    /// Nothing exists at the path.
    #[error("'{0}' does not exist")]
    Missing(String),
    /// An ancestor of the path is a symbolic link.
    #[error(
        "'{0}' is reached through a symbolic link this root does not follow (links are followed only with --follow-symlinks, and only while they stay inside the root)"
    )]
    ThroughLink(String),
    /// With `--follow-symlinks`, a path through a link whose target leaves the root, or that
    /// cannot be followed (a loop, an unreadable target).
    #[error(
        "'{0}' is reached through a symbolic link that leads outside the root (or round a loop of links); links are followed only while they stay inside the root"
    )]
    LinkLeavesRoot(String),
    /// `read` of a directory.
    #[error("'{path}' is a directory; use {list} to see what it holds")]
    ReadDirectory {
        /// The path as given.
        path: String,
        /// The published name of `list`.
        list: String,
    },
    /// A file whose bytes are not UTF-8.
    #[error("'{0}' is not UTF-8 text")]
    NotText(String),
    /// `read` of a file that starts as an image but is not a whole one, and is not text.
    #[error(
        "'{path}' starts as a {format} image but is damaged ({fault}) and is not UTF-8 text either, so it cannot be shown; write the image again, whole"
    )]
    DamagedImage {
        /// The path as given.
        path: String,
        /// `PNG`, `JPEG`, `GIF` or `WebP`.
        format: &'static str,
        /// What is wrong, as a clause: `it ends before its IEND chunk`.
        fault: &'static str,
    },
    /// A `read` offset of 0 (or -0), which names no line.
    #[error(
        "offset 0 names no line; offsets count from 1 (the first line), or from -1 (the last line) backwards"
    )]
    OffsetZero,
    /// A `read` column without the (positive) offset of the line it lies in.
    #[error("column needs offset, the number of the line it lies in (counted from 1)")]
    ColumnWithoutOffset,
    /// A `read` offset beyond what a JSON number carries exactly.
    #[error("offset must lie between -{max} and {max}", max = crate::config::limits::MAX_SAFE_INTEGER)]
    OffsetRange,
    /// A FIFO, socket or device where a regular file is needed.
    #[error("'{0}' is not a regular file")]
    NotRegular(String),
    /// A symbolic link where a regular file is needed, on a root that does not follow links.
    #[error(
        "'{0}' is a symbolic link, which this root does not follow (links are followed only with --follow-symlinks, and only while they stay inside the root)"
    )]
    UnfollowedLink(String),
    /// A file the system keeps from this server by its permissions.
    #[error(
        "'{0}' is a file this server may not read: its permissions (mode or owner) deny it; change them, or read another file"
    )]
    Denied(String),
    /// A file or directory the system keeps this server from changing by its permissions.
    #[error(
        "'{0}' may not be changed by this server: the permissions (mode or owner) of it or of its directory deny it; change them, or write elsewhere"
    )]
    WriteDenied(String),
    /// A refusal caused by one of the root's limits.
    #[error("{0}")]
    OverLimit(OverLimit),
    /// `edit` of a file too large to rewrite in memory.
    #[error(
        "'{path}' is larger than {edit} rewrites ({max} bytes at most); change it with {write} or {moved} instead"
    )]
    TooLargeToEdit {
        /// The path as given.
        path: String,
        /// The most bytes `edit` rewrites.
        max: u64,
        /// The published name of `edit`.
        edit: String,
        /// The published name of `write`.
        write: String,
        /// The published name of `move`.
        moved: String,
    },
    /// A write or move whose parent directory is missing.
    #[error("Parent directory of '{0}' does not exist; create it with the mkdir tool first")]
    ParentMissing(String),
    /// A write onto a directory.
    #[error("'{0}' is a directory")]
    IsDirectory(String),
    /// `list` of something that is not a directory.
    #[error("'{0}' is not a directory")]
    NotDirectory(String),
    /// `mkdir` where a non-directory stands.
    #[error("'{0}' exists and is not a directory")]
    ExistsNotDirectory(String),
    /// `edit` found nothing to replace.
    #[error(
        "Found no occurrence of 'old-string' in '{0}'; read the file and quote its text exactly"
    )]
    NoOccurrence(String),
    /// `edit` found several matches without `replace-all`.
    #[error(
        "Found {0} occurrences of 'old-string' in '{1}'; quote more of the surrounding text to pick one out, or set replace-all to true"
    )]
    ManyOccurrences(usize, String),
    /// `edits` beside `old-string` or `new-string`.
    #[error("give old-string and new-string (one edit) or edits (several), not both")]
    EditsAndStrings,
    /// Neither `edits` nor both strings.
    #[error("give old-string and new-string (one edit), or edits: a list of them (several)")]
    NoEdit,
    /// One edit of an `edits` list refused: nothing was changed.
    #[error("edits/{0}: {1} (no edit was applied)")]
    InEdit(usize, Box<FsError>),
    /// An empty `old-string`.
    #[error("'old-string' is empty; quote the text to replace")]
    EmptyOldString,
    /// `old-string` equal to `new-string`.
    #[error("'old-string' and 'new-string' are identical; nothing would change")]
    IdenticalStrings,
    /// An `old-string` not in the file as written, but there with the other line ending.
    #[error(
        "Found no occurrence of 'old-string' in '{0}' as written, but the text is there with the other line ending (\\n where you wrote \\r\\n, or the reverse); quote line endings as the file has them"
    )]
    OtherLineEnding(String),
    /// An `old-string` not in the file as written, but there in another normalization form.
    #[error(
        "Found no occurrence of 'old-string' in '{path}' as written, but the text is there with its accented characters composed differently (another Unicode normalization form); quote the file's text exactly as {read} returns it"
    )]
    OtherNormalization {
        /// The path as given.
        path: String,
        /// The published name of `read`.
        read: String,
    },
    /// `move` onto an existing path.
    #[error(
        "'{0}' already exists and is never replaced: name a path where nothing is, or a directory to put it into"
    )]
    TargetExists(String),
    /// `move` of or onto the root.
    #[error("The root itself cannot be moved")]
    MoveRoot,
    /// `move` of a directory into itself.
    #[error("'{1}' is inside '{0}'")]
    MoveIntoItself(String, String),
    /// `move` of a path onto itself (`mv a.rs .` run where `a.rs` is).
    #[error("'{0}' is already where it would go: name another destination")]
    AlreadyThere(String),
    /// `move` across filesystems.
    #[error("'{0}' and '{1}' are on different filesystems; a move is a rename and never copies")]
    CrossDevice(String, String),
    /// `delete` of a non-empty directory without `recursive`.
    #[error(
        "Directory '{0}' is not empty; set recursive to true to delete it and everything below it"
    )]
    NotEmpty(String),
    /// `delete` of the root.
    #[error("The root itself cannot be deleted")]
    DeleteRoot,
    /// A recursive delete of a tree holding what the root does not serve: the tree, and the
    /// first such entry.
    #[error(
        "Directory '{0}' holds {1}, which this root does not serve and which is no cache or dependency directory's; delete refuses to remove what it cannot show"
    )]
    DeleteUnserved(String, String),
    /// A directory move whose tree holds what the root does not serve, here or there: the
    /// tree, and the first such entry.
    #[error(
        "Directory '{0}' holds {1}, which this root does not serve (here or at the destination) and which is no cache or dependency directory's; move refuses to carry what it cannot show"
    )]
    MoveUnserved(String, String),
    /// `copy` of or onto the root.
    #[error("The root itself cannot be copied or replaced")]
    CopyRoot,
    /// A directory copy whose tree holds what the root does not serve, here or there: the
    /// tree, and the first such entry.
    #[error(
        "Directory '{0}' holds {1}, which this root does not serve (here or at the destination) and which is no cache or dependency directory's; copy refuses to carry what it cannot show"
    )]
    CopyUnserved(String, String),
    /// A FIFO, socket or device met by `copy`.
    #[error(
        "'{0}' is a FIFO, socket or device; copy copies only files, directories and symbolic links"
    )]
    CopySpecial(String),
    /// A link `copy` would create leading outside the root from its new place.
    #[error(
        "'{0}' is a symbolic link that would lead outside the root from its new place; copy refuses to create it"
    )]
    CopyLinkOutside(String),
    /// A copy writing more than one copy may.
    #[error(
        "Copying '{path}' would write {bytes} bytes, more than one copy writes ({max} at most){advice}",
        advice = if *directory { "; copy the directories below it one at a time" } else { "" }
    )]
    CopyTooLarge {
        /// The source as given.
        path: String,
        /// The bytes it holds.
        bytes: u64,
        /// The most one copy writes.
        max: u64,
        /// Whether the source is a directory (whose parts can be copied one by one).
        directory: bool,
    },
    /// A copy that would leave its destination's filesystem with less free than copies keep.
    #[error(
        "Copying '{path}' would take {needs} bytes of disk where {free} are free{reserve}; free space on the destination's filesystem first, or copy something smaller{lower}",
        reserve = reserve_words(*keeps, *cap),
        lower = if *keeps > 0 { ", or lower the reserve with --copy-reserve-bytes (config key limits.copy_reserve_bytes)" } else { "" }
    )]
    CopyNoSpace {
        /// The source as given.
        path: String,
        /// The bytes the copy would allocate.
        needs: u64,
        /// The bytes free on the destination's filesystem.
        free: u64,
        /// The bytes a copy leaves free there.
        keeps: u64,
        /// The most a copy leaves free on any filesystem (`--copy-reserve-bytes`).
        cap: u64,
    },
    /// A file `copy` may not read.
    #[error("'{0}' cannot be read by this server (its permissions), so nothing was copied")]
    CopyUnreadable(String),
    /// A copy whose source changed while it was being copied; nothing was copied.
    #[error("'{0}' changed while it was being copied, so nothing was copied; call again")]
    CopyRaced(String),
    /// A recursive delete that met entries appearing after its check, and left them.
    #[error(
        "'{0}' changed while it was being deleted: what the check saw is gone, and what appeared since is left in place; list it and delete again"
    )]
    DeleteRaced(String),
    /// A recursive delete stopped by the call's deadline (or its cancellation) partway.
    #[error(
        "Stopped deleting '{path}' {why} after removing {removed} of its {total} entries; the rest is still there: call delete again to remove it"
    )]
    DeleteStopped {
        /// The path as given.
        path: String,
        /// Why it stopped, worded for the sentence.
        why: String,
        /// Entries removed before the stop.
        removed: u64,
        /// Entries the check saw, the directory itself included.
        total: u64,
    },
    /// A file that changed while a call read it.
    #[error("'{0}' changed while it was being read; call again")]
    Changed(String),
    /// A mutation the filesystem refused.
    #[error("'{0}' could not be changed: the filesystem refused")]
    Refused(String),
    /// A file another program holds open without sharing it (Windows).
    #[error(
        "'{0}' is open in another program that does not let it be read or replaced; close it there, then call again"
    )]
    InUse(String),
    /// A malformed `_expected-revisions`.
    #[error("_expected-revisions must be an object mapping path arguments to revision tokens")]
    RevisionsInvalid,
    /// `_expected-revisions` without a token for one location.
    #[error(
        "_expected-revisions has no token for '{0}'; send the token from your last observation, or sha256-v1:absent for a path you expect not to exist"
    )]
    RevisionMissing(String),
    /// `_expected-revisions` holds, for one location, a string that is no revision token.
    #[error(
        "_expected-revisions' value for '{0}' is not a revision token: send a token exactly as read, list or stat returned it (sha256-v1:file:<64 hex digits>, sha256-v1:directory:…, sha256-v1:symlink:…), or sha256-v1:absent"
    )]
    RevisionMalformed(String),
    /// A location changed since the caller observed it.
    #[error(
        "'{arg}' changed since it was observed (expected {expected}, found {actual}); read it again before changing it"
    )]
    RevisionMismatch {
        /// The argument name.
        arg: String,
        /// The token the caller sent.
        expected: String,
        /// The current token (or `unknown`).
        actual: String,
    },
    /// A `symbols` name that is the empty string.
    #[error("name must not be empty; give the identifier to look up")]
    EmptyName,
    /// A `symbols` name that is no identifier.
    #[error(
        "'{0}' is not an identifier; give one name as the code spells it, such as parse_args, or Type::method for a member"
    )]
    NotIdentifier(String),
    /// A `glob` or `grep` pattern that is the empty string.
    #[error("pattern must not be empty")]
    EmptyPattern,
    /// A pattern (named by its argument) whose compiled program exceeds the size limit.
    #[error("{0} is too large to compile; shorten it")]
    PatternTooLarge(&'static str),
    /// A literal `grep` pattern holding a line break, which no line can contain.
    #[error(
        "pattern must not contain a line break unless multiline is true; grep matches one line at a time"
    )]
    PatternMultiline,
    /// A `grep` file type ripgrep does not define: the name, and the nearest names or a few
    /// common ones.
    #[error("Unknown file type '{0}'; {1}")]
    UnknownFileType(String, String),
    /// A `grep` regex that does not compile: the pattern and the regex library's reason.
    #[error("Invalid regex pattern '{0}': {1}")]
    InvalidRegex(String, String),
    /// An empty `grep` name filter, which no file name matches.
    #[error("glob must not be empty; leave it out to search every file")]
    EmptyGlob,
    /// A glob (named by its argument) that the glob parser refuses.
    #[error("Invalid {} '{pattern}': {reason}", if *argument == "glob" { "glob" } else { "glob pattern" })]
    InvalidGlob {
        /// `pattern` (the glob tool) or `glob` (grep's filter).
        argument: &'static str,
        /// The pattern as given.
        pattern: String,
        /// What the parser found wrong.
        reason: String,
    },
}

impl FsError {
    /// The model-facing wording of a refusal that came from the root in its program-facing
    /// words: a limit as an [`OverLimit`] (with `narrow`, what the caller can change when a
    /// walk goes over one), and, with `given`, the location argument it concerns, the other
    /// refusals a race can surface in the middle of an operation.
    pub fn worded_for(self, given: Option<&str>, limits: &Limits, narrow: Option<&str>) -> FsError {
        let FsError::Root(error) = self else {
            return self;
        };
        let over = |key: &str, value: u64, what: String| -> FsError {
            FsError::OverLimit(OverLimit::new(key, value, what, narrow.map(str::to_owned)))
        };
        // A walk's budget: "the walk <verb> more than N <things>".
        let walk = |key: &str, value: u64, verb: &str, one: &str, many: &str| {
            over(
                key,
                value,
                format!("the walk {verb} more than {}", count(value, one, many)),
            )
        };
        match (error, given.map(str::to_owned)) {
            (RootError::FileLimit, _) => {
                walk("max_files", limits.max_files, "selected", "file", "files")
            }
            (RootError::DirectoryLimit, _) => walk(
                "max_directories",
                limits.max_directories,
                "entered",
                "directory",
                "directories",
            ),
            (RootError::EntryLimit, _) => walk(
                "max_entries",
                limits.max_entries,
                "read",
                "directory entry",
                "directory entries",
            ),
            (RootError::DepthLimit, _) => over(
                "max_depth",
                limits.max_depth,
                format!(
                    "the walk reached a directory more than {} deep",
                    count(limits.max_depth, "level", "levels")
                ),
            ),
            (RootError::Deadline, _) => FsError::OverLimit(OverLimit::new(
                "max_call_seconds",
                limits.max_call_seconds,
                format!(
                    "the call ran past {}",
                    count(limits.max_call_seconds, "second", "seconds")
                ),
                Some("call again with a smaller path or a simpler pattern".to_owned()),
            )),
            (RootError::TooLarge, Some(given)) => {
                FsError::OverLimit(OverLimit::file_size(given, limits.max_file_bytes))
            }
            (RootError::NotServed, Some(given)) => FsError::Missing(given),
            (RootError::Excluded, Some(given)) => FsError::NotServed(given),
            (RootError::Denied, Some(given)) => FsError::Denied(given),
            (RootError::WriteDenied, Some(given)) => FsError::WriteDenied(given),
            (RootError::NotReadable | RootError::NotWritable, Some(given)) => {
                FsError::NotRegular(given)
            }
            (RootError::ReadFailed | RootError::Changed, Some(given)) => FsError::Changed(given),
            (RootError::WriteFailed, Some(given)) => FsError::Refused(given),
            (RootError::InUse, Some(given)) => FsError::InUse(given),
            (other, _) => FsError::Root(other),
        }
    }
}

/// A refusal or notice caused by one of the root's limits, in the words every model-facing
/// message about a limit shares: what went over (naming the limit's value), the limit's name,
/// what the caller can narrow instead, and the flag and config key that raise it (left out
/// when the limit is already at its largest valid value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverLimit {
    what: String,
    spec: &'static LimitSpec,
    value: u64,
    narrow: Option<String>,
}

impl OverLimit {
    /// `what` went over the limit whose config key is `key`, whose value is `value`; `narrow`
    /// is what the caller can change instead, if anything.
    ///
    /// # Panics
    /// When `key` names no limit: the keys are the fs set's own constants.
    pub fn new(key: &str, value: u64, what: String, narrow: Option<String>) -> OverLimit {
        OverLimit {
            what,
            spec: LimitSpec::by_key(key).expect("the config key of a limit"),
            value,
            narrow,
        }
    }

    /// The notice of an answer cut to fit `--max-result-bytes` (`max`): `what` was cut, and
    /// `narrow` says how to get the rest.
    pub fn result_size(what: String, max: u64, narrow: String) -> OverLimit {
        OverLimit::new(
            "max_result_bytes",
            max,
            format!(
                "{what}, as one answer holds at most {}",
                count(max, "byte", "bytes")
            ),
            Some(narrow),
        )
    }

    /// The refusal of the image `given` (a `format` image of `size` bytes), larger than
    /// `--max-image-bytes` (`max`).
    pub fn image_size(given: &str, format: &str, size: u64, max: u64) -> OverLimit {
        OverLimit::new(
            "max_image_bytes",
            max,
            format!(
                "'{given}' is a {format} image of {}, more than {max}",
                count(size, "byte", "bytes")
            ),
            None,
        )
    }

    /// The refusal of the file `given`, larger than `--max-file-bytes` (`max`).
    pub fn file_size(given: String, max: u64) -> OverLimit {
        OverLimit::new(
            "max_file_bytes",
            max,
            format!("'{given}' is larger than {}", count(max, "byte", "bytes")),
            None,
        )
    }
}

impl fmt::Display for OverLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.spec;
        write!(f, "{} (the {})", self.what, spec.name)?;
        let raise = (self.value < spec.max).then(|| {
            format!(
                "raise it with {} (config key limits.{})",
                spec.flag, spec.key
            )
        });
        match (&self.narrow, raise) {
            (Some(narrow), Some(raise)) => write!(f, "; {narrow}, or {raise}"),
            (Some(narrow), None) => write!(f, "; {narrow}"),
            (None, Some(raise)) => write!(f, "; {raise}"),
            (None, None) => Ok(()),
        }
    }
}

/// How to write `given` when only its `.` segments keep it from being a path: `; write it as
/// 'README.md'` for `./README.md`, else nothing.
fn written_as(given: &str) -> String {
    if RelPath::refused_only_on_windows(given) {
        return "; on Windows a name also may not hold ':' (a data stream) or any of *?\"<>|, \
                nor end in a dot or a space"
            .to_owned();
    }
    RelPath::without_dot_segments(given)
        .map(|path| format!("; write it as '{path}'"))
        .unwrap_or_default()
}

/// `n` and the noun that goes with it: `1 file`, `2 files`.
pub(super) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How a no-room refusal names the reserve copies keep: nothing when there is none, the cap
/// in whole GiB when it is one (the default), in bytes otherwise.
fn reserve_words(keeps: u64, cap: u64) -> String {
    if keeps == 0 {
        return String::new();
    }
    let cap = if cap.is_multiple_of(1 << 30) {
        format!("{} GiB", cap >> 30)
    } else {
        format!("{cap} bytes")
    };
    format!(
        ", leaving less than the {keeps} bytes copies keep free (a tenth of the filesystem, at most {cap})"
    )
}
