//! Streamable HTTP: one endpoint, `/mcp`, on `rmcp`'s server for both protocol eras
//! (2026-07-28 stateless requests; 2025-11-25 sessions for clients that `initialize`).
//!
//! What fsmcp adds in front of `rmcp`: the bearer token (`require_token`, compared in
//! constant time over digests so neither content nor length leaks), Origin validation that is
//! always on (a request carrying an `Origin` not listed with `--allow-origin` gets 403), `Host`
//! validation against the loopback names plus `--allow-host`, a body limit, a per-request
//! deadline (the longest `--max-call-seconds` plus 10 s; 408 past it), and a cap on legacy
//! sessions so that no per-client state grows without bound.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::FsmcpServer;
use super::sessions::CappedSessions;
use crate::config::HttpConfig;

/// The one MCP endpoint.
pub const ENDPOINT: &str = "/mcp";
/// Largest request body: a write of the largest content, JSON-escaped, fits with room to spare.
pub const MAX_REQUEST_BODY_BYTES: usize = 8 << 20;

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
    let mut app =
        Router::new()
            .nest_service(ENDPOINT, service)
            .layer(middleware::from_fn_with_state(
                request_deadline,
                within_deadline,
            ));
    if let Some(token) = &config.token {
        let expected = Arc::new(digest(token.as_bytes()));
        app = app.layer(middleware::from_fn_with_state(expected, require_token));
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            cancel.cancel();
        })
        .await
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
