//! Every walk, read, scan, result and write limit, and the HTTP listener's connection limits:
//! each one's default and valid range, defined once.

/// The largest integer a JSON number (and so a ptc-fs-mcp limit) can carry exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// Internal read chunk size of `read_text_file`; one item never holds more source bytes.
pub const READ_CHUNK_BYTES: u64 = 2048;

/// Smallest `--max-read-bytes`: room for the longest UTF-8 character.
pub const MIN_READ_BYTES: u64 = 4;
/// Largest `--max-read-bytes` and `--max-result-bytes`.
pub const MAX_PAGE_BYTES: u64 = 1_048_576;
/// Smallest `--max-scan-bytes`: two 8 KiB reads.
pub const MIN_SCAN_BYTES: u64 = 16_384;
/// Smallest `--max-result-bytes`: the worst-case escaped read chunk must fit one result.
pub const MIN_RESULT_BYTES: u64 = 48_000;
/// Largest `--max-image-bytes`: 32 MiB, whose base64 (about 43 MiB) stays well inside the
/// 64 MiB a message line may take.
pub const MAX_IMAGE_BYTES: u64 = 32 << 20;
/// Default `--copy-reserve-bytes`: copies leave a tenth of their filesystem free, at most
/// 1 GiB, so copies, which no other bound stops from being made again and again, cannot
/// fill the disk the root (and whatever shares its filesystem) lives on.
pub const DEFAULT_COPY_RESERVE_BYTES: u64 = 1 << 30;

/// The bounds one root enforces on every traversal, read, scan, result and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most files one traversal may select (`--max-files`).
    pub max_files: u64,
    /// Most directories one traversal may enter (`--max-directories`).
    pub max_directories: u64,
    /// Deepest directory nesting a walk may reach (`--max-depth`; 0 allowed).
    pub max_depth: u64,
    /// Most directory entries one traversal may read (`--max-entries`).
    pub max_entries: u64,
    /// Files larger than this are not served (`--max-file-bytes`).
    pub max_file_bytes: u64,
    /// Source bytes one `read_text_file` page may consider (`--max-read-bytes`).
    pub max_read_bytes: u64,
    /// Source bytes one `search_text` page may scan (`--max-scan-bytes`).
    pub max_scan_bytes: u64,
    /// Ceiling on the complete decoded tool result (`--max-result-bytes`).
    pub max_result_bytes: u64,
    /// Largest `write_text_file` payload (`--max-write-bytes`).
    pub max_write_bytes: u64,
    /// Uncached file bytes one deterministic-mode call may hash (`--max-cursor-hash-bytes`).
    pub max_cursor_hash_bytes: u64,
    /// Seconds one tool call may spend walking and reading before it is refused
    /// (`--max-call-seconds`).
    pub max_call_seconds: u64,
    /// Largest image `fs_read` returns as an image (`--max-image-bytes`); an image is not
    /// held to `max_result_bytes`, which bounds text.
    pub max_image_bytes: u64,
    /// The most free space a copy must leave on its destination's filesystem
    /// (`--copy-reserve-bytes`): a copy leaves a tenth of the filesystem free, at most this.
    /// 0 drops the reserve; a copy is still refused when it would take more than is free.
    pub copy_reserve_bytes: u64,
    /// Which of the walk ceilings (`max_files`, `max_directories`, `max_entries`) the
    /// configuration named, by a flag or a config key: the model-facing tools' walks stop only
    /// at a named one (see [`Limits::named_ceilings`]).
    pub named: NamedCeilings,
}

/// Which walk ceilings a configuration named explicitly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NamedCeilings {
    /// `--max-files` / `max_files` was given.
    pub files: bool,
    /// `--max-directories` / `max_directories` was given.
    pub directories: bool,
    /// `--max-entries` / `max_entries` was given.
    pub entries: bool,
}

