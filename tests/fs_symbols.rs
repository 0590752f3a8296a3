#![allow(clippy::disallowed_methods)]
//! `fs_symbols` over the real binary: definitions then references in tree order, names
//! qualified by their type, trait, class, module or receiver, the stop notices, the
//! refusals, a lookup that follows an edit, and a differential test against ripgrep on real
//! Rust trees (this project's own dependencies, copied into a temp root) and a generated
//! Python tree with the awkward cases: every definition ripgrep finds is in the answer, and
//! every definition line the answer gives is the file's line and defines the name.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;
use serde_json::{Value, json};
use support::fs::*;
use support::ripgrep::ripgrep_installed;
use support::sources::{copy_tree, registry_source};
use support::*;

const LIB_RS: &str = "pub struct Config {
    pub name: String,
}

impl Config {
    pub fn new() -> Config {
        Config { name: String::new() }
    }
}

impl<T> Wrapper<T> {
    pub fn new(value: T) -> Self {
        Wrapper(value)
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"{}\", self.name)
    }
}

pub trait Load {
    fn load() -> Self;
}

mod inner {
    pub fn new() {}
}

pub fn run() {
    let c = Config::new();
    let w = Wrapper::new(1);
    inner::new();
}
";

const APP_PY: &str = "class Dog:
    def bark(self):
        return \"woof\"


class Cat:
    def bark(self):
        return \"meow\"


def main():
    Dog().bark()
    Cat.bark(None)
";

const SERVER_GO: &str = "package s

type Server struct{}

func (s *Server) Serve() error { return nil }

func (c Client[T]) Serve() error { return nil }

func Run() { var s Server; s.Serve() }
";

fn sample() -> Tree {
    Tree::new()
        .file("src/lib.rs", LIB_RS)
        .file("py/app.py", APP_PY)
        .file("go/s.go", SERVER_GO)
        .file(
            "web/dog.ts",
            "export class Dog {\n  bark(): string {\n    return 'woof';\n  }\n}\n",
        )
        // What the map never reads: excluded directories, text, not UTF-8.
        .file("node_modules/gen.py", "def bark():\n    pass\n")
        .file(".tox/x.py", "def bark():\n    pass\n")
        .file("notes.txt", "def bark(): the word in text\n")
        .file("latin.py", b"def bark():\n    return '\xe9'\n".as_slice())
}

fn symbols(server: &mut Server, args: Value) -> String {
    fs_text(server, "fs_symbols", args)
}

#[test]
fn definitions_then_references_in_tree_order() {
    let tree = sample();
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "bark"})),
        "3 definitions of 'bark':
