//! What a root serves: include globs, operator excludes, the built-in default excludes, the startup
//! warnings about them, and the walk ceilings (files, directories, depth, entries).

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::json;
use std::collections::BTreeSet;
use support::*;

const BUILT_IN_DIRECTORIES: [&str; 22] = [
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

const ROOT_LEVEL_WARNING: &str = "fsmcp: no --include pattern matches a file in the root itself, so write_text_file will refuse every call. Reads are unaffected. Add an --include glob with no directory prefix, such as '**', if this installation maps the write tool.\n";

fn literal_warning(patterns: &str) -> String {
    format!(
        "fsmcp: --include {patterns} matches a built-in exclude, so nothing it names is served. Pass --no-default-exclude to drop the built-in list.\n"
    )
}

/// Every path `search_files` serves from a tree of these files under these flags.
fn served(files: &[&str], flags: &[&str]) -> Vec<String> {
    let mut tree = Tree::new();
    for file in files {
        tree = tree.file(file, "x\n");
    }
    let mut server = Server::start(tree.path(), flags);
    let first_chars: BTreeSet<String> = files
        .iter()
        .map(|f| f.chars().next().expect("non-empty").to_string())
        .collect();
    assert!(first_chars.len() <= 16);
    let mut paths: Vec<String> = server
        .collect("search_files", json!({"any_of": first_chars}))
        .iter()
        .map(|i| i["path"].as_str().expect("path").to_owned())
        .collect();
    paths.sort();
    paths
}

fn startup_stderr(flags: &[&str]) -> String {
    let tree = Tree::new();
    let root = tree.path().to_str().expect("utf-8 root").to_owned();
    let mut args = vec!["--root", &root];
    args.extend_from_slice(flags);
    let (status, stdout, stderr) = run(&args);
    assert_eq!(status.code(), Some(0), "{flags:?}: {stderr}");
    assert_eq!(stdout, "");
    stderr
}

// ---- globs ----------------------------------------------------------------------------------

#[test]
fn include_globs_match_segments_and_whole_directories() {
    let cases: [(&str, &[&str], &[&str]); 10] = [
        (
            "lib/**",
            &["lib/a.ts", "lib/deep/a.ts", "libx/a.ts", "a.ts"],
            &["lib/a.ts", "lib/deep/a.ts"],
        ),
        ("*.ts", &["a.ts", "lib/a.ts", "a.tsx"], &["a.ts"]),
        (
            "**/*.ts",
            &["a.ts", "x/y/a.ts", "x/a.js"],
            &["a.ts", "x/y/a.ts"],
        ),
        ("lib/*.ts", &["lib/a.ts", "lib/deep/a.ts"], &["lib/a.ts"]),
        ("a?c.ts", &["abc.ts", "ac.ts", "a/c.ts"], &["abc.ts"]),
        ("a.ts", &["a.ts", "axts"], &["a.ts"]),
        (
            "*",
            &[".hidden", "top.md", "sub/x.md"],
            &[".hidden", "top.md"],
        ),
        ("**", &["a", "b/c", "d/e/f.g"], &["a", "b/c", "d/e/f.g"]),
        (
            "a+b(c)[d]{e}|$^.ts",
            &["a+b(c)[d]{e}|$^.ts", "aab(c)[d]{e}|$^.ts"],
            &["a+b(c)[d]{e}|$^.ts"],
        ),
        ("**/", &["a.ts", "x/a.ts"], &[]),
    ];
    for (include, files, expected) in cases {
        assert_eq!(
            served(files, &["--include", include]),
            expected,
            "--include {include}"
        );
    }
}

#[test]
fn several_includes_serve_their_union() {
    assert_eq!(
        served(
            &["docs/a.md", "lib/b.ts", "other/c.ts", "top.md"],
            &["--include", "docs/**", "--include", "lib/**"]
        ),
        ["docs/a.md", "lib/b.ts"]
    );
}

#[test]
fn an_exclude_only_narrows() {
    let files = ["lib/a.ts", "lib/b.md", "docs/c.md"];
    assert_eq!(
        served(&files, &["--include", "lib/**", "--exclude", "**/*.md"]),
        ["lib/a.ts"]
    );
    assert_eq!(
        served(&files, &["--include", "lib/**", "--exclude", "docs/**"]),
        ["lib/a.ts", "lib/b.md"]
    );
    assert_eq!(
        served(&files, &["--include", "**", "--exclude", "nothing-matches"]),
        ["docs/c.md", "lib/a.ts", "lib/b.md"]
    );
}

#[test]
fn an_excluded_directory_hides_everything_beneath_it() {
    let tree = Tree::new()
        .file("secret/creds.txt", "needle creds\n")
        .file("secret/deeper/more.txt", "needle more\n")
        .file("public.txt", "needle public\n");
    let mut server = Server::start(tree.path(), &["--include", "**", "--exclude", "secret"]);
    assert_eq!(server.find("txt"), ["public.txt"]);
    assert_eq!(server.names(""), ["public.txt"]);
    assert!(server.names("secret").is_empty());
    assert_eq!(
        server.grep(json!({"query": "needle"})),
        [("public.txt".to_owned(), 1, "needle public".to_owned())]
    );
    assert!(
        server
            .grep(json!({"query": "needle", "path": "secret"}))
            .is_empty()
    );
    for path in ["secret/creds.txt", "secret/deeper/more.txt"] {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            "path matches an --exclude pattern of this root",
            "{path}"
        );
    }
}

#[test]
fn an_excluded_ancestor_deep_in_the_path_is_refused_by_reads() {
    let tree = Tree::new()
        .file("a/b/hide/x.txt", "x")
        .file("a/b/show/x.txt", "y");
    let mut server = Server::start(tree.path(), &["--include", "**", "--exclude", "a/b/hide"]);
    assert_eq!(
        server.call_error("read_text_file", json!({"path": "a/b/hide/x.txt"})),
        "path matches an --exclude pattern of this root"
    );
    assert_eq!(server.read(json!({"path": "a/b/show/x.txt"})), "y");
    assert_eq!(server.find("x.txt"), ["a/b/show/x.txt"]);
}

#[test]
fn operator_excludes_follow_the_filesystems_case_rule() {
    // Where filesystems ignore case (a Windows binary here), no spelling gets past an exclude.
    let expected: &[&str] = if windows_binary() {
        &[]
    } else {
        &["Build/y.txt"]
    };
    assert_eq!(
        served(
            &["build/x.txt", "Build/y.txt"],
            &["--include", "**", "--exclude", "build/**"]
        ),
        expected
    );
}

// ---- built-in default excludes --------------------------------------------------------------

#[test]
fn built_in_directories_are_hidden_at_any_depth() {
    let mut files = vec!["visible/f.txt".to_owned()];
    for name in BUILT_IN_DIRECTORIES {
        files.push(format!("{name}/f.txt"));
        files.push(format!("sub/{name}/deep/f.txt"));
    }
    let mut tree = Tree::new();
    for file in &files {
        tree = tree.file(file, "needle\n");
    }
    let mut server = Server::serving(&tree);
    assert_eq!(server.find("f.txt"), ["visible/f.txt"]);
    assert_eq!(server.names(""), ["visible"]);
    assert_eq!(server.grep(json!({"query": "needle"})).len(), 1);
}

#[test]
fn built_in_file_globs_are_hidden_at_any_depth() {
    let hidden = [
        ".env",
        ".env.local",
        "a.p12",
        "a.pem",
        "a.pfx",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
        "sub/.env",
        "sub/deep/server.pem",
        "sub/id_rsa",
    ];
    let mut files: Vec<&str> = hidden.to_vec();
    files.push("kept.txt");
    assert_eq!(served(&files, &["--include", "**"]), ["kept.txt"]);
}

#[test]
fn look_alike_names_are_not_excluded() {
    let files = [
        "build/f.txt",
        "dist/f.txt",
        "target/f.txt",
        "coverage/f.txt",
        "cover/f.txt",
        "slides.key",
        ".gitignore",
        ".envrc",
        "id_rsa.pub",
        "my_node_modules/f.txt",
        "deps.txt",
    ];
    let mut expected: Vec<String> = files.iter().map(|f| f.to_string()).collect();
    expected.sort();
    assert_eq!(served(&files, &["--include", "**"]), expected);
}

#[test]
fn built_ins_match_case_insensitively() {
    assert_eq!(
        served(
            &[
                "NODE_MODULES/pkg.js",
                ".ENV",
                "SERVER.PEM",
                ".Git/config",
                "kept.txt"
            ],
            &["--include", "**"]
        ),
        ["kept.txt"]
    );
}

#[test]
fn no_default_exclude_drops_the_whole_list() {
    let files = ["node_modules/pkg.js", ".env", "server.pem", ".git/config"];
    let mut expected: Vec<String> = files.iter().map(|f| f.to_string()).collect();
    expected.sort();
    assert_eq!(
        served(&files, &["--include", "**", "--no-default-exclude"]),
        expected
    );
}

#[test]
fn built_in_excludes_refuse_named_reads_and_empty_listings() {
    let tree = Tree::new()
        .file(".env", "SECRET=1\n")
        .file("node_modules/pkg/index.js", "x")
        .file("sub/.git/config", "x")
        .file("keys/server.PEM", "x");
    let mut server = Server::serving(&tree);
    for path in [
        ".env",
        "node_modules/pkg/index.js",
        "sub/.git/config",
        "keys/server.PEM",
    ] {
        assert_eq!(
            server.call_error("read_text_file", json!({"path": path})),
            "path matches an --exclude pattern of this root",
            "{path}"
        );
    }
    assert!(server.names("node_modules").is_empty());
    assert!(server.names("node_modules/pkg").is_empty());
}

// ---- startup warnings -----------------------------------------------------------------------

#[test]
fn an_include_set_that_cannot_reach_the_root_is_warned_about() {
    let cases: [(&[&str], bool); 8] = [
        (&["**"], false),
        (&["*"], false),
        (&["*.md"], false),
        (&["**/*.ts"], false),
        (&["lib/**"], true),
        (&["lib/**/*.ts"], true),
        (&["docs/**", "lib/**"], true),
        (&["docs/**", "*.md"], false),
    ];
    for (includes, warned) in cases {
        let flags: Vec<&str> = includes.iter().flat_map(|i| ["--include", i]).collect();
        let expected = if warned { ROOT_LEVEL_WARNING } else { "" };
        assert_eq!(startup_stderr(&flags), expected, "{includes:?}");
    }
}

#[test]
fn reads_work_despite_the_root_level_warning() {
    let tree = Tree::new().file("lib/a.txt", "a\n");
    let mut server = Server::start(tree.path(), &["--include", "lib/**"]);
    assert_eq!(server.read(json!({"path": "lib/a.txt"})), "a\n");
    let (_, stderr) = server.close();
    assert_eq!(stderr, ROOT_LEVEL_WARNING);
}

#[test]
fn a_literal_include_defeated_by_a_built_in_is_warned_about() {
    let cases: [(&[&str], String); 7] = [
        (&["**", ".env"], literal_warning(".env")),
        (
            &[".env", "node_modules"],
            literal_warning(".env, node_modules"),
        ),
        (&[".ENV"], literal_warning(".ENV")),
        (&["*.pem"], String::new()),
        (&["id_rs?"], String::new()),
        (&["README.md"], String::new()),
        (
            &["node_modules/x.js"],
            format!(
                "{ROOT_LEVEL_WARNING}{}",
                literal_warning("node_modules/x.js")
            ),
        ),
    ];
    for (includes, expected) in cases {
        let flags: Vec<&str> = includes.iter().flat_map(|i| ["--include", i]).collect();
        assert_eq!(startup_stderr(&flags), expected, "{includes:?}");
    }
}

#[test]
fn no_default_exclude_silences_the_literal_include_warning() {
    assert_eq!(
        startup_stderr(&["--include", ".env", "--no-default-exclude"]),
        ""
    );
}

#[test]
fn include_everything_writes_nothing_to_stderr() {
    assert_eq!(startup_stderr(&["--include", "**"]), "");
}

// ---- walk ceilings (§5.6) -------------------------------------------------------------------

fn files(names: &[&str]) -> Tree {
    let mut tree = Tree::new();
    for name in names {
        tree = tree.file(name, "needle\n");
    }
    tree
}

fn limited(tree: &Tree, flags: &[&str]) -> Server {
    let mut args = vec!["--include", "**"];
    args.extend_from_slice(flags);
    Server::start(tree.path(), &args)
}

fn find_error(tree: &Tree, flags: &[&str]) -> String {
    limited(tree, flags).call_error("search_files", json!({"query": "a"}))
}

fn list_error(tree: &Tree, flags: &[&str], path: &str) -> String {
    limited(tree, flags).call_error("list_directory", json!({"path": path}))
}

#[test]
fn max_files_counts_served_files() {
    let tree = files(&["a1.txt", "a2.txt", "a3.txt", "a.log", "b.log"]);
    assert_eq!(
        limited(&tree, &["--max-files", "3"]).call_error("search_files", json!({"query": "a"})),
        "file limit exceeded"
    );
    let mut server = Server::start(tree.path(), &["--include", "*.txt", "--max-files", "3"]);
    assert_eq!(server.find("a").len(), 3);
}

#[test]
fn max_files_bounds_a_search_text_scope() {
    let tree = files(&["in/a.txt", "in/b.txt", "out/c.txt", "out/d.txt"]);
    let mut server = limited(&tree, &["--max-files", "2"]);
    assert_eq!(
        server.grep(json!({"query": "needle", "path": "in"})).len(),
        2
    );
    assert_eq!(
        server.call_error("search_text", json!({"query": "needle"})),
        "file limit exceeded"
    );
}

#[test]
fn max_files_bounds_the_entries_of_one_listing() {
    let tree = files(&["a.txt", "b.txt", "c/d.txt"]);
    assert_eq!(
        list_error(&tree, &["--max-files", "2"], ""),
        "file limit exceeded"
    );
    assert_eq!(
        limited(&tree, &["--max-files", "3"]).names(""),
        ["a.txt", "b.txt", "c"]
    );
}

#[test]
fn max_depth_zero_serves_the_root_level_only() {
    let flat = files(&["a.txt", "b.txt"]);
    let mut server = limited(&flat, &["--max-depth", "0"]);
    assert_eq!(server.find("a"), ["a.txt"]);
    assert_eq!(server.names(""), ["a.txt", "b.txt"]);

    let nested = files(&["a.txt", "d/a.txt"]);
    assert_eq!(
        find_error(&nested, &["--max-depth", "0"]),
        "directory depth limit exceeded"
    );
    assert_eq!(
        list_error(&nested, &["--max-depth", "0"], ""),
        "directory depth limit exceeded"
    );
}

#[test]
fn max_depth_bounds_walks_and_listing_prefixes() {
    let tree = files(&["a/x.txt", "a/b/x.txt"]);
    assert_eq!(
        find_error(&tree, &["--max-depth", "1"]),
        "directory depth limit exceeded"
    );
    assert_eq!(limited(&tree, &["--max-depth", "2"]).find("a").len(), 2);
    assert_eq!(
        list_error(&tree, &["--max-depth", "1"], "a/b"),
        "directory depth limit exceeded"
    );
    assert_eq!(
        list_error(&tree, &["--max-depth", "1"], "a/b/missing"),
        "directory depth limit exceeded"
    );
}

#[test]
fn excluded_directories_are_not_walked_so_do_not_count() {
    let tree = files(&["a.txt", "node_modules/p/q/r/s.js"]);
    let mut server = limited(&tree, &["--max-depth", "0", "--max-directories", "1"]);
    assert_eq!(server.find("a"), ["a.txt"]);
}

#[test]
fn max_directories_counts_directories_entered() {
    let tree = files(&["a.txt", "d1/a.txt", "d2/a.txt"]);
    assert_eq!(
        find_error(&tree, &["--max-directories", "2"]),
        "directory limit exceeded"
    );
    assert_eq!(
        limited(&tree, &["--max-directories", "3"]).find("a").len(),
        3
    );
}

#[test]
fn a_listing_charges_its_depth_and_its_probes_against_max_directories() {
    let tree = files(&["a/b/x.txt", "top.txt"]);
    assert_eq!(
        list_error(&tree, &["--max-directories", "2"], "a/b"),
        "directory limit exceeded"
    );
    assert_eq!(
        list_error(&tree, &["--max-directories", "1"], ""),
        "directory limit exceeded"
    );
    let flat = files(&["top.txt"]);
    assert_eq!(
        limited(&flat, &["--max-directories", "1"]).names(""),
        ["top.txt"]
    );
}

#[test]
fn max_entries_counts_every_entry_read_including_skipped_ones() {
    let tree = files(&["a.txt", "b.txt", "c.txt"]);
    assert_eq!(
        find_error(&tree, &["--max-entries", "2"]),
        "directory entry limit exceeded"
    );
    assert_eq!(limited(&tree, &["--max-entries", "3"]).find("txt").len(), 3);

    let skipped = files(&["a.txt", ".env", "b.pem", "c.log"]);
    let mut server = Server::start(
        skipped.path(),
        &["--include", "*.txt", "--max-entries", "3"],
    );
    assert_eq!(
        server.call_error("search_files", json!({"query": "a"})),
        "directory entry limit exceeded"
    );
}

#[test]
fn a_listing_charges_the_entries_it_reads() {
    let tree = files(&[
        "1.txt", "2.txt", "3.txt", "4.txt", "5.txt", "6.txt", "7.txt",
    ]);
    assert_eq!(
        list_error(&tree, &["--max-entries", "6"], ""),
        "directory entry limit exceeded"
    );
    assert_eq!(limited(&tree, &["--max-entries", "7"]).names("").len(), 7);
}

#[test]
fn a_probe_charges_every_entry_whatever_the_served_file_is_named() {
    for served in ["d/aaa.txt", "d/zzz.txt"] {
        let mut tree = Tree::new().file(served, "x");
        for i in 1..=12 {
            tree = tree.file(&format!("d/f{i:02}.dat"), "x");
        }
        let mut server = Server::start(
            tree.path(),
            &["--include", "**/*.txt", "--max-entries", "6"],
        );
        for attempt in 1..=2 {
            assert_eq!(
                server.call_error("list_directory", json!({})),
                "directory entry limit exceeded",
                "{served}, call {attempt}"
            );
        }
        let mut roomy = Server::start(
            tree.path(),
            &["--include", "**/*.txt", "--max-entries", "14"],
        );
        assert_eq!(roomy.names(""), ["d"], "{served}");
    }
}

#[test]
fn the_default_depth_limit_is_64() {
    let at_limit = format!("{}x.txt", "d/".repeat(64));
    let beyond = format!("{}x.txt", "d/".repeat(65));
    let (shallow, deep) = (files(&[&at_limit]), files(&[&beyond]));
    assert_eq!(Server::serving(&shallow).find("x.txt"), [at_limit]);
    assert_eq!(
        Server::serving(&deep).call_error("search_files", json!({"query": "x"})),
        "directory depth limit exceeded"
    );
}
