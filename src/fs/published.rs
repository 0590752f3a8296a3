//! The names a root's tools are published under, so that an answer or a refusal points the
//! model only at tools it can call, by the names it calls them.

use crate::config::ToolSelection;

/// The fs tool `base`'s published name under `prefix`: `<prefix>_<base>`, or `base` alone
/// with an empty prefix.
pub fn published_name(prefix: &str, base: &str) -> String {
    if prefix.is_empty() {
        base.to_owned()
    } else {
        format!("{prefix}_{base}")
    }
}

/// Which tools one root publishes. The fs set is taken as published: its operations run only
/// when it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    ptc: bool,
    prefix: String,
}

impl Default for Published {
    /// The fs set under the default prefix, without the ptc set.
    fn default() -> Self {
        Published {
            ptc: false,
            prefix: crate::config::DEFAULT_PREFIX.to_owned(),
        }
    }
}

impl Published {
    /// What a root publishing `selection`, with its fs tools under `prefix`, offers.
    pub fn new(selection: ToolSelection, prefix: &str) -> Published {
        Published {
            ptc: selection.ptc,
            prefix: prefix.to_owned(),
        }
    }

    /// The published name of the fs tool `base` (`fs_list` for `list` by default).
    pub fn fs(&self, base: &str) -> String {
        published_name(&self.prefix, base)
    }

    /// Whether the ptc tools (`read_text_file` …) are published for this root.
    pub fn ptc(&self) -> bool {
        self.ptc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_prefix() {
        let both = ToolSelection {
            ptc: true,
            fs: true,
        };
        assert_eq!(Published::default().fs("grep"), "fs_grep");
        assert!(!Published::default().ptc());
        assert_eq!(Published::new(both, "notes").fs("list"), "notes_list");
        assert_eq!(Published::new(both, "").fs("list"), "list");
        assert!(Published::new(both, "").ptc());
    }
}
