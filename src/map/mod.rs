//! The code map: which files a tree leans on and the definitions that matter in each.
//!
//! `tags` reads one file into its definitions and references (tree-sitter tags queries for
//! C, C++, Go, Java, JavaScript, Python, Rust, TypeScript and TSX; `raku`, a heuristic
//! scanner, for Raku); `rank` builds the graph "file A refers to a name file B defines" and
//! ranks files with a personalized PageRank; `render` spends the character budget whole files
//! at a time.

pub mod memory;
mod raku;
pub mod rank;
pub mod render;
pub mod symbols;
pub mod tags;

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
    /// Raku (`.raku`, `.rakumod`, `.rakutest`, `.pm6`, `.p6`), by a heuristic scanner.
    Raku,
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
}

/// What one file defines and refers to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTags {
    /// Definitions, in file order.
    pub definitions: Vec<Definition>,
    /// Names referred to (calls, type uses …), one entry per occurrence.
    pub references: Vec<String>,
    /// Module names this file imports whose defining file can be found by path (Raku
    /// `use Foo::Bar` → `lib/Foo/Bar.rakumod`); edges to those files.
    pub imports: Vec<String>,
}
