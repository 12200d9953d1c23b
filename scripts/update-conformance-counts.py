#!/usr/bin/env python3
"""Rewrites the Counts table of docs/prrte-conformance.md from its rows.

Each row's status is its last cell: `same`, `different on purpose (rule N: ...)` or `open`.
tests/sim/prrte_conformance_test.cpp checks the table against the rows; this keeps it so.
"""
import pathlib
import re
import sys

PAGE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "prrte-conformance.md"


def rules_text(rules):
    return ", ".join(f"rule {n}: {rules[n]}" for n in sorted(rules))


def main():
    text = PAGE.read_text()
    sections, order, section = {}, [], None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        if section == "Counts" or not re.match(r"^\| [SRJD]\d+ \|", line):
            continue
        status = line.rstrip().rstrip("|").rsplit(" | ", 1)[-1].strip()
        if section not in sections:
            sections[section] = {"same": 0, "open": 0, "rules": {}}
            order.append(section)
        counts = sections[section]
        m = re.match(r"different on purpose \(rule (\d)", status)
        if status.startswith("same"):
            counts["same"] += 1
        elif m:
            counts["rules"][int(m.group(1))] = counts["rules"].get(int(m.group(1)), 0) + 1
        elif status.startswith("open"):
            counts["open"] += 1
        else:
            sys.exit(f"{PAGE}: a row's status is none of same, different on purpose, open: {line[:80]}")
    rows, total = [], {"same": 0, "open": 0, "rules": {}}
    for name in order:
        c = sections[name]
        diff = sum(c["rules"].values())
        rows.append(f"| {name} | {c['same']} | {diff} ({rules_text(c['rules'])}) | {c['open']} | "
                    f"{c['same'] + diff + c['open']} |")
        total["same"] += c["same"]
        total["open"] += c["open"]
        for n, k in c["rules"].items():
            total["rules"][n] = total["rules"].get(n, 0) + k
    diff = sum(total["rules"].values())
    rows.append(f"| **total** | **{total['same']}** | **{diff}** ({rules_text(total['rules'])}) | "
                f"**{total['open']}** | **{total['same'] + diff + total['open']}** |")
    header = "| section | same | different on purpose | open | rows |\n|---|---|---|---|---|\n"
    start = text.index(header) + len(header)
    end = text.index("\n\n", start)
    text = text[:start] + "\n".join(rows) + text[end:]
    text = re.sub(r"The \d+ `open` rows are", f"The {total['open']} `open` rows are", text)
    PAGE.write_text(text)
    print(f"{PAGE.name}: {total['same']} same, {diff} different on purpose, {total['open']} open")


if __name__ == "__main__":
    main()
