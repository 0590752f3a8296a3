//! `RelPath`: a client- or walk-supplied path, parsed once into a normalized relative path.
//!
//! Every textual rule lives here, so nothing downstream ever sees `..`, an absolute path, a drive
//! or UNC prefix, a backslash, a NUL, or a Windows device name.

use std::fmt;

/// Longest path, in UTF-16 code units as ptc-fs-mcp counts them, that a root serves.
pub const MAX_PATH_UNITS: usize = 1024;

/// A normalized path relative to a root: segments joined by `/`, no empty, `.` or `..` segment.
/// The empty path names the root itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath(String);

/// Why a path string is not a relative path inside the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("path is not a relative path inside the root")]
pub struct PathError;

impl RelPath {
    /// The root itself.
    pub fn root() -> RelPath {
        RelPath(String::new())
    }

    /// Parses a client path: `""` and `"."` name the root; empty segments are dropped
    /// (`lib//a` is `lib/a`); everything that could leave or alias outside the root is refused.
    pub fn parse(value: &str) -> Result<RelPath, PathError> {
        RelPath::parse_with(value, cfg!(windows))
    }

    /// Whether `value` is refused only by the rules Windows adds (a data stream, a trailing dot
    /// or space, a forbidden character), so a refusal can name them; always `false` elsewhere.
    pub fn refused_only_on_windows(value: &str) -> bool {
        cfg!(windows)
            && RelPath::parse_with(value, false).is_ok()
            && RelPath::parse_with(value, true).is_err()
    }

    /// [`RelPath::parse`], with or without Windows' own rules.
    fn parse_with(value: &str, windows: bool) -> Result<RelPath, PathError> {
        if value == "." {
            return Ok(RelPath::root());
        }
        if value.contains('\0')
            || value.starts_with('/')
            || value.contains('\\')
            || value.encode_utf16().count() > MAX_PATH_UNITS
            || has_drive_prefix(value)
        {
            return Err(PathError);
        }
        let mut normalized = String::with_capacity(value.len());
        for segment in value.split('/').filter(|s| !s.is_empty()) {
            if segment == "."
                || segment == ".."
                || is_device_name(segment)
                || is_reserved(segment)
                || (windows && is_windows_alias(segment))
            {
                return Err(PathError);
            }
            if !normalized.is_empty() {
                normalized.push('/');
            }
            normalized.push_str(segment);
        }
        Ok(RelPath(normalized))
    }

    /// What a client most likely meant by `value` when its `.` segments are all that is wrong
    /// with it (`./README.md` for `README.md`): the path without them, `.` for the root.
    /// `None` when `value` has no `.` segment or is refused for another reason too.
    pub fn without_dot_segments(value: &str) -> Option<String> {
        let segments = value.split('/');
        let kept: Vec<&str> = segments.clone().filter(|s| *s != ".").collect();
        if kept.len() == segments.count() {
            return None;
        }
        let path = RelPath::parse(&kept.join("/")).ok()?;
        Some(if path.is_root() {
            ".".to_owned()
        } else {
            path.0
        })
    }

    /// Accepts a path discovered by a walk only if it is already in normal form, so a name a
    /// client could not address is never served.
    pub fn from_walk(path: String) -> Option<RelPath> {
        match RelPath::parse(&path) {
            Ok(parsed) if parsed.0 == path => Some(parsed),
            _ => None,
        }
    }

    /// The normalized text (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this names the root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path's segments, outermost first.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// Number of segments (0 for the root).
    pub fn depth(&self) -> usize {
        self.segments().count()
    }

    /// The last segment, or `None` for the root.
    pub fn file_name(&self) -> Option<&str> {
        if self.is_root() {
            None
        } else {
            self.0.rsplit('/').next()
        }
    }

    /// The parent path, or `None` for the root.
    pub fn parent(&self) -> Option<RelPath> {
        if self.is_root() {
            return None;
        }
        Some(match self.0.rfind('/') {
            Some(i) => RelPath(self.0[..i].to_owned()),
            None => RelPath::root(),
        })
    }

