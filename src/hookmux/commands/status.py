"""``hookmux status``: what is installed where, whether the installed tree matches the package,
and whether each wired interpreter and script exists. Exit 1 when anything is wrong."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from hookmux import layer_report, plugin_installs, protection, resources
from hookmux.commands.install import add_location_flags, plugin_hosts
from hookmux.installer import codex_install, codex_trust, cursor_hooks, gemini_extension, host_plugins, qwen_hooks
from hookmux.installer.inspect import render, status
from hookmux.installer.wiring_files import absolute

HELP = "show what hookmux installed where and whether it still works"


def configure(parser: argparse.ArgumentParser) -> None:
    add_location_flags(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    target = absolute(args.target)
    copilot_dir = absolute(args.copilot_hooks_dir) if args.copilot_hooks_dir else None
    codex_home = absolute(args.codex_home) if args.codex_home else None
    gemini_home = absolute(args.gemini_home) if args.gemini_home else None
    try:
        codex_bin = codex_trust.find_codex(args.codex_bin)
    except codex_trust.CodexTrustError as exc:
        sys.stderr.write(f"hookmux: {exc}\n")
        return 1
    cursor_file = cursor_hooks.hooks_file() if args.cursor else None
    qwen_file = qwen_hooks.settings_file() if args.qwen else None
    report = status(target, absolute(args.settings), copilot_dir, codex_home, gemini_home, cursor_file, qwen_file)
    codex_install.annotate_status(report, codex_bin)
    # The other way of installing (plugin) and the manifest layers (docs/install.md).
    installs = plugin_installs.found(project=os.getcwd(), codex_home=codex_home, claude_settings=args.settings)
    plugin_installs.annotate_status(report, installs, codex_bin, codex_home)
    gemini_extension.annotate_status(report, gemini_extension.found(project=os.getcwd()))
    layers = layer_report.check(target / "_dispatch" / "manifest.json" if report.get("installed")
                                else resources.shipped_manifest(), None if report.get("installed") else
                                resources.hooks_tree())
    report["layers"] = layers.as_dict()
    report["problems"] += layers.errors
    report["allowances"] = _allowances()
    report["protection"] = protection.level(args.managed_root)
    report["cursor_twice"] = cursor_hooks.wired_twice(Path.home())
    # hookmux's opencode plugin and Pi extension: asked for, or found where the host loads them
    report["host_plugins"] = [item for item in (host_plugins.status(host) for host in host_plugins.HOSTS)
                              if item["installed"] or item["problems"] or item["host"] in plugin_hosts(args)]
    for item in report["host_plugins"]:
        report["problems"] += item["problems"]
    text = render(report) + protection.render(report["protection"]) + plugin_installs.render_status(report) + gemini_extension.render_status(report)
    text += host_plugins.render_status(report)
    text += layer_report.render(layers)
    text += _render_allowances(report)
    text += f"warning:   {report['cursor_twice']}\n" if report["cursor_twice"] else ""
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else text)
    return 1 if report["problems"] else 0


def _allowances() -> list[dict]:
    """The danger gate's allowances in force (``hookmux allow``)."""
    from hookmux.commands import allow

    module = allow.allowances()
    return module.live(module.read(allow.state_dir()))


def _render_allowances(report: dict) -> str:
    from hookmux.commands import allow

    return "danger gate allowances (hookmux allow):\n" + allow.render(report["allowances"])
