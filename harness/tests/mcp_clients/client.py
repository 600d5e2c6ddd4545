"""Drives `pagesnap mcp` through the official MCP Python SDK, as an agent would, and checks what it gets.

Usage: client.py PAGESNAP_BINARY (stdio | http | attach | sigkill | crash | dialogs | actions | installed) SITES_DIR

stdio and http run the whole scenario over each transport; attach runs it against a Chromium this
script starts with --remote-debugging-port=0 (pagesnap attaches with --cdp-endpoint, and must leave
that browser and its tab alive); sigkill kills the server with SIGKILL and checks that the Chromium
it launched, with every process of it, is gone within seconds. crash injects browser faults for real
(issue 58): over HTTP, the server's Chromium killed (SIGKILL) under two sessions, then stopped
(SIGSTOP); attached, the test's Chromium killed and started again on its port, and the DevTools
socket cut by a proxy this script runs in front of it; each session's next calls are answered at once
(browser-gone at most once, then a page in a new browser, the restart told once), within stated
bounds, and no process or profile of a dead browser is left. dialogs drives the JavaScript dialogs
of fixtures/sites/dialogs (alert, confirm accepted and dismissed, prompt with text, beforeunload, a
dialog during load, one from a frame of another site) under --dialogs ask, then accept and dismiss;
those pages report what each answer did to this script's server (POST /report), and the checks
read those reports, not the tool's own answers. actions drives every op of page_action (click,
dblclick, type, clear, select, press with key combinations, hover, focus, drag, upload, select_text),
page_fill, page_wait and page_click_at on the pages of fixtures/sites/actions, with --upload-dir a
folder this script fills, and their refusals (upload-refused, not-file-input, covered, wait-timeout,
bad-argument, no-text); those pages report too, and the checks read the reports. installed checks a
pagesnap installed from a package (scripts/test-packages): PAGESNAP_BINARY is then a command line (split as
a shell would, e.g. "uvx --offline --from dist/pagesnap-….whl pagesnap"); the eleven tools are listed, a
page is opened and its snapshot names the page's controls with refs, and one click works.

The pages come from a 127.0.0.1 HTTP server this script starts: the fixture sites (modal and
planted-secrets pages) and a few pages of its own. Every assertion names what it checks; the
script exits non-zero on the first failure. pagesnap's stderr is kept and checked for secrets.
"""

import asyncio
import atexit
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

PAGESNAP, MODE, SITES = sys.argv[1], sys.argv[2], sys.argv[3]

FORM = """<!doctype html><title>Order form</title>
<h1>Order</h1>
<label>Item <input id=item></label>
<label>Country <select id=country><option value=fr>France</option><option value=de>Germany</option></select></label>
<span style="position:relative;display:inline-block"><button id=add onclick="const li=document.createElement('li');li.textContent=document.getElementById('item').value+' to '+document.getElementById('country').value;document.getElementById('list').append(li)">Add item</button><span id=veil style="display:none;position:absolute;left:0;top:0;right:0;bottom:0;background:#fff">Veil over it</span></span>
<button onclick="document.getElementById('veil').style.display='block'">Put a veil</button>
<ul id=list></ul>
<a href="second.html">Go to second page</a>
<a href="second.html" target="_blank">Open in a new tab</a>
<div style="height:2500px"></div>
<button id=bottom>Button at the bottom</button>
"""
SECOND = "<!doctype html><title>Second</title><h1>Second page</h1><button>Only on the second page</button>"
SLOW = "<!doctype html><title>Slow</title><h1>Slow</h1><img src='/never'>"
# A page whose renderer holds 256 MiB more than any other here, so that the test finds it to kill.
HEAVY = "<!doctype html><title>Heavy</title><h1>Heavy page</h1><script>self.ballast = new Uint8Array(256 << 20).fill(1)</script>"
DOWNLOADS = "<!doctype html><title>Downloads</title><h1>Downloads</h1><a href='/report.csv'>Get the report</a>"
# Served as an attachment (Content-Disposition), so that a click on its link downloads it.
REPORT_CSV = b"copy,total\n1,42\n"


REPORTS = []


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=SITES, **kwargs)

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        if self.path == "/report":
            REPORTS.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def do_GET(self):
        own = {"/form.html": FORM, "/second.html": SECOND, "/slow.html": SLOW, "/heavy.html": HEAVY, "/downloads.html": DOWNLOADS}
        if self.path == "/never":
            time.sleep(60)
            return
        if self.path == "/report.csv":
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.send_header("Content-Disposition", 'attachment; filename="report.csv"')
            self.send_header("Content-Length", str(len(REPORT_CSV)))
            self.end_headers()
            self.wfile.write(REPORT_CSV)
            return
        if self.path in own:
            body = own[self.path].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


httpd = Server(("127.0.0.1", 0), Handler)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
BASE = f"http://127.0.0.1:{httpd.server_address[1]}"
SECRETS = [line.strip() for line in open(os.path.join(SITES, "planted_secrets", "secrets.txt")) if line.strip()]
CHECKS = []
CALLED = []


def browser_command():
    """The browser and flags pagesnap launches with (`pagesnap doctor --launch`), for a browser of our own."""
    launch = json.loads(subprocess.run([PAGESNAP, "doctor", "--launch"], capture_output=True, text=True, check=True).stdout)
    return [launch["executable"]] + launch["flags"]


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and live(int(p))]


def live(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root):
    found, frontier = set(), {root}
    while frontier:
        children = {p for p in pids() if parent(p) in frontier} - found
        found |= children
        frontier = children
    return found


def check(condition, what, detail=""):
    if not condition:
        raise AssertionError(f"{what}: {detail}"[:3000])
    CHECKS.append(what)


def first(found, what, among):
    check(len(found) >= 1, f"{what} is found", among)
    return found[0]


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def shown(result):
    """What an answer shows the page holding now: its text without the lines a brief answer says
    were removed ("- " at the start of a line under "### Changed lines")."""
    out, changed = [], False
    for line in text_of(result).split("\n"):
        if line.startswith("### "):
            changed = line == "### Changed lines"
        if changed and line.startswith("- "):
            continue
        out.append(line)
    return "\n".join(out)


def everything(result):
    return text_of(result) + json.dumps(result.structured_content)


async def call(session, name, args):
    CALLED.append(name)
    result = await session.call_tool(name, args)
    return result


async def ok(session, name, args):
    result = await call(session, name, args)
    check(not result.is_error, f"{name} {json.dumps(args)} succeeds", text_of(result))
    check(isinstance(result.structured_content, dict), f"{name} has structuredContent")
    return result


async def fails(session, name, args, kind):
    result = await call(session, name, args)
    check(result.is_error, f"{name} {json.dumps(args)} fails", text_of(result))
    error = (result.structured_content or {}).get("error", {})
    check(error.get("kind") == kind, f"{name} {json.dumps(args)} fails as {kind}", json.dumps(result.structured_content))
    return result


def ref_of(result, role, name):
    for item in items_of(result):
        if item["role"] == role and name in item["name"]:
            return item["ref"]
    raise AssertionError(f"no {role} {name!r} among {[(i['role'], i['name']) for i in items_of(result)]}")


def items_of(result):
    s = result.structured_content
    meta = s.get("snapshot", s)
    return meta.get("items", [])


