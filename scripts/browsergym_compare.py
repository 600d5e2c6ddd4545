#!/usr/bin/env python3
"""Compare BrowserGym's AXTree text with pagesnap's views on MiniWoB++ tasks, through one model-free agent that reads only the goal and the view.

The agent ("token-overlap agent") is the same for every view:
  1. parse every line of the view: an element line gives (id, role, name); other lines are recognised
     as the view's text or structure, or not recognised ("parsed" = recognised lines / non-empty lines);
  2. typing goals (enter/type/fill/input plus a quoted value): fill each textbox not yet filled, in page
     order, with the quoted values in goal order (the last one repeated; "upper/lower case" applied);
  3. then click the element not yet clicked whose name (and role) shares a token with the targets: the
     goal's quoted phrases, or its words without the quoted values and stop words; ties go to the target
     that comes first in the goal, then to page order; an ordinal ("3rd") picks among equal matches;
  4. nothing left to do: the episode ends (counted as a failure unless BrowserGym's reward says success).
It acts only through BrowserGym's action strings (`click("bid")`, `fill("bid", "text")`), pagesnap refs
translated into bids through `obs["pagesnap_refs"]`.

Run with the venv that has BrowserGym (see packaging/pypi/python/pagesnap/browsergym.py):

    ~/.cache/pagesnap/browsergym-venv/bin/python scripts/browsergym_compare.py --tasks click-test,enter-text --seeds 1

Tokens are estimated as len(text)/4 (no tokenizer needed; the report says so).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import importlib.util
import json
import math
import os
import re
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The installed module (the wheel's) when there is one; else the repository's own.
if importlib.util.find_spec("pagesnap") is None:
    sys.path.insert(0, str(ROOT / "packaging" / "pypi" / "python"))

DEFAULT_TASKS = (
    "click-test,click-test-2,click-test-transfer,click-button,click-button-sequence,click-link,"
    "click-dialog,click-dialog-2,click-checkboxes,click-checkboxes-transfer,click-option,click-tab,"
    "click-tab-2-easy,click-widget,click-collapsible-nodelay,click-menu-2,focus-text,focus-text-2,"
    "enter-text,enter-text-2,enter-text-dynamic,enter-password,login-user,unicode-test"
)
AXTREE = "axtree"
STOP_WORDS = {
    "a",
    "an",
    "the",
    "and",
    "then",
    "on",
    "in",
    "into",
    "to",
    "of",
    "by",
    "for",
    "with",
    "from",
    "at",
    "click",
    "clicking",
    "select",
    "press",
    "find",
    "switch",
    "between",
    "close",
    "expand",
    "item",
    "labeled",
    "below",
    "above",
    "box",
    "text",
    "field",
    "fields",
    "input",
    "enter",
    "type",
    "all",
    "letters",
    "case",
    "upper",
    "lower",
    "both",
    "is",
    "it",
    "that",
    "this",
    "nothing",
    "focus",
    "your",
}
TEXTBOX_ROLES = {"textbox", "searchbox", "combobox", "spinbutton"}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


# -- parsing the views ---------------------------------------------------------------------------------


@dataclass
class Element:
    """One element line of a view."""

    id: str
    role: str
    name: str


_QUOTED = r'"(?:[^"\\]|\\.)*"'
_AX_ELEMENT = re.compile(
    r"^\t*\[(?P<id>[^\]]+)\] (?P<role>\S+) (?P<name>'(?:[^'\\]|\\.)*'|" + _QUOTED + r")(?P<rest>.*)$"
)
_AX_OTHER = re.compile(r"^\t*(?P<role>\S+) (?:'(?:[^'\\]|\\.)*'|" + _QUOTED + r")(?:, .*| value=.*)?$")
_ARIA_ELEMENT = re.compile(
    r"^\s*- (?P<role>[\w-]+)(?: (?P<name>"
    + _QUOTED
    + r"))?(?P<states>(?: \[[^\]=]+(?:=[^\]]*)?\])*?) \[ref=(?P<id>[^\]]+)\](?: \[[^\]]+\])*(?::(?P<content>.*))?$"
)
_ARIA_OTHER = re.compile(r"^\s*(?:- (?:/?[\w-]+)(?: " + _QUOTED + r")?(?: \[[^\]]+\])*(?::.*)?|# .*)$")
_FLAT_ELEMENT = re.compile(
    r"^\s*\*?\[(?P<id>\d+)\]<(?P<tag>[\w-]+)(?P<attrs>[^>]*?)(?:>(?P<text>.*?))?\s*/>$"
)
_FLAT_ID_LIKE = re.compile(r"^\s*\*?\[\d+\]<")
_STRUCT_ELEMENT = re.compile(
    r"^\s*- \*?\[(?P<id>[^\]]+)\] (?P<role>[\w-]+)(?: (?P<name>" + _QUOTED + r"))?(?P<rest>.*)$"
)
_STRUCT_OTHER = re.compile(
    r"^(?:[A-Z][\w ]*:.*|[a-z-]+:|\s*- [\w-]+(?: " + _QUOTED + r")?(?: .*)?|\s*- [A-Z][\w ]*:.*)$"
)


def _unquote(quoted: str | None) -> str:
    if not quoted:
        return ""
    try:
        value = json.loads(quoted) if quoted.startswith('"') else ast.literal_eval(quoted)
    except (ValueError, SyntaxError):
        value = quoted[1:-1]
    return str(value)


def _yaml_line(line: str) -> str:
    """An aria line whose item YAML single-quoted (`- 'cell "a: b"'`) written plain."""
    match = re.match(r"^(\s*- )'(.*)'(:?.*)$", line)
    if not match:
        return line
    return match.group(1) + match.group(2).replace("''", "'") + match.group(3)


def _flat_role(tag: str, attrs: str) -> str:
    kind = re.search(r"\btype=(\w+)", attrs)
    if tag == "input":
        kind_name = kind.group(1) if kind else "text"
        return {
            "checkbox": "checkbox",
            "radio": "radio",
            "submit": "button",
            "button": "button",
            "range": "slider",
            "number": "spinbutton",
        }.get(kind_name, "textbox")
    return {
        "a": "link",
        "textarea": "textbox",
        "select": "combobox",
        "li": "listitem",
        "option": "option",
        "img": "img",
    }.get(tag, tag)


def parse_view(view: str, text: str) -> tuple[list[Element], int, int]:
    """The view's element lines, how many non-empty lines were recognised, and how many there were."""
    elements: list[Element] = []
    recognised = total = 0
    unnamed: tuple[Element, int] | None = None
    for raw in text.splitlines():
        if not raw.strip():
            continue
        total += 1
        line = raw.rstrip()
        if view == AXTREE:
            depth = len(line) - len(line.lstrip("\t"))
            match = _AX_ELEMENT.match(line)
            other = None if match else _AX_OTHER.match(line)
            if match:
                elements.append(Element(match["id"], match["role"], _unquote(match["name"])))
                unnamed = (elements[-1], depth) if not elements[-1].name else None
            elif not other:
                continue
            elif unnamed and depth > unnamed[1] and other["role"] == "StaticText":
                # An unnamed element's text is the StaticText under it.
                unnamed[0].name = _unquote(line.strip()[len("StaticText ") :])
                unnamed = None
            elif depth <= (unnamed[1] if unnamed else -1):
                unnamed = None
        elif view == "aria":
            line = _yaml_line(line)
            match = _ARIA_ELEMENT.match(line)
            if match:
                # An unnamed element's text is what follows its colon (`- text [ref=e1]: nisl`).
                content = (match["content"] or "").strip()
                content = _unquote(content) if content[:1] in "\"'" and content else content
                elements.append(Element(match["id"], match["role"], _unquote(match["name"]) or content))
            elif not _ARIA_OTHER.match(line):
                continue
        elif view in ("flat", "som"):
            match = (
                _FLAT_ELEMENT.match(line)
                if view == "flat"
                else re.match(r"^\[(?P<id>\d+)\] (?P<role>[\w-]+)(?: (?P<name>" + _QUOTED + r"))?.*$", line)
            )
            if match and view == "flat":
                name = (match["text"] or "").strip() or _attr_name(match["attrs"])
                elements.append(Element(match["id"], _flat_role(match["tag"], match["attrs"]), name))
            elif match:
                elements.append(Element(match["id"], match["role"], _unquote(match["name"])))
            elif _FLAT_ID_LIKE.match(line):
                continue
        elif view == "structural":
            match = _STRUCT_ELEMENT.match(line)
            if match:
                elements.append(Element(match["id"], match["role"], _unquote(match["name"])))
            elif not _STRUCT_OTHER.match(line):
                continue
        else:
            match = re.search(r"\[ref=([^\]]+)\]", line)
            if match:
                elements.append(Element(match.group(1), "", line))
            else:
                continue
        recognised += 1
    return elements, recognised, total


