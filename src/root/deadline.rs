//! A per-call deadline: the work of one tool call runs on one thread with a deadline set, and
//! the walks and reads of the root check it, so no call can walk or read without end. A call
//! past its deadline fails as a whole ([`RootError::Deadline`]); it is never answered halfway.

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::RootError;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `work` on this thread with a deadline `limit` from now, restoring the previous one.
pub fn with_deadline<T>(limit: Duration, work: impl FnOnce() -> T) -> T {
    with_deadline_at(Instant::now().checked_add(limit), work)
}

/// Fails once this thread's deadline has passed.
pub fn check() -> Result<(), RootError> {
    match DEADLINE.with(Cell::get) {
        Some(deadline) if Instant::now() > deadline => Err(RootError::Deadline),
        _ => Ok(()),
    }
}

/// This thread's deadline, to carry to another thread with [`with_deadline_at`].
pub fn current() -> Option<Instant> {
    DEADLINE.with(Cell::get)
}

/// Runs `work` on this thread under the deadline `at` (none when `None`), restoring the
/// previous one.
pub fn with_deadline_at<T>(at: Option<Instant>, work: impl FnOnce() -> T) -> T {
    let previous = DEADLINE.with(|d| d.replace(at));
    let result = work();
    DEADLINE.with(|d| d.set(previous));
    result
}
