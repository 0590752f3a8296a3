//! The tags of each language, on fixtures, and extraction within bounds.

use super::*;

/// Each definition's name and line (the Raku scanner's tests use these too).
pub(crate) fn names(tags: &FileTags) -> Vec<(&str, u32)> {
    tags.definitions
        .iter()
        .map(|d| (d.name.as_str(), d.line))
        .collect()
}

/// Whether `tags` refers to `name` at least once.
pub(crate) fn refers(tags: &FileTags, name: &str) -> bool {
    tags.references.iter().any(|r| r == name)
}

/// The languages tree-sitter reads (every one but Raku).
const TREE_SITTER: [Language; 14] = [
    Language::C,
    Language::Cpp,
    Language::Go,
    Language::Java,
    Language::JavaScript,
    Language::Python,
    Language::Rust,
    Language::TypeScript,
    Language::Tsx,
    Language::CSharp,
    Language::Ruby,
    Language::Php,
    Language::Kotlin,
    Language::Swift,
];

#[test]
fn every_query_compiles() {
    for language in TREE_SITTER {
        if language.built_in() {
            assert!(config(language).is_some(), "{language:?}");
        } else {
            assert!(config(language).is_none(), "{language:?}");
            skipped(language, "its query");
        }
    }
}

/// Says that a check was skipped because this build leaves the language out.
fn skipped(language: Language, what: &str) {
    let feature = language.feature().unwrap_or("?");
    let name = language.name();
    eprintln!("skipped: {what} ({name} is not in this build; cargo feature {feature})");
}

#[test]
fn bounded_extraction_skips_deep_nesting_and_costly_parses() {
    let stop = AtomicUsize::new(0);
    let deep = "{".repeat(MAX_NESTING + 1);
    assert!(matches!(
        extract_bounded(Language::JavaScript, deep.as_bytes(), &stop),
        Extracted::TooDeep
    ));
    // Closed brackets do not add up.
    let closed = "{}".repeat(MAX_NESTING + 1);
    assert!(matches!(
        extract_bounded(Language::JavaScript, closed.as_bytes(), &stop),
        Extracted::Tags(_)
    ));
    // C++ error recovery on `a<a<…` holds memory fast; a small budget stops it.
    let costly = "a<".repeat(5000);
    let flag = AtomicUsize::new(0);
    super::super::memory::watch(&flag, 1 << 20, || {
        extract_until(Language::Cpp, costly.as_bytes(), Some(&flag))
    });
    assert_eq!(flag.into_inner(), super::super::memory::OVER_BUDGET);
    // A raised flag stops a parse as someone else's stop.
    let raised = AtomicUsize::new(1);
    assert!(matches!(
        extract_bounded(Language::Python, b"def f():\n    pass\n", &raised),
        Extracted::Stopped
    ));
}

#[test]
fn languages_by_extension() {
    for (path, language) in [
        ("src/a.rs", Some(Language::Rust)),
        ("x/y.H", Some(Language::C)),
        ("a.hpp", Some(Language::Cpp)),
        ("a.mjs", Some(Language::JavaScript)),
        ("a.d.ts", Some(Language::TypeScript)),
        ("a.tsx", Some(Language::Tsx)),
        ("lib/Foo/Bar.rakumod", Some(Language::Raku)),
        ("t/basic.rakutest", Some(Language::Raku)),
        ("src/App.cs", Some(Language::CSharp)),
        ("lib/shop.rb", Some(Language::Ruby)),
        ("shop.gemspec", Some(Language::Ruby)),
        ("Rakefile", Some(Language::Ruby)),
        ("app/Gemfile", Some(Language::Ruby)),
        ("index.php", Some(Language::Php)),
        ("Main.kt", Some(Language::Kotlin)),
        ("build.gradle.kts", Some(Language::Kotlin)),
        ("Sources/App.swift", Some(Language::Swift)),
        ("README.md", None),
        ("Makefile", None),
        ("Gemfile.lock", None),
        (".py", None),
    ] {
        assert_eq!(language_of(path), language, "{path}");
    }
}

