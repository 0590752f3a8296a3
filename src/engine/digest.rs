//! SHA-256 helpers, and the bounded per-server digest cache of deterministic mode.

use std::collections::{HashMap, VecDeque};

use sha2::{Digest, Sha256};

use super::EngineError;
use crate::root::{Identity, ReadFile};

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

/// Digests of whole files, keyed by physical identity, evicting the oldest beyond `capacity`.
#[derive(Debug)]
pub struct DigestCache {
    map: HashMap<Identity, String>,
    order: VecDeque<Identity>,
    capacity: usize,
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
        }
    }

    /// The hex SHA-256 of the whole of `file`, from the cache when its identity is known,
    /// otherwise hashed through the descriptor (charged to `budget`) and re-checked for change.
    pub fn digest(
        &mut self,
        file: &ReadFile,
        budget: &mut HashBudget,
    ) -> Result<String, EngineError> {
        let identity = file.identity();
        if let Some(digest) = self.map.get(&identity) {
            return Ok(digest.clone());
        }
        if identity.size > budget.0 {
            return Err(EngineError::HashCeiling);
        }
        budget.0 -= identity.size;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; HASH_BLOCK];
        let mut offset = 0u64;
        while offset < identity.size {
            let want = HASH_BLOCK.min((identity.size - offset) as usize);
            file.read_exact_at(&mut buf[..want], offset)?;
            hasher.update(&buf[..want]);
            offset += want as u64;
        }
        file.ensure_unchanged()?;
        let digest = hex(&hasher.finalize());
        if self.map.len() >= self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.map.remove(&oldest);
        }
        self.map.insert(identity, digest.clone());
        self.order.push_back(identity);
        Ok(digest)
    }
}
