//! The Raku scanner: one Raku file into its definitions, references and imports.
//!
//! Raku has no tree-sitter grammar, so the map reads it by lines with a few patterns,
//! skipping comments, Pod, declarator documentation and heredocs so that what they mention
//! is neither defined nor referred to. Kept apart from `tags`, which drives the tree-sitter
//! languages; the two share only the signature clipping (`tags::clip`).

use std::sync::OnceLock;

use regex::Regex;

use super::tags::clip;
use super::{Definition, FileTags, Place};

/// The Raku scanner's patterns, compiled once.
struct RakuPatterns {
    /// A declaration: optional scope and multi-dispatch words, the declarator, the name.
    declaration: Regex,
    /// `multi`/`proto`/`only` followed directly by a name: an implied `sub`.
    implied_sub: Regex,
    /// `use`/`need`/`require` of a module name.
    import: Regex,
    /// `name(`: a call.
    call: Regex,
    /// `.name`, `.^name`, `self!name`: a method call.
    method_call: Regex,
    /// `Name::Space.` or `Name.`: a type used as an invocant.
    type_invocant: Regex,
    /// `is Name` / `does Name` traits: a type use.
    type_trait: Regex,
    /// The start of a heredoc: `q:to/END/`, `:heredoc/END/`.
    heredoc: Regex,
}

const RAKU_IDENT: &str = r"[\p{Alphabetic}_][\w]*(?:['-][\p{Alphabetic}_][\w]*)*";

fn raku_patterns() -> &'static RakuPatterns {
    static PATTERNS: OnceLock<RakuPatterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let name = format!(r"{RAKU_IDENT}(?:::{RAKU_IDENT})*");
        let build = |pattern: &str| Regex::new(pattern).expect("static Raku pattern");
        RakuPatterns {
            declaration: build(&format!(
                r"(?:^|[\s{{}};(])(?:(?:my|our|unit|augment|supersede|anon|lexical)\s+)?(?:(?:multi|proto|only)\s+)?(sub|method|submethod|class|role|grammar|module|package|token|rule|regex|constant|enum)\s+[!^]?[$@%&\\]?({name})"
            )),
            implied_sub: build(&format!(
                r"(?:^|[\s{{}};])(?:(?:my|our)\s+)?(?:multi|proto|only)\s+({name})"
            )),
            import: build(&format!(r"^\s*(?:use|need|require)\s+({name})")),
            call: build(&format!(r"(?:^|[^\w$@%.!^'-])&?({name})\(")),
            method_call: build(&format!(r"(?:\.[!^]?|\bself!)({RAKU_IDENT})")),
            type_invocant: build(&format!(
                r"(?:^|[^\w$@%&.!^'-])(\p{{Uppercase}}[\w'-]*(?:::{RAKU_IDENT})*)\."
            )),
            type_trait: build(&format!(r"\b(?:is|does)\s+(\p{{Uppercase}}[\w'-]*(?:::{RAKU_IDENT})*)")),
            heredoc: build(r":(?:to|heredoc)\s*/([^/\s]+)/"),
        }
    })
}

/// Words that look like calls but are not: control flow and declarators.
const RAKU_KEYWORDS: &[&str] = &[
    "if",
    "elsif",
    "unless",
    "while",
    "until",
    "for",
    "given",
    "when",
    "with",
    "without",
    "orwith",
    "loop",
    "repeat",
    "return",
    "my",
    "our",
    "has",
    "sub",
    "method",
    "submethod",
    "multi",
    "proto",
    "only",
    "so",
    "not",
    "and",
    "or",
    "xor",
    "andthen",
    "orelse",
    "do",
    "try",
    "gather",
    "take",
    "start",
    "react",
    "whenever",
    "supply",
    "class",
    "role",
    "grammar",
    "module",
    "package",
    "token",
    "rule",
    "regex",
    "constant",
    "enum",
    "use",
    "need",
    "require",
    "is",
    "does",
    "where",
    "returns",
    "of",
    "let",
    "temp",
    "state",
    "else",
    "default",
    "last",
    "next",
    "redo",
    "die",
    "fail",
];