/// One language's source, and the definitions and references its tags must hold.
struct Fixture {
    /// What the fixture shows; a failure names it.
    name: &'static str,
    language: Language,
    /// A fixture this one adds to: its source, definitions and references come first.
    extends: Option<&'static Fixture>,
    source: &'static str,
    /// Every definition as (name, line), in order; or, when not `exact`, some of them.
    definitions: &'static [(&'static str, u32)],
    exact: bool,
    /// A definition's name and the line text its first definition carries.
    text: Option<(&'static str, &'static str)>,
    /// Names the file must refer to.
    references: &'static [&'static str],
}

impl Fixture {
    /// The source, definitions and references, the extended fixture's first.
    fn whole(&self) -> (String, Vec<(&str, u32)>, Vec<&str>) {
        let base = self.extends.map(Fixture::whole).unwrap_or_default();
        (
            base.0 + self.source,
            [base.1, self.definitions.to_vec()].concat(),
            [base.2, self.references.to_vec()].concat(),
        )
    }
}

const TYPESCRIPT: Fixture = Fixture {
    name: "typescript",
    language: Language::TypeScript,
    extends: None,
    source: "export interface Store {\n  get(key: string): Item;\n}\n\nexport class MemoryStore implements Store {\n  get(key: string): Item {\n    return lookup(this.items, key);\n  }\n}\n\nexport function lookup(items: Item[], key: string): Item {\n  return items.find(key);\n}\n\ntype Item = { key: string };\nenum Mode { Fast, Slow }\nconst build = (): Store => new MemoryStore();\n",
    definitions: &[
        ("Store", 1),
        ("get", 2),
        ("MemoryStore", 5),
        ("get", 6),
        ("lookup", 11),
        ("Item", 15),
        ("Mode", 16),
        ("build", 17),
    ],
    exact: true,
    text: Some(("MemoryStore", "export class MemoryStore implements Store {")),
    references: &["lookup", "find", "Item", "MemoryStore", "Store"],
};

