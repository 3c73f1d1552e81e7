"""Can a check's source block? Read from its AST, never by running it: the one answer, used by
``hookmux validate`` (and so ``new-check``, which validates) for its warnings and by
``hookmux adopt`` (a hook that can block stays a standalone hook).

A dispatcher row only advises: the dispatcher drops a row's exit status and every decision it
prints. A check can block when it can exit 2 (a literal, through a variable or ``main()``'s
return, or a status computed at run time), or emits a decision key (``permissionDecision``,
``decision``, ``updatedInput``, ...) or ``"continue": false``, as data or as JSON text.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

from hookmux.pysource import Source, const

ADVICE = "the dispatcher only advises: wire a check that must block as a standalone hook (docs/authoring.md)"
# Keys of a hook's JSON output that decide or steer; the dispatcher passes on additionalContext only.
DECISION_KEYS = {"permissionDecision", "decision", "updatedInput", "stopReason", "behavior"}
_DECISION_TEXT = re.compile(r'"(permissionDecision|decision|updatedInput)"\s*:|"continue"\s*:\s*false')
EXIT_CALLS = {"sys.exit", "builtins.exit", "builtins.quit", "SystemExit"}


class Block(NamedTuple):
    node: ast.AST
    phrase: str  #: validate's short form: "exits 2", "prints a permissionDecision", ...
    reason: str  #: adopt's sentence


def reasons(source: str) -> list[str]:
    """What in ``source`` tries to block, one phrase per kind found (empty: nothing)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return list(dict.fromkeys(block.phrase for block in blocks(Source(tree))))


def script_reasons(path: Path) -> list[str]:
    try:
        return reasons(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def blocks(source: Source) -> list[Block]:
    """Every place the file can block: its output first, then its exits."""
    return _output_blocks(source) + _exit_blocks(source)


def _phrase(key: str, value=None) -> str:
    if key == "permissionDecision":
        return "prints a permissionDecision"
    if key == "continue":
        return 'prints "continue": false'
    return 'prints "decision": "block"' if key == "decision" and value == "block" else f'prints "{key}"'


def _output_blocks(source: Source) -> list[Block]:
    out = []
    for node in ast.walk(source.tree):
        for key, value in stored_keys(source, node):
            if key in DECISION_KEYS:
                out.append(Block(node, _phrase(key, const(value)),
                                 f"emits {key!r}: a decision, and the dispatcher only advises"))
            elif key == "continue" and const(value, missing=object()) is not True:
                out.append(Block(node, _phrase(key),
                                 "emits 'continue': False (stops the session); the dispatcher only advises"))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = _DECISION_TEXT.search(node.value)
            if found:
                key = found.group(1) or "continue"
                value = "block" if key == "decision" and re.search(r'"decision"\s*:\s*"block"', node.value) else None
                out.append(Block(node, _phrase(key, value), "prints a decision as JSON text; the dispatcher only advises"))
            elif node.value in DECISION_KEYS and not _read_only_key(source, node):
                out.append(Block(node, _phrase(node.value),
                                 f"names the output key {node.value!r} (a decision); the dispatcher only advises"))
    return out


def _exit_blocks(source: Source) -> list[Block]:
    out = []
    for call in ast.walk(source.tree):
        if not isinstance(call, ast.Call) or source.qual(call.func) not in EXIT_CALLS | {"os._exit"}:
            continue
        if not call.args:
            continue
        values = source.values(call.args[0], depth=0)
        if values is None:
            out.append(Block(call, "may exit 2 (a status computed at run time)",
                             "exits with a status computed at run time (it may be 2)"))
        elif any(v == 2 and not isinstance(v, bool) for v in values):
            out.append(Block(call, "exits 2", "can exit 2 (blocks the tool call); the dispatcher only advises"))
    return out


def _read_only_key(source: Source, node: ast.Constant) -> bool:
    """The key is only looked up (``d.get("decision")``, ``d["decision"]``, a comparison), or
    is a dict key already judged by its value."""
    parent = source.parents.get(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and \
            parent.func.attr in ("get", "pop") and parent.args and parent.args[0] is node:
        return True
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
        return True
    if isinstance(parent, ast.Dict) and any(k is node for k in parent.keys):
        return True
    if isinstance(parent, ast.Subscript) or (isinstance(parent, ast.Call) and parent.args and
                                             parent.args[0] is node and isinstance(parent.func, ast.Attribute)
                                             and parent.func.attr in ("setdefault", "__setitem__")):
        return True  # stores: judged in stored_keys
    return isinstance(parent, ast.Compare)


def stored_keys(source: Source, node: ast.AST):
    """(key, value node) for each string key ``node`` stores into a dict."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if isinstance(const(key), str):
                yield const(key), value
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(const(target.slice), str):
                yield const(target.slice), node.value
    elif isinstance(node, ast.Call):
        if source.qual(node.func) == "dict":
            for keyword in node.keywords:
                if keyword.arg:
                    yield keyword.arg, keyword.value
        elif (isinstance(node.func, ast.Attribute) and node.func.attr in ("setdefault", "__setitem__")
              and len(node.args) >= 2 and isinstance(const(node.args[0]), str)):
            yield const(node.args[0]), node.args[1]
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            for keyword in node.keywords:
                if keyword.arg:
                    yield keyword.arg, keyword.value
