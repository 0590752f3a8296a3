//! The process-wide worker pool: the walks of `root` and the map's parsing and grep's prefilter
//! in `engine` share its threads, so concurrent calls never multiply them.

/// Threads of the pool: the machines fsmcp targets have two cores.
const WORKER_THREADS: usize = 2;

/// Stack of each thread: walks recurse once per directory level, and a thread waiting on a
/// parallel step runs other steps on the same stack.
const WORKER_STACK_BYTES: usize = 16 << 20;

/// The pool, built on first use (`None` if it could not be built: the work then runs on the
/// calling thread).
pub(crate) fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(WORKER_THREADS)
            .thread_name(|i| format!("fsmcp-worker-{i}"))
            .stack_size(WORKER_STACK_BYTES)
            .build()
            .ok()
    })
    .as_ref()
}