/// Where the scanner is between lines.
enum RakuState {
    /// Ordinary code.
    Code,
    /// Inside `=begin … =end` Pod, `depth` blocks deep.
    PodBlock { depth: usize },
    /// Inside an abbreviated or paragraph Pod block (`=head1`, `=for`, `=item` …), which
    /// runs to the next blank line.
    PodParagraph,
    /// Inside a bracketed comment (`#|( … )`, `#=( … )`, `` #`( … ) ``).
    Bracketed {
        open: char,
        close: char,
        depth: usize,
    },
    /// Inside a heredoc body, up to the line that is its terminator.
    Heredoc { terminator: String },
}

/// The closing bracket of an opening one Raku accepts as a comment delimiter.
fn closing_bracket(open: char) -> Option<char> {
    Some(match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        '«' => '»',
        '「' => '」',
        _ => return None,
    })
}

/// Reads a Raku file by lines: declarations, calls and `use` imports, with comments, Pod
/// and declarator documentation (including bracketed multi-line forms) skipped.
pub(super) fn scan(source: &[u8]) -> FileTags {
    let text = String::from_utf8_lossy(source);
    let patterns = raku_patterns();
    let mut tags = FileTags::default();
    let mut state = RakuState::Code;

    for (index, line) in text.lines().enumerate() {
        let line_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim_start();

        // Lines wholly inside something that is not code.
        let rest: &str = match &mut state {
            RakuState::PodBlock { depth } => {
                if let Some(directive) = pod_directive(trimmed) {
                    match directive {
                        "begin" => *depth += 1,
                        "end" => {
                            *depth -= 1;
                            if *depth == 0 {
                                state = RakuState::Code;
                            }
                        }
                        _ => {}
                    }
                }
                continue;
            }
            RakuState::PodParagraph => {
                if trimmed.is_empty() {
                    state = RakuState::Code;
                    continue;
                }
                if pod_directive(trimmed).is_none() {
                    continue;
                }
                // A new directive ends the paragraph; read it below as a fresh line.
                state = RakuState::Code;
                line
            }
            RakuState::Heredoc { terminator } => {
                if trimmed.trim_end() == terminator {
                    state = RakuState::Code;
                }
                continue;
            }
            RakuState::Bracketed { open, close, depth } => {
                match close_bracketed(line, *open, *close, depth) {
                    Some(after) => {
                        state = RakuState::Code;
                        after
                    }
                    None => continue,
                }
            }
            RakuState::Code => line,
        };

        // Pod directives at the start of a line.
        if let Some(directive) = pod_directive(rest.trim_start()) {
            match directive {
                "begin" => state = RakuState::PodBlock { depth: 1 },
                "finish" | "END" => break,
                // A stray `=end` closes nothing we are in.
                "end" => {}
                _ => state = RakuState::PodParagraph,
            }
            continue;
        }

        let (code, next) = strip_comments(rest);
        if let Some(next) = next {
            state = next;
        }
        if code.trim().is_empty() {
            continue;
        }

        if let Some(caps) = patterns.import.captures(&code) {
            let name = &caps[1];
            if !name.starts_with("v6") && name != "lib" {
                tags.imports.push(name.to_string());
            }
            continue;
        }

        // Declarations; their names are not references.
        let mut declared: Vec<std::ops::Range<usize>> = Vec::new();
        for caps in patterns.declaration.captures_iter(&code) {
            let Some(name) = caps.get(2) else { continue };
            declared.push(name.range());
            tags.definitions.push(Definition {
                name: name.as_str().to_string(),
                line: line_no,
                text: clip(line.trim_end()),
                place: Place::Item,
                container: None,
            });
        }
        for caps in patterns.implied_sub.captures_iter(&code) {
            let Some(name) = caps.get(1) else { continue };
            if RAKU_KEYWORDS.contains(&name.as_str()) {
                continue;
            }
            declared.push(name.range());
            tags.definitions.push(Definition {
                name: name.as_str().to_string(),
                line: line_no,
                text: clip(line.trim_end()),
                place: Place::Item,
                container: None,
            });
        }

        let overlaps = |range: &std::ops::Range<usize>| {
            declared
                .iter()
                .any(|d| d.start < range.end && range.start < d.end)
        };
        let mut found: Vec<(usize, String)> = Vec::new();
        for pattern in [
            &patterns.call,
            &patterns.method_call,
            &patterns.type_invocant,
            &patterns.type_trait,
        ] {
            for caps in pattern.captures_iter(&code) {
                let Some(name) = caps.get(1) else { continue };
                if overlaps(&name.range()) || RAKU_KEYWORDS.contains(&name.as_str()) {
                    continue;
                }
                found.push((name.start(), name.as_str().to_string()));
            }
        }
        found.sort();
        found.dedup();
        tags.reference_lines
            .extend(std::iter::repeat_n(line_no, found.len()));
        tags.references
            .extend(found.into_iter().map(|(_, name)| name));

        if let Some(caps) = patterns.heredoc.captures(&code) {
            state = RakuState::Heredoc {
                terminator: caps[1].to_string(),
            };
        }
    }
    tags
}

