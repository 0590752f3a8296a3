//! The process-wide worker pools. Walks and grep's and search_text's judging ahead share one
//! pool, so concurrent calls never multiply its threads; the map's parses, each of which may
//! take seconds, run on a pool of their own, so a long map never holds the threads a cheap
//! call's walk waits for.
//!
//! Work handed to a pool runs under the calling thread's call (deadline, cancellation,
//! progress): [`install`] carries it, and parallel steps inside carry it on with
//! [`crate::Call::run`], since a pool thread has no call of its own.

/// Threads of each pool: the machines fsmcp targets have two cores.
const WORKER_THREADS: usize = 2;

/// Stack of each thread: walks recurse once per directory level, and a thread waiting on a
/// parallel step runs other steps on the same stack.
const WORKER_STACK_BYTES: usize = 16 << 20;

/// The shared pool, built on first use (`None` if it could not be built: the work then runs on
/// the calling thread).
pub fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| build("fsmcp-worker")).as_ref()
}

/// The map's parsing pool, built on first use (`None` if it could not be built: the parses
/// then run on the calling thread).
pub fn map_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| build("fsmcp-map")).as_ref()
}

fn build(name: &'static str) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(WORKER_THREADS)
        .thread_name(move |i| format!("{name}-{i}"))
        .stack_size(WORKER_STACK_BYTES)
        .build()
        .ok()
}

/// Runs `work` on the shared pool under the calling thread's call (on the calling thread when
/// there is no pool), and waits for it.
pub fn install<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let call = crate::current_call();
    match pool() {
        Some(pool) => pool.install(move || call.run(work)),
        None => work(),
    }
}
