//! Which grammar reads which file, and the tags query each runs.

use std::path::Path;

use super::Language;

const C_QUERY: &str = include_str!("queries/c.scm");
const CPP_SUPPLEMENT: &str = include_str!("queries/cpp.scm");
const TYPESCRIPT_SUPPLEMENT: &str = concat!(
    include_str!("queries/typescript.scm"),
    "\n",
    include_str!("queries/javascript.scm")
);
const JAVASCRIPT_SUPPLEMENT: &str = include_str!("queries/javascript.scm");
const RUST_SUPPLEMENT: &str = include_str!("queries/rust.scm");
const GO_SUPPLEMENT: &str = include_str!("queries/go.scm");
const GO_OVERRIDES: &str = include_str!("queries/go-overrides.scm");
const JAVA_SUPPLEMENT: &str = include_str!("queries/java.scm");
const CSHARP_QUERY: &str = include_str!("queries/csharp.scm");
#[cfg(feature = "lang-ruby")]
const RUBY_OVERRIDES: &str = include_str!("queries/ruby.scm");
#[cfg(feature = "lang-php")]
const PHP_SUPPLEMENT: &str = include_str!("queries/php.scm");
#[cfg(feature = "lang-kotlin")]
const KOTLIN_QUERY: &str = include_str!("queries/kotlin.scm");
#[cfg(feature = "lang-swift")]
const SWIFT_QUERY: &str = include_str!("queries/swift.scm");

/// The language of a path by its extension, if the map reads it.
#[must_use]
pub fn language_of(path: &str) -> Option<Language> {
    let path = Path::new(path);
    // Ruby's build files carry no extension.
    if let Some("Rakefile" | "Gemfile") = path.file_name().and_then(|name| name.to_str()) {
        return Some(Language::Ruby);
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
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
        "cs" => Language::CSharp,
        "rb" | "rake" | "gemspec" => Language::Ruby,
        "php" => Language::Php,
        "kt" | "kts" => Language::Kotlin,
        "swift" => Language::Swift,
        "raku" | "rakumod" | "rakutest" | "pm6" | "p6" => Language::Raku,
        _ => return None,
    };
    Some(language)
}

/// A tree-sitter grammar and the tags query the map runs with it.
pub struct Grammar {
    /// The grammar.
    pub language: tree_sitter::Language,
    /// Patterns put ahead of the vendored query, so that they win where both tag the same
    /// name (see `queries/`); may be empty.
    pub overrides: &'static str,
    /// The grammar crate's own tags query; empty where it ships none that tree-sitter-tags
    /// can use (C#, Kotlin, Swift) or one that we replace (C), and then the supplement is the
    /// whole query.
    pub vendored_query: &'static str,
    /// Patterns appended to it where it falls short (see `queries/`); may be empty.
    pub supplement: &'static str,
    /// The grammar's locals query, whose local variables are no references; may be empty.
    pub locals_query: &'static str,
}

/// The tree-sitter grammar of a language; `None` for Raku, which has no grammar, and for a
/// language this build leaves out.
#[must_use]
pub fn grammar(language: Language) -> Option<Grammar> {
    // Before any tree-sitter object exists, so that all of them are counted.
    super::super::memory::install();
    let (grammar, vendored_query, supplement): (tree_sitter::Language, _, _) = match language {
        // The crate's tags query tags prototypes and type uses as definitions (see the query).
        Language::C => (tree_sitter_c::LANGUAGE.into(), "", C_QUERY),
        Language::Cpp => (
            tree_sitter_cpp::LANGUAGE.into(),
            tree_sitter_cpp::TAGS_QUERY,
            CPP_SUPPLEMENT,
        ),
        Language::Go => (
            tree_sitter_go::LANGUAGE.into(),
            tree_sitter_go::TAGS_QUERY,
            GO_SUPPLEMENT,
        ),
        Language::Java => (
            tree_sitter_java::LANGUAGE.into(),
            tree_sitter_java::TAGS_QUERY,
            JAVA_SUPPLEMENT,
        ),
        Language::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            tree_sitter_javascript::TAGS_QUERY,
            JAVASCRIPT_SUPPLEMENT,
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
        // The crate's tags query does not compile under tree-sitter-tags (see the query).
        Language::CSharp => (tree_sitter_c_sharp::LANGUAGE.into(), "", CSHARP_QUERY),
        #[cfg(feature = "lang-ruby")]
        Language::Ruby => (
            tree_sitter_ruby::LANGUAGE.into(),
            tree_sitter_ruby::TAGS_QUERY,
            "",
        ),
        // The grammar for files that open with `<?php` (HTML around the code is text to it).
        #[cfg(feature = "lang-php")]
        Language::Php => (
            tree_sitter_php::LANGUAGE_PHP.into(),
            tree_sitter_php::TAGS_QUERY,
            PHP_SUPPLEMENT,
        ),
        // The grammar crate ships no tags query.
        #[cfg(feature = "lang-kotlin")]
        Language::Kotlin => (tree_sitter_kotlin_ng::LANGUAGE.into(), "", KOTLIN_QUERY),
        // The crate's tags query tags a method with its whole class as the node (so every
        // member would sit inside a method) and a `let` in any function body as a property.
        #[cfg(feature = "lang-swift")]
        Language::Swift => (tree_sitter_swift::LANGUAGE.into(), "", SWIFT_QUERY),
        // Raku has no grammar; the others are not built in (see `Language::feature`).
        _ => return None,
    };
    // Ruby's query tags every identifier and constant outside a local scope as a reference:
    // the locals query keeps local variables out, and the overrides tag constants first. Go's
    // tags every type identifier as a reference, an alias's own name too.
    let (overrides, locals_query) = match language {
        #[cfg(feature = "lang-ruby")]
        Language::Ruby => (RUBY_OVERRIDES, tree_sitter_ruby::LOCALS_QUERY),
        Language::Go => (GO_OVERRIDES, ""),
        _ => ("", ""),
    };
    Some(Grammar {
        language: grammar,
        overrides,
        vendored_query,
        supplement,
        locals_query,
    })
}
