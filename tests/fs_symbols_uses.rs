//! `fs_symbols`' references against a lexer, per language (Rust, Python, TypeScript, Go,
//! Java, C): the lines listed as uses of a name are exactly the lines where a lexer finds the
//! name as a code token (an identifier-like word outside comments and strings), less the lines
//! that define it. On generated files holding the awkward cases (names in comments, doc
//! comments, strings, raw strings, char literals, template literals, f-strings, macro bodies,
//! names inside longer names, CRLF, a BOM, no final newline) for every language, and on real
//! trees for Rust (crates from cargo's registry) and Python (packages of the standard library
//! the test's `python3` runs).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::json;
use support::fs::fs_text;
use support::sources::{copy_tree, registry_source};
use support::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Python,
    TypeScript,
    Go,
    Java,
    C,
}

impl Lang {
    fn of(path: &str) -> Option<Lang> {
        Some(match path.rsplit_once('.')?.1 {
            "rs" => Lang::Rust,
            "py" => Lang::Python,
            "ts" => Lang::TypeScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            _ => return None,
        })
    }

    /// Words that are keywords, never identifiers, so never sampled.
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &[
                "as",
                "async",
                "await",
                "break",
                "const",
                "continue",
                "crate",
                "dyn",
                "else",
                "enum",
                "extern",
                "false",
                "fn",
                "for",
                "if",
                "impl",
                "in",
                "let",
                "loop",
                "match",
                "mod",
                "move",
                "mut",
                "pub",
                "ref",
                "return",
                "self",
                "Self",
                "static",
                "struct",
                "super",
                "trait",
                "true",
                "type",
                "unsafe",
                "use",
                "where",
                "while",
                "union",
                "macro_rules",
                "default",
                "yield",
                "gen",
                "raw",
            ],
            Lang::Python => &[
                "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
                "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
                "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
                "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
                "print", "exec",
            ],
            Lang::TypeScript => &[
                "break",
                "case",
                "catch",
                "class",
                "const",
                "continue",
                "debugger",
                "default",
                "delete",
                "do",
                "else",
                "enum",
                "export",
                "extends",
                "false",
                "finally",
                "for",
                "function",
                "if",
                "import",
                "in",
                "instanceof",
                "new",
                "null",
                "return",
                "super",
                "switch",
                "this",
                "throw",
                "true",
                "try",
                "typeof",
                "var",
                "void",
                "while",
                "with",
                "let",
                "static",
                "yield",
                "await",
                "async",
                "implements",
                "interface",
                "package",
                "private",
                "protected",
                "public",
                "readonly",
                "number",
                "string",
                "boolean",
                "any",
                "unknown",
                "never",
                "from",
                "type",
                "declare",
                "abstract",
                "undefined",
                "symbol",
                "object",
                "bigint",
            ],
            Lang::Go => &[
                "break",
                "case",
                "chan",
                "const",
                "continue",
                "default",
                "defer",
                "else",
                "fallthrough",
                "for",
                "func",
                "go",
                "goto",
                "if",
                "import",
                "interface",
                "map",
                "package",
                "range",
                "return",
                "select",
                "struct",
                "switch",
                "type",
                "var",
            ],
            Lang::Java => &[
                "abstract",
                "assert",
                "boolean",
                "break",
                "byte",
                "case",
                "catch",
                "char",
                "class",
                "const",
                "continue",
                "default",
                "do",
                "double",
                "else",
                "enum",
                "extends",
                "final",
                "finally",
                "float",
                "for",
                "goto",
                "if",
                "implements",
                "import",
                "instanceof",
                "int",
                "interface",
                "long",
                "native",
                "new",
                "package",
                "private",
                "protected",
                "public",
                "return",
                "short",
                "static",
                "strictfp",
                "super",
                "switch",
                "synchronized",
                "this",
                "throw",
                "throws",
                "transient",
                "try",
                "void",
                "volatile",
                "while",
                "true",
                "false",
                "null",
                "var",
                "record",
                "yield",
            ],
            Lang::C => &[
                "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
                "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
                "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
                "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "include",
                "define", "ifdef", "ifndef", "endif", "elif", "undef", "pragma", "bool", "true",
                "false", "NULL",
            ],
        }
    }
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || unicode_normalization::char::is_combining_mark(c)
}

