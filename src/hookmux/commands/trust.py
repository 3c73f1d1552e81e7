"""``hookmux trust``: let code run that a host or hookmux would otherwise skip.

    hookmux trust codex [--codex-home DIR] [--codex-bin PATH] [--forget]
    hookmux trust project [DIR] [--forget]

``codex``: Codex runs a plugin's hooks only once the user trusted them (``/hooks`` in the
TUI). This trusts exactly the hooks of the hookmux plugin (``hookmux@<marketplace>:...``
keys whose command runs the plugin's dispatcher or gate) through ``codex app-server``, the
way ``install --codex-home`` trusts a settings install (``installer/codex_trust.py``).
Codex's hash of a plugin hook covers the plugin's files too, so run it again after every
``codex plugin add`` of a new version. ``--forget`` removes those trust records (after
``codex plugin remove``, so that nothing of hookmux stays in ``config.toml``).

``project``: a project's ``.hookmux/manifest.json`` runs code from the repository, so the
dispatcher reads it only for folders listed in the user layer's ``trusted_projects``
(hooks/_common/layers.py). This adds DIR (default: the current folder) there, creating the
user layer when needed; ``--forget`` takes it out again.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from hookmux import plugin, resources
from hookmux.installer import atomic, codex_trust
from hookmux.plugin_installs import is_plugin_hook

HELP = "trust the hookmux plugin's hooks in Codex, or a project's .hookmux/manifest.json"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=("codex", "project"), help="codex: the plugin's hooks; project: DIR's layer")
    parser.add_argument("dir", nargs="?", metavar="DIR", help="project: the project folder (default: the cwd)")
    parser.add_argument("--codex-home", metavar="DIR", help="codex: the CODEX_HOME (default $CODEX_HOME or ~/.codex)")
    parser.add_argument("--codex-bin", metavar="PATH", help="codex: the codex binary (default: codex on PATH)")
    parser.add_argument("--forget", action="store_true", help="take the trust back")


def run(args: argparse.Namespace) -> int:
    if args.what == "codex":
        return trust_codex(args)
    return trust_project(args)


# ---------------------------------------------------------------- codex


def trust_codex(args: argparse.Namespace) -> int:
    home = Path(os.path.expanduser(args.codex_home or os.environ.get("CODEX_HOME") or "~/.codex")).absolute()
    try:
        codex = codex_trust.find_codex(args.codex_bin)
        if codex is None:
            sys.stderr.write("hookmux: no codex on PATH (give --codex-bin PATH); open Codex, type /hooks and trust "
                             "hookmux's hooks instead\n")
            return 1
        with codex_trust.AppServer(codex, home) as server:
            if args.forget:
                keys = [key for key in server.trust_records() if key.split(":", 1)[0].startswith(plugin.NAME + "@")]
                server.forget(keys)
                if keys and not server.trust_records():
                    server.forget_all()
                print(f"hookmux: {len(keys)} trust record(s) of the hookmux plugin removed from {home}/config.toml")
                return 0
            hooks = [hook for hook in server.hooks() if is_plugin_hook(hook)]
            new = [hook for hook in hooks if not hook.trusted]
            server.trust(new)
    except codex_trust.CodexTrustError as exc:
        sys.stderr.write(f"hookmux: {exc}\n")
        return 1
    if not hooks:
        sys.stderr.write(f"hookmux: Codex in {home} lists no hook of the hookmux plugin: add it first "
                         f"(codex plugin marketplace add DIR; codex plugin add {plugin.NAME}@{plugin.MARKETPLACE})\n")
        return 1
    for hook in hooks:
        print(f"{hook.key}: {'trusted now' if hook in new else 'already trusted'}")
    print(f"hookmux: {len(new)} newly trusted, {len(hooks) - len(new)} already")
    return 0


# ---------------------------------------------------------------- project


def trust_project(args: argparse.Namespace) -> int:
    folder = Path(os.path.abspath(os.path.expanduser(args.dir or os.getcwd())))
    if not folder.is_dir():
        sys.stderr.write(f"hookmux: {folder}: not a folder\n")
        return 1
    path = Path(resources.runtime("manifest").user_layer_path())
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"version": 1}
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"hookmux: {path}: cannot read: {exc}\nhookmux: nothing was written\n")
        return 1
    if not isinstance(data, dict):
        sys.stderr.write(f"hookmux: {path}: not a JSON object\nhookmux: nothing was written\n")
        return 1
    trusted = data.get("trusted_projects")
    trusted = list(trusted) if isinstance(trusted, list) else []
    names = list(dict.fromkeys([str(folder), os.path.realpath(folder)]))  # as a host may spell it, and real
    if args.forget:
        kept = [entry for entry in trusted if entry not in names]
        changed = kept != trusted
        trusted = kept
    else:
        added = [name for name in names if name not in trusted]
        changed = bool(added)
        trusted += added
    if changed:
        data["trusted_projects"] = trusted
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_atomic(path, (json.dumps(data, indent=2) + "\n").encode())
    verb = "no longer reads" if args.forget else "reads"
    print(f"hookmux: the dispatcher {verb} {folder / '.hookmux' / 'manifest.json'} ({path}: trusted_projects)")
    return 0