const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "python",
        language: Language::Python,
        extends: None,
        source: "import os\n\nclass Dispatcher:\n    def run(self, value):\n        return frobnicate(value)\n\ndef frobnicate(value):\n    return os.path.join(value)\n",
        definitions: &[("Dispatcher", 3), ("run", 4), ("frobnicate", 7)],
        exact: true,
        text: Some(("run", "    def run(self, value):")),
        references: &["frobnicate", "join"],
    },
    Fixture {
        name: "rust",
        language: Language::Rust,
        extends: None,
        source: "pub struct Engine {\n    n: u32,\n}\n\nimpl Engine {\n    pub fn new() -> Self {\n        helper(1)\n    }\n}\n\nfn helper(x: u32) -> Engine {\n    let e = Engine::new();\n    e.start();\n    e\n}\n",
        definitions: &[("Engine", 1), ("new", 6), ("helper", 11)],
        exact: true,
        text: Some(("helper", "fn helper(x: u32) -> Engine {")),
        references: &["helper", "new", "start", "Engine"],
    },
    Fixture {
        name: "rust constants and statics, at module level and in an impl",
        language: Language::Rust,
        extends: None,
        source: "pub const MAX: u32 = 3;\nstatic NAME: &str = \"x\";\n\nstruct Engine;\n\nimpl Engine {\n    const LIMIT: u32 = MAX;\n}\n",
        definitions: &[("MAX", 1), ("NAME", 2), ("Engine", 4), ("LIMIT", 7)],
        exact: true,
        text: Some(("LIMIT", "    const LIMIT: u32 = MAX;")),
        references: &["Engine"],
    },
    Fixture {
        name: "go",
        language: Language::Go,
        extends: None,
        source: "package main\n\ntype Server struct {\n\tname string\n}\n\nfunc (s *Server) Serve() error {\n\treturn listen(s.name)\n}\n\nfunc listen(addr string) error {\n\treturn nil\n}\n",
        definitions: &[("Server", 3), ("Serve", 7), ("listen", 11)],
        exact: true,
        text: None,
        references: &["listen", "Server"],
    },
    Fixture {
        name: "go constants, variables and type aliases at package level",
        language: Language::Go,
        extends: None,
        source: "package http\n\nconst (\n\tStatusOK = 200\n\tStatusUnauthorized = 401\n)\n\nvar ErrClosed = errors.New(\"closed\")\n\ntype Header = map[string]string\n\nfunc f() {\n\tconst local = 1\n\tvar x = local\n\t_ = x\n}\n\nvar (\n\tDefaultClient = &Client{}\n\terrShort error\n)\n",
        definitions: &[
            ("StatusOK", 4),
            ("StatusUnauthorized", 5),
            ("ErrClosed", 8),
            ("Header", 10),
            ("f", 12),
            ("DefaultClient", 19),
            ("errShort", 20),
        ],
        exact: true,
        text: Some(("StatusUnauthorized", "\tStatusUnauthorized = 401")),
        references: &["New"],
    },
    Fixture {
        name: "java enums, constants, records and annotation types",
        language: Language::Java,
        extends: None,
        source: "package x;\n\npublic abstract class Calendar {\n    public static final int DAY_OF_WEEK_IN_MONTH = 8;\n    private int count;\n}\n\nenum StreamShape {\n    REFERENCE,\n    INT_VALUE\n}\n\nrecord Point(int x, int y) {}\n\n@interface DefinedBy {}\n",
        definitions: &[
            ("Calendar", 3),
            ("DAY_OF_WEEK_IN_MONTH", 4),
            ("StreamShape", 8),
            ("REFERENCE", 9),
            ("INT_VALUE", 10),
            ("Point", 13),
            ("DefinedBy", 15),
        ],
        exact: true,
        text: None,
        references: &[],
    },
    Fixture {
        name: "java",
        language: Language::Java,
        extends: None,
        source: "package x;\n\npublic class Greeter implements Speaker {\n    public String greet(String who) {\n        return format(who);\n    }\n}\n\ninterface Speaker {\n    String greet(String who);\n}\n",
        definitions: &[("Greeter", 3), ("greet", 4), ("Speaker", 9), ("greet", 10)],
        exact: true,
        text: None,
        references: &["format", "Speaker"],
    },
    Fixture {
        name: "javascript",
        language: Language::JavaScript,
        extends: None,
        source: "class Widget {\n  render() {\n    return draw(this);\n  }\n}\n\nfunction draw(w) {\n  return w.paint();\n}\n\nconst make = () => new Widget();\n",
        definitions: &[("Widget", 1), ("render", 2), ("draw", 7), ("make", 11)],
        exact: true,
        text: None,
        references: &["draw", "paint", "Widget"],
    },
    Fixture {
        name: "c with call references",
        language: Language::C,
        extends: None,
        source: "#include <stdio.h>\n\ntypedef struct point {\n    int x;\n} point_t;\n\nstatic int square(int v) {\n    return v * v;\n}\n\nint main(void) {\n    point_t p;\n    printf(\"%d\\n\", square(p.x));\n    return 0;\n}\n",
        definitions: &[("point", 3), ("point_t", 5), ("square", 7), ("main", 11)],
        exact: false,
        text: Some(("square", "static int square(int v) {")),
        references: &["square", "printf", "point_t"],
    },
    Fixture {
        name: "c++ with call references",
        language: Language::Cpp,
        extends: None,
        source: "namespace geo {\n\nclass Shape {\npublic:\n    virtual double area() const;\n};\n\ndouble Shape::area() const {\n    return compute(1.0);\n}\n\n}\n\nint main() {\n    geo::Shape s;\n    auto v = s.area();\n    return helpers::clamp(v);\n}\n",
        definitions: &[
            ("geo", 1),
            ("Shape", 3),
            ("area", 5),
            ("area", 8),
            ("main", 14),
        ],
        exact: false,
        text: None,
        references: &["compute", "area", "clamp", "Shape"],
    },
    TYPESCRIPT,
    Fixture {
        name: "tsx: the typescript fixture and a component",
        language: Language::Tsx,
        extends: Some(&TYPESCRIPT),
        source: "export function View(): JSX.Element {\n  return <div>{render()}</div>;\n}\n",
        definitions: &[("View", 18)],
        exact: true,
        text: Some(("MemoryStore", "export class MemoryStore implements Store {")),
        references: &["render"],
    },
    Fixture {
        name: "typescript field functions and private methods",
        language: Language::TypeScript,
        extends: None,
        source: "class Panel {\n  onClick = () => {\n    this.#refresh();\n  };\n  #refresh(): void {}\n}\n",
        definitions: &[("Panel", 1), ("onClick", 2), ("#refresh", 5)],
        exact: true,
        text: None,
        references: &["#refresh"],
    },
    Fixture {
        name: "c#: a namespace's types and their members, constructors and constants included",
        language: Language::CSharp,
        extends: None,
        source: "namespace Shop.Billing\n{\n    public interface IStore\n    {\n        Item Get(string key);\n    }\n\n    public class MemoryStore : IStore\n    {\n        public const int Limit = 10;\n\n        public MemoryStore(int size) { }\n\n        public int Count { get; }\n\n        public Item Get(string key)\n        {\n            var found = Helpers.Lookup(key);\n            return found;\n        }\n    }\n\n    public record Item(string Key);\n\n    public enum Mode { Fast, Slow }\n}\n",
        definitions: &[
            ("Billing", 1),
            ("IStore", 3),
            ("Get", 5),
            ("MemoryStore", 8),
            ("Limit", 10),
            ("MemoryStore", 12),
            ("Count", 14),
            ("Get", 16),
            ("Item", 23),
            ("Mode", 25),
        ],
        exact: true,
        text: Some(("Limit", "        public const int Limit = 10;")),
        references: &["Lookup", "IStore", "Item"],
    },
    Fixture {
        name: "ruby: a module's constant, class and methods, and a top-level method",
        language: Language::Ruby,
        extends: None,
        source: "require \"json\"\n\nmodule Shop\n  VERSION = \"1.0\"\n\n  class Store < Base\n    def initialize(size)\n      @items = {}\n    end\n\n    def get(key)\n      value = lookup(@items, key)\n      value.fetch(:name)\n    end\n\n    def self.build\n      new(10)\n    end\n  end\nend\n\ndef lookup(items, key)\n  items[key]\nend\n",
        definitions: &[
            ("Shop", 3),
            ("VERSION", 4),
            ("Store", 6),
            ("initialize", 7),
            ("get", 11),
            ("build", 16),
            ("lookup", 22),
        ],
        exact: true,
        text: Some(("build", "    def self.build")),
        references: &["lookup", "fetch", "Base"],
    },
    Fixture {
        name: "php: interface, class with constant and property, enum, function",
        language: Language::Php,
        extends: None,
        source: "<?php\n\nnamespace Shop\\Billing;\n\ninterface Store\n{\n    public function get(string $key): ?Item;\n}\n\nfinal class MemoryStore extends Base implements Store\n{\n    const LIMIT = 10;\n    private array $items = [];\n\n    public function get(string $key): ?Item\n    {\n        return lookup($this->items, $key);\n    }\n}\n\nenum Mode\n{\n    case Fast;\n}\n\nfunction lookup(array $items, string $key): ?Item\n{\n    return $items[$key] ?? new Item($key);\n}\n",
        definitions: &[
            ("Shop\\Billing", 3),
            ("Store", 5),
            ("get", 7),
            ("MemoryStore", 10),
            ("LIMIT", 12),
            ("items", 13),
            ("get", 15),
            ("Mode", 21),
            ("lookup", 26),
        ],
        exact: true,
        text: Some((
            "MemoryStore",
            "final class MemoryStore extends Base implements Store",
        )),
        references: &["lookup", "Base", "Store", "Item"],
    },
    Fixture {
        name: "kotlin: interface, class with property and companion, object, function",
        language: Language::Kotlin,
        extends: None,
        source: "package shop.billing\n\ninterface Store {\n    fun get(key: String): Item?\n}\n\nclass MemoryStore(private val size: Int) : Store {\n    private val items = HashMap<String, Item>()\n\n    override fun get(key: String): Item? {\n        val found = lookup(items, key)\n        return found\n    }\n\n    companion object Factory {\n        const val LIMIT = 10\n    }\n}\n\ndata class Item(val key: String)\n\nobject Registry\n\nfun lookup(items: Map<String, Item>, key: String): Item? = items[key]\n",
        definitions: &[
            ("Store", 3),
            ("get", 4),
            ("MemoryStore", 7),
            ("items", 8),
            ("get", 10),
            ("Factory", 15),
            ("LIMIT", 16),
            ("Item", 20),
            ("Registry", 22),
            ("lookup", 24),
        ],
        exact: true,
        text: Some((
            "lookup",
            "fun lookup(items: Map<String, Item>, key: String): Item? = items[key]",
        )),
        references: &["lookup", "HashMap", "Store", "Item"],
    },
    Fixture {
        name: "swift: protocol, class with property and initializer, struct, function",
        language: Language::Swift,
        extends: None,
        source: "import Foundation\n\nprotocol Store {\n    func get(_ key: String) -> Item?\n}\n\nclass MemoryStore: Store {\n    private var items: [String: Item] = [:]\n\n    init(size: Int) {}\n\n    func get(_ key: String) -> Item? {\n        let found = lookup(items, key)\n        return found?.normalized()\n    }\n}\n\nstruct Item {\n    let key: String\n}\n\nfunc lookup(_ items: [String: Item], _ key: String) -> Item? {\n    return items[key]\n}\n",
        definitions: &[
            ("Store", 3),
            ("get", 4),
            ("MemoryStore", 7),
            ("items", 8),
            ("init", 10),
            ("get", 12),
            ("Item", 18),
            ("key", 19),
            ("lookup", 22),
        ],
        exact: true,
        text: Some(("MemoryStore", "class MemoryStore: Store {")),
        references: &["lookup", "normalized", "Store", "Item"],
    },
];

