//! Ranking: which files the tree leans on, and which of their definitions to show.
//!
//! **The graph.** One node per mapped file. File A has an edge to file B for every name A
//! refers to that B defines as an item ([`Place::Item`]: a name declared in a function body or
//! in test code is nothing another file can refer to; A ≠ B, a file's references to its own
//! names add nothing), counting only the references that resolve (`resolve`: not a builtin
//! or a builtin type's method unless A imports the name, and in Python, JavaScript and
//! TypeScript not a bare name A neither imports nor defines; an anonymous item such as
//! `const _` is no definition), and for every Raku module A imports whose file B is (`use Foo::Bar` → a
//! `…/lib/Foo/Bar.rakumod`). A name's edge weight is `sqrt(references of that name in A) /
//! (files defining the name)`: the square root keeps one file that calls a helper a hundred
//! times from outweighing a hundred files that call it once, and the division shares a name
//! among its definers, so a name declared in three files lends each a third. A generic name
//! ([`generic_name`], or defined in more than [`GENERIC_DEFINERS`] files) weighs
//! [`GENERIC_WEIGHT`] of that: `T` or `fmt` says nothing about what A depends on. An import
//! weighs 1.
//!
//! **The walk.** A personalized PageRank: damping [`DAMPING`], iterated until the scores move
//! by less than [`TOLERANCE`] in total (at most [`MAX_ITERATIONS`] rounds). Every file starts
//! with weight 1; a file whose path or one of whose defined names contains a `query` word
//! (case-insensitive) is weighted [`QUERY_WEIGHT`] times, a file whose items hold the query's
//! words ([`words_of`]: `parse_rfc3339` holds `rfc` and `3339`) from [`QUERY_WEIGHT`] up to
//! [`IDENTIFIER_WEIGHT`] times by the share of them it holds, rarer words weighing more (see
//! `word_scores`), or [`IDENTIFIER_WEIGHT`] times when it defines an identifier the query
//! names ([`identifier_key`]), a file at or below a `focus` path [`FOCUS_WEIGHT`] times
//! (weights multiply). When any file is steered, the steered files
//! share [`STEERED_SHARE`] of the restarts by their weights and the others the rest evenly.
//! The teleport and the mass of files with no outgoing edge follow those weights, so a file
//! with no edges at all still ranks by its weight.
//!
//! **The order.** The files defining as an item an identifier the query spells exactly
//! first, then the files defining an identifier the query names (as an item, when any file
//! defines it as one), then the files by the best share of the query's words one of their
//! items holds (in tenths), then the focused
//! files and their neighbours (files defining a name a focused file refers to, or holds as a
//! word, that at most [`NEIGHBOUR_DEFINERS`] files other than tests define; the more such
//! names, the nearer; a test file is no neighbour), then the rest; each group with its test
//! files last (a reader looks up the code before its tests), each by score (compared to
//! 1e-12), ties by path. A map steered by a query or a focus lists only the test files its
//! steering reaches, and counts the others.
//!
//! **The definitions shown.** A definition of a name the query names comes first, then one
//! holding the query's words (the larger share first). Otherwise a
//! definition's weight is the number of references to its name from other files divided by
//! the number of files defining the name. A name that more than
//! half of the files refer to is set aside (in maps of at least [`SET_ASIDE_MIN_FILES`]
//! files): its definitions are not shown, unless a file defines nothing else. A definition a
//! reader seldom looks up ([`seldom_looked_up`], or any in a test file) labels a file with
//! nothing else to show ([`INCIDENTAL_ALONE`]) and is otherwise left out. A file keeps at
//! most [`DEFINITIONS_PER_FILE`] definitions (heaviest first, then by line; one per line),
//! which the budget may trim further.
//!
//! **One file** maps as its [`outline`] instead: its definitions in line order.
//!
//! The graph, the walk and the choice of definitions are computed in `graph`.

mod graph;

use std::collections::{HashMap, HashSet};

use graph::Graph;

use super::Place;
use super::symbols::{Interner, NameId, Symbols, hash_chars, identifier_chars};

