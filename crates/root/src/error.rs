//! Errors of the root layer. Each `Display` is the exact sentence a client sees: no host path,
//! no OS error text.

/// A refusal or failure while walking, opening or replacing something under a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    /// A walk or probe went deeper than `--max-depth`.
    #[error("directory depth limit exceeded")]
    DepthLimit,
    /// A traversal entered more than `--max-directories` directories.
    #[error("directory limit exceeded")]
    DirectoryLimit,
    /// A traversal read more than `--max-entries` directory entries.
    #[error("directory entry limit exceeded")]
    EntryLimit,
    /// A traversal selected more than `--max-files` files.
    #[error("file limit exceeded")]
    FileLimit,
    /// The selector does not serve the path, or its directory chain does not resolve.
    #[error("path is not served by this root")]
    NotServed,
    /// The path or one of its ancestors is excluded.
    #[error("path matches an --exclude pattern of this root")]
    Excluded,
    /// The path cannot be opened as a regular file (missing, a link, a directory, a FIFO…).
    #[error("path is not a readable regular file")]
    NotReadable,
    /// The system refused this process the file by its permissions (`EACCES`, `EPERM`). The
    /// program-facing tools word it as [`RootError::NotReadable`], as the tools they stand in
    /// for do; the model-facing ones say what it is.
    #[error("path is not a readable regular file")]
    Denied,
    /// The file is larger than `--max-file-bytes`.
    #[error("file exceeds the configured size limit")]
    TooLarge,
    /// A read returned fewer bytes than the file holds.
    #[error("read failed")]
    ReadFailed,
    /// The file's identity changed between observations.
    #[error("filesystem changed while reading")]
    Changed,
    /// A write destination that is not a writable regular file.
    #[error("destination is not a writable regular file")]
    NotWritable,
    /// The system refused this process the write by permissions (`EACCES`, `EPERM`): the
    /// file's or its directory's. The program-facing tools word it as
    /// [`RootError::NotWritable`], as the tools they stand in for do; the model-facing ones
    /// say what it is.
    #[error("destination is not a writable regular file")]
    WriteDenied,
    /// The bytes could not be written and committed.
    #[error("write failed")]
    WriteFailed,
    /// Another program holds the file open without sharing it (Windows: a sharing violation,
    /// or a replace refused while the file is open elsewhere).
    #[error("file is open in another program that does not share it")]
    InUse,
    /// The call ran past its `--max-call-seconds` deadline.
    #[error(
        "the call ran past its time limit (--max-call-seconds); narrow it to a smaller path, pattern or page and call again"
    )]
    Deadline,
    /// The client cancelled the call.
    #[error("the call was cancelled")]
    Cancelled,
}
