// Drives a built fsmcp over stdio with two real Node clients, in both protocol eras:
//
// * the TypeScript SDK v2 client (@modelcontextprotocol/client), with versionNegotiation
//   `auto` (must settle on 2026-07-28 through server/discover) and `legacy` (the 2025-11-25
//   initialize handshake): lists the tools, writes a file, reads it back, and follows a
//   search_files cursor to the end;
// * the MCP Inspector CLI (@modelcontextprotocol/inspector --cli), with --protocol-era legacy
//   and modern: lists the tools, calls a write tool and a read tool.
//
// Usage: node node_clients_smoke.mjs PATH_TO_FSMCP
// Run by scripts/clients from the directory scripts/npm-tools installs into (so the packages
// resolve). Every check is counted; the last line is `node-clients: N passed, M failed` and the
// exit status is 1 on any failure.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node node_clients_smoke.mjs PATH_TO_FSMCP");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(label, ok, detail) {
  if (ok) {
    passed += 1;
  } else {
    failed += 1;
    console.log(`FAIL ${label}${detail === undefined ? "" : `: ${JSON.stringify(detail)}`}`);
  }
  return ok;
}

/** A fresh root holding three files. */
function makeRoot() {
  const root = mkdtempSync(join(tmpdir(), "fsmcp-node-clients-"));
  for (const name of ["one.txt", "two.txt", "three.txt"]) {
    writeFileSync(join(root, name), `${name} body\n`);
  }
  return root;
}

function serverArgs(root) {
  return ["--root", root, "--include", "**", "--tools", "ptc,fs"];
}

async function typescriptClient(mode, wantEra) {
  const root = makeRoot();
  const label = `ts-sdk ${mode}`;
  const client = new Client(
    { name: "fsmcp-node-smoke", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(root) });
  await client.connect(transport);
  try {
    const version = client.getNegotiatedProtocolVersion();
    check(`${label}: negotiated ${wantEra}`, version === wantEra, version);
    const { tools } = await client.listTools();
    const names = new Set(tools.map((t) => t.name));
    check(`${label}: lists read_text_file and fs_write`, names.has("read_text_file") && names.has("fs_write"), [...names]);

    const wrote = await client.callTool({
      name: "write_text_file",
      arguments: { path: "note.txt", content: `written by ${mode}\n` },
    });
    check(`${label}: write_text_file`, !wrote.isError, wrote);
    check(`${label}: the file is on disk`, readFileSync(join(root, "note.txt"), "utf8") === `written by ${mode}\n`);

    const read = await client.callTool({ name: "read_text_file", arguments: { path: "note.txt" } });
    check(`${label}: read_text_file`, read.structuredContent?.items?.[0]?.text === `written by ${mode}\n`, read);

    const read2 = await client.callTool({ name: "fs_read", arguments: { path: "one.txt" } });
    check(`${label}: fs_read`, read2.content?.[0]?.text?.includes("one.txt body"), read2);

    // Follow a cursor: one path per page.
    const found = [];
    let cursor = null;
    let pages = 0;
    do {
      const args = { query: ".txt", limit: 1 };
      if (cursor) args.cursor = cursor;
      const page = await client.callTool({ name: "search_files", arguments: args });
      if (!check(`${label}: search_files page ${pages + 1}`, !page.isError, page)) break;
      for (const item of page.structuredContent.items) found.push(item.path);
      cursor = page.structuredContent.next_cursor;
      pages += 1;
    } while (cursor && pages < 20);
    check(`${label}: followed the cursor over every file`, pages === 4 && found.length === 4, { pages, found });
  } finally {
    await client.close();
  }
}

function inspector(era, extra) {
  const out = execFileSync(
    "inspector",
    ["--cli", "--protocol-era", era, bin, ...serverArgs(extra.root), ...extra.args],
    { encoding: "utf8", env: { ...process.env, HOME: extra.home }, timeout: 60_000 },
  );
  return JSON.parse(out);
}

function inspectorRuns(era) {
  const root = makeRoot();
  const home = mkdtempSync(join(tmpdir(), "fsmcp-inspector-home-"));
  const label = `inspector ${era}`;
  const listed = inspector(era, { root, home, args: ["--method", "tools/list"] });
  const names = new Set(listed.tools.map((t) => t.name));
  check(`${label}: lists write_text_file and fs_read`, names.has("write_text_file") && names.has("fs_read"), [...names]);

  const wrote = inspector(era, {
    root,
    home,
    args: ["--method", "tools/call", "--tool-name", "fs_write", "--tool-arg", "path=inspected.txt", `content=by ${era}`],
  });
  check(`${label}: fs_write`, !wrote.isError, wrote);
  check(`${label}: the file is on disk`, readFileSync(join(root, "inspected.txt"), "utf8") === `by ${era}`);

  const read = inspector(era, {
    root,
    home,
    args: ["--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path=inspected.txt"],
  });
  check(`${label}: read_text_file`, read.structuredContent?.items?.[0]?.text === `by ${era}`, read);
}

const runs = [
  ["ts-sdk auto", () => typescriptClient("auto", "2026-07-28")],
  ["ts-sdk legacy", () => typescriptClient("legacy", "2025-11-25")],
  ["inspector legacy", () => inspectorRuns("legacy")],
  ["inspector modern", () => inspectorRuns("modern")],
];
for (const [name, run] of runs) {
  try {
    await run();
  } catch (error) {
    check(`${name}: ran without an exception`, false, String(error?.stack ?? error));
  }
}
console.log(`node-clients: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
