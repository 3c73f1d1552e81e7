"""The Codex steps of install / uninstall / status: trust around the hooks.json rewrite.

install    after the file is written: trust exactly hookmux's entries of this target (the
           ones already trusted keep their record: an unchanged command line keeps its hash),
           drop records whose hook is gone, and give a user's trusted hook that moved to
           another index its trust back. No codex binary: say how to trust, exit 0.
uninstall  after the entries are gone: the same clean-up, so hookmux's records go with them.
status     each hookmux entry's trust as Codex reports it; untrusted (or unknown, without a
           binary) is a problem, because Codex would skip the hook silently.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from hookmux.installer import codex_trust, commands
from hookmux.installer.codex_trust import CodexTrustError

HOW_TO_TRUST = "open Codex, type /hooks and trust hookmux's hooks (or install again with --codex-bin PATH)"


def codex_files(plan) -> list:
    """The plan's changes to Codex hooks files."""
    return [change for change in plan.wiring if change.host.name == "codex"]


def codex_home_of(hooks_file: os.PathLike | str) -> Path:
    return Path(hooks_file).parent


def snapshot(plan, codex_bin: str | None) -> dict[str, dict[str, str]]:
    """Before writing: the user's trusted hooks of each Codex file hookmux is about to change."""
    target = str(plan.target)
    out = {}
    if codex_bin is None:
        return out
    for change in codex_files(plan):
        if change.changed and change.old is not None:
            try:
                out[str(change.path)] = codex_trust.snapshot(codex_bin, codex_home_of(change.path), change.path,
                                                             lambda c: bool(commands.ours(c, target)))
            except CodexTrustError:
                pass  # the step after the rewrite reports the same failure
    return out


def after(plan, codex_bin: str | None, before: dict[str, dict[str, str]], out: TextIO, err: TextIO) -> int:
    """Trust (install) or forget (uninstall) in every Codex file of ``plan``; the exit status."""
    changes = codex_files(plan)
    if not changes:
        return 0
    target = str(plan.target)
    if codex_bin is None:
        if not plan.uninstall:
            for change in changes:
                err.write(f"hookmux: no codex binary found (PATH or --codex-bin): Codex will skip hookmux's "
                          f"hooks in {change.path} until they are trusted; {HOW_TO_TRUST}\n")
        return 0
    status = 0
    for change in changes:
        home, trusted_before = codex_home_of(change.path), before.get(str(change.path))
        try:
            if plan.uninstall:
                report = codex_trust.forget_own(codex_bin, home, change.path, trusted_before)
            else:
                report = codex_trust.trust_own(codex_bin, home, change.path,
                                               lambda c: bool(commands.ours(c, target)),
                                               trusted_before=trusted_before)
        except CodexTrustError as exc:
            err.write(f"hookmux: {change.path}: {'trusting' if not plan.uninstall else 'removing the trust of'} "
                      f"hookmux's hooks in Codex failed: {exc}\n")
            if not plan.uninstall:
                err.write(f"hookmux: Codex will skip them until they are trusted; {HOW_TO_TRUST}\n")
            status = 1
            continue
        if plan.uninstall:
            if report.forgotten:
                out.write(f"hookmux: removed {len(report.forgotten)} Codex trust record(s) of {change.path}\n")
        else:
            out.write(f"hookmux: Codex trusts hookmux's hooks in {change.path} "
                      f"({len(report.trusted)} newly trusted, {len(report.kept)} already)\n")
    return status


def annotate_status(report: dict, codex_bin: str | None) -> None:
    """Add each Codex entry's ``trust`` to a ``hookmux status`` report, and problems for untrusted ones."""
    for item in report["wired"]:
        if item.get("host") != "codex" or not item.get("exists") or "error" in item:
            continue
        ours = [entry for entry in item["entries"] if entry["this_target"]]
        if not ours:
            continue
        if codex_bin is None:
            for entry in ours:
                entry["trust"] = "untrusted"
            report["problems"].append(f"{item['file']}: cannot check Codex's trust (no codex binary on PATH or "
                                      f"--codex-bin): counted as untrusted; {HOW_TO_TRUST}")
            continue
        try:
            hooks = codex_trust.trust_state(codex_bin, codex_home_of(item["file"]), item["file"])
        except CodexTrustError as exc:
            report["problems"].append(f"{item['file']}: cannot check Codex's trust: {exc}")
            continue
        by_command = {}
        for hook in hooks:
            by_command.setdefault(hook.command, []).append(hook.trust_status)
        for entry in ours:
            states = by_command.get(entry["command"]) or ["not loaded"]
            entry["trust"] = states.pop(0)
            if entry["trust"] != "trusted":
                report["problems"].append(f"{item['file']}: {entry['event']} {entry['role']} is {entry['trust']} "
                                          f"in Codex, which skips it; {HOW_TO_TRUST}")
