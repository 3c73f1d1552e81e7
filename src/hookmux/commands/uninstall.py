"""``hookmux uninstall``: remove exactly hookmux's entries and installed files; restore the
user's files kept as ``.legacy``."""
from __future__ import annotations

import argparse
import os
import sys

from hookmux.commands import adopt
from hookmux.commands.install import add_location_flags, plugin_hosts
from hookmux.errors import InstallError
from hookmux.installer import apply, codex_install, codex_trust, cursor_hooks, host_plugins, qwen_hooks, show, \
    transaction
from hookmux.installer import plan as install_plan
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.wiring_files import absolute

HELP = "remove hookmux's entries, installed files and the folders it created"


def configure(parser: argparse.ArgumentParser) -> None:
    add_location_flags(parser)
    parser.add_argument("--managed", action="store_true",
                        help="as root: remove what `install --managed` made (the tree in /opt/hookmux/hooks, "
                             "hookmux's entries in Claude Code's managed settings and its block in "
                             "/etc/codex/requirements.toml, its Copilot policy hook file)")
    parser.add_argument("--codex", action="store_true",
                        help="accepted with --managed, as install takes it (the block goes with --managed anyway)")
    parser.add_argument("--copilot", action="store_true",
                        help="accepted with --managed, as install takes it (hookmux's Copilot policy hook file "
                             "goes with --managed anyway)")
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")


def run(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    if args.codex and not args.managed:
        err.write("hookmux: --codex goes with --managed (the user's own Codex wiring is --codex-home DIR)\n")
        return 1
    if args.copilot and not args.managed:
        err.write("hookmux: --copilot goes with --managed (the user's own Copilot wiring is --copilot-hooks-dir DIR)\n")
        return 1
    if args.managed:
        code = _managed(args, out, err)  # Codex's block first: it must not run a tree that is gone
        if code:
            return code
    code = _plugins(args, absolute(args.target), out, err)  # first: a host must not run a tree that is gone
    if code:
        return code
    target = absolute(args.target)
    settings = absolute(args.settings)
    copilot_dir = absolute(args.copilot_hooks_dir) if args.copilot_hooks_dir else None
    codex_home = absolute(args.codex_home) if args.codex_home else None
    gemini_home = absolute(args.gemini_home) if args.gemini_home else None
    cursor_file = cursor_hooks.hooks_file() if args.cursor else None
    qwen_file = qwen_hooks.settings_file() if args.qwen else None
    try:
        codex_bin = codex_trust.find_codex(args.codex_bin)
    except codex_trust.CodexTrustError as exc:
        err.write(f"hookmux: {exc}\n")
        return 1
    try:
        # planning first refuses bad input before even the lock file is created
        plan = install_plan.plan_uninstall(target, settings, copilot_dir, codex_home, gemini_home, cursor_file, qwen_file)
        if args.dry_run:
            adopt.undo(target, out, err, locked=True, dry_run=True)
            show.describe(plan, out)
            return 0
        if plan.old_record is None and not any(c.changed for c in plan.wiring):
            out.write(f"hookmux: nothing of hookmux's found for {target}\n")
            return 0  # nothing to do: not even the lock file is created
        with transaction.lock():
            # hooks moved behind the dispatcher by `hookmux adopt` go back first (own transaction)
            if adopt.undo(target, out, err, locked=True):
                return 1
            plan = install_plan.plan_uninstall(target, settings, copilot_dir, codex_home, gemini_home, cursor_file, qwen_file)
            trusted_before = codex_install.snapshot(plan, codex_bin)
            code = apply.execute(plan, out, err)
    except (JsonFileError, InstallError) as exc:
        err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
        return 1
    if code == 0 and plan.old_record is None and not any(c.changed for c in plan.wiring):
        out.write(f"hookmux: nothing of hookmux's found for {target}\n")
    elif code == 0:
        out.write(f"hookmux: uninstalled from {target}\n")
        for change in plan.wiring:
            if change.changed:
                out.write(f"hookmux: {'removed' if change.new is None else 'unwired'} {change.path}\n")
    if code == 0:
        from hookmux.commands import serve

        serve.stop(str(target))  # an ``install --serve`` server outlives nothing it answered for
        code = codex_install.after(plan, codex_bin, trusted_before, out, err)
    return code


def _plugins(args: argparse.Namespace, target, out, err) -> int:
    """Take out hookmux's opencode plugin and Pi extension: those asked for (``--opencode``,
    ``--pi``), and any that runs this hooks tree (the plugin file names it)."""
    asked = plugin_hosts(args)
    for host in host_plugins.HOSTS:
        if host not in asked and not host_plugins.runs_from(host, target):
            continue
        try:
            removed = host_plugins.uninstall(host, dry_run=args.dry_run)
        except InstallError as exc:
            err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
            return 1
        if removed is not None:
            out.write(f"would remove {removed}\n" if args.dry_run else f"hookmux: removed {removed}\n")
    return 0


def _managed(args: argparse.Namespace, out, err) -> int:
    """Point ``args`` at the managed layout and take hookmux's block out of Codex's requirements."""
    from hookmux import protection
    from hookmux.commands.install import _write_root_file
    from hookmux.installer import codex_requirements

    if os.geteuid() != 0:
        err.write("hookmux: --managed needs root (sudo hookmux uninstall --managed)\nhookmux: nothing was changed\n")
        return 1
    paths = protection.managed_paths(args.managed_root)
    args.target, args.settings = str(paths.target), str(paths.settings)
    policy = paths.copilot_policy  # hookmux's file alone: it goes whole
    if protection.copilot_gate_commands(policy):
        if args.dry_run:
            out.write(f"would remove {policy} (hookmux's Copilot policy hook)\n")
        else:
            try:
                os.unlink(policy)
            except OSError as exc:
                err.write(f"hookmux: {policy}: {exc}\nhookmux: nothing was changed\n")
                return 1
            out.write(f"hookmux: removed {policy}\n")
    path = paths.codex_requirements
    try:
        old = path.read_text(encoding="utf-8")
        new = codex_requirements.without_block(old)
    except FileNotFoundError:
        return 0
    except (OSError, ValueError, codex_requirements.BlockError) as exc:
        err.write(f"hookmux: {path}: {exc}\nhookmux: nothing was changed\n")
        return 1
    if new == old:
        return 0
    if args.dry_run:
        out.write(f"would unwire {path} (hookmux's block)\n")
        return 0
    try:
        if new.strip():
            _write_root_file(path, old, new)
            out.write(f"hookmux: unwired {path}\n")
        else:  # nothing of the administrator's in it: the file was hookmux's alone
            os.unlink(path)
            out.write(f"hookmux: removed {path}\n")
    except OSError as exc:
        err.write(f"hookmux: {path}: {exc}\nhookmux: nothing was changed\n")
        return 1
    return 0
