"""A client for a long-lived `pagesnap mcp` process over stdio (newline-delimited JSON-RPC 2.0), standard library only."""

from __future__ import annotations

import base64
import collections
import json
import os
import queue
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = [
    "BadArgumentError",
    "BrowserGoneError",
    "Match",
    "NotFoundError",
    "Pagesnap",
    "PagesnapError",
    "Ref",
    "ServerExitedError",
    "Snapshot",
    "Tab",
    "find_binary",
    "observe_recording",
]

#: The MCP protocol version this client speaks (the one `pagesnap mcp` answers with).
PROTOCOL_VERSION = "2025-06-18"
#: This client's version, sent as `clientInfo.version`.
CLIENT_VERSION = "0.1.0"
#: How many of the server's last stderr lines an error quotes.
STDERR_TAIL_LINES = 20


class PagesnapError(Exception):
    """A failed call: `kind` is the server's failure kind (`bad-argument`, `browser-gone`, `unknown-ref`,
    `no-tab`, `tab-gone`, `browser`, `observe-only`, an action failure such as `covered`, …) or one of this
    client's own: `timeout`, `server-exited`, `not-found`, `protocol`, `closed`, `snapshot` (the CLI failed)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        #: The failure kind, as the server spells it.
        self.kind: str = kind
        #: What went wrong, without the kind.
        self.message: str = message


class BrowserGoneError(PagesnapError):
    """The browser the server drives is gone (its process ended or its DevTools connection closed)."""


class BadArgumentError(PagesnapError):
    """An argument was refused (unknown strategy or layer, a missing value, …)."""


class ServerExitedError(PagesnapError):
    """The `pagesnap mcp` process ended; the message quotes the last lines of its stderr."""


class NotFoundError(PagesnapError):
    """No `pagesnap` binary was found; the message names every place looked."""


_ERRORS_BY_KIND: dict[str, type[PagesnapError]] = {
    "browser-gone": BrowserGoneError,
    "bad-argument": BadArgumentError,
    "server-exited": ServerExitedError,
    "not-found": NotFoundError,
}


def _error(kind: str, message: str) -> PagesnapError:
    """The exception class that fits `kind`, built."""
    return _ERRORS_BY_KIND.get(kind, PagesnapError)(kind, message)


@dataclass(frozen=True)
class Ref:
    """One element a snapshot gave a ref (an entry of the meta's `items`; JSON names in snake case)."""

    #: The ref as printed (`e12` in aria, `12` in flat).
    ref: str
    #: Its ARIA role.
    role: str
    #: Its accessible name (redacted when secret).
    name: str
    #: The CDP backend node id (`backendId`; 0 when unknown): `DOM.BackendNodeId`, stable for the node's life.
    backend_id: int
    #: 3×3 zone of the viewport (`top-left` … `bottom-right`), `offscreen` or `unknown`.
    zone: str
    #: States as printed (`disabled`, `checked`, `level=2`, …).
    states: list[str]
    #: Border box in document coordinates: {x, y, width, height}, when known.
    bounds: dict[str, float] | None = None
    #: Where the name came from (`nameSource`: text, aria-label, label, …).
    name_source: str = ""
    #: `strong`, `weak` or `unknown` (`nameStatus`).
    name_status: str = ""
    #: Document-order index of the node in the capture.
    node: int = 0
    #: New since the previous observation.
    new: bool = False
    #: Nearby text (heading, own text, a label in another cell).
    context: str = ""

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Ref:
        """A `Ref` from one entry of the meta's `items`."""
        return cls(
            ref=str(item.get("ref", "")),
            role=str(item.get("role", "")),
            name=str(item.get("name", "")),
            backend_id=int(item.get("backendId", 0) or 0),
            zone=str(item.get("zone", "")),
            states=list(item.get("states", [])),
            bounds=item.get("bounds"),
            name_source=str(item.get("nameSource", "")),
            name_status=str(item.get("nameStatus", "")),
            node=int(item.get("node", 0) or 0),
            new=bool(item.get("new", False)),
            context=str(item.get("context", "")),
        )


@dataclass(frozen=True)
class Snapshot:
    """What a page showed through one strategy: the text an agent reads, its refs and the whole meta."""

    #: The text an agent reads.
    text: str
    #: The strategy that wrote it.
    strategy: str
    #: One entry per ref, in ref order.
    refs: list[Ref]
    #: The whole structured content (engine meta: counts, items, viewport, …; live: also `freshness`).
    meta: dict[str, Any] = field(repr=False)
    #: The PNG (`som` only), decoded.
    image: bytes | None = field(default=None, repr=False)
    #: The text's token count, when the meta carries one (`tokens`); `pagesnap` does not send it today.
    tokens: int | None = None

    @property
    def url(self) -> str | None:
        """The URL the capture shows (live snapshots only: `freshness.url`)."""
        freshness = self.meta.get("freshness") or {}
        return freshness.get("url")

    def ref(self, ref: str) -> Ref:
        """The `Ref` named `ref`; `KeyError` when the snapshot has none."""
        for item in self.refs:
            if item.ref == ref:
                return item
        raise KeyError(f"no ref {ref!r} in this snapshot")

    @classmethod
    def from_parts(cls, text: str, meta: dict[str, Any], image: bytes | None) -> Snapshot:
        """A `Snapshot` from the text, the meta JSON and the image."""
        tokens = meta.get("tokens")
        return cls(
            text=text,
            strategy=str(meta.get("strategy", "")),
            refs=[Ref.from_item(item) for item in meta.get("items", [])],
            meta=meta,
            image=image,
            tokens=tokens if isinstance(tokens, int) else None,
        )


@dataclass(frozen=True)
class Match:
    """One element `Pagesnap.find` found."""

    #: Its ref.
    ref: str
    #: Its role.
    role: str
    #: Its accessible name.
    name: str
    #: Whether it is in the viewport.
    in_viewport: bool
    #: Where in the viewport (`offscreen` when not in it).
    zone: str
    #: Text near it.
    context: str


@dataclass(frozen=True)
class Tab:
    """One browser tab as `page_tabs` lists it."""

    #: Its id (what `select_tab` takes).
    id: str
    #: Its URL.
    url: str
    #: Its title.
    title: str
    #: Whether the tools work on it.
    current: bool
    #: The tab that opened it, if a page did.
    opener: str | None = None


def find_binary(binary: str | None = None) -> str:
    """The `pagesnap` executable: `binary`, else `$PAGESNAP_BIN`, else the one in this Python's scripts
    folder (where the wheel installs it), else `pagesnap` on PATH. Raises `NotFoundError` naming every
    place looked."""
    looked: list[str] = []
    if binary:
        return binary
    from_env = os.environ.get("PAGESNAP_BIN")
    if from_env:
        return from_env
    looked.append("$PAGESNAP_BIN (unset)")
    exe = "pagesnap.exe" if sys.platform == "win32" else "pagesnap"
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidate = Path(scripts) / exe
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        looked.append(str(candidate))
    on_path = shutil.which("pagesnap")
    if on_path:
        return on_path
    looked.append("`pagesnap` on PATH")
    raise NotFoundError(
        "not-found",
        "no pagesnap binary found; looked at: "
        + "; ".join(looked)
        + " (pass binary=... or set PAGESNAP_BIN)",
    )


class Pagesnap:
    """A `pagesnap mcp` process attached to a browser's DevTools endpoint, called over stdio.

    One process serves every call, so a warm snapshot costs one round trip, not a process start.
    Calls are serialised (a lock), each limited to `timeout` seconds. Use it as a context manager,
    or call `close()`::

        with Pagesnap("http://127.0.0.1:9222") as snap:
            print(snap.snapshot().text)
    """

    def __init__(
        self,
        cdp_endpoint: str,
        *,
        strategy: str = "aria",
        binary: str | None = None,
        timeout: float = 30.0,
        observe_only: bool = True,
        extra_args: Sequence[str] = (),
    ) -> None:
        """Start `pagesnap mcp --cdp-endpoint CDP_ENDPOINT --strategy STRATEGY [--observe-only]` and
        initialise the MCP session. `observe_only` asks the server never to change the page (no dialog
        answered, no focus emulation, no tab opened, no scroll); `extra_args` go after the others."""
        self.cdp_endpoint: str = cdp_endpoint
        self.strategy: str = strategy
        self.timeout: float = timeout
        self.binary: str = find_binary(binary)
        self.args: list[str] = [
            self.binary,
            "mcp",
            "--cdp-endpoint",
            cdp_endpoint,
            "--strategy",
            strategy,
        ]
        if observe_only:
            self.args.append("--observe-only")
        self.args.extend(extra_args)
        self.server_info: dict[str, Any] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._proc: subprocess.Popen[str] | None = None
        try:
            self._proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as err:
            raise NotFoundError("not-found", f"could not start {self.binary}: {err}") from err
        threading.Thread(target=self._read_stdout, args=(self._proc.stdout,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._proc.stderr,), daemon=True).start()
        try:
            self.server_info = self._request(
                "initialize",
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "pagesnap-python", "version": CLIENT_VERSION},
                },
            )
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------------------

    def __enter__(self) -> Pagesnap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finaliser
            pass

    @property
    def alive(self) -> bool:
        """Whether the server process is still running."""
        proc = getattr(self, "_proc", None)
        return proc is not None and proc.poll() is None

    def close(self) -> None:
        """End the server: close its stdin, wait up to 2 s, then kill it. Safe to call twice."""
        proc = getattr(self, "_proc", None)
        if proc is None:
            return
        self._proc = None
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        # stdout and stderr are left to the reader threads, which end at EOF: closing a stream another
        # thread is reading blocks on its lock.

    # -- tools -------------------------------------------------------------------------------------

    def snapshot(
        self,
        strategy: str | None = None,
        *,
        full_page: bool | None = None,
        max_tokens: int | None = None,
        layers: Sequence[str] | None = None,
        ref: str | None = None,
        show_hidden: bool = False,
    ) -> Snapshot:
        """What the current tab shows (`page_snapshot`): `strategy` defaults to the server's; `full_page`
        True shows the whole page (default: the viewport); `max_tokens` cuts the text; `layers` names
        configured layers; `ref` scopes to one element's subtree; `show_hidden` also shows text no
        person can see."""
        arguments: dict[str, Any] = {}
        if strategy is not None:
            arguments["strategy"] = strategy
        if full_page is not None:
            arguments["full_page"] = full_page
        if max_tokens is not None:
            arguments["max_tokens"] = max_tokens
        if layers is not None:
            arguments["layers"] = list(layers)
        if ref is not None:
            arguments["ref"] = ref
        if show_hidden:
            arguments["show_hidden"] = True
        result = self.call_tool("page_snapshot", arguments)
        text = "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
        image = None
        for block in result.get("content", []):
            if block.get("type") == "image" and block.get("data"):
                image = base64.b64decode(block["data"])
                break
        return Snapshot.from_parts(text, result.get("structuredContent") or {}, image)

    def find(self, text: str | None = None, regex: str | None = None) -> list[Match]:
        """Elements of the whole page whose name or nearby text contains `text` (case-insensitive) or
        matches `regex` (Rust syntax), via `page_find`. Give exactly one of the two."""
        arguments: dict[str, Any] = {}
        if text is not None:
            arguments["text"] = text
        if regex is not None:
            arguments["regex"] = regex
        result = self.call_tool("page_find", arguments)
        matches = (result.get("structuredContent") or {}).get("matches", [])
        return [
            Match(
                ref=str(m.get("ref", "")),
                role=str(m.get("role", "")),
                name=str(m.get("name", "")),
                in_viewport=bool(m.get("inViewport", False)),
                zone=str(m.get("zone", "")),
                context=str(m.get("context", "")),
            )
            for m in matches
        ]

    def tabs(self) -> list[Tab]:
        """The tabs the server sees (`page_tabs` list); `current` marks the one it observes."""
        return self._tabs({"op": "list"})

    def select_tab(self, id: str) -> list[Tab]:  # noqa: A002 - the tool's own argument name
        """Observe the tab `id` from now on (`page_tabs` select); returns the tabs after it."""
        return self._tabs({"op": "select", "id": id})

    def _tabs(self, arguments: dict[str, Any]) -> list[Tab]:
        result = self.call_tool("page_tabs", arguments)
        tabs = (result.get("structuredContent") or {}).get("tabs", [])
        return [
            Tab(
                id=str(t.get("id", "")),
                url=str(t.get("url", "")),
                title=str(t.get("title", "")),
                current=bool(t.get("current", False)),
                opener=t.get("opener"),
            )
            for t in tabs
        ]

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call any tool and return its raw MCP result (`content`, `structuredContent`). A result with
        `isError` raises the `PagesnapError` its `structuredContent.error.kind` names."""
        result = self._request("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            error = (result.get("structuredContent") or {}).get("error") or {}
            text = "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
            kind = str(error.get("kind") or "tool")
            message = str(error.get("message") or text)
            raise _error(kind, message)
        return result

    # -- JSON-RPC ----------------------------------------------------------------------------------

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for the response with its id, skipping notifications and stale
        responses; at most `timeout` seconds."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            deadline = time.monotonic() + self.timeout
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PagesnapError("timeout", f"{method} got no answer within {self.timeout:g} s")
                try:
                    line = self._lines.get(timeout=remaining)
                except queue.Empty:
                    continue
                if line is None:
                    self._lines.put(None)  # keep the end visible to later calls
                    raise self._exited(f"while waiting for {method}")
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # not JSON-RPC: ignore, as MCP clients do with stray output
                if not isinstance(message, dict) or message.get("id") != request_id:
                    continue
                if "error" in message:
                    error = message["error"] or {}
                    code = error.get("code")
                    kind = "bad-argument" if code in (-32602, -32601) else "protocol"
                    raise _error(kind, f"{method}: {error.get('message', error)} (JSON-RPC {code})")
                return message.get("result") or {}

    def _send(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise PagesnapError("closed", "this Pagesnap client is closed")
        try:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as err:
            raise self._exited(f"while sending {message.get('method')}") from err

    def _exited(self, when: str) -> ServerExitedError:
        proc = self._proc
        code: int | None = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
        time.sleep(0.05)  # let the stderr reader take the last lines
        tail = "\n".join(self._stderr).strip()
        return ServerExitedError(
            "server-exited",
            f"pagesnap mcp ended {when} (exit status {code}); "
            + (f"its stderr ends with:\n{tail}" if tail else "it wrote nothing on stderr")
            + f"\ncommand: {' '.join(self.args)}",
        )

    def _read_stdout(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_stderr(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
        except (OSError, ValueError):
            pass


def observe_recording(
    path: str | os.PathLike[str],
    strategy: str = "aria",
    *,
    full_page: bool | None = None,
    max_tokens: int | None = None,
    binary: str | None = None,
    timeout: float = 60.0,
) -> Snapshot:
    """Render a recording (`.json.gz`, from `pagesnap record`) through `strategy` with the CLI:
    `pagesnap snapshot PATH --strategy S --out TMP` (`--full-page` / `--viewport-only` when
    `full_page` is True / False; `--max-tokens`), reading back `S.txt`, `S.meta.json` and `S.png`.
    This starts one process per call (a few milliseconds for a recording); use `Pagesnap` for live pages."""
    exe = find_binary(binary)
    with tempfile.TemporaryDirectory(prefix="pagesnap-") as out:
        args = [exe, "snapshot", os.fspath(path), "--strategy", strategy, "--out", out]
        if full_page is True:
            args.append("--full-page")
        elif full_page is False:
            args.append("--viewport-only")
        if max_tokens is not None:
            args.extend(["--max-tokens", str(max_tokens)])
        try:
            done = subprocess.run(
                args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as err:
            raise PagesnapError("timeout", f"{' '.join(args)} took over {timeout:g} s") from err
        except OSError as err:
            raise NotFoundError("not-found", f"could not start {exe}: {err}") from err
        if done.returncode != 0:
            message = done.stderr.strip() or f"exit status {done.returncode}"
            raise PagesnapError("snapshot", f"{message} (exit status {done.returncode})")
        folder = Path(out)
        text = (folder / f"{strategy}.txt").read_text(encoding="utf-8")
        meta = json.loads((folder / f"{strategy}.meta.json").read_text(encoding="utf-8"))
        png = folder / f"{strategy}.png"
        image = png.read_bytes() if png.exists() else None
    return Snapshot.from_parts(text, meta, image)