def _attr_name(attrs: str) -> str:
    for key in ("aria-label", "title", "placeholder", "value", "alt"):
        match = re.search(key + r"=(\"[^\"]*\"|'[^']*'|\S+)", attrs)
        if match:
            return match.group(1).strip("\"'")
    return ""


# -- the agent -----------------------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class Agent:
    """The token-overlap agent: reads the goal and one view's elements, returns one action per step."""

    def __init__(self, goal: str) -> None:
        self.goal = goal
        self.quoted = re.findall(r'"([^"]+)"', goal)
        self.typing = bool(self.quoted) and bool(re.search(r"\b(enter|type|fill|input)\b", goal, re.I))
        if self.typing:
            rest = re.sub(r'"[^"]+"', " ", goal)
            self.targets = [t for t in _tokens(rest) if t not in STOP_WORDS]
        elif self.quoted:
            self.targets = [t for q in self.quoted for t in _tokens(q)]
        else:
            self.targets = [t for t in _tokens(goal) if t not in STOP_WORDS]
        ordinal = re.search(r"\b(\d+)(?:st|nd|rd|th)\b", goal) or re.search(
            r"\b(first|second|third|fourth|fifth)\b", goal, re.I
        )
        self.ordinal = None
        if ordinal:
            word = ordinal.group(1).lower()
            self.ordinal = int(word) if word.isdigit() else ORDINALS[word]
        self.targets = [t for t in self.targets if not re.fullmatch(r"\d+(st|nd|rd|th)", t)]
        self.filled: set = set()
        self.clicked: set = set()

    def _value(self, index: int) -> str:
        value = self.quoted[min(index, len(self.quoted) - 1)]
        if re.search(r"upper ?case", self.goal, re.I):
            value = value.upper()
        elif re.search(r"lower ?case", self.goal, re.I):
            value = value.lower()
        return value

    def act(self, elements: Sequence[Element]) -> tuple[str, ...] | None:
        """("fill", id, value), ("click", id), or None when nothing is left to do."""
        if self.typing:
            boxes = [e for e in elements if e.role.lower() in TEXTBOX_ROLES]
            for index, box in enumerate(boxes):
                if box.id not in self.filled:
                    self.filled.add(box.id)
                    return ("fill", box.id, self._value(index))
        best: list[tuple[int, int, Element]] = []
        for element in elements:
            if element.id in self.clicked or element.id in self.filled:
                continue
            name_tokens = set(_tokens(element.name))
            role = element.role.lower()
            positions = [i for i, t in enumerate(self.targets) if t in name_tokens or t == role]
            if not positions:
                continue
            strength = sum(
                2 if t in name_tokens else 1 for t in set(self.targets) if t in name_tokens or t == role
            )
            best.append((min(positions), -strength, element))
        if not best:
            return None
        best.sort(key=lambda item: (item[0], item[1]))
        first = [item for item in best if item[:2] == best[0][:2]]
        choice = first[0][2]
        if self.ordinal and len(first) >= self.ordinal:
            choice = first[self.ordinal - 1][2]
        self.clicked.add(choice.id)
        return ("click", choice.id)


