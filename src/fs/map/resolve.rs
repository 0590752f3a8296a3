//! Which references may credit a definition in another file: the ranking's edges are "file A
//! refers to a name file B defines", and a name can collide. A call of a language's builtin
//! or prelude name (`str(x)`, `enumerate(…)`, `Some(…)`, `len(…)`) means the builtin, not a
//! same-named definition elsewhere, unless the file imports that name; a member call of a
//! builtin type's method (`s.startswith(…)`, `xs.push(…)`) means the builtin's; and in Python,
//! JavaScript and TypeScript, where every name from another file is imported, a bare name
//! (`helper()`, not `x.helper()`) that the file neither imports nor defines cannot be another
//! file's (a star import lifts this).
//!
//! Imports are read by a lexical scan of the import statements (`import`, `from … import`,
//! `use …;`, `require(…)`), which may over-count (a module's path words count as imported):
//! that only keeps an edge.

use std::collections::HashSet;

use super::Language;

/// Python's builtins (`dir(builtins)` of CPython 3.11, without the dunder names).
const PYTHON_BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// The methods of Python's builtin types (`str`, `bytes`, `list`, `dict`, `set`, `tuple`,
/// `int`, `float`, `object`), without the dunder names.
const PYTHON_METHODS: &[&str] = &[
    "add",
    "append",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "copy",
    "count",
    "decode",
    "difference",
    "discard",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "find",
    "format_map",
    "fromhex",
    "fromkeys",
    "get",
    "index",
    "insert",
    "intersection",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isdisjoint",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "issubset",
    "issuperset",
    "istitle",
    "isupper",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "pop",
    "popitem",
    "remove",
    "removeprefix",
    "removesuffix",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "symmetric_difference",
    "title",
    "translate",
    "union",
    "update",
    "upper",
    "values",
    "zfill",
];

/// JavaScript's and TypeScript's globals.
const JS_BUILTINS: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "BigInt",
    "Boolean",
    "Buffer",
    "DataView",
    "Date",
    "Error",
    "EvalError",
    "Function",
    "Infinity",
    "Intl",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Set",
    "String",
    "Symbol",
    "SyntaxError",
    "TypeError",
    "URIError",
    "URL",
    "Uint8Array",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "clearInterval",
    "clearTimeout",
    "console",
    "decodeURIComponent",
    "encodeURIComponent",
    "exports",
    "fetch",
    "globalThis",
    "isFinite",
    "isNaN",
    "module",
    "parseFloat",
    "parseInt",
    "process",
    "queueMicrotask",
    "require",
    "setInterval",
    "setTimeout",
    "structuredClone",
    "undefined",
];

/// The methods of JavaScript's builtin objects (arrays, strings, promises, maps, `console`).
const JS_METHODS: &[&str] = &[
    "apply",
    "assign",
    "bind",
    "call",
    "catch",
    "charAt",
    "charCodeAt",
    "concat",
    "endsWith",
    "entries",
    "every",
    "fill",
    "filter",
    "finally",
    "find",
    "findIndex",
    "flat",
    "flatMap",
    "forEach",
    "freeze",
    "from",
    "hasOwnProperty",
    "includes",
    "indexOf",
    "isArray",
    "join",
    "keys",
    "lastIndexOf",
    "log",
    "map",
    "match",
    "now",
    "padEnd",
    "padStart",
    "parse",
    "pop",
    "push",
    "reduce",
    "repeat",
    "replace",
    "reverse",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "split",
    "startsWith",
    "stringify",
    "substring",
    "then",
    "toFixed",
    "toLowerCase",
    "toString",
    "toUpperCase",
    "trim",
    "unshift",
    "values",
    "warn",
];

/// Rust's prelude (types, traits, variants) and the standard library's macros.
const RUST_BUILTINS: &[&str] = &[
    "AsMut",
    "AsRef",
    "Box",
    "Clone",
    "Copy",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "Err",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
    "assert",
    "assert_eq",
    "assert_ne",
    "cfg",
    "concat",
    "dbg",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "env",
    "eprint",
    "eprintln",
    "file",
    "format",
    "format_args",
    "include",
    "include_bytes",
    "include_str",
    "line",
    "matches",
    "panic",
    "print",
    "println",
    "stringify",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// Go's predeclared identifiers.
const GO_BUILTINS: &[&str] = &[
    "any",
    "append",
    "bool",
    "byte",
    "cap",
    "clear",
    "close",
    "comparable",
    "complex",
    "copy",
    "delete",
    "error",
    "false",
    "float32",
    "float64",
    "imag",
    "int",
    "int16",
    "int32",
    "int64",
    "int8",
    "iota",
    "len",
    "make",
    "max",
    "min",
    "new",
    "nil",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "rune",
    "string",
    "true",
    "uint",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "uintptr",
];

/// `java.lang`'s most used classes.
const JAVA_BUILTINS: &[&str] = &[
    "Boolean",
    "Byte",
    "Character",
    "Class",
    "Double",
    "Enum",
    "Exception",
    "Float",
    "IllegalArgumentException",
    "IllegalStateException",
    "Integer",
    "Iterable",
    "Long",
    "Math",
    "NullPointerException",
    "Number",
    "Object",
    "Override",
    "Runnable",
    "RuntimeException",
    "Short",
    "String",
    "StringBuilder",
    "System",
    "Thread",
    "Throwable",
    "Void",
];

/// The C standard library's most used functions.
const C_BUILTINS: &[&str] = &[
    "abort",
    "atoi",
    "calloc",
    "exit",
    "fclose",
    "fgets",
    "fopen",
    "fprintf",
    "fputs",
    "fread",
    "free",
    "fwrite",
    "getenv",
    "malloc",
    "memcmp",
    "memcpy",
    "memmove",
    "memset",
    "printf",
    "qsort",
    "realloc",
    "snprintf",
    "sprintf",
    "strchr",
    "strcmp",
    "strcpy",
    "strdup",
    "strlen",
    "strncmp",
    "strncpy",
    "strrchr",
    "strstr",
    "strtol",
    "vsnprintf",
];

/// The builtin names and builtin types' method names of `language`.
fn builtins(language: Language) -> (&'static [&'static str], &'static [&'static str]) {
    match language {
        Language::Python => (PYTHON_BUILTINS, PYTHON_METHODS),
        Language::JavaScript | Language::TypeScript | Language::Tsx => (JS_BUILTINS, JS_METHODS),
        Language::Rust => (RUST_BUILTINS, &[]),
        Language::Go => (GO_BUILTINS, &[]),
        Language::Java => (JAVA_BUILTINS, &[]),
        Language::C | Language::Cpp => (C_BUILTINS, &[]),
        _ => (&[], &[]),
    }
}

