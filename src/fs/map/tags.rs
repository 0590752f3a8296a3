//! One file into its definitions and references.
//!
//! Tree-sitter languages go through `tree-sitter-tags` with each grammar's vendored tags
//! query, extended where that query falls short by the supplements under `queries/` (C and
//! C++ tag no calls, TypeScript tags only signatures, Rust misses `Type::call()` paths and
//! type uses). Each [`TagsConfiguration`] is built once per process; each thread keeps its
//! own [`TagsContext`]. Raku has no grammar and is read by a line scanner (`super::raku`).

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;

use tree_sitter_tags::{TagsConfiguration, TagsContext};

use super::{Definition, FileTags, Language};

/// Longest signature line kept, in bytes; longer lines (minified code) are cut at a
/// character boundary and marked with an ellipsis.
const MAX_TEXT_LEN: usize = 300;

const C_SUPPLEMENT: &str = include_str!("queries/c.scm");
const CPP_SUPPLEMENT: &str = include_str!("queries/cpp.scm");
const TYPESCRIPT_SUPPLEMENT: &str = include_str!("queries/typescript.scm");
const RUST_SUPPLEMENT: &str = include_str!("queries/rust.scm");

/// The language of a path by its extension, if the map reads it.
#[must_use]
pub fn language_of(path: &str) -> Option<Language> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    let language = match ext.as_str() {
        "c" | "h" => Language::C,
        "cc" | "cpp" | "cxx" | "hh" | "hpp" | "hxx" => Language::Cpp,
        "go" => Language::Go,
        "java" => Language::Java,
        "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
        "py" => Language::Python,
        "rs" => Language::Rust,
        "ts" | "mts" | "cts" => Language::TypeScript,
        "tsx" => Language::Tsx,
        "raku" | "rakumod" | "rakutest" | "pm6" | "p6" => Language::Raku,
        _ => return None,
    };
    Some(language)
}

/// Deepest nesting of brackets a file may have to be parsed. The tags query's matching slows
/// with the depth of the unclosed brackets around each node (a megabyte of `{` takes minutes,
/// and the matching cannot be interrupted); real code nests a few dozen deep, and a file
/// nested a thousand deep still maps in about a second.
pub const MAX_NESTING: usize = 1024;

/// Most bytes of tree-sitter's memory one parse may hold (see [`super::memory`]). A megabyte
/// of real code holds a few tens of megabytes; a megabyte of `a<a<…` as C++ holds gigabytes.
pub const MAX_PARSE_BYTES: usize = 256 << 20;

/// Definitions and references of one source file. Never panics; a parse that fails yields
/// what it could (or an empty [`FileTags`]).
#[must_use]
pub fn extract(language: Language, source: &[u8]) -> FileTags {
    extract_until(language, source, None)
}

/// What [`extract_bounded`] made of one file.
#[derive(Debug)]
pub enum Extracted {
    /// The file's definitions and references.
    Tags(FileTags),
    /// Not parsed: its brackets nest deeper than [`MAX_NESTING`].
    TooDeep,
    /// Abandoned: its parse held more than [`MAX_PARSE_BYTES`].
    TooCostly,
    /// Abandoned because `stop` was raised by someone else (the call ended).
    Stopped,
}

/// [`extract`], within bounds: a file nested deeper than [`MAX_NESTING`] is not parsed, a
/// parse is abandoned once it holds more than [`MAX_PARSE_BYTES`], and once `stop` turns
/// non-zero (tree-sitter polls it while it parses and matches).
#[must_use]
pub fn extract_bounded(language: Language, source: &[u8], stop: &AtomicUsize) -> Extracted {
    if language != Language::Raku && nests_deeper(source, MAX_NESTING) {
        return Extracted::TooDeep;
    }
    let tags = super::memory::watch(stop, MAX_PARSE_BYTES, || {
        extract_until(language, source, Some(stop))
    });
    match stop.load(std::sync::atomic::Ordering::Relaxed) {
        0 => Extracted::Tags(tags),
        super::memory::OVER_BUDGET => Extracted::TooCostly,
        _ => Extracted::Stopped,
    }
}

