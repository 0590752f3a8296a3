//! The MCP wire: discovery, the tool catalogue, protocol-version checks, JSON-RPC framing errors,
//! the legacy handshake, `--protocol 2026-07-28` refusals, tool-result shapes, and process exit.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use serde_json::{Value, json};
use std::time::Duration;
use support::*;

const INSTRUCTIONS: &str = "Read and write files under one confined root. Paths are relative to that root. Reads reflect the filesystem at call time, so a write is visible to the next read. Follow next_cursor until it is null; a cursor is rejected if the data it was issued against changed.";

const MISSING_ENVELOPE: &str = "Request is missing the required _meta envelope for protocol revision 2026-07-28 (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)";

fn server() -> (Tree, Server) {
    let tree = Tree::new().file("notes.txt", "hello\n");
    let server = Server::serving(&tree);
    (tree, server)
}

fn modern_only(tree: &Tree) -> Server {
    Server::start(tree.path(), &["--include", "**", "--protocol", MODERN])
}

fn tools(server: &mut Server) -> Vec<Value> {
    server.result("tools/list", json!({}))["tools"]
        .as_array()
        .expect("tools")
        .clone()
}

fn tool(server: &mut Server, name: &str) -> Value {
    tools(server)
        .into_iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn legacy_initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "fsmcp-tests", "version": "0"}}})
    .to_string()
}

fn error_keys_are_code_message_data(error: &Value) {
    for key in keys(error) {
        assert!(
            ["code", "message", "data"].contains(&key.as_str()),
            "unexpected error key {key}: {error}"
        );
    }
}

// ---- server/discover ------------------------------------------------------------------------

#[test]
fn discover_names_both_eras_and_the_tools_capability() {
    let (_tree, mut server) = server();
    let result = server.result("server/discover", json!({}));
    let versions = result["supportedVersions"].as_array().expect("versions");
    assert!(versions.contains(&json!(MODERN)), "{result}");
    assert!(versions.contains(&json!(LEGACY)), "{result}");
    assert_eq!(keys(&result["capabilities"]), ["tools"]);
    assert!(result["capabilities"]["tools"].is_object());
}

#[test]
fn discover_is_a_complete_private_uncached_result_naming_fsmcp() {
    let (_tree, mut server) = server();
    let result = server.result("server/discover", json!({}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(result["_meta"], server_info());
    assert!(
        result.get("serverInfo").is_none(),
        "identity only in _meta: {result}"
    );
}

#[test]
fn discover_carries_the_instructions() {
    let (_tree, mut server) = server();
    let result = server.result("server/discover", json!({}));
    assert_eq!(result["instructions"], INSTRUCTIONS);
}

#[test]
fn a_server_of_fs_tools_alone_instructs_about_them_not_about_cursors() {
    let tree = Tree::new();
    let fs_only = "Read and write files under a confined root. Paths are relative to the root; an absolute path inside it is accepted, and answers speak relative paths. Reads reflect the filesystem at call time, so a write is visible to the next read. Observations return revision tokens: send one back in _expected-revisions to make a change conditional on what you saw.";
    for (tools, expected) in [
        ("fs", fs_only),
        ("ptc,fs", INSTRUCTIONS),
        ("ptc", INSTRUCTIONS),
    ] {
        let mut server = Server::start(tree.path(), &["--tools", tools, "--include", "**"]);
        let result = server.result("server/discover", json!({}));
        assert_eq!(result["instructions"], expected, "--tools {tools}");
    }
}

#[test]
fn discover_under_protocol_2026_07_28_names_only_the_modern_revision() {
    let tree = Tree::new();
    let mut server = modern_only(&tree);
    let result = server.result("server/discover", json!({}));
    assert_eq!(result["supportedVersions"], json!([MODERN]));
}

// ---- tools/list -----------------------------------------------------------------------------

#[test]
fn tools_list_offers_exactly_the_five_ptc_tools() {
    let (_tree, mut server) = server();
    let mut names: Vec<String> = tools(&mut server)
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "list_directory",
            "read_text_file",
            "search_files",
            "search_text",
            "write_text_file"
        ]
    );
}

