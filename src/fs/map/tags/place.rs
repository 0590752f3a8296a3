//! Where each definition sits: an item, nested in a function body, or test-only code; and
//! whose member it is.
//!
//! Read from the tagged nodes' own ranges, which nest as the syntax tree does: a definition
//! inside a function's or method's range is [`Place::Nested`]; in Rust, a definition under a
//! test attribute (`#[cfg(test)]`, `#[test]`, `#[tokio::test]` …) is [`Place::Test`], and so
//! is everything inside it.

use std::cmp::Reverse;

use super::{Language, Place, Tagged};

/// Most lines above a definition searched for its attributes.
const MAX_ATTRIBUTE_LINES: usize = 8;

/// Sets the place and the container of every definition in `tagged`.
pub(super) fn assign(tagged: &mut [Tagged], language: Language, source: &[u8]) {
    let mut order: Vec<usize> = (0..tagged.len())
        .filter(|&i| tagged[i].definition || tagged[i].impl_block)
        .collect();
    order.sort_by_key(|&i| (tagged[i].range.start, Reverse(tagged[i].range.end)));
    // The enclosing nodes still open: where each ends, the place of what it holds, and whose
    // members its definitions are (none inside a function body).
    let mut open: Vec<(usize, Place, Option<String>)> = Vec::new();
    for i in order {
        let tag = &tagged[i];
        while open
            .last()
            .is_some_and(|(end, _, _)| *end <= tag.range.start)
        {
            open.pop();
        }
        let (outer, owner) = open
            .last()
            .map_or((Place::Item, None), |(_, place, owner)| {
                (*place, owner.clone())
            });
        let place = if outer == Place::Test
            || (language == Language::Rust && under_test_attribute(source, tag.range.start))
        {
            Place::Test
        } else {
            outer
        };
        let inner = match place {
            Place::Item if tag.function => Place::Nested,
            place => place,
        };
        let holds = if tag.function {
            None
        } else {
            tag.members.clone()
        };
        open.push((tag.range.end, inner, holds));
        let owner = match owner {
            None if language == Language::Go && tag.function => {
                source.get(tag.range.clone()).and_then(go_receiver_type)
            }
            owner => owner,
        };
        tagged[i].place = place;
        tagged[i].container = owner;
    }
}

/// The implementing type of a Rust `impl` block, from its head: `Parser` for
/// `impl<'a, T: Read> fmt::Debug for super::Parser<'a, T> where … {`; `None` when it is not a
/// named type (a tuple, a reference to a slice …).
pub(super) fn implementing_type(item: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&item[..item.len().min(1024)]);
    let rest = head
        .trim_start()
        .strip_prefix("unsafe")
        .unwrap_or(&head)
        .trim_start();
    let mut rest = rest.strip_prefix("impl")?.trim_start();
    if rest.starts_with('<') {
        rest = &rest[closing(rest)? + 1..];
    }
    // The head ends at the body or a where clause; ` for ` splits the trait from the type, at
    // the outermost level of brackets.
    let (mut depth, mut start, mut end) = (0usize, 0usize, rest.len());
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => {
                end = i;
                break;
            }
            b' ' | b'\n' | b'\t' if depth == 0 && keyword_at(bytes, i + 1, b"where") => {
                end = i;
                break;
            }
            b' ' | b'\n' | b'\t' if depth == 0 && keyword_at(bytes, i + 1, b"for") => {
                start = i + 4;
            }
            _ => {}
        }
    }
    let mut ty = rest[start.min(end)..end].trim();
    for prefix in ["&", "mut ", "dyn "] {
        ty = ty.strip_prefix(prefix).unwrap_or(ty).trim_start();
    }
    let ty = ty.split('<').next().unwrap_or_default();
    let ty = ty.rsplit("::").next().unwrap_or_default().trim();
    is_identifier(ty).then(|| ty.to_owned())
}

/// The receiver's type of a Go method (`Server` in `func (s *Server[T]) Serve(`).
fn go_receiver_type(declaration: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&declaration[..declaration.len().min(256)]);
    let receiver = head.strip_prefix("func")?.trim_start().strip_prefix('(')?;
    let receiver = &receiver[..receiver.find(')')?];
    let receiver = receiver.split('[').next().unwrap_or_default();
    let ty = receiver.split_whitespace().last()?.trim_start_matches('*');
    is_identifier(ty).then(|| ty.to_owned())
}

/// The offset of the `>` closing the `<` that `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `bytes` holds the word `keyword` at `at`, followed by white space.
fn keyword_at(bytes: &[u8], at: usize, keyword: &[u8]) -> bool {
    bytes.get(at..).is_some_and(|rest| {
        rest.starts_with(keyword) && rest.get(keyword.len()).is_some_and(u8::is_ascii_whitespace)
    })
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether the attributes written just above byte `start` (on its own line, or on the lines
/// right above it) mark test-only code.
fn under_test_attribute(source: &[u8], start: usize) -> bool {
    let start = start.min(source.len());
    let line_start = super::line_start(source, start);
    if test_attribute(&source[line_start..start]) {
        return true;
    }
    source[..line_start]
        .split(|&b| b == b'\n')
        .rev()
        .skip(1) // the empty piece after the last line ending
        .take(MAX_ATTRIBUTE_LINES)
        .map(|line| line.trim_ascii())
        .take_while(|line| line.starts_with(b"#[") || line.starts_with(b"//"))
        .any(test_attribute)
}

/// Whether a line holds an attribute that marks test-only code.
fn test_attribute(line: &[u8]) -> bool {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    line.starts_with("#[")
        && (line.contains("cfg(test)")
            || line.contains("cfg(all(test")
            || line.starts_with("#[test]")
            || line.contains("::test]")
            || line.contains("::test("))
}
