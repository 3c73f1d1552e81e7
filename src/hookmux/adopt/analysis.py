"""What a Python hook does, decided from its source (AST); the file is never run.

A hook is **adoptable** when the dispatcher can import it and call its ``main()`` with the same
effect as running it: a top-level ``main()`` or ``main(argv)``, a ``__main__`` block that only
calls it, nothing at import time but definitions and plain values, and none of the
behaviours that differ inside the dispatcher (docs/adopt.md lists each). It is a **blocker**
when it can stop or steer the host — exit 2 (also through a variable or ``sys.exit(main())``),
a ``permissionDecision``/``decision``/``updatedInput`` key, ``"continue": False`` — because the
dispatcher only advises; ``hookmux.blocking`` decides that, for ``validate`` too. Everything
else, including what the analysis cannot decide, is **not adoptable**, with the reason.
"""
from __future__ import annotations

import ast
import re
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import blocking
from hookmux.blocking import EXIT_CALLS
from hookmux.pysource import Source, const as _const


def _stdlib_names() -> frozenset:
    """sys.stdlib_module_names (3.10+); on 3.9 the built-in modules and what the interpreter's own
    library folders hold."""
    if hasattr(sys, "stdlib_module_names"):
        return frozenset(sys.stdlib_module_names)
    names = set(sys.builtin_module_names)
    for key in ("stdlib", "platstdlib"):
        base = Path(sysconfig.get_paths()[key])
        for folder in (base, base / "lib-dynload"):
            for entry in folder.iterdir() if folder.is_dir() else ():
                if entry.is_dir() and entry.name != "site-packages" and (entry / "__init__.py").exists():
                    names.add(entry.name)
                elif entry.suffix in (".py", ".so", ".pyd"):
                    names.add(entry.name.split(".")[0])
    return frozenset(names)


STDLIB_MODULES = _stdlib_names()
ADOPTABLE = "adoptable"
BLOCKER = "blocker"
NOT_ADOPTABLE = "not adoptable"

DROPPED_KEYS = {"systemMessage"}
# Events on which the host takes a hook's plain-text stdout as context (the dispatcher does not).
TEXT_CONTEXT_EVENTS = {"UserPromptSubmit", "SessionStart", "userPromptSubmitted", "sessionStart"}
ARGV_NAMES = {"argv", "args", "arguments", "cli_args", "argv_list"}

# Calls allowed at import time: they compute values and touch nothing the dispatcher shares.
_PURE_CALL_PREFIXES = ("re.", "os.path.", "pathlib.", "collections.", "typing.", "dataclasses.",
                       "enum.", "functools.", "itertools.", "string.", "json.loads", "textwrap.",
                       "datetime.", "shlex.", "fnmatch.", "logging.getLogger", "os.environ.get",
                       "os.getenv", "os.getcwd", "os.fspath", "os.path", "hashlib.", "platform.")
_PURE_BUILTINS = {"frozenset", "set", "dict", "list", "tuple", "str", "int", "float", "bool", "len",
                  "sorted", "range", "min", "max", "any", "all", "zip", "enumerate", "map", "filter",
                  "reversed", "isinstance", "getattr", "hasattr", "repr", "abs", "round", "bytes", "object",
                  "type", "property", "staticmethod", "classmethod", "super", "sum", "chr", "ord", "hex", "id"}
_PURE_METHODS = {"resolve", "parent", "expanduser", "absolute", "with_name", "with_suffix", "joinpath",
                 "format", "join", "split", "rsplit", "strip", "rstrip", "lstrip", "lower", "upper", "replace",
                 "get", "copy", "items", "keys", "values", "encode", "decode", "splitlines", "startswith",
                 "endswith", "compile", "read_text", "read_bytes", "exists", "is_file", "is_dir", "as_posix",
                 "partition", "casefold", "title", "union", "intersection", "difference", "fromkeys", "update"}


@dataclass
class Verdict:
    kind: str
    reason: str = ""
    #: how the dispatcher has to call main: "none" (main()), "argv" (main(args after the script)),
    #: "argv0" (main([script, *args]) for a main that reads argv[0] as the program name)
    call: str = "none"
    findings: list[str] = field(default_factory=list)  #: every reason found, strongest first