#[test]
fn tools_list_is_a_complete_private_uncached_result_without_next_cursor() {
    let (_tree, mut server) = server();
    let result = server.result("tools/list", json!({}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(result["_meta"], server_info());
    assert!(result.get("nextCursor").is_none(), "{result}");
}

#[test]
fn tools_list_ignores_a_cursor_param() {
    let (_tree, mut server) = server();
    let plain = server.result("tools/list", json!({}));
    let with_cursor = server.result("tools/list", json!({"cursor": "whatever"}));
    assert_eq!(plain["tools"], with_cursor["tools"]);
}

#[test]
fn every_tool_has_exactly_the_catalogue_keys() {
    let (_tree, mut server) = server();
    for tool in tools(&mut server) {
        let mut keys = keys(&tool);
        keys.sort();
        assert_eq!(
            keys,
            [
                "_meta",
                "annotations",
                "description",
                "inputSchema",
                "name",
                "outputSchema",
                "title"
            ],
            "{tool}"
        );
    }
}

#[test]
fn every_tool_is_private_to_the_cache() {
    let (_tree, mut server) = server();
    for tool in tools(&mut server) {
        assert_eq!(
            tool["_meta"],
            json!({"io.modelcontextprotocol/cacheScope": "private"}),
            "{}",
            tool["name"]
        );
    }
}

#[test]
fn tool_titles_and_descriptions() {
    let cases = [
        (
            "list_directory",
            "List directory",
            "Sorted entries directly under a relative prefix. Follow next_cursor until null.",
        ),
        (
            "search_files",
            "Search files",
            "Sorted paths containing a literal substring. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Follow next_cursor until null.",
        ),
        (
            "search_text",
            "Search text",
            "Streaming literal line search. Pass any_of instead of query to match any of several substrings, and case_insensitive to fold ASCII letters. Empty progress pages may carry next_cursor; follow it until null.",
        ),
        (
            "read_text_file",
            "Read text file",
            "Bounded exact UTF-8 chunks of live bytes. Concatenate item text and follow next_cursor. Pass start_line to begin at a 1-based line instead of the start of the file; only the bytes actually returned must decode as UTF-8.",
        ),
        (
            "write_text_file",
            "Write text file",
            "Replaces one regular file named by a single lowercase basename in the root. The next read sees it.",
        ),
    ];
    let (_tree, mut server) = server();
    for (name, title, description) in cases {
        let tool = tool(&mut server, name);
        assert_eq!(tool["title"], title, "{name}");
        assert_eq!(tool["description"], description, "{name}");
    }
}

#[test]
fn read_tools_are_read_only_and_the_write_tool_is_destructive_and_idempotent() {
    let (_tree, mut server) = server();
    for name in READ_TOOLS {
        assert_eq!(
            tool(&mut server, name)["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}),
            "{name}"
        );
    }
    assert_eq!(
        tool(&mut server, "write_text_file")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false})
    );
}

fn terms_properties() -> Properties {
    vec![
        ("query", json!({"type": "string", "minLength": 1})),
        (
            "any_of",
            json!({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 16}),
        ),
        ("case_insensitive", json!({"type": "boolean"})),
    ]
}

/// A tool's expected input schema: its properties in emitted order and its `required` list.
type Properties = Vec<(&'static str, Value)>;

fn expected_input_schemas(max_chunks: u64) -> Vec<(&'static str, Properties, Option<Value>)> {
    let cursor = ("cursor", json!({"type": "string"}));
    let limit = ("limit", json!({"type": "integer", "minimum": 1}));
    let mut search_files = terms_properties();
    search_files.extend([cursor.clone(), limit.clone()]);
    let mut search_text = terms_properties();
    search_text.extend([
        ("path", json!({"type": "string"})),
        cursor.clone(),
        limit.clone(),
    ]);
    vec![
        (
            "list_directory",
            vec![
                ("path", json!({"type": "string"})),
                cursor.clone(),
                limit.clone(),
            ],
            None,
        ),
        ("search_files", search_files, None),
        ("search_text", search_text, None),
        (
            "read_text_file",
            vec![
                ("path", json!({"type": "string", "minLength": 1})),
                ("start_line", json!({"type": "integer", "minimum": 1})),
                cursor,
                (
                    "limit",
                    json!({"type": "integer", "minimum": 1, "maximum": max_chunks}),
                ),
            ],
            Some(json!(["path"])),
        ),
        (
            "write_text_file",
            vec![
                (
                    "path",
                    json!({"type": "string", "minLength": 1, "description": "A basename of lowercase letters, digits, dots, underscores, or hyphens."}),
                ),
                ("content", json!({"type": "string"})),
            ],
            Some(json!(["path", "content"])),
        ),
    ]
}

fn schema_of(properties: &[(&str, Value)], required: &Option<Value>) -> Value {
    let mut schema = json!({"type": "object", "properties": {}});
    for (name, property) in properties {
        schema["properties"][*name] = property.clone();
    }
    if let Some(required) = required {
        schema["required"] = required.clone();
    }
    schema["additionalProperties"] = json!(false);
    schema
}

#[test]
fn input_schemas_are_exact_with_properties_in_order() {
    let (_tree, mut server) = server();
    for (name, properties, required) in expected_input_schemas(8) {
        let schema = tool(&mut server, name)["inputSchema"].clone();
        assert_eq!(schema, schema_of(&properties, &required), "{name}");
        let order: Vec<&str> = properties.iter().map(|(p, _)| *p).collect();
        assert_eq!(keys(&schema["properties"]), order, "{name} property order");
    }
}

#[test]
fn read_text_file_limit_maximum_follows_max_read_bytes() {
    for (max_read_bytes, chunks) in [("4", 1), ("2048", 1), ("3000", 2), ("500000", 245)] {
        let tree = Tree::new();
        let mut server = Server::start(
            tree.path(),
            &["--include", "**", "--max-read-bytes", max_read_bytes],
        );
        let schema = tool(&mut server, "read_text_file")["inputSchema"].clone();
        assert_eq!(
            schema["properties"]["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": chunks}),
            "--max-read-bytes {max_read_bytes}"
        );
    }
}

fn paged_output_schema(item: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "content_hash": {"type": "string"},
            "items": {"type": "array", "items": {"type": "object", "properties": item, "additionalProperties": false}}
        },
        "required": ["content_hash", "items"],
        "additionalProperties": true
    })
}

