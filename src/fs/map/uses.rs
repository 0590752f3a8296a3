//! Every use of one name in a file's code, with what kind of use it is: the references
//! `symbols` lists.
//!
//! The tags queries that rank the map tag calls and a few type uses; a rename needs every
//! use. So a parse keeps each file's vocabulary ([`words`]: the hashes of the identifier-like
//! words in it, comments and strings included, a superset), and a lookup reads again only
//! the files whose vocabulary holds the name. There [`uses`] finds each occurrence of the name
//! as a whole word, asks the file's syntax tree for the smallest node spanning it, and keeps
//! it when that node is an identifier (not a comment or a string; a C macro's body, which the
//! grammar keeps as text, counts as code), then names its kind from the nodes around it
//! ([`UseKind`]).

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

use tree_sitter::{Node, Parser, Tree};

use super::Language;
use super::tags::{MAX_NESTING, MAX_PARSE_BYTES, grammar, nests_deeper};

/// What a use of a name does with it, as a reader of the line would say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UseKind {
    /// Imported: `use a::Name;`, `from a import Name`, `import { Name }`.
    Import,
    /// In a decorator, attribute or annotation: `@Name`, `#[Name]`.
    Decorator,
    /// A base class or interface, or the trait an `impl` implements.
    Base,
    /// Called or constructed: `Name(…)`, `x.Name(…)`, `new Name(…)`, `Name!(…)`, `Name { … }`.
    Call,
    /// In a type position: an annotation, a parameter or field type, a generic argument.
    Type,
    /// Part of a path: the qualifier of `Name::x` or `Name.x`, or the member named by
    /// `module.Name` or `Type::Name`.
    Path,
    /// Any other use: a value read, assigned or passed (`isinstance(x, Name)`).
    Value,
}

impl UseKind {
    /// The kind as an answer names it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            UseKind::Import => "import",
            UseKind::Decorator => "decorator",
            UseKind::Base => "base",
            UseKind::Call => "call",
            UseKind::Type => "type",
            UseKind::Path => "path",
            UseKind::Value => "value",
        }
    }
}

/// One use: its 1-based line and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    /// 1-based line.
    pub line: u32,
    /// What the use does with the name.
    pub kind: UseKind,
}

/// Whether `c` continues an identifier-like word (`_`, `$`, letters, digits, combining marks).
fn word_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c, '_' | '$')
        || unicode_normalization::char::is_combining_mark(c)
}

/// The word a name is found by: a Ruby sigil (`@name`) or suffix (`empty?`) is not part of it.
fn core(name: &str) -> &str {
    let body = name.trim_start_matches('@');
    body.strip_suffix(['?', '!', '=']).unwrap_or(body)
}

