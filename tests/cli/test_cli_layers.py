"""The CLI's layers, read from the package's own imports (every ``import``, also inside a
function): no module imports itself back through others, and only ``cli.py`` and ``commands/``
import from ``commands/`` (a command sits on top; nothing below calls up into one)."""
from __future__ import annotations

import ast
from pathlib import Path

import hookmux

PACKAGE = Path(hookmux.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = ["hookmux", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py") if "_tree" not in path.parts}


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports: ``from hookmux.x import y`` names hookmux.x.y when
    that is a module, else hookmux.x."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            out |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
    return {module for module in out if module in modules and module != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_reader_sees_the_imports_that_matter():
    graph = _graph()
    assert "hookmux.matchers" in graph["hookmux.validation"]
    assert "hookmux.installer.plan" in graph["hookmux.commands.install"]
    assert "hookmux.validation" in graph["hookmux.installer.apply"]  # a function-level import
    assert "hookmux.serve.probe" in graph["hookmux.installer.inspect"]  # a function-level import


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_nothing_below_the_commands_imports_them():
    allowed = ("hookmux.cli", "hookmux.__main__", "hookmux.commands")
    upward = sorted(f"{name} -> {module}" for name, imports in _graph().items()
                    if name not in allowed and not name.startswith("hookmux.commands.")
                    for module in imports if module == "hookmux.commands" or module.startswith("hookmux.commands."))
    assert upward == []


def test_the_installer_never_imports_adopt():
    upward = sorted(f"{name} -> {module}" for name, imports in _graph().items() if name.startswith("hookmux.installer")
                    for module in imports if module.startswith("hookmux.adopt"))
    assert upward == []