# -- episodes --------------------------------------------------------------------------------------------


@dataclass
class Episode:
    """One episode's record."""

    task: str
    seed: int
    view: str
    success: bool = False
    reward: float = 0.0
    steps: int = 0
    tokens: list[float] = field(default_factory=list)
    parsed: list[float] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    action_errors: list[str] = field(default_factory=list)
    ended: str = ""
    error: str = ""
    seconds: float = 0.0


def miniwob_url() -> str:
    """MINIWOB_URL, else the `miniwob` package's pages (pip install --no-deps miniwob==1.1.0), else the
    unpacked copy in ~/.cache/pagesnap/miniwob-1.1.0."""
    if os.environ.get("MINIWOB_URL"):
        return os.environ["MINIWOB_URL"]
    spec = importlib.util.find_spec("miniwob")
    candidates = (
        [Path(p) / "html" / "miniwob" for p in (spec.submodule_search_locations or [])] if spec else []
    )
    candidates.append(Path.home() / ".cache" / "pagesnap" / "miniwob-1.1.0" / "miniwob" / "html" / "miniwob")
    for folder in candidates:
        if (folder / "click-test.html").exists():
            return folder.as_uri() + "/"
    raise SystemExit("no MiniWoB++ pages: set MINIWOB_URL or `pip install --no-deps miniwob==1.1.0`")


