"""``hookmux install``: copy the hooks tree into a live hooks folder and wire it into Claude Code
settings (and a Copilot hooks file), keeping everything of the user's."""
from __future__ import annotations

import argparse
import json
import os
import sys

from hookmux import plugin_installs, wiring
from hookmux.errors import InstallError
from hookmux.installer import apply, codex_install, codex_trust, cursor_hooks, gemini_extension, gemini_hooks, \
    host_plugins, plan as install_plan, qwen_hooks, show, transaction
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.wiring_files import absolute

HELP = "install the hooks into a hooks folder and wire them into Claude Code / Copilot / Codex"
DEFAULT_TARGET = "~/.claude/hooks"
DEFAULT_SETTINGS = "~/.claude/settings.json"


def add_location_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=DEFAULT_TARGET,
                        help=f"the hooks folder (default {DEFAULT_TARGET})")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS,
                        help=f"Claude Code settings file (default {DEFAULT_SETTINGS}; "
                             "a project's .claude/settings.json works too)")
    parser.add_argument("--copilot-hooks-dir", metavar="DIR",
                        help="also wire Copilot CLI: writes DIR/hookmux.json "
                             "(e.g. ~/.copilot/hooks or a repo's .github/hooks)")
    parser.add_argument("--codex-home", metavar="DIR",
                        help="also wire OpenAI Codex CLI: DIR/hooks.json, trusted in DIR/config.toml "
                             "(DIR is Codex's CODEX_HOME, normally ~/.codex)")
    parser.add_argument("--codex-bin", metavar="PATH",
                        help="the codex binary that trusts the hooks (default: codex on PATH)")
    parser.add_argument("--gemini-home", metavar="DIR",
                        help="also wire Gemini CLI: DIR/settings.json (~/.gemini for the user, "
                             "<project>/.gemini for one trusted project)")
    parser.add_argument("--cursor", action="store_true",
                        help="also wire Cursor: ~/.cursor/hooks.json (Cursor's own format, beside your entries)")
    parser.add_argument("--opencode", action="store_true",
                        help="also wire opencode: hookmux's plugin in ~/.config/opencode/plugin/hookmux.js "
                             "(opencode loads every file there; docs/install.md)")
    parser.add_argument("--pi", action="store_true",
                        help="also wire Pi: hookmux's extension in ~/.pi/agent/extensions/hookmux.js")
    parser.add_argument("--qwen", action="store_true",
                        help="also wire Qwen Code: ~/.qwen/settings.json (its hooks, beside your entries and settings)")
    # The root of the managed layout (install --managed, the protection level): tests use a throwaway /.
    parser.add_argument("--managed-root", metavar="DIR", default="", help=argparse.SUPPRESS)


def configure(parser: argparse.ArgumentParser) -> None:
    add_location_flags(parser)
    parser.add_argument("--python", metavar="PATH",
                        help="interpreter the hooks run with (default: the one running hookmux, "
                             "resolved past pyenv/asdf shims)")
    parser.add_argument("--agents-dir", action="append", default=[], metavar="DIR",
                        help="regenerate the installed agent registry from these folders plus the "
                             "shipped names (repeatable)")
    parser.add_argument("--source", metavar="DIR",
                        help="install this hooks tree instead of the package's own (development)")
    parser.add_argument("--serve", action="store_true",
                        help="wire Claude Code's dispatcher events as HTTP hooks answered by `hookmux serve` "
                             "(started by a SessionStart hook; docs/serve.md); Copilot and Codex keep command hooks")
    parser.add_argument("--managed", action="store_true",
                        help="as root: wire Claude Code's managed settings (/etc/claude-code/managed-settings.json) "
                             "to a root-owned tree in /opt/hookmux/hooks run by /usr/bin/python3, so that no process "
                             "of the user can remove or edit the guard (docs/danger-gate.md, protection levels)")
    parser.add_argument("--codex", action="store_true",
                        help="with --managed: also wire the danger gate into Codex's administrator requirements "
                             "(/etc/codex/requirements.toml), keeping everything else in that file")
    parser.add_argument("--copilot", action="store_true",
                        help="with --managed: also wire the danger gate as a Copilot CLI policy hook "
                             "(/etc/github-copilot/policy.d/hookmux.json), which disableAllHooks cannot turn off")
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")


