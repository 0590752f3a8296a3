//! Tree-sitter's memory, counted per thread, so that one parse can be held to a budget.
//!
//! A pathological file (a megabyte of `a<a<a<…` as C++) makes tree-sitter's error recovery
//! hold gigabytes, and no deadline bounds memory. Tree-sitter allocates through functions it
//! lets the embedder replace; the ones installed here are the C library's own, counting the
//! bytes each thread holds. While [`watch`] runs a parse, an allocation that takes the thread
//! past its budget raises the parse's flag (which tree-sitter polls), so the parse stops
//! within a few hundred operations of the budget.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The value [`watch`] stores in a parse's flag when the parse outgrew its budget (any other
/// non-zero value is someone else's stop).
pub const OVER_BUDGET: usize = usize::MAX;

thread_local! {
    /// Bytes this thread allocated through tree-sitter and has not freed (memory freed by
    /// another thread makes this drift, which only matters within one parse: never).
    static HELD: Cell<isize> = const { Cell::new(0) };
    /// The watched parse's flag and the count of held bytes past which it is stopped.
    static WATCHED: Cell<(*const AtomicUsize, isize)> =
        const { Cell::new((std::ptr::null(), isize::MAX)) };
}

/// Installs the counting allocator; called before any use of tree-sitter.
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: the four functions wrap the C library's malloc family (the family
        // tree-sitter uses by default, so memory allocated before this call may be freed
        // after it), never return null for a non-zero size (they abort, like tree-sitter's
        // own), and the `Once` makes this the only call, before the map's first parse.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: counted_malloc,
                calloc: counted_calloc,
                realloc: counted_realloc,
                free: counted_free,
            }));
        }
    });
}

/// Runs `parse` with `flag` raised to [`OVER_BUDGET`] once the parse holds more than
/// `budget` bytes of tree-sitter's memory on this thread.
pub fn watch<T>(flag: &AtomicUsize, budget: usize, parse: impl FnOnce() -> T) -> T {
    /// Puts back the previous watch however `parse` ends.
    struct Restore((*const AtomicUsize, isize));
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = WATCHED.try_with(|watched| watched.set(self.0));
        }
    }
    let held = HELD.with(Cell::get);
    let limit = held.saturating_add(isize::try_from(budget).unwrap_or(isize::MAX));
    let _restore = Restore(WATCHED.with(|watched| watched.replace((flag, limit))));
    parse()
}

/// Counts `delta` bytes against this thread and stops the watched parse past its budget.
fn count(delta: isize) {
    // `try_with`: tree-sitter may free memory while the thread's locals are torn down.
    let _ = HELD.try_with(|held| {
        let now = held.get().saturating_add(delta);
        held.set(now);
        if delta > 0 {
            let _ = WATCHED.try_with(|watched| {
                let (flag, limit) = watched.get();
                if now > limit && !flag.is_null() {
                    // SAFETY: `watch` keeps the flag borrowed (alive) while it is set here.
                    unsafe { (*flag).store(OVER_BUDGET, Ordering::Relaxed) };
                }
            });
        }
    });
}

/// The size the C library reserved for `ptr` (0 for null).
///
/// # Safety
/// `ptr` is null or a live allocation of the malloc family.
unsafe fn usable(ptr: *mut c_void) -> isize {
    if ptr.is_null() {
        return 0;
    }
    // SAFETY: as the caller promises.
    isize::try_from(unsafe { reserved(ptr) }).unwrap_or(isize::MAX)
}

/// The C library's own answer to "how big is this block": each system names it differently.
#[cfg(target_vendor = "apple")]
unsafe fn reserved(ptr: *mut c_void) -> usize {
    // SAFETY: `ptr` is a live allocation of the malloc family (the caller's promise).
    unsafe { libc::malloc_size(ptr) }
}

#[cfg(windows)]
unsafe fn reserved(ptr: *mut c_void) -> usize {
    unsafe extern "C" {
        fn _msize(ptr: *mut c_void) -> usize;
    }
    // SAFETY: `ptr` is a live allocation of the C runtime's malloc family.
    unsafe { _msize(ptr) }
}

#[cfg(all(unix, not(target_vendor = "apple")))]
unsafe fn reserved(ptr: *mut c_void) -> usize {
    // SAFETY: `ptr` is a live allocation of the malloc family (the caller's promise).
    unsafe { libc::malloc_usable_size(ptr) }
}

/// A failed allocation: tree-sitter cannot continue without it, and its own allocator aborts.
fn out_of_memory(ptr: *mut c_void, size: usize) -> *mut c_void {
    if ptr.is_null() && size > 0 {
        std::process::abort();
    }
    ptr
}

unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
    // SAFETY: a plain malloc; the result is null or a fresh allocation.
    let ptr = out_of_memory(unsafe { libc::malloc(size) }, size);
    count(unsafe { usable(ptr) });
    ptr
}

unsafe extern "C" fn counted_calloc(count_of: usize, size: usize) -> *mut c_void {
    // SAFETY: a plain calloc; the result is null or a fresh allocation.
    let ptr = out_of_memory(
        unsafe { libc::calloc(count_of, size) },
        count_of.saturating_mul(size),
    );
    count(unsafe { usable(ptr) });
    ptr
}

unsafe extern "C" fn counted_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: tree-sitter passes null or a live allocation it made through this family.
    let before = unsafe { usable(ptr) };
    let moved = out_of_memory(unsafe { libc::realloc(ptr, size) }, size);
    count(unsafe { usable(moved) } - before);
    moved
}

unsafe extern "C" fn counted_free(ptr: *mut c_void) {
    // SAFETY: tree-sitter passes null or a live allocation it made through this family.
    count(-unsafe { usable(ptr) });
    unsafe { libc::free(ptr) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_parse_is_stopped_past_its_budget() {
        install();
        let flag = AtomicUsize::new(0);
        watch(&flag, 1 << 20, || {
            // SAFETY: allocations made and freed here, through the installed family.
            unsafe {
                let small = counted_malloc(1000);
                assert_eq!(flag.load(Ordering::Relaxed), 0);
                let large = counted_realloc(small, 2 << 20);
                assert_eq!(flag.load(Ordering::Relaxed), OVER_BUDGET);
                counted_free(large);
            }
        });
        // Outside the watch nothing is stopped.
        let other = AtomicUsize::new(0);
        // SAFETY: as above.
        unsafe { counted_free(counted_calloc(4, 1 << 20)) };
        assert_eq!(other.load(Ordering::Relaxed), 0);
    }
}
