"""The load scripts/bench-sessions puts on a tool server: N concurrent MCP sessions over Streamable HTTP.

Each session opens fixtures/sites/sessions/whoami.html?set=<its name> (which stores the name in a cookie
and shows it), then takes rounds of snapshot, click on "Count" and a scroll, and opens the page again each
round; a read that does not show the session's own name is counted as another session's page. Latencies
per call kind, calls per second, and the PSS of the server with every process under it (its browser).
"""

import argparse
import asyncio
import functools
import http.server
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# The browser pagesnap launches (`pagesnap doctor --launch`), given to Playwright MCP too; set in main().
CHROMIUM = None


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_fixtures():
    handler = functools.partial(Quiet, directory=os.path.join(ROOT, "fixtures/sites"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def text_of(result):
    return "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")


def descendants(pid):
    """pid and every process under it."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def pss_mib(pid):
    total = 0
    for p in descendants(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class Pagesnap:
    name = "pagesnap mcp"
    # page_navigate answers with the page.
    navigate_reads = True

    def __init__(self, binary):
        self.binary = binary

    def start(self, port):
        return subprocess.Popen([self.binary, "mcp", "--port", str(port), "--timeout", "15"], stderr=subprocess.DEVNULL)

    async def navigate(self, session, url):
        return await session.call_tool("page_navigate", {"url": url})

    async def snapshot(self, session):
        return await session.call_tool("page_snapshot", {})

    async def click(self, session, snapshot):
        ref = re.search(r'button "(?:Count|Clicked[^"]*)" \[ref=(\w+)\]', text_of(snapshot))
        return await session.call_tool("page_action", {"ref": ref.group(1), "op": "click", "brief": True})

    async def scroll(self, session):
        return await session.call_tool("page_scroll", {"direction": "down", "screens": 0.5})


class PlaywrightMcp:
    name = "Playwright MCP"
    # browser_navigate (0.0.83) writes its snapshot to a file and links it.
    navigate_reads = False

    def __init__(self, workdir):
        # Playwright MCP writes its snapshots and logs under its working directory.
        self.workdir = workdir

    def start(self, port):
        cli = os.path.join(ROOT, "scripts/mcp/node_modules/@playwright/mcp/cli.js")
        return subprocess.Popen(
            ["node", cli, "--port", str(port), "--host", "127.0.0.1", "--allowed-hosts", f"127.0.0.1:{port}",
             "--headless", "--isolated", "--no-sandbox",
             "--executable-path", CHROMIUM, "--viewport-size", "1280,720"],
            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=self.workdir)

    async def navigate(self, session, url):
        return await session.call_tool("browser_navigate", {"url": url})

    async def snapshot(self, session):
        return await session.call_tool("browser_snapshot", {})

    async def click(self, session, snapshot):
        ref = re.search(r'button "(?:Count|Clicked[^"]*)" \[ref=(\w+)\]', text_of(snapshot))
        return await session.call_tool("browser_click", {"element": "Count button", "target": ref.group(1)})

    async def scroll(self, session):
        return await session.call_tool("browser_press_key", {"key": "PageDown"})


async def client(server, url, page, name, rounds, times, wrong, errors):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def timed(kind, call):
                started = time.monotonic()
                result = await call
                times.setdefault(kind, []).append(time.monotonic() - started)
                if result.is_error:
                    errors.append(f"{name} {kind}: {text_of(result)[:200]}")
                return result

            await timed("navigate", server.navigate(session, f"{page}?set={name}"))
            for _ in range(rounds):
                seen = await timed("snapshot", server.snapshot(session))
                if f"Cookie: {name}" not in text_of(seen):
                    wrong.append(name)
                await timed("click", server.click(session, seen))
                await timed("scroll", server.scroll(session))
                again = await timed("navigate", server.navigate(session, page))
                if server.navigate_reads and f"Cookie: {name}" not in text_of(again):
                    wrong.append(name)


async def load(server, url, page, clients, rounds):
    times, wrong, errors = {}, [], []
    started = time.monotonic()
    await asyncio.gather(*[client(server, url, page, f"c{k}", rounds, times, wrong, errors) for k in range(clients)])
    wall = time.monotonic() - started
    return times, wrong, errors, wall


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", default="1,4,8,16", help="comma-separated numbers of concurrent sessions")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of snapshot, click, scroll and navigate per session")
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/pagesnap"), help="the pagesnap binary")
    parser.add_argument("--vs-playwright-mcp", action="store_true", help="the same load on Playwright MCP over HTTP")
    parser.add_argument("--out", help="write every figure as JSON here")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",") if c.strip()]
    if not counts or min(counts) < 1:
        parser.error(f"--clients {args.clients!r}: give positive numbers, e.g. 1,4,8")
    if not os.access(args.bin, os.X_OK):
        parser.error(f"--bin {args.bin}: not an executable (build it with scripts/build-release)")
    global CHROMIUM
    CHROMIUM = json.loads(subprocess.run([args.bin, "doctor", "--launch"], capture_output=True, text=True, check=True).stdout)["executable"]
    base = serve_fixtures()
    page = f"{base}/sessions/whoami.html"
    workdir = tempfile.TemporaryDirectory(prefix="bench-sessions-")
    servers = [Pagesnap(args.bin)] + ([PlaywrightMcp(workdir.name)] if args.vs_playwright_mcp else [])
    rows = []
    failed = False
    print(f"{'server':<16}{'clients':>8}{'calls/s':>9}{'own page':>10}{'errors':>8}{'PSS MiB':>9}  p50/p95 ms per call kind")
    for n in counts:
        for server in servers:
            port = free_port()
            process = server.start(port)
            try:
                wait_port(port)
                url = f"http://127.0.0.1:{port}/mcp"
                times, wrong, errors, wall = asyncio.run(load(server, url, page, n, args.rounds))
                memory = pss_mib(process.pid)
            finally:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
            calls = sum(len(v) for v in times.values())
            reads = n * args.rounds * (2 if server.navigate_reads else 1)
            kinds = {k: {"p50_ms": round(1000 * statistics.median(v), 1), "p95_ms": round(1000 * percentile(v, 0.95), 1), "calls": len(v)} for k, v in sorted(times.items())}
            row = {"server": server.name, "clients": n, "rounds": args.rounds, "calls": calls, "wall_s": round(wall, 2),
                   "calls_per_s": round(calls / wall, 2), "reads": reads, "other_page_reads": len(wrong),
                   "errors": errors, "pss_mib": round(memory, 1), "kinds": kinds}
            rows.append(row)
            failed |= bool(wrong) or bool(errors)
            spread = "  ".join(f"{k} {v['p50_ms']:.0f}/{v['p95_ms']:.0f}" for k, v in kinds.items())
            own = f"{100 * (reads - len(wrong)) / reads:.0f}%"
            print(f"{server.name:<16}{n:>8}{row['calls_per_s']:>9.1f}{own:>10}{len(errors):>8}{memory:>9.0f}  {spread}", flush=True)
            for error in errors[:3]:
                print(f"    {error}", file=sys.stderr)
    workdir.cleanup()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
