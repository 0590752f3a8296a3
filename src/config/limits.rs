//! Every walk, read, scan, result and write limit: its default and its valid range, defined once.

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
        }
    }
}

impl Limits {
    /// Whether every limit lies in its range (`limits are not valid` otherwise).
    pub fn is_valid(&self) -> bool {
        let safe = |n: u64| n <= MAX_SAFE_INTEGER;
        self.max_files >= 1
            && self.max_directories >= 1
            && self.max_entries >= 1
            && self.max_file_bytes >= 1
            && (MIN_READ_BYTES..=MAX_PAGE_BYTES).contains(&self.max_read_bytes)
            && self.max_scan_bytes >= MIN_SCAN_BYTES
            && (MIN_RESULT_BYTES..=MAX_PAGE_BYTES).contains(&self.max_result_bytes)
            && self.max_write_bytes >= 1
            && self.max_cursor_hash_bytes >= 1
            && [
                self.max_files,
                self.max_directories,
                self.max_depth,
                self.max_entries,
                self.max_file_bytes,
                self.max_scan_bytes,
                self.max_write_bytes,
                self.max_cursor_hash_bytes,
            ]
            .into_iter()
            .all(safe)
    }

    /// The limit a command-line flag sets (`--max-files` → `max_files`, ...), so the parser and
    /// this struct agree on one spelling per flag. `None` for any other token.
    pub fn field_for_flag(&mut self, flag: &str) -> Option<&mut u64> {
        Some(match flag {
            "--max-files" => &mut self.max_files,
            "--max-directories" => &mut self.max_directories,
            "--max-depth" => &mut self.max_depth,
            "--max-entries" => &mut self.max_entries,
            "--max-scan-bytes" => &mut self.max_scan_bytes,
            "--max-file-bytes" => &mut self.max_file_bytes,
            "--max-read-bytes" => &mut self.max_read_bytes,
            "--max-result-bytes" => &mut self.max_result_bytes,
            "--max-write-bytes" => &mut self.max_write_bytes,
            "--max-cursor-hash-bytes" => &mut self.max_cursor_hash_bytes,
            _ => return None,
        })
    }

    /// The most 2048-byte chunks one read page may hold: `ceil(max_read_bytes / 2048)`.
    pub fn max_read_chunks(&self) -> u64 {
        self.max_read_bytes.div_ceil(READ_CHUNK_BYTES)
    }
}
