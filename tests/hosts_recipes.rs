//! Every stdio recipe in `docs/hosts.md` starts the server as written: each JSON block holding
//! a `command` and `args` is run with the built binary in place of `/opt/fsmcp/bin/fsmcp` (or the
//! macOS and Windows install paths the page names), a
//! fresh directory in place of each example root, and no environment but the recipe's own
//! `env` (as a host spawns it), and must initialize and list its tools over stdio. A recipe
//! whose flags fsmcp would refuse fails here before a reader copies it. The reading and starting
//! are `tests/support/recipes.rs`'s, shared with the README's and docs/cli.md's configurations.

// Tests build their trees with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use support::recipes::host_configs_start;

/// The example roots the page uses (macOS's and Windows' spellings too).
const ROOTS: [&str; 6] = [
    "/home/me/project",
    "/home/me/notes",
    "/srv/reference",
    "/srv/output",
    "/Users/me/Documents/notes",
    r"C:\Users\me\My Notes",
];

#[test]
fn every_stdio_recipe_starts_and_lists_its_tools() {
    let started = host_configs_start("docs/hosts.md", &ROOTS);
    assert!(started >= 6, "found only {started} recipes");
}
