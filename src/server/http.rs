//! Streamable HTTP: one endpoint, `/mcp`, on `rmcp`'s server for both protocol eras
//! (2026-07-28 stateless requests; 2025-11-25 sessions for clients that `initialize`).
//!
//! What fsmcp adds in front of `rmcp`: the bearer token (`require_token`, compared in
//! constant time over digests so neither content nor length leaks), Origin validation that is
//! always on (a request carrying an `Origin` not listed with `--allow-origin` gets 403), `Host`
//! validation against the loopback names plus `--allow-host` (parsed strictly: a name or an
//! address literal and an optional numeric port, nothing else), a body limit, a per-request
//! deadline (the longest `--max-call-seconds` plus 10 s; 408 past it), and a cap on legacy
//! sessions so that no per-client state grows without bound.
//!
//! Below the MCP layer, connections are bounded so that stalled clients cannot take the
//! descriptors authenticated work needs: headers must arrive within
//! `--http-header-read-seconds`, a connection that moves no byte for `--http-idle-seconds` while
//! none of its requests is being handled is closed, and at most `--http-max-connections` are
//! open at once (the rest wait in the kernel's accept queue, holding no descriptor of ours).
//! When every slot is taken and a client waits, the oldest connection that is doing nothing
//! for anyone (no request in its handler, and either no request's headers completed or no
//! byte moved for a second) is closed to make room.
//! Bodies are read before `rmcp` sees them, sharing [`IN_FLIGHT_BODY_BYTES`], and refused
//! when a key repeats or they hold too many values.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::FsmcpServer;
use super::sessions::CappedSessions;
use super::stdio::duplicate_reply;
use crate::config::HttpConfig;
use crate::config::http::{parse_authority, parse_host_entry};
use crate::config::limits::HttpLimits;
use crate::json::{MAX_MESSAGE_VALUES, scan};

/// The one MCP endpoint.
pub const ENDPOINT: &str = "/mcp";
/// Largest request body: a write of the largest content, JSON-escaped, fits with room to spare.
pub const MAX_REQUEST_BODY_BYTES: usize = 8 << 20;
/// Bytes of request bodies being read or handled at once, over all connections: four of the
/// largest. A body waits for room (within its request's deadline) before it is read.
pub const IN_FLIGHT_BODY_BYTES: usize = 4 * MAX_REQUEST_BODY_BYTES;

/// Binds `config.listen`, prints the endpoint's address to stderr, and serves until `shutdown`
/// completes; in-flight requests are then finished and open streams closed.
pub async fn serve_http(
    server: FsmcpServer,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let local: SocketAddr = listener.local_addr()?;
    eprintln!("fsmcp: serving http://{local}{ENDPOINT}");
    let server_deadline = server.longest_call();
    let cancel = CancellationToken::new();
    let settings = StreamableHttpServerConfig::default()
        .with_allowed_hosts(config.allow_hosts.clone())
        .with_allowed_origins(config.allow_origins.clone())
        .enforce_origin_validation()
        .with_json_response(true)
        .with_max_request_body_bytes(MAX_REQUEST_BODY_BYTES)
        .with_cancellation_token(cancel.child_token());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(CappedSessions::default()),
        settings,
    );
    // A response (or, for a stream, its head) is due within the longest call plus slack;
    // a request that holds its connection longer, e.g. by sending its body slowly, gets 408.
    let request_deadline = server_deadline + REQUEST_SLACK;
    let hosts = Arc::new(AllowedHosts::new(&config.allow_hosts));
    let room = Arc::new(Semaphore::new(IN_FLIGHT_BODY_BYTES));
    // The last layer added runs first: token, deadline, Host, body, then rmcp.
    let mut app = Router::new()
        .nest_service(ENDPOINT, service)
        .layer(middleware::from_fn_with_state(room, bounded_body))
        .layer(middleware::from_fn_with_state(hosts, strict_host))
        .layer(middleware::from_fn_with_state(
            request_deadline,
            within_deadline,
        ));
    if let Some(token) = &config.token {
        let expected = Arc::new(digest(token.as_bytes()));
        app = app.layer(middleware::from_fn_with_state(expected, require_token));
    }
    serve_connections(listener, app, config.limits, async move {
        shutdown.await;
        cancel.cancel();
    })
    .await
}

/// Accepts connections and serves each on its own task under the connection limits (a
/// connection waits for a free slot, made by eviction if need be), until `shutdown` completes; then open connections finish what they are
/// doing (kept-alive ones close) and the function returns once every one is closed.
async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let descriptors = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
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