def classify_file(path: Path, event: str) -> Verdict:
    try:
        source = path.read_bytes()
    except OSError as exc:
        return Verdict(NOT_ADOPTABLE, f"{path}: cannot read ({exc.strerror})")
    return classify_source(source, event, path)


def classify_source(source: bytes | str, event: str, path: Path | None = None) -> Verdict:
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return Verdict(NOT_ADOPTABLE, f"does not parse{f' (line {line})' if line else ''}")
    return _Analysis(tree, text, event, path).verdict()


class _Analysis(Source):
    def __init__(self, tree: ast.Module, text: str, event: str, path: Path | None):
        super().__init__(tree)
        self.text = text
        self.event = event
        self.path = path
        self.blockers: list[str] = []
        self.problems: list[str] = []
        self.guard = next((n for n in tree.body if isinstance(n, ast.If) and _is_main_test(n.test)), None)

    # ------------------------------------------------------------ result

    def verdict(self) -> Verdict:
        call = self._main_shape()
        self._top_level()
        self._whole_module()
        self._dropped_keys()
        for block in blocking.blocks(self):  # can it block? blocking's one answer
            self.blocker(block.node, block.reason)
        self._script_metadata()
        if self.blockers:
            return Verdict(BLOCKER, self.blockers[0], call or "none", self.blockers + self.problems)
        if self.problems or call is None:
            return Verdict(NOT_ADOPTABLE, self.problems[0], "none", self.problems)
        return Verdict(ADOPTABLE, "main() runs the same behind the dispatcher", call, [])

    def problem(self, node: ast.AST | None, message: str) -> None:
        where = f"line {node.lineno}: " if node is not None and hasattr(node, "lineno") else ""
        self.problems.append(where + message)

    def blocker(self, node: ast.AST | None, message: str) -> None:
        where = f"line {node.lineno}: " if node is not None and hasattr(node, "lineno") else ""
        self.blockers.append(where + message)

    # ------------------------------------------------------------ main and the __main__ block

    def _main_shape(self) -> str | None:
        """How the dispatcher must call main(); None (with a problem) when it cannot stand in."""
        main = self.functions.get("main")
        if main is None:
            self.problem(None, "no top-level main() for the dispatcher to call")
            return None
        if isinstance(main, ast.AsyncFunctionDef):
            self.problem(main, "main() is async")
            return None
        params = main.args.posonlyargs + main.args.args
        required = len(params) - len(main.args.defaults)
        kw_required = [a for a, d in zip(main.args.kwonlyargs, main.args.kw_defaults) if d is None]
        if required > 1 or kw_required:
            self.problem(main, "main() needs more than one argument")
            return None
        if self.guard is None:
            if any(self._calls_main(stmt) for stmt in self.tree.body):
                self.problem(None, "calls main() at import time, not under if __name__ == '__main__'")
            else:
                self.problem(None, "nothing calls main() when the file runs (no __main__ block)")
            return None
        calls = []
        for stmt in self.guard.body:
            shape = self._guard_statement(stmt)
            if shape is None:
                self.problem(stmt, "the __main__ block does more than call main()")
                return None
            if shape:
                calls.append(shape)
        if len(calls) != 1:
            self.problem(self.guard, "the __main__ block does not call main() exactly once")
            return None
        passed = calls[0]
        takes = bool(params) or main.args.vararg is not None
        if passed == "none" and takes:
            # The dispatcher calls main(args) whenever main takes a parameter.
            first = params[0].arg if params else main.args.vararg.arg
            if first not in ARGV_NAMES:
                self.problem(main, f"main({first}=...) would be called with the argument list")
                return None
            return "argv"
        return passed

    def _guard_statement(self, stmt: ast.stmt) -> str | None:
        """"none"/"argv"/"argv0" for the one call of main, "" for a harmless statement, None otherwise."""
        if isinstance(stmt, ast.Pass):
            return ""
        if isinstance(stmt, ast.Try):
            inner = [self._guard_statement(s) for s in stmt.body]
            if None in inner or not all(self._harmless_handler(h) for h in stmt.handlers) or stmt.finalbody:
                return None
            found = [s for s in inner if s]
            return found[0] if len(found) == 1 else ("" if not found else None)
        value = None
        if isinstance(stmt, ast.Expr):
            value = stmt.value
        elif isinstance(stmt, ast.Raise) and stmt.exc is not None:
            value = stmt.exc
        if not isinstance(value, ast.Call):
            return None
        if self.qual(value.func) in EXIT_CALLS:
            if not value.args:
                return ""
            value = value.args[0]
            if not isinstance(value, ast.Call):
                return "" if isinstance(value, ast.Constant) else None
        if isinstance(value.func, ast.Name) and value.func.id == "main":
            if value.keywords or len(value.args) > 1:
                return None
            if not value.args:
                return "none"
            arg = value.args[0]
            if self.qual(arg) == "sys.argv":
                return "argv0"
            if (isinstance(arg, ast.Subscript) and self.qual(arg.value) == "sys.argv"
                    and isinstance(arg.slice, ast.Slice) and _const(arg.slice.lower) == 1 and arg.slice.upper is None):
                return "argv"
            return None
        return None

    def _harmless_handler(self, handler: ast.ExceptHandler) -> bool:
        for stmt in handler.body:
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                name = self.qual(stmt.value.func)
                if name in EXIT_CALLS:
                    continue
                if name == "builtins.print" and any(k.arg == "file" for k in stmt.value.keywords):
                    continue
            return False
        return True

    def _calls_main(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "main"
                   for n in ast.walk(node))

    # ------------------------------------------------------------ import time

    def _top_level(self) -> None:
        for stmt in self.tree.body:
            if stmt is self.guard:
                continue
            if not self._pure_statement(stmt):
                self.problem(stmt, "does work at import time (the dispatcher imports the file; "
                                   "only definitions and plain values may run then)")
                return

    def _pure_statement(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
            return True
        if isinstance(stmt, ast.ClassDef):
            return all(self._pure(d) for d in stmt.decorator_list + stmt.bases)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defaults = stmt.args.defaults + [d for d in stmt.args.kw_defaults if d is not None]
            return all(self._pure(d) for d in stmt.decorator_list + defaults)
        if isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return True
            call = stmt.value
            return (isinstance(call, ast.Call) and self.qual(call.func) in ("sys.path.insert", "sys.path.append")
                    and all(self._pure(a) for a in call.args))
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(not isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred)) for n in targets):
                return False
            return stmt.value is None or self._pure(stmt.value)
        if isinstance(stmt, ast.If):
            return self._pure(stmt.test) and all(self._pure_statement(s) for s in stmt.body + stmt.orelse)
        if isinstance(stmt, ast.Try):
            return all(self._pure_statement(s) for s in stmt.body + stmt.orelse + stmt.finalbody) and all(
                self._pure_statement(s) for h in stmt.handlers for s in h.body)
        return False

    def _pure(self, expr: ast.AST) -> bool:
        for node in ast.walk(expr):
            if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
                return False
            if isinstance(node, ast.Call) and not self._pure_call(node):
                return False
            if isinstance(node, ast.Lambda):
                continue
        return True

    def _pure_call(self, call: ast.Call) -> bool:
        name = self.qual(call.func)
        if name in _PURE_BUILTINS or name.startswith(_PURE_CALL_PREFIXES) or name in ("Path", "PurePath"):
            return True
        if name in self.functions:
            return not self._touches_io(self.functions[name])
        if name in {n.name for n in self.tree.body if isinstance(n, ast.ClassDef)}:
            return True
        if isinstance(call.func, ast.Attribute) and call.func.attr in _PURE_METHODS:
            return True
        return False

    def _touches_io(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            name = self.qual(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else ""
            if name.startswith(("sys.stdin", "sys.stdout", "sys.exit", "builtins.print", "builtins.input",
                                "builtins.exit", "os._exit", "subprocess")):
                return True
        return False

    # ------------------------------------------------------------ anywhere in the file

    def _whole_module(self) -> None:
        guard_nodes = set(ast.walk(self.guard)) if self.guard is not None else set()
        main = self.functions.get("main")
        main_param = None
        if main is not None:
            params = main.args.posonlyargs + main.args.args
            main_param = params[0].arg if params else None
        top_imports = set()
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                top_imports.add(stmt)
        folder = self.path.parent if self.path is not None else None
        for node in ast.walk(self.tree):
            if node in guard_nodes:
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node, folder, node in top_imports)
                continue
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
                self._reference(node, main_param)
            if isinstance(node, ast.Call):
                self._call(node)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    name = self.qual(target) if isinstance(target, ast.Attribute) else ""
                    if name in ("sys.stdout", "sys.stderr", "sys.stdin"):
                        self.problem(node, f"rebinds {name}, which the dispatcher shares between checks")
                    if isinstance(target, ast.Subscript) and self.qual(target.value) == "os.environ":
                        self.problem(node, "changes os.environ for every check in the dispatcher")

    def _reference(self, node: ast.AST, main_param: str | None) -> None:
        name = self.qual(node)
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute):
            return  # judged at the outermost attribute
        if name == "sys.argv" or name.startswith("sys.argv."):
            if self._argv_default(node, main_param):
                return
            if isinstance(parent, ast.Subscript) and _const(parent.slice) == 0:
                self.problem(node, "reads sys.argv[0] (the dispatcher's path behind it)")
            else:
                self.problem(node, "reads sys.argv (the dispatcher's own arguments behind it)")
        elif name in ("sys.__stdout__", "sys.__stdin__") or name.startswith(("sys.__stdout__.", "sys.__stdin__.")):
            self.problem(node, f"uses {name.split('.')[1]} (the real fd, not the dispatcher's capture)")

    def _argv_default(self, node: ast.AST, param: str | None) -> bool:
        """``sys.argv[1:] if argv is None else argv``: the dispatcher always passes a list."""
        if param is None:
            return False
        current = node
        while current in self.parents:
            parent = self.parents[current]
            if isinstance(parent, (ast.If, ast.IfExp)) and current is not parent.test:
                test = parent.test
                if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == param
                        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
                        and _const(test.comparators[0], missing=object()) is None):
                    in_body = current in (parent.body if isinstance(parent, ast.If) else [parent.body])
                    return in_body
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return False
            current = parent
        return False

    def _call(self, call: ast.Call) -> None:
        name = self.qual(call.func)
        method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        keywords = {k.arg for k in call.keywords}
        first = call.args[0] if call.args else None
        if name in ("os._exit", "os.abort") or (name == "os.kill" and first is not None
                                                 and self.qual(getattr(first, "func", first)) == "os.getpid"):
            self.problem(call, f"{name}() ends the dispatcher process, and every other check with it")
        elif name in ("os.write", "os.read", "os.fdopen", "builtins.open", "io.open", "os.dup2") and call.args:
            target = call.args[1] if name == "os.dup2" and len(call.args) > 1 else first
            fd = _const(target)
            if fd in (0, 1, "/dev/stdout", "/dev/stdin", "/dev/fd/0", "/dev/fd/1") or self._is_std_fileno(target):
                self.problem(call, f"{name}() on fd {fd if fd is not None else '0/1'} directly "
                                   "(the dispatcher points fd 1 at /dev/null and has read fd 0)")
        elif method == "fileno" and self.qual(call.func.value) in ("sys.stdout", "sys.stdin"):
            self.problem(call, f"{self.qual(call.func.value)}.fileno(): the dispatcher's streams have no fd")
        elif name in ("os.system", "os.popen", "os.fork", "os.forkpty", "pty.spawn") or name.startswith(
                ("os.exec", "os.spawn", "os.posix_spawn")):
            self.problem(call, f"{name}() runs a process that writes to fd 1 (or replaces the dispatcher)")
        elif name in ("subprocess.run", "subprocess.call", "subprocess.Popen", "subprocess.check_call") and not (
                keywords & {"stdout", "capture_output"}):
            self.problem(call, f"{name}() without stdout= lets the child write to fd 1, "
                               "which is /dev/null behind the dispatcher")
        elif name == "atexit.register":
            self.problem(call, "atexit handlers never run: the dispatcher ends with os._exit")
        elif name in ("signal.signal", "signal.alarm", "signal.setitimer"):
            self.problem(call, f"{name}() works only in the main thread; checks run in threads")
        elif name in ("os.chdir", "os.putenv", "os.environ.update", "os.environ.setdefault", "os.environ.pop",
                      "os.environ.clear", "os.unsetenv"):
            self.problem(call, f"{name}() changes the process every other check runs in")
        elif name in ("threading.Thread", "multiprocessing.Process") and not any(
                k.arg == "daemon" and _const(k.value) is True for k in call.keywords):
            self.problem(call, f"{name} without daemon=True: the dispatcher exits without waiting for it")
        elif name.startswith("fileinput."):
            self.problem(call, "fileinput reads the files named in sys.argv")
        elif method in ("parse_args", "parse_known_args") and not call.args and not keywords & {"args"}:
            self.problem(call, f"{method}() without arguments parses sys.argv (the dispatcher's behind it)")
        elif name in ("json.dumps", "json.dump") and any(
                k.arg == "indent" and _const(k.value, missing=0) is not None for k in call.keywords):
            self.problem(call, "prints indented JSON; the dispatcher reads one JSON object per line")
        elif name.startswith("select.") or name.startswith("selectors."):
            self.problem(call, f"{name}() needs a real stdin fd")
        if self.event in TEXT_CONTEXT_EVENTS and self._prints_text(call, name):
            self.problem(call, f"prints plain text, which the host adds as context on {self.event}; "
                               "the dispatcher passes on JSON only")

    def _is_std_fileno(self, node: ast.AST | None) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "fileno"
                and self.qual(node.func.value) in ("sys.stdout", "sys.stdin"))

    def _prints_text(self, call: ast.Call, name: str) -> bool:
        if name == "builtins.print":
            if any(k.arg == "file" for k in call.keywords):
                return False
        elif not name.startswith("sys.stdout.write"):
            return False
        if not call.args:
            return False
        arg = call.args[0]
        if isinstance(arg, ast.Call) and self.qual(arg.func) == "json.dumps":
            return False
        if isinstance(arg, ast.Name):
            values = self.assignments.get(arg.id, [])
            if values and all(isinstance(v, ast.Call) and self.qual(v.func) == "json.dumps" for v in values):
                return False
        text = _const(arg)
        return not (isinstance(text, str) and text.lstrip().startswith("{"))

    def _import(self, node: ast.Import | ast.ImportFrom, folder: Path | None, top: bool) -> None:
        if isinstance(node, ast.ImportFrom) and node.level:
            self.problem(node, "a relative import (the dispatcher imports the file as a top-level module)")
            return
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        for full in names:
            top_name = full.split(".")[0]
            if top_name in STDLIB_MODULES or top_name == "__future__":
                continue
            local = folder is not None and ((folder / f"{top_name}.py").is_file() or (folder / top_name).is_dir())
            if local:
                if not top:
                    self.problem(node, f"imports {top_name} from its own folder inside a function; the "
                                       "dispatcher puts that folder on sys.path only while importing the file")
                continue
            if self._optional_import(node):
                continue
            self.problem(node, f"imports {top_name}, which is not in the standard library "
                               "(the dispatcher runs hookmux's interpreter with -S)")

    def _optional_import(self, node: ast.AST) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError", "Exception")
            for h in parent.handlers)

    def _script_metadata(self) -> None:
        block = re.search(r"^# /// script\s*$(.*?)^# ///\s*$", self.text, re.M | re.S)
        if block and re.search(r"dependencies\s*=\s*\[[^\]]*[\"']", block.group(1)):
            self.problem(None, "declares script dependencies (PEP 723) the dispatcher's interpreter lacks")

    # ------------------------------------------------------------ output the dispatcher drops

    def _dropped_keys(self) -> None:
        for node in ast.walk(self.tree):
            for key, _ in blocking.stored_keys(self, node):
                if key in DROPPED_KEYS:
                    self.problem(node, f"emits {key!r}, which the dispatcher drops")


# ---------------------------------------------------------------- helpers


def _is_main_test(test: ast.AST) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1
