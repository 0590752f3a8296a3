#![allow(clippy::disallowed_methods)]
//! `fs_map` over the real binary: a polyglot tree whose ranking has one right answer, the
//! reference layout, query and focus re-centring the map, the budget (whole files, least
//! referenced definitions first, the summary line always last), the refusals, the directories
//! never descended into, and a map that follows an edit.
//!
//! The parse cache (a second map of an unchanged tree parses nothing) is counted by the
//! engine's own unit test, which can see its parse counter.

mod support;

use serde_json::{Value, json};
use support::fs::*;
use support::*;

const HUB: &str = "import os


def frobnicate(value):
    \"\"\"Doubles a value.\"\"\"
    return value * 2


class Dispatcher:
    def dispatch(self, event):
        return frobnicate(event)
";

/// Five files in four languages: three lean on `core/hub.py`, one of them also on
/// `lib/util.go`; nothing refers to the other three, which therefore tie and sort by path.
/// Around them, copies of those names the map must not see (under `node_modules` and `.tox`,
/// which the root itself excludes, and a tagged cache and a virtualenv, which the map passes
/// over and names), a text file and a file that is not UTF-8.
fn polyglot() -> Tree {
    Tree::new()
        .file("core/hub.py", HUB)
        .file(
            "app/cli.py",
            "from core.hub import frobnicate, Dispatcher\n\n\ndef main(argv):\n    dispatcher = Dispatcher()\n    return frobnicate(argv)\n",
        )
        .file(
            "web/view.ts",
            "import { frobnicate } from '../core/hub';\nimport { helper } from '../lib/util';\n\nexport function render(x: number): number {\n  return frobnicate(x) + helper(x);\n}\n",
        )
        .file(
            "native/worker.rs",
            "pub fn run() -> i32 {\n    let dispatcher = Dispatcher::new();\n    frobnicate(1)\n}\n",
        )
        .file(
            "lib/util.go",
            "package util\n\nfunc helper(x int) int {\n\treturn x\n}\n",
        )
        .file(
            "node_modules/dep/index.py",
            "def frobnicate(v):\n    pass\n",
        )
        .file("target/CACHEDIR.TAG", CACHEDIR_TAG)
        .file("target/gen.py", "def generated():\n    frobnicate(1)\n")
        .file("target/dep/util.go", "package dep\n\nfunc helper(x int) int {\n\treturn x\n}\n")
        .file("env/pyvenv.cfg", "home = /usr/bin\n")
        .file("env/lib/site.py", "def frobnicate(v):\n    pass\n")
        .file(".tox/x.py", "def hidden():\n    frobnicate(1)\n")
        .file("notes.txt", "not code\n")
        .file("blob.py", b"def \xff\xfe(x):\n".as_slice())
}

/// A cache directory's tag (the Cache Directory Tagging convention), as Cargo writes it.
const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55
# This file is a cache directory tag created by cargo.
";

const POLYGLOT_MAP: &str = "core/hub.py:
   4: def frobnicate(value):
⋮
   9: class Dispatcher:
  10:     def dispatch(self, event):

lib/util.go:
   3: func helper(x int) int {

app/cli.py:
   4: def main(argv):

native/worker.rs:
   1: pub fn run() -> i32 {

web/view.ts:
   4: export function render(x: number): number {

[mapped 5 files (2 skipped: unsupported/binary/too-large), 7 definitions; ranked by references; passed over 2 directories their marker files name as caches or virtualenvs: 'env' (pyvenv.cfg), 'target' (CACHEDIR.TAG); give one as path to include it]";

fn map(server: &mut Server, args: Value) -> String {
    fs_text(server, "fs_map", args)
}

/// The files of a map, in order.
fn files_of(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.strip_suffix(':'))
        .filter(|line| !line.starts_with(' '))
        .collect()
}

fn summary_of(text: &str) -> &str {
    text.lines().last().expect("a summary line")
}

#[test]
fn a_polyglot_tree_has_one_right_ranking() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    assert_eq!(map(&mut server, json!({"path": "."})), POLYGLOT_MAP);
    // Mapping again answers the same (from the cache).
    assert_eq!(map(&mut server, json!({"max-chars": 8192})), POLYGLOT_MAP);
}

#[test]
fn line_numbers_pair_with_read() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({}));
    let mut file = "";
    for line in text.lines() {
        if let Some(path) = line.strip_suffix(':').filter(|l| !l.starts_with(' ')) {
            file = path;
        } else if let Some((number, signature)) = line.trim_start().split_once(": ") {
            let Ok(number) = number.parse::<u64>() else {
                continue;
            };
            let window = fs_text(
                &mut server,
                "fs_read",
                json!({"path": file, "offset": number, "limit": 1}),
            );
            assert!(
                window.starts_with(&format!("{number}\t{signature}\n")),
                "{file}:{number}: {window}"
            );
        }
    }
}

#[test]
fn query_and_focus_recentre_the_map() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    let first = |server: &mut Server, args: Value| files_of(&map(server, args))[0].to_owned();
    assert_eq!(first(&mut server, json!({})), "core/hub.py");
    // A defined identifier, a path word; comma- or space-separated.
    assert_eq!(
        first(&mut server, json!({"query": "render"})),
        "web/view.ts"
    );
    assert_eq!(
        first(&mut server, json!({"query": "nothing, util"})),
        "lib/util.go"
    );
    assert_eq!(first(&mut server, json!({"query": "zzz"})), "core/hub.py");
    // A directory or a file.
    assert_eq!(first(&mut server, json!({"focus": "lib"})), "lib/util.go");
    // A focused file comes first, then what it leans on.
    assert_eq!(
        files_of(&map(&mut server, json!({"focus": "app/cli.py"}))),
        [
            "app/cli.py",
            "core/hub.py",
            "lib/util.go",
            "native/worker.rs",
            "web/view.ts"
        ]
    );
    // Re-centring reorders; it never filters.
    let focused = map(&mut server, json!({"focus": "lib"}));
    assert_eq!(files_of(&focused).len(), 5);
    assert_eq!(summary_of(&focused), summary_of(POLYGLOT_MAP));
}