#[test]
fn output_schemas_are_exact() {
    let string = json!({"type": "string"});
    let integer = json!({"type": "integer"});
    let cases = [
        (
            "list_directory",
            paged_output_schema(json!({"name": string, "kind": string, "path": string})),
        ),
        ("search_files", paged_output_schema(json!({"path": string}))),
        (
            "search_text",
            paged_output_schema(json!({"path": string, "line": integer, "text": string})),
        ),
        (
            "read_text_file",
            paged_output_schema(json!({"byte_offset": integer, "text": string})),
        ),
        (
            "write_text_file",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "bytes": {"type": "integer", "minimum": 0},
                    "content_hash": {"type": "string"}
                },
                "required": ["path", "bytes", "content_hash"],
                "additionalProperties": false
            }),
        ),
    ];
    let (_tree, mut server) = server();
    for (name, schema) in cases {
        assert_eq!(tool(&mut server, name)["outputSchema"], schema, "{name}");
    }
}

// ---- protocol versions and envelopes --------------------------------------------------------

#[test]
fn an_unsupported_version_claim_after_a_served_request_is_refused() {
    for version in ["2099-01-01", "2025-06-18", "1900-01-01"] {
        let (_tree, mut server) = server();
        server.result("tools/list", json!({}));
        let error = Server::error_of(
            &server.request("tools/list", json!({"_meta": meta_claiming(version)})),
        );
        assert_eq!(error["code"], -32022, "{version}: {error}");
        assert_eq!(
            error["message"],
            format!("Unsupported protocol version: {version}")
        );
        assert_eq!(error["data"]["requested"], version);
        assert!(
            error["data"]["supported"]
                .as_array()
                .expect("supported")
                .contains(&json!(MODERN)),
            "{error}"
        );
        let still = server.result("tools/list", json!({}));
        assert_eq!(still["tools"].as_array().expect("tools").len(), 5);
    }
}

