#!/usr/bin/env python3
"""Draws the crate's imports from its `use` lines: which layer imports
which, any import that runs upward (against the table of src/lib.rs), and
any circle of files. Test modules are left out. Exit status 1 if there is
an upward import or a circle.

    python3 tools/layers.py          # the table, then the findings
"""

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

# Each layer and the layers it may import (src/lib.rs, docs/architecture.md).
ALLOWED = {
    "rules": set(),
    "peers": set(),
    "store": {"rules"},
    "reason": {"rules"},
    "engine": {"rules"},
    "analysis": {"engine", "rules", "peers"},
    "games": {"store", "analysis", "engine", "reason", "rules"},
}
ALLOWED["players"] = {"games"} | ALLOWED["games"]
ALLOWED["api"] = {"players"} | ALLOWED["players"] | {"peers"}
ALLOWED["lichess"] = {"api"} | ALLOWED["api"]
ALLOWED["server"] = {"lichess"} | ALLOWED["lichess"]
ALLOWED["cli"] = {"server"} | ALLOWED["server"]
# `with_game!` is the rules' macro, exported at the crate root.
MACROS = {"with_game": "rules"}


def code_of(path):
    """The file's text before its test module."""
    return path.read_text().split("#[cfg(test)]")[0]


def module_path(path):
    """`src/games/model/play.rs` -> ["games", "model", "play"]."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return parts


def file_of(parts):
    """The file of module `parts`, or of the longest prefix that has one."""
    for n in range(len(parts), 0, -1):
        base = SRC.joinpath(*parts[:n])
        for candidate in (base.with_suffix(".rs"), base / "mod.rs"):
            if candidate.exists():
                return candidate
    return None


def use_paths(text):
    """Every path a `use` line or a `crate::`/`super::` mention names."""
    paths = []
    for body in re.findall(r"\buse\s+((?:crate|super|self)::[^;]*);", text, re.S):
        paths.extend(expand(re.sub(r"\s+", "", body)))
    paths.extend(re.findall(r"(?<![\w:])((?:crate|super)(?:::\w+)+)", text))
    return paths


def expand(body):
    """`a::{b, c::{d}}` -> ["a::b", "a::c::d"]."""
    m = re.match(r"^(.*?)::\{(.*)\}$", body)
    if not m:
        return [body]
    out, depth, current = [], 0, ""
    for ch in m.group(2) + ",":
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            if current and current != "self":
                out.extend(expand(m.group(1) + "::" + current))
            current = ""
        else:
            current += ch
    return out


def resolve(path, here):
    """The module parts `path` names, seen from module `here`."""
    segments = path.split("::")
    if segments[0] == "crate":
        return segments[1:]
    base = list(here)
    if segments[0] == "self":
        segments = segments[1:]
    while segments and segments[0] == "super":
        base = base[:-1]
        segments = segments[1:]
    return base + segments


def main():
    files = sorted(p for p in SRC.rglob("*.rs") if "bin" not in p.parts)
    layer_deps, upward, edges = {}, [], {}
    for path in files:
        parts = module_path(path)
        if not parts or parts[0] in ("lib", "main"):
            continue
        layer = parts[0]
        is_mod = path.name == "mod.rs"
        for used in use_paths(code_of(path)):
            target = resolve(used, parts)
            if not target:
                continue
            top = MACROS.get(target[0], target[0])
            if top != layer and top in ALLOWED:
                layer_deps.setdefault(layer, set()).add(top)
                if top not in ALLOWED.get(layer, set()):
                    upward.append(f"{path.relative_to(SRC.parent)} -> {top} ({used})")
            dest = file_of(target)
            if dest and dest != path and not (is_mod and dest.parent == path.parent):
                edges.setdefault(path, set()).add(dest)
    print("| layer | imports |")
    print("|---|---|")
    for layer in ALLOWED:
        print(f"| {layer} | {', '.join(sorted(layer_deps.get(layer, []))) or '-'} |")
    circles = strongly_connected(edges)
    for line in upward:
        print(f"upward: {line}")
    for circle in circles:
        print("circle: " + ", ".join(str(p.relative_to(SRC.parent)) for p in sorted(circle)))
    if not upward and not circles:
        print("no upward import, no circle")
    return 1 if upward or circles else 0


def strongly_connected(edges):
    """The circles of the file graph (Tarjan), a module's `mod.rs` and its
    children left out: a folder's root declares them."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w.name == "mod.rs" and v.is_relative_to(w.parent):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(group)

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
