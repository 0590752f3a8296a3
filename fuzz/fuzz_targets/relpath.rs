//! `RelPath::parse` on arbitrary text: it never panics, what it accepts is already in normal
//! form (it re-parses to itself and `from_walk` takes it back), and nothing it accepts can leave
//! the root or alias outside it.

#![no_main]
// A harness, like the tests: it stands outside the root (and `fuzz_target!` itself opens a
// debug file by path), so the library's filesystem rule does not apply.
#![allow(clippy::disallowed_methods)]

use fsmcp::root::{MAX_PATH_UNITS, RelPath};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    let Ok(path) = RelPath::parse(input) else {
        return;
    };
    let text = path.as_str();
    assert_eq!(RelPath::parse(text).as_ref(), Ok(&path), "{input:?}");
    assert_eq!(RelPath::from_walk(text.to_owned()).as_ref(), Some(&path));
    assert!(!text.contains('\0') && !text.contains('\\'), "{input:?}");
    assert!(!text.starts_with('/') && !text.ends_with('/'), "{input:?}");
    let bytes = text.as_bytes();
    assert!(
        !(bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'),
        "drive prefix accepted: {input:?}"
    );
    assert!(text.encode_utf16().count() <= MAX_PATH_UNITS);
    for segment in text.split('/').filter(|_| !text.is_empty()) {
        assert!(
            !segment.is_empty() && segment != "." && segment != "..",
            "{input:?} gave the segment {segment:?}"
        );
    }
    assert_eq!(path.is_root(), text.is_empty());
    assert_eq!(path.depth(), path.segments().count());
    // The accessors agree with each other.
    match path.parent() {
        None => assert!(path.is_root()),
        Some(parent) => {
            let name = path.file_name().expect("a non-root path has a name");
            assert_eq!(parent.join(name), text);
            assert!(parent.contains(text));
            assert!(path.is_below(parent.as_str()));
            assert_eq!(parent.depth() + 1, path.depth());
        }
    }
});
