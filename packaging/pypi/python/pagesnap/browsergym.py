"""BrowserGym integration: a Chromium launcher that exposes DevTools, an observation wrapper adding pagesnap views with a ref → bid map, and action translation.

Typical use (BrowserGym 0.14; needs `gymnasium`, which BrowserGym brings)::

    import gymnasium as gym
    import browsergym.miniwob  # registers browsergym/miniwob.*
    from pagesnap.browsergym import PagesnapObservation, chromium_launcher

    launcher = chromium_launcher()
    launcher.prepare_playwright()  # only where Playwright's own Chromium is not installed
    env = gym.make("browsergym/miniwob.click-test", pw_chromium_kwargs=launcher.pw_chromium_kwargs())
    env = PagesnapObservation(env, strategies=("aria",), cdp_endpoint=launcher.cdp_endpoint,
                              translate_actions=True)
    obs, info = env.reset(seed=0)
    print(obs["pagesnap_aria"])             # refs like e3
    obs, reward, *_ = env.step('click("e3")')  # translated to BrowserGym's bid
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import socket
import stat
import tempfile
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium

from ._client import Pagesnap, PagesnapError, Snapshot

__all__ = [
    "BID_ARGUMENTS",
    "Launcher",
    "PagesnapObservation",
    "bids_by_backend_id",
    "chromium_launcher",
    "find_chromium",
    "refs_to_bids",
    "to_browsergym",
]

#: BrowserGym's high-level actions and which of their arguments (position, keyword) are element bids.
BID_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "fill": ((0, "bid"),),
    "check": ((0, "bid"),),
    "uncheck": ((0, "bid"),),
    "select_option": ((0, "bid"),),
    "click": ((0, "bid"),),
    "dblclick": ((0, "bid"),),
    "hover": ((0, "bid"),),
    "press": ((0, "bid"),),
    "focus": ((0, "bid"),),
    "clear": ((0, "bid"),),
    "upload_file": ((0, "bid"),),
    "drag_and_drop": ((0, "from_bid"), (1, "to_bid")),
}

#: Where `find_chromium` looks after `$PAGESNAP_CHROMIUM`, in order (absolute paths, then names on PATH).
CHROMIUM_CANDIDATES: tuple[str, ...] = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)


def find_chromium(chromium: str | None = None) -> str:
    """The Chromium to run: `chromium`, else `$PAGESNAP_CHROMIUM`, else the first of `CHROMIUM_CANDIDATES`
    that exists. `FileNotFoundError` names every place looked."""
    if chromium:
        return chromium
    looked = ["$PAGESNAP_CHROMIUM (unset)"]
    from_env = os.environ.get("PAGESNAP_CHROMIUM")
    if from_env:
        return from_env
    for candidate in CHROMIUM_CANDIDATES:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
        looked.append(candidate)
    raise FileNotFoundError("no Chromium found; looked at: " + ", ".join(looked))


def _free_port() -> int:
    """A TCP port free on 127.0.0.1 now (another process may take it before Chromium does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Launcher:
    """An executable script that runs Chromium with `--remote-debugging-port=PORT` plus the arguments it
    is given. Hand `executable_path` to Playwright (BrowserGym: `pw_chromium_kwargs`); attach pagesnap to
    `cdp_endpoint`. Playwright drives the browser over its pipe as usual; the port is only an extra door
    for observers. One browser at a time per launcher (the port is fixed)."""

    #: The script to give Playwright as `executable_path`.
    executable_path: str
    #: The DevTools port the browser listens on.
    port: int
    #: The Chromium the script runs.
    chromium: str
    #: The temporary folder holding the script (and Playwright's browser links, if prepared).
    directory: str = field(repr=False)

    @property
    def cdp_endpoint(self) -> str:
        """`http://127.0.0.1:PORT`, what `pagesnap mcp --cdp-endpoint` takes."""
        return f"http://127.0.0.1:{self.port}"

    def pw_chromium_kwargs(self) -> dict[str, Any]:
        """`{"executable_path": ...}`, for BrowserGym's `pw_chromium_kwargs` (BrowserGym fixes `args`)."""
        return {"executable_path": self.executable_path}

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the DevTools endpoint answers `/json/version`; `TimeoutError` otherwise."""
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.cdp_endpoint}/json/version", timeout=1) as answer:
                    json.load(answer)
                    return
            except (OSError, ValueError) as err:
                last = err
                time.sleep(0.05)
        raise TimeoutError(f"no DevTools endpoint at {self.cdp_endpoint} within {timeout:g} s ({last})")

    def prepare_playwright(self) -> str | None:
        """Make Playwright's own Chromium path lead to this Chromium when Playwright's is not installed
        (BrowserGym's chat window launches a second browser with no executable option). Creates
        `<directory>/ms-playwright/chromium-REV/chrome-linux/chrome` (and the headless-shell layouts of
        newer Playwright) as links to `chromium`, and sets `PLAYWRIGHT_BROWSERS_PATH` in this process.
        The links live in `~/.cache/pagesnap/playwright-browsers`, not in the launcher's folder: the
        Playwright driver reads the variable once, when it starts, and outlives any one launcher. Call it
        before the driver starts (before the first `env.reset`). Returns the folder set, or None when
        Playwright's own Chromium is there (or Playwright is not installed)."""
        browsers = _playwright_browsers()
        if browsers is None:
            return None
        current = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
        layouts = _playwright_layouts(browsers)
        if any((Path(current) / layout).exists() for layout in layouts[:1]):
            return None
        root = Path.home() / ".cache" / "pagesnap" / "playwright-browsers"
        for layout in layouts:
            link = root / layout
            link.parent.mkdir(parents=True, exist_ok=True)
            if link.is_symlink() and os.readlink(link) != self.chromium:
                link.unlink()
            if not link.exists():
                link.symlink_to(self.chromium)
        os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(root)
        return str(root)

    def cleanup(self) -> None:
        """Remove the temporary folder (the browser must be closed first)."""
        shutil.rmtree(self.directory, ignore_errors=True)


def _playwright_browsers() -> dict[str, str] | None:
    """Playwright's expected browser revisions (`browsers.json` of its driver): name → revision."""
    try:
        import playwright  # noqa: PLC0415 - optional: only to read where it expects its browsers
    except ImportError:
        return None
    manifest = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))["browsers"]
    except (OSError, ValueError, KeyError):
        return None
    return {entry["name"]: str(entry["revision"]) for entry in entries}


