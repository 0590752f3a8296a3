//! Tool-argument decoding: an arbitrary JSON object as the arguments of a published tool, run
//! on real tool sets over a small root in a temporary directory.
//!
//! The input is `TOOL NEWLINE JSON`: the first line names the tool (a name no tool has picks
//! one by its bytes), the rest is the arguments; input that is not a JSON object is skipped.
//! Two roots over one directory are published: `ptc` + `fs_*` (links skipped, random cursor
//! key) and `ff_*` (links followed, the contract's deterministic key, 64-byte reads).
//!
//! Oracles: nothing panics; the arguments are checked against every tool's input schema, and a
//! call whose arguments (under the schema's own names, for tools that take other spellings)
//! violate the schema is refused with the validation wording; a success
//! carries structured content exactly when the tool advertises an output schema; no answer
//! ever shows the content of a file outside the root (reached through links planted inside it);
//! nothing outside the root is created, changed or removed. After a mutating tool runs, the
//! root is laid out afresh. With `FSMCP_FUZZ_DEBUG` set, every call and outcome is printed.

#![no_main]
// A harness, like the tests: it stands outside the root (and `fuzz_target!` itself opens a
// debug file by path), so the library's filesystem rule does not apply.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use fsmcp::config::{Limits, RootConfig, ToolSelection};
use fsmcp::root::{Root, Selector};
use fsmcp::{Registry, publish, violations};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The content of the one file outside the root: no answer may ever show it.
const SECRET: &str = "outside-the-root-Zq7xK9";

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    registry: Registry,
}

fn lay_out(root: &Path) {
    for entry in std::fs::read_dir(root).expect("read the root") {
        let path = entry.expect("entry").path();
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path).expect("clear a dir"),
            Ok(_) => std::fs::remove_file(&path).expect("clear a file"),
            Err(_) => {}
        }
    }
    let files: [(&str, &str); 8] = [
        ("a.txt", "alpha\nbeta\ngamma\n"),
        ("b.txt", ""),
        ("lib/main.rs", "fn main() {\n    println!(\"é ü 😀\");\n}\n"),
        (
            "lib/deep/x.md",
            "# Title\r\nline two\r\n\u{feff}not a bom here\n",
        ),
        ("notes/todo.md", "- [ ] one\n- [x] two\n"),
        (".env", "TOKEN=not-served\n"),
        ("node_modules/pkg/index.js", "module.exports = 1;\n"),
        ("big.txt", ""),
    ];
    for (path, content) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
    }
    std::fs::write(root.join("big.txt"), "0123456789abcdef\n".repeat(300)).expect("big");
    std::fs::write(root.join("bin.dat"), [0u8, 159, 146, 150, 0xff, b'\n']).expect("binary");
    std::fs::create_dir(root.join("empty")).expect("empty dir");
    std::os::unix::fs::symlink("../outside", root.join("out")).expect("link");
    std::os::unix::fs::symlink("../../outside/secret.txt", root.join("lib/secret.txt"))
        .expect("link");
    std::os::unix::fs::symlink("a.txt", root.join("inside_link.txt")).expect("link");
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().to_path_buf();
        let root = base.join("root");
        std::fs::create_dir(base.join("outside")).expect("outside");
        std::fs::write(base.join("outside/secret.txt"), SECRET).expect("secret");
        std::fs::create_dir(&root).expect("root");
        lay_out(&root);

        let everything = vec!["**".to_owned()];
        let plain = Root::open(
            &root,
            Selector::new(&everything, &[], true),
            Limits::default(),
        )
        .expect("open the root");
        let small = Limits {
            max_read_bytes: 64,
            ..Limits::default()
        };
        let following = Root::open(
            &root,
            Selector::new(&everything, &["notes/**".to_owned()], true),
            small,
        )
        .expect("open the root again")
        .with_follow_symlinks(true);
        let mut registry = Registry::new();
        let both = ToolSelection {
            ptc: true,
            fs: true,
        };
        let fs_only = ToolSelection {
            ptc: false,
            fs: true,
        };
        let config = |tools, prefix: &str| RootConfig {
            tools,
            prefix: prefix.to_owned(),
            ..RootConfig::default()
        };
        publish(&mut registry, &Arc::new(plain), &config(both, "fs"), None, 200)
            .expect("publish");
        let key = Some(vec![7u8; 32]);
        publish(&mut registry, &Arc::new(following), &config(fs_only, "ff"), key, 200)
            .expect("publish");
        Fixture {
            _dir: dir,
            base,
            root,
            registry,
        }
    })
}