/// The counts one traversal is charged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ceilings {
    /// Most files selected.
    pub files: u64,
    /// Most directories entered.
    pub directories: u64,
    /// Most directory entries read.
    pub entries: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_files: 50_000,
            max_directories: 50_000,
            max_depth: 64,
            max_entries: 1_000_000,
            max_file_bytes: MAX_SAFE_INTEGER,
            max_read_bytes: 16_384,
            max_scan_bytes: 4_194_304,
            max_result_bytes: 48_000,
            max_write_bytes: 65_536,
            max_cursor_hash_bytes: 16_777_216,
            max_call_seconds: 60,
            max_image_bytes: 5 << 20,
            copy_reserve_bytes: DEFAULT_COPY_RESERVE_BYTES,
            named: NamedCeilings::default(),
        }
    }
}

/// One limit's spellings and valid range: the `Limits` field and config-file key (`key`), its
/// name in messages (`name`), the command-line flag (`flag`), and the inclusive bounds every
/// value must lie in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitSpec {
    /// The field of [`Limits`], also the key in a config file's `limits` object.
    pub key: &'static str,
    /// What messages call it ("file limit"), so every message names a limit the same way.
    pub name: &'static str,
    /// The command-line flag that sets it.
    pub flag: &'static str,
    /// Smallest valid value.
    pub min: u64,
    /// Largest valid value.
    pub max: u64,
}

/// Every limit, in the order of [`Limits`]' fields.
pub const LIMIT_SPECS: [LimitSpec; 13] = [
    LimitSpec {
        key: "max_files",
        name: "file limit",
        flag: "--max-files",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_directories",
        name: "directory limit",
        flag: "--max-directories",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_depth",
        name: "depth limit",
        flag: "--max-depth",
        min: 0,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_entries",
        name: "entry limit",
        flag: "--max-entries",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_file_bytes",
        name: "file size limit",
        flag: "--max-file-bytes",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_read_bytes",
        name: "read limit",
        flag: "--max-read-bytes",
        min: MIN_READ_BYTES,
        max: MAX_PAGE_BYTES,
    },
    LimitSpec {
        key: "max_scan_bytes",
        name: "scan limit",
        flag: "--max-scan-bytes",
        min: MIN_SCAN_BYTES,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_result_bytes",
        name: "result limit",
        flag: "--max-result-bytes",
        min: MIN_RESULT_BYTES,
        max: MAX_PAGE_BYTES,
    },
    LimitSpec {
        key: "max_write_bytes",
        name: "write limit",
        flag: "--max-write-bytes",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_cursor_hash_bytes",
        name: "cursor hash limit",
        flag: "--max-cursor-hash-bytes",
        min: 1,
        max: MAX_SAFE_INTEGER,
    },
    LimitSpec {
        key: "max_call_seconds",
        name: "call time limit",
        flag: "--max-call-seconds",
        min: 1,
        max: 86_400,
    },
    LimitSpec {
        key: "max_image_bytes",
        name: "image size limit",
        flag: "--max-image-bytes",
        min: 1,
        max: MAX_IMAGE_BYTES,
    },
    LimitSpec {
        key: "copy_reserve_bytes",
        name: "copy reserve",
        flag: "--copy-reserve-bytes",
        min: 0,
        max: MAX_SAFE_INTEGER,
    },
];

impl LimitSpec {
    /// The spec whose config-file key is `key`.
    pub fn by_key(key: &str) -> Option<&'static LimitSpec> {
        LIMIT_SPECS.iter().find(|spec| spec.key == key)
    }

    /// The spec whose flag is `flag`.
    pub fn by_flag(flag: &str) -> Option<&'static LimitSpec> {
        LIMIT_SPECS.iter().find(|spec| spec.flag == flag)
    }

    /// Whether `value` lies in this limit's range.
    pub fn accepts(&self, value: u64) -> bool {
        (self.min..=self.max).contains(&value)
    }

    /// What a value outside this range is told, after its flag or its config file location:
    /// `must be an integer from <min> to <max>`.
    pub fn range_rule(&self) -> String {
        format!("must be an integer from {} to {}", self.min, self.max)
    }
}

impl Limits {
    /// Whether every limit lies in its range (`limits are not valid` otherwise).
    pub fn is_valid(&self) -> bool {
        let mut copy = *self;
        LIMIT_SPECS
            .iter()
            .all(|spec| spec.accepts(*copy.field(spec.key)))
    }