/// A tree whose hub outranks everything unsteered, with a small file defining `make_widget`
/// (line 5) among others, referred to from one file only.
fn hub_and_widget() -> Tree {
    let mut tree = polyglot();
    tree = tree.file(
        "src/widget.py",
        "import os\n\n\ndef other():\n    pass\ndef make_widget(size):\n    return size\n",
    );
    tree.file(
        "src/use.py",
        "from src.widget import make_widget\n\n\ndef build():\n    return make_widget(3)\n",
    )
}

#[test]
fn a_query_naming_an_identifier_leads_with_its_file_and_its_line() {
    let tree = hub_and_widget();
    let mut server = fs_server(&tree);
    assert_eq!(files_of(&map(&mut server, json!({})))[0], "core/hub.py");
    // Exactly, or by its words in snake, camel or spaced form.
    for query in ["make_widget", "makeWidget", "MakeWidget", "make widget"] {
        let text = map(&mut server, json!({"query": query}));
        assert_eq!(files_of(&text)[0], "src/widget.py", "{query}: {text}");
        let (first, _) = text.split_once("\n\n").expect("a blank line after a file");
        assert!(
            first
                .lines()
                .any(|l| l.trim_start() == "6: def make_widget(size):"),
            "{query}: {text}"
        );
    }
}

/// The grammars the default build leaves out (Cargo.toml's `lang-*` features), each with the
/// language's name, in the order the map's note counts them: tests built without one check
/// what the map says instead, and say so.
const OPTIONAL: [(&str, &str, bool); 4] = [
    ("lang-ruby", "Ruby", cfg!(feature = "lang-ruby")),
    ("lang-php", "PHP", cfg!(feature = "lang-php")),
    ("lang-kotlin", "Kotlin", cfg!(feature = "lang-kotlin")),
    ("lang-swift", "Swift", cfg!(feature = "lang-swift")),
];

/// Whether this build reads `language` (one of [`OPTIONAL`], or any other, always built in).
fn built_in(language: &str) -> bool {
    OPTIONAL
        .iter()
        .find(|(_, name, _)| *name == language)
        .is_none_or(|(_, _, built)| *built)
}

/// One file in each of C#, Ruby (named by its file name alone), PHP, Kotlin and Swift: each
/// is mapped with its definitions, and a query naming the Kotlin method leads with its file
/// and line. A language this build leaves out is counted in the summary's note instead, with
/// the feature that would read it.
#[test]
fn csharp_ruby_php_kotlin_and_swift_are_mapped_or_said_to_be_left_out() {
    let files = [
        (
            "C#",
            "src/Billing.cs",
            "namespace Shop\n{\n    public class Invoice\n    {\n        public decimal Total() => 0;\n    }\n}\n",
            "3:     public class Invoice",
        ),
        (
            "Ruby",
            "Rakefile",
            "module Ledger\n  def self.post(entry)\n    entry\n  end\nend\n",
            "2:   def self.post(entry)",
        ),
        (
            "PHP",
            "web/cart.php",
            "<?php\n\nfunction cart_total(array $items): int\n{\n    return count($items);\n}\n",
            "3: function cart_total(array $items): int",
        ),
        (
            "Kotlin",
            "app/Shipping.kt",
            "package shop\n\nclass Shipping {\n    fun quoteRate(weight: Int): Int = weight * 2\n}\n",
            "4:     fun quoteRate(weight: Int): Int = weight * 2",
        ),
        (
            "Swift",
            "ios/Wallet.swift",
            "struct Wallet {\n    func balance() -> Int { 0 }\n}\n",
            "2:     func balance() -> Int { 0 }",
        ),
    ];
    let tree = files
        .iter()
        .fold(Tree::new(), |tree, (_, path, source, _)| {
            tree.file(path, source)
        });
    let mut server = fs_server(&tree);
    // The lines shown under a file's heading, up to the blank line after them.
    let shown = |text: &str, file: &str| -> Vec<String> {
        text.lines()
            .skip_while(|line| *line != format!("{file}:"))
            .skip(1)
            .take_while(|line| !line.is_empty())
            .map(|line| line.trim_start().to_owned())
            .collect()
    };
    let text = map(&mut server, json!({}));
    for (language, file, _, line) in files {
        if built_in(language) {
            assert!(
                shown(&text, file).iter().any(|l| l == line),
                "{file}: {text}"
            );
        } else {
            assert!(!text.contains(&format!("{file}:")), "{file}: {text}");
            eprintln!("skipped: mapping {language} (not in this build); checked its note instead");
        }
    }
    let left_out: Vec<_> = OPTIONAL.iter().filter(|(_, _, built)| !built).collect();
    let summary = summary_of(&text);
    let mapped = 5 - left_out.len();
    let noun = if mapped == 1 { "file" } else { "files" };
    assert!(
        summary.starts_with(&format!("[mapped {mapped} {noun} ")),
        "{text}"
    );
    if left_out.is_empty() {
        assert!(!summary.contains("no grammar"), "{summary}");
    } else {
        let counted: Vec<String> = left_out
            .iter()
            .map(|(_, name, _)| format!("1 {name} file"))
            .collect();
        let features: Vec<&str> = left_out.iter().map(|(feature, _, _)| *feature).collect();
        let note = format!(
            "; no grammar in this build for {} (cargo feature{} {})]",
            counted.join(", "),
            if features.len() == 1 { "" } else { "s" },
            features.join(", ")
        );
        assert!(summary.ends_with(&note), "{summary}\nwanted: {note}");
    }
    if built_in("Kotlin") {
        let text = map(&mut server, json!({"query": "quote rate"}));
        assert_eq!(files_of(&text)[0], "app/Shipping.kt", "{text}");
        assert!(
            shown(&text, "app/Shipping.kt")
                .iter()
                .any(|l| l == files[3].3),
            "{text}"
        );
    } else {
        eprintln!("skipped: a query leading with a Kotlin file (Kotlin not in this build)");
    }
}

