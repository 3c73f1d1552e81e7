"""What ``install --dry-run`` and ``uninstall --dry-run`` print: each file operation of a plan,
and a unified diff of every file whose content changes (adopt's undo prints the same diff)."""
from __future__ import annotations

import difflib
from typing import TextIO

from hookmux.installer import record as records, tree
from hookmux.installer.plan import Plan


def diff(name: str, old: bytes | None, new: bytes | None) -> str:
    """A unified diff of a file's bytes (None: the file does not exist), ending in a newline."""
    def lines(data):
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    out = "".join(difflib.unified_diff(lines(old), lines(new), fromfile=name if old is not None else "/dev/null",
                                       tofile=name if new is not None else "/dev/null"))
    return out if out.endswith("\n") or not out else out + "\n"


def describe(plan: Plan, out: TextIO) -> None:
    target = plan.target
    if plan.tree is not None:
        tp = plan.tree
        for rel, legacy in tp.moves.items():
            out.write(f"move   {target / rel} -> {target / legacy}\n")
        for rel in tp.backups:
            out.write(f"backup {target / rel}\n")
        for rel in tp.writes:
            out.write(f"write  {target / rel}\n")
            if rel == tree.MANIFEST and (target / rel).is_file():  # merged into the user's: show how
                out.write(diff(str(target / rel), (target / rel).read_bytes(), tp.writes[rel].data))
        for rel in tp.deletes:
            out.write(f"delete {target / rel}\n")
        for name in plan.extra_writes:
            out.write(f"write  {name}\n")
        record_path = records.path_of(target)
        if not record_path.is_file() or plan.record.to_bytes() != record_path.read_bytes():
            out.write(f"write  {record_path}\n")
    for rel in plan.removals:
        out.write(f"delete {target / rel}\n")
    for rel, data in plan.rewrites.items():
        out.write(diff(str(target / rel), (target / rel).read_bytes(), data))
    for legacy, rel in plan.restores.items():
        out.write(f"move   {target / legacy} -> {target / rel}\n")
    if plan.uninstall and plan.old_record is not None:
        out.write(f"delete {records.path_of(target)}\n")
    for change in plan.wiring:
        if change.changed:
            out.write(diff(str(change.path), change.old, change.new))
