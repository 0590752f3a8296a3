//! The ranking's rules, each on a tree small enough to reason about.

use super::*;
use crate::fs::map::{Definition, FileTags};

fn tags(defs: &[(&str, u32)], refs: &[&str]) -> FileTags {
    FileTags {
        definitions: defs
            .iter()
            .map(|&(name, line)| Definition {
                name: name.to_owned(),
                line,
                text: format!("def {name}():"),
                place: Place::Item,
                container: None,
            })
            .collect(),
        references: refs.iter().map(|&r| r.to_owned()).collect(),
        reference_lines: Vec::new(),
        imports: Vec::new(),
        ..FileTags::default()
    }
}

fn rank_all(files: &[(&str, FileTags)], steering: &Steering) -> Vec<RankedFile> {
    let mut names = Interner::default();
    let symbols: Vec<Symbols> = files
        .iter()
        .map(|(_, tags)| Symbols::new(tags, &mut names))
        .collect();
    let list: Vec<MapFile<'_>> = files
        .iter()
        .zip(&symbols)
        .map(|((path, _), symbols)| MapFile { path, symbols })
        .collect();
    rank(&list, steering, &names).files
}

fn order(files: &[(&str, FileTags)], steering: &Steering) -> Vec<String> {
    rank_all(files, steering)
        .into_iter()
        .map(|r| r.path)
        .collect()
}

/// A polyglot-shaped tree: two files lean on the hub; one of them also on the util.
fn polyglot() -> Vec<(&'static str, FileTags)> {
    vec![
        (
            "app/cli.py",
            tags(&[("main", 3)], &["frobnicate", "Dispatcher"]),
        ),
        (
            "src/hub.rs",
            tags(&[("frobnicate", 12), ("Dispatcher", 48)], &[]),
        ),
        (
            "web/view.ts",
            tags(&[("render", 1)], &["frobnicate", "Dispatcher", "helper"]),
        ),
        ("lib/util.go", tags(&[("helper", 5)], &[])),
        ("tools/lonely.py", tags(&[("alone", 1)], &[])),
    ]
}

#[test]
fn the_hub_ranks_first_then_what_it_leans_on() {
    assert_eq!(
        order(&polyglot(), &Steering::default()),
        [
            "src/hub.rs",
            "lib/util.go",
            "app/cli.py",
            "tools/lonely.py",
            "web/view.ts"
        ]
    );
}

#[test]
fn files_without_edges_rank_by_path_and_personalization() {
    let files = vec![
        ("b.py", tags(&[("x", 1)], &[])),
        ("a.py", tags(&[("y", 1)], &[])),
    ];
    assert_eq!(order(&files, &Steering::default()), ["a.py", "b.py"]);
    let steer = Steering::new(Some("x"), Vec::new());
    assert_eq!(order(&files, &steer), ["b.py", "a.py"]);
}

#[test]
fn query_recentres_on_paths_and_identifiers() {
    // By identifier (case-insensitive), by path, comma- or space-separated.
    let steer = Steering::new(Some("ALONE"), Vec::new());
    assert_eq!(order(&polyglot(), &steer)[0], "tools/lonely.py");
    let steer = Steering::new(Some("nothing, view"), Vec::new());
    assert_eq!(order(&polyglot(), &steer)[0], "web/view.ts");
    assert_eq!(QUERY_WEIGHT, 10.0);
}

#[test]
fn steered_files_share_the_restarts_by_weight() {
    let files = [
        ("a.py", tags(&[("alpha", 1)], &[])),
        ("b.py", tags(&[("beta", 1)], &[])),
        ("c/d.py", tags(&[("gamma", 1)], &[])),
    ];
    // A word within a name weighs 10, a focus 50: among the steered files, 1 to 5; the one
    // file not steered keeps the rest of the restarts.
    let steer = Steering::new(Some("bet"), vec!["c".to_owned()]);
    let ranked = rank_all(&files, &steer);
    let score = |p: &str| ranked.iter().find(|r| r.path == p).unwrap().score;
    assert!((score("c/d.py") / score("b.py") - 5.0).abs() < 1e-9);
    assert!((score("a.py") - (1.0 - STEERED_SHARE)).abs() < 1e-9);
    assert_eq!(ranked[0].path, "c/d.py");
    // A word naming a definition weighs 100, and its file leads.
    let steer = Steering::new(Some("beta"), vec!["c".to_owned()]);
    let ranked = rank_all(&files, &steer);
    let score = |p: &str| ranked.iter().find(|r| r.path == p).unwrap().score;
    assert!((score("b.py") / score("c/d.py") - 2.0).abs() < 1e-9);
    assert_eq!(ranked[0].path, "b.py");
}

