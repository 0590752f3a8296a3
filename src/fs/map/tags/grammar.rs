//! Which grammar reads which file, and the tags query each runs.

use std::path::Path;

use super::Language;

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
    super::super::memory::install();
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
