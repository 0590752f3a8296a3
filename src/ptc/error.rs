//! The refusals of the ptc tools. Each `Display` is ptc-fs-mcp's exact sentence; a refusal
//! from the root reads in the root's words, which are ptc-fs-mcp's too.

use crate::root::{PathError, RootError};

/// Why a ptc tool call was refused or failed, in ptc-fs-mcp's exact words; the message tells
/// the caller what to do next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PtcError {
    /// Refused by the root (limits, selector, opens, reads, writes).
    #[error(transparent)]
    Root(#[from] RootError),
    /// A path argument that could leave the root.
    #[error("path is not a relative path inside the root")]
    NotRelative,
    /// A non-string `path`.
    #[error("path must be a string")]
    PathNotString,
    /// `read_text_file` named the root itself.
    #[error("path must name a file")]
    PathNotFile,
    /// A cursor that was not issued by this server for this tool, or was edited.
    #[error("cursor is not valid")]
    CursorInvalid,
    /// A genuine cursor presented to another tool or other arguments.
    #[error("cursor was issued for a different traversal")]
    CursorScope,
    /// The state the cursor was bound to has changed.
    #[error("the filesystem changed since this cursor was issued; start the traversal again")]
    CursorStale,
    /// A signed position outside what the bound state holds.
    #[error("cursor position is not valid")]
    CursorPosition,
    /// `limit` beyond the safe-integer range or below 1.
    #[error("limit must be a positive integer")]
    LimitInvalid,
    /// Missing, empty or non-string search term.
    #[error("query must be a non-empty string")]
    QueryEmpty,
    /// A term over 256 bytes or holding a line break.
    #[error("query must be one line of at most 256 UTF-8 bytes")]
    QueryTooLong,
    /// Both `query` and `any_of`.
    #[error("pass either query or any_of, not both")]
    QueryAndAnyOf,
    /// `any_of` not a non-empty array.
    #[error("any_of must be a non-empty array of strings")]
    AnyOfInvalid,
    /// More than 16 terms.
    #[error("any_of accepts at most 16 terms")]
    AnyOfTooMany,
    /// A non-boolean `case_insensitive`.
    #[error("case_insensitive must be a boolean")]
    CaseInsensitiveInvalid,
    /// `start_line` below 1 or unsafe.
    #[error("start_line must be a positive integer")]
    StartLineInvalid,
    /// Finding `start_line` would scan past one page's budget.
    #[error("start_line is further into the file than one page may scan")]
    StartLineTooFar,
    /// Bytes that would be returned are not UTF-8.
    #[error("file is not valid UTF-8")]
    NotUtf8,
    /// Deterministic mode would hash more uncached bytes than allowed in one call.
    #[error("deterministic cursor hashing exceeds the configured byte ceiling")]
    HashCeiling,
    /// Not one candidate fits the result ceiling.
    #[error("one result item exceeds the result ceiling")]
    ItemTooLarge,
    /// Not even an empty page fits the result ceiling.
    #[error("result ceiling is too small")]
    CeilingTooSmall,
    /// A write path that is not one lowercase basename.
    #[error(
        "path must be one lowercase basename of letters, digits, dots, underscores, or hyphens"
    )]
    WriteName,
    /// A non-string `content`.
    #[error("content must be a string")]
    ContentNotString,
    /// A payload over `--max-write-bytes`.
    #[error("content exceeds the {0}-byte write limit")]
    ContentTooLarge(u64),
    /// The basename is not included although some include reaches the root level.
    #[error("path matches no --include pattern of this root")]
    WriteNotIncluded,
    /// No include can ever match a root-level name, so the configuration refuses every write.
    #[error(
        "no --include pattern of this root matches a file in the root itself, so no write can be accepted; a write names one basename and lands in the root, so add an --include pattern without a directory prefix, such as '**'"
    )]
    WriteNoRootLevel,
}

impl From<crate::digest::DigestError> for PtcError {
    fn from(error: crate::digest::DigestError) -> Self {
        match error {
            crate::digest::DigestError::OverBudget => PtcError::HashCeiling,
            crate::digest::DigestError::Root(error) => PtcError::Root(error),
        }
    }
}

impl From<PathError> for PtcError {
    fn from(_: PathError) -> Self {
        PtcError::NotRelative
    }
}
