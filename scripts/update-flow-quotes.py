#!/usr/bin/env python3
"""Brings the log lines docs/flow.md quotes up to date with the current build.

docs/flow.md teaches the flow with lines of real event logs, each from the run the page names
above it (`pmixflow sim ... --out NAME`); tests/sim/docs_quotes_test.cpp fails when one is not
a line of its run. When a change moves times by a few nanoseconds (a message grew, so it takes
longer on the wire) or adds a field, run this: every quote that no longer matches is replaced by
the line of its run that is the same event, found by everything but `t`, `latency` and `bytes`
(and by its kind, party and `corr` or `nspace` when it gained or lost a field), nearest in time.
A quote with `…` keeps its elisions: only its time is moved. A quote it cannot place is listed,
and the script exits 1: that one is for a person to read again.

    scripts/update-flow-quotes.py        (uses build/apps/pmixflow; PMIXFLOW_BUILD_DIR to change)

Review the change (`git diff docs/flow.md`) before committing: the prose around a quote may
name a time or a value it had.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "flow.md")
BINARY = os.path.join(os.environ.get("PMIXFLOW_BUILD_DIR", os.path.join(ROOT, "build")), "apps", "pmixflow")
NEAR_S = 0.01  # a quote is moved by at most this much time


def read_page(lines):
    """The runs the page makes (name -> scenario, '' for the demo) and its quotes (index, run)."""
    runs, quotes = {}, []
    current, block, lang, in_block = None, "", "", False
    for n, line in enumerate(lines):
        if line.startswith("```"):
            if in_block and lang == "sh":
                made = re.search(r"--out (\S+)", block)
                if made:
                    current = made.group(1)
                    scenario = re.search(r"--scenario \$PMIXFLOW/(\S+)", block)
                    runs[current] = scenario.group(1) if scenario else ""
                else:
                    read = re.search(r"(\w+)/events\.jsonl", block)
                    if read:
                        current = read.group(1)
            in_block, lang, block = not in_block, line[3:], ""
            continue
        if in_block:
            block += line + "\n"
            if line.startswith('{"t":'):
                quotes.append((n, current))
    return runs, quotes


def run_logs(runs, scratch):
    logs = {}
    for name, scenario in runs.items():
        out = os.path.join(scratch, name)
        args = [BINARY, "sim", "--out", out, "--quiet"] + (["--scenario", os.path.join(ROOT, scenario)] if scenario else [])
        subprocess.run(args, cwd=ROOT, check=True)
        with open(os.path.join(out, "events.jsonl")) as f:
            logs[name] = f.read().split("\n")
    return logs


def matches(quote, line):
    parts = quote.split("…")
    if len(parts) == 1:
        return quote == line
    return re.fullmatch(".*".join(re.escape(p) for p in parts), line, re.S) is not None


def parsed(line):
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and "t" in event else None


def same_event(a, b, strict):
    ignored = {"t", "latency", "bytes"}
    if strict:
        return {k: v for k, v in a.items() if k not in ignored} == {k: v for k, v in b.items() if k not in ignored}
    keys = ("ev", "who", "corr", "nspace", "to", "msg", "session")
    return all(a.get(k) == b.get(k) for k in keys)


def replacement(quote, log):
    """The run's line this quote now stands for, or None."""
    if "…" in quote:
        head = re.match(r'\{"t":([0-9.e-]+),(.*)$', quote, re.S)
        if not head:
            return None
        best = None
        for line in log:
            t = re.match(r'\{"t":([0-9.e-]+),', line)
            if not t:
                continue
            moved = '{"t":' + t.group(1) + "," + head.group(2)
            distance = abs(float(t.group(1)) - float(head.group(1)))
            if distance < NEAR_S and matches(moved, line) and (best is None or distance < best[0]):
                best = (distance, moved)
        return best[1] if best else None
    wanted = parsed(quote)
    if wanted is None:
        return None
    for strict in (True, False):
        best = None
        for line in log:
            event = parsed(line)
            if event is None or not same_event(wanted, event, strict):
                continue
            distance = abs(event["t"] - wanted["t"])
            if distance < NEAR_S and (best is None or distance < best[0]):
                best = (distance, line)
        if best:
            return best[1]
    return None


def main():
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"update-flow-quotes: no pmixflow at {BINARY}: build first (scripts/setup.sh)")
    with open(PAGE) as f:
        lines = f.read().split("\n")
    runs, quotes = read_page(lines)
    with tempfile.TemporaryDirectory() as scratch:
        logs = run_logs(runs, scratch)
    changed, lost = 0, []
    for n, run in quotes:
        log = logs.get(run, [])
        if any(matches(lines[n], line) for line in log):
            continue
        new = replacement(lines[n], log)
        if new is None:
            lost.append(f"docs/flow.md:{n + 1} (run '{run}'): {lines[n][:120]}")
            continue
        lines[n] = new
        changed += 1
    with open(PAGE, "w") as f:
        f.write("\n".join(lines))
    print(f"update-flow-quotes: {changed} quote(s) updated, {len(quotes) - changed - len(lost)} unchanged")
    for line in lost:
        print("  not placed, read it again:", line)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