async def scenario(session, leak_log, attached=False):
    tools = await session.list_tools()
    names = sorted(t.name for t in tools.tools)
    check(names == ["page_action", "page_back", "page_click_at", "page_dialog", "page_fill", "page_find", "page_navigate", "page_scroll", "page_snapshot", "page_tabs", "page_wait"], "the eleven tools are listed", names)
    for tool in tools.tools:
        check(tool.description and len(tool.description) > 40, f"{tool.name} has a description")
        check(tool.input_schema.get("type") == "object", f"{tool.name} has an object input schema")
    action_schema = next(t for t in tools.tools if t.name == "page_action").input_schema
    check("ref" in action_schema["properties"] and "op" in action_schema["properties"], "page_action's schema names ref and op")

    if attached:
        # Attached, the browser's own tab is the one observed.
        blank = await ok(session, "page_snapshot", {})
        check(blank.structured_content["freshness"]["url"] == "about:blank", "attached: the browser's tab is observed", blank.structured_content["freshness"])
    else:
        # A call before any page: a clear error, and the server keeps serving.
        await fails(session, "page_snapshot", {}, "no-tab")
    await fails(session, "page_navigate", {"url": "file:///etc/passwd"}, "refused-url")
    bad = await fails(session, "page_navigate", {"nope": 1}, "bad-argument")
    check("nope" in text_of(bad), "a malformed call names the field", text_of(bad))

    nav = await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})
    check("### Page" in text_of(nav) and "Add item" in text_of(nav), "navigate returns the snapshot", text_of(nav))
    check(nav.structured_content["incomplete"] is False, "a quick page is complete")

    # Every strategy; som brings its PNG.
    for strategy in ["aria", "flat", "structural", "som", "html-pruned", "html"]:
        snap = await ok(session, "page_snapshot", {"strategy": strategy})
        check(snap.structured_content["strategy"] == strategy, f"snapshot names strategy {strategy}")
        check(snap.structured_content["snapshotId"], f"{strategy} snapshot has a snapshotId")
        check(snap.structured_content["freshness"]["url"].endswith("/form.html"), f"{strategy} snapshot has freshness")
        images = [b for b in snap.content if getattr(b, "type", "") == "image"]
        check((len(images) == 1) == (strategy == "som"), f"{strategy}: an image exactly when som")
    await fails(session, "page_snapshot", {"strategy": "nope"}, "bad-argument")
    await fails(session, "page_snapshot", {"layers": ["nope"]}, "bad-argument")

    # Viewport by default: the bottom button is announced, not shown; full_page shows it.
    snap = await ok(session, "page_snapshot", {})
    check("Button at the bottom" not in text_of(snap), "the default snapshot is viewport-scoped")
    check(snap.structured_content["viewport"]["pagesBelow"] >= 1, "pages below are counted")
    full = await ok(session, "page_snapshot", {"full_page": True})
    check("Button at the bottom" in text_of(full), "full_page shows the whole page")
    check(full.structured_content["freshness"]["reused"] is True, "an unchanged page is rendered from its last capture", full.structured_content["freshness"])
    cut = await ok(session, "page_snapshot", {"full_page": True, "max_tokens": 40})
    check(len(text_of(cut)) < len(text_of(full)), "max_tokens cuts the text", text_of(cut))

    # Find, then refs stay stable across calls.
    found = await ok(session, "page_find", {"text": "bottom"})
    matches = found.structured_content["matches"]
    check(any(m["name"] == "Button at the bottom" and not m["inViewport"] for m in matches), "find locates an off-screen target", matches)
    found_re = await ok(session, "page_find", {"regex": "^add\\s+ITEM$"})
    check(len(found_re.structured_content["matches"]) == 1, "find by regex", found_re.structured_content)
    await fails(session, "page_find", {"regex": "("}, "bad-argument")
    add = ref_of(full, "button", "Add item")
    check(ref_of(snap, "button", "Add item") == add, "a node keeps its ref across snapshots")

    # Type + select + click through refs.
    item = ref_of(snap, "textbox", "Item")
    country = ref_of(snap, "combobox", "Country")
    typed = await ok(session, "page_action", {"ref": item, "op": "type", "value": "milk"})
    check(typed.structured_content["action"]["outcome"] == "done", "type is done")
    await ok(session, "page_action", {"ref": country, "op": "select", "value": "Germany"})
    clicked = await ok(session, "page_action", {"ref": add, "op": "click"})
    check("milk to de" in text_of(clicked), "the click's effect is in its snapshot", text_of(clicked))
    check(clicked.structured_content["snapshot"]["freshness"]["reused"] is False, "an action's snapshot is a fresh capture", clicked.structured_content["snapshot"]["freshness"])
    check(clicked.structured_content["action"]["element"].startswith("button"), "the action names its element")
    check("changes" in clicked.structured_content, "the action lists changes")
    await fails(session, "page_action", {"ref": country, "op": "select", "value": "Atlantis"}, "no-option")
    await fails(session, "page_action", {"ref": add, "op": "type", "value": "x"}, "not-editable")
    await fails(session, "page_action", {"ref": "e9999", "op": "click"}, "unknown-ref")
    await fails(session, "page_action", {"ref": add, "op": "press", "value": "Hyper"}, "unknown-key")
    bad_op = await fails(session, "page_action", {"ref": add, "op": "teleport"}, "bad-argument")
    check("teleport" in text_of(bad_op) and "click" in text_of(bad_op), "an unknown op is named with the known ones", text_of(bad_op))

    # A covered click names what covers it; nothing is clicked. (Once covered, the snapshot
    # gives the button no ref; the agent still holds the one it was shown.)
    veiled = await ok(session, "page_action", {"ref": ref_of(snap, "button", "Put a veil"), "op": "click"})
    check(add not in [i["ref"] for i in items_of(veiled)], "a covered button gets no ref", text_of(veiled))
    covered = await fails(session, "page_action", {"ref": add, "op": "click"}, "covered")
    check("Veil over it" in text_of(covered), "covered names the covering element", text_of(covered))
    after = text_of(await ok(session, "page_snapshot", {}))
    check(after.count("milk to de") == 1, "nothing was clicked", after)
    await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})

    # Scroll the page and a container.
    scrolled = await ok(session, "page_scroll", {"direction": "down", "screens": 1})
    action = scrolled.structured_content["action"]
    check(action["scrolled_px"] > 0 and action["at_top"] is False, "page scroll moves down", action)
    up = await ok(session, "page_scroll", {"direction": "up", "screens": 5})
    check(up.structured_content["action"]["at_top"] is True, "scrolling far up reaches the top", up.structured_content["action"])
    await ok(session, "page_navigate", {"url": f"{BASE}/scroll_container/index.html"})
    snap = await ok(session, "page_snapshot", {})
    box = ref_of(snap, "list", "Items")
    check("Item 40" not in text_of(snap), "the list's later items are out of its view", text_of(snap))
    inner = await ok(session, "page_scroll", {"direction": "down", "screens": 3, "ref": box})
    check(inner.structured_content["action"]["at_top"] is True and inner.structured_content["action"]["scrolled_px"] > 0,
          "scrolling a container moves it and leaves the page where it was", inner.structured_content["action"])
    check("Item 1SKU" not in shown(inner), "the container scrolled past its first items", text_of(inner))
    scope = await ok(session, "page_snapshot", {"ref": box})
    check("View" in text_of(scope) and "Jump to top" not in text_of(scope), "ref scopes a snapshot to a subtree", text_of(scope))
    await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})
    await fails(session, "page_scroll", {"direction": "down", "screens": -1}, "bad-argument")

    # A link that opens a tab: listed, not followed.
    snap = await ok(session, "page_snapshot", {})
    newtab = ref_of(snap, "link", "Open in a new tab")
    opened = await ok(session, "page_action", {"ref": newtab, "op": "click"})
    check(opened.structured_content.get("newTabs"), "a tab the page opens is announced", json.dumps(opened.structured_content)[:500])
    check(opened.structured_content["newTabs"][0]["url"].endswith("/second.html"), "the announced tab names the URL it opens",
          json.dumps(opened.structured_content["newTabs"]))
    check(opened.structured_content["snapshot"]["freshness"]["url"].endswith("/form.html"), "the new tab is not followed")
    tabs = await ok(session, "page_tabs", {"op": "list"})
    check(len(tabs.structured_content["tabs"]) >= 2, "page_tabs lists the new tab")
    other = first([t["id"] for t in tabs.structured_content["tabs"] if t["url"].endswith("/second.html")], "the opened tab", tabs.structured_content)
    await ok(session, "page_tabs", {"op": "close", "id": other})
    await fails(session, "page_tabs", {"op": "select", "id": "no-such-tab"}, "no-tab")

    # Navigate by link, then back; a ref from the old page is stale or unknown.
    link = ref_of(snap, "link", "Go to second page")
    went = await ok(session, "page_action", {"ref": link, "op": "click"})
    check("Only on the second page" in text_of(went), "a click that navigates shows the new page", text_of(went))
    stale = await call(session, "page_action", {"ref": add, "op": "click"})
    check(stale.is_error and stale.structured_content["error"]["kind"] in ("stale", "unknown-ref"), "an old page's ref is refused by name", text_of(stale))
    back = await ok(session, "page_back", {})
    check("Add item" in text_of(back), "back returns to the form", text_of(back))

    # A page that never finishes loading: a best-effort snapshot, flagged incomplete — never a hang.
    started = time.monotonic()
    slow = await call(session, "page_navigate", {"url": f"{BASE}/slow.html"})
    check(time.monotonic() - started < 30, "a never-loading page does not hang the call")
    if not slow.is_error:
        check(slow.structured_content["incomplete"] is True, "a never-loading page is incomplete", json.dumps(slow.structured_content)[:400])

    # The modal page: no refs behind the dialog, [obscured] marks.
    modal = await ok(session, "page_navigate", {"url": f"{BASE}/checkout_modal/index.html"})
    text = text_of(modal)
    check("[obscured]" in text, "the background of a modal is marked obscured", text)
    names = [i["name"] for i in items_of(modal)]
    check("Buy now" not in names, "no ref on a button behind the modal", names)

    # The planted secrets page: no secret in any result.
    page = await ok(session, "page_navigate", {"url": f"{BASE}/planted_secrets/index.html"})
    outputs = [everything(page)]
    for strategy in ["aria", "flat", "structural", "som", "html-pruned", "html"]:
        outputs.append(everything(await ok(session, "page_snapshot", {"strategy": strategy, "full_page": True})))
    outputs.append(everything(await ok(session, "page_find", {"regex": "."})))
    for secret in SECRETS:
        for out in outputs:
            check(secret not in out, "no planted secret in any result", secret)

    # Known secrets: typed by name, never echoed, masked when the page shows them.
    await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})
    snap = await ok(session, "page_snapshot", {})
    item = ref_of(snap, "textbox", "Item")
    typed = await ok(session, "page_action", {"ref": item, "op": "type", "value": "{secret:ORDER_CODE}"})
    click = await ok(session, "page_action", {"ref": ref_of(snap, "button", "Add item"), "op": "click"})
    check("order-code-7781" not in everything(typed) + everything(click), "a typed secret is never echoed")
    check("<secret:ORDER_CODE>" in text_of(click), "a known secret on the page is shown by name", text_of(click))
    await fails(session, "page_action", {"ref": item, "op": "type", "value": "{secret:NOPE}"}, "bad-argument")

    # Two calls at once are serialised, both answered.
    a, b = await asyncio.gather(
        call(session, "page_snapshot", {}), call(session, "page_scroll", {"direction": "down"})
    )
    check(not a.is_error and not b.is_error, "two calls at once both succeed", text_of(a) + text_of(b))


def reported(what):
    return [r for r in REPORTS if r["what"] == what]


