//! The limits of one call: its deadline, its cancellation, and its progress. The work of one
//! tool call runs with a [`Call`] set on its thread (and carried to the worker pools' threads
//! with each piece of work handed to them, see `crate::workers`), and the walks and reads of
//! the root [`check`] it, so no call can walk or read without end. A call past its deadline fails as a whole ([`RootError::Deadline`]); a
//! cancelled one stops at its next check ([`RootError::Cancelled`]); neither is answered
//! halfway. Each check is also a unit of progress, reported to the call's [`Progress`] sink.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::RootError;

/// Least time between two progress reports of one call.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Where a call's progress goes: the units of work done so far, a strictly growing count.
pub struct Progress {
    sink: Box<dyn Fn(u64) + Send + Sync>,
    done: AtomicU64,
    started: Instant,
    /// Microseconds after `started` of the last report; `u64::MAX` before the first.
    reported_at: AtomicU64,
}

impl Progress {
    /// A sink receiving the count at the first unit of work and then at most every 100 ms.
    pub fn new(sink: impl Fn(u64) + Send + Sync + 'static) -> Progress {
        Progress {
            sink: Box::new(sink),
            done: AtomicU64::new(0),
            started: Instant::now(),
            reported_at: AtomicU64::new(u64::MAX),
        }
    }

    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let now = self.started.elapsed().as_micros() as u64;
        let last = self.reported_at.load(Ordering::Relaxed);
        let due = last == u64::MAX || now.saturating_sub(last) >= PROGRESS_EVERY.as_micros() as u64;
        // One thread wins each report, so the counts sent only grow.
        if due
            && self
                .reported_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            (self.sink)(done);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("done", &self.done.load(Ordering::Relaxed))
            .finish()
    }
}

/// What one call's work is bound by; cheap to clone onto another thread.
#[derive(Debug, Clone, Default)]
pub struct Call {
    deadline: Option<Instant>,
    cancelled: Option<Arc<AtomicUsize>>,
    progress: Option<Arc<Progress>>,
}

impl Call {
    /// A call that must end within `limit` from now.
    pub fn within(limit: Duration) -> Call {
        Call {
            deadline: Instant::now().checked_add(limit),
            ..Call::default()
        }
    }

    /// The same call, stopped at its next check once `flag` is non-zero.
    pub fn cancelled_by(mut self, flag: Arc<AtomicUsize>) -> Call {
        self.cancelled = Some(flag);
        self
    }

    /// The same call, reporting its progress to `progress`.
    pub fn reporting(mut self, progress: Arc<Progress>) -> Call {
        self.progress = Some(progress);
        self
    }

    /// Runs `work` on this thread under this call, restoring the previous one after.
    pub fn run<T>(self, work: impl FnOnce() -> T) -> T {
        let previous = CALL.with(|c| c.replace(self));
        let result = work();
        CALL.with(|c| c.replace(previous));
        result
    }
}

thread_local! {
    static CALL: RefCell<Call> = RefCell::new(Call::default());
}

/// Runs `work` on this thread with a deadline `limit` from now, restoring the previous call.
pub fn with_deadline<T>(limit: Duration, work: impl FnOnce() -> T) -> T {
    Call::within(limit).run(work)
}

/// This thread's call, to carry to another thread with [`Call::run`].
pub fn current() -> Call {
    CALL.with(|c| c.borrow().clone())
}

/// Fails once this thread's call is cancelled or past its deadline; otherwise counts one unit
/// of progress.
pub fn check() -> Result<(), RootError> {
    CALL.with(|c| {
        let call = c.borrow();
        if call
            .cancelled
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed) != 0)
        {
            return Err(RootError::Cancelled);
        }
        if call.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(RootError::Deadline);
        }
        if let Some(progress) = &call.progress {
            progress.tick();
        }
        Ok(())
    })
}