/// The `Host` values a request may carry: each a lower-case host (IPv6 without brackets) with
/// the port it must have, if the entry names one.
struct AllowedHosts(Vec<(String, Option<u16>)>);

impl AllowedHosts {
    fn new(entries: &[String]) -> AllowedHosts {
        AllowedHosts(
            entries
                .iter()
                .filter_map(|entry| parse_host_entry(entry))
                .collect(),
        )
    }

    fn allows(&self, host: &str, port: Option<u16>) -> bool {
        self.0
            .iter()
            .any(|(name, fixed)| name == host && fixed.is_none_or(|fixed| Some(fixed) == port))
    }
}

/// Refuses a request whose `Host` is malformed or repeated (400) or names a host that is not
/// allowed (403), in `rmcp`'s words, before anything else reads it. A request with no `Host`
/// goes on to `rmcp`, which refuses it too.
async fn strict_host(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let mut values = request.headers().get_all(header::HOST).iter();
    let Some(value) = values.next() else {
        return next.run(request).await;
    };
    let parsed = match values.next() {
        Some(_) => None,
        None => value.to_str().ok().and_then(parse_authority),
    };
    match parsed {
        None => (StatusCode::BAD_REQUEST, "Bad Request: Invalid Host header").into_response(),
        Some((host, port)) if !hosts.allows(&host, port) => (
            StatusCode::FORBIDDEN,
            "Forbidden: Host header is not allowed",
        )
            .into_response(),
        Some(_) => next.run(request).await,
    }
}

/// Reads a POST's body before `rmcp` does: at most [`MAX_REQUEST_BODY_BYTES`] (413 past it),
/// within the shared [`IN_FLIGHT_BODY_BYTES`] (held until the response is ready), and refused
/// when an object repeats a key or the body holds more than [`MAX_MESSAGE_VALUES`] values.
async fn bounded_body(
    State(room): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: a request body may hold at most {MAX_REQUEST_BODY_BYTES} bytes"
            ),
        )
            .into_response()
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_REQUEST_BODY_BYTES as u64) {
        return too_large();
    }
    // Without a length, room for the largest body is held until the body is read.
    let charge = declared.map_or(MAX_REQUEST_BODY_BYTES, |length| length as usize);
    let Ok(mut permit) = room.acquire_many_owned(charge.max(1) as u32).await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REQUEST_BODY_BYTES).await else {
        return too_large();
    };
    if bytes.len() + 1 < permit.num_permits() {
        drop(permit.split(permit.num_permits() - bytes.len().max(1)));
    }
    if let Ok(scanned) = scan(&bytes, MAX_MESSAGE_VALUES) {
        let id = scanned
            .id
            .clone()
            .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
            .unwrap_or(Value::Null);
        let refusal = if scanned.too_many_values {
            Some((
                -32600,
                format!(
                    "Invalid Request: a message may hold at most {MAX_MESSAGE_VALUES} JSON values"
                ),
                id,
            ))
        } else {
            scanned.duplicate.as_ref().map(|duplicate| {
                let (code, text) = duplicate_reply(
                    &duplicate.key,
                    &duplicate.location,
                    scanned.method.as_deref(),
                );
                let id = if duplicate.key == "id" && duplicate.location.is_empty() {
                    Value::Null
                } else {
                    id
                };
                (code, text, id)
            })
        };
        if let Some((code, text, id)) = refusal {
            // A request's bad params are answered in band, as rmcp answers them; a malformed
            // message is a bad request.
            let status = if code == -32602 {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
            let body =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}});
            let mut response = (status, body.to_string()).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            return response;
        }
    }
    // Not JSON: rmcp answers it in its own words.
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    drop(permit);
    response
}

/// Time a request may take beyond its call's own deadline (reading the body, answering).
const REQUEST_SLACK: Duration = Duration::from_secs(10);

/// Answers 408 when the request is not answered within `limit`.
async fn within_deadline(State(limit): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => (StatusCode::REQUEST_TIMEOUT, "request took too long\n").into_response(),
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lets a request through only with `Authorization: Bearer <token>`; anything else is 401 with
/// `WWW-Authenticate: Bearer`, before the request reaches the MCP layer.
async fn require_token(
    State(expected): State<Arc<[u8; 32]>>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(|token| digest(token.as_bytes()));
    let allowed = presented.is_some_and(|p| bool::from(p.ct_eq(expected.as_ref())));
    if allowed {
        return next.run(request).await;
    }
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized: send Authorization: Bearer <token>"}}"#;
    let mut response = (StatusCode::UNAUTHORIZED, Body::from(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
