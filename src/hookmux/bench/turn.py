"""``hookmux bench --turn claude``: what the hooks add to one agent turn of the real host.

The Claude Code binary that ``tests/e2e/install-clis.sh`` puts in ``.e2e/`` runs ``claude -p``
against the loopback stand-in model (hookmux.standin.anthropic, the e2e suite's), which
answers the first request with one ``Bash`` call (``echo hello``) and the next with text.
Each wiring has its own temporary HOME and project (a git repository):

- ``bare``: no hooks;
- ``install``: ``hookmux install`` (command hooks in ``~/.claude/settings.json``);
- ``serve``: ``hookmux install --serve`` (HTTP hooks answered by ``hookmux serve``, started
  before the first round);
- ``plugin``: the plugin from a local marketplace (``claude plugin marketplace add`` +
  ``claude plugin install hookmux@hookmux``).

Rounds run every wiring once, starting one wiring further along each round. Per run: the wall
time of the ``claude`` process, and the tool interval: from the moment the stand-in has written
the reply carrying the ``tool_use`` to the arrival of the request carrying its result (the
PreToolUse and PostToolUse/PostToolBatch hooks and the call itself). Medians, and each over bare.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from hookmux.bench import report
from hookmux.standin import hosts
from hookmux.standin.anthropic import ModelServer, ToolUse
from hookmux.standin.base import offers_tools

WIRINGS = ("bare", "install", "serve", "plugin")
TITLES = {"bare": "no hooks", "install": "hookmux install", "serve": "hookmux install --serve",
          "plugin": "the plugin (local marketplace)"}
COMMAND = "echo hello"
PLUGIN = "hookmux@hookmux"
RUN_TIMEOUT = 120
GATE_SCRIPT = "danger_gate.py"  # starts on every Bash call in every wiring: proof the hooks are wired


class TurnBenchError(Exception):
    """The bench cannot run (no binary, a wiring that does not install, a run that fails)."""


def find_claude(e2e_dir: Optional[Path] = None) -> Path:
    """The Claude Code binary under ``e2e_dir`` (default: ``.e2e`` of the working directory,
    then of the checkout hookmux runs from)."""
    if os.environ.get("HOOKMUX_E2E_CLAUDE_BIN"):
        candidates = [Path(os.environ["HOOKMUX_E2E_CLAUDE_BIN"])]
    elif e2e_dir is not None:
        candidates = [hosts.cli_path(e2e_dir, hosts.CLAUDE_PACKAGE, "claude")]
    else:
        checkout = Path(__file__).resolve().parents[3]
        candidates = [hosts.cli_path(folder / ".e2e", hosts.CLAUDE_PACKAGE, "claude")
                      for folder in dict.fromkeys([Path.cwd(), checkout])]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise TurnBenchError(
        "no Claude Code binary at " + " or ".join(str(p) for p in candidates)
        + f"; install the pinned one from the checkout with: {hosts.INSTALL_COMMAND} (or pass --e2e DIR)")


@dataclass
class Wiring:
    name: str
    root: Path
    env: dict
    binary: Path
    walls: list = field(default_factory=list)
    tools: list = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def run(self, *args: str, tool: str = "", check: bool = True) -> subprocess.CompletedProcess:
        cmd = [tool or sys.executable, *([] if tool else ["-m", "hookmux.cli"]), *args]
        proc = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise TurnBenchError(f"{self.name}: {' '.join(cmd)} exited {proc.returncode}: "
                                 f"{(proc.stderr or proc.stdout).strip()[-600:]}")
        return proc

    def set_up(self, source: Path) -> None:
        self.home.mkdir(parents=True)
        self.project.mkdir()
        for args in (["init", "-q", "-b", "main"], ["config", "user.email", "bench@example.invalid"],
                     ["config", "user.name", "bench"], ["commit", "-q", "--allow-empty", "-m", "init"]):
            self.run(*args, tool="git")
        target, settings = str(self.home / ".claude" / "hooks"), str(self.home / ".claude" / "settings.json")
        if self.name == "install":
            self.run("install", "--target", target, "--settings", settings)
        elif self.name == "serve":
            self.run("install", "--serve", "--target", target, "--settings", settings)
            self.run("serve", "--ensure", "--target", target)
            deadline = time.monotonic() + 60
            while self.run("serve", "--check", "--target", target, check=False).returncode != 0:
                if time.monotonic() > deadline:
                    raise TurnBenchError(f"serve: hookmux serve --target {target} did not come up within 60 s")
                time.sleep(0.2)
        elif self.name == "plugin":
            market = hosts.marketplace(self.root, source)
            self.run("plugin", "marketplace", "add", str(market), tool=str(self.binary))
            self.run("plugin", "install", PLUGIN, tool=str(self.binary))

    def tear_down(self) -> None:
        if self.name == "serve":
            self.run("serve", "--stop", "--target", str(self.home / ".claude" / "hooks"), check=False)


def _tool_result(body, call_id: str) -> Optional[str]:
    for message in (body or {}).get("messages", []) if isinstance(body, dict) else []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                inner = block.get("content", "")
                if isinstance(inner, list):
                    return "\n".join(b.get("text", "") for b in inner if isinstance(b, dict))
                return str(inner)
    return None


def one_run(wiring: Wiring, server: ModelServer, debug_log: Optional[Path] = None) -> tuple[float, float]:
    """(wall ms, tool interval ms) of one turn; TurnBenchError when the turn did not do its job."""
    server.script([ToolUse("Bash", {"command": COMMAND})])
    cmd = hosts.claude_command(wiring.binary, "--allowedTools", "Bash", debug_log=debug_log)
    env = hosts.claude_env(wiring.env, server.url)
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=wiring.project, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise TurnBenchError(f"{wiring.name}: claude did not exit within {RUN_TIMEOUT} s") from None
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise TurnBenchError(f"{wiring.name}: claude exited {proc.returncode}: {proc.stderr.strip()[-600:]}")
    if not server.issued:
        raise TurnBenchError(f"{wiring.name}: claude never asked the stand-in model for a turn")
    call_id = server.issued[0]
    sent = server.sent_at.get(call_id)
    for recorded in server.recorded():
        result = _tool_result(recorded.body, call_id) if offers_tools(recorded.body) else None
        if result is not None and sent is not None:
            if "hello" not in result:
                raise TurnBenchError(f"{wiring.name}: the Bash call's result is {result[:200]!r}, not `hello`")
            return 1000 * wall, 1000 * (recorded.at - sent)
    raise TurnBenchError(f"{wiring.name}: no request carried the result of the Bash call")


def _gate_started(debug_log: Path) -> bool:
    try:
        text = debug_log.read_text(errors="replace")
    except OSError:
        return False
    return any(GATE_SCRIPT in line for line in text.splitlines() if "Hooks:" in line and "finished" in line)


def _version(binary: Path, env: dict) -> str:
    try:
        return subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                              env=env).stdout.split(" (", 1)[0].strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run_turn_bench(binary: Path, runs: int = 10, warmup: int = 1, wirings=WIRINGS,
                   source: Optional[Path] = None,
                   progress: Callable[[str], None] = lambda message: None) -> dict:
    """Set up each wiring, run interleaved rounds, tear down; the result (see report_turn)."""
    from hookmux import resources

    source = Path(source) if source else resources.hooks_tree().parent
    names = ["bare"] + [name for name in wirings if name != "bare"]
    started = time.monotonic()
    machine = {"nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
               "cpu_model": report.cpu_model(), "loadavg_1min": report.loadavg()}
    tmp = Path(tempfile.mkdtemp(prefix="turn-bench-"))
    runtime = tmp / "runtime"
    runtime.mkdir()
    table: dict[str, Wiring] = {}
    try:
        for name in names:
            root = tmp / name
            root.mkdir()
            env = hosts.base_env(root / "home", {"HOOKMUX_RUNTIME_DIR": str(runtime)})
            table[name] = Wiring(name, root, env, binary)
        version = _version(binary, table["bare"].env | {"HOME": str(tmp)})
        with ModelServer() as server:
            for wiring in table.values():
                progress(f"setting up {wiring.name} ({TITLES[wiring.name]})")
                wiring.set_up(source)
            for round_index in range(max(1, warmup) + runs):
                timed = round_index >= max(1, warmup)
                order = names[round_index % len(names):] + names[:round_index % len(names)]
                for name in order:
                    wiring = table[name]
                    log = wiring.root / "debug.log" if round_index == 0 else None
                    wall, tool = one_run(wiring, server, log)
                    if log is not None and _gate_started(log) != (name != "bare"):
                        raise TurnBenchError(f"{name}: the gate {'did not start' if name != 'bare' else 'started'} "
                                             f"for the Bash call (debug log {log})")
                    if timed:
                        wiring.walls.append(wall)
                        wiring.tools.append(tool)
                if timed:
                    progress(f"round {round_index - max(1, warmup) + 1}/{runs}")
    finally:
        for wiring in table.values():
            try:
                wiring.tear_down()
            except (OSError, subprocess.SubprocessError, TurnBenchError):
                pass
        shutil.rmtree(tmp, ignore_errors=True)  # the warm pools see their folder gone and leave
    machine["loadavg_1min_end"] = report.loadavg()
    bare = table["bare"]
    # The plugin's commands run `python3` from PATH (a version-manager shim costs ~50 ms a call).
    machine["plugin_python3"] = shutil.which("python3", path=bare.env["PATH"]) or "none"
    out = {"host": "claude", "version": version, "command": COMMAND, "machine": machine,
           "settings": {"runs": runs, "warmup": max(1, warmup), "seconds": round(time.monotonic() - started, 1)},
           "wirings": {}}
    for name, wiring in table.items():
        wall, tool = statistics.median(wiring.walls), statistics.median(wiring.tools)
        out["wirings"][name] = {
            "title": TITLES[name], "wall_ms": wiring.walls, "tool_ms": wiring.tools,
            "median_wall_ms": wall, "median_tool_ms": tool,
            "wall_over_bare_ms": wall - statistics.median(bare.walls),
            "tool_over_bare_ms": tool - statistics.median(bare.tools),
        }
    return out


def format_turn(result: dict) -> str:
    machine, settings = result["machine"], result["settings"]
    load = "load average %s -> %s" % tuple(
        "?" if machine.get(k) is None else "%.2f" % machine[k] for k in ("loadavg_1min", "loadavg_1min_end"))
    lines = [
        f"Claude Code {result['version']}: one Bash call (`{result['command']}`) per run, "
        f"{settings['runs']} interleaved runs per wiring (+{settings['warmup']} warm-up), medians; "
        f"nproc {machine['nproc']}, {machine['cpu_model']}, {load}, {settings['seconds']} s.",
        "",
        "| wiring | wall ms | over bare | tool interval ms | over bare |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, entry in result["wirings"].items():
        over = "" if name == "bare" else "%+.0f" % entry["wall_over_bare_ms"]
        tool_over = "" if name == "bare" else "%+.1f" % entry["tool_over_bare_ms"]
        lines.append(f"| {name}: {entry['title']} | {entry['median_wall_ms']:.0f} | {over} | "
                     f"{entry['median_tool_ms']:.1f} | {tool_over} |")
    if "plugin" in result["wirings"]:
        lines += ["", f"The plugin's hooks run `python3` from PATH: {machine['plugin_python3']}."]
    return "\n".join(lines)