py/app.py:2: def bark(self):
py/app.py:7: def bark(self):
web/dog.ts:2: bark(): string {

2 references to 'bark' in 1 file:
py/app.py:12: [call] Dog().bark()
py/app.py:13: [call] Cat.bark(None)"
    );
    assert_eq!(
        symbols(&mut server, json!({"name": "new"})),
        "3 definitions of 'new':
src/lib.rs:6: pub fn new() -> Config {
src/lib.rs:12: pub fn new(value: T) -> Self {
src/lib.rs:28: pub fn new() {}

4 references to 'new' in 1 file:
src/lib.rs:7: [call] Config { name: String::new() }
src/lib.rs:32: [call] let c = Config::new();
src/lib.rs:33: [call] let w = Wrapper::new(1);
src/lib.rs:34: [call] inner::new();"
    );
    // A name only referred to has no definition section; one with references off has none.
    assert_eq!(
        symbols(&mut server, json!({"name": "Config", "references": false})),
        "1 definition of 'Config':\nsrc/lib.rs:1: pub struct Config {"
    );
    // `path` narrows to a directory or one file.
    assert_eq!(
        symbols(&mut server, json!({"name": "bark", "path": "web"})),
        "1 definition of 'bark':\nweb/dog.ts:2: bark(): string {"
    );
    assert_eq!(
        symbols(
            &mut server,
            json!({"name": "bark", "path": "py/app.py", "references": false})
        ),
        "2 definitions of 'bark':\npy/app.py:2: def bark(self):\npy/app.py:7: def bark(self):"
    );
}

/// A Ruby file defining the name: in a build with the Ruby grammar it is listed; in one
/// without, the answer counts it in a note naming the feature that would read it.
#[test]
fn a_language_left_out_of_the_build_is_counted_not_silently_missing() {
    let tree = Tree::new().file("py/app.py", APP_PY).file(
        "lib/dog.rb",
        "class Dog\n  def bark\n    'woof'\n  end\nend\n",
    );
    let mut server = fs_server(&tree);
    let text = symbols(&mut server, json!({"name": "bark", "references": false}));
    if cfg!(feature = "lang-ruby") {
        assert_eq!(
            text,
            "3 definitions of 'bark':
lib/dog.rb:2: def bark
py/app.py:2: def bark(self):
py/app.py:7: def bark(self):"
        );
    } else {
        eprintln!("skipped: a Ruby definition (Ruby not in this build); checked its note instead");
        assert_eq!(
            text,
            "2 definitions of 'bark':
py/app.py:2: def bark(self):
py/app.py:7: def bark(self):

[no grammar in this build for 1 Ruby file (cargo feature lang-ruby)]"
        );
    }
}

#[test]
fn qualified_names_narrow_to_members() {
    let tree = sample();
    let mut server = fs_server(&tree);
    let cases = [
        (
            "Config::new",
            "1 definition of 'Config::new':
src/lib.rs:6: pub fn new() -> Config {

References spelling 'Config::new' (uses through a value are listed under 'new'):
src/lib.rs:32: [call] let c = Config::new();",
        ),
        // A generic impl's type, a module, a path before the type.
        (
            "Wrapper::new",
            "1 definition of 'Wrapper::new':
src/lib.rs:12: pub fn new(value: T) -> Self {

References spelling 'Wrapper::new' (uses through a value are listed under 'new'):
src/lib.rs:33: [call] let w = Wrapper::new(1);",
        ),
        (
            "crate::inner::new",
            "1 definition of 'crate::inner::new':
src/lib.rs:28: pub fn new() {}

References spelling 'crate::inner::new' (uses through a value are listed under 'new'):
src/lib.rs:34: [call] inner::new();",
        ),
        // A trait implementation's methods belong to the implementing type; a trait's
        // declarations to the trait.
        (
            "Config::fmt",
            "1 definition of 'Config::fmt':
src/lib.rs:18: fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n\nNo line spells 'Config::fmt'; 1 line refers to 'fmt' (through a value, or another type's): look up 'fmt' to see them",
        ),
        (
            "Load::load",
            "1 definition of 'Load::load':\nsrc/lib.rs:24: fn load() -> Self;",
        ),
        // A class's methods, in Python and TypeScript; Go methods by their receiver.
        (
            "Cat.bark",
            "1 definition of 'Cat.bark':
py/app.py:7: def bark(self):

References spelling 'Cat.bark' (uses through a value are listed under 'bark'):
py/app.py:13: [call] Cat.bark(None)",
        ),
        (
            "Dog.bark",
            "2 definitions of 'Dog.bark':\npy/app.py:2: def bark(self):\nweb/dog.ts:2: bark(): string {\n\nNo line spells 'Dog.bark'; 2 lines refer to 'bark' (through a value, or another type's): look up 'bark' to see them",
        ),
        (
            "Server.Serve",
            "1 definition of 'Server.Serve':\ngo/s.go:5: func (s *Server) Serve() error { return nil }\n\nNo line spells 'Server.Serve'; 1 line refers to 'Serve' (through a value, or another type's): look up 'Serve' to see them",
        ),
        (
            "Client.Serve",
            "1 definition of 'Client.Serve':\ngo/s.go:7: func (c Client[T]) Serve() error { return nil }\n\nNo line spells 'Client.Serve'; 1 line refers to 'Serve' (through a value, or another type's): look up 'Serve' to see them",
        ),
    ];
    each_case(
        &cases,
        |(name, _)| (*name).to_owned(),
        |(name, expected)| {
            let mut server = fs_server(&tree);
            assert_eq!(symbols(&mut server, json!({"name": name})), *expected);
        },
    );
    assert_eq!(
        symbols(&mut server, json!({"name": "Cat.new"})),
        "No definition of or reference to 'Cat.new' in the 4 source files under '.' that the map reads; grep finds it in any text"
    );
}

#[test]
fn max_results_and_the_result_limit_stop_the_answer() {
    let mut body = String::from("fn target() {}\n\nfn user() {\n");
    for i in 0..400 {
        body.push_str(&format!("    target(); // {}\n", "x".repeat(i % 250)));
    }
    body.push_str("}\n");
    let tree = Tree::new()
        .file("a.rs", &body)
        .file("b.rs", "fn target() {}\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "target", "max-results": 3})),
        "2 definitions of 'target':
a.rs:1: fn target() {}
b.rs:1: fn target() {}

1 reference to 'target' in 1 file:
a.rs:4: [call] target(); //

[references stopped at max-results (3): 399 more lines in 1 file, 1 file holding the word 'target' not read; raise max-results or narrow path]"
    );
    // Definitions filling max-results leave the references out, and say so.
    assert_eq!(
        symbols(&mut server, json!({"name": "target", "max-results": 2})),
        "2 definitions of 'target':
a.rs:1: fn target() {}
b.rs:1: fn target() {}

[stopped at 2 matching lines; raise max-results to see more]"
    );
    // Exactly max-results lines and no more: no notice.
    let two = symbols(
        &mut server,
        json!({"name": "target", "references": false, "max-results": 2}),
    );
    assert!(!two.contains("[stopped"), "{two}");

    let mut small = fs_server_with(&tree, &["--max-result-bytes", "48000"]);
    let text = symbols(&mut small, json!({"name": "target", "max-results": 1000}));
    let (lines, notice) = text.rsplit_once("\n\n[").expect("a notice");
    assert!(
        notice.starts_with("output stopped at ")
            && notice.contains("as one answer holds at most 48000 bytes (the result limit); narrow the path, lower max-results"),
        "{notice}"
    );
    assert!(lines.len() < 48000, "{}", lines.len());
    assert!(lines.lines().count() > 100, "{lines}");
    assert!(
        lines.lines().last().unwrap().starts_with("a.rs:"),
        "{lines}"
    );
}

#[test]
fn a_walk_stopped_by_a_limit_says_so_as_every_walk_does() {
    let tree = Tree::new()
        .file("a.py", "def shared():\n    pass\n")
        .file("b.py", "shared()\n")
        .file("c.py", "shared()\n")
        .file("d/e/f/deep.py", "shared()\n");
    let mut few = fs_server_with(&tree, &["--max-files", "2"]);
    assert_eq!(
        symbols(&mut few, json!({"name": "shared"})),
        "1 definition of 'shared':
a.py:1: def shared():

1 reference to 'shared' in 1 file:
b.py:1: [call] shared()

[stopped early, the answer covers the tree up to 'b.py': the walk selected more than 2 files (the file limit); narrow path to a smaller directory, or raise it with --max-files (config key limits.max_files)]"
    );
    let mut shallow = fs_server_with(&tree, &["--max-depth", "2"]);
    let text = symbols(&mut shallow, json!({"name": "shared", "references": false}));
    assert_eq!(
        text,
        "1 definition of 'shared':
a.py:1: def shared():

[not searched: 'd/e/f', a directory deeper than 2 levels (the depth limit); raise it with --max-depth (config key limits.max_depth)]"
    );
}

#[test]
fn refusals_change_nothing_and_say_what_to_fix() {
    let tree = sample();
    let mut server = fs_server(&tree);
    let refused = |server: &mut Server, args: Value| fs_error(server, "fs_symbols", args);
    assert_eq!(
        refused(&mut server, json!({"name": ""})),
        "name must not be empty; give the identifier to look up"
    );
    for bad in ["fn bark", "bark()", "Dog::", "::new", "a*b", "1st"] {
        assert_eq!(
            refused(&mut server, json!({"name": bad})),
            format!(
                "'{bad}' is not an identifier; give one name as the code spells it, such as parse_args, or Type::method for a member"
            ),
            "{bad}"
        );
    }
    assert_eq!(
        refused(&mut server, json!({})),
        schema_error("fs_symbols", "data must have required property 'name'")
    );
    assert_eq!(
        refused(&mut server, json!({"name": "x", "max-results": 0})),
        schema_error("fs_symbols", "data/max-results must be >= 1")
    );
    assert_eq!(
        refused(&mut server, json!({"name": "x", "max-results": 1001})),
        schema_error("fs_symbols", "data/max-results must be <= 1000")
    );
    assert_eq!(
        refused(&mut server, json!({"name": "x", "references": "yes"})),
        schema_error("fs_symbols", "data/references must be boolean")
    );
    assert_eq!(
        refused(&mut server, json!({"name": "x", "path": "nope"})),
        does_not_exist("nope")
    );
    assert_eq!(
        refused(&mut server, json!({"name": "x", "path": "../x"})),
        invalid_path("../x")
    );
    // Nothing found is an answer, naming how much was read.
    assert_eq!(
        symbols(&mut server, json!({"name": "absent", "references": false})),
        "No definition of 'absent' in the 4 source files under '.' that the map reads; grep finds it in any text"
    );
    assert_eq!(snapshot(tree.path()), snapshot(sample().path()));
}

#[test]
fn a_lookup_follows_edits_made_outside_the_server() {
    let tree = Tree::new()
        .file("a.py", "def first():\n    pass\n")
        .file("b.py", "first()\n");
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "first"})),
        "1 definition of 'first':\na.py:1: def first():\n\n1 reference to 'first' in 1 file:\nb.py:1: [call] first()"
    );
    tree.put("a.py", "# moved\n\n\ndef first():\n    pass\n");
    tree.put("c.py", "def first():\n    return 1\n");
    tree.remove("b.py");
    assert_eq!(
        symbols(&mut server, json!({"name": "first"})),
        "2 definitions of 'first':\na.py:4: def first():\nc.py:1: def first():"
    );
}

