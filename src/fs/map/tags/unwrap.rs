//! Rust items written inside macro invocations (`cfg_rt! { pub fn spawn … }`,
//! `pin_project! { pub struct … }`): where their bodies are.
//!
//! The grammar reads a macro's body as a token tree, so nothing in it would be tagged. A
//! lexical scan finds each invocation `name! { … }` written where items are (at module level,
//! or in the body of a `mod`, `impl`, `trait` or `extern` block, of another such invocation,
//! or of a `cfg_if!` branch; never in a function body or an initializer). The file is parsed with those
//! bodies blanked (a blank costs the parser next to nothing), and each body is parsed on its
//! own as a file of items (see `super::tag_with`): every byte is parsed once, and a body that
//! is not items (`bitflags!`'s `struct F: u32`, syn's `#full`) meets the parser's error
//! recovery inside its own parse, where it cannot swallow the items around it.
//!
//! The scan knows Rust's tokens as far as braces can hide in them: strings (plain, byte, C and
//! raw, any number of `#`), character literals and lifetimes, line and nested block comments,
//! and attributes.

use std::ops::Range;

/// Where a `{` opened, as the scan sees it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    /// A block of items: a `mod`, `impl`, `trait` or `extern` body.
    Items,
    /// The body of an item-level macro invocation, from the byte after its `{`.
    Body(usize),
    /// Anything else: a function body, a struct's fields, an initializer.
    Other,
}