    /// The limit a command-line flag sets (`--max-files` → `max_files`, ...), so the parser and
    /// this struct agree on one spelling per flag. `None` for any other token.
    /// The walk ceilings a flag sets are recorded as named.
    pub fn field_for_flag(&mut self, flag: &str) -> Option<&mut u64> {
        let spec = LimitSpec::by_flag(flag)?;
        self.name(spec.key);
        Some(self.field(spec.key))
    }

    /// The limit a config file's `limits` key sets. `None` for any other key. The walk
    /// ceilings a key sets are recorded as named.
    pub fn field_for_key(&mut self, key: &str) -> Option<&mut u64> {
        let spec = LimitSpec::by_key(key)?;
        self.name(spec.key);
        Some(self.field(spec.key))
    }

    fn name(&mut self, key: &str) {
        match key {
            "max_files" => self.named.files = true,
            "max_directories" => self.named.directories = true,
            "max_entries" => self.named.entries = true,
            _ => {}
        }
    }

    /// The ceilings of a program-facing walk: ptc-fs-mcp's, named or not.
    pub fn ceilings(&self) -> Ceilings {
        Ceilings {
            files: self.max_files,
            directories: self.max_directories,
            entries: self.max_entries,
        }
    }

    /// The ceilings of a model-facing walk: only those the configuration named; a tree is
    /// never refused for its size alone (the call's deadline and its answer's budget bound it).
    pub fn named_ceilings(&self) -> Ceilings {
        let named = |is: bool, value: u64| if is { value } else { u64::MAX };
        Ceilings {
            files: named(self.named.files, self.max_files),
            directories: named(self.named.directories, self.max_directories),
            entries: named(self.named.entries, self.max_entries),
        }
    }

    /// The field named by a [`LimitSpec::key`].
    fn field(&mut self, key: &str) -> &mut u64 {
        match key {
            "max_files" => &mut self.max_files,
            "max_directories" => &mut self.max_directories,
            "max_depth" => &mut self.max_depth,
            "max_entries" => &mut self.max_entries,
            "max_file_bytes" => &mut self.max_file_bytes,
            "max_read_bytes" => &mut self.max_read_bytes,
            "max_scan_bytes" => &mut self.max_scan_bytes,
            "max_result_bytes" => &mut self.max_result_bytes,
            "max_write_bytes" => &mut self.max_write_bytes,
            "max_cursor_hash_bytes" => &mut self.max_cursor_hash_bytes,
            "max_call_seconds" => &mut self.max_call_seconds,
            "max_image_bytes" => &mut self.max_image_bytes,
            "copy_reserve_bytes" => &mut self.copy_reserve_bytes,
            _ => unreachable!("every LimitSpec key names a field"),
        }
    }

    /// The most 2048-byte chunks one read page may hold: `ceil(max_read_bytes / 2048)`.
    pub fn max_read_chunks(&self) -> u64 {
        self.max_read_bytes.div_ceil(READ_CHUNK_BYTES)
    }
}

/// The HTTP listener's bounds on connections, which keep descriptors for authenticated work
/// however many clients connect and stall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Seconds a connection has to send a request's headers, counted from when the server
    /// starts waiting for them (also between requests on a kept-alive connection)
    /// (`--http-header-read-seconds`).
    pub header_read_seconds: u64,
    /// Seconds a connection may move no byte while none of its requests is being handled
    /// (`--http-idle-seconds`).
    pub idle_seconds: u64,
    /// Most connections open at once; past it, new ones wait in the kernel's queue
    /// (`--http-max-connections`). `None`: half the descriptor limit, between
    /// [`MIN_DERIVED_CONNECTIONS`] and [`MAX_DERIVED_CONNECTIONS`].
    pub max_connections: Option<u64>,
}

/// Fewest connections the derived `max_connections` allows.
pub const MIN_DERIVED_CONNECTIONS: u64 = 8;
/// Most connections the derived `max_connections` allows.
pub const MAX_DERIVED_CONNECTIONS: u64 = 512;

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_seconds: 10,
            idle_seconds: 60,
            max_connections: None,
        }
    }
}