/// Whether brackets (`(`, `[`, `{`, counted in strings and comments too, which only errs on
/// the side of skipping) ever nest deeper than `limit`.
fn nests_deeper(source: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    for &byte in source {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// [`extract`], abandoned (yielding what it has) once `cancel` turns non-zero: tree-sitter
/// polls the flag while it parses and matches.
#[must_use]
pub fn extract_until(language: Language, source: &[u8], cancel: Option<&AtomicUsize>) -> FileTags {
    if language == Language::Raku {
        return catch_unwind(|| super::raku::scan(source)).unwrap_or_default();
    }
    let Some(config) = config(language) else {
        return FileTags::default();
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        CONTEXT.with(|context| match context.try_borrow_mut() {
            Ok(mut context) => tag_with(&mut context, config, source, cancel),
            // Re-entered on this thread (cannot happen through this API): use a fresh context.
            Err(_) => tag_with(&mut TagsContext::new(), config, source, cancel),
        })
    }));
    match result {
        Ok(tags) => tags,
        Err(_) => {
            // The context may be mid-parse; start the thread over with a clean one.
            let _ = CONTEXT.try_with(|context| {
                if let Ok(mut context) = context.try_borrow_mut() {
                    *context = TagsContext::new();
                }
            });
            FileTags::default()
        }
    }
}

thread_local! {
    static CONTEXT: RefCell<TagsContext> = RefCell::new(TagsContext::new());
}

/// A tree-sitter grammar and the tags query the map runs with it.
pub struct Grammar {
    /// The grammar.
    pub language: tree_sitter::Language,
    /// The grammar crate's own tags query.
    pub vendored_query: &'static str,
    /// Patterns appended to it where it falls short (see `queries/`); may be empty.
    pub supplement: &'static str,
}

/// The tree-sitter grammar of a language; `None` for Raku, which has no grammar.
#[must_use]
pub fn grammar(language: Language) -> Option<Grammar> {
    // Before any tree-sitter object exists, so that all of them are counted.
    super::memory::install();
    let (grammar, vendored_query, supplement): (tree_sitter::Language, _, _) = match language {
        Language::C => (
            tree_sitter_c::LANGUAGE.into(),
            tree_sitter_c::TAGS_QUERY,
            C_SUPPLEMENT,
        ),
        Language::Cpp => (
            tree_sitter_cpp::LANGUAGE.into(),
            tree_sitter_cpp::TAGS_QUERY,
            CPP_SUPPLEMENT,
        ),
        Language::Go => (
            tree_sitter_go::LANGUAGE.into(),
            tree_sitter_go::TAGS_QUERY,
            "",
        ),
        Language::Java => (
            tree_sitter_java::LANGUAGE.into(),
            tree_sitter_java::TAGS_QUERY,
            "",
        ),
        Language::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            tree_sitter_javascript::TAGS_QUERY,
            "",
        ),
        Language::Python => (
            tree_sitter_python::LANGUAGE.into(),
            tree_sitter_python::TAGS_QUERY,
            "",
        ),
        Language::Rust => (
            tree_sitter_rust::LANGUAGE.into(),
            tree_sitter_rust::TAGS_QUERY,
            RUST_SUPPLEMENT,
        ),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            tree_sitter_typescript::TAGS_QUERY,
            TYPESCRIPT_SUPPLEMENT,
        ),
        Language::Tsx => (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            tree_sitter_typescript::TAGS_QUERY,
            TYPESCRIPT_SUPPLEMENT,
        ),
        Language::Raku => return None,
    };
    Some(Grammar {
        language: grammar,
        vendored_query,
        supplement,
    })
}

/// The tags configuration of a tree-sitter language, built on first use; `None` for Raku
/// or if the query does not compile (which the tests rule out).
fn config(language: Language) -> Option<&'static TagsConfiguration> {
    // One slot per language in declaration order, Raku last (its slot stays `None`).
    const LANGUAGES: usize = Language::Raku as usize + 1;
    static CONFIGS: [OnceLock<Option<TagsConfiguration>>; LANGUAGES] =
        [const { OnceLock::new() }; LANGUAGES];
    let cell = CONFIGS.get(language as usize)?;
    cell.get_or_init(|| {
        let grammar = grammar(language)?;
        // The vendored patterns come first: where two patterns tag the same name, the one
        // with the lower index wins, so the supplement only fills gaps.
        let query = format!("{}\n{}", grammar.vendored_query, grammar.supplement);
        match TagsConfiguration::new(grammar.language, &query, "") {
            Ok(config) => Some(config),
            Err(error) => {
                tracing::warn!(?language, %error, "tags query does not compile");
                None
            }
        }
    })
    .as_ref()
}

