"""``hookmux adopt``: move the user's own Python command hooks behind the dispatcher (plan,
``--apply``, ``--undo``)."""
from __future__ import annotations

import argparse
import os
import sys

from hookmux.commands.install import DEFAULT_SETTINGS, DEFAULT_TARGET
from hookmux.errors import InstallError
from hookmux.installer import transaction
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.wiring_files import absolute

# Adopting writes the user's rows into an installed manifest and records how to undo it there;
# with only the plugin there is no such install (docs/install.md, "Two ways to install").
_AS_PLUGIN = ("hookmux: {target}: no settings install here, and hookmux runs as a plugin ({plugin}): adopt moves "
              "your hooks into an installed manifest, which a plugin has not\n"
              "hookmux: either add each hook as a row of the user layer by hand (~/.config/hookmux/manifest.json; "
              "a layer row's script may be an absolute path: docs/install.md), or switch to the settings install "
              "and adopt there\nhookmux: nothing was changed\n")
HELP = "move your own Python command hooks behind the dispatcher (prints the plan; --apply writes it)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=DEFAULT_TARGET,
                        help=f"the hooks folder hookmux is installed in (default {DEFAULT_TARGET})")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS,
                        help=f"Claude Code settings file whose hooks to adopt (default {DEFAULT_SETTINGS})")
    parser.add_argument("--copilot-hooks-dir", metavar="DIR",
                        help="also adopt from the Copilot hook files in DIR (its hookmux.json runs the dispatcher)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--apply", action="store_true",
                      help="add a manifest row per adoptable hook and remove its own settings entry")
    mode.add_argument("--undo", action="store_true", help="put every adopted hook back exactly as it was")
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")


def run(args: argparse.Namespace) -> int:
    from hookmux.adopt import apply as adopt_apply
    from hookmux.adopt.plan import AdoptError, build, describe, to_json

    out, err = sys.stdout, sys.stderr
    target = absolute(args.target)
    settings = absolute(args.settings)
    copilot_dir = absolute(args.copilot_hooks_dir) if args.copilot_hooks_dir else None
    if not args.undo and not (target / ".hookmux-installed.json").exists():
        from hookmux import plugin_installs

        installs = plugin_installs.found(project=os.getcwd(), claude_settings=settings)
        if installs:
            err.write(_AS_PLUGIN.format(plugin=installs[0].plugin_id, target=target))
            return 1
    try:
        if args.undo:
            return undo(target, out, err)
        plan = build(target, settings, copilot_dir)
        if args.json:
            out.write(to_json(plan))
        else:
            describe(plan, out)
        if not args.apply or not plan.adopted:
            if plan.adopted and not args.json:
                out.write("\nnothing written; run with --apply to adopt\n")
            return 0
        with transaction.lock():
            plan = build(target, settings, copilot_dir)
            code = adopt_apply.run_transaction(lambda journal: adopt_apply.apply(plan, journal), err)
    except (AdoptError, JsonFileError, InstallError) as exc:
        err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
        return 1
    if code == 0:
        out.write(f"\nhookmux: adopted {len(plan.adopted)} hook(s) into {plan.manifest_path}\n")
        for file_plan in plan.files:
            if file_plan.changed:
                out.write(f"hookmux: rewired {file_plan.path}\n")
    return code


def undo(target, out, err, *, locked: bool = False, dry_run: bool = False) -> int:
    """Put the adopted hooks back; ``locked``: the caller (uninstall) holds the install lock."""
    from hookmux.adopt import apply as adopt_apply

    plan = adopt_apply.plan_undo(target)
    if plan is None:
        if not locked:
            out.write(f"hookmux: nothing adopted in {target}\n")
        return 0
    if dry_run:
        adopt_apply.describe_undo(plan, out)
        return 0
    if not locked:
        with transaction.lock():
            plan = adopt_apply.plan_undo(target)
            return _undo(plan, out, err)
    return _undo(plan, out, err)


def _undo(plan, out, err) -> int:
    from hookmux.adopt import apply as adopt_apply

    if plan is None:
        return 0
    code = adopt_apply.run_transaction(lambda journal: adopt_apply.apply_undo(plan, journal), err)
    if code == 0:
        for note in plan.notes:
            err.write(f"hookmux: {note}\n")
        written = ", ".join(str(path) for path, _, _ in plan.writes) or "no file changed"
        out.write(f"hookmux: put the adopted hooks back ({written})\n")
    return code
