"""Drive a built `fsmcp` through the official Python MCP SDK (`mcp==2.3.0`) in both protocol eras.

Usage: python_sdk_smoke.py [PATH_TO_FSMCP]   (or set FSMCP_BIN)

For each connection mode ("auto", which must settle on 2026-07-28 through `server/discover`, and
"legacy", the 2025-11-25 `initialize` handshake) it builds a fresh root, lists the tools, calls the
four read tools, follows every cursor to the end, writes a file and reads it back. Every assertion
is counted; the last line is `python-sdk: N passed, M failed` and the exit status is 1 on any failure.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters

TOOL_NAMES = {"list_directory", "search_files", "search_text", "read_text_file", "write_text_file"}
MODES = (("auto", "2026-07-28"), ("legacy", "2025-11-25"))
EMPTY_SHA = "sha256:" + hashlib.sha256(b"").hexdigest()
CALL_TIMEOUT_S = 30.0
MAX_PAGES = 500


class Tally:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, label: str, ok: bool, detail: Any = None) -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            extra = "" if detail is None else f": {detail!r}"[:2000]
            print(f"FAIL {label}{extra}", flush=True)
        return ok

    def equal(self, label: str, got: Any, want: Any) -> bool:
        return self.check(label, got == want, {"got": got, "want": want})


def long_text() -> str:
    """About 9 KiB of lines with two-byte scalars, so 2048-byte chunks land inside some of them."""
    lines = []
    for i in range(1, 401):
        tail = "needle in the haystack" if i == 250 else "x" * (i % 7)
        lines.append(f"line {i:04d} caf\u00e9 {tail}\n")
    return "".join(lines)


def build_root(base: Path) -> dict[str, str]:
    files = {
        "notes.txt": "alpha line one\nalpha needle two\nthird line\n",
        "long.txt": long_text(),
        "lib/alpha.ex": "defmodule Alpha do\nend\n",
        "lib/beta.ex": "beta needle here\n",
        "docs/guide.md": "# Guide\nA NEEDLE in capitals\n",
        "zeta.txt": "last file\n",
    }
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (base / "empty").mkdir()
    return files


def item_bytes(tool: str, item: dict[str, Any]) -> bytes:
    if tool == "list_directory":
        return f"{item['kind']}\0{item['path']}\n".encode()
    if tool == "search_files":
        return f"{item['path']}\n".encode()
    if tool == "search_text":
        return f"{item['path']}\0{item['line']}\0{item['text']}\n".encode()
    if tool == "read_text_file":
        return item["text"].encode("utf-8")
    raise ValueError(tool)


def page_hash(tool: str, items: list[dict[str, Any]]) -> str:
    return "sha256:" + hashlib.sha256(b"".join(item_bytes(tool, i) for i in items)).hexdigest()


class Session:
    def __init__(self, client: Client, t: Tally, mode: str) -> None:
        self.client = client
        self.t = t
        self.mode = mode

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Call a tool that must succeed; check the result's shape and return structuredContent."""
        label = f"[{self.mode}] {tool} {json.dumps(args)[:80]}"
        res = await self.client.call_tool(tool, args)
        text = res.content[0].text if res.content and res.content[0].type == "text" else None
        if not self.t.check(f"{label}: not an error", not res.is_error, text):
            return None
        sc = res.structured_content
        self.t.check(f"{label}: structuredContent is an object", isinstance(sc, dict), sc)
        try:
            decoded = json.loads(text) if text is not None else None
        except ValueError:
            decoded = None
        self.t.check(f"{label}: text content is the JSON of structuredContent", decoded == sc, text)
        if tool != "write_text_file" and isinstance(sc, dict):
            self.t.equal(f"{label}: page keys", sorted(sc), ["content_hash", "items", "next_cursor"])
            items = sc.get("items", [])
            self.t.equal(f"{label}: content_hash", sc.get("content_hash"), page_hash(tool, items))
        return sc

    async def collect(self, tool: str, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        """Follow next_cursor until null; return every item and the number of pages."""
        items: list[dict[str, Any]] = []
        cursor = None
        pages = 0
        while pages < MAX_PAGES:
            page_args = dict(args) if cursor is None else {**args, "cursor": cursor}
            sc = await self.call(tool, page_args)
            pages += 1
            if not isinstance(sc, dict):
                raise AssertionError(f"{tool}: page {pages} failed")
            items.extend(sc["items"])
            cursor = sc["next_cursor"]
            if cursor is None:
                return items, pages
            if not self.t.check(f"[{self.mode}] {tool}: next_cursor is a string", isinstance(cursor, str), cursor):
                break
        raise AssertionError(f"{tool}: cursor chain did not end within {MAX_PAGES} pages")


async def run_mode(binary: str, mode: str, version: str, t: Tally) -> None:
    with tempfile.TemporaryDirectory(prefix=f"fsmcp-smoke-{mode}-") as tmp:
        root = Path(tmp)
        files = build_root(root)
        params = StdioServerParameters(command=binary, args=["--root", str(root), "--include", "**"])
        async with Client(params, mode=mode, read_timeout_seconds=CALL_TIMEOUT_S) as client:
            s = Session(client, t, mode)
            t.equal(f"[{mode}] negotiated protocol version", client.protocol_version, version)

            # tools/list, following nextCursor if the server pages it.
            names: list[str] = []
            cursor = None
            for _ in range(20):
                listed = await client.list_tools(cursor=cursor)
                names.extend(tool.name for tool in listed.tools)
                for tool in listed.tools:
                    t.equal(f"[{mode}] {tool.name} inputSchema type", tool.input_schema.get("type"), "object")
                cursor = listed.next_cursor
                if cursor is None:
                    break
            t.equal(f"[{mode}] tool names", sorted(names), sorted(TOOL_NAMES))
            t.equal(f"[{mode}] tool names are unique", len(names), len(set(names)))

            await check_list_directory(s, mode, t)
            await check_search_files(s, mode, t)
            await check_search_text(s, mode, t)
            await check_read_text_file(s, mode, t, files)
            await check_write(s, mode, t, root)
            await check_errors(s, client, mode, t)


async def check_list_directory(s: Session, mode: str, t: Tally) -> None:
    want_root = [
        {"name": "docs", "kind": "directory", "path": "docs"},
        {"name": "lib", "kind": "directory", "path": "lib"},
        {"name": "long.txt", "kind": "file", "path": "long.txt"},
        {"name": "notes.txt", "kind": "file", "path": "notes.txt"},
        {"name": "zeta.txt", "kind": "file", "path": "zeta.txt"},
    ]
    sc = await s.call("list_directory", {})
    if sc is not None:
        t.equal(f"[{mode}] list_directory root items", sc["items"], want_root)
        t.equal(f"[{mode}] list_directory root next_cursor", sc["next_cursor"], None)
    items, pages = await s.collect("list_directory", {"limit": 1})
    t.equal(f"[{mode}] list_directory limit 1: collected items", items, want_root)
    t.equal(f"[{mode}] list_directory limit 1: pages", pages, len(want_root))
    sc = await s.call("list_directory", {"path": "lib"})
    if sc is not None:
        t.equal(
            f"[{mode}] list_directory lib",
            sc["items"],
            [
                {"name": "alpha.ex", "kind": "file", "path": "lib/alpha.ex"},
                {"name": "beta.ex", "kind": "file", "path": "lib/beta.ex"},
            ],
        )


async def check_search_files(s: Session, mode: str, t: Tally) -> None:
    sc = await s.call("search_files", {"query": ".ex"})
    if sc is not None:
        t.equal(f"[{mode}] search_files .ex", sc["items"], [{"path": "lib/alpha.ex"}, {"path": "lib/beta.ex"}])
        t.equal(f"[{mode}] search_files .ex next_cursor", sc["next_cursor"], None)
    items, pages = await s.collect("search_files", {"query": ".txt", "limit": 1})
    t.equal(
        f"[{mode}] search_files .txt limit 1: collected",
        [i["path"] for i in items],
        ["long.txt", "notes.txt", "zeta.txt"],
    )
    t.equal(f"[{mode}] search_files .txt limit 1: pages", pages, 3)
    sc = await s.call("search_files", {"any_of": ["guide", "zeta"]})
    if sc is not None:
        t.equal(f"[{mode}] search_files any_of", sc["items"], [{"path": "docs/guide.md"}, {"path": "zeta.txt"}])
    sc = await s.call("search_files", {"query": "GUIDE.MD", "case_insensitive": True})
    if sc is not None:
        t.equal(f"[{mode}] search_files case_insensitive", sc["items"], [{"path": "docs/guide.md"}])


async def check_search_text(s: Session, mode: str, t: Tally) -> None:
    want = [
        {"path": "lib/beta.ex", "line": 1, "text": "beta needle here"},
        {"path": "long.txt", "line": 250, "text": "line 0250 caf\u00e9 needle in the haystack"},
        {"path": "notes.txt", "line": 2, "text": "alpha needle two"},
    ]
    sc = await s.call("search_text", {"query": "needle"})
    if sc is not None:
        t.equal(f"[{mode}] search_text needle", sc["items"], want)
        t.equal(f"[{mode}] search_text needle next_cursor", sc["next_cursor"], None)
    items, _ = await s.collect("search_text", {"query": "needle", "limit": 1})
    t.equal(f"[{mode}] search_text limit 1: collected", items, want)
    items, _ = await s.collect("search_text", {"query": "NEEDLE", "case_insensitive": True})
    t.equal(
        f"[{mode}] search_text case_insensitive",
        items,
        [{"path": "docs/guide.md", "line": 2, "text": "A NEEDLE in capitals"}, *want],
    )
    items, _ = await s.collect("search_text", {"any_of": ["Alpha do", "third"], "path": "lib"})
    t.equal(
        f"[{mode}] search_text any_of under lib",
        items,
        [{"path": "lib/alpha.ex", "line": 1, "text": "defmodule Alpha do"}],
    )


async def check_read_text_file(s: Session, mode: str, t: Tally, files: dict[str, str]) -> None:
    sc = await s.call("read_text_file", {"path": "notes.txt"})
    if sc is not None:
        t.equal(f"[{mode}] read notes.txt items", sc["items"], [{"byte_offset": 0, "text": files["notes.txt"]}])
        t.equal(f"[{mode}] read notes.txt next_cursor", sc["next_cursor"], None)
        t.equal(
            f"[{mode}] read notes.txt content_hash is the file's sha256",
            sc["content_hash"],
            "sha256:" + hashlib.sha256(files["notes.txt"].encode()).hexdigest(),
        )

    content = files["long.txt"]
    raw = content.encode("utf-8")
    items, pages = await s.collect("read_text_file", {"path": "long.txt", "limit": 1})
    t.check(f"[{mode}] read long.txt limit 1 needs several pages", pages >= 4, pages)
    t.equal(f"[{mode}] read long.txt: concatenation equals the file", "".join(i["text"] for i in items), content)
    offsets = [i["byte_offset"] for i in items]
    want_offsets = []
    pos = 0
    for i in items:
        want_offsets.append(pos)
        pos += len(i["text"].encode("utf-8"))
    t.equal(f"[{mode}] read long.txt: byte_offsets are contiguous", offsets, want_offsets)
    t.check(f"[{mode}] read long.txt: no replacement characters", all("\ufffd" not in i["text"] for i in items))

    line_250_offset = len("".join(content.splitlines(keepends=True)[:249]).encode("utf-8"))
    sc = await s.call("read_text_file", {"path": "long.txt", "start_line": 250, "limit": 1})
    if sc is not None and sc["items"]:
        first = sc["items"][0]
        t.equal(f"[{mode}] read start_line 250: byte_offset", first["byte_offset"], line_250_offset)
        t.check(
            f"[{mode}] read start_line 250: text starts at that line",
            first["text"].startswith("line 0250 caf\u00e9 needle"),
            first["text"][:40],
        )
        t.equal(
            f"[{mode}] read start_line 250: text is the file's bytes there",
            first["text"].encode("utf-8"),
            raw[line_250_offset : line_250_offset + len(first["text"].encode("utf-8"))],
        )
    else:
        t.check(f"[{mode}] read start_line 250 returned an item", False, sc)


async def check_write(s: Session, mode: str, t: Tally, root: Path) -> None:
    name = f"written-{mode}.txt"
    content = f"written by the {mode} client\nsecond line caf\u00e9\nneedle written\n"
    raw = content.encode("utf-8")
    sc = await s.call("write_text_file", {"path": name, "content": content})
    if sc is not None:
        t.equal(
            f"[{mode}] write_text_file result",
            sc,
            {"path": name, "bytes": len(raw), "content_hash": "sha256:" + hashlib.sha256(raw).hexdigest()},
        )
    t.equal(f"[{mode}] written file on disk", (root / name).read_bytes() if (root / name).exists() else None, raw)
    items, _ = await s.collect("read_text_file", {"path": name})
    t.equal(f"[{mode}] read back the written file", "".join(i["text"] for i in items), content)
    items, _ = await s.collect("search_text", {"query": "needle written"})
    t.equal(
        f"[{mode}] search_text sees the written file",
        items,
        [{"path": name, "line": 3, "text": "needle written"}],
    )


async def check_errors(s: Session, client: Client, mode: str, t: Tally) -> None:
    res = await client.call_tool("read_text_file", {"path": "missing.txt"})
    t.check(f"[{mode}] read of a missing file is a tool error", res.is_error, res)
    t.check(
        f"[{mode}] tool error carries no structuredContent",
        res.structured_content is None,
        res.structured_content,
    )
    t.check(
        f"[{mode}] tool error has a text message",
        bool(res.content) and res.content[0].type == "text" and bool(res.content[0].text),
        res.content,
    )
    try:
        res = await client.call_tool("no_such_tool", {})
        t.check(f"[{mode}] unknown tool is a JSON-RPC error", False, res)
    except MCPError as e:
        t.equal(f"[{mode}] unknown tool error code", e.code, -32602)


async def main(binary: str) -> int:
    t = Tally()
    for mode, version in MODES:
        try:
            with anyio.fail_after(180):
                await run_mode(binary, mode, version, t)
        except Exception:
            t.check(f"[{mode}] run completed without an exception", False)
            traceback.print_exc()
    print(f"python-sdk: {t.passed} passed, {t.failed} failed", flush=True)
    return 1 if t.failed else 0


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FSMCP_BIN", "")
    if not binary:
        print("usage: python_sdk_smoke.py PATH_TO_FSMCP (or set FSMCP_BIN)", file=sys.stderr)
        sys.exit(2)
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        print(f"not an executable: {binary}", file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, binary))
