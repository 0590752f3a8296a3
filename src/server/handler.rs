//! The MCP request handler: identity, discovery, the tool list and tool calls, on `rmcp`'s
//! `ServerHandler`. Filesystem work runs on the blocking pool so a slow disk never stalls the
//! protocol loop.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::wire::MODERN_VERSION;
use crate::config::{ProtocolMode, ServerIdentity};
use crate::root::Progress;
use crate::tools::{Registry, ToolOutcome, ToolSpec};

/// What the server tells a client by default; see [`crate::SERVER_INSTRUCTIONS`].
pub const INSTRUCTIONS: &str = crate::SERVER_INSTRUCTIONS;

/// One or more served roots with their published tools.
#[derive(Clone)]
pub struct FsmcpServer {
    registry: Arc<Registry>,
    protocol: ProtocolMode,
    identity: Arc<ServerIdentity>,
}

impl FsmcpServer {
    /// A server publishing `registry`, accepting the eras `protocol` allows, under the default
    /// identity (`fsmcp`, the crate version, [`INSTRUCTIONS`]).
    pub fn new(registry: Arc<Registry>, protocol: ProtocolMode) -> Self {
        FsmcpServer {
            registry,
            protocol,
            identity: Arc::new(ServerIdentity::default()),
        }
    }

    /// The same server under another name, version and instructions.
    pub fn with_identity(mut self, identity: ServerIdentity) -> Self {
        self.identity = Arc::new(identity);
        self
    }

    /// How the server names and introduces itself.
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// The tool catalogue `--describe` prints: for every published tool, in publication order,
    /// its `name`, `title` (when it has one), `description` and `inputSchema`, exactly as
    /// `tools/list` shows them.
    pub fn describe(&self) -> Value {
        self.tool_definitions()
            .iter()
            .map(|tool| {
                let listed = serde_json::to_value(tool).unwrap_or_default();
                let mut entry = Map::new();
                for key in ["name", "title", "description", "inputSchema"] {
                    if let Some(value) = listed.get(key) {
                        entry.insert(key.to_owned(), value.clone());
                    }
                }
                Value::Object(entry)
            })
            .collect()
    }

    /// The longest time one call may take: the largest `--max-call-seconds` of the roots.
    pub fn longest_call(&self) -> std::time::Duration {
        let seconds = self
            .registry
            .entries()
            .iter()
            .map(|entry| entry.root.limits().max_call_seconds)
            .max()
            .unwrap_or(crate::config::Limits::default().max_call_seconds);
        std::time::Duration::from_secs(seconds)
    }

    /// The published tools as MCP tool definitions.
    pub fn tool_definitions(&self) -> Vec<Tool> {
        self.registry
            .entries()
            .iter()
            .map(|entry| definition(&entry.spec))
            .collect()
    }

    /// Runs one tool call to completion: `None` when no tool has that name.
    pub async fn run_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Option<CallToolResult> {
        self.run_tool_under(name, arguments, None, None).await
    }

    /// [`FsmcpServer::run_tool`], stopping once `cancel` is cancelled (the client cancelled
    /// the request, or closed its HTTP stream) and, with a progress token, sending
    /// `notifications/progress` to `peer` while the call works. Nothing is sent for the call
    /// once it is cancelled or has its result.
    async fn run_tool_under(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cancel: Option<CancellationToken>,
        progress: Option<(ProgressToken, Peer<RoleServer>)>,
    ) -> Option<CallToolResult> {
        let entry = self.registry.get(name)?.clone();
        let started = std::time::Instant::now();
        let stopped = Arc::new(AtomicUsize::new(0));
        let mut helpers = Vec::new();
        if let Some(cancel) = cancel.clone() {
            let stopped = stopped.clone();
            helpers.push(tokio::spawn(async move {
                cancel.cancelled().await;
                stopped.store(1, Ordering::Relaxed);
            }));
        }
        let sink = progress.map(|(token, peer)| {
            let (sender, mut counts) = tokio::sync::mpsc::unbounded_channel::<u64>();
            let cancel = cancel.clone().unwrap_or_default();
            helpers.push(tokio::spawn(async move {
                loop {
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return,
                        count = counts.recv() => match count {
                            Some(done) => {
                                let param = ProgressNotificationParam::new(token.clone(), done as f64);
                                let _ = peer.notify_progress(param).await;
                            }
                            None => return,
                        },
                    }
                }
            }));
            Arc::new(Progress::new(move |done| {
                let _ = sender.send(done);
            }))
        });
        let flag = stopped.clone();
        let outcome =
            tokio::task::spawn_blocking(move || entry.call_under(&arguments, Some(flag), sink))
                .await
                .unwrap_or_else(|_| Err("internal error".to_owned()));
        for helper in helpers {
            helper.abort();
        }
        let outcome_word = match (&outcome, stopped.load(Ordering::Relaxed) != 0) {
            (_, true) => "cancelled",
            (Ok(_), false) => "ok",
            (Err(_), false) => "refused",
        };
        let result = tool_result(outcome);
        tracing::debug!(
            tool = name,
            duration_ms = started.elapsed().as_millis() as u64,
            bytes = result.content.iter().map(text_len).sum::<usize>(),
            outcome = outcome_word,
            "call"
        );
        Some(result)
    }
}

/// `{"io.modelcontextprotocol/serverInfo": {name, version}}`, stamped on modern results.
pub fn server_info_meta(identity: &ServerIdentity) -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": identity.name, "version": identity.version}})
}

/// Adds the keys of `info` (see [`server_info_meta`]) that a result's `_meta` lacks, keeping
/// any the result already has.
pub(crate) fn stamp(meta: &mut Map<String, Value>, info: &Value) {
    if let Value::Object(info) = info {
        for (key, value) in info {
            meta.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// Whether a request claims the modern revision in its own `_meta`: its result then carries
/// the server's identity, on every transport.
fn claims_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|version| version.as_str() == MODERN_VERSION)
}

fn definition(spec: &ToolSpec) -> Tool {
    let object =
        |v: &Value| -> Arc<JsonObject> { Arc::new(v.as_object().cloned().unwrap_or_default()) };
    let mut tool = Tool::new(
        spec.name.clone(),
        spec.description,
        object(&spec.input_schema),
    );
    tool.title = Some(spec.title.to_owned());
    tool.output_schema = spec.output_schema.as_ref().map(object);
    if spec.hints {
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(spec.read_only);
        annotations.destructive_hint = Some(!spec.read_only);
        annotations.idempotent_hint = Some(true);
        annotations.open_world_hint = Some(false);
        tool.annotations = Some(annotations);
    }
    tool.meta =
        serde_json::from_value(json!({"io.modelcontextprotocol/cacheScope": "private"})).ok();
    tool
}

/// A success carries its text as one block (then its image, if any), plus structured content
/// when the tool has any; a refusal carries only its message.
fn tool_result(outcome: ToolOutcome) -> CallToolResult {
    match outcome {
        Ok(output) => {
            let mut content = vec![ContentBlock::text(output.text)];
            if let Some(image) = output.image {
                content.push(ContentBlock::image(image.data, image.mime_type));
            }
            let mut result = CallToolResult::success(content);
            result.structured_content = output.structured;
            result.is_error = None;
            result
        }
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    }
}

impl ServerHandler for FsmcpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                self.identity.name.clone(),
                self.identity.version.clone(),
            ))
            .with_instructions(self.identity.instructions.clone())
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.protocol {
            ProtocolMode::Modern => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
            ProtocolMode::All => Cow::Owned(vec![
                ProtocolVersion::V_2026_07_28,
                ProtocolVersion::V_2025_11_25,
                ProtocolVersion::V_2025_06_18,
                ProtocolVersion::V_2025_03_26,
                ProtocolVersion::V_2024_11_05,
            ]),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tool_definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (token, context.peer.clone()));
        let modern = claims_modern(&context);
        match self
            .run_tool_under(&request.name, arguments, Some(context.ct.clone()), progress)
            .await
        {
            Some(mut result) => {
                // Stamped here, in place, because a result can be megabytes: no transport
                // should have to parse it again to add the identity.
                if modern {
                    let info = server_info_meta(&self.identity);
                    stamp(
                        &mut result.meta.get_or_insert_with(Default::default).0,
                        &info,
                    );
                }
                Ok(result.into())
            }
            None => Err(McpError::invalid_params(
                self.registry.unknown_tool_message(&request.name),
                None,
            )),
        }
    }
}

/// The bytes of text (or base64 image data) a content block carries (what the call's log line
/// counts).
fn text_len(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(text) => text.text.len(),
        ContentBlock::Image(image) => image.data.len(),
        _ => 0,
    }
}