/// PageRank damping: the chance of following an edge rather than teleporting.
pub const DAMPING: f64 = 0.85;
/// Total change of the scores below which the walk has converged.
pub const TOLERANCE: f64 = 1e-12;
/// Most rounds of the walk.
pub const MAX_ITERATIONS: usize = 200;
/// Weight of a file matching a `query` word.
pub const QUERY_WEIGHT: f64 = 10.0;
/// Weight of a file defining an identifier the query names: a word equal to one of its
/// definitions' names, or all the words together (`assertion kind`, `assertion_kind` and
/// `AssertionKind` name the same identifier).
pub const IDENTIFIER_WEIGHT: f64 = 100.0;
/// Most files that may define a name for a focused file's reference to it to make them
/// neighbours: a name defined in more files (`new`, `fmt`) says little about what a file
/// depends on.
pub const NEIGHBOUR_DEFINERS: usize = 1;
/// Shortest name whose word in a focused file (rather than a tagged reference) makes its
/// definer a neighbour: `id` or `T` as a word says nothing.
pub const NEIGHBOUR_MIN_LEN: usize = 3;
/// Share of the walk's restarts that go to the steered files when the query or focus steers
/// any: in a tree of hundreds of files, weighting one file ×10 among them barely moves the
/// ranking, so the steered files share this much of the restart mass by their weights and the
/// others share the rest evenly.
pub const STEERED_SHARE: f64 = 0.9;
/// Weight of a file at or below a `focus` path.
pub const FOCUS_WEIGHT: f64 = 50.0;
/// Most definitions shown per file before the budget trims.
pub const DEFINITIONS_PER_FILE: usize = 12;
/// Most incidental definitions (tests, nested ones, constructors, describing methods: see
/// [`seldom_looked_up`]) a file shows, and only when it has nothing else to show: they label
/// a file, they do not fill it.
pub const INCIDENTAL_ALONE: usize = 1;
/// Smallest map in which a name most files refer to is set aside.
pub const SET_ASIDE_MIN_FILES: usize = 10;
/// Files defining a name beyond which a reference to it is generic (see [`generic_name`]).
pub const GENERIC_DEFINERS: usize = 5;
/// What a reference to a generic name weighs, relative to any other.
pub const GENERIC_WEIGHT: f64 = 0.1;
/// The weight, for the definitions a file shows, of a name holding all the query's words
/// (scaled by the share it holds): above any count of references.
pub const WORDS_WEIGHT: f64 = 1e12;

/// Method names of the standard traits and protocols, defined wherever a type implements
/// one: a call to `fmt` or `next` says nothing about which file the caller depends on.
const PROTOCOL_METHODS: &[&str] = &[
    "as_mut",
    "as_ref",
    "borrow",
    "borrow_mut",
    "clone",
    "cmp",
    "default",
    "deref",
    "deref_mut",
    "deserialize",
    "drop",
    "eq",
    "fmt",
    "from",
    "from_iter",
    "from_str",
    "hash",
    "index",
    "index_mut",
    "into",
    "into_iter",
    "next",
    "next_back",
    "partial_cmp",
    "poll",
    "poll_next",
    "serialize",
    "to_owned",
    "to_string",
    "try_from",
    "try_into",
    "toString",
    "valueOf",
    "toJSON",
    "equals",
    "hashCode",
    "compareTo",
    "String",
    "Error",
    "ToString",
    "Equals",
    "GetHashCode",
    "CompareTo",
    "Dispose",
    "GetEnumerator",
    "to_s",
    "inspect",
    "__toString",
    "description",
    "deinit",
];

/// The methods every type of a language may define to describe, compare or hash its values,
/// which a reader seldom looks up (counted only on a line with a parameter list, so a type
/// named `String` is not one).
const DESCRIBING_METHODS: &[&str] = &[
    "fmt",
    "String",
    "GoString",
    "toString",
    "toJSON",
    "valueOf",
    "equals",
    "hashCode",
    "ToString",
    "Equals",
    "GetHashCode",
    "to_s",
    "inspect",
    "__toString",
    "description",
];

/// Constructor names: a reader seldom looks one up, and a call to one says nothing about
/// which file the caller depends on.
const CONSTRUCTORS: &[&str] = &["constructor", "initialize", "__construct", "init"];