#[test]
fn definitions_and_references_by_language() {
    for fixture in FIXTURES {
        let name = fixture.name;
        if !fixture.language.built_in() {
            skipped(fixture.language, name);
            continue;
        }
        let (source, definitions, references) = fixture.whole();
        let tags = extract(fixture.language, source.as_bytes());
        let found = names(&tags);
        if fixture.exact {
            assert_eq!(found, definitions, "{name}: the definitions");
        } else {
            for definition in &definitions {
                assert!(
                    found.contains(definition),
                    "{name}: {definition:?} is not among {found:?}"
                );
            }
        }
        if let Some((defined, text)) = fixture.text {
            let definition = tags.definitions.iter().find(|d| d.name == defined);
            assert_eq!(
                definition.map(|d| d.text.as_str()),
                Some(text),
                "{name}: the line of {defined}"
            );
        }
        for reference in references {
            assert!(
                refers(&tags, reference),
                "{name}: no reference to {reference}"
            );
        }
    }
}

#[test]
fn ruby_local_variables_are_no_references() {
    if !Language::Ruby.built_in() {
        return skipped(Language::Ruby, "local variables");
    }
    let source =
        "def total(items)\n  sum = 0\n  items.each { |item| sum += price(item) }\n  sum\nend\n";
    let tags = extract(Language::Ruby, source.as_bytes());
    assert!(refers(&tags, "price") && refers(&tags, "each"));
    for local in ["items", "sum", "item"] {
        assert!(!refers(&tags, local), "{local}: {:?}", tags.references);
    }
}