/// FNV-1a's starting value and one step: short keys, no state, stable.
pub(super) const FNV_START: u32 = 0x811c_9dc5;
pub(super) fn fnv(hash: u32, byte: u8) -> u32 {
    (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
}

/// The hash a vocabulary keeps for `word` (FNV-1a of its bytes). 32 bits keep a vocabulary
/// small; a false hit only costs reading one file again.
#[must_use]
pub fn word_hash(word: &str) -> u32 {
    core(word).bytes().fold(FNV_START, fnv)
}

/// The file's vocabulary: the sorted, distinct [`word_hash`]es of its identifier-like words
/// outside comments (a superset of its code's identifiers: where a lexical reading is unsure,
/// as in a quote that may open a string, words are kept). Strings are included, except in
/// Python, whose strings the lexer reads surely (docstrings are prose, and their words made
/// files look related that are not); an f-string's `{}` fields are code and kept. Text that
/// is not UTF-8 holds no words.
#[must_use]
pub fn words(language: Language, source: &[u8]) -> Vec<u32> {
    let Ok(text) = std::str::from_utf8(source) else {
        return Vec::new();
    };
    let mut hashes = Vec::new();
    hash_words(language, text, &mut hashes);
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// Pushes the [`word_hash`] of every word of `text` outside comments (and Python's strings)
/// onto `hashes`.
fn hash_words(language: Language, text: &str, hashes: &mut Vec<u32>) {
    // The hash of the word being read, hashed as it is read; ASCII is judged by the byte, and
    // only a character outside ASCII is decoded.
    let mut word: Option<u32> = None;
    // Where the word being read starts (a Python string's prefix is no word).
    let mut word_start = 0;
    let bytes = text.as_bytes();
    let (slashes, hash) = comment_styles(language);
    let python = language == Language::Python;
    // The quote of the string being read: no comment starts inside one.
    let mut quote: Option<u8> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if python && quote.is_none() && matches!(byte, b'"' | b'\'') {
            let prefix = if word.is_some() {
                &text[word_start..at]
            } else {
                ""
            };
            if string_prefix(prefix) {
                word = None;
            } else {
                word.take().into_iter().for_each(|h| hashes.push(h));
            }
            let (end, fields) = python_string(bytes, at, f_prefixed(prefix));
            for field in fields {
                if let Some(code) = text.get(field) {
                    hash_words(language, code, hashes);
                }
            }
            at = end;
            continue;
        }
        match quote {
            Some(q) if byte == b'\\' && q != b'`' => {
                // The escaped character whole, never half of one.
                at += 1 + text[at + 1..].chars().next().map_or(0, char::len_utf8);
                continue;
            }
            Some(q) if byte == q => quote = None,
            Some(_) => {}
            None if matches!(byte, b'"' | b'\'' | b'`') => quote = Some(byte),
            None if (slashes && byte == b'/' && bytes.get(at + 1) == Some(&b'/'))
                || (hash && byte == b'#') =>
            {
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
                word.take().into_iter().for_each(|h| hashes.push(h));
                at = end;
                continue;
            }
            None if slashes && byte == b'/' && bytes.get(at + 1) == Some(&b'*') => {
                let end = memchr::memmem::find(&bytes[at + 2..], b"*/")
                    .map_or(bytes.len(), |n| at + n + 4);
                word.take().into_iter().for_each(|h| hashes.push(h));
                at = end;
                continue;
            }
            None => {}
        }
        if byte == b'\n' && quote.is_some_and(|q| q != b'`') {
            // A string that reaches the end of its line was not one (a lifetime, an apostrophe).
            quote = None;
        }
        let (is_word, len) = if byte.is_ascii() {
            (
                byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$',
                1,
            )
        } else {
            let c = text[at..].chars().next().unwrap_or(' ');
            (word_char(c), c.len_utf8())
        };
        if is_word {
            if word.is_none() {
                word_start = at;
            }
            let hash = bytes[at..at + len]
                .iter()
                .fold(word.unwrap_or(FNV_START), |h, &b| fnv(h, b));
            word = Some(hash);
        } else if let Some(hash) = word.take() {
            hashes.push(hash);
        }
        at += len;
    }
    hashes.extend(word);
}

/// Whether `word` is a Python string prefix (`r`, `b`, `f`, `u`, `rb`, `fr`, … in any case).
fn string_prefix(word: &str) -> bool {
    word.len() <= 2 && !word.is_empty() && word.bytes().all(|b| b"rRbBfFuU".contains(&b))
}

/// Whether a Python string prefix makes an f-string (`f`, `rf`, `Fr`, …).
fn f_prefixed(prefix: &str) -> bool {
    string_prefix(prefix) && prefix.bytes().any(|b| b == b'f' || b == b'F')
}

/// The Python string opening at `bytes[at]` (a quote): where it ends (past its closing quote;
/// a one-quote string left open ends with its line, a triple-quoted one with the text), and,
/// for an f-string, the byte ranges of its `{}` fields (a `{{` is a brace of the text).
fn python_string(bytes: &[u8], at: usize, f_string: bool) -> (usize, Vec<std::ops::Range<usize>>) {
    let quote = bytes[at];
    let triple = bytes.get(at + 1) == Some(&quote) && bytes.get(at + 2) == Some(&quote);
    let mut i = at + if triple { 3 } else { 1 };
    let mut fields = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            // An escaped character never closes the string (raw strings too: `r"\""`).
            b'\\' => i += 2,
            b'\n' if !triple => return (i, fields),
            b if b == quote
                && (!triple
                    || (bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote))) =>
            {
                return (i + if triple { 3 } else { 1 }, fields);
            }
            b'{' if f_string && bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'{' if f_string => {
                // A field runs to its matching `}`; a format spec's nested fields are inside it.
                let start = i + 1;
                let mut depth = 1usize;
                i += 1;
                while i < bytes.len() && depth > 0 {
                    match bytes[i] {
                        b'{' | b'(' | b'[' => depth += 1,
                        b'}' | b')' | b']' => depth -= 1,
                        b'\n' if !triple => break,
                        _ => {}
                    }
                    i += 1;
                }
                fields.push(start..if depth == 0 { i - 1 } else { i });
            }
            _ => i += 1,
        }
    }
    (bytes.len(), fields)
}

