//! Rust items written inside macro invocations (`cfg_rt! { pub fn spawn … }`,
//! `pin_project! { pub struct … }`).
//!
//! The grammar reads a macro's body as a token tree, so nothing in it is tagged. A body
//! written in braces, at item level (not inside a function), is tagged again on its own as a
//! file of items, and what it yields counts as the file's own. A syntax error in the body does
//! not discard it: the parser recovers around what is not Rust (`pub struct ExprArray #full {`
//! in syn's `ast_struct!`, `struct Flags: u32` in `bitflags!`) and the tags skip any name
//! inside an error, so what is tagged is still a real item; a body that holds no items
//! (`select!`'s arms sit inside functions anyway) yields nothing. Bodies within bodies are read
//! the same way, down to [`MAX_DEPTH`] macros deep.

use std::ops::Range;

use super::Tagged;

/// Most macro invocations one item may sit within and still be read.
pub const MAX_DEPTH: usize = 4;

/// Tags the body of a macro invocation, given its byte range in the whole file and the row it
/// starts on; its tags have offsets and rows in the whole file.
pub(super) type TagBody<'a> = dyn FnMut(Range<usize>, usize) -> Option<Vec<Tagged>> + 'a;

/// Adds to `tagged` what the item-level macro bodies among them hold.
pub(super) fn expand(tagged: &mut Vec<Tagged>, source: &[u8], tag_body: &mut TagBody<'_>) {
    let mut level = std::mem::take(tagged);
    for _ in 0..MAX_DEPTH {
        let bodies = item_bodies(&level, source);
        tagged.append(&mut level);
        if bodies.is_empty() {
            return;
        }
        let mut rows = Rows::default();
        for body in bodies {
            let row = rows.at(source, body.start);
            if let Some(found) = tag_body(body, row) {
                level.extend(found);
            }
        }
    }
    tagged.append(&mut level);
}

/// The bodies (inside the braces) of the macro invocations among `tagged` that are not
/// inside a function, in file order.
fn item_bodies(tagged: &[Tagged], source: &[u8]) -> Vec<Range<usize>> {
    let functions = outermost(
        tagged
            .iter()
            .filter(|t| t.function)
            .map(|t| t.range.clone()),
    );
    let mut bodies: Vec<Range<usize>> = tagged
        .iter()
        .filter(|t| !t.definition)
        .filter_map(|t| braced_body(source, t))
        .filter(|body| {
            // The outermost function starting at or before the body, if it reaches past it.
            let before = functions.partition_point(|f| f.start <= body.start);
            before == 0 || functions[before - 1].end <= body.start
        })
        .collect();
    bodies.sort_by_key(|body| body.start);
    bodies.dedup();
    bodies
}

/// The body of `name! { … }` when `tag` is such an invocation: from after the opening brace
/// to before the closing one.
fn braced_body(source: &[u8], tag: &Tagged) -> Option<Range<usize>> {
    let after_name = tag.name_start + tag.name.len();
    let rest = source.get(after_name..tag.range.end)?;
    let rest = skip_space(rest).strip_prefix(b"!")?;
    let rest = skip_space(rest).strip_prefix(b"{")?;
    let open = tag.range.end - rest.len();
    let close = tag.range.end.checked_sub(1)?;
    (source.get(close) == Some(&b'}') && open <= close).then_some(open..close)
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let blank = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &bytes[blank..]
}

/// The ranges not inside another of `ranges` (syntax nodes nest or are disjoint), sorted.
fn outermost(ranges: impl Iterator<Item = Range<usize>>) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = ranges.collect();
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut kept: Vec<Range<usize>> = Vec::new();
    for range in ranges {
        if kept.last().is_none_or(|last| last.end <= range.start) {
            kept.push(range);
        }
    }
    kept
}

/// Rows of byte offsets, asked in increasing order (counted once over the file).
#[derive(Default)]
struct Rows {
    at: usize,
    row: usize,
}

impl Rows {
    fn at(&mut self, source: &[u8], offset: usize) -> usize {
        if offset < self.at {
            *self = Rows::default();
        }
        let end = offset.min(source.len());
        self.row += source[self.at.min(end)..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.at = end;
        self.row
    }
}