#[test]
fn a_query_naming_an_identifier_leads_with_its_file_and_prints_its_line() {
    // The hub outranks everything unsteered; a query naming the util's helper, in any of
    // its spellings, puts the util first and its definition first within it.
    let mut files = polyglot();
    files.push((
        "lib/more.go",
        tags(&[("shared_thing", 9), ("helperTwo", 20)], &["frobnicate"]),
    ));
    for query in [
        "shared_thing",
        "SharedThing",
        "shared thing",
        "SHARED-THING",
    ] {
        let ranked = rank_all(&files, &Steering::new(Some(query), Vec::new()));
        assert_eq!(ranked[0].path, "lib/more.go", "{query}");
        assert_eq!(ranked[0].definitions[0].line, 9, "{query}");
    }
    // A word found in no name and no path steers nothing: the hub stays first.
    let ranked = rank_all(&files, &Steering::new(Some("zzz"), Vec::new()));
    assert_eq!(ranked[0].path, "src/hub.rs");
}

#[test]
fn focus_names_files_or_directories() {
    let steer = Steering::new(None, vec!["tools".to_owned()]);
    assert_eq!(order(&polyglot(), &steer)[0], "tools/lonely.py");
    let steer = Steering::new(None, vec!["web/view.ts".to_owned()]);
    assert_eq!(order(&polyglot(), &steer)[0], "web/view.ts");
    // A prefix of a name is not a directory.
    let steer = Steering::new(None, vec!["tool".to_owned()]);
    assert_eq!(order(&polyglot(), &steer)[0], "src/hub.rs");
}

#[test]
fn definitions_heaviest_first_and_unreferenced_last() {
    let files = polyglot();
    let ranked = rank_all(&files, &Steering::default());
    let hub = &ranked[0];
    assert_eq!(
        hub.definitions
            .iter()
            .map(|d| (d.line, d.weight))
            .collect::<Vec<_>>(),
        [(12, 2.0), (48, 2.0)]
    );
    // Unreferenced, a definition weighs 0; an entry point, less than any other.
    let lonely = ranked.iter().find(|r| r.path == "tools/lonely.py").unwrap();
    assert_eq!(lonely.definitions[0].weight, 0.0);
    let cli = ranked.iter().find(|r| r.path == "app/cli.py").unwrap();
    assert_eq!(cli.definitions[0].weight, -1.0);
}

/// Whether the ranking shows a definition only when nothing better fits.
fn incidental(path: &str, name: &str, text: &str, place: Place) -> bool {
    test_path(path) || seldom_looked_up(name, text, place)
}

