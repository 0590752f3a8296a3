//! The include/exclude selector: which paths a root serves.
//!
//! A [`Glob`] is compiled once into an anchored regular expression. The operator's globs use the
//! ptc-fs-mcp dialect: `**/` spans whole directories, a bare `**` spans anything, `*` and `?` stay
//! inside one segment, and every other character is literal. (The `fs` tools' own patterns are
//! ripgrep's globs, compiled in the engine.) A [`Selector`] combines the operator's includes and
//! excludes with the built-in default excludes (matched without regard to case).
//!
//! Where the filesystem usually ignores case (macOS, Windows), `NODE_MODULES/x` or `.ENV`
//! would open what `node_modules/**` or `.env` hides, so there the operator's excludes are
//! matched without regard to case too ([`EXCLUDES_IGNORE_CASE`]). Includes stay as written:
//! a path spelt in another case than an include is refused, which fails closed.

use regex::{Regex, RegexSet, RegexSetBuilder};

use super::relpath::RelPath;

/// Directory names excluded by default, each as itself and everything beneath it.
pub const DEFAULT_EXCLUDED_DIRECTORIES: [&str; 22] = [
    ".bundle",
    ".cargo",
    ".elixir_ls",
    ".git",
    ".gradle",
    ".hg",
    ".mypy_cache",
    ".next",
    ".nuxt",
    ".parcel-cache",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".terraform",
    ".tox",
    ".turbo",
    ".venv",
    "__pycache__",
    "_build",
    "bower_components",
    "deps",
    "node_modules",
];

/// The built-in excluded directories that are not rebuilt: version control (a repository's
/// history), settings that may hold credentials (`.cargo`, `.bundle`) and `.terraform` (a
/// backend's settings). Every other one is filled and filled again by a tool or a build
/// (caches, virtualenvs, installed dependencies) and, hidden as it is, travels with a move or
/// copy of the directory holding it and goes with its recursive delete.
pub const KEPT_DIRECTORIES: [&str; 6] = [".bundle", ".cargo", ".git", ".hg", ".svn", ".terraform"];

/// File-name globs excluded by default, at any depth: credentials more often than content.
pub const DEFAULT_EXCLUDED_FILES: [&str; 9] = [
    ".env",
    ".env.*",
    "*.p12",
    "*.pem",
    "*.pfx",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_rsa",
];

/// The built-in exclude globs in their canonical order: each directory's pair, then the files.
pub fn default_excludes() -> Vec<String> {
    let mut globs = Vec::with_capacity(53);
    for name in DEFAULT_EXCLUDED_DIRECTORIES {
        globs.push(format!("**/{name}"));
        globs.push(format!("**/{name}/**"));
    }
    for name in DEFAULT_EXCLUDED_FILES {
        globs.push(format!("**/{name}"));
    }
    globs
}

/// Translates one glob of the operator's dialect into the source of an anchored regular
/// expression.
pub fn glob_to_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2 + 2);
    out.push('^');
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    out.push_str("(?:[^/]+/)*");
                    i += 3;
                } else {
                    out.push_str(".*");
                    i += 2;
                }
            }
            '*' => {
                out.push_str("[^/]*");
                i += 1;
            }
            '?' => {
                out.push_str("[^/]");
                i += 1;
            }
            c => {
                let mut buf = [0u8; 4];
                out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
                i += 1;
            }
        }
    }
    out.push('$');
    out
}

/// One compiled glob.
#[derive(Debug, Clone)]
pub struct Glob {
    regex: Regex,
}

impl Glob {
    /// Compiles `pattern`; `case_insensitive` is used for the built-in excludes.
    pub fn new(pattern: &str, case_insensitive: bool) -> Glob {
        let source = glob_to_regex(pattern);
        let regex = regex::RegexBuilder::new(&source)
            .case_insensitive(case_insensitive)
            .dot_matches_new_line(true)
            .build()
            .expect("an escaped glob is always a valid regex");
        Glob { regex }
    }