#[test]
fn lines_keep_their_numbers_in_awkward_files() {
    let tree = Tree::new()
        .file(
            "crlf.py",
            "import os\r\n\r\ndef crlf_def():\r\n    return 1\r\n",
        )
        .file("bom.py", "\u{feff}def bom_def():\n    pass\n")
        .file("bom_use.py", "\u{feff}bom_def()\n")
        .file("tail.py", "x = 1\ndef tail_def():\n    return tail_def()")
        // The same name in NFD and NFC are two names, as the language sees them.
        .file("nfd.py", "def cafe\u{301}():\n    pass\n")
        .file("nfc.py", "def caf\u{e9}():\n    pass\n");
    let mut server = fs_server(&tree);
    let defined = |server: &mut Server, name: &str| {
        symbols(server, json!({"name": name, "references": false}))
    };
    assert_eq!(
        defined(&mut server, "crlf_def"),
        "1 definition of 'crlf_def':\ncrlf.py:3: def crlf_def():"
    );
    assert_eq!(
        symbols(&mut server, json!({"name": "bom_def"})),
        "1 definition of 'bom_def':\nbom.py:1: def bom_def():\n\n1 reference to 'bom_def' in 1 file:\nbom_use.py:1: [call] bom_def()"
    );
    assert_eq!(
        symbols(&mut server, json!({"name": "tail_def"})),
        "1 definition of 'tail_def':\ntail.py:2: def tail_def():\n\n1 reference to 'tail_def' in 1 file:\ntail.py:3: [call] return tail_def()"
    );
    assert_eq!(
        defined(&mut server, "cafe\u{301}"),
        "1 definition of 'cafe\u{301}':\nnfd.py:1: def cafe\u{301}():"
    );
    assert_eq!(
        defined(&mut server, "caf\u{e9}"),
        "1 definition of 'caf\u{e9}':\nnfc.py:1: def caf\u{e9}():"
    );
}