/// Whether `name` is a dunder (`__init__`, `__repr__`).
fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// One mapped file: its path relative to the root and what it defines and refers to.
#[derive(Debug, Clone, Copy)]
pub struct MapFile<'a> {
    /// Path relative to the root.
    pub path: &'a str,
    /// Its symbols, interned in the [`Interner`] given to [`rank`].
    pub symbols: &'a Symbols,
}

/// What re-centres the walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Steering {
    /// `query` words, lower-cased, none empty.
    pub query: Vec<String>,
    /// The identifiers the query may name, as [`identifier_key`] spells them: each word, and
    /// all the words together.
    pub identifiers: Vec<String>,
    /// The query's words as written, and all of them together: a definition spelled exactly
    /// so is named more surely than one whose [`identifier_key`] matches (`Latch` names
    /// `struct Latch` before `mod latch`).
    pub exact: Vec<String>,
    /// `focus` paths relative to the root (`""` is the root itself).
    pub focus: Vec<String>,
    /// The query's words ([`words_of`] each item), distinct, in order.
    pub words: Vec<String>,
}

impl Steering {
    /// Steering from the raw arguments: words and paths separated by spaces or commas.
    /// Focus paths must already be normalized by the caller.
    pub fn new(query: Option<&str>, focus: Vec<String>) -> Steering {
        let query_text = query.unwrap_or_default();
        let items: Vec<&str> = split_list(query_text).collect();
        let query: Vec<String> = items.iter().map(|w| w.to_lowercase()).collect();
        // Among several items, a plain lower-case word (`get comments`) is a word to find in
        // names, not an identifier to lead with; one shaped as an identifier (`parse_args`,
        // `Config`) still names one.
        let single = items.len() == 1;
        let names_one = |item: &&&str| {
            single
                || item.contains(['_', '-'])
                || item.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
        };
        let mut exact: Vec<String> = items
            .iter()
            .filter(names_one)
            .map(|item| (*item).to_owned())
            .collect();
        let mut identifiers: Vec<String> = items
            .iter()
            .filter(names_one)
            .map(|item| identifier_key(item))
            .collect();
        if items.len() > 1 {
            exact.push(items.concat());
            identifiers.push(identifier_key(&query.concat()));
        }
        identifiers.retain(|key| !key.is_empty());
        let mut words: Vec<String> = Vec::new();
        // From the items as written: a capital marks a word (`HTTPRedirect`).
        for word in split_list(query_text).flat_map(words_of) {
            if !words.contains(&word) {
                words.push(word);
            }
        }
        Steering {
            query,
            identifiers,
            exact,
            focus,
            words,
        }
    }

    /// Whether the query names `name` as an identifier (its [`identifier_key`] is one of
    /// the query's, compared without building it). A map asks it only of the names whose key
    /// hash matches one of the query's ([`Interner::with_key_hash`]).
    pub fn names(&self, name: &str) -> bool {
        self.identifiers.iter().any(|key| {
            let mut spelled = identifier_chars(name);
            key.chars().all(|k| spelled.next() == Some(k)) && spelled.next().is_none()
        })
    }
}

/// An identifier as a query may write it: lower-cased, without `_` or `-`, so that snake,
/// kebab and camel spellings of the same words agree.
pub fn identifier_key(name: &str) -> String {
    identifier_chars(name).collect()
}

/// The words of an identifier, lower-cased: split at every character that is not a letter or
/// digit (`_`, `-`, `.`), between a lower-case letter and an upper-case one (`parseArgs`),
/// before the last capital of a run followed by a lower-case letter (`HTTPRedirect` →
/// `http`, `redirect`), and between letters and digits (`rfc3339` → `rfc`, `3339`).
pub fn words_of(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if let Some(&before) = i.checked_sub(1).and_then(|b| chars.get(b)) {
            let next = chars.get(i + 1).copied();
            let boundary = (before.is_lowercase() && c.is_uppercase())
                || (before.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (before.is_alphabetic() && c.is_ascii_digit())
                || (before.is_ascii_digit() && c.is_alphabetic());
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The items of a space- or comma-separated list.
pub fn split_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
}

/// One definition line chosen for a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// 1-based line.
    pub line: u32,
    /// The signature line.
    pub text: String,
    /// References to it (see the module documentation).
    pub weight: f64,
}

/// One ranked file.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedFile {
    /// Path relative to the root.
    pub path: String,
    /// Its PageRank score.
    pub score: f64,
    /// Chosen definitions, heaviest first (ties by line).
    pub definitions: Vec<Shown>,
}

