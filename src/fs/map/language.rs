//! What the map reads from a file: its language, its definitions and the names it refers to.

/// A language the map can read. Raku, the one without a grammar, stays last: the tags
/// configurations are kept by declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hh`, `.hpp`, `.hxx`).
    Cpp,
    /// Go (`.go`).
    Go,
    /// Java (`.java`).
    Java,
    /// JavaScript (`.js`, `.jsx`, `.mjs`, `.cjs`).
    JavaScript,
    /// Python (`.py`).
    Python,
    /// Rust (`.rs`).
    Rust,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TSX (`.tsx`).
    Tsx,
    /// C# (`.cs`).
    CSharp,
    /// Ruby (`.rb`, `.rake`, `.gemspec`, and files named `Rakefile`, `Gemfile`).
    Ruby,
    /// PHP (`.php`).
    Php,
    /// Kotlin (`.kt`, `.kts`).
    Kotlin,
    /// Swift (`.swift`).
    Swift,
    /// Raku (`.raku`, `.rakumod`, `.rakutest`, `.pm6`, `.p6`), by a heuristic scanner.
    Raku,
}

impl Language {
    /// The cargo feature that builds this language's grammar in, for the languages the
    /// default build leaves out (see Cargo.toml); `None` for those always built in.
    #[must_use]
    pub const fn feature(self) -> Option<&'static str> {
        match self {
            Language::Kotlin => Some("lang-kotlin"),
            Language::Php => Some("lang-php"),
            Language::Ruby => Some("lang-ruby"),
            Language::Swift => Some("lang-swift"),
            _ => None,
        }
    }

    /// Whether this build can read the language.
    #[must_use]
    pub const fn built_in(self) -> bool {
        let left_out = (matches!(self, Language::Kotlin) && !cfg!(feature = "lang-kotlin"))
            || (matches!(self, Language::Php) && !cfg!(feature = "lang-php"))
            || (matches!(self, Language::Ruby) && !cfg!(feature = "lang-ruby"))
            || (matches!(self, Language::Swift) && !cfg!(feature = "lang-swift"));
        !left_out
    }

    /// The language's name as people write it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Go => "Go",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
            Language::Python => "Python",
            Language::Rust => "Rust",
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::CSharp => "C#",
            Language::Ruby => "Ruby",
            Language::Php => "PHP",
            Language::Kotlin => "Kotlin",
            Language::Swift => "Swift",
            Language::Raku => "Raku",
        }
    }
}

/// One definition in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The defined name.
    pub name: String,
    /// 1-based line of the definition.
    pub line: u32,
    /// The definition's first line as written (its signature, never its body), without the
    /// trailing line ending.
    pub text: String,
    /// Where it sits in the file.
    pub place: Place,
    /// The type, class, trait or module it is a member of (for a Rust `impl` block, the
    /// implementing type; for a Go method, its receiver's type), if any.
    pub container: Option<String>,
}

/// Where a definition sits, as the syntax tree shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Place {
    /// At module level, or a member of a type, class, trait or impl: what a reader looks up.
    #[default]
    Item,
    /// Inside a function body: nothing outside that function can name it.
    Nested,
    /// Test-only code: a `#[cfg(test)]` module or a `#[test]` function, and what they hold.
    Test,
    /// A declaration of what is defined elsewhere (a C prototype, an `extern` variable) or
    /// of nothing a reader looks up (an include guard): outlined and looked up, but no item,
    /// so a use of the name credits the definition rather than the declaring header.
    Declaration,
}

/// What one file defines and refers to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTags {
    /// Definitions, in file order.
    pub definitions: Vec<Definition>,
    /// Names referred to (calls, type uses …), one entry per occurrence.
    pub references: Vec<String>,
    /// The 1-based line of each of `references`, in the same order (empty where a scanner
    /// does not tell lines).
    pub reference_lines: Vec<u32>,
    /// Module names this file imports whose defining file can be found by path (Raku
    /// `use Foo::Bar` → `lib/Foo/Bar.rakumod`); edges to those files.
    pub imports: Vec<String>,
    /// The file's vocabulary: which words it holds anywhere (see `uses::words`).
    pub words: Vec<u32>,
    /// Whether each of `references` is a bare name (`helper()`) rather than a member
    /// (`x.helper()`, `Type::helper()`), in the same order (empty where a scanner does not
    /// tell).
    pub bare: Vec<bool>,
    /// Whether each of `references` may credit a definition in another file (not a builtin, and
    /// in a language whose files import names, imported or defined), in the same order; empty
    /// where all may.
    pub credits: Vec<bool>,
}