// ---- differential: ripgrep ------------------------------------------------------------------

/// What ripgrep finds as definitions of `name`: `path:line` of each line matching the
/// language's definition pattern, which `pattern` builds for a name.
fn ripgrep_definitions(root: &Path, glob: &str, pattern: &str) -> BTreeSet<String> {
    let out = support::ripgrep::rg()
        .args([
            "-n",
            "--no-heading",
            "--color=never",
            "-g",
            glob,
            "-e",
            pattern,
            ".",
        ])
        .current_dir(root)
        .output()
        .expect("rg runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let path = parts.next()?.trim_start_matches("./");
            Some(format!("{path}:{}", parts.next()?))
        })
        .collect()
}

/// For each sampled name: every definition ripgrep finds (by `pattern`) is among the answer's
/// definition lines, and every definition line the answer gives is the file's own line
/// (trimmed) and defines the name by `defines`.
fn agree_with_ripgrep(
    root: &Path,
    glob: &str,
    names: &[String],
    pattern: impl Fn(&str) -> String,
    defines: impl Fn(&str) -> Regex,
) {
    let mut server = Server::start(root, &["--tools", "fs", "--include", "**"]);
    let mut compared = 0;
    for name in names {
        let text = symbols(
            &mut server,
            json!({"name": name, "references": false, "max-results": 1000}),
        );
        assert!(!text.contains("[stopped"), "{name}: {text}");
        let mut given = BTreeSet::new();
        if !text.starts_with("No definition") {
            for line in text.lines().skip(1) {
                let (place, shown) = line.split_once(": ").expect("path:line: text");
                let (path, number) = place.rsplit_once(':').expect("path:line");
                let number: usize = number.parse().expect("a line number");
                let bytes = std::fs::read(root.join(path)).expect("the file");
                let file = String::from_utf8(bytes).expect("UTF-8");
                let actual = file.split('\n').nth(number - 1).expect("the line");
                let actual = actual.trim_start_matches('\u{feff}').trim();
                // A line longer than 300 bytes is cut, and marked so.
                match shown.strip_suffix(" …") {
                    Some(cut) => assert!(actual.starts_with(cut), "{name}: {line}"),
                    None => assert_eq!(shown, actual, "{name}: {line}"),
                }
                assert!(
                    defines(name).is_match(actual),
                    "{name}: {line} defines no {name}"
                );
                given.insert(place.to_owned());
            }
        }
        let found = ripgrep_definitions(root, glob, &pattern(name));
        let missing: Vec<_> = found.difference(&given).collect();
        assert!(
            missing.is_empty(),
            "{name}: ripgrep finds {missing:?} too\n{text}"
        );
        compared += found.len();
    }
    assert!(
        compared >= names.len(),
        "too few definitions compared: {compared}"
    );
}