#[test]
fn a_tools_call_claiming_another_version_is_refused_too() {
    let (_tree, mut server) = server();
    server.call("list_directory", json!({}));
    let error = Server::error_of(&server.request(
        "tools/call",
        json!({"name": "list_directory", "arguments": {}, "_meta": meta_claiming("2025-06-18")}),
    ));
    assert_eq!(error["code"], -32022, "{error}");
    assert_eq!(error["data"]["requested"], "2025-06-18");
}

#[test]
fn a_request_without_the_envelope_after_a_modern_one_is_invalid_params() {
    for params in [Some(json!({})), None] {
        for protocol in [&["--protocol", "all"][..], &["--protocol", MODERN][..]] {
            let tree = Tree::new();
            let mut args = vec!["--include", "**"];
            args.extend_from_slice(protocol);
            let mut server = Server::start(tree.path(), &args);
            server.result("tools/list", json!({}));
            let error = Server::error_of(&server.request_bare("tools/list", params.clone()));
            assert_eq!(
                error,
                json!({"code": -32602, "message": MISSING_ENVELOPE}),
                "{protocol:?} {params:?}"
            );
        }
    }
}

#[test]
fn an_envelope_without_client_capabilities_is_invalid_params() {
    let (_tree, mut server) = server();
    server.result("tools/list", json!({}));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN});
    let error = Server::error_of(&server.request("tools/list", json!({"_meta": meta})));
    assert_eq!(
        error,
        json!({"code": -32602, "message": "Invalid _meta envelope for protocol revision 2026-07-28: Invalid input: expected object, received undefined"})
    );
}

#[test]
fn client_info_is_optional_in_the_envelope() {
    let (_tree, mut server) = server();
    let result = server.result("tools/list", json!({"_meta": meta_claiming(MODERN)}));
    assert_eq!(result["tools"].as_array().expect("tools").len(), 5);
}

#[test]
fn removed_and_unknown_methods_are_method_not_found() {
    let (_tree, mut server) = server();
    server.result("tools/list", json!({}));
    for method in [
        "ping",
        "resources/list",
        "prompts/list",
        "logging/setLevel",
        "no/such/method",
    ] {
        let error = Server::error_of(&server.request(method, json!({})));
        assert_eq!(
            (error["code"].clone(), error["message"].clone()),
            (json!(-32601), json!("Method not found")),
            "{method}"
        );
        error_keys_are_code_message_data(&error);
    }
}

// ---- framing --------------------------------------------------------------------------------

#[test]
fn a_malformed_json_line_gets_a_parse_error_with_a_null_id() {
    let (_tree, mut server) = server();
    let response = server.raw_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], Value::Null);
    assert_eq!(response["error"]["code"], -32700, "{response}");
    assert!(response["error"]["message"].is_string());
    server.result("tools/list", json!({}));
}

#[test]
fn a_batch_gets_an_invalid_request_error_with_a_null_id() {
    let (_tree, mut server) = server();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": modern_meta()}});
    let response = server.raw_line(&json!([request]).to_string());
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], Value::Null);
    assert_eq!(response["error"]["code"], -32600, "{response}");
    server.result("tools/list", json!({}));
}

#[test]
fn a_string_id_is_echoed() {
    let (_tree, mut server) = server();
    let request = json!({"jsonrpc": "2.0", "id": "abc", "method": "tools/list", "params": {"_meta": modern_meta()}});
    let response = server.raw_line(&request.to_string());
    assert_eq!(response["id"], "abc");
    assert!(response["result"]["tools"].is_array(), "{response}");
}