/// Every HTTP connection limit: `key` is the field of [`HttpLimits`] and the key in a config
/// file's `http` object, `flag` the command-line flag.
pub const HTTP_LIMIT_SPECS: [LimitSpec; 3] = [
    LimitSpec {
        key: "header_read_seconds",
        name: "header read time limit",
        flag: "--http-header-read-seconds",
        min: 1,
        max: 3_600,
    },
    LimitSpec {
        key: "idle_seconds",
        name: "idle time limit",
        flag: "--http-idle-seconds",
        min: 1,
        max: 86_400,
    },
    LimitSpec {
        key: "max_connections",
        name: "connection limit",
        flag: "--http-max-connections",
        min: 1,
        max: 65_536,
    },
];

impl HttpLimits {
    /// Sets the limit `spec` (one of [`HTTP_LIMIT_SPECS`]) to `value`.
    pub fn set(&mut self, spec: &LimitSpec, value: u64) {
        match spec.key {
            "header_read_seconds" => self.header_read_seconds = value,
            "idle_seconds" => self.idle_seconds = value,
            "max_connections" => self.max_connections = Some(value),
            _ => unreachable!("every HTTP LimitSpec key names a field"),
        }
    }

    /// The connection cap: the one set, or half of `descriptors` (the soft descriptor limit,
    /// unlimited when `None`) within the derived bounds, leaving the rest to the roots' work.
    pub fn connections(&self, descriptors: Option<u64>) -> u64 {
        self.max_connections.unwrap_or_else(|| {
            (descriptors.unwrap_or(u64::MAX) / 2)
                .clamp(MIN_DERIVED_CONNECTIONS, MAX_DERIVED_CONNECTIONS)
        })
    }
}

impl LimitSpec {
    /// The HTTP limit whose flag is `flag`.
    pub fn http_by_flag(flag: &str) -> Option<&'static LimitSpec> {
        HTTP_LIMIT_SPECS.iter().find(|spec| spec.flag == flag)
    }

    /// The HTTP limit whose `http` config key is `key`.
    pub fn http_by_key(key: &str) -> Option<&'static LimitSpec> {
        HTTP_LIMIT_SPECS.iter().find(|spec| spec.key == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_names_one_field_and_flag() {
        let mut limits = Limits::default();
        for (n, spec) in LIMIT_SPECS.iter().enumerate() {
            *limits.field_for_key(spec.key).expect("key") = 1000 + n as u64;
            assert_eq!(
                *limits.field_for_flag(spec.flag).expect("flag"),
                1000 + n as u64
            );
            assert_eq!(spec.flag, format!("--{}", spec.key.replace('_', "-")));
        }
        assert_eq!(limits.field_for_key("max_bogus"), None);
        assert_eq!(limits.field_for_flag("--max-bogus"), None);
    }

    #[test]
    fn http_limits_have_one_spelling_and_a_derived_cap() {
        let mut limits = HttpLimits::default();
        for (n, spec) in HTTP_LIMIT_SPECS.iter().enumerate() {
            assert_eq!(spec.flag, format!("--http-{}", spec.key.replace('_', "-")));
            assert_eq!(LimitSpec::http_by_flag(spec.flag), Some(spec));
            assert_eq!(LimitSpec::http_by_key(spec.key), Some(spec));
            limits.set(spec, 100 + n as u64);
        }
        assert_eq!(
            (limits.header_read_seconds, limits.idle_seconds),
            (100, 101)
        );
        assert_eq!(limits.connections(Some(4)), 102);
        let derived = HttpLimits::default();
        assert_eq!(derived.connections(Some(256)), 128);
        assert_eq!(derived.connections(Some(1024)), 512);
        assert_eq!(derived.connections(Some(4)), 8);
        assert_eq!(derived.connections(None), 512);
    }

    #[test]
    fn validity_is_every_range() {
        assert!(Limits::default().is_valid());
        for spec in LIMIT_SPECS {
            for (value, valid) in [
                (spec.min, true),
                (spec.max, true),
                (spec.max + 1, false),
                (spec.min.wrapping_sub(1), false),
            ] {
                let mut limits = Limits::default();
                *limits.field_for_key(spec.key).expect("key") = value;
                assert_eq!(limits.is_valid(), valid, "{} = {value}", spec.key);
            }
        }
    }
}
