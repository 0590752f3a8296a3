//! SHA-256 helpers, and the bounded per-server digest cache of deterministic mode.

use std::collections::{HashMap, VecDeque};

use sha2::{Digest, Sha256};

use crate::root::{Identity, ReadFile, RootError};

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `sha256:<hex>`, the `content_hash` form.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// Why [`DigestCache::digest`] gave no digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestError {
    /// The file is larger than what the budget has left.
    OverBudget,
    /// The root refused or the file changed while it was hashed.
    Root(RootError),
}

impl From<RootError> for DigestError {
    fn from(error: RootError) -> Self {
        DigestError::Root(error)
    }
}

/// A secret key for keyed digests (HMAC-SHA256): cursor signatures and the digest of a link's
/// target, which no one without the key can check a guess against.
#[derive(Clone)]
pub struct Key(Vec<u8>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(<secret>)")
    }
}

impl Key {
    /// The key every server in this process shares by default: random, so what it signs is
    /// valid only within this process.
    pub fn process() -> Key {
        static KEY: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let key = KEY.get_or_init(|| {
            let mut key = vec![0u8; 32];
            getrandom::fill(&mut key).expect("the OS random source is available");
            key
        });
        Key(key.clone())
    }

    /// An operator-supplied key (deterministic mode).
    pub fn with_bytes(key: Vec<u8>) -> Key {
        Key(key)
    }

    /// HMAC-SHA256 of the concatenated `parts`.
    pub fn mac(&self, parts: &[&[u8]]) -> Vec<u8> {
        use hmac::{Hmac, KeyInit, Mac};
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().to_vec()
    }

    /// The keyed digest of `bytes` in hex; the label keeps it apart from cursor signatures.
    pub fn keyed_hex(&self, label: &str, bytes: &[u8]) -> String {
        hex(&self.mac(&[label.as_bytes(), &[0], bytes]))
    }
}

/// Digests of whole files, keyed by physical identity, evicting the oldest beyond `capacity`.
#[derive(Debug)]
pub struct DigestCache {
    map: HashMap<Identity, String>,
    order: VecDeque<Identity>,
    capacity: usize,
    /// Reuse only digests of files whose times are this old (revision memo), so a rewrite
    /// within one timestamp tick is never mistaken for the old bytes.
    settle: Option<std::time::Duration>,
}

/// Uncached bytes one call may still hash.
#[derive(Debug)]
pub struct HashBudget(pub u64);

const HASH_BLOCK: usize = 64 * 1024;

impl DigestCache {
    /// An empty cache holding at most `capacity` digests.
    pub fn new(capacity: usize) -> Self {
        DigestCache {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
            settle: None,
        }
    }

    /// A cache that reuses a digest only when the file's modification and change times are
    /// both more than `settle` old.
    pub fn settled(capacity: usize, settle: std::time::Duration) -> Self {
        DigestCache {
            settle: Some(settle),
            ..DigestCache::new(capacity)
        }
    }

    fn reusable(&self, identity: &Identity) -> bool {
        let Some(settle) = self.settle else {
            return true;
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let limit = now - settle.as_nanos() as i128;
        identity.mtime_ns < limit && identity.ctime_ns < limit
    }

    /// The hex SHA-256 of the whole of `file`, from the cache when its identity is known,
    /// otherwise hashed through the descriptor (charged to `budget`) and re-checked for change.
    pub fn digest(
        &mut self,
        file: &ReadFile,
        budget: &mut HashBudget,
    ) -> Result<String, DigestError> {
        let identity = file.identity();
        if let Some(digest) = self.map.get(&identity)
            && self.reusable(&identity)
        {
            return Ok(digest.clone());
        }
        if identity.size > budget.0 {
            return Err(DigestError::OverBudget);
        }
        budget.0 -= identity.size;
        let digest = Self::hash_fresh(file)?;
        self.remember(identity, digest.clone());
        Ok(digest)
    }

    /// Records the digest of a file whose bytes are known.
    pub fn remember(&mut self, identity: Identity, digest: String) {
        if self.map.contains_key(&identity) {
            return;
        }
        if self.map.len() >= self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.map.remove(&oldest);
        }
        self.map.insert(identity, digest);
        self.order.push_back(identity);
    }

    /// Hashes the whole of `file` through its descriptor, without consulting or filling the
    /// cache, and checks it did not change meanwhile.
    pub fn hash_fresh(file: &ReadFile) -> Result<String, RootError> {
        let size = file.size();
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; HASH_BLOCK];
        let mut offset = 0u64;
        while offset < size {
            let want = HASH_BLOCK.min((size - offset) as usize);
            file.read_exact_at(&mut buf[..want], offset)?;
            hasher.update(&buf[..want]);
            offset += want as u64;
        }
        file.ensure_unchanged()?;
        Ok(hex(&hasher.finalize()))
    }
}
