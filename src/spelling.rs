//! How far apart two spellings are: what the command line and the fs tools' argument checks
//! use to name the flag or argument a caller most likely meant.

/// Length differences past this are far whatever the letters: see [`edit_distance`].
const FAR: usize = 64;

/// The Levenshtein distance between two short strings, counted in characters; for strings
/// whose lengths differ by more than [`FAR`], that difference (a lower bound, and farther
/// than any caller looks).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    // Every caller weighs a name an agent or operator wrote against short known names, and
    // only near ones count; far longer text (an argument of megabytes) is answered by its
    // length difference, a lower bound, instead of a cost of both lengths multiplied.
    let difference = a.chars().count().abs_diff(b.chars().count());
    if difference > FAR {
        return difference;
    }
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(x != *y))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("--read-only", "--read-only"), 0);
        // Far longer text costs its length, not its length times the other's.
        assert_eq!(edit_distance(&"a".repeat(10_000_000), "rust"), 9_999_996);
        assert_eq!(edit_distance("limit", "limit"), 0);
        assert_eq!(edit_distance("old-str", "old-string"), 3);
        assert_eq!(edit_distance("pth", "path"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("é", "e"), 1, "characters, not bytes");
    }
}
