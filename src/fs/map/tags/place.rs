//! Where each definition sits: an item, nested in a function body, or test-only code; and
//! whose member it is (the enclosing type, trait or module, or what `container` reads from
//! a Rust `impl` head or a Go receiver).
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
            None if language == Language::Go && tag.function => source
                .get(tag.range.clone())
                .and_then(super::container::go_receiver_type),
            owner => owner,
        };
        tagged[i].place = place;
        tagged[i].container = owner;
    }
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