/// Whether `language` writes `//` and `/* */` comments, and whether `#` comments.
fn comment_styles(language: Language) -> (bool, bool) {
    match language {
        Language::Python | Language::Ruby | Language::Raku => (false, true),
        Language::Php => (true, true),
        _ => (true, false),
    }
}

/// A file's vocabulary kept for asking: the [`words`] hashes in an open-addressed table (at
/// most three quarters full, linear probing). A lookup asks every file below its scope; a
/// sorted array's binary search took several cache misses a file, this about one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vocabulary {
    /// A power-of-two number of slots; 0 is empty (a hash of 0 is kept as 1: a false hit
    /// only costs reading one file again).
    slots: Box<[u32]>,
}

impl Vocabulary {
    /// The vocabulary of these distinct hashes.
    #[must_use]
    pub fn new(hashes: &[u32]) -> Vocabulary {
        if hashes.is_empty() {
            return Vocabulary::default();
        }
        let size = (hashes.len() * 4 / 3 + 1).next_power_of_two();
        let mut slots = vec![0u32; size].into_boxed_slice();
        for &hash in hashes {
            let hash = hash.max(1);
            let mut at = Self::home(hash, size);
            while slots[at] != 0 && slots[at] != hash {
                at = (at + 1) & (size - 1);
            }
            slots[at] = hash;
        }
        Vocabulary { slots }
    }

    /// Where `hash`'s probe starts among `size` slots (a power of two, at least 2): the top
    /// bits of a Fibonacci product, so that hashes alike in their low bits spread.
    fn home(hash: u32, size: usize) -> usize {
        let bits = size.trailing_zeros();
        (hash.wrapping_mul(0x9e37_79b9) >> (32 - bits)) as usize
    }

    /// Whether it holds the word of this [`word_hash`].
    #[must_use]
    pub fn holds_hash(&self, hash: u32) -> bool {
        let size = self.slots.len();
        if size == 0 {
            return false;
        }
        let hash = hash.max(1);
        let mut at = Self::home(hash, size);
        // The table is never full, so an empty slot ends every probe.
        loop {
            match self.slots[at] {
                0 => return false,
                slot if slot == hash => return true,
                _ => at = (at + 1) & (size - 1),
            }
        }
    }

    /// Whether it holds `name`.
    #[must_use]
    pub fn holds(&self, name: &str) -> bool {
        self.holds_hash(word_hash(name))
    }
}

/// The byte offsets where `name` stands as a whole word in `text`.
fn occurrences<'s>(
    language: Language,
    text: &'s str,
    name: &'s str,
) -> impl Iterator<Item = usize> + 's {
    memchr::memmem::find_iter(text.as_bytes(), name.as_bytes()).filter(move |&at| {
        let before = text.get(..at).and_then(|t| t.chars().next_back());
        let after = text.get(at + name.len()..).and_then(|t| t.chars().next());
        let starts_word = name.starts_with(word_char);
        let ends_word = name.ends_with(word_char);
        let inside_a_word = (starts_word && before.is_some_and(word_char))
            || (ends_word && after.is_some_and(word_char));
        // A Ruby `@@name` or `@name` is another name than `name`.
        let sigil = language == Language::Ruby && before == Some('@') && !name.starts_with('@');
        !inside_a_word && !sigil
    })
}

