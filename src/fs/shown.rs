//! Paths in the model-facing text answers, which put one entry on a line: a name that could end
//! a line or pass for another entry's prefix is shown quoted, so no file name can forge a line.

use std::borrow::Cow;

/// `path` as a text answer shows it. It is shown as it is unless it holds a control character
/// or a Unicode line or paragraph separator, starts with `"`, or (with `line_marks`, for
/// `path:N:` / `path-N-` lines) holds a `:N:` or `-N-` run that would read as a line number.
/// Such a path is shown as a JSON string: in double quotes, with `\"`, `\\`, `\n`, `\r`, `\t`
/// and `\uXXXX` escapes.
pub fn shown_path(path: &str, line_marks: bool) -> Cow<'_, str> {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    let quote =
        path.starts_with('"') || path.contains(breaks) || (line_marks && has_line_mark(path));
    if !quote {
        return Cow::Borrowed(path);
    }
    let mut quoted = String::with_capacity(path.len() + 2);
    quoted.push('"');
    for c in path.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c if breaks(c) => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    Cow::Owned(quoted)
}

/// Whether `path` holds `:` or `-`, one or more digits, and the same mark again.
fn has_line_mark(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.iter().enumerate().any(|(i, &mark)| {
        if mark != b':' && mark != b'-' {
            return false;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        digits > 0 && bytes.get(i + 1 + digits) == Some(&mark)
    })
}

#[cfg(test)]
mod tests {
    use super::shown_path;

    #[test]
    fn plain_paths_are_shown_as_they_are() {
        for path in [
            "src/main.rs",
            "a b/c-d.txt",
            "x:y.txt",
            "v-1.2-rc.txt",
            "naïve.md",
        ] {
            assert_eq!(shown_path(path, true), path);
        }
        assert_eq!(shown_path("x:1:y", false), "x:1:y");
    }

    #[test]
    fn paths_that_could_forge_a_line_are_quoted() {
        assert_eq!(
            shown_path("x.txt:1:benign\nIMPORTANT.txt", false),
            r#""x.txt:1:benign\nIMPORTANT.txt""#
        );
        assert_eq!(shown_path("x.txt:1:benign", true), r#""x.txt:1:benign""#);
        assert_eq!(shown_path("a-12-b", true), r#""a-12-b""#);
        assert_eq!(shown_path("\"q\\", false), r#""\"q\\""#);
        assert_eq!(shown_path("a\u{2028}b\u{7f}", false), r#""a\u2028b\u007f""#);
        assert_eq!(shown_path("tab\there\r", false), r#""tab\there\r""#);
    }
}