#[test]
fn hostile_input_does_not_panic() {
    let junk: &[u8] = b"\xff\xfe fn \xc3( { class \x00 def ((((\n}}}} #|( =begin\n";
    for language in TREE_SITTER.into_iter().chain([Language::Raku]) {
        let _ = extract(language, junk);
        let _ = extract(language, b"");
    }
    // Invalid UTF-8 in a definition line is replaced, not fatal.
    let tags = extract(
        Language::Python,
        b"def f\xffo():\n    pass\ndef g():  # \xfe\n    pass\n",
    );
    assert!(
        tags.definitions
            .iter()
            .any(|d| d.name == "g" && d.line == 3)
    );
}

#[test]
fn long_lines_are_clipped() {
    let mut src = b"function wide(".to_vec();
    src.extend(std::iter::repeat_n(b'a', 1000));
    src.extend_from_slice(b") {}\n");
    let tags = extract(Language::JavaScript, &src);
    assert_eq!(tags.definitions[0].name, "wide");
    assert!(tags.definitions[0].text.len() <= MAX_TEXT_LEN + 4);
    assert!(tags.definitions[0].text.ends_with('…'));
}

#[test]
fn rust_items_in_macro_bodies_and_the_place_of_each_definition() {
    let source = "cfg_rt! {\n    pub fn spawn<T>(task: T) -> JoinHandle<T> {\n        helper(task)\n    }\n    cfg_net! {\n        pub struct TcpListener {\n            io: Io,\n        }\n    }\n}\n\npub fn deserialize() {\n    struct Visitor;\n    select! { a = b => {} }\n}\n\n#[cfg(test)]\nmod tests {\n    fn builds() {}\n}\n\n#[tokio::test]\nasync fn runs() {}\n\nbitflags! {\n    pub struct Flags: u32 { const A = 1; }\n}\n\nfn body() {\n    inner! {\n        fn hidden() {}\n    }\n}\n";
    let tags = extract(Language::Rust, source.as_bytes());
    let found: Vec<(&str, u32, Place)> = tags
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.line, d.place))
        .collect();
    assert_eq!(
        found,
        [
            ("spawn", 2, Place::Item),
            ("TcpListener", 6, Place::Item),
            ("deserialize", 12, Place::Item),
            ("Visitor", 13, Place::Nested),
            ("tests", 18, Place::Test),
            ("builds", 19, Place::Test),
            ("runs", 23, Place::Test),
            // Recovered from the syntax error `: u32`.
            ("Flags", 26, Place::Item),
            ("body", 29, Place::Item),
        ]
    );
    let spawn = &tags.definitions[0];
    assert_eq!(
        spawn.text,
        "    pub fn spawn<T>(task: T) -> JoinHandle<T> {"
    );
    // What a macro body refers to counts as the file's own references.
    assert!(refers(&tags, "helper"));
    assert!(refers(&tags, "Io"));
}