/// Every `step`-th distinct name `pattern` captures in the files below `root` named `*.ext`.
fn sample_names(root: &Path, ext: &str, pattern: &Regex, step: usize) -> Vec<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                for caps in pattern.captures_iter(&text) {
                    names.insert(caps["name"].to_owned());
                }
            }
        }
    }
    names.into_iter().step_by(step).collect()
}

/// Rust items at module level or one level in (methods, trait declarations, items of an
/// inline module); deeper lines are left out, as macro bodies and doc examples live there.
const RUST_ITEM: &str = r#"(?m)^ {0,4}(?:pub(?:\([^)]*\))? )?(?:(?:const|async|unsafe|extern "[^"]*") )*(?:fn|struct|enum|trait|union|mod|const|static(?: mut)?|macro_rules!) (?P<name>[A-Za-z_][A-Za-z0-9_]*)\b"#;

#[test]
fn rust_definitions_agree_with_ripgrep_on_real_trees() {
    if !ripgrep_installed() {
        return;
    }
    let tree = Tree::new();
    let mut copied = 0;
    for krate in ["regex-syntax", "serde_json"] {
        match registry_source(krate) {
            Some(src) => {
                copy_tree(&src, &tree.join(krate));
                copied += 1;
            }
            None => skipped_unless_ci(&format!("the source of {krate} is not in cargo's registry")),
        }
    }
    if copied == 0 {
        eprintln!("skipped: no dependency source in cargo's registry");
        return;
    }
    let item = Regex::new(RUST_ITEM).unwrap();
    let names = sample_names(tree.path(), "rs", &item, 7);
    assert!(names.len() >= 40, "{} names", names.len());
    agree_with_ripgrep(
        tree.path(),
        "*.rs",
        &names,
        |name| RUST_ITEM.replace("(?P<name>[A-Za-z_][A-Za-z0-9_]*)", name),
        |name| {
            Regex::new(&format!(
                r"\b(fn|struct|enum|trait|union|mod|type|const|static|mut|macro_rules!)\s+{name}\b"
            ))
            .unwrap()
        },
    );
}