_LAUNCHER: Any = None


def _launcher() -> Any:
    global _LAUNCHER  # one launcher (one DevTools port) per worker process
    if _LAUNCHER is None:
        from pagesnap.browsergym import chromium_launcher

        _LAUNCHER = chromium_launcher()
        _LAUNCHER.prepare_playwright()
        # Its folder goes when the process ends: a pool's worker ends without atexit, with
        # multiprocessing's finalizers (the main process runs them at exit too).
        import multiprocessing.util

        multiprocessing.util.Finalize(None, _LAUNCHER.cleanup, exitpriority=10)
    return _LAUNCHER


def run_unit(task: str, view: str, seeds: Sequence[int], options: dict[str, Any]) -> list[Episode]:
    """Every seed of one task through one view, in one env."""
    import browsergym.miniwob  # noqa: F401 - registers the tasks
    import gymnasium as gym
    from browsergym.utils.obs import flatten_axtree_to_str
    from pagesnap.browsergym import PagesnapObservation

    launcher = _launcher()
    episodes: list[Episode] = []
    env = None
    try:
        env = gym.make(
            f"browsergym/miniwob.{task}", headless=True, pw_chromium_kwargs=launcher.pw_chromium_kwargs()
        )
        if view != AXTREE:
            env = PagesnapObservation(
                env,
                strategies=(view,),
                cdp_endpoint=launcher.cdp_endpoint,
                binary=options["pagesnap_bin"],
                observe_only=options["observe_only"],
            )
    except Exception as err:  # noqa: BLE001 - recorded, the run goes on
        return [Episode(task, seed, view, error=f"env: {type(err).__name__}: {err}") for seed in seeds]
    for seed in seeds:
        episode = Episode(task, seed, view)
        started = time.monotonic()
        try:
            obs, _ = env.reset(seed=seed)
            agent = Agent(obs["goal"])
            for _ in range(options["max_steps"]):
                text = (
                    flatten_axtree_to_str(obs["axtree_object"])
                    if view == AXTREE
                    else obs[PagesnapObservation.key(view)]
                )
                elements, recognised, total = parse_view(view, text)
                episode.tokens.append(len(text) / 4)
                episode.parsed.append(recognised / total if total else 1.0)
                if options["dump"]:
                    dump = Path(options["dump"]) / f"{task}-{seed}-{view}-{len(episode.tokens)}.txt"
                    dump.write_text(f"goal: {obs['goal']}\nelements: {elements}\n\n{text}", encoding="utf-8")
                choice = agent.act(elements)
                if choice is None:
                    episode.ended = "nothing to do"
                    break
                element_id = choice[1]
                if view != AXTREE:
                    if element_id not in obs["pagesnap_refs"]:
                        episode.action_errors.append(f"ref {element_id} has no bid")
                        continue
                    element_id = obs["pagesnap_refs"][element_id]
                action = (
                    f"click({json.dumps(element_id)})"
                    if choice[0] == "click"
                    else f"fill({json.dumps(element_id)}, {json.dumps(choice[2])})"
                )
                episode.actions.append(action)
                obs, reward, terminated, truncated, _ = env.step(action)
                episode.steps += 1
                episode.reward = float(reward)
                if obs.get("last_action_error"):
                    episode.action_errors.append(obs["last_action_error"][:200])
                if terminated or truncated:
                    episode.ended = "terminated" if terminated else "truncated"
                    break
            else:
                episode.ended = "max steps"
            episode.success = episode.reward > 0
        except Exception as err:  # noqa: BLE001 - recorded, the run goes on
            episode.error = f"{type(err).__name__}: {err}"
            if options["verbose"]:
                traceback.print_exc()
        episode.seconds = round(time.monotonic() - started, 2)
        print(
            f"[{view}] {task} seed {seed}: {'ok' if episode.success else 'FAIL'} reward={episode.reward} "
            f"steps={episode.steps} {episode.ended}{' error=' + episode.error if episode.error else ''} "
            f"({episode.seconds}s)",
            file=sys.stderr,
            flush=True,
        )
        episodes.append(episode)
    try:
        env.close()
    except Exception:  # noqa: BLE001 - a failed close must not lose the results
        pass
    return episodes


