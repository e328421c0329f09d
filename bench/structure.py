"""The structure drawing's figures: floors, arrows, circles, upward arrows, layer-order breaks.

Reads every ``openrepro`` import of the source (inside functions and under ``TYPE_CHECKING`` too,
as ``tests/test_architecture.py`` counts them) into a graph of packages (a top-level module
counts as one), and the layer drawing of docs/design.md ("Shape of the code", the block after
**Layers.**: one row per line, top first, packages left to right). Prints:

* floors: packages on the longest chain of imports (A imports B imports C ... );
* arrows: pairs of packages where one imports the other;
* circles: groups of packages that import each other (strongly connected, more than one);
* upward arrows: imports of a package drawn on a higher row;
* layer-order breaks: imports, within a row, of a package drawn to the left;
* packages the drawing leaves out.

    .venv/bin/python bench/structure.py [--root .] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import defaultdict
from pathlib import Path


def modules(src: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in src.rglob("*.py"):
        parts = path.relative_to(src.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def package_graph(src: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules(src).items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                else:
                    targets = [node.module or ""]
                if targets[0] == "openrepro":  # from openrepro import x: x is the package
                    targets = [f"openrepro.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                parts = target.split(".")
                if parts[0] != "openrepro" or len(parts) < 2 or parts[1] == "__version__":
                    continue
                source = name.split(".")[1] if "." in name else name
                if parts[1] != source and source != "__main__":
                    graph[source].add(parts[1])
    return graph


def drawing(design: Path) -> list[list[str]]:
    text = design.read_text(encoding="utf-8")
    block = text[text.index("**Layers.**") :]
    block = block[block.index("```") + 3 :]
    block = block[: block.index("```")]
    rows = []
    for line in block.strip("\n").splitlines():
        names = re.split(r"\s{2,}", line.strip())
        row = [
            n.removesuffix("/").removesuffix(".py")
            for n in names
            if re.fullmatch(r"\w+(/|\.py)", n)
        ]
        if row:
            rows.append(row)
    return rows


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(set(graph) | {t for ts in graph.values() for t in ts}):
        if node not in index:
            visit(node)
    return found


def floors(graph: dict[str, set[str]], groups: list[list[str]]) -> int:
    """Packages on the longest chain (a circle counts as one floor)."""
    rep = {member: group[0] for group in groups for member in group}
    dag: dict[str, set[str]] = defaultdict(set)
    for a, targets in graph.items():
        for b in targets:
            if rep.get(a, a) != rep.get(b, b):
                dag[rep.get(a, a)].add(rep.get(b, b))
    memo: dict[str, int] = {}

    def depth(node: str) -> int:
        if node not in memo:
            memo[node] = 1 + max((depth(n) for n in dag.get(node, ())), default=0)
        return memo[node]

    nodes = set(dag) | {t for ts in dag.values() for t in ts}
    return max((depth(n) for n in nodes), default=0)


def figures(root: Path) -> dict[str, object]:
    graph = package_graph(root / "src" / "openrepro")
    rows = drawing(root / "docs" / "design.md")
    where = {name: (r, c) for r, row in enumerate(rows) for c, name in enumerate(row)}
    arrows = sorted((a, b) for a, ts in graph.items() for b in ts)
    groups = circles(graph)
    both = [(a, b) for a, b in arrows if a in where and b in where]
    up = [f"{a} -> {b}" for a, b in both if where[b][0] < where[a][0]]
    breaks = [
        f"{a} -> {b}" for a, b in both if where[a][0] == where[b][0] and where[b][1] < where[a][1]
    ]
    packages = set(graph) | {t for ts in graph.values() for t in ts}
    return {
        "floors": floors(graph, groups),
        "rows_drawn": len(rows),
        "arrows": len(arrows),
        "circles": groups,
        "upward_arrows": up,
        "layer_order_breaks": breaks,
        "not_drawn": sorted(packages - set(where)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = figures(args.root)
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return
    for key, value in out.items():
        shown = value if isinstance(value, int) else f"{len(value)}  {value}"  # type: ignore[arg-type]
        print(f"{key:20s} {shown}")


if __name__ == "__main__":
    main()