#[test]
fn python_definitions_agree_with_ripgrep_on_awkward_files() {
    if !ripgrep_installed() {
        return;
    }
    let mut tree = Tree::new();
    for i in 0..24 {
        let mut text = format!(
            "import os\n\n\ndef shared_{}(x):\n    return x\n\n\n",
            i % 5
        );
        text.push_str(&format!(
            "class Thing{i}:\n    def method_{}(self):\n        return shared_{}(self)\n\n    async def run(self):\n        pass\n",
            i % 3,
            i % 5
        ));
        text.push_str(&format!(
            "\n\ndef long_{i}({}):\n    pass\n",
            "a, ".repeat(200) + "b"
        ));
        let (path, bytes) = match i % 6 {
            0 => (format!("pkg/crlf_{i}.py"), text.replace('\n', "\r\n")),
            1 => (format!("pkg/bom_{i}.py"), format!("\u{feff}{text}")),
            2 => (format!("pkg/tail_{i}.py"), text.trim_end().to_owned()),
            3 => (format!("deep/a/b/c/d/e/f/g_{i}.py"), text),
            4 => (
                format!("nfd/caf\u{65}\u{301}_{i}.py"),
                text.replace("shared", "se\u{301}ance"),
            ),
            _ => (format!("m_{i}.py"), text),
        };
        tree = tree.file(&path, bytes);
    }
    // What neither reads: a hidden directory; what only ripgrep reads, left out of its
    // search: a file that is not UTF-8 (the map reads text).
    tree = tree
        .file(".hidden/h.py", "def shared_0(x):\n    pass\n")
        .file(
            "latin/l1.py",
            b"def shared_1(x):\n    return '\xe9'\n".as_slice(),
        );
    let definition = r"(?m)^\s*(?:async\s+)?(?:def|class)\s+(?P<name>\w+)\b";
    let names = sample_names(tree.path(), "py", &Regex::new(definition).unwrap(), 1);
    assert!(names.len() >= 12, "{names:?}");
    agree_with_ripgrep(
        tree.path(),
        "!latin/**",
        &names,
        |name| format!(r"^\s*(?:async\s+)?(?:def|class)\s+{name}\b"),
        |name| Regex::new(&format!(r"\b(def|class)\s+{name}\b")).unwrap(),
    );
}

// ---- every use, with its kind ---------------------------------------------------------------