    /// This path extended by one segment that a directory listing produced.
    pub fn join(&self, name: &str) -> String {
        if self.is_root() {
            name.to_owned()
        } else {
            let mut joined = String::with_capacity(self.0.len() + 1 + name.len());
            joined.push_str(&self.0);
            joined.push('/');
            joined.push_str(name);
            joined
        }
    }

    /// Whether `path` is this path or lies beneath it.
    pub fn contains(&self, path: &str) -> bool {
        self.is_root()
            || path == self.0
            || (path.len() > self.0.len()
                && path.starts_with(self.0.as_str())
                && path.as_bytes()[self.0.len()] == b'/')
    }

    /// Whether `path` is a proper ancestor of this path (the root is an ancestor of everything else).
    pub fn is_below(&self, path: &str) -> bool {
        path != self.0 && RelPath(path.to_owned()).contains(&self.0)
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Prefix of the names fsmcp gives its own in-flight temp files.
pub(crate) const TEMP_PREFIX: &str = ".fsmcp-";
/// Suffix of those names.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// fsmcp's temp-file names are reserved: no path may name one, so a half-written file is never
/// served and nothing can hide under such a name.
/// Where filesystems ignore case, `.FSMCP-….TMP` opens such a file too, so there the test
/// ignores ASCII case.
pub(crate) fn is_reserved(segment: &str) -> bool {
    if crate::select::EXCLUDES_IGNORE_CASE {
        let bytes = segment.as_bytes();
        let (prefix, suffix) = (TEMP_PREFIX.as_bytes(), TEMP_SUFFIX.as_bytes());
        bytes.len() >= prefix.len() + suffix.len()
            && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
            && bytes[bytes.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    } else {
        segment.starts_with(TEMP_PREFIX) && segment.ends_with(TEMP_SUFFIX)
    }
}

/// `C:`, `c:x` and friends: a drive-relative path on Windows, refused everywhere.
fn has_drive_prefix(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// On Windows a segment with `:` names an alternate data stream of another entry (`a.txt:x`),
/// one ending in a dot or space names the entry without it (Win32 strips them), and `*?"<>|`
/// and control characters are no part of any name: each would reach something other than the
/// entry it spells, so each is refused there (elsewhere they are ordinary names).
pub(crate) fn is_windows_alias(segment: &str) -> bool {
    segment.ends_with('.')
        || segment.ends_with(' ')
        || segment
            .chars()
            .any(|c| matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') || (c as u32) < 0x20)
}

/// Windows reserves these names in every directory, with or without an extension; a file so
/// named cannot be created or read there, so fsmcp refuses them on every platform alike.
pub(crate) fn is_device_name(segment: &str) -> bool {
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        // COM0–COM9 and LPT0–LPT9, and the superscript digits Windows also maps to ports.
        _ => match upper
            .strip_prefix("COM")
            .or_else(|| upper.strip_prefix("LPT"))
        {
            Some(port) => {
                let mut chars = port.chars();
                matches!(
                    (chars.next(), chars.next()),
                    (Some('0'..='9' | '¹' | '²' | '³'), None)
                )
            }
            None => false,
        },
    }
}

/// Compares two paths as ptc-fs-mcp sorts them: by UTF-16 code units of the whole string.
pub fn compare_utf16(a: &str, b: &str) -> std::cmp::Ordering {
    // Byte order equals code-point order; UTF-16 order differs only when a supplementary
    // character meets one in U+E000..=U+FFFF, so take the fast path unless both hold non-ASCII.
    if a.is_ascii() || b.is_ascii() {
        return a.as_bytes().cmp(b.as_bytes());
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_aliases_are_refused_there_and_ordinary_elsewhere() {
        for segment in [
            "a.txt:secret",
            "a.txt::$DATA",
            "x.",
            "x ",
            "a*b",
            "a?",
            "a|b",
            "a\tb",
        ] {
            assert!(is_windows_alias(segment), "{segment}");
            assert_eq!(
                RelPath::parse(&format!("d/{segment}")).is_err(),
                cfg!(windows)
            );
        }
        for segment in ["a.txt", ".env", "x.y.z", "a b", "~1", "NODE_M~1"] {
            assert!(!is_windows_alias(segment), "{segment}");
        }
        // Only a path that Windows' rules alone refuse is said to be refused for them.
        assert_eq!(RelPath::refused_only_on_windows("d/a.txt:s"), cfg!(windows));
        for other in ["../x", "./a", "C:\\x", "C:x", "a/CON", "a/b", "x\\y:z"] {
            assert!(!RelPath::refused_only_on_windows(other), "{other}");
        }
    }

    #[test]
    fn accepts_and_normalizes() {
        for (input, expected) in [
            ("", ""),
            (".", ""),
            ("lib", "lib"),
            ("lib/", "lib"),
            ("lib//a.ts", "lib/a.ts"),
            ("a/b/c.txt", "a/b/c.txt"),
            (".hidden", ".hidden"),
            ("console.txt", "console.txt"),
            ("com10", "com10"),
            ("lpt⁴.txt", "lpt⁴.txt"),
            ("comx", "comx"),
        ] {
            assert_eq!(RelPath::parse(input).unwrap().as_str(), expected, "{input}");
        }
        // A name of dots: ordinary on Unix; on Windows a trailing dot is stripped, so refused.
        assert_eq!(
            RelPath::parse("...").map(|p| p.as_str().to_owned()),
            if cfg!(windows) {
                Err(PathError)
            } else {
                Ok("...".to_owned())
            }
        );
    }

    #[test]
    fn refuses_escapes() {
        for input in [
            "/etc/passwd",
            "..",
            "./lib",
            "lib/.",
            "./",
            "a/../b",
            "src/../src",
            ".hidden/..",
            "a\\b",
            "C:\\x",
            "C:/x",
            "c:x",
            "\\\\server\\share",
            "a\0b",
            "CON",
            "nul.txt",
            "dir/Aux.c",
            "COM1",
            "lpt9.log",
            "COM0",
            "lpt0.txt",
            "COM¹",
            "lpt³.txt",
            "Com² .log",
            "LPT1 ",
            ".fsmcp-0123.tmp",
            "n/.fsmcp-x.tmp/f.txt",
        ] {
            assert_eq!(RelPath::parse(input), Err(PathError), "{input:?}");
        }
        assert!(RelPath::parse(&"a".repeat(1024)).is_ok());
        assert!(RelPath::parse(&"a".repeat(1025)).is_err());
    }

    #[test]
    fn a_path_wrong_only_in_its_dot_segments_has_a_spelling_without_them() {
        for (input, expected) in [
            ("./README.md", Some("README.md")),
            ("lib/.", Some("lib")),
            ("a/./b//./c", Some("a/b/c")),
            ("./", Some(".")),
            ("./.", Some(".")),
            ("README.md", None),
            ("./../x", None),
            ("/./x", None),
            ("./CON", None),
        ] {
            assert_eq!(
                RelPath::without_dot_segments(input).as_deref(),
                expected,
                "{input:?}"
            );
        }
    }

    #[test]
    fn walk_paths_must_be_normal() {
        assert!(RelPath::from_walk("a/b".into()).is_some());
        assert!(RelPath::from_walk("a\\b".into()).is_none());
        assert!(RelPath::from_walk("c:x".into()).is_none());
    }

    #[test]
    fn containment() {
        let lib = RelPath::parse("lib").unwrap();
        assert!(lib.contains("lib"));
        assert!(lib.contains("lib/a"));
        assert!(!lib.contains("libx/a"));
        assert!(RelPath::root().contains("anything"));
        assert!(lib.is_below(""));
        assert!(RelPath::parse("a/b").unwrap().is_below("a"));
        assert!(!lib.is_below("lib"));
    }

    #[test]
    fn utf16_order() {
        use std::cmp::Ordering::*;
        assert_eq!(compare_utf16("a-b/x", "a/b"), Less);
        // U+1F600 (surrogates D83D..) sorts before U+FF01 in UTF-16, after it in UTF-8.
        assert_eq!(compare_utf16("\u{1F600}", "\u{FF01}"), Less);
        assert_eq!(compare_utf16("é", "z"), Greater);
    }
}
