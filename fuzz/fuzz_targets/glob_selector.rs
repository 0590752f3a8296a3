//! The glob compiler and the `Selector`, on arbitrary include and exclude globs and paths.
//!
//! The input is lines: `+GLOB` is an include, `-GLOB` an exclude, `~` adds the built-in
//! excludes (off otherwise: compiling them takes most of an iteration), and every other line is
//! a path. (The fs tools' patterns are ripgrep's globs, proven against `rg` by a test.)
//!
//! Oracles: nothing panics; an excluded path is never selected; with no include nothing is
//! selected; the compiled sets (operator and built-in) agree with each glob compiled alone; every glob agrees with a
//! reference matcher written from the contract's wording (§6.1 of the ptc contract); an
//! excluded ancestor hides its descendants.

#![no_main]
// A harness, like the tests: it stands outside the root (and `fuzz_target!` itself opens a
// debug file by path), so the library's filesystem rule does not apply.
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::sync::OnceLock;

use fsmcp::root::{Glob, RelPath, Selector, default_excludes};
use libfuzzer_sys::fuzz_target;

/// One token of a glob, as the contract describes the translation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    /// `**/`: zero or more whole directories (`(?:[^/]+/)*`).
    Dirs,
    /// `**` not followed by `/`: anything, across `/`.
    Any,
    /// `*`: any run inside one segment.
    Star,
    /// `?`: one character other than `/`.
    One,
    Literal(char),
}

fn tokens(pattern: &str) -> Vec<Token> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let token = match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') && chars.get(i + 2) == Some(&'/') => {
                i += 2;
                Token::Dirs
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Token::Any
            }
            '*' => Token::Star,
            '?' => Token::One,
            c => Token::Literal(c),
        };
        out.push(token);
        i += 1;
    }
    out
}

/// Whether `tokens` match all of `path`: a memoized walk over (token, character) positions.
fn reference_match(tokens: &[Token], path: &[char]) -> bool {
    fn go(
        t: usize,
        i: usize,
        tokens: &[Token],
        path: &[char],
        memo: &mut HashMap<(usize, usize), bool>,
    ) -> bool {
        if let Some(&known) = memo.get(&(t, i)) {
            return known;
        }
        let result = match tokens.get(t) {
            None => i == path.len(),
            Some(Token::Literal(c)) => {
                path.get(i) == Some(c) && go(t + 1, i + 1, tokens, path, memo)
            }
            Some(Token::One) => {
                path.get(i).is_some_and(|&c| c != '/') && go(t + 1, i + 1, tokens, path, memo)
            }
            Some(Token::Star) => {
                let mut j = i;
                loop {
                    if go(t + 1, j, tokens, path, memo) {
                        break true;
                    }
                    if j == path.len() || path[j] == '/' {
                        break false;
                    }
                    j += 1;
                }
            }
            Some(Token::Any) => (i..=path.len()).any(|j| go(t + 1, j, tokens, path, memo)),
            Some(Token::Dirs) => {
                // Zero directories, or one non-empty segment and its slash, then again.
                go(t + 1, i, tokens, path, memo)
                    || (i + 1..path.len()).any(|j| {
                        path[j] == '/'
                            && !path[i..j].contains(&'/')
                            && go(t, j + 1, tokens, path, memo)
                    })
            }
        };
        memo.insert((t, i), result);
        result
    }
    go(0, 0, tokens, path, &mut HashMap::new())
}

/// The built-in excludes, each compiled alone (case-insensitive), once.
fn default_globs() -> &'static [Glob] {
    static GLOBS: OnceLock<Vec<Glob>> = OnceLock::new();
    GLOBS.get_or_init(|| {
        default_excludes()
            .iter()
            .map(|g| Glob::new(g, true))
            .collect()
    })
}

fuzz_target!(|input: &str| {
    let mut includes = Vec::new();
    let mut excludes = Vec::new();
    let mut paths = Vec::new();
    let mut defaults = false;
    for line in input.split('\n') {
        if let Some(glob) = line.strip_prefix('+') {
            includes.push(glob.to_owned());
        } else if let Some(glob) = line.strip_prefix('-') {
            excludes.push(glob.to_owned());
        } else if line == "~" {
            defaults = true;
        } else {
            paths.push(line.to_owned());
        }
    }
    let selector = Selector::new(&includes, &excludes, defaults);
    let compiled_includes: Vec<Glob> = includes.iter().map(|g| Glob::new(g, false)).collect();
    let compiled_excludes: Vec<Glob> = excludes.iter().map(|g| Glob::new(g, false)).collect();
    let _ = selector.serves_root_level();
    let _ = selector.includes_defeated_by_defaults();

    for path in &paths {
        let chars: Vec<char> = path.chars().collect();
        let selected = selector.selects(path);
        let excluded = selector.excludes(path);
        assert!(
            !(selected && excluded),
            "{path:?} is both selected and excluded"
        );
        if includes.is_empty() {
            assert!(!selected, "{path:?} selected with no include");
        }
        let included = compiled_includes.iter().any(|g| g.is_match(path));
        let operator_excluded = compiled_excludes.iter().any(|g| g.is_match(path));
        if operator_excluded {
            assert!(
                excluded && !selected,
                "{path:?}: an operator exclude names it"
            );
        }
        if selected {
            assert!(
                included,
                "{path:?} selected though no include matches alone"
            );
        }
        let default_excluded = defaults && default_globs().iter().any(|g| g.is_match(path));
        assert_eq!(excluded, operator_excluded || default_excluded, "{path:?}");
        assert_eq!(selected, included && !excluded, "{path:?}");
        // Keep the reference matcher's cost bounded; the compiled globs saw every input.
        if chars.len() <= 64 {
            for (glob, compiled) in includes.iter().zip(&compiled_includes) {
                if glob.chars().count() <= 32 {
                    assert_eq!(
                        compiled.is_match(path),
                        reference_match(&tokens(glob), &chars),
                        "glob {glob:?} on {path:?}"
                    );
                }
            }
        }
        if let Ok(rel) = RelPath::parse(path) {
            let hidden = selector.excludes_ancestor(&rel);
            if !rel.is_root() && selector.excludes(rel.as_str()) {
                assert!(hidden, "{path:?} is excluded but not hidden");
            }
            // Whatever an excluded directory holds is hidden too.
            if hidden {
                let child = RelPath::parse(&rel.join("child")).expect("a child of a path");
                assert!(
                    selector.excludes_ancestor(&child),
                    "{path:?}/child not hidden"
                );
            }
        }
    }
});