/// Every use of `name` in `source`, in order, one per occurrence; `None` when the file is
/// not parsed (no grammar in this build, brackets nested deeper than [`MAX_NESTING`], a parse
/// holding more than [`MAX_PARSE_BYTES`], or the call's deadline or cancellation). Raku,
/// which has no grammar, answers `None` too.
#[must_use]
pub fn uses(language: Language, source: &[u8], name: &str) -> Option<Vec<Use>> {
    let Ok(text) = std::str::from_utf8(source) else {
        return Some(Vec::new());
    };
    if name.is_empty() {
        return Some(Vec::new());
    }
    let mut found = occurrences(language, text, name).peekable();
    if found.peek().is_none() {
        return Some(Vec::new());
    }
    let tree = parse(language, source)?;
    let root = tree.root_node();
    let mut line = Lines::new(source);
    Some(
        found
            .filter_map(|at| {
                let node = root.descendant_for_byte_range(at, at + name.len())?;
                let exact = node.start_byte() == at && node.end_byte() == at + name.len();
                let kind = if exact && identifier(&node) {
                    kind_of(node)
                } else if node.kind() == "preproc_arg" {
                    // A C or C++ macro's body is code the grammar keeps as text.
                    UseKind::Value
                } else {
                    return None;
                };
                Some(Use {
                    line: line.at(at),
                    kind,
                })
            })
            .collect(),
    )
}

/// Parses `source`, within the map's bounds; stops at the call's deadline or cancellation.
fn parse(language: Language, source: &[u8]) -> Option<Tree> {
    if nests_deeper(source, MAX_NESTING) {
        return None;
    }
    let grammar = grammar(language)?;
    let mut parser = Parser::new();
    parser.set_language(&grammar.language).ok()?;
    let over = AtomicUsize::new(0);
    let tree = super::memory::watch(&over, MAX_PARSE_BYTES, || {
        let mut progress = |_: &tree_sitter::ParseState| {
            if over.load(Ordering::Relaxed) != 0 || crate::root::check_deadline().is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
        let len = source.len();
        parser.parse_with_options(
            &mut |at, _| if at < len { &source[at..] } else { &[] },
            None,
            Some(options),
        )
    });
    tree.filter(|_| over.load(Ordering::Relaxed) == 0)
}

/// 1-based line numbers of byte offsets given in increasing order.
struct Lines<'s> {
    source: &'s [u8],
    at: usize,
    line: u32,
}

impl<'s> Lines<'s> {
    fn new(source: &'s [u8]) -> Self {
        Lines {
            source,
            at: 0,
            line: 1,
        }
    }

    fn at(&mut self, offset: usize) -> u32 {
        let newlines = memchr::memchr_iter(b'\n', &self.source[self.at..offset]).count();
        self.line += u32::try_from(newlines).unwrap_or(u32::MAX);
        self.at = offset;
        self.line
    }
}

/// Whether a node is an identifier of code: a named leaf whose kind names an identifier (or a
/// grammar's equivalent), never a comment, a string's content or a preprocessor argument.
fn identifier(node: &Node<'_>) -> bool {
    let kind = node.kind();
    node.is_named()
        && (kind.contains("identifier")
            || matches!(
                kind,
                "name" | "constant" | "metavariable" | "instance_variable" | "variable_name"
            ))
}

/// Imports, of every grammar: the name anywhere inside one is imported.
const IMPORTS: &[&str] = &[
    "use_declaration",
    "extern_crate_declaration",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "import_declaration",
    "import_spec",
    "using_directive",
    "using_declaration",
    "import_header",
    "namespace_use_declaration",
];

/// Decorators, attributes and annotations.
const DECORATORS: &[&str] = &[
    "decorator",
    "attribute_item",
    "inner_attribute_item",
    "annotation",
    "marker_annotation",
    "attribute_list",
];

/// Lists of base classes and interfaces.
const BASES: &[&str] = &[
    "superclass",
    "super_interfaces",
    "extends_interfaces",
    "class_heritage",
    "extends_clause",
    "implements_clause",
    "extends_type_clause",
    "base_list",
    "base_class_clause",
    "delegation_specifier",
    "inheritance_specifier",
    "base_clause",
    "class_interface_clause",
];

/// Calls and constructions, each with the field holding what is called.
const CALLS: &[(&str, &str)] = &[
    ("call_expression", "function"),
    ("call", "function"),
    ("call", "method"),
    ("method_invocation", "name"),
    ("invocation_expression", "function"),
    ("new_expression", "constructor"),
    ("object_creation_expression", "type"),
    ("macro_invocation", "macro"),
    ("struct_expression", "name"),
    ("composite_literal", "type"),
];