/// The issue's Rust example: a type used through `use`, `Type::CONST` and `Type::call()` in
/// another file, and in type positions; never in a comment or a string.
#[test]
fn rust_references_are_every_use_with_its_kind() {
    let tree = Tree::new()
        .file(
            "src/flags.rs",
            "pub struct Mode(u8);\n\nimpl Mode {\n    pub const READ: Mode = Mode(1);\n\n    pub fn from_bits(bits: u8) -> Mode {\n        Mode(bits)\n    }\n}\n",
        )
        .file(
            "src/lib.rs",
            "mod flags;\n\nuse crate::flags::Mode;\n\n/// Mode in a doc comment is no use.\npub fn open(mode: Mode) -> bool {\n    let read = Mode::READ;\n    let parsed = Mode::from_bits(3);\n    println!(\"Mode\");\n    read.0 == parsed.0 && mode.0 > 0\n}\n",
        );
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "Mode"})),
        "1 definition of 'Mode':
src/flags.rs:1: pub struct Mode(u8);

8 references to 'Mode' in 2 files:
src/flags.rs:3: [type] impl Mode {
src/flags.rs:4: [call, type] pub const READ: Mode = Mode(1);
src/flags.rs:6: [type] pub fn from_bits(bits: u8) -> Mode {
src/flags.rs:7: [call] Mode(bits)
src/lib.rs:3: [import] use crate::flags::Mode;
src/lib.rs:6: [type] pub fn open(mode: Mode) -> bool {
src/lib.rs:7: [path] let read = Mode::READ;
src/lib.rs:8: [path] let parsed = Mode::from_bits(3);"
    );
}

/// The issue's Python example: a class used as a base, in `isinstance`, in annotations, by
/// import, through its module and in a decorator's arguments.
#[test]
fn python_references_are_every_use_with_its_kind() {
    let tree = Tree::new()
        .file(
            "shapes.py",
            "class Shape:\n    pass\n\n\nclass Circle(Shape):\n    pass\n\n\ndef area(x: Shape) -> float:\n    \"\"\"Shape's area.\"\"\"\n    # Shape in a comment\n    if isinstance(x, Shape):\n        return 0.0\n    return 1.0\n\n\ndef all_of(items: list[Shape]) -> list[Shape]:\n    return [Shape() for _ in items]\n",
        )
        .file(
            "main.py",
            "from shapes import Shape\nimport shapes\n\n\n@shapes.register(Shape)\ndef make():\n    return shapes.Shape()\n",
        );
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "Shape"})),
        "1 definition of 'Shape':
shapes.py:1: class Shape:

8 references to 'Shape' in 2 files:
main.py:1: [import] from shapes import Shape
main.py:5: [decorator] @shapes.register(Shape)
main.py:7: [call] return shapes.Shape()
shapes.py:5: [base] class Circle(Shape):
shapes.py:9: [type] def area(x: Shape) -> float:
shapes.py:12: [value] if isinstance(x, Shape):
shapes.py:17: [type] def all_of(items: list[Shape]) -> list[Shape]:
shapes.py:18: [call] return [Shape() for _ in items]"
    );
}

/// A C lookup lists the header's prototype and the source's definition, and the calls; a
/// prototype is no use of the name.
#[test]
fn a_c_lookup_lists_declarations_and_definitions_and_calls() {
    let tree = Tree::new()
        .file(
            "include/list.h",
            "#ifndef LIST_H\n#define LIST_H\n\nint list_len(const int *l);\n\n#endif\n",
        )
        .file(
            "src/list.c",
            "#include \"list.h\"\n\nint list_len(const int *l) {\n    return *l;\n}\n",
        )
        .file(
            "src/main.c",
            "#include \"list.h\"\n\nint main(void) {\n    int n = 1;\n    return list_len(&n);\n}\n",
        );
    let mut server = fs_server(&tree);
    assert_eq!(
        symbols(&mut server, json!({"name": "list_len"})),
        "2 definitions of 'list_len':
include/list.h:4: int list_len(const int *l);
src/list.c:3: int list_len(const int *l) {

1 reference to 'list_len' in 1 file:
src/main.c:5: [call] return list_len(&n);"
    );
}