/// The directive of a Pod line (`=begin pod` → `begin`, `=head1 Title` → `head1`), if the
/// (left-trimmed) line is one.
fn pod_directive(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix('=')?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let word = &rest[..end];
    word.starts_with(|c: char| c.is_alphabetic())
        .then_some(word)
}

/// Balances brackets of a bracketed comment on one line; `Some(rest of the line)` once the
/// comment closes on it, `None` if it continues past it.
fn close_bracketed<'a>(
    line: &'a str,
    open: char,
    close: char,
    depth: &mut usize,
) -> Option<&'a str> {
    for (at, c) in line.char_indices() {
        if c == open {
            *depth += 1;
        } else if c == close {
            *depth -= 1;
            if *depth == 0 {
                return Some(&line[at + c.len_utf8()..]);
            }
        }
    }
    None
}

/// The code of one line with comments removed and string contents blanked, and the state
/// the next line starts in if a bracketed comment opened and did not close.
fn strip_comments(line: &str) -> (String, Option<RakuState>) {
    let mut code = String::with_capacity(line.len());
    let mut chars = line.char_indices().peekable();
    let mut quote: Option<char> = None;
    let mut prev: Option<char> = None;
    while let Some((at, c)) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                code.push(' ');
                if chars.next().is_some() {
                    code.push(' ');
                }
            } else if c == q {
                quote = None;
                code.push(c);
            } else {
                code.push(' ');
            }
            prev = Some(c);
            continue;
        }
        match c {
            '"' => quote = Some('"'),
            // An apostrophe inside an identifier (`don't`) is not a quote.
            '\'' if !prev.is_some_and(|p| p.is_alphanumeric() || p == '_') => quote = Some('\''),
            // An escaped `\#` (in a regex) is no comment.
            '#' if prev != Some('\\') => {
                let after = &line[at + 1..];
                // `#|(`, `#=(`, and the embedded `` #`( ``: bracketed, possibly multi-line.
                let opener = after
                    .strip_prefix('|')
                    .or_else(|| after.strip_prefix('='))
                    .or_else(|| after.strip_prefix('`'));
                if let Some(body) = opener
                    && let Some(open) = body.chars().next()
                    && let Some(close) = closing_bracket(open)
                {
                    let mut depth = 0;
                    match close_bracketed(body, open, close, &mut depth) {
                        Some(rest) => {
                            // Closed on this line: carry on with what follows it.
                            let (more, next) = strip_comments(rest);
                            code.push(' ');
                            code.push_str(&more);
                            return (code, next);
                        }
                        None => {
                            return (code, Some(RakuState::Bracketed { open, close, depth }));
                        }
                    }
                }
                // Any other `#` (including `#|` and `#=` without a bracket) ends the line.
                return (code, None);
            }
            _ => {}
        }
        code.push(c);
        prev = Some(c);
    }
    (code, None)
}

#[cfg(test)]
mod tests {
    use crate::fs::map::Language;
    use crate::fs::map::tags::extract;
    use crate::fs::map::tags::tests::{names, refers};

    const RAKU_FIXTURE: &str = r#"use v6.d;
use Foo::Bar;
use JSON::Fast:ver<0.19>;

#| A greeter. sub not-a-def is just prose
unit class Greeter::Hello is Base::Greeter does Speaking;

#|(
    Multi-line declarator docs.
    sub fake-sub() and class FakeClass read like code
    (balanced (nested) parens) method fake-method
)
has $.name;