#[test]
fn a_focus_is_read_relative_to_the_root_then_to_path_and_one_naming_nothing_is_reported() {
    let tree = hub_and_widget();
    let mut server = fs_server(&tree);
    // Relative to the root, and, naming nothing there, relative to `path`.
    for args in [
        json!({"path": "src", "focus": "src/use.py"}),
        json!({"path": "src", "focus": "use.py"}),
    ] {
        let text = map(&mut server, args.clone());
        assert_eq!(files_of(&text)[0], "src/use.py", "{args}: {text}");
        assert!(!summary_of(&text).contains("focus"), "{args}: {text}");
    }
    // The file it depends on comes next.
    let text = map(&mut server, json!({"path": "src", "focus": "use.py"}));
    assert_eq!(files_of(&text), ["src/use.py", "src/widget.py"], "{text}");
    // A focus naming nothing either way is said, not ignored.
    let text = map(
        &mut server,
        json!({"path": "src", "focus": "nope.py, use.py"}),
    );
    assert!(
        summary_of(&text).ends_with("; focus names no mapped file: 'nope.py']"),
        "{text}"
    );
}

/// A Rust crate where the code a reader looks up hides from a naive map: `net.rs` defines
/// `TcpListener` inside a `cfg_net! { … }` invocation; `de.rs` declares a `Visitor` inside a
/// function body and tests in a `#[cfg(test)]` module, while the `Visitor` the others use is
/// `visitor.rs`'s trait; every file names the generic parameter `T`, which `gen.rs` happens
/// to declare as a struct; and `Config`, from `config.rs`, is used once in three files.
fn hidden_items() -> Tree {
    let user = |n: usize| {
        format!(
            "pub fn use{n}<T: Visitor>(t: T, c: Config) -> T {{\n    let l = TcpListener::bind(c);\n    let v: Vec<T> = Vec::new();\n    let w: Option<T> = None;\n    t\n}}\n"
        )
    };
    Tree::new()
        .file(
            "src/net.rs",
            "cfg_net! {\n    /// A listener.\n    pub struct TcpListener {\n        fd: i32,\n    }\n\n    impl TcpListener {\n        pub fn bind(c: Config) -> TcpListener {\n            TcpListener { fd: 0 }\n        }\n    }\n}\n",
        )
        .file(
            "src/de.rs",
            "pub fn deserialize() {\n    struct Visitor;\n    struct Config;\n}\n\n#[cfg(test)]\nmod tests {\n    struct TcpListener;\n    #[test]\n    fn decodes() {}\n}\n",
        )
        .file("src/visitor.rs", "pub trait Visitor {\n    fn visit(&self);\n}\n")
        .file("src/config.rs", "pub struct Config {\n    pub port: u16,\n}\n")
        .file("src/gen.rs", "pub struct T;\n")
        .file("src/a.rs", user(1))
        .file("src/b.rs", user(2))
        .file("src/c.rs", user(3))
}

#[test]
fn items_in_macro_bodies_are_mapped_and_nested_test_and_generic_names_lead_nowhere() {
    let tree = hidden_items();
    let mut server = fs_server(&tree);
    // The item inside `cfg_net! { … }` is found by name, its line printed.
    let text = map(&mut server, json!({"query": "TcpListener"}));
    assert_eq!(files_of(&text)[0], "src/net.rs", "{text}");
    // `de.rs`'s test-only `TcpListener` does not lead with it.
    assert!(!files_of(&text)[..4].contains(&"src/de.rs"), "{text}");
    assert!(
        text.contains("src/net.rs:\n  3:     pub struct TcpListener {\n"),
        "{text}"
    );
    // The plain map: the files the others lean on lead; `de.rs`, whose `Visitor`, `Config` and
    // `TcpListener` are local to a function or test-only, and `gen.rs`, whose `T` is every
    // file's generic parameter, come last.
    let text = map(&mut server, json!({}));
    let files = files_of(&text);
    assert_eq!(files.len(), 8, "{text}");
    let position = |path: &str| files.iter().position(|f| *f == path).unwrap();
    for lead in ["src/net.rs", "src/config.rs", "src/visitor.rs"] {
        for behind in ["src/de.rs", "src/gen.rs"] {
            assert!(
                position(lead) < position(behind),
                "{lead} before {behind}: {text}"
            );
        }
    }
    // `de.rs` shows its function, not what the function or its tests declare: those label a
    // file that has nothing else to show, and never fill one.
    let de = text.split("src/de.rs:\n").nth(1).unwrap();
    let de = de.split("\n\n").next().unwrap();
    assert_eq!(
        de.lines().collect::<Vec<_>>(),
        ["  1: pub fn deserialize() {"],
        "{text}"
    );
}