/// Paths, each with the field holding their last segment (the member a path names); any other
/// child is a qualifier.
const PATHS: &[(&str, &str)] = &[
    ("scoped_identifier", "name"),
    ("scoped_type_identifier", "name"),
    ("field_expression", "field"),
    ("attribute", "attribute"),
    ("member_expression", "property"),
    ("selector_expression", "field"),
    ("field_access", "field"),
    ("member_access_expression", "name"),
    ("qualified_identifier", "name"),
    ("qualified_type", "name"),
    ("qualified_name", "name"),
    ("nested_identifier", "property"),
    ("nested_type_identifier", "name"),
    ("scope_resolution", "name"),
    ("method_invocation", "name"),
];

/// Type positions whose leaves are not type identifiers (Python's annotations, TypeScript's
/// annotations and arguments).
const TYPE_CONTEXTS: &[&str] = &["type", "type_annotation", "type_arguments", "generic_type"];

/// How far up a use is looked at: enough for a nested import list or a decorated call.
const MAX_CLIMB: usize = 24;

/// Whether `child` is `parent`'s `field`.
fn is_field(parent: &Node<'_>, field: &str, child: &Node<'_>) -> bool {
    parent
        .child_by_field_name(field)
        .is_some_and(|f| f.id() == child.id())
}

