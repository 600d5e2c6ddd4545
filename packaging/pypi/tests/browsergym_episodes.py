"""The installed wheel inside BrowserGym: the same episodes with and without pagesnap observing, judged by BrowserGym.

Run by scripts/test-packages from outside the repository, with the venv the wheel and the pinned BrowserGym
packages were installed into (`python browsergym_episodes.py`). For each task and seed, one episode is played
twice by the same scripted policy reading BrowserGym's own AXTree: once on BrowserGym alone, once wrapped in
`PagesnapObservation` (pagesnap attached, `--observe-only`). BrowserGym's reward, its AXTree text at every step
and its last action error must be the same both times: pagesnap changed nothing. A third run acts only on what
pagesnap showed: the ref of the goal's element in the `aria` view, translated into BrowserGym's bid by the
wrapper, must earn the reward. Exits 1 naming the task, seed and step that differed.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym

import browsergym.miniwob  # noqa: F401  (registers browsergym/miniwob.*)
from browsergym.utils.obs import flatten_axtree_to_str
from pagesnap.browsergym import PagesnapObservation, chromium_launcher

# Tasks whose target a policy finds by the goal's quoted words: a click, and a typed value then a click.
TASKS = ("click-test", "click-button", "enter-text")
SEEDS = (0,)
# MiniWoB++'s own header counts seconds down; it is the page's clock, not an effect of pagesnap.
CLOCK = re.compile(r"Time left: \S+")

Policy = Callable[[str, str], "list[str]"]


def miniwob_url() -> str:
    """The `miniwob` package's pages as BrowserGym's MINIWOB_URL."""
    spec = importlib.util.find_spec("miniwob")
    for folder in spec.submodule_search_locations or [] if spec else []:
        pages = Path(folder) / "html" / "miniwob"
        if (pages / "click-test.html").exists():
            return pages.as_uri() + "/"
    sys.exit("browsergym_episodes: the miniwob package (1.1.0) is not installed in this venv")


def target_words(goal: str) -> str:
    """The goal's quoted phrase (its first): the value to type, or the button to click. click-test's goal
    quotes nothing: its one button is "Click Me!"."""
    quoted = re.findall(r'"([^"]+)"', goal)
    return quoted[0] if quoted else "Click Me!"


def bid_named(axtree: str, role: str, name: str) -> str | None:
    """The bid of the first `role` whose name is `name` in BrowserGym's flattened AXTree."""
    for line in axtree.splitlines():
        match = re.match(r"\s*\[(\w+)\] (\w+) '(.*)'", line)
        if match and match.group(2) == role and match.group(3) == name:
            return match.group(1)
    return None


def axtree_policy(goal: str, axtree: str) -> list[str]:
    """BrowserGym actions for the goal, read from BrowserGym's AXTree."""
    if goal.lower().startswith(("enter", "type")):
        box = next(re.finditer(r"\[(\w+)\] textbox", axtree), None)
        submit = bid_named(axtree, "button", "Submit")
        if box is None or submit is None:
            return []
        return [f'fill("{box.group(1)}", "{target_words(goal)}")', f'click("{submit}")']
    bid = bid_named(axtree, "button", target_words(goal))
    return [f'click("{bid}")'] if bid else []


def ref_named(aria: str, role: str, name: str) -> str | None:
    """The ref of the first `role "name"` in pagesnap's aria view."""
    for line in aria.splitlines():
        match = re.match(r'\s*- (\w+) "(.*)" \[ref=(e\d+)\]', line)
        if match and match.group(1) == role and match.group(2) == name:
            return match.group(3)
    return None


def aria_policy(goal: str, aria: str) -> list[str]:
    """The same actions, read from pagesnap's aria view (its refs, which the wrapper translates)."""
    if goal.lower().startswith(("enter", "type")):
        box = re.search(r"- textbox.*\[ref=(e\d+)\]", aria)
        submit = ref_named(aria, "button", "Submit")
        if box is None or submit is None:
            return []
        return [f'fill("{box.group(1)}", "{target_words(goal)}")', f'click("{submit}")']
    ref = ref_named(aria, "button", target_words(goal))
    return [f'click("{ref}")'] if ref else []