#[test]
fn a_file_maps_as_its_outline() {
    let source = "use std::fmt;\n\npub struct Parser {\n    depth: u32,\n}\n\nimpl Parser {\n    pub fn new() -> Parser {\n        fn helper() {}\n        Parser { depth: 0 }\n    }\n\n    pub fn parse(&self) -> u32 {\n        self.depth\n    }\n}\n\npub enum Kind {\n    A,\n}\n\npub fn top() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn parses() {}\n}\n";
    let tree = Tree::new().file("src/parse.rs", source).file(
        "src/user.rs",
        "pub fn run() { let p = Parser::new(); p.parse(); top(); }\n",
    );
    let mut server = fs_server(&tree);
    // Every definition not nested in a function body, in line order (the directory's map
    // shows at most 12 per file, ranked; the outline shows all).
    let text = map(&mut server, json!({"path": "src/parse.rs"}));
    assert_eq!(
        text,
        "src/parse.rs:\n   3: pub struct Parser {\n⋮\n   8:     pub fn new() -> Parser {\n⋮\n  13:     pub fn parse(&self) -> u32 {\n⋮\n  18: pub enum Kind {\n⋮\n  22: pub fn top() {}\n⋮\n  25: mod tests {\n⋮\n  27:     fn parses() {}\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 7 definitions; the file's outline]"
    );
    // Within a small budget the outline keeps the module-level items, and says what it left.
    let mut long = String::new();
    for i in 0..60 {
        long.push_str(&format!(
            "pub struct Item{i} {{\n    x: u32,\n}}\n\nimpl Item{i} {{\n    pub fn method_with_a_long_name_{i}(&self, argument: u32) -> u32 {{\n        argument\n    }}\n}}\n\n"
        ));
    }
    let tree = Tree::new().file("big.rs", long);
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({"path": "big.rs", "max-chars": 2048}));
    let shown: Vec<&str> = text.lines().filter(|l| l.contains(": pub ")).collect();
    assert!(!shown.is_empty(), "{text}");
    assert!(
        shown.iter().all(|l| l.contains(": pub struct Item")),
        "top-level items go before methods: {text}"
    );
    let lines: Vec<u32> = shown
        .iter()
        .map(|l| l.split(':').next().unwrap().trim().parse().unwrap())
        .collect();
    assert!(
        lines.windows(2).all(|w| w[0] < w[1]),
        "in line order: {text}"
    );
    assert!(text.contains("\n⋮\n"), "gaps are marked: {text}");
    assert!(
        summary_of(&text).contains("; the file's outline; left out by max-chars: "),
        "{text}"
    );
}

#[test]
fn a_path_maps_only_what_is_below_it() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    assert_eq!(
        map(&mut server, json!({"path": "lib"})),
        "lib/util.go:\n  3: func helper(x int) int {\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 1 definition; ranked by references]"
    );
    assert_eq!(
        files_of(&map(&mut server, json!({"path": "core/hub.py"}))),
        ["core/hub.py"]
    );
    // A directory the map passes over is mapped when named explicitly.
    assert_eq!(
        files_of(&map(&mut server, json!({"path": "target"}))),
        ["target/dep/util.go", "target/gen.py"]
    );
}

#[test]
fn a_tree_without_code_answers_with_the_summary() {
    let tree = Tree::new().file("a.txt", "x\n").file("b.md", "# b\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        map(&mut server, json!({})),
        "[mapped 0 files (2 skipped: unsupported/binary/too-large), 0 definitions; ranked by references]"
    );
}

#[test]
fn refusals() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    let refused = |server: &mut Server, args: Value| fs_error(server, "fs_map", args);
    assert_eq!(
        refused(&mut server, json!({"max-chars": 511})),
        schema_error("fs_map", "data/max-chars must be >= 512")
    );
    assert_eq!(
        refused(&mut server, json!({"max-chars": 65537})),
        schema_error("fs_map", "data/max-chars must be <= 65536")
    );
    assert_eq!(
        refused(&mut server, json!({"query": 3})),
        schema_error("fs_map", "data/query must be string")
    );
    assert_eq!(
        refused(&mut server, json!({"path": "nope"})),
        does_not_exist("nope")
    );
    assert_eq!(
        refused(&mut server, json!({"path": "../x"})),
        invalid_path("../x")
    );
    assert_eq!(
        refused(&mut server, json!({"focus": "lib ../x"})),
        invalid_path("../x")
    );
    // A file the map cannot read is an answer, not a refusal.
    assert_eq!(
        map(&mut server, json!({"path": "notes.txt"})),
        "[mapped 0 files (1 skipped: unsupported/binary/too-large), 0 definitions; ranked by references]"
    );
}

/// Many files that all lean on one module, each defining a few long-named functions.
fn big_tree(files: usize) -> Tree {
    let mut tree = Tree::new().file(
        "core/base.py",
        "def shared_entry_point(request, response, context):\n    pass\n\n\ndef another_shared_helper(value):\n    pass\n",
    );
    for i in 0..files {
        let mut source = String::new();
        for k in 0..6 {
            source.push_str(&format!(
                "def module_{i:03}_function_with_a_long_name_{k}(first_argument, second_argument):\n    shared_entry_point(1, 2, 3)\n    another_shared_helper(module_{:03}_function_with_a_long_name_{k}(0, 0))\n\n\n",
                (i + 1) % files
            ));
        }
        tree = tree.file(&format!("pkg/mod_{i:03}.py"), source);
    }
    tree
}

#[test]
fn the_budget_is_spent_whole_files_at_a_time() {
    let tree = big_tree(60);
    let mut server = fs_server(&tree);
    let full = map(&mut server, json!({"max-chars": 65536}));
    assert!(
        !summary_of(&full).contains("left out"),
        "{}",
        summary_of(&full)
    );
    assert!(full.chars().count() <= 65536);
    let mut previous_files = 0;
    for max in [512, 1024, 2048, 4096, 8192, 16384, 65536] {
        let text = map(&mut server, json!({"max-chars": max}));
        assert!(
            text.chars().count() <= max,
            "{max}: {}",
            text.chars().count()
        );
        let summary = summary_of(&text);
        assert!(
            summary.starts_with("[mapped 61 files (0 skipped: unsupported/binary/too-large), "),
            "{summary}"
        );
        assert!(summary.ends_with(']'));
        // Every printed file is a prefix of the full ranking, and each printed block is
        // a subset of the file's block in the full map (lines cut, never half a line).
        let files = files_of(&text);
        assert_eq!(files, files_of(&full)[..files.len()], "{max}");
        for line in text.lines().filter(|l| l.starts_with("  ")) {
            assert!(
                full.lines().any(|l| l.trim_start() == line.trim_start()),
                "{line}"
            );
        }
        if max < 8192 {
            assert!(summary.contains("; left out by max-chars: "), "{summary}");
        }
        // A larger budget never shows fewer files.
        assert!(files.len() >= previous_files, "{max}");
        previous_files = files.len();
    }
    // The base module, which everything leans on, leads at every budget.
    let small = map(&mut server, json!({"max-chars": 512}));
    assert_eq!(files_of(&small)[0], "core/base.py");
    assert!(summary_of(&small).contains(" files"), "{small}");
}

