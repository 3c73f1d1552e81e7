"""Does a check's source try to block? Read from its AST, never by running it.

A dispatcher row only advises: the dispatcher drops a row's exit status and every
permission decision it prints. A check written as a blocking hook — ``sys.exit(2)``,
``raise SystemExit(2)``, a printed ``permissionDecision``, ``"decision": "block"`` or
``"continue": false`` — loses its block silently there, so ``hookmux validate`` warns about it.
"""
from __future__ import annotations

import ast
from pathlib import Path

ADVICE = "the dispatcher only advises: wire a check that must block as a standalone hook (docs/authoring.md)"


def _is_exit_call(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Name):
        return func.id in ("exit", "quit", "SystemExit")
    if isinstance(func, ast.Attribute):
        return func.attr in ("exit", "_exit") and isinstance(func.value, ast.Name) and func.value.id in ("sys", "os")
    return False


def _constant(node) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def reasons(source: str) -> list[str]:
    """What in ``source`` tries to block, one phrase per kind found (empty: nothing)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[str] = []

    def note(text: str) -> None:
        if text not in found:
            found.append(text)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_exit_call(node) and node.args and _constant(node.args[0]) == 2:
            note("exits 2")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "permissionDecision" in node.value:
                note("prints a permissionDecision")
            if '"decision": "block"' in node.value or '"decision":"block"' in node.value:
                note('prints "decision": "block"')
        elif isinstance(node, ast.Dict):
            pairs = {_constant(k): _constant(v) for k, v in zip(node.keys, node.values) if k is not None}
            if pairs.get("decision") == "block":
                note('prints "decision": "block"')
            if "continue" in pairs and pairs["continue"] is False:
                note('prints "continue": false')
    return found


def script_reasons(path: Path) -> list[str]:
    try:
        return reasons(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []
