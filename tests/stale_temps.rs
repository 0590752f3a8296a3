//! What killed writes and copies leave under fsmcp's temp names (`.fsmcp-<hex>.tmp`) is
//! removed when a server starts, unless a live process is building it: such leftovers are
//! never shown, take disk (an unfinished copy: hundreds of megabytes), and make the directory
//! holding them impossible to delete, move or copy recursively through the tools.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::attack::call_line;
use support::fs::*;
use support::race::hold_lock;
use support::*;

/// Leftovers as killed servers leave them: a temp file and an unfinished copy (a directory
/// with a read-only subdirectory and a link out of the root inside) in the root and in a
/// subdirectory.
const STALE: [&str; 4] = [
    ".fsmcp-0123abcd.tmp",
    ".fsmcp-00000000deadbeef.tmp",
    "sub/.fsmcp-00000000000000aa.tmp",
    "sub/.fsmcp-00000000000000bb.tmp",
];

/// Temp entries a live process is building (this test holds their locks, as it would).
const HELD: [&str; 2] = [
    "busy/.fsmcp-000000000000beef.tmp",
    "busy/.fsmcp-000000000000cafe.tmp",
];

/// Waits (up to ten seconds, or the harness's longer wait under an emulator) until none of
/// `paths` is on disk; the ones still there otherwise.
fn gone_within(tree: &Tree, paths: &[&str]) -> Vec<String> {
    let until = Instant::now() + timeout();
    loop {
        let left: Vec<String> = paths
            .iter()
            .filter(|p| exists(tree, p))
            .map(|p| (*p).to_owned())
            .collect();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn stale_temp_entries_are_removed_at_start_up_and_live_ones_kept() {
    if windows_binary() {
        eprintln!(
            "skipped: Windows takes a temp entry for stale only after two days untouched \
             (no lock on a directory there), so a fresh one is kept"
        );
        return;
    }
    let outside = Tree::new().file("keep/precious.txt", "precious\n");
    let tree = Tree::new()
        .file("a.txt", "real\n")
        .file("sub/keep.txt", "kept\n")
        .file(".fsmcp-notes.tmp", "not a name fsmcp gives\n")
        .file(STALE[0], "half a write\n")
        .file(&format!("{}/part/of/a.copy", STALE[1]), "copied\n")
        .symlink(&format!("{}/out", STALE[1]), outside.path())
        .file(&format!("{}/inner/f.txt", STALE[2]), "copied\n")
        .file(STALE[3], "half a write\n")
        .file(HELD[0], "being written\n")
        .file(&format!("{}/x.txt", HELD[1]), "being copied\n");
    tree.chmod(&format!("{}/part/of", STALE[1]), 0o555);
    tree.chmod(&format!("{}/inner", STALE[2]), 0o555);
    let held: Vec<std::fs::File> = HELD.iter().map(|p| hold_lock(&tree.join(p))).collect();
    let outside_before = snapshot(outside.path());

    let mut server = fs_server_with(&tree, &["--log-level", "info"]);
    let left = gone_within(&tree, &STALE);
    assert!(
        left.is_empty(),
        "still on disk after the sweep's wait: {left:?}"
    );
    // The parent of a leftover can be deleted again, and a busy one cannot.
    assert_eq!(
        fs_text(
            &mut server,
            "fs_delete",
            json!({"path": "sub", "recursive": true})
        ),
        "Deleted directory 'sub' and everything below it"
    );
    assert!(!exists(&tree, "sub"));
    assert_eq!(
        fs_error(
            &mut server,
            "fs_delete",
            json!({"path": "busy", "recursive": true})
        ),
        "Directory 'busy' holds a name in 'busy' that no path can spell (not UTF-8, or a write's temporary file), which this root does not serve and which is no cache or dependency directory's; delete refuses to remove what it cannot show"
    );
    let (_, log) = server.close();
    assert!(
        log.contains("stale temp entries: 4 removed, 2 held by a live process, 0 left"),
        "{log}"
    );
    for path in HELD {
        assert!(exists(&tree, path), "'{path}' was removed while held");
    }
    assert!(exists(&tree, ".fsmcp-notes.tmp"));
    assert_eq!(tree.names(""), [".fsmcp-notes.tmp", "a.txt", "busy"]);
    assert_eq!(snapshot(outside.path()), outside_before);

    // Once its builder is gone, a later start-up takes it too.
    drop(held);
    let server = fs_server(&tree);
    let left = gone_within(&tree, &HELD);
    assert!(left.is_empty(), "released, yet still on disk: {left:?}");
    server.close();
}

/// Two servers on one root (as behind a load balancer): one starting while the other builds
/// a copy leaves the unfinished copy alone, since its builder holds it locked, and the copy
/// is put in place whole.
#[test]
fn a_copy_being_built_by_a_live_server_is_left_alone() {
    if windows_binary() {
        eprintln!("skipped: Windows keeps every temp entry younger than two days");
        return;
    }
    let chunk = vec![b'c'; 256 << 10];
    let mut tree = Tree::new();
    for n in 0..240 {
        tree = tree.file(&format!("src/d{}/f{n}.bin", n % 8), &chunk);
    }
    let mut builder = fs_server(&tree);
    builder.send_line(&call_line(
        &json!(1),
        "fs_copy",
        &json!({"from": "src", "to": "dst"}),
    ));
    // Wait for the unfinished copy to appear, then start a second server over the root.
    let until = Instant::now() + timeout();
    let building = loop {
        let temps: Vec<String> = tree
            .names("")
            .into_iter()
            .filter(|n| n.starts_with(".fsmcp-"))
            .collect();
        if !temps.is_empty() || Instant::now() >= until {
            break temps;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if building.is_empty() {
        eprintln!("skipped: the copy finished before its temp directory was seen");
        return;
    }
    let newcomer = fs_server_with(&tree, &["--log-level", "info"]);
    let answer = builder.next_message();
    // The sweep starts two seconds after start-up (SWEEP_DELAY) and logs when it is done.
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Copied directory 'src' to 'dst' (240 files, 62914560 bytes)",
        "{answer}"
    );
    let (_, log) = newcomer.close();
    let swept = log
        .lines()
        .find(|l| l.contains("stale temp entries"))
        .unwrap_or_default();
    println!("{swept}");
    // Either it saw the copy being built and left it, or the copy was in place by then.
    assert!(
        swept.contains("0 removed, 1 held") || swept.contains("0 removed, 0 held"),
        "{log}"
    );
    let diff = std::process::Command::new("diff")
        .args(["-r", "src", "dst"])
        .current_dir(tree.path())
        .status()
        .expect("run diff");
    assert!(diff.success(), "the copy is not whole");
    builder.close();
}

/// A read-only server changes nothing on disk, leftovers included.
#[test]
fn a_read_only_server_sweeps_nothing() {
    let tree = Tree::new()
        .file("a.txt", "real\n")
        .file(STALE[0], "half a write\n");
    let before = snapshot(tree.path());
    let mut server = fs_server_with(&tree, &["--read-only"]);
    // A call answered shows the server up; a serving server would sweep soon after.
    fs_text(&mut server, "fs_list", json!({"path": "."}));
    // Past the two seconds after which a serving server's sweep would start (SWEEP_DELAY).
    std::thread::sleep(Duration::from_millis(2_500));
    server.close();
    assert_eq!(snapshot(tree.path()), before);
    assert!(exists(&tree, STALE[0]));
}