#[test]
fn the_answer_stays_within_the_result_limit() {
    let tree = big_tree(150);
    let mut server = fs_server_with(&tree, &["--max-result-bytes", "48000"]);
    let text = map(&mut server, json!({"max-chars": 65536}));
    let escaped = serde_json::to_string(&text).unwrap().len();
    assert!(escaped < 48000, "{escaped}");
    assert!(
        summary_of(&text).contains("; left out by max-chars: "),
        "{}",
        summary_of(&text)
    );
}

#[test]
fn a_remembered_walk_still_sees_what_changes_outside() {
    // The map's walk (pruned by its own rule) is replayed while nothing changes; a file added
    // or removed from outside the server is seen, and one added where the map never looks
    // is not.
    let tree = polyglot();
    let mut server = fs_server(&tree);
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    tree.put(
        "lib/extra.go",
        "package util\n\nfunc extra() int {\n\treturn helper(1)\n}\n",
    );
    tree.put("target/more.py", "def more():\n    frobnicate(1)\n");
    tree.put("env/lib/y.py", "def hidden_too():\n    pass\n");
    let text = map(&mut server, json!({}));
    assert!(files_of(&text).contains(&"lib/extra.go"), "{text}");
    assert!(
        !text.contains("more.py") && !text.contains("y.py"),
        "{text}"
    );
    std::fs::remove_file(tree.path().join("lib/extra.go")).unwrap();
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    // Without its marker, a directory is mapped again.
    std::fs::remove_file(tree.path().join("target/CACHEDIR.TAG")).unwrap();
    let text = map(&mut server, json!({}));
    assert!(files_of(&text).contains(&"target/more.py"), "{text}");
    assert!(!text.contains("'target' (CACHEDIR.TAG)"), "{text}");
}

/// Only the selector, `.gitignore` (when respected) and marker files keep the map and the
/// lookup out of a directory: `build`, `dist`, `vendor`, a standard library's `venv` package
/// (no `pyvenv.cfg`), dot-directories and a tag without the signature are ordinary source.
#[test]
fn directories_are_passed_over_only_by_marker_files() {
    let tree = Tree::new()
        .file(
            "pkg/build/graph.py",
            "def build_graph(nodes):\n    return nodes\n",
        )
        .file(
            "pkg/main.py",
            "from pkg.build.graph import build_graph\n\nbuild_graph([])\n",
        )
        .file("lib/venv/__init__.py", "class EnvBuilder:\n    pass\n")
        .file(
            "compiler/build/rustc.rs",
            "pub fn rustc_path() -> u8 {\n    0\n}\n",
        )
        .file(
            "vendor/dep/util.go",
            "package dep\n\nfunc Helper() int {\n\treturn 1\n}\n",
        )
        .file("dist/bundle.js", "function bundled() {\n  return 1;\n}\n")
        .file(
            ".github/scripts/check.py",
            "def check_release():\n    pass\n",
        )
        .file("fake/CACHEDIR.TAG", "not a tag\n")
        .file("fake/kept.py", "def kept_anyway():\n    pass\n")
        .file("real/CACHEDIR.TAG", CACHEDIR_TAG)
        .file("real/cached.py", "def cached():\n    pass\n");
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({}));
    assert!(text.contains("[mapped 8 files (1 skipped"), "{text}");
    let mut files = files_of(&text);
    files.sort_unstable();
    assert_eq!(
        files,
        [
            ".github/scripts/check.py",
            "compiler/build/rustc.rs",
            "dist/bundle.js",
            "fake/kept.py",
            "lib/venv/__init__.py",
            "pkg/build/graph.py",
            "vendor/dep/util.go"
        ],
        "{text}"
    );
    assert!(
        summary_of(&text).contains(
            "passed over 1 directory its marker file names as a cache or virtualenv: 'real' \
             (CACHEDIR.TAG); give 'real' as path to include it"
        ),
        "{text}"
    );
    for (name, file) in [
        ("build_graph", "pkg/build/graph.py:1:"),
        ("EnvBuilder", "lib/venv/__init__.py:1:"),
        ("rustc_path", "compiler/build/rustc.rs:1:"),
        ("check_release", ".github/scripts/check.py:1:"),
    ] {
        let found = fs_text(&mut server, "fs_symbols", json!({"name": name}));
        assert!(found.contains(file), "{name}: {found}");
    }
    let found = fs_text(&mut server, "fs_symbols", json!({"name": "cached"}));
    assert!(
        found.contains("No definition") || found.starts_with("No "),
        "{found}"
    );
    assert!(
        found.contains("give 'real' as path to include it"),
        "{found}"
    );
    let found = fs_text(
        &mut server,
        "fs_symbols",
        json!({"name": "cached", "path": "real"}),
    );
    assert!(found.starts_with("1 definition of 'cached':"), "{found}");
}

#[test]
fn a_map_follows_an_edit() {
    let tree = polyglot();
    let mut server = fs_server(&tree);
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    // Everything now leans on the Go helper.
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "app/cli.py", "content": "def main(argv):\n    return helper(helper(argv))\n"}),
    );
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "native/worker.rs", "content": "pub fn run() -> i32 {\n    helper(1)\n}\n"}),
    );
    let after = map(&mut server, json!({}));
    assert_eq!(files_of(&after)[0], "lib/util.go", "{after}");
    assert_eq!(summary_of(&after), summary_of(POLYGLOT_MAP));
}