/// The bodies (inside the braces) of the item-level macro invocations in `source` that are
/// not inside another, in file order; `source` is itself a macro's body when `in_body`.
pub(super) fn item_macro_bodies(source: &[u8], in_body: bool) -> Vec<Range<usize>> {
    let mut bodies = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    // The words since the last `;`, `{` or `}` (attributes left out), while the scan is where
    // items are: enough to tell what a `{` opens (the first 64 are plenty).
    let mut head: Vec<(usize, usize)> = Vec::new();
    let at_items = |blocks: &[Block]| blocks.last().is_none_or(|b| *b != Block::Other);
    let mut i = 0;
    while i < source.len() {
        let byte = source[i];
        match byte {
            b'/' if source.get(i + 1) == Some(&b'/') => {
                i = source[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(source.len(), |n| i + n);
                continue;
            }
            b'/' if source.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(source, i);
                continue;
            }
            b'"' => {
                i = string_end(source, i + 1);
                continue;
            }
            b'\'' => {
                i = quote_end(source, i);
                continue;
            }
            b'#' if matches!(source.get(i + 1), Some(b'[' | b'!')) && at_items(&blocks) => {
                // An attribute: skipped whole, it is not part of what follows's head.
                if let Some(end) = attribute_end(source, i) {
                    i = end;
                    continue;
                }
            }
            b';' => head.clear(),
            b'{' => {
                let block = if !at_items(&blocks) {
                    Block::Other
                } else if let [(_, end)] = head[..]
                    && is_bang(&source[end..i])
                {
                    Block::Body(i + 1)
                } else {
                    let words = || head.iter().map(|&(s, e)| &source[s..e]);
                    let in_body = in_body || blocks.iter().any(|b| matches!(b, Block::Body(_)));
                    if words().any(|w| w == b"fn") {
                        Block::Other
                    } else if in_body && words().next().is_some_and(|w| w == b"if" || w == b"else")
                    {
                        // A branch of `cfg_if! { if #[cfg(…)] { … } else { … } }`.
                        Block::Items
                    } else if words().any(|w| matches!(w, b"mod" | b"impl" | b"trait" | b"extern"))
                    {
                        Block::Items
                    } else {
                        Block::Other
                    }
                };
                blocks.push(block);
                head.clear();
            }
            b'}' => {
                if let Some(Block::Body(start)) = blocks.pop()
                    && !blocks.iter().any(|b| matches!(b, Block::Body(_)))
                {
                    bodies.push(start..i);
                }
                head.clear();
            }
            _ if byte == b'_' || byte.is_ascii_alphanumeric() => {
                let start = i;
                while i < source.len() && (source[i] == b'_' || source[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                // String prefixes: `r"…"`, `r#"…"#`, `b"…"`, `br"…"`, `c"…"`.
                if matches!(&source[start..i], b"r" | b"br" | b"cr" | b"b" | b"c")
                    && let Some(end) = prefixed_string_end(source, i)
                {
                    i = end;
                    continue;
                }
                if at_items(&blocks) && head.len() < 64 {
                    head.push((start, i));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    bodies
}

/// Whether the text between a macro's name and its `{` is just the `!`.
fn is_bang(between: &[u8]) -> bool {
    between.trim_ascii() == b"!"
}

/// The offset after a block comment starting at `at` (`/*`), nested ones included.
fn block_comment_end(source: &[u8], at: usize) -> usize {
    let (mut depth, mut i) = (0usize, at);
    while i + 1 < source.len() {
        match (source[i], source[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    source.len()
}

/// The offset after a plain string whose contents start at `at` (after its `"`).
fn string_end(source: &[u8], mut at: usize) -> usize {
    while at < source.len() {
        match source[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    source.len()
}

/// After a string prefix ending at `at` (`r`, `b`, `br`, `c`, `cr`): the offset after the
/// string, or `None` if no string follows (an identifier such as `r#type` or `b`).
fn prefixed_string_end(source: &[u8], at: usize) -> Option<usize> {
    let hashes = source[at..].iter().take_while(|&&b| b == b'#').count();
    if source.get(at + hashes) != Some(&b'"') {
        return None;
    }
    let raw = source[..at].last().is_some_and(|&b| b == b'r');
    if !raw {
        return (hashes == 0).then(|| string_end(source, at + 1));
    }
    // A raw string ends at `"` followed by as many `#`.
    let mut i = at + hashes + 1;
    while i < source.len() {
        if source[i] == b'"'
            && source[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&b| b == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(source.len())
}

/// After a `'` at `at`: past a character literal (`'{'`, `'\''`, `'\u{7f}'`), or just past the
/// quote of a lifetime (`'a`).
fn quote_end(source: &[u8], at: usize) -> usize {
    match source.get(at + 1) {
        Some(b'\\') => {
            let mut i = at + 2;
            while i < source.len() && source[i] != b'\'' && source[i] != b'\n' {
                i += if source[i] == b'\\' { 2 } else { 1 };
            }
            i + 1
        }
        Some(_) => {
            // One character (of up to four bytes), then `'` for a literal.
            let width = source[at + 1..]
                .iter()
                .skip(1)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count()
                + 1;
            if source.get(at + 1 + width) == Some(&b'\'') {
                at + 2 + width
            } else {
                at + 1
            }
        }
        None => at + 1,
    }
}

/// The offset after an attribute starting at `at` (`#[` or `#![`), or `None` if it is not one.
fn attribute_end(source: &[u8], at: usize) -> Option<usize> {
    let open = if source.get(at + 1) == Some(&b'!') {
        at + 2
    } else {
        at + 1
    };
    if source.get(open) != Some(&b'[') {
        return None;
    }
    let (mut depth, mut i) = (0usize, open);
    while i < source.len() {
        match source[i] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i = string_end(source, i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Some(source.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(source: &str) -> Vec<&str> {
        item_macro_bodies(source.as_bytes(), false)
            .into_iter()
            .map(|r| &source[r])
            .collect()
    }

    #[test]
    fn item_level_invocations_are_found_outermost_first() {
        let source = "cfg_rt! {\n    pub fn spawn() {}\n    cfg_net! { pub struct L; }\n}\n";
        assert_eq!(
            bodies(source),
            ["\n    pub fn spawn() {}\n    cfg_net! { pub struct L; }\n"]
        );
        // Inside a mod, an impl or an extern block too; attributes before it are fine.
        assert_eq!(
            bodies(
                "mod m {\n    #[cfg(x)]\n    m! { fn a() {} }\n}\nimpl X { n! { fn b() {} } }\n"
            ),
            [" fn a() {} ", " fn b() {} "]
        );
        // In a `cfg_if!` branch, inside the invocation's own body.
        let source = "cfg_if! { if #[cfg(x)] { s! { struct A; } } else { s! { struct B; } } }";
        let outer = item_macro_bodies(source.as_bytes(), false);
        assert_eq!(outer.len(), 1);
        let branches = &source[outer[0].clone()];
        let inner: Vec<&str> = item_macro_bodies(branches.as_bytes(), true)
            .into_iter()
            .map(|r| &branches[r])
            .collect();
        assert_eq!(inner, [" struct A; ", " struct B; "]);
        // Not at module level, where no `if` block holds items.
        assert!(item_macro_bodies(branches.as_bytes(), false).is_empty());
    }

    #[test]
    fn invocations_elsewhere_and_braces_in_tokens_are_left_alone() {
        for source in [
            "fn f() { select! { a = b => {} } }\n",
            "struct S { x: u32 }\nconst C: T = T { m: m! { 1 } };\n",
            "macro_rules! m { () => {} }\n",
            "m!({ fn a() {} });\nn!(x { y });\n",
            "impl X { fn f(&self) { inner! { fn g() {} } } }\n",
            "// m! { fn hidden() {} }\n/* n! { /* o! { */ fn hidden() {} } */\n",
            "const S: &str = \"m! { fn hidden() {} }\";\nconst R: &str = r#\"n! { \"# ;\n",
            "const C: char = '{';\nfn f<'a>(x: &'a str) {}\nconst D: u8 = b'{';\n",
        ] {
            assert_eq!(bodies(source), Vec::<&str>::new(), "{source}");
        }
        // A `}` in a string, a char or a comment inside a body does not end it early.
        let source = "m! {\n    const S: &str = \"}\";\n    const C: char = '}';\n    // }\n}\n";
        assert_eq!(
            bodies(source),
            ["\n    const S: &str = \"}\";\n    const C: char = '}';\n    // }\n"]
        );
    }
}