def wait_reported(what, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not reported(what):
        time.sleep(0.05)
    return reported(what)


def dialog_of(result):
    s = result.structured_content
    return s.get("snapshot", s).get("dialog")


async def dialogs(session):
    """Every dialog is shown and answered by the agent; the pages say what the answers did."""
    tools = await session.list_tools()
    check("page_dialog" in [t.name for t in tools.tools], "page_dialog is listed")

    # A dialog during load: the load waits; the agent sees only the dialog.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/onload.html"})
    shown = dialog_of(nav)
    check(shown == {"kind": "alert", "message": "Welcome back! Your session was restored."}, "a dialog during load is shown", json.dumps(nav.structured_content)[:600])
    check("### Dialog" in text_of(nav) and "An alert dialog is open" in text_of(nav), "the answer's text shows the dialog", text_of(nav))
    check(not reported("loaded"), "nothing answered the dialog behind the agent's back", REPORTS)
    snap = await ok(session, "page_snapshot", {"strategy": "flat"})
    check(dialog_of(snap)["kind"] == "alert" and items_of(snap) == [], "a snapshot is the dialog alone, without refs", text_of(snap))
    refused = await fails(session, "page_navigate", {"url": f"{BASE}/form.html"}, "dialog-pending")
    check("Welcome back" in text_of(refused), "dialog-pending names the dialog", text_of(refused))
    await fails(session, "page_find", {"text": "reports"}, "dialog-pending")
    answered = await ok(session, "page_dialog", {"accept": True})
    check(answered.structured_content["action"] == {"op": "dialog", "kind": "alert", "message": "Welcome back! Your session was restored.", "accepted": True}, "the answer is reported", json.dumps(answered.structured_content["action"]))
    check("Open reports" in text_of(answered) and dialog_of(answered) is None, "after the answer the page is shown", text_of(answered))
    check(wait_reported("loaded"), "the page loaded after the agent's answer", REPORTS)
    await fails(session, "page_dialog", {"accept": True}, "no-dialog")

    # confirm: dismissed keeps the text, accepted discards it.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/editor.html"})
    close = ref_of(nav, "button", "Close editor")
    save = ref_of(nav, "button", "Save")
    rename = ref_of(nav, "button", "Rename")
    clicked = await ok(session, "page_action", {"ref": close, "op": "click"})
    check(dialog_of(clicked) == {"kind": "confirm", "message": "Discard unsaved changes?"}, "the click's answer shows the confirm it opened", json.dumps(clicked.structured_content)[:600])
    check("opened a dialog" in (clicked.structured_content["action"].get("note") or ""), "the action's note says a dialog opened", json.dumps(clicked.structured_content["action"]))
    pending = await fails(session, "page_action", {"ref": save, "op": "click"}, "dialog-pending")
    check("Discard unsaved changes?" in text_of(pending), "another action is refused naming the dialog", text_of(pending))
    await ok(session, "page_dialog", {"accept": False})
    kept = wait_reported("kept")
    check(kept and kept[-1]["detail"] == "Revenue up 4% on the quarter.", "a dismissed confirm keeps the notes", REPORTS)
    await ok(session, "page_action", {"ref": close, "op": "click"})
    await ok(session, "page_dialog", {"accept": True})
    check(wait_reported("discarded"), "an accepted confirm discards the notes", REPORTS)

    # alert: a text is not typed anywhere, and the note says so.
    await ok(session, "page_action", {"ref": save, "op": "click"})
    alerted = await ok(session, "page_dialog", {"accept": True, "text": "ignored"})
    check("no text field" in (alerted.structured_content["action"].get("note") or text_of(alerted)), "a text for an alert is said to be unused", text_of(alerted))
    check(wait_reported("saved"), "the alert's page went on after it", REPORTS)

    # prompt: its default is shown; the agent's text is the answer; dismissed it is null.
    prompted = await ok(session, "page_action", {"ref": rename, "op": "click"})
    check(dialog_of(prompted) == {"kind": "prompt", "message": "New name for the document?", "defaultPrompt": "Untitled"}, "a prompt shows its default", json.dumps(dialog_of(prompted)))
    renamed = await ok(session, "page_dialog", {"accept": True, "text": "Q3 report"})
    check([r["detail"] for r in wait_reported("renamed")] == ["Q3 report"], "the prompt got the agent's text", REPORTS)
    check("Q3 report" in text_of(renamed), "the page after the prompt shows the new name", text_of(renamed))
    await ok(session, "page_action", {"ref": rename, "op": "click"})
    await ok(session, "page_dialog", {"accept": False})
    check(wait_reported("rename-cancelled"), "a dismissed prompt answers null", REPORTS)

    # beforeunload: leaving an edited form asks; dismissed stays, accepted leaves.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/leave.html"})
    await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Street"), "op": "type", "value": "1 Main St"})
    leaving = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/next.html"})
    check((dialog_of(leaving) or {}).get("kind") == "beforeunload", "leaving an edited form shows beforeunload", json.dumps(leaving.structured_content)[:600])
    stayed = await ok(session, "page_dialog", {"accept": False})
    check("Shipping address" in text_of(stayed), "dismissed, the page stays", text_of(stayed))
    check(not reported("arrived"), "dismissed, the next page was not loaded", REPORTS)
    link = ref_of(stayed, "link", "Go to the next page")
    clicked = await ok(session, "page_action", {"ref": link, "op": "click"})
    check((dialog_of(clicked) or {}).get("kind") == "beforeunload", "a link away asks too", json.dumps(clicked.structured_content)[:600])
    left = await ok(session, "page_dialog", {"accept": True})
    check(wait_reported("arrived") and "Next page" in text_of(left), "accepted, the next page loads", text_of(left))

    # A dialog from a frame of another site (localhost inside 127.0.0.1).
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/frame.html"})
    remove = ref_of(nav, "button", "Remove card")
    clicked = await ok(session, "page_action", {"ref": remove, "op": "click"})
    check(dialog_of(clicked) == {"kind": "confirm", "message": "Remove this card from your wallet?"}, "a dialog from another site's frame is shown", json.dumps(clicked.structured_content)[:600])
    await ok(session, "page_dialog", {"accept": False})
    check(wait_reported("card-kept") and not reported("card-removed"), "the frame's confirm got the agent's answer", REPORTS)


OPS = ["click", "dblclick", "type", "clear", "select", "press", "hover", "focus", "drag", "upload", "select_text"]


def reported_since(what, mark):
    return [r for r in REPORTS[mark:] if r["what"] == what]


def wait_detail(what, expected, mark=0, timeout=5.0):
    """Whether a page reported `what` after REPORTS[mark] with the detail `expected` (or one `expected` accepts, if callable)."""
    accepts = expected if callable(expected) else (lambda detail: detail == expected)
    deadline = time.monotonic() + timeout
    while True:
        if any(accepts(r["detail"]) for r in reported_since(what, mark)):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def quiet(what, mark, grace=0.5):
    """No page reported `what` after REPORTS[mark], a late report given `grace` seconds to arrive."""
    time.sleep(grace)
    return not reported_since(what, mark)


async def actions(session, uploads, files, downloads):
    """Every op of page_action, page_fill, page_wait and page_click_at on fixtures/sites/actions; the pages say what each did."""
    tools = await session.list_tools()
    names = [t.name for t in tools.tools]
    for name in ["page_fill", "page_wait", "page_click_at", "page_dialog"]:
        check(name in names, f"{name} is listed", names)
    check("page_press" not in names, "there is no page_press: a key is an op of page_action", names)
    action_tool = next(t for t in tools.tools if t.name == "page_action")
    told = json.dumps(action_tool.input_schema) + action_tool.description
    for op in OPS:
        check(f'"{op}"' in told or op in action_tool.description, f"page_action's schema or description names the op {op}", told)
    for field in ["to", "paths"]:
        check(field in action_tool.input_schema.get("properties", {}), f"page_action's schema names {field}", action_tool.input_schema)

    # dblclick: a single click only selects the file; a real double click opens it.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/dblclick.html"})
    quarterly = ref_of(nav, "option", "Quarterly report.docx")
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": quarterly, "op": "click"})
    check(wait_detail("file-selected", "Quarterly report.docx", mark), "a single click reaches the file", REPORTS[mark:])
    check(quiet("opened", mark), "a single click does not open the file", REPORTS[mark:])
    opened = await ok(session, "page_action", {"ref": quarterly, "op": "dblclick"})
    check(wait_detail("opened", "Quarterly report.docx", mark), "dblclick opens the file (a dblclick event)", REPORTS[mark:])
    check(opened.structured_content["action"]["op"] == "dblclick", "the answer names the op dblclick", json.dumps(opened.structured_content["action"]))
    check("Editing Quarterly report.docx" in text_of(opened), "the double click's effect is in its snapshot", text_of(opened))

    # hover: the pointer entering "Account" opens its menu (a click on it would not be a hover);
    # the item the menu shows is then clicked, the pointer staying inside the menu.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/hover.html"})
    check(not any("Sign out" in i["name"] for i in items_of(nav)), "the menu's items are hidden before the hover", text_of(nav))
    mark = len(REPORTS)
    hovered = await ok(session, "page_action", {"ref": ref_of(nav, "button", "Account"), "op": "hover"})
    check(wait_detail("menu-open", None, mark), "hover opens the menu (mouseenter)", REPORTS[mark:])
    check(quiet("account-clicked", mark, 0), "hover does not click", REPORTS[mark:])
    sign_out = ref_of(hovered, "button", "Sign out")
    await ok(session, "page_action", {"ref": sign_out, "op": "click"})
    check(wait_detail("signed-out", None, mark), "the item the hover showed is clicked", REPORTS[mark:])

    # Hover targets no role or listener names: a pure-CSS menu's <span>, a span with a script's
    # mouseenter listener, one with an onmouseenter attribute; hover styling that reveals nothing
    # gets no ref.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/hover-css.html"})
    by_text = {i["context"].split(" ")[0]: i["ref"] for i in items_of(nav) if not i["name"]}
    for text in ["My", "English", "Help"]:
        check(text in by_text, f"the hover target {text!r} has a ref", items_of(nav))
    check("Free" not in by_text, "a :hover rule that reveals nothing gives no ref", items_of(nav))
    check("Volume" in by_text, "an element with only a mousedown listener (a drag handle) has a ref", items_of(nav))
    mark = len(REPORTS)
    hovered = await ok(session, "page_action", {"ref": by_text["My"], "op": "hover"})
    await ok(session, "page_action", {"ref": ref_of(hovered, "button", "Sign out"), "op": "click"})
    check(wait_detail("signed-out", None, mark), "the CSS menu's item is clicked after the hover", REPORTS[mark:])
    await ok(session, "page_action", {"ref": by_text["English"], "op": "hover"})
    check(wait_detail("languages-shown", None, mark), "hovering the listener's span fires it", REPORTS[mark:])
    await ok(session, "page_action", {"ref": by_text["Help"], "op": "hover"})
    check(wait_detail("tip-shown", None, mark), "hovering the attribute's span fires it", REPORTS[mark:])

    # focus, type, press with combinations, clear: the page's key log says what the browser did.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/keys.html"})
    last = ref_of(nav, "textbox", "Last name")
    message = ref_of(nav, "textbox", "Message")
    draft = ref_of(nav, "textbox", "Draft")
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": last, "op": "focus"})
    check(wait_detail("focused", "Last name", mark), "focus focuses the field", REPORTS[mark:])
    check(quiet("mouse-down", mark, 0), "focus does not click", REPORTS[mark:])
    await ok(session, "page_action", {"ref": last, "op": "press", "value": "Shift+Tab"})
    check(wait_detail("shift-tab", {"from": "Last name", "to": "First name"}, mark), "Shift+Tab moves the focus back to the previous field", REPORTS[mark:])
    await ok(session, "page_action", {"ref": message, "op": "type", "value": "See you on Friday."})
    check(wait_detail("message", "See you on Friday.", mark), "type replaces the message's text", REPORTS[mark:])
    await ok(session, "page_action", {"ref": message, "op": "press", "value": "Control+A"})
    check(wait_detail("select-all", "See you on Friday.", mark), "Control+A selects the whole message (the browser's own select-all)", REPORTS[mark:])
    await fails(session, "page_action", {"ref": message, "op": "press", "value": "Control+Hyper"}, "unknown-key")
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": message, "op": "clear"})
    check(wait_detail("message", "", mark) and reported_since("message", mark)[-1]["detail"] == "", "clear empties the message", REPORTS[mark:])

    # select_text: a real selection of the words (selectionchange), which the editor's Bold then applies to.
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": draft, "op": "select_text", "value": "brown fox"})
    check(wait_detail("selected", "brown fox", mark), "select_text selects the words given", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(nav, "button", "Bold"), "op": "click"})
    check(wait_detail("bolded", lambda html: "<b>brown fox</b>" in (html or ""), mark), "the editor acts on the selection (Bold)", REPORTS[mark:])
    await ok(session, "page_action", {"ref": draft, "op": "select_text"})
    check(wait_detail("selected", lambda text: (text or "").strip() == "The quick brown fox jumps over the lazy dog.", mark), "select_text without a value selects all the element's text", REPORTS[mark:])
    await fails(session, "page_action", {"ref": draft, "op": "select_text", "value": "purple elephant"}, "no-text")
    # Without a ref: the text where the page shows it, white space matching any white space.
    mark = len(REPORTS)
    await ok(session, "page_action", {"op": "select_text", "value": "lazy \n  dog"})
    check(wait_detail("selected", "lazy dog", mark), "select_text without a ref finds the text on the page", REPORTS[mark:])
    await fails(session, "page_action", {"op": "select_text", "value": "purple elephant"}, "no-text")
    await fails(session, "page_action", {"op": "select_text"}, "bad-argument")
    # type without a ref: at the focus, keeping what is there.
    await ok(session, "page_action", {"ref": message, "op": "focus"})
    await ok(session, "page_action", {"op": "type", "value": "Hello"})
    check(wait_detail("message", "Hello", mark), "type without a ref types at the focus", REPORTS[mark:])
    await ok(session, "page_action", {"op": "type", "value": " there"})
    check(wait_detail("message", "Hello there", mark), "typing at the focus keeps the text there", REPORTS[mark:])
    await fails(session, "page_action", {"op": "click"}, "bad-argument")

    # drag: an HTML5 drag and drop (dragstart, dragover, drop with its dataTransfer), a slider moved
    # by mouse down, move and up, and a drop zone under an overlay.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/board.html"})
    done = ref_of(nav, "region", "Done")
    mark = len(REPORTS)
    moved = await ok(session, "page_action", {"ref": ref_of(nav, "button", "Write report"), "op": "drag", "to": done})
    check(wait_detail("dropped", {"card": "Write report", "column": "Done"}, mark), "the card is dropped on Done", REPORTS[mark:])
    check(moved.structured_content["action"]["op"] == "drag" and moved.structured_content["action"].get("to") == done, "the answer names the drag and its target", json.dumps(moved.structured_content["action"]))
    await ok(session, "page_action", {"ref": ref_of(nav, "slider", "Volume"), "op": "drag", "to": ref_of(nav, "button", "75")})
    check(wait_detail("slider", lambda value: value in (74, 75, 76), mark), "the slider's handle is dragged to 75", REPORTS[mark:])
    check(quiet("slider-tick", mark, 0), "the slider moved by the drag, not by a click on the tick", REPORTS[mark:])
    # A drag to a point: the handle let go at the "25" tick's place (no ref as the target).
    tick = next(i for i in items_of(nav) if i["role"] == "button" and i["name"] == "25")["bounds"]
    point = f"{tick['x'] + tick['width'] / 2:.0f},{tick['y'] + tick['height'] / 2:.0f}"
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": ref_of(nav, "slider", "Volume"), "op": "drag", "to": point})
    check(wait_detail("slider", lambda value: value in (24, 25, 26), mark), "the slider's handle is dragged to a point", REPORTS[mark:])
    await fails(session, "page_action", {"ref": ref_of(nav, "slider", "Volume"), "op": "drag", "to": "5000,10"}, "hidden")
    archive = ref_of(nav, "region", "Archive")
    await ok(session, "page_action", {"ref": ref_of(nav, "button", "Lock archive"), "op": "click"})
    covered = await fails(session, "page_action", {"ref": ref_of(nav, "button", "Fix login bug"), "op": "drag", "to": archive}, "covered")
    check("Archive locked" in text_of(covered), "covered names what covers the drop zone", text_of(covered))
    check(not any((r["detail"] or {}).get("column") == "Archive" for r in reported_since("dropped", mark)), "nothing was dropped on the covered zone", REPORTS[mark:])
    await fails(session, "page_action", {"ref": ref_of(nav, "button", "Fix login bug"), "op": "drag"}, "bad-argument")

    # upload: only files inside --upload-dir; into a visible file input, and through a button
    # that opens the chooser of a hidden one.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/upload.html"})
    resume = ref_of(nav, "button", "Résumé")
    # A plain click that opens a chooser says so (and how to answer it); one that does not, says nothing.
    for name in ["Résumé", "Choose photo"]:
        clicked = await ok(session, "page_action", {"ref": ref_of(nav, "button", name), "op": "click", "brief": True})
        check("file chooser opened" in clicked.structured_content["action"].get("note", ""), f"clicking {name!r} reports the file chooser it opened", json.dumps(clicked.structured_content["action"]))
    clicked = await ok(session, "page_action", {"ref": ref_of(nav, "button", "Show tips"), "op": "click", "brief": True})
    check("note" not in clicked.structured_content["action"], "a click that opens no chooser has no chooser note", json.dumps(clicked.structured_content["action"]))
    mark = len(REPORTS)
    for paths in [["/etc/hostname"], ["../outside.txt"], ["link.pdf"], ["missing.pdf"], ["resume.pdf", "/etc/hostname"]]:
        await fails(session, "page_action", {"ref": resume, "op": "upload", "paths": paths}, "upload-refused")
    check(quiet("uploaded", mark), "a refused upload gives the page no file (not even the allowed one beside a refused one)", REPORTS[mark:])
    await fails(session, "page_action", {"ref": ref_of(nav, "button", "Show tips"), "op": "upload", "paths": ["resume.pdf"]}, "not-file-input")
    await fails(session, "page_action", {"ref": resume, "op": "upload"}, "bad-argument")
    await ok(session, "page_action", {"ref": resume, "op": "upload", "paths": [os.path.join(uploads, "resume.pdf")]})
    check(wait_detail("uploaded", ["resume.pdf"], mark), "the résumé is given to the file input", REPORTS[mark:])
    check(wait_detail("uploaded-bytes", len(files["resume.pdf"]), mark), "the page reads the résumé's bytes", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(nav, "button", "Choose photo"), "op": "upload", "paths": ["photo.png", "avatar.png"]})
    check(wait_detail("photo", ["photo.png", "avatar.png"], mark), "the button's hidden chooser gets both photos", REPORTS[mark:])
    check(wait_detail("photo-bytes", len(files["photo.png"]) + len(files["avatar.png"]), mark), "the page reads the photos' bytes", REPORTS[mark:])
    await ok(session, "page_action", {"ref": resume, "op": "upload", "paths": ["CV, final.pdf"]})
    check(wait_detail("uploaded", ["CV, final.pdf"], mark), "a file name with a comma is one file", REPORTS[mark:])

    # page_fill: seven fields in one call, then one click on Submit: two calls in all.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/form.html"})
    fields = [
        {"ref": ref_of(nav, "textbox", "Full name"), "value": "Ada Lovelace"},
        {"ref": ref_of(nav, "textbox", "Email"), "value": "ada@example.com"},
        {"ref": ref_of(nav, "textbox", "Phone"), "value": "+44 20 7946 0958"},
        {"ref": ref_of(nav, "combobox", "Country"), "value": "Germany"},
        {"ref": ref_of(nav, "checkbox", "Subscribe"), "value": "true"},
        {"ref": ref_of(nav, "radio", "Pro"), "value": "true"},
        {"ref": ref_of(nav, "textbox", "Notes"), "value": "Ring twice."},
    ]
    submit = ref_of(nav, "button", "Submit")
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": fields[3]["ref"], "op": "select", "value": "jp"})
    check(wait_detail("country", "jp", mark), "select chooses an option by its value", REPORTS[mark:])
    await fails(session, "page_fill", {"fields": [{"ref": fields[3]["ref"], "value": "Atlantis"}]}, "no-option")
    mark, calls = len(REPORTS), len(CALLED)
    filled = await ok(session, "page_fill", {"fields": fields})
    action = filled.structured_content["action"]
    check(action["op"] == "fill" and action["fields"] == 7, "page_fill answers with the number of fields", json.dumps(action))
    check(all(key in filled.structured_content for key in ["snapshot", "changes", "incomplete"]), "page_fill answers with the page", list(filled.structured_content))
    check(quiet("submitted", mark, 0), "filling does not submit", REPORTS[mark:])
    await ok(session, "page_action", {"ref": submit, "op": "click"})
    check(len(CALLED) - calls == 2, "the form took two calls", CALLED[calls:])
    expected = {"name": "Ada Lovelace", "email": "ada@example.com", "phone": "+44 20 7946 0958", "country": "de", "subscribe": True, "plan": "pro", "notes": "Ring twice."}
    check(wait_detail("submitted", expected, mark), "the form is submitted with every filled value", REPORTS[mark:])

    # A date and a time field are set by value, in their standard forms, as their pickers set them.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/date.html"})
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Date"), "op": "type", "value": "2010-05-20"})
    check(wait_detail("date", "2010-05-20", mark), "typing an ISO date sets a date field", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Time"), "op": "type", "value": "09:30"})
    check(wait_detail("time", "09:30", mark), "typing a time sets a time field", REPORTS[mark:])

    # Every typed control is set by value as its picker sets it (a React-style tracked field sees
    # the change), a value it cannot hold is refused by name, and what was typed is read back.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/controls.html"})
    mark = len(REPORTS)
    departure = ref_of(nav, "textbox", "Departure")
    for label, value, what, held in [("Departure", "2026-12-24", "departure", "2026-12-24"), ("Leaves at", "21:37", "at", "21:37"),
                                      ("Volume", "70", "volume", "70"), ("Colour", "#FF8800", "colour", "#ff8800"),
                                      ("Travel month", "2026-12", "month", "2026-12"), ("Week", "2026-w52", "week", "2026-W52")]:
        role = "slider" if label == "Volume" else "textbox"
        item = next((i for i in items_of(nav) if label in i["name"]), None)
        await ok(session, "page_action", {"ref": item["ref"] if item else ref_of(nav, role, label), "op": "type", "value": value})
        check(wait_detail(what, held, mark), f"{label} is set by value and the page sees it", REPORTS[mark:])
    refused = await fails(session, "page_action", {"ref": departure, "op": "type", "value": "12/24/2026"}, "bad-value")
    check("2026-12-24?" in text_of(refused), "a displayed date is refused naming its ISO form", text_of(refused))
    await fails(session, "page_action", {"ref": departure, "op": "type", "value": "2025-06-01"}, "bad-value")
    volume = next(i["ref"] for i in items_of(nav) if "Volume" in i["name"])
    refused = await fails(session, "page_action", {"ref": volume, "op": "type", "value": "72"}, "bad-value")
    check("step 5" in text_of(refused), "a slider value off its step is refused naming the step", text_of(refused))
    check(not reported_since("departure", mark)[1:] and len(reported_since("volume", mark)) == 1, "a refused value sets nothing", REPORTS[mark:])
    # A date in a shadow root and a date and time in a frame are set alike.
    await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Return"), "op": "type", "value": "2027-01-03"})
    check(wait_detail("return", "2027-01-03", mark), "a date in a shadow root is set by value", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Check-in"), "op": "type", "value": "2026-12-24 15:00"})
    check(wait_detail("check-in", "2026-12-24T15:00", mark), "a date and time in a frame is set by value", REPORTS[mark:])
    # Custom sliders: one that moves by its arrow keys only, one by a pointer drag only.
    await ok(session, "page_action", {"ref": ref_of(nav, "slider", "Brightness"), "op": "type", "value": "70"})
    check(wait_detail("brightness", 70, mark), "a key-driven custom slider is set by its arrow keys", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(nav, "slider", "Zoom"), "op": "type", "value": "70"})
    check(wait_detail("zoom", 70, mark), "a pointer-driven custom slider is set by dragging its thumb", REPORTS[mark:])
    await fails(session, "page_action", {"ref": ref_of(nav, "slider", "Zoom"), "op": "type", "value": "150"}, "bad-value")
    masked = await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Phone"), "op": "type", "value": "+33123456789"})
    check("+33 1 23 45 67 89" in json.dumps(masked.structured_content["action"]), "a mask's reformatting is done, with a note of what the field holds", json.dumps(masked.structured_content["action"]))
    cut = await fails(session, "page_action", {"ref": ref_of(nav, "textbox", "Promo code"), "op": "type", "value": "SUMMER26"}, "value-mismatch")
    check("SUMME" in text_of(cut) and "at most 5" in text_of(cut), "a maxlength cut is a value-mismatch naming both values", text_of(cut))
    rewritten = await fails(session, "page_fill", {"fields": [{"ref": ref_of(nav, "textbox", "City"), "value": "Pari"},
                                                              {"ref": ref_of(nav, "textbox", "Traveller"), "value": "Ada"}]}, "value-mismatch")
    check("Paris" in text_of(rewritten) and "field 1" in text_of(rewritten), "a field rewritten when the fill moved on is named", text_of(rewritten))
    await ok(session, "page_action", {"ref": ref_of(nav, "button", "Book"), "op": "click"})
    check(wait_detail("booked", lambda d: d["departure"] == "2026-12-24" and d["volume"] == "70" and d["colour"] == "#ff8800" and d["phone"] == "+33 1 23 45 67 89", mark),
          "the booking holds every value set", REPORTS[mark:])

    # Buttons and keys held: Control-click adds to a selection, the right button opens the
    # file's own menu, whose items get refs like any menu's.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/files.html"})
    mark = len(REPORTS)
    await ok(session, "page_action", {"ref": ref_of(nav, "option", "Budget.xlsx"), "op": "click"})
    await ok(session, "page_action", {"ref": ref_of(nav, "option", "Photo.jpg"), "op": "click", "value": "Control"})
    check(wait_detail("selected", ["Budget.xlsx", "Photo.jpg"], mark), "Control-click adds to the selection", REPORTS[mark:])
    menu = await ok(session, "page_action", {"ref": ref_of(nav, "option", "Notes.txt"), "op": "click", "value": "right"})
    check(wait_detail("menu", "Notes.txt", mark), "a right click opens the page's own menu", REPORTS[mark:])
    await ok(session, "page_action", {"ref": ref_of(menu, "menuitem", "Delete"), "op": "click"})
    check(wait_detail("deleted", "Notes.txt", mark), "the menu's item runs on the file right-clicked", REPORTS[mark:])
    await fails(session, "page_action", {"ref": ref_of(nav, "option", "Photo.jpg"), "op": "click", "value": "left+right"}, "bad-argument")

    # Scrolling as a wheel scrolls, answered once what it set off has loaded: twelve default
    # page_scroll calls down a feed that loads on a sentinel's intersection (after 400 ms and a
    # request) and down one that loads on wheel input only reach what twelve 0.75-screen steps
    # cover (about 36 posts of 170 px in a 720 px viewport), judged by the page's own count.
    for load in ["sentinel", "wheel"]:
        await ok(session, "page_navigate", {"url": f"{BASE}/actions/feed.html?load={load}"})
        mark, took, grew = len(REPORTS), [], 0
        for _ in range(12):
            started = time.monotonic()
            answer = await call(session, "page_scroll", {"direction": "down"})
            took.append(time.monotonic() - started)
            grew += "more content loaded" in json.dumps(answer.structured_content or {})
        counts = [r["detail"] for r in reported_since("posts", mark)] or [6]
        print(f"SCROLL {load}: {max(counts)} posts, {grew} answers say it grew, ms {sorted(round(t * 1000) for t in took)}", file=sys.stderr)
        check(max(counts) >= 30, f"twelve scrolls reach the {load} feed's later posts", counts)
        check(grew >= 3, f"the answers say when the {load} feed grew", grew)
    # A carousel scrolled right and left (a ref'd container, across, snapping to its slides);
    # every slide reports it was half in view. Then lazy images under a sticky header: twelve
    # default scrolls load them all (the page counts loads) and show every caption on the way,
    # none skipped under the header.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/gallery.html"})
    mark = len(REPORTS)
    featured = ref_of(nav, "region", "Featured")
    moved = []
    for _ in range(10):
        answer = await ok(session, "page_scroll", {"direction": "right", "ref": featured})
        moved.append(answer.structured_content["action"]["scrolled_px"])
    check(wait_detail("slides", list(range(1, 11)), mark), "scrolling a carousel right shows every slide", reported_since("slides", mark)[-1:])
    # The last scroll did not move: its answer says the page is unchanged, which the snapshot shows.
    check("### Unchanged" in text_of(answer), "a scroll that did not move answers that nothing changed", text_of(answer))
    seen = await ok(session, "page_snapshot", {})
    check("Slide 10" in text_of(seen) and "Slide 1\n" not in text_of(seen), "the carousel shows its last slides", text_of(seen))
    check(moved[0] > 0 and moved[-1] == 0 and "did not move" in json.dumps(answer.structured_content["action"]), "the last scroll says the carousel was at its end", moved)
    back = await ok(session, "page_scroll", {"direction": "left", "ref": featured, "instant": True})
    check(back.structured_content["action"]["scrolled_px"] < 0 and back.structured_content["action"]["instant"] is True, "an instant scroll left moves it back at once", back.structured_content["action"])
    seen = set(re.findall(r"Caption (\d+)", text_of(nav)))
    for _ in range(12):
        answer = await ok(session, "page_scroll", {"direction": "down"})
        seen |= set(re.findall(r"Caption (\d+)", text_of(answer)))
    check(wait_detail("photos", 24, mark), "twelve scrolls load every lazy image", reported_since("photos", mark)[-1:])
    check(seen == {str(n) for n in range(1, 25)}, "every caption was shown on the way down, none skipped under the sticky header", sorted(seen, key=int))

    # A virtualized list removes the rows scrolled away: their refs are stale, the rows it
    # adds get refs an agent acts on.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/virtual.html"})
    mark = len(REPORTS)
    orders = ref_of(nav, "list", "Orders")
    early = ref_of(nav, "button", "Open order 2")
    for _ in range(4):
        answer = await ok(session, "page_scroll", {"direction": "down", "ref": orders})
    rows = reported_since("rows", mark)
    check(rows and rows[-1]["detail"][0] > 20, "four scrolls of the list render its later rows", rows[-1:])
    gone = await call(session, "page_action", {"ref": early, "op": "click"})
    check(gone.is_error and gone.structured_content["error"]["kind"] == "stale", "a removed row's ref is stale", text_of(gone))
    later = max(int(i["name"].split()[-1]) for i in items_of(answer) if i["name"].startswith("Open order "))
    await ok(session, "page_action", {"ref": ref_of(answer, "button", f"Open order {later}"), "op": "click"})
    check(wait_detail("opened", later, mark), "a row the list added is acted on by its new ref", REPORTS[mark:])

    nav = await ok(session, "page_navigate", {"url": f"{BASE}/long_article/index.html"})
    took = []
    for _ in range(6):
        started = time.monotonic()
        await call(session, "page_scroll", {"direction": "down"})
        took.append(time.monotonic() - started)
    print(f"SCROLL static: ms {sorted(round(t * 1000) for t in took)}", file=sys.stderr)

    # A drop target is a target: columns that accept drops (their own listeners, no role, no
    # tabindex) and a bin marked aria-dropeffect get refs; the board holding the cards does not.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/drop.html"})
    mark = len(REPORTS)
    names = [i["name"] for i in items_of(nav)]
    check(all(any(n == want for n in names) for want in ["To do", "In progress", "Done", "Trash"]), "every drop target has a ref, by its name", names)
    check(len(items_of(nav)) == 6, "nothing else has a ref: two cards, three columns, the bin", names)
    done = next(i["ref"] for i in items_of(nav) if i["name"] == "Done")
    card = re.search(r"\[ref=(e\d+)\]: Write report", text_of(nav)).group(1)
    await ok(session, "page_action", {"ref": card, "op": "drag", "to": done})
    check(wait_detail("moved", {"card": "Write report", "column": "Done"}, mark), "a card dragged onto a column by ref lands there", REPORTS[mark:])

    # A brief answer is the action and the lines that changed; an action that changed nothing says so.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/form.html"})
    brief = await ok(session, "page_fill", {"fields": [{"ref": ref_of(nav, "textbox", "Full name"), "value": "Grace Hopper"}], "brief": True})
    text = text_of(brief)
    check("### Changed lines" in text and "### Page" not in text, "a brief answer has no whole page", text)
    check("+ " in text and "Grace Hopper" in text and "Email" not in text, "a brief answer gives the changed line only", text)
    full = text_of(await ok(session, "page_snapshot", {}))
    check(len(text) < len(full) / 2, "a brief answer is shorter than the page", (len(text), len(full)))
    same = await ok(session, "page_action", {"ref": ref_of(nav, "textbox", "Full name"), "op": "focus"})
    check(same.structured_content["unchanged"] is True and "### Unchanged" in text_of(same), "an action that changed nothing says so", text_of(same))

    # page_wait: for a text (visible only after 2.5 s: hidden in the page before), for an element
    # to leave, for a delay; bounded, and exactly one of the three.
    nav = await ok(session, "page_navigate", {"url": f"{BASE}/actions/wait.html"})
    search = ref_of(nav, "button", "Search")
    mark = len(REPORTS)
    started = time.monotonic()
    clicked = await ok(session, "page_action", {"ref": search, "op": "click"})
    check("3 results found" not in text_of(clicked), "the results are not there right after the click", text_of(clicked))
    waited = await ok(session, "page_wait", {"text": "3 results found"})
    check(time.monotonic() - started >= 2.4, "the wait for a text lasts until it is visible", time.monotonic() - started)
    check(waited.structured_content["action"]["op"] == "wait", "page_wait's answer names the op wait", json.dumps(waited.structured_content["action"]))
    check("3 results found" in text_of(waited) and "snapshot" in waited.structured_content, "page_wait answers with the page showing the text", text_of(waited))
    check(wait_detail("results", 1, mark), "the results were shown when the wait ended", REPORTS[mark:])
    clicked = await ok(session, "page_action", {"ref": search, "op": "click"})
    check("Loading" in text_of(clicked), "a new search shows the spinner", text_of(clicked))
    gone = await ok(session, "page_wait", {"gone": ref_of(clicked, "button", "Cancel")})
    check("Loading" not in shown(gone) and "3 results found" in shown(gone), "page_wait for gone returns when the spinner has left", text_of(gone))
    check(wait_detail("results", 2, mark) and not reported_since("cancelled", mark), "the second search ended on its own", REPORTS[mark:])
    started = time.monotonic()
    await ok(session, "page_wait", {"ms": 300})
    check(time.monotonic() - started >= 0.3, "page_wait for ms waits that long", time.monotonic() - started)
    started = time.monotonic()
    await fails(session, "page_wait", {"text": "never appears"}, "wait-timeout")
    took = time.monotonic() - started
    check(5 <= took < 30, "a wait for a text that never comes ends, at its limit", took)
    await fails(session, "page_wait", {"text": "3 results found", "ms": 100}, "bad-argument")
    await fails(session, "page_wait", {"text": "3 results found", "gone": search}, "bad-argument")
    await fails(session, "page_wait", {}, "bad-argument")
    await fails(session, "page_wait", {"ms": 60000}, "bad-argument")

    # page_click_at: a real click at viewport CSS pixels, on what lies there.
    await ok(session, "page_navigate", {"url": f"{BASE}/actions/point.html"})
    mark = len(REPORTS)
    at = await ok(session, "page_click_at", {"x": 200, "y": 240})
    check(at.structured_content["action"].get("element") == 'button "Go"', "click_at names what was under the point", json.dumps(at.structured_content["action"]))
    check("snapshot" in at.structured_content, "click_at answers with the page", list(at.structured_content))
    check(wait_detail("clicked-go", lambda d: d["trusted"] and abs(d["x"] - 200) <= 1 and abs(d["y"] - 240) <= 1, mark), "a trusted click lands on Go at (200, 240)", REPORTS[mark:])
    check(quiet("clicked-stop", mark, 0), "nothing else was clicked", REPORTS[mark:])
    await fails(session, "page_click_at", {"x": 200}, "bad-argument")

    # A download (--download-dir): the click is answered once the file is saved there, and says where.
    await ok(session, "page_navigate", {"url": f"{BASE}/downloads.html"})
    snap = await ok(session, "page_snapshot", {})
    got = await ok(session, "page_action", {"ref": ref_of(snap, "link", "Get the report"), "op": "click"})
    told = got.structured_content.get("downloads", [])
    check(not got.structured_content["incomplete"], "a click that downloads is answered complete", got.structured_content.get("pending"))
    check(len(told) == 1 and told[0]["state"] == "saved" and told[0]["file"] == "report.csv", "the download is told as saved", told)
    saved = told[0].get("path", "") if told else ""
    check(os.path.dirname(saved) == downloads, "it was saved into --download-dir", (saved, downloads))
    check(os.path.isfile(saved) and open(saved, "rb").read() == REPORT_CSV, "the file saved is the one served", saved)
    check(f"saved as {saved}" in text_of(got), "the answer's text says where", text_of(got))


# A client that opens a session, starts a long call and says so (then is killed).
DOOMED = """
import asyncio, sys
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
async def main():
    async with streamable_http_client(sys.argv[1]) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("page_navigate", {"url": sys.argv[2]})
            call = asyncio.ensure_future(session.call_tool("page_wait", {"ms": 8000}))
            await asyncio.sleep(0.5)
            print("waiting", flush=True)
            await call
asyncio.run(main())
"""


async def sessions_apart(url):
    """Two HTTP sessions at once: each in its own browser context (cookies, storage, tabs, current tab),
    their calls side by side; a session's tab is no other session's to choose."""
    async with streamable_http_client(url) as (read_a, write_a), streamable_http_client(url) as (read_b, write_b):
        async with ClientSession(read_a, write_a) as a, ClientSession(read_b, write_b) as b:
            await asyncio.gather(a.initialize(), b.initialize())
            page = f"{BASE}/sessions/whoami.html"
            first_a, first_b = await asyncio.gather(
                ok(a, "page_navigate", {"url": page + "?set=alice"}),
                ok(b, "page_navigate", {"url": page + "?set=bob"}),
            )
            check("Cookie: alice" in text_of(first_a) and "Cookie: bob" in text_of(first_b), "each session sets its own cookie", (text_of(first_a), text_of(first_b)))
            again_a, again_b = await asyncio.gather(ok(a, "page_navigate", {"url": page}), ok(b, "page_navigate", {"url": page}))
            for name, seen, who in [("a", again_a, "alice"), ("b", again_b, "bob")]:
                check(f"Cookie: {who}" in text_of(seen) and f"Storage: {who}" in text_of(seen), f"session {name} keeps its own cookie and storage", text_of(seen))
            # Ten rounds of reads side by side: each shows the session's own page.
            await ok(b, "page_navigate", {"url": f"{BASE}/login/index.html"})
            for _ in range(10):
                snap_a, snap_b = await asyncio.gather(ok(a, "page_snapshot", {}), ok(b, "page_snapshot", {}))
                check("Who am I" in text_of(snap_a) and "Who am I" not in text_of(snap_b), "each read is the session's own page", (text_of(snap_a)[:200], text_of(snap_b)[:200]))
            tabs_a, tabs_b = await asyncio.gather(ok(a, "page_tabs", {"op": "list"}), ok(b, "page_tabs", {"op": "list"}))
            ids_a = [t["id"] for t in tabs_a.structured_content["tabs"]]
            ids_b = [t["id"] for t in tabs_b.structured_content["tabs"]]
            check(len(ids_a) == 1 and len(ids_b) == 1 and not set(ids_a) & set(ids_b), "each session lists only its own tab", (ids_a, ids_b))
            check(tabs_a.structured_content["context"] == "own", "page_tabs names the session's context", tabs_a.structured_content)
            await fails(b, "page_tabs", {"op": "select", "id": ids_a[0]}, "no-tab")
            await fails(b, "page_tabs", {"op": "close", "id": ids_a[0]}, "no-tab")
            still = await ok(a, "page_snapshot", {})
            check("Who am I" in text_of(still), "another session cannot close a session's tab", text_of(still)[:200])
            # A client killed mid-call (SIGKILL, no DELETE): the other sessions go on answering.
            doomed = subprocess.Popen([sys.executable, "-c", DOOMED, url, f"{BASE}/sessions/whoami.html?set=doomed"], stdout=subprocess.PIPE, text=True)
            check(doomed.stdout.readline().strip() == "waiting", "the doomed client is mid-call")
            time.sleep(0.3)
            doomed.kill()
            doomed.wait()
            after_a, after_b = await asyncio.gather(ok(a, "page_snapshot", {}), ok(b, "page_snapshot", {}))
            check("Who am I" in text_of(after_a) and "Who am I" not in text_of(after_b), "a client killed mid-call leaves the others answering", (text_of(after_a)[:200], text_of(after_b)[:200]))
    # A new session starts with nothing of theirs.
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as c:
            await c.initialize()
            fresh = await ok(c, "page_navigate", {"url": f"{BASE}/sessions/whoami.html"})
            check("Cookie: none" in text_of(fresh) and "Storage: none" in text_of(fresh), "a new session has no cookie or storage of earlier ones", text_of(fresh))
            tabs = await ok(c, "page_tabs", {"op": "list"})
            check(len(tabs.structured_content["tabs"]) == 1, "a new session sees only its own tab", tabs.structured_content)


def browser_of(server_pid):
    """The Chromium a server launched (its browser process, a child of the server)."""
    found = [pid for pid in pids() if parent(pid) == server_pid and os.path.basename(cmdline(pid).split(" ")[0]).startswith("chrom")]
    check(len(found) == 1, "the server runs one Chromium", [cmdline(p)[:100] for p in found])
    return found[0]


def profile_of(pid):
    found = re.search(r"--user-data-dir=(\S+)", cmdline(pid))
    check(found is not None, "the browser names its profile", cmdline(pid)[:200])
    return found.group(1)


RESTARTED = "the browser had crashed and was started again"


def heaviest_renderer(browser):
    """The renderer of `browser` holding the most memory: the one showing HEAVY."""
    def resident(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
        except OSError:
            return 0
    renderers = [pid for pid in descendants(browser) if "--type=renderer" in cmdline(pid)]
    found = max(renderers, key=resident, default=None)
    check(found is not None and resident(found) > 256 << 10, "the heavy page's renderer is found", renderers)
    return found


async def recovers(session, page, expected, note, bound):
    """The session's next calls after a fault: browser-gone at most once (the death noticed under the
    call), then the page opens in the new browser, within `bound` seconds in all; the answer that
    follows the restart carries `note`, once. Returns the seconds to the first good answer."""
    started = time.monotonic()
    told = 0
    failures = []
    for _ in range(3):
        result = await call(session, "page_navigate", {"url": page})
        told += note in everything(result)
        if not result.is_error:
            break
        failures.append(((result.structured_content or {}).get("error", {}).get("kind"), text_of(result)))
    took = time.monotonic() - started
    # One check whether or not the death was noticed under a call (it may be noticed before one), so
    # the count of checks does not depend on timing.
    check(all(kind == "browser-gone" for kind, _ in failures), "a call under the fault fails only as browser-gone", failures)
    check(not result.is_error and expected in text_of(result), "the page opens again after the fault", text_of(result)[:300])
    check(len(failures) <= 1, "browser-gone is answered at most once", failures)
    check(told == 1, "the recovery is told once", told)
    check(took < bound, f"recovered within {bound} s", f"{took:.1f} s")
    snap = await ok(session, "page_snapshot", {})
    check(expected in text_of(snap) and note not in everything(snap), "later calls work and say nothing more of it", text_of(snap)[:200])
    return took


def gone_within(pids_, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and set(pids_) & set(pids()):
        time.sleep(0.05)
    return not (set(pids_) & set(pids()))


class Proxy:
    """A TCP proxy in front of a DevTools endpoint; cut() closes every connection through it."""

    def __init__(self, target_port):
        self.target = target_port
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.open = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
            for a, b in [(client, upstream), (upstream, client)]:
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.open = []


def start_chromium(port, profile):
    chrome = subprocess.Popen(
        browser_command() + ["--window-size=1280,720", f"--remote-debugging-port={port}", f"--user-data-dir={profile}", "about:blank"],
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, tries=400)
    return chrome


async def crash(args, stderr):
    """Browser faults injected for real, each session recovering on its next call (issue 58)."""
    page = f"{BASE}/login/index.html"
    other = f"{BASE}/sessions/whoami.html?set=dora"
    port = free_port()
    server = subprocess.Popen([PAGESNAP] + args + ["--port", str(port)], stderr=stderr)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        wait_for_port(port, tries=400)
        async with streamable_http_client(url) as (read_a, write_a), streamable_http_client(url) as (read_b, write_b):
            async with ClientSession(read_a, write_a) as a, ClientSession(read_b, write_b) as b:
                await asyncio.gather(a.initialize(), b.initialize())
                await ok(a, "page_navigate", {"url": page})
                await ok(b, "page_navigate", {"url": other})
                # One session's tab crashes (its renderer SIGKILLed, as the OOM killer's pick): that
                # session's next call says tab-gone and it goes on in a new tab; the other session's
                # tab lives on, untouched, and is told nothing.
                await ok(a, "page_navigate", {"url": f"{BASE}/heavy.html"})
                tabs_b = (await ok(b, "page_tabs", {"op": "list"})).structured_content["tabs"]
                os.kill(heaviest_renderer(browser_of(server.pid)), signal.SIGKILL)
                # Until Chromium reports the crash an unchanged page's snapshot may still be its last
                # capture: asked again until it fails, within 5 s.
                deadline = time.monotonic() + 5
                while not (crashed := await call(a, "page_snapshot", {})).is_error and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                kind = (crashed.structured_content or {}).get("error", {}).get("kind")
                check(kind == "tab-gone", "the session whose renderer was killed is told tab-gone", text_of(crashed)[:300])
                still = await ok(b, "page_snapshot", {})
                check("Who am I" in text_of(still) and "crash" not in everything(still), "the other session's tab lives on, told nothing", text_of(still)[:300])
                after = (await ok(b, "page_tabs", {"op": "list"})).structured_content["tabs"]
                check([t["id"] for t in after] == [t["id"] for t in tabs_b], "the other session keeps its tab", (tabs_b, after))
                again = await ok(a, "page_navigate", {"url": page})
                check("Sign in" in text_of(again), "the session whose tab crashed opens a page again", text_of(again)[:300])
                # Killed (SIGKILL, as the OOM killer would): each session recovers on its next call.
                browser = browser_of(server.pid)
                family = descendants(browser) | {browser}
                profile = profile_of(browser)
                os.kill(browser, signal.SIGKILL)
                took_a = await recovers(a, page, "Sign in", RESTARTED, 15)
                took_b = await recovers(b, other, "Who am I", RESTARTED, 15)
                check(took_b < 5, "the second session finds the browser already started", f"{took_b:.1f} s")
                check(browser_of(server.pid) != browser, "a new browser runs")
                check(gone_within(family, 10), "no process of the killed browser is left", [cmdline(p)[:100] for p in family & set(pids())])
                check(not os.path.exists(profile), "the killed browser's profile is removed", profile)
                # Each session still browses in its own context after the restart.
                tabs_a, tabs_b = await asyncio.gather(ok(a, "page_tabs", {"op": "list"}), ok(b, "page_tabs", {"op": "list"}))
                ids_a = [t["id"] for t in tabs_a.structured_content["tabs"]]
                ids_b = [t["id"] for t in tabs_b.structured_content["tabs"]]
                check(len(ids_a) == 1 and len(ids_b) == 1 and not set(ids_a) & set(ids_b), "after the restart each session lists only its own tab", (ids_a, ids_b))
                # Stopped (SIGSTOP, as a hung browser): taken for dead within its pulse's bound, killed, started again.
                browser = browser_of(server.pid)
                family = descendants(browser) | {browser}
                os.kill(browser, signal.SIGSTOP)
                try:
                    took = await recovers(a, page, "Sign in", RESTARTED, 25)
                finally:
                    for pid in family & set(pids()):
                        try:
                            os.kill(pid, signal.SIGCONT)
                        except OSError:
                            pass
                check(gone_within(family, 10), "the stopped browser was killed", [cmdline(p)[:100] for p in family & set(pids())])
                await recovers(b, other, "Who am I", RESTARTED, 15)
                print(f"killed: {took_a:.2f} s and {took_b:.2f} s to the sessions' next pages; stopped: {took:.2f} s", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=20)
    # Attached: the test's browser killed, then started again on its port; and its DevTools socket cut.
    reconnected = "had ended and was made again"
    profile = tempfile.mkdtemp(prefix="pagesnap-crash-test-")
    cdp = free_port()
    chrome = start_chromium(cdp, profile)
    proxy = Proxy(cdp)
    try:
        params = StdioServerParameters(command=PAGESNAP, args=args + ["--cdp-endpoint", f"http://127.0.0.1:{proxy.port}"])
        async with stdio_client(params, errlog=stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await ok(session, "page_navigate", {"url": page})
                chrome.kill()
                chrome.wait()
                gone = await fails(session, "page_navigate", {"url": page}, "browser-gone")
                check(f"127.0.0.1:{proxy.port}" in text_of(gone) and "never starts a browser" in text_of(gone), "attached: the error names the endpoint and starts no browser of its own", text_of(gone))
                again = await fails(session, "page_snapshot", {}, "browser-gone")
                check("starting it again failed" in text_of(again), "attached: while the endpoint does not answer, each call says so at once", text_of(again))
                chrome = start_chromium(cdp, profile)
                back = await recovers(session, page, "Sign in", reconnected, 15)
                # The DevTools socket cut (the browser lives on): the connection is made again.
                proxy.cut()
                cut = await recovers(session, page, "Sign in", reconnected, 15)
                check(chrome.poll() is None, "attached: the browser lives on")
                print(f"attached: {back:.2f} s to the next page once the browser answers again; socket cut: {cut:.2f} s", file=sys.stderr)
    finally:
        chrome.kill()
        chrome.wait()
        shutil.rmtree(profile, ignore_errors=True)


async def reach(stderr):
    """pagesnap mcp reaches hosts other than loopback by default (this machine's name, which /etc/hosts
    resolves, stands for the web here); with --offline only 127.0.0.1 and localhost resolve, and the
    error says why and which flag lifts it."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<!doctype html><title>Reached</title><h1>Reached by name</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://{socket.gethostname()}:{server.server_address[1]}/"
    try:
        for extra, reached in [([], True), (["--offline"], False)]:
            params = StdioServerParameters(command=PAGESNAP, args=["mcp", "--timeout", "8"] + extra)
            async with stdio_client(params, errlog=stderr) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    if reached:
                        nav = await ok(session, "page_navigate", {"url": url})
                        check("Reached by name" in text_of(nav), "by default the server reaches a host by name", text_of(nav))
                    else:
                        refused = await fails(session, "page_navigate", {"url": url}, "navigation")
                        check("--offline" in text_of(refused) and "ERR_NAME_NOT_RESOLVED" in text_of(refused), "--offline: the error names the flag", text_of(refused))
    finally:
        server.shutdown()


def free_port():
    """A port nothing listens on at 127.0.0.1 (for a server or a browser of the test's to take)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, tries=200):
    """Until something listens on 127.0.0.1:port (at most tries × 50 ms)."""
    for _ in range(tries):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)


def opens(url):
    """The HTTP status of a new session's initialize (and its body)."""
    import urllib.error
    import urllib.request
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}}).encode()
    request = urllib.request.Request(url, method="POST", data=body, headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            session = answer.headers.get("mcp-session-id")
            if session:
                closing = urllib.request.Request(url, method="DELETE", headers={"mcp-session-id": session})
                urllib.request.urlopen(closing, timeout=10).close()
            return answer.status, ""
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


async def limits(stderr):
    """--max-sessions refuses a session beyond the limit, saying why, and frees a place when one ends
    (DELETE) or idles past --idle-timeout. (The idle clock runs during a call too — rmcp's session
    timer — so it is 5 s: at 2 s the first navigate, which starts Chromium, outlasted it on a loaded
    machine and the session was closed under it.)"""
    port = free_port()
    server = subprocess.Popen([PAGESNAP, "mcp", "--timeout", "8", "--port", str(port), "--max-sessions", "1", "--idle-timeout", "5"], stderr=stderr)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_port(port)
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as first:
                await first.initialize()
                await ok(first, "page_navigate", {"url": f"{BASE}/sessions/whoami.html"})
                status, body = opens(url)
                check(status == 503 and "--max-sessions 1" in body, "a session beyond --max-sessions is refused, saying why", (status, body))
                await ok(first, "page_snapshot", {})
        status, _ = opens(url)
        check(status == 200, "a place is free once the session ended", status)
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as idle:
                await idle.initialize()
                await ok(idle, "page_navigate", {"url": f"{BASE}/sessions/whoami.html"})
                check(opens(url)[0] == 503, "the open session holds the one place")
                time.sleep(6.5)
                status, body = opens(url)
                check(status == 200, "a session idle past --idle-timeout is closed and frees its place", (status, body))
                try:
                    await asyncio.wait_for(idle.call_tool("page_snapshot", {}), timeout=10)
                    late = "answered"
                except Exception as err:
                    late = repr(err)
                check(late != "answered", "the idle session is gone", late)
        check(server.poll() is None, "the server still runs")
    finally:
        server.terminate()
        server.wait(timeout=20)


async def policy(policy, stderr):
    """--dialogs accept|dismiss answers without the agent, as the flag says."""
    params = StdioServerParameters(command=PAGESNAP, args=["mcp", "--timeout", "8", "--dialogs", policy])
    async with stdio_client(params, errlog=stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            nav = await ok(session, "page_navigate", {"url": f"{BASE}/dialogs/editor.html"})
            clicked = await ok(session, "page_action", {"ref": ref_of(nav, "button", "Close editor"), "op": "click"})
            check(dialog_of(clicked) is None, f"--dialogs {policy}: no dialog is left for the agent", text_of(clicked))
            await fails(session, "page_dialog", {"accept": True}, "no-dialog")
    expected = {"accept": "discarded", "dismiss": "kept"}[policy]
    check(wait_reported(expected), f"--dialogs {policy}: the confirm was {policy}ed", REPORTS)


async def installed(session):
    tools = await session.list_tools()
    names = sorted(t.name for t in tools.tools)
    check(names == ["page_action", "page_back", "page_click_at", "page_dialog", "page_fill", "page_find", "page_navigate", "page_scroll", "page_snapshot", "page_tabs", "page_wait"], "installed: the eleven tools are listed", names)
    await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})
    snapshot = await ok(session, "page_snapshot", {})
    check("button \"Add item\"" in text_of(snapshot), "installed: the snapshot shows the page", text_of(snapshot)[:500])
    await ok(session, "page_action", {"ref": ref_of(snapshot, "textbox", "Item"), "op": "type", "value": "lamp"})
    added = await ok(session, "page_action", {"ref": ref_of(snapshot, "button", "Add item"), "op": "click"})
    check("lamp to fr" in text_of(added), "installed: the click ran the page's script", text_of(added)[:1500])


async def main():
    secrets_file = tempfile.NamedTemporaryFile("w", suffix=".env", delete=False)
    secrets_file.write("ORDER_CODE=order-code-7781\n")
    secrets_file.close()
    atexit.register(os.unlink, secrets_file.name)
    stderr = tempfile.TemporaryFile("w+")
    args = ["mcp", "--secrets", secrets_file.name, "--timeout", "8"]
    if MODE == "stdio":
        params = StdioServerParameters(command=PAGESNAP, args=args)
        async with stdio_client(params, errlog=stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await scenario(session, stderr)
        await reach(stderr)
    elif MODE == "http":
        port = free_port()
        server = subprocess.Popen([PAGESNAP] + args + ["--port", str(port)], stderr=stderr)
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            wait_for_port(port)
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await scenario(session, stderr)
            await sessions_apart(url)
            await limits(stderr)
            # A foreign Origin is refused (DNS rebinding), and the server keeps serving.
            import urllib.request
            request = urllib.request.Request(url, method="POST", data=b"{}", headers={"Origin": "http://evil.example", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
            try:
                urllib.request.urlopen(request, timeout=5)
                check(False, "a foreign Origin is refused")
            except urllib.error.HTTPError as err:
                check(err.code == 403, "a foreign Origin is refused with 403", err.code)
            check(server.poll() is None, "the server still runs after the refused request")
        finally:
            server.terminate()
            server.wait(timeout=20)
    elif MODE == "attach":
        profile = tempfile.mkdtemp(prefix="pagesnap-attach-test-")
        chrome = subprocess.Popen(
            browser_command() + ["--window-size=1280,720", "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
            stderr=subprocess.PIPE, text=True,
        )
        try:
            endpoint = None
            deadline = time.monotonic() + 30
            while endpoint is None and time.monotonic() < deadline:
                line = chrome.stderr.readline()
                found = re.search(r"DevTools listening on ws://([^/]+)/", line)
                if found:
                    endpoint = f"http://{found.group(1)}"
            check(endpoint is not None, "the test's Chromium listens")
            threading.Thread(target=chrome.stderr.read, daemon=True).start()
            import urllib.request
            tabs_before = [t["id"] for t in json.load(urllib.request.urlopen(endpoint + "/json/list")) if t["type"] == "page"]
            params = StdioServerParameters(command=PAGESNAP, args=args + ["--cdp-endpoint", endpoint])
            async with stdio_client(params, errlog=stderr) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await scenario(session, stderr, attached=True)
            time.sleep(0.5)
            check(chrome.poll() is None, "attached: the browser outlives the server")
            tabs_after = [t["id"] for t in json.load(urllib.request.urlopen(endpoint + "/json/list")) if t["type"] == "page"]
            check(set(tabs_before) <= set(tabs_after), "attached: the browser's own tab is left open", (tabs_before, tabs_after))
            # Over HTTP, a session's browser context (its tabs) closes when the session ends (DELETE, 200).
            port = free_port()
            server = subprocess.Popen([PAGESNAP] + args + ["--cdp-endpoint", endpoint, "--port", str(port)], stderr=stderr)
            try:
                wait_for_port(port)
                urls = lambda: [t["url"] for t in json.load(urllib.request.urlopen(endpoint + "/json/list")) if t["type"] == "page"]
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        await ok(session, "page_navigate", {"url": f"{BASE}/sessions/whoami.html?set=carol"})
                        check(any("whoami" in u for u in urls()), "the session's tab is open in the browser", urls())
                deadline = time.monotonic() + 10
                while any("whoami" in u for u in urls()) and time.monotonic() < deadline:
                    time.sleep(0.1)
                check(not any("whoami" in u for u in urls()), "the ended session's context and tab are closed", urls())
                check(set(tabs_before) <= set(t["id"] for t in json.load(urllib.request.urlopen(endpoint + "/json/list"))), "the browser's own tab is still open", urls())
            finally:
                server.terminate()
                server.wait(timeout=20)
        finally:
            chrome.kill()
            chrome.wait()
            shutil.rmtree(profile, ignore_errors=True)
    elif MODE == "dialogs":
        params = StdioServerParameters(command=PAGESNAP, args=args)
        async with stdio_client(params, errlog=stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await dialogs(session)
        REPORTS.clear()
        await policy("accept", stderr)
        REPORTS.clear()
        await policy("dismiss", stderr)
    elif MODE == "actions":
        # The upload folder holds the files the pages may get; beside it, one they may not.
        root = tempfile.mkdtemp(prefix="pagesnap-upload-test-")
        try:
            uploads = os.path.join(root, "uploads")
            os.mkdir(uploads)
            files = {
                "resume.pdf": b"%PDF-1.4\n% a one-page resume\n%%EOF\n",
                "photo.png": b"\x89PNG\r\n\x1a\n" + bytes(range(64)),
                "avatar.png": b"\x89PNG\r\n\x1a\n" + bytes(range(32)),
                "CV, final.pdf": b"%PDF-1.4\n%%EOF\n",
            }
            for name, data in files.items():
                with open(os.path.join(uploads, name), "wb") as f:
                    f.write(data)
            outside = os.path.join(root, "outside.txt")
            with open(outside, "w") as f:
                f.write("beside the upload folder, not in it\n")
            os.symlink(outside, os.path.join(uploads, "link.pdf"))
            downloads = os.path.join(root, "downloads")
            refused = subprocess.run([PAGESNAP, "mcp", "--download-dir", outside], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
            check(refused.returncode != 0 and f"--download-dir {outside}: not a folder" in refused.stderr, "a --download-dir that is a file is refused by name", refused.stderr)
            params = StdioServerParameters(command=PAGESNAP, args=["mcp", "--timeout", "8", "--upload-dir", uploads, "--download-dir", downloads])
            async with stdio_client(params, errlog=stderr) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await actions(session, uploads, files, downloads)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    elif MODE == "sigkill":
        port = free_port()
        server = subprocess.Popen([PAGESNAP] + args + ["--port", str(port)], stderr=stderr)
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            wait_for_port(port, tries=400)
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await ok(session, "page_navigate", {"url": f"{BASE}/form.html"})
            children = [pid for pid in pids() if parent(pid) == server.pid]
            browsers = [pid for pid in children if os.path.basename(cmdline(pid).split(" ")[0]).startswith("chrom")]
            check(len(browsers) == 1, "the server launched one Chromium", [cmdline(p)[:100] for p in children])
            family = descendants(browsers[0]) | {browsers[0]}
            check(len(family) >= 2, "Chromium runs helper processes", family)
        finally:
            server.kill()
            server.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and family & set(pids()):
            time.sleep(0.1)
        left = family & set(pids())
        check(not left, "no Chromium process outlives a SIGKILLed server", [cmdline(p)[:120] for p in left])
    elif MODE == "crash":
        await crash(args, stderr)
    elif MODE == "installed":
        import shlex
        command = shlex.split(PAGESNAP)
        params = StdioServerParameters(command=command[0], args=command[1:] + args)
        async with stdio_client(params, errlog=stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await installed(session)
    else:
        raise SystemExit(f"unknown mode {MODE}")
    stderr.seek(0)
    log = stderr.read()
    for secret in SECRETS + ["order-code-7781"]:
        check(secret not in log, "no secret in the server's stderr", secret)
    print(f"ok: {len(CHECKS)} checks ({MODE})")


asyncio.run(main())