#[test]
fn nested_definitions_in_other_languages() {
    for (language, source, expected) in [
        (
            Language::Python,
            "def outer():\n    def inner():\n        pass\n    class Local:\n        pass\n\nclass Kept:\n    def method(self):\n        pass\n",
            &[
                ("outer", Place::Item),
                ("inner", Place::Nested),
                ("Local", Place::Nested),
                ("Kept", Place::Item),
                ("method", Place::Item),
            ][..],
        ),
        (
            Language::JavaScript,
            "function outer() {\n  function inner() {}\n}\nclass Kept {\n  method() {\n    const f = () => 1;\n  }\n}\n",
            &[
                ("outer", Place::Item),
                ("inner", Place::Nested),
                ("Kept", Place::Item),
                ("method", Place::Item),
                ("f", Place::Nested),
            ][..],
        ),
        // A method's node is the method, not its class: what follows it is no less an item. A
        // local is no definition; a property of an enum is.
        (
            Language::Swift,
            "class Kept {\n    func method() {\n        let local = 1\n        func helper() {}\n    }\n    var size = 0\n}\nenum Mode {\n    case fast\n    var label: String { \"fast\" }\n}\n",
            &[
                ("Kept", Place::Item),
                ("method", Place::Item),
                ("helper", Place::Nested),
                ("size", Place::Item),
                ("Mode", Place::Item),
                ("label", Place::Item),
            ][..],
        ),
        (
            Language::Kotlin,
            "class Kept {\n    fun method() {\n        val local = 1\n        fun helper() {}\n    }\n    val size = 0\n}\nenum class Mode {\n    FAST;\n    val label = \"fast\"\n}\n",
            &[
                ("Kept", Place::Item),
                ("method", Place::Item),
                ("helper", Place::Nested),
                ("size", Place::Item),
                ("Mode", Place::Item),
                ("label", Place::Item),
            ][..],
        ),
    ] {
        if !language.built_in() {
            skipped(language, "nested definitions");
            continue;
        }
        let tags = extract(language, source.as_bytes());
        let found: Vec<(&str, Place)> = tags
            .definitions
            .iter()
            .map(|d| (d.name.as_str(), d.place))
            .collect();
        assert_eq!(found, expected, "{language:?}");
    }
}
