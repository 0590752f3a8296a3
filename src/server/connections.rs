//! The HTTP listener below the MCP layer: fsmcp's own accept loop on hyper, bounded so that
//! stalled clients cannot take the descriptors authenticated work needs. Headers must arrive
//! within `--http-header-read-seconds`, a connection that moves no byte for
//! `--http-idle-seconds` while none of its requests is being handled is closed, and at most
//! `--http-max-connections` are open at once (the rest wait in the kernel's accept queue,
//! holding no descriptor of ours). When every slot is taken and a client waits, the oldest
//! connection doing nothing for anyone is closed to make room.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::config::limits::HttpLimits;

/// Accepts connections and serves each on its own task under the connection limits (a
/// connection waits for a free slot, made by eviction if need be), until `shutdown` completes; then open connections finish what they are
/// doing (kept-alive ones close) and the function returns once every one is closed.
pub(super) async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let descriptors = fsmcp_root::descriptor_limit();
    let slots = limits
        .connections(descriptors)
        .min(Semaphore::MAX_PERMITS as u64)
        .min(u32::MAX as u64) as u32;
    let free = Arc::new(Semaphore::new(slots as usize));
    let stop = CancellationToken::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(limits.header_read_seconds));
    let builder = Arc::new(builder);
    let idle = Duration::from_secs(limits.idle_seconds);
    let open = Arc::new(OpenConnections::default());
    tokio::pin!(shutdown);
    loop {
        // Accepted before a slot is free, so that a waiting client is known: at most this one
        // connection holds a descriptor beyond the cap.
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors (or a connection reset before it was accepted): give
                    // the ones in use a moment to close instead of spinning.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let slot = loop {
            if let Ok(slot) = free.clone().try_acquire_owned() {
                break Some(slot);
            }
            // Every slot taken while a client waits: make room by closing the oldest
            // connection doing nothing for anyone (see `Activity::evictable`), if there is one.
            open.evict_one();
            tokio::select! {
                slot = free.clone().acquire_owned() => break slot.ok(),
                () = tokio::time::sleep(EVICTION_RETRY) => {}
                () = &mut shutdown => break None,
            }
        };
        let Some(slot) = slot else { break };
        let activity = Arc::new(Activity::new());
        open.add(activity.clone());
        let builder = builder.clone();
        let app = app.clone();
        let stop = stop.clone();
        let open = open.clone();
        tokio::spawn(async move {
            serve_connection(stream, activity.clone(), &builder, app, idle, stop).await;
            open.remove(&activity);
            drop(slot);
        });
    }
    stop.cancel();
    // Every slot back: every connection closed.
    let _ = free.acquire_many(slots).await;
    Ok(())
}

/// How long a new connection is safe from eviction: time to send a request's headers on any
/// working network.
const EVICTABLE_AFTER: Duration = Duration::from_secs(1);
/// How often the accept loop, with every slot taken, looks again for a connection to evict.
const EVICTION_RETRY: Duration = Duration::from_millis(250);

/// The connections being served, for eviction when every slot is taken.
#[derive(Default)]
struct OpenConnections(std::sync::Mutex<Vec<Arc<Activity>>>);

impl OpenConnections {
    fn add(&self, activity: Arc<Activity>) {
        self.0.lock().expect("open connections").push(activity);
    }

    fn remove(&self, activity: &Arc<Activity>) {
        self.0
            .lock()
            .expect("open connections")
            .retain(|open| !Arc::ptr_eq(open, activity));
    }

    /// Asks the oldest evictable connection to close.
    fn evict_one(&self) {
        let open = self.0.lock().expect("open connections");
        // Oldest first: they were pushed in the order they were accepted.
        if let Some(victim) = open.iter().find(|activity| activity.evictable()) {
            victim.evict.cancel();
        }
    }
}

/// Serves one connection until it closes, it has been idle for `idle` with no request being
/// handled, it is evicted, or `stop` asks it to finish (what is in flight is answered first).
async fn serve_connection(
    stream: TcpStream,
    activity: Arc<Activity>,
    builder: &hyper::server::conn::http1::Builder,
    app: Router,
    idle: Duration,
    stop: CancellationToken,
) {
    let io = TokioIo::new(Tracked {
        stream,
        activity: activity.clone(),
    });
    let handling = activity.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let app = app.clone();
        let busy = Busy::start(handling.clone());
        async move {
            let response = app.oneshot(request.map(Body::new)).await;
            drop(busy);
            response
        }
    });
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let mut check = tokio::time::interval((idle / 4).max(Duration::from_millis(250)));
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = connection.as_mut() => return,
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                connection.as_mut().graceful_shutdown();
            }
            // Dropping the connection closes its socket.
            () = activity.evict.cancelled() => return,
            _ = check.tick() => {
                if activity.handling.load(Ordering::SeqCst) == 0 && activity.silent_for() >= idle {
                    return;
                }
            }
        }
    }
}

/// What one connection is doing: requests being handled, and when a byte last moved.
struct Activity {
    started: Instant,
    /// Milliseconds after `started` when a byte was last read or written.
    last: AtomicU64,
    handling: AtomicUsize,
    /// Whether a request has ever reached the handler.
    served: AtomicBool,
    /// Cancelled to close the connection for a waiting client.
    evict: CancellationToken,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            started: Instant::now(),
            last: AtomicU64::new(0),
            handling: AtomicUsize::new(0),
            served: AtomicBool::new(false),
            evict: CancellationToken::new(),
        }
    }

    /// Whether closing this connection costs no one an answer: no request is being handled,
    /// it is older than [`EVICTABLE_AFTER`], and it has either never completed a request's
    /// headers (a stalled or trickling client) or moved no byte for that long (kept alive
    /// between requests, or not reading its answer).
    fn evictable(&self) -> bool {
        !self.evict.is_cancelled()
            && self.handling.load(Ordering::SeqCst) == 0
            && self.started.elapsed() >= EVICTABLE_AFTER
            && (!self.served.load(Ordering::SeqCst) || self.silent_for() >= EVICTABLE_AFTER)
    }

    fn touch(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.last.store(now, Ordering::Relaxed);
    }

    fn silent_for(&self) -> Duration {
        let now = self.started.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last.load(Ordering::Relaxed)))
    }
}

/// Counts one request as being handled until dropped (also when its future is dropped).
struct Busy(Arc<Activity>);

impl Busy {
    fn start(activity: Arc<Activity>) -> Busy {
        activity.served.store(true, Ordering::SeqCst);
        activity.handling.fetch_add(1, Ordering::SeqCst);
        Busy(activity)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.handling.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A socket that records when bytes move, for the idle limit.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
