//! `search_text`'s binary rule: a file whose first 8 KiB hold a line with both a NUL and
//! invalid UTF-8 is skipped.
//!
//! ptc-fs-mcp's contract, and deliberately not the fs tools' rule (`fs_grep` skips a file with
//! any NUL in its first 8 KiB and searches other bytes; the map reads only UTF-8 without a
//! NUL): the page's scan and the judging ahead on the pool (`ahead`) share this one.

use crate::ptc::utf8::valid_prefix;

/// Whether the sniffed opening bytes mark a binary file: some line holds a NUL and is not
/// valid UTF-8. The unterminated tail counts only if it holds a NUL; unless it ends the file,
/// a scalar cut by the sniff boundary is tolerated.
pub(in crate::ptc) fn is_binary(sniff: &[u8], whole_file: bool) -> bool {
    // Only lines holding a NUL are judged: go from NUL to NUL.
    let mut from = 0;
    while let Some(nul) = memchr::memchr(0, &sniff[from..]).map(|i| from + i) {
        let start = memchr::memrchr(b'\n', &sniff[from..nul]).map_or(from, |i| from + i + 1);
        match memchr::memchr(b'\n', &sniff[nul..]).map(|i| nul + i) {
            Some(newline) => {
                if std::str::from_utf8(&sniff[start..newline]).is_err() {
                    return true;
                }
                from = newline + 1;
            }
            None if whole_file => return std::str::from_utf8(&sniff[start..]).is_err(),
            None => return valid_prefix(&sniff[start..]).is_none(),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptc::search_text::tests::Rng;

    #[test]
    fn binary_sniff_follows_the_reference_table() {
        let mut big = vec![0x00, 0xff, 0xfe, 0x00];
        big.extend(std::iter::repeat_n(0xc0, 8188));
        assert!(is_binary(&big, false));
        let mut nl = vec![0x00, 0xff, 0xfe, 0x00, 0x0a];
        nl.extend(std::iter::repeat_n(0xc0, 8187));
        assert!(is_binary(&nl, false));
        assert!(is_binary(b"text\0\xff", true));
        assert!(!is_binary(
            b"first line\nsecond\0line has a nul\nneedle here\n",
            true
        ));
        assert!(!is_binary(b"needle up top\n\xff\xfe\n", true));
        assert!(!is_binary(b"needle here\n\0\n\xff\n", true));
        assert!(!is_binary(&[0xc0; 8192], false));
    }

    /// The line-by-line binary sniff `is_binary` replaced.
    fn reference_is_binary(sniff: &[u8], whole_file: bool) -> bool {
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', sniff) {
            let line = &sniff[start..newline];
            if memchr::memchr(0, line).is_some() && std::str::from_utf8(line).is_err() {
                return true;
            }
            start = newline + 1;
        }
        let tail = &sniff[start..];
        if memchr::memchr(0, tail).is_none() {
            return false;
        }
        if whole_file {
            std::str::from_utf8(tail).is_err()
        } else {
            valid_prefix(tail).is_none()
        }
    }

    #[test]
    fn binary_sniff_equals_the_line_by_line_sniff() {
        let mut rng = Rng(7);
        const BYTES: &[u8] = b"\0\n\n\xff\xc3\xa9\xe2\x82\xacab\r";
        for _ in 0..200_000 {
            let len = rng.below(40) as usize;
            let sniff: Vec<u8> = (0..len).map(|_| *rng.pick(BYTES)).collect();
            for whole in [false, true] {
                assert_eq!(
                    is_binary(&sniff, whole),
                    reference_is_binary(&sniff, whole),
                    "{sniff:?} {whole}"
                );
            }
        }
    }
}
