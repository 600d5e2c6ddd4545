"""pagesnap for Python: call a long-lived `pagesnap mcp` process (`Pagesnap`), render recordings
(`observe_recording`), and add pagesnap's views to BrowserGym observations (`pagesnap.browsergym`).

Standard library only; the `pagesnap` binary comes with the wheel (or `PAGESNAP_BIN`)::

    from pagesnap import Pagesnap

    with Pagesnap("http://127.0.0.1:9222") as snap:
        page = snap.snapshot("aria")
        print(page.text, [r.ref for r in page.refs])
"""

from ._client import (
    BadArgumentError,
    BrowserGoneError,
    Match,
    NotFoundError,
    Pagesnap,
    PagesnapError,
    Ref,
    ServerExitedError,
    Snapshot,
    Tab,
    find_binary,
    observe_recording,
)

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