/// The code tokens of `text` with their 1-based lines: identifier-like words outside
/// comments and strings (a string's interpolations are code).
fn code_words(lang: Lang, text: &str) -> Vec<(u32, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut lexer = Lexer {
        lang,
        chars: &chars,
        at: 0,
        line: 1,
        words: Vec::new(),
    };
    lexer.code(false);
    lexer.words
}

struct Lexer<'c> {
    lang: Lang,
    chars: &'c [char],
    at: usize,
    line: u32,
    words: Vec<(u32, String)>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Takes one character, counting lines.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn starts(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c))
    }

    /// Lexes code until the end, or (with `in_braces`) the `}` closing an interpolation.
    fn code(&mut self, in_braces: bool) {
        let mut depth = 0u32;
        while let Some(c) = self.peek(0) {
            if in_braces && c == '}' && depth == 0 {
                self.bump();
                return;
            }
            match c {
                '{' => {
                    depth += 1;
                    self.bump();
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    self.bump();
                }
                '#' if self.lang == Lang::Python => self.line_comment(),
                '/' if self.lang != Lang::Python && self.peek(1) == Some('/') => {
                    self.line_comment();
                }
                '/' if self.lang != Lang::Python && self.peek(1) == Some('*') => {
                    self.block_comment();
                }
                '"' | '\'' if self.lang == Lang::Python => self.python_string(""),
                '"' => self.quoted('"'),
                '\'' if self.lang == Lang::Rust => self.rust_quote(),
                '\'' => self.quoted('\''),
                '`' if self.lang == Lang::Go => self.quoted('`'),
                '`' if self.lang == Lang::TypeScript => self.template(),
                c if word_char(c) => self.word(),
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn word(&mut self) {
        let (start, line) = (self.at, self.line);
        while self.peek(0).is_some_and(word_char) {
            self.bump();
        }
        let word: String = self.chars[start..self.at].iter().collect();
        let next = self.peek(0);
        if self.lang == Lang::Rust && self.fragment_specifier(start) {
            return; // `$name:ident` in a macro: a specifier, not a name
        }
        match self.lang {
            Lang::Rust
                if matches!(word.as_str(), "r" | "br" | "cr")
                    && matches!(next, Some('"' | '#')) =>
            {
                return self.rust_raw_string();
            }
            Lang::Rust if matches!(word.as_str(), "b" | "c") && next == Some('"') => {
                return self.quoted('"');
            }
            Lang::Rust if word == "b" && next == Some('\'') => return self.quoted('\''),
            Lang::Python
                if matches!(next, Some('"' | '\''))
                    && word.len() <= 2
                    && word.chars().all(|c| "rRbBuUfF".contains(c)) =>
            {
                return self.python_string(&word);
            }
            _ => {}
        }
        self.words.push((line, word));
    }

    /// Whether the word starting at `start` follows `$name:`.
    fn fragment_specifier(&self, start: usize) -> bool {
        let before = |mut at: usize| {
            while at > 0 && self.chars[at - 1].is_whitespace() {
                at -= 1;
            }
            at
        };
        let colon = before(start);
        if colon == 0 || self.chars[colon - 1] != ':' {
            return false;
        }
        let end = before(colon - 1);
        let mut at = end;
        while at > 0 && word_char(self.chars[at - 1]) {
            at -= 1;
        }
        // `$` is a word character, as it is to the server.
        at < end && self.chars[at] == '$'
    }

    fn line_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        let mut depth = 1;
        while depth > 0 && self.peek(0).is_some() {
            if self.starts("*/") {
                depth -= 1;
                self.bump();
            } else if self.lang == Lang::Rust && self.starts("/*") {
                depth += 1;
                self.bump();
            }
            self.bump();
        }
    }

    /// A string or char literal closed by `quote`, with backslash escapes (none in Go's raw
    /// strings).
    fn quoted(&mut self, quote: char) {
        self.bump();
        while let Some(c) = self.bump() {
            if c == quote {
                return;
            }
            if c == '\\' && quote != '`' {
                self.bump();
            }
        }
    }

    /// A Rust char literal, or a lifetime (code: its name is an identifier).
    fn rust_quote(&mut self) {
        if self.peek(1) == Some('\\') || self.peek(2) == Some('\'') {
            self.quoted('\'');
        } else {
            self.bump();
        }
    }

    fn rust_raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump(); // the opening quote
        let close: String = std::iter::once('"')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        while self.peek(0).is_some() && !self.starts(&close) {
            self.bump();
        }
        for _ in 0..close.chars().count() {
            self.bump();
        }
    }

    /// A TypeScript template literal, whose `${…}` are code.
    fn template(&mut self) {
        self.bump();
        while let Some(c) = self.bump() {
            match c {
                '`' => return,
                '\\' => {
                    self.bump();
                }
                '$' if self.peek(0) == Some('{') => {
                    self.bump();
                    self.code(true);
                }
                _ => {}
            }
        }
    }

    /// A Python string after its `prefix`; an f-string's replacement fields are code, but not
    /// their conversions (`!r`) or format specs (`:>10`, whose own `{…}` are code again).
    fn python_string(&mut self, prefix: &str) {
        let quote = self.peek(0).expect("a quote");
        let triple = self.peek(1) == Some(quote) && self.peek(2) == Some(quote);
        let close: String = std::iter::repeat_n(quote, if triple { 3 } else { 1 }).collect();
        for _ in 0..close.len() {
            self.bump();
        }
        let formatted = prefix.contains(['f', 'F']);
        while self.peek(0).is_some() {
            if self.starts(&close) {
                for _ in 0..close.len() {
                    self.bump();
                }
                return;
            }
            let c = self.bump().expect("a character");
            match c {
                // Raw or not, a backslash keeps the next character from closing the string.
                '\\' => {
                    self.bump();
                }
                '{' if formatted && self.peek(0) == Some('{') => {
                    self.bump();
                }
                '{' if formatted => self.replacement_field(),
                _ => {}
            }
        }
    }

    /// An f-string's `{…}` after its `{`: an expression, then an optional `!r` and `:spec`.
    fn replacement_field(&mut self) {
        let mut depth = 0u32;
        while let Some(c) = self.peek(0) {
            match c {
                '}' if depth == 0 => {
                    self.bump();
                    return;
                }
                '!' if depth == 0 && self.peek(1) != Some('=') => {
                    self.bump();
                    self.bump();
                }
                ':' if depth == 0 => {
                    self.bump();
                    // The format spec: text, with nested fields.
                    while let Some(c) = self.peek(0) {
                        match c {
                            '}' => {
                                self.bump();
                                return;
                            }
                            '{' => {
                                self.bump();
                                self.replacement_field();
                            }
                            _ => {
                                self.bump();
                            }
                        }
                    }
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    self.bump();
                }
                ')' | ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    self.bump();
                }
                '"' | '\'' => self.python_string(""),
                '#' => self.line_comment(),
                c if word_char(c) => self.word(),
                _ => {
                    self.bump();
                }
            }
        }
    }
}

