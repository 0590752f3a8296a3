//! Every stdio recipe in `docs/hosts.md` starts the server as written: each JSON block holding
//! a `command` and `args` is run with the built binary in place of `/opt/fsmcp/bin/fsmcp`, a
//! fresh directory in place of each example root, and no environment at all (as a host that
//! passes none spawns it), and must list its tools over stdio. A recipe whose flags fsmcp would
//! refuse fails here before a reader copies it.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use support::*;

/// The example roots the page uses.
const ROOTS: [&str; 4] = [
    "/home/me/project",
    "/home/me/notes",
    "/srv/reference",
    "/srv/output",
];

/// Every object in `value` with a string `command` and an array `args`, with where it was.
fn launches(value: &Value, at: &str, out: &mut Vec<(String, Vec<String>)>) {
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(_)), Some(Value::Array(args))) =
                (map.get("command"), map.get("args"))
            {
                let args = args
                    .iter()
                    .map(|a| a.as_str().expect("string args").to_owned())
                    .collect();
                out.push((at.to_owned(), args));
            }
            for (key, inner) in map {
                launches(inner, &format!("{at}.{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                launches(inner, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_stdio_recipe_starts_and_lists_its_tools() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/hosts.md"))
        .expect("docs/hosts.md");
    let mut recipes = Vec::new();
    for (n, block) in page.split("```json").skip(1).enumerate() {
        let body = block.split("```").next().unwrap();
        let value: Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("JSON block {n} of docs/hosts.md does not parse: {e}"));
        launches(&value, &format!("block {n}"), &mut recipes);
    }
    assert!(recipes.len() >= 6, "found only {} recipes", recipes.len());
    for (at, args) in recipes {
        let tree = Tree::new().file("README.md", "hello\n");
        let root = tree.path().to_str().unwrap().to_owned();
        let args: Vec<String> = args
            .into_iter()
            .map(|a| {
                if ROOTS.contains(&a.as_str()) {
                    root.clone()
                } else {
                    a
                }
            })
            .collect();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut server = Server::start_hermetic(&argv);
        let listed = server.result("tools/list", json!({}));
        let tools = listed["tools"].as_array().map_or(0, Vec::len);
        assert!(tools > 0, "{at}: {args:?} lists no tools: {listed}");
        server.close();
    }
}