#[test]
fn map_is_a_reader() {
    let tree = polyglot();
    let mut server = fs_server_with(&tree, &["--read-only"]);
    let tool = listed_tool(&mut server, "fs_map");
    assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    assert!(tool.get("outputSchema").is_none(), "{tool}");
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
}

#[test]
fn the_walk_stops_after_5000_files_and_says_so() {
    let tree = Tree::new();
    for i in 0..5000 {
        tree.put(&format!("a/{i:04}.txt"), "x\n");
    }
    tree.put("z.py", "def late():\n    pass\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        map(&mut server, json!({})),
        "[mapped 0 files (5000 skipped: unsupported/binary/too-large), 0 definitions; ranked by references; walk stopped after 5000 files]"
    );
    assert_eq!(
        map(&mut server, json!({"path": "z.py"})),
        "z.py:\n  1: def late():\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 1 definition; the file's outline]"
    );
}

/// The `parsed=` and `cached=` counts of each map, from the server's debug log.
fn parse_counts(log: &str) -> Vec<(u64, u64)> {
    let field = |line: &str, name: &str| -> u64 {
        let at = line.find(&format!(" {name}=")).expect(name) + name.len() + 2;
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a count")
    };
    log.lines()
        .filter(|line| line.contains("fsmcp::fs::map") && line.contains(" parsed="))
        .map(|line| (field(line, "parsed"), field(line, "cached")))
        .collect()
}

#[test]
fn the_parse_cache_reads_each_change_once() {
    let tree = polyglot();
    let mut server = fs_server_with(&tree, &["--log-level", "debug"]);
    assert_eq!(map(&mut server, json!({})), POLYGLOT_MAP);
    // Unchanged: nothing parsed, all five from the cache.
    let steered = map(&mut server, json!({"query": "helper"}));
    assert_eq!(files_of(&steered)[0], "lib/util.go", "{steered}");
    // One file edited: exactly that file is parsed again.
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "app/cli.py", "content": "def main(argv):\n    return helper(argv)\n"}),
    );
    map(&mut server, json!({}));
    // A copy of a file already parsed (same bytes, same language) is not parsed.
    fs_text(
        &mut server,
        "fs_write",
        json!({"path": "app/copy.py", "content": HUB}),
    );
    let with_copy = map(&mut server, json!({}));
    assert!(with_copy.contains("app/copy.py:"), "{with_copy}");
    // A part of the tree reuses what the whole map parsed.
    map(&mut server, json!({"path": "core"}));
    let (_, log) = server.close();
    assert_eq!(
        parse_counts(&log),
        [(5, 0), (0, 5), (1, 4), (0, 5), (0, 1)],
        "{log}"
    );
}

/// Twenty files in pairs of identical twins (whose scores tie exactly), leaning on one another
/// in a ring and, unevenly, on the squares' files.
fn twins_tree() -> Tree {
    let mut tree = Tree::new();
    for i in 0..10 {
        let source = format!(
            "def f{i}(x):\n    return f{}(x) + g{}(x)\n\n\ndef g{i}(x):\n    return x\n",
            (i + 1) % 10,
            i * i % 10
        );
        tree = tree
            .file(&format!("left/m{i}.py"), &source)
            .file(&format!("right/m{i}.py"), &source);
    }
    tree
}

#[test]
fn a_tree_maps_the_same_whatever_was_mapped_before() {
    let tree = twins_tree();
    let mut fresh = fs_server(&tree);
    let direct = map(&mut fresh, json!({"max-chars": 65536}));
    // Another server first maps parts of the tree (its names get other numbers), then all.
    let mut seasoned = fs_server(&tree);
    map(&mut seasoned, json!({"path": "right", "query": "g7"}));
    map(&mut seasoned, json!({"path": "left/m4.py"}));
    assert_eq!(map(&mut seasoned, json!({"max-chars": 65536})), direct);
    // Twins tie, and a tie falls to path order: each left file comes before its twin.
    let files = files_of(&direct);
    assert_eq!(files.len(), 20, "{direct}");
    for i in 0..10 {
        let at = |dir: &str| files.iter().position(|f| *f == format!("{dir}/m{i}.py"));
        assert!(at("left") < at("right"), "{direct}");
    }
}