# One launcher (one DevTools port) for the process: BrowserGym starts a browser at each reset, on it.
LAUNCHER = chromium_launcher()
# Its script's folder goes with the process (every episode's browser is closed by then).
atexit.register(LAUNCHER.cleanup)
LAUNCHER.prepare_playwright()


def play(task: str, seed: int, pagesnap: bool, by_pagesnap: bool = False) -> dict[str, Any]:
    """One episode: its reward, BrowserGym's AXTree text at each step (clock masked), its action errors."""
    launcher = LAUNCHER
    env: Any = gym.make(
        f"browsergym/miniwob.{task}",
        headless=True,
        pw_chromium_kwargs=launcher.pw_chromium_kwargs(),
    )
    if pagesnap:
        env = PagesnapObservation(
            env,
            strategies=("aria", "flat"),
            cdp_endpoint=launcher.cdp_endpoint,
            translate_actions=by_pagesnap,
        )
    try:
        obs, _ = env.reset(seed=seed)
        axtrees, errors, reward, done = [], [], 0.0, False
        axtree = flatten_axtree_to_str(obs["axtree_object"])
        axtrees.append(CLOCK.sub("Time left: -", axtree))
        if pagesnap and not obs["pagesnap_aria"].strip():
            raise AssertionError(f"{task} seed {seed}: pagesnap's aria view is empty")
        actions = aria_policy(obs["goal"], obs["pagesnap_aria"]) if by_pagesnap else axtree_policy(obs["goal"], axtree)
        if not actions:
            raise AssertionError(f"{task} seed {seed}: the policy found no target for {obs['goal']!r}")
        for action in actions:
            if done:
                break
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            axtrees.append(CLOCK.sub("Time left: -", flatten_axtree_to_str(obs["axtree_object"])))
            errors.append(obs["last_action_error"])
        return {"reward": float(reward), "axtrees": axtrees, "errors": errors, "actions": actions}
    finally:
        env.close()


def main() -> int:
    os.environ.setdefault("MINIWOB_URL", miniwob_url())
    started = time.monotonic()
    failed = 0
    for task in TASKS:
        for seed in SEEDS:
            alone = play(task, seed, pagesnap=False)
            observed = play(task, seed, pagesnap=True)
            acted = play(task, seed, pagesnap=True, by_pagesnap=True)
            checks = [
                ("reward", alone["reward"], observed["reward"]),
                ("action errors", alone["errors"], observed["errors"]),
                ("steps", len(alone["axtrees"]), len(observed["axtrees"])),
            ]
            checks += [
                (f"AXTree at step {step}", a, b)
                for step, (a, b) in enumerate(zip(alone["axtrees"], observed["axtrees"]))
            ]
            for what, a, b in checks:
                if a != b:
                    failed += 1
                    print(f"{task} seed {seed}: {what} differs with pagesnap observing:\n{a}\n---\n{b}", file=sys.stderr)
            if alone["reward"] <= 0:
                failed += 1
                print(f"{task} seed {seed}: the AXTree policy earned {alone['reward']}", file=sys.stderr)
            if acted["reward"] <= 0:
                failed += 1
                print(
                    f"{task} seed {seed}: acting on pagesnap's refs {acted['actions']} earned {acted['reward']}"
                    f" (errors {acted['errors']})",
                    file=sys.stderr,
                )
            print(
                f"{task} seed {seed}: reward {alone['reward']:.2f} alone, {observed['reward']:.2f} observed,"
                f" {acted['reward']:.2f} on pagesnap's refs",
                file=sys.stderr,
            )
    print(f"browsergym_episodes: {len(TASKS) * len(SEEDS)} episodes × 3 in {time.monotonic() - started:.0f} s,"
          f" {failed} failed checks", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