/// Runs one tags pass and collects what it yields; an error mid-way keeps what came before.
fn tag_with(
    context: &mut TagsContext,
    config: &TagsConfiguration,
    source: &[u8],
    cancel: Option<&AtomicUsize>,
) -> FileTags {
    let mut tags = FileTags::default();
    let Ok((iter, _has_error)) = context.generate_tags(config, source, cancel) else {
        return tags;
    };
    let mut definitions = Vec::new();
    for tag in iter {
        let Ok(tag) = tag else { break };
        // Tags captured as `@ignore` carry a sentinel range and no position.
        if tag.range.start == usize::MAX {
            continue;
        }
        let Some(name_bytes) = source.get(tag.name_range.clone()) else {
            continue;
        };
        let name = String::from_utf8_lossy(name_bytes).trim().to_string();
        if name.is_empty() {
            continue;
        }
        if tag.is_definition {
            let line = u32::try_from(tag.span.start.row.saturating_add(1)).unwrap_or(u32::MAX);
            let text = line_text(source, tag.name_range.start);
            definitions.push((tag.name_range.start, Definition { name, line, text }));
        } else {
            tags.references.push(name);
        }
    }
    definitions.sort_by_key(|(start, _)| *start);
    tags.definitions = definitions.into_iter().map(|(_, d)| d).collect();
    tags
}

