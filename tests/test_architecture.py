"""The code's shape (docs/design.md, "Shape of the code"), checked on the source itself.

Every import counts, including imports inside functions and under ``TYPE_CHECKING``: an import
moved into a function still ties the two modules together, it only hides the tie.
"""

from __future__ import annotations

import ast
import inspect
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import openrepro
import openrepro.errors

SRC = Path(openrepro.__file__).parent


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for every ``openrepro`` import of a module."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "openrepro":
                yield module, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "openrepro":
                    yield alias.name, [], node.lineno


def _resolve(module: str) -> str:
    while module not in MODULES and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def _module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in MODULES.items():
        for module, names, _ in _imports(name, path):
            targets = [f"{module}.{n}" if f"{module}.{n}" in MODULES else module for n in names]
            for target in targets or [module]:
                target = _resolve(target)
                if target != name:
                    graph[name].add(target)
    return graph


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(set(graph) | {t for ts in graph.values() for t in ts}):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    """The finder itself: a two-package circle and a three-module circle are found."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"x": {"y"}, "y": {"z"}, "z": {"x"}}) == [["x", "y", "z"]]
    assert _cycles({"x": {"y"}, "y": {"z"}}) == []


def test_no_import_cycle_between_packages() -> None:
    packages: dict[str, set[str]] = defaultdict(set)
    for source, targets in _module_graph().items():
        for target in targets:
            if _package(source) != _package(target):
                packages[_package(source)].add(_package(target))
    assert _cycles(packages) == [], "packages import each other (arrows must point one way)"


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(_module_graph()) == []


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_used_across_packages() -> None:
    offenders = []
    for name, path in MODULES.items():
        for module, names, line in _imports(name, path):
            if _package(_resolve(module)) == _package(name):
                continue
            private = [n for n in [*names, *module.split(".")] if _private(n)]
            if private:
                offenders.append(f"{path.relative_to(SRC)}:{line}: {module} {private}")
    assert offenders == []


def test_no_dynamic_import_of_own_modules() -> None:
    """openrepro's packages ship together: none probes for another with importlib."""
    offenders = []
    for _name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("import_module", "find_spec")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("openrepro")
            ):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_every_error_class_lives_in_errors() -> None:
    """One exception tree: every OpenReproError subclass is defined in openrepro/errors.py and
    carries its exit code and HTTP status."""
    defined_elsewhere = []
    for name, path in MODULES.items():
        if name == "openrepro.errors":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id.endswith("Error") for b in node.bases
            ):
                defined_elsewhere.append(f"{path.relative_to(SRC)}: {node.name}")
    assert defined_elsewhere == []
    classes = [
        c
        for _, c in inspect.getmembers(openrepro.errors, inspect.isclass)
        if issubclass(c, openrepro.errors.OpenReproError)
    ]
    assert sorted(c.__name__ for c in classes) == sorted(openrepro.errors.__all__)
    for cls in classes:
        assert 100 <= cls.http_status < 600 and cls.exit_code > 0, cls.__name__


def test_fixed_vocabularies_are_defined_once() -> None:
    """VERDICTS and PROVENANCE_LEVELS are assigned in openrepro/vocabulary.py only (migrations
    keep the historical copies they were written with)."""
    assigned: dict[str, list[str]] = defaultdict(list)
    for name, path in MODULES.items():
        if ".migrations." in name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (
                [node.target]
                if isinstance(node, ast.AnnAssign)
                else node.targets
                if isinstance(node, ast.Assign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("VERDICTS", "PROVENANCE_LEVELS"):
                    assigned[target.id].append(name)
    assert dict(assigned) == {
        "VERDICTS": ["openrepro.vocabulary"],
        "PROVENANCE_LEVELS": ["openrepro.vocabulary"],
    }