/// Whether every name a file takes from another file must be imported by name.
fn imports_by_name(language: Language) -> bool {
    matches!(
        language,
        Language::Python | Language::JavaScript | Language::TypeScript | Language::Tsx
    )
}

/// The names a file's import statements mention (a superset), and whether one of them
/// imports everything (`from m import *`).
fn imported(language: Language, source: &str) -> (HashSet<&str>, bool) {
    let mut names = HashSet::new();
    let mut star = false;
    let mut statement: Option<(usize, char)> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if statement.is_none() {
            let opens = match language {
                Language::Python => trimmed.starts_with("import ") || trimmed.starts_with("from "),
                Language::JavaScript | Language::TypeScript | Language::Tsx => {
                    trimmed.starts_with("import ")
                        || trimmed.starts_with("export ") && trimmed.contains(" from ")
                        || trimmed.contains("require(")
                }
                Language::Rust => trimmed.starts_with("use ") || trimmed.starts_with("pub use "),
                Language::Java => trimmed.starts_with("import "),
                _ => false,
            };
            if !opens {
                continue;
            }
            let close = match language {
                Language::Python if trimmed.contains('(') && !trimmed.contains(')') => ')',
                Language::Rust => ';',
                Language::JavaScript | Language::TypeScript | Language::Tsx
                    if trimmed.contains('{') && !trimmed.contains('}') =>
                {
                    '}'
                }
                _ => '\n',
            };
            statement = Some((start, close));
        }
        let Some((from, close)) = statement else {
            continue;
        };
        if close == '\n' || line.contains(close) {
            let text = &source[from..offset];
            if language == Language::Python && text.contains("import *") {
                star = true;
            }
            names.extend(
                text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|word| !word.is_empty()),
            );
            statement = None;
        }
    }
    (names, star)
}

/// Per reference of a file (its names, and whether each is bare rather than a member), whether
/// it may credit a definition in another file; see the module documentation.
pub fn credits(
    language: Language,
    source: &[u8],
    references: &[String],
    bare: &[bool],
    defined: &HashSet<&str>,
) -> Vec<bool> {
    let (names, methods) = builtins(language);
    let by_name = imports_by_name(language);
    if names.is_empty() && !by_name {
        return vec![true; references.len()];
    }
    // The map reads only UTF-8 files.
    let text = std::str::from_utf8(source).unwrap_or_default();
    let (imported, star) = imported(language, text);
    references
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let name = name.as_str();
            let is_bare = bare.get(i).copied().unwrap_or(false);
            if imported.contains(name) {
                return true;
            }
            if is_bare {
                !names.contains(&name) && (!by_name || star || defined.contains(name))
            } else {
                !methods.contains(&name)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credited(language: Language, source: &str, refs: &[(&str, bool)]) -> Vec<bool> {
        let names: Vec<String> = refs.iter().map(|(n, _)| (*n).to_owned()).collect();
        let bare: Vec<bool> = refs.iter().map(|(_, b)| *b).collect();
        let defined: HashSet<&str> = ["local"].into_iter().collect();
        credits(language, source.as_bytes(), &names, &bare, &defined)
    }

    #[test]
    fn builtins_and_names_never_imported_credit_nothing() {
        let source = "from shapes import Shape, area\nimport os.path\nfrom str_tools import (\n    fancy,\n)\n";
        assert_eq!(
            credited(
                Language::Python,
                source,
                &[
                    ("str", true),
                    ("Shape", true),
                    ("fancy", true),
                    ("helper", true),
                    ("local", true),
                    ("startswith", false),
                    ("render", false),
                    ("join", false),
                ]
            ),
            [false, true, true, false, true, false, true, false]
        );
        // A star import may bring any name.
        assert_eq!(
            credited(Language::Python, "from m import *\n", &[("helper", true)]),
            [true]
        );
        // Rust: a prelude name the file imports is the crate's own.
        assert_eq!(
            credited(
                Language::Rust,
                "use crate::error::{\n    Error,\n    Result,\n};\n",
                &[("Result", true), ("Option", true), ("helper", true)]
            ),
            [true, false, true]
        );
        assert_eq!(
            credited(
                Language::TypeScript,
                "import { Widget } from './widget';\nconst { a } = require('./a');\n",
                &[
                    ("Widget", true),
                    ("a", true),
                    ("Array", true),
                    ("b", true),
                    ("push", false)
                ]
            ),
            [true, true, false, false, false]
        );
    }
}
