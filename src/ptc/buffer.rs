//! Read buffers kept per thread: a search page or a batch of judged files borrows its thread's
//! buffer instead of allocating and zeroing a fresh one (a quarter MiB each time).

use std::cell::Cell;
use std::ops::{Deref, DerefMut};

thread_local! {
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// This thread's spare buffer while borrowed; handed back when dropped. A buffer taken while
/// another is out on the same thread is a new one.
pub(super) struct ReadBuffer(Vec<u8>);

impl ReadBuffer {
    /// A buffer of at least `len` bytes (possibly more; callers index the bytes they use).
    pub(super) fn take(len: usize) -> ReadBuffer {
        let mut bytes = SPARE.take();
        if bytes.len() < len {
            bytes.resize(len, 0);
        }
        ReadBuffer(bytes)
    }
}

impl Drop for ReadBuffer {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.0);
        // Of two buffers out at once, the larger one is kept.
        SPARE.with(|spare| {
            let other = spare.take();
            spare.set(if other.len() > mine.len() {
                other
            } else {
                mine
            });
        });
    }
}

impl Deref for ReadBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl DerefMut for ReadBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}
