"""``hookmux adopt``: move the user's own Python command hooks behind the dispatcher (plan,
``--apply``, ``--undo``)."""
from __future__ import annotations

import argparse
import sys

from hookmux.commands.install import DEFAULT_SETTINGS, DEFAULT_TARGET
from hookmux.errors import InstallError
from hookmux.installer import transaction
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.wiring_files import absolute

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
    from hookmux.adopt import user_layer

    if user_layer.runs_as_plugin(target, settings) or \
            (args.undo and not (target / ".hookmux-installed.json").exists() and user_layer.adopted_here()):
        if copilot_dir is not None:
            err.write("hookmux: with hookmux as a plugin, adopt moves the Claude Code settings' hooks into the "
                      "user layer; --copilot-hooks-dir needs a settings install\nhookmux: nothing was changed\n")
            return 1
        return _run_layer(args, settings, out, err)
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


def _run_layer(args, settings, out, err) -> int:
    """adopt, --apply and --undo against the user layer (hookmux runs as a plugin)."""
    from hookmux.adopt import apply as adopt_apply, user_layer
    from hookmux.adopt.plan import AdoptError, describe, to_json

    try:
        if args.undo:
            with transaction.lock():
                plan = user_layer.plan_undo()
                if plan is None:
                    out.write(f"hookmux: nothing adopted into {user_layer.layer_path()}\n")
                    return 0
                code = adopt_apply.run_transaction(lambda journal: user_layer.apply_undo(plan, journal), err)
            if code == 0:
                for note in plan.notes:
                    err.write(f"hookmux: {note}\n")
                written = ", ".join(str(path) for path, _, _ in plan.writes) or "no file changed"
                out.write(f"hookmux: put the adopted hooks back ({written})\n")
            return code
        plan = user_layer.build(settings)
        out.write(to_json(plan) if args.json else "")
        if not args.json:
            describe(plan, out)
        if not args.apply or not plan.adopted:
            if plan.adopted and not args.json:
                out.write("\nnothing written; run with --apply to adopt\n")
            return 0
        with transaction.lock():
            plan = user_layer.build(settings)
            from hookmux.commands.new_check import _validate_layer  # the dispatcher's merge, as new-check checks it

            code = adopt_apply.run_transaction(lambda journal: user_layer.apply(plan, journal, _validate_layer), err)
    except (AdoptError, JsonFileError, InstallError) as exc:
        err.write(f"hookmux: {exc}\nhookmux: nothing was changed\n")
        return 1
    if code == 0:
        out.write(f"\nhookmux: adopted {len(plan.adopted)} hook(s) into the user layer {plan.layer} "
                  f"(undo record {user_layer.record_path(plan.layer)})\n")
    return code