/// The source line holding byte `at`, without its line ending or trailing whitespace.
fn line_text(source: &[u8], at: usize) -> String {
    let at = at.min(source.len());
    let start = source[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = source[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |i| at + i);
    clip(String::from_utf8_lossy(&source[start..end]).trim_end())
}

/// `text` cut to [`MAX_TEXT_LEN`] bytes at a character boundary, with a mark if cut.
pub(super) fn clip(text: &str) -> String {
    if text.len() <= MAX_TEXT_LEN {
        return text.to_string();
    }
    let mut end = MAX_TEXT_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", text[..end].trim_end())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Each definition's name and line (the Raku scanner's tests use these too).
    pub(crate) fn names(tags: &FileTags) -> Vec<(&str, u32)> {
        tags.definitions
            .iter()
            .map(|d| (d.name.as_str(), d.line))
            .collect()
    }

    /// Whether `tags` refers to `name` at least once.
    pub(crate) fn refers(tags: &FileTags, name: &str) -> bool {
        tags.references.iter().any(|r| r == name)
    }

    /// The languages tree-sitter reads (every one but Raku).
    const TREE_SITTER: [Language; 9] = [
        Language::C,
        Language::Cpp,
        Language::Go,
        Language::Java,
        Language::JavaScript,
        Language::Python,
        Language::Rust,
        Language::TypeScript,
        Language::Tsx,
    ];

    #[test]
    fn every_query_compiles() {
        for language in TREE_SITTER {
            assert!(config(language).is_some(), "{language:?}");
        }
    }

    #[test]
    fn bounded_extraction_skips_deep_nesting_and_costly_parses() {
        let stop = AtomicUsize::new(0);
        let deep = "{".repeat(MAX_NESTING + 1);
        assert!(matches!(
            extract_bounded(Language::JavaScript, deep.as_bytes(), &stop),
            Extracted::TooDeep
        ));
        // Closed brackets do not add up.
        let closed = "{}".repeat(MAX_NESTING + 1);
        assert!(matches!(
            extract_bounded(Language::JavaScript, closed.as_bytes(), &stop),
            Extracted::Tags(_)
        ));
        // C++ error recovery on `a<a<…` holds memory fast; a small budget stops it.
        let costly = "a<".repeat(5000);
        let flag = AtomicUsize::new(0);
        super::super::memory::watch(&flag, 1 << 20, || {
            extract_until(Language::Cpp, costly.as_bytes(), Some(&flag))
        });
        assert_eq!(flag.into_inner(), super::super::memory::OVER_BUDGET);
        // A raised flag stops a parse as someone else's stop.
        let raised = AtomicUsize::new(1);
        assert!(matches!(
            extract_bounded(Language::Python, b"def f():\n    pass\n", &raised),
            Extracted::Stopped
        ));
    }

    #[test]
    fn languages_by_extension() {
        for (path, language) in [
            ("src/a.rs", Some(Language::Rust)),
            ("x/y.H", Some(Language::C)),
            ("a.hpp", Some(Language::Cpp)),
            ("a.mjs", Some(Language::JavaScript)),
            ("a.d.ts", Some(Language::TypeScript)),
            ("a.tsx", Some(Language::Tsx)),
            ("lib/Foo/Bar.rakumod", Some(Language::Raku)),
            ("t/basic.rakutest", Some(Language::Raku)),
            ("README.md", None),
            ("Makefile", None),
            (".py", None),
        ] {
            assert_eq!(language_of(path), language, "{path}");
        }
    }

    /// One language's source, and the definitions and references its tags must hold.
    struct Fixture {
        /// What the fixture shows; a failure names it.
        name: &'static str,
        language: Language,
        /// A fixture this one adds to: its source, definitions and references come first.
        extends: Option<&'static Fixture>,
        source: &'static str,
        /// Every definition as (name, line), in order; or, when not `exact`, some of them.
        definitions: &'static [(&'static str, u32)],
        exact: bool,
        /// A definition's name and the line text its first definition carries.
        text: Option<(&'static str, &'static str)>,
        /// Names the file must refer to.
        references: &'static [&'static str],
    }

    impl Fixture {
        /// The source, definitions and references, the extended fixture's first.
        fn whole(&self) -> (String, Vec<(&str, u32)>, Vec<&str>) {
            let base = self.extends.map(Fixture::whole).unwrap_or_default();
            (
                base.0 + self.source,
                [base.1, self.definitions.to_vec()].concat(),
                [base.2, self.references.to_vec()].concat(),
            )
        }
    }

    const TYPESCRIPT: Fixture = Fixture {
        name: "typescript",
        language: Language::TypeScript,
        extends: None,
        source: "export interface Store {\n  get(key: string): Item;\n}\n\nexport class MemoryStore implements Store {\n  get(key: string): Item {\n    return lookup(this.items, key);\n  }\n}\n\nexport function lookup(items: Item[], key: string): Item {\n  return items.find(key);\n}\n\ntype Item = { key: string };\nenum Mode { Fast, Slow }\nconst build = (): Store => new MemoryStore();\n",
        definitions: &[
            ("Store", 1),
            ("get", 2),
            ("MemoryStore", 5),
            ("get", 6),
            ("lookup", 11),
            ("Item", 15),
            ("Mode", 16),
            ("build", 17),
        ],
        exact: true,
        text: Some(("MemoryStore", "export class MemoryStore implements Store {")),
        references: &["lookup", "find", "Item", "MemoryStore", "Store"],
    };

    const FIXTURES: &[Fixture] = &[
        Fixture {
            name: "python",
            language: Language::Python,
            extends: None,
            source: "import os\n\nclass Dispatcher:\n    def run(self, value):\n        return frobnicate(value)\n\ndef frobnicate(value):\n    return os.path.join(value)\n",
            definitions: &[("Dispatcher", 3), ("run", 4), ("frobnicate", 7)],
            exact: true,
            text: Some(("run", "    def run(self, value):")),
            references: &["frobnicate", "join"],
        },
        Fixture {
            name: "rust",
            language: Language::Rust,
            extends: None,
            source: "pub struct Engine {\n    n: u32,\n}\n\nimpl Engine {\n    pub fn new() -> Self {\n        helper(1)\n    }\n}\n\nfn helper(x: u32) -> Engine {\n    let e = Engine::new();\n    e.start();\n    e\n}\n",
            definitions: &[("Engine", 1), ("new", 6), ("helper", 11)],
            exact: true,
            text: Some(("helper", "fn helper(x: u32) -> Engine {")),
            references: &["helper", "new", "start", "Engine"],
        },
        Fixture {
            name: "rust constants and statics, at module level and in an impl",
            language: Language::Rust,
            extends: None,
            source: "pub const MAX: u32 = 3;\nstatic NAME: &str = \"x\";\n\nstruct Engine;\n\nimpl Engine {\n    const LIMIT: u32 = MAX;\n}\n",
            definitions: &[("MAX", 1), ("NAME", 2), ("Engine", 4), ("LIMIT", 7)],
            exact: true,
            text: Some(("LIMIT", "    const LIMIT: u32 = MAX;")),
            references: &["Engine"],
        },
        Fixture {
            name: "go",
            language: Language::Go,
            extends: None,
            source: "package main\n\ntype Server struct {\n\tname string\n}\n\nfunc (s *Server) Serve() error {\n\treturn listen(s.name)\n}\n\nfunc listen(addr string) error {\n\treturn nil\n}\n",
            definitions: &[("Server", 3), ("Serve", 7), ("listen", 11)],
            exact: true,
            text: None,
            references: &["listen", "Server"],
        },
        Fixture {
            name: "java",
            language: Language::Java,
            extends: None,
            source: "package x;\n\npublic class Greeter implements Speaker {\n    public String greet(String who) {\n        return format(who);\n    }\n}\n\ninterface Speaker {\n    String greet(String who);\n}\n",
            definitions: &[("Greeter", 3), ("greet", 4), ("Speaker", 9), ("greet", 10)],
            exact: true,
            text: None,
            references: &["format", "Speaker"],
        },
        Fixture {
            name: "javascript",
            language: Language::JavaScript,
            extends: None,
            source: "class Widget {\n  render() {\n    return draw(this);\n  }\n}\n\nfunction draw(w) {\n  return w.paint();\n}\n\nconst make = () => new Widget();\n",
            definitions: &[("Widget", 1), ("render", 2), ("draw", 7), ("make", 11)],
            exact: true,
            text: None,
            references: &["draw", "paint", "Widget"],
        },
        Fixture {
            name: "c with call references",
            language: Language::C,
            extends: None,
            source: "#include <stdio.h>\n\ntypedef struct point {\n    int x;\n} point_t;\n\nstatic int square(int v) {\n    return v * v;\n}\n\nint main(void) {\n    point_t p;\n    printf(\"%d\\n\", square(p.x));\n    return 0;\n}\n",
            definitions: &[("point", 3), ("point_t", 5), ("square", 7), ("main", 11)],
            exact: false,
            text: Some(("square", "static int square(int v) {")),
            references: &["square", "printf", "point_t"],
        },
        Fixture {
            name: "c++ with call references",
            language: Language::Cpp,
            extends: None,
            source: "namespace geo {\n\nclass Shape {\npublic:\n    virtual double area() const;\n};\n\ndouble Shape::area() const {\n    return compute(1.0);\n}\n\n}\n\nint main() {\n    geo::Shape s;\n    auto v = s.area();\n    return helpers::clamp(v);\n}\n",
            definitions: &[
                ("geo", 1),
                ("Shape", 3),
                ("area", 5),
                ("area", 8),
                ("main", 14),
            ],
            exact: false,
            text: None,
            references: &["compute", "area", "clamp", "Shape"],
        },
        TYPESCRIPT,
        Fixture {
            name: "tsx: the typescript fixture and a component",
            language: Language::Tsx,
            extends: Some(&TYPESCRIPT),
            source: "export function View(): JSX.Element {\n  return <div>{render()}</div>;\n}\n",
            definitions: &[("View", 18)],
            exact: true,
            text: Some(("MemoryStore", "export class MemoryStore implements Store {")),
            references: &["render"],
        },
        Fixture {
            name: "typescript field functions and private methods",
            language: Language::TypeScript,
            extends: None,
            source: "class Panel {\n  onClick = () => {\n    this.#refresh();\n  };\n  #refresh(): void {}\n}\n",
            definitions: &[("Panel", 1), ("onClick", 2), ("#refresh", 5)],
            exact: true,
            text: None,
            references: &["#refresh"],
        },
    ];

    #[test]
    fn definitions_and_references_by_language() {
        for fixture in FIXTURES {
            let name = fixture.name;
            let (source, definitions, references) = fixture.whole();
            let tags = extract(fixture.language, source.as_bytes());
            let found = names(&tags);
            if fixture.exact {
                assert_eq!(found, definitions, "{name}: the definitions");
            } else {
                for definition in &definitions {
                    assert!(
                        found.contains(definition),
                        "{name}: {definition:?} is not among {found:?}"
                    );
                }
            }
            if let Some((defined, text)) = fixture.text {
                let definition = tags.definitions.iter().find(|d| d.name == defined);
                assert_eq!(
                    definition.map(|d| d.text.as_str()),
                    Some(text),
                    "{name}: the line of {defined}"
                );
            }
            for reference in references {
                assert!(
                    refers(&tags, reference),
                    "{name}: no reference to {reference}"
                );
            }
        }
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let junk: &[u8] = b"\xff\xfe fn \xc3( { class \x00 def ((((\n}}}} #|( =begin\n";
        for language in TREE_SITTER.into_iter().chain([Language::Raku]) {
            let _ = extract(language, junk);
            let _ = extract(language, b"");
        }
        // Invalid UTF-8 in a definition line is replaced, not fatal.
        let tags = extract(
            Language::Python,
            b"def f\xffo():\n    pass\ndef g():  # \xfe\n    pass\n",
        );
        assert!(
            tags.definitions
                .iter()
                .any(|d| d.name == "g" && d.line == 3)
        );
    }

    #[test]
    fn long_lines_are_clipped() {
        let mut src = b"function wide(".to_vec();
        src.extend(std::iter::repeat_n(b'a', 1000));
        src.extend_from_slice(b") {}\n");
        let tags = extract(Language::JavaScript, &src);
        assert_eq!(tags.definitions[0].name, "wide");
        assert!(tags.definitions[0].text.len() <= MAX_TEXT_LEN + 4);
        assert!(tags.definitions[0].text.ends_with('…'));
    }
}
