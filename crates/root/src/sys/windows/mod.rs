//! The root's system calls on Windows, under the names rustix gives them on Unix.
//!
//! Every open is relative to a directory handle (`NtCreateFile` with `RootDirectory`), one
//! component at a time, with `FILE_OPEN_REPARSE_POINT`: a symbolic link, junction or mount
//! point is opened as itself and reported as a link, never followed. A component that Windows
//! would read as something else (an alternate data stream `a:b`, a trailing dot or space, a
//! reserved device name, a separator) is refused before any call. Renames and deletes act on
//! a handle (`FileRenameInformationEx`, `FileDispositionInformationEx`), so they too name
//! nothing outside the directory handle they are given. Modes are derived: directories read as
//! `0o755`, files as `0o644`, or `0o444` with the read-only attribute, which is the one bit a
//! mode change sets.

pub(crate) mod fd;
pub(crate) mod fs;
pub(crate) mod io;
mod nt;
pub(crate) mod process;
