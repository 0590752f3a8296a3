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
//! Below the MCP layer, `connections` bounds the connections themselves.
//! Bodies are read before `rmcp` sees them, sharing [`IN_FLIGHT_BODY_BYTES`], and refused
//! when a key repeats or they hold too many values.

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::FsmcpServer;
use super::server_info_meta;
use super::sessions::CappedSessions;
use super::wire::{MODERN_VERSION, refusal, stamp_result, word_method_not_found};
use crate::config::HttpConfig;
use crate::config::http::{parse_authority, parse_host_entry};
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
    // A closed stderr is no reason to stop serving.
    let _ = writeln!(
        std::io::stderr().lock(),
        "fsmcp: serving http://{local}{ENDPOINT}"
    );
    let server_deadline = server.longest_call();
    let server_info = server_info_meta(server.identity());
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
    let intake = Arc::new(Intake {
        room: Semaphore::new(IN_FLIGHT_BODY_BYTES),
        server_info,
    });
    // The last layer added runs first: token, deadline, Host, body, then rmcp.
    let mut app = Router::new()
        .nest_service(ENDPOINT, service)
        .layer(middleware::from_fn_with_state(intake, bounded_body))
        .layer(middleware::from_fn_with_state(hosts, strict_host))
        .layer(middleware::from_fn_with_state(
            request_deadline,
            within_deadline,
        ));
    if let Some(token) = &config.token {
        let expected = Arc::new(digest(token.as_bytes()));
        app = app.layer(middleware::from_fn_with_state(expected, require_token));
    }
    super::connections::serve_connections(listener, app, config.limits, async move {
        shutdown.await;
        cancel.cancel();
    })
    .await
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

/// What [`bounded_body`] shares between requests.
struct Intake {
    /// Room for the bodies being read or handled ([`IN_FLIGHT_BODY_BYTES`]).
    room: Semaphore,
    /// The `_meta` identity modern results carry ([`server_info_meta`]).
    server_info: Value,
}

/// Reads a POST's body before `rmcp` does: at most [`MAX_REQUEST_BODY_BYTES`] (413 past it),
/// within the shared [`IN_FLIGHT_BODY_BYTES`] (held until the response is ready), and refused
/// when an object repeats a key or the body holds more than [`MAX_MESSAGE_VALUES`] values.
/// What `rmcp` answers is then given stdio's face ([`stdio_face`]).
async fn bounded_body(State(intake): State<Arc<Intake>>, request: Request, next: Next) -> Response {
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
    let Ok(mut permit) = intake.room.acquire_many(charge.max(1) as u32).await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REQUEST_BODY_BYTES).await else {
        return too_large();
    };
    if bytes.len() + 1 < permit.num_permits() {
        drop(permit.split(permit.num_permits() - bytes.len().max(1)));
    }
    let scanned = scan(&bytes, MAX_MESSAGE_VALUES).ok();
    if let Some(scanned) = &scanned {
        let refusal = refusal(scanned);
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
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    let method = scanned.and_then(|scanned| scanned.method);
    let response = stdio_face(response, method.as_deref(), &bytes, &intake.server_info).await;
    drop(permit);
    response
}

/// The part of a request [`stdio_face`] reads: its `_meta` protocol claim (everything else is
/// skipped unread).
#[derive(Deserialize)]
struct Claim {
    params: Option<ClaimParams>,
}

#[derive(Deserialize)]
struct ClaimParams {
    #[serde(rename = "_meta")]
    meta: Option<ClaimMeta>,
}

#[derive(Deserialize)]
struct ClaimMeta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<Value>,
}

/// Gives `rmcp`'s JSON answer to a stateless request the words and stamp the stdio transport
/// gives the same request: a `-32601` (the 404 answer) says `Method not found` where `rmcp`
/// names the method, and the result of a request claiming 2026-07-28 carries the server's
/// identity (`rmcp` stamps only discovery). A tool result is left alone: the handler stamped
/// it, and it may be megabytes. Event streams (legacy sessions) are worded by their
/// transport ([`super::sessions::SessionTransport`]).
async fn stdio_face(
    response: Response,
    method: Option<&str>,
    request: &[u8],
    server_info: &Value,
) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value == "application/json");
    let not_found = json && response.status() == StatusCode::NOT_FOUND;
    let stamped = json
        && response.status() == StatusCode::OK
        && method != Some("tools/call")
        && serde_json::from_slice::<Claim>(request).is_ok_and(|claim| {
            claim
                .params
                .and_then(|params| params.meta)
                .and_then(|meta| meta.version)
                .is_some_and(|version| version == MODERN_VERSION)
        });
    if !not_found && !stamped {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // rmcp's JSON answers are whole in memory already.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let reworded = if not_found {
        serde_json::from_slice::<ServerJsonRpcMessage>(&bytes)
            .ok()
            .and_then(|mut message| {
                word_method_not_found(&mut message)
                    .then(|| serde_json::to_vec(&message).ok())
                    .flatten()
            })
    } else {
        serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|mut message| {
                stamp_result(&mut message, server_info);
                serde_json::to_vec(&message).ok()
            })
    };
    match reworded {
        Some(body) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(body))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
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
/// `WWW-Authenticate: Bearer`, before the request reaches the MCP layer, and the connection
/// closes after it: a client without the token holds a connection slot for one request at a
/// time, never between requests (kept alive, it could hold every slot by asking again before
/// the idle limit).
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
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