/// Queries in words: an identifier's words (snake, camel, digits) answer a query that names
/// none of them whole, rarer words weigh more, and an exact identifier still leads.
#[test]
fn a_query_in_words_finds_the_identifiers_holding_them() {
    // The three definitions the query is about, after twelve the rest of the tree uses.
    let mut parse = String::new();
    for i in 0..12 {
        parse.push_str(&format!("pub fn helper_{i}() -> u64 {{\n    {i}\n}}\n\n"));
    }
    parse.push_str("pub fn parse_rfc3339(s: &str) -> u64 {\n    0\n}\n\npub fn parse_rfc3339_relaxed(s: &str) -> u64 {\n    parse_rfc3339(s)\n}\n\npub fn parse_from_rfc3339(s: &str) -> u64 {\n    parse_rfc3339(s)\n}\n");
    let mut tree = Tree::new()
        .file("src/time/parse.rs", &parse)
        .file(
            "lib/urllib/request.py",
            "def urlopen(url):\n    return OpenerDirector().open(url)\n\n\nclass OpenerDirector:\n    def open(self, url):\n        return url\n",
        )
        .file(
            "lib/urllib/redirects.py",
            "class HTTPRedirectHandler:\n    def redirect_request(self, req):\n        return req\n\n\ndef max_redirections():\n    return 10\n",
        );
    // Files that every other file leans on, which lead an unsteered map.
    for i in 0..6 {
        tree = tree.file(
            &format!("core/hub{i}.py"),
            format!("def hub{i}(x):\n    return x\n\n\ndef request_parser{i}(x):\n    return x\n"),
        );
        tree = tree.file(
            &format!("app/user{i}.py"),
            format!("from core.hub{i} import hub{i}\n\nhub{i}(1)\nhub{i}(2)\n"),
        );
        let calls: String = (0..12).map(|h| format!("    helper_{h}();\n")).collect();
        tree = tree.file(
            &format!("src/user{i}.rs"),
            format!("pub fn user_{i}() {{\n{calls}}}\n"),
        );
    }
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({"query": "rfc3339"}));
    assert_eq!(files_of(&text)[0], "src/time/parse.rs", "{text}");
    for line in [
        "49: pub fn parse_rfc3339(s: &str) -> u64 {",
        "53: pub fn parse_rfc3339_relaxed(s: &str) -> u64 {",
        "57: pub fn parse_from_rfc3339(s: &str) -> u64 {",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    // The exact identifier leads; the files holding the other word follow, before the hubs.
    let text = map(&mut server, json!({"query": "urlopen redirect"}));
    assert_eq!(
        files_of(&text)[..2],
        ["lib/urllib/request.py", "lib/urllib/redirects.py"],
        "{text}"
    );
    for line in [
        "1: class HTTPRedirectHandler:",
        "2:     def redirect_request(self, req):",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    // A name holding both words leads the names holding one; among those, the rarer word
    // (`redirect`, in two names, against `request` in seven) leads.
    let text = map(&mut server, json!({"query": "request redirect"}));
    assert_eq!(files_of(&text)[0], "lib/urllib/redirects.py", "{text}");
    let text = map(&mut server, json!({"query": "redirections parser"}));
    assert_eq!(files_of(&text)[0], "lib/urllib/redirects.py", "{text}");
}

/// Rank by references that resolve: a call of a builtin (`str(x)`, `enumerate(…)`,
/// `s.startswith(…)`) or of a name a Python file neither imports nor defines credits no
/// same-named definition elsewhere, and an anonymous Rust item is no definition.
#[test]
fn only_references_that_resolve_rank_a_definition() {
    let mut tree = Tree::new()
        .file(
            "lib/userstring.py",
            "class UserString:\n    def startswith(self, prefix):\n        return False\n",
        )
        .file("lib/locale.py", "def str(value):\n    return value\n")
        .file("lib/threading.py", "def enumerate():\n    return []\n")
        .file("lib/socket.py", "def type():\n    return 1\n")
        .file("lib/orphan.py", "def helper():\n    return 1\n")
        .file(
            "lib/core.py",
            "def load_config(path):\n    return path\n",
        )
        .file(
            "src/checks.rs",
            "const _: () = assert!(true);\nconst _: () = assert!(1 > 0);\n\npub fn checked() -> bool {\n    true\n}\n",
        );
    for i in 0..8 {
        tree = tree.file(
            &format!("app/user{i}.py"),
            format!(
                "from lib.core import load_config\n\n\ndef run{i}(items):\n    for n, item in enumerate(items):\n        if str(item).startswith('x') and type(item):\n            helper()\n    return load_config(str(n))\n"
            ),
        );
    }
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({}));
    assert_eq!(files_of(&text)[0], "lib/core.py", "{text}");
    assert!(!text.contains("const _"), "{text}");
    let first_builtin = files_of(&text)
        .iter()
        .position(|f| {
            ["userstring", "locale", "threading", "socket", "orphan"]
                .iter()
                .any(|m| f.contains(m))
        })
        .expect("the shadowing modules are still mapped");
    assert!(first_builtin >= 2, "{text}");
}

/// A source tree with tests: a steered map lists the test files its query or focus reaches
/// (by a query word in the path or a name, or by using what only the focused code defines)
/// and counts the rest; an unsteered map lists them all. A test file shows one definition, a
/// label, however many tests it holds.
#[test]
fn a_steered_map_lists_the_tests_it_reaches_and_counts_the_rest() {
    let tree = Tree::new()
        .file(
            "src/context.py",
            "def make_context():\n    return 1\n",
        )
        .file(
            "src/parser.py",
            "def parse_tokens(text):\n    return text.split()\n",
        )
        .file(
            "tests/test_context.py",
            "from src.context import make_context\n\n\ndef test_make():\n    assert make_context() == 1\n",
        )
        .file(
            "tests/test_parser.py",
            "from src.parser import parse_tokens\n\n\ndef test_parse():\n    assert parse_tokens('a b') == ['a', 'b']\n\n\ndef test_parse_empty():\n    assert parse_tokens('') == []\n",
        )
        .file("tests/test_other.py", "def test_nothing():\n    assert True\n");
    let mut server = fs_server(&tree);
    let left_out = "; 2 test files not listed: the query and focus reach none of them]";

    let text = map(&mut server, json!({"query": "context"}));
    assert_eq!(
        files_of(&text),
        ["src/context.py", "src/parser.py", "tests/test_context.py"],
        "{text}"
    );
    assert!(summary_of(&text).ends_with(left_out), "{text}");

    let text = map(&mut server, json!({"focus": "src/parser.py"}));
    assert_eq!(
        files_of(&text),
        ["src/parser.py", "src/context.py", "tests/test_parser.py"],
        "{text}"
    );
    assert!(summary_of(&text).ends_with(left_out), "{text}");
    // Two tests, one line: a label.
    let tests = text.split("tests/test_parser.py:\n").nth(1).unwrap();
    assert_eq!(
        tests.split("\n\n").next().unwrap().lines().count(),
        1,
        "{text}"
    );

    let text = map(&mut server, json!({}));
    assert_eq!(files_of(&text).len(), 5, "{text}");
    assert!(!summary_of(&text).contains("not listed"), "{text}");
}