#[test]
fn incidental_definitions() {
    for (path, name, text) in [
        ("tests/it.rs", "helper", "fn helper() {"),
        ("src/x/test/a.py", "f", "def f():"),
        ("pkg/test_io.py", "f", "def f():"),
        ("pkg/io_test.go", "F", "func F() {"),
        ("context/context_1.17_test.go", "F", "func F() {"),
        ("src/parser/tests.rs", "f", "fn f() {"),
        ("src/test/java/ListTest.java", "f", "void f() {"),
        ("java/util/MapTests.java", "f", "void f() {"),
        ("web/a.test.ts", "f", "function f() {"),
        ("web/a.spec.ts", "f", "function f() {"),
        ("conftest.py", "fixture", "def fixture():"),
        ("src/a.py", "test_reads", "def test_reads():"),
        ("src/main.rs", "main", "fn main() {"),
        ("src/a.py", "__init__", "    def __init__(self):"),
        ("src/a.ts", "constructor", "  constructor() {"),
        ("lib/a.rb", "initialize", "  def initialize(x)"),
        (
            "src/A.php",
            "__construct",
            "    public function __construct() {",
        ),
        ("Sources/A.swift", "init", "    init(x: Int) {"),
        ("src/ser.rs", "Ok", "    type Ok = ();"),
    ] {
        assert!(incidental(path, name, text, Place::Item), "{path} {name}");
    }
    // Where the syntax tree puts a definition decides, whatever its indentation.
    for place in [Place::Nested, Place::Test] {
        assert!(incidental("src/de.rs", "Visitor", "struct Visitor;", place));
    }
    // A declaration is looked up as its definition is; an include guard is not.
    assert!(!incidental("a.h", "f", "int f(void);", Place::Declaration));
    assert!(incidental("a.h", "A_H", "#define A_H", Place::Declaration));
    assert!(!incidental(
        "src/de.rs",
        "Visitor",
        "            pub struct Visitor;",
        Place::Item
    ));
    for (path, name, text) in [
        ("src/testing.rs", "Harness", "pub struct Harness {"),
        ("src/latest.py", "f", "def f():"),
        ("src/a.py", "__", "def __(x):"),
        (
            "src/a.rs",
            "Error",
            "pub type Error = Box<dyn std::error::Error>;",
        ),
        ("src/a.py", "run", "    def run(self):"),
        (
            "src/test_helpers/test_client.rs",
            "TestClient",
            "pub struct TestClient {",
        ),
        ("src/contest.rs", "f", "fn f() {"),
        ("src/a.rs", "guard", "#define A_H"),
    ] {
        assert!(!incidental(path, name, text, Place::Item), "{path} {name}");
    }
}

#[test]
fn a_name_is_shared_among_its_definers() {
    // `new` is defined in three files and called often; each file's own class wins.
    let files = [
        ("a.py", tags(&[("new", 2), ("Alpha", 5)], &[])),
        ("b.py", tags(&[("new", 2), ("Beta", 5)], &[])),
        ("c.py", tags(&[("new", 2), ("Gamma", 5)], &[])),
        (
            "user.py",
            tags(
                &[("run", 1)],
                &["new", "new", "new", "Alpha", "Alpha", "Beta"],
            ),
        ),
    ];
    let ranked = rank_all(&files, &Steering::default());
    let a = ranked.iter().find(|r| r.path == "a.py").unwrap();
    // Counted alone, `new` (3 references) would beat `Alpha` (2); shared, it weighs 1.
    assert_eq!(a.definitions[0].line, 5, "{a:?}");
    assert_eq!(a.definitions[1].weight, 1.0);
}

#[test]
fn a_name_most_of_the_map_refers_to_is_set_aside() {
    let mut files = vec![(
        "core.py",
        tags(&[("new", 2), ("Core", 1), ("only", 9)], &[]),
    )];
    let names: Vec<String> = (0..10).map(|i| format!("f{i:02}.py")).collect();
    for (i, name) in names.iter().enumerate() {
        let refs: &[&str] = if i < 6 { &["new", "new"] } else { &[] };
        files.push((name.as_str(), tags(&[("x", 1)], refs)));
    }
    // `Core` is used by one file.
    files[1].1.references.push("Core".to_owned());
    let ranked = rank_all(&files, &Steering::default());
    let core = ranked.iter().find(|r| r.path == "core.py").unwrap();
    assert_eq!(
        core.definitions.iter().map(|d| d.line).collect::<Vec<_>>(),
        [1, 9],
        "new (line 2) is set aside"
    );
    // Below the threshold of files, nothing is set aside.
    let few = &files[..5];
    let ranked = rank_all(few, &Steering::default());
    let core = ranked.iter().find(|r| r.path == "core.py").unwrap();
    assert_eq!(core.definitions[0].line, 2);
}

#[test]
fn a_file_whose_every_name_is_set_aside_still_shows_them() {
    let mut files = vec![("core.py", tags(&[("new", 2)], &[]))];
    let names: Vec<String> = (0..10).map(|i| format!("f{i:02}.py")).collect();
    for name in &names {
        files.push((name.as_str(), tags(&[("x", 1)], &["new"])));
    }
    let ranked = rank_all(&files, &Steering::default());
    let core = ranked.iter().find(|r| r.path == "core.py").unwrap();
    assert_eq!(core.definitions.len(), 1);
}