def run(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    if getattr(args, "codex", False) and not getattr(args, "managed", False):
        err.write("hookmux: --codex goes with --managed (the user's own Codex wiring is --codex-home DIR)\n")
        return 1
    if getattr(args, "copilot", False) and not getattr(args, "managed", False):
        err.write("hookmux: --copilot goes with --managed (the user's own Copilot wiring is --copilot-hooks-dir DIR)\n")
        return 1
    if getattr(args, "managed", False):
        refused = _managed(args)
        if refused:
            err.write(f"hookmux: {refused}\nhookmux: nothing was changed\n")
            return 1
    target = absolute(args.target)
    settings = absolute(args.settings)
    copilot_dir = absolute(args.copilot_hooks_dir) if args.copilot_hooks_dir else None
    codex_home = absolute(args.codex_home) if args.codex_home else None
    gemini_home = absolute(args.gemini_home) if args.gemini_home else None
    cursor_file = cursor_hooks.hooks_file() if args.cursor else None
    qwen_file = qwen_hooks.settings_file() if args.qwen else None
    agents_dirs = [str(absolute(d)) for d in args.agents_dir]
    source = absolute(args.source) if args.source else None
    if source is not None and not (source / "_dispatch" / "manifest.json").is_file():
        err.write(f"hookmux: {source}: not a hooks tree (no _dispatch/manifest.json)\n")
        return 1
    if args.serve and not _loopback_supported():  # issue 32: the server could not tell who connects
        err.write("hookmux: --serve needs Linux (the kernel says which user a loopback connection comes from; "
                  "elsewhere the server would answer anyone): use command hooks (hookmux install without --serve)\n")
        return 1
    missing = [d for d in agents_dirs if not os.path.isdir(d)]
    if missing:
        err.write(f"hookmux: --agents-dir {missing[0]}: not a folder\n")
        return 1
    refused = plugin_installs.install_refusal(settings, copilot_dir, codex_home)  # never wired twice
    if refused:
        err.write(f"hookmux: {refused}\nhookmux: nothing was changed\n")
        return 1
    if gemini_home is not None:  # the extension too: a warning, not a refusal (docs/install.md)
        warning = gemini_extension.install_warning(gemini_extension.found(project=os.getcwd()),
                                                   gemini_hooks.settings_file(gemini_home))
        if warning:
            err.write(f"hookmux: warning: {warning}\n")
    try:
        codex_bin = codex_trust.find_codex(args.codex_bin)
    except codex_trust.CodexTrustError as exc:
        err.write(f"hookmux: {exc}\n")
        return 1
    try:
        python = wiring.resolve_python(args.python)
    except Exception as exc:
        err.write(f"hookmux: cannot use interpreter {args.python or sys.executable}: {exc}\n")
        return 1
    if not os.path.lexists(python):
        err.write(f"hookmux: interpreter {python}: no such file\n")
        return 1
    codex_managed = None
    if getattr(args, "codex", False):  # planned first: a file hookmux cannot add to refuses the whole install
        from hookmux.installer import codex_requirements

        try:
            codex_managed = _codex_managed_plan(args.managed_root, target, python)
        except codex_requirements.BlockError as exc:
            err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
            return 1
    copilot_managed = None
    if getattr(args, "copilot", False):  # planned first too
        try:
            copilot_managed = _copilot_managed_plan(args.managed_root, target, python)
        except InstallError as exc:
            err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
            return 1
    from hookmux.adopt.carry import Carry  # carries an adoption over a reinstall

    try:
        # planning first refuses bad input before even the lock file is created
        plan = install_plan.plan_install(target, settings, copilot_dir, python, agents_dirs, source, codex_home,
                                         serve=args.serve, preview=args.dry_run, readopt=Carry,
                                         gemini_home=gemini_home, cursor_file=cursor_file,
                                         qwen_file=qwen_file)
        plugins = [host_plugins.plan(host, python, target) for host in plugin_hosts(args)]
        if args.dry_run:
            show.describe(plan, out)
            for path, _, changed in plugins:
                out.write(f"would write {path} (hookmux's plugin)\n" if changed else f"unchanged {path}\n")
            if codex_managed is not None and codex_managed[1] != codex_managed[2]:
                out.write(f"would wire {codex_managed[0]} (hookmux's block: the danger gate for Codex)\n")
            if copilot_managed is not None and copilot_managed[1] != copilot_managed[2]:
                out.write(f"would wire {copilot_managed[0]} (hookmux's policy hook: the danger gate for Copilot)\n")
            return 0
        with transaction.lock():
            if args.serve and _serve_files().move_if_held(str(target)):  # issue 32: a squatted port
                err.write("hookmux: the kept serve port is held by another user's process: moved to a new one\n")
            plan = install_plan.plan_install(target, settings, copilot_dir, python, agents_dirs, source, codex_home,
                                             serve=args.serve, readopt=Carry, gemini_home=gemini_home,
                                             cursor_file=cursor_file, qwen_file=qwen_file)
            trusted_before = codex_install.snapshot(plan, codex_bin)
            code = apply.execute(plan, out, err)
            plugins = _write_plugins(args, python, target, err) if code == 0 else []
            code = 1 if plugins is None else code
    except (JsonFileError, InstallError) as exc:
        err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
        return 1
    if code == 0:
        out.write(f"hookmux: installed into {target} (python {python})\n")
        for change in plan.wiring:
            out.write(f"hookmux: wired {change.path}{'' if change.changed else ' (unchanged)'}\n")
        for path, changed in plugins:
            out.write(f"hookmux: wired {path}{'' if changed else ' (unchanged)'}\n")
        code = codex_install.after(plan, codex_bin, trusted_before, out, err)
        if getattr(args, "managed", False) and code == 0:
            code = _seal(target, settings, out, err)
        if codex_managed is not None and code == 0:
            code = _write_managed_file(*codex_managed, "Codex", out, err)
        if copilot_managed is not None and code == 0:
            code = _write_managed_file(*copilot_managed, "Copilot", out, err)
        if args.serve and _readable_by_others(settings):
            err.write(f"hookmux: warning: {settings} carries the `hookmux serve` secret and other users can read "
                      f"it; `chmod 600 {settings}` keeps them from driving the server\n")
    return code


def plugin_hosts(args: argparse.Namespace) -> list[str]:
    """The hosts whose plugin the command line asks for (``--opencode``, ``--pi``)."""
    return [host for host in host_plugins.HOSTS if getattr(args, host, False)]


def _write_plugins(args, python: str, target, err):
    """Write each asked-for plugin; [(path, changed)], or None (said on ``err``) when one failed."""
    written = []
    for host in plugin_hosts(args):
        try:
            written.append(host_plugins.install(host, python, target))
        except (OSError, InstallError) as exc:
            err.write(f"hookmux: installed, but the {host} plugin was not written: {exc}\n")
            return None
    return written


def _managed(args: argparse.Namespace) -> str:
    """Point ``args`` at the managed layout; why not, or ""."""
    from hookmux import protection

    if os.geteuid() != 0:
        return "--managed needs root (sudo hookmux install --managed): only then can no process of the user change it"
    if args.serve or args.copilot_hooks_dir or args.codex_home or args.gemini_home or args.cursor or args.qwen or \
            plugin_hosts(args):
        return ("--managed wires Claude Code's managed settings, Codex's requirements with --codex and Copilot's "
                "policy hooks with --copilot (not --serve, --codex-home, --copilot-hooks-dir, Cursor, Gemini or "
                "Qwen Code)")
    paths = protection.managed_paths(args.managed_root)
    python = args.python or protection.MANAGED_PYTHON
    reason = protection.untouchable(python)
    if reason:
        return f"--managed needs an interpreter only root can change: {reason}"
    args.target, args.settings, args.python = str(paths.target), str(paths.settings), python
    return ""


def _seal(target, settings, out, err) -> int:
    """Make the installed tree and the managed settings root's alone (owner root, no group/other write)."""
    from hookmux import protection

    for folder in (target, os.path.dirname(settings)):
        os.chmod(folder, 0o755)
    for dirpath, dirnames, filenames in os.walk(target):
        for name in [*dirnames, *filenames, ""]:
            path = os.path.join(dirpath, name) if name else dirpath
            if os.path.islink(path):
                continue
            os.chown(path, 0, 0)
            os.chmod(path, os.stat(path).st_mode & ~0o022)
    os.chown(settings, 0, 0)
    os.chmod(settings, 0o644)
    reason = protection.untouchable_tree(target) or protection.untouchable(settings)
    if reason:
        err.write(f"hookmux: installed, but a user could still change it: {reason}\n")
        return 1
    out.write(f"hookmux: managed: {settings} and {target} can be changed by root only\n")
    return 0


def _codex_managed_plan(root: str, target, python: str):
    """(requirements file, its text, the text with hookmux's block running the danger gate from
    ``target`` for Codex); ``codex_requirements.BlockError`` (naming the file) when it cannot be added."""
    from hookmux import protection, wiring
    from hookmux.installer import codex_hooks, codex_requirements
    from hookmux.installer.entries import GATE_TIMEOUT

    path = protection.managed_paths(root).codex_requirements
    (event, matcher), = codex_hooks.DANGER_EVENTS.items()
    command = codex_hooks.command(python, os.path.join(str(target), *wiring.DANGER_SCRIPT), event)
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    except (OSError, ValueError) as exc:
        raise codex_requirements.BlockError(f"{path}: cannot read it: {exc}") from exc
    try:
        return path, old, codex_requirements.with_block(old, command, matcher, GATE_TIMEOUT, str(target))
    except codex_requirements.BlockError as exc:
        raise codex_requirements.BlockError(f"{path}: {exc}") from exc


def _copilot_managed_plan(root: str, target, python: str):
    """(Copilot's policy hook file, its text, hookmux's text: the danger gate from ``target`` on
    ``preToolUse``); InstallError when a file of that name is not hookmux's."""
    from hookmux import protection, wiring
    from hookmux.installer.entries import COPILOT_DANGER_EVENTS, DANGER_TIMEOUT

    path = protection.managed_paths(root).copilot_policy
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path}: cannot read it: {exc}") from exc
    if old and not protection.copilot_gate_commands(path):
        raise InstallError(f"{path}: a file of that name that is not hookmux's (no danger gate in it): "
                           "move it, then install again")
    script = os.path.join(str(target), *wiring.DANGER_SCRIPT)
    hooks = [{"type": "command", "matcher": matcher, "bash": wiring.hook_command(python, script, event),
              "timeoutSec": DANGER_TIMEOUT} for event, matcher in COPILOT_DANGER_EVENTS.items()]
    new = json.dumps({"version": 1, "hooks": {"preToolUse": hooks}}, indent=2) + "\n"
    return path, old, new


def _write_managed_file(path, old: str, new: str, host: str, out, err) -> int:
    """Write a host's administrator file (atomically; root's, no group/other write) and check nobody else can change it."""
    from hookmux import protection

    try:
        changed = _write_root_file(path, old, new)
    except OSError as exc:
        err.write(f"hookmux: installed, but {path} could not be written: {exc}\n")
        return 1
    out.write(f"hookmux: wired {path}{'' if changed else ' (unchanged)'}\n")
    reason = protection.untouchable(path)
    if reason:
        err.write(f"hookmux: installed, but a user could still change it: {reason}\n")
        return 1
    out.write(f"hookmux: managed: {path} wires the danger gate for {host} and can be changed by root only\n")
    return 0


def _write_root_file(path, old: str, new: str) -> bool:
    """``new`` into ``path`` when it differs from ``old``; ``path`` and a folder made for it root's alone."""
    from hookmux.installer import atomic

    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o755)
        os.chown(path.parent, 0, 0)
    mode = atomic.file_mode(path)
    mode = 0o644 if mode is None else mode & ~0o022
    changed = new != old or not path.exists()
    if changed:
        atomic.write_atomic(path, new.encode("utf-8"), mode=mode)
    os.chown(path, 0, 0)
    os.chmod(path, mode)
    return changed


def _readable_by_others(path) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o044)
    except OSError:
        return False


def _serve_files():
    from hookmux.serve import files

    return files


def _loopback_supported() -> bool:
    from hookmux import resources

    return resources.runtime("loopback").supported()