/// A ranking: the files in order, and how many test files a steered map left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ranking {
    /// The ranked files, best first.
    pub files: Vec<RankedFile>,
    /// Test files not listed because the query and focus reach none of them (see [`rank`]).
    pub tests_left_out: usize,
}

/// A file's rank group, compared before its score: it spells an identifier the query spells,
/// defines one the query names, its items' best share of the query's words (tenths), how near
/// the focus it is, and whether it is not a test file.
type Group = (bool, bool, u8, u32, bool);

/// Ranks `files` and chooses their definitions. Files that define nothing take part in the
/// graph but are left out of the result (they have no line to show). A map steered by a
/// query or a focus lists only the test files its steering reaches (see [`reached_tests`]);
/// the others are counted in [`Ranking::tests_left_out`].
pub fn rank(files: &[MapFile<'_>], steering: &Steering, names: &Interner) -> Ranking {
    if files.is_empty() {
        return Ranking::default();
    }
    let graph = Graph::new(files, names);
    let facts = QueryFacts::new(files, steering, names);
    // Each file's best word score, worked out once: the walk's restarts and the order use it.
    let file_words: Vec<f32> = files
        .iter()
        .map(|file| facts.file_word_score(file, names))
        .collect();
    let personalization = personalization(files, steering, &facts, &file_words);
    let scores = graph.pagerank(&personalization);
    let named = |name| facts.has(name, NAMED);
    let steered = |name| {
        if named(name) {
            Some(f64::INFINITY)
        } else {
            let score = facts.word_score(name);
            (score > 0.0).then(|| WORDS_WEIGHT * f64::from(score))
        }
    };
    let near = neighbourhood(files, &steering.focus, names);
    let reached = reached_tests(files, steering, &facts, &near, names);
    let mut tests_left_out = 0;
    // A name defined as an item somewhere leads with those files only, not with a file whose
    // function body or tests declare the same name.
    let named_item = files
        .iter()
        .any(|file| file.symbols.defined.iter().any(|&n| named(n)));
    let defines_named = |symbols: &Symbols| {
        symbols
            .definitions
            .iter()
            .any(|d| named(d.name) && (d.place == Place::Item || !named_item))
    };
    let spells = |symbols: &Symbols| {
        symbols
            .definitions
            .iter()
            .any(|d| d.place == Place::Item && facts.has(d.name, SPELLED))
    };
    // The files defining an identifier the query spells exactly lead, then those defining one
    // it names, then those whose items hold the most of the query's words (rarer words
    // weighing more), then the focused files and the files they depend on, then the rest,
    // each group with its test files last, each by score.
    let mut ranked: Vec<(Group, RankedFile)> = files
        .iter()
        .enumerate()
        .filter(|(_, file)| !file.symbols.definitions.is_empty())
        .filter(|&(b, _)| {
            let listed = reached.get(b).copied().unwrap_or(true);
            tests_left_out += usize::from(!listed);
            listed
        })
        .map(|(b, file)| {
            let test_file = test_path(file.path);
            let group = (
                spells(file.symbols),
                defines_named(file.symbols),
                word_group(file_words[b]),
                near[b],
                !test_file,
            );
            let file = RankedFile {
                path: file.path.to_owned(),
                score: scores[b],
                definitions: graph.choose(file.symbols, &steered, &|d| {
                    test_file || seldom_looked_up(names.name(d.name), &d.text, d.place)
                }),
            };
            (group, file)
        })
        .collect();
    ranked.sort_by(|(xg, x), (yg, y)| {
        yg.cmp(xg)
            .then_with(|| quantized(y.score).cmp(&quantized(x.score)))
            .then_with(|| x.path.cmp(&y.path))
    });
    Ranking {
        files: ranked.into_iter().map(|(_, file)| file).collect(),
        tests_left_out,
    }
}

/// Per file, whether a map lists it: every file when nothing steers the map; else every file
/// that is not a test file ([`test_path`]), and the test files the steering reaches. A test
/// file is reached when it defines an identifier the query names, its path or one of its
/// definitions' names holds a query word (`context_test.go` for `context`), it lies at or
/// near a focus path (`near`), or it uses a name of at least [`NEIGHBOUR_MIN_LEN`] characters
/// that only focused files define, as the tests of the focused code do. The rest of a tree's
/// tests are what a reader of a steered map asked nothing about, yet most of its lines.
fn reached_tests(
    files: &[MapFile<'_>],
    steering: &Steering,
    facts: &QueryFacts,
    near: &[u32],
    names: &Interner,
) -> Vec<bool> {
    if steering.query.is_empty() && steering.focus.is_empty() {
        return vec![true; files.len()];
    }
    // The names only focused files define, hashed as vocabularies keep words.
    let mut focus_only: HashSet<u32> = HashSet::new();
    if near.contains(&u32::MAX) {
        let mut outside: HashSet<NameId> = HashSet::new();
        for (file, &near) in files.iter().zip(near) {
            if near != u32::MAX {
                outside.extend(file.symbols.defined.iter().copied());
            }
        }
        for (file, &near) in files.iter().zip(near) {
            if near == u32::MAX {
                focus_only.extend(
                    file.symbols
                        .defined
                        .iter()
                        .filter(|name| !outside.contains(name))
                        .map(|&name| names.name(name))
                        .filter(|name| name.chars().count() >= NEIGHBOUR_MIN_LEN)
                        .map(super::uses::word_hash),
                );
            }
        }
    }
    files
        .iter()
        .zip(near)
        .map(|(file, &near)| {
            if !test_path(file.path) || near > 0 {
                return true;
            }
            let path = file.path.to_lowercase();
            steering
                .query
                .iter()
                .any(|word| path.contains(word.as_str()))
                || file
                    .symbols
                    .definitions
                    .iter()
                    .any(|d| facts.has(d.name, NAMED) || facts.has(d.name, HAS_WORD))
                || focus_only.iter().any(|&w| file.symbols.words.holds_hash(w))
        })
        .collect()
}

/// One file as its own outline: every definition that is not nested in a function body (nor
/// an include guard), in line order, one per line. Each is weighed for the budget alone, which gives back the
/// heaviest first: a definition the query names, then items before test-only code, and among
/// those the less indented (a type before its methods), then the earlier.
pub fn outline(file: &MapFile<'_>, steering: &Steering, names: &Interner) -> RankedFile {
    let mut definitions: Vec<Shown> = Vec::new();
    for d in &file.symbols.definitions {
        if d.place == Place::Nested
            || include_guard(d.place, &d.text)
            || definitions.iter().any(|s| s.line == d.line)
        {
            continue;
        }
        let weight = if steering.names(names.name(d.name)) {
            f64::INFINITY
        } else {
            let indent = d.text.chars().take_while(|c| c.is_whitespace()).count();
            let item = if d.place == Place::Item { 1e6 } else { 0.0 };
            item + 1e3 / (1.0 + indent as f64)
        };
        definitions.push(Shown {
            line: d.line,
            text: d.text.to_string(),
            weight,
        });
    }
    definitions.sort_by(|x, y| y.weight.total_cmp(&x.weight).then(x.line.cmp(&y.line)));
    RankedFile {
        path: file.path.to_owned(),
        score: 1.0,
        definitions,
    }
}

/// Whether a name is too generic for a reference to it to mean a dependency: a single
/// character (`T`, `f`), a dunder (`__init__`), a standard protocol's method
/// ([`PROTOCOL_METHODS`]) or a constructor ([`CONSTRUCTORS`]). A name defined in more than
/// [`GENERIC_DEFINERS`] files is generic too (the graph counts that).
pub fn generic_name(name: &str) -> bool {
    name.chars().nth(1).is_none()
        || is_dunder(name)
        || PROTOCOL_METHODS.contains(&name)
        || CONSTRUCTORS.contains(&name)
}

/// Whether `path` is a test file, whose definitions a reader seldom looks up (they are shown
/// only when nothing better fits, as are those [`seldom_looked_up`] anywhere): in a `tests`,
/// `test`, `__tests__` or `testdata` directory, or named `test_*.py`, `*_test.*`, `*.test.*`,
/// `*.spec.*`, `conftest.py`, `tests.rs`, `*Test.java` or `*Tests.java` (a `test_client.rs`
/// or `test_helpers.go` is code the tests use, not tests).
fn test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    path.split('/')
        .rev()
        .skip(1)
        .any(|dir| matches!(dir, "tests" | "test" | "__tests__" | "testdata"))
        || (file.starts_with("test_") && file.ends_with(".py"))
        || file == "conftest.py"
        || file == "tests.rs"
        || (file.ends_with("Test.java") || file.ends_with("Tests.java"))
        // The stem before the first dot or the last: `x_test.go`, `context_1.17_test.go`.
        || [file.split('.').next(), file.rsplit_once('.').map(|(stem, _)| stem)]
            .into_iter()
            .flatten()
            .any(|stem| stem.ends_with("_test"))
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// Whether a definition is one a reader seldom looks up wherever it is: one nested in a
/// function body or in test-only code ([`Place`]), an include guard (a declaration written
/// as a `#define`), a test function (`test_*`), an entry point
/// (`main`), a constructor ([`CONSTRUCTORS`]), a method that describes or compares its value
/// ([`DESCRIBING_METHODS`]: `fmt`, Go's `String()`, `toString`) or a dunder method, and an
/// associated type (an indented `type X = …;`).
fn seldom_looked_up(name: &str, text: &str, place: Place) -> bool {
    let associated_type = || {
        let trimmed = text.trim_start();
        trimmed.len() < text.len()
            && (trimmed.starts_with("type ") || trimmed.starts_with("pub type "))
    };
    !matches!(place, Place::Item | Place::Declaration)
        || include_guard(place, text)
        || name.starts_with("test_")
        || name == "main"
        || CONSTRUCTORS.contains(&name)
        || (DESCRIBING_METHODS.contains(&name) && text.contains('('))
        || is_dunder(name)
        || associated_type()
}

/// Whether a definition is an include guard: a declaration written as a `#define` (the C
/// query tags a guard so; any other `#define` is a constant or a macro).
fn include_guard(place: Place, text: &str) -> bool {
    place == Place::Declaration && text.trim_start().starts_with('#')
}

/// What the query says of each name the mapped files define, worked out once per name (a
/// tree holds a hundred thousand definitions of a few tens of thousands of names).
struct QueryFacts {
    /// Per interned name: which of [`NAMED`], [`SPELLED`], [`HAS_WORD`] hold.
    flags: Vec<u8>,
    /// Per interned name: how much of the query's words it holds ([`QueryFacts::word_score`]).
    word_scores: Vec<f32>,
}

/// The query names the identifier ([`Steering::names`]).
const NAMED: u8 = 1;
/// The query spells it exactly (one of [`Steering::exact`]: a word, or all the words together).
const SPELLED: u8 = 2;
/// It contains a query word, case-insensitively.
const HAS_WORD: u8 = 4;

impl QueryFacts {
    fn new(files: &[MapFile<'_>], steering: &Steering, names: &Interner) -> QueryFacts {
        let mut flags = vec![0u8; names.len()];
        if steering.query.is_empty() {
            return QueryFacts {
                flags,
                word_scores: Vec::new(),
            };
        }
        // Asked of every interned name at once (names are prepared for it when interned),
        // not of each definition; only definitions' names are ever asked after.
        let hashes: Vec<u32> = steering
            .identifiers
            .iter()
            .map(|key| hash_chars(key.chars()))
            .collect();
        for id in names.with_key_hash(&hashes) {
            if steering.names(names.name(id))
                && let Some(flag) = flags.get_mut(id.index())
            {
                *flag |= NAMED;
            }
        }
        for exact in &steering.exact {
            if let Some(flag) = names.get(exact).and_then(|id| flags.get_mut(id.index())) {
                *flag |= SPELLED;
            }
        }
        let mut holding = vec![false; names.len()];
        for word in &steering.query {
            names.mark_holding(word, &mut holding);
        }
        for (flag, holds) in flags.iter_mut().zip(holding) {
            if holds {
                *flag |= HAS_WORD;
            }
        }
        let word_scores = word_scores(files, steering, names);
        QueryFacts { flags, word_scores }
    }

    fn has(&self, name: NameId, fact: u8) -> bool {
        self.flags.get(name.index()).is_some_and(|f| f & fact != 0)
    }

    /// The share of the query's words (each weighed by its rarity among the tree's item
    /// names) that the words of `name` hold: 0 for none, 1 for all.
    fn word_score(&self, name: NameId) -> f32 {
        self.word_scores.get(name.index()).copied().unwrap_or(0.0)
    }

    /// The best [`QueryFacts::word_score`] among a file's items a reader looks up: none in a
    /// test file, and none of a definition [`seldom_looked_up`] (`test_redirect` holds the
    /// word, but a query for it is about the code).
    fn file_word_score(&self, file: &MapFile<'_>, names: &Interner) -> f32 {
        if self.word_scores.is_empty() || test_path(file.path) {
            return 0.0;
        }
        file.symbols
            .definitions
            .iter()
            .filter(|d| d.place == Place::Item)
            .map(|d| (d, self.word_score(d.name)))
            .filter(|(d, score)| {
                *score > 0.0 && !seldom_looked_up(names.name(d.name), &d.text, d.place)
            })
            .map(|(_, score)| score)
            .fold(0.0, f32::max)
    }
}

/// Per interned name defined as an item, the share of the query's words its words hold, each
/// query word weighing `ln(1 + N / n)` for `N` distinct item names, `n` of them holding the
/// word (a word no name holds weighs as if one did).
fn word_scores(files: &[MapFile<'_>], steering: &Steering, names: &Interner) -> Vec<f32> {
    let mut scores = vec![0.0f32; names.len()];
    if steering.words.is_empty() {
        return scores;
    }
    // Which query words each distinct item name holds, as a bit set (the first 32 words); a
    // name is split only when it holds one of them as a substring, which few do.
    let mut holding = vec![false; names.len()];
    for word in &steering.words {
        names.mark_holding(word, &mut holding);
    }
    let mut seen = vec![false; names.len()];
    let mut distinct = 0usize;
    let mut held: Vec<(NameId, u32)> = Vec::new();
    for file in files {
        for d in &file.symbols.definitions {
            let Some(seen) = seen.get_mut(d.name.index()) else {
                continue;
            };
            if d.place != Place::Item || *seen {
                continue;
            }
            *seen = true;
            distinct += 1;
            if !holding.get(d.name.index()).copied().unwrap_or(false) {
                continue;
            }
            let name = names.name(d.name);
            let words = words_of(name);
            let bits = steering
                .words
                .iter()
                .take(32)
                .enumerate()
                .filter(|(_, w)| words.contains(w))
                .fold(0u32, |bits, (i, _)| bits | (1 << i));
            if bits != 0 {
                held.push((d.name, bits));
            }
        }
    }
    let total = distinct.max(1) as f64;
    let weights: Vec<f64> = (0..steering.words.len().min(32))
        .map(|i| {
            let holding = held
                .iter()
                .filter(|(_, bits)| *bits & (1 << i) != 0)
                .count();
            (1.0 + total / holding.max(1) as f64).ln()
        })
        .collect();
    let whole: f64 = weights.iter().sum();
    for (name, bits) in held {
        let got: f64 = weights
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .map(|(_, w)| w)
            .sum();
        if let Some(slot) = scores.get_mut(name.index()) {
            *slot = (got / whole) as f32;
        }
    }
    scores
}

/// The rank group of a file's best word score: tenths, so that a file holding all the
/// query's words leads one holding the rarer half, and float noise never decides.
fn word_group(score: f32) -> u8 {
    (score * 10.0).round() as u8
}

/// Per file, how near it is to the focus: [`u32::MAX`] for a file at or below a focus path,
/// 0 for a test file ([`test_path`]), else how many names it alone (among the files that are
/// not tests) defines (of at least [`NEIGHBOUR_MIN_LEN`] characters; at most
/// [`NEIGHBOUR_DEFINERS`] files define each) a focused file uses: refers to, or holds as a
/// word anywhere (its vocabulary: an import, a value, a constant); 0 for the rest.
fn neighbourhood(files: &[MapFile<'_>], focus: &[String], names: &Interner) -> Vec<u32> {
    let focused: Vec<bool> = files
        .iter()
        .map(|file| focus.iter().any(|f| within(file.path, f)))
        .collect();
    if !focused.contains(&true) {
        return vec![0; files.len()];
    }
    // Code depends on code: a test file's definitions (its tests, fixtures and helpers) are
    // what nothing outside the tests uses, so a test file is no neighbour, and a name it
    // shares with the code does not hide the code's definer.
    let tests: Vec<bool> = files.iter().map(|file| test_path(file.path)).collect();
    let mut definers: HashMap<NameId, usize> = HashMap::new();
    for (file, _) in files.iter().zip(&tests).filter(|(_, test)| !**test) {
        for &name in &file.symbols.defined {
            *definers.entry(name).or_default() += 1;
        }
    }
    let sole = |name: &NameId| definers.get(name).is_some_and(|&n| n <= NEIGHBOUR_DEFINERS);
    let referred: HashSet<NameId> = files
        .iter()
        .zip(&focused)
        .filter(|(_, focused)| **focused)
        .flat_map(|(file, _)| file.symbols.references.iter().map(|&(name, _)| name))
        .filter(sole)
        .collect();
    let vocabularies: Vec<&super::uses::Vocabulary> = files
        .iter()
        .zip(&focused)
        .filter(|(_, focused)| **focused)
        .map(|(file, _)| &file.symbols.words)
        .collect();
    let used = |name: NameId| {
        referred.contains(&name)
            || (names.name(name).chars().count() >= NEIGHBOUR_MIN_LEN
                && vocabularies
                    .iter()
                    .any(|words| words.holds(names.name(name))))
    };
    files
        .iter()
        .zip(focused)
        .zip(tests)
        .map(|((file, focused), test)| {
            if focused {
                return u32::MAX;
            }
            if test {
                return 0;
            }
            let count = file
                .symbols
                .defined
                .iter()
                .filter(|name| sole(name) && used(**name))
                .count();
            u32::try_from(count).unwrap_or(u32::MAX)
        })
        .collect()
}

/// A score as an integer, so that float noise never decides an order and ties fall to paths.
fn quantized(score: f64) -> i64 {
    (score * 1e12).round() as i64
}

/// Each file's teleport weight, normalized to sum 1.
fn personalization(
    files: &[MapFile<'_>],
    steering: &Steering,
    facts: &QueryFacts,
    file_words: &[f32],
) -> Vec<f64> {
    let mut weights: Vec<f64> = files
        .iter()
        .zip(file_words)
        .map(|(file, &words)| {
            let mut weight = 1.0;
            if !steering.query.is_empty() {
                let defines = |fact| file.symbols.defined.iter().any(|&n| facts.has(n, fact));
                let words = f64::from(words);
                if defines(NAMED) {
                    weight *= IDENTIFIER_WEIGHT;
                } else if words > 0.0 {
                    // From QUERY_WEIGHT for a few common words to IDENTIFIER_WEIGHT for all.
                    weight *= QUERY_WEIGHT * (IDENTIFIER_WEIGHT / QUERY_WEIGHT).powf(words);
                } else if defines(HAS_WORD) || {
                    let path = file.path.to_lowercase();
                    steering
                        .query
                        .iter()
                        .any(|word| path.contains(word.as_str()))
                } {
                    weight *= QUERY_WEIGHT;
                }
            }
            if steering.focus.iter().any(|f| within(file.path, f)) {
                weight *= FOCUS_WEIGHT;
            }
            weight
        })
        .collect();
    // Steered files (weight above 1) share STEERED_SHARE of the restarts, the others the rest.
    let steered: f64 = weights.iter().filter(|w| **w > 1.0).sum();
    let others = weights.iter().filter(|w| **w <= 1.0).count();
    if steered > 0.0 && others > 0 {
        for w in &mut weights {
            *w = if *w > 1.0 {
                STEERED_SHARE * *w / steered
            } else {
                (1.0 - STEERED_SHARE) / others as f64
            };
        }
    }
    let total: f64 = weights.iter().sum();
    for w in &mut weights {
        *w /= total;
    }
    weights
}

/// Whether `path` is `focus` or lies below it (`""` is the root).
pub fn within(path: &str, focus: &str) -> bool {
    focus.is_empty()
        || path == focus
        || path
            .strip_prefix(focus)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests;