/// Everything outside the root, as names and contents.
fn outside_state(base: &Path) -> Vec<(String, Vec<u8>)> {
    let mut seen: Vec<(String, Vec<u8>)> = std::fs::read_dir(base)
        .expect("read the base")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .map(|name| (name, Vec::new()))
        .collect();
    for entry in std::fs::read_dir(base.join("outside")).expect("read outside") {
        let entry = entry.expect("entry");
        let content = std::fs::read(entry.path()).unwrap_or_default();
        seen.push((
            format!("outside/{}", entry.file_name().to_string_lossy()),
            content,
        ));
    }
    seen.sort();
    seen
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (name, json) = (&data[..split], data.get(split + 1..).unwrap_or_default());
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let entries = f.registry.entries();
    let entry = std::str::from_utf8(name)
        .ok()
        .and_then(|name| f.registry.get(name))
        .unwrap_or_else(|| {
            let pick = name
                .iter()
                .fold(0usize, |acc, &b| acc.wrapping_mul(31) + usize::from(b));
            &entries[pick % entries.len()]
        });

    // The schema check alone, against every published schema.
    for other in entries {
        let _ = violations(&other.spec.input_schema, &Value::Object(arguments.clone()));
    }

    // The schema is checked against the arguments under its own names: the fs tools also
    // take another tool's spelling of a name (`old_string`, `Path`), and refuse one given twice.
    let invalid = match entry.spec.respelled(&arguments) {
        Ok(respelled) => {
            let mut advertised = respelled.unwrap_or_else(|| arguments.clone());
            for name in entry.spec.reserved {
                advertised.remove(*name);
            }
            !violations(&entry.spec.input_schema, &Value::Object(advertised)).is_empty()
        }
        Err(_) => true,
    };
    let outcome = entry.call(&arguments);
    if std::env::var_os("FSMCP_FUZZ_DEBUG").is_some() {
        eprintln!("{} {:?} -> {:?}", entry.spec.name, arguments, outcome);
    }
    match &outcome {
        Ok(output) => {
            assert!(
                !invalid,
                "{} accepted arguments its schema refuses",
                entry.spec.name
            );
            assert_eq!(
                output.structured.is_some(),
                entry.spec.output_schema.is_some(),
                "{}: structured content and output schema disagree",
                entry.spec.name
            );
        }
        Err(message) => {
            assert!(!message.is_empty());
            if invalid {
                assert!(
                    message.starts_with("Input validation error: "),
                    "{}: {message}",
                    entry.spec.name
                );
            }
        }
    }
    let shown = match &outcome {
        Ok(output) => format!(
            "{}{}",
            output.text,
            output
                .structured
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default()
        ),
        Err(message) => message.clone(),
    };
    if !String::from_utf8_lossy(data).contains(SECRET) {
        assert!(
            !shown.contains(SECRET),
            "{} showed a file outside the root: {shown}",
            entry.spec.name
        );
    }
    if !entry.spec.read_only {
        assert_eq!(
            outside_state(&f.base),
            [
                ("outside".to_owned(), Vec::new()),
                ("outside/secret.txt".to_owned(), SECRET.as_bytes().to_vec()),
                ("root".to_owned(), Vec::new()),
            ],
            "{} changed something outside the root",
            entry.spec.name
        );
        lay_out(&f.root);
    }
});