=begin pod
=head1 Greeter
sub pod-sub { }
=begin code
class PodClass { }
=end code
method pod-method { }
=end pod

method greet(Str $who --> Str) {
    # sub commented-out { }
    my $x = helper($who).uc;   # method trailing-comment
    self!polish($x);
}

method !polish($s) { $s }
#=( trailing declarator
    token fake-token { }
)
submethod BUILD(:$!name) { }
our sub helper($v) is export { Foo::Bar.new(value => $v) }
multi sub combine(Int $a) { $a }
multi combine(Str $s) { $s }
proto route(|) {*}
token ident { <alpha>+ }
rule statement { <ident> '=' <value> }
regex number { \d+ }
constant PI = 3.14159;
constant $E = 2.71828;
enum Colour <Red Green>;
my role Walks { }
grammar Config::Grammar { }
module Helpers { }
package Legacy { }
say "sub in-a-string" ~ #`( embedded sub inline-embedded ) greet();
=for comment
sub paragraph-pod { }

class After { }
=finish
sub after-finish { }
"#;

    #[test]
    fn raku_declarations_and_skipping() {
        let tags = extract(Language::Raku, RAKU_FIXTURE.as_bytes());
        assert_eq!(
            names(&tags),
            [
                ("Greeter::Hello", 6),
                ("greet", 24),
                ("polish", 30),
                ("BUILD", 34),
                ("helper", 35),
                ("combine", 36),
                ("combine", 37),
                ("route", 38),
                ("ident", 39),
                ("statement", 40),
                ("number", 41),
                ("PI", 42),
                ("E", 43),
                ("Colour", 44),
                ("Walks", 45),
                ("Config::Grammar", 46),
                ("Helpers", 47),
                ("Legacy", 48),
                ("After", 53),
            ]
        );
        assert_eq!(tags.definitions[1].text, "method greet(Str $who --> Str) {");
        assert_eq!(tags.imports, ["Foo::Bar", "JSON::Fast"]);
    }

    #[test]
    fn raku_references() {
        let tags = extract(Language::Raku, RAKU_FIXTURE.as_bytes());
        assert!(refers(&tags, "helper"));
        assert!(refers(&tags, "uc"));
        assert!(refers(&tags, "polish"));
        assert!(refers(&tags, "new"));
        assert!(refers(&tags, "Foo::Bar"));
        assert!(refers(&tags, "Base::Greeter"));
        assert!(refers(&tags, "Speaking"));
        assert!(refers(&tags, "greet"));
        // Declared names are not references of their own declaration line.
        assert_eq!(tags.references.iter().filter(|r| *r == "greet").count(), 1);
        for hidden in [
            "fake-sub",
            "FakeClass",
            "fake-method",
            "fake-token",
            "inline-embedded",
            "in-a-string",
        ] {
            assert!(!refers(&tags, hidden), "{hidden}");
        }
    }

    #[test]
    fn raku_bracketed_forms() {
        let src = "#|{ one { two }\n sub nope { }\n} sub yes { }\n#=[ x ] sub also { }\n#`[\nclass Nope { }\n]\nclass Yes { }\n#| line doc\nsub last-one { }\n";
        let tags = extract(Language::Raku, src.as_bytes());
        assert_eq!(
            names(&tags),
            [("yes", 3), ("also", 4), ("Yes", 8), ("last-one", 10)]
        );
    }

    #[test]
    fn raku_escaped_hash_is_code() {
        let src = "token comment { \\# \\N* } sub after-token { }\n";
        let tags = extract(Language::Raku, src.as_bytes());
        assert_eq!(names(&tags), [("comment", 1), ("after-token", 1)]);
    }

    #[test]
    fn raku_heredoc_is_skipped() {
        let src = "my $t = q:to/END/;\n  sub inside-heredoc { }\n  END\nsub outside { }\n";
        let tags = extract(Language::Raku, src.as_bytes());
        assert_eq!(names(&tags), [("outside", 4)]);
    }
}