/// Every file below `root` in one of the compared languages, by its path from the root.
fn sources(root: &Path) -> BTreeMap<String, (Lang, String)> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if let Some(lang) = Lang::of(&relative)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                found.insert(relative, (lang, text));
            }
        }
    }
    found
}

/// For each name: fs_symbols' reference lines are exactly the lexer's lines of the name, less
/// the definition lines fs_symbols gives. Fails with every disagreement.
fn agree_with_the_lexer(root: &Path, names: &[String]) {
    let files = sources(root);
    let lexed: BTreeMap<&str, Vec<(u32, String)>> = files
        .iter()
        .map(|(path, (lang, text))| (path.as_str(), code_words(*lang, text)))
        .collect();
    let mut server = Server::start(
        root,
        &[
            "--tools",
            "fs",
            "--include",
            "**",
            "--max-result-bytes",
            "1048576",
        ],
    );
    let mut disagreements = Vec::new();
    let mut compared = 0usize;
    for name in names {
        let expected: BTreeSet<String> = lexed
            .iter()
            .flat_map(|(path, words)| {
                words
                    .iter()
                    .filter(|(_, word)| word == name)
                    .map(move |(line, _)| format!("{path}:{line}"))
            })
            .collect();
        let text = fs_text(
            &mut server,
            "fs_symbols",
            json!({"name": name, "max-results": 1000}),
        );
        assert!(!text.contains("\n\n["), "{name}: a notice:\n{text}");
        let (mut definitions, mut references) = (BTreeSet::new(), BTreeSet::new());
        let mut section = &mut definitions;
        for line in text.lines() {
            if line.contains(" reference to ") || line.contains(" references to ") {
                section = &mut references;
                continue;
            }
            let Some((place, _)) = line.split_once(": ") else {
                continue;
            };
            if place.contains(' ') {
                continue; // a header
            }
            section.insert(place.to_owned());
        }
        let expected: BTreeSet<String> = expected.difference(&definitions).cloned().collect();
        compared += expected.len();
        if expected != references {
            disagreements.push(format!(
                "{name}: the lexer only {:?}, fs_symbols only {:?}",
                expected.difference(&references).collect::<Vec<_>>(),
                references.difference(&expected).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} names disagree:\n{}",
        disagreements.len(),
        names.len(),
        disagreements.join("\n")
    );
    assert!(compared >= names.len(), "only {compared} lines compared");
    eprintln!("{} names, {compared} lines of use compared", names.len());
}

/// Every `step`-th distinct code word of at least 4 characters, no keyword, that occurs on 2
/// to 900 lines of the files below `root`.
fn sample(root: &Path, step: usize) -> Vec<String> {
    let mut lines: BTreeMap<String, BTreeSet<(String, u32)>> = BTreeMap::new();
    for (path, (lang, text)) in sources(root) {
        for (line, word) in code_words(lang, &text) {
            if word.chars().count() >= 4
                && !lang.keywords().contains(&word.as_str())
                && !word.starts_with(|c: char| c.is_ascii_digit())
            {
                lines.entry(word).or_default().insert((path.clone(), line));
            }
        }
    }
    lines
        .into_iter()
        .filter(|(_, at)| (2..=900).contains(&at.len()))
        .map(|(word, _)| word)
        .step_by(step)
        .collect()
}

const RUST_FILE: &str = "//! Widget: the crate's one type (a Widget in a doc comment).
use std::fmt;

/// Makes a Widget.
pub struct Widget {
    pub size: u32,
}

impl Widget {
    pub fn make_widget(size: u32) -> Widget {
        /* a block comment naming Widget /* nested Widget */ still a comment */
        let label = \"Widget\";
        let raw = r#\"Widget \"quoted\" Widget\"#;
        let bytes = b\"Widget\";
        let c = 'W';
        let _ = (label, raw, bytes, c);
        Widget { size }
    }
}

impl fmt::Display for Widget {
    fn fmt<'a>(&'a self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"{}\", self.size)
    }
}

macro_rules! widgets {
    ($name:ident) => {
        let $name = Widget::make_widget(1);
    };
}

pub fn use_them(w: &Widget) -> Vec<Widget> {
    widgets!(first);
    let WidgetKind = 3; // a longer name is another name
    let _ = (first, WidgetKind, make_widget_twice());
    vec![Widget::make_widget(w.size)]
}

fn make_widget_twice() -> u32 { 2 }";

const PYTHON_FILE: &str = "\u{feff}\"\"\"Widgets (a Widget in the docstring).\"\"\"\r
from dataclasses import dataclass\r
\r
\r
@dataclass\r
class Widget:\r
    size: int\r
\r
    def make_widget(self, size: int) -> \"Widget\":\r
        # Widget in a comment\r
        label = 'Widget'\r
        note = f\"{Widget.__name__!r:>10} {size:{width_of(Widget)}} {{Widget}}\"\r
        raw = rb'Widget\\'s'\r
        return Widget(size)\r
\r
\r
def width_of(kind: type[Widget]) -> int:\r
    WidgetKind = kind\r
    return len(WidgetKind.__name__) + make_widget_count\r
\r
\r
make_widget_count = 1\r
items: list[Widget] = [Widget(1).make_widget(2)]";

const TS_FILE: &str = "// Widget in a comment
import { Base } from './base';

/** A Widget, documented. */
export class Widget extends Base {
  size: number = 0;

  static makeWidget(size: number): Widget {
    const label = \"Widget\";
    const other = 'Widget';
    const text = `a Widget ${Widget.name} and ${`nested ${makeWidget2()}`} Widget`;
    return new Widget();
  }
}

function makeWidget2(): string {
  return 'x';
}

export function useThem(w: Widget): Widget[] {
  const WidgetKind = 3;
  return [Widget.makeWidget(WidgetKind), w];
}
";

const GO_FILE: &str = "package widgets

import \"fmt\"

// Widget in a comment.
type Widget struct {
\tSize int
}

/* a block comment naming Widget */

func MakeWidget(size int) *Widget {
\tlabel := \"Widget\"
\traw := `Widget
Widget`
\tr := 'W'
\tfmt.Println(label, raw, r)
\treturn &Widget{Size: size}
}

func UseThem(w Widget) []Widget {
\tWidgetKind := 3
\t_ = WidgetKind
\treturn []Widget{*MakeWidget(w.Size)}
}
";

const JAVA_FILE: &str = "package widgets;

import java.util.List;

/** A Widget, documented. */
public class Widget extends Base implements Comparable<Widget> {
    private final int size;

    public Widget(int size) {
        this.size = size;
    }

    // Widget in a comment
    public static Widget makeWidget(int size) {
        String label = \"Widget\";
        char c = 'W';
        return new Widget(size);
    }

    public int compareTo(Widget other) {
        int WidgetKind = 3;
        return List.of(Widget.makeWidget(WidgetKind)).size();
    }
}
";

const C_FILE: &str = "#include <stdio.h>
#include \"widget.h\"

/* Widget in a block comment */
typedef struct Widget {
    int size;
} Widget;

#define MAKE(n) make_widget(n)

// make_widget in a line comment
Widget make_widget(int size) {
    const char *label = \"make_widget\";
    char c = 'w';
    Widget w = { size };
    (void)label;
    (void)c;
    return w;
}

int use_them(void) {
    Widget w = MAKE(3);
    int make_widget_count = 2;
    return w.size + make_widget_count;
}";

/// The generated files, every language, awkward cases included.
#[test]
fn every_language_agrees_with_a_lexer_on_awkward_files() {
    let tree = Tree::new()
        .file("rust/src/lib.rs", RUST_FILE)
        .file("python/widgets.py", PYTHON_FILE)
        .file("ts/widget.ts", TS_FILE)
        .file("go/widget.go", GO_FILE)
        .file("java/Widget.java", JAVA_FILE)
        .file("c/widget.c", C_FILE);
    let mut names: Vec<String> = [
        "Widget",
        "make_widget",
        "makeWidget",
        "MakeWidget",
        "WidgetKind",
        "size",
        "Size",
        "label",
        "width_of",
        "make_widget_count",
        "useThem",
        "first",
        "Base",
        "fmt",
    ]
    .map(String::from)
    .to_vec();
    names.extend(sample(tree.path(), 1));
    names.sort_unstable();
    names.dedup();
    agree_with_the_lexer(tree.path(), &names);
}

#[test]
fn rust_agrees_with_a_lexer_on_a_real_crate() {
    let Some(src) = registry_source("serde_json") else {
        return skipped_unless_ci("the source of serde_json is not in cargo's registry");
    };
    let tree = Tree::new();
    copy_tree(&src, &tree.join("serde_json"));
    let names = sample(tree.path(), 8);
    assert!(names.len() >= 30, "{} names", names.len());
    agree_with_the_lexer(tree.path(), &names);
}

#[test]
fn python_agrees_with_a_lexer_on_the_standard_library() {
    let stdlib = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let Some(stdlib) = stdlib.filter(|p| p.join("json").is_dir()) else {
        return skipped_unless_ci("python3 and its standard library are not on this machine");
    };
    let tree = Tree::new();
    for package in ["json", "email", "http"] {
        copy_tree(&stdlib.join(package), &tree.join(package));
    }
    let names = sample(tree.path(), 6);
    assert!(names.len() >= 30, "{} names", names.len());
    agree_with_the_lexer(tree.path(), &names);
}
