"""``hookmux install`` / ``uninstall`` / ``status``: copy the hooks tree into a live hooks
directory and wire it into Claude Code settings and Copilot hook files, losing nothing of the
user's.

atomic     crash-safe file writes, backups, fault-injection points
jsonfile   load a user's JSON file (refusing malformed input) and write it back in its own style
commands   recognise hookmux's own hook commands by content
settings_json / copilot_file   merge hookmux's entries into each host's format and take them out
tree       copy the hooks tree, keeping foreign files as ``.legacy``
record     ``<target>/.hookmux-installed.json``: what was installed, wired and created
plan       the whole transaction: plan, dry-run diff, apply with rollback, lock
"""