const LIST_H: &str = "#ifndef LIST_H\n#define LIST_H\n\nstruct list {\n    int n;\n};\n\nint list_len(const struct list *l);\nstruct list *list_new(void);\nextern int list_count;\n\n#endif\n";

const LIST_C: &str = "#include \"list.h\"\n\nint list_count;\n\nint list_len(const struct list *l) {\n#define STEP 1\n    enum kind { A } k;\n    return l->n * STEP;\n}\n\nstruct list *list_new(void) {\n    return 0;\n}\n";

const MAIN_C: &str = "#include \"list.h\"\n\nenum kind k;\n\nint main(void) {\n    struct list *l = list_new();\n    return list_len(l);\n}\n";

/// A C header declares what a source file defines: its outline lists the type, the
/// prototypes and the `extern`, never the include guard; a query for a function leads with
/// the file defining it, not the header declaring it; what a function body holds (a
/// `#define`, an `enum`) is no item; a bodiless `enum kind k;` defines nothing; and the
/// header's focus reaches the source defining what it declares.
#[test]
fn c_prototypes_and_guards_declare_and_function_bodies_hold_no_items() {
    let tree = Tree::new()
        .file("include/list.h", LIST_H)
        .file("src/list.c", LIST_C)
        .file("src/main.c", MAIN_C);
    let mut server = fs_server(&tree);

    let text = map(&mut server, json!({"path": "include/list.h"}));
    assert_eq!(
        text,
        "include/list.h:\n   4: struct list {\n⋮\n   8: int list_len(const struct list *l);\n   9: struct list *list_new(void);\n  10: extern int list_count;\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 4 definitions; the file's outline]"
    );

    let text = map(&mut server, json!({"query": "list_len"}));
    assert_eq!(files_of(&text)[0], "src/list.c", "{text}");

    let text = map(&mut server, json!({}));
    let source = text.split("src/list.c:\n").nth(1).unwrap();
    let source: Vec<&str> = source.split("\n\n").next().unwrap().lines().collect();
    assert_eq!(
        source,
        [
            "   5: int list_len(const struct list *l) {",
            "⋮",
            "  11: struct list *list_new(void) {"
        ],
        "{text}"
    );
    assert!(!text.contains("#define LIST_H"), "{text}");
    assert!(!text.contains("enum kind k;"), "{text}");

    let text = map(&mut server, json!({"focus": "include/list.h"}));
    assert_eq!(
        files_of(&text)[..2],
        ["include/list.h", "src/list.c"],
        "{text}"
    );
}

/// JavaScript's scopes: what an anonymous function (a library's factory, a callback), a
/// constructor, a method with a computed name or an object literal holds is nested, and an
/// outline leaves it out as it leaves out a named function's body; a module's exports object
/// (`module.exports = {`, `export default {`) is its API, its members items.
#[test]
fn javascript_scopes_nest_what_they_hold_and_an_exports_object_is_the_api() {
    let source = "module.exports = {\n  apiOne(a) { return a; },\n  apiTwo: function (b) { return b; },\n};\nconst PROTO = {\n  get end() { return 1; },\n};\nclass Q {\n  constructor() { this.test = () => true; }\n  [Symbol.iterator]() { return { next: () => 1 }; }\n  run() {}\n}\n(function (root, factory) { function inner() {} })(this, 1);\ncall({ nestedMethod() {} });\nexport default { fromDefault() {} };\n";
    let tree = Tree::new()
        .file("lib/a.js", source)
        .file("lib/b.js", "const a = require('./a');\na.apiOne(1);\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        map(&mut server, json!({"path": "lib/a.js"})),
        "lib/a.js:\n   2:   apiOne(a) { return a; },\n   3:   apiTwo: function (b) { return b; },\n⋮\n   8: class Q {\n⋮\n  11:   run() {}\n⋮\n  15: export default { fromDefault() {} };\n\n[mapped 1 file (0 skipped: unsupported/binary/too-large), 5 definitions; the file's outline]"
    );
    // Nested, yet found by name when nothing else defines it.
    let text = map(&mut server, json!({"query": "nestedMethod"}));
    assert_eq!(files_of(&text)[0], "lib/a.js", "{text}");
    assert!(
        text.contains("  14: call({ nestedMethod() {} });"),
        "{text}"
    );
}

/// Code depends on code: a test file defining a name the focused file uses is no neighbour of
/// it, and does not hide the code that defines the same name (`shared_helper`, defined by
/// `src/shared.py` and by a test); the focus reaches the test no other way, so it is counted,
/// not listed.
#[test]
fn a_test_file_is_no_focus_neighbour_and_hides_no_definer() {
    let caller = |n: usize| {
        format!("from src.other import other_thing\n\n\ndef run{n}():\n    return other_thing()\n")
    };
    let tree = Tree::new()
        .file(
            "src/app.py",
            "from src.shared import shared_helper\n\n\ndef main_entry():\n    return shared_helper() + fixture_value()\n",
        )
        .file("src/shared.py", "def shared_helper():\n    return 1\n")
        .file("src/other.py", "def other_thing():\n    return 2\n")
        .file("src/x1.py", caller(1))
        .file("src/x2.py", caller(2))
        .file("src/x3.py", caller(3))
        .file(
            "tests/test_shared.py",
            "def shared_helper():\n    return 0\n\n\ndef fixture_value():\n    return 3\n",
        );
    let mut server = fs_server(&tree);
    let text = map(&mut server, json!({"focus": "src/app.py"}));
    let files = files_of(&text);
    assert_eq!(
        files[..3],
        ["src/app.py", "src/shared.py", "src/other.py"],
        "{text}"
    );
    // Nor is it reached: it uses nothing only the focused file defines.
    assert!(!files.contains(&"tests/test_shared.py"), "{text}");
    assert!(
        summary_of(&text)
            .ends_with("; 1 test file not listed: the query and focus reach none of them]"),
        "{text}"
    );
}
