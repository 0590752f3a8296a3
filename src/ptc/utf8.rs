//! UTF-8 boundary rules shared by reads and search evidence.

/// Length of the longest prefix among `len`, `len-1`, `len-2`, `len-3` that is valid UTF-8, so a
/// scalar cut at the end is deferred rather than split; `None` when none is (or only the empty
/// prefix is).
pub fn valid_prefix(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    (0..=3.min(len))
        .map(|cut| len - cut)
        .filter(|&n| n > 0)
        .find(|&n| std::str::from_utf8(&bytes[..n]).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defers_a_cut_scalar() {
        assert_eq!(valid_prefix(b"abc"), Some(3));
        assert_eq!(valid_prefix("aé".as_bytes()), Some(3));
        assert_eq!(valid_prefix(&"aé".as_bytes()[..2]), Some(1));
        assert_eq!(valid_prefix(&[0xff, b'a', b'b', b'c', b'd']), None);
        assert_eq!(valid_prefix(&[0xe2, 0x82]), None);
        assert_eq!(valid_prefix(b""), None);
    }
}