# -- report --------------------------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a success rate."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(episodes: Sequence[Episode], views: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for view in views:
        mine = [e for e in episodes if e.view == view]
        wins = sum(e.success for e in mine)
        low, high = wilson(wins, len(mine))
        tokens = [t for e in mine for t in e.tokens]
        parsed = [p for e in mine for p in e.parsed]
        rows.append(
            {
                "view": view,
                "episodes": len(mine),
                "successes": wins,
                "success_rate": wins / len(mine) if mine else 0.0,
                "wilson95": [low, high],
                "mean_tokens_per_step": sum(tokens) / len(tokens) if tokens else 0.0,
                "parsed": sum(parsed) / len(parsed) if parsed else 0.0,
                "steps": sum(e.steps for e in mine),
                "errors": sum(bool(e.error) for e in mine),
                "action_errors": sum(len(e.action_errors) for e in mine),
            }
        )
    return rows


def markdown(rows: Sequence[dict[str, Any]], episodes: Sequence[Episode], meta: dict[str, Any]) -> str:
    lines = [
        "# BrowserGym MiniWoB++: AXTree vs pagesnap views (token-overlap agent)",
        "",
        f"{meta['tasks']} tasks × {meta['seeds']} seeds, max {meta['max_steps']} steps, wall time {meta['seconds']:.0f} s"
        + (
            f" (partial: {meta['units_done']} of {meta['units']} episodes)"
            if meta["units_done"] < meta["units"]
            else ""
        )
        + ". "
        "Tokens: len(text)/4 (no tokenizer). parsed: share of the view's non-empty lines the agent's parser recognised.",
        "",
        "| view | success | 95% Wilson | mean tokens/step | parsed | steps | episode errors | action errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['view']} | {r['successes']}/{r['episodes']} ({r['success_rate']:.0%}) | "
            f"{r['wilson95'][0]:.2f}–{r['wilson95'][1]:.2f} | {r['mean_tokens_per_step']:.0f} | {r['parsed']:.1%} | "
            f"{r['steps']} | {r['errors']} | {r['action_errors']} |"
        )
    views = [r["view"] for r in rows]
    tasks = sorted({e.task for e in episodes}, key=lambda t: [e.task for e in episodes].index(t))
    lines += [
        "",
        "Successes per task:",
        "",
        "| task | " + " | ".join(views) + " |",
        "|---|" + "---|" * len(views),
    ]
    for task in tasks:
        cells = []
        for view in views:
            mine = [e for e in episodes if e.task == task and e.view == view]
            cells.append(
                f"{sum(e.success for e in mine)}/{len(mine)}"
                + (" (err)" if any(e.error for e in mine) else "")
            )
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument(
        "--tasks", default=DEFAULT_TASKS, help="comma-separated MiniWoB task names (default: %(default)s)"
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 per task (default: 3)")
    parser.add_argument(
        "--strategies",
        default="aria,flat,structural",
        help="pagesnap strategies compared with the AXTree (default: %(default)s)",
    )
    parser.add_argument("--no-axtree", action="store_true", help="leave BrowserGym's AXTree view out")
    parser.add_argument("--max-steps", type=int, default=8, help="steps per episode (default: 8)")
    parser.add_argument(
        "--out",
        default="browsergym-compare",
        help="folder for results.md and results.json (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="worker processes, each with its own browser (default: 1)"
    )
    parser.add_argument(
        "--pagesnap-bin", default=None, help="the pagesnap binary (default: $PAGESNAP_BIN, the wheel's, PATH)"
    )
    parser.add_argument(
        "--no-observe-only",
        action="store_true",
        help="do not pass --observe-only (for pagesnap builds without it)",
    )
    parser.add_argument("--dump", action="store_true", help="write every view the agent read to OUT/views/")
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of failed episodes")
    args = parser.parse_args(argv)

    os.environ["MINIWOB_URL"] = miniwob_url()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    views = ([] if args.no_axtree else [AXTREE]) + [
        s.strip() for s in args.strategies.split(",") if s.strip()
    ]
    seeds = list(range(args.seeds))
    options = {
        "max_steps": args.max_steps,
        "pagesnap_bin": args.pagesnap_bin,
        "observe_only": not args.no_observe_only,
        "verbose": args.verbose,
        "dump": str(Path(args.out) / "views") if args.dump else None,
    }
    if options["dump"]:
        Path(options["dump"]).mkdir(parents=True, exist_ok=True)
    # Seed-major: an interrupted run has every task and view for its first seeds.
    units = [(task, view, [seed]) for seed in seeds for task in tasks for view in views]
    print(
        f"{len(tasks)} tasks × {len(seeds)} seeds × {len(views)} views, MINIWOB_URL={os.environ['MINIWOB_URL']}",
        file=sys.stderr,
    )
    started = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {
        "tasks": len(tasks),
        "seeds": len(seeds),
        "max_steps": args.max_steps,
        "token_estimate": "len(text)/4",
        "agent": "token-overlap",
        "views": views,
        "task_names": tasks,
        "units": len(units),
    }
    episodes: list[Episode] = []

    def write(done: int) -> str:
        # Rewritten after every (task, view) so an interrupted run still leaves a report.
        meta["seconds"] = time.monotonic() - started
        meta["units_done"] = done
        rows = summarise(episodes, views)
        report = markdown(rows, episodes, meta)
        (out / "results.md").write_text(report, encoding="utf-8")
        (out / "results.json").write_text(
            json.dumps({"meta": meta, "summary": rows, "episodes": [asdict(e) for e in episodes]}, indent=1),
            encoding="utf-8",
        )
        return report

    if args.jobs <= 1:
        results: Any = (run_unit(task, view, unit_seeds, options) for task, view, unit_seeds in units)
        pool = None
    else:
        pool = concurrent.futures.ProcessPoolExecutor(args.jobs)
        columns = list(zip(*units))
        results = pool.map(run_unit, columns[0], columns[1], columns[2], [options] * len(units))
    try:
        for done, result in enumerate(results, start=1):
            episodes += result
            write(done)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    report = write(len(units))
    print(report)
    print(f"wrote {out / 'results.md'} and {out / 'results.json'} ({meta['seconds']:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
