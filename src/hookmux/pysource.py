"""A Python file read from its AST, never run: what its names refer to and which constant
values an expression can take. ``blocking`` and adopt's ``analysis`` judge a file with it."""
from __future__ import annotations

import ast

# Builtins whose meaning matters to the analyses (unless the file defines a function so named).
_BUILTINS = {"exit", "quit", "print", "open", "input", "SystemExit", "__import__"}


class Source:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.aliases: dict[str, str] = {}  #: local name -> the dotted name it was imported as
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.assignments: dict[str, list[ast.AST]] = {}  #: name -> every value (or node) bound to it
        self._collect_names()

    def _collect_names(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in target_names(target):
                        self.assignments.setdefault(name, []).append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
                self.assignments.setdefault(node.target.id, []).append(node.value if not isinstance(
                    node, ast.AugAssign) else node)
            elif isinstance(node, (ast.For, ast.With, ast.NamedExpr, ast.AsyncFor)):
                targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr)) else [
                    item.optional_vars for item in node.items if item.optional_vars is not None]
                for target in targets:
                    for name in target_names(target):
                        self.assignments.setdefault(name, []).append(node)

    def qual(self, node: ast.AST) -> str:
        """The dotted name an expression refers to (``sys.stdout.write``), or ""."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in _BUILTINS and node.id not in self.functions:
                return "SystemExit" if node.id == "SystemExit" else f"builtins.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return f"{base}.{node.attr}" if base else ""
        return ""

    def values(self, expr: ast.AST | None, depth: int) -> set | None:
        """The constant values ``expr`` can take, or None when the analysis cannot tell."""
        if depth > 6:
            return None
        if expr is None:
            return {None}
        if isinstance(expr, ast.Constant):
            return {expr.value}
        if isinstance(expr, ast.IfExp):
            return union(self.values(expr.body, depth + 1), self.values(expr.orelse, depth + 1))
        if isinstance(expr, ast.BoolOp):
            out: set | None = set()
            for operand in expr.values:
                out = union(out, self.values(operand, depth + 1))
            return out
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.values(expr.operand, depth + 1)
            return None if inner is None or not all(isinstance(v, (int, float)) for v in inner) else {-v for v in inner}
        if isinstance(expr, ast.Name):
            if expr.id in self.aliases:
                return None
            sources = self.assignments.get(expr.id)
            if not sources:
                return None
            out = set()
            for source in sources:
                if not isinstance(source, ast.expr):
                    return None
                out = union(out, self.values(source, depth + 1))
                if out is None:
                    return None
            return out
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.functions:
            return self.returns(self.functions[expr.func.id], depth + 1)
        if isinstance(expr, ast.Call) and self.qual(expr.func) in ("builtins.print",):
            return {None}
        return None

    def returns(self, function: ast.AST, depth: int) -> set | None:
        out: set | None = {None}
        for node in own_nodes(function):
            if isinstance(node, ast.Return):
                out = union(out, self.values(node.value, depth))
                if out is None:
                    return None
        return out


def const(node: ast.AST | None, missing=None):
    return node.value if isinstance(node, ast.Constant) else missing


def target_names(target: ast.AST):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def union(a: set | None, b: set | None) -> set | None:
    return None if a is None or b is None else a | b


def own_nodes(function: ast.AST):
    """The nodes of ``function``'s body, not those of functions or classes nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))