#[test]
fn notifications_cancelled_gets_no_reply_and_changes_nothing() {
    let (_tree, mut server) = server();
    server.send_line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41, "reason": "test"}})
            .to_string(),
    );
    // request_bare fails on any message other than the awaited response.
    let response = server.request("tools/list", json!({}));
    assert!(response["result"]["tools"].is_array(), "{response}");
}

// ---- the legacy handshake (accepted by default) ---------------------------------------------

#[test]
fn initialize_is_accepted_by_default_and_names_fsmcp() {
    let (_tree, mut server) = server();
    let response = server.raw_line(&legacy_initialize(LEGACY));
    assert_eq!(response["id"], "init");
    let result = &response["result"];
    assert_eq!(result["protocolVersion"], LEGACY, "{response}");
    assert_eq!(
        result["serverInfo"],
        json!({"name": "fsmcp", "version": VERSION})
    );
    assert!(result["capabilities"]["tools"].is_object(), "{response}");
}

#[test]
fn after_initialize_tools_are_served_without_modern_result_fields() {
    let (_tree, mut server) = server();
    server.raw_line(&legacy_initialize(LEGACY));
    server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let list = server.request_bare("tools/list", None);
    let result = &list["result"];
    assert_eq!(result["tools"].as_array().expect("tools").len(), 5);
    assert!(result.get("resultType").is_none(), "{list}");
    let call = server.request_bare(
        "tools/call",
        Some(json!({"name": "read_text_file", "arguments": {"path": "notes.txt"}})),
    );
    let result = &call["result"];
    assert!(result.get("resultType").is_none(), "{call}");
    assert_eq!(
        result["structuredContent"]["items"],
        json!([{"byte_offset": 0, "text": "hello\n"}])
    );
}

#[test]
fn a_discover_probe_does_not_lock_out_a_later_initialize() {
    let (_tree, mut server) = server();
    server.result("server/discover", json!({}));
    let response = server.raw_line(&legacy_initialize(LEGACY));
    assert_eq!(response["result"]["protocolVersion"], LEGACY, "{response}");
}

// ---- --protocol 2026-07-28 refusals ---------------------------------------------------------

#[test]
fn modern_only_refuses_initialize_naming_any_version() {
    for version in ["2025-06-18", LEGACY, MODERN] {
        let tree = Tree::new();
        let mut server = modern_only(&tree);
        let response = server.raw_line(&legacy_initialize(version));
        assert_eq!(
            response["error"],
            json!({"code": -32022, "message": format!("Unsupported protocol version: {version}"),
                   "data": {"supported": [MODERN], "requested": version}}),
            "{response}"
        );
    }
}

#[test]
fn modern_only_refuses_a_request_naming_no_version() {
    let refusal = json!({"code": -32022,
        "message": "Unsupported protocol version: the request did not name a protocol version",
        "data": {"supported": [MODERN]}});
    for method in ["tools/list", "server/discover"] {
        let tree = Tree::new();
        let mut server = modern_only(&tree);
        let error = Server::error_of(&server.request_bare(method, None));
        assert_eq!(error, refusal, "{method}");
    }
}

#[test]
fn modern_only_refuses_an_unsupported_version_claim_at_opening() {
    for version in ["2025-06-18", "2099-01-01"] {
        let tree = Tree::new();
        let mut server = modern_only(&tree);
        let error = Server::error_of(
            &server.request("tools/list", json!({"_meta": meta_claiming(version)})),
        );
        assert_eq!(
            error,
            json!({"code": -32022, "message": format!("Unsupported protocol version: {version}"),
                   "data": {"supported": [MODERN], "requested": version}})
        );
    }
}

#[test]
fn modern_only_reports_a_malformed_envelope_at_opening_as_invalid_params() {
    let tree = Tree::new();
    let mut server = modern_only(&tree);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": "none"});
    let error = Server::error_of(&server.request("tools/list", json!({"_meta": meta})));
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .expect("message")
            .starts_with("Invalid _meta envelope for protocol revision 2026-07-28: "),
        "{error}"
    );
}

