"""Checks an installed fsmcp (from the wheel, uvx or npm) the way a host would use it.

Usage:
  smoke.py server VERSION CMD…        CMD (e.g. `.venv/bin/fsmcp` or `npx fsmcp`) prints VERSION for
                                      --version, answers a real MCP exchange over stdio on a fresh
                                      root (initialize, notifications/initialized, tools/list and a
                                      checked fs_read), and passes the binary's exit code 64 through.
  smoke.py launcher LAUNCHER          the npm launcher script (bin/fsmcp.js, installed beside its
                                      platform package): SIGTERM is forwarded and the child's exit
                                      code returned, a child killed by a signal ends the launcher by
                                      the same signal, and without a platform package, with a
                                      broken one, or on a platform nothing is published for, it
                                      prints one line saying what is wrong and what to do.

Standard library only. Each check prints `ok: …` or `FAIL: …`; the last line is
`package-server: N passed, M failed` (or package-launcher) and the exit status is 1 on any failure.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TIMEOUT_S = 30.0
LEGACY = "2025-11-25"


class Tally:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, label: str, ok: bool, detail: object = None) -> bool:
        if ok:
            self.passed += 1
            print(f"ok: {label}", flush=True)
        else:
            self.failed += 1
            extra = "" if detail is None else f": {detail!r}"[:2000]
            print(f"FAIL: {label}{extra}", flush=True)
        return ok


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, **kw)


class Stdio:
    """A server process spoken to in newline-delimited JSON-RPC."""

    def __init__(self, cmd: list[str], **kw) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(l.decode(errors="replace") for l in self.proc.stderr), daemon=True).start()
        self.next_id = 1

    def _pump(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode())
        self.lines.put(None)

    def send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        """Sends a request and returns its response; any other stdout line must be JSON-RPC."""
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError(f"stdout closed before the answer to {method}; stderr: {''.join(self.stderr)[:500]}")
            message = json.loads(line)  # a non-JSON line on stdout is a corrupted channel
            if message.get("id") == rid and ("result" in message or "error" in message):
                return message

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=TIMEOUT_S)


def server(tally: Tally, version: str, cmd: list[str]) -> None:
    shown = " ".join(cmd)
    got = run(cmd + ["--version"])
    tally.check(f"`{shown} --version` prints {version}", got.returncode == 0 and got.stdout.strip() == version,
                {"code": got.returncode, "stdout": got.stdout, "stderr": got.stderr})

    with tempfile.TemporaryDirectory(prefix="fsmcp-pkg-root-") as tmp:
        root = Path(tmp)
        (root / "notes").mkdir()
        text = f"packaged fsmcp {version} reads this\nsecond line\n"
        (root / "notes" / "hello.txt").write_text(text)
        proc = Stdio(cmd + ["--root", str(root), "--include", "**", "--tools", "fs"])
        try:
            init = proc.request("initialize", {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "fsmcp-package-smoke", "version": "0"},
            })
            info = init.get("result", {}).get("serverInfo", {})
            tally.check(f"initialize through `{shown}` answers fsmcp {version}",
                        info.get("name") == "fsmcp" and info.get("version") == version, init)
            proc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            listed = proc.request("tools/list", {})
            names = {t.get("name") for t in listed.get("result", {}).get("tools", [])}
            tally.check("tools/list publishes the fs tools (fs_read, fs_write, fs_list, fs_grep among them)",
                        {"fs_read", "fs_write", "fs_list", "fs_grep"} <= names
                        and all(str(n).startswith("fs_") for n in names), sorted(map(str, names)))
            called = proc.request("tools/call", {"name": "fs_read", "arguments": {"path": "notes/hello.txt"}})
            result = called.get("result", {})
            texts = [c.get("text") for c in result.get("content", []) if c.get("type") == "text"]
            tally.check("tools/call fs_read returns the file written to the root",
                        result.get("isError") is not True and texts[:1] == [text], called)
        except Exception as error:  # noqa: BLE001 - any failure of the exchange is one failed check
            tally.check(f"MCP exchange through `{shown}`", False, repr(error))
        finally:
            code = proc.close() if proc.proc.poll() is None else proc.proc.returncode
        tally.check("the server exits 0 when its stdin closes", code == 0, {"code": code, "stderr": "".join(proc.stderr)[:500]})

    got = run(cmd + ["--root", ".", "--tools", "fs"])
    tally.check(f"`{shown}` without --include exits 64 with the binary's message",
                got.returncode == 64 and "at least one --include pattern is required" in got.stderr,
                {"code": got.returncode, "stderr": got.stderr})


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def started(cmd: list[str], root: Path) -> tuple[Stdio, int]:
    """Starts the launcher serving `root`, waits until it answers, returns it and its child's pid."""
    proc = Stdio(cmd + ["--root", str(root), "--include", "**"])
    answer = proc.request("initialize", {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "fsmcp-package-smoke", "version": "0"},
    })
    if "result" not in answer:
        raise RuntimeError(f"initialize failed: {answer}")
    kids = children(proc.proc.pid)
    if len(kids) != 1:
        raise RuntimeError(f"expected one child process, found {kids}")
    return proc, kids[0]