    /// Whether the whole path matches.
    pub fn is_match(&self, path: &str) -> bool {
        self.regex.is_match(path)
    }
}

/// Most memory one compiled set of globs may take.
const SET_SIZE_LIMIT: usize = 64 << 20;

fn build_set(patterns: &[String], case_insensitive: bool) -> Result<RegexSet, regex::Error> {
    RegexSetBuilder::new(patterns.iter().map(|p| glob_to_regex(p)))
        .case_insensitive(case_insensitive)
        .dot_matches_new_line(true)
        .size_limit(SET_SIZE_LIMIT)
        .build()
}

/// Globs compiled into one regex set on first use: compiling (the case-insensitive built-in
/// excludes above all) is most of a start-up, and answering `server/discover` matches nothing.
#[derive(Debug, Clone)]
struct LazySet {
    patterns: Vec<String>,
    case_insensitive: bool,
    set: std::sync::OnceLock<RegexSet>,
}

impl LazySet {
    fn new(patterns: Vec<String>, case_insensitive: bool) -> LazySet {
        LazySet {
            patterns,
            case_insensitive,
            set: std::sync::OnceLock::new(),
        }
    }

    /// Compiles the set now, or says why it cannot be: too many or too large globs (every
    /// glob is escaped into a valid pattern, so size is the one way to fail).
    fn compile(&self) -> Result<(), regex::Error> {
        if self.set.get().is_none() {
            let set = build_set(&self.patterns, self.case_insensitive)?;
            let _ = self.set.set(set);
        }
        Ok(())
    }

    fn is_match(&self, path: &str) -> bool {
        self.set
            .get_or_init(|| {
                build_set(&self.patterns, self.case_insensitive)
                    .expect("the operator's sets compile at start-up; the built-in one always does")
            })
            .is_match(path)
    }
}

/// Whether the operator's excludes ignore case: on the systems whose filesystems usually do.
pub const EXCLUDES_IGNORE_CASE: bool = cfg!(any(windows, target_vendor = "apple"));

/// Decides which paths a root serves. Built once per root; matching never re-parses a glob.
#[derive(Debug, Clone)]
pub struct Selector {
    includes: Vec<String>,
    include_set: LazySet,
    exclude_set: LazySet,
    default_set: Option<LazySet>,
    /// The built-in file excludes alone (credentials), with the built-in excludes.
    secret_set: Option<LazySet>,
}

impl Selector {
    /// A selector over the operator's globs, with or without the built-in default excludes.
    pub fn new(includes: &[String], excludes: &[String], default_excludes: bool) -> Selector {
        Selector::with_exclude_case(includes, excludes, default_excludes, EXCLUDES_IGNORE_CASE)
    }

    /// [`Selector::new`] with the operator's excludes matched with or without regard to case.
    fn with_exclude_case(
        includes: &[String],
        excludes: &[String],
        default_excludes: bool,
        ignore_case: bool,
    ) -> Selector {
        Selector {
            includes: includes.to_vec(),
            include_set: LazySet::new(includes.to_vec(), false),
            exclude_set: LazySet::new(excludes.to_vec(), ignore_case),
            default_set: default_excludes.then(|| LazySet::new(self::default_excludes(), true)),
            secret_set: default_excludes.then(|| {
                let globs = DEFAULT_EXCLUDED_FILES
                    .iter()
                    .map(|name| format!("**/{name}"));
                LazySet::new(globs.collect(), true)
            }),
        }
    }