#[test]
fn one_line_per_definition_and_a_cap_per_file() {
    let defs: Vec<(String, u32)> = (1..=20).map(|i| (format!("d{i}"), i)).collect();
    let mut file = tags(&[], &[]);
    for (name, line) in &defs {
        file.definitions.push(Definition {
            name: name.clone(),
            line: *line,
            text: String::new(),
            place: Place::Item,
            container: None,
        });
    }
    file.definitions.push(Definition {
        name: "twin".into(),
        line: 1,
        text: String::new(),
        place: Place::Item,
        container: None,
    });
    let ranked = rank_all(&[("a.rs", file)], &Steering::default());
    let lines: Vec<u32> = ranked[0].definitions.iter().map(|d| d.line).collect();
    assert_eq!(lines, (1..=12).collect::<Vec<_>>());
}

#[test]
fn raku_imports_are_edges_to_module_files() {
    let mut user = tags(&[("main", 1)], &[]);
    user.imports.push("Foo::Bar".to_owned());
    let files = vec![
        ("bin/app.raku", user),
        ("lib/Foo/Bar.rakumod", tags(&[("bar", 1)], &[])),
        ("lib/Foo/Baz.rakumod", tags(&[("baz", 1)], &[])),
    ];
    assert_eq!(
        order(&files, &Steering::default()),
        ["lib/Foo/Bar.rakumod", "bin/app.raku", "lib/Foo/Baz.rakumod"]
    );
}

#[test]
fn files_defining_nothing_are_not_listed() {
    let files = vec![
        ("a.py", tags(&[], &["x"])),
        ("b.py", tags(&[("x", 1)], &[])),
    ];
    assert_eq!(order(&files, &Steering::default()), ["b.py"]);
    assert!(order(&[], &Steering::default()).is_empty());
}

#[test]
fn lists_split_on_spaces_and_commas() {
    assert_eq!(
        split_list(" a,b  c,,d ").collect::<Vec<_>>(),
        ["a", "b", "c", "d"]
    );
}

#[test]
fn a_query_spelling_a_name_exactly_leads_with_its_definer() {
    // `lib.rs` declares `mod latch` and is the hub; `latch.rs` defines `Latch`. Both match the
    // query's key; the exact spelling decides.
    let files = [
        ("lib.rs", tags(&[("latch", 1), ("run", 2)], &[])),
        ("latch.rs", tags(&[("Latch", 1)], &[])),
        ("a.rs", tags(&[("a", 1)], &["run", "Latch"])),
        ("b.rs", tags(&[("b", 1)], &["run"])),
    ];
    let first = |query: &str| {
        rank_all(&files, &Steering::new(Some(query), Vec::new()))[0]
            .path
            .clone()
    };
    assert_eq!(first("Latch"), "latch.rs");
    assert_eq!(first("latch"), "lib.rs");
}

#[test]
fn a_named_item_is_shown_before_a_named_nested_definition() {
    let mut builder = tags(&[("event_interval", 10)], &[]);
    builder.definitions.insert(
        0,
        Definition {
            name: "EVENT_INTERVAL".into(),
            line: 5,
            text: "        const EVENT_INTERVAL: u32 = 4;".into(),
            place: Place::Nested,
            container: None,
        },
    );
    let files = [
        ("builder.rs", builder),
        ("a.rs", tags(&[], &["event_interval"])),
    ];
    let ranked = rank_all(&files, &Steering::new(Some("event_interval"), Vec::new()));
    let lines: Vec<u32> = ranked[0].definitions.iter().map(|d| d.line).collect();
    assert_eq!(lines, [10, 5]);
}

#[test]
fn identifiers_split_into_their_words() {
    for (name, words) in [
        ("parse_rfc3339", &["parse", "rfc", "3339"][..]),
        ("parseFromRfc3339", &["parse", "from", "rfc", "3339"]),
        ("HTTPRedirectHandler", &["http", "redirect", "handler"]),
        ("redirect_request", &["redirect", "request"]),
        ("__init__", &["init"]),
        ("is-prime", &["is", "prime"]),
        ("URL", &["url"]),
        ("utf8Decode", &["utf", "8", "decode"]),
        ("Café_au_lait", &["café", "au", "lait"]),
    ] {
        assert_eq!(words_of(name), words, "{name}");
    }
    let steering = Steering::new(Some("urlopen, HTTPRedirect"), Vec::new());
    assert_eq!(steering.words, ["urlopen", "http", "redirect"]);
}