def _playwright_layouts(browsers: Mapping[str, str]) -> list[str]:
    """Relative paths where Playwright looks for Chromium on Linux, its own layout first."""
    layouts = []
    if "chromium" in browsers:
        revision = browsers["chromium"]
        layouts += [f"chromium-{revision}/chrome-linux/chrome", f"chromium-{revision}/chrome-linux64/chrome"]
    if "chromium-headless-shell" in browsers:
        revision = browsers["chromium-headless-shell"]
        layouts += [
            f"chromium_headless_shell-{revision}/chrome-linux/headless_shell",
            f"chromium_headless_shell-{revision}/chrome-headless-shell-linux64/chrome-headless-shell",
        ]
    return layouts


def chromium_launcher(port: int | None = None, chromium: str | None = None) -> Launcher:
    """Write a launcher script into a new temporary folder: `exec CHROMIUM --remote-debugging-port=PORT
    "$@"`. `port` None picks a free one; `chromium` None looks it up (`find_chromium`). POSIX only."""
    browser = find_chromium(chromium)
    chosen = port if port is not None else _free_port()
    directory = tempfile.mkdtemp(prefix="pagesnap-chromium-")
    script = Path(directory) / "chromium"
    quoted = "'" + browser.replace("'", "'\\''") + "'"
    script.write_text(f'#!/bin/sh\nexec {quoted} --remote-debugging-port={chosen} "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return Launcher(executable_path=str(script), port=chosen, chromium=browser, directory=directory)


def bids_by_backend_id(dom_object: Mapping[str, Any]) -> dict[int, str]:
    """`backendNodeId` → `bid` attribute, read from a CDP `DOMSnapshot.captureSnapshot` result (BrowserGym's
    `obs["dom_object"]`), over every document (frames included)."""
    strings: Sequence[str] = dom_object.get("strings", [])
    found: dict[int, str] = {}
    try:
        bid_index = strings.index("bid")
    except ValueError:
        return found
    for document in dom_object.get("documents", []):
        nodes = document.get("nodes", {})
        backend_ids = nodes.get("backendNodeId", [])
        for backend_id, attributes in zip(backend_ids, nodes.get("attributes", [])):
            # attributes: a flat list of string indices, name, value, name, value, …
            for i in range(0, len(attributes) - 1, 2):
                if attributes[i] == bid_index:
                    found.setdefault(int(backend_id), strings[attributes[i + 1]])
                    break
    return found


def refs_to_bids(snapshot: Snapshot, dom_object: Mapping[str, Any]) -> dict[str, str]:
    """pagesnap ref → BrowserGym bid for the refs whose node BrowserGym marked (others are left out)."""
    bids = bids_by_backend_id(dom_object)
    return {ref.ref: bids[ref.backend_id] for ref in snapshot.refs if ref.backend_id in bids}


def to_browsergym(action: str, refs: Mapping[str, str]) -> str:
    """Rewrite the pagesnap refs in a BrowserGym action string into bids: `click("e12")` → `click("a45")`.
    Only element arguments (`BID_ARGUMENTS`) are rewritten, never typed values. Every element argument must
    be a ref in `refs`: `KeyError` otherwise (an untranslated bid is refused too, as flat refs and bids
    can both be numbers). `ValueError` when the action is not Python BrowserGym can run."""
    try:
        tree = ast.parse(action)
    except SyntaxError as err:
        raise ValueError(f"not a BrowserGym action: {action!r} ({err.msg})") from err
    lines = action.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        positions = BID_ARGUMENTS.get(node.func.id)
        if not positions:
            continue
        targets = [node.args[i] for i, _ in positions if i < len(node.args)]
        keywords = {name for _, name in positions}
        targets += [kw.value for kw in node.keywords if kw.arg in keywords]
        for target in targets:
            if not (isinstance(target, ast.Constant) and isinstance(target.value, str)):
                continue
            ref = target.value
            if ref not in refs:
                known = ", ".join(sorted(refs, key=_ref_order)[:30]) or "none"
                raise KeyError(
                    f"{node.func.id}(): {ref!r} is not a pagesnap ref with a BrowserGym bid "
                    f"(refs with a bid: {known})"
                )
            start = starts[target.lineno - 1] + _char_offset(lines[target.lineno - 1], target.col_offset)
            end_line = target.end_lineno or target.lineno
            end = starts[end_line - 1] + _char_offset(lines[end_line - 1], target.end_col_offset)
            edits.append((start, end, json.dumps(refs[ref])))
    for start, end, text in sorted(edits, reverse=True):
        action = action[:start] + text + action[end:]
    return action


def _char_offset(line: str, byte_offset: int | None) -> int:
    """`ast` column offsets count UTF-8 bytes; string slicing counts characters."""
    return len(line.encode("utf-8")[: byte_offset or 0].decode("utf-8", errors="ignore"))


def _ref_order(ref: str) -> tuple[int, str]:
    digits = "".join(ch for ch in ref if ch.isdigit())
    return (int(digits) if digits else 0, ref)


class PagesnapObservation(gymnasium.Wrapper):
    """Adds pagesnap's views of the page BrowserGym drives to every observation (after `reset` and `step`):
    `obs["pagesnap_<strategy>"]` (the text; `-` in a name becomes `_`), `obs["pagesnap_refs"]` (pagesnap
    ref → BrowserGym bid, for every strategy's refs that BrowserGym marked) and `obs["pagesnap_snapshots"]`
    (strategy → `Snapshot`, with meta and, for `som`, the PNG).

    The browser must expose DevTools at `cdp_endpoint` (see `chromium_launcher`). BrowserGym starts a new
    browser at every reset, so a new `pagesnap mcp` process attaches after each reset; it observes only
    (`observe_only`), on the tab whose URL is `env.unwrapped.page.url`. The bid map is read from BrowserGym's
    own `obs["dom_object"]` (no extra browser call). With `translate_actions`, `step` rewrites refs in the
    action into bids (`to_browsergym`) before BrowserGym runs it; an action naming no ref passes as is.
    """

    def __init__(
        self,
        env: gymnasium.Env,
        strategies: Sequence[str] = ("aria",),
        *,
        cdp_endpoint: str,
        translate_actions: bool = False,
        full_page: bool | None = None,
        max_tokens: int | None = None,
        binary: str | None = None,
        timeout: float = 30.0,
        observe_only: bool = True,
        extra_args: Sequence[str] = (),
    ) -> None:
        """Wrap `env`; the other arguments go to `Pagesnap` and `Pagesnap.snapshot`."""
        super().__init__(env)
        self.strategies: tuple[str, ...] = tuple(strategies)
        self.cdp_endpoint = cdp_endpoint
        self.translate_actions = translate_actions
        self.full_page = full_page
        self.max_tokens = max_tokens
        self.binary = binary
        self.timeout = timeout
        self.observe_only = observe_only
        self.extra_args = tuple(extra_args)
        self.client: Pagesnap | None = None
        #: The last observation's ref → bid map (what `translate_actions` uses).
        self.refs: dict[str, str] = {}
        self.observation_space = _extended_space(env.observation_space, self.strategies)

    @staticmethod
    def key(strategy: str) -> str:
        """The observation key a strategy's text goes under: `pagesnap_<strategy>` with `-` → `_`."""
        return "pagesnap_" + strategy.replace("-", "_")

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env (BrowserGym relaunches its browser), attach a fresh pagesnap server, observe."""
        self._close_client()
        obs, info = self.env.reset(seed=seed, options=options)
        self.client = Pagesnap(
            self.cdp_endpoint,
            strategy=self.strategies[0] if self.strategies else "aria",
            binary=self.binary,
            timeout=self.timeout,
            observe_only=self.observe_only,
            extra_args=self.extra_args,
        )
        self._follow_page()
        return self._observe(obs), info

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Translate the action's refs when asked, step the env, observe."""
        if self.translate_actions:
            action = to_browsergym(action, self.refs)
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._observe(obs), float(reward), terminated, truncated, info

    def close(self) -> None:
        """End the pagesnap server, then the env."""
        self._close_client()
        super().close()

    def _close_client(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def _page_url(self) -> str | None:
        page = getattr(self.env.unwrapped, "page", None)
        return getattr(page, "url", None)

    def _follow_page(self) -> None:
        """Make the server observe BrowserGym's page: select the tab with its URL when it is not current."""
        assert self.client is not None  # called after the client started
        wanted = self._page_url()
        if not wanted:
            return
        tabs = self.client.tabs()
        if any(tab.current and tab.url == wanted for tab in tabs):
            return
        for tab in tabs:
            if tab.url == wanted:
                self.client.select_tab(tab.id)
                return
        raise PagesnapError(
            "no-tab",
            f"pagesnap sees no tab with BrowserGym's page URL {wanted} (tabs: {[t.url for t in tabs]})",
        )

    def _observe(self, obs: dict[str, Any]) -> dict[str, Any]:
        assert self.client is not None  # reset starts it
        snapshots: dict[str, Snapshot] = {}
        for strategy in self.strategies:
            snapshot = self.client.snapshot(strategy, full_page=self.full_page, max_tokens=self.max_tokens)
            if snapshot.url is not None and snapshot.url != self._page_url():
                self._follow_page()  # BrowserGym moved to another tab
                snapshot = self.client.snapshot(
                    strategy, full_page=self.full_page, max_tokens=self.max_tokens
                )
            snapshots[strategy] = snapshot
        dom = obs.get("dom_object") or {}
        bids = bids_by_backend_id(dom)
        refs: dict[str, str] = {}
        for snapshot in snapshots.values():
            for ref in snapshot.refs:
                if ref.backend_id in bids:
                    refs.setdefault(ref.ref, bids[ref.backend_id])
        self.refs = refs
        obs = dict(obs)
        for strategy, snapshot in snapshots.items():
            obs[self.key(strategy)] = snapshot.text
        obs["pagesnap_refs"] = refs
        obs["pagesnap_snapshots"] = snapshots
        return obs


def _extended_space(space: Any, strategies: Sequence[str]) -> Any:
    """The env's Dict observation space with the keys this wrapper adds (BrowserGym's own space types)."""
    try:
        # BrowserGym is optional here, and untyped.
        from browsergym.core.spaces import AnyDict, Anything, Unicode  # type: ignore[import-untyped]
    except ImportError:
        return space
    if not isinstance(space, gymnasium.spaces.Dict):
        return space
    extra: dict[str, Any] = {PagesnapObservation.key(s): Unicode() for s in strategies}
    extra["pagesnap_refs"] = AnyDict()
    extra["pagesnap_snapshots"] = Anything()
    return gymnasium.spaces.Dict({**space.spaces, **extra})