    /// Compiles the operator's includes and excludes now (the built-in excludes, fixed and
    /// known to compile, stay lazy), so globs too many or too large to match are refused when
    /// the root opens, naming which, instead of failing every call. The error is the option
    /// (`include` or `exclude`) and a sentence saying what to change.
    pub fn compile(&self) -> Result<(), (&'static str, String)> {
        let refuse = |which: &'static str, patterns: &LazySet| {
            let message = format!(
                "the {} --{which} patterns are too many or too large to compile together (more than {} MiB); use fewer or simpler ones",
                patterns.patterns.len(),
                SET_SIZE_LIMIT >> 20
            );
            (which, message)
        };
        self.include_set
            .compile()
            .map_err(|_| refuse("include", &self.include_set))?;
        self.exclude_set
            .compile()
            .map_err(|_| refuse("exclude", &self.exclude_set))
    }

    /// Some include matches and nothing excludes the path.
    pub fn selects(&self, path: &str) -> bool {
        self.include_set.is_match(path) && !self.excludes(path)
    }

    /// Whether an entry found below a served directory is served: a directory unless it is
    /// excluded, anything else only when selected.
    pub fn serves_entry(&self, path: &str, is_directory: bool) -> bool {
        if is_directory {
            !self.excludes(path)
        } else {
            self.selects(path)
        }
    }

    /// Whether `path` is hidden only because it lies in a rebuilt directory: one of the
    /// built-in excluded directories but the `KEPT_DIRECTORIES` is the path or an ancestor
    /// (by name, without regard to case, as the built-in excludes match), and none of the
    /// `KEPT_DIRECTORIES` is, at any depth. Such an entry may
    /// travel with the tree holding it, or go with it. Never for a
    /// path an operator exclude matches, a credential the built-in file excludes name, or
    /// anything when the built-in excludes are off.
    pub fn hidden_rebuilt(&self, path: &str) -> bool {
        let Some(secrets) = &self.secret_set else {
            return false;
        };
        let named = |names: &[&str], segment: &str| {
            names.iter().any(|name| segment.eq_ignore_ascii_case(name))
        };
        // A kept directory anywhere on the path keeps it out, even below a rebuilt one (a
        // dependency's own `.git` inside `deps/`, a `.cargo` inside `.venv`).
        path.split('/')
            .any(|segment| named(&DEFAULT_EXCLUDED_DIRECTORIES, segment))
            && !path
                .split('/')
                .any(|segment| named(&KEPT_DIRECTORIES, segment))
            && !self.exclude_set.is_match(path)
            && !secrets.is_match(path)
    }

    /// An operator exclude (case-sensitive but on macOS and Windows) or a built-in
    /// one (case-insensitive) matches.
    pub fn excludes(&self, path: &str) -> bool {
        self.exclude_set.is_match(path)
            || self.default_set.as_ref().is_some_and(|s| s.is_match(path))
    }

    /// The path itself or any of its ancestors is excluded, so nothing beneath is served.
    pub fn excludes_ancestor(&self, path: &RelPath) -> bool {
        let text = path.as_str();
        text.match_indices('/')
            .map(|(i, _)| &text[..i])
            .chain((!path.is_root()).then_some(text))
            .any(|prefix| self.excludes(prefix))
    }

    /// Whether some include could match a name directly in the root. A `false` is certain;
    /// a `true` is only a possibility.
    pub fn serves_root_level(&self) -> bool {
        self.includes
            .iter()
            .any(|p| !p.split("**/").collect::<String>().contains('/'))
    }

    /// Literal includes (no `*` or `?`) that a built-in exclude defeats.
    pub fn includes_defeated_by_defaults(&self) -> Vec<&str> {
        let Some(defaults) = &self.default_set else {
            return Vec::new();
        };
        // Only literal includes are judged, so a selector without one compiles nothing here.
        self.includes
            .iter()
            .filter(|p| !p.contains('*') && !p.contains('?'))
            .filter(|p| defaults.is_match(p))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(includes: &[&str], excludes: &[&str], defaults: bool) -> Selector {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Selector::new(&v(includes), &v(excludes), defaults)
    }

    #[test]
    fn caches_and_dependencies_are_hidden_rebuilt_secrets_and_repositories_are_not() {
        let s = sel(&["**"], &["**/private/**"], true);
        for path in [
            "pkg/__pycache__",
            "pkg/__pycache__/m.pyc",
            "web/node_modules/a/index.js",
            "x/NODE_MODULES/y",
            "a/.venv/lib/site.py",
        ] {
            assert!(s.hidden_rebuilt(path), "{path}");
        }
        for path in [
            "pkg/.git/HEAD",
            "pkg/.cargo/credentials.toml",
            "pkg/__pycache__/.env",
            "web/node_modules/x/key.pem",
            "private/node_modules/a.js",
            "pkg/mod.py",
            // A repository or credentials folder inside a rebuilt one.
            "app/deps/foo/.git/HEAD",
            "app/node_modules/dep/.git",
            "pkg/.venv/.cargo/credentials.toml",
        ] {
            assert!(!s.hidden_rebuilt(path), "{path}");
        }
        assert!(!sel(&["**"], &[], false).hidden_rebuilt("pkg/__pycache__/m.pyc"));
    }

    #[test]
    fn glob_dialect() {
        for (pattern, path, expected) in [
            ("lib/**", "lib/a.ts", true),
            ("lib/**", "lib/deep/a.ts", true),
            ("lib/**", "lib", false),
            ("lib/**", "libx/a.ts", false),
            ("*.ts", "a.ts", true),
            ("*.ts", "lib/a.ts", false),
            ("**/*.ts", "a.ts", true),
            ("**/*.ts", "x/y/a.ts", true),
            ("a?c.ts", "abc.ts", true),
            ("a.ts", "axts", false),
            ("*", ".env", true),
            ("[ab].txt", "[ab].txt", true),
            ("[ab].txt", "a.txt", false),
            ("{a,b}", "a", false),
            ("**", "x/y", true),
        ] {
            assert_eq!(
                Glob::new(pattern, false).is_match(path),
                expected,
                "{pattern} {path}"
            );
        }
    }

    #[test]
    fn selector_rules() {
        assert!(!sel(&[], &["x"], true).selects("anything"));
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (all, excluded) = (v(&["**"]), v(&["build/**", "secret"]));
        let s = Selector::with_exclude_case(&all, &excluded, true, false);
        assert!(s.selects("a.txt"));
        assert!(!s.selects("build/x.txt"));
        assert!(s.selects("Build/x.txt"));
        // Where filesystems ignore case, no spelling of an excluded path gets through.
        let folded = Selector::with_exclude_case(&all, &excluded, true, true);
        for path in [
            "build/x.txt",
            "Build/x.txt",
            "BUILD/x.txt",
            "SECRET",
            "a.txt",
        ] {
            assert_eq!(folded.selects(path), path == "a.txt", "{path}");
        }
        assert_eq!(
            sel(&["**"], &["build/**"], true).selects("Build/x.txt"),
            !EXCLUDES_IGNORE_CASE
        );
        assert!(!s.selects("NODE_MODULES/pkg.js"));
        assert!(!s.selects(".ENV"));
        assert!(!s.selects("SERVER.PEM"));
        assert!(!s.selects("a/.env.local"));
        assert!(s.selects("a/key.key"));
        assert!(s.excludes_ancestor(&RelPath::parse("secret/creds.txt").unwrap()));
        assert!(s.excludes_ancestor(&RelPath::parse(".git").unwrap()));
        assert!(!s.excludes_ancestor(&RelPath::parse("src/a").unwrap()));
        assert!(sel(&["**"], &[], false).selects("node_modules/x.js"));
    }

    #[test]
    fn root_level() {
        for (includes, expected) in [
            (&["**"][..], true),
            (&["*"][..], true),
            (&["*.md"][..], true),
            (&["**/*.ts"][..], true),
            (&["lib/**"][..], false),
            (&["lib/**/*.ts"][..], false),
            (&["docs/**", "lib/**"][..], false),
            (&["docs/**", "*.md"][..], true),
            (&[][..], false),
        ] {
            assert_eq!(
                sel(includes, &[], true).serves_root_level(),
                expected,
                "{includes:?}"
            );
        }
    }

    #[test]
    fn defeated_literal_includes() {
        assert_eq!(
            sel(&[".env", "**", "a.txt"], &[], true).includes_defeated_by_defaults(),
            vec![".env"]
        );
        assert!(
            sel(&[".env"], &[], false)
                .includes_defeated_by_defaults()
                .is_empty()
        );
    }
}
