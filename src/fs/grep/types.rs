//! The `type` filter: ripgrep's file types (`rg -t rust`, `rg --type-list`), matched against
//! each file's name by the `ignore` crate's definitions, the ones ripgrep itself uses.

use ignore::types::{Types, TypesBuilder};

use crate::fs::FsError;

/// Names offered when a wrong one is near no defined name.
const COMMON: &[&str] = &[
    "rust", "py", "js", "ts", "go", "java", "c", "cpp", "md", "json", "yaml", "toml", "sh",
];

/// Most characters of an unknown type's name a refusal repeats (ripgrep's longest is 16).
const SHOWN_CHARS: usize = 64;

/// The files of one ripgrep file type.
#[derive(Debug)]
pub(super) struct FileType(Types);

impl FileType {
    /// The type ripgrep names `name`; refused, with the nearest defined names, when it
    /// defines none by that name.
    pub(super) fn named(name: &str) -> Result<FileType, FsError> {
        let mut builder = TypesBuilder::new();
        builder.add_defaults();
        let defined: Vec<String> = builder
            .definitions()
            .into_iter()
            .map(|def| def.name().to_owned())
            .collect();
        if !defined.iter().any(|defined| defined == name) {
            // The name is echoed, but not a name of megabytes.
            let shown = match name.char_indices().nth(SHOWN_CHARS) {
                Some((end, _)) => format!("{}…", &name[..end]),
                None => name.to_owned(),
            };
            return Err(FsError::UnknownFileType(
                shown,
                nearest_types(name, &defined),
            ));
        }
        builder.select(name);
        // Every default definition compiles, and the name was found among them.
        builder
            .build()
            .map(FileType)
            .map_err(|e| FsError::UnknownFileType(name.to_owned(), e.to_string()))
    }

    /// Whether the file at `path` (from the root) is of this type, by its name.
    pub(super) fn keeps(&self, path: &str) -> bool {
        self.0.matched(path, false).is_whitelist()
    }
}

/// What a refusal of `name` offers: the defined names within a typo of it, else a few common
/// ones; either way where the whole list is.
fn nearest_types(name: &str, defined: &[String]) -> String {
    // A name far longer than any type is near none: its length is not weighed per type.
    let wanted = match name.len() <= SHOWN_CHARS {
        true => name.to_ascii_lowercase(),
        false => String::new(),
    };
    let mut near: Vec<(usize, &str)> = defined
        .iter()
        .filter(|_| !wanted.is_empty())
        .map(|d| (crate::spelling::edit_distance(&wanted, d), d.as_str()))
        .filter(|(distance, d)| *distance <= 2.max(d.len() / 4) || d.starts_with(&wanted))
        .collect();
    near.sort_unstable();
    near.truncate(3);
    let quoted = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if near.is_empty() {
        format!(
            "the names are ripgrep's (rg --type-list), such as {}",
            quoted(COMMON)
        )
    } else {
        let near: Vec<&str> = near.into_iter().map(|(_, d)| d).collect();
        format!(
            "did you mean {}? The names are ripgrep's (rg --type-list)",
            quoted(&near)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_ripgreps() {
        let rust = FileType::named("rust").expect("defined");
        assert!(rust.keeps("src/lib.rs"));
        assert!(!rust.keeps("src/lib.rs.bak"));
        assert!(!rust.keeps("README.md"));
        let toml = FileType::named("toml").expect("defined");
        assert!(toml.keeps("Cargo.lock") && toml.keeps("a/b/Cargo.toml"));
    }

    #[test]
    fn an_unknown_type_is_named_with_the_nearest() {
        let FsError::UnknownFileType(name, offered) = FileType::named("rsut").unwrap_err() else {
            panic!("an unknown type");
        };
        assert_eq!(name, "rsut");
        assert!(offered.starts_with("did you mean '"), "{offered}");
        assert!(offered.contains("'rust'"), "{offered}");
        let FsError::UnknownFileType(_, offered) = FileType::named("zzzzzzzz").unwrap_err() else {
            panic!("an unknown type");
        };
        assert!(
            offered.starts_with("the names are ripgrep's (rg --type-list), such as 'rust', 'py'"),
            "{offered}"
        );
        // Ten megabytes of name cost their length, and are not echoed whole.
        let FsError::UnknownFileType(name, _) =
            FileType::named(&"é".repeat(5_000_000)).unwrap_err()
        else {
            panic!("an unknown type");
        };
        assert_eq!(name, format!("{}…", "é".repeat(SHOWN_CHARS)));
    }
}