def launcher(tally: Tally, script: str) -> None:
    node = shutil.which("node")
    if node is None:
        tally.check("node is on PATH", False)
        return
    cmd = [node, script]
    with tempfile.TemporaryDirectory(prefix="fsmcp-pkg-launcher-") as tmp:
        base = Path(tmp)
        root = base / "root"
        root.mkdir()
        (root / "a.txt").write_text("a\n")

        # fsmcp stops cleanly (exit 0) on SIGINT and SIGTERM and dies of SIGHUP, which it leaves
        # alone; either way the launcher must end as the binary did, and the binary must be gone.
        for sig, want, outcome in ((signal.SIGTERM, 0, "exits 0"), (signal.SIGINT, 0, "exits 0"),
                                   (signal.SIGHUP, -signal.SIGHUP, "ends by SIGHUP")):
            try:
                proc, child = started(cmd, root)
                proc.proc.send_signal(sig)
                code = proc.proc.wait(timeout=TIMEOUT_S)
                time.sleep(0.2)
                tally.check(f"{sig.name} to the launcher reaches the binary, and the launcher {outcome} as it did",
                            code == want and not Path(f"/proc/{child}").exists(), {"code": code})
            except Exception as error:  # noqa: BLE001
                tally.check(f"{sig.name} forwarding", False, repr(error))

        try:
            proc, child = started(cmd, root)
            os.kill(child, signal.SIGKILL)
            code = proc.proc.wait(timeout=TIMEOUT_S)
            tally.check("a binary killed by SIGKILL ends the launcher by SIGKILL", code == -signal.SIGKILL, {"code": code})
        except Exception as error:  # noqa: BLE001
            tally.check("signal re-raise", False, repr(error))

        # The launcher alone, with no node_modules anywhere above it.
        alone = base / "alone" / "fsmcp.js"
        alone.parent.mkdir()
        shutil.copy(script, alone)
        env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
        got = run([node, str(alone), "--version"], env=env)
        lines = got.stderr.strip().splitlines()
        tally.check("without its platform package the launcher exits 1 with one line naming @fsmcp/linux-x64",
                    got.returncode == 1 and len(lines) == 1 and "@fsmcp/linux-x64" in lines[0]
                    and "not installed" in lines[0] and "cargo install" in lines[0] and got.stdout == "",
                    {"code": got.returncode, "stderr": got.stderr})

        # A platform package whose binary is gone, then one whose binary cannot be executed.
        for label, make, code in (
            ("missing", lambda path: None, "ENOENT"),
            ("not executable", lambda path: path.write_text("not a program\n"), "EACCES"),
        ):
            project = base / f"broken-{code}"
            package = project / "node_modules" / "@fsmcp" / "linux-x64"
            (package / "bin").mkdir(parents=True)
            (package / "package.json").write_text('{"name": "@fsmcp/linux-x64", "version": "0.0.0"}\n')
            make(package / "bin" / "fsmcp")
            copy = project / "node_modules" / "fsmcp" / "bin" / "fsmcp.js"
            copy.parent.mkdir(parents=True)
            shutil.copy(script, copy)
            got = run([node, str(copy), "--version"], env=env)
            lines = got.stderr.strip().splitlines()
            tally.check(f"a platform package whose binary is {label} makes the launcher exit 1 with one line naming {code}",
                        got.returncode == 1 and len(lines) == 1 and code in lines[0] and "@fsmcp/linux-x64" in lines[0]
                        and str(base) not in lines[0] and got.stdout == "",
                        {"code": got.returncode, "stderr": got.stderr})

        # A platform nothing is published for: pretend to be FreeBSD on arm64.
        fake = Path(__file__).with_name("platform.js")
        got = run([node, "--require", str(fake), script, "--version"], env=env | {"FSMCP_SMOKE_PLATFORM": "freebsd-arm64"})
        lines = got.stderr.strip().splitlines()
        tally.check("on an unsupported platform the launcher exits 1 with one line naming freebsd-arm64 and the source build",
                    got.returncode == 1 and len(lines) == 1 and "freebsd-arm64" in lines[0]
                    and "cargo install" in lines[0] and got.stdout == "",
                    {"code": got.returncode, "stderr": got.stderr})


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "server":
        label, tally = "package-server", Tally()
        server(tally, argv[1], argv[2:])
    elif len(argv) == 2 and argv[0] == "launcher":
        label, tally = "package-launcher", Tally()
        launcher(tally, argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    print(f"{label}: {tally.passed} passed, {tally.failed} failed", flush=True)
    return 1 if tally.failed or not tally.passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