/// The kind of the use at the identifier `node`: what the nodes around it make of it, the
/// strongest first (an import, a decorator, a base, a call, a type, a path, a value).
fn kind_of(node: Node<'_>) -> UseKind {
    let mut kinds = Vec::new();
    if node.kind().contains("type") {
        kinds.push(UseKind::Type);
    }
    let mut current = node;
    // Still on the called chain: the name itself, or the last segment of a path ending in it.
    let mut callee = true;
    for _ in 0..MAX_CLIMB {
        let Some(parent) = current.parent() else {
            break;
        };
        let kind = parent.kind();
        if IMPORTS.contains(&kind) {
            return UseKind::Import;
        }
        if DECORATORS.contains(&kind) {
            kinds.push(UseKind::Decorator);
        }
        if BASES.contains(&kind)
            || (kind == "class_definition" && is_field(&parent, "superclasses", &current))
            || (kind == "impl_item" && is_field(&parent, "trait", &current))
        {
            kinds.push(UseKind::Base);
        }
        if TYPE_CONTEXTS.contains(&kind) {
            kinds.push(UseKind::Type);
        }
        if callee {
            if CALLS
                .iter()
                .any(|(call, field)| *call == kind && is_field(&parent, field, &current))
            {
                kinds.push(UseKind::Call);
                callee = false;
            } else if let Some((_, last)) = PATHS.iter().find(|(path, _)| *path == kind) {
                kinds.push(UseKind::Path);
                callee = is_field(&parent, last, &current);
            } else if !matches!(
                kind,
                "generic_function" | "type_arguments" | "parenthesized_expression"
            ) {
                callee = false;
            }
        }
        current = parent;
    }
    kinds.into_iter().min().unwrap_or(UseKind::Value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the vocabulary of these hashes (from [`words`]) holds `name`.
    fn holds(hashes: &[u32], name: &str) -> bool {
        Vocabulary::new(hashes).holds(name)
    }

    #[test]
    fn a_vocabulary_holds_its_words_and_no_other() {
        let hashes: Vec<u32> = (0..1000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let vocabulary = Vocabulary::new(&hashes);
        assert!(hashes.iter().all(|&h| vocabulary.holds_hash(h)));
        let absent = (1000..3000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .filter(|&h| vocabulary.holds_hash(h))
            .count();
        assert_eq!(absent, 0);
        assert!(
            !Vocabulary::default().holds("x"),
            "an empty one holds nothing"
        );
        assert!(Vocabulary::new(&[0]).holds_hash(0), "a hash of 0 is kept");
    }

    fn kinds(language: Language, source: &str, name: &str) -> Vec<(u32, &'static str)> {
        uses(language, source.as_bytes(), name)
            .expect("parsed")
            .into_iter()
            .map(|u| (u.line, u.kind.as_str()))
            .collect()
    }

    #[test]
    fn vocabulary_holds_every_word_outside_comments() {
        let source = "use crate::flags::Mode; // café\nlet é = parse_rfc3339(\"http://x\", 'y');\n/* gone */ let kept = 1; // also gone\nlet url = \"a // b\"; z";
        let vocabulary = words(Language::Rust, source.as_bytes());
        for word in [
            "use",
            "crate",
            "flags",
            "Mode",
            "é",
            "parse_rfc3339",
            "http",
            "x",
            "kept",
            "url",
            "a",
            "b",
            "z",
        ] {
            assert!(holds(&vocabulary, word), "{word}");
        }
        for word in ["café", "gone", "also", "rfc3339"] {
            assert!(!holds(&vocabulary, word), "{word}");
        }
        let escaped = words(Language::Rust, "let s = \"\\é\"; t".as_bytes());
        assert!(holds(&escaped, "t"));
        let python = words(Language::Python, b"x = '# kept' # dropped\nnext_line");
        assert!(holds(&python, "x") && holds(&python, "next_line"));
        assert!(!holds(&python, "kept") && !holds(&python, "dropped"));
        assert!(holds(&words(Language::Ruby, b"@name = 1"), "@name"));
        assert!(words(Language::Rust, b"\xff\xfe").is_empty());
    }

    #[test]
    fn python_strings_hold_no_words_but_f_string_fields_do() {
        let source = concat!(
            "def f(a):\n",
            "    \"\"\"Docstring prose: class for all.\n    still prose\"\"\"\n",
            "    r = r'raw \\' raw_inside'\n",
            "    b = rb\"bytes_inside\" + u'unicode_inside'\n",
            "    s = f\"{{braces}} {value!r:>{width}} {obj.attr[idx]}\"\n",
            "    t = F'''{multi\nline} after'''\n",
            "    o = 'left open\n",
            "    return after_open\n",
        );
        let vocabulary = words(Language::Python, source.as_bytes());
        for word in [
            "def", "f", "a", "r", "b", "s", "t", "o", "value", "width", "obj",
        ] {
            assert!(holds(&vocabulary, word), "{word}");
        }
        for word in ["attr", "idx", "multi", "line", "return", "after_open"] {
            assert!(holds(&vocabulary, word), "{word}");
        }
        for word in [
            "Docstring",
            "prose",
            "still",
            "raw",
            "raw_inside",
            "bytes_inside",
        ] {
            assert!(!holds(&vocabulary, word), "{word}");
        }
        for word in ["unicode_inside", "braces", "after", "left", "rb", "u"] {
            assert!(!holds(&vocabulary, word), "{word}");
        }
    }

    #[test]
    fn rust_uses_by_kind() {
        let source = "use crate::flags::Mode;\n\
                      #[derive(Mode)]\n\
                      fn f(m: Mode) -> Vec<Mode> {\n\
                      \x20   let a = Mode::READ; // Mode in a comment\n\
                      \x20   let b = Mode::from_bits(3);\n\
                      \x20   let c = \"Mode\";\n\
                      \x20   g(Mode);\n\
                      \x20   Mode { bits: 1 }\n\
                      }\n\
                      impl Mode for X {}\n";
        assert_eq!(
            kinds(Language::Rust, source, "Mode"),
            [
                (1, "import"),
                (2, "decorator"),
                (3, "type"),
                (3, "type"),
                (4, "path"),
                (5, "path"),
                (7, "value"),
                (8, "call"),
                (10, "base"),
            ]
        );
        assert_eq!(kinds(Language::Rust, source, "from_bits"), [(5, "call")]);
    }

    #[test]
    fn python_uses_by_kind() {
        let source = "from shapes import Shape\n\
                      import shapes\n\
                      class Circle(Shape):\n\
                      \x20   pass\n\
                      def f(x: list[Shape]) -> Shape:\n\
                      \x20   \"\"\"Shape in a docstring.\"\"\"\n\
                      \x20   if isinstance(x, shapes.Shape):\n\
                      \x20       return Shape()\n\
                      @Shape\n\
                      def g(): pass\n";
        assert_eq!(
            kinds(Language::Python, source, "Shape"),
            [
                (1, "import"),
                (3, "base"),
                (5, "type"),
                (5, "type"),
                (7, "path"),
                (8, "call"),
                (9, "decorator"),
            ]
        );
    }

    #[test]
    fn a_file_not_parsed_answers_none() {
        let deep = format!("fn f() {{ {} }}", "(".repeat(MAX_NESTING + 1));
        assert_eq!(uses(Language::Rust, deep.as_bytes(), "f"), None);
        assert_eq!(uses(Language::Rust, b"fn g() {}", "f"), Some(Vec::new()));
    }
}