#[test]
fn modern_only_stays_usable_after_a_refused_initialize() {
    let tree = Tree::new().file("a.txt", "a");
    let mut server = modern_only(&tree);
    server.raw_line(&legacy_initialize("2025-06-18"));
    let page = server.call("list_directory", json!({}));
    assert_eq!(
        page["items"],
        json!([{"name": "a.txt", "kind": "file", "path": "a.txt"}])
    );
}

#[test]
fn modern_only_drops_legacy_notifications_silently() {
    let tree = Tree::new();
    let mut server = modern_only(&tree);
    server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert!(
        server
            .next_message_within(Duration::from_millis(300))
            .is_none(),
        "a notification got a reply"
    );
    server.result("tools/list", json!({}));
}

#[test]
fn modern_only_refuses_initialize_once_serving_modern_requests() {
    let tree = Tree::new();
    let mut server = modern_only(&tree);
    server.result("tools/list", json!({}));
    let response = server.raw_line(&legacy_initialize("2025-06-18"));
    assert_eq!(response["error"]["code"], -32022, "{response}");
    assert_eq!(response["error"]["data"]["supported"], json!([MODERN]));
}

#[test]
fn modern_only_answers_an_enveloped_initialize_with_method_not_found() {
    let tree = Tree::new();
    let mut server = modern_only(&tree);
    server.result("tools/list", json!({}));
    let error = Server::error_of(&server.request(
        "initialize",
        json!({"protocolVersion": MODERN, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    ));
    assert_eq!(
        error,
        json!({"code": -32601, "message": "Method not found"})
    );
}

// ---- tools/call shapes ----------------------------------------------------------------------

#[test]
fn a_successful_call_is_one_text_block_plus_structured_content() {
    let (_tree, mut server) = server();
    let result = server.call_result("list_directory", json!({}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"], server_info());
    assert_ne!(result.get("isError"), Some(&json!(true)));
    let block = &result["content"][0];
    assert_eq!(keys(block), ["type", "text"]);
    structured("list_directory", &json!({}), &result);
}

#[test]
fn a_failed_call_is_an_is_error_result_without_structured_content() {
    let (_tree, mut server) = server();
    let result = server.call_result("read_text_file", json!({"path": "missing.txt"}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"], server_info());
    assert_eq!(
        error_text("read_text_file", &json!({}), &result),
        "path is not a readable regular file"
    );
}

#[test]
fn omitted_arguments_are_treated_as_empty() {
    let (_tree, mut server) = server();
    let response = server.request("tools/call", json!({"name": "list_directory"}));
    let page = structured("list_directory", &json!({}), &response["result"]);
    assert_eq!(page["items"][0]["path"], "notes.txt");
}

#[test]
fn an_unknown_tool_is_an_invalid_params_error_naming_it() {
    let (_tree, mut server) = server();
    let error = Server::error_of(&server.request(
        "tools/call",
        json!({"name": "delete_everything", "arguments": {}}),
    ));
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .expect("message")
            .contains("delete_everything"),
        "{error}"
    );
}

#[test]
fn a_malformed_tools_call_is_an_invalid_params_error() {
    let (_tree, mut server) = server();
    for params in [
        json!({"name": "list_directory", "arguments": [1]}),
        json!({"name": "list_directory", "arguments": "path"}),
        json!({"arguments": {}}),
    ] {
        let error = Server::error_of(&server.request("tools/call", params.clone()));
        assert_eq!(error["code"], -32602, "{params}: {error}");
    }
}

#[test]
fn arguments_failing_the_schema_are_reported_in_validator_words() {
    let too_many: Vec<String> = (0..17).map(|i| format!("t{i}")).collect();
    let cases = [
        (
            "list_directory",
            json!({"limit": 0}),
            "data/limit must be >= 1",
        ),
        (
            "list_directory",
            json!({"limit": 1.5}),
            "data/limit must be integer",
        ),
        (
            "list_directory",
            json!({"limit": "many"}),
            "data/limit must be integer",
        ),
        (
            "list_directory",
            json!({"limit": null}),
            "data/limit must be integer",
        ),
        (
            "list_directory",
            json!({"path": 5}),
            "data/path must be string",
        ),
        (
            "list_directory",
            json!({"bogus": true}),
            "data must NOT have additional properties",
        ),
        (
            "read_text_file",
            json!({"path": "a.txt", "limit": 9}),
            "data/limit must be <= 8",
        ),
        (
            "read_text_file",
            json!({"path": ""}),
            "data/path must NOT have fewer than 1 characters",
        ),
        (
            "read_text_file",
            json!({}),
            "data must have required property 'path'",
        ),
        (
            "read_text_file",
            json!({"path": "a.txt", "start_line": 0}),
            "data/start_line must be >= 1",
        ),
        (
            "read_text_file",
            json!({"path": "a.txt", "start_line": 1.5}),
            "data/start_line must be integer",
        ),
        (
            "search_files",
            json!({"query": ""}),
            "data/query must NOT have fewer than 1 characters",
        ),
        (
            "search_text",
            json!({"query": 5}),
            "data/query must be string",
        ),
        (
            "search_files",
            json!({"any_of": []}),
            "data/any_of must NOT have fewer than 1 items",
        ),
        (
            "search_files",
            json!({"any_of": too_many}),
            "data/any_of must NOT have more than 16 items",
        ),
        (
            "search_text",
            json!({"any_of": ["a", 1]}),
            "data/any_of/1 must be string",
        ),
        (
            "search_text",
            json!({"any_of": ["a", ""]}),
            "data/any_of/1 must NOT have fewer than 1 characters",
        ),
        (
            "search_files",
            json!({"query": "a", "case_insensitive": "yes"}),
            "data/case_insensitive must be boolean",
        ),
        (
            "write_text_file",
            json!({"path": "a.txt"}),
            "data must have required property 'content'",
        ),
        (
            "write_text_file",
            json!({"path": "a.txt", "content": 5}),
            "data/content must be string",
        ),
    ];
    let (_tree, mut server) = server();
    for (tool, args, errors) in cases {
        assert_eq!(
            server.call_error(tool, args.clone()),
            schema_error(tool, errors),
            "{tool} {args}"
        );
    }
}

#[test]
fn several_schema_violations_are_joined_with_commas() {
    let (_tree, mut server) = server();
    assert_eq!(
        server.call_error("list_directory", json!({"limit": 0, "bogus": true})),
        schema_error(
            "list_directory",
            "data must NOT have additional properties, data/limit must be >= 1"
        )
    );
}

#[test]
fn unsafe_integers_that_pass_the_schema_are_refused_by_the_handler() {
    let (_tree, mut server) = server();
    for limit in [json!(1e20), json!(9007199254740993u64)] {
        assert_eq!(
            server.call_error("list_directory", json!({"limit": limit})),
            "limit must be a positive integer",
            "{limit}"
        );
    }
    assert_eq!(
        server.call_error(
            "read_text_file",
            json!({"path": "notes.txt", "start_line": 1e20})
        ),
        "start_line must be a positive integer"
    );
}

// ---- process lifetime -----------------------------------------------------------------------

#[test]
fn end_of_stdin_exits_zero_with_nothing_on_stderr() {
    let (_tree, mut server) = server();
    server.result("tools/list", json!({}));
    let (_, stderr) = server.close();
    assert_eq!(stderr, "");
}

#[test]
fn end_of_stdin_before_any_request_exits_zero() {
    let (_tree, server) = server();
    server.close();
}

#[test]
fn sigterm_and_sigint_exit_zero() {
    for signal in ["TERM", "INT"] {
        let (_tree, mut server) = server();
        server.result("tools/list", json!({}));
        server.signal(signal);
        let (status, stderr) = server.wait();
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status:?} {stderr}");
    }
}
